"""tabletop unmire STAND: free a mired vehicle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    STAND,
    command,
    dice_inputs,
    dice_option,
    executed,
    game_option,
    json_option,
    odds_option,
    open_game,
)  # fmt: skip


@click.command("unmire")
@odds_option
@click.argument("stand", type=STAND)
@click.option(
    "--assist",
    type=STAND,
    default=None,
    help="A vehicle of equal or greater weight class pushing or towing it.",
)
@dice_option
@game_option
@json_option
@command
def cli(stand: str, assist: str | None, dice: Any, game: Path, as_json: bool) -> None:
    """Try to unmire STAND, by itself or with help.

    By itself it must roll over twice its miring number.

    \b
    Example:
      tabletop unmire G-5 --dice 9
      tabletop unmire US-3 --assist US-4
    """
    out = open_game(game).execute("unmire", {"stand": stand, "assist": assist}, **dice_inputs(dice))
    if executed(out, as_json) is None:
        return
    rolls = ", ".join(str(v) for v in out.result["rolls"])
    click.echo(f"{out.result['verdict']}" + (f" (rolled {rolls})" if rolls else ""))
