"""What one view of the table shows, as plain data ready to draw.

``build_scene`` draws what a view may see, as ``tabletop.rules.views`` decides it (SPEC 1,
8: hidden information stays hidden). The referee sees everything. A side sees the table as
its players do: its own stands, the enemy stands it spots now and markers where it last saw
the others, the templates on the table, terrain except pieces marked ``referee_only``,
every minefield template (real and dummy told apart for its own, and for the enemy's once
revealed, CD 3), and which bridges are wired only when it holds them. Leaving things out
here, before anything is drawn, means a hidden fact cannot leak through an SVG id, a title,
a legend entry or a line-of-sight crossing.
"""

from __future__ import annotations

import math
from dataclasses import field
from typing import TYPE_CHECKING, Any

from tabletop.core.errors import BadInput
from tabletop.core.frozen import mutable_dataclass
from tabletop.render import REFEREE

if TYPE_CHECKING:
    from tabletop.rules.context import RulesContext
    from tabletop.rules.views import LastSeen

Point = tuple[float, float]
Ring = list[Point]

MINEFIELD = "minefield:"
TERRAIN_ROW = "terrain:"
DEFAULT_MINEFIELD_SIZE = 1.0  # CD 3.1: a minefield template is 1" square


@mutable_dataclass
class TerrainShape:
    id: str
    kind: str
    polygon: Ring | None
    line: Ring | None
    width: float
    height: float
    ground: bool
    state: str = "intact"
    wired: bool = False  # only ever True in a view allowed to know it
    referee_only: bool = False  # only ever True in the referee's view


@mutable_dataclass
class StandShape:
    id: str
    side: str
    kind: str
    corners: Ring
    x: float
    y: float
    facing: float
    width: float
    depth: float
    status: str
    markers: list[str]
    depleted: list[str] = field(default_factory=list)


@mutable_dataclass
class TemplateShape:
    id: str
    kind: str
    polygon: Ring
    by: str | None = None


@mutable_dataclass
class MinefieldShape:
    id: str
    side: str
    polygon: Ring
    real: bool | None  # None: this view does not know whether it is real
    revealed: bool


@mutable_dataclass
class Crossing:
    piece: str
    kind: str
    entry: Point
    exit: Point
    blocks: bool
    reason: str


@mutable_dataclass
class SightShape:
    a: str
    b: str
    start: Point
    end: Point
    clear: bool
    range: float
    blocked_by: list[str]
    crossings: list[Crossing]


@mutable_dataclass
class BandRing:
    weapon: str
    band: str
    distance: float
    polygon: Ring


@mutable_dataclass
class BandsShape:
    stand: str
    rings: list[BandRing]


@mutable_dataclass
class Scene:
    name: str
    view: str
    width: float
    depth: float
    turn: int
    phase: str
    conditions: dict[str, Any]
    sides: list[str]
    terrain: list[TerrainShape] = field(default_factory=list)
    stands: list[StandShape] = field(default_factory=list)
    off_table: list[str] = field(default_factory=list)
    templates: list[TemplateShape] = field(default_factory=list)
    minefields: list[MinefieldShape] = field(default_factory=list)
    last_seen: list[LastSeen] = field(default_factory=list)  # where the view last saw them
    sight: SightShape | None = None
    bands: BandsShape | None = None

    @property
    def is_referee(self) -> bool:
        return self.view == REFEREE

    def summary(self) -> dict[str, Any]:
        """What the picture shows, for ``map --json`` and the report."""
        return {
            "view": self.view,
            "turn": self.turn,
            "phase": self.phase,
            "stands": len(self.stands),
            "off_table": list(self.off_table),
            "terrain": len(self.terrain),
            "templates": [t.id for t in self.templates],
            "minefields": len(self.minefields),
            "last_seen": [{"id": m.id, "x": m.x, "y": m.y, "turn": m.turn} for m in self.last_seen],
            "los": None
            if self.sight is None
            else {
                "a": self.sight.a,
                "b": self.sight.b,
                "los": self.sight.clear,
                "range": round(self.sight.range, 3),
                "blocked_by": self.sight.blocked_by,
                "blocking_points": [list(c.entry) for c in self.sight.crossings if c.blocks],
            },
            "range_bands": None
            if self.bands is None
            else {
                "stand": self.bands.stand,
                "rings": [
                    {"weapon": r.weapon, "band": r.band, "inches": r.distance}
                    for r in self.bands.rings
                ],
            },
        }


# --- views ----------------------------------------------------------------------------------


def knows_piece(view: str, piece: Any) -> bool:
    return view == REFEREE or not bool(getattr(piece, "referee_only", False))


def knows_wired(view: str, piece: Any) -> bool:
    # Pre-wired bridges are the referee's secret, and the holder's (SPEC 1).
    return view == REFEREE or getattr(piece, "owner", None) == view


