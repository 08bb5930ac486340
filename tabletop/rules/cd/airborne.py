"""Airborne operations (CD 7): drop heights, AA fire at the aircraft, the parachute drop,
glider landings and fire at paratroopers on their way down.

A stick is one company's parachute (or glider) stands. Each square of a parachute stick (a
stand; a towed gun is three: crew, ammunition, weapon, CD 7.1) has its own transport, and
each glider carries one stand. AA within reach of the zone fires first; a transport's
forced-back results raise its drop height, a glider's hits lower its landing number, and
enough of them abort it. The drop itself is simulated as the head of ``airborne.yaml``
describes: squares laid along the flight path, each drifting by a circular normal vector
scaled by its height, drawn from two d100 rolls; a d10 decides which side it lands.
Every number is in ``charts/airborne.yaml``; every roll goes through ``ctx.dice``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.sides import resolve_side
from tabletop.core.units import within
from tabletop.rules.cd.compass import point_bearing
from tabletop.rules.context import RulesContext

PARTS = ("crew", "ammo", "weapon")  # CD 7.1, 7.2: a parachuted gun is three squares
NO_EFFECT, FORCED_BACK, ELIMINATED = "no effect", "forced back", "eliminated"
SEVERITY = {NO_EFFECT: 0, FORCED_BACK: 1, ELIMINATED: 2}
# Rings of glider slots around the zone (along the heading, across it), in glider sizes.
SLOTS = (
    (0, 0), (1, 0), (-1, 0), (0, 1), (0, -1),
    (2, 0), (-2, 0), (0, 2), (0, -2), (1, 1), (1, -1), (-1, 1), (-1, -1),
)  # fmt: skip
GLIDER = "glider:"


# --- charts ------------------------------------------------------------------------------------


def param(charts: Any, key: str) -> Any:
    return charts.table("airborne")[key].value


def names(charts: Any, key: str) -> set[str]:
    return {n.strip() for n in str(param(charts, key)).split(",") if n.strip()}


def keyed(charts: Any, table: str, key: str) -> Any | None:
    for row in charts.table("airborne").values():
        if row.table == table and row.key == key:
            return row
    return None


def crew_class(charts: Any, quality: str) -> str:
    """``plus`` (veteran, elite), ``minus`` (green, trained) or ``none`` (CD 7.2.2, 7.3.1)."""
    row = keyed(charts, "crew", quality)
    return str(row.value) if row is not None else "none"


@dataclass(frozen=True)
class Line:
    """One step of the working: what it is, how much, and the rule."""

    name: str
    value: float
    rule: str

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "rule": self.rule}


# --- drop height (CD 7.2.1) --------------------------------------------------------------------


def is_overcast_night(conditions: dict[str, Any], overcast: bool | None) -> bool:
    """A moonlit night counts as overcast when the referee says so, or in any weather."""
    if conditions["light"] != "night-moonlit":
        return False
    return overcast if overcast is not None else conditions["weather"] != "clear"


def is_bad_weather(conditions: dict[str, Any], charts: Any, bad: bool | None) -> bool:
    from tabletop.rules.cd.weather import worsened_weather

    if bad is not None:
        return bad
    weather = worsened_weather(conditions["weather"], conditions["wind"]["force"])
    return weather in names(charts, "bad-flying-weather")


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
        lines.append(Line(f"{forced_back} AA hit(s)", float(per.value) * forced_back, per.rule))
    if forced_back >= int(param(charts, "abort-hits")):
        return None, lines
    return sum(line.value for line in lines), lines


def landing_number(
    charts: Any, conditions: dict[str, Any], crew: str, hits: int, overcast: bool | None
) -> tuple[int, list[Line]]:
    """A glider's landing number and its working (CD 7.3.1)."""
    key = "overcast" if is_overcast_night(conditions, overcast) else conditions["light"]
    base = keyed(charts, "landing-number", key)
    if base is None:
        raise BadInput(f"no glider landing number for {key!r} (airborne.yaml)")
    lines = [Line(f"{key}", float(base.value), base.rule)]
    kind = crew_class(charts, crew)
    if kind in ("plus", "minus"):
        row = charts.table("airborne")[f"landing-crew-{kind}"]
        lines.append(Line(f"{crew} glider crew", float(row.value), row.rule))
    if hits:
        lines.append(Line(f"{hits} AA hit(s)", -float(hits), "CD 7.3.1"))
    return int(sum(line.value for line in lines)), lines


# --- AA fire at the aircraft (CD 7.2.2, 7.3.1, 9.1.6) -------------------------------------------


@dataclass
class Aircraft:
    """One transport (a square's) or glider, and what AA fire did to it."""

    label: str
    stand: str
    crew: str
    part: str | None = None
    hits: int = 0
    forced_back: int = 0
    aborted: str | None = None


