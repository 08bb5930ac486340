"""The parachute drop (CD 7.1, 7.2): the drop height and what raises it (CD 7.2.1), hitting the
drop zone, the squares laid along the flight path and each one's scatter from two d100 rolls
(the simulation at the head of ``airborne.yaml``), and the drop results (CD 7.2.2), a
parachuted gun's crew, ammunition and weapon coming down apart (CD 7.1).
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import mutable_dataclass
from tabletop.core.words import count, possessive
from tabletop.data.chart_params import AirborneParams
from tabletop.rules.cd.airborne.aa import aa_fire, choose_aa
from tabletop.rules.cd.airborne.common import (
    ELIMINATED,
    Aircraft,
    Line,
    is_bad_weather,
    is_overcast_night,
    keyed,
    names,
    site_of,
    stand_effect,
)
from tabletop.rules.cd.airborne.stick import (
    _orders,
    _overlaps,
    _settle,
    aircrew,
    check_phase,
    check_zone,
    stick_stands,
)
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import DropRow, PartRow, StandRow

PARTS = ("crew", "ammo", "weapon")  # CD 7.1, 7.2: a parachuted gun is three squares


def condition_raise(
    charts: Any, conditions: dict[str, Any], overcast: bool | None, bad: bool | None
) -> Line | None:
    """The largest raise of the drop height for light and weather (CD 7.2.1)."""
    found = []
    light = keyed(charts, "drop-raise", conditions["light"])
    if light is not None:
        found.append(Line(f"{conditions['light']} light", float(light.value), light.rule))
    if is_overcast_night(conditions, overcast):
        row = charts.table("airborne")["raise-overcast"]
        found.append(Line("overcast night", float(row.value), row.rule))
    if is_bad_weather(conditions, charts, bad):
        row = charts.table("airborne")["raise-bad-weather"]
        found.append(Line("bad flying weather", float(row.value), row.rule))
    found = [f for f in found if f.value]
    return max(found, key=lambda f: f.value) if found else None


def drop_height(
    charts: Any, crew: str, forced_back: int, raised: Line | None
) -> tuple[float | None, list[Line]]:
    """The height a transport drops from, with its working; None when it aborts."""
    base = keyed(charts, "drop-height", crew)
    if base is None:
        raise BadInput(f"no drop height for aircrew quality {crew!r} (airborne.yaml)")
    lines = [Line(f"{crew} aircrew", float(base.value), base.rule)]
    if raised is not None:
        lines.append(raised)
    if forced_back:
        per = charts.table("airborne")["raise-per-aa-hit"]
        lines.append(Line(count(forced_back, "AA hit"), float(per.value) * forced_back, per.rule))
    if forced_back >= charts.params(AirborneParams).abort_hits:
        return None, lines
    return sum(line.value for line in lines), lines


# --- the drop simulation (CD 7.2) --------------------------------------------------------------


def ruler_slots(
    count: int, zone: tuple[float, float], heading: float, size: float
) -> list[tuple[float, float]]:
    """Squares edge to edge along the flight path, centred on the zone (CD 7.2)."""
    ux, uy = math.sin(math.radians(heading)), math.cos(math.radians(heading))
    middle = (count - 1) / 2
    return [
        (zone[0] + (i - middle) * size * ux, zone[1] + (i - middle) * size * uy)
        for i in range(count)
    ]


def scatter_sigma(height: float, charts: Any) -> float:
    """Standard deviation of the drift per axis from this height (our model, charted)."""
    per = charts.params(AirborneParams).scatter_sd_per_inch
    power = charts.params(AirborneParams).scatter_height_exponent
    return float(per * height**power)


def drift(sigma: float, first: int, second: int) -> tuple[float, float, float, float]:
    """Box-Muller on two d100 rolls: (dx, dy, distance, bearing). The 100 bearings are
    evenly spaced in opposite pairs, so the drift has mean zero and no preferred axis."""
    u = (first - 0.5) / 100
    distance = sigma * math.sqrt(-2 * math.log(u))
    bearing = 360 * (second - 0.5) / 100
    rad = math.radians(bearing)
    return distance * math.sin(rad), distance * math.cos(rad), distance, bearing


def check_flight_path(ctx: RulesContext, side: str, heading: float) -> None:
    """All of a side's parachute transports fly the same path (CD 7.2)."""
    for stand in ctx.state.stands():
        drop: DropRow | dict[str, Any] = stand.get("drop") or {}
        if (
            stand["side"] == side
            and drop.get("by") == "parachute"
            and drop.get("turn") == ctx.state.turn
            and abs(((drop["heading"] - heading + 180) % 360) - 180) > 1e-6
        ):
            raise RulesRefusal(
                f"{possessive(side)} transports fly heading {drop['heading']:g} this turn "
                f"({stand['id']}'s stick): every parachute transport takes the same flight "
                "path (CD 7.2)"
            )


# --- parachute drop (CD 7.2) --------------------------------------------------------------------


