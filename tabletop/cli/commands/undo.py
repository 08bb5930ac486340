"""tabletop undo: take back the last command (or back to event N) exactly, naming it."""

from __future__ import annotations

import sys
from typing import Any

import click

from tabletop.cli.core import command, emit_json, game_option, json_option, open_game
from tabletop.core.words import count, inputs_text


@click.command("undo")
@click.option(
    "--to",
    "to",
    type=click.IntRange(1, None),
    default=None,
    metavar="N",
    help="Go back to event N: take back every command logged after it.",
)
@click.option("--dry-run", is_flag=True, help="Show what would be taken back; change nothing.")
@click.option("--yes", is_flag=True, help="Go back into an earlier turn without asking.")
@game_option
@json_option
@command
def cli(to: int | None, dry_run: bool, yes: bool, game: str, as_json: bool) -> None:
    """Undo the last command that changed the game, naming what it takes back.

    The game returns to exactly the state before it, dice generator included, so
    repeating the command rolls the same dice. Each command taken back is logged as an
    undo event; 'tabletop redo' puts it back while nothing new has been logged.

    A command the rules refused was never logged: undo always names the command it
    takes back, so check the name. Going back into an earlier turn (undoing 'turn next'
    or anything before it) needs --yes, or a yes at the prompt.

    \b
    Example:
      tabletop undo --dry-run
      tabletop undo
      tabletop undo --to 12 --yes
    """
    g = open_game(game)
    plan = g.undo_plan(to)
    if dry_run:
        _show_plan(plan, as_json)
        return
    if plan.crosses_turn and not yes and not as_json and sys.stdin.isatty():
        _show_plan(plan, False)
        yes = click.confirm(
            f"Go back from turn {plan.now[0]} to turn {plan.then[0]}?", default=False, err=True
        )
        if not yes:
            raise click.Abort()
    done = g.undo(to, cross_turns=yes)
    report_done(done, "undid", "undone", as_json, "'tabletop redo' puts it back.")


def report_done(done: Any, verb: str, listed: str, as_json: bool, after: str = "") -> None:
    """What an undo or a redo did: each command it took back or put back, then where the
    game now stands (text), or the same as one JSON object (``undid``/``redid`` keys)."""
    if as_json:
        first = done.actions[0]
        emit_json(
            {
                "event": done.events[-1],
                verb: first.seq,
                "command": first.command,
                "turn": done.turn,
                "phase": done.phase,
                listed: [event_summary(ev) for ev in done.actions],
                "events": done.events,
            }
        )
        return
    for seq, ev in zip(done.events, done.actions, strict=True):
        click.echo(f"{verb.capitalize()} {describe(ev)} (event {seq}).")
    click.echo(f"Now turn {done.turn}, {done.phase} phase." + (f" {after}" if after else ""))


def _show_plan(plan: Any, as_json: bool) -> None:
    if as_json:
        emit_json(
            {
                "dry_run": True,
                "undone": [event_summary(ev) for ev in plan.targets],
                "turn": plan.then[0],
                "phase": plan.then[1],
                "crosses_turn": plan.crosses_turn,
            }
        )
        return
    click.echo(f"Undo would take back {count(len(plan.targets), 'command')}:")
    for ev in plan.targets:
        click.echo(f"  {describe(ev)}")
    where = f"turn {plan.then[0]}, {plan.then[1]} phase"
    cross = f" (back from turn {plan.now[0]}: needs --yes)" if plan.crosses_turn else ""
    click.echo(f"The game would be at {where}{cross}. Nothing was changed.")


def describe(ev: Any) -> str:
    """``#12 fire shooter=G-4 target=US-4 (turn 2, fire): 1 hit ...``"""
    inputs = ev.inputs or {}
    if ev.command == "batch" and isinstance(inputs.get("items"), list):
        # A batch of moves or placings: the stands, not the raw list of their inputs.
        stands = [str(i.get("stand")) for i in inputs["items"] if isinstance(i, dict)]
        args = f"{inputs.get('command')} of {len(stands)}: {', '.join(stands)}"
    else:
        args = inputs_text(inputs)
    verdict = ev.result.get("verdict") if isinstance(ev.result, dict) else None
    text = f"#{ev.seq} {ev.command}" + (f" {args}" if args else "")
    text += f" (turn {ev.turn}, {ev.phase})"
    return text + (f": {verdict}" if verdict else "")


def event_summary(ev: Any) -> dict[str, Any]:
    verdict = ev.result.get("verdict") if isinstance(ev.result, dict) else None
    return {
        "seq": ev.seq,
        "command": ev.command,
        "turn": ev.turn,
        "phase": ev.phase,
        "inputs": ev.inputs,
        "verdict": verdict,
    }
