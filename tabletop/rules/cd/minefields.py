"""Minefields (CD 3): real and dummy 1" templates, hidden from the other side.

Rows ``minefield:<id>`` hold the side that laid it, whether it is real, where, and whether it
has been revealed. A side sees its own fields (real or dummy) and the enemy's revealed ones;
the referee sees all. Crossing carries the stand's base along its path
(``tabletop.table.sweep``) to find, in order, the templates it touches, goes onto and comes
clear of; all met are revealed at the end of the move, dummies are removed, and a real
field stops the stand once it is across (or where it stopped, at the edge or on the field)
and attacks it in the opportunity fire phase: once at the edge or on it, twice through.
One template per engineer per movement phase; templates never overlap.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from shapely import LineString, box

from tabletop.core import words
from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.sides import resolve_side
from tabletop.core.units import TOLERANCE, within
from tabletop.core.words import possessive
from tabletop.data.board import base_of
from tabletop.data.chart_params import EngineeringParams, MinesParams
from tabletop.data.charts import Charts
from tabletop.rules.cd import tasks
from tabletop.rules.cd.engineering import (
    equipment,
    kind_of,
    placed,
    require_engineer,
    require_fit,
    require_phase,
)  # fmt: skip
from tabletop.rules.cd.fire import SEVERITY, hit_effect
from tabletop.rules.cd.ground import holds_still, refuse_if_mired, stay_put
from tabletop.rules.cd.hidden import MINEFIELD, fields
from tabletop.rules.cd.stands import apply_effect, effect_plan
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, State, centre, fired_on, out_of_play, position
from tabletop.table import base_polygon, strip
from tabletop.table.sweep import sweep

EPS = 1e-9  # inches along a path: the same point


def get(state: State, field_id: str) -> dict[str, Any]:
    found = state.rows.get(MINEFIELD + field_id)
    if found is None:
        raise BadInput(f"unknown minefield {field_id!r}")
    return found  # type: ignore[no-any-return,unused-ignore]


def square(field: dict[str, Any]) -> Any:
    half = field["size"] / 2
    return box(field["x"] - half, field["y"] - half, field["x"] + half, field["y"] + half)


# --- laying (CD 3.1) ---------------------------------------------------------------------------


def engineer_companies(ctx: RulesContext, side: str) -> int:
    """Companies of a side with engineer stands in play (CD 3.1.2)."""
    formations = ctx.scenario.formation_index()
    companies = set()
    for stand in ctx.state.stands():
        if stand["side"] != side or out_of_play(stand):
            continue
        if not ctx.charts.stand_kinds[stand["kind"]].engineer:
            continue
        current = stand.get("formation")
        while current is not None and current in formations:
            if formations[current].kind == "company":
                companies.add(current)
                break
            current = formations[current].parent
        else:
            companies.add(f"({stand['id']})")
    return len(companies)


def place_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    state, charts = ctx.state, ctx.charts
    side = inputs["side"]
    side = resolve_side(side, ctx.scenario.side_names())
    real = not inputs.get("dummy")
    x, y = inputs["at"]
    size = charts.params(MinesParams).template_size
    w, d = ctx.scenario.table.width, ctx.scenario.table.depth
    if not (size / 2 <= x <= w - size / 2 and size / 2 <= y <= d - size / 2):
        raise BadInput(f"a minefield at {x:g},{y:g} would be off the {w:g} x {d:g} table")
    field = {
        "id": "",
        "side": side,
        "real": real,
        "x": x,
        "y": y,
        "size": size,
        "revealed": False,
        "laid": {"turn": state.turn, "by": inputs.get("by")},
    }
    kinds = {p.kind for p in _pieces_under(ctx, square(field))}
    banned = set(charts.params(MinesParams).no_mines_in.split(","))
    if kinds & banned:
        raise RulesRefusal(f"no minefields in {', '.join(sorted(kinds & banned))} (CD 3.1.1)")
    if not real and kinds & set(charts.params(MinesParams).no_dummies_on.split(",")):
        raise RulesRefusal(
            "dummy minefields may not be placed on paved roads or streets (CD 3.1.1)"
        )
    for other in fields(state):
        if square(other).intersection(square(field)).area > 1e-9:
            raise RulesRefusal(
                f"a minefield at {x:g},{y:g} would overlap {other['id']} at "
                f"{other['x']:g},{other['y']:g}: templates lie side by side, not on top of "
                "each other (CD 3)"
            )
    by = inputs.get("by")
    if by is not None:
        _check_layer(ctx, state.stand(by), side, field)
        if state.meta.get("mine_layers", {}).get(by) == state.turn:
            raise RulesRefusal(
                f"{by} has already laid a minefield this movement phase: one template next "
                "to each engineer at the end of a movement phase (CD 3.1.2)"
            )
        if real:
            limit = engineer_companies(ctx, side) * int(
                charts.params(MinesParams).real_per_engineer_company
            )
            laid = int(state.meta.setdefault("mines_laid", {}).get(side, 0))
            if laid >= limit:
                raise RulesRefusal(
                    f"{side} has laid {laid} real minefields: its engineer "
                    f"companies carry mines for {limit} (CD 3.1.2)"
                )
            state.meta["mines_laid"][side] = laid + 1
    elif inputs.get("pregame"):
        if not before_battle(ctx):
            start = ctx.scenario.turn
            raise RulesRefusal(
                f"--pregame minefields are placed before the game begins (turn {start.number}, "
                f"{start.phase} phase); it is turn {state.turn}, {state.phase} phase: in battle "
                "an engineer lays them (--by ENGINEER, CD 3.1.1, 3.1.2)"
            )
    else:
        raise BadInput(
            "give --by ENGINEER for a field laid in battle, or --pregame for one the "
            "scenario or referee allows before the game (CD 3.1)"
        )
    if by is not None:
        state.meta.setdefault("mine_layers", {})[by] = state.turn
        # CD 3.1.2: the field goes down beside an engineer that stays put to the phase's end.
        stay_put(
            ctx,
            state.stand(by),
            f"lays minefield {'mf-' + str(int(state.meta.get('minefield_serial', 0)) + 1)}",
            "CD 3.1.2",
        )
    serial = int(state.meta.get("minefield_serial", 0)) + 1
    state.meta["minefield_serial"] = serial
    field["id"] = f"mf-{serial}"
    field["serial"] = serial
    state.rows[MINEFIELD + field["id"]] = field
    return {
        "verdict": f"minefield {field['id']} placed for {side}",
        "id": field["id"],
        "side": side,
    }


def before_battle(ctx: RulesContext) -> bool:
    """Still at the scenario's opening turn and phase: pregame placement is open (CD 3.1.1)."""
    start = ctx.scenario.turn
    return bool(ctx.state.turn == start.number and ctx.state.phase == start.phase)