@mutable_dataclass
class DropPlan:
    """A drop checked and ready to roll: the stick, its squares' aircraft and the AA."""

    stands: list[StandRow]
    aircraft: list[Aircraft]
    guns: list[Any]
    zone: tuple[float, float]
    heading: float
    raised: Line | None


def plan_drop(ctx: RulesContext, inputs: dict[str, Any]) -> DropPlan:
    """Check a drop and lay out its aircraft, one per square (CD 7.1, 7.2); nothing rolled."""
    check_phase(ctx)
    state, charts = ctx.state, ctx.charts
    zone = check_zone(ctx, inputs["zone"])
    heading = float(inputs["heading"]) % 360
    stands = stick_stands(ctx, inputs["stick"], "parachute")
    side = stands[0]["side"]
    check_flight_path(ctx, side, heading)
    aircraft = []
    for stand in stands:
        crew = aircrew(ctx, stand, inputs.get("crew"))
        if charts.stand_kinds[stand["kind"]].category == "gun":
            aircraft += [Aircraft(f"{stand['id']} {p}", stand["id"], crew, p) for p in PARTS]
        else:
            aircraft.append(Aircraft(stand["id"], stand["id"], crew))
    guns = choose_aa(ctx, side, zone, inputs)
    raised = condition_raise(charts, state.conditions, inputs.get("overcast"),
                             inputs.get("bad_weather"))  # fmt: skip
    return DropPlan(stands, aircraft, guns, zone, heading, raised)


def flight_slots(
    charts: Any, aircraft: list[Aircraft], zone: tuple[float, float], heading: float
) -> dict[str, tuple[float, float]]:
    """Each aircraft still flying after the AA, and its square's place on the ruler (CD 7.2)."""
    flying = [a for a in aircraft if a.aborted is None]
    size = charts.params(AirborneParams).square_size
    return dict(zip((a.label for a in flying), ruler_slots(len(flying), zone, heading, size),
                    strict=True))  # fmt: skip


def drop_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    plan = plan_drop(ctx, inputs)
    state, charts = ctx.state, ctx.charts
    stands, aircraft, zone, heading, raised = (
        plan.stands, plan.aircraft, plan.zone, plan.heading, plan.raised
    )  # fmt: skip
    shots = aa_fire(ctx, aircraft, plan.guns, glider=False)
    slots = flight_slots(charts, aircraft, zone, heading)
    squares = []
    for plane in aircraft:
        height, lines = drop_height(charts, plane.crew, plane.forced_back, raised)
        entry: dict[str, Any] = {"square": plane.label, "stand": plane.stand, "part": plane.part,
                                 "crew": plane.crew, "height": height,
                                 "height_working": [line.as_json() for line in lines]}  # fmt: skip
        if plane.aborted is not None or height is None:
            entry.update(outcome="aborted", why=plane.aborted or "aborted (CD 7.2.1)")
        else:
            entry.update(_fall(ctx, plane, slots[plane.label], height))
        squares.append(entry)
    night = effects(state.conditions, charts).night
    applied = _apply_drop(ctx, stands, squares, zone, heading)
    landed = [s for s in applied if applied[s] in ("landed", "suppressed", "hit")]
    verdict = f"{len(landed)} of {count(len(stands), 'stand')} of the stick landed" + "".join(
        f"; {sid} {how}" for sid, how in applied.items() if how not in ("landed",)
    )
    return {
        "verdict": verdict,
        "stick": [s["id"] for s in stands],
        "zone": list(zone),
        "heading": heading,
        "night": night,
        "raise": raised.as_json() if raised else None,
        "aa": shots,
        "squares": squares,
        "stands": applied,
        "orders": _orders(ctx, stands),
        "overlaps": _overlaps(ctx, landed),
    }


# A square's fall in three stages, each rolled by the drop and enumerated by its odds
# (rules/cd/airborne/odds.py): the drift (two d100), the side it lands (a d10), and what the
# ground where it comes down does to it (no roll).


def drift_roll(
    dice: DiceLike, plane: Aircraft, sigma: float
) -> tuple[int, int, float, float, float, float]:
    """The drift of a square from two d100 (CD 7.2): the rolls, then (dx, dy, distance,
    bearing) as ``drift`` gives them."""
    first = dice.roll(100, f"drift of {plane.label} (Box-Muller u)")
    second = dice.roll(100, f"drift of {plane.label} (bearing)")
    return (first, second, *drift(sigma, first, second))


def side_roll(dice: DiceLike, plane: Aircraft, charts: Any) -> tuple[int, bool]:
    """The d10 for the side a square lands on: (the roll, whether it is marked side down)."""
    above = charts.params(AirborneParams).marked_down_above
    # The roll's purpose keeps the logged spelling of the face ("above 5.0").
    roll = dice.roll(10, f"{plane.label} lands marked side down above {float(above)}")
    return roll, roll > above


