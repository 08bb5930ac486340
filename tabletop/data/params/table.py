"""Typed parameters of the table's conventions (reference card)."""

from __future__ import annotations

from typing import ClassVar

from tabletop.core.frozen import frozen_dataclass


@frozen_dataclass(kw_only=True)
class TableParams:
    """charts/table.yaml: table conventions (reference card)."""

    CHART: ClassVar[str] = "table"

    inches_per_yard: float  # CD scale (reference card)
    turn_minutes: int  # CD scale (reference card)
    base_overlap_tolerance: float  # tabletop (default)
    forced_back_fraction: float  # CD core hit effects (default)
