"""tabletop targets STAND: every enemy stand STAND can see now, with its chance to hit it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    STAND,
    command,
    emit_json,
    fit_table,
    game_option,
    json_option,
    open_game,
    view_option,
)
from tabletop.core.words import count, possessive


@click.command("targets")
@click.argument("stand", type=STAND)
@click.option("--weapon", default=None, help="The weapon to fire (default: its first).")
@view_option
@game_option
@json_option
@command
def cli(stand: str, weapon: str | None, view: str | None, game: Path, as_json: bool) -> None:
    """Every enemy stand STAND can see now: range, band, to-hit, chance of a hit.

    Worked by the same procedure as 'fire' (line of sight, spotting, range band,
    modifiers), with nothing rolled or logged. Under a side's view (--view SIDE) STAND
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
    from tabletop.rules.cd.targets import targets_of

    ctx = open_game(game).context()
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
    rows = result["targets"]
    if not rows:
        click.echo(f"{result['stand']} sees no enemy stand now")
        return
    click.echo(f"{result['stand']} sees {count(len(rows), 'enemy stand')}:")
    table = [
        [
            t["id"],
            f'{t["range"]:.1f}"',
            t["band"] or "-",
            "-" if t["to_hit"] is None else t["to_hit"],
            "-" if t["p_hit"] is None else f"{t['p_hit']:.0%} ({t['p_hit_exact']})",
            t.get("why") or "",
        ]
        for t in rows
    ]
    click.echo(fit_table(table, ["target", "range", "band", "to-hit", "P(hit)", "note"]))
