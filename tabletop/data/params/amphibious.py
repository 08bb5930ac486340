"""Typed parameters of amphibious operations (CD 8)."""

from __future__ import annotations

from typing import ClassVar

from tabletop.core.frozen import frozen_dataclass


@frozen_dataclass(kw_only=True)
class AmphibiousParams:
    """charts/amphibious.yaml, its ``table: param`` rows: landings, lift, naval fire (CD 8).

    ``bombard-dice-<year>`` is also read by year, so an overlay may add a year of its own."""

    CHART: ClassVar[str] = "amphibious"

    approach_distance: float  # CD 8.1
    sea_kinds: str  # CD 8.1 (default)
    inland_water_kinds: str  # CD 8.1.2
    scatter_up_to: int  # CD 8.1.3
    scatter_left_on: str  # CD 8.1.3
    scatter_multiplier: float  # CD 8.1.3
    wade_cautious: float  # CD 8.1.4
    wade_hasty: float  # CD 8.1.4 (default)
    disembark_gap: float  # CD 8.1.1 (default)
    submerged_obstacle_kinds: str  # CD 8.1.6
    major_sides: str  # CD 8.2.3
    lift_personnel: int  # CD 8.3.1
    bombard_dice_max: int  # CD 8.4.1
    bombard_dice_1943: int  # CD 8.3 design note (default)
    bombard_dice_1944: int  # CD 8.3 design note (default)
    bombard_dice_1945: int  # CD 8.3 design note (default)
    bombard_weapon: str  # CD 8.4.1 (default)
    warships: str  # CD 8.4.2
    self_observing: str  # CD 8.4.3
    beach_sight_step: float  # CD 8.4.3 (default)
    response_base: int  # CD artillery response (reference card)
    response_dedicated: int  # CD 8.4.3; artillery response (reference card)
    response_nonartillery: int  # CD 8.4.3 (default)
    response_quality_plus: int  # CD artillery response (reference card)
    response_quality_minus: int  # CD artillery response (reference card)
    response_suppressed: int  # CD artillery response (reference card)
