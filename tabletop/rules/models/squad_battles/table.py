"""What the table decides for squad-battles fire in table mode: the stands' recorded model
state, terrain and fortification under the target, concealment, smoke, elevation, the
vehicle's aspect, a friendly vehicle in the hex, and the stands near the target for the
explosion radius and length (measured on the table, in hexes of the chart's scale)."""

from __future__ import annotations

import math
from typing import Any

from shapely import Point, Polygon

from tabletop.data.board import base_of
from tabletop.rules.cd.sighting import activity
from tabletop.rules.context import RulesContext
from tabletop.rules.models.squad_battles.tables import Profile, Tables
from tabletop.state.document import StandRow, centre
from tabletop.table import distance

NEAR_HEXES = 10  # stands further from the target than this are never under a blast


def profile_of(ctx: RulesContext, tables: Tables, name: str, stand_id: str) -> Profile | None:
    key = ctx.scenario.stand_spec(stand_id).profiles.get(name)
    return tables.profiles.get(key) if key else None


def situation(
    ctx: RulesContext,
    tables: Tables,
    name: str,
    shooter: StandRow,
    target: StandRow,
    sight: Any,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    _recorded(out, shooter, target, name)
    for stand, option in ((shooter, "shooter_men"), (target, "target_men")):
        men = scenario_men(ctx, tables, name, stand)
        if option not in out and men is not None:
            out[option] = men
    target_p = profile_of(ctx, tables, name, target["id"])
    infantry = target_p is not None and target_p.kind in ("team", "leader")
    terrain = _terrain(ctx, tables, target)
    out.update(terrain["options"])
    out["los"] = bool(sight.los)
    out["elevation"] = round(sight.level_b - sight.level_a)
    if infantry:
        out["concealed"] = _concealed(ctx, tables, target, terrain["height_m"], out)
        out["with_vehicle"] = _with_vehicle(ctx, tables, name, target)
    elif target_p is not None and target_p.kind == "vehicle":
        out["aspect"] = aspect(sight.bearing, float(target.get("facing") or 0))
    smoke_from, smoke_into = _in_smoke(ctx, shooter), _in_smoke(ctx, target)
    if smoke_from:
        out["smoke_from"] = True
    if smoke_into:
        out["smoke_into"] = True
    hexside = _hexside(tables, sight, target)
    if hexside:
        out["hexside"] = hexside
    out["_near"] = near_stands(ctx, tables, shooter, target)
    return out


def scenario_men(ctx: RulesContext, tables: Tables, name: str, stand: StandRow) -> int | None:
    """A team's men at the start: the scenario's ``strength``; None for the profile's men.
    A leader is one man and a vehicle one vehicle, so it applies to teams only."""
    spec = ctx.scenario.stand_spec(stand["id"])
    profile = profile_of(ctx, tables, name, stand["id"])
    if spec.strength is None or profile is None or profile.kind != "team":
        return None
    return int(spec.strength)


def _recorded(out: dict[str, Any], shooter: StandRow, target: StandRow, name: str) -> None:
    mine = (shooter.get("models") or {}).get(name) or {}
    theirs = (target.get("models") or {}).get(name) or {}
    for key, option in (
        ("effectiveness", "effectiveness"),
        ("state", "firer_state"),
        ("men", "shooter_men"),
    ):
        if key in mine:
            out[option] = mine[key]
    for key, option in (
        ("men", "target_men"),
        ("effectiveness", "target_effectiveness"),
        ("state", "target_state"),
        ("ground", "ground"),
        ("immobile", "immobile"),
    ):
        if key in theirs:
            out[option] = theirs[key]


def _terrain(ctx: RulesContext, tables: Tables, target: StandRow) -> dict[str, Any]:
    options: dict[str, Any] = {}
    best, best_p, height = "open", -1.0, 0.0
    terrain = tables.by_table["terrain"]
    for piece in ctx.table.pieces_at(*centre(target)):
        entry = terrain.get(piece.kind)
        if entry is None:
            continue
        height = max(height, entry.height_m)
        if entry.protection > best_p:
            best, best_p = piece.kind, entry.protection
        if entry.fortification:
            options["fortification"] = entry.fortification
            owner = ctx.scenario.piece(piece.id).owner
            if owner is not None:
                options["owner"] = "own" if owner == target["side"] else "enemy"
        if entry.crater:
            options["crater"] = True
        if entry.feature:
            options["feature"] = entry.feature
    if best in terrain:
        options["terrain"] = best
    return {"options": options, "height_m": height}


def _concealed(
    ctx: RulesContext, tables: Tables, target: StandRow, height: float, out: dict[str, Any]
) -> bool:
    """SB Concealment: idle infantry in terrain 2 m tall, or 1 m tall when on the ground."""

    if activity(target, ctx.state) != "stationary":
        return False
    if height >= float(tables.param("concealment-height-m")):
        return True
    return bool(height >= float(tables.param("concealment-ground-height-m")) and out.get("ground"))


def aspect(bearing_to_target: float, facing: float) -> str:
    """Which hexside of a vehicle the fire enters: front within 30 degrees of its facing,
    rear within 30 of its back, sides between. On a boundary the worse side counts."""
    from_target = (bearing_to_target + 180) % 360
    off = abs((from_target - facing + 180) % 360 - 180)
    if off < 30:
        return "front"
    if off < 150:
        return "side"
    return "rear"


def _with_vehicle(ctx: RulesContext, tables: Tables, name: str, target: StandRow) -> bool:
    share = tables.scale.inches_per_hex / 2
    for other in ctx.state.stands():
        if other["id"] == target["id"] or other["side"] != target["side"]:
            continue
        if other["x"] is None or other["status"] == "eliminated":
            continue
        p = profile_of(ctx, tables, name, other["id"])
        if p is None or p.kind != "vehicle":
            continue
        if float(distance(base_of(other), base_of(target), "edge")) < share:
            return True
    return False


def _in_smoke(ctx: RulesContext, stand: StandRow) -> bool:
    if stand["x"] is None:
        return False
    here = Point(*centre(stand))
    return any(
        t.get("blocks_sight") and Polygon(t["polygon"]).covers(here) for t in ctx.state.templates()
    )


def _hexside(tables: Tables, sight: Any, target: StandRow) -> str | None:
    """A hexside feature the fire crosses within a hex of the target (chart ``cd_kinds``)."""
    kinds = {
        kind: key
        for key, entry in tables.by_table["hexside"].items()
        if not entry.occupied
        for kind in entry.cd_kinds
    }
    reach = tables.scale.inches_per_hex
    tx, ty = centre(target)
    for c in sight.crossings:
        key = kinds.get(c["kind"])
        if key and math.dist(c["exit"], (tx, ty)) <= reach:
            return key
    return None


def near_stands(
    ctx: RulesContext, tables: Tables, shooter: StandRow, target: StandRow
) -> list[dict[str, Any]]:
    """Stands near the target: hexes from it, and hexes along the strike direction (the
    line from the shooter through the target) when within half a hex of that line."""

    iph = tables.scale.inches_per_hex
    tx, ty = centre(target)
    dx, dy = tx - centre(shooter)[0], ty - centre(shooter)[1]
    norm = math.hypot(dx, dy) or 1.0
    ux, uy = dx / norm, dy / norm
    out = []
    for other in ctx.state.stands():
        if other["id"] == target["id"] or other["x"] is None or other["status"] == "eliminated":
            continue
        gap = float(distance(base_of(other), base_of(target), ctx.scenario.measure))
        hexes = round(gap / iph + 1e-9)
        if hexes > NEAR_HEXES:
            continue
        ox, oy = centre(other)[0] - tx, centre(other)[1] - ty
        along = ox * ux + oy * uy
        across = abs(-ox * uy + oy * ux)
        entry: dict[str, Any] = {"stand": other["id"], "hexes": hexes}
        if along > 0 and across <= iph / 2:
            entry["along"] = max(1, round(along / iph + 1e-9))
        out.append(entry)
    return out
