"""Typed parameters of engineering (CD 2-5), minefields (CD 3) and structures (CD 6)."""

from __future__ import annotations

from typing import ClassVar

from tabletop.core.frozen import frozen_dataclass


@frozen_dataclass(kw_only=True)
class EngineeringParams:
    """charts/engineering.yaml: bridges, boats, obstacles, smoke generators, tasks (CD 2-5)."""

    CHART: ClassVar[str] = "engineering"

    demolition_range: float  # CD 2.4.1, 6.1.3
    demolition_die: int  # CD 2.4.1
    demolition_always_destroys: int  # CD 2.4.1
    repair_two_stands_saving: int  # CD 2.4.2
    bridge_set_span: float  # CD 2.4.3
    bridge_set_short_span: float  # CD 2.4.3
    bridge_max_span: float  # CD 2.4.3
    bank_preparation_turns: int  # CD 2.4.3
    vlb_turns: int  # CD 2.4.5, 4.2
    boat_speed: float  # CD 2.1
    boat_load_turns: float  # CD 2.1
    boat_max_gun_class: str  # CD 2.1
    hold_order_factor: int  # CD 4
    earthmover_turns: int  # CD 4
    earthmover_wire_inches: float  # CD 4.1
    gap_width: float  # CD 4
    adjacent: float  # tabletop (default)
    unmire_distance: float  # CD 11.1.5
    smoke_generator_width: float  # CD 5.3
    smoke_generator_length: float  # CD 5.3
    smoke_generator_max: float  # CD 5.3
    smoke_generator_dispersal: int  # CD 5.3
    night_hour_per_turn: float  # CD 9.1.7
    work_day_hours: float  # CD 5 (default)
    works_fortification_size: float  # CD 5.1.2 (default)
    works_ramp_width: float  # CD 5.1.2 (default)
    works_ramp_length: float  # CD 5.1.2 (default)
    works_crater_size: float  # CD 5.2.3 (default)
    works_line_width: float  # CD 5.2 (default)
    vlb_class: str  # CD 2.4.5 (default)
    vlb_bank_overlap: float  # CD 2.4.5 (default)


@frozen_dataclass(kw_only=True)
class MinesParams:
    """charts/mines.yaml: minefields (CD 3)."""

    CHART: ClassVar[str] = "mines"

    template_size: float  # CD 3
    real_per_engineer_company: int  # CD 3.1.2
    hit_personnel: int  # CD 3.2
    hit_other: int  # CD 3.2
    attacks_at_edge: int  # CD 3.2
    attacks_through: int  # CD 3.2
    clearing_tank_distance: float  # CD 3.3.2
    no_dummies_on: str  # CD 3.1.1
    no_mines_in: str  # CD 3.1.1 (default)


@frozen_dataclass(kw_only=True)
class StructuresParams:
    """charts/structures.yaml: structure damage (CD 6)."""

    CHART: ClassVar[str] = "structures"

    vulnerable_damaged_up_to: int  # CD 6.1.1, 6.1.2
    flimsy_damaged_up_to: int  # CD 6.1.1, 6.1.2
    large_calibre_mm: float  # CD 6.1
    large_calibre_bands: str  # CD 6.1
    fire_out_up_to: int  # CD 6.2.2
    fire_smoke_length: float  # CD 6.2.2
    fire_smoke_width: float  # CD 6.2.2
    fortification_hits_to_destroy: int  # CD 6.2.1
