"""Typed parameters of weather, wind and night (CD 9, 10)."""

from __future__ import annotations

from typing import ClassVar

from tabletop.core.frozen import frozen_dataclass


@frozen_dataclass(kw_only=True)
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
