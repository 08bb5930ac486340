"""Typed parameters of the table's conventions (SPEC 2)."""

from __future__ import annotations

from typing import ClassVar

from tabletop.core.frozen import frozen_dataclass


@frozen_dataclass(kw_only=True)
class TableParams:
    """charts/table.yaml: table conventions (SPEC 2)."""

    CHART: ClassVar[str] = "table"

    inches_per_yard: float  # CD scale (SPEC 2)
    turn_minutes: int  # CD scale (SPEC 2)
    base_overlap_tolerance: float  # tabletop (default)
    forced_back_fraction: float  # CD core hit effects (default)
