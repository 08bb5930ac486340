"""tabletop resupply STAND [--from SUPPLY] [--override]: resupply by hand (CD 1.4)."""

from __future__ import annotations

import click

from tabletop.cli.core import STAND, command, executed, game_option, json_option, open_game


@click.command("resupply")
@click.argument("stand", type=STAND)
@click.option(
    "--from",
    "source",
    type=STAND,
    default=None,
    help="The supply point stand (default: the nearest of its own formations).",
)
@click.option(
    "--override",
    is_flag=True,
    help="Referee's ruling: resupply in spite of CD 1.4's limits (logged as an override).",
)
@game_option
@json_option
@command
def cli(stand: str, source: str | None, override: bool, game: str, as_json: bool) -> None:
    """Resupply STAND by hand from a supply point (CD 1.4).

    A stand resupplies as it ends a turn within 6" of a supply point of its own
    battalion, regiment, brigade or division, never in the turn it depleted. Stands on
    the table do so by themselves at the end of the turn; use this in the last phase of
    the turn for a stand not placed on the table (you measured the 6"). Anything else
    is refused with the rule, the supply point that would serve and how far it is,
    unless you overrule the rules with --override.

    \b
    Example:
      tabletop resupply G-4 --from G-S
      tabletop resupply G-4 --override
    """
    inputs = {"stand": stand, "source": source, "override": override}
    out = open_game(game).execute("resupply", inputs)
    r = executed(out, as_json)
    if r is None:
        return
    away = f' ({r["distance"]:g}" away)' if r.get("distance") is not None else ""
    click.echo(f"{r['verdict']}{away}: {', '.join(r['restored'])}")
    if r["refused"]:
        click.echo(f"  not restored: {'; '.join(r['refused'])}")
