"""Pregame engineering (CD 5): what a side can build in the hours or days before battle.

Most work is counted per engineer stand per work day; earthmovers multiply some of it (and
cannot help with some). Every engineer-day goes to one work, so the plan lists what the
time would give if all of it went to each work, for the referee to share out. Troops dig
their own foxholes (3 hours in place) and entrenchments (6 hours).
"""

from __future__ import annotations

import math
from typing import Any

from shapely.geometry import LineString, box

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.sides import resolve_side
from tabletop.core.words import count
from tabletop.data.chart_params import EngineeringParams
from tabletop.data.charts import Charts
from tabletop.rules.cd.engineering import is_earthmover
from tabletop.rules.cd.minefields import engineer_companies
from tabletop.rules.cd.terrain_state import TERRAIN
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, in_play
from tabletop.table import bearing, strip


def work_hours(charts: Charts, hours: float | None, days: float | None) -> float:
    """The time before the battle in hours, given in hours or in work days (CD 5; the work
    day's length is charted)."""
    if (hours is None) == (days is None):
        raise BadInput("give either --hours or --days")
    if hours is not None:
        return hours
    return float(days or 0.0) * charts.params(EngineeringParams).work_day_hours


def plan(ctx: RulesContext, side: str, hours: float) -> dict[str, Any]:
    charts, state = ctx.charts, ctx.state
    side = resolve_side(side, ctx.scenario.side_names())
    if not math.isfinite(hours) or hours <= 0:
        raise BadInput("give a positive number of --hours or --days")
    day = charts.params(EngineeringParams).work_day_hours
    days = math.floor(hours / day + 1e-9)
    stands = [s for s in state.stands() if s["side"] == side and in_play(s)]
    kinds = {s["id"]: charts.stand_kinds[s["kind"]] for s in stands}
    engineers = [s["id"] for s in stands if kinds[s["id"]].engineer]
    movers = [s["id"] for s in stands if _earthmover(ctx, s)]

    companies = engineer_companies(ctx, side)
    ground = state.conditions["ground"]
    works: dict[str, Any] = {}
    for work in charts.table("works").values():
        entry: dict[str, Any] = {"rule": work.rule, "unit": work.unit}
        # CD 5.1: no defensive works in heavy mud (the chart says which works and grounds).
        barred = ground in work.not_on_ground
        if work.by == "troops":
            ready = work.hours_in_place is not None and hours >= work.hours_in_place
            entry["possible"] = ready and not barred
            entry["stands"] = [s["id"] for s in stands if kinds[s["id"]].category == "personnel"]
            entry["cover"] = work.cover
            if barred:
                entry["why_not"] = f"no defensive works on {ground} ground (CD 5.1)"
            elif not ready:
                entry["why_not"] = f"needs {work.hours_in_place:g} hours in place"
        elif work.by == "companies":
            entry["possible"] = companies > 0 and not barred
            entry["amount"] = companies * (work.per_day or 0)
            entry["note"] = "wire is limited by what the companies carry, not by time"
            if barred:
                entry["why_not"] = f"not on {ground} ground"
        else:
            needs_days = work.days_in_place or 0
            ok = days >= 1 and days >= needs_days
            by_engineers = len(engineers) * days * (work.per_day or 0)
            by_movers = (
                len(movers) * days * (work.per_day or 0) * work.earthmover if work.earthmover else 0
            )
            entry["possible"] = ok and not barred
            entry["amount"] = by_engineers + by_movers
            entry["by_engineers"] = by_engineers
            entry["by_earthmovers"] = by_movers
            if work.earthmover is None and movers:
                entry["note"] = "earthmovers cannot help"
            if not ok:
                entry["why_not"] = "needs a full work day"
            elif barred:
                entry["why_not"] = f"no defensive works on {ground} ground (CD 5.1)"
        if work.not_in:
            entry["not_in"] = list(work.not_in)
        if work.only_in:
            entry["only_in"] = list(work.only_in)
        works[work.id] = entry
    return {
        "side": side,
        "hours": hours,
        "days": days,
        "engineers": engineers,
        "earthmovers": movers,
        "engineer_companies": companies,
        "engineer_days": len(engineers) * days,
        "earthmover_days": len(movers) * days,
        "works": works,
    }


