"""Terrain from a drawing: the shapes of an SVG file read as scenario terrain pieces.

A referee draws over a photo of their table in any SVG editor (Inkscape, Illustrator, a
browser tool) and labels each shape with its terrain kind. The contract is the one game
developers keep with Tiled: the drawing is the person's, the label is the kind, the shape's
id is kept, and nothing unlabelled is guessed at (it is listed as left out, with why).

- **Kind.** The first of these that names a terrain kind: the shape's Inkscape label, the
  labels of the groups and layers it sits in (nearest first), its ``class``, the classes of
  its groups. A label may carry a height after the kind (``hill 2``); case, and spaces or
  underscores for hyphens, do not matter (``Road dirt``).
- **Scale.** A rectangle labelled (or classed) ``table`` marks the table's edges. Its size
  in inches is the ``table`` argument, else the size in its label (``table 72x48``), else its
  size in the drawing's own units when the drawing has real ones (``width="72in"``). With no
  such rectangle the ``table`` argument maps the whole page onto the table. Neither: refused.
  The rectangle must lie square to the page (a turned one would leave north unknown).
- **Shapes.** Every transform applied (nested groups, rotations, ``use``); curves and arcs
  flattened within 0.05" of the drawn line; an open path, polyline or line is a line piece
  whose width is its stroke width (a road, a river, a wire belt), a closed shape an area.
  Each sub-path of a path is its own piece. Pieces are clipped to the table's edges.
- **Axes.** SVG's y runs down the page; the table's runs north, from its south-west corner
  (SPEC section 2), so the page's top edge is the table's north edge.

The drawing is parsed by svgelements, which applies the transforms, units and ``use``
references; this module only reads labels, scales and flattens.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import svgelements as svg
from shapely import LineString, MultiLineString, MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.geometry.polygon import orient

from tabletop.core.errors import ScenarioError
from tabletop.core.frozen import frozen_dataclass

# svgelements gives every length in CSS pixels, 96 to the inch.
PX_PER_INCH = 96.0
# How far a flattened curve may stray from the drawn one (issue 30: within 0.05"); the
# chords are cut a little finer so that rounding each corner to DECIMALS stays inside it.
TOLERANCE = 0.05
CHORD_TOLERANCE = 0.04
DECIMALS = 2  # coordinates and widths to 0.01"
# A rectangle labelled 'table' with a size that is not its shape (72x48 given for a drawn
# square) is most likely width and depth swapped: refused beyond this.
ASPECT_SLACK = 0.05
INKSCAPE_LABEL = "{http://www.inkscape.org/namespaces/inkscape}label"
# Lengths that mean a real size on paper (a drawing in px has no scale of its own).
PHYSICAL_UNITS = re.compile(r"^\s*[\d.eE+-]+\s*(in|cm|mm|pt|pc|q)\s*$", re.IGNORECASE)
TABLE_LABEL = re.compile(r"^table(?:\s+(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?))?$", re.IGNORECASE)
# A kind, its words joined by spaces, hyphens or underscores ('road dirt'), and a height.
KIND_LABEL = re.compile(r"^(.*?)(?:\s+(\d+(?:\.\d+)?))?$")

Point = tuple[float, float]


@frozen_dataclass(kw_only=True)
class SvgImport:
    """What a drawing gives: the table's size (inches), its terrain pieces (each exactly a
    scenario ``terrain`` entry) and one line for each shape left out, saying why."""

    width: float
    depth: float
    pieces: tuple[dict[str, object], ...]
    left_out: tuple[str, ...]


@dataclass(frozen=True, eq=False)  # svgelements' shapes compare by geometry: keep identity
class _Shape:
    """One drawn shape with the groups it sits in, outermost first."""

    element: Any
    groups: tuple[Any, ...]

    @property
    def id(self) -> str | None:
        """Its id; a shape drawn by a ``use`` is that use's (the original may be drawn
        several times, each copy a piece of its own)."""
        uses = [g for g in self.groups if isinstance(g, svg.Use) and _own(g).get("id")]
        ident = _own(uses[-1] if uses else self.element).get("id")
        return str(ident) if ident else None

    @property
    def name(self) -> str:
        """How a message names it: its id, else its tag and place in the drawing."""
        tag = str(_own(self.element).get("tag", type(self.element).__name__.lower()))
        return f"{self.id!r}" if self.id else f"a {tag} with no id"


@frozen_dataclass
class _Frame:
    """The table's edges in the drawing (px, y down) and inches per px along each axis."""

    left: float
    top: float
    right: float
    bottom: float
    width: float  # inches
    depth: float

    @property
    def sx(self) -> float:
        return self.width / (self.right - self.left)

    @property
    def sy(self) -> float:
        return self.depth / (self.bottom - self.top)

    def inches(self, x: float, y: float) -> Point:
        return (x - self.left) * self.sx, (self.bottom - y) * self.sy


