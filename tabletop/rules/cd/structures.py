"""Damage to bridges, fortifications and built-up areas; fires (CD 6).

Large aerial bombs and large guns firing HE at close or medium range roll once for the
structure: a vulnerable structure is damaged on a 1, a flimsy BUA on 1 or 2 (6.1.1, 6.1.2).
Demolition destroys a wired structure (6.1.3); flame sets a flimsy BUA alight (6.1.4). A
damaged fortification counts as an entrenchment and a second damage destroys it; a damaged
BUA is rubble (strong: medium cover, flimsy: light) and a flimsy one burns, forcing its
occupants back, barring entry and trailing smoke downwind, until it goes out on a 1-3 at the
start of a turn (6.2).
"""

from __future__ import annotations

import re
from typing import Any

from shapely.geometry import Point, Polygon

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.data.board import base_of
from tabletop.data.chart_params import StructuresParams
from tabletop.data.charts import Charts
from tabletop.rules.cd import terrain_state
from tabletop.rules.cd.ammo import note_fired
from tabletop.rules.cd.compass import wind_bearing
from tabletop.rules.cd.fire import hit_effect
from tabletop.rules.cd.stands import (
    apply_effect,
    check_phase,
    check_ready,
    choose_weapon,
    effect_plan,
)
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, in_play, position
from tabletop.table import base_polygon, strip

CAUSES = ("bomb", "direct-he", "demolition", "flame")


def occupants(ctx: RulesContext, piece_id: str) -> list[StandRow]:
    shape = structure_shape(ctx, piece_id)
    return [
        s
        for s in ctx.state.stands()
        if s["x"] is not None
        and in_play(s)
        and base_polygon(base_of(s)).intersects(shape)
        and base_polygon(base_of(s)).intersection(shape).area > 1e-6
    ]


def damage_roll(ctx: RulesContext, piece_id: str, kind: str, why: str) -> tuple[int, bool]:
    """CD 6.1.1 / 6.1.2: one die for the structure, in addition to any to-hit dice."""
    charts = ctx.charts
    flimsy = kind == "bua-flimsy"
    params = charts.params(StructuresParams)
    up_to = params.flimsy_damaged_up_to if flimsy else params.vulnerable_damaged_up_to
    roll = ctx.dice.roll(10, f"structure damage to {piece_id} ({why}): damaged on {up_to} or less")
    return roll, roll <= up_to


def apply_damage(
    ctx: RulesContext, piece_id: str, *, destroy: bool = False, flame: bool = False
) -> list[str]:
    """Damage (or destroy) a structure and apply what follows to it and its occupants."""

    row = terrain_state.row(ctx.state, piece_id, ctx.scenario)
    out: list[str] = []
    if row.get("built") and row["kind"] == "bridge":
        # A bridge built in play (CD 2.4.3, 2.4.5): damaged is unusable until repaired.
        row["state"] = "destroyed" if destroy else "damaged"
        row["damage"] += 1
        return [f"{piece_id} {row['state']} (CD 6.2.3, 2.4.1)"]
    piece = ctx.scenario.piece(piece_id) if not row.get("built") else None
    kind = piece.kind if piece is not None else str(row["kind"])
    inside = occupants(ctx, piece_id)
    if kind == "bridge":
        row["state"] = "destroyed" if destroy else "damaged"
        row["damage"] += 1
        return [f"{piece_id} {row['state']} (CD 6.2.3, 2.4.1)"]
    if kind == "fortification":
        row["damage"] += 1
        limit = ctx.charts.params(StructuresParams).fortification_hits_to_destroy
        row["state"] = "destroyed" if destroy or row["damage"] >= limit else "damaged"
        now = (
            "destroyed"
            if row["state"] == "destroyed"
            else "damaged: now an entrenchment (hard cover)"
        )
        out.append(f"{piece_id} {now} (CD 6.2.1)")
    else:
        row["state"] = "rubble"
        row["damage"] += 1
        cover = "light" if kind == "bua-flimsy" else "medium"
        out.append(f"{piece_id} reduced to rubble: {cover} cover (CD 6.2.2)")
        if kind == "bua-flimsy" or flame:
            out.extend(set_alight(ctx, piece_id))
    for stand in inside:
        # CD 6.2.1, 6.2.2: occupants take one automatic hit.
        effect = automatic_hit(ctx, stand)
        out.append(f"{stand['id']} inside takes a hit: {effect}")
    if kind == "bua-flimsy":
        for stand in inside:
            if in_play(stand):
                burning = ctx.table.geometry(piece_id).centroid
                apply_effect(
                    stand, "forced back", ctx.state, (burning.x, burning.y), ctx, "the fire"
                )
                out.append(f"{stand['id']} forced back by the fire (CD 6.2.2)")
    return out


