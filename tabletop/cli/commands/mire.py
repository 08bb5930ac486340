"""tabletop mire STAND: the miring check at the end of a move in mud."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    POINT,
    STAND,
    command,
    dice_inputs,
    dice_option,
    executed,
    game_option,
    json_option,
    odds_option,
    open_game,
)  # fmt: skip


@click.command("mire")
@odds_option
@click.argument("stand", type=STAND)
@click.option(
    "--where",
    type=click.Choice(["open", "dirt-road", "hard-road"]),
    default=None,
    help="Where it moved (default: what its recorded move crossed, else the ground under "
    "the stand, priced as 'move' prices it).",
)
@click.option(
    "--across-mud",
    "across",
    type=POINT,
    nargs=2,
    default=None,
    help="Where it entered and left the mud, if it ended on safe ground.",
)
@dice_option
@game_option
@json_option
@command
def cli(stand: str, where: str | None, across: Any, dice: Any, game: str, as_json: bool) -> None:
    """Roll the miring chart for a vehicle that moved through mud (CD 11.1.4).

    STAND is a vehicle that moved this turn. 'tabletop move' rolls for its own moves;
    this is for the others. A vehicle the referee put with 'place' (an override) through
    mud owes the roll: it stays due, in any phase, until taken here, and the stand moves
    again only once it is. For a vehicle moved by hand and recorded with 'place', say
    where it moved (--where) or the mud it crossed (--across-mud, where it entered and
    left it; a vehicle that mires is put halfway across). The ground is judged as
    'move' judges it: a piece's own ground, deep mud beside a flood (CD 10.3.4), hard
    roads and bridge decks (CD 11.1). A vehicle that has not moved does not roll;
    where no roll can mire it the answer is a refusal naming the rule.

    \b
    Example:
      tabletop mire G-5 --dice 3
      tabletop mire G-5 --across-mud 30,18 34,20
    """
    inputs = {
        "stand": stand,
        "where": where,
        "across": [list(p) for p in across] if across else None,
    }
    out = open_game(game).execute("mire", inputs, **dice_inputs(dice))
    if executed(out, as_json) is None:
        return
    r = out.result
    # The miring number is in the reason ("... mires on 2 or less (CD 11.1.4)"): said once.
    roll = f" (rolled {r['rolls'][0]})" if r["rolls"] else ""
    click.echo(f"{r['verdict']}{roll}; {r['because']} ({r['basis']})")
    if r.get("placed_at"):
        click.echo(
            f"  placed halfway across the mud at {r['placed_at'][0]:g},{r['placed_at'][1]:g}"
        )
