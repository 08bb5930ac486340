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

from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.rules.cd import terrain_state
from tabletop.state.document import in_play

CAUSES = ("bomb", "direct-he", "demolition", "flame")


def occupants(ctx: Any, piece_id: str) -> list[dict[str, Any]]:
    from tabletop.data.board import base_of
    from tabletop.table import base_polygon

    shape = ctx.table.geometry(piece_id)
    return [
        s
        for s in ctx.state.stands()
        if s["x"] is not None
        and in_play(s)
        and base_polygon(base_of(s)).intersects(shape)
        and base_polygon(base_of(s)).intersection(shape).area > 1e-6
    ]


def damage_roll(ctx: Any, piece_id: str, kind: str, why: str) -> tuple[int, bool]:
    """CD 6.1.1 / 6.1.2: one die for the structure, in addition to any to-hit dice."""
    charts = ctx.charts
    flimsy = kind == "bua-flimsy"
    up_to = int(
        charts.param("structures", "flimsy-damaged-up-to" if flimsy else "vulnerable-damaged-up-to")
    )
    roll = ctx.dice.roll(10, f"structure damage to {piece_id} ({why}): damaged on {up_to} or less")
    return roll, roll <= up_to


def apply_damage(
    ctx: Any, piece_id: str, *, destroy: bool = False, flame: bool = False
) -> list[str]:
    """Damage (or destroy) a structure and apply what follows to it and its occupants."""
    from tabletop.rules.cd.direct import apply_effect

    piece = ctx.scenario.piece(piece_id)
    row = terrain_state.row(ctx.state, piece_id, ctx.scenario)
    inside = occupants(ctx, piece_id)
    out: list[str] = []
    if piece.kind == "bridge":
        row["state"] = "destroyed" if destroy else "damaged"
        row["damage"] += 1
        return [f"{piece_id} {row['state']} (CD 6.2.3, 2.4.1)"]
    if piece.kind == "fortification":
        row["damage"] += 1
        limit = int(ctx.charts.param("structures", "fortification-hits-to-destroy"))
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
        cover = "light" if piece.kind == "bua-flimsy" else "medium"
        out.append(f"{piece_id} reduced to rubble: {cover} cover (CD 6.2.2)")
        if piece.kind == "bua-flimsy" or flame:
            out.extend(set_alight(ctx, piece_id))
    for stand in inside:
        # CD 6.2.1, 6.2.2: occupants take one automatic hit.
        effect = automatic_hit(ctx, stand)
        out.append(f"{stand['id']} inside takes a hit: {effect}")
    if piece.kind == "bua-flimsy":
        for stand in inside:
            if in_play(stand):
                apply_effect(stand, "forced back")
                out.append(f"{stand['id']} forced back by the fire (CD 6.2.2)")
    return out


def automatic_hit(ctx: Any, stand: dict[str, Any]) -> str:
    from tabletop.rules.cd.direct import apply_effect
    from tabletop.rules.cd.fire import hit_effect
    from tabletop.rules.cd.minefields import _effect_plan

    plan = _effect_plan(ctx, stand)
    roll = ctx.dice.roll(10, f"hit effect on {stand['id']} ({plan.effect_quality})")
    effect = hit_effect(roll, plan)
    apply_effect(stand, effect)
    stand["fired_at"] = ctx.state.turn
    return f"{effect} (rolled {roll})"


def set_alight(ctx: Any, piece_id: str) -> list[str]:
    from tabletop.rules.cd.barrage import wind_bearing
    from tabletop.table import strip

    row = terrain_state.row(ctx.state, piece_id, ctx.scenario)
    row["state"] = "burning"
    shape = ctx.table.geometry(piece_id)
    centre = shape.representative_point()
    length = float(ctx.charts.param("structures", "fire-smoke-length"))
    width = float(ctx.charts.param("structures", "fire-smoke-width"))
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


def fires_out(ctx: Any) -> list[dict[str, Any]]:
    """Start of turn: each burning BUA goes out on a 1-3 (CD 6.2.2)."""
    happened = []
    up_to = int(ctx.charts.param("structures", "fire-out-up-to"))
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


def damage_action(ctx: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    piece_id, cause = inputs["target"], inputs["cause"]
    if cause not in CAUSES:
        raise BadInput(f"--cause {cause!r}: accepted: {', '.join(CAUSES)}")
    try:
        piece = ctx.scenario.piece(piece_id)
    except KeyError:
        terrain_state.row(ctx.state, piece_id, ctx.scenario)
        raise
    if piece.kind not in terrain_state.STRUCTURES:
        raise BadInput(
            f"{piece_id} is {piece.kind}: only bridges, fortifications and BUA "
            "sectors take damage (CD 6.1)"
        )
    row = terrain_state.row(ctx.state, piece_id, ctx.scenario)
    if row["state"] == "destroyed":
        raise RulesRefusal(f"{piece_id} is already destroyed")
    if cause == "demolition":
        from tabletop.rules.cd.engineering import demolish_action

        if not inputs.get("by"):
            raise BadInput("demolition needs the engineer: --by STAND")
        return demolish_action(ctx, {"target": piece_id, "by": inputs["by"]})
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


def after_direct_fire(
    ctx: Any, weapon: Any, band: str | None, target: dict[str, Any], ammo: str
) -> list[str]:
    """Structure consequences of a direct shot at a stand in a structure (CD 6.1.2, 6.1.4)."""
    if target["x"] is None:
        return []
    out: list[str] = []
    for piece in ctx.table.pieces_at(target["x"], target["y"]):
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
        large = (weapon.calibre_mm or 0) >= float(
            ctx.charts.param("structures", "large-calibre-mm")
        )
        bands = str(ctx.charts.param("structures", "large-calibre-bands")).split(",")
        if large and band in bands and ammo == "standard" and row["state"] != "rubble":
            roll, damaged = damage_roll(ctx, piece.id, piece.kind, "large-calibre direct HE")
            out.append(
                f"{piece.id}: structure roll {roll}: {'damaged' if damaged else 'holds'} (CD 6.1.2)"
            )
            if damaged:
                out.extend(apply_damage(ctx, piece.id))
    return out
