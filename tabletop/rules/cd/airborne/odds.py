"""Exact odds of a parachute drop and of a glider landing (CD 7.2, 7.3), part by part.

A drop rolls the AA dice, then two d100 and a d10 for every square, then a hit effect for
each square down in rough ground: run whole, that is 10^5 branches a square, far too many to
enumerate. The parts are independent once the AA has fired, so the odds are given per part
(per square of a drop, per glider), each exact, worked out by enumerating the same stage
functions the command rolls with (``tabletop.core.odds.distribution``):

- the AA: every die of every gun through ``aa.aa_die``, over the joint state of all the
  aircraft (which are hit, forced back, aborted), so a square's slot on the ruler, which
  depends on how many others still fly, is exact too;
- a square's fall: its drift (``drop.drift_roll``, the 10^4 pairs of d100) once per drop
  height, the ground at each point (``common.sites_of``), the side it lands (``side_roll``),
  what the ground does to it (``landing``) and the hit effect (``common.stand_effect``);
- a glider: its landing roll, the deviation's direction (the chart's faces that are rolled
  again are left out: the chance of each face kept is its share of the faces kept) and
  distance, the site it deviates onto, and the crash (``gliders._crash``).

What the per-part figures leave out is said in ``PartsReport.assumes``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Hashable
from dataclasses import field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.core.frozen import mutable_dataclass
from tabletop.core.odds import distribution
from tabletop.data.chart_params import AirborneParams, WeatherParams
from tabletop.rules.cd.airborne import drop as drops
from tabletop.rules.cd.airborne import gliders
from tabletop.rules.cd.airborne.aa import aa_die
from tabletop.rules.cd.airborne.common import (
    Aircraft,
    site_groups,
    stand_effect,
)  # fmt: skip
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow

# The branches one stage may take (the largest is a drift: 100 x 100 faces).
STAGE_LIMIT = 20_000
# What the AA may leave of a stick (each aircraft hit, forced back or aborted), and the
# falls worked out (a square's slot depends on how many others still fly): beyond these the
# answer would take minutes, and is refused.
AA_STATES_LIMIT = 5_000
FALLS_LIMIT = 400

Plane = tuple[int, int, str | None]  # an aircraft's hits, forced-back results, why aborted


@mutable_dataclass
class PartOdds:
    """One part's exact outcomes (most likely first), and where it comes down."""

    part: str
    stand: str
    outcomes: dict[str, Fraction]
    where: dict[str, Fraction] = field(default_factory=dict)


@mutable_dataclass
class PartsReport:
    """A command's odds, part by part: each part exact on its own; ``assumes`` says what the
    figures take as given where one part can change another."""

    command: str
    per: str
    parts: list[PartOdds]
    assumes: list[str]
    expected: dict[str, Fraction] = field(default_factory=dict)
    where: str = "where"  # what each part's ``where`` tells, in the text output


def with_dice(ctx: RulesContext, dice: DiceLike) -> RulesContext:
    """The same context rolling other dice (the enumerator's)."""
    return replace(ctx, dice=dice, subjects=set())


def add(into: dict[Any, Fraction], key: Any, p: Fraction) -> None:
    into[key] = into.get(key, Fraction(0)) + p


def ordered(dist: dict[str, Fraction]) -> dict[str, Fraction]:
    return dict(sorted(dist.items(), key=lambda kv: (-kv[1], kv[0])))


def stage(procedure: Callable[[Any], Hashable]) -> dict[Any, Fraction]:
    return distribution(procedure, STAGE_LIMIT)


# --- AA (CD 7.2.2, 7.3.1) ------------------------------------------------------------------------


def _planes(aircraft: list[Aircraft], state: tuple[Plane, ...]) -> list[Aircraft]:
    return [
        replace(a, hits=h, forced_back=f, aborted=why)
        for a, (h, f, why) in zip(aircraft, state, strict=True)
    ]


def _snapshot(aircraft: list[Aircraft]) -> tuple[Plane, ...]:
    return tuple((a.hits, a.forced_back, a.aborted) for a in aircraft)


