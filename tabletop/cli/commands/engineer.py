"""tabletop engineer ...: bridges, boats, obstacles, pregame works, smoke generators, tasks."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    BEARING,
    POINT,
    STAND,
    Amount,
    Inches,
    command,
    dice_inputs,
    dice_option,
    emit_json,
    executed,
    game_option,
    headline,
    json_option,
    odds_option,
    open_game,
)  # fmt: skip
from tabletop.core.words import count

LEVELS = ("I", "II", "III", "IV", "V", "VI")


@click.group("engineer")
def cli() -> None:
    """Engineering: bridges, obstacles, boats, works and smoke.

    Demolition, repair and bridging, obstacles, boats, pregame works and smoke
    generators.

    Work that takes turns becomes a task, advanced at the end of each turn; a turn in
    which a worker is pinned, suppressed, fires, moves or leaves the work does not count:
    the task pauses, keeps its hours and resumes after a turn spent in place (see
    'tabletop engineer tasks'). Estimates are in turns of the light in force, night turns
    at night (CD 9.1.7), with the hours beside them.

    \b
    Example:
      tabletop engineer demolish bridge-1 --by G-E1 --dice 9
      tabletop engineer repair bridge-1 --by US-E1 --by US-E2
      tabletop engineer tasks
    """


def _run(game: str, action: str, inputs: dict[str, Any], as_json: bool, dice: Any = None) -> None:
    out = open_game(game).execute(action, inputs, **dice_inputs(dice))
    result = executed(out, as_json)
    if result is None:
        return
    click.echo(f"{result['verdict']} (event {out.seq})")
    for line in result.get("effects") or []:
        click.echo(f"  {line}")


@cli.command("demolish")
@odds_option
@click.argument("target")
@click.option("--by", "by", type=STAND, required=True, help="The engineer stand detonating.")
@dice_option
@game_option
@json_option
@command
def demolish(target: str, by: str, dice: Any, game: str, as_json: bool) -> None:
    """Blow TARGET, wired before the game (CD 2.4.1, 6.1.3).

    A bridge or a structure.

    The engineer must be friendly, stationary, unpinned, within 2" and not on it; it
    happens at the end of the movement phase.

    \b
    Example:
      tabletop engineer demolish bridge-1 --by G-E1
    """
    _run(game, "demolish", {"target": target, "by": by}, as_json, dice)


@cli.command("recheck")
@odds_option
@click.argument("bridge")
@click.option("--by", "by", type=STAND, required=True, help="The engineer on the bridge.")
@game_option
@json_option
@command
def recheck(bridge: str, by: str, game: str, as_json: bool) -> None:
    """Recheck failed charges on BRIDGE (CD 2.4.1).

    A friendly engineer spends a whole movement phase on the bridge (it did not move
    this turn); the charges may then be fired from a stationary turn off the bridge.

    \b
    Example:
      tabletop engineer recheck bridge-1 --by G-E1
    """
    _run(game, "recheck", {"target": bridge, "by": by}, as_json)


@cli.command("repair")
@click.argument("bridge")
@click.option(
    "--by",
    "by",
    type=STAND,
    multiple=True,
    required=True,
    help="An engineer stand working on it (repeat for two).",
)
@game_option
@json_option
@command
def repair(bridge: str, by: tuple[str, ...], game: str, as_json: bool) -> None:
    """Repair a damaged BRIDGE (CD 2.4.2).

    It takes as many turns as its class, one fewer with two stands.

    \b
    Example:
      tabletop engineer repair bridge-1 --by US-E1 --by US-E2
    """
    _run(game, "repair", {"target": bridge, "by": list(by)}, as_json)


@cli.command("bridge-plan")
@click.option(
    "--class",
    "set_class",
    type=click.Choice(LEVELS),
    required=True,
    help="The bridge set's weight class.",
)
@click.option(
    "--span",
    type=Inches(100),
    default=None,
    help="Gap to bridge, in inches: also work out sets, stands and turns.",
)
@click.option(
    "--config",
    type=click.Choice(["nominal", "lower", "higher"]),
    default="nominal",
    help="How the set is built: as issued, or to a lower or higher class.",
)
@click.option(
    "--stands",
    type=click.IntRange(1, 100),
    default=None,
    help="Engineer stands available (default: enough for one set).",
)
@click.option("--both-banks", is_flag=True, help="Work from both banks at once.")
@click.option("--banks-ready", is_flag=True, help="The banks are already prepared.")
@json_option
@command
def bridge_plan(
    set_class: str,
    span: float | None,
    config: str,
    stands: int | None,
    both_banks: bool,
    banks_ready: bool,
    as_json: bool,
) -> None:
    """What a portable bridge set can become (CD 2.4.3, 2.4.4).

    And what a span would take.

    \b
    Example:
      tabletop engineer bridge-plan --class IV
      tabletop engineer bridge-plan --class IV --span 10 --stands 8 --both-banks
    """
    from tabletop.cli.core import load_charts
    from tabletop.rules.cd.engineering import (
        bridge_configurations,
        bridge_set_plan,
        permanent_bridge,
    )  # fmt: skip

    charts = load_charts()
    data: dict[str, Any] = {
        "configurations": bridge_configurations(set_class, charts),
        "permanent": permanent_bridge(set_class),
    }
    if span is not None:
        need = LEVELS.index(set_class) + 1
        data["plan"] = bridge_set_plan(
            set_class, config, span, stands or need, both_banks, banks_ready, charts
        )
    if as_json:
        emit_json(data)
        return
    click.echo(headline(f"A class {set_class} bridge set can be built as:"))
    for c in data["configurations"]:
        click.echo(
            f'  {c["config"]}: {count(c["bridges"], "bridge")} of {c["span"]:g}", '
            f"class {c['class']}"
        )
    p = data["permanent"]
    click.echo(
        f"A permanent class {set_class} bridge: {count(p['stands'], 'engineer stand')}, "
        f"{count(p['days'], 'day')} (CD 2.4.4)"
    )
    if "plan" in data:
        q = data["plan"]
        click.echo(
            f'Span {q["span"]:g}": {count(q["sets"], "set")}, '
            f"{count(q['stands_per_set'], 'stand')} and {count(q['turns_per_set'], 'turn')} "
            f"each, {count(q['crews'], 'crew')}, bank preparation "
            f"{count(q['bank_turns'], 'turn')}: {count(q['turns'], 'turn')} in all"
        )


@cli.command("bridge-set")
@click.option(
    "--class",
    "set_class",
    type=click.Choice(LEVELS),
    required=True,
    help="The bridge set's weight class.",
)
@click.option(
    "--config",
    type=click.Choice(["nominal", "lower", "higher"]),
    default="nominal",
    help="How the set is built: as issued, or to a lower or higher class.",
)
@click.option("--from", "start", type=POINT, required=True, help="One bank, X,Y.")
@click.option("--to", "end", type=POINT, required=True, help="The other bank, X,Y.")
@click.option(
    "--by",
    "by",
    type=STAND,
    multiple=True,
    required=True,
    help="An engineer stand working (repeat).",
)
@click.option("--both-banks", is_flag=True, help="Work from both banks at once.")
@click.option("--banks-ready", is_flag=True, help="The banks are already prepared.")
@game_option
@json_option
@command
def bridge_set(
    set_class: str,
    config: str,
    start: Any,
    end: Any,
    by: tuple[str, ...],
    both_banks: bool,
    banks_ready: bool,
    game: str,
    as_json: bool,
) -> None:
    """Start assembling a portable bridge across a gap (CD 2.4.3).

    The span runs from bank to bank across a river or stream (both ends on land, at
    most 12"), and every engineer named works beside it. The finished bridge is listed
    by 'tabletop structure list' and drawn on the map.

    \b
    Example:
      tabletop engineer bridge-set --class III --from 20,30 --to 20,35 --by E1
    """
    _run(
        game,
        "bridge-set",
        {
            "set_class": set_class,
            "config": config,
            "span": [list(start), list(end)],
            "by": list(by),
            "both_banks": both_banks,
            "banks_ready": banks_ready,
        },
        as_json,
    )


@cli.command("launch")
@click.argument("stand", type=STAND)
@click.option("--at", "target", required=True, help="The ditch, crater or stream to bridge.")
@click.option("--recover", is_flag=True, help="Take the launched bridge back up.")
@game_option
@json_option
@command
def launch(stand: str, target: str, recover: bool, game: str, as_json: bool) -> None:
    """STAND lays or recovers its bridge or fascine (CD 2.4.5, 4.2).

    A vehicle-launched bridge or a fascine; it takes one turn.

    \b
    Example:
      tabletop engineer launch US-VLB --at ditch-1
    """
    _run(game, "launch", {"by": stand, "target": target, "recover": recover}, as_json)


@cli.command("clear")
@click.argument("obstacle")
@click.option("--by", "by", type=STAND, required=True, help="Engineer stand or earthmover.")
@click.option(
    "--order",
    type=click.Choice(["hasty", "hold"]),
    default="hasty",
    help="Hasty advance (no cover) or hold (cover; twice as long).",
)
@game_option
@json_option
@command
def clear(obstacle: str, by: str, order: str, game: str, as_json: bool) -> None:
    """Clear a gap through OBSTACLE (CD 4).

    Wire, a ditch, a crater, anti-vehicle obstacles or abatis. The work counts from a
    turn begun beside the obstacle: a stand that moved up this turn starts next turn.

    \b
    Example:
      tabletop engineer clear wire-1 --by US-E1 --order hold
    """
    _run(game, "clear-obstacle", {"target": obstacle, "by": by, "order": order}, as_json)


@cli.command("boat")
@click.argument("boat", type=STAND)
@click.option("--load", "cargo", type=STAND, default=None, help="Load this stand.")
@click.option("--unload", is_flag=True, help="Unload what it carries.")
@click.option(
    "--at",
    "at",
    type=POINT,
    default=None,
    help="Unload: where the stand goes, X,Y beside the boat (default: ahead of the bow).",
)
@game_option
@json_option
@command
def boat(boat: str, cargo: str | None, unload: bool, at: Any, game: str, as_json: bool) -> None:
    """Load or unload an assault boat (CD 2.1).

    It takes half a turn; one stand per boat. A stand of the boat's side boards from
    beside it and rides in it off the table; unloading puts it beside the boat.

    \b
    Example:
      tabletop engineer boat BOAT-1 --load US-1
      tabletop engineer boat BOAT-1 --unload --at 20,31.5
    """
    from tabletop.core.errors import BadInput

    if (cargo is None) == (not unload):
        raise BadInput("give either --load STAND or --unload")
    if at is not None and not unload:
        raise BadInput("--at is where an unloaded stand goes: use it with --unload")
    inputs: dict[str, Any] = {"boat": boat, "stand": cargo, "load": cargo is not None}
    if at is not None:
        inputs["at"] = list(at)
    _run(game, "boat", inputs, as_json)


@cli.command("pregame")
@click.option("--side", required=True, help="The side doing the work.")
@click.option(
    "--hours",
    type=Amount(0, 24 * 60, "hours"),
    default=None,
    help="Hours the side has before the battle.",
)
@click.option("--days", type=Amount(0, 60, "days"), default=None, help="Or days it has.")
@click.option("--accept", is_flag=True, help="Accept the plan into the game: troops dig in.")
@click.option(
    "--build",
    "builds",
    multiple=True,
    help="With --accept: a work to put on the table, WORK@X,Y (fortification, tank-ramp, "
    "crater) or WORK@X1,Y1:X2,Y2 (ditch, wire, abatis, av-obstacle); repeat.",
)
@game_option
@json_option
@command
def pregame(
    side: str,
    hours: float | None,
    days: float | None,
    accept: bool,
    builds: tuple[str, ...],
    game: str,
    as_json: bool,
) -> None:
    """What a side can build before the battle (CD 5).

    In the time it has; with --accept the troops dig in and each --build goes on the
    table, within the engineer-days the time gives.

    \b
    Example:
      tabletop engineer pregame --side Germany --hours 8
      tabletop engineer pregame --side Germany --days 1 --accept \\
        --build crater@5,5
    """
    from tabletop.core.errors import BadInput
    from tabletop.rules.cd.pregame import plan, work_hours

    g = open_game(game)
    total = work_hours(g.loaded.charts, hours, days)
    if builds and not accept:
        raise BadInput("--build puts works on the table: use it with --accept")
    if accept:
        out = g.execute("pregame", {"side": side, "hours": total, "builds": list(builds)})
        data = {"event": out.seq, **out.result}
    else:
        data = {"event": None, "plan": plan(g.context(), side, total)}
    if as_json:
        emit_json(data)
        return
    p = data["plan"]
    click.echo(
        headline(
            f"{p['side']}: {p['hours']:g} {'hour' if p['hours'] == 1 else 'hours'} = "
            f"{count(p['days'], 'work day')}; {count(len(p['engineers']), 'engineer stand')}, "
            f"{count(len(p['earthmovers']), 'earthmover')}, "
            f"{count(p['engineer_companies'], 'engineer company', 'engineer companies')}"
        )
    )
    for name, w in p["works"].items():
        if not w["possible"]:
            click.echo(f"  {name}: no ({w.get('why_not', 'not possible')})")
        elif "amount" in w:
            where = f"; only in {', '.join(w['only_in'])}" if w.get("only_in") else ""
            where += f"; not in {', '.join(w['not_in'])}" if w.get("not_in") else ""
            click.echo(f"  {name}: up to {w['amount']:g} {w['unit'] or ''} [{w['rule']}]{where}")
        else:
            click.echo(f"  {name}: every personnel stand ({w['cover']} cover) [{w['rule']}]")
    if data.get("verdict"):
        click.echo(data["verdict"])


@cli.command("smoke")
@click.argument("stand", type=STAND)
@click.option("--stop", is_flag=True, help="Stop generating; the screen thins away.")
@game_option
@json_option
@command
def smoke(stand: str, stop: bool, game: str, as_json: bool) -> None:
    """Start or stop STAND's smoke generator (CD 5.3).

    An engineer smoke generator; the screen drifts downwind.

    \b
    Example:
      tabletop engineer smoke G-SG
    """
    _run(game, "smoke-generator", {"stand": stand, "stop": stop}, as_json)


@cli.command("tasks")
@game_option
@json_option
@command
def list_tasks(game: str, as_json: bool) -> None:
    """Engineering tasks and how far along they are.

    Who, what, since when, how much is left, and how they ended.

    \b
    Example:
      tabletop engineer tasks
    """
    from tabletop.rules.cd.tasks import OPEN, tasks, told, work_left

    g = open_game(game)
    ctx = g.context()
    rows = tasks(ctx.state)
    if as_json:
        # What is left of an open task, as the text words it: turns of the light in force
        # (night turns at night, CD 9.1.7) and hours; the row's own 'turns' are day turns.
        emit_json(
            {"tasks": [{**t, "left": told(ctx, t)} if t["status"] in OPEN else t for t in rows]}
        )
        return
    if not rows:
        click.echo("no engineering tasks")
    for t in rows:
        state = t["report"] or work_left(ctx, t)
        click.echo(
            f"{t['id']}: {t['kind']} {t['target']} by {', '.join(t['workers'])} since turn "
            f"{t['started']['turn']}: {t['status']} ({state})"
        )


@cli.command("cancel")
@click.argument("task")
@game_option
@json_option
@command
def cancel(task: str, game: str, as_json: bool) -> None:
    """Cancel TASK, an engineering task.

    \b
    Example:
      tabletop engineer cancel task-2
    """
    _run(game, "task-cancel", {"task": task}, as_json)


__all__ = ["BEARING", "cli"]
