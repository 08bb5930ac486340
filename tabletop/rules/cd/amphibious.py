"""Amphibious operations (CD 8): the approach, landing, scatter, wading, hazards under
water, attacks on the landing wave, lift points and naval gunfire.

Craft are stands whose scenario entry names a ``craft:`` type of ``charts/amphibious.yaml``
and lists what they ``carries``. Stages, kept in the craft's ``amphib`` record:

- ``approach``: 6" off the beach, the turn it enters (CD 8.1);
- ``afloat``: in the water elsewhere (an amphibious vehicle stopped by an obstacle);
- ``beached``/``disembarked``: a landing craft at the waterline, before and after its troops
  step ashore (CD 8.1.1); ``landed``: an amphibious vehicle on the beach (CD 8.1.2);
- ``off-table``: forced back while approaching, back next turn (CD 8.2.4); ``sunk``.

Wading stands carry ``amphib = {stage: wading}`` until they reach the shore (CD 8.1.4).
The shore is the edge of the open-water pieces (``sea-kinds``) away from the table's edges.
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.sides import resolve_side
from tabletop.core.units import within
from tabletop.rules.context import RulesContext
from tabletop.rules.sequence import Happened, on

NO_EFFECT, FORCED_BACK, ELIMINATED = "no effect", "forced back", "eliminated"
SEVERITY = {NO_EFFECT: 0, FORCED_BACK: 1, ELIMINATED: 2}
AFLOAT = ("approach", "afloat", "beached")
LIFT = "lift:"
BOMBARDED = "bombardment:"


# --- charts ------------------------------------------------------------------------------------


def param(charts: Any, key: str) -> Any:
    return charts.table("amphibious")[key].value


def names(charts: Any, key: str) -> list[str]:
    return [n.strip() for n in str(param(charts, key)).split(",") if n.strip()]


def craft_type(ctx: RulesContext, stand: dict[str, Any]) -> Any | None:
    """The craft row of a stand (its scenario 'craft:'), or None for other stands."""
    name = _spec(ctx, stand["id"], "craft", None)
    if name is None:
        return None
    row = ctx.charts.table("amphibious").get(name)
    if row is None or row.table != "craft":
        known = sorted(k for k, r in ctx.charts.table("amphibious").items() if r.table == "craft")
        raise BadInput(f"{stand['id']}: craft {name!r} is unknown (known: {', '.join(known)})")
    return row


def crew_default(charts: Any, year: int, major: bool) -> tuple[str, str]:
    """The charted crew quality of landing craft for a year and nation (CD 8.2.3)."""
    for row in charts.table("amphibious").values():
        if row.table != "crew-by-year":
            continue
        if row.from_year is not None and year < row.from_year:
            continue
        if row.up_to_year is not None and year > row.up_to_year:
            continue
        if row.major is not None and row.major != major:
            continue
        return str(row.quality), row.rule
    raise BadInput(f"--year {year}: no crew quality charted for it (amphibious.yaml)")


def is_major(charts: Any, side: str) -> bool:
    return side.strip().lower() in names(charts, "major-sides")


# --- geometry of the shore ---------------------------------------------------------------------


def sea(ctx: RulesContext) -> Any:
    """The open water, as one shape; refuses when the table has none."""
    from shapely import unary_union

    kinds = set(names(ctx.charts, "sea-kinds"))
    shapes = [ctx.table.geometry(p.id) for p in ctx.table.pieces if p.kind in kinds]
    if not shapes:
        raise RulesRefusal(
            f"the table has no open water ({', '.join(sorted(kinds))}): amphibious landings "
            "need a sea piece in the scenario (CD 8.1)"
        )
    return unary_union(shapes)


def shoreline(ctx: RulesContext) -> Any:
    """The sea's edge, less the table's edges."""
    from shapely import box

    eps = 1e-6
    w, d = ctx.scenario.table.width, ctx.scenario.table.depth
    line = sea(ctx).boundary.intersection(box(eps, eps, w - eps, d - eps))
    if line.is_empty:
        raise RulesRefusal("the sea on this table has no shore (CD 8.1)")
    return line


def shore_frame(
    ctx: RulesContext, x: float, y: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The shore point nearest (x, y) and the unit vector from it out to sea."""
    from shapely import Point
    from shapely.ops import nearest_points

    water = sea(ctx)
    line = shoreline(ctx)
    parts = list(getattr(line, "geoms", [line]))
    here = Point(x, y)
    part = min(parts, key=lambda g: g.distance(here))
    shore = nearest_points(part, here)[0]
    at = part.project(shore)
    a = part.interpolate(max(at - 0.05, 0.0))
    b = part.interpolate(min(at + 0.05, part.length))
    tx, ty = b.x - a.x, b.y - a.y
    norm = math.hypot(tx, ty) or 1.0
    nx, ny = -ty / norm, tx / norm
    probe = Point(shore.x + 0.05 * nx, shore.y + 0.05 * ny)
    if not water.contains(probe):
        nx, ny = -nx, -ny
    return (shore.x, shore.y), (nx, ny)


def in_sea(ctx: RulesContext, x: float, y: float) -> bool:
    from shapely import Point

    return bool(sea(ctx).covers(Point(x, y)))


def _bearing(vx: float, vy: float) -> float:
    return math.degrees(math.atan2(vx, vy)) % 360


# --- stands and craft ----------------------------------------------------------------------------


def _spec(ctx: RulesContext, stand_id: str, field: str, default: Any) -> Any:
    try:
        return getattr(ctx.scenario.stand_spec(stand_id), field)
    except KeyError:
        return default


def craft_stand(ctx: RulesContext, stand_id: str) -> tuple[dict[str, Any], Any]:
    stand = ctx.state.stand(stand_id)
    kind = craft_type(ctx, stand)
    if kind is None:
        raise BadInput(
            f"{stand_id} is not a landing craft or amphibious vehicle: give it 'craft:' in the "
            "scenario (CD 8.1)"
        )
    ctx.involve(stand_id)
    return stand, kind


def cargo_of(ctx: RulesContext, craft: dict[str, Any]) -> list[str]:
    """What a craft carries; the scenario's 'carries' the first time it is asked."""
    if "cargo" not in craft:
        cargo = list(_spec(ctx, craft["id"], "carries", ()))
        for cid in cargo:
            passenger = ctx.state.stand(cid)
            if passenger["side"] != craft["side"]:
                raise BadInput(f"{craft['id']} carries {cid}, a stand of another side")
            passenger["aboard"] = craft["id"]
        craft["cargo"] = cargo
    return list(craft["cargo"])


