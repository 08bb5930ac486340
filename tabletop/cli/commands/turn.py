"""tabletop turn next: finish the turn and start the next one."""

from __future__ import annotations

import sys
from typing import Any

import click

from tabletop.cli.commands.phase import advance
from tabletop.cli.core import (
    command,
    dice_option,
    game_option,
    json_option,
    odds_option,
    open_game,
)


def can_ask() -> bool:
    """Whether there is a person at a terminal to ask (not a script or a pipe)."""
    return sys.stdin.isatty()


@click.group("turn")
def cli() -> None:
    """Whole turns: finish this one and start the next.

    \b
    Example:
      tabletop turn next
    """


@cli.command("next")
@odds_option
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Pass over the phases left in this turn without asking.",
)
@dice_option
@game_option
@json_option
@command
def next_turn(yes: bool, dice: Any, game: str, as_json: bool) -> None:
    """Finish this turn's phases and start the next turn.

    Runs every remaining phase boundary of this turn (depletion dice, morale tests due,
    resupply, then the new turn's weather). Typed before the last phase it would pass
    over whole phases: it lists them and asks, or needs --yes; with no terminal to ask
    on, it is refused.

    \b
    Example:
      tabletop turn next
      tabletop turn next --yes
    """
    from tabletop.game.turns import announce, skip_warning

    g = open_game(game)
    ctx = g.context()
    warning = skip_warning(ctx)
    skip = yes
    if warning and not yes and can_ask() and not as_json:
        click.echo(f"{warning}.")
        for line in announce(ctx):
            click.echo(f"  {line}")
        skip = click.confirm("Finish the turn?", default=False)
        if not skip:
            click.echo("Nothing done; 'tabletop phase next' takes one phase at a time.")
            return
    # In the last phase nothing is passed over: nothing to agree to, nothing logged for it.
    advance(game, "turn-next", dice, as_json, {"skip": skip} if warning else {})
