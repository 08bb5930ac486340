"""tabletop place STAND X Y: set a stand up, or move it as the referee's override."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    BEARING,
    STAND,
    command,
    dice_inputs,
    dice_option,
    emit_json,
    game_option,
    json_option,
    open_game,
    xy_arguments,
)  # fmt: skip


# A negative coordinate is a plain mistake to report as off the table, not an unknown
# option "-1"; so dash-words reach the arguments, and the rules check the table's edges.
@click.command("place", context_settings={"ignore_unknown_options": True})
@click.argument("stand", type=STAND)
@xy_arguments
@click.option("--facing", type=BEARING, default=None, help="Facing in degrees (0 = north).")
@dice_option
@game_option
@json_option
@command
def cli(
    stand: str, x: float, y: float, facing: float | None, dice: Any, game: Path, as_json: bool
) -> None:
    """Put STAND at X Y inches, optionally turned with --facing.

    The origin is the table's south-west corner; x runs east, y north. X,Y works too.

    For setting up. Once the game is under way, moves are made with 'tabletop move'; a
    place is then logged as the referee's override, with what 'move' would have refused.

    \b
    Example:
      tabletop place G-1 12 5.5 --facing 180
    """
    g = open_game(game)
    # Dice only when the ground gives way (thin ice, CD 11.3).
    out = g.execute(
        "place", {"stand": stand, "x": x, "y": y, "facing": facing}, **dice_inputs(dice)
    )
    r: dict[str, Any] = out.result
    if as_json:
        emit_json({"event": out.seq, **r})
        return
    moved = f', moved {r["moved"]:g}"' if r.get("moved") else ""
    terrain = f" in {', '.join(r['terrain'])}" if r["terrain"] else ""
    click.echo(
        f"{r['stand']} at {r['x']:g},{r['y']:g} facing {r['facing']:g}{terrain}{moved} "
        f"(event {out.seq})"
    )
    for note in r.get("notes") or []:
        click.echo(f"  {note}")
