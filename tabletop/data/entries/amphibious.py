"""Entries of the amphibious charts (CD 8).

Loaded when a game first reads one of these charts (``charts.CHART_SCHEMAS``).
"""

# No ``from __future__ import annotations``, as in ``charts.py``.
from typing import Literal

from tabletop.core.frozen import frozen_dataclass
from tabletop.data.entries import Entry, Level
from tabletop.data.schema import bounded


@frozen_dataclass(kw_only=True)
class AmphibiousRow(Entry):
    """A row of the amphibious charts (CD 8): a craft type, a crew quality by year, or a
    param. Fields that do not belong to a row's table are left out."""

    table: Literal["craft", "crew-by-year", "param"]
    value: float | bool | str | None = None
    unit: str | None = None
    # craft (CD 8.1.1, 8.1.2, 8.2.1, 8.2.2)
    lands: Literal["beaches", "drives-ashore"] | None = None
    target: Literal["weak-afv", "soft"] | None = None
    armour: int | None = bounded(None, min=0, max=20)
    weight_class: Level | None = None
    ap_immune: bool = False
    open_water: float | None = bounded(None, min=0, max=1)
    inland_water: float | None = bounded(None, min=0, max=1)
    # crew-by-year (CD 8.2.3); major None: any nation
    from_year: int | None = bounded(None, min=1900, max=2100)
    up_to_year: int | None = bounded(None, min=1900, max=2100)
    major: bool | None = None
    quality: str | None = None
