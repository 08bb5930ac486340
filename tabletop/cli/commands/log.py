"""tabletop log: the event log, and a check of its hash chain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import STAND, command, emit_json, game_option, json_option, open_game


@click.command("log")
@click.option(
    "--last", type=click.IntRange(1, 1_000_000), default=None, help="Only the last N events."
)
@click.option("--stand", type=STAND, default=None, help="Only events involving this stand.")
@click.option("--verify", is_flag=True, help="Check the hash chain; name the first bad event.")
@click.option("--physical", is_flag=True, help="Show only rolls typed in from physical dice.")
@click.option(
    "--view",
    default="referee",
    help="referee (everything) or a side's name (leaves out what it may not know).",
)
@game_option
@json_option
@command
def cli(
    last: int | None,
    stand: str | None,
    verify: bool,
    physical: bool,
    view: str,
    game: Path,
    as_json: bool,
) -> None:
    """Every event: command, turn, phase, dice rolled, and outcome.

    Physical dice are marked with * in text and "physical" in JSON.

    \b
    Example:
      tabletop log --last 5
      tabletop log --verify
    """
    g = open_game(game)
    if verify:
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
    if stand is not None:
        g.state().stand(stand)  # unknown stand: a clear error
    events = g.store.events(stand=stand, last=last)
    from tabletop.core.sides import REFEREE, resolve_view

    view = resolve_view(view, g.loaded.scenario.side_names())
    if view != REFEREE:
        events = [ev for ev in events if visible_event(ev, view)]
    data = {"events": [_event_json(ev, physical) for ev in events]}
    if as_json:
        emit_json(data)
        return
    for ev in data["events"]:
        click.echo(_event_text(ev))


def _event_json(ev: Any, physical_only: bool) -> dict[str, Any]:
    rolls = [r for r in ev.rolls if r["source"] == "physical"] if physical_only else ev.rolls
    out = {
        "seq": ev.seq,
        "turn": ev.turn,
        "phase": ev.phase,
        "command": ev.command,
        "inputs": ev.inputs,
        "rolls": rolls,
        "result": ev.result,
    }
    if ev.undoes is not None:
        out["undoes"] = ev.undoes
    return out


def _event_text(ev: dict[str, Any]) -> str:
    from tabletop.cli.core import rolls_text

    verdict = ev["result"].get("verdict") if isinstance(ev["result"], dict) else None
    head = f"#{ev['seq']} turn {ev['turn']} {ev['phase']}: {ev['command']}"
    args = " ".join(f"{k}={v}" for k, v in ev["inputs"].items() if v not in (None, [], False))
    line = f"{head} {args}".rstrip()
    if verdict:
        line += f" -> {verdict}"
    elif "undoes" in ev and ev["command"] == "redo":
        line += f" -> redid #{ev['result'].get('redid')} ({ev['result'].get('command')})"
    elif "undoes" in ev:
        line += f" -> undid #{ev['undoes']} ({ev['result'].get('command')})"
    if ev["rolls"]:
        line += f"\n    dice: {rolls_text(ev['rolls'])}"
    return line


# Commands whose log entries would show a side what it may not know.
HIDDEN_FROM_OTHER_SIDES = {"minefield-place": "side"}


def visible_event(ev: Any, view: str) -> bool:
    """A side's view leaves out the other side's hidden acts (minefields laid)."""
    if ev.command in ("undo", "redo") and isinstance(ev.result, dict):
        # An undone hidden act is left out of every side's view.
        return ev.result.get("command") not in HIDDEN_FROM_OTHER_SIDES
    key = HIDDEN_FROM_OTHER_SIDES.get(ev.command)
    if key is None or not isinstance(ev.inputs, dict):
        return True
    return bool(ev.inputs.get(key) == view)
