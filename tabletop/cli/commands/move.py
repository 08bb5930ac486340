"""tabletop move STAND X,Y: a refereed move, priced and checked along its path."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    BEARING,
    POINT,
    STAND,
    SignedCommand,
    batch_items,
    batch_options,
    command,
    dice_inputs,
    dice_option,
    emit_json,
    executed,
    game_option,
    json_option,
    open_game,
)  # fmt: skip


# A negative coordinate is a point off the table to report as such, not an unknown option.
@click.command("move", cls=SignedCommand)
@click.argument("stand", type=STAND, required=False)
@click.argument("to", type=POINT, metavar="X,Y", required=False)
@click.option("--via", type=POINT, multiple=True, help="A waypoint X,Y (repeat, in order).")
@click.option("--facing", type=BEARING, default=None, help="Facing at the end (degrees).")
@click.option("--check", is_flag=True, help="Dry run: cost, what it meets, odds; logs nothing.")
@click.option(
    "--fall-back",
    "fall_back",
    is_flag=True,
    help="Carry out STAND's forced-back result, in any phase: the charted distance away "
    "from the fire (or to X,Y, within that distance).",
)
@batch_options
@dice_option
@game_option
@json_option
@command
def cli(
    stand: str | None,
    to: tuple[float, float] | None,
    via: tuple[tuple[float, float], ...],
    facing: float | None,
    check: bool,
    fall_back: bool,
    batch_more: tuple[str, ...],
    batch_file: Any,
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """Move STAND to X,Y through each --via point, in straight legs.

    The path is priced piece by piece against the stand's allowance (terrain, roads,
    ground, weather); water is crossed at fords, on bridges that carry the stand, or on
    ice; obstacles, burning terrain, minefields, ice and miring apply where the path
    meets them. A road is followed by giving its points with --via. The enemy stands
    that could fire on the move in the opportunity fire phase are listed.

    Several stands at once: add --and "STAND X,Y [--via X,Y]..." for each, or give a
    --file with one such line per stand. Each move is refereed in turn; if one is
    refused, none is made. The batch is one event (one undo takes it all back). With
    --check, every item's dry run is shown.

    A stand forced back falls back with --fall-back, in whatever phase: the hit effects
    chart's distance straight away from the fire, or to X,Y within that distance; with
    --check, where it would end and what it would meet.

    \b
    Example:
      tabletop move US-3 30,12 --via 24,10
      tabletop move G-5 40,20 --check
      tabletop move US-1 18,9 --and "US-2 20,9" --and "US-3 22,9 --facing 90"
      tabletop move US-4 --fall-back
    """
    if fall_back:
        if stand is None or via or facing is not None or batch_more or batch_file:
            raise click.UsageError("--fall-back takes STAND and at most X,Y (and --check)")
        inputs = {"stand": stand, "to": None if to is None else list(to), "fall_back": True}
        if check:
            from tabletop.rules.cd.movement import check_fall_back

            checked = check_fall_back(open_game(game).context(), inputs)
            if as_json:
                emit_json(checked)
            else:
                _show(checked, dry_run=True)
            return
        out = open_game(game).execute("move", inputs, **dice_inputs(dice))
        r = executed(out, as_json)
        if r is not None:
            _show(r, dry_run=False)
        return
    items = (
        [] if stand is None else [_inputs({"stand": stand, "to": to, "via": via, "facing": facing})]
    )
    if stand is not None and to is None:
        raise click.UsageError("missing X,Y: give where the move ends, in inches")
    items += batch_items(cli, batch_more, batch_file, _inputs)
    if not items:
        raise click.UsageError("give STAND X,Y, or --file with one 'STAND X,Y' a line")
    g = open_game(game)
    if len(items) > 1:
        if check:
            from tabletop.rules.cd.movement import check_batch

            checked = check_batch(g.context(), items)
            if as_json:
                emit_json(checked)
            else:
                click.echo(checked["verdict"])
                for item in checked["items"]:
                    click.echo(f"item {item['item']}: ", nl=False)
                    _show(item, dry_run=True)
            if checked["refused"]:
                bad = any(item.get("bad_input") for item in checked["items"])
                raise click.exceptions.Exit(2 if bad else 3)
            return
        out = g.execute("batch", {"command": "move", "items": items}, **dice_inputs(dice))
        if as_json:
            emit_json({"event": out.seq, **out.result})
            return
        click.echo(f"{out.result['count']} stands moved (event {out.seq})")
        for item in out.result["items"]:
            click.echo(f"  {item['verdict']}")
        return
    inputs = items[0]
    if check:
        from tabletop.rules.cd.movement import check_move

        result = check_move(g.context(), inputs)
        if as_json:
            emit_json(result)
        else:
            _show(result, dry_run=True)
        if result["refused"]:
            raise click.exceptions.Exit(3)
        return
    out = g.execute("move", inputs, **dice_inputs(dice))
    r = executed(out, as_json)
    if r is None:
        return
    _show(r, dry_run=False)


def _show(r: dict[str, Any], *, dry_run: bool) -> None:
    event = "" if dry_run else f" (event {r['event']})"
    click.echo(f"{r['verdict']}{event}")
    from tabletop.rules.cd.movement import cost_lines

    for line in cost_lines(r["segments"])[0]:
        click.echo(f"  {line}")
    for e in r["crossed"]:
        click.echo(f"  {e['kind']} {e['id'] or ''} at {e['point'][0]:g},{e['point'][1]:g}: "
                   f"{e['result']} ({e['rule']})")  # fmt: skip
    if r.get("opportunity"):
        seen = ", ".join(f'{o["stand"]} ({o["range"]:.2f}")' for o in r["opportunity"])
        click.echo(f"  opportunity fire: {seen}")
    for outcome, p in (r.get("odds") or {}).items():
        click.echo(f"  odds: {outcome}: {p}")


def _inputs(params: dict[str, Any]) -> dict[str, Any]:
    """The move action's inputs from the command's parameters (one stand)."""
    if params.get("to") is None:
        raise click.UsageError("missing X,Y: give where the move ends, in inches")
    return {
        "stand": params["stand"],
        "to": list(params["to"]),
        "via": [list(p) for p in params.get("via") or ()],
        "facing": params.get("facing"),
    }