def view_context(ctx: RulesContext, view: str) -> Any:
    """A read-only rules context whose table holds only the terrain this view knows."""
    from tabletop.rules.views import view_context as rules_view_context

    return rules_view_context(ctx, view)


# --- building -------------------------------------------------------------------------------


def build_scene(
    ctx: RulesContext,
    name: str,
    view: str = REFEREE,
    los: tuple[str, str] | None = None,
    bands: str | None = None,
    weapon: str | None = None,
    known: Any = None,
) -> Scene:
    """The scene for ``view`` (``referee`` or a side name, already resolved).

    ``known`` is what the view knows (``tabletop.rules.views.Knowledge``); without it, a
    side's knowledge is worked out here, without last-seen markers (they need the log).
    """
    from tabletop.rules.views import knowledge

    state, scenario = ctx.state, ctx.scenario
    sides = scenario.side_names()
    if view != REFEREE and view not in sides:
        raise BadInput(f"view {view!r}: not a side of this game ({', '.join(sides)})")
    cond = state.conditions
    scene = Scene(
        name=name,
        view=view,
        width=float(scenario.table.width),
        depth=float(scenario.table.depth),
        turn=state.turn,
        phase=state.phase,
        conditions={
            "light": cond.get("light"),
            "weather": cond.get("weather"),
            "wind_from": (cond.get("wind") or {}).get("from"),
            "wind_force": (cond.get("wind") or {}).get("force"),
            "ground": cond.get("ground"),
            "dusty": bool(cond.get("dusty")),
        },
        sides=sides,
    )
    if known is None or known.view != view:
        known = knowledge(ctx, view)
    scene.terrain = _terrain(ctx, view)
    scene.stands, scene.off_table = _stands(state, view, known)
    scene.last_seen = list(known.last_seen.values())
    scene.templates = _templates(state, view, known)
    scene.minefields = _minefields(state, view)
    if los is not None:
        scene.sight = _sight(view_context(ctx, view), los, known)
    if bands is not None:
        if not known.is_own(bands):
            from tabletop.rules.views import stand_in_view

            stand_in_view(state, known, bands)  # unknown to this view: a clear error
            raise BadInput(f"--range-bands {bands!r}: only a side's own stands' weapons are known")
        scene.bands = _bands(ctx, bands, weapon)
    return scene


def _ring(points: Any) -> Ring:
    return [(float(p[0]), float(p[1])) for p in points]


def _terrain(ctx: RulesContext, view: str) -> list[TerrainShape]:
    rows = ctx.state.rows
    out = []
    for piece in ctx.scenario.terrain:
        if not knows_piece(view, piece):
            continue
        kind = ctx.charts.terrain.get(piece.kind)
        live = rows.get(TERRAIN_ROW + piece.id)
        live = live if isinstance(live, dict) else {}
        wired = bool(live.get("wired", piece.wired)) and knows_wired(view, piece)
        height = piece.height if piece.height is not None else getattr(kind, "height", 0.0)
        out.append(
            TerrainShape(
                id=piece.id,
                kind=piece.kind,
                polygon=_ring(piece.polygon) if piece.polygon is not None else None,
                line=_ring(piece.line) if piece.line is not None else None,
                width=float(piece.width or 0.0),
                height=float(height or 0.0),
                ground=bool(getattr(kind, "ground", False)),
                state=str(live.get("state", piece.state)),
                wired=wired,
                referee_only=bool(piece.referee_only) and view == REFEREE,
            )
        )
    return out


def _stands(state: Any, view: str, known: Any) -> tuple[list[StandShape], list[str]]:
    from tabletop.data.board import base_of, is_placed
    from tabletop.rules.cd.ammo_state import weapon_status
    from tabletop.table import base_polygon

    shapes, off = [], []
    for stand in state.stands():
        if not known.knows_stand(stand["id"]):
            continue  # an enemy this side does not see now (CD spotting)
        if not is_placed(stand):
            off.append(stand["id"])
            continue
        base = base_of(stand)
        corners = _ring(base_polygon(base).exterior.coords)[:-1]
        # Ammunition is the owner's and the referee's knowledge, not the enemy's.
        knows_ammo = view in (REFEREE, stand["side"])
        depleted = (
            [w for w, a in stand.get("ammo", {}).items() if weapon_status(a) != "ok"]
            if knows_ammo
            else []
        )
        shapes.append(
            StandShape(
                id=stand["id"],
                side=stand["side"],
                kind=stand["kind"],
                corners=corners,
                x=base.x,
                y=base.y,
                facing=base.facing,
                width=base.width,
                depth=base.depth,
                status=str(stand.get("status", "ok")),
                markers=[str(m) for m in stand.get("markers", [])],
                depleted=depleted,
            )
        )
    return shapes, off


