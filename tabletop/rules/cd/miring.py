"""Miring and unmiring (CD 11.1.4, 11.1.5), answered by the refereed move's own pricing.

A vehicle moved by ``move`` rolls for miring at the end of its move; ``mire`` is for the
moves ``move`` did not make: a stand put by the referee's override (``place`` leaves the
roll due, taken whenever the referee gets to it), or one moved by hand through mud that the
referee describes (``--across-mud A B``: the mud it crossed, priced as a path; ``--where``:
on what it moved). The ground, the local ground of a piece, deep mud beside a flood and a
hard surface are judged by ``movement.Pricer``, as for a move, so the two cannot differ.
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.dice import explain_no_roll
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.units import within
from tabletop.core.words import possessive
from tabletop.data.board import base_of
from tabletop.data.chart_params import EngineeringParams, TableParams
from tabletop.rules.cd import ground
from tabletop.rules.cd.conditions import weight_class_of
from tabletop.rules.cd.ground import holds_still
from tabletop.rules.cd.movement import Pricer, Segment, mud_crossed
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, centre, in_play, out_of_play, position
from tabletop.table import distance, overlapping

WHERE_WORDS = {
    "open": "in the open",
    "dirt-road": "on a dirt road",
    "hard-road": "on a hard road",
}


def _check_movement_phase(ctx: RulesContext, what: str, rule: str) -> None:
    phase = ctx.charts.phase(ctx.state.phase)
    if "movement" not in phase.allows:
        raise RulesRefusal(
            f"{what} only in the movement phase, not the {phase.id} phase ({rule}); "
            "advance with 'tabletop phase next'"
        )


def _here(ctx: RulesContext, stand: StandRow) -> Segment:
    """The stand's spot priced as a move prices it (ground, surface, miring number)."""
    return Pricer(ctx, stand).price_point(*position(stand))[0]


def mire_basis(
    ctx: RulesContext, stand: StandRow, inputs: dict[str, Any]
) -> tuple[int, str, str, str, list[float] | None]:
    """The miring number, where, on what ground, what says so, and where a mired stand is
    put (None: where it is), for ``mire`` (CD 11.1.4)."""
    kind = ctx.charts.stand_kinds[stand["kind"]]
    given, across = inputs.get("where"), inputs.get("across")
    if across:
        points = [tuple(map(float, p)) for p in across]
        due = mud_crossed(ctx, stand, points)
        if due is None:
            seg = Pricer(ctx, stand).price_point(*points[0])[0]
            return 0, seg.where, seg.ground, "the ground it crossed", None
        # The whole stretch given is the mud crossed: a mired stand stops halfway across.
        (x1, y1), (x2, y2) = points
        return (
            due["number"],
            due["where"],
            due["ground"],
            "the mud it crossed",
            [
                (x1 + x2) / 2,
                (y1 + y2) / 2,
            ],
        )
    due = stand.get("mire_due")
    if due is not None and given is None:
        return due["number"], due["where"], due["ground"], "its move this turn", due["halfway"]
    last = stand.get("last_move")
    if last is not None and given is None and last.get("turn") == ctx.state.turn:
        number, _ = ground.mire_number(kind, str(last["where"]), str(last["ground"]), ctx.charts)
        return number, str(last["where"]), str(last["ground"]), "its move this turn", None
    if stand["x"] is None:
        raise BadInput(f"{stand['id']} is not on the table: give --where or --across-mud")
    seg = _here(ctx, stand)
    where = seg.where if given is None else given
    number, _ = ground.mire_number(kind, where, seg.ground, ctx.charts)
    basis = "where it stands" if given is None else f"moving {WHERE_WORDS.get(given, given)}"
    return number, where, seg.ground, basis, None


