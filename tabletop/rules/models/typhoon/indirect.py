"""Indirect bombardment: scatter and delays (ToS V Indirect bombardment fire, ToS II.B.3)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.words import count
from tabletop.rules.models.chance import percent, rolls_text, shown
from tabletop.rules.models.typhoon.opts import Opts
from tabletop.rules.models.typhoon.tables import EPS, Tables

# The game's eight directions (1 = N, clockwise to 8 = NW), as square steps (x east, y north).
STEPS: dict[int, tuple[int, int]] = {
    1: (0, 1),
    2: (1, 1),
    3: (1, 0),
    4: (1, -1),
    5: (0, -1),
    6: (-1, -1),
    7: (-1, 0),
    8: (-1, 1),
}


def max_scatter(
    t: Tables, base_id: str, los: bool, close: bool, off_map_he: bool
) -> tuple[float, list[str]]:
    """The maximum scatter: the base for how the fire was spotted, halved per modifier."""
    rows = t.tables["scatter_modifier"]
    value = float(t.entry("scatter", base_id).squares)
    lines = [f"{base_id}: {value:g} squares [{t.rule('scatter', base_id)}]"]
    for ident, applies in (
        ("scatter-los", los),
        ("scatter-close", close),
        ("scatter-off-map-he", off_map_he),
    ):
        if applies:
            value *= rows[ident].factor
            lines.append(f"  x{rows[ident].factor:g}: {rows[ident].note or ident}")
    return value, lines


def steps_for(scatter: float) -> int:
    """Whole squares walked (fractions dropped); under 1 uses the 25% / 1 square rule."""
    return math.floor(scatter + EPS)


def walk_odds(steps: int) -> Fraction:
    """P(a walk of ``steps`` random king moves ends where it began)."""
    where: dict[tuple[int, int], Fraction] = {(0, 0): Fraction(1)}
    for _ in range(steps):
        nxt: dict[tuple[int, int], Fraction] = {}
        for (x, y), p in where.items():
            for dx, dy in STEPS.values():
                key = (x + dx, y + dy)
                nxt[key] = nxt.get(key, Fraction(0)) + p / 8
        where = nxt
    return where.get((0, 0), Fraction(0))


def on_target_odds(t: Tables, scatter: float) -> Fraction:
    steps = steps_for(scatter)
    if steps < 1:
        return Fraction(int(t.p("scatter-best-on-target")), 100)
    return walk_odds(steps)


def run_scatter(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("scatter", options, t)
    spotted = o.flag("spotted", True)
    first = o.flag("first_round") and not (o.flag("self_spotter") or o.flag("direct"))
    blind = not spotted or o.flag("rocket") or first
    distance = o.number("range", None, 0) if o.given("range") else None
    close = distance is not None and distance < t.p("scatter-close-range")
    mods = (o.flag("los"), close, o.flag("off_map_he"))
    lines: list[str] = []
    check: bool | None = None
    if blind:
        base = "scatter-blind"
        p_on = on_target_odds(t, max_scatter(t, base, *mods)[0])
    else:
        skills = o.whole("firer_skill", None, 0, 10) + o.whole("spotter_skill", None, 0, 10)
        die = int(t.p("scatter-check-die"))
        roll = dice.roll(die, f"scatter accuracy check: passes on {skills} or less (d{die})")
        check = roll <= skills
        base = "scatter-check-passed" if check else "scatter-check-failed"
        lines.append(
            f"accuracy check d{die} {roll} vs skills {skills}: {'passed' if check else 'failed'}"
        )
        p_pass = Fraction(min(skills, die), die)
        p_on = p_pass * on_target_odds(t, max_scatter(t, "scatter-check-passed", *mods)[0]) + (
            1 - p_pass
        ) * on_target_odds(t, max_scatter(t, "scatter-check-failed", *mods)[0])
    value, more = max_scatter(t, base, *mods)
    lines.extend(more)
    x, y, directions = _walk(t, dice, value, lines)
    inches = t.scale.inches_per_square
    on_target = (x, y) == (0, 0)
    verdict = (
        "On target"
        if on_target
        else f'Scatters to ({x:+d}, {y:+d}) squares ({x * inches:+g}", {y * inches:+g}")'
    )
    return {
        "verdict": verdict,
        "max_scatter": value,
        "accuracy_check": check,
        "directions": directions,
        "offset": {"x": x, "y": y},
        "offset_inches": {"x": x * inches, "y": y * inches},
        "on_target": on_target,
        "chance_on_target": float(p_on),
        "chance_on_target_exact": str(p_on),
        "lines": lines,
    }


def _walk(t: Tables, dice: DiceLike, value: float, lines: list[str]) -> tuple[int, int, list[int]]:
    steps = steps_for(value)
    if steps < 1:
        best = t.p("scatter-best-on-target")
        stays, rolls = t.percent(dice, best, "scatter under 1 square: on target?")
        lines.append(
            f"scatter under 1: {rolls_text(rolls)}, on target {shown(percent(best))} of the "
            f"time [{t.rule('parameter', 'scatter-best-on-target')}]"
        )
        steps = 0 if stays else 1
    x = y = 0
    directions = []
    for i in range(steps):
        d = dice.roll(8, f"scatter step {i + 1} of {steps}: direction (1 = N, clockwise)")
        dx, dy = STEPS[d]
        x, y = x + dx, y + dy
        directions.append(d)
    if directions:
        lines.append(
            f"walked {count(steps, 'square')} in directions {directions}: ends ({x:+d}, {y:+d})"
        )
    return x, y, directions


PLOTTERS = ("self", "formation-hq", "battalion-hq", "other-hq")


def run_bombard_delay(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("bombard-delay", options, t)
    plotter = o.choice("plotter", PLOTTERS, "self")
    exception = o.flag("repeat") or o.flag("assault_first_turn") or o.flag("direct")
    ident = "delay-exception" if exception else f"delay-{plotter}"
    pulses = int(t.entry("delay", ident).pulses)
    lines = [f"administrative delay {count(pulses, 'pulse')}: {ident} [{t.rule('delay', ident)}]"]
    out: dict[str, Any] = {
        "delay_pulses": pulses,
        "delay_seconds": pulses * t.scale.seconds_per_pulse,
        "start_chance": None,
        "begins": None,
    }
    spotting = (
        o.flag("off_map")
        and o.flag("spotted", True)
        and not (o.flag("smoke") or o.flag("repeat") or o.flag("assault_first_turn"))
    )
    if spotting:
        chance = o.whole("spotter_skill", None, 0, 10) + o.whole("firer_skill", None, 0, 10)
        out["start_chance"] = chance
        lines.append(
            f"off-map spotting delay: fire begins on any pulse with {chance}% "
            "[ToS II.B.3 Indirect bombardment fire]"
        )
        if o.flag("check"):
            begins, rolls = t.percent(dice, chance, "off-map fire begins this pulse?")
            out["begins"] = begins
            lines.append(f"{rolls_text(rolls)}: {'begins' if begins else 'not yet'}")
    verdict = f"Fire begins after {count(pulses, 'pulse')}"
    if out["start_chance"] is not None:
        verdict += f", then {out['start_chance']}% a pulse (off-map spotting)"
    return {"verdict": verdict, **out, "lines": lines}
