"""Typed parameters of ammunition (CD 1) and indirect fire (CD 1.1, 9.2.1)."""

from __future__ import annotations

from typing import ClassVar

from tabletop.core.frozen import frozen_dataclass


@frozen_dataclass(kw_only=True)
class AmmoParams:
    """charts/ammo.yaml: ammunition depletion and supply (CD 1)."""

    CHART: ClassVar[str] = "ammo"

    min_calibre_mm: float  # CD 1
    trigger_face: int  # CD 1.1
    depletion_die: int  # CD 1.2
    resupply_radius: float  # CD 1.4
    resupply_levels: str  # CD 1.4
    flame_uses_man_pack: int  # CD 1.3.1
    flame_uses_vehicle: int  # CD 1.3.1
    flame_uses_trailer: int  # CD 1.3.1
    rocket_resupplies: int  # CD 1.3.3
    fires_per_turn: int  # CD core (default)
    small_arms_hit_armour: bool  # CD core (default)
    small_arms_fire_once: bool  # CD core (default)


@frozen_dataclass(kw_only=True)
class BarrageParams:
    """charts/barrage.yaml: indirect fire templates (CD 1.1, 9.2.1; reference card)."""

    CHART: ClassVar[str] = "barrage"

    min_fraction_under: float  # CD indirect fire (default)
    he_suppresses: bool  # CD indirect fire (reference card)
    hni_lands_up_to: int  # CD artillery response (reference card)
    smoke_length: float  # CD smoke (default)
    illum_area_factor: float  # CD 9.2.1
    template_lifetime_turns: int  # CD core (reference card)
    smoke_max_length_light: float  # CD 10.1.2
    smoke_max_length_moderate: float  # CD 10.1.2
    smoke_max_length_high: float  # CD 10.1.2
    observed_fire: bool  # CD artillery response (reference card)
