"""tabletop move-cost STAND --terrain T: what moving costs now."""

from __future__ import annotations

import click

from tabletop.cli.core import STAND, command, emit_json, game_option, json_option, open_game


@click.command("move-cost")
@click.argument("stand", type=STAND)
@click.option(
    "--terrain", default=None, help="Terrain kind moved through (default: where the stand is)."
)
@click.option(
    "--road",
    type=click.Choice(["hard", "dirt", "paved", "plowed", "unplowed"]),
    default=None,
    help="Moving along a road of this kind.",
)
@game_option
@json_option
@command
def cli(stand: str, terrain: str | None, road: str | None, game: str, as_json: bool) -> None:
    """Inches STAND pays per inch moved, and why.

    Where the stand stands, the answer is the one 'move' gives there: the terrain,
    roads and bridges by their state, water and its ice, the piece's own ground and the
    mud beside a flood, then the weather. With --terrain or --road, that kind is priced
    the same way on the ground under the stand.

    \b
    Example:
      tabletop move-cost US-3 --terrain woods
      tabletop move-cost G-5 --road dirt
    """
    from tabletop.rules.cd.movecost import move_cost_for

    g = open_game(game)
    result = move_cost_for(g.context(), stand, terrain, road)
    if as_json:
        emit_json(result)
        return
    total = "impassable" if result["multiplier"] is None else f"x{result['multiplier']:g}"
    if result.get("mired"):
        total = "cannot move while mired"
    piece = f" ({result['piece']})" if result.get("piece") else ""
    road = f" on a {result['road']} road" if result.get("road") else ""
    click.echo(f"{result['stand']} through {result['terrain']}{piece}{road}: {total}")
    for why in result["because"]:
        click.echo(f"  {why}")
