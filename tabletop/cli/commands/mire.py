"""tabletop mire STAND: the miring check at the end of a move in mud."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    POINT,
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


@click.command("mire")
@odds_option
@click.argument("stand", type=STAND)
@click.option(
    "--where",
    type=click.Choice(["open", "dirt-road", "hard-road"]),
    default=None,
    help="Where it moved (default: the worst ground its recorded move crossed, else the "
    "terrain under the stand).",
)
@click.option(
    "--across-mud",
    "across",
    type=POINT,
    nargs=2,
    default=None,
    help="Where it entered and left the mud, if it ended on safe ground.",
)
@dice_option
@game_option
@json_option
@command
def cli(stand: str, where: str | None, across: Any, dice: Any, game: Path, as_json: bool) -> None:
    """Roll the miring chart for a vehicle in mud (CD 11.1.4).

    STAND is a vehicle that moved in moderate or deep mud this turn: one roll per move,
    in the movement phase. What counts is the ground its move crossed (recorded by
    'tabletop move'), not only where it ended. Where no roll can mire it (hard road,
    light mud, a recovery vehicle) the answer is a refusal naming the rule.

    A vehicle that mires after crossing a patch of mud is placed halfway across it.

    \b
    Example:
      tabletop mire G-5 --where open --dice 3
      tabletop mire G-5 --across-mud 30,18 34,20
    """
    inputs = {
        "stand": stand,
        "where": where,
        "across": [list(p) for p in across] if across else None,
    }
    out = open_game(game).execute("mire", inputs, **dice_inputs(dice))
    if executed(out, as_json) is None:
        return
    r = out.result
    # The miring number is in the reason ("... mires on 2 or less (CD 11.1.4)"): said once.
    roll = f" (rolled {r['rolls'][0]})" if r["rolls"] else ""
    click.echo(f"{r['verdict']}{roll}; {r['because']} ({r['basis']})")
    if r.get("placed_at"):
        click.echo(
            f"  placed halfway across the mud at {r['placed_at'][0]:g},{r['placed_at'][1]:g}"
        )