def _check_layer(ctx: RulesContext, stand: StandRow, side: str, field: dict[str, Any]) -> None:
    ctx.involve(stand["id"])
    if stand["side"] != side:
        raise RulesRefusal(f"{stand['id']} is {possessive(stand['side'])}, not {possessive(side)}")
    require_engineer(ctx, stand, "CD 3.1.2")
    require_fit(ctx, stand, "CD 3.1.2")
    if fired_on(stand, ctx.state.turn):
        raise RulesRefusal(f"{stand['id']} fired this turn: it cannot lay mines (CD 3.1.2)")
    require_phase(ctx, "movement", "laying a minefield", "CD 3.1.2")
    placed(stand)
    gap = base_polygon(base_of(stand)).distance(square(field))
    if not within(gap, ctx.charts.params(EngineeringParams).adjacent):
        raise RulesRefusal(f'the field must go next to {stand["id"]} ({gap:.1f}" away; CD 3.1.2)')


def _pieces_under(ctx: RulesContext, shape: Any) -> list[Any]:
    return [
        p
        for p in ctx.table.pieces
        if ctx.table.geometry(p.id).intersects(shape)
        and ctx.table.geometry(p.id).intersection(shape).area > 1e-9
    ]


# --- crossing (CD 3.2) -------------------------------------------------------------------------