def aa_weapon(stand: dict[str, Any], charts: Any) -> Any | None:
    for weapon_id in stand["weapons"]:
        weapon = charts.weapons[weapon_id]
        if weapon.aa and stand["ammo"][weapon_id]["state"] != "depleted":
            return weapon
    return None


def aa_dice(
    ctx: RulesContext, stand: dict[str, Any], weapon: Any, night: bool
) -> tuple[int, list[str]]:
    """Half the printed ROF, rounded up (CD 7.2.2); one fewer at night without sound
    detection, a searchlight or radar (CD 9.1.6)."""
    divisor = float(param(ctx.charts, "aa-rof-divisor"))
    dice = math.ceil(weapon.rof / divisor)
    why = [f"ROF {weapon.rof} / {divisor:g}, rounded up: {dice} (CD 7.2.2)"]
    if night and not _spec(ctx, stand["id"], "aa_detection", False):
        change = int(ctx.charts.param("weather", "night-aa-dice"))
        dice += change
        why.append(f"night, no sound detection, searchlight or radar: {change:+d} (CD 9.1.6)")
    return max(dice, 0), why


def aa_number(ctx: RulesContext, quality: str) -> tuple[int, list[Line]]:
    base = int(param(ctx.charts, "aa-to-hit"))
    lines = [Line("AA at aircraft", base, ctx.charts.table("airborne")["aa-to-hit"].rule)]
    kind = crew_class(ctx.charts, quality)
    if kind in ("plus", "minus"):
        mod = ctx.charts.modifier("aa-veteran" if kind == "plus" else "aa-green")
        lines.append(Line(mod.label, mod.value, mod.rule))
    return int(sum(line.value for line in lines)), lines


def aa_candidates(ctx: RulesContext, side: str, zone: tuple[float, float]) -> list[dict[str, Any]]:
    """Every enemy stand with an AA weapon, and whether it may fire at this zone."""
    from tabletop.rules.cd.ammo import check_fires_left
    from tabletop.rules.cd.weather import effects

    reach = float(param(ctx.charts, "aa-range"))
    night = effects(ctx.state.conditions, ctx.charts).night
    out = []
    for stand in ctx.state.stands():
        weapon = aa_weapon(stand, ctx.charts)
        if stand["side"] == side or weapon is None or stand["status"] != "ok":
            continue
        entry: dict[str, Any] = {"stand": stand["id"], "weapon": weapon.id, "why_not": None}
        if stand["x"] is None:
            entry["why_not"] = "not on the table"
        else:
            gap = _gap(ctx, stand, zone)
            entry["range"] = round(gap, 3)
            if not within(gap, reach):
                entry["why_not"] = f'{gap:.1f}" from the zone, beyond {reach:g}" (CD 7.2.2)'
            elif stand.get("moved_turn") == ctx.state.turn:
                entry["why_not"] = "moved this turn: only stationary AA fires (CD 7.2.2)"
            else:
                try:  # AA fire counts against the weapon's fire for the turn
                    check_fires_left(ctx.state, stand, weapon, ctx.charts)
                except RulesRefusal as refusal:
                    entry["why_not"] = str(refusal)
        dice, why = aa_dice(ctx, stand, weapon, night)
        number, lines = aa_number(ctx, stand["quality"])
        entry.update(dice=dice, dice_working=why, to_hit=number)
        entry["modifiers"] = [line.as_json() for line in lines[1:]]
        if entry["why_not"] is None and dice <= 0:
            entry["why_not"] = "no dice left at night (CD 9.1.6)"
        out.append(entry)
    return out


def choose_aa(
    ctx: RulesContext, side: str, zone: tuple[float, float], inputs: dict[str, Any]
) -> list[Any]:
    if inputs.get("no_aa"):
        return []
    found = {c["stand"]: c for c in aa_candidates(ctx, side, zone)}
    asked = inputs.get("aa")
    if not asked:
        return [c for c in found.values() if c["why_not"] is None]
    chosen = []
    for stand_id in asked:
        ctx.state.stand(stand_id)
        entry = found.get(stand_id)
        if entry is None:
            raise RulesRefusal(
                f"{stand_id} cannot fire at the aircraft: it is not an enemy AA stand with "
                "ammunition (an 'aa' weapon, CD 7.2.2)"
            )
        if entry["why_not"] is not None:
            raise RulesRefusal(f"{stand_id} cannot fire at the aircraft: {entry['why_not']}")
        chosen.append(entry)
    return chosen


