"""Combat results, effectiveness, morale states and reliability (SB Combat Results,
SB Effectiveness).

A combat value is scaled against the baseline of 10,000 to give the low and high casualty
values; the casualty value lies between them and its fraction is rounded up or down at
random. The table has no continuous random numbers, so both steps use percentile dice:
the value sits ``(d100 - 1/2)`` per cent of the way from low to high, and a fraction ``f``
rounds up with a chance of exactly ``f`` (to a hundredth of a percent, a second d100 settling
the boundary face: ``tabletop.rules.models.chance``, as the other models do). ``distribution``
gives the exact odds of that very procedure.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import field
from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.frozen import mutable_dataclass
from tabletop.rules.models.chance import roll_chance, rolls_text, settled, shown
from tabletop.rules.models.squad_battles.tables import Tables, frac

STATES = ("normal", "disrupted", "pinned", "demoralized")
HALF = Fraction(1, 2)


def num(x: Fraction | int | float, places: int = 3) -> float | int:
    """A number for JSON and the working: whole numbers stay whole."""
    value = Fraction(x) if not isinstance(x, Fraction) else x
    if value.denominator == 1:
        return int(value)
    return round(float(value), places)


def show(x: Fraction | int | float) -> str:
    value = num(x)
    return f"{value:g}" if isinstance(value, float) else str(value)


# --- combat results ----------------------------------------------------------------------


@mutable_dataclass
class CombatResult:
    combat_value: Fraction
    low: Fraction
    high: Fraction
    value: Fraction
    result: int
    rolls: list[int] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def scaled(
    combat_value: Fraction, lcv: Fraction, hcv: Fraction, baseline: Fraction
) -> tuple[Fraction, Fraction]:
    """SB Combat Results: LCV and HCV are the extremes at the baseline combat value."""
    share = combat_value / baseline
    return lcv * share, hcv * share


def position(low: Fraction, high: Fraction, roll: int) -> Fraction:
    return low + (roll - HALF) * (high - low) / 100


def combat_result(
    combat_value: Fraction,
    lcv: Fraction,
    hcv: Fraction,
    baseline: Fraction,
    dice: DiceLike,
    what: str,
    *,
    averaged: bool = False,
    modifier: Fraction = Fraction(1),
) -> CombatResult:
    """SB Combat Results: a random value between the scaled low and high, randomly rounded.

    ``averaged`` is the optional fire/assault results rule (the mean of two values);
    ``modifier`` the optional quality loss modifier, applied to low and high.
    """
    low, high = scaled(combat_value, lcv, hcv, baseline)
    low, high = low * modifier, high * modifier
    lines = [
        f"{what}: combat value {show(combat_value)} is {show(combat_value / baseline * 100)}% "
        f"of {show(baseline)}: low {show(lcv)} -> {show(low)}, high {show(hcv)} -> {show(high)}"
        + (f" (x{show(modifier)} quality loss modifier)" if modifier != 1 else "")
    ]
    rolls: list[int] = []
    if high > low:
        draws = 2 if averaged else 1
        values = []
        for _ in range(draws):
            r = dice.roll(100, f"{what}: where between low and high (percentile)")
            rolls.append(r)
            values.append(position(low, high, r))
        value = sum(values, Fraction(0)) / draws
        lines.append(
            f"  d100 {', '.join(map(str, rolls))}: value {show(value)}"
            + (" (the mean of two, optional averaged results)" if averaged else "")
        )
    else:
        value = low
    whole = math.floor(value)
    fraction = value - whole
    result = whole
    if fraction > 0:
        up, rolled = roll_chance(dice, fraction, f"{what}: round {show(value)} up")
        rolls.extend(rolled)
        result = whole + 1 if up else whole
        lines.append(
            f"  fraction {show(fraction)}: rounds up {shown(fraction)} of the time; "
            f"{rolls_text(rolled)} -> {result}"
        )
    return CombatResult(combat_value, low, high, value, result, rolls, lines)


def distribution(
    combat_value: Fraction,
    lcv: Fraction,
    hcv: Fraction,
    baseline: Fraction,
    *,
    averaged: bool = False,
    modifier: Fraction = Fraction(1),
) -> dict[int, Fraction]:
    """Exact odds of each result of ``combat_result`` (the same dice, enumerated)."""
    low, high = scaled(combat_value, lcv, hcv, baseline)
    low, high = low * modifier, high * modifier
    if high > low:
        points = [position(low, high, r) for r in range(1, 101)]
        if averaged:
            weighted: dict[Fraction, Fraction] = {}
            for a in points:
                for b in points:
                    v = (a + b) / 2
                    weighted[v] = weighted.get(v, Fraction(0)) + Fraction(1, 10_000)
            values = list(weighted.items())
        else:
            values = [(p, Fraction(1, 100)) for p in points]
    else:
        values = [(low, Fraction(1))]
    out: dict[int, Fraction] = {}
    for v, w in values:
        whole = math.floor(v)
        up = settled(v - whole) if v > whole else Fraction(0)
        if up:
            out[whole + 1] = out.get(whole + 1, Fraction(0)) + w * up
        if up != 1:
            out[whole] = out.get(whole, Fraction(0)) + w * (1 - up)
    return dict(sorted(out.items()))


# --- effectiveness -----------------------------------------------------------------------


def effectiveness_combat_value(
    tables: Tables, combat_value: Fraction, *, vehicle: bool, assault: bool = False
) -> Fraction:
    """SB Effectiveness Losses: x5, vehicles a further x10; assault losses doubled."""
    cv = combat_value * tables.param("effectiveness-scale")
    if vehicle:
        cv *= tables.param("vehicle-effectiveness-scale")
    return cv


def apply_effectiveness(tables: Tables, before: Fraction, loss: int) -> Fraction:
    """SB Effectiveness Values: never below the floor (and a loss never raises it)."""
    floor = tables.param("effectiveness-floor")
    return min(before, max(floor, before - loss))


def loss_modifier(tables: Tables, quality: str | None, infantry: bool, enabled: bool) -> Fraction:
    """SB Combat Results, optional quality loss modifier: infantry only."""
    if not enabled or not infantry or quality is None:
        return Fraction(1)
    return frac(tables.quality(quality).loss_modifier)


# --- morale ------------------------------------------------------------------------------


def morale_value(
    tables: Tables, quality: str, effectiveness: Fraction, state: str, inspired: bool = False
) -> tuple[int, list[str]]:
    """SB Effectiveness: Morale. Quality, less effectiveness and state penalties, at least 0."""
    nominal = tables.quality(quality).value
    why = [f"quality {quality} = {nominal}"]
    value = Fraction(nominal)
    if state == "demoralized":
        value = Fraction(0)
        why.append("demoralized: 0")
    else:
        penalty = Fraction(0)
        if effectiveness <= tables.param("morale-band-low"):
            penalty = tables.param("morale-penalty-low")
        elif effectiveness <= tables.param("morale-band-high"):
            penalty = tables.param("morale-penalty-high")
        if penalty:
            value -= penalty
            why.append(f"effectiveness {show(effectiveness)}%: -{show(penalty)}")
        if state == "disrupted":
            value -= tables.param("morale-disrupted")
            why.append(f"disrupted: -{show(tables.param('morale-disrupted'))}")
        elif state == "pinned":
            value -= tables.param("morale-pinned")
            why.append(f"pinned: -{show(tables.param('morale-pinned'))}")
    value = max(Fraction(0), value)
    if inspired:
        # SB Inspirational Weapons: +1 for checks on being fired upon.
        value += tables.param("inspired-morale")
        why.append(f"inspired: +{show(tables.param('inspired-morale'))}")
    return int(value), why


def die(tables: Tables) -> int:
    return int(tables.param("die-sides"))


@mutable_dataclass
class PinCheck:
    state: str
    ground: bool
    ran: bool
    rolls: list[int]
    lines: list[str]


def pin_check(
    tables: Tables,
    dice: DiceLike,
    *,
    state: str,
    quality: str,
    effectiveness: Fraction,
    men_lost: int,
    effectiveness_lost: int,
    ground: bool,
    inspired: bool = False,
    always: bool = False,
) -> PinCheck:
    """SB Combat Results: Pinned, Disrupted, and Demoralized, for a Team that was hit.

    Runs when the team lost effectiveness and either lost men or rolls the random-check
    face (``always``: sniper and demolition hits check whenever they have an effect). The
    team is disrupted unless pinned or demoralized already, then a die over its morale
    (taken after that disruption) pins it, or demoralizes it if it was pinned at 50% or
    less, and sends it to the ground.
    """
    rolls: list[int] = []
    lines: list[str] = []
    sides = die(tables)
    if effectiveness_lost <= 0:
        return PinCheck(state, ground, False, rolls, ["no effectiveness lost: no morale check"])
    if men_lost <= 0 and not always:
        face = int(tables.param("random-check-face"))
        r = dice.roll(sides, f"morale check without a strength loss: runs on a {face}")
        rolls.append(r)
        if r != face:
            lines.append(f"no men lost; d{sides} {r} is not {face}: no morale check")
            return PinCheck(state, ground, False, rolls, lines)
        lines.append(f"no men lost, but d{sides} {r}: morale check")
    before = state
    if state not in ("pinned", "demoralized"):
        state = "disrupted"
        lines.append("disrupted")
    morale, why = morale_value(tables, quality, effectiveness, state, inspired)
    r = dice.roll(sides, f"morale check: over {morale} fails")
    rolls.append(r)
    if r <= morale:
        lines.append(f"morale {morale} ({'; '.join(why)}): d{sides} {r} holds")
        return PinCheck(state, ground, True, rolls, lines)
    if before == "pinned" and effectiveness <= tables.param("demoralize-effectiveness"):
        state = "demoralized"
    elif state != "demoralized":
        state = "pinned"
    lines.append(f"morale {morale} ({'; '.join(why)}): d{sides} {r} fails: {state}, on the ground")
    return PinCheck(state, True, True, rolls, lines)


# --- enumerating small dice trees (for exact odds of branching procedures) ---------------


class _Need(Exception):
    def __init__(self, sides: int):
        self.sides = sides


class _Replay:
    def __init__(self, prefix: tuple[tuple[int, int], ...]):
        self.prefix = prefix
        self.at = 0

    def roll(self, sides: int, purpose: str) -> int:
        if self.at < len(self.prefix):
            value = self.prefix[self.at][0]
            self.at += 1
            return value
        raise _Need(sides)


def enumerate_rolls(run: Callable[[DiceLike], Any]) -> list[tuple[Fraction, Any]]:
    """Every way ``run`` can go, with its exact probability, by replaying its dice."""
    out: list[tuple[Fraction, Any]] = []
    pending: list[tuple[tuple[int, int], ...]] = [()]
    while pending:
        prefix = pending.pop()
        try:
            result = run(_Replay(prefix))
        except _Need as need:
            pending.extend((*prefix, (v, need.sides)) for v in range(need.sides, 0, -1))
            continue
        p = Fraction(1)
        for _, sides in prefix:
            p /= sides
        out.append((p, result))
    return out


# --- reliability and rest ----------------------------------------------------------------


def degrade(
    tables: Tables, reliability: str, effectiveness: Fraction, dice: DiceLike
) -> tuple[Fraction, list[int], str]:
    """SB Effectiveness: Reliability. The weapon keeps a random whole percentage of its
    effectiveness between its reliability's minimum and 100 (X never degrades)."""
    rel = tables.entry("reliability", reliability)
    if rel.min_percent >= 100:
        return effectiveness, [], f"reliability {reliability}: no degradation"
    sides = 100 - rel.min_percent + 1
    r = dice.roll(sides, f"reliability {reliability}: keeps {rel.min_percent - 1}% + this")
    kept = rel.min_percent - 1 + r
    after = max(tables.param("effectiveness-floor"), Fraction(round(effectiveness * kept / 100)))
    after = min(after, effectiveness)
    return (
        after,
        [r],
        f"reliability {reliability}: d{sides} {r} keeps {kept}% of {show(effectiveness)}% "
        f"-> {show(after)}% (whole per cent, not below 25%)",
    )
