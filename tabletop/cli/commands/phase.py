"""tabletop phase next: end this phase and start the next."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    command,
    dice_inputs,
    dice_option,
    emit_json,
    game_option,
    headline,
    json_option,
    odds_option,
    open_game,
)


@click.group("phase")
def cli() -> None:
    """The phases of the turn (see 'tabletop charts show turn').

    \b
    Example:
      tabletop phase next
    """


@cli.command("next")
@odds_option
@dice_option
@game_option
@json_option
@command
def next_phase(dice: Any, game: Path, as_json: bool) -> None:
    """End the current phase, do what the rules do, start the next.

    At the end of a fire phase the pending ammunition depletion dice are rolled;
    at the end of the turn, stands near their supply points resupply.

    \b
    Example:
      tabletop phase next
    """
    advance(game, "phase-next", dice, as_json)


def advance(game: Path, action: str, dice: Any, as_json: bool) -> None:
    from tabletop.cli.core import rolls_text

    g = open_game(game)
    out = g.execute(action, {}, **dice_inputs(dice))
    r = out.result
    if as_json:
        emit_json(
            {
                "event": out.seq,
                "turn": r["turn"],
                "phase": r["phase"],
                "from": r["from"],
                "happened": r["happened"],
            }
        )
        return
    click.echo(headline(f"Turn {r['turn']}, {r['phase']} phase"))
    for h in r["happened"]:
        if h["what"] in ("phase", "turn"):
            continue
        who = f"{h['stand']}: " if h.get("stand") else ""
        click.echo(f"  {h['what']}: {who}{h['result']}")
    physical = [x for x in out.rolls if x.source == "physical"]
    if physical:
        click.echo(f"  physical dice: {rolls_text(physical)}")
