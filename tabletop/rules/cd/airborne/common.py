"""Airborne operations (CD 7): what the drop, the gliders and the AA fire share: chart
lookups, the effect results and their severity, the aircraft a stick rides in, the weather
that hampers a drop (CD 7.2.1, 7.3.1), rolling a stand's effect, where a point lies.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from tabletop.core.frozen import frozen_dataclass, mutable_dataclass
from tabletop.rules.cd.fire import effect_quality
from tabletop.rules.cd.sighting import End, distance_between, end_for_stand
from tabletop.rules.cd.stands import target_of
from tabletop.rules.cd.weather import effects, worsened_weather
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow

NO_EFFECT, FORCED_BACK, ELIMINATED = "no effect", "forced back", "eliminated"
SEVERITY = {NO_EFFECT: 0, FORCED_BACK: 1, ELIMINATED: 2}


# --- charts ------------------------------------------------------------------------------------


def names(charts: Any, key: str) -> set[str]:
    return {n.strip() for n in str(charts.table("airborne")[key].value).split(",") if n.strip()}


def keyed(charts: Any, table: str, key: str) -> Any | None:
    for row in charts.table("airborne").values():
        if row.table == table and row.key == key:
            return row
    return None


def crew_class(charts: Any, quality: str) -> str:
    """``plus`` (veteran, elite), ``minus`` (green, trained) or ``none`` (CD 7.2.2, 7.3.1)."""
    row = keyed(charts, "crew", quality)
    return str(row.value) if row is not None else "none"


@frozen_dataclass
class Line:
    """One step of the working: what it is, how much, and the rule."""

    name: str
    value: float
    rule: str

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "rule": self.rule}


# --- night and weather (CD 7.2.1, 7.3.1) -----------------------------------------------------


def is_overcast_night(conditions: dict[str, Any], overcast: bool | None) -> bool:
    """A moonlit night counts as overcast when the referee says so, or in any weather."""
    if conditions["light"] != "night-moonlit":
        return False
    return overcast if overcast is not None else conditions["weather"] != "clear"


def is_bad_weather(conditions: dict[str, Any], charts: Any, bad: bool | None) -> bool:
    if bad is not None:
        return bad
    weather = worsened_weather(conditions["weather"], conditions["wind"]["force"])
    return weather in names(charts, "bad-flying-weather")


# --- aircraft and effect rolls (CD 7.2.2, 7.3.1) ---------------------------------------------


@mutable_dataclass
class Aircraft:
    """One transport (a square's) or glider, and what AA fire did to it."""

    label: str
    stand: str
    crew: str
    part: str | None = None
    hits: int = 0
    forced_back: int = 0
    aborted: str | None = None


def roll_effect(ctx: RulesContext, quality: str, purpose: str) -> str:
    """A roll on the hit effects chart for this quality (quality chart)."""
    bands = ctx.charts.quality[quality]
    roll = ctx.dice.roll(10, f"hit effect: {purpose} ({quality})")
    if roll <= bands.no_effect_up_to:
        return NO_EFFECT
    if roll <= bands.forced_back_up_to:
        return FORCED_BACK
    return ELIMINATED


def stand_effect(ctx: RulesContext, stand: StandRow, purpose: str) -> str:
    """A hit on a landing stand, rolled as if by fire (soft vehicles green, night lower)."""

    target = target_of(stand, ctx, "none", None)
    night = effects(ctx.state.conditions, ctx.charts).night
    return roll_effect(ctx, effect_quality(target, ctx.charts, night), purpose)


def site_of(ctx: RulesContext, x: float, y: float) -> dict[str, Any]:
    """What lies at a landing point: off the table, deep water, the pieces under it."""
    if not ctx.table.on_table(x, y):
        return {"off_table": True, "water": None, "pieces": []}
    return _site(ctx, ctx.table.pieces_at(x, y))


def site_groups(ctx: RulesContext, points: Any) -> list[tuple[dict[str, Any], Any]]:
    """``site_of`` for many points at once (the odds of a drop ask for ten thousand): each
    distinct site, with the indices of the points (an array of N x 2) that lie in it. One
    query of the table's index; each point's pieces in scenario order, as ``pieces_at``
    gives them, and off the table as ``on_table`` says (edges on the table)."""

    table = ctx.table
    xy = np.asarray(points, dtype=float).reshape(-1, 2)
    x, y = xy[:, 0], xy[:, 1]
    on = (x >= 0.0) & (x <= table.width) & (y >= 0.0) & (y <= table.depth)
    covered: dict[int, list[int]] = {}
    if len(xy) and table.pieces:
        at, index = table.tree.query(shapely.points(xy), predicate="intersects")
        for i, j in zip(at.tolist(), index.tolist(), strict=True):
            covered.setdefault(i, []).append(j)
    by_pieces: dict[tuple[int, ...], list[int]] = {}
    for i, hits in covered.items():
        if on[i]:
            by_pieces.setdefault(tuple(sorted(hits)), []).append(i)
    bare = on.copy()
    bare[list(covered)] = False
    out: list[tuple[dict[str, Any], Any]] = []
    if (~on).any():
        out.append(({"off_table": True, "water": None, "pieces": []}, np.flatnonzero(~on)))
    if bare.any():
        out.append((_site(ctx, []), np.flatnonzero(bare)))
    for key, where in by_pieces.items():
        out.append((_site(ctx, [table.pieces[j] for j in key]), np.array(where)))
    return out


def _site(ctx: RulesContext, pieces: list[Any]) -> dict[str, Any]:
    """A point on the table: the deep water under it (none on a bridge), and its pieces."""
    kinds = {p.kind for p in pieces}
    water = None
    if "bridge" not in kinds:
        for p in pieces:
            if ctx.charts.terrain[p.kind].water == "deep":
                water = p.id
                break
    return {"off_table": False, "water": water, "pieces": pieces}


# --- helpers ------------------------------------------------------------------------------------


def _spec(ctx: RulesContext, stand_id: str, field: str, default: Any) -> Any:
    try:
        return getattr(ctx.scenario.stand_spec(stand_id), field)
    except KeyError:
        return default


def _gap(ctx: RulesContext, stand: StandRow, point: Any) -> float:
    here = End("zone", float(point[0]), float(point[1]))
    return float(distance_between(end_for_stand(ctx.state, stand["id"]), here,
                                  ctx.scenario.measure))  # fmt: skip
