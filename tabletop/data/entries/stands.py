"""Entries of the stand kinds and quality charts: what a stand is, and its troop quality.

Loaded when a game first reads one of these charts (``charts.CHART_SCHEMAS``).
"""

# No ``from __future__ import annotations``, as in ``charts.py``.
from typing import Literal

from tabletop.core.frozen import frozen_dataclass
from tabletop.data.entries import Entry, Level
from tabletop.data.schema import bounded


@frozen_dataclass(kw_only=True)
class StandKind(Entry):
    category: Literal["personnel", "vehicle", "gun"]
    mobility: Literal[
        "foot", "mounted", "towed", "wheeled", "halftrack", "tracked", "static", "boat"
    ]
    armoured: bool = False
    soft: bool = False
    weak_afv: bool = False
    width: float = bounded(min=0.1, max=12)
    depth: float = bounded(min=0.1, max=12)
    weight_class: Level | None = None
    depletion_adjust_cm: int = bounded(0, min=-5, max=5)
    supply: bool = False
    engineer: bool = False
    earthmover: bool = False
    recovery: bool = False
    command: bool = False
    ap_immune: bool = False

    @property
    def is_vehicle(self) -> bool:
        return self.category == "vehicle"


@frozen_dataclass(kw_only=True)
class Quality(Entry):
    rank: int = bounded(min=0, max=9)
    no_effect_up_to: int = bounded(min=0, max=10)
    forced_back_up_to: int = bounded(min=0, max=10)
    night_as: str | None = None
