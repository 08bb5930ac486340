"""Exact odds of fire, computed by enumerating the very procedures the commands roll.

No simulation: ``tabletop.core.odds.distribution`` runs ``resolve_die`` (and ``roll_depletion``)
over every face of every die, and ``convolve`` folds ROF dice with the same ``fold`` the
``fire`` command uses. Results are exact fractions.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tabletop.core.odds import convolve, distribution
from tabletop.data.chart_params import AmmoParams, BarrageParams
from tabletop.data.charts import Charts
from tabletop.rules.cd.depletion import roll_depletion
from tabletop.rules.cd.fire import (
    ELIMINATED,
    FORCED_BACK,
    MISSED,
    NO_EFFECT,
    SUPPRESSED,
    FirePlan,
    Tally,
    fold,
    outcome,
    resolve_die,
)  # fmt: skip

FATES = (MISSED, NO_EFFECT, FORCED_BACK, ELIMINATED)


def depletion_chance(threshold: int | None, sides: int) -> Fraction:
    if threshold is None:
        return Fraction(0)
    dist = distribution(lambda d: roll_depletion(threshold, d, sides, "depletion"))
    return dist.get(True, Fraction(0))


def tallies(
    plan: FirePlan, trigger_face: int, dice: int | None = None, counts_for_depletion: bool = True
) -> dict[Tally, Fraction]:
    step = distribution(
        lambda d: resolve_die(
            plan, d, 1, counts_for_depletion=counts_for_depletion, trigger_face=trigger_face
        )
    )
    return convolve(Tally(), step, plan.rof if dice is None else dice, fold)


def fire_odds(plan: FirePlan, charts: Charts) -> dict[str, Any]:
    face = charts.params(AmmoParams).trigger_face
    sides = charts.params(AmmoParams).depletion_die
    dist = tallies(plan, face)
    p_one = (
        depletion_chance(plan.depletion_threshold, sides)
        if plan.depletion == "roll"
        else Fraction(0)
    )
    outcomes: dict[str, Fraction] = {}
    hits: dict[int, Fraction] = {}
    depleted = Fraction(0)
    checks = Fraction(0)
    for tally, p in dist.items():
        name = outcome(tally, plan.miss_effect)
        outcomes[name] = outcomes.get(name, Fraction(0)) + p
        hits[tally.hits] = hits.get(tally.hits, Fraction(0)) + p
        checks += p * tally.triggers
        depleted += p * (1 - (1 - p_one) ** tally.triggers)
    if plan.depletion == "rocket":
        depleted = Fraction(1)
    ammo_after = _ammo_after(plan, depleted)
    ordered = {k: outcomes[k] for k in (*FATES, SUPPRESSED) if k in outcomes}
    return {
        "outcomes": ordered,
        "hits": dict(sorted(hits.items())),
        "ammunition": ammo_after,
        "expected": {
            "hits": sum((p * t.hits for t, p in dist.items()), Fraction(0)),
            "depletion_checks": checks,
            "depleted": depleted,
        },
    }


def _ammo_after(plan: FirePlan, depleted: Fraction) -> dict[str, Fraction]:
    if plan.depletion == "limited":
        return {"spent after this phase": Fraction(1)}
    if plan.depletion == "flame":
        return {"one use fewer": Fraction(1)}
    if plan.depletion == "never":
        return {"ok": Fraction(1)}
    return {"ok": 1 - depleted, "depleted": depleted}


def barrage_odds(plans: dict[str, FirePlan], marked: str | None, charts: Charts) -> dict[str, Any]:
    """Per stand under an HE template, and the chance the marked die depletes (CD 1.1)."""
    face = charts.params(AmmoParams).trigger_face
    sides = charts.params(AmmoParams).depletion_die
    stands: dict[str, Any] = {}
    depleted = Fraction(0)
    hits = Fraction(0)
    for sid, plan in plans.items():
        counts = marked is None or sid == marked
        dist = tallies(plan, face, dice=1, counts_for_depletion=counts)
        fates: dict[str, Fraction] = {}
        for tally, p in dist.items():
            name = outcome(tally, plan.miss_effect)
            fates[name] = fates.get(name, Fraction(0)) + p
            hits += p * tally.hits
            if tally.triggers and plan.depletion == "roll":
                depleted += p * depletion_chance(plan.depletion_threshold, sides)
        stands[sid] = {"to_hit": plan.to_hit, "outcomes": fates}
    return {
        "stands": stands,
        "outcomes": {"depleted": depleted, "not depleted": 1 - depleted},
        "expected": {
            "hits": hits,
            "eliminated": sum(
                (s["outcomes"].get(ELIMINATED, 0) for s in stands.values()), Fraction(0)
            ),
            "depleted": depleted,
        },
    }


def as_json(value: Any) -> Any:
    """Fractions as floats, plus an ``exact`` twin of each probability table."""
    if isinstance(value, Fraction):
        return float(value)
    if isinstance(value, dict):
        return {str(k): as_json(v) for k, v in value.items()}
    return value


def exact(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dict):
        return {str(k): exact(v) for k, v in value.items()}
    return value


def template_odds(b: Any, charts: Charts) -> dict[str, Any]:
    """The odds of a prepared barrage (``barrage.prepare``): H&I lands on the charted number
    or less and suppresses what it lands on (CD 1.1, SPEC 2); smoke and illumination are
    placed, not rolled; HE rolls per stand under the template (``barrage_odds``)."""
    if b.hni:
        lands = Fraction(charts.params(BarrageParams).hni_lands_up_to, 10)
        return {
            "stands": {
                sid: {"outcomes": {"suppressed": lands, "untouched": 1 - lands}}
                for sid, _ in b.under
            },
            "outcomes": {"lands": lands, "astray": 1 - lands},
            "expected": {"stands suppressed": lands * len(b.under)},
        }
    if b.ammo != "he":
        return {"stands": {}, "outcomes": {"template placed": Fraction(1)}, "expected": {}}
    marked = b.under[0][0] if len(b.under) > 1 else None
    return barrage_odds(b.plans, marked, charts)