def automatic_hit(ctx: RulesContext, stand: StandRow) -> str:
    plan = effect_plan(ctx, stand)
    roll = ctx.dice.roll(10, f"hit effect on {stand['id']} ({plan.effect_quality})")
    effect = hit_effect(roll, plan)
    apply_effect(stand, effect, ctx.state, None, ctx)
    stand["fired_at"] = ctx.state.turn
    return f"{effect} (rolled {roll})"


def set_alight(ctx: RulesContext, piece_id: str) -> list[str]:
    row = terrain_state.row(ctx.state, piece_id, ctx.scenario)
    row["state"] = "burning"
    shape = ctx.table.geometry(piece_id)
    centre = shape.representative_point()
    length = ctx.charts.params(StructuresParams).fire_smoke_length
    width = ctx.charts.params(StructuresParams).fire_smoke_width
    smoke = strip(centre.x, centre.y, wind_bearing(ctx.state.conditions), width, length)
    ctx.state.add_template(
        {
            "id": f"fire-smoke-{piece_id}",
            "kind": "smoke",
            "by": piece_id,
            "turn": ctx.state.turn,
            "lifetime": "fire",
            "blocks_sight": True,
            "polygon": [list(p) for p in smoke.exterior.coords],
        }
    )
    return [f"{piece_id} burns: no stand may enter it; smoke drifts downwind (CD 6.2.2)"]


def fires_out(ctx: RulesContext) -> list[dict[str, Any]]:
    """Start of turn: each burning BUA goes out on a 1-3 (CD 6.2.2)."""
    happened = []
    up_to = ctx.charts.params(StructuresParams).fire_out_up_to
    for row in [v for k, v in sorted(ctx.state.rows.items()) if k.startswith("terrain:")]:
        if row["state"] != "burning":
            continue
        roll = ctx.dice.roll(10, f"fire in {row['id']}: out on {up_to} or less")
        if roll <= up_to:
            row["state"] = "rubble"
            ctx.state.remove_template(f"fire-smoke-{row['id']}")
            result = f"the fire goes out (rolled {roll}); smoke removed (CD 6.2.2)"
        else:
            result = f"still burning (rolled {roll})"
        happened.append({"what": "fire", "rolls": [roll], "result": f"{row['id']}: {result}"})
    return happened


def damageable(ctx: RulesContext, piece_id: str, cause: str) -> tuple[Any, dict[str, Any]]:
    """The scenario piece and its state row, when ``cause`` may damage it (CD 6.1)."""
    if cause not in CAUSES:
        raise BadInput(f"--cause {cause!r}: accepted: {', '.join(CAUSES)}")
    try:
        piece = ctx.scenario.piece(piece_id)
    except KeyError:
        raise terrain_state.not_a_scenario_piece(
            ctx.state, piece_id, ctx.scenario, "'structure bomb' or 'structure fire' damage it"
        ) from None
    if piece.kind not in terrain_state.STRUCTURES:
        raise BadInput(
            f"{piece_id} is {piece.kind}: only bridges, fortifications and BUA "
            "sectors take damage (CD 6.1)"
        )
    row = terrain_state.row(ctx.state, piece_id, ctx.scenario)
    if row["state"] == "destroyed":
        raise RulesRefusal(f"{piece_id} is already destroyed (CD 6.1)")
    return piece, row


def damage_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """Damage by a bomb, a large gun or flame (a demolition is the engineers', through
    ``rules/cd/damage.py``)."""
    piece_id, cause = inputs["target"], inputs["cause"]
    piece, row = damageable(ctx, piece_id, cause)
    if cause == "flame":
        if piece.kind != "bua-flimsy":
            raise RulesRefusal(
                f"flame sets only flimsy BUA alight; {piece_id} is {piece.kind} (CD 6.1.4)"
            )
        effects = apply_damage(ctx, piece_id, flame=True)
        return {
            "verdict": f"{piece_id} set alight by flame (CD 6.1.4, 6.2.2)",
            "damaged": True,
            "rolls": [],
            "effects": effects,
        }
    if row["state"] in ("rubble", "burning") and piece.kind != "fortification":
        raise RulesRefusal(f"{piece_id} is already {row['state']}")
    why = "large aerial bomb" if cause == "bomb" else "large-calibre direct HE"
    roll, damaged = damage_roll(ctx, piece_id, piece.kind, why)
    effects = apply_damage(ctx, piece_id) if damaged else []
    return {
        "verdict": f"{piece_id} {'damaged' if damaged else 'holds'} (rolled {roll}; "
        f"{'CD 6.1.1' if cause == 'bomb' else 'CD 6.1.2'})",
        "damaged": damaged,
        "rolls": [roll],
        "effects": effects,
    }


