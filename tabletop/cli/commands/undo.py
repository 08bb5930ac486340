"""tabletop undo: take back the last event exactly."""

from __future__ import annotations

from pathlib import Path

import click

from tabletop.cli.core import command, emit_json, game_option, json_option, open_game


@click.command("undo")
@game_option
@json_option
@command
def cli(game: Path, as_json: bool) -> None:
    """Undo the last command that changed the game.

    The game returns to exactly the state before it.

    The undo is itself logged; the dice generator goes back too, so repeating the
    command rolls the same dice.

    \b
    Example:
      tabletop undo
    """
    g = open_game(game)
    out, target = g.undo()
    if as_json:
        emit_json(
            {
                "event": out.seq,
                "undid": target.seq,
                "command": target.command,
                "turn": out.turn,
                "phase": out.phase,
            }
        )
        return
    click.echo(f"Undid #{target.seq} ({target.command}); now turn {out.turn}, {out.phase} phase.")
