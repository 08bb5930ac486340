"""Engineers and water barriers, obstacles and vehicle-launched bridges (CD 2, 4).

Demolition and its recheck happen at once (at the end of the movement phase); repairs,
bridge sets, bank preparation, launched bridges and obstacle clearing are tasks that the
end of each turn advances (``tabletop.rules.cd.tasks``).
"""

from __future__ import annotations

import math
from typing import Any

from shapely.geometry import LineString, Point

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.units import within
from tabletop.core.words import count, possessive, with_article
from tabletop.data.board import base_of
from tabletop.data.chart_params import EngineeringParams, TableParams
from tabletop.data.charts import WEIGHT_LEVELS, Charts, weight_number
from tabletop.rules.cd import tasks, terrain_state
from tabletop.rules.cd.conditions import weight_class_of
from tabletop.rules.cd.ground import stay_put
from tabletop.rules.cd.structures import apply_damage
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, centre, out_of_play
from tabletop.table import base_polygon, bearing, overlapping, strip

CONFIGS = ("nominal", "lower", "higher")


# --- who may work ------------------------------------------------------------------------------


def kind_of(ctx: RulesContext, stand: StandRow) -> Any:
    return ctx.charts.stand_kinds[stand["kind"]]


def equipment(ctx: RulesContext, stand: StandRow) -> tuple[str, ...]:
    try:
        return tuple(ctx.scenario.stand_spec(stand["id"]).equipment)
    except KeyError:
        return ()


def is_earthmover(ctx: RulesContext, stand: StandRow) -> bool:
    try:
        own = ctx.scenario.stand_spec(stand["id"]).earthmover
    except KeyError:
        own = None
    return bool(own) if own is not None else bool(kind_of(ctx, stand).earthmover)


def require_engineer(
    ctx: RulesContext, stand: StandRow, rule: str, *, earthmover_ok: bool = False
) -> None:
    kind = kind_of(ctx, stand)
    if kind.engineer or (earthmover_ok and is_earthmover(ctx, stand)):
        return
    what = "an engineer stand or an earthmover" if earthmover_ok else "an engineer stand"
    raise RulesRefusal(
        f"{stand['id']} is {with_article(stand['kind'])}: this needs {what} ({rule})"
    )


def require_fit(
    ctx: RulesContext,
    stand: StandRow,
    rule: str,
    *,
    stationary: bool = True,
    unsuppressed: bool = True,
) -> None:
    """In play, unpinned (and unsuppressed), and stationary this turn where the rule asks."""
    if out_of_play(stand):
        raise RulesRefusal(f"{stand['id']} is eliminated")
    if "pinned" in stand["markers"]:
        raise RulesRefusal(f"{stand['id']} is pinned ({rule})")
    if unsuppressed and "suppressed" in stand["markers"]:
        raise RulesRefusal(f"{stand['id']} is suppressed ({rule})")
    if stationary and stand.get("moved_turn") == ctx.state.turn:
        raise RulesRefusal(f"{stand['id']} moved this turn; it must be stationary ({rule})")


def require_phase(ctx: RulesContext, phase: str, what: str, rule: str) -> None:
    if ctx.state.phase != phase:
        raise RulesRefusal(
            f"{what} happens at the end of the {phase} phase ({rule}); it is the "
            f"{ctx.state.phase} phase now"
        )


def placed(stand: StandRow) -> None:
    if stand["x"] is None:
        raise BadInput(
            f"{stand['id']} is not placed on the table: place it with "
            f"'tabletop place {stand['id']} X Y'"
        )


def gap_to_piece(ctx: RulesContext, stand: StandRow, piece_id: str) -> tuple[float, bool]:
    """Inches from the stand's base to the piece, and whether the base is on it."""

    placed(stand)
    base = base_polygon(base_of(stand))
    shape = ctx.table.geometry(piece_id)
    on = bool(base.intersects(shape) and base.intersection(shape).area > 1e-6)
    return float(base.distance(shape)), on


def adjacent(ctx: RulesContext, stand: StandRow, piece_id: str) -> bool:
    gap, _ = gap_to_piece(ctx, stand, piece_id)
    return within(gap, ctx.charts.params(EngineeringParams).adjacent)


def piece_spec(ctx: RulesContext, piece_id: str, kinds: tuple[str, ...], what: str) -> Any:
    try:
        piece = ctx.scenario.piece(piece_id)
    except KeyError:
        raise terrain_state.not_a_scenario_piece(ctx.state, piece_id, ctx.scenario, what) from None
    if piece.kind not in kinds:
        raise BadInput(f"{piece_id} is {piece.kind}, not {what}")
    return piece


# --- demolition (CD 2.4.1, 6.1.3) ------------------------------------------------------------


