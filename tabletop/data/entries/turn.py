"""Entries of the turn chart: the phases of a turn, in order.

Loaded when a game first reads one of these charts (``charts.CHART_SCHEMAS``).
"""

# No ``from __future__ import annotations``, as in ``charts.py``.
from dataclasses import dataclass

from tabletop.data.entries import Entry


@dataclass(frozen=True, kw_only=True)
class Phase(Entry):
    """A phase of the turn, the actions it allows, and whether depletion is rolled in it."""

    label: str
    allows: tuple[str, ...] = ()
    depletion_rolls: bool = False
