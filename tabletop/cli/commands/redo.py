"""tabletop redo: put back what undo took back, while nothing new has been logged."""

from __future__ import annotations

import click

from tabletop.cli.commands.undo import describe, event_summary, report_done
from tabletop.cli.core import command, emit_json, game_option, json_option, open_game
from tabletop.core.words import count


@click.command("redo")
@click.option("--all", "every", is_flag=True, help="Put back every command undone.")
@click.option("--dry-run", is_flag=True, help="Show what would be put back; change nothing.")
@game_option
@json_option
@command
def cli(every: bool, dry_run: bool, game: str, as_json: bool) -> None:
    """Put back the command the last undo took back, exactly as it happened.

    Its dice are not rolled again: the game returns to the state the command left.
    Possible only while nothing new has been logged since the undo. The redo is
    logged, and 'tabletop replay' reproduces it.

    \b
    Example:
      tabletop redo
      tabletop redo --all
    """
    g = open_game(game)
    if dry_run:
        pairs = g.redo_plan(every)
        if as_json:
            emit_json({"dry_run": True, "redone": [event_summary(a) for a, _ in pairs]})
            return
        click.echo(f"Redo would put back {count(len(pairs), 'command')}:")
        for action, _ in pairs:
            click.echo(f"  {describe(action)}")
        click.echo("Nothing was changed.")
        return
    report_done(g.redo(every), "redid", "redone", as_json)