def owner_of(ctx: RulesContext, piece: Any) -> tuple[str, str]:
    """The side whose charges wire ``piece``, and how that is known (CD 2.4.1, 6.1.3).

    The scenario's ``owner:`` when given; otherwise the side that holds the piece at the
    start: the side whose stand stood nearest to it when the game began.
    """
    if piece.owner is not None:
        return str(piece.owner), "the scenario's owner"

    shape = ctx.table.geometry(piece.id)
    best: tuple[float, str] | None = None
    for side, spec in ctx.scenario.stand_specs():
        if spec.at is None:
            continue
        gap = float(shape.distance(Point(spec.at)))
        if best is None or gap < best[0]:
            best = (gap, side)
    if best is None:
        raise BadInput(
            f"{piece.id} is wired but the scenario names no owner and places no stand to "
            "infer one from: add owner: SIDE to the piece"
        )
    return best[1], f"inferred: {possessive(best[1])} stands held it at the start"


def demolition_result(roll: int, weight: int, always: int) -> str:
    """Damaged above the class, destroyed at twice it, and always on a 10 (CD 2.4.1)."""
    if roll >= always or roll >= 2 * weight:
        return "destroyed"
    if roll > weight:
        return "damaged"
    return "failed"


def demolish_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    state, charts = ctx.state, ctx.charts
    piece = piece_spec(ctx, inputs["target"], terrain_state.STRUCTURES, "a bridge or structure")
    row = terrain_state.row(state, piece.id, ctx.scenario)
    stand = state.stand(inputs["by"])
    ctx.involve(stand["id"])
    rule = "CD 2.4.1" if piece.kind == "bridge" else "CD 6.1.3"
    if row["state"] == "destroyed":
        raise RulesRefusal(f"{piece.id} is already destroyed ({rule})")
    if row.get("charges_fired") is not None:
        raise RulesRefusal(
            f"the charges on {piece.id} already went off (turn {row['charges_fired']}): only "
            f"the wiring laid before the game may blow it, and that is spent ({rule})"
        )
    if not row["wired"]:
        raise RulesRefusal(f"{piece.id} was not wired for demolition before the game ({rule})")
    if row["recheck"]:
        raise RulesRefusal(
            f"the charges on {piece.id} failed: an engineer must first end a "
            f"movement phase on it, unpinned and unsuppressed, to recheck them "
            f"('tabletop engineer recheck {piece.id} --by STAND', {rule})"
        )
    require_engineer(ctx, stand, rule)
    owner, how = owner_of(ctx, piece)
    if owner != stand["side"]:
        raise RulesRefusal(
            f"{piece.id} was wired by {owner} ({how}); only a friendly engineer detonates "
            f"the charges and {stand['id']} is {possessive(stand['side'])} ({rule})"
        )
    require_fit(ctx, stand, rule, unsuppressed=False)
    require_phase(ctx, "movement", "demolition", rule)
    gap, on = gap_to_piece(ctx, stand, piece.id)
    reach = charts.params(EngineeringParams).demolition_range
    if on:
        raise RulesRefusal(f"{stand['id']} is on {piece.id}: it must detonate from off it ({rule})")
    checked = row.get("rechecked")
    if checked is not None and checked["turn"] >= state.turn:
        raise RulesRefusal(
            f"the charges on {piece.id} were rechecked this turn: they may be fired from a "
            f"stationary turn off the bridge, from turn {checked['turn'] + 1} ({rule})"
        )
    if not within(gap, reach):
        raise RulesRefusal(
            f'{stand["id"]} is {gap:.1f}" from {piece.id}: it must be within {reach:g}" ({rule})'
        )
    if piece.kind != "bridge":
        # CD 6.1.3: other wired structures are simply destroyed.

        effects = apply_damage(ctx, piece.id, destroy=True)
        return {
            "verdict": f"{piece.id} destroyed by demolition ({rule})",
            "result": "destroyed",
            "rolls": [],
            "effects": effects,
        }
    weight = weight_number(piece.weight_class)
    if not weight:
        raise BadInput(f"{piece.id} has no weight_class in the scenario (needed by {rule})")
    always = charts.params(EngineeringParams).demolition_always_destroys
    roll = ctx.dice.roll(
        charts.params(EngineeringParams).demolition_die,
        f"demolition of {piece.id} (class {piece.weight_class})",
    )
    result = demolition_result(roll, weight, always)
    # CD 2.4.1: fired by a stationary engineer as the movement phase ends: it stays put.
    stay_put(ctx, stand, f"fired the charges on {piece.id}", rule)
    if result == "failed":
        row["recheck"] = True
    else:
        row["state"] = result
        row["damage"] = row.get("damage", 0) + 1
        # CD 2.4.1: charges that went off are spent; a repaired bridge is not wired again.
        row["wired"] = False
        row["charges_fired"] = state.turn
    verdict = {
        "destroyed": f"{piece.id} destroyed",
        "damaged": f"{piece.id} damaged: unusable until repaired",
        "failed": f"the charges on {piece.id} did not go off: recheck them before trying again",
    }[result]
    return {
        "verdict": f"{verdict} (rolled {roll}; class {piece.weight_class}, {rule})",
        "result": result,
        "rolls": [roll],
        "target": piece.id,
    }


