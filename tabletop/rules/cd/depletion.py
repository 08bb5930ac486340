"""The ammunition depletion check a shot's dice can make due (CD 1, 1.2): which weapons it
applies to, its threshold, and the die itself.

Apart from ``ammo.py`` (whose supply rules measure distances on the table) so that planning
and rolling a shot, the quick-mode calculator among them, need no table geometry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletop.data.chart_params import AmmoParams

if TYPE_CHECKING:
    from tabletop.core.dice import DiceLike
    from tabletop.data.charts import Charts, StandKind, Weapon


def depletes_by_roll(weapon: Weapon, charts: Charts) -> bool:
    """Whether a to-hit die showing 1 can deplete this weapon (CD 1, 1.1, 1.3)."""
    if weapon.flame is not None or weapon.rocket:
        return False  # fixed quantities instead (CD 1.3.1, 1.3.3)
    return (weapon.calibre_mm or 0) >= charts.params(AmmoParams).min_calibre_mm


def depletion_threshold(weapon: Weapon, kind: StandKind) -> int:
    """Depleted when the depletion die is at or under this (CD 1.2, 1.2.1, 1.2.2)."""
    return weapon.calibre_cm + kind.depletion_adjust_cm


def roll_depletion(threshold: int, dice: DiceLike, sides: int, purpose: str) -> bool:
    """One depletion die (CD 1.2). The odds command enumerates this same function."""
    return dice.roll(sides, purpose) <= threshold