def attack_number(ctx: RulesContext, stand: StandRow) -> int:
    """Dismounted personnel are hit on 1-3; guns, mounted troops and vehicles on 1-5."""
    kind = kind_of(ctx, stand)
    personnel = kind.category == "personnel" and kind.mobility == "foot"
    params = ctx.charts.params(MinesParams)
    return params.hit_personnel if personnel else params.hit_other


@frozen_dataclass
class Meeting:
    """How a move meets one template, in inches along the path (CD 3.2).

    ``contact``: where the base first touches it; ``entered``: where the base first lies on
    it; ``crossed``: where the base comes clear of it again (moved through); ``stop``: where
    the move ends because of it, were it real.
    """

    contact: float
    entered: float | None
    crossed: float | None
    stop: float


def meeting(swept: Any) -> Meeting | None:
    """The first time a swept base meets a template, or None if it never does.

    A base already touching the template where the move begins, that never goes onto it,
    has not met it now (it met it on an earlier move). A base that touches it and slides
    past without going onto it is held at the edge, where it stopped touching: the rule
    lets a stand in contact stop at the edge or move through, nothing else.
    """
    for start, end in swept.touching:
        on = [o for o in swept.overlapping if start - EPS <= o[0] and o[1] <= end + EPS]
        if not on:
            if start <= EPS:
                continue
            return Meeting(start, None, None, end)
        entered, clear = on[0]
        if clear < swept.length - EPS or not swept.ends_overlapping:
            return Meeting(start, entered, clear, clear)
        return Meeting(start, entered, None, swept.length)
    return None


def attacks_for(m: Meeting, stop: float, engineer: bool, charts: Charts) -> tuple[int, str]:
    """Attacks by a real field met on a move that ended ``stop`` inches along (CD 3.2).

    Through it (the base came clear on the far side): twice. Stopped at its edge, or on it
    without getting across: once. A dismounted engineer stopping at the edge: none.
    """
    if m.crossed is not None and m.crossed <= stop + EPS:
        return charts.params(MinesParams).attacks_through, "moved through"
    if m.entered is not None and m.entered < stop - EPS:
        return charts.params(MinesParams).attacks_at_edge, "stopped on"
    if engineer:
        return 0, "stopped at the edge of"
    return charts.params(MinesParams).attacks_at_edge, "stopped at the edge of"


def tidy_stop(stand: StandRow, x: float, y: float, squares: list[Any]) -> tuple[float, float]:
    """A stop short of the path's end (at a field's edge, or just across one), to the
    hundredth of an inch a referee can place, on the same side of every field as the exact
    point: a base that stopped clear of a field stays clear, one on a field stays on it.
    (The exact contact point has long decimals that meant nothing at the table.)"""

    def touching(px: float, py: float) -> list[bool]:
        base = base_polygon(base_of({**stand, "x": px, "y": py}))
        return [base.intersection(sq).area > 1e-9 for sq in inner]

    # Within the measuring tolerance a base touching a field's edge is not on it.
    inner = [sq.buffer(-TOLERANCE, join_style="mitre") for sq in squares]

    want = touching(x, y)
    options = {
        (math.floor(x * 100) / 100, math.floor(y * 100) / 100),
        (math.floor(x * 100) / 100, math.ceil(y * 100) / 100),
        (math.ceil(x * 100) / 100, math.floor(y * 100) / 100),
        (math.ceil(x * 100) / 100, math.ceil(y * 100) / 100),
    }
    for px, py in sorted(options, key=lambda p: (math.dist(p, (x, y)), p)):
        if touching(px, py) == want:
            return px + 0.0, py + 0.0
    return round(x, 6), round(y, 6)


