"""tabletop roll 3d10: a plain, logged roll."""

from __future__ import annotations

import os
from typing import Any

import click

from tabletop.cli.core import (
    command,
    dice_inputs,
    dice_option,
    emit_json,
    game_option,
    json_option,
    odds_option,
    rolls_text,
)  # fmt: skip


@click.command("roll")
@odds_option
@click.argument("dice_spec", metavar="NdX")
@click.option("--for", "purpose", default=None, help="What the roll is for (kept in the log).")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Without a game: seed this roll.",
)
@dice_option
@game_option
@json_option
@command
def cli(
    dice_spec: str, purpose: str | None, seed: int | None, dice: Any, game: str, as_json: bool
) -> None:
    """Roll NdX (3d10, d6, ...) for the referee's own calls.

    For anything the rules leave to the referee.

    With a game file the roll is logged; without one it is just rolled.

    \b
    Example:
      tabletop roll 2d10 --for "which stand the AA hit"
    """
    inputs = {"dice": dice_spec, "purpose": purpose}
    if os.path.exists(game):
        from tabletop.cli.core import open_game

        if seed is not None:
            # A logged roll must come from the game's own generator, or replay cannot redo it.
            raise click.BadParameter(
                f"{seed}: --seed is for rolls without a game; {str(game)!r} rolls with its own "
                "seed",
                param_hint="'--seed'",
            )
        out = open_game(game).execute("roll", inputs, **dice_inputs(dice))
        result, rolls, event = out.result, [r.as_dict() for r in out.rolls], out.seq
    else:
        from tabletop.core.dice import Dice
        from tabletop.rules.cd.movement import plain_roll

        d = Dice(
            seed if seed is not None else int.from_bytes(os.urandom(6), "big"), **dice_inputs(dice)
        )
        result = plain_roll(_Quick(d), inputs)  # type: ignore[arg-type]  # only its dice
        d.finish()
        rolls, event = [r.as_dict() for r in d.rolls], None
    if as_json:
        emit_json({"event": event, **result, "rolls": rolls})
        return
    values = " ".join(str(v) for v in result["values"])
    click.echo(
        f"{result['dice']}: {values} (total {result['total']})"
        + ("" if event else "  [not logged: no game]")
    )
    if any(r["source"] == "physical" for r in rolls):
        click.echo(f"  dice: {rolls_text(rolls)}")


class _Quick:
    """Just enough context for a roll outside a game."""

    def __init__(self, dice: Any):
        self.dice = dice
