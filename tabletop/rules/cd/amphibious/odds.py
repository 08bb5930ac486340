"""Exact odds of a wave's scatter and of craft running in to the beach (CD 8.1, 8.1.3, 8.2),
part by part.

A wave's companies scatter independently (CD 8.1.3: a die each, then a die for the side and
one for the distance), and each craft meets its own hazards on the run in (CD 8.1.1, 8.1.5,
8.1.6, 8.2.4, 8.2.5). Run whole, the branches multiply company by company and craft by
craft; part by part they add. Each part is worked out by enumerating the function the
command rolls with (``landing.scatter_roll``, ``landing._land_one``) through
``tabletop.core.odds.distribution``.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.odds import TooManyBranches, convolve
from tabletop.rules.cd.airborne.odds import PartOdds, PartsReport, add, ordered, stage, with_dice
from tabletop.rules.cd.amphibious import landing, naval
from tabletop.rules.cd.amphibious.common import ELIMINATED
from tabletop.rules.cd.barrage import prepare
from tabletop.rules.cd.odds import template_odds
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow


def scatter_odds(ctx: RulesContext, inputs: dict[str, Any]) -> PartsReport:
    """Each company's scatter (CD 8.1.3): on target or which way, how far, and whether its
    craft's approach positions stay on the table (CD 8.1)."""
    plan = landing.plan_approach(ctx, inputs)
    companies: dict[str, list[tuple[StandRow, float]]] = {}
    for (craft, _), offset in zip(plan.crafts, plan.offsets, strict=True):
        companies.setdefault(landing._company(ctx, craft), []).append((craft, offset))
    parts = []
    expected = Fraction(0)
    for company, crafts in companies.items():

        def roll(dice: Any, company: str = company) -> tuple[bool, str | None, float]:
            entry = landing.scatter_roll(dice, ctx.charts, company)
            return entry["scattered"], entry.get("direction"), entry["inches"]

        outcomes: dict[str, Fraction] = {}
        where: dict[str, Fraction] = {}
        # Where, from the farthest left to the farthest right.
        for (scattered, direction, inches), p in sorted(stage(roll).items(), key=_by_inches):
            shown = f'{direction} {abs(inches):g}"' if scattered else "on target"
            add(where, shown, p)
            refused = _off_table(ctx, plan, crafts, inches)
            if refused is not None:
                add(outcomes, f"refused: {refused}", p)
            else:
                add(outcomes, f"scattered {direction}" if scattered else "on target", p)
            if scattered:
                expected += p
        parts.append(PartOdds(company, company, ordered(outcomes), where))
    assumes = [
        "each company on its own: its craft shift together along the shore; a shift that "
        "puts any craft's approach off the table refuses the whole approach (CD 8.1)"
    ]
    return PartsReport(
        "amphibious-approach",
        "company",
        parts,
        assumes,
        {"companies scattered": expected},
        "scatter",
    )


def _by_inches(item: tuple[tuple[bool, str | None, float], Fraction]) -> float:
    return item[0][2]


def _off_table(
    ctx: RulesContext, plan: Any, crafts: list[tuple[StandRow, float]], inches: float
) -> str | None:
    for craft, offset in crafts:
        try:
            landing.approach_point(ctx, plan, craft, offset, inches)
        except RulesRefusal as refusal:
            return str(refusal)
    return None


def land_odds(ctx: RulesContext, inputs: dict[str, Any]) -> PartsReport:
    """Each craft's run in to the beach (CD 8.1.1, 8.1.2, 8.1.5, 8.1.6, 8.2.4, 8.2.5): the
    hazards it strikes and their effects, and where it ends up."""
    crafts = landing.landing_craft(ctx, inputs)
    base = ctx.state
    parts = []
    ashore = Fraction(0)
    for craft, kind in crafts:

        def run(dice: Any, cid: str = craft["id"], kind: Any = kind) -> tuple[str, str]:
            mine = replace(with_dice(ctx, dice), state=base.copy())
            report = landing._land_one(mine, mine.state.stand(cid), kind)
            return _land_outcome(report), report["stage"]

        try:
            dist = stage(run)
        except TooManyBranches as exc:
            raise BadInput(
                f"the odds of landing {craft['id']} cannot be worked out exactly here: its "
                f"dice branch more than {exc.limit} ways"
            ) from None
        outcomes: dict[str, Fraction] = {}
        where: dict[str, Fraction] = {}
        for (outcome, stage_now), p in dist.items():
            add(outcomes, outcome, p)
            add(where, stage_now, p)
            if stage_now in ("disembarked", "landed", "beached"):
                ashore += p
        parts.append(PartOdds(craft["id"], craft["id"], ordered(outcomes), ordered(where)))
    assumes = [
        "each craft on its own: its figure is exact; craft are not combined (one craft's "
        "loss does not change another's dice)"
    ]
    return PartsReport("amphibious-land", "craft", parts, assumes, {"craft ashore": ashore}, "ends")


