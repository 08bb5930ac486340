"""Percentage chances settled with percentile dice, to a hundredth of a percent.

The computer games behind the alternative models draw real-valued random numbers: Mech
Brigade states chances to two decimals (MB 7.3's example: a 45.38% chance of a kill),
Typhoon of Steel compares accuracies such as 70.57 with ``Rnd(100)`` (ToS V Notation), and
Squad Battles rounds a casualty value's fraction up at random. One d100 settles the whole
percents: for 45.38%, 1-45 succeeds and 47-100 fails; a 46, the one face that straddles the
boundary, is settled by a second d100 for the hundredths (1-38 succeeds). That is exactly
45.38%, and only one roll in a hundred needs the second die. A chance that rounds to 0% or
100% rolls nothing. ``settled`` is the probability those dice give, for exact odds.
"""

from __future__ import annotations

import math
from fractions import Fraction

from tabletop.core.dice import DiceLike, roll_in_bands

SCALE = 10_000  # hundredths of a percent


def basis(chance: Fraction) -> int:
    """The chance in hundredths of a percent, rounded half up, from 0 to 10000."""
    return max(0, min(SCALE, math.floor(chance * SCALE + Fraction(1, 2))))


def settled(chance: Fraction) -> Fraction:
    """The probability the dice actually give for ``chance``."""
    return Fraction(basis(chance), SCALE)


def shown(chance: Fraction) -> str:
    """``45.38%``, ``51%``: the chance the dice give, as the working prints it."""
    whole, part = divmod(basis(chance), 100)
    return f"{whole}.{part:02d}%".replace(".00%", "%")


def percent(value: float | Fraction) -> Fraction:
    """A chance given in percent (``70.57``) as a probability, exactly as given."""
    return Fraction(value) / 100


def roll_chance(dice: DiceLike, chance: Fraction, purpose: str) -> tuple[bool, list[int]]:
    """Whether the chance comes up, and the d100s rolled (none when it is 0% or 100%)."""
    points = basis(chance)
    if points in (0, SCALE):
        return points == SCALE, []
    whole, part = divmod(points, 100)
    rule = [f"yes on 1-{whole}"] if whole else []
    if part:
        rule.append(f"{whole + 1} rolls again for 1-{part}")
    # The faces matter by band only (yes, the straddling face, no): the odds try one of each.
    cuts = (whole, whole + 1) if part else (whole,)
    first = roll_in_bands(dice, 100, f"{purpose}: {'; '.join(rule)}", cuts)
    if first <= whole:
        return True, [first]
    if part and first == whole + 1:
        second = roll_in_bands(dice, 100, f"{purpose}, hundredths: yes on 1-{part}", (part,))
        return second <= part, [first, second]
    return False, [first]


def rolls_text(rolls: list[int]) -> str:
    """``d100 46 then d100 38``, or ``no roll`` when the chance was 0% or 100%."""
    return " then ".join(f"d100 {r}" for r in rolls) or "no roll"
