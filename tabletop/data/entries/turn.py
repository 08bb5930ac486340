"""Entries of the turn chart: the phases of a turn, in order, and the steps at their boundaries.

Loaded when a game first reads one of these charts (``charts.CHART_SCHEMAS``).
"""

# No ``from __future__ import annotations``, as in ``charts.py``.

from tabletop.core.frozen import frozen_dataclass
from tabletop.data.entries import Entry


@frozen_dataclass(kw_only=True)
class Phase(Entry):
    """An entry of the turn chart: a phase (the actions it allows, and whether depletion is
    rolled in it), or, with ``at``, a step run at a boundary.

    Steps are named here, in the order they run at their boundary, so the order of the
    turn's bookkeeping is read from the chart rather than from numbers in the code. ``at``
    is ``start-turn``, ``end-turn``, ``end-phase`` (as any phase ends),
    ``start-phase:<phase>`` or ``end-phase:<phase>``; the procedure is the one a rule area
    registers under the step's id (``rules/sequence.py``).
    """

    label: str
    at: str | None = None
    allows: tuple[str, ...] = ()
    depletion_rolls: bool = False
