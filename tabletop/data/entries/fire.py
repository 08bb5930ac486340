"""Entries of the cover and modifiers charts: the to-hit modifiers of fire (CD 1).

Loaded when a game first reads one of these charts (``charts.CHART_SCHEMAS``).
"""

# No ``from __future__ import annotations``, as in ``charts.py``.
from typing import Literal

from tabletop.core.frozen import frozen_dataclass
from tabletop.data.entries import Entry
from tabletop.data.schema import bounded


@frozen_dataclass(kw_only=True)
class Cover(Entry):
    """To-hit modifiers for the target's cover (direct fire and indirect fire)."""

    direct: int = bounded(min=-10, max=10)
    indirect: int = bounded(min=-10, max=10)
    # Where the direct value comes from, when it is not the entry's rule (the indirect
    # values are published; the direct ones are our defaults).
    direct_rule: str | None = None


@frozen_dataclass(kw_only=True)
class Modifier(Entry):
    """A named to-hit modifier; the procedure decides when it applies, the chart its value."""

    label: str
    value: int = bounded(min=-10, max=10)
    fire: Literal["direct", "indirect", "both"] = "both"