def read_svg(path: Path, kinds: Collection[str], table: tuple[float, float] | None) -> SvgImport:
    """The terrain pieces of the drawing at ``path`` whose label is one of ``kinds``.

    ``table`` is the table's width and depth in inches when the person gives it. Raises
    ``ScenarioError`` for a drawing that cannot be read or that gives no scale.
    """
    root = _parse(path)
    shapes = list(_walk(root, ()))
    tables = [s for s in shapes if _table_label(s) is not None]
    frame = _frame(path, root, tables, table)
    known = {k.lower(): k for k in kinds}
    pieces: list[dict[str, object]] = []
    left_out: list[str] = []
    chosen: list[tuple[_Shape, str, float | None]] = []
    for shape in shapes:
        if _table_label(shape) is not None:
            continue
        found = _kind(shape, known)
        if found is None:
            left_out.append(f"{shape.name}: {_unlabelled(shape)}")
        else:
            chosen.append((shape, *found))
    taken = {s.id for s, _, _ in chosen if s.id}
    used: set[str] = set()
    for shape, kind, height in chosen:
        made, why = _pieces(shape, kind, frame)
        if why:
            left_out.append(f"{shape.name} ({kind}): {why}")
            continue
        base = shape.id if shape.id and shape.id not in used else None
        for i, piece in enumerate(made, 1):
            ident = base if base is None or len(made) == 1 else f"{base}-{i}"
            if ident is None or (ident != base and ident in taken | used):
                ident = _next_id(kind, taken | used)
            used.add(ident)
            entry: dict[str, object] = {"id": ident, "kind": kind, **piece}
            if height is not None:
                entry["height"] = _num(height)
            pieces.append(entry)
    return SvgImport(
        width=_num(frame.width),
        depth=_num(frame.depth),
        pieces=tuple(pieces),
        left_out=tuple(left_out),
    )


# --- reading the drawing -------------------------------------------------------------------


def _parse(path: Path) -> Any:
    try:
        return svg.SVG.parse(str(path), reify=False)
    except FileNotFoundError as error:
        raise ScenarioError([f"{path}: no such drawing"]) from error
    except Exception as error:  # svgelements raises the XML parser's and its own errors
        raise ScenarioError([f"{path}: not a readable SVG drawing ({error})"]) from error


def _own(element: Any) -> dict[str, Any]:
    """The attributes written on the element itself (not those inherited from its groups)."""
    values = getattr(element, "values", None) or {}
    own = values.get("attributes")
    return own if isinstance(own, dict) else {}


def _walk(group: Any, groups: tuple[Any, ...]) -> Iterator[_Shape]:
    for element in group:
        if isinstance(element, (svg.Group, svg.Use)):
            yield from _walk(element, (*groups, element))
        elif isinstance(element, svg.Shape):
            yield _Shape(element, groups)


def _label(element: Any) -> str:
    return str(_own(element).get(INKSCAPE_LABEL, "")).strip()


def _classes(element: Any) -> list[str]:
    return str(_own(element).get("class", "")).split()


def _table_label(shape: _Shape) -> tuple[float, float] | tuple[()] | None:
    """``()`` for a shape marked ``table`` with no size, its size if its label gives one,
    None for any other shape."""
    for word in (_label(shape.element), *_classes(shape.element)):
        match = TABLE_LABEL.match(word)
        if match:
            return (float(match[1]), float(match[2])) if match[1] else ()
    return None


def _kind(shape: _Shape, known: dict[str, str]) -> tuple[str, float | None] | None:
    """The shape's terrain kind and the height its label gives, from the nearest label."""
    labels = [_label(shape.element), *(_label(g) for g in reversed(shape.groups))]
    for label in labels:
        match = KIND_LABEL.match(label.lower())
        word = re.sub(r"[\s_]+", "-", match[1].strip()) if match else ""
        if match and word in known:
            return known[word], float(match[2]) if match[2] else None
    for element in (shape.element, *reversed(shape.groups)):
        for word in _classes(element):
            if word.lower() in known:
                return known[word.lower()], None
    return None


def _unlabelled(shape: _Shape) -> str:
    labels = [x for x in (_label(e) for e in (shape.element, *reversed(shape.groups))) if x]
    classes = _classes(shape.element)
    said = []
    if labels:
        said.append("labelled " + ", ".join(repr(x) for x in labels))
    if classes:
        said.append("class " + repr(" ".join(classes)))
    what = f" ({'; '.join(said)})" if said else ""
    return f"no terrain kind in its label, its layer's label or its class{what}"


# --- the scale -----------------------------------------------------------------------------


