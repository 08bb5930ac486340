"""Entries of the obstacles and works charts: clearing obstacles and pregame works (CD 4, 5).

Loaded when a game first reads one of these charts (``charts.CHART_SCHEMAS``).
"""

# No ``from __future__ import annotations``, as in ``charts.py``.
from typing import Literal

from tabletop.core.frozen import frozen_dataclass
from tabletop.data.entries import Entry
from tabletop.data.schema import bounded


@frozen_dataclass(kw_only=True)
class ObstacleWork(Entry):
    """Clearing an obstacle (CD 4); the id is the terrain kind."""

    turns: int = bounded(min=1, max=20)
    earthmover: bool = True
    bridgeable: bool = False


@frozen_dataclass(kw_only=True)
class PregameWork(Entry):
    """A pregame work (CD 5): who builds it, how much a stand does in a day."""

    by: Literal["troops", "engineers", "companies"]
    per_day: float | None = bounded(None, min=0)
    unit: str | None = None
    earthmover: float | None = bounded(None, min=0)
    hours_in_place: float | None = bounded(None, min=0)
    days_in_place: float | None = bounded(None, min=0)
    cover: Literal["light", "medium", "hard", "fortification"] | None = None
    not_in: tuple[str, ...] = ()
    only_in: tuple[str, ...] = ()
    # Ground conditions (charts/ground.yaml ids) on which the work cannot be built (CD 5.1).
    not_on_ground: tuple[str, ...] = ()