AIRCRAFT = ("dive", "medium", "heavy", "fighter", "attack")
LARGE_BOMBERS = ("dive", "medium", "heavy")


def structure_shape(ctx: RulesContext, piece_id: str) -> Any:
    """A structure's area: the scenario's piece, or a built bridge's deck."""

    row = ctx.state.rows.get(terrain_state.TERRAIN + piece_id) or {}
    if row.get("built"):
        return Polygon(row["polygon"])
    return ctx.table.geometry(piece_id)


def structures_in(ctx: RulesContext, area: Any) -> list[tuple[str, str]]:
    """(id, kind) of every structure still standing that ``area`` touches (CD 6.1)."""
    found = []
    for key, row in sorted(ctx.state.rows.items()):
        if not key.startswith(terrain_state.TERRAIN) or row.get("kind") not in STRUCTURE_KINDS:
            continue
        if row["state"] == "destroyed":
            continue
        if row["state"] in ("rubble", "burning") and row["kind"] != "fortification":
            continue  # already rubble: nothing more to bring down (CD 6.2.2)
        shape = structure_shape(ctx, row["id"])
        if shape.intersects(area) and shape.intersection(area).area > 1e-9:
            found.append((row["id"], row["kind"]))
    return found


STRUCTURE_KINDS = terrain_state.STRUCTURES


def bomb_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A large aerial bomb's burst over structures: one die for all of them (CD 6.1.1).

    A 1 damages every vulnerable structure in the burst, a 1 or 2 every flimsy BUA. The
    burst's size is the referee's (the air rules give it): ``radius`` inches.
    """

    aircraft = inputs["aircraft"]
    if aircraft not in AIRCRAFT:
        raise BadInput(f"--aircraft {aircraft!r}: accepted: {', '.join(AIRCRAFT)}")
    x, y = (float(v) for v in inputs["at"])
    radius = float(inputs["radius"])
    table = ctx.scenario.table
    if not (0 <= x <= table.width and 0 <= y <= table.depth):
        raise BadInput(f"{x:g},{y:g} is off the {table.width:g} x {table.depth:g} table")
    if not radius > 0:
        raise BadInput(f"--radius {radius:g}: give the burst's radius in inches, more than 0")
    check_phase(ctx, "air", "an air strike")
    if aircraft not in LARGE_BOMBERS:
        raise RulesRefusal(
            f"{aircraft} aircraft carry smaller bombs: only dive, medium and heavy bombers' "
            "large bombs roll against structures (CD 6.1, 6.1.1 design note)"
        )
    hit = structures_in(ctx, Point(x, y).buffer(radius))
    if not hit:
        raise RulesRefusal(
            f'no vulnerable structure within the {radius:g}" burst at {x:g},{y:g}: no '
            "structure roll (CD 6.1.1)"
        )
    charts = ctx.charts
    vulnerable = charts.params(StructuresParams).vulnerable_damaged_up_to
    flimsy = charts.params(StructuresParams).flimsy_damaged_up_to
    roll = ctx.dice.roll(
        10,
        f"large aerial bomb at {x:g},{y:g} on {', '.join(i for i, _ in hit)}: vulnerable "
        f"damaged on {vulnerable} or less, flimsy BUA on {flimsy} or less",
    )
    results: dict[str, str] = {}
    effects: list[str] = []
    for piece_id, kind in hit:
        damaged = roll <= (flimsy if kind == "bua-flimsy" else vulnerable)
        results[piece_id] = "damaged" if damaged else "holds"
        if damaged:
            effects.extend(apply_damage(ctx, piece_id))
    told = ", ".join(f"{i} {r}" for i, r in results.items())
    return {
        "verdict": f"bomb rolled {roll}: {told} (CD 6.1.1)",
        "rolls": [roll],
        "structures": results,
        "effects": effects,
    }


def large_calibre_refusal(weapon: Any, band: str | None, ammo: str, charts: Charts) -> str | None:
    """Why a shot cannot damage a structure, or None: HE from a gun of 150 mm or more at close
    or medium range (CD 6.1, 6.1.2)."""
    least = charts.params(StructuresParams).large_calibre_mm
    bands = charts.params(StructuresParams).large_calibre_bands.split(",")
    if (weapon.calibre_mm or 0) < least:
        calibre = f"{weapon.calibre_mm:g} mm" if weapon.calibre_mm else "no calibre"
        return f"{weapon.id} is {calibre}: only guns of {least:g} mm or more damage structures"
    if band not in bands:
        where = f"at {band} range" if band else "out of range"
        return f"{weapon.id} is {where}: large guns damage structures at {' or '.join(bands)} range"
    if ammo != "standard" or weapon.he is None or weapon.ap_only:
        return f"{weapon.id} fires no HE here: structures are damaged by HE fire"
    return None


def direct_fire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A large gun fires directly at a structure itself (empty or not): one die (CD 6.1.2)."""

    state, charts = ctx.state, ctx.charts
    piece_id = inputs["target"]
    row = terrain_state.row(state, piece_id, ctx.scenario)
    if row["kind"] not in STRUCTURE_KINDS:
        raise BadInput(
            f"{piece_id} is {row['kind']}: only bridges, fortifications and BUA sectors take "
            "damage (CD 6.1)"
        )
    shooter = state.stand(inputs["by"])
    ctx.involve(shooter["id"])
    weapon_id = choose_weapon(shooter, inputs.get("weapon"), charts)
    check_phase(ctx, "direct-fire", "direct fire at a structure")
    if shooter["status"] != "ok":
        raise RulesRefusal(f"{shooter['id']} is {shooter['status']} and cannot fire")
    if shooter["x"] is None:
        raise BadInput(f"{shooter['id']} is not placed on the table")
    weapon = charts.weapons[weapon_id]
    if weapon.indirect_only:
        raise RulesRefusal(f"{weapon.id} fires only indirect: no direct fire (CD 6.1.2)")
    if row["state"] == "destroyed":
        raise RulesRefusal(f"{piece_id} is already destroyed (CD 6.1)")
    if row["state"] in ("rubble", "burning") and row["kind"] != "fortification":
        raise RulesRefusal(f"{piece_id} is already {row['state']}")
    distance = float(base_polygon(base_of(shooter)).distance(structure_shape(ctx, piece_id)))
    band = weapon.band(distance)
    refusal = large_calibre_refusal(weapon, band, "standard", charts)
    if refusal is not None:
        raise RulesRefusal(f'{refusal} ({distance:.1f}" to {piece_id}; CD 6.1.2)')
    check_ready(state, shooter, weapon, "standard", charts, False)
    roll, damaged = damage_roll(ctx, piece_id, row["kind"], f"{weapon.id} direct HE")
    effects = apply_damage(ctx, piece_id) if damaged else []
    note_fired(state, shooter, weapon, f"fire at {piece_id}")
    shooter["fired"] = {
        "turn": state.turn,
        "phase": state.phase,
        "weapon": weapon.id,
        "x": shooter["x"],
        "y": shooter["y"],
    }
    return {
        "verdict": f"{shooter['id']} fires {weapon.id} at {piece_id} "
        f'({distance:.1f}", {band}): '
        f"{'damaged' if damaged else 'holds'} (rolled {roll}; CD 6.1.2)",
        "damaged": damaged,
        "rolls": [roll],
        "band": band,
        "effects": effects,
    }