def aa_states(
    ctx: RulesContext, aircraft: list[Aircraft], guns: list[Any], glider: bool
) -> dict[tuple[Plane, ...], Fraction]:
    """The joint distribution of what the AA leaves of every aircraft, die by die."""
    dist = {_snapshot(aircraft): Fraction(1)}
    for gun in guns:
        memo: dict[tuple[Plane, ...], dict[Any, Fraction]] = {}
        for index in range(1, gun["dice"] + 1):
            following: dict[tuple[Plane, ...], Fraction] = {}
            for state, p in dist.items():
                if state not in memo:
                    memo[state] = stage(_aa_step(ctx, aircraft, state, gun, index, glider))
                for after, q in memo[state].items():
                    add(following, after, p * q)
            dist = following
            if len(dist) > AA_STATES_LIMIT:
                raise BadInput(
                    f"the odds cannot be worked out exactly here: the AA may leave the "
                    f"{len(aircraft)} aircraft more than {AA_STATES_LIMIT} ways; name fewer "
                    "guns with --aa, or a smaller stick"
                )
    return dist


def _aa_step(
    ctx: RulesContext,
    aircraft: list[Aircraft],
    state: tuple[Plane, ...],
    gun: dict[str, Any],
    index: int,
    glider: bool,
) -> Callable[[Any], tuple[Plane, ...]]:
    """One AA die from this state of the aircraft, as the enumerator runs it."""

    def one(dice: Any) -> tuple[Plane, ...]:
        planes = _planes(aircraft, state)
        aa_die(with_dice(ctx, dice), planes, gun, index, glider)
        return _snapshot(planes)

    return one


def _aborted_note(guns: list[Any]) -> list[str]:
    if not guns:
        return []
    return [
        "AA: every die of " + ", ".join(g["stand"] for g in guns) + " is in each part's "
        "figure (hits fall on a random aircraft still flying); the AA's ammunition checks "
        "are not shown"
    ]


# --- the drop (CD 7.2) ---------------------------------------------------------------------------


def drop_odds(ctx: RulesContext, inputs: dict[str, Any]) -> PartsReport:
    """Each square's exact outcome and where it comes down (CD 7.1, 7.2, 7.2.2)."""
    plan = drops.plan_drop(ctx, inputs)
    charts = ctx.charts
    joint = aa_states(ctx, plan.aircraft, plan.guns, glider=False)
    stands = {s["id"]: s for s in plan.stands}
    outcomes: dict[str, dict[str, Fraction]] = {a.label: {} for a in plan.aircraft}
    where: dict[str, dict[str, Fraction]] = {a.label: {} for a in plan.aircraft}
    drifts: dict[float, Any] = {}
    falls: dict[Any, dict[tuple[str, str], Fraction]] = {}
    effects: dict[str, dict[Any, Fraction]] = {}
    flying = {tuple(why is None for _, _, why in state) for state in joint}
    if len(flying) * len(plan.aircraft) > FALLS_LIMIT:
        raise BadInput(
            f"the odds cannot be worked out exactly here: the AA may leave {len(flying)} "
            f"different sets of the {len(plan.aircraft)} aircraft flying, each laying the "
            "squares out differently; name fewer guns with --aa, or a smaller stick"
        )
    for state, p in joint.items():
        planes = _planes(plan.aircraft, state)
        slots = drops.flight_slots(charts, planes, plan.zone, plan.heading)
        for plane in planes:
            height, _ = drops.drop_height(charts, plane.crew, plane.forced_back, plan.raised)
            if plane.aborted is not None or height is None:
                add(outcomes[plane.label], f"aborted: {plane.aborted or 'aborted (CD 7.2.1)'}", p)
                add(where[plane.label], "not dropped", p)
                continue
            key = (plane.label, slots[plane.label], height)
            if key not in falls:
                falls[key] = _fall_odds(ctx, plane, stands[plane.stand], slots[plane.label],
                                        height, drifts, effects)  # fmt: skip
            for (outcome, ground), q in falls[key].items():
                add(outcomes[plane.label], outcome, p * q)
                add(where[plane.label], ground, p * q)
    parts = [
        PartOdds(a.label, a.stand, ordered(outcomes[a.label]), ordered(where[a.label]))
        for a in plan.aircraft
    ]
    assumes = [
        "each square on its own: its figure is exact, but squares are not combined (two "
        "squares may land on one another: nudge them apart after the roll)",
        *_aborted_note(plan.guns),
    ]
    if any(a.part for a in plan.aircraft):
        assumes.append(
            "a gun drops as three squares (crew, ammunition, weapon, CD 7.1): the stand comes "
            "down where its weapon does; its crew lands without it if the weapon is lost"
        )
    expected = {
        "squares down": sum(
            (q for part in parts for k, q in part.outcomes.items() if _down(k)), Fraction(0)
        )
    }
    return PartsReport("airborne-drop", "square", parts, assumes, expected, "comes down in")


