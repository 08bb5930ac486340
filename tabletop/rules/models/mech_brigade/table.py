"""What the table decides for mech-brigade fire (table mode), as fire options.

Our mapping of a tabletop onto Mech Brigade's squares (the seed has no table):

- the target's square is the terrain under the target's centre, read through the chart's
  ``table_kinds`` (town over woods over entrenchment over broken over clear);
- woods and towns crossed by the line of fire count one square per 4" inside them (at least
  one), unless the piece also covers the firer or the target (their own squares never add
  blocking points, MB 7.3 (7));
- every smoke template crossed adds its ``level`` (artillery smoke, 3, when it has none);
- a target that moved this turn is moving at its SP rating;
- the front armour faces the firer when the firer lies within 45 degrees of the target's
  facing (the front 90 degrees, MB 7.3 KILLS (1)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tabletop.rules.models.mech_brigade.data import Tables

if TYPE_CHECKING:
    from tabletop.rules.models.mech_brigade import MechBrigade

# Which terrain decides the target's square when pieces overlap.
PRECEDENCE = ("town", "woods", "entrenchment", "broken", "clear")
FRONT_ARC = 45.0


def situation(
    model: MechBrigade, ctx: Any, shooter: dict[str, Any], target: dict[str, Any], sight: Any
) -> dict[str, Any]:
    from tabletop.rules.models.mech_brigade import TABLE_KEY

    t = model.tables
    options: dict[str, Any] = {}
    cover = square_terrain(t, ctx, float(target["x"]), float(target["y"]))
    if cover != "clear":
        options["cover"] = cover
    ends = _pieces_at(ctx, shooter) | _pieces_at(ctx, target)
    woods, towns, smoke = crossed(t, ctx, sight, ends)
    for key, value in (("woods", woods), ("towns", towns), ("smoke", smoke)):
        if value:
            options[key] = value
    profile = t.profile(ctx.scenario.stand_spec(target["id"]).profiles[model.name])
    if target.get("moved_turn") == ctx.state.turn and profile.sp:
        options["target_speed"] = profile.sp
    if not is_front(float(target.get("facing") or 0.0), float(sight.bearing)):
        options["aspect"] = "back"
    record = (target.get("models") or {}).get(model.name) or {}
    now = {"turn": ctx.state.turn, "phase": ctx.state.phase}
    if record.get("turn") == now["turn"] and record.get("phase") == now["phase"]:
        # MB 7.6: attacks in the same pulse add up; a later phase or turn starts afresh.
        options["target_suppression"] = int(record.get("suppression") or 0)
    if record.get("left") is not None:
        options["strength"] = int(record["left"])
    options[TABLE_KEY] = {**now, "killed": int(record.get("killed") or 0)}
    return options


def square_terrain(t: Tables, ctx: Any, x: float, y: float) -> str:
    kinds = {p.kind for p in ctx.table.pieces_at(x, y)}
    found = {row.id for row in t.terrain.values() if kinds & set(row.table_kinds)}
    return next((k for k in PRECEDENCE if k in found), "clear")


def _pieces_at(ctx: Any, stand: dict[str, Any]) -> set[str]:
    return {p.id for p in ctx.table.pieces_at(float(stand["x"]), float(stand["y"]))}


def crossed(t: Tables, ctx: Any, sight: Any, ends: set[str]) -> tuple[int, int, int]:
    """Woods squares, town squares and smoke levels along the line of fire."""
    size = float(t.scale.inches)
    by_kind = {k: row.id for row in t.terrain.values() for k in row.table_kinds}
    levels = {tpl["id"]: tpl.get("level") for tpl in ctx.state.templates()}
    woods = towns = smoke = 0
    for c in sight.crossings:
        if c["kind"] == "smoke":
            level = levels.get(c["piece"])
            smoke += int(level) if level else t.whole("table-smoke-level")
            continue
        if c["piece"] in ends:
            continue
        count = max(1, round(float(c["inside"]) / size))
        kind = by_kind.get(c["kind"])
        if kind == "woods":
            woods += count
        elif kind == "town":
            towns += count
    return woods, towns, smoke


def is_front(facing: float, bearing_to_target: float) -> bool:
    """Whether the firer, at ``bearing_to_target`` from it, faces the target's front."""
    back_to_firer = (bearing_to_target + 180.0) % 360.0
    off = abs((back_to_firer - facing + 180.0) % 360.0 - 180.0)
    return off <= FRONT_ARC
