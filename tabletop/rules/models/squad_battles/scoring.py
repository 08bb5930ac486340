"""Objectives and scoring (SB Basics: Objectives, Scoring).

Points are always counted for the side that moves first: positive helps it, negative helps
the second side. Victory points are objective points less the first side's loss points plus
the second side's; the scenario's levels turn them into an outcome for the first side.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tabletop.core.errors import BadInput
from tabletop.rules.models.squad_battles.results import num, show
from tabletop.rules.models.squad_battles.tables import Tables

OBJECTIVES = "SB Basics: Objectives"
SCORING = "SB Basics: Scoring"
OTHER = {"first": "second", "second": "first"}


def _signed(side: str, value: Fraction) -> Fraction:
    """Points for a side, counted for the first side."""
    return value if side == "first" else -value


def objective(tables: Tables, o: dict[str, Any]) -> dict[str, Any]:
    kind = o["kind"]
    entry = tables.entry("objective", kind)
    owner, occupier = o["owner"], o["occupied_by"]
    value = o["value"]
    lines: list[str] = []
    visible_because = occupier == OTHER[owner]
    if kind == "normal":
        # Held by the last side to occupy it; only the first side scores it.
        if occupier != "none":
            owner = occupier
        points = value if owner == "first" else Fraction(0)
        lines.append(
            f"owned by the {owner} side: "
            + (f"the first side scores {show(value)}" if owner == "first" else "no points")
        )
    elif kind == "exit":
        points = _signed(owner, value)
        lines.append(f"exit points {show(value)} (from units exited there) to the {owner} side")
    elif kind == "capture":
        if o["captured"] or occupier == OTHER[owner]:
            owner = OTHER[owner]
            points = _signed(owner, value)
            lines.append(f"captured by the {owner} side for good: {show(value)} to it")
        else:
            points = Fraction(0)
            lines.append("not captured: no points")
    else:
        increase = tables.param("collateral-increase")
        value = value + increase * o["enemy_fires"]
        lines.append(
            f"collateral value {show(o['value'])} + {show(increase)} x {o['enemy_fires']} "
            f"affecting enemy fires = {show(value)}"
        )
        if value > 0:
            points = _signed(owner, value)
            lines.append(f"positive: {show(value)} to the owning ({owner}) side")
        elif value < 0 and occupier == OTHER[owner]:
            points = _signed(owner, value)
            lines.append(f"negative and held by the {occupier} side: a penalty to the {owner} side")
        else:
            points = Fraction(0)
            lines.append("no points")
        visible_because = visible_because or o["enemy_fires"] > 0
    name = entry.unknown_name if o["unknown"] else kind
    visible = (not o["unknown"]) or visible_because
    if o["unknown"]:
        lines.append(
            f"unknown ({name}): "
            + ("revealed to the other side" if visible else "hidden from the other side")
        )
    return {
        "verdict": f"{name} objective: {show(points)} points for the first side",
        "name": name,
        "owner": owner,
        "value": num(value),
        "points": num(points),
        "visible_to_opponent": visible,
        "lines": lines,
        "rule": OBJECTIVES,
    }


def _total(values: list[Fraction] | None) -> Fraction:
    return sum(values or [], Fraction(0))


def level(tables: Tables, o: dict[str, Any], vp: Fraction) -> str:
    levels = {
        k: o[k.replace("-", "_")]
        for k in ("major-defeat", "minor-defeat", "minor-victory", "major-victory")
    }
    for k, v in levels.items():
        if v is None:
            levels[k] = tables.param(k)
    if vp <= levels["major-defeat"]:
        return "major defeat"
    if vp <= levels["minor-defeat"]:
        return "minor defeat"
    if vp >= levels["major-victory"]:
        return "major victory"
    if vp >= levels["minor-victory"]:
        return "minor victory"
    return "draw"


OPPOSITE = {
    "major defeat": "major victory",
    "minor defeat": "minor victory",
    "draw": "draw",
    "minor victory": "minor defeat",
    "major victory": "major defeat",
}


def _losses(tables: Tables, o: dict[str, Any], side: str) -> list[Fraction]:
    given = list(o[f"{side}_losses"] or [])
    counted = sum(
        (
            o[f"{side}_{what}"] * tables.param(f"loss-points-{unit}")
            for what, unit in (("men", "man"), ("leaders", "leader"), ("vehicles", "vehicle"))
        ),
        Fraction(0),
    )
    if counted:
        given = [*given, counted] if given else [counted]
    return given


def score(tables: Tables, o: dict[str, Any]) -> dict[str, Any]:
    objective_points = list(o["objective_points"] or [])
    first = _losses(tables, o, "first")
    second = _losses(tables, o, "second")
    lines: list[str] = []
    weaker = o["asymmetric"]
    if weaker == "none":
        op, l1, l2 = _total(objective_points), _total(first), _total(second)
        lines.append(
            f"conventional: objectives {show(op)} - first side losses {show(l1)} + second "
            f"side losses {show(l2)}"
        )
    else:
        turns = o["turns"] or max(len(objective_points), len(first), len(second), 1)
        # Objective points the first side holds each turn count again in every turn.
        op = _total(objective_points)
        lines.append(f"asymmetric ({weaker} side weaker), {turns} turns")
        lines.append(f"objective points held each turn, summed: {show(op)}")
        losses = {"first": first, "second": second}
        weak = losses[weaker]
        strong = losses[OTHER[weaker]]
        if len(weak) > turns:
            raise BadInput(f"{len(weak)} turns of {weaker} side losses but only {turns} turns")
        # A weaker side's loss counts in its turn and every turn after it.
        weak_total = sum((x * (turns - i) for i, x in enumerate(weak)), Fraction(0))
        strong_total = _total(strong) * turns
        lines.append(
            f"{weaker} (weaker) losses, counted in each turn after they are suffered: "
            f"{show(weak_total)}"
        )
        lines.append(
            f"{OTHER[weaker]} (stronger) losses {show(_total(strong))} x {turns} turns = "
            f"{show(strong_total)}"
        )
        l1 = weak_total if weaker == "first" else strong_total
        l2 = strong_total if weaker == "first" else weak_total
    vp = op - l1 + l2
    outcome = level(tables, o, vp)
    lines.append(f"victory points {show(op)} - {show(l1)} + {show(l2)} = {show(vp)}: {outcome}")
    return {
        "verdict": f"{outcome} for the first side ({show(vp)} victory points)",
        "victory_points": num(vp),
        "objective_points": num(op),
        "first_loss_points": num(l1),
        "second_loss_points": num(l2),
        "outcome": outcome,
        "second_outcome": OPPOSITE[outcome],
        "lines": lines,
        "rule": SCORING,
    }
