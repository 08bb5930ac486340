"""Chart entry classes: the base every entry shares, and the classes of the charts that not
every command reads, one module per area, each imported when a game first reads one of its
charts.

The entry classes of the charts that a line of sight reads (weapons, terrain, params,
conditions, spotting) are in ``tabletop.data.charts`` with the loading; ``charts.CHART_SCHEMAS``
names the others by ``"module:Class"``, and ``charts.StandKind`` and the rest still work
(``charts.__getattr__``). Defining a frozen dataclass costs about half a millisecond when its
module loads, and ``measure`` should not pay for the airborne charts (docs/performance.md).
"""

# No ``from __future__ import annotations``: the hints stay objects (see ``charts.py``).
from typing import Literal

from tabletop.core.frozen import frozen_dataclass

Level = Literal["I", "II", "III", "IV", "V", "VI"]


@frozen_dataclass(kw_only=True)
class Entry:
    """What every chart entry has: its id, the rule it puts in numbers, whether those numbers
    are our default where the seeds give none, and a note."""

    id: str
    rule: str
    default: bool = False
    note: str | None = None