def _frame(
    path: Path, root: Any, tables: list[_Shape], given: tuple[float, float] | None
) -> _Frame:
    if len(tables) > 1:
        names = ", ".join(t.name for t in tables)
        raise ScenarioError([f"{path}: {len(tables)} shapes are labelled 'table' ({names})"])
    if given is not None and (given[0] <= 0 or given[1] <= 0):
        raise ScenarioError([f"{path}: a table of {given[0]:g} x {given[1]:g} has no size"])
    if not tables:
        if given is None:
            raise ScenarioError(
                [
                    f"{path}: no scale: draw a rectangle labelled 'table' over the table's "
                    "edges, or give the table's size (--table WxD)"
                ]
            )
        width, height = float(root.width), float(root.height)
        return _Frame(0.0, 0.0, width, height, given[0], given[1])
    shape = tables[0]
    if not isinstance(shape.element, svg.Rect):
        raise ScenarioError([f"{path}: the shape labelled 'table' ({shape.name}) is not a rect"])
    left, top, right, bottom = _square_box(path, shape)
    drawn_w, drawn_d = right - left, bottom - top
    if drawn_w <= 0 or drawn_d <= 0:
        raise ScenarioError([f"{path}: the rectangle labelled 'table' has no size"])
    labelled = _table_label(shape)
    size = given or (labelled if labelled else None)
    if size is None:
        if not PHYSICAL_UNITS.match(str(_own(root).get("width", ""))):
            raise ScenarioError(
                [
                    f"{path}: no scale: the drawing is in pixels, so the rectangle labelled "
                    "'table' needs the table's size: label it 'table 72x48' or give "
                    "--table WxD"
                ]
            )
        size = (drawn_w / PX_PER_INCH, drawn_d / PX_PER_INCH)
    width, depth = size
    if abs((width / depth) / (drawn_w / drawn_d) - 1) > ASPECT_SLACK:
        raise ScenarioError(
            [
                f"{path}: a {width:g} x {depth:g} table does not fit the rectangle labelled "
                f"'table', drawn {drawn_w / drawn_d:.2f} times as wide as deep "
                "(width and depth swapped?)"
            ]
        )
    return _Frame(left, top, right, bottom, width, depth)


def _square_box(path: Path, shape: _Shape) -> tuple[float, float, float, float]:
    """The table rectangle's edges on the page; refused unless it lies square to the page."""
    rect = shape.element
    matrix = rect.transform
    x, y, w, h = (float(v) for v in (rect.x, rect.y, rect.width, rect.height))
    corners = [matrix.point_in_matrix_space((px, py)) for px, py in _corners(x, y, w, h)]
    xs, ys = [float(c[0]) for c in corners], [float(c[1]) for c in corners]
    left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)
    slack = 1e-6 * max(right - left, bottom - top, 1.0)
    square = all(
        (abs(cx - left) < slack or abs(cx - right) < slack)
        and (abs(cy - top) < slack or abs(cy - bottom) < slack)
        for cx, cy in zip(xs, ys, strict=True)
    )
    if not square:
        (ax, ay), (bx, by) = corners[0], corners[1]
        turn = math.degrees(math.atan2(float(by) - float(ay), float(bx) - float(ax))) % 90
        raise ScenarioError(
            [
                f"{path}: the rectangle labelled 'table' is turned {turn:.1f} degrees on the "
                "page: the table's edges must lie square to the page (turn the whole drawing)"
            ]
        )
    return left, top, right, bottom


def _corners(x: float, y: float, w: float, h: float) -> list[Point]:
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]


# --- shapes to pieces ----------------------------------------------------------------------


def _pieces(shape: _Shape, kind: str, frame: _Frame) -> tuple[list[dict[str, object]], str]:
    """The pieces one shape gives (more than one for several sub-paths or a shape the
    table's edge cuts in two), or none and why."""
    element = shape.element
    drawn = abs(svg.Path(element))
    tolerance_px = CHORD_TOLERANCE / max(frame.sx, frame.sy)
    closed_shape = isinstance(element, (svg.Rect, svg.Circle, svg.Ellipse, svg.Polygon))
    table = box(0, 0, frame.width, frame.depth)
    pieces: list[dict[str, object]] = []
    reasons: list[str] = []
    for points, closed in _flatten(drawn, tolerance_px):
        inches = [frame.inches(x, y) for x, y in points]
        if closed or closed_shape:
            made, why = _area(inches, table)
        else:
            stroke = element.implicit_stroke_width
            width = float(stroke or 0) * math.sqrt(frame.sx * frame.sy)
            made, why = _line(inches, width, table)
        pieces += made
        if why:
            reasons.append(why)
    if not pieces:
        return [], reasons[0] if reasons else "it draws nothing"
    return pieces, ""