def lift_points(ctx: RulesContext, stand: dict[str, Any]) -> int:
    """One for a personnel stand, the weight class for a vehicle or towed gun (CD 8.3.1)."""
    from tabletop.data.charts import weight_number
    from tabletop.rules.cd.conditions import weight_class_of

    kind = ctx.charts.stand_kinds[stand["kind"]]
    if kind.category == "personnel":
        return int(param(ctx.charts, "lift-personnel"))
    return max(weight_number(weight_class_of(ctx, stand)), 1)


def check_phase(ctx: RulesContext, what: str) -> None:
    from tabletop.rules.cd.stands import check_phase as allows

    allows(ctx, "movement", what)


# --- the approach (CD 8.1, 8.1.3, 8.2.3, 8.3) ---------------------------------------------------


def approach_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    check_phase(ctx, "the approach of a landing wave")
    state, charts = ctx.state, ctx.charts
    wave = int(inputs.get("wave") or state.turn)
    crafts = _approaching(ctx, inputs.get("craft") or [], inputs.get("wave"))
    side = crafts[0][0]["side"]
    if any(c["side"] != side for c, _ in crafts):
        raise RulesRefusal("a landing wave belongs to one side")
    lift = _use_lift(ctx, side, wave, crafts)
    crew = None
    if inputs.get("year") is not None:
        major = inputs.get("major")
        crew = crew_default(charts, int(inputs["year"]), is_major(charts, side)
                            if major is None else bool(major))  # fmt: skip
    x, y = (float(v) for v in inputs["at"])
    if not ctx.table.on_table(x, y):
        raise BadInput(f"--at {x:g},{y:g} is off the table")
    shore, normal = shore_frame(ctx, x, y)
    facing = (-normal[0], -normal[1])
    right = (facing[1], -facing[0])
    widths = [c["width"] for c, _ in crafts]
    total = sum(widths)
    offsets, run = [], -total / 2
    for width in widths:
        offsets.append(run + width / 2)
        run += width
    scatter = _scatter(ctx, crafts) if inputs.get("scatter") else {}
    distance = float(param(charts, "approach-distance"))
    placed = []
    for (craft, kind), offset in zip(crafts, offsets, strict=True):
        company = _company(ctx, craft)
        shift = scatter.get(company, {}).get("inches", 0.0)
        px, py = shore[0] + (offset + shift) * right[0], shore[1] + (offset + shift) * right[1]
        beach, out = shore_frame(ctx, px, py)
        ax, ay = beach[0] + distance * out[0], beach[1] + distance * out[1]
        if not ctx.table.on_table(ax, ay):
            raise RulesRefusal(
                f"{craft['id']}'s approach position {ax:.1f},{ay:.1f} is off the table: land "
                "it elsewhere (CD 8.1)"
            )
        cargo = cargo_of(ctx, craft)
        craft.update(x=round(ax, 4), y=round(ay, 4), facing=round(_bearing(-out[0], -out[1]), 2))
        craft["moved_turn"] = state.turn
        craft["amphib"] = {
            "stage": "approach", "approach": [craft["x"], craft["y"]],
            "beach": [round(beach[0], 4), round(beach[1], 4)], "wave": wave,
            "entered_turn": state.turn, "company": company,
        }  # fmt: skip
        if crew is not None:
            craft["quality"] = crew[0]
        am = craft["amphib"]
        placed.append({"craft": craft["id"], "type": kind.id, "approach": am["approach"],
                       "beach": am["beach"], "cargo": cargo, "crew": craft["quality"]})  # fmt: skip
    return {
        "verdict": f"wave {wave}: {len(placed)} craft making their approach, "
        f'{distance:g}" off the beach',
        "wave": wave,
        "craft": placed,
        "scatter": scatter,
        "lift": lift,
        "crew": {"quality": crew[0], "rule": crew[1]} if crew else None,
    }


def _approaching(ctx: RulesContext, ids: list[str], wave: Any) -> list[tuple[dict[str, Any], Any]]:
    state = ctx.state
    if not ids:
        if wave is None:
            raise BadInput("name the craft, or give --wave N for the craft of that wave")
        ids = [s["id"] for s in state.stands()
               if _spec(ctx, s["id"], "wave", None) == int(wave)
               and _spec(ctx, s["id"], "craft", None) is not None]  # fmt: skip
        if not ids:
            raise BadInput(f"no craft has 'wave: {wave}' in the scenario")
    out = []
    for cid in ids:
        craft, kind = craft_stand(ctx, cid)
        stage = (craft.get("amphib") or {}).get("stage")
        if craft["status"] != "ok":
            raise RulesRefusal(f"{cid} is {craft['status']}")
        if stage == "off-table":
            if craft["amphib"].get("off_turn") == state.turn:
                raise RulesRefusal(f"{cid} was forced back off the table this turn: it comes "
                                   "back next turn (CD 8.2.4)")  # fmt: skip
        elif stage is not None:
            raise RulesRefusal(f"{cid} is already in play ({stage})")
        elif craft["x"] is not None:
            raise RulesRefusal(f"{cid} is already on the table")
        out.append((craft, kind))
    return out


def _company(ctx: RulesContext, craft: dict[str, Any]) -> str:
    from tabletop.rules.cd.airborne import company_of

    cargo = cargo_of(ctx, craft)
    owner = ctx.state.stand(cargo[0]) if cargo else craft
    return str(company_of(ctx, owner.get("formation")) or owner["id"])


def _scatter(
    ctx: RulesContext, crafts: list[tuple[dict[str, Any], Any]]
) -> dict[str, dict[str, Any]]:
    """One die per company: scattered on 5 or less, then left or right 2 x D10 (CD 8.1.3)."""
    charts, dice = ctx.charts, ctx.dice
    up_to = int(param(charts, "scatter-up-to"))
    left_on = str(param(charts, "scatter-left-on"))
    out: dict[str, dict[str, Any]] = {}
    for craft, _ in crafts:
        company = _company(ctx, craft)
        if company in out:
            continue
        roll = dice.roll(10, f"scatter of {company} ({up_to} or less scatters)")
        entry: dict[str, Any] = {"rolls": [roll], "scattered": roll <= up_to, "inches": 0.0}
        if roll <= up_to:
            way = dice.roll(10, f"scatter direction of {company} ({left_on} left)")
            pips = dice.roll(10, f"scatter distance of {company}")
            left = (way % 2 == 0) == (left_on == "even")
            inches = pips * float(param(charts, "scatter-multiplier"))
            entry.update(rolls=[roll, way, pips], direction="left" if left else "right",
                         inches=-inches if left else inches)  # fmt: skip
        out[company] = entry
    return out


# --- lift (CD 8.3) -----------------------------------------------------------------------------


