"""Sticks (CD 7.1, 7.2, 7.3): one company's parachute or glider stands, checked against the
phase, the zone and the aircrew, ordered along the flight path, and settled where they come
down (the effects a landing stand takes, overlapping stands).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.spelling import did_you_mean
from tabletop.data.board import base_of
from tabletop.data.chart_params import TableParams
from tabletop.rules.cd.airborne.common import ELIMINATED, FORCED_BACK, _spec, names, stand_effect
from tabletop.rules.cd.stands import check_phase as phase_allows
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow
from tabletop.table import overlapping

# --- sticks --------------------------------------------------------------------------------------


def company_of(ctx: RulesContext, formation: str | None) -> str | None:
    index = ctx.scenario.formation_index()
    current = formation
    while current is not None and current in index:
        if index[current].kind == "company":
            return current
        current = index[current].parent
    return formation


def may_come(ctx: RulesContext, stand: StandRow, how: str) -> str | None:
    """Why a stand may not come by parachute or glider, or None (CD 7.2, 7.3)."""
    kind = ctx.charts.stand_kinds[stand["kind"]]
    if how == "parachute":
        if kind.category == "vehicle":
            return "vehicles cannot be dropped by parachute (CD 7.2)"
        flagged = _spec(ctx, stand["id"], "parachute", False)
        if not flagged and stand["kind"] not in names(ctx.charts, "parachute-kinds"):
            return "not a parachute stand: mark it 'parachute: true' in the scenario (CD 7.2)"
    elif not _spec(ctx, stand["id"], "glider", False):
        return "not a glider stand: mark it 'glider: true' in the scenario (CD 7.3)"
    if stand["status"] != "ok":
        return f"it is {stand['status']}"
    if stand.get("landed_turn") is not None:
        return f"it already landed on turn {stand['landed_turn']}"
    if stand["x"] is not None:
        return "it is already on the table"
    return None


def stick_stands(ctx: RulesContext, text: str, how: str) -> list[StandRow]:
    """A company's stands (by formation id) or a comma list of stand ids: one company, one
    side, all able to come by air (CD 7.2, 7.3)."""
    state = ctx.state
    formations = ctx.scenario.formation_index()
    if text in formations:
        members = [s for s in state.stands() if company_of(ctx, s.get("formation")) == text]
        stands = [s for s in members if may_come(ctx, s, how) is None]
        if not stands:
            raise RulesRefusal(f"{text} has no stand that can come by {how} now (CD 7.2, 7.3)")
    else:
        ids = [part.strip() for part in text.split(",") if part.strip()]
        if not ids:
            raise BadInput(f"{text!r}: give a company id or stand ids like G-1,G-2")
        if len(set(ids)) != len(ids):
            raise BadInput(f"{text!r} names a stand twice")
        known = {s["id"] for s in state.stands()}
        if len(ids) == 1 and ids[0] not in known:
            # Neither a stand nor a company: say both, as the STICK argument takes either.
            named = sorted(
                {c for s in state.stands() if (c := company_of(ctx, s.get("formation")))}
            )
            hint = did_you_mean(ids[0], [*named, *sorted(known)])
            raise BadInput(
                f"{text!r} is neither a company nor a stand (companies: "
                f"{', '.join(named) or 'none'}; or stand ids like G-1,G-2){hint}"
            )
        stands = [state.stand(i) for i in ids]
        for stand in stands:
            why = may_come(ctx, stand, how)
            if why is not None:
                raise RulesRefusal(f"{stand['id']} cannot come by {how}: {why}")
    companies = {company_of(ctx, s.get("formation")) for s in stands}
    if len(companies) > 1:
        shown = ", ".join(sorted(str(c) for c in companies))
        raise RulesRefusal(f"a stick is one company (CD 7.2, 7.3); these stands are of {shown}")
    sides = {s["side"] for s in stands}
    if len(sides) > 1:
        raise RulesRefusal(
            f"a stick belongs to one side (CD 7.2, 7.3), not {', '.join(sorted(sides))}"
        )
    for stand in stands:
        ctx.involve(stand["id"])
    return stands


def aircrew(ctx: RulesContext, stand: StandRow, given: str | None) -> str:
    crew = given or _spec(ctx, stand["id"], "aircrew", None)
    if crew is None:
        raise BadInput(
            f"{stand['id']} has no aircrew quality: give --crew QUALITY, or 'aircrew:' on the "
            "stand in the scenario"
        )
    if crew not in ctx.charts.quality:
        known = ", ".join(ctx.charts.quality_order())
        raise BadInput(f"aircrew quality {crew!r} is unknown (known: {known})")
    return str(crew)


def check_zone(ctx: RulesContext, zone: Any) -> tuple[float, float]:
    x, y = float(zone[0]), float(zone[1])
    if not ctx.table.on_table(x, y):
        w, d = ctx.scenario.table.width, ctx.scenario.table.depth
        raise BadInput(f"--zone {x:g},{y:g} is off the {w:g} x {d:g} table")
    return x, y


def check_phase(ctx: RulesContext) -> None:
    phase_allows(ctx, "air", "an airborne landing")


def _orders(ctx: RulesContext, stands: list[StandRow]) -> dict[str, str]:
    """The order each landed stand now has (CD 7.2.2, 7.3.2: hasty advance)."""
    return {
        s["id"]: s["order"]
        for s in stands
        if s.get("order") and s["x"] is not None and s["status"] == "ok"
    }


HASTY = "hasty-advance"


def _settle(
    ctx: RulesContext,
    stand: StandRow,
    square: dict[str, Any],
    how: str,
    zone: tuple[float, float],
    heading: float,
) -> str:
    state = ctx.state
    outcome = square["outcome"]
    stand["drop"] = {"by": how, "turn": state.turn, "phase": state.phase,
                     "zone": list(zone), "heading": heading}  # fmt: skip
    if outcome in ("aborted", "lost"):
        stand["status"] = outcome
        stand["regroup"] = outcome == "lost" and square.get("regroup", True)
        return str(outcome)
    stand["x"], stand["y"] = square["at"]
    stand["facing"] = heading
    stand["landed_turn"] = state.turn
    stand["landed_by"] = how
    # CD 7.2.2, 7.3.2: troops landed from the air count as on a hasty advance order (they
    # may not move this turn, and fire at -2).
    stand["order"] = HASTY
    stand["drop"]["at"] = square["at"]
    if outcome in ("suppressed", "hit") and "suppressed" not in stand["markers"]:
        stand["markers"].append("suppressed")
    if outcome == "hit":
        effect = stand_effect(ctx, stand, f"{square['square']} landed down in {square['rough']}")
        square["effect"] = effect
        _take(stand, effect, "CD 7.2.2")
        return ELIMINATED if effect == ELIMINATED else "hit"
    return str(outcome)


def _take(stand: StandRow, effect: str, rule: str) -> None:
    if effect == ELIMINATED:
        stand["status"] = "eliminated"
    elif effect == FORCED_BACK and "forced-back" not in stand["markers"]:
        stand["markers"].append("forced-back")


def _overlaps(ctx: RulesContext, ids: Iterable[str]) -> list[list[str]]:
    placed = [ctx.state.stand(i) for i in ids]
    placed = [s for s in placed if s["x"] is not None]
    others = [s for s in ctx.state.stands() if s["x"] is not None and s["status"] == "ok"]
    # The same test as placing a stand: bases may touch, a sliver is no overlap.
    tolerance = ctx.charts.params(TableParams).base_overlap_tolerance
    out = []
    for stand in placed:
        rest = [base_of(o) for o in others if o["id"] != stand["id"]]
        for other in overlapping(base_of(stand), rest, tolerance):
            pair = sorted([stand["id"], other])
            if pair not in out:
                out.append(pair)
    return out