def recheck_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """CD 2.4.1: after charges fail, a friendly engineer spends a whole movement phase on the
    bridge (it does not move in it), unpinned and unsuppressed; only then may charges be
    fired again, from a stationary turn off the bridge.
    """
    piece = piece_spec(ctx, inputs["target"], ("bridge",), "a bridge")
    row = terrain_state.row(ctx.state, piece.id, ctx.scenario)
    stand = ctx.state.stand(inputs["by"])
    ctx.involve(stand["id"])
    if not row["recheck"]:
        raise RulesRefusal(f"the charges on {piece.id} need no recheck (CD 2.4.1)")
    require_engineer(ctx, stand, "CD 2.4.1")
    owner, how = owner_of(ctx, piece)
    if owner != stand["side"]:
        raise RulesRefusal(
            f"{piece.id}'s charges are {owner}'s ({how}); {stand['id']} is "
            f"{possessive(stand['side'])}: only a friendly engineer rechecks them (CD 2.4.1)"
        )
    require_phase(ctx, "movement", "rechecking the charges", "CD 2.4.1")
    placed(stand)
    _, on = gap_to_piece(ctx, stand, piece.id)
    if not on:
        raise RulesRefusal(
            f"{stand['id']} must spend the whole movement phase on {piece.id} to recheck "
            "its charges (CD 2.4.1)"
        )
    # CD 2.4.1 asks only that it end the phase on the bridge, unpinned and unsuppressed: it
    # may have moved onto it this phase; it stays there until the phase ends.
    require_fit(ctx, stand, "CD 2.4.1", stationary=False)
    row["recheck"] = False
    row["rechecked"] = {"turn": ctx.state.turn, "by": stand["id"]}
    stay_put(ctx, stand, f"rechecks the charges on {piece.id}", "CD 2.4.1")
    turn = ctx.state.turn
    return {
        "verdict": f"{stand['id']} rechecked the charges on {piece.id} and ends the movement "
        f"phase on it; it moves off in turn {turn + 1}, and the charges may be fired by a "
        f"stationary engineer off the bridge from turn {turn + 2} (CD 2.4.1)",
        "target": piece.id,
        "fire_from_turn": turn + 2,
    }


# --- repair (CD 2.4.2) --------------------------------------------------------------------------


def repair_turns(weight: int, stands: int, saving: int) -> int:
    return max(1, weight - (saving if stands >= 2 else 0))


def repair_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    state = ctx.state
    piece = piece_spec(ctx, inputs["target"], ("bridge",), "a bridge")
    row = terrain_state.row(state, piece.id, ctx.scenario)
    if row["state"] == "destroyed":
        raise RulesRefusal(
            f"{piece.id} is destroyed: destroyed bridges cannot be repaired (CD 2.4.1)"
        )
    if row["state"] != "damaged":
        raise RulesRefusal(
            f"{piece.id} is not damaged: only a damaged bridge is repaired (CD 2.4.2)"
        )
    workers = _workers(ctx, inputs["by"], "CD 2.4.2")
    for stand in workers:
        gap, on = gap_to_piece(ctx, stand, piece.id)
        if not on and not adjacent(ctx, stand, piece.id):
            raise RulesRefusal(
                f'{stand["id"]} is {gap:.1f}" from {piece.id}: engineers repair '
                "on or beside the bridge (CD 2.4.2)"
            )
    weight = weight_number(piece.weight_class)
    saving = ctx.charts.params(EngineeringParams).repair_two_stands_saving
    turns = repair_turns(weight, len(workers), saving)
    task = tasks.start(ctx, "repair", [s["id"] for s in workers], piece.id, turns, {})
    return {
        "verdict": f"repair of {piece.id} begun: {tasks.estimate(ctx, task)} (class "
        f"{piece.weight_class}, {count(len(workers), 'engineer stand')}, CD 2.4.2)",
        **tasks.told(ctx, task),
        "task": task["id"],
    }


@tasks.completion("repair")
def _repaired(ctx: RulesContext, task: dict[str, Any]) -> str:
    row = terrain_state.row(ctx.state, task["target"], ctx.scenario)
    row["state"] = "intact"
    return f"{task['target']} repaired and usable again"


def _workers(
    ctx: RulesContext, ids: list[str], rule: str, *, earthmover_ok: bool = False
) -> list[StandRow]:
    if not ids:
        raise BadInput("name the working stands with --by")
    if len(set(ids)) != len(ids):
        raise BadInput("a stand is named twice in --by")
    workers = [ctx.state.stand(i) for i in ids]
    for stand in workers:
        require_engineer(ctx, stand, rule, earthmover_ok=earthmover_ok)
        require_fit(ctx, stand, rule, stationary=False)
        placed(stand)
    return workers


# --- portable and permanent bridges (CD 2.4.3, 2.4.4) ---------------------------------------


