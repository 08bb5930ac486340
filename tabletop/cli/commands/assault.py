"""tabletop assault ATTACKER... --against DEFENDER...: close combat between stands in contact."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    SETTING,
    STAND,
    command,
    dice_inputs,
    dice_option,
    emit_json,
    game_option,
    headline,
    json_option,
    odds_option,
    open_game,
    rolls_text,
)  # fmt: skip


def expand_against(args: list[str]) -> list[str]:
    """``--against A B`` is read as ``--against A --against B``: every word after it up to
    the next option names a defender."""
    out: list[str] = []
    collecting = False
    for arg in args:
        if arg == "--against":
            collecting = True
            continue
        if arg.startswith("--against="):
            out += ["--against", arg.split("=", 1)[1]]
            collecting = True
            continue
        if collecting and not arg.startswith("-"):
            out += ["--against", arg]
            continue
        collecting = False
        out.append(arg)
    return out


class AssaultCommand(click.Command):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, expand_against(list(args)))


@click.command("assault", cls=AssaultCommand)
@odds_option
@click.argument("attackers", nargs=-1, type=STAND)
@click.option(
    "--against",
    "defenders",
    type=STAND,
    multiple=True,
    help="The defending stands (one or more words after it).",
)
@click.option(
    "--model",
    default="aggression",
    show_default=True,
    help="Close-combat model (only aggression resolves close combat).",
)
@click.option(
    "--rounds",
    type=click.IntRange(1, 100),
    default=None,
    help="Fight at most N rounds (default: until one side leaves, at most the chart's limit).",
)
@click.option(
    "--set",
    "settings",
    type=SETTING,
    multiple=True,
    help="An order KEY=VALUE: af.STAND=8, retreat.STAND=180, pursue.STAND=true, "
    "target.STAND=armour, works.STAND=dug-in, surplus.STAND=2, ambush=, admin=, joined=, "
    "disengage= (repeatable).",
)
@dice_option
@game_option
@json_option
@command
def cli(
    attackers: tuple[str, ...],
    defenders: tuple[str, ...],
    model: str,
    rounds: int | None,
    settings: tuple[Any, ...],
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """Close combat between stands in contact (aggression model).

    ATTACKERS assault the stands named after --against, in rounds until one side
    leaves (or --rounds). Each round every stand fires at one enemy; then each
    side, most damaged first, tests to retreat. A retreat goes along the stand's
    retreat bearing or the first allowed one clockwise from it (a loss for each
    step), else the stand surrenders or fights on. Orders given with --set are
    kept on the stand: af, retreat, pursue, target, works, surplus, profile.

    Out of the box: a stand never given a factor is on AF 5, and one without an
    aggression profile fights as its kind's (charts/models/aggression.yaml, table
    'kinds'), with training from its quality and strength from the scenario.

    Dice order: each round, ambushers' free shots, then one d100 fire roll per stand
    in the order named (attackers, then defenders); then one d100 retreat test per
    stand, the side and stand most damaged first; a d100 to surrender when a
    retreating stand has no way out.

    \b
    Example:
      tabletop assault US-1 US-2 --against G-1
      tabletop assault US-1 --against G-1 --rounds 1 --set af.US-1=8
      tabletop assault US-1 --against G-1 --set retreat.G-1=0 --dice 40,95,12
    """
    from tabletop.core.errors import BadInput

    if not attackers:
        raise BadInput("name the attacking stands: tabletop assault ATTACKER... --against ...")
    if not defenders:
        raise BadInput("name the defending stands with --against DEFENDER...")
    out = open_game(game).execute(
        "assault",
        {
            "model": model,
            "attackers": list(attackers),
            "defenders": list(defenders),
            "rounds": rounds,
            "options": dict(settings),
        },
        **dice_inputs(dice),
    )
    result = {"event": out.seq, **out.result, "rolls": [r.as_dict() for r in out.rolls]}
    if as_json:
        emit_json(result)
        return
    click.echo(headline(result["verdict"]))
    for line in result["lines"]:
        click.echo(f"  {line}")
    if result["rolls"]:
        click.echo(f"  dice: {rolls_text(result['rolls'])}")
    click.echo(f"  (event {result['event']})")