def _moved_this_turn(ctx: RulesContext, stand: StandRow) -> None:
    """CD 11.1.4: only a vehicle that moved checks, once for its move."""
    turn = ctx.state.turn
    if stand.get("mire_due") is not None:
        return
    last = stand.get("last_move")
    if stand.get("moved_turn") != turn:
        last_turn = stand.get("moved_turn")
        since = "" if last_turn is None else f" (last in turn {last_turn})"
        raise RulesRefusal(
            f"{stand['id']} has not moved this turn{since}: only a vehicle that moved checks "
            "for miring (CD 11.1.4)"
        )
    if (last is not None and last.get("turn") == turn and last.get("mire_checked")) or stand.get(
        "mire_checked_turn"
    ) == turn:
        raise RulesRefusal(
            f"{stand['id']} has already checked for miring after this move: one roll per move "
            "(CD 11.1.4)"
        )


def mire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    kind = ctx.charts.stand_kinds[stand["kind"]]
    if out_of_play(stand):
        raise RulesRefusal(f"{stand['id']} is eliminated")
    if not ground.is_vehicle(kind):
        raise RulesRefusal(f"only vehicles mire; {kind.id} stands do not (CD 11.1.4)")
    if "mired" in stand["markers"]:
        raise RulesRefusal(f"{stand['id']} is already mired: unmire it first (CD 11.1.4, 11.1.5)")
    _moved_this_turn(ctx, stand)
    number, where, ground_id, basis, halfway = mire_basis(ctx, stand, inputs)
    _, why = ground.mire_number(kind, where, ground_id, ctx.charts)
    if not number:
        # CD 11.1.4: nothing to roll is the rules' answer, not a mistake in the command.
        explain_no_roll(ctx.dice, f"{stand['id']} cannot mire here: {why}")
        raise RulesRefusal(f"{stand['id']} cannot mire ({basis}): {why}; no roll is made")
    if stand.get("mire_due") is None:
        # A roll the game owes (an override's) is taken whenever the referee gets to it;
        # any other is made as the movement phase ends.
        _check_movement_phase(ctx, "miring is checked", "CD 11.1.4")
    mired = ground.roll_mire(number, ctx.dice, stand["id"])
    rolls = [r.value for r in getattr(ctx.dice, "rolls", [])][-1:]
    stand.pop("mire_due", None)
    stand["mire_checked_turn"] = ctx.state.turn
    last = stand.get("last_move")
    if last is not None and last.get("turn") == ctx.state.turn:
        last["mire_checked"] = True
    placed_at = None
    if mired:
        stand["markers"].append("mired")
        stand["mired_number"] = number
        if halfway is not None:
            # CD 11.1.4: a vehicle that crossed mud and mires stops halfway across it.
            stand["x"], stand["y"] = halfway
            placed_at = [stand["x"], stand["y"]]
    return {
        "verdict": f"{stand['id']} is {'mired' if mired else 'not mired'}",
        "stand": stand["id"],
        "mired": mired,
        "where": where,
        "ground": ground_id,
        "basis": basis,
        "number": number,
        "because": why,
        "rolls": rolls,
        "placed_at": placed_at,
    }


def unmire_number(ctx: RulesContext, stand: StandRow, kind: Any) -> int:
    """The miring number of where the vehicle is stuck (CD 11.1.5 doubles it)."""
    if stand.get("mired_number"):
        return int(stand["mired_number"])
    if stand["x"] is None:
        return ground.mire_number(kind, "open", ctx.state.conditions["ground"], ctx.charts)[0]
    seg = _here(ctx, stand)
    return ground.mire_number(kind, seg.where, seg.ground, ctx.charts)[0]


def _spot(ctx: RulesContext, stand: StandRow) -> tuple[str, str]:
    """Where a mired vehicle is stuck and on what ground, as a move would price it."""
    if stand["x"] is None:
        return "open", ctx.state.conditions["ground"]
    seg = _here(ctx, stand)
    return seg.where, seg.ground