def bridge_configurations(set_class: str, charts: Charts) -> list[dict[str, Any]]:
    """What one bridge set of a class can become (CD 2.4.3)."""
    n = WEIGHT_LEVELS.index(set_class)
    span = charts.params(EngineeringParams).bridge_set_span
    short = charts.params(EngineeringParams).bridge_set_short_span
    out = [{"config": "nominal", "bridges": 1, "span": span, "class": set_class}]
    if n > 0:
        out.append({"config": "lower", "bridges": 2, "span": span, "class": WEIGHT_LEVELS[n - 1]})
    if n + 1 < len(WEIGHT_LEVELS):
        out.append({"config": "higher", "bridges": 1, "span": short, "class": WEIGHT_LEVELS[n + 1]})
    return out


def bridge_set_plan(
    set_class: str,
    config: str,
    span: float,
    stands: int,
    both_banks: bool,
    banks_ready: bool,
    charts: Charts,
) -> dict[str, Any]:
    """Sets, stands and turns to bridge ``span`` inches with sets of ``set_class``."""
    options = {c["config"]: c for c in bridge_configurations(set_class, charts)}
    if config not in options:
        raise RulesRefusal(
            f"a class {set_class} set cannot be built {config!r} "
            f"(possible: {', '.join(options)}; CD 2.4.3)"
        )
    chosen = options[config]
    cap = charts.params(EngineeringParams).bridge_max_span
    if span <= 0:
        raise BadInput("the gap to bridge must be more than 0 inches")
    if span > cap + 1e-9:
        raise RulesRefusal(
            f'{span:g}" is more than the {cap:g}" portable bridging can span (CD 2.4.3)'
        )
    sets = math.ceil(span / chosen["span"] - 1e-9)
    per_set = WEIGHT_LEVELS.index(set_class) + 1  # stands and turns per set (CD 2.4.3)
    if stands < per_set:
        raise RulesRefusal(
            f"a class {set_class} set needs {per_set} engineer stands to "
            f"assemble; {stands} given (CD 2.4.3)"
        )
    crews = 2 if both_banks and stands >= 2 * per_set and sets > 1 else 1
    rounds = math.ceil(sets / crews)
    bank_turns = 0 if banks_ready else charts.params(EngineeringParams).bank_preparation_turns
    return {
        "class": chosen["class"],
        "span": span,
        "sets": sets,
        "stands_per_set": per_set,
        "turns_per_set": per_set,
        "crews": crews,
        "bank_turns": bank_turns,
        "turns": bank_turns + rounds * per_set,
    }


WATER_GAPS = ("river", "stream")


def gap_spanned(ctx: RulesContext, a: tuple[float, float], b: tuple[float, float]) -> list[str]:
    """The rivers and streams the span from ``a`` to ``b`` crosses bank to bank (CD 2.4.3).

    Both ends must stand on land (a bank: outside the water, its edge allowed) and the span
    must cross at least one water piece; a span that ends in mid-stream is refused.
    """

    line = LineString([a, b])
    crossed = []
    for piece in ctx.scenario.terrain:
        if piece.kind not in WATER_GAPS:
            continue
        shape = ctx.table.geometry(piece.id)
        for end in (a, b):
            if shape.contains(Point(end)):
                raise RulesRefusal(
                    f"the span ends at {end[0]:g},{end[1]:g} in {piece.id}: a portable "
                    "bridge reaches from bank to bank (CD 2.4.3)"
                )
        if line.intersection(shape).length > 1e-6:
            crossed.append(piece.id)
    if not crossed:
        raise RulesRefusal(
            f"the span {a[0]:g},{a[1]:g} to {b[0]:g},{b[1]:g} crosses no river or stream: a "
            "portable bridge is laid across a water gap, bank to bank (CD 2.4.3)"
        )
    return crossed


def bridge_set_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    workers = _workers(ctx, inputs["by"], "CD 2.4.3")
    (x1, y1), (x2, y2) = inputs["span"]
    span = math.dist((x1, y1), (x2, y2))
    cap = ctx.charts.params(EngineeringParams).bridge_max_span
    if span > cap + 1e-9:
        raise RulesRefusal(
            f'{span:g}" is more than the {cap:g}" portable bridging can span (CD 2.4.3)'
        )
    crossed = gap_spanned(ctx, (x1, y1), (x2, y2)) if span > 0 else []
    near = ctx.charts.params(EngineeringParams).adjacent
    line = LineString([(x1, y1), (x2, y2)])
    for stand in workers:
        gap = float(base_polygon(base_of(stand)).distance(line))
        if not within(gap, near):
            raise RulesRefusal(
                f'{stand["id"]} is {gap:.1f}" from the span: the engineers assemble the '
                f'bridge from beside it (within {near:g}", CD 2.4.3)'
            )
    plan = bridge_set_plan(
        inputs["set_class"],
        inputs["config"],
        span,
        len(workers),
        bool(inputs.get("both_banks")),
        bool(inputs.get("banks_ready")),
        ctx.charts,
    )
    task = tasks.start(
        ctx,
        "bridge-set",
        [s["id"] for s in workers],
        "portable bridge",
        plan["turns"],
        {**plan, "from": [x1, y1], "to": [x2, y2], "crosses": crossed, "side": workers[0]["side"]},
    )
    return {
        "verdict": f"portable bridge begun across {', '.join(crossed)}: {plan['sets']} class "
        f"{inputs['set_class']} {'set' if plan['sets'] == 1 else 'sets'} for a class "
        f'{plan["class"]} span of {span:.1f}", '
        f"{tasks.estimate(ctx, task)} (CD 2.4.3)",
        **tasks.told(ctx, task),
        "plan": plan,
        "task": task["id"],
    }


