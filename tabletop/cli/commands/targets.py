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
)


@click.command("targets")
@click.argument("stand", type=STAND)
@click.option("--weapon", default=None, help="The weapon to fire (default: its first).")
@game_option
@json_option
@command
def cli(stand: str, weapon: str | None, game: Path, as_json: bool) -> None:
    """Every enemy stand STAND can see now: range, band, to-hit, chance of a hit.

    Worked by the same procedure as 'fire' (line of sight, spotting, range band,
    modifiers), with nothing rolled or logged.

    \b
    Example:
      tabletop targets US-4
      tabletop targets US-4 --weapon us-37mm-m6 --json
    """
    from tabletop.rules.cd.targets import targets_of

    result: dict[str, Any] = targets_of(open_game(game).context(), stand, weapon)
    if as_json:
        emit_json(result)
        return
    rows = result["targets"]
    if not rows:
        click.echo(f"{result['stand']} sees no enemy stand now")
        return
    click.echo(f"{result['stand']} sees {len(rows)} enemy stand(s):")
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