def cross_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """``minefield cross``: the minefield step of a move alone (CD 3.2), through the same
    ``meetings`` and ``settle`` that 'tabletop move' uses, for moves the referee prices
    himself or other rules move (an amphibious vehicle driving ashore, CD 8.1.5)."""

    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    placed(stand)
    if out_of_play(stand):
        raise RulesRefusal(f"{stand['id']} is eliminated")
    refuse_if_mired(stand)
    holds_still(ctx, stand)
    points = [centre(stand), *[tuple(p) for p in inputs["path"]]]
    w, d = ctx.scenario.table.width, ctx.scenario.table.depth
    for x, y in points[1:]:
        if not (0 <= x <= w and 0 <= y <= d):
            raise BadInput(f"path point {x:g},{y:g} is off the {w:g} x {d:g} table")
    length = sum(math.dist(a, b) for a, b in itertools.pairwise(points))
    if length <= 0:
        raise BadInput("the path goes nowhere: give at least one point away from the stand")
    met = meetings(ctx, stand, points)
    stop = length
    for n, (m, field) in enumerate(met):
        if m.contact > stop + EPS:
            break
        if inputs.get("stop_at_edge") and n == 0:
            stop = m.contact
        elif field["real"]:
            # CD 3.2: a stand that moves through a real field stops as soon as it is across.
            stop = min(stop, m.stop)
    end = LineString(points).interpolate(stop)
    if not inputs.get("tidy_stop"):
        # Logged before stops were tidied: replayed as they were recorded.
        stand["x"], stand["y"] = round(end.x, 6), round(end.y, 6)
    elif stop >= length - EPS:
        stand["x"], stand["y"] = points[-1]  # where the referee said: as typed
    else:
        stand["x"], stand["y"] = tidy_stop(stand, end.x, end.y, [square(f) for _, f in met])
    if stop > EPS:
        stand["moved_turn"] = ctx.state.turn
    out = settle(ctx, stand, met, stop)
    attacks = out["attacks"]
    hows = [f"{e['result']} ({e['id']})" for e in out["events"]]
    verdict = (
        f"{stand['id']} stops at {stand['x']:g},{stand['y']:g}"
        + (f" ({'; '.join(hows)})" if hows else "")
        + "; "
        + (
            f"{words.count(attacks, 'minefield attack')} in the opportunity fire phase (CD 3.2)"
            if attacks
            else "no minefield attacks"
        )
    )
    return {
        "verdict": verdict,
        "stand": stand["id"],
        "attacks": attacks,
        "revealed": out["revealed"],
        "stopped_at": [round(position(stand)[0], 3), round(position(stand)[1], 3)],
    }


def meetings(
    ctx: RulesContext, stand: StandRow, points: list[tuple[float, float]]
) -> list[tuple[Meeting, dict[str, Any]]]:
    """The enemy fields the stand's base meets along the path, in the order it meets them.

    A side knows where its own fields lie and keeps to their lanes (our reading: CD 3.2
    speaks of the fields a stand blunders into): its stands neither find nor set them off.
    """

    if sum(math.dist(a, b) for a, b in itertools.pairwise(points)) <= EPS:
        return []
    base = base_polygon(base_of({**stand, "x": points[0][0], "y": points[0][1]}))
    met = []
    for field in fields(ctx.state):
        if field["side"] == stand["side"]:
            continue
        found = meeting(sweep(points, base, square(field), TOLERANCE))
        if found is not None:
            met.append((found, field))
    met.sort(key=lambda m: (m[0].contact, m[1]["serial"]))
    return met


