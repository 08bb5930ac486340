"""Placing stand labels so they do not sit on each other or on other stands.

A greedy search, deterministic and quick enough for a few hundred stands: each label tries
positions around its stand, nearest first (below, above, right, left, then the corners,
then the same further out), and takes the first that overlaps no label already placed and
no other stand. When every position is taken it goes where it overlaps least, and the
drawing joins it to its stand with a thin leader line.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from tabletop.core.frozen import frozen_dataclass

Box = tuple[float, float, float, float]  # x0, y0, x1, y1

CELL = 4.0  # inches: the spatial hash's cell, about two stands wide


@frozen_dataclass
class Item:
    id: str
    anchor: Box  # the stand's bounding box
    width: float  # the label's size, in table inches
    height: float


@frozen_dataclass
class Placed:
    id: str
    x: float  # the label's centre
    y: float
    box: Box
    leader: bool  # True when the label sits away from its stand


class _Grid:
    """Boxes hashed by the cells they touch, for fast overlap queries."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[str, Box]]] = defaultdict(list)

    @staticmethod
    def _keys(box: Box) -> Iterator[tuple[int, int]]:
        for i in range(int(box[0] // CELL), int(box[2] // CELL) + 1):
            for j in range(int(box[1] // CELL), int(box[3] // CELL) + 1):
                yield (i, j)

    def add(self, owner: str, box: Box) -> None:
        for key in self._keys(box):
            self.cells[key].append((owner, box))

    def overlap(self, box: Box, ignore: str) -> float:
        seen: set[int] = set()
        total = 0.0
        for key in self._keys(box):
            for owner, other in self.cells.get(key, ()):
                if owner == ignore or id(other) in seen:
                    continue
                seen.add(id(other))
                total += _area(box, other)
        return total


def _area(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _candidates(item: Item, gap: float) -> Iterator[tuple[float, float, bool]]:
    x0, y0, x1, y1 = item.anchor
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    w, h = item.width, item.height
    for step in range(3):
        g = gap + step * (h + gap)
        far = step > 0
        yield cx, y0 - g - h / 2, far  # below
        yield cx, y1 + g + h / 2, far  # above
        yield x1 + g + w / 2, cy, far  # right
        yield x0 - g - w / 2, cy, far  # left
        yield x1 + g + w / 2, y0 - g - h / 2, far  # below right
        yield x0 - g - w / 2, y0 - g - h / 2, far  # below left
        yield x1 + g + w / 2, y1 + g + h / 2, far  # above right
        yield x0 - g - w / 2, y1 + g + h / 2, far  # above left


def place(items: list[Item], bounds: Box, gap: float = 0.1) -> list[Placed]:
    """A position for every label, in the order given."""
    grid = _Grid()
    for item in items:
        grid.add(item.id, item.anchor)
    placed = []
    for item in items:
        best: tuple[float, int, Placed] | None = None
        for order, (x, y, far) in enumerate(_candidates(item, gap)):
            box = (x - item.width / 2, y - item.height / 2, x + item.width / 2, y + item.height / 2)
            outside = _outside(box, bounds)
            cost = grid.overlap(box, ignore=item.id) + outside * 10
            candidate = Placed(item.id, x, y, box, far)
            if cost == 0:
                best = (0.0, order, candidate)
                break
            if best is None or cost < best[0]:
                best = (cost, order, candidate)
        assert best is not None
        chosen = best[2]
        placed.append(chosen)
        grid.add(f"label:{item.id}", chosen.box)
    return placed


def _outside(box: Box, bounds: Box) -> float:
    inside = _area(box, bounds)
    return (box[2] - box[0]) * (box[3] - box[1]) - inside
