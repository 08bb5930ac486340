"""Amphibious operations (CD 8): what the landing, wading, attack, lift and naval modules share:
chart lookups, the effect results, the geometry of the sea and the shore, a craft and its
cargo, the phase an amphibious action belongs to.

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

from shapely import Point, box, unary_union
from shapely.ops import nearest_points

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.rules.cd.stands import check_phase as allows
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow

NO_EFFECT, FORCED_BACK, ELIMINATED = "no effect", "forced back", "eliminated"


# --- charts ------------------------------------------------------------------------------------


def names(charts: Any, key: str) -> list[str]:
    return [n.strip() for n in str(charts.table("amphibious")[key].value).split(",") if n.strip()]


def craft_type(ctx: RulesContext, stand: StandRow) -> Any | None:
    """The craft row of a stand (its scenario 'craft:'), or None for other stands."""
    name = _spec(ctx, stand["id"], "craft", None)
    if name is None:
        return None
    row = ctx.charts.table("amphibious").get(name)
    if row is None or row.table != "craft":
        known = sorted(k for k, r in ctx.charts.table("amphibious").items() if r.table == "craft")
        raise BadInput(f"{stand['id']}: craft {name!r} is unknown (known: {', '.join(known)})")
    return row


# --- geometry of the shore ---------------------------------------------------------------------


def sea(ctx: RulesContext) -> Any:
    """The open water, as one shape; refuses when the table has none."""

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
    return bool(sea(ctx).covers(Point(x, y)))


# --- stands and craft ----------------------------------------------------------------------------


def _spec(ctx: RulesContext, stand_id: str, field: str, default: Any) -> Any:
    try:
        return getattr(ctx.scenario.stand_spec(stand_id), field)
    except KeyError:
        return default


def craft_stand(ctx: RulesContext, stand_id: str) -> tuple[StandRow, Any]:
    stand = ctx.state.stand(stand_id)
    kind = craft_type(ctx, stand)
    if kind is None:
        raise BadInput(
            f"{stand_id} is not a landing craft or amphibious vehicle: give it 'craft:' in the "
            "scenario (CD 8.1)"
        )
    ctx.involve(stand_id)
    return stand, kind


def cargo_of(ctx: RulesContext, craft: StandRow) -> list[str]:
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


def check_phase(ctx: RulesContext, what: str) -> None:
    allows(ctx, "movement", what)