def _land_outcome(report: dict[str, Any]) -> str:
    """A craft's run in, in words: what it struck and what that did, where it ended."""
    words = []
    for h in report["hazards"]:
        effect = h.get("effect")
        text = f"{h['what']}: " + (f"{effect}, " if effect not in (None, h["result"]) else "")
        text += h["result"]
        for sid, fate in sorted((h.get("cargo") or {}).items()):
            text += f"; {sid} {fate}"
        words.append(text)
    crossed = report.get("minefields")
    if crossed and crossed.get("attacks"):
        words.append(str(crossed["verdict"]))
    if report.get("disembarked"):
        words.append(f"{', '.join(report['disembarked'])} ashore")
    stage_now = report["stage"]
    return f"{stage_now}" + (f" ({'; '.join(words)})" if words else "")


def bombard_odds(ctx: RulesContext, inputs: dict[str, Any]) -> PartsReport:
    """Each bombarded stand's worst result from its dice (CD 8.4.1): one die at a time
    through ``naval.bombard_die``, folded over the stand's dice with ``convolve``."""
    side, count, weapon, area, night = naval.bombard_plan(ctx, inputs)
    parts = []
    hits = eliminated = Fraction(0)
    for stand in naval.bombarded(ctx, side, area):
        plan = naval.bombard_target(ctx, stand, weapon, night)

        def die(dice: Any, stand: StandRow = stand, plan: Any = plan) -> str | None:
            return naval.bombard_die(with_dice(ctx, dice), stand, plan, 1, count)[2]

        start: tuple[int, str | None] = (0, None)
        folded = convolve(start, stage(die), count, _worse)
        outcomes: dict[str, Fraction] = {}
        where: dict[str, Fraction] = {}
        for (n, worst), p in sorted(folded.items(), key=lambda kv: kv[0][0]):
            add(outcomes, "no hit" if worst is None else f"hit: {worst}", p)
            add(where, f"{n} hit" + ("" if n == 1 else "s"), p)
            hits += p * n
            if worst == ELIMINATED:
                eliminated += p
        label = f"{stand['id']} (needs {plan.to_hit} or less)"
        parts.append(PartOdds(label, stand["id"], ordered(outcomes), where))
    assumes = [
        f"each stand on its own: {count} D10, a hit on its number or less (or a 1), the worst "
        "effect counts (CD 8.4.1)"
    ]
    expected = {"hits": hits, "stands eliminated": eliminated}
    return PartsReport("amphibious-bombard", "stand", parts, assumes, expected, "hits")


def _worse(state: tuple[int, str | None], effect: str | None) -> tuple[int, str | None]:
    """Fold one die into (hits so far, the worst effect so far)."""
    n, worst = state
    if effect is None:
        return state
    if worst is None or naval.SEVERITY[effect] > naval.SEVERITY[worst]:
        worst = effect
    return n + 1, worst


def naval_fire_odds(ctx: RulesContext, inputs: dict[str, Any]) -> PartsReport:
    """Each stand under the burst if the ship answers (CD 8.4.2, 8.4.3): the request die
    through ``naval._request``, then the barrage's own odds per stand under its template."""

    ship, weapon, observer, at = naval.naval_fire_plan(ctx, inputs)

    def request(dice: Any) -> bool:
        return bool(naval._request(with_dice(ctx, dice), ship, weapon, observer, at)["answered"])

    answered = stage(request).get(True, Fraction(0))
    silent = 1 - answered
    shot = prepare(ctx, naval.naval_barrage(ship, weapon, at, inputs))
    odds = template_odds(shot, ctx.charts)
    parts = []
    for sid, fates in odds["stands"].items():
        outcomes: dict[str, Fraction] = {}
        for name, p in fates["outcomes"].items():
            add(outcomes, name, answered * p)
        if silent:
            add(outcomes, "not answered", silent)
        label = f"{sid} (needs {fates['to_hit']} or less)" if "to_hit" in fates else sid
        parts.append(PartOdds(label, sid, ordered(outcomes), {}))
    answer = {k: p for k, p in (("answers", answered), ("does not answer", silent)) if p}
    parts.insert(0, PartOdds(f"{ship['id']}'s answer", ship["id"], ordered(answer), {}))
    assumes = [
        f"{observer['id']} asks {ship['id']}; if it answers, each stand under the template "
        "on its own, as 'tabletop odds barrage' gives it"
    ]
    expected = {k: answered * v for k, v in odds.get("expected", {}).items()}
    return PartsReport("amphibious-naval-fire", "stand", parts, assumes, expected)
