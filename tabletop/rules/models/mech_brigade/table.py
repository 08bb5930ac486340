"""What the table decides for mech-brigade fire (table mode), as fire options.

Our mapping of a tabletop onto Mech Brigade's squares (the seed has no table):

- the target's square is the terrain under the target's centre, read through the chart's
  ``table_kinds`` (town over woods over entrenchment over broken over clear);
- the line of fire, centre to centre, is cut into squares of the chart's scale; the squares
  between the units take the ground level (hills) under their centres, and each cover piece
  the line crosses (woods, towns, broken ground) fills one square per 4" of the line inside
  it (at least one), where the line crosses it, unless the piece also covers the firer or
  the target (their own squares are not between them, MB 7.3 (7));
- MB 8.0's line of sight is traced over those squares by the same procedure as
  ``tabletop model run mech-brigade line-of-sight``; when it is blocked direct fire is
  refused, and the woods and towns it passes through give the blocking points (MB 7.3 (7));
- every smoke template crossed adds its ``level`` (artillery smoke, 3, when it has none);
- a target that moved this turn is moving at its SP rating;
- the front armour faces the firer when the firer lies within 45 degrees of the target's
  facing (the front 90 degrees, MB 7.3 KILLS (1));
- a stand's strength (the vehicles or men it represents) is what its record has left, else
  the scenario's ``strength:``, else the chart's default for its kind of unit.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Protocol

from tabletop.core.words import count
from tabletop.rules.context import RulesContext
from tabletop.rules.models.mech_brigade.data import TABLE_KEY, Profile, Tables
from tabletop.rules.models.mech_brigade.formulas import half_up
from tabletop.rules.models.mech_brigade.sight import trace_line
from tabletop.state.document import StandRow, centre


class ModelCharts(Protocol):
    """What the table's readings need of the model (its name and its charts); the model
    itself (``__init__.py``) calls this module, so it is named here by what it offers."""

    @property
    def name(self) -> str: ...

    @property
    def tables(self) -> Tables: ...


# Which terrain decides a square when pieces overlap.
PRECEDENCE = ("town", "woods", "entrenchment", "broken", "clear")
FRONT_ARC = 45.0


def situation(
    model: ModelCharts,
    ctx: RulesContext,
    shooter: StandRow,
    target: StandRow,
    sight: Any,
) -> dict[str, Any]:
    t = model.tables
    options: dict[str, Any] = {}
    cover = square_terrain(t, ctx, *centre(target))
    if cover != "clear":
        options["cover"] = cover
    line = line_of_fire(t, ctx, shooter, target, sight)
    found = line["cover"]
    for key, value in (("woods", found.get("woods", 0)), ("towns", found.get("town", 0))):
        if value:
            options[key] = value
    smoke = smoke_levels(t, ctx, sight)
    if smoke:
        options["smoke"] = smoke
    if not line["los"]:
        options["los"] = False
    profile = t.profile(ctx.scenario.stand_spec(target["id"]).profiles[model.name])
    if target.get("moved_turn") == ctx.state.turn and profile.sp:
        options["target_speed"] = profile.sp
    if not is_front(float(target.get("facing") or 0.0), float(sight.bearing)):
        options["aspect"] = "back"
    record = (target.get("models") or {}).get(model.name) or {}
    now = {"turn": ctx.state.turn, "phase": ctx.state.phase}
    # MB 7.6: attacks add to what the target still carries; it halves at the end of each
    # pulse (each phase of the turn, ``tabletop.rules.models.decay``).
    if record.get("suppression"):
        options["target_suppression"] = int(record["suppression"])
    mine = (shooter.get("models") or {}).get(model.name) or {}
    if mine.get("suppression"):
        # MB 7.7: the firer's own suppression cuts its fire (and quarters an ATGM over 25).
        options["shooter_suppression"] = int(mine["suppression"])
    options["strength"] = strength(model, ctx, target)
    options[TABLE_KEY] = {
        **now,
        "killed": int(record.get("killed") or 0),
        "sight": line["summary"],
        "blocked_by": line["blocked_by"],
    }
    return options


def strength(model: ModelCharts, ctx: RulesContext, stand: StandRow) -> int:
    """The vehicles or men a stand has left (see the module's docstring)."""
    record = (stand.get("models") or {}).get(model.name) or {}
    if record.get("left") is not None:
        return int(record["left"])
    spec = ctx.scenario.stand_spec(stand["id"])
    if spec.strength is not None:
        return int(spec.strength)
    return default_strength(model.tables, model.tables.profile(spec.profiles[model.name]))


def default_strength(t: Tables, profile: Profile) -> int:
    if profile.is_vehicle:
        return t.whole("strength-vehicles")
    if profile.kind == "infantry":
        return t.whole("strength-infantry")
    return t.whole("strength-other")


def square_terrain(t: Tables, ctx: RulesContext, x: float, y: float) -> str:
    kinds = {p.kind for p in ctx.table.pieces_at(x, y)}
    found = {row.id for row in t.terrain.values() if kinds & set(row.table_kinds)}
    return next((k for k in PRECEDENCE if k in found), "clear")


def _pieces_at(ctx: RulesContext, stand: StandRow) -> set[str]:
    return {p.id for p in ctx.table.pieces_at(*centre(stand))}


def line_of_fire(
    t: Tables, ctx: RulesContext, shooter: StandRow, target: StandRow, sight: Any
) -> dict[str, Any]:
    """MB 8.0 over the squares between the stands, read from the table (``trace_line``), with
    a one-line ``summary`` of the squares for the fire's working."""
    viewer = half_up(Fraction(float(sight.level_a)))
    seen = half_up(Fraction(float(sight.level_b)))
    path = squares_between(t, ctx, shooter, target, sight)
    line = trace_line(t, viewer, seen, path)
    cover = [count(n, f"{kind} cover square") for kind, n in sorted(line["cover"].items())]
    marked = ",".join(f"{level}{_LETTER.get(kind, '')}" for level, kind in path) or "none"
    summary = (
        f"line of sight over {len(path) + 1} squares from level {viewer} to {seen} "
        f"(squares between: {marked}): "
        + ("clear" if line["los"] else f"blocked, {line['blocked_by'][0]}")
        + (f"; through {', '.join(cover)}" if cover and line["los"] else "")
        + " [MB 8.0]"
    )
    return {**line, "summary": summary, "path": path}


_LETTER = {"woods": "w", "broken": "b", "town": "t", "entrenchment": "e"}


def squares_between(
    t: Tables, ctx: RulesContext, shooter: StandRow, target: StandRow, sight: Any
) -> list[tuple[int, str]]:
    """The squares between the stands as MB 8.0 reads them: (level, terrain), from the firer."""
    size = float(t.scale.inches)
    ax, ay = centre(shooter)
    bx, by = centre(target)
    length = math.hypot(bx - ax, by - ay)
    total = max(1, half_up(Fraction(length / size)))  # squares from the firer to the target
    between = total - 1
    if not between:
        return []
    squares: list[list[Any]] = []
    for i in range(1, total):
        x, y = ax + (bx - ax) * i / total, ay + (by - ay) * i / total
        squares.append([half_up(Fraction(ctx.table.ground_level(x, y))), "clear"])
    ends = _pieces_at(ctx, shooter) | _pieces_at(ctx, target)
    by_kind = {k: row.id for row in t.terrain.values() for k in row.table_kinds}
    for c in sight.crossings:
        kind = by_kind.get(c["kind"])
        if c["kind"] == "smoke" or c["piece"] in ends or kind is None:
            continue
        if t.terrain[kind].los is None:
            continue  # not cover terrain: it neither blocks sight nor adds blocking points
        count = min(between, max(1, round(float(c["inside"]) / size)))
        middle = (_along(c["entry"], ax, ay, bx, by) + _along(c["exit"], ax, ay, bx, by)) / 2
        first = round(middle * total - (count - 1) / 2)
        first = max(1, min(between - count + 1, first))
        for index in range(first, first + count):
            square = squares[index - 1]
            if PRECEDENCE.index(kind) < PRECEDENCE.index(square[1]):
                square[1] = kind
    return [(int(level), str(kind)) for level, kind in squares]


def _along(point: Any, ax: float, ay: float, bx: float, by: float) -> float:
    """How far along the line from (ax, ay) to (bx, by) a point lies, 0 to 1."""
    dx, dy = bx - ax, by - ay
    return ((float(point[0]) - ax) * dx + (float(point[1]) - ay) * dy) / (dx * dx + dy * dy)


def smoke_levels(t: Tables, ctx: RulesContext, sight: Any) -> int:
    """Smoke levels along the line of fire, the end squares' included (MB 7.3 (7))."""
    levels = {tpl["id"]: tpl.get("level") for tpl in ctx.state.templates()}
    smoke = 0
    for c in sight.crossings:
        if c["kind"] == "smoke":
            level = levels.get(c["piece"])
            smoke += int(level) if level else t.whole("table-smoke-level")
    return smoke


def is_front(facing: float, bearing_to_target: float) -> bool:
    """Whether the firer, at ``bearing_to_target`` from it, faces the target's front."""
    back_to_firer = (bearing_to_target + 180.0) % 360.0
    off = abs((back_to_firer - facing + 180.0) % 360.0 - 180.0)
    return off <= FRONT_ARC