_ROLLED = re.compile(r" \(rolled \d+\)")


def fire_outcome(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What tells one direct shot at a structure from another, for its odds: whether it was
    damaged and what that did, not the faces that did it (an occupant "eliminated (rolled
    9)" and "(rolled 10)" are one outcome)."""
    effects = [_ROLLED.sub("", e) for e in result["effects"]]
    damaged = bool(result["damaged"])
    if not damaged:
        return "holds", {"damaged": False}
    return "damaged: " + "; ".join(effects) if effects else "damaged", {"damaged": True}


def after_direct_fire(
    ctx: RulesContext, weapon: Any, band: str | None, target: StandRow, ammo: str
) -> list[str]:
    """Structure consequences of a direct shot at a stand in a structure (CD 6.1.2, 6.1.4)."""
    if target["x"] is None:
        return []
    out: list[str] = []
    for piece in ctx.table.pieces_at(*position(target)):
        row = ctx.state.rows.get(terrain_state.TERRAIN + piece.id)
        if (
            row is None
            or piece.kind not in terrain_state.STRUCTURES
            or row["state"] in ("destroyed", "burning")
        ):
            continue
        if weapon.flame is not None and piece.kind == "bua-flimsy":
            out.extend(apply_damage(ctx, piece.id, flame=True))
            continue
        if large_calibre_refusal(weapon, band, ammo, ctx.charts) is None and (
            row["state"] != "rubble"
        ):
            roll, damaged = damage_roll(ctx, piece.id, piece.kind, "large-calibre direct HE")
            out.append(
                f"{piece.id}: structure roll {roll}: {'damaged' if damaged else 'holds'} (CD 6.1.2)"
            )
            if damaged:
                out.extend(apply_damage(ctx, piece.id))
    return out