@tasks.completion("bridge-set")
def _bridge_built(ctx: RulesContext, task: dict[str, Any]) -> str:
    row = add_built_bridge(
        ctx,
        side=task["detail"].get("side") or ctx.state.stand(task["workers"][0])["side"],
        weight_class=task["detail"]["class"],
        start=task["detail"]["from"],
        end=task["detail"]["to"],
        by=task["workers"][0],
        crosses=list(task["detail"].get("crosses") or []),
        how="portable",
    )
    return f'a class {row["weight_class"]} bridge ({row["id"]}) spans {task["detail"]["span"]:.1f}"'


BUILT = "built-bridge-"


def add_built_bridge(
    ctx: RulesContext,
    *,
    side: str,
    weight_class: str,
    start: list[float],
    end: list[float],
    by: str,
    crosses: list[str],
    how: str,
) -> dict[str, Any]:
    """Put a bridge built in play on the table (CD 2.4.3, 2.4.5).

    It is a terrain row ``terrain:built-bridge-N`` shaped like the scenario's own bridge
    rows (id, kind "bridge", state, wired, damage, recheck, gaps) plus ``built: True``,
    ``weight_class``, ``polygon`` (its 1" wide deck from bank to bank), ``crosses`` (the
    water pieces it spans), ``side``, ``by``, ``turn`` and ``how``; and a map template of the
    same id (kind "bridge") so the map draws it.
    """
    state = ctx.state
    serial = int(state.meta.get("built_bridge_serial", 0)) + 1
    state.meta["built_bridge_serial"] = serial
    bridge_id = f"{BUILT}{serial}"
    polygon = _span_polygon(start, end)
    row: dict[str, Any] = {
        "id": bridge_id,
        "kind": "bridge",
        "state": "intact",
        "wired": False,
        "damage": 0,
        "recheck": False,
        "gaps": [],
        "built": True,
        "how": how,
        "weight_class": weight_class,
        "polygon": polygon,
        "crosses": crosses,
        "side": side,
        "by": by,
        "turn": state.turn,
    }
    state.rows[terrain_state.TERRAIN + bridge_id] = row
    state.add_template(
        {
            "id": bridge_id,
            "kind": "bridge",
            "by": by,
            "turn": state.turn,
            "lifetime": "game",
            "weight_class": weight_class,
            "polygon": polygon,
        }
    )
    return row


def _span_polygon(a: list[float], b: list[float]) -> list[list[float]]:
    shape = strip(a[0], a[1], bearing(a[0], a[1], b[0], b[1]), 1.0, math.dist(a, b))
    return [list(p) for p in shape.exterior.coords]


def permanent_bridge(weight_class: str) -> dict[str, Any]:
    """A permanent bridge needs as many engineer stands and days as its class (CD 2.4.4)."""
    n = WEIGHT_LEVELS.index(weight_class) + 1
    return {"class": weight_class, "stands": n, "days": n}


# --- vehicle-launched bridges and fascines (CD 2.4.5, 4.2) ---------------------------------


LAUNCHED_SPANS = ("stream", "ditch", "crater")
FASCINE_FILLS = ("ditch", "crater")


