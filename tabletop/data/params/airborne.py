"""Typed parameters of airborne operations (CD 7)."""

from __future__ import annotations

from typing import ClassVar

from tabletop.core.frozen import frozen_dataclass


@frozen_dataclass(kw_only=True)
class AirborneParams:
    """charts/airborne.yaml, its ``table: param`` rows: drops, gliders, AA fire (CD 7)."""

    CHART: ClassVar[str] = "airborne"

    aa_range: float  # CD 7.2.2
    aa_to_hit: int  # CD 7.2.2
    aa_rof_divisor: float  # CD 7.2.2
    abort_hits: int  # CD 7.2.1, 7.2.2, 7.3.1
    raise_per_aa_hit: float  # CD 7.2.1, 7.2.2
    bad_flying_weather: str  # CD 7.2.1 (default)
    glider_aa_hits: str  # CD 7.3.1 (default)
    square_size: float  # CD 7.2
    parachute_kinds: str  # CD 7.2 (default)
    scatter_sd_per_inch: float  # CD 7.2 (default)
    scatter_height_exponent: float  # CD 7.2 (default)
    marked_down_above: int  # CD 7.2.2
    down_hit_in: str  # CD 7.2.2
    descent_fire_range: float  # CD 7.2.2
    glider_zone_radius: float  # CD 7.3
    glider_length: float  # CD 7.3 (default)
    glider_width: float  # CD 7.3 (default)
    glider_destroyed_on: int  # CD 7.3.3
    landing_crew_plus: int  # CD 7.3.1
    landing_crew_minus: int  # CD 7.3.1
    deviation_plus_factor: float  # CD 7.3.3
    deviation_minus_factor: float  # CD 7.3.3
    glider_crash_kinds: str  # CD 7.3.3
    glider_prohibited_kinds: str  # CD 7.3.4 (default)
