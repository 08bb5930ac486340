"""Mech Brigade's formulas (MB 7.3-7.6), one function each, in exact fractions.

Every constant comes from the chart through ``Tables``; ``fire.py`` strings these together
and writes the working. The kill roll's reading is ours (see ``killed_distribution``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from tabletop.rules.models.chance import settled
from tabletop.rules.models.mech_brigade.data import Profile, Tables


def half_up(x: Fraction) -> int:
    """The nearest whole number, halves rounded up (the seed's 'rounds off')."""
    return math.floor(x + Fraction(1, 2))


def squares(value: Fraction) -> int:
    """The nearest whole square, halves rounded up."""
    return math.floor(value + Fraction(1, 2))


def num(x: Fraction | int | float, places: int = 4) -> str:
    """A number for the working, rounded half up, without trailing zeros (45.375, 0.4538)."""
    scale = 10**places
    exact = Fraction(x) if not isinstance(x, float) else Fraction(str(x))
    sign = "-" if exact < 0 else ""
    whole, part = divmod(math.floor(abs(exact) * scale + Fraction(1, 2)), scale)
    text = f"{whole}.{part:0{places}d}".rstrip("0").rstrip(".") if places else str(whole)
    return sign + text if text != "0" else "0"


# --- formulas ----------------------------------------------------------------------------------


def range_term(t: Tables, rng: int, max_range: int) -> Fraction:
    """MB 7.3: 90 at range 0, falling in proportion to 1 at maximum range.

    The worked example reads 90 x (MR - R) / MR (60 at 6 of 18, giving 121); that reaches 0,
    not the printed 1, at maximum range, so the term is floored at the maximum-range value.
    """
    zero = t.num("accuracy-zero-range")
    if rng <= 0 or max_range <= 0:
        return zero
    return max(t.num("accuracy-max-range"), zero * (max_range - rng) / max_range)


def cannon_accuracy(t: Tables, ac: int, pulses: int, rng: int, max_range: int) -> Fraction:
    """MB 7.3 (1)-(2): (range term + AC x pulses) squared / 100."""
    base = range_term(t, rng, max_range) + ac * pulses
    return base * base / t.num("accuracy-divisor")


def plain_accuracy(t: Tables, ac: int, pulses: int, rng: int, max_range: int) -> Fraction:
    """MB 7.4 (4): against non-vehicles the sum is neither squared nor divided by 100."""
    return range_term(t, rng, max_range) + ac * pulses


def atgm_accuracy(t: Tables, ac: int, min_range: int, rng: int) -> Fraction:
    """MB 7.3 ATGM (1): twice the rating; the printed AC at minimum range, 99 beyond it."""
    rating = Fraction(ac) if rng == min_range else t.num("atgm-beyond-minimum-rating")
    return rating * t.num("atgm-multiplier")


def blocking_factor(t: Tables, points: int | Fraction) -> Fraction:
    """MB 7.3 (7): accuracy x 2 / (2 + blocking points)."""
    base = t.num("blocking-base")
    return base / (base + points)


def moving_divisor(t: Tables, speed: Fraction) -> Fraction:
    """MB 7.3 (4): a moving vehicle divides accuracy by 2 + speed / 10."""
    return t.num("accuracy-moving-base") + speed / t.num("accuracy-moving-speed")


def apf(t: Tables, ss: int, mp: int, rng: int, max_range: int) -> Fraction:
    """MB 7.3 KILLS (2): SS x SS / 4 + MP - MP x (R / MR) / 2 (before the cap)."""
    share = Fraction(rng, max_range) if max_range else Fraction(0)
    return (
        Fraction(ss * ss) / t.num("apf-shell-divisor")
        + mp
        - mp * share / t.num("apf-range-divisor")
    )


def halvings(t: Tables, penetration: Fraction, armour: Fraction) -> int:
    """MB 7.3 KILLS (4): accuracy halves below 1.25 x armour, and again below the armour."""
    count = 0
    if penetration < t.num("apf-first-halving") * armour:
        count += 1
        if penetration < t.num("apf-second-halving") * armour:
            count += 1
    return count


def vehicle_kills(
    t: Tables, penetration: Fraction, accuracy: Fraction, weapons: int, armour: Fraction
) -> Fraction:
    """MB 7.3 KILLS (5): APF x accuracy x weapons / (armour x 1000)."""
    return penetration * accuracy * weapons / (armour * t.num("kills-divisor"))


def nonvehicle_kills(
    t: Tables, ss: int, accuracy: Fraction, weapons: int, defence: Fraction
) -> Fraction:
    """MB 7.4 KILLS (1): SS x SS x accuracy x weapons / (defence x 1000)."""
    return ss * ss * accuracy * weapons / (defence * t.num("kills-divisor"))


def suppression_added(t: Tables, ss: int, accuracy: Fraction, weapons: int) -> Fraction:
    """MB 7.6: shell size squared, times accuracy (10 at least) squared, times weapons
    firing, over the charted divisor (200)."""
    acc = max(accuracy, t.num("suppression-min-accuracy"))
    return ss * ss * acc * acc * weapons / t.num("suppression-divisor")


def kill_chance(kills: Fraction) -> tuple[int, Fraction]:
    """Kills certain, and the chance of one more as the dice settle it (``chance.py``)."""
    certain = math.floor(kills)
    extra = settled(kills - certain)
    if extra == 1:
        return certain + 1, Fraction(0)
    return certain, extra


def killed_distribution(kills: Fraction, strength: int | None) -> dict[int, Fraction]:
    """Our reading of MB 7.3's example (a kill number of 0.4538 is a 45.38% chance of a kill;
    1.51 is one kill and a 51% chance of a second): P(killed = n) for each n, never more
    than ``strength`` when it is known."""
    certain, chance = kill_chance(kills)
    if strength is not None and certain >= strength:
        return {strength: Fraction(1)}
    dist = {certain: 1 - chance, certain + 1: chance}
    return {n: p for n, p in dist.items() if p}


def suppression_cap(t: Tables, target: Profile) -> int:
    key = "suppression-cap-vehicle" if target.is_vehicle else "suppression-cap-nonvehicle"
    return t.whole(key)