def lift_row(state: Any, side: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = state.rows.get(LIFT + side)
    return found


def wave_capacity(row: dict[str, Any], wave: int) -> int:
    """What a wave can carry: its parity's points less what earlier waves of that parity
    lost with craft sunk on the way in (CD 8.3.2)."""
    pool = int(row["odd" if wave % 2 else "even"])
    lost = sum(int(n) for w, n in row["lost"].items() if int(w) < wave and int(w) % 2 == wave % 2)
    return max(pool - lost, 0)


def available_lift(row: dict[str, Any], wave: int) -> int:
    """What more the wave can take: its capacity less what it already carries."""
    return wave_capacity(row, wave) - int(row["used"].get(str(wave), 0))


def _use_lift(
    ctx: RulesContext, side: str, wave: int, crafts: list[tuple[dict[str, Any], Any]]
) -> dict[str, Any] | None:
    row = lift_row(ctx.state, side)
    if row is None:
        return None
    need = sum(lift_points(ctx, ctx.state.stand(c)) for craft, _ in crafts
               for c in cargo_of(ctx, craft))  # fmt: skip
    have = available_lift(row, wave)
    if need > have:
        raise RulesRefusal(
            f"wave {wave} needs {need} lift point(s) but {side} has {have} left for "
            f"{'odd' if wave % 2 else 'even'} waves (CD 8.3.1, 8.3.2)"
        )
    row["used"][str(wave)] = int(row["used"].get(str(wave), 0)) + need
    # Lift is not a pool spent wave by wave: each wave's craft come back for the next wave
    # of the same parity. "left" is what more this wave can still take.
    return {"needed": need, "left": have - need, "pool": "odd" if wave % 2 else "even",
            "wave": wave, "capacity": wave_capacity(row, wave)}  # fmt: skip


def lift_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    side = inputs["side"]
    side = resolve_side(side, ctx.scenario.side_names())
    row = lift_row(ctx.state, side) or {"lost": {}, "used": {}}
    row.update(odd=int(inputs["odd"]), even=int(inputs["even"]))
    ctx.state.rows[LIFT + side] = row
    return {"verdict": f"{side}: {row['odd']} lift points for odd waves, {row['even']} for "
            "even waves (CD 8.3.2)", **lift_status(ctx.state, side)}  # fmt: skip


def lift_status(state: Any, side: str) -> dict[str, Any]:
    """A side's lift points: the two totals, what was lost and used by wave, and for each
    parity what its next wave (this turn's or later) can carry (CD 8.3.2)."""
    row = lift_row(state, side)
    if row is None:
        return {"side": side, "tracked": False}
    waves = {}
    for parity, rest in (("odd", 1), ("even", 0)):
        wave = max(int(state.turn), 1)
        if wave % 2 != rest:
            wave += 1
        lost = {int(w): int(n) for w, n in row["lost"].items() if int(w) % 2 == rest}
        loading = None
        if int(row["used"].get(str(wave), 0)):
            # This turn's wave of that parity is already loaded: the next one follows it.
            loading = {"wave": wave, "carries": wave_capacity(row, wave),
                       "aboard": int(row["used"][str(wave)]),
                       "more": available_lift(row, wave)}  # fmt: skip
            wave += 2
        waves[parity] = {
            "points": int(row[parity]),
            "lost": sum(lost.values()),
            "lost_by_wave": {str(w): lost[w] for w in sorted(lost)},
            "loading": loading,
            "next_wave": wave,
            "carries": wave_capacity(row, wave),
        }
    return {"side": side, "tracked": True, "odd": row["odd"], "even": row["even"],
            "lost": row["lost"], "used": row["used"], "waves": waves}  # fmt: skip


def describe_lift(status: dict[str, Any]) -> list[str]:
    """Lines for a person: per parity, the points, the losses and the next wave's load."""
    lines = []
    for parity, w in status["waves"].items():
        lost = (
            f"{w['lost']} lost ("
            + ", ".join(f"wave {k}: {n}" for k, n in w["lost_by_wave"].items())
            + ")"
            if w["lost"]
            else "none lost"
        )
        now = w["loading"]
        load = (
            f"wave {now['wave']} carries {now['aboard']} of {now['carries']} "
            f"(room for {now['more']} more); "
            if now
            else ""
        )
        lines.append(
            f"{parity} waves: {w['points']} points, {lost}; {load}wave {w['next_wave']} "
            f"can carry {w['carries']}"
        )
    return lines


def _lose_lift(ctx: RulesContext, craft: dict[str, Any], cargo: list[str]) -> int:
    row = lift_row(ctx.state, craft["side"])
    points = sum(lift_points(ctx, ctx.state.stand(c)) for c in cargo)
    if row is None or not points:
        return points
    wave = str(craft["amphib"]["wave"])
    row["lost"][wave] = int(row["lost"].get(wave, 0)) + points
    return points


# --- landing (CD 8.1.1, 8.1.2, 8.1.5, 8.1.6) ----------------------------------------------------


def land_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    check_phase(ctx, "landing")
    state = ctx.state
    out = []
    for cid in inputs["craft"]:
        craft, kind = craft_stand(ctx, cid)
        am = craft.get("amphib") or {}
        if craft["status"] != "ok" or am.get("stage") not in ("approach", "afloat"):
            raise RulesRefusal(f"{cid} is not in the water off the beach (stage "
                               f"{am.get('stage') or 'not entered'}; CD 8.1)")  # fmt: skip
        if am["stage"] == "approach" and am["entered_turn"] == state.turn:
            raise RulesRefusal(f"{cid} made its approach this turn: it moves to the beach next "
                               "turn (CD 8.1)")  # fmt: skip
        out.append(_land_one(ctx, craft, kind))
    ashore = [r["craft"] for r in out if r["stage"] in ("disembarked", "landed", "beached")]
    return {"verdict": f"{len(ashore)} of {len(out)} craft reached the beach", "craft": out}


def _land_one(ctx: RulesContext, craft: dict[str, Any], kind: Any) -> dict[str, Any]:
    from tabletop.rules.cd import minefields

    am = craft["amphib"]
    start = (float(craft["x"]), float(craft["y"]))
    beach = tuple(am["beach"])
    report: dict[str, Any] = {"craft": craft["id"], "hazards": []}
    if kind.lands == "drives-ashore":
        # CD 8.1.5, 8.1.6: an amphibious vehicle meets mines and obstacles as on land.
        stop = _barring_obstacle(ctx, craft, start, beach)
        end = stop["before"] if stop else _ashore_point(ctx, craft)
        crossed = minefields.cross_action(ctx, {"stand": craft["id"], "path": [list(end)]})
        report["minefields"] = crossed
        reached = stop is None and math.dist((craft["x"], craft["y"]), end) < 1e-3
        am["stage"] = "landed" if reached else "afloat"
        if stop:
            report["hazards"].append({"what": stop["piece"], "result": "bars the way (CD 8.1.6)"})
        craft["moved_turn"] = ctx.state.turn
        report["stage"] = am["stage"]
        return report
    for hazard in _hazards(ctx, craft, start, beach):
        effect = _craft_effect(ctx, craft, f"{craft['id']} strikes {hazard['what']}")
        result = apply_craft_result(ctx, craft, effect, moving=True, where=hazard["at"])
        report["hazards"].append({**hazard, "effect": effect, "result": result["result"],
                                  "cargo": result.get("cargo")})  # fmt: skip
        if effect != NO_EFFECT:
            report["stage"] = am["stage"]
            return report
    shore, out = beach, _seaward(ctx, beach)
    craft["x"] = round(shore[0] + out[0] * craft["depth"] / 2, 4)
    craft["y"] = round(shore[1] + out[1] * craft["depth"] / 2, 4)
    craft["moved_turn"] = ctx.state.turn
    am["stage"], am["landed_turn"] = "beached", ctx.state.turn
    report["disembarked"] = _disembark(ctx, craft, shore, out)
    # CD 8.1.1: the assault wave hits the beach on a hasty advance order.
    report["orders"] = {sid: "hasty-advance" for sid in report["disembarked"]}
    report["stage"] = am["stage"]
    return report


def _seaward(ctx: RulesContext, point: tuple[float, float]) -> tuple[float, float]:
    return shore_frame(ctx, *point)[1]


def _ashore_point(ctx: RulesContext, stand: dict[str, Any]) -> tuple[float, float]:
    beach = tuple(stand["amphib"]["beach"])
    out = _seaward(ctx, beach)
    return (round(beach[0] - out[0] * stand["depth"] / 2, 4),
            round(beach[1] - out[1] * stand["depth"] / 2, 4))  # fmt: skip


def _path_band(start: tuple[float, float], end: tuple[float, float], width: float) -> Any:
    from shapely import LineString

    return LineString([start, end]).buffer(width / 2, cap_style="flat")


def _hazards(
    ctx: RulesContext, craft: dict[str, Any], start: tuple[float, float], end: tuple[float, float]
) -> list[dict[str, Any]]:
    """Submerged real minefields and obstacles on a landing craft's run in, nearest first
    (CD 8.1.5, 8.1.6); dummies met on the way are revealed and taken away."""
    from shapely import LineString, Point

    from tabletop.rules.cd import minefields
    from tabletop.rules.cd.hidden import MINEFIELD, fields

    band = _path_band(start, end, craft["width"])
    line = LineString([start, end])
    water = sea(ctx)
    found = []
    for field in fields(ctx.state):
        square = minefields.square(field)
        if not square.intersects(band) or not water.covers(Point(field["x"], field["y"])):
            continue
        if not field["real"]:
            ctx.state.rows.pop(MINEFIELD + field["id"], None)
            continue
        field["revealed"] = True
        found.append({"what": f"minefield {field['id']}", "kind": "minefield",
                      "at": [field["x"], field["y"]],
                      "along": line.project(Point(field["x"], field["y"]))})  # fmt: skip
    kinds = set(names(ctx.charts, "submerged-obstacle-kinds"))
    for piece in ctx.table.pieces:
        if piece.kind not in kinds or _cleared(ctx, piece.id):
            continue
        wet = ctx.table.geometry(piece.id).intersection(band).intersection(water)
        if wet.is_empty or _through_gap(ctx, piece.id, wet):
            continue
        point = wet.representative_point()
        found.append({"what": piece.id, "kind": piece.kind, "at": [point.x, point.y],
                      "along": line.project(point)})  # fmt: skip
    found.sort(key=lambda h: h["along"])
    for h in found:
        h["at"] = [round(h["at"][0], 4), round(h["at"][1], 4)]
        h.pop("along")
    return found


def _cleared(ctx: RulesContext, piece_id: str) -> bool:
    row = ctx.state.rows.get("terrain:" + piece_id) or {}
    return row.get("state") in ("destroyed",)


def _through_gap(ctx: RulesContext, piece_id: str, wet: Any) -> bool:
    from shapely import Point

    row = ctx.state.rows.get("terrain:" + piece_id) or {}
    for gap in row.get("gaps", []):
        width = float(gap.get("width") or ctx.charts.param("engineering", "gap-width"))
        if wet.distance(Point(*gap["at"])) <= width / 2:
            return True
    return False


def _barring_obstacle(
    ctx: RulesContext, craft: dict[str, Any], start: tuple[float, float], end: tuple[float, float]
) -> dict[str, Any] | None:
    """The first submerged obstacle that bars this vehicle, and where it stops before it."""
    from shapely import LineString, Point

    mobility = ctx.charts.stand_kinds[craft["kind"]].mobility
    band = _path_band(start, end, craft["width"])
    line = LineString([start, end])
    water = sea(ctx)
    kinds = set(names(ctx.charts, "submerged-obstacle-kinds"))
    best = None
    for piece in ctx.table.pieces:
        move = ctx.charts.terrain[piece.kind].move
        key = "wheeled" if mobility in ("wheeled", "halftrack") else "tracked"
        if piece.kind not in kinds or move is None or getattr(move, key) is not None:
            continue
        if _cleared(ctx, piece.id):
            continue
        wet = ctx.table.geometry(piece.id).intersection(band).intersection(water)
        if wet.is_empty or _through_gap(ctx, piece.id, wet):
            continue
        along = min(line.project(Point(c)) for c in _coords(wet))
        if best is None or along < best[0]:
            best = (along, piece.id)
    if best is None:
        return None
    back = max(best[0] - craft["depth"] / 2 - 0.01, 0.0)
    point = line.interpolate(back)
    return {"piece": best[1], "before": (round(point.x, 4), round(point.y, 4))}


def _coords(geom: Any) -> list[tuple[float, float]]:
    if hasattr(geom, "geoms"):
        return [c for g in geom.geoms for c in _coords(g)]
    if hasattr(geom, "exterior"):
        return list(geom.exterior.coords)
    return list(geom.coords)


def _disembark(
    ctx: RulesContext, craft: dict[str, Any], shore: tuple[float, float], out: tuple[float, float]
) -> list[str]:
    """The stands step onto the beach just ahead of the bow and stop (CD 8.1.1)."""
    cargo = cargo_of(ctx, craft)
    if not cargo:
        craft["amphib"]["stage"] = "disembarked"
        return []
    gap = float(param(ctx.charts, "disembark-gap"))
    right = (-out[1], out[0])
    stands = [ctx.state.stand(c) for c in cargo]
    total = sum(s["width"] for s in stands)
    run = -total / 2
    for stand in stands:
        offset = run + stand["width"] / 2
        run += stand["width"]
        ahead = stand["depth"] / 2 + gap
        stand["x"] = round(shore[0] - out[0] * ahead + right[0] * offset, 4)
        stand["y"] = round(shore[1] - out[1] * ahead + right[1] * offset, 4)
        stand["facing"] = craft["facing"]
        stand.pop("aboard", None)
        stand["moved_turn"] = ctx.state.turn
        # CD 8.1.1: they come ashore on a hasty advance order and end their move here.
        stand["disembarked_turn"] = ctx.state.turn
        stand["order"] = "hasty-advance"
        ctx.involve(stand["id"])
    craft["cargo"] = []
    craft["amphib"]["stage"] = "disembarked"
    return cargo


def unload_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """Passengers leave an amphibious vehicle on the beach (CD 8.1.2)."""
    check_phase(ctx, "unloading")
    craft, kind = craft_stand(ctx, inputs["craft"])
    stage = (craft.get("amphib") or {}).get("stage")
    if kind.lands != "drives-ashore" or stage != "landed":
        raise RulesRefusal(f"{craft['id']} is not an amphibious vehicle ashore (CD 8.1.2)")
    if not cargo_of(ctx, craft):
        raise RulesRefusal(f"{craft['id']} carries nobody")
    out = _seaward(ctx, tuple(craft["amphib"]["beach"]))
    here = (float(craft["x"]) - out[0] * craft["depth"] / 2,
            float(craft["y"]) - out[1] * craft["depth"] / 2)  # fmt: skip
    left = _disembark(ctx, craft, here, out)
    craft["amphib"]["stage"] = "landed"
    return {
        "verdict": f"{', '.join(left)} unloaded from {craft['id']} (hasty advance order, CD 8.1.1)",
        "unloaded": left,
        "orders": {sid: "hasty-advance" for sid in left},
    }


# --- wading (CD 8.1.4) -------------------------------------------------------------------------


def wade_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    from tabletop.rules.cd import minefields

    check_phase(ctx, "wading")
    state, charts = ctx.state, ctx.charts
    allowance = float(param(charts, "wade-cautious"))
    order = "cautious"
    out = []
    stands = [state.stand(s) for s in inputs["stands"]]
    for stand in stands:
        ctx.involve(stand["id"])
        if (stand.get("amphib") or {}).get("stage") != "wading" or stand["status"] != "ok":
            raise RulesRefusal(f"{stand['id']} is not wading ashore (CD 8.1.4)")
        if stand["amphib"].get("waded_turn") == state.turn:
            raise RulesRefusal(
                f"{stand['id']} has moved through the water this turn: it wades on next turn "
                "(CD 8.1.4)"
            )
    if inputs.get("by"):
        _check_commander(ctx, state.stand(inputs["by"]), stands)
        allowance, order = float(param(charts, "wade-hasty")), "hasty"
    for stand in stands:
        here = (float(stand["x"]), float(stand["y"]))
        goal = (float(stand["amphib"]["beach"][0]), float(stand["amphib"]["beach"][1]))
        gap = math.dist(here, goal)
        step = min(allowance, gap)
        end = here if gap <= 0 else (here[0] + (goal[0] - here[0]) * step / gap,
                                     here[1] + (goal[1] - here[1]) * step / gap)  # fmt: skip
        end, blocked = _short_of_bases(ctx, stand, here, end)
        step = math.dist(here, end)
        crossed = None
        if step > 0:
            crossed = minefields.cross_action(ctx, {"stand": stand["id"], "path": [list(end)]})
        now = (float(stand["x"]), float(stand["y"]))
        ashore = math.dist(now, goal) < 1e-3
        stand["amphib"]["waded_turn"] = state.turn
        if ashore:
            stand.pop("amphib", None)
        out.append({"stand": stand["id"], "moved": round(math.dist(here, now), 4),
                    "at": [round(now[0], 4), round(now[1], 4)], "ashore": ashore,
                    "minefields": crossed, "blocked_by": blocked})  # fmt: skip
    return {
        "verdict": f'{len(out)} stand(s) wade {allowance:g}" toward the beach ({order} advance)',
        "order": order,
        "allowance": allowance,
        "stands": out,
    }


def _short_of_bases(
    ctx: RulesContext, stand: dict[str, Any], here: tuple[float, float], end: tuple[float, float]
) -> tuple[tuple[float, float], str | None]:
    """Where a wade from ``here`` toward ``end`` stops: before its base would overlap another
    stand's (bases may touch, not overlap, as 'place' says), and which stand stopped it."""
    from tabletop.core.units import TOLERANCE
    from tabletop.data.board import base_of
    from tabletop.state.document import in_play
    from tabletop.table import base_polygon
    from tabletop.table.sweep import sweep

    length = math.dist(here, end)
    if length <= 0:
        return end, None
    mine = base_polygon(base_of({**stand, "x": here[0], "y": here[1]}))
    stop, blocked = length, None
    for other in ctx.state.stands():
        if other["id"] == stand["id"] or other["x"] is None or not in_play(other):
            continue
        swept = sweep([here, end], mine, base_polygon(base_of(other)), TOLERANCE)
        # Bases already overlapping where the wade begins may part; only a new overlap stops it.
        first = next((a for a, _ in swept.overlapping if a > 1e-9), None)
        if first is not None and first < stop:
            stop, blocked = first, str(other["id"])
    if blocked is None:
        return end, None
    f = stop / length
    return (here[0] + (end[0] - here[0]) * f, here[1] + (end[1] - here[1]) * f), blocked


def _check_commander(
    ctx: RulesContext, chief: dict[str, Any], stands: list[dict[str, Any]]
) -> None:
    """Only a command stand ashore within orders reach may order a hasty wade (CD 8.1.4)."""
    from tabletop.rules.cd.sighting import distance_between, end_for_stand
    from tabletop.rules.cd.weather import effects

    ctx.involve(chief["id"])
    if not ctx.charts.stand_kinds[chief["kind"]].command:
        raise RulesRefusal(f"{chief['id']} is not a command stand: wading troops obey only "
                           "command stands, not staff orders (CD 8.1.4)")  # fmt: skip
    if chief["x"] is None or chief["status"] != "ok" or chief.get("amphib"):
        raise RulesRefusal(f"{chief['id']} is not ashore to give orders (CD 8.1.4)")
    if in_sea(ctx, float(chief["x"]), float(chief["y"])):
        raise RulesRefusal(f"{chief['id']} is in the water, not ashore (CD 8.1.4)")
    night = effects(ctx.state.conditions, ctx.charts).night
    reach = float(ctx.charts.param("weather", "orders-radius-night" if night else
                                   "orders-radius-day"))  # fmt: skip
    for stand in stands:
        if stand["side"] != chief["side"]:
            raise RulesRefusal(f"{chief['id']} cannot order {stand['id']}, another side's")
        gap = distance_between(
            end_for_stand(ctx.state, chief["id"]),
            end_for_stand(ctx.state, stand["id"]),
            ctx.scenario.measure,
        )
        if not within(gap, reach):
            raise RulesRefusal(f'{stand["id"]} is {gap:.1f}" from {chief["id"]}: orders reach '
                               f'{reach:g}" (CD 8.1.4, 9.1.5)')  # fmt: skip


# --- hits on the landing wave (CD 8.2) ---------------------------------------------------------


def _craft_effect(ctx: RulesContext, craft: dict[str, Any], purpose: str) -> str:
    from tabletop.rules.cd.airborne import stand_effect

    return stand_effect(ctx, craft, purpose)


def apply_craft_result(
    ctx: RulesContext,
    craft: dict[str, Any],
    effect: str,
    *,
    moving: bool = False,
    where: Any = None,
) -> dict[str, Any]:
    """What a forced-back or eliminated result does at each stage (CD 8.2.4, 8.2.5)."""
    am = craft["amphib"]
    stage = am["stage"]
    if effect == NO_EFFECT:
        return {"result": "no effect"}
    if effect == FORCED_BACK:
        craft["markers"] = [m for m in craft["markers"] if m != "forced-back"]
        if stage == "disembarked":
            craft["status"], craft["x"], craft["y"] = "removed", None, None
            return {"result": "removed from play: forced back after landing its troops (CD 8.2.4)"}
        if stage == "landed":
            craft["markers"].append("forced-back")
            return {"result": "forced back as any stand on land (CD 8.2.4)"}
        if moving or stage in ("beached", "afloat"):
            craft["x"], craft["y"] = am["approach"]
            am["stage"] = "approach"
            return {"result": "back to the approach position (CD 8.2.4)"}
        craft["x"], craft["y"] = None, None
        am.update(stage="off-table", off_turn=ctx.state.turn)
        return {"result": "forced off the table: back at the approach position next turn "
                "(CD 8.2.4)"}  # fmt: skip
    afloat = moving or stage in AFLOAT
    sunk_at = list(where) if where is not None else [craft["x"], craft["y"]]
    cargo = cargo_of(ctx, craft)
    craft["status"], craft["x"], craft["y"], craft["cargo"] = "eliminated", None, None, []
    am.update(stage="sunk", sunk_at=sunk_at)
    fates = {cid: _passenger(ctx, craft, ctx.state.stand(cid), sunk_at, afloat) for cid in cargo}
    lost = _lose_lift(ctx, craft, cargo) if afloat else 0
    return {"result": "eliminated: removed from play (CD 8.2.5)", "cargo": fates,
            "lift_lost": lost}  # fmt: skip


def _passenger(
    ctx: RulesContext, craft: dict[str, Any], stand: dict[str, Any], sunk_at: Any, afloat: bool
) -> str:
    """Vehicles and guns aboard go down; personnel take a hit (CD 8.2.5)."""
    from tabletop.rules.cd.airborne import stand_effect

    ctx.involve(stand["id"])
    stand.pop("aboard", None)
    if ctx.charts.stand_kinds[stand["kind"]].category != "personnel":
        stand["status"] = "eliminated"
        return "eliminated with its craft"
    effect = stand_effect(ctx, stand, f"{stand['id']} when {craft['id']} goes down")
    if effect == ELIMINATED:
        stand["status"] = "eliminated"
        return "eliminated"
    am = craft["amphib"]
    if not afloat:
        stand["x"], stand["y"] = sunk_at
        if effect == FORCED_BACK:
            stand["markers"].append("forced-back")
        return f"{effect}: left where {craft['id']} was"
    at = am["approach"] if effect == FORCED_BACK else sunk_at
    stand["x"], stand["y"] = at
    stand["amphib"] = {"stage": "wading", "beach": am["beach"]}
    stand["amphib"]["waded_turn"] = ctx.state.turn
    where = "the approach position" if effect == FORCED_BACK else "the water where it sank"
    return f"{effect}: wades ashore from {where} (CD 8.1.4)"


def hit_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A hit on a craft from any source: shore fire, aircraft, a mine, an obstacle (CD 8.2)."""
    craft, kind = craft_stand(ctx, inputs["stand"])
    stage = (craft.get("amphib") or {}).get("stage")
    if craft["status"] != "ok" or stage not in (*AFLOAT, "disembarked", "landed"):
        raise RulesRefusal(f"{craft['id']} is not on the table as part of a landing wave")
    cause = inputs.get("cause") or "fire"
    effect = inputs.get("effect") or _craft_effect(ctx, craft, f"{craft['id']} hit by {cause}")
    result = apply_craft_result(ctx, craft, effect, moving=bool(inputs.get("moving")))
    return {"verdict": f"{craft['id']} ({kind.id}, {stage}): {result['result']}",
            "craft": craft["id"], "stage": stage, "cause": cause, "effect": effect,
            **result}  # fmt: skip


def into_water_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A stand forced back into the water (CD 8.2.4)."""
    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    x, y = (float(v) for v in inputs["at"])
    if stand["status"] != "ok" or stand["x"] is None:
        raise RulesRefusal(f"{stand['id']} is not on the table")
    if not in_sea(ctx, x, y):
        raise BadInput(f"--at {x:g},{y:g} is not in the sea")
    kind = craft_type(ctx, stand)
    category = ctx.charts.stand_kinds[stand["kind"]].category
    if kind is not None and kind.lands == "drives-ashore":
        stand["x"], stand["y"] = x, y
        stand["amphib"] = {**(stand.get("amphib") or {}), "stage": "afloat"}
        result = "afloat: an amphibious vehicle swims"
    elif category != "personnel":
        stand["status"] = "eliminated"
        result = "eliminated: a vehicle that is not amphibious forced into the water (CD 8.2.4)"
    else:
        beach, _ = shore_frame(ctx, x, y)
        stand["x"], stand["y"] = x, y
        stand["amphib"] = {
            "stage": "wading",
            "beach": [round(beach[0], 4), round(beach[1], 4)],
            "waded_turn": ctx.state.turn,
        }
        result = "in the water: it must wade ashore again (CD 8.1.4, 8.2.4)"
    return {"verdict": f"{stand['id']} {result}", "stand": stand["id"], "result": result}


@on("end-phase", order=30)
def landing_wave_results(ctx: RulesContext) -> list[Happened]:
    """Craft eliminated or forced back by 'fire' or 'barrage' meet CD 8.2.4 and 8.2.5."""
    out: list[Happened] = []
    opportunity = ctx.state.phase == "opportunity-fire"
    for craft in ctx.state.stands():
        am = craft.get("amphib")
        if not am or _spec(ctx, craft["id"], "craft", None) is None:
            continue
        if am["stage"] in ("sunk", "off-table", "wading") or craft["status"] == "removed":
            continue
        # A craft that reached the beach this turn was under way during opportunity fire.
        moving = opportunity and am.get("landed_turn") == ctx.state.turn
        if craft["status"] == "eliminated":
            result = apply_craft_result(ctx, craft, ELIMINATED, moving=moving)
        elif "forced-back" in craft["markers"] and am["stage"] != "landed":
            result = apply_craft_result(ctx, craft, FORCED_BACK, moving=moving)
        else:
            continue
        out.append({"what": "landing wave", "stand": craft["id"], "result": result["result"]})
    return out


# --- naval gunfire (CD 8.4) ---------------------------------------------------------------


def bombard_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """One to three D10 at every enemy stand in the area, before the battle (CD 8.4.1)."""
    from shapely import Polygon, box

    from tabletop.data.board import base_of
    from tabletop.rules.cd.fire import Firer, hit_effect, plan_indirect
    from tabletop.rules.cd.sighting import target_cover
    from tabletop.rules.cd.stands import apply_effect, target_of
    from tabletop.rules.cd.weather import effects
    from tabletop.table import base_polygon

    state, charts = ctx.state, ctx.charts
    side = inputs["side"]
    side = resolve_side(side, ctx.scenario.side_names())
    if state.turn != ctx.scenario.turn.number or state.rows.get(BOMBARDED + side):
        raise RulesRefusal("the preliminary bombardment comes once, before the battle's first "
                           "turn is played (CD 8.4.1)")  # fmt: skip
    count = _bombard_dice(charts, inputs)
    points = [tuple(map(float, p)) for p in inputs["area"]]
    area = box(*points[0], *points[1]) if len(points) == 2 else Polygon(points)
    if not area.is_valid or area.area <= 0:
        raise BadInput("--area: give two opposite corners, or three or more corners of a polygon")
    weapon = charts.weapons[str(param(charts, "bombard-weapon"))]
    night = effects(state.conditions, charts).night
    results: dict[str, dict[str, Any]] = {}
    for stand in state.stands():
        if stand["side"] == side or stand["x"] is None or stand["status"] != "ok":
            continue
        if not base_polygon(base_of(stand)).intersects(area):
            continue
        ctx.involve(stand["id"])
        cover, source = target_cover(ctx, stand["x"], stand["y"], stand)
        plan = plan_indirect(weapon, Firer(None, None), target_of(stand, ctx, cover, source),
                             charts, night=night)  # fmt: skip
        rolls, effect_rolls, found = [], [], []
        for index in range(1, count + 1):
            roll = ctx.dice.roll(10, f"bombardment of {stand['id']} ({index} of {count}), "
                                 f"needs {plan.to_hit} or less")  # fmt: skip
            rolls.append(roll)
            if roll <= plan.to_hit or roll == 1:
                effect = ctx.dice.roll(10, f"hit effect on {stand['id']} ({plan.effect_quality})")
                effect_rolls.append(effect)
                found.append(hit_effect(effect, plan))
        worst = max(found, key=lambda e: SEVERITY[e]) if found else None
        apply_effect(stand, worst, state)
        results[stand["id"]] = {"to_hit": plan.to_hit, "rolls": rolls,
                                "effect_rolls": effect_rolls, "effects": found,
                                "modifiers": [m.as_json() for m in plan.modifiers]}  # fmt: skip
    state.rows[BOMBARDED + side] = {"side": side, "turn": state.turn, "dice": count}
    hit = [f"{s} ({max(r['effects'], key=lambda e: SEVERITY[e])})"
           for s, r in results.items() if r["effects"]]  # fmt: skip
    return {
        "verdict": f"bombardment, {count} D10 per stand: {len(results)} stand(s) in the area"
        + (f"; hits on {', '.join(hit)}" if hit else "; no hits"),
        "dice_per_stand": count,
        "weapon": weapon.id,
        "stands": results,
    }


def _bombard_dice(charts: Any, inputs: dict[str, Any]) -> int:
    most = int(param(charts, "bombard-dice-max"))
    if inputs.get("dice_per_stand") is not None:
        count = int(inputs["dice_per_stand"])
        if not 1 <= count <= most:
            raise BadInput(f"--per-stand {count}: give 1 to {most} dice (CD 8.4.1)")
        return count
    year = inputs.get("year")
    key = f"bombard-dice-{year}"
    if year is None or key not in charts.table("amphibious"):
        raise BadInput("give --per-stand 1-3, or --year 1943, 1944 or 1945 for the default")
    return int(param(charts, key))


def ship_weapon(ctx: RulesContext, ship: dict[str, Any]) -> Any:
    warships = names(ctx.charts, "warships")
    for weapon_id in ship["weapons"]:
        if weapon_id in warships:
            return ctx.charts.weapons[weapon_id]
    craft = _spec(ctx, ship["id"], "craft", None)
    hint = (
        f"it has 'craft: {craft}', but 'craft:' is for landing craft; " if craft in warships else ""
    )
    example = craft if craft in warships else "destroyer"
    raise RulesRefusal(
        f"{ship['id']} is not a fire support ship: {hint}a ship names its warship rating in "
        f"the scenario's 'weapons:', such as 'weapons: [{example}]' (one of "
        f"{', '.join(warships)}; CD 8.4.2)"
    )


def naval_fire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A request for a ship's fire and, if it comes, an indirect HE burst (CD 8.4.2, 8.4.3)."""
    from tabletop.rules.cd.ammo import check_fires_left
    from tabletop.rules.cd.barrage import barrage_action
    from tabletop.rules.cd.stands import check_phase as allows

    allows(ctx, "indirect-fire", "naval fire")
    ship = ctx.state.stand(inputs["ship"])
    ctx.involve(ship["id"])
    weapon = ship_weapon(ctx, ship)
    x, y = (float(v) for v in inputs["at"])
    if not ctx.table.on_table(x, y):
        raise BadInput(f"--at {x:g},{y:g} is off the table")
    observer = ctx.state.stand(inputs["observer"])
    # A ship that has fired this turn is refused before its request die is thrown.
    check_fires_left(ctx.state, ship, weapon, ctx.charts)
    request = _request(ctx, ship, weapon, observer, (x, y))
    if not request["answered"]:
        return {"verdict": f"{ship['id']} does not answer {observer['id']}'s request "
                f"({request['roll']} > {request['number']})", "request": request,
                "barrage": None}  # fmt: skip
    shot = barrage_action(
        ctx,
        {
            "shooter": ship["id"],
            "at": [x, y],
            "weapon": weapon.id,
            "ammo": "he",
            "hni": False,
            "mods": inputs.get("mods") or [],
        },
    )
    return {"verdict": shot["verdict"], "request": request, "barrage": shot}


def _request(
    ctx: RulesContext,
    ship: dict[str, Any],
    weapon: Any,
    observer: dict[str, Any],
    at: tuple[float, float],
) -> dict[str, Any]:
    """Who may observe, and the response roll (CD 8.4.3; numbers from SPEC 2)."""
    from tabletop.rules.cd.airborne import crew_class

    charts = ctx.charts
    if observer["id"] == ship["id"]:
        if weapon.id not in names(charts, "self-observing"):
            raise RulesRefusal(f"{ship['id']} ({weapon.id}) cannot observe its own fire: only "
                               "destroyers and smaller ships may (CD 8.4.3)")  # fmt: skip
        seen = _seen_from_beach(ctx, at)
        if seen is None:
            raise RulesRefusal(f"{at[0]:g},{at[1]:g} cannot be seen from any point along the "
                               f"beach: {ship['id']} cannot observe it (CD 8.4.3)")  # fmt: skip
        return {"observer": ship["id"], "as": "self-observing ship", "answered": True,
                "seen_from": seen, "roll": None, "number": None, "working": []}  # fmt: skip
    ctx.involve(observer["id"])
    if observer["side"] != ship["side"] or observer["status"] != "ok" or observer["x"] is None:
        raise RulesRefusal(f"{observer['id']} cannot observe for {ship['id']}")
    fo = _spec(ctx, observer["id"], "naval_fo", None)
    base = int(param(charts, "response-base"))
    working: list[dict[str, Any]] = [
        {"name": "supporting artillery (a ship)", "value": base, "rule": "SPEC 2"}
    ]
    if fo is not None:
        if fo != ship["id"]:
            raise RulesRefusal(f"{observer['id']} is {fo}'s naval FO: it calls only its own "
                               "ship (CD 8.4.3)")  # fmt: skip
        role = "naval FO of its own ship (dedicated battery)"
        working.append({"name": role, "value": int(param(charts, "response-dedicated")),
                        "rule": "CD 8.4.3"})  # fmt: skip
    elif _spec(ctx, observer["id"], "jasco", False):
        role = "JASCO (as an artillery command stand)"
    elif ctx.charts.stand_kinds[observer["kind"]].command:
        role = "non-artillery command stand"
        working.append({"name": role, "value": int(param(charts, "response-nonartillery")),
                        "rule": "CD 8.4.3"})  # fmt: skip
    else:
        raise RulesRefusal(f"{observer['id']} cannot request naval fire: only command stands, "
                           "naval FOs and JASCO stands may (CD 8.4.3)")  # fmt: skip
    kind = crew_class(charts, observer["quality"])
    if kind in ("plus", "minus"):
        working.append(
            {
                "name": f"{observer['quality']} requester",
                "value": int(param(charts, f"response-quality-{kind}")),
                "rule": "SPEC 2",
            }
        )
    if "suppressed" in observer["markers"]:
        working.append(
            {
                "name": "requester suppressed",
                "value": int(param(charts, "response-suppressed")),
                "rule": "SPEC 2",
            }
        )
    _observer_sees(ctx, observer, at)
    number = sum(int(w["value"]) for w in working)
    roll = ctx.dice.roll(10, f"naval fire request by {observer['id']}, needs {number} or less")
    return {"observer": observer["id"], "as": role, "answered": roll <= number, "roll": roll,
            "number": number, "working": working}  # fmt: skip


def _observer_sees(ctx: RulesContext, observer: dict[str, Any], at: tuple[float, float]) -> None:
    from tabletop.rules.cd.sighting import End, end_for_stand, sight

    seen = sight(ctx, end_for_stand(ctx.state, observer["id"]), End("target", *at))
    if not (seen.los and seen.visible):
        why = ", ".join(seen.blocked_by) or "beyond what can be seen now"
        raise RulesRefusal(f"{observer['id']} cannot see {at[0]:g},{at[1]:g} ({why}): it cannot "
                           "observe naval fire there (CD 8.4.3)")  # fmt: skip


def _seen_from_beach(ctx: RulesContext, at: tuple[float, float]) -> list[float] | None:
    """A point along the beach that sees the target, or None (CD 8.4.3)."""
    from tabletop.rules.cd.sighting import End, sight

    line = shoreline(ctx)
    step = float(param(ctx.charts, "beach-sight-step"))
    for part in getattr(line, "geoms", [line]):
        count = max(int(part.length // step), 1)
        for i in range(count + 1):
            p = part.interpolate(min(i * step, part.length))
            seen = sight(ctx, End("beach", p.x, p.y), End("target", *at))
            if seen.los and seen.visible:
                return [round(p.x, 3), round(p.y, 3)]
    return None


def ships(charts: Any) -> list[dict[str, Any]]:
    """The warship ratings (CD 8.4.2), from the weapons chart."""
    out = []
    for weapon_id in names(charts, "warships"):
        w = charts.weapons[weapon_id]
        out.append(
            {
                "ship": weapon_id,
                "name": w.name,
                "rof": w.rof,
                "burst": w.burst,
                "he": w.he,
                "self_observe": weapon_id in names(charts, "self-observing"),
            }
        )
    return out


def water_speed(ctx: RulesContext, stand: dict[str, Any], water: str | None) -> dict[str, Any]:
    """The fraction of base movement an amphibious vehicle has in water (CD 8.1.2)."""
    kind = craft_type(ctx, stand)
    if kind is None or kind.lands != "drives-ashore":
        raise RulesRefusal(f"{stand['id']} is not an amphibious vehicle: landing craft run in "
                           "to the beach in one turn (CD 8.1)")  # fmt: skip
    if water is None:
        if stand["x"] is None:
            raise BadInput(f"{stand['id']} is not on the table: say --in sea, river or lake")
        kinds = {p.kind for p in ctx.table.pieces_at(stand["x"], stand["y"])}
        sea_kinds = set(names(ctx.charts, "sea-kinds"))
        inland = set(names(ctx.charts, "inland-water-kinds"))
        water = next(iter(sorted(kinds & (sea_kinds | inland))), None)
        if water is None:
            return {"stand": stand["id"], "water": None, "multiplier": 1.0,
                    "because": "on land: its base movement allowance"}  # fmt: skip
    if water in names(ctx.charts, "sea-kinds"):
        fraction, where = kind.open_water, "open water"
    elif water in names(ctx.charts, "inland-water-kinds"):
        fraction, where = kind.inland_water, "rivers and lakes"
    else:
        raise BadInput(f"--in {water!r}: give a water kind (sea, river, lake, stream)")
    return {
        "stand": stand["id"],
        "water": water,
        "multiplier": fraction,
        "because": f"{kind.id} in {where}: {fraction:g} of its base allowance ({kind.rule})",
    }
