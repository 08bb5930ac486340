"""Light, weather and wind combined into the effects in force (CD 9, 10).

How conditions combine (the rules give each on its own; several may hold at once):

- Wind first changes the weather it acts on: moderate wind makes precipitation one level
  worse and high wind makes it heavy (CD 10.1.2), for visibility and movement; on dusty
  ground moderate wind counts as mist and high wind as fog, for seeing only.
- Visibility: every condition in force (light, weather, dust) gives a maximum; the smallest
  wins. Spotting follows the most severe condition (severity in the conditions chart):
  a fixed distance beats a factor, a smaller factor beats a larger one.
- Movement: light and dust do not slow movement; the (wind-worsened) weather's multipliers
  apply to base allowances. Ground conditions are separate (move-cost) and multiply costs.
"""

from __future__ import annotations

import math
from dataclasses import field
from functools import cached_property
from typing import Any

from tabletop.core.frozen import frozen_dataclass
from tabletop.data import chart_params
from tabletop.data.chart_params import TableParams, WeatherParams
from tabletop.data.charts import Charts, Condition

PRECIPITATION_LEVELS = ("light", "steady", "heavy")


@frozen_dataclass
class Effects:
    """What the light and weather do now: how far one sees and spots (CD 9, 10), how fast
    vehicles and men move, how long a turn lasts, whether it is night, and why."""

    visibility: float | None
    spotting_factor: float | None
    spotting_fixed: float | None
    contact_up_to: float | None
    vehicle_move: float
    personnel_move: float
    turn_minutes: int
    night: bool
    because: tuple[str, ...] = field(default=())
    night_rules: dict[str, Any] = field(default_factory=dict)
    # What the two properties below are worked out from. They read chart parameters that
    # most callers never look at (most want visibility or whether it is night), so they are
    # worked out when first read: ``measure`` by day reads neither, which saves building
    # two charts' parameters (about 0.5 ms of each such command).
    wind_force: str = "light"
    weather_id: str = "clear"
    charts: Charts | None = field(default=None, repr=False, compare=False)

    @cached_property
    def smoke_max_length(self) -> float | None:
        """The longest smoke screen the wind allows (CD 10.1.2); None: no limit."""
        assert self.charts is not None, "built by effects()"
        # Named through the module, not imported by name: the barrage parameters' module
        # (with the ammunition's) then loads only when a smoke cap is read.
        barrage = self.charts.params(chart_params.BarrageParams)
        smoke_cap = {
            "light": barrage.smoke_max_length_light,
            "moderate": barrage.smoke_max_length_moderate,
            "high": barrage.smoke_max_length_high,
        }[self.wind_force]
        return None if smoke_cap == 0 else smoke_cap

    @cached_property
    def sound_deadened(self) -> str | None:
        """Why sound detection is impossible now, if it is (CD 9.3, 10.1.2)."""
        assert self.charts is not None, "built by effects()"
        deadening = set(self.charts.params(WeatherParams).sound_deadened_by.split(","))
        if self.wind_force in deadening:
            return f"{self.wind_force} wind (CD 9.3, 10.1.2)"
        if self.weather_id in deadening:
            return f"{self.weather_id} (CD 9.3)"
        return None

    def spotting_distance(self, daylight: float | None) -> float | None:
        """Spotting distance now for a target with this daylight distance (None: unlimited).

        0 means the target must be contacted to be spotted (CD 9.1.2, 10.2.1, 10.3.1).
        """
        if self.spotting_fixed is not None:
            if (
                daylight is not None
                and self.contact_up_to is not None
                and (daylight <= self.contact_up_to)
            ):
                return 0.0
            distance: float | None = self.spotting_fixed
        elif self.spotting_factor is not None and daylight is not None:
            distance = float(math.floor(daylight * self.spotting_factor))
        else:
            distance = daylight
        if self.visibility is not None:
            distance = self.visibility if distance is None else min(distance, self.visibility)
        return distance


