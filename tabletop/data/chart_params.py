"""Typed parameters: one frozen dataclass per chart of single values (``Param`` entries, or
the ``table: param`` rows of the airborne and amphibious charts).

``charts.params(EngineeringParams).adjacent`` gives a ``float``, checked when first asked for
(a chart overlay with a word where a number belongs is a ChartError naming the entry, not a
crash later). A field is the entry whose id is the field's name with ``-`` for ``_``;
counts, dice faces and turns are ``int`` (an overlay must give a whole number), distances
and fractions ``float``. Entries an overlay adds beyond the fields are read from the chart's
table by the few procedures that look a key up by name (a morale level by quality, naval
bombardment dice by year).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from tabletop.data.charts import ParamSet


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
class BarrageParams:
    """charts/barrage.yaml: indirect fire templates (CD 1.1, 9.2.1; SPEC 2)."""

    CHART: ClassVar[str] = "barrage"

    min_fraction_under: float  # CD indirect fire (default)
    he_suppresses: bool  # CD indirect fire (SPEC 2)
    hni_lands_up_to: int  # CD artillery response (SPEC 2)
    smoke_length: float  # CD smoke (default)
    illum_area_factor: float  # CD 9.2.1
    template_lifetime_turns: int  # CD core (SPEC 2)
    smoke_max_length_light: float  # CD 10.1.2
    smoke_max_length_moderate: float  # CD 10.1.2
    smoke_max_length_high: float  # CD 10.1.2


@dataclass(frozen=True, kw_only=True)
class TableParams:
    """charts/table.yaml: table conventions (SPEC 2)."""

    CHART: ClassVar[str] = "table"

    inches_per_yard: float  # CD scale (SPEC 2)
    turn_minutes: int  # CD scale (SPEC 2)
    base_overlap_tolerance: float  # tabletop (default)


@dataclass(frozen=True, kw_only=True)
class WeatherParams:
    """charts/weather.yaml: changing the weather (CD 10.1, 10.2.3, 10.3.3) and night (CD 9)."""

    CHART: ClassVar[str] = "weather"

    wind_reroll_above: int  # CD 10.1.1
    fog_change_up_to: int  # CD 10.2.3
    fog_thins_up_to: int  # CD 10.2.3
    precipitation_change_up_to: int  # CD 10.3.3 (default)
    precipitation_lightens_up_to: int  # CD 10.3.3 (default)
    orders_radius_day: float  # CD 9.1.5
    orders_radius_night: float  # CD 9.1.5
    night_morale: int  # CD 9.1.3
    night_aa_dice: int  # CD 9.1.6
    sound_personnel: float  # CD 9.3
    sound_vehicle: float  # CD 9.3
    sound_noise_radius: float  # CD 9.3
    sound_distance_factor: float  # CD 9.3
    sound_deadened_by: str  # CD 9.3, 10.1.2
    fire_light_radius: float  # CD 9.2
    large_fire_light_radius: float  # CD 9.2
    searchlight_width: float  # CD 9.2.2
    searchlight_length: float  # CD 9.2.2
    flooded_mud_margin: float  # CD 10.3.4
    personnel_ice_class: str  # CD 11.3 (default)


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
class MoraleParams:
    """charts/morale.yaml: morale tests (CD core, our defaults; CD 9.1.3-9.1.5 at night).

    The levels are also read by quality name (``level-<quality>``), so an overlay may add a
    level for a quality of its own; the fields are the bundled ones."""

    CHART: ClassVar[str] = "morale"

    die: int  # CD core (default)
    level_green: int  # CD core (default)
    level_trained: int  # CD core (default)
    level_regular: int  # CD core (default)
    level_experienced: int  # CD core (default)
    level_veteran: int  # CD core (default)
    level_elite: int  # CD core (default)
    level_none: int  # CD core (default)
    night_pins_test: bool  # CD 9.1.4
    results: str  # CD core (default); CD 9.1.5


# --- charts of mixed rows: the parameters are the rows with ``table: param`` ------------------


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
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
    response_base: int  # CD artillery response (SPEC 2)
    response_dedicated: int  # CD 8.4.3; artillery response (SPEC 2)
    response_nonartillery: int  # CD 8.4.3 (default)
    response_quality_plus: int  # CD artillery response (SPEC 2)
    response_quality_minus: int  # CD artillery response (SPEC 2)
    response_suppressed: int  # CD artillery response (SPEC 2)


# The charts made only of parameters: each entry is a field.
ALL: tuple[type[ParamSet], ...] = (
    AmmoParams,
    BarrageParams,
    TableParams,
    WeatherParams,
    EngineeringParams,
    MinesParams,
    StructuresParams,
    MoraleParams,
)

# The charts of mixed rows: each ``table: param`` row is a field.
ROWS: tuple[type[ParamSet], ...] = (AirborneParams, AmphibiousParams)
