"""tabletop searchlight STAND --bearing DEG: light a beam at night (CD 9.2.2)."""

from __future__ import annotations

import click

from tabletop.cli.core import (
    BEARING,
    STAND,
    command,
    executed,
    game_option,
    json_option,
    open_game,
)


@click.command("searchlight")
@click.argument("stand", type=STAND)
@click.option("--bearing", type=BEARING, default=None, help="Where the beam points (degrees).")
@click.option("--off", is_flag=True, help="Put the searchlight out.")
@game_option
@json_option
@command
def cli(stand: str, bearing: float | None, off: bool, game: str, as_json: bool) -> None:
    """Light a searchlight beam from STAND (CD 9.2.2).

    The beam is 2" wide and 40" long, and stops where sight stops.

    Stands in the beam are illuminated: spotted at daylight distances. The light itself
    is seen by any enemy with a line of sight to it.

    \b
    Example:
      tabletop searchlight US-AA --bearing 45
      tabletop searchlight US-AA --off
    """
    from tabletop.core.errors import BadInput

    if (bearing is None) == (not off):
        raise BadInput("give --bearing DEGREES, or --off")
    out = open_game(game).execute("searchlight", {"stand": stand, "bearing": bearing, "off": off})
    if executed(out, as_json) is None:
        return
    click.echo(f"{out.result['verdict']} (event {out.seq})")