def landing(charts: Any, site: dict[str, Any], down: bool) -> dict[str, Any]:
    """What the ground a square comes down on does to it (CD 7.2.2): lost off the table or in
    deep water, suppressed when marked side down, and a hit down in rough ground."""
    if site["off_table"]:
        return {"outcome": "lost", "why": "fell off the table: lost en route (CD 7.2.2)"}
    if site["water"] is not None:
        return {"outcome": "lost", "why": f"fell in {site['water']}: lost en route (CD 7.2.2)"}
    if down:
        rough = [p.id for p in site["pieces"] if p.kind in names(charts, "down-hit-in")]
        return {"outcome": "hit" if rough else "suppressed", "rough": rough[0] if rough else None}
    return {"outcome": "landed"}


def _fall(
    ctx: RulesContext, plane: Aircraft, slot: tuple[float, float], height: float
) -> dict[str, Any]:
    """One square's fall: drift from two d100, side from a d10, and where it lands."""
    charts, dice = ctx.charts, ctx.dice
    sigma = scatter_sigma(height, charts)
    first, second, dx, dy, distance, bearing = drift_roll(dice, plane, sigma)
    rolled, down = side_roll(dice, plane, charts)
    x, y = slot[0] + dx, slot[1] + dy
    site = site_of(ctx, x, y)
    out: dict[str, Any] = {
        "slot": [round(slot[0], 4), round(slot[1], 4)],
        "sigma": round(sigma, 4),
        "rolls": [first, second, rolled],
        "drift": {"distance": round(distance, 4), "bearing": round(bearing, 2)},
        "at": [round(x, 4), round(y, 4)],
        "marked": "down" if down else "up",
        "terrain": [p.id for p in site["pieces"]],
    }
    out.update(landing(charts, site, down))
    return out


def _apply_drop(
    ctx: RulesContext,
    stands: list[StandRow],
    squares: list[dict[str, Any]],
    zone: tuple[float, float],
    heading: float,
) -> dict[str, str]:
    """Put the stands where their squares fell (CD 7.2.2); a gun where its weapon fell."""
    by_stand: dict[str, dict[str | None, dict[str, Any]]] = {}
    for sq in squares:
        by_stand.setdefault(sq["stand"], {})[sq["part"]] = sq
    done = {}
    for stand in stands:
        parts = by_stand[stand["id"]]
        if "weapon" in parts and _crew_without_gun(parts):
            # CD 7.1: gun and crew are separate: the crew lands though its gun is lost.
            done[stand["id"]] = _crew_only(ctx, stand, parts, zone, heading)
            continue
        main = parts.get("weapon") or parts[None]
        done[stand["id"]] = _settle(ctx, stand, main, "parachute", zone, heading)
        if "weapon" in parts and stand["status"] != "lost" and stand["status"] != "aborted":
            _gun_parts(ctx, stand, parts)
            if stand["status"] == "eliminated":
                done[stand["id"]] = "eliminated"
    return done


def _crew_without_gun(parts: dict[str | None, dict[str, Any]]) -> bool:
    lost = ("aborted", "lost")
    return parts["weapon"]["outcome"] in lost and parts["crew"]["outcome"] not in lost


def _crew_only(
    ctx: RulesContext,
    stand: StandRow,
    parts: dict[str | None, dict[str, Any]],
    zone: tuple[float, float],
    heading: float,
) -> str:
    """The gun is lost, its crew lands: the stand is the crew, where its square fell (CD 7.1)."""
    crew, weapon, ammo = parts["crew"], parts["weapon"], parts["ammo"]
    how = _settle(ctx, stand, crew, "parachute", zone, heading)
    stand["parts"] = {
        part: {"outcome": sq["outcome"], "at": sq.get("at")}
        for part, sq in (("crew", crew), ("ammo", ammo), ("weapon", weapon))
    }
    if stand["status"] == "eliminated":
        return how
    stand["markers"].append("no-gun")
    return f"{how}: its gun {weapon['outcome']}, the crew lands without it (CD 7.1)"


def _gun_parts(ctx: RulesContext, stand: StandRow, parts: dict[str | None, dict[str, Any]]) -> None:
    """Crew and ammunition squares away from, or lost apart from, their gun (CD 7.1)."""
    record: dict[str, PartRow] = {}
    for part in ("crew", "ammo"):
        sq = parts[part]
        record[part] = {"outcome": sq["outcome"], "at": sq.get("at")}
        if sq["outcome"] in ("lost", "aborted"):
            if part == "crew":
                stand["markers"].append("no-crew")
            else:
                for ammo in stand["ammo"].values():
                    ammo["state"], ammo["depleted_turn"] = "depleted", ctx.state.turn
            continue
        if part == "crew" and sq["outcome"] == "hit":
            effect = stand_effect(ctx, stand, f"{sq['square']} landed down in {sq['rough']}")
            sq["effect"] = effect
            if effect == ELIMINATED:
                stand["markers"].append("no-crew")
                record[part]["outcome"] = "eliminated"
                continue
        stand["markers"].append(f"{part}-apart")
    stand["parts"] = record