def worsened_weather(weather: str, force: str) -> str:
    """Precipitation made worse by the wind (CD 10.1.2)."""
    kind, _, level = weather.partition("-")
    if kind not in ("rain", "snow") or level not in PRECIPITATION_LEVELS:
        return weather
    index = PRECIPITATION_LEVELS.index(level)
    if force == "moderate":
        index = min(index + 1, 2)
    elif force == "high":
        index = 2
    return f"{kind}-{PRECIPITATION_LEVELS[index]}"


def effects(conditions: dict[str, Any], charts: Charts) -> Effects:
    table = charts.conditions
    light = table[conditions["light"]]
    force = conditions["wind"]["force"]
    weather_id = worsened_weather(conditions["weather"], force)
    weather = table[weather_id]
    because = [f"light: {light.id} ({light.rule})"]
    if weather_id != conditions["weather"]:
        because.append(
            f"{conditions['weather']} worsened to {weather_id} by {force} wind (CD 10.1.2)"
        )
    elif weather.id != "clear":
        because.append(f"weather: {weather.id} ({weather.rule})")
    seeing: list[Condition] = [light, weather]
    if conditions.get("dusty") and force in ("moderate", "high"):
        dust = table["mist" if force == "moderate" else "fog"]
        seeing.append(dust)
        because.append(f"{force} wind on dusty ground counts as {dust.id} (CD 10.1.2)")
    limits = [c.visibility for c in seeing if c.visibility is not None]
    worst = max(seeing, key=lambda c: (c.severity, -(c.visibility or math.inf)))
    night = conditions["light"] in ("night-moonlit", "night-dark")
    return Effects(
        visibility=min(limits) if limits else None,
        spotting_factor=worst.spotting_factor,
        spotting_fixed=worst.spotting_fixed,
        contact_up_to=worst.contact_up_to,
        vehicle_move=weather.vehicle_move,
        personnel_move=weather.personnel_move,
        turn_minutes=int(light.turn_minutes or charts.params(TableParams).turn_minutes),
        night=night,
        because=tuple(because),
        night_rules=night_rules(charts) if night else {},
        wind_force=force,
        weather_id=weather_id,
        charts=charts,
    )


def night_rules(charts: Charts) -> dict[str, Any]:
    """What else changes in a night turn (CD 9.1.3 to 9.1.6)."""
    return {
        "quality": "one level lower; green stays green (CD 9.1.3)",
        "morale": charts.params(WeatherParams).night_morale,
        "pins": "no automatic recovery; test morale each morale phase (CD 9.1.4)",
        "orders_radius": charts.params(WeatherParams).orders_radius_night,
        "rally_orders": False,
        "aircraft": "grounded, except airborne missions (CD 9.1.6)",
        "aa_dice": charts.params(WeatherParams).night_aa_dice,
        "engineering": "a night turn per hour of work, at least one (CD 9.1.7)",
    }


def ground_effect(ground_id: str, charts: Charts) -> dict[str, Any]:
    """What the ground does now (CD 11), for ``weather show``: its movement multipliers, the
    roads it spares, whether ski-mobile stands pay normal costs and whether vehicles may mire,
    each as the ground chart says, with a sentence a referee reads aloud."""
    g = charts.table("ground")[ground_id]
    costs = [f"{who} x{n:g}" for who, n in (("personnel", g.personnel), ("vehicles", g.vehicle))]
    costs = [c for c, n in zip(costs, (g.personnel, g.vehicle), strict=True) if n != 1]
    if not costs and not g.mires:
        text = "no effect on movement"
    else:
        text = f"moving costs {' and '.join(costs)}"
        if g.road_exempt:
            text += f", not on {' or '.join(g.road_exempt)} roads"
        else:
            text += ", roads included"
        if g.unplowed_road:
            text += f"; vehicles x{g.unplowed_road:g} on unplowed roads"
        if g.ski:
            text += "; ski-mobile stands pay normal costs"
        if g.mires:
            text += f"; vehicles may mire (CD 11.1.4, {g.mires} mud)"
    return {
        "id": ground_id,
        "personnel": g.personnel,
        "vehicle": g.vehicle,
        "road_exempt": list(g.road_exempt),
        "unplowed_road": g.unplowed_road,
        "ski": g.ski,
        "mires": g.mires,
        "rule": g.rule,
        "text": text,
    }
