"""Quick mode (SPEC 1): a shot described entirely by what the referee measured on the table,
with no game and no stands, resolved by the same direct-fire procedure as table mode
(CD 1 for the depletion check its dice may trigger)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.core.spelling import did_you_mean
from tabletop.core.words import count
from tabletop.data.chart_params import AmmoParams
from tabletop.data.charts import Charts
from tabletop.rules.cd.fire import FirePlan, Firer, Target, plan_direct, roll_plan, verdict


def known(value: str, table: Mapping[str, Any], option: str, what: str) -> None:
    """Refuse a name the charts do not know, with the nearest one."""
    if value not in table:
        hint = did_you_mean(value, table)
        raise BadInput(f"{option} {value!r}: unknown {what}{hint} (see 'tabletop charts show')")


def quick_plan(
    weapon: str | None,
    range_: float | None,
    target_kind: str | None,
    quality: str | None,
    shooter_kind: str | None,
    cover: str | None,
    ammo: str,
    mods: tuple[Any, ...],
    charts: Charts,
) -> FirePlan:
    """The fire plan of a shot given as weapon, range and target kind (no game, no stands)."""
    missing = [
        n
        for n, v in (("--weapon", weapon), ("--range", range_), ("--target-kind", target_kind))
        if v is None
    ]
    if missing:
        raise BadInput(
            f"quick mode needs {', '.join(missing)} (or give SHOOTER and TARGET stands of a game)"
        )
    assert weapon is not None and target_kind is not None and range_ is not None
    known(weapon, charts.weapons, "--weapon", "weapon")
    known(target_kind, charts.stand_kinds, "--target-kind", "stand kind")
    if shooter_kind is not None:
        known(shooter_kind, charts.stand_kinds, "--shooter-kind", "stand kind")
    quality = quality or "regular"
    known(quality, charts.quality, "--quality", "quality")
    kind = charts.stand_kinds[target_kind]
    target = Target(
        label=target_kind,
        kind=kind,
        quality=quality,
        cover=cover or "none",
        weight_class=kind.weight_class,
    )
    firer = Firer(None, charts.stand_kinds.get(shooter_kind) if shooter_kind else None)
    return plan_direct(
        charts.weapons[weapon], firer, target, range_, charts, ammo=ammo, requested=tuple(mods)
    )


def quick_fire(plan: FirePlan, dice: DiceLike, charts: Charts) -> dict[str, Any]:
    """Roll the quick shot: to-hit dice, then effect dice (CD hit effects), and say the
    depletion checks its 1s make due at the end of the fire phase (CD 1.2)."""
    tally, dice_out = roll_plan(plan, dice, charts.params(AmmoParams).trigger_face)
    notes = []
    if tally.triggers and plan.depletion == "roll":
        notes.append(
            f"{count(tally.triggers, 'depletion check')} due at the end of the fire phase: "
            f"depleted on {plan.depletion_threshold} or less ({plan.depletion_rule})"
        )
    return {
        "event": None,
        "verdict": verdict(tally, plan, plan.target),
        **plan.working(),
        "rolls": [x["to_hit"] for x in dice_out],
        "dice": dice_out,
        "hits": tally.hits,
        "effects": [x["effect"] for x in dice_out if x["hit"]],
        "depletion_checks": tally.triggers if plan.depletion == "roll" else 0,
        "ammunition": notes,
    }
