"""The ammunition depletion check a shot's dice can make due (CD 1, 1.2): which weapons it
applies to, its threshold, and the die itself.

Apart from ``ammo.py`` (whose supply rules measure distances on the table) so that planning
and rolling a shot, the quick-mode calculator among them, need no table geometry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletop.core.words import with_article
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


def is_small_arms(weapon: Weapon, charts: Charts) -> bool:
    """Rifles, submachine guns and machine guns: direct-fire weapons under the calibre that
    depletes (CD 1), other than flamethrowers. What they may do is the ammo chart's choice
    (small-arms-hit-armour, small-arms-fire-once): the seeds are silent."""
    if weapon.flame is not None or weapon.rocket or weapon.indirect:
        return False
    return (weapon.calibre_mm or 0) < charts.params(AmmoParams).min_calibre_mm


def adjust_rule(kind: StandKind) -> str:
    if kind.depletion_adjust_cm > 0:
        return f", 1.2.1: +{kind.depletion_adjust_cm} cm"
    if kind.depletion_adjust_cm < 0:
        # CD 1.2.2 names tanks; another kind counted as one is the chart's choice, said so.
        choice = "" if kind.id == "tank" else f", {with_article(kind.id)} counted as a tank"
        return f", 1.2.2: {kind.depletion_adjust_cm} cm{choice}"
    return ""