def _weights(dist: dict[Any, Fraction]) -> tuple[list[Any], Any, int]:
    """A distribution as its outcomes and whole-number weights over one denominator (ten
    thousand drift points are then summed as integers, not fractions)."""

    denominator = math.lcm(*(p.denominator for p in dist.values()))
    weights = np.array([int(p * denominator) for p in dist.values()], dtype=np.int64)
    return list(dist), weights, denominator


def effect_roll(ctx: RulesContext, stand: StandRow, why: str) -> Callable[[Any], str]:
    """A hit on a stand as it comes down (``stand_effect``), as the enumerator runs it."""

    def one(dice: Any) -> str:
        return stand_effect(with_dice(ctx, dice), stand, why)

    return one


def _down(outcome: str) -> bool:
    """A square that lands (suppressed or hit, but not eliminated by the hit)."""
    return outcome.startswith(("landed", "suppressed")) and not outcome.endswith("eliminated")


def _fall_odds(
    ctx: RulesContext,
    plane: Aircraft,
    stand: StandRow,
    slot: tuple[float, float],
    height: float,
    drifts: dict[float, Any],
    effects: dict[str, dict[Any, Fraction]],
) -> dict[tuple[str, str], Fraction]:
    """(outcome, ground) of one square falling from this slot and height."""
    charts = ctx.charts
    sigma = drops.scatter_sigma(height, charts)
    if sigma not in drifts:
        drifts[sigma] = _weights(stage(lambda dice: drops.drift_roll(dice, plane, sigma)[2:4]))
    offsets, weights, denominator = drifts[sigma]
    points = [(slot[0] + dx, slot[1] + dy) for dx, dy in offsets]
    grounds = [
        (site, Fraction(int(weights[where].sum()), denominator))
        for site, where in site_groups(ctx, points)
    ]
    sides = stage(lambda dice: drops.side_roll(dice, plane, charts)[1])
    out: dict[tuple[str, str], Fraction] = {}
    for site, q in grounds:
        ids = [p.id for p in site["pieces"]]
        ground = "off the table" if site["off_table"] else " + ".join(ids) or "open ground"
        for down, r in sides.items():
            result = drops.landing(charts, site, bool(down))
            outcome = result["outcome"]
            if outcome == "lost":
                add(out, (f"lost: {result['why']}", ground), q * r)
            elif outcome == "hit":
                if plane.part == "ammo":
                    # CD 7.1: the ammunition square lands apart; no effect is rolled for it.
                    add(out, ("suppressed and hit: ammunition apart", ground), q * r)
                    continue
                if stand["id"] not in effects:
                    why = f"{plane.label} landed down in {result['rough']}"
                    effects[stand["id"]] = stage(effect_roll(ctx, stand, why))
                for effect, e in effects[stand["id"]].items():
                    add(out, (f"suppressed and hit: {effect}", ground), q * r * e)
            else:
                add(out, (outcome, ground), q * r)
    return out


# --- gliders (CD 7.3) ----------------------------------------------------------------------------


class _Ones:
    """Dice that show 1: the gliders before the one worked out land where they aimed."""

    def roll(self, sides: int, purpose: str) -> int:
        return 1


