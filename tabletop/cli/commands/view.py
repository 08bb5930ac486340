"""tabletop view set|show: the view this game's reading commands show by default."""

from __future__ import annotations

import click

from tabletop.cli.core import (
    command,
    emit_json,
    executed,
    game_option,
    json_option,
    open_game,
    view_completions,
)  # fmt: skip
from tabletop.core.words import possessive


@click.group("view")
def cli() -> None:
    """The view reading commands show by default (referee or a side).

    Set a player's copy of the game to its side, so that its terminal never shows the
    referee's view by accident. --view on a command, or TABLETOP_VIEW, still wins.

    \b
    Example:
      tabletop view set USA
      tabletop view show
    """


@cli.command("set")
@click.argument(
    "view",
    metavar="VIEW",
    shell_complete=lambda ctx, param, incomplete: view_completions(ctx, incomplete),
)
@game_option
@json_option
@command
def set_view(view: str, game: str, as_json: bool) -> None:
    """Make VIEW (referee or a side's name) this game's default view.

    Logged like any change, so 'tabletop undo' takes it back.

    \b
    Example:
      tabletop view set Germany
      tabletop view set referee
    """
    out = open_game(game).execute("view-set", {"view": view})
    if executed(out, as_json) is None:
        return
    click.echo(f"{out.result['verdict']} (event {out.seq})")


@cli.command("show")
@game_option
@json_option
@command
def show_view(game: str, as_json: bool) -> None:
    """The view this game shows by default, and where that comes from.

    \b
    Example:
      tabletop view show
    """
    import os

    from tabletop.cli.core import chosen_view

    state = open_game(game).state()
    env = os.environ.get("TABLETOP_VIEW")
    view = chosen_view(env, state)
    setting = state.rows.get("settings", {}).get("view")
    source = "TABLETOP_VIEW" if env else ("the game's setting" if setting else "default")
    if as_json:
        emit_json({"view": view, "source": source})
        return
    who = "the referee's view" if view == "referee" else f"{possessive(view)} view"
    click.echo(f"{who} ({source})")