def _earthmover(ctx: RulesContext, stand: StandRow) -> bool:
    return is_earthmover(ctx, stand)


POINT_WORKS = ("fortification", "tank-ramp", "crater")
LINE_WORKS = ("ditch", "wire", "abatis", "av-obstacle")


def parse_build(text: str) -> dict[str, Any]:
    """``WORK@X,Y`` (fortification, tank-ramp, crater) or ``WORK@X1,Y1:X2,Y2`` (a line)."""
    work, sep, where = text.partition("@")
    work = work.strip()
    if not sep or work not in POINT_WORKS + LINE_WORKS:
        raise BadInput(
            f"--build {text!r}: give WORK@X,Y for {', '.join(POINT_WORKS)} or "
            f"WORK@X1,Y1:X2,Y2 for {', '.join(LINE_WORKS)}"
        )
    try:
        points = [tuple(float(v) for v in p.split(",")) for p in where.split(":")]
    except ValueError:
        points = []
    wanted = 1 if work in POINT_WORKS else 2
    if len(points) != wanted or any(len(p) != 2 or not all(map(math.isfinite, p)) for p in points):
        shape = "X,Y" if wanted == 1 else "X1,Y1:X2,Y2"
        raise BadInput(f"--build {text!r}: {work} takes {work}@{shape}")
    return {"work": work, "points": [list(p) for p in points]}


def _footprint(ctx: RulesContext, build: dict[str, Any]) -> tuple[Any, float]:
    """The shape a work covers on the table, and its amount in the work's unit."""

    params = ctx.charts.params(EngineeringParams)
    work, points = build["work"], build["points"]
    if work in LINE_WORKS:
        (x1, y1), (x2, y2) = points
        length = math.dist((x1, y1), (x2, y2))
        if length <= 0:
            raise BadInput(f"--build {work}: the two ends are the same point")
        width = params.works_line_width
        shape = LineString([(x1, y1), (x2, y2)]).buffer(width / 2, cap_style="flat")
        return shape, length
    ((x, y),) = points
    if work == "tank-ramp":
        width = params.works_ramp_width
        length = params.works_ramp_length
        return strip(x, y - length / 2, bearing(x, y - 1, x, y), width, length), 1.0
    size = params.works_fortification_size if work == "fortification" else params.works_crater_size
    return box(x - size / 2, y - size / 2, x + size / 2, y + size / 2), 1.0


def _check_site(ctx: RulesContext, work: Any, shape: Any, side: str) -> None:
    """Terrain a work may not go in, or must go in (CD 5.1, 5.2.1, 5.2.4); on the table."""
    table = ctx.scenario.table
    minx, miny, maxx, maxy = shape.bounds
    if minx < 0 or miny < 0 or maxx > table.width or maxy > table.depth:
        raise BadInput(
            f"a {work.id} there would be off the {table.width:g} x {table.depth:g} table"
        )
    under = [
        p for p in ctx.scenario.terrain
        if ctx.table.geometry(p.id).intersection(shape).area > 1e-9
    ]  # fmt: skip
    barred = sorted({p.kind for p in under} & set(work.not_in))
    if barred:
        raise RulesRefusal(f"no {work.id} in {', '.join(barred)} ({work.rule})")
    if work.only_in:
        inside = any(
            p.kind in work.only_in and ctx.table.geometry(p.id).contains(shape) for p in under
        )
        if not inside:
            raise RulesRefusal(
                f"{work.id} is built only in {', '.join(work.only_in)} ({work.rule})"
            )


