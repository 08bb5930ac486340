"""Entries of the ground, miring, wind and presets charts: ground and weather over a
day (CD 10, 11).

Loaded when a game first reads one of these charts (``charts.CHART_SCHEMAS``).
"""

# No ``from __future__ import annotations``, as in ``charts.py``.
from typing import Literal

from tabletop.core.frozen import frozen_dataclass
from tabletop.data.entries import Entry
from tabletop.data.schema import bounded


@frozen_dataclass(kw_only=True)
class GroundEffect(Entry):
    """Extra movement cost of a ground condition (CD 11)."""

    personnel: float = bounded(min=0)
    vehicle: float = bounded(min=0)
    road_exempt: tuple[Literal["hard", "paved", "dirt", "plowed"], ...] = ()
    unplowed_road: float | None = bounded(None, min=0)
    ski: bool = False
    mires: Literal["moderate", "deep"] | None = None


@frozen_dataclass(kw_only=True)
class Miring(Entry):
    """A row of the miring chart (CD 11.1.4); None where there is no chance."""

    vehicle: Literal["wheeled", "tracked"]
    where: Literal["open", "dirt-road"]
    moderate: int | None = bounded(None, min=0, max=10)
    deep: int | None = bounded(None, min=0, max=10)


@frozen_dataclass(kw_only=True)
class WindChange(Entry):
    """A row of the variable wind chart (CD 10.1.3)."""

    up_to: int = bounded(min=1, max=10)
    turn: int = bounded(min=-1, max=1)
    force: int = bounded(min=-1, max=1)


@frozen_dataclass(kw_only=True)
class Preset(Entry):
    """A region and season's D10 tables for a day's conditions (CD 11 geographical note)."""

    region: str
    season: Literal["spring", "summer", "autumn", "winter"]
    weather: tuple[tuple[int, str], ...]
    ground: tuple[tuple[int, str], ...]
    wind: tuple[tuple[int, str], ...] = ((10, "light"),)
    dusty_up_to: int = bounded(0, min=0, max=10)
