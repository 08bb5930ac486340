"""The eight points of the wind direction chart (CD 10.1.1): 1 is north, then clockwise.

The wind's direction, glider deviation (CD 7.3.1) and the map's wind arrow all read this
chart, so its layout lives in one place.
"""

from __future__ import annotations

from typing import Any

POINT_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
STEP = 360 // len(POINT_NAMES)  # degrees between neighbouring points


def point_bearing(point: int) -> int:
    """The compass bearing of chart point 1-8 (1 = north, 2 = north-east, ...)."""
    return (int(point) - 1) * STEP % 360


def point_name(point: object) -> str:
    """``NE`` for point 2; ``?`` for anything that is not a point of the chart."""
    if isinstance(point, int) and 1 <= point <= len(POINT_NAMES):
        return POINT_NAMES[point - 1]
    return "?"


def wind_bearing(conditions: dict[str, Any]) -> float:
    """The bearing smoke drifts toward: opposite where the wind blows from (CD 10.1.1)."""
    return (point_bearing(conditions["wind"]["from"]) + 180) % 360