def settle(
    ctx: RulesContext, stand: StandRow, met: list[tuple[Meeting, dict[str, Any]]], stop: float
) -> dict[str, Any]:
    """At the end of a move that stopped ``stop`` inches along (the stand already there):
    reveal the fields met, take away dummies, schedule the attacks of real ones (CD 3.2)."""

    state, charts = ctx.state, ctx.charts
    kind = kind_of(ctx, stand)
    engineer = kind.engineer and kind.category == "personnel"
    revealed: list[tuple[Meeting | None, dict[str, Any]]] = [
        (m, f) for m, f in met if m.contact <= stop + EPS
    ]
    if engineer:
        # CD 3.2: a dismounted engineer that moves up beside a field and stops reveals it.
        near = charts.params(EngineeringParams).adjacent
        here = base_polygon(base_of(stand))
        seen = {f["id"] for _, f in revealed}
        for field in fields(state):
            if field["side"] == stand["side"] or field["id"] in seen:
                continue
            if within(here.distance(square(field)), near):
                revealed.append((None, field))
    attacks, out_revealed, events = 0, [], []
    for how_met, field in revealed:
        out_revealed.append({"id": field["id"], "real": field["real"]})
        along = stop if how_met is None else how_met.contact
        if not field["real"]:
            # CD 3.2: a dummy revealed at the end of movement is taken away.
            state.rows.pop(MINEFIELD + field["id"], None)
            events.append({"id": field["id"], "along": along, "result": "a dummy: removed"})
            continue
        field["revealed"] = True
        if how_met is None or stop <= EPS:
            # Found from where it stands, or met on an earlier move: a stand that does not
            # move now is not attacked again.
            events.append({"id": field["id"], "along": along, "result": "real: revealed"})
            continue
        count, how = attacks_for(how_met, stop, engineer, charts)
        events.append(
            {"id": field["id"], "along": along,
             "result": f"real: {how} it, {words.count(count, 'attack')} in the opportunity fire "
                       "phase"}
        )  # fmt: skip
        if count:
            attacks += count
            state.pending("mine-attacks").append(
                {
                    "stand": stand["id"],
                    "field": field["id"],
                    "attacks": count,
                    "turn": state.turn,
                    "hit_on": attack_number(ctx, stand),
                }
            )
    return {"attacks": attacks, "revealed": out_revealed, "events": events}


def attack_roll(dice: DiceLike, attack: dict[str, Any], n: int, stand_id: str) -> int:
    """The die of a minefield's ``n``-th attack on a stand: a hit on ``hit_on`` or less
    (CD 3.2); rolled here and in a move's ``--check`` odds alike."""
    return dice.roll(
        10,
        f"minefield {attack['field']} attack {n} on {stand_id}: hit on {attack['hit_on']} or less",
    )


def resolve_attacks(ctx: RulesContext) -> list[dict[str, Any]]:
    """Opportunity fire phase: real minefields attack the stands that met them (CD 3.2)."""

    happened = []
    queue = ctx.state.pending("mine-attacks")
    for attack in list(queue):
        stand = ctx.state.stand(attack["stand"])
        if out_of_play(stand):
            continue
        rolls, effects = [], []
        for n in range(1, attack["attacks"] + 1):
            roll = attack_roll(ctx.dice, attack, n, stand["id"])
            rolls.append(roll)
            if roll <= attack["hit_on"]:
                plan = effect_plan(ctx, stand)
                effect_roll = ctx.dice.roll(
                    10, f"hit effect on {stand['id']} ({plan.effect_quality})"
                )
                rolls.append(effect_roll)
                effects.append(hit_effect(effect_roll, plan))
        worst = max(effects, key=lambda e: SEVERITY[e]) if effects else None
        field = ctx.state.rows.get(MINEFIELD + str(attack["field"]))
        source = None if field is None else (float(field["x"]), float(field["y"]))
        outcome = apply_effect(stand, worst, ctx.state, source, ctx, "the minefield")
        stand["fired_at"] = ctx.state.turn  # CD 3.2: counts as fire for morale
        back = f"; {outcome}" if worst == "forced back" and outcome else ""
        happened.append(
            {
                "what": "minefield attack",
                "stand": stand["id"],
                "rolls": rolls,
                "result": (
                    f"{words.count(len(effects), 'hit')}: {', '.join(effects)}"
                    if effects
                    else "no hits"
                )
                + " (CD 3.2)"
                + back,
            }
        )
    queue.clear()
    return happened


# --- clearing (CD 3.3) -------------------------------------------------------------------------


