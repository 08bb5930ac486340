"""tabletop targets STAND: every enemy stand STAND can see now, with its chance to hit it."""

from __future__ import annotations

import textwrap
from typing import Any

import click

from tabletop.cli.core import (
    STAND,
    TABLE_WIDTH,
    command,
    emit_json,
    fit_table,
    game_option,
    json_option,
    view_option,
)
from tabletop.core.words import count, possessive


@click.command("targets")
@click.argument("stand", type=STAND)
@click.option("--weapon", default=None, help="Only this weapon (default: the best of its weapons).")
@view_option
@game_option
@json_option
@command
def cli(stand: str, weapon: str | None, view: str | None, game: str, as_json: bool) -> None:
    """Every enemy stand STAND can see now: range, best weapon, band, to-hit, chance of a hit.

    Worked by the same procedure as 'fire' (line of sight, spotting, range band,
    modifiers), with nothing rolled or logged. Each target gets the weapon likeliest to do
    more than no effect (then to hit, then the first carried); the enemies seen beyond every
    weapon's long range are listed on one line. Under a side's view (--view SIDE) STAND
    must be one of that side's own stands: what an enemy stand sees is not the side's to
    know.

    \b
    Example:
      tabletop targets US-4
      tabletop targets US-4 --weapon us-37mm-m6 --json
    """
    from tabletop.cli.core import chosen_view
    from tabletop.core.errors import UnknownStand
    from tabletop.core.sides import REFEREE
    from tabletop.game.reading import read_context
    from tabletop.rules.cd.targets import targets_of

    # Read only, as 'measure' reads: no engine, action registry or views to load.
    ctx = read_context(game)
    seen_by = chosen_view(view, ctx.state)
    if seen_by != REFEREE:
        own = [s["id"] for s in ctx.state.stands() if s["side"] == seen_by]
        found = next((s for s in own if s.casefold() == stand.casefold()), None)
        if found is None:
            # Answered as for a stand that does not exist: nothing about the enemy leaks.
            raise UnknownStand(
                f"{stand!r} is not one of {possessive(seen_by)} stands (under the {seen_by} view, "
                f"targets answers for them: {', '.join(own)})"
            )
        stand = found
    result: dict[str, Any] = targets_of(ctx, stand, weapon)
    if as_json:
        emit_json(result)
        return
    rows, beyond = result["targets"], result["out_of_range"]
    if not rows and not beyond:
        click.echo(f"{result['stand']} sees no enemy stand now")
        return
    click.echo(f"{result['stand']} sees {count(len(rows) + len(beyond), 'enemy stand')}:")
    if rows:
        table = [
            [
                t["id"],
                f'{t["range"]:.1f}"',
                t["weapon"] or "-",
                t["band"] or "-",
                "-" if t["to_hit"] is None else t["to_hit"],
                "-" if t["p_hit"] is None else f"{t['p_hit']:.0%} ({t['p_hit_exact']})",
                t.get("why") or "",
            ]
            for t in rows
        ]
        headers = ["target", "range", "weapon", "band", "to-hit", "P(hit)", "note"]
        click.echo(fit_table(table, headers))
        if len(result["weapons"]) > 1:
            best = f"weapon: the best of {', '.join(result['weapons'])}: {result['best_weapon']}"
            click.echo(textwrap.fill(best, TABLE_WIDTH, subsequent_indent="  "))
    if beyond:
        # Each stand and its range kept on one line ("\0" is no space to textwrap).
        reach = ", ".join(f'{w}\0{long:g}"' for w, long in result["reach"].items())
        listed = ", ".join(f'{t["id"]}\0{t["range"]:.1f}"' for t in beyond)
        line = textwrap.fill(
            f"out of range ({reach}): {listed}", TABLE_WIDTH, subsequent_indent="  "
        )
        click.echo(line.replace("\0", " "))
