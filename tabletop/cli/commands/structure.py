"""tabletop structure damage|list: bridges, fortifications and built-up areas (CD 6)."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    POINT,
    STAND,
    Amount,
    command,
    dice_inputs,
    dice_option,
    emit_json,
    executed,
    game_option,
    json_option,
    odds_option,
    open_game,
    view_option,
)  # fmt: skip
from tabletop.core.words import count


@click.group("structure")
def cli() -> None:
    """Damage to bridges, fortifications and towns; fires (CD 6).

    Large guns firing at close or medium range and flamethrowers damage structures
    automatically through 'tabletop fire'; 'fire' shoots at a structure itself, 'bomb'
    bursts a large aerial bomb over structures, 'damage' applies a cause by hand.

    \b
    Example:
      tabletop structure bomb 5,35 --radius 2 --aircraft medium
      tabletop structure fire town --by US-TANK
      tabletop structure list
    """


@cli.command("damage")
@odds_option
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
def damage(target: str, cause: str, by: str | None, dice: Any, game: str, as_json: bool) -> None:
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


@cli.command("bomb")
@odds_option
@click.argument("at", type=POINT, metavar="X,Y")
@click.option(
    "--radius",
    type=Amount(0, 100, "inches"),
    required=True,
    help="The burst's radius in inches (the referee's, from the air rules).",
)
@click.option(
    "--aircraft",
    type=click.Choice(["dive", "medium", "heavy", "fighter", "attack"]),
    required=True,
    help="What dropped it: only dive, medium and heavy bombers' large bombs count.",
)
@dice_option
@game_option
@json_option
@command
def bomb(at: Any, radius: float, aircraft: str, dice: Any, game: str, as_json: bool) -> None:
    """A large aerial bomb at X,Y against structures (CD 6.1.1).

    One die for every structure in the burst: a 1 damages every bridge,
    fortification and strong BUA in it; a 1 or 2 every flimsy BUA. Roll the stands'
    hits with the air attack as usual.

    \b
    Example:
      tabletop structure bomb 5,35 --radius 2 --aircraft medium --dice 1
    """
    out = open_game(game).execute(
        "structure-bomb",
        {"at": list(at), "radius": radius, "aircraft": aircraft},
        **dice_inputs(dice),
    )
    if executed(out, as_json) is None:
        return
    click.echo(f"{out.result['verdict']} (event {out.seq})")
    for line in out.result.get("effects") or []:
        click.echo(f"  {line}")


@cli.command("fire")
@odds_option
@click.argument("target")
@click.option("--by", "by", type=STAND, required=True, help="The firing stand (a large gun).")
@click.option("--weapon", default=None, help="Its weapon, if it carries several.")
@dice_option
@game_option
@json_option
@command
def fire_at(target: str, by: str, weapon: str | None, dice: Any, game: str, as_json: bool) -> None:
    """Direct HE fire at TARGET, a structure (CD 6.1.2).

    At the structure itself, empty or not. Only a gun of 150 mm or more at close or
    medium range; one die: a 1 damages a vulnerable structure, a 1 or 2 a flimsy BUA.
    Fire at a stand inside with 'tabletop fire': that rolls for its structure too.

    \b
    Example:
      tabletop structure fire town --by US-TANK --dice 1
    """
    out = open_game(game).execute(
        "structure-fire", {"target": target, "by": by, "weapon": weapon}, **dice_inputs(dice)
    )
    if executed(out, as_json) is None:
        return
    click.echo(f"{out.result['verdict']} (event {out.seq})")
    for line in out.result.get("effects") or []:
        click.echo(f"  {line}")


@cli.command("list")
@view_option
@game_option
@json_option
@command
def list_structures(view: str | None, game: str, as_json: bool) -> None:
    """Terrain changed or built in play.

    Damaged, rubble, burning, gaps, charges to recheck, built bridges. A side's view
    leaves out terrain only the referee knows and charges it did not set.

    \b
    Example:
      tabletop structure list
      tabletop structure list --view USA
    """
    from tabletop.cli.core import chosen_view
    from tabletop.rules.cd.terrain_state import changed
    from tabletop.rules.views import Knowledge, hidden_terrain, terrain_changes_for_view

    g = open_game(game)
    state = g.state()
    ctx = g.context(state)
    chosen = chosen_view(view, state, ctx.scenario.side_names())
    known = Knowledge(
        chosen, {s["id"]: s["side"] for s in state.stands()}, hidden_terrain=hidden_terrain(ctx)
    )
    rows = terrain_changes_for_view(changed(state), known, ctx.scenario)
    if as_json:
        emit_json({"terrain": rows})
        return
    if not rows:
        click.echo("all terrain as the scenario began it")
    for r in rows:
        extra = []
        if r["gaps"]:
            extra.append(count(len(r["gaps"]), "gap"))
        if r["recheck"]:
            extra.append("charges to recheck")
        kind = r["kind"]
        if r.get("built") and r.get("weight_class"):
            # Bridges built in play (CD 2.4.3, 2.4.5): their class and the gap they span.
            across = f" across {', '.join(r['crosses'])}" if r.get("crosses") else ""
            kind = f"{kind}, built class {r['weight_class']}{across}"
        elif r.get("built"):
            kind = f"{kind}, built before the game by {r.get('side')}, {r.get('rule', 'CD 5')}"
        click.echo(f"{r['id']} ({kind}): {r['state']}" + (f"; {', '.join(extra)}" if extra else ""))