def clear_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    state = ctx.state
    stand = state.stand(inputs["by"])
    ctx.involve(stand["id"])
    method = inputs["method"]
    placed(stand)
    field = get(state, inputs["field"]) if inputs.get("field") else None
    if field is not None and not (field["revealed"] or field["side"] == stand["side"]):
        raise RulesRefusal(
            f"{field['id']} has not been detected: only a revealed field can be cleared (CD 3.3)"
        )
    base = base_polygon(base_of(stand))
    near = ctx.charts.params(EngineeringParams).adjacent
    if field is not None and not within(base.distance(square(field)), near):
        raise RulesRefusal(f"{stand['id']} must be beside {field['id']} (CD 3.3)")
    if method == "hand":
        require_engineer(ctx, stand, "CD 3.3.1")
        require_fit(ctx, stand, "CD 3.3.1", stationary=False)
        if field is None:
            raise BadInput("hand lifting needs the minefield: give FIELD")
        # CD 3.3.1: a whole turn beside the field; an engineer that moved up this turn
        # lifts the mines next turn.
        task = tasks.start(
            ctx,
            "hand-lift",
            [stand["id"]],
            field["id"],
            1,
            {"order": "cautious"},
            whole_turns=True,
        )
        when = "this" if task["from_turn"] == state.turn else "next"
        return {
            "verdict": f"{stand['id']} lifts the mines of {field['id']} in "
            f"{tasks.estimate_hours(ctx, task['hours_needed'])}: gone at the end of "
            f"{when} turn (turn {task['from_turn']}) if it spends that turn beside the field, "
            "unpinned and unsuppressed, and does not fire (cautious advance order, CD 3.3.1)",
            "task": task["id"],
            "turn": task["from_turn"],
        }
    if method == "tank":
        kit = equipment(ctx, stand)
        kinds = [k for k in ("flail", "roller", "plow") if k in kit]
        if not kinds:
            raise RulesRefusal(
                f"{stand['id']} has no mine roller, plow or flail (scenario equipment; CD 3.3.2)"
            )
        require_fit(ctx, stand, "CD 3.3.2", stationary=False, unsuppressed=False)
        require_phase(ctx, "movement", "a mine-clearing tank's advance", "CD 3.3.2")
        # CD 3.3.2: the tank starts its move beside a template, then rolls forward.
        if stand.get("moved_turn") == state.turn:
            raise RulesRefusal(
                f"{stand['id']} has already moved this turn: a mine-clearing tank starts its "
                "move beside the minefield and then advances (CD 3.3.2)"
            )
        beside = [
            f["id"]
            for f in fields(state)
            if (f["revealed"] or f["side"] == stand["side"])
            and within(base.distance(square(f)), near)
        ]
        if not beside:
            raise RulesRefusal(
                f"{stand['id']} is not beside a detected minefield: a mine-clearing tank "
                f'must start adjacent to one (within {near:g}", CD 3.3.2)'
            )
        return _tank_clears(ctx, stand, kinds[0], inputs.get("heading"))
    if method == "line-charge":
        if "line-charge" not in equipment(ctx, stand):
            raise RulesRefusal(f"{stand['id']} has no line charge (scenario equipment; CD 3.3.3)")
        require_fit(ctx, stand, "CD 3.3.3", stationary=False)
        if field is None:
            raise BadInput("a line charge needs the minefield: give FIELD")
        when = _line_charge_window(ctx, stand, field)
        state.rows.pop(MINEFIELD + field["id"], None)
        fired = state.meta.setdefault("line_charges", {})
        record = fired.get(stand["id"]) or {}
        if record.get("turn") != state.turn:
            record = {"turn": state.turn}
        record[when] = field["id"]
        fired[stand["id"]] = record
        then = (
            "it may now move; at the end of the opportunity fire phase it may clear one more "
            "field beside it if still unsuppressed"
            if when == "movement"
            else "no more line charges this turn"
        )
        return {
            "verdict": f"{stand['id']}'s line charge clears {field['id']}: {then} (CD 3.3.3)",
            "cleared": [field["id"]],
            "window": when,
        }
    raise BadInput(f"--method {method!r}: accepted: hand, tank, line-charge")


