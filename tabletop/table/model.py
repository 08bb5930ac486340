"""Plain value objects of the table: stands' bases, terrain pieces and sight-line results.

Units are inches, origin at the table's south-west corner, x east, y north; bearings are
degrees clockwise from north. Nothing here imports shapely: these objects are cheap to
build, compare and hash, and the geometry modules turn them into shapes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from tabletop.core.errors import BadInput
from tabletop.core.frozen import frozen_dataclass

Point = tuple[float, float]
Path = tuple[Point, ...]


def _finite(owner: str, field: str, value: float) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise BadInput(f"{owner}: {field} must be a number, got {value!r}") from None
    if not math.isfinite(value):
        raise BadInput(f"{owner}: {field} must be a finite number, got {value!r}")
    return value


def _path(owner: str, field: str, points: Iterable[Iterable[float]]) -> Path:
    # Scenario files give lists of lists; freeze them so the dataclass stays hashable.
    out: list[Point] = []
    for point in points:
        pair = tuple(point)
        if len(pair) != 2:
            raise BadInput(f"{owner}: each {field} point needs [x, y], got {list(pair)!r}")
        out.append((_finite(owner, field, pair[0]), _finite(owner, field, pair[1])))
    return tuple(out)


@frozen_dataclass
class Base:
    """A stand's base: a width x depth rectangle centred on (x, y), turned to `facing`.

    `width` runs across the facing direction and `depth` along it, so a stand facing north
    (bearing 0) has its width along x.
    """

    id: str
    x: float
    y: float
    width: float
    depth: float
    facing: float = 0.0

    def __post_init__(self) -> None:
        owner = f"stand {self.id!r}"
        for field in ("x", "y", "width", "depth", "facing"):
            object.__setattr__(self, field, _finite(owner, field, getattr(self, field)))
        if self.width <= 0 or self.depth <= 0:
            raise BadInput(
                f"{owner}: base width and depth must be positive, got "
                f"{self.width!r} x {self.depth!r}"
            )


@frozen_dataclass
class Piece:
    """A terrain piece: an area given as a polygon, or as a line `width` inches wide.

    `ground=True` marks a hill: the ground inside it is at level `height`, and `blocks` is
    not consulted (a hill blocks whenever it rises above a sight line). Otherwise `height`
    is how many levels the piece rises above the ground it stands on, and `blocks` says
    whether it can block sight at all (roads and rivers cannot). `see_into` is how far, in
    inches, a stand can see into the piece from a sight line's end inside it.
    """

    id: str
    kind: str
    polygon: Path | None = None
    line: Path | None = None
    width: float = 0.0
    blocks: bool = False
    height: float = 0.0
    ground: bool = False
    see_into: float = 0.0

    def __post_init__(self) -> None:
        owner = f"terrain {self.id!r}"
        if (self.polygon is None) == (self.line is None):
            raise BadInput(f"{owner}: give exactly one of 'polygon' or 'line'")
        for field in ("width", "height", "see_into"):
            object.__setattr__(self, field, _finite(owner, field, getattr(self, field)))
        if self.see_into < 0:
            raise BadInput(f"{owner}: see_into must be >= 0, got {self.see_into!r}")
        if self.polygon is not None:
            polygon = _path(owner, "polygon", self.polygon)
            if len(polygon) < 3:
                raise BadInput(f"{owner}: a polygon needs at least 3 points, got {len(polygon)}")
            object.__setattr__(self, "polygon", polygon)
        if self.line is not None:
            line = _path(owner, "line", self.line)
            if len(line) < 2:
                raise BadInput(f"{owner}: a line needs at least 2 points, got {len(line)}")
            if self.width <= 0:
                raise BadInput(f"{owner}: a line piece needs a positive width, got {self.width!r}")
            object.__setattr__(self, "line", line)


@frozen_dataclass
class Crossing:
    """How a sight line from A to B meets one terrain piece or smoke screen.

    `entry` and `exit` are the first entry into and the last exit from the piece along the
    line from A; `inside` is the total length of the line inside it (inches); `top` is the
    piece's top level (infinite for smoke, which has no top to see over); `line_level` is
    the sight line's lowest level over the piece.
    """

    piece_id: str
    kind: str
    entry: Point
    exit: Point
    inside: float
    top: float
    line_level: float
    blocks: bool
    reason: str


@frozen_dataclass
class SightLine:
    """The verdict and its working: every piece crossed, blocking or not, nearest A first."""

    clear: bool
    blocked_by: tuple[str, ...]
    crossings: tuple[Crossing, ...]
    level_a: float
    level_b: float