def build_works(
    ctx: RulesContext, result: dict[str, Any], builds: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Put the side's pregame works on the table, within the time it had (CD 5).

    Engineer-days and earthmover-days are shared out: each work first uses the earthmovers
    that can help with it (they do more a day), then engineers; wire is limited by what the
    engineer companies carry. Each work becomes a terrain row ``terrain:works-N`` (kind the
    work's terrain kind, ``built: True``, ``polygon``, ``state``, ``side``) and a map template.
    """

    charts, state = ctx.charts, ctx.state
    works = charts.table("works")
    engineer_days = float(result["engineer_days"])
    mover_days = float(result["earthmover_days"])
    wire_left = float(result["works"]["wire"].get("amount", 0) or 0)
    made = []
    for build in builds:
        work = works[build["work"]]
        entry = result["works"][work.id]
        if not entry["possible"]:
            raise RulesRefusal(
                f"{work.id}: {entry.get('why_not', 'not possible in the time')} ({work.rule})"
            )
        shape, amount = _footprint(ctx, build)
        _check_site(ctx, work, shape, result["side"])
        if work.by == "companies":
            if amount > wire_left + 1e-9:
                raise RulesRefusal(
                    f'{amount:g}" of wire is more than the {wire_left:g}" the engineer '
                    f"companies have left ({work.rule})"
                )
            wire_left -= amount
        else:
            per_day = float(work.per_day or 0)
            if work.earthmover and mover_days > 0:
                by_mover = min(mover_days, amount / (per_day * work.earthmover))
                mover_days -= by_mover
                amount_left = amount - by_mover * per_day * work.earthmover
            else:
                amount_left = amount
            need = amount_left / per_day if per_day else math.inf
            if need > engineer_days + 1e-9:
                days = "engineer-day" if f"{need:g}" == "1" else "engineer-days"
                are = "is" if f"{engineer_days:g}" == "1" else "are"
                raise RulesRefusal(
                    f"not enough time for this {work.id}: it needs {need:g} more {days} and "
                    f"{engineer_days:g} {are} left ({work.rule})"
                )
            engineer_days -= need
        serial = int(state.meta.get("works_serial", 0)) + 1
        state.meta["works_serial"] = serial
        work_id = f"works-{serial}"
        polygon = [list(p) for p in shape.exterior.coords]
        kind = "av-obstacle" if work.id == "av-obstacle" else work.id
        row = {
            "id": work_id, "kind": kind, "state": "intact", "wired": False, "damage": 0,
            "recheck": False, "gaps": [], "built": True, "how": "pregame",
            "polygon": polygon, "side": result["side"], "rule": work.rule,
        }  # fmt: skip
        state.rows[TERRAIN + work_id] = row
        state.add_template(
            {
                "id": work_id,
                "kind": kind,
                "by": result["side"],
                "turn": state.turn,
                "lifetime": "game",
                "polygon": polygon,
            }
        )
        made.append({"id": work_id, "kind": kind, "rule": work.rule, "at": build["points"]})
    return made, {"engineer_days": engineer_days, "earthmover_days": mover_days, "wire": wire_left}


def pregame_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """Accept a plan: troops dig in and the works placed go on the table (CD 5)."""
    state = ctx.state
    result = plan(ctx, inputs["side"], float(inputs["hours"]))
    side = result["side"]
    if state.turn != ctx.scenario.turn.number or state.meta.get("pregame", {}).get(side):
        raise RulesRefusal(
            "pregame works are accepted once, before the first turn is played (CD 5)"
        )
    builds = [parse_build(b) for b in inputs.get("builds") or []]
    made, left = build_works(ctx, result, builds)
    dug = []
    works = result["works"]
    marker = (
        "entrenched"
        if works["entrenchments"]["possible"]
        else "foxholes"
        if works["foxholes"]["possible"]
        else None
    )
    if marker:
        for stand_id in works[marker if marker == "foxholes" else "entrenchments"]["stands"]:
            stand = state.stand(stand_id)
            if marker not in stand["markers"]:
                stand["markers"].append(marker)
                dug.append(stand_id)
                ctx.involve(stand_id)
    state.meta.setdefault("pregame", {})[side] = {
        "hours": result["hours"],
        "engineer_days": result["engineer_days"],
        "earthmover_days": result["earthmover_days"],
        "works": [m["id"] for m in made],
        "left": left,
    }
    verdict = (
        f"{side}: {count(len(dug), 'stand')} {marker} (CD 5.1.1); "
        f"{count(result['engineer_days'], 'engineer-day')} and "
        f"{count(result['earthmover_days'], 'earthmover-day')} for works"
        if marker
        else f"{side}: no time to dig in; {count(result['engineer_days'], 'engineer-day')}"
    )
    if made:
        verdict += "; built: " + ", ".join(f"{m['kind']} {m['id']} ({m['rule']})" for m in made)
    return {"verdict": verdict, "dug_in": dug, "built": made, "left": left, "plan": result}
