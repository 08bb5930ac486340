"""tabletop marker STAND --add M --remove M: markers the referee decides."""

from __future__ import annotations

import click

from tabletop.cli.core import (
    STAND,
    command,
    executed,
    game_option,
    json_option,
    open_game,
)

MARKERS = ("pinned", "suppressed", "forced-back", "burning", "foxholes", "entrenched")


@click.command("marker")
@click.argument("stand", type=STAND)
@click.option("--add", "add", type=click.Choice(MARKERS), multiple=True, help="Put a marker on.")
@click.option(
    "--remove", "remove", type=click.Choice(MARKERS), multiple=True, help="Take a marker off."
)
@game_option
@json_option
@command
def cli(
    stand: str, add: tuple[str, ...], remove: tuple[str, ...], game: str, as_json: bool
) -> None:
    """Put markers on STAND, or take them off.

    For markers the program does not decide itself.

    Morale results (pinned), a burning vehicle wreck (lights 1" at night), works dug
    during play: the rules read these markers.

    \b
    Example:
      tabletop marker G-E1 --add pinned
      tabletop marker G-E1 --remove pinned --remove suppressed
    """
    out = open_game(game).execute(
        "marker", {"stand": stand, "add": list(add), "remove": list(remove)}
    )
    if executed(out, as_json) is None:
        return
    click.echo(f"{out.result['verdict']} (event {out.seq})")
