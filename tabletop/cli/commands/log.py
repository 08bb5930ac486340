"""tabletop log: the event log, and a check of its hash chain."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    STAND,
    command,
    emit_json,
    game_option,
    json_option,
    view_option,
)  # fmt: skip
from tabletop.core.sides import REFEREE
from tabletop.render.events import event_json, event_text


@click.command("log")
@click.option(
    "--last", type=click.IntRange(1, 1_000_000), default=None, help="Only the last N events."
)
@click.option("--stand", type=STAND, default=None, help="Only events involving this stand.")
@click.option("--verify", is_flag=True, help="Check the hash chain; name the first bad event.")
@click.option("--physical", is_flag=True, help="Show only rolls typed in from physical dice.")
@view_option
@game_option
@json_option
@command
def cli(
    last: int | None,
    stand: str | None,
    verify: bool,
    physical: bool,
    view: str | None,
    game: str,
    as_json: bool,
) -> None:
    """Every event: command, turn, phase, dice rolled, and outcome.

    Physical dice are marked with * in text and "physical" in JSON. A side's
    view (--view SIDE) keeps its own acts, the table's events and the enemy's
    acts done in plain view; enemy moves, hidden positions, real or dummy,
    the enemy's private dice and referee-only terrain are left out.

    \b
    Example:
      tabletop log --last 5
      tabletop log --verify
      tabletop log --view USA
    """
    if verify:
        from tabletop.cli.core import open_game

        # The check compares the stored scenario and charts with the digests event 1 holds.
        g = open_game(game)
        report = g.verify()
        if as_json:
            emit_json(
                {
                    "ok": report.ok,
                    "events": report.events,
                    "first_bad": report.first_bad,
                    "message": report.message,
                    "head": report.head,
                }
            )
        else:
            click.echo(
                f"{report.message} ({report.events} events; head {report.head})"
                if report.ok
                else f"TAMPERED: {report.message}"
            )
        if not report.ok:
            raise SystemExit(1)
        return
    from tabletop.cli.core import chosen_view
    from tabletop.game.rows import read_events, read_rows
    from tabletop.state.document import State

    # The rows alone: the referee reads the log as stored, so the command stays quick (no
    # scenario, charts or table geometry).
    state = State.from_db(read_rows(game)[0])
    chosen = chosen_view(view, state)
    if chosen == REFEREE:
        if stand is not None:
            # Unknown: a clear error; known in another case ('us-3'): its own id, as the log
            # keeps subjects as written.
            stand = str(state.stand(stand)["id"])
        events: list[Any] = read_events(game, stand=stand, last=last)
    else:
        from tabletop.cli.core import open_game
        from tabletop.rules.views import events_for_view, stand_in_view

        # A side's view needs the table and the charts: what it spots is worked out.
        g = open_game(game)
        known = g.knowledge(chosen, state=state)
        if stand is not None and stand not in known.last_seen:
            stand_in_view(state, known, stand)  # unknown (or unseen) stand: a clear error
        # The side's log first, then its last N: hidden events do not use up --last.
        events = events_for_view(g.events(stand=stand), known)
        events = events[-last:] if last else events
    data = {"events": [event_json(ev, physical) for ev in events]}
    if as_json:
        emit_json(data)
        return
    for ev in data["events"]:
        click.echo(event_text(ev))