def glider_odds(ctx: RulesContext, inputs: dict[str, Any]) -> PartsReport:
    """Each glider's exact outcome (CD 7.3.1-7.3.4)."""
    plan = gliders.plan_gliders(ctx, inputs)
    charts, state = ctx.charts, ctx.state
    joint = aa_states(ctx, plan.aircraft, plan.guns, glider=True)
    marginals: list[dict[Any, Fraction]] = [{} for _ in plan.aircraft]
    for snap, p in joint.items():
        for i, plane in enumerate(snap):
            add(marginals[i], plane, p)
    overcast = inputs.get("overcast")
    landed: list[tuple[float, float]] = []
    used: set[int] = set()
    parts = []
    ones = with_dice(ctx, _Ones())
    for stand, glider, marginal in zip(plan.stands, plan.aircraft, marginals, strict=True):
        target = plan.targets.get(stand["id"])
        aim = gliders._glider_target(ctx, stand["id"], plan.zone, plan.heading, target,
                                     list(landed), set(used))  # fmt: skip
        outcomes: dict[str, Fraction] = {}
        where: dict[str, Fraction] = {}
        for (hits, forced, why), p in marginal.items():
            if why is not None:
                add(outcomes, f"aborted: {why}", p)
                add(where, "not landed", p)
                continue
            hit = replace(glider, hits=hits, forced_back=forced)
            number, _ = gliders.landing_number(charts, state.conditions, glider.crew, hits,
                                               overcast)  # fmt: skip
            for (outcome, ground), q in _glide_odds(ctx, stand, hit, aim, plan, number).items():
                add(outcomes, outcome, p * q)
                add(where, ground, p * q)
        parts.append(PartOdds(stand["id"], stand["id"], ordered(outcomes), ordered(where)))
        # The next glider aims and may crash as if this one came down where it aimed.
        gliders._glide(ones, stand, replace(glider), plan.zone, plan.heading, target, landed,
                       used, overcast)  # fmt: skip
    assumes = [
        "each glider on its own: its figure assumes the gliders before it in the stick came "
        "down where they aimed (that decides where it aims and which gliders it may hit)",
        *_aborted_note(plan.guns),
    ]
    safe = ("landed", "deviated", "crashed")
    expected = {
        "gliders down": sum(
            (q for part in parts for k, q in part.outcomes.items() if k.startswith(safe)),
            Fraction(0),
        )
    }
    return PartsReport("airborne-glider", "glider", parts, assumes, expected, "comes down")


def _glide_odds(
    ctx: RulesContext,
    stand: StandRow,
    plane: Aircraft,
    aim: tuple[float, float],
    plan: Any,
    number: int,
) -> dict[tuple[str, str], Fraction]:
    """(outcome, where) of one glider with this landing number, aiming at ``aim``."""
    charts = ctx.charts
    out: dict[tuple[str, str], Fraction] = {}
    destroyed_on = charts.params(AirborneParams).glider_destroyed_on
    above = charts.params(WeatherParams).wind_reroll_above
    rolls = stage(lambda dice: gliders.landing_roll(dice, stand["id"], number))
    faces = stage(lambda dice: gliders.direction_roll(dice, plane, charts))
    kept = {f: q for f, q in faces.items() if f <= above}
    share = sum(kept.values(), Fraction(0))
    crash: dict[Any, Fraction] | None = None
    for roll, p in rolls.items():
        if roll == destroyed_on:
            add(out, (f"lost: rolled {roll}: destroyed or lost en route (CD 7.3.3)", "lost"), p)
            continue
        if roll <= number:
            add(out, ("landed where it aimed", "where it aimed"), p)
            continue
        for point, q in kept.items():
            ats = stage(_deviation_step(ctx, plane, aim, point))
            for at, r in ats.items():
                chance = p * q / share * r
                lost, crashed = gliders._glider_site(ctx, stand, at, plan.heading)
                if lost is not None:
                    add(out, (f"lost: {lost}", "lost"), chance)
                elif not crashed:
                    add(out, ("deviated, down safely", "off its mark"), chance)
                else:
                    if crash is None:
                        crash = _crash_odds(ctx, stand, at, number)
                    ground = "crashed into " + ", ".join(crashed)
                    for worst, s in crash.items():
                        add(out, (f"crashed: {worst}", ground), chance * s)
    return out


def _deviation_step(
    ctx: RulesContext, plane: Aircraft, aim: tuple[float, float], point: int
) -> Callable[[Any], tuple[float, float]]:
    """Where a glider deviating toward ``point`` comes down, as the enumerator runs it."""

    def one(dice: Any) -> tuple[float, float]:
        return gliders.deviation_at(with_dice(ctx, dice), plane, aim, point, [])[0]

    return one


def _crash_odds(
    ctx: RulesContext, stand: StandRow, at: tuple[float, float], number: int
) -> dict[Any, Fraction]:
    """The worst effect of a crash: a hit, a second landing check, a second hit if it fails
    (CD 7.3.4), rolled on a copy of the stand down where it crashed."""

    def one(dice: Any) -> str:
        down = copy.deepcopy(stand)
        down["x"], down["y"] = at
        return str(gliders._crash(with_dice(ctx, dice), down, number, [])["worst"])

    return stage(one)
