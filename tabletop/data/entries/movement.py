"""Entries of the movement chart: each stand kind's base allowance.

Loaded when a game first reads one of these charts (``charts.CHART_SCHEMAS``).
"""

# No ``from __future__ import annotations``, as in ``charts.py``.

from tabletop.core.frozen import frozen_dataclass
from tabletop.data.entries import Entry
from tabletop.data.schema import bounded


@frozen_dataclass(kw_only=True)
class Allowance(Entry):
    """A stand kind's base movement allowance in inches (CD core; ``road`` for roads)."""

    cross: float = bounded(min=0, max=200)
    road: float | None = bounded(None, min=0, max=200)
