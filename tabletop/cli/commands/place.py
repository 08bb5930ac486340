"""tabletop place STAND X Y: set a stand up, or move it as the referee's override."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    BEARING,
    STAND,
    SignedCommand,
    batch_items,
    batch_options,
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
@click.command("place", cls=SignedCommand)
@click.argument("stand", type=STAND, required=False)
@xy_arguments(required=False)
@click.option("--facing", type=BEARING, default=None, help="Facing in degrees (0 = north).")
@batch_options
@dice_option
@game_option
@json_option
@command
def cli(
    stand: str | None,
    x: float | None,
    y: float | None,
    facing: float | None,
    batch_more: tuple[str, ...],
    batch_file: Any,
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """Put STAND at X Y inches, optionally turned with --facing.

    The origin is the table's south-west corner; x runs east, y north. X,Y works too.

    For setting up. Once the game is under way, moves are made with 'tabletop move'; a
    place is then logged as the referee's override, with what 'move' would have refused.

    Several stands at once: add --and "STAND X Y [--facing F]" for each, or give a
    --file with one such line per stand. Each is checked in turn against the table
    and the stands already placed; if one is refused, none is placed. The batch is
    one event (one undo takes it all back).

    \b
    Example:
      tabletop place G-1 12 5.5 --facing 180
      tabletop place G-1 12 30 --and "G-2 14 30" --and "G-3 16 30 --facing 90"
      tabletop place --file setup.txt
    """
    items = [] if stand is None else [_inputs({"stand": stand, "x": x, "y": y, "facing": facing})]
    items += batch_items(cli, batch_more, batch_file, _inputs)
    if not items:
        raise click.UsageError("give STAND X Y, or --file with one 'STAND X Y' a line")
    named = [str(item["stand"]).upper() for item in items]
    twice = sorted({item["stand"] for item in items if named.count(str(item["stand"]).upper()) > 1})
    if twice:
        raise click.UsageError(
            f"{', '.join(twice)} given more than once: a batch places each stand once"
        )
    g = open_game(game)
    if len(items) > 1:
        out = g.execute("batch", {"command": "place", "items": items}, **dice_inputs(dice))
        if as_json:
            emit_json({"event": out.seq, **out.result})
            return
        click.echo(f"{out.result['count']} stands placed (event {out.seq})")
        for item in out.result["items"]:
            click.echo(f"  {_line(item)}")
        return
    # Dice only when the ground gives way (thin ice, CD 11.3).
    out = g.execute("place", items[0], **dice_inputs(dice))
    r: dict[str, Any] = out.result
    if as_json:
        emit_json({"event": out.seq, **r})
        return
    click.echo(f"{_line(r)} (event {out.seq})")
    for note in r.get("notes") or []:
        click.echo(f"  {note}")


def _inputs(params: dict[str, Any]) -> dict[str, Any]:
    """The place action's inputs from the command's parameters (one stand)."""
    if params.get("stand") is None or params.get("x") is None:
        raise click.UsageError("missing X Y: give the position as X Y (or X,Y) in inches")
    return {k: params.get(k) for k in ("stand", "x", "y", "facing")}


def _line(r: dict[str, Any]) -> str:
    moved = f', moved {r["moved"]:g}"' if r.get("moved") else ""
    terrain = f" in {', '.join(r['terrain'])}" if r["terrain"] else ""
    return f"{r['stand']} at {r['x']:g},{r['y']:g} facing {r['facing']:g}{terrain}{moved}"