def launch_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    stand = ctx.state.stand(inputs["by"])
    kit = equipment(ctx, stand)
    what = "fascine" if "fascine" in kit else "vlb" if "vlb" in kit else None
    if what is None:
        raise RulesRefusal(
            f"{stand['id']} carries no launched bridge or fascine (scenario "
            "equipment: vlb or fascine; CD 2.4.5)"
        )
    require_fit(ctx, stand, "CD 2.4.5", stationary=False, unsuppressed=False)
    placed(stand)
    recover = bool(inputs.get("recover"))
    target = inputs["target"]
    if what == "fascine" and recover:
        raise RulesRefusal("a fascine fills the gap and cannot be recovered (CD 4.2)")
    # CD 2.4.5: a launched bridge spans narrow water (streams, canals), dry gaps, ditches
    # and craters, never a river; CD 4.2: a fascine fills only a ditch or a crater.
    spans = LAUNCHED_SPANS if what == "vlb" else FASCINE_FILLS
    rule = "CD 2.4.5" if what == "vlb" else "CD 4.2"
    try:
        kind = ctx.scenario.piece(target).kind
    except KeyError:
        kind = None
    if kind is not None and kind not in spans:
        raise RulesRefusal(
            f"{target} is {with_article(kind)}: "
            f"a {'launched bridge' if what == 'vlb' else 'fascine'} "
            f"crosses only {', '.join(spans)} ({rule})"
        )
    piece = piece_spec(ctx, target, spans, "a ditch, crater or narrow water")
    if not adjacent(ctx, stand, piece.id):
        raise RulesRefusal(f"{stand['id']} must spend the turn beside {piece.id} (CD 2.4.5)")
    turns = float(ctx.charts.params(EngineeringParams).vlb_turns)
    kind = f"{what}-{'recover' if recover else 'emplace'}"
    # "One complete turn adjacent" (CD 2.4.5): a vehicle that moved up this turn counts
    # from the next, as hand lifting and obstacle clearing do.
    task = tasks.start(
        ctx,
        kind,
        [stand["id"]],
        piece.id,
        turns,
        {"at": [stand["x"], stand["y"]]},
        no_fire=False,
        whole_turns=True,
    )
    took = tasks.estimate_hours(ctx, task["hours_needed"])
    when = (
        f"{took}, done at the end of this turn"
        if task["from_turn"] == ctx.state.turn
        else f"{took}, done at the end of turn {task['from_turn']} (it moved up this turn)"
    )
    return {
        "verdict": f"{stand['id']} {'recovers' if recover else 'lays'} its {what} at "
        f"{piece.id}: {when}; it takes a hasty advance order but does not move "
        "(CD 2.4.5)",
        **tasks.told(ctx, task),
        "task": task["id"],
    }


@tasks.completion("vlb-emplace")
@tasks.completion("fascine-emplace")
def _emplaced(ctx: RulesContext, task: dict[str, Any]) -> str:
    what = task["kind"].split("-")[0]
    row = ctx.state.rows.get(terrain_state.TERRAIN + task["target"])
    if row is not None:
        row["gaps"].append({"at": task["detail"]["at"], "by": what})
    if what != "vlb":
        return f"{what} emplaced across {task['target']}"
    # CD 2.4.5: the launched bridge is a bridge on the table, of its charted load class.
    vehicle = ctx.state.stand(task["workers"][0])
    start, end = _launch_span(ctx, vehicle, task["target"])
    bridge = add_built_bridge(
        ctx,
        side=vehicle["side"],
        weight_class=ctx.charts.params(EngineeringParams).vlb_class,
        start=start,
        end=end,
        by=vehicle["id"],
        crosses=[task["target"]],
        how="vlb",
    )
    vehicle["vlb_bridge"] = bridge["id"]
    return f"vlb emplaced across {task['target']} ({bridge['id']}, class {bridge['weight_class']})"


def _launch_span(
    ctx: RulesContext, vehicle: StandRow, piece_id: str
) -> tuple[list[float], list[float]]:
    """From the bank by the vehicle straight across the obstacle, a little onto each side."""

    shape = ctx.table.geometry(piece_id)
    here = Point(vehicle["x"], vehicle["y"])
    near = (
        shape.exterior.interpolate(shape.exterior.project(here))
        if hasattr(shape, "exterior")
        else shape.boundary.interpolate(shape.boundary.project(here))
    )
    dx, dy = near.x - here.x, near.y - here.y
    if math.hypot(dx, dy) < 1e-9:
        rad = math.radians(float(vehicle["facing"]))
        dx, dy = math.sin(rad), math.cos(rad)
    length = math.hypot(dx, dy)
    ux, uy = dx / length, dy / length
    reach = LineString([(here.x, here.y), (here.x + ux * 100, here.y + uy * 100)])
    crossing = reach.intersection(shape)
    parts = list(getattr(crossing, "geoms", [crossing]))
    first = min(parts, key=lambda g: here.distance(g))
    coords = list(first.coords)
    (ax, ay), (bx, by) = coords[0], coords[-1]
    margin = ctx.charts.params(EngineeringParams).vlb_bank_overlap
    return (
        [round(ax - ux * margin, 4), round(ay - uy * margin, 4)],
        [round(bx + ux * margin, 4), round(by + uy * margin, 4)],
    )


@tasks.completion("vlb-recover")
def _recovered(ctx: RulesContext, task: dict[str, Any]) -> str:
    row = ctx.state.rows.get(terrain_state.TERRAIN + task["target"])
    if row is not None:
        row["gaps"] = [g for g in row["gaps"] if g.get("by") != "vlb"]
    vehicle = ctx.state.stand(task["workers"][0])
    bridge = vehicle.pop("vlb_bridge", None)
    if bridge is not None:
        ctx.state.rows.pop(terrain_state.TERRAIN + bridge, None)
        ctx.state.remove_template(bridge)
    return f"launched bridge recovered from {task['target']}"


# --- where the workers must be while a task goes on ---------------------------------------


@tasks.place_check("repair")
def _at_bridge(ctx: RulesContext, task: dict[str, Any], stand: StandRow) -> str | None:
    gap, on = gap_to_piece(ctx, stand, task["target"])
    if on or adjacent(ctx, stand, task["target"]):
        return None
    return f'{stand["id"]} is {gap:.1f}" from {task["target"]}'


