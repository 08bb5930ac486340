"""Entries of the airborne charts (CD 7).

Loaded when a game first reads one of these charts (``charts.CHART_SCHEMAS``).
"""

# No ``from __future__ import annotations``, as in ``charts.py``.
from typing import Literal

from tabletop.core.frozen import frozen_dataclass
from tabletop.data.entries import Entry


@frozen_dataclass(kw_only=True)
class AirborneRow(Entry):
    """A row of the airborne charts (CD 7): ``table`` names the chart, ``key`` the quality or
    light it is for (drop-height, drop-raise, landing-number, crew), or nothing (param)."""

    table: Literal["drop-height", "drop-raise", "landing-number", "crew", "param"]
    key: str | None = None
    value: float | bool | str
    unit: str | None = None
