"""tabletop move STAND X,Y: a refereed move, priced and checked along its path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    BEARING,
    POINT,
    STAND,
    command,
    dice_inputs,
    dice_option,
    emit_json,
    executed,
    game_option,
    json_option,
    open_game,
)  # fmt: skip


# A negative coordinate is a point off the table to report as such, not an unknown option.
@click.command("move", context_settings={"ignore_unknown_options": True})
@click.argument("stand", type=STAND)
@click.argument("to", type=POINT, metavar="X,Y")
@click.option("--via", type=POINT, multiple=True, help="A waypoint X,Y (repeat, in order).")
@click.option("--facing", type=BEARING, default=None, help="Facing at the end (degrees).")
@click.option("--check", is_flag=True, help="Dry run: cost, what it meets, odds; logs nothing.")
@dice_option
@game_option
@json_option
@command
def cli(
    stand: str,
    to: tuple[float, float],
    via: tuple[tuple[float, float], ...],
    facing: float | None,
    check: bool,
    dice: Any,
    game: Path,
    as_json: bool,
) -> None:
    """Move STAND to X,Y through each --via point, in straight legs.

    The path is priced piece by piece against the stand's allowance (terrain, roads,
    ground, weather); water is crossed at fords, on bridges that carry the stand, or on
    ice; obstacles, burning terrain, minefields, ice and miring apply where the path
    meets them. A road is followed by giving its points with --via. The enemy stands
    that could fire on the move in the opportunity fire phase are listed.

    \b
    Example:
      tabletop move US-3 30,12 --via 24,10
      tabletop move G-5 40,20 --check
    """
    inputs = {
        "stand": stand,
        "to": list(to),
        "via": [list(p) for p in via],
        "facing": facing,
    }
    g = open_game(game)
    if check:
        from tabletop.rules.cd.movement import check_move

        result = check_move(g.context(), inputs)
        if as_json:
            emit_json(result)
        else:
            _show(result, dry_run=True)
        if result["refused"]:
            raise click.exceptions.Exit(3)
        return
    out = g.execute("move", inputs, **dice_inputs(dice))
    r = executed(out, as_json)
    if r is None:
        return
    _show(r, dry_run=False)


def _show(r: dict[str, Any], *, dry_run: bool) -> None:
    event = "" if dry_run else f" (event {r['event']})"
    click.echo(f"{r['verdict']}{event}")
    for seg in r["segments"]:
        mult = "impassable" if seg["multiplier"] is None else f"x{seg['multiplier']:g}"
        click.echo(
            f'  {seg["length"]:.2f}" {seg["terrain"]}: {mult} = {seg["cost"]:.2f}" ({seg["rule"]})'
        )
    for e in r["crossed"]:
        click.echo(f"  {e['kind']} {e['id'] or ''} at {e['point'][0]:g},{e['point'][1]:g}: "
                   f"{e['result']} ({e['rule']})")  # fmt: skip
    if r.get("opportunity"):
        seen = ", ".join(f'{o["stand"]} ({o["range"]:g}")' for o in r["opportunity"])
        click.echo(f"  opportunity fire: {seen}")
    for outcome, p in (r.get("odds") or {}).items():
        click.echo(f"  odds: {outcome}: {p}")