def check_in_contact(ctx: RulesContext, helper: StandRow, stand: StandRow) -> None:
    """CD 11.1.5: the helper pushes or tows the mired vehicle, so it must be a friendly
    vehicle in contact with it (the charted 'adjacent' distance, bases nearly touching)."""
    if helper["side"] != stand["side"]:
        raise RulesRefusal(
            f"{helper['id']} cannot help {stand['id']}: it is {possessive(helper['side'])}, not "
            f"{possessive(stand['side'])}; only a friendly vehicle pushes or tows (CD 11.1.5)"
        )
    if helper["x"] is None or stand["x"] is None:
        return  # not on the table: the referee vouches for contact, as in quick mode

    gap = float(distance(base_of(helper), base_of(stand), "edge"))
    reach = ctx.charts.params(EngineeringParams).adjacent
    if not within(gap, reach):
        raise RulesRefusal(
            f'{helper["id"]} is {gap:.1f}" from {stand["id"]}: it must be in contact '
            f'(within {reach:g}") to push or tow it (CD 11.1.5); move it up first'
        )


def _inch_for_assist(
    ctx: RulesContext, stand: StandRow, helper: StandRow, how: str
) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Where both stands end after the inch of CD 11.1.5, or None off the table's positions.

    Towing, the helper goes ahead and draws the mired vehicle after it, so both move an inch
    from the mired vehicle towards the helper; pushing, the helper shoves from behind, so
    both move an inch from the helper through the mired vehicle. Refused when that inch is
    blocked: off the table, or onto another base.
    """
    if helper["x"] is None or stand["x"] is None:
        return None
    sx, sy, hx, hy = *centre(stand), *centre(helper)
    dx, dy = (hx - sx, hy - sy) if how == "tow" else (sx - hx, sy - hy)
    length = math.hypot(dx, dy)
    if length < 1e-9:
        raise RulesRefusal(f"{helper['id']} and {stand['id']} stand on one spot: no way to tow")
    step = ctx.charts.params(EngineeringParams).unmire_distance
    ux, uy = dx / length * step, dy / length * step
    new_stand = (round(sx + ux, 6), round(sy + uy, 6))
    new_helper = (round(hx + ux, 6), round(hy + uy, 6))
    width, depth = ctx.scenario.table.width, ctx.scenario.table.depth

    moved: list[dict[str, Any]] = [
        {**stand, "x": new_stand[0], "y": new_stand[1]},
        {**helper, "x": new_helper[0], "y": new_helper[1]},
    ]
    verb = "towing" if how == "tow" else "pushing"
    for m in moved:
        if not (0 <= m["x"] <= width and 0 <= m["y"] <= depth):
            raise RulesRefusal(
                f"{verb} {stand['id']} the inch CD 11.1.5 needs would take {m['id']} off the "
                f"table (to {m['x']:g},{m['y']:g})"
                + ("; try --push" if how == "tow" else "; try towing")
            )
    others = [
        s
        for s in ctx.state.stands()
        if s["id"] not in (stand["id"], helper["id"]) and s["x"] is not None and in_play(s)
    ]
    tolerance = ctx.charts.params(TableParams).base_overlap_tolerance
    for m in moved:
        clash = overlapping(base_of(m), [base_of(o) for o in others], tolerance)
        if clash:
            raise RulesRefusal(
                f"{verb} {stand['id']} the inch CD 11.1.5 needs is blocked: {m['id']} would "
                f"overlap {', '.join(clash)}"
            )
    return new_stand, new_helper


def unmire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    state, charts = ctx.state, ctx.charts
    stand = state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    if "mired" not in stand["markers"]:
        raise RulesRefusal(f"{stand['id']} is not mired: nothing to free (CD 11.1.5)")
    _check_movement_phase(ctx, "a mired vehicle is freed", "CD 11.1.5")
    kind = charts.stand_kinds[stand["kind"]]
    number = unmire_number(ctx, stand, kind)
    where, ground_id = _spot(ctx, stand)
    assist_id = inputs.get("assist")
    if assist_id:
        helper = state.stand(assist_id)
        if helper["id"] == stand["id"]:
            raise BadInput(
                f"--assist {assist_id!r}: a vehicle cannot tow itself; leave out --assist "
                "to try unmiring it by itself"
            )
        ctx.involve(helper["id"])
        holds_still(ctx, helper)
        helper_kind = charts.stand_kinds[helper["kind"]]
        if out_of_play(helper):
            raise RulesRefusal(f"{helper['id']} cannot help: it is eliminated")
        check_in_contact(ctx, helper, stand)
        if "mired" in helper["markers"]:
            raise RulesRefusal(f"{helper['id']} cannot help: it is mired itself (CD 11.1.5)")
        if not ground.can_assist(
            helper_kind, weight_class_of(ctx, helper), weight_class_of(ctx, stand)
        ):
            raise RulesRefusal(
                f"{helper['id']} cannot tow {stand['id']}: it must be a vehicle of equal or "
                f"greater weight class (CD 11.1.5)"
            )
        how = str(inputs.get("how") or "tow")
        if how not in ("tow", "push"):
            raise BadInput(f"--how {how!r}: accepted: tow, push")
        ends = _inch_for_assist(ctx, stand, helper, how)
        # CD 11.1.5: the helper pushes or tows through the mud, and may mire itself.
        helper_number, _ = ground.mire_number(helper_kind, where, ground_id, charts)
        helper_mired = ground.roll_mire(helper_number, ctx.dice, helper["id"])
        moved = None
        if helper_mired:
            helper["markers"].append("mired")
        else:
            stand["markers"].remove("mired")
            stand.pop("mired_number", None)
            stand["unmired_turn"] = state.turn
            if ends is not None:
                (stand["x"], stand["y"]), (helper["x"], helper["y"]) = ends
                helper["moved_turn"] = state.turn
                moved = {stand["id"]: list(ends[0]), helper["id"]: list(ends[1])}
        verb = "tows" if how == "tow" else "pushes"
        return {
            "verdict": (
                f"{helper['id']} mires too; {stand['id']} stays mired"
                if helper_mired
                else f"{helper['id']} {verb} {stand['id']} free"
                + (" an inch (CD 11.1.5)" if moved else " (CD 11.1.5)")
                + f"; {stand['id']} moves on only next turn"
            ),
            "stand": stand["id"],
            "mired": helper_mired,
            "assist": helper["id"],
            "how": how,
            "moved_to": moved,
            "rolls": [r.value for r in getattr(ctx.dice, "rolls", [])],
        }
    if stand.get("unmire_tried_turn") == state.turn:
        raise RulesRefusal(
            f"{stand['id']} already tried to unmire itself this turn: one attempt a turn "
            "(CD 11.1.5); try again next turn, or have a vehicle tow it (--assist)"
        )
    holds_still(ctx, stand)
    stand["unmire_tried_turn"] = state.turn
    free = ground.roll_unmire(number, ctx.dice, stand["id"])
    moved_to = None
    if free:
        stand["markers"].remove("mired")
        stand.pop("mired_number", None)
        stand["unmired_turn"] = state.turn
        if stand["x"] is not None:
            # CD 11.1.5: freed, it moves one inch the way it was ordered (its facing).
            rad = math.radians(stand["facing"])
            step = charts.params(EngineeringParams).unmire_distance
            x, y = position(stand)
            stand["x"] = round(x + step * math.sin(rad), 6)
            stand["y"] = round(y + step * math.cos(rad), 6)
            moved_to = [stand["x"], stand["y"]]
    return {
        "verdict": f"{stand['id']} {'unmires itself' if free else 'stays mired'} "
        f"(needs more than {2 * number}; hasty advance order, CD 11.1.5)"
        + (f"; {stand['id']} moves on only next turn" if free else "; one attempt a turn"),
        "stand": stand["id"],
        "mired": not free,
        "number": number,
        "rolls": [r.value for r in getattr(ctx.dice, "rolls", [])],
        "moved_to": moved_to,
    }