def _line_charge_window(ctx: RulesContext, stand: StandRow, field: dict[str, Any]) -> str:
    """When a line charge may be fired this turn, or why not (CD 3.3.3).

    Clear, then move: one field beside the vehicle as the movement phase begins (before it
    moves), and one other field beside it at the end of the opportunity fire phase.
    """
    state = ctx.state
    done = state.meta.get("line_charges", {}).get(stand["id"]) or {}
    this_turn = done if done.get("turn") == state.turn else {}
    if state.phase == "movement":
        if "movement" in this_turn:
            raise RulesRefusal(
                f"{stand['id']} already cleared {this_turn['movement']} this movement phase: "
                "one line charge as the phase begins (CD 3.3.3)"
            )
        if stand.get("moved_turn") == state.turn:
            raise RulesRefusal(
                f"{stand['id']} has moved this turn: a line charge clears the field the vehicle "
                "begins the movement phase beside, and then it moves (CD 3.3.3)"
            )
        return "movement"
    if state.phase == "opportunity-fire":
        if "opportunity-fire" in this_turn:
            raise RulesRefusal(
                f"{stand['id']} already cleared {this_turn['opportunity-fire']} at the end of "
                "this opportunity fire phase: one more field a turn (CD 3.3.3)"
            )
        if "movement" not in this_turn:
            raise RulesRefusal(
                f"{stand['id']} cleared no field as this movement phase began: the second line "
                "charge of a turn is for another field beside it after that move (CD 3.3.3)"
            )
        return "opportunity-fire"
    raise RulesRefusal(
        "a line charge clears a field as the movement phase begins, or another at the end of "
        f"the opportunity fire phase (CD 3.3.3); it is the {state.phase} phase now"
    )


def _tank_clears(
    ctx: RulesContext, stand: StandRow, kit: str, heading: float | None
) -> dict[str, Any]:
    state = ctx.state
    holds_still(ctx, stand)
    bearing = float(stand["facing"] if heading is None else heading)
    distance = ctx.charts.params(MinesParams).clearing_tank_distance
    rad = math.radians(bearing)
    front_x = position(stand)[0] + math.sin(rad) * stand["depth"] / 2
    front_y = position(stand)[1] + math.cos(rad) * stand["depth"] / 2
    lane = strip(front_x, front_y, bearing, stand["width"], distance)
    cleared = [
        f["id"]
        for f in fields(state)
        if lane.intersects(square(f)) and lane.intersection(square(f)).area > 1e-9
    ]
    for field_id in cleared:
        state.rows.pop(MINEFIELD + field_id, None)
    x, y = position(stand)
    stand["x"] = round(x + math.sin(rad) * distance, 6)
    stand["y"] = round(y + math.cos(rad) * distance, 6)
    stand["moved_turn"] = state.turn
    if kit == "flail":
        stand["markers"].append("flailing")  # CD 3.3.2: may not fire this turn
    return {
        "verdict": f'{stand["id"]} ({kit}) advances {distance:g}" clearing '
        f"{', '.join(cleared) or 'no fields'} (cautious advance, CD 3.3.2)",
        "cleared": cleared,
    }


@tasks.place_check("hand-lift")
def _beside_field(ctx: RulesContext, task: dict[str, Any], stand: StandRow) -> str | None:
    field = ctx.state.rows.get(MINEFIELD + task["target"])
    if field is None or stand["x"] is None:
        return None if field is None else f"{stand['id']} is off the table"
    gap = float(base_polygon(base_of(stand)).distance(square(field)))
    if within(gap, ctx.charts.params(EngineeringParams).adjacent):
        return None
    return f'{stand["id"]} is {gap:.1f}" from {task["target"]}, not beside it'


@tasks.completion("hand-lift")
def _lifted(ctx: RulesContext, task: dict[str, Any]) -> str:
    ctx.state.rows.pop(MINEFIELD + task["target"], None)
    return f"minefield {task['target']} lifted"