@tasks.place_check("clear", "vlb-emplace", "fascine-emplace", "vlb-recover")
def _beside_piece(ctx: RulesContext, task: dict[str, Any], stand: StandRow) -> str | None:
    if stand["x"] is None:
        return f"{stand['id']} is off the table"
    if adjacent(ctx, stand, task["target"]):
        return None
    gap, _ = gap_to_piece(ctx, stand, task["target"])
    return f'{stand["id"]} is {gap:.1f}" from {task["target"]}, not beside it'


@tasks.place_check("bridge-set")
def _beside_span(ctx: RulesContext, task: dict[str, Any], stand: StandRow) -> str | None:
    if stand["x"] is None:
        return f"{stand['id']} is off the table"
    line = LineString([task["detail"]["from"], task["detail"]["to"]])
    gap = float(base_polygon(base_of(stand)).distance(line))
    if within(gap, ctx.charts.params(EngineeringParams).adjacent):
        return None
    return f'{stand["id"]} is {gap:.1f}" from the span, not beside it'


# --- obstacles (CD 4) -------------------------------------------------------------------------


def clearing_turns(
    turns: int, order: str, earthmover: bool, hold_factor: int, earthmover_turns: int
) -> int:
    """Hasty advance: the charted time; hold: twice it; an earthmover: one turn (CD 4)."""
    if earthmover:
        return earthmover_turns
    return turns * (hold_factor if order == "hold" else 1)


def clear_obstacle_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    charts = ctx.charts
    table = charts.table("obstacles")
    piece = piece_spec(ctx, inputs["target"], tuple(table), "an obstacle")
    stand = ctx.state.stand(inputs["by"])
    require_engineer(ctx, stand, "CD 4", earthmover_ok=True)
    require_fit(ctx, stand, "CD 4", stationary=False)
    placed(stand)
    if not adjacent(ctx, stand, piece.id):
        raise RulesRefusal(f"{stand['id']} must begin its work beside {piece.id} (CD 4)")
    work = table[piece.kind]
    mover = is_earthmover(ctx, stand) and not kind_of(ctx, stand).engineer
    if mover and not work.earthmover:
        raise RulesRefusal(f"earthmovers cannot clear {piece.kind} ({work.rule})")
    order = inputs.get("order") or "hasty"
    turns = clearing_turns(
        work.turns,
        order,
        mover,
        charts.params(EngineeringParams).hold_order_factor,
        charts.params(EngineeringParams).earthmover_turns,
    )
    width = (
        charts.params(EngineeringParams).earthmover_wire_inches
        if mover and piece.kind == "wire"
        else charts.params(EngineeringParams).gap_width
    )
    # CD 4: the work begins with a movement phase begun beside the obstacle; a stand that
    # moved up this turn starts next turn.
    task = tasks.start(
        ctx,
        "clear",
        [stand["id"]],
        piece.id,
        turns,
        {"at": [stand["x"], stand["y"]], "width": width, "order": order},
        whole_turns=True,
    )
    later = (
        ", from next turn (it moved up this turn, CD 4)"
        if task["from_turn"] > ctx.state.turn
        else ""
    )
    return {
        "verdict": f'{stand["id"]} clears a {width:g}" gap in {piece.id}: '
        f"{tasks.estimate_hours(ctx, task['hours_needed'])}"
        f"{later} ({'earthmover' if mover else order + ' order'}, {work.rule})",
        **tasks.told(ctx, task),
        "task": task["id"],
    }


@tasks.completion("clear")
def _cleared(ctx: RulesContext, task: dict[str, Any]) -> str:
    row = terrain_state.row(ctx.state, task["target"], ctx.scenario)
    row["gaps"].append(
        {"at": task["detail"]["at"], "width": task["detail"]["width"], "by": "cleared"}
    )
    return f'a {task["detail"]["width"]:g}" gap cleared through {task["target"]}'


# --- assault boats (CD 2.1) -------------------------------------------------------------------