def _templates(state: Any, view: str, known: Any) -> list[TemplateShape]:
    from tabletop.rules.views import templates_for_view

    out = []
    for t in templates_for_view(state, known):
        polygon = t.get("polygon") or []
        if len(polygon) < 3:
            continue  # an empty beam (cut at its origin) has nothing to draw
        out.append(
            TemplateShape(str(t["id"]), str(t.get("kind", "template")), _ring(polygon), t.get("by"))
        )
    return out


def _minefields(state: Any, view: str) -> list[MinefieldShape]:
    """Minefield rows as this view may know them; malformed rows are skipped, not fatal."""
    out = []
    for key in sorted(k for k in state.rows if k.startswith(MINEFIELD)):
        row = state.rows[key]
        if not isinstance(row, dict):
            continue
        try:
            shape = _minefield(key, row)
        except (KeyError, TypeError, ValueError):
            continue
        # Every template lies on the table for both sides; real or dummy is known to its
        # own side, and to the other once revealed (CD 3, 3.2).
        if not (view == REFEREE or view == shape.side or shape.revealed):
            shape.real = None
        out.append(shape)
    return out


def _minefield(key: str, row: dict[str, Any]) -> MinefieldShape:
    ident = str(row.get("id") or key.removeprefix(MINEFIELD))
    if row.get("polygon"):
        polygon = _ring(row["polygon"])
    else:
        x, y = float(row["x"]), float(row["y"])
        size = float(row.get("size") or DEFAULT_MINEFIELD_SIZE)
        if not (math.isfinite(x) and math.isfinite(y) and size > 0):
            raise ValueError(key)
        h = size / 2
        polygon = [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]
    real = row.get("real")
    return MinefieldShape(
        id=ident,
        side=str(row.get("side", "")),
        polygon=polygon,
        real=None if real is None else bool(real),
        revealed=bool(row.get("revealed", False)),
    )


def end_for(ctx: RulesContext, text: str) -> Any:
    """A stand id or a point ``X,Y``, as ``measure`` reads its ends."""
    from tabletop.rules.cd.sighting import end_for_point, end_for_stand

    if "," in text:
        parts = text.replace(" ", "").split(",")
        try:
            x, y = (float(p) for p in parts)
        except ValueError:
            raise BadInput(
                f"--los end {text!r} is not a stand id or a point X,Y in inches"
            ) from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise BadInput(f"--los end {text!r} is not a point on the table")
        return end_for_point(x, y, ctx.scenario)
    return end_for_stand(ctx.state, text)


def _sight(ctx: RulesContext, los: tuple[str, str], known: Any = None) -> SightShape:
    from tabletop.rules.cd.sighting import sight
    from tabletop.rules.views import stand_in_view

    if known is not None:
        for end in los:
            if "," not in end:
                stand_in_view(ctx.state, known, end)  # unknown to this view: a clear error
    a, b = end_for(ctx, los[0]), end_for(ctx, los[1])
    result = sight(ctx, a, b)
    return SightShape(
        a=a.label,
        b=b.label,
        start=(a.x, a.y),
        end=(b.x, b.y),
        clear=result.los,
        range=result.range,
        blocked_by=list(result.blocked_by),
        crossings=[
            Crossing(
                piece=c["piece"],
                kind=c["kind"],
                entry=(float(c["entry"][0]), float(c["entry"][1])),
                exit=(float(c["exit"][0]), float(c["exit"][1])),
                blocks=bool(c["blocks"]),
                reason=str(c["reason"]),
            )
            for c in result.crossings
        ],
    )


BAND_ORDER = ("close", "medium", "long")


def _bands(ctx: RulesContext, stand_id: str, weapon: str | None) -> BandsShape:
    """Rings at each range band's limit, measured as the game measures range.

    With ``measure: edge`` (the default) range runs from the edge of the base, so a ring is
    the base grown by the distance (a rounded rectangle); with ``measure: centre`` it is a
    circle about the stand's centre.
    """
    import shapely

    from tabletop.data.board import base_of
    from tabletop.rules.cd.sighting import end_for_stand
    from tabletop.table import base_polygon

    stand = end_for_stand(ctx.state, stand_id).stand
    assert stand is not None
    weapons = list(stand.get("weapons", []))
    if weapon is not None:
        if weapon not in weapons:
            carried = ", ".join(weapons) or "none"
            raise BadInput(f"--weapon {weapon!r}: {stand_id} carries {carried}")
        weapons = [weapon]
    if not weapons:
        raise BadInput(f"--range-bands {stand_id!r}: it carries no weapons")
    base = base_of(stand)
    edge = ctx.scenario.measure == "edge"
    origin = base_polygon(base) if edge else shapely.points(base.x, base.y)
    rings = []
    for wid in weapons:
        chart = ctx.charts.weapons[wid]
        for band in BAND_ORDER:
            inches = float(getattr(chart.ranges, band))
            if inches <= 0:
                continue
            grown = shapely.buffer(origin, inches, quad_segs=16)
            rings.append(BandRing(wid, band, inches, _ring(grown.exterior.coords)))
    return BandsShape(stand_id, rings)
