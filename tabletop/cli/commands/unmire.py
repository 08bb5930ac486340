"""tabletop unmire STAND: free a mired vehicle."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    STAND,
    command,
    dice_inputs,
    dice_option,
    executed,
    game_option,
    json_option,
    odds_option,
    open_game,
)  # fmt: skip


@click.command("unmire")
@odds_option
@click.argument("stand", type=STAND)
@click.option(
    "--assist",
    type=STAND,
    default=None,
    help="A vehicle of equal or greater weight class pushing or towing it.",
)
@click.option(
    "--push",
    "how",
    flag_value="push",
    default="tow",
    help="The helper pushes from behind (default: it tows from in front).",
)
@dice_option
@game_option
@json_option
@command
def cli(stand: str, assist: str | None, how: str, dice: Any, game: str, as_json: bool) -> None:
    """Try to unmire STAND, by itself or with help (CD 11.1.5), in the movement phase.

    By itself (a hasty advance order) it must roll over twice its miring number, once a
    turn, and moves 1" the way it faces. A helper in contact, of equal or greater weight
    class, tows it 1" towards itself (or pushes it 1" away, --push): both stands move,
    refused if the inch is blocked, and the helper rolls to see it does not mire. A
    freed vehicle moves on only next turn.

    \b
    Example:
      tabletop unmire G-5 --dice 9
      tabletop unmire US-3 --assist US-4
      tabletop unmire US-3 --assist US-4 --push
    """
    inputs: dict[str, Any] = {"stand": stand, "assist": assist}
    if assist and how == "push":
        inputs["how"] = how
    elif how == "push":
        raise click.BadParameter("--push needs --assist HELPER", param_hint="--push")
    out = open_game(game).execute("unmire", inputs, **dice_inputs(dice))
    if executed(out, as_json) is None:
        return
    rolls = ", ".join(str(v) for v in out.result["rolls"])
    click.echo(f"{out.result['verdict']}" + (f" (rolled {rolls})" if rolls else ""))
    moved = out.result.get("moved_to")
    if isinstance(moved, list):  # by itself: one stand moved
        moved = {out.result["stand"]: moved}
    for who, (x, y) in (moved or {}).items():
        click.echo(f"  {who} now at {x:g},{y:g}")
