"""Building a battle: purchase points and transport loads (ToS V Type of battle chart, Force
modifiers, Transport cost table; ToS III Choosing your forces)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import RulesRefusal
from tabletop.rules.models.typhoon.opts import Opts
from tabletop.rules.models.typhoon.tables import Tables

FRONTS = ("europe", "pacific", "asia")


def purchase_points(
    base: float, size: int, quality: float, handicap: float, front_factor: float
) -> float:
    """Base points x battle size x force quality x handicap (x 1/2 in the Pacific and Asia)."""
    return base * size * quality * handicap * front_factor


def run_purchase_points(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("purchase-points", options, t)
    battle = t.entry("battle", o.choice("battle", tuple(t.tables["battle"])))
    side = o.choice("side", ("axis", "allied"))
    size = o.whole("size", 1, 1, 9)
    quality_id = o.choice("quality", tuple(t.tables["force_quality"]), "average")
    quality = float(t.entry("force_quality", quality_id).factor)
    campaign = o.flag("campaign")
    level = o.whole("handicap", 3, 1, 5)
    row = t.entry("handicap", f"level-{level}")
    # ToS V: handicap levels do not apply in a campaign scenario.
    handicap = 1.0 if campaign else float(getattr(row, side))
    front = o.choice("front", FRONTS, "europe")
    factor = 1.0 if front == "europe" else t.p("pacific-points-factor")
    base = float(getattr(battle, f"{side}_points"))
    points = purchase_points(base, size, quality, handicap, factor)
    lines = [
        f"{base:g} ({battle.id}, {side}) x size {size} x {quality_id} {quality:g} x handicap "
        f"level {level} {handicap:g}"
        + (" (campaign: none)" if campaign else "")
        + (f" x {front} {factor:g}" if factor != 1 else "")
        + f" = {points:g} [{battle.rule}]",
        f"{battle.duration} turns; {side} is the {getattr(battle, f'{side}_role')}; start line "
        f"x {getattr(battle, f'{side}_start_line')}; may start Dug-in: "
        f"{'yes' if getattr(battle, f'{side}_dug_in') else 'no'}",
    ]
    return {
        "verdict": f"{points:g} purchase points for the {side} side",
        "points": points,
        "duration": battle.duration,
        "role": getattr(battle, f"{side}_role"),
        "start_line": getattr(battle, f"{side}_start_line"),
        "dug_in": getattr(battle, f"{side}_dug_in"),
        "lines": lines,
    }


def run_transport(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("transport", options, t)
    carrier = t.entry("carrier", o.choice("carrier", tuple(t.tables["carrier"])))
    total, lines, artillery = 0.0, [], False
    for row in t.tables["transport_cost"].values():
        key = row.id.replace("-", "_") + ("_men" if row.per == "man" else "")
        count = o.whole(key, 0, 0, 100)
        if count:
            total += row.points * count
            artillery = artillery or row.artillery
            lines.append(f"{count} x {row.id}: {row.points * count:g} [{row.rule}]")
    if artillery and not carrier.artillery:
        raise RulesRefusal(
            f"a {carrier.id} carrier cannot carry artillery: only prime movers, halftracks and "
            "trucks can (ToS V Transport cost table)"
        )
    fits = total <= carrier.capacity
    lines.append(f"{total:g} of {carrier.capacity:g} transport points")
    verdict = "Fits" if fits else "Too heavy"
    return {
        "verdict": f"{verdict}: {total:g} of {carrier.capacity:g} points on a {carrier.id}",
        "points": total,
        "capacity": carrier.capacity,
        "fits": fits,
        "lines": lines,
    }