def boat_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    state, charts = ctx.state, ctx.charts
    boat = state.stand(inputs["boat"])
    ctx.involve(boat["id"])
    if boat["kind"] != "assault-boat":
        raise BadInput(f"{boat['id']} is {with_article(boat['kind'])}, not an assault-boat")
    if out_of_play(boat):
        raise RulesRefusal(f"{boat['id']} is {boat['status']}")
    placed(boat)
    carrying = boat.setdefault("carrying", [])
    near = charts.params(EngineeringParams).adjacent
    if inputs["load"]:
        cargo = state.stand(inputs["stand"])
        ctx.involve(cargo["id"])
        kind = charts.stand_kinds[cargo["kind"]]
        if carrying:
            raise RulesRefusal(
                f"{boat['id']} already carries {carrying[0]}: one stand per boat (CD 2.1)"
            )
        if cargo["side"] != boat["side"]:
            raise RulesRefusal(
                f"{cargo['id']} is {possessive(cargo['side'])}: {boat['id']} carries only its own "
                f"side's stands ({boat['side']}, CD 2.1)"
            )
        if out_of_play(cargo):
            raise RulesRefusal(f"{cargo['id']} is {cargo['status']}")
        if cargo.get("aboard"):
            raise RulesRefusal(f"{cargo['id']} is already aboard {cargo['aboard']}")
        max_class = charts.params(EngineeringParams).boat_max_gun_class
        # CD 2.1: the stand's own class (scenario weight_class) first, then its kind's.
        cargo_class = weight_class_of(ctx, cargo)
        gun_ok = kind.category == "gun" and weight_number(cargo_class) <= weight_number(max_class)
        if kind.category != "personnel" and not gun_ok:
            of_class = f" of class {cargo_class}" if cargo_class else ""
            raise RulesRefusal(
                f"an assault boat carries a personnel stand or a class {max_class} "
                f"towed weapon; {cargo['id']} is {with_article(cargo['kind'])}{of_class} (CD 2.1)"
            )
        placed(cargo)
        gap = base_polygon(base_of(cargo)).distance(base_polygon(base_of(boat)))
        if not within(gap, near):
            raise RulesRefusal(
                f'{cargo["id"]} is {gap:.1f}" from {boat["id"]}: a stand boards from beside '
                f'the boat (within {near:g}", CD 2.1)'
            )
        carrying.append(cargo["id"])
        cargo["aboard"] = boat["id"]
        # Aboard, the stand is in the boat, not on the table: it moves with the boat.
        cargo["x"] = cargo["y"] = None
        verb = f"{cargo['id']} loads into {boat['id']}"
    else:
        if not carrying:
            raise RulesRefusal(f"{boat['id']} carries nothing")
        cargo = state.stand(carrying[-1])
        ctx.involve(cargo["id"])
        x, y = _landing_spot(ctx, boat, cargo, inputs.get("at"), near)
        carrying.pop()
        cargo.pop("aboard", None)
        cargo.update({"x": x, "y": y, "facing": boat["facing"]})
        cargo["moved_turn"] = state.turn
        verb = f"{cargo['id']} unloads from {boat['id']} to {x:g},{y:g}"
    half = charts.params(EngineeringParams).boat_load_turns
    return {
        "verdict": f"{verb}: half a turn's work ({half:g} turn, CD 2.1)",
        "carrying": list(carrying),
    }


def _landing_spot(
    ctx: RulesContext,
    boat: StandRow,
    cargo: StandRow,
    at: list[float] | None,
    near: float,
) -> tuple[float, float]:
    """Where an unloaded stand goes: beside the boat, on the table, on no other base.

    ``at`` if given (it must be such a place); otherwise the first free place of: ahead of
    the bow, to port, to starboard, astern.
    """

    hull = base_polygon(base_of(boat))
    others = [
        base_of(s)
        for s in ctx.state.stands()
        if s["id"] not in (boat["id"], cargo["id"]) and s["x"] is not None and not out_of_play(s)
    ]
    tolerance = ctx.charts.params(TableParams).base_overlap_tolerance
    table = ctx.scenario.table

    def why_not(x: float, y: float) -> str | None:
        spot = base_of({**cargo, "x": x, "y": y, "facing": boat["facing"]})
        if not (0 <= x <= table.width and 0 <= y <= table.depth):
            return f"{x:g},{y:g} is off the {table.width:g} x {table.depth:g} table"
        gap = base_polygon(spot).distance(hull)
        if not within(gap, near):
            return f'{x:g},{y:g} is {gap:.1f}" from {boat["id"]}; unloaded stands go beside it'
        if hull.intersection(base_polygon(spot)).area > 1e-9:
            return f"{x:g},{y:g} is on {boat['id']} itself"
        clash = overlapping(spot, others, tolerance)
        if clash:
            return f"at {x:g},{y:g} {cargo['id']} would overlap {', '.join(clash)}"
        return None

    if at is not None:
        problem = why_not(float(at[0]), float(at[1]))
        if problem is not None:
            raise RulesRefusal(f"{cargo['id']} cannot unload there: {problem} (CD 2.1)")
        return float(at[0]), float(at[1])
    rad = math.radians(float(boat["facing"]))
    ahead, right = (math.sin(rad), math.cos(rad)), (math.cos(rad), -math.sin(rad))
    along = boat["depth"] / 2 + cargo["depth"] / 2
    across = boat["width"] / 2 + cargo["width"] / 2
    for (ux, uy), reach in ((ahead, along), (right, -across), (right, across), (ahead, -along)):
        x = round(centre(boat)[0] + ux * reach, 4)
        y = round(centre(boat)[1] + uy * reach, 4)
        if why_not(x, y) is None:
            return x, y
    raise RulesRefusal(
        f"no room beside {boat['id']} to unload {cargo['id']}: give --at X,Y beside the "
        "boat (CD 2.1)"
    )


def cancel_task_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    task = tasks.cancel(ctx, inputs["task"])
    return {
        "verdict": f"{task['id']} ({task['kind']} {task['target']}) cancelled",
        "task": task["id"],
    }