def aa_fire(
    ctx: RulesContext, aircraft: list[Aircraft], guns: list[Any], glider: bool
) -> list[Any]:
    """Each gun's dice; each hit on a random aircraft still flying (CD 7.2.2, 7.3.1)."""
    from tabletop.rules.cd.ammo import record_firing

    charts, dice, state = ctx.charts, ctx.dice, ctx.state
    face = int(charts.param("ammo", "trigger-face"))
    shots = []
    for gun in guns:
        stand = state.stand(gun["stand"])
        ctx.involve(stand["id"])
        rolls, hits = [], []
        for index in range(1, gun["dice"] + 1):
            roll = dice.roll(10, f"AA {stand['id']} die {index} of {gun['dice']}, "
                             f"needs {gun['to_hit']} or less")  # fmt: skip
            rolls.append(roll)
            if roll <= gun["to_hit"] or roll == 1:
                hits.append(_hit_aircraft(ctx, aircraft, glider))
        weapon = charts.weapons[gun["weapon"]]
        kind = charts.stand_kinds[stand["kind"]]
        ones = sum(1 for r in rolls if r == face)
        booked = record_firing(state, stand, weapon, kind, "standard", ones, charts,
                               f"AA {stand['id']}", ones)  # fmt: skip
        stand["fired"] = {"turn": state.turn, "phase": state.phase, "weapon": weapon.id,
                          "x": stand["x"], "y": stand["y"]}  # fmt: skip
        shots.append({**gun, "rolls": rolls, "hits": [h for h in hits if h is not None],
                      "ammunition": booked["notes"]})  # fmt: skip
    return shots


def _hit_aircraft(
    ctx: RulesContext, aircraft: list[Aircraft], glider: bool
) -> dict[str, Any] | None:
    flying = [a for a in aircraft if a.aborted is None]
    if not flying:
        return None
    pick = 0
    if len(flying) > 1:
        pick = ctx.dice.roll(len(flying), f"which of {len(flying)} aircraft is hit") - 1
    target = flying[pick]
    abort = int(param(ctx.charts, "abort-hits"))
    if glider and param(ctx.charts, "glider-aa-hits") == "direct":
        target.hits += 1
        effect = "hit"
    else:
        effect = roll_effect(ctx, target.crew, f"AA hit on {target.label}'s aircraft")
        if effect == ELIMINATED:
            target.aborted = "eliminated by AA: returns to base (CD 7.2.2)"
        elif effect == FORCED_BACK:
            target.forced_back += 1
            target.hits += 1
    if target.aborted is None and max(target.forced_back, target.hits) >= abort:
        target.aborted = f"{abort} AA hits: aborted (CD 7.2.1, 7.3.1)"
    return {"aircraft": target.label, "effect": effect, "aborted": target.aborted is not None}


def roll_effect(ctx: RulesContext, quality: str, purpose: str) -> str:
    """A roll on the hit effects chart for this quality (quality chart)."""
    bands = ctx.charts.quality[quality]
    roll = ctx.dice.roll(10, f"hit effect: {purpose} ({quality})")
    if roll <= bands.no_effect_up_to:
        return NO_EFFECT
    if roll <= bands.forced_back_up_to:
        return FORCED_BACK
    return ELIMINATED


def stand_effect(ctx: RulesContext, stand: dict[str, Any], purpose: str) -> str:
    """A hit on a landing stand, rolled as if by fire (soft vehicles green, night lower)."""
    from tabletop.rules.cd.fire import effect_quality
    from tabletop.rules.cd.stands import target_of
    from tabletop.rules.cd.weather import effects

    target = target_of(stand, ctx, "none", None)
    night = effects(ctx.state.conditions, ctx.charts).night
    return roll_effect(ctx, effect_quality(target, ctx.charts, night), purpose)


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
    per = float(param(charts, "scatter-sd-per-inch"))
    power = float(param(charts, "scatter-height-exponent"))
    return float(per * height**power)


def drift(sigma: float, first: int, second: int) -> tuple[float, float, float, float]:
    """Box-Muller on two d100 rolls: (dx, dy, distance, bearing). The 100 bearings are
    evenly spaced in opposite pairs, so the drift has mean zero and no preferred axis."""
    u = (first - 0.5) / 100
    distance = sigma * math.sqrt(-2 * math.log(u))
    bearing = 360 * (second - 0.5) / 100
    rad = math.radians(bearing)
    return distance * math.sin(rad), distance * math.cos(rad), distance, bearing


def site_of(ctx: RulesContext, x: float, y: float) -> dict[str, Any]:
    """What lies at a landing point: off the table, deep water, the pieces under it."""
    if not ctx.table.on_table(x, y):
        return {"off_table": True, "water": None, "pieces": []}
    pieces = ctx.table.pieces_at(x, y)
    kinds = {p.kind for p in pieces}
    water = None
    if "bridge" not in kinds:
        for p in pieces:
            if ctx.charts.terrain[p.kind].water == "deep":
                water = p.id
                break
    return {"off_table": False, "water": water, "pieces": pieces}


