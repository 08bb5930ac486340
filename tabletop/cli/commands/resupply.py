"""tabletop resupply STAND --from SUPPLY: resupply by hand."""

from __future__ import annotations

from pathlib import Path

import click

from tabletop.cli.core import STAND, command, emit_json, game_option, json_option, open_game


@click.command("resupply")
@click.argument("stand", type=STAND)
@click.option("--from", "source", type=STAND, required=True, help="The supply point stand.")
@game_option
@json_option
@command
def cli(stand: str, source: str, game: Path, as_json: bool) -> None:
    """Resupply STAND from a supply point within 6" (CD 1.4).

    You measured the distance on the table.

    For stands not placed on the table; placed stands resupply by themselves at the
    end of the turn. The supply point must belong to the stand's battalion, regiment,
    brigade or division, and a weapon depleted this turn waits.

    \b
    Example:
      tabletop resupply G-4 --from G-S
    """
    out = open_game(game).execute("resupply", {"stand": stand, "source": source})
    r = out.result
    if as_json:
        emit_json({"event": out.seq, **r})
        return
    click.echo(
        f"{r['stand']} resupplied from {r['from']}: {', '.join(r['restored'])}"
        + (f" (not: {'; '.join(r['refused'])})" if r["refused"] else "")
    )
