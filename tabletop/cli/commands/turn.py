"""tabletop turn next: finish the turn and start the next one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.commands.phase import advance
from tabletop.cli.core import command, dice_option, game_option, json_option


@click.group("turn")
def cli() -> None:
    """Whole turns: finish this one and start the next.

    \b
    Example:
      tabletop turn next
    """


@cli.command("next")
@dice_option
@game_option
@json_option
@command
def next_turn(dice: Any, game: Path, as_json: bool) -> None:
    """Finish this turn's phases and start the next turn.

    Runs every remaining phase boundary of this turn.

    \b
    Example:
      tabletop turn next
    """
    advance(game, "turn-next", dice, as_json)