# --- sticks --------------------------------------------------------------------------------------


def company_of(ctx: RulesContext, formation: str | None) -> str | None:
    index = ctx.scenario.formation_index()
    current = formation
    while current is not None and current in index:
        if index[current].kind == "company":
            return current
        current = index[current].parent
    return formation


def may_come(ctx: RulesContext, stand: dict[str, Any], how: str) -> str | None:
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


def stick_stands(ctx: RulesContext, text: str, how: str) -> list[dict[str, Any]]:
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
        raise RulesRefusal(f"a stick belongs to one side, not {', '.join(sorted(sides))}")
    for stand in stands:
        ctx.involve(stand["id"])
    return stands


def aircrew(ctx: RulesContext, stand: dict[str, Any], given: str | None) -> str:
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


def check_flight_path(ctx: RulesContext, side: str, heading: float) -> None:
    """All of a side's parachute transports fly the same path (CD 7.2)."""
    for stand in ctx.state.stands():
        drop = stand.get("drop") or {}
        if (
            stand["side"] == side
            and drop.get("by") == "parachute"
            and drop.get("turn") == ctx.state.turn
            and abs(((drop["heading"] - heading + 180) % 360) - 180) > 1e-6
        ):
            raise RulesRefusal(
                f"{side}'s transports fly heading {drop['heading']:g} this turn ({stand['id']}"
                f"'s stick): every parachute transport takes the same flight path (CD 7.2)"
            )


def check_phase(ctx: RulesContext) -> None:
    from tabletop.rules.cd.stands import check_phase as phase_allows

    phase_allows(ctx, "air", "an airborne landing")


# --- parachute drop (CD 7.2) --------------------------------------------------------------------


