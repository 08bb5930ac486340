"""tabletop phase next: end this phase and start the next."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

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

if TYPE_CHECKING:
    from tabletop.rules.sequence import AdvanceResult


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
def next_phase(dice: Any, game: str, as_json: bool) -> None:
    """End the current phase, do what the rules do, start the next.

    It says what runs at the boundary, then what happened: at the end of a fire
    phase the pending ammunition depletion dice are rolled (CD 1.2); the morale phase
    lists the morale tests due (CD 9.1.3, 9.1.4); at the end of the turn stands near
    their supply points resupply (CD 1.4); a new turn rolls wind, fog and rain changes
    and drifts smoke screens.

    \b
    Example:
      tabletop phase next
    """
    advance(game, "phase-next", dice, as_json)


def advance(
    game: str, action: str, dice: Any, as_json: bool, inputs: dict[str, Any] | None = None
) -> None:
    from tabletop.cli.core import rolls_text

    g = open_game(game)
    out = g.execute(action, inputs or {}, **dice_inputs(dice))
    r = cast("AdvanceResult", out.result)
    if as_json:
        emit_json(
            {
                "event": out.seq,
                "turn": r["turn"],
                "phase": r["phase"],
                "from": r["from"],
                "skipped": r.get("skipped", []),
                "runs": r.get("runs", []),
                "happened": r["happened"],
            }
        )
        return
    click.echo(headline(f"Turn {r['turn']}, {r['phase']} phase"))
    if r.get("skipped"):
        phases = "phase" if len(r["skipped"]) == 1 else "phases"
        click.echo(f"  passed over: {', '.join(r['skipped'])} {phases}")
    if r.get("runs"):
        click.echo("  at the boundary:")
        for line in r["runs"]:
            click.echo(f"    {line}")
    for h in r["happened"]:
        if h["what"] in ("phase", "turn"):
            continue
        who = f"{h['stand']}: " if h.get("stand") else ""
        click.echo(f"  {h['what']}: {who}{h['result']}")
    physical = [x for x in out.rolls if x.source == "physical"]
    if physical:
        click.echo(f"  physical dice: {rolls_text(physical)}")