def _flatten(path: Any, tolerance: float) -> list[tuple[list[Point], bool]]:
    """Each sub-path as a list of points within ``tolerance`` of the curve, and whether it
    is closed."""
    out: list[tuple[list[Point], list[bool]]] = []
    points: list[Point] = []
    for segment in path:
        if isinstance(segment, svg.Move):
            points = [_xy(segment.end)]
            out.append((points, [False]))
            continue
        if not out:  # svgelements starts every path with a move; be safe all the same
            points = [_xy(segment.start)]
            out.append((points, [False]))
        if isinstance(segment, svg.Close):
            out[-1][1][0] = True
            # A segment after Z draws a new sub-path from the closed one's start.
            points = [points[0]]
            out.append((points, [False]))
            continue
        steps = _steps(segment, tolerance)
        points.extend(_xy(segment.point(i / steps)) for i in range(1, steps + 1))
    return [(p, closed[0]) for p, closed in out if len(p) > 1]


def _xy(point: Any) -> Point:
    return float(point[0]), float(point[1])


def _steps(segment: Any, tolerance: float) -> int:
    """Chords enough that none strays more than ``tolerance`` from the curve.

    A chord over a parameter step h strays at most h**2/8 times the largest second
    derivative along it; for a cubic that is 6 times the largest second difference of its
    control points, for a quadratic twice its one, for an arc sweep**2 times the longer
    radius (svgelements runs an arc evenly in its angle).
    """
    if isinstance(segment, svg.CubicBezier):
        p = [segment.start, segment.control1, segment.control2, segment.end]
        bend = 6 * max(_second(p[0], p[1], p[2]), _second(p[1], p[2], p[3]))
    elif isinstance(segment, svg.QuadraticBezier):
        bend = 2 * _second(segment.start, segment.control, segment.end)
    elif isinstance(segment, svg.Arc):
        bend = float(segment.sweep) ** 2 * max(abs(float(segment.rx)), abs(float(segment.ry)))
    else:
        return 1
    return max(1, math.ceil(math.sqrt(bend / (8 * tolerance))))


def _second(a: Any, b: Any, c: Any) -> float:
    return math.hypot(
        float(a[0]) - 2 * float(b[0]) + float(c[0]), float(a[1]) - 2 * float(b[1]) + float(c[1])
    )


def _area(points: list[Point], table: Polygon) -> tuple[list[dict[str, object]], str]:
    outline = Polygon(points)
    if not outline.is_valid:
        return [], "its outline crosses itself"
    if outline.area == 0:
        return [], "it has no area"
    parts = _parts(outline if table.contains(outline) else outline.intersection(table))
    made: list[dict[str, object]] = []
    for part in parts:
        if not isinstance(part, Polygon):
            continue
        corners = _rounded(list(orient(part, sign=1.0).exterior.coords)[:-1], closed=True)
        if len(corners) >= 3 and Polygon(corners).is_valid and Polygon(corners).area > 0:
            made.append({"polygon": corners})
    if made:
        return made, ""
    return [], "it lies off the table" if outline.disjoint(table) else "it is too small"


def _line(points: list[Point], width: float, table: Polygon) -> tuple[list[dict[str, object]], str]:
    if round(width, DECIMALS) <= 0:
        return [], "an open path with no stroke width (close it for an area)"
    track = LineString(points)
    parts = _parts(track if table.contains(track) else track.intersection(table))
    made: list[dict[str, object]] = []
    for part in parts:
        if not isinstance(part, LineString):
            continue
        corners = _rounded(list(part.coords), closed=False)
        if len(corners) >= 2:
            made.append({"line": corners, "width": _num(width)})
    if made:
        return made, ""
    return [], "it lies off the table" if track.disjoint(table) else "it is too short"


def _parts(geometry: BaseGeometry) -> list[BaseGeometry]:
    if isinstance(geometry, (MultiPolygon, MultiLineString)) or hasattr(geometry, "geoms"):
        return list(geometry.geoms)
    return [] if geometry.is_empty else [geometry]


def _rounded(points: list[Point], closed: bool) -> list[list[float | int]]:
    """Corners to 0.01", dropping one that rounds onto the one before."""
    out: list[list[float | int]] = []
    for x, y in points:
        corner = [_num(x), _num(y)]
        if not out or corner != out[-1]:
            out.append(corner)
    if closed and len(out) > 2 and out[0] == out[-1]:
        out.pop()
    return out


def _num(value: float) -> Any:
    """Inches to 0.01", whole ones without a trailing .0 (as a person writes them)."""
    rounded = round(float(value), DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0
    return int(rounded) if rounded == int(rounded) else rounded


def _next_id(kind: str, taken: set[str]) -> str:
    n = 1
    while f"{kind}-{n}" in taken:
        n += 1
    return f"{kind}-{n}"