def drop_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    from tabletop.rules.cd.weather import effects

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
    shots = aa_fire(ctx, aircraft, guns, glider=False)
    raised = condition_raise(charts, state.conditions, inputs.get("overcast"),
                             inputs.get("bad_weather"))  # fmt: skip
    flying = [a for a in aircraft if a.aborted is None]
    size = float(param(charts, "square-size"))
    slots = dict(zip((a.label for a in flying), ruler_slots(len(flying), zone, heading, size),
                     strict=True))  # fmt: skip
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
    verdict = f"{len(landed)} of {len(stands)} stand(s) of the stick landed" + "".join(
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


def _orders(ctx: RulesContext, stands: list[dict[str, Any]]) -> dict[str, str]:
    """The order each landed stand now has (CD 7.2.2, 7.3.2: hasty advance)."""
    return {
        s["id"]: s["order"]
        for s in stands
        if s.get("order") and s["x"] is not None and s["status"] == "ok"
    }


def _fall(
    ctx: RulesContext, plane: Aircraft, slot: tuple[float, float], height: float
) -> dict[str, Any]:
    """One square's fall: drift from two d100, side from a d10, and where it lands."""
    charts, dice = ctx.charts, ctx.dice
    sigma = scatter_sigma(height, charts)
    first = dice.roll(100, f"drift of {plane.label} (Box-Muller u)")
    second = dice.roll(100, f"drift of {plane.label} (bearing)")
    side_roll = dice.roll(10, f"{plane.label} lands marked side down above "
                          f"{param(charts, 'marked-down-above')}")  # fmt: skip
    dx, dy, distance, bearing = drift(sigma, first, second)
    x, y = slot[0] + dx, slot[1] + dy
    down = side_roll > int(param(charts, "marked-down-above"))
    site = site_of(ctx, x, y)
    out: dict[str, Any] = {
        "slot": [round(slot[0], 4), round(slot[1], 4)],
        "sigma": round(sigma, 4),
        "rolls": [first, second, side_roll],
        "drift": {"distance": round(distance, 4), "bearing": round(bearing, 2)},
        "at": [round(x, 4), round(y, 4)],
        "marked": "down" if down else "up",
        "terrain": [p.id for p in site["pieces"]],
    }
    if site["off_table"]:
        out.update(outcome="lost", why="fell off the table: lost en route (CD 7.2.2)")
    elif site["water"] is not None:
        out.update(outcome="lost", why=f"fell in {site['water']}: lost en route (CD 7.2.2)")
    elif down:
        rough = [p.id for p in site["pieces"] if p.kind in names(charts, "down-hit-in")]
        out.update(outcome="hit" if rough else "suppressed", rough=rough[0] if rough else None)
    else:
        out.update(outcome="landed")
    return out


def _apply_drop(
    ctx: RulesContext,
    stands: list[dict[str, Any]],
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


HASTY = "hasty-advance"


def _crew_without_gun(parts: dict[str | None, dict[str, Any]]) -> bool:
    lost = ("aborted", "lost")
    return parts["weapon"]["outcome"] in lost and parts["crew"]["outcome"] not in lost


def _crew_only(
    ctx: RulesContext,
    stand: dict[str, Any],
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


def _settle(
    ctx: RulesContext,
    stand: dict[str, Any],
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


def _take(stand: dict[str, Any], effect: str, rule: str) -> None:
    if effect == ELIMINATED:
        stand["status"] = "eliminated"
    elif effect == FORCED_BACK and "forced-back" not in stand["markers"]:
        stand["markers"].append("forced-back")


def _gun_parts(
    ctx: RulesContext, stand: dict[str, Any], parts: dict[str | None, dict[str, Any]]
) -> None:
    """Crew and ammunition squares away from, or lost apart from, their gun (CD 7.1)."""
    record = {}
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


def _overlaps(ctx: RulesContext, ids: Iterable[str]) -> list[list[str]]:
    from tabletop.data.board import base_of
    from tabletop.table import overlapping

    placed = [ctx.state.stand(i) for i in ids]
    placed = [s for s in placed if s["x"] is not None]
    others = [s for s in ctx.state.stands() if s["x"] is not None and s["status"] == "ok"]
    # The same test as placing a stand: bases may touch, a sliver is no overlap.
    tolerance = float(ctx.charts.param("table", "base-overlap-tolerance"))
    out = []
    for stand in placed:
        rest = [base_of(o) for o in others if o["id"] != stand["id"]]
        for other in overlapping(base_of(stand), rest, tolerance):
            pair = sorted([stand["id"], other])
            if pair not in out:
                out.append(pair)
    return out


def assemble_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A parachuted gun's crew and ammunition have reached it (CD 7.1)."""
    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    apart = [m for m in stand["markers"] if m in ("crew-apart", "ammo-apart")]
    if "no-crew" in stand["markers"]:
        raise RulesRefusal(f"{stand['id']}'s crew was lost in the drop: no crew to join (CD 7.1)")
    if not apart:
        raise RulesRefusal(f"{stand['id']} has no crew or ammunition apart from it")
    stand["markers"] = [m for m in stand["markers"] if m not in apart]
    return {"verdict": f"{stand['id']} assembled: {', '.join(apart)} joined", "joined": apart}


# --- gliders (CD 7.3) -----------------------------------------------------------------------


def glider_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    check_phase(ctx)
    zone = check_zone(ctx, inputs["zone"])
    heading = float(inputs.get("heading") or 0.0) % 360
    stands = stick_stands(ctx, inputs["stick"], "glider")
    targets = {k: (float(v[0]), float(v[1])) for k, v in (inputs.get("targets") or {}).items()}
    unknown = set(targets) - {s["id"] for s in stands}
    if unknown:
        raise BadInput(f"--at names {', '.join(sorted(unknown))}, not in the stick")
    aircraft = [Aircraft(s["id"], s["id"], aircrew(ctx, s, inputs.get("crew"))) for s in stands]
    guns = choose_aa(ctx, stands[0]["side"], zone, inputs)
    shots = aa_fire(ctx, aircraft, guns, glider=True)
    landed: list[tuple[float, float]] = []
    used: set[int] = set()
    gliders = []
    for stand, plane in zip(stands, aircraft, strict=True):
        entry = _glide(ctx, stand, plane, zone, heading, targets.get(stand["id"]), landed, used,
                       inputs.get("overcast"))  # fmt: skip
        gliders.append(entry)
    done = {g["stand"]: g["outcome"] for g in gliders}
    safe = [s for s, how in done.items() if how in ("landed", "deviated", "crashed")]
    verdict = f"{len(safe)} of {len(stands)} glider(s) down" + "".join(
        f"; {sid} {how}" for sid, how in done.items() if how != "landed"
    )
    return {
        "verdict": verdict,
        "stick": [s["id"] for s in stands],
        "zone": list(zone),
        "heading": heading,
        "aa": shots,
        "gliders": gliders,
        "stands": done,
        "orders": _orders(ctx, stands),
        "overlaps": _overlaps(ctx, safe),
    }


def _glide(
    ctx: RulesContext,
    stand: dict[str, Any],
    plane: Aircraft,
    zone: tuple[float, float],
    heading: float,
    target: tuple[float, float] | None,
    landed: list[tuple[float, float]],
    used: set[int],
    overcast: bool | None,
) -> dict[str, Any]:
    charts, dice, state = ctx.charts, ctx.dice, ctx.state
    entry: dict[str, Any] = {"stand": stand["id"], "crew": plane.crew, "hits": plane.hits}
    if plane.aborted is not None:
        entry.update(outcome="aborted", why=plane.aborted)
        _settle(ctx, stand, {"outcome": "aborted"}, "glider", zone, heading)
        return entry
    number, lines = landing_number(charts, state.conditions, plane.crew, plane.hits, overcast)
    entry.update(landing_number=number, working=[line.as_json() for line in lines])
    aim = _glider_target(ctx, stand["id"], zone, heading, target, landed, used)
    entry["target"] = [round(aim[0], 4), round(aim[1], 4)]
    roll = dice.roll(10, f"glider landing of {stand['id']}, needs {number} or less")
    entry["rolls"] = [roll]
    destroyed_on = int(param(charts, "glider-destroyed-on"))
    if roll == destroyed_on:
        entry.update(outcome="lost", why=f"rolled {roll}: destroyed or lost en route (CD 7.3.3)")
        _settle(ctx, stand, {"outcome": "lost", "regroup": False}, "glider", zone, heading)
        return entry
    at = aim
    outcome = "landed"
    if roll > number:
        at, deviation = _deviate(ctx, plane, aim, entry["rolls"])
        entry["deviation"] = deviation
        outcome = "deviated"
        lost, crash = _glider_site(ctx, stand, at, heading)
        if lost is not None:
            entry.update(at=[round(at[0], 4), round(at[1], 4)], outcome="lost", why=lost)
            _settle(ctx, stand, {"outcome": "lost"}, "glider", zone, heading)
            return entry
        if crash:
            outcome = "crashed"
            entry["crashed_into"] = crash
    entry.update(at=[round(at[0], 4), round(at[1], 4)], outcome=outcome)
    _settle(ctx, stand, {"outcome": "landed", "at": entry["at"]}, "glider", zone, heading)
    if outcome == "crashed":
        entry["crash"] = _crash(ctx, stand, number, entry["rolls"])
        if stand["status"] == "eliminated":
            entry["outcome"] = "crashed"
    if outcome == "landed":
        landed.append(at)
    elif within(math.dist(at, zone), float(param(charts, "glider-zone-radius"))):
        landed.append(at)  # a glider off its mark may still anchor others (CD 7.3)
    state.rows[GLIDER + stand["id"]] = {
        "id": stand["id"], "x": entry["at"][0], "y": entry["at"][1], "heading": heading,
        "length": float(param(charts, "glider-length")),
        "width": float(param(charts, "glider-width")), "turn": state.turn,
    }  # fmt: skip
    return entry


def _glider_target(
    ctx: RulesContext,
    stand_id: str,
    zone: tuple[float, float],
    heading: float,
    target: tuple[float, float] | None,
    landed: list[tuple[float, float]],
    used: set[int],
) -> tuple[float, float]:
    """Within 2" of the zone, or of a glider of the stick down within 2" of it (CD 7.3)."""
    radius = float(param(ctx.charts, "glider-zone-radius"))
    anchors = [zone, *(p for p in landed if within(math.dist(p, zone), radius))]

    def legal(point: tuple[float, float]) -> bool:
        return any(within(math.dist(point, a), radius) for a in anchors)

    if target is not None:
        if not legal(target):
            raise RulesRefusal(
                f"{stand_id}'s target {target[0]:g},{target[1]:g} is not within {radius:g}\" of "
                f'the zone or of a glider of the stick down within {radius:g}" of it (CD 7.3)'
            )
        return target
    length = float(param(ctx.charts, "glider-length"))
    width = float(param(ctx.charts, "glider-width"))
    ux, uy = math.sin(math.radians(heading)), math.cos(math.radians(heading))
    for index, (along, across) in enumerate(SLOTS):
        if index in used:
            continue
        point = (zone[0] + along * length * ux + across * width * uy,
                 zone[1] + along * length * uy - across * width * ux)  # fmt: skip
        if legal(point):
            used.add(index)
            return point
    raise RulesRefusal(
        f'no room left to aim {stand_id} within {radius:g}" of the stick (CD 7.3): give '
        "targets with --at STAND=X,Y"
    )


def _deviate(
    ctx: RulesContext, plane: Aircraft, aim: tuple[float, float], rolls: list[int]
) -> tuple[tuple[float, float], dict[str, Any]]:
    """Direction on the wind direction chart, then a die of inches (CD 7.3.3, 10.1.1)."""
    charts, dice = ctx.charts, ctx.dice
    above = int(charts.param("weather", "wind-reroll-above"))
    while True:
        point = dice.roll(10, f"deviation of {plane.label} (wind chart, again on {above + 1}+)")
        rolls.append(point)
        if point <= above:
            break
    pips = dice.roll(10, f"deviation distance of {plane.label} (inches)")
    rolls.append(pips)
    factor = 1.0
    kind = crew_class(charts, plane.crew)
    if kind in ("plus", "minus"):
        factor = float(param(charts, f"deviation-{kind}-factor"))
    distance = pips * factor
    bearing = float(point_bearing(point))
    rad = math.radians(bearing)
    at = (aim[0] + distance * math.sin(rad), aim[1] + distance * math.cos(rad))
    return at, {"direction": point, "bearing": bearing, "die": pips, "factor": factor,
                "distance": distance}  # fmt: skip


def glider_footprint(x: float, y: float, heading: float, length: float, width: float) -> Any:
    from tabletop.data.board import base_of
    from tabletop.table import base_polygon

    row = {"id": "glider", "x": x, "y": y, "width": width, "depth": length, "facing": heading}
    return base_polygon(base_of(row))


def _glider_site(
    ctx: RulesContext, stand: dict[str, Any], at: tuple[float, float], heading: float
) -> tuple[str | None, list[str]]:
    """(why it is lost, or None; what it crashes into) for a deviated glider (CD 7.3.3-4)."""
    from tabletop.data.board import base_of
    from tabletop.table import base_polygon

    charts, state = ctx.charts, ctx.state
    site = site_of(ctx, *at)
    if site["off_table"]:
        return "deviated off the table: lost en route (CD 7.3.4)", []
    if site["water"] is not None:
        return f"deviated into {site['water']}: lost en route (CD 7.3.4)", []
    prohibited = names(charts, "glider-prohibited-kinds")
    for piece in site["pieces"]:
        burning = (state.rows.get("terrain:" + piece.id) or {}).get("state") == "burning"
        spec = ctx.scenario.piece(piece.id)
        if piece.kind in prohibited or burning or spec.state == "burning":
            why = "burning" if burning or spec.state == "burning" else piece.kind
            return f"deviated into {piece.id} ({why}): lost en route (CD 7.3.4)", []
    length, width = float(param(charts, "glider-length")), float(param(charts, "glider-width"))
    shape = glider_footprint(at[0], at[1], heading, length, width)
    crash = []
    crash_kinds = names(charts, "glider-crash-kinds")
    for piece in ctx.table.pieces:
        if piece.kind in crash_kinds and ctx.table.geometry(piece.id).intersects(shape):
            crash.append(piece.id)
    for other in state.stands():
        if other["id"] == stand["id"] or other["x"] is None or other["status"] == "eliminated":
            continue
        if charts.stand_kinds[other["kind"]].category != "vehicle":
            continue
        if base_polygon(base_of(other)).intersects(shape):
            crash.append(other["id"])
    for key, row in state.rows.items():
        if key.startswith(GLIDER) and row["id"] != stand["id"]:
            theirs = glider_footprint(row["x"], row["y"], row["heading"], row["length"],
                                      row["width"])  # fmt: skip
            if theirs.intersects(shape):
                crash.append(f"glider of {row['id']}")
    return None, crash


def _crash(
    ctx: RulesContext, stand: dict[str, Any], number: int, rolls: list[int]
) -> dict[str, Any]:
    """One hit, a second landing check, a second hit if it fails (CD 7.3.4)."""
    effects = [stand_effect(ctx, stand, f"{stand['id']}'s glider crashes")]
    again = ctx.dice.roll(10, f"second landing check of {stand['id']}, needs {number} or less")
    rolls.append(again)
    if again > number:
        effects.append(stand_effect(ctx, stand, f"{stand['id']}'s glider crashes hard"))
    worst = max(effects, key=lambda e: SEVERITY[e])
    out: dict[str, Any] = {
        "second_check": again,
        "held": again <= number,
        "effects": effects,
        "worst": worst,
    }
    if worst == ELIMINATED:
        stand["status"] = "eliminated"
    elif FORCED_BACK in effects:
        # CD 7.3.4: a forced-back result here does not move the stand, but the morale test a
        # forced-back result brings falls due (the morale phase lists it).
        due = {
            "rule": "CD 7.3.4",
            "why": f"{stand['id']}'s glider crashed: forced back result (the stand stays put)",
            "turn": ctx.state.turn,
        }
        stand.setdefault("morale_due", []).append(due)
        out["morale_due"] = due
    return out


# --- fire at descending paratroopers (CD 7.2.2) -------------------------------------------------


def descent_fire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    from tabletop.rules.cd.direct import prepare
    from tabletop.rules.cd.sighting import End, distance_between, end_for_stand

    state = ctx.state
    shooter = state.stand(inputs["shooter"])
    target = state.stand(inputs["target"])
    drop = target.get("drop") or {}
    if not (
        drop.get("by") == "parachute"
        and target.get("landed_turn") == state.turn
        and drop.get("phase") == state.phase
    ):
        raise RulesRefusal(
            f"{target['id']} is not coming down now: paratroopers are fired at in the air only "
            "in the phase they drop (CD 7.2.2); once down, use 'tabletop fire'"
        )
    if shooter["x"] is None:
        raise BadInput(f"{shooter['id']} is not on the table: place it first")
    if shooter.get("moved_turn") == state.turn or shooter.get("landed_turn") == state.turn:
        raise RulesRefusal(f"{shooter['id']} moved this turn: only stationary stands fire at "
                           "descending paratroopers (CD 7.2.2)")  # fmt: skip
    reach = float(param(ctx.charts, "descent-fire-range"))
    gap = _gap(ctx, shooter, tuple(drop["zone"]))
    if not within(gap, reach):
        raise RulesRefusal(
            f'{shooter["id"]} is {gap:.1f}" from the drop zone: only stands within {reach:g}" '
            "may fire at descending paratroopers (CD 7.2.2)"
        )
    where = End(f"{target['id']} landing point", float(target["x"]), float(target["y"]))
    distance = distance_between(end_for_stand(state, shooter["id"]), where, ctx.scenario.measure)
    mods = [["descending", None], *(inputs.get("mods") or [])]
    fire_inputs = {"shooter": shooter["id"], "target": target["id"], "weapon": inputs.get("weapon"),
                   "range": distance, "cover": "none", "mods": mods}  # fmt: skip
    prep = prepare(ctx, fire_inputs, any_phase=True)
    return {**shoot(ctx, prep), "zone": drop["zone"], "from_zone": round(gap, 3)}


def shoot(ctx: RulesContext, prep: Any) -> dict[str, Any]:
    """Roll a prepared direct-fire plan and book it, as 'fire' does."""
    from tabletop.rules.cd.ammo import record_firing
    from tabletop.rules.cd.direct import roll_plan, verdict
    from tabletop.rules.cd.stands import apply_effect

    plan, shooter, target = prep.plan, prep.shooter, prep.target
    ctx.involve(shooter["id"], target["id"])
    face = int(ctx.charts.param("ammo", "trigger-face"))
    tally, dice_out = roll_plan(plan, ctx.dice, face)
    weapon = ctx.charts.weapons[plan.weapon]
    kind = ctx.charts.stand_kinds[shooter["kind"]]
    ones = sum(1 for d in dice_out if d["to_hit"] == face)
    booked = record_firing(ctx.state, shooter, weapon, kind, prep.ammo, tally.triggers,
                           ctx.charts, f"fire {shooter['id']} -> {target['id']}", ones)  # fmt: skip
    shooter["fired"] = {"turn": ctx.state.turn, "phase": ctx.state.phase, "weapon": weapon.id,
                        "x": shooter["x"], "y": shooter["y"]}  # fmt: skip
    target["fired_at"] = ctx.state.turn
    outcome = apply_effect(target, tally.worst, ctx.state)
    return {
        "verdict": verdict(tally, plan, target["id"]),
        "shooter": shooter["id"],
        **plan.working(),
        "rolls": [d["to_hit"] for d in dice_out],
        "dice": dice_out,
        "hits": tally.hits,
        "effects": [d["effect"] for d in dice_out if d["hit"]],
        "target_now": outcome,
        "depletion_checks": booked["checks"],
        "ammunition": booked["notes"],
    }


# --- helpers ------------------------------------------------------------------------------------


def _spec(ctx: RulesContext, stand_id: str, field: str, default: Any) -> Any:
    try:
        return getattr(ctx.scenario.stand_spec(stand_id), field)
    except KeyError:
        return default


def _gap(ctx: RulesContext, stand: dict[str, Any], point: Any) -> float:
    from tabletop.rules.cd.sighting import End, distance_between, end_for_stand

    here = End("zone", float(point[0]), float(point[1]))
    return float(distance_between(end_for_stand(ctx.state, stand["id"]), here,
                                  ctx.scenario.measure))  # fmt: skip


def aa_preview(ctx: RulesContext, side: str, zone: tuple[float, float]) -> dict[str, Any]:
    """Which enemy AA may fire at aircraft over the zone, with dice and numbers (no rolls)."""
    side = resolve_side(side, ctx.scenario.side_names())
    zone = check_zone(ctx, zone)
    found = aa_candidates(ctx, side, zone)
    return {
        "zone": list(zone),
        "side": side,
        "aa": found,
        "firing": [c["stand"] for c in found if c["why_not"] is None],
    }
