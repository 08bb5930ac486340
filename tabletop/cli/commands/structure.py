"""tabletop structure damage|list: bridges, fortifications and built-up areas (CD 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    STAND,
    command,
    dice_inputs,
    dice_option,
    emit_json,
    executed,
    game_option,
    json_option,
    open_game,
)  # fmt: skip


@click.group("structure")
def cli() -> None:
    """Damage to bridges, fortifications and towns; fires (CD 6).

    Large guns firing at close or medium range and flamethrowers damage structures
    automatically through 'tabletop fire'; use 'damage' for bombs and demolitions.

    \b
    Example:
      tabletop structure damage village-1 --cause bomb
      tabletop structure list
    """


@cli.command("damage")
@click.argument("target")
@click.option(
    "--cause",
    type=click.Choice(["bomb", "direct-he", "demolition", "flame"]),
    required=True,
    help="What struck it.",
)
@click.option("--by", "by", type=STAND, default=None, help="The engineer, for a demolition.")
@dice_option
@game_option
@json_option
@command
def damage(target: str, cause: str, by: str | None, dice: Any, game: Path, as_json: bool) -> None:
    """Damage to TARGET, a structure, and to the stands inside.

    Rolled, or applied as the referee says.

    \b
    Example:
      tabletop structure damage fort-1 --cause bomb --dice 1
    """
    out = open_game(game).execute(
        "structure-damage", {"target": target, "cause": cause, "by": by}, **dice_inputs(dice)
    )
    if executed(out, as_json) is None:
        return
    click.echo(f"{out.result['verdict']} (event {out.seq})")
    for line in out.result.get("effects") or []:
        click.echo(f"  {line}")


@cli.command("list")
@game_option
@json_option
@command
def list_structures(game: Path, as_json: bool) -> None:
    """Terrain whose state has changed, and bridges built in play.

    Damaged, rubble, burning, gaps, charges to recheck, and built bridges.

    \b
    Example:
      tabletop structure list
    """
    from tabletop.rules.cd.terrain_state import changed

    rows = changed(open_game(game).state())
    if as_json:
        emit_json({"terrain": rows})
        return
    if not rows:
        click.echo("all terrain as the scenario began it")
    for r in rows:
        extra = []
        if r["gaps"]:
            extra.append(f"{len(r['gaps'])} gap(s)")
        if r["recheck"]:
            extra.append("charges to recheck")
        kind = r["kind"]
        if r.get("built"):
            # Bridges built in play (CD 2.4.3, 2.4.5): their class and the gap they span.
            across = f" across {', '.join(r['crosses'])}" if r.get("crosses") else ""
            kind = f"{kind}, built class {r['weight_class']}{across}"
        click.echo(f"{r['id']} ({kind}): {r['state']}" + (f"; {', '.join(extra)}" if extra else ""))
