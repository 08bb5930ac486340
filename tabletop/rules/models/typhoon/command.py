"""Suppression, unit states, rally, command control, orders, missions and victory
(ToS V Suppression point table, Suppression effects table, Rally radius and rally check,
Command control radius, Mission chart, Victory levels; ToS II.B)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.words import count
from tabletop.rules.models.chance import percent, rolls_text, shown
from tabletop.rules.models.typhoon.opts import Opts
from tabletop.rules.models.typhoon.states import unit_state
from tabletop.rules.models.typhoon.tables import EPS, Tables

WHEN = ("after-pulse-3", "fire", "pulse")
# Options that count rows of the Suppression Point Table directly (row id with underscores).
COUNTED = {
    "after-pulse-3": (
        "out-of-command",
        "near-routed",
        "near-lost",
        "immobilized",
        "alone",
        "good-friends",
    ),
    "fire": (
        "destroyed-within-3",
        "destroyed-within-6",
        "soft-hit-sighted",
        "soft-hit-unsighted",
        "hard-hit-sighted",
        "hard-hit-unsighted",
        "destroyed-enemy",
        "men-killed",
    ),
    "pulse": ("sees-no-enemy",),
}


def _key(ident: str) -> str:
    return ident.replace("-", "_")


# Every option that belongs to one moment of the table only.
MOMENT_KEYS = {
    # (immobilized also tells the state whether the unit can move, so it is welcome anytime)
    "after-pulse-3": (
        *(_key(i) for i in COUNTED["after-pulse-3"] if i != "immobilized"),
        "cover",
        "sighted",
        "men",
        "infantry",
    ),
    "fire": (*(_key(i) for i in COUNTED["fire"]), "targeted"),
    "pulse": tuple(_key(i) for i in COUNTED["pulse"]),
}


def good_state_benefits(t: Tables, points: int, u: float, men: int | None) -> bool:
    """Friends in good state help when points > 5 + 10 * Rnd(1), and for infantry (our
    reading) also points >= 14 - men."""
    if points <= t.p("good-state-base") + t.p("good-state-spread") * u:
        return False
    return men is None or points >= t.p("good-state-infantry") - men


def _state_inputs(o: Opts, t: Tables) -> dict[str, Any]:
    unit = o.unit("unit")
    truck = o.flag("truck")
    default_morale = int(t.p("truck-morale")) if truck else (unit.morale if unit else None)
    return {
        "unit": unit,
        "morale": o.whole("morale", default_morale, 1, 9, "the unit's morale 1-9"),
        "vehicle": o.flag("vehicle", unit.is_vehicle if unit else truck),
        "japanese": o.flag("japanese", unit.japanese if unit else False),
        "dug_in": o.flag("dug_in"),
        "visible": o.flag("visible", True),
        "cannot_move": o.flag("immobilized") or bool(unit and unit.max_speed == 0),
    }


def _state_dict(t: Tables, points: int, s: dict[str, Any]) -> dict[str, Any]:
    st = unit_state(
        t,
        points,
        s["morale"],
        vehicle=s["vehicle"],
        japanese=s["japanese"],
        dug_in=s["dug_in"],
        visible=s["visible"],
        cannot_move=s["cannot_move"],
    )
    return {
        "state": st.state,
        "cautious_only": st.cautious_only,
        "reason": st.reason,
        "rule": st.rule,
    }


def run_suppression(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("suppression", options, t)
    when = o.choice("when", WHEN, "after-pulse-3")
    points = o.whole("points", 0, 0, 1000)
    rows = t.tables["suppression"]
    for other, keys in MOMENT_KEYS.items():
        for key in keys:
            if other != when and o.given(key):
                raise BadInput(f"--set {key}: counts {other}, not {when}; give --set when={other}")
    change, lines = 0, []

    def add(ident: str, times: int = 1) -> None:
        nonlocal change
        row = rows[ident]
        if times:
            change += row.points * times
            each = f" x {times}" if row.per != "once" else ""
            lines.append(f"{row.points * times:+d}: {ident}{each} [{row.rule}]")

    if when == "after-pulse-3":
        cover = o.choice("cover", ("none", "soft", "hard"), "none")
        if cover != "none":
            add(f"{cover}-cover-{'sighted' if o.flag('sighted', True) else 'unsighted'}")
    if when == "fire" and o.flag("targeted") and points == 0:
        add("zero-and-targeted")
    for ident in COUNTED[when]:
        if ident == "good-friends":
            continue
        row = rows[ident]
        times = int(o.flag(_key(ident))) if row.per == "once" else o.whole(_key(ident), 0, 0, 99)
        add(ident, times)
    state_inputs = _state_inputs(o, t)
    if when == "after-pulse-3":
        friends = o.whole("good_friends", 0, 0, 99)
        if friends:
            unit = state_inputs["unit"]
            men = (
                o.whole("men", unit.men if unit else None, 1, 40)
                if (o.flag("infantry", bool(unit and unit.kind == "infantry")))
                else None
            )
            u, _ = t.rnd(dice, 1, "benefit from friends in good state?")
            threshold = t.p("good-state-base") + t.p("good-state-spread") * u
            if good_state_benefits(t, points, u, men):
                add("good-friends", friends)
            else:
                lines.append(
                    f"friends in good state: {points} points not over {threshold:.2f}"
                    + (f" or under 14 - {men}" if men is not None else "")
                )
        add("automatic")
    new = max(0, points + change)
    state = _state_dict(t, new, state_inputs)
    lines.append(
        f"{points} {change:+d} = {new} (never below 0): {state['state']} ({state['reason']})"
    )
    return {
        "verdict": f"{new} suppression points: {state['state']}",
        "points_before": points,
        "change": change,
        "points": new,
        **state,
        "lines": lines,
    }


def run_state(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("state", options, t)
    points = o.whole("points", None, 0, 1000, "the unit's suppression points")
    s = _state_inputs(o, t)
    state = _state_dict(t, points, s)
    out: dict[str, Any] = {"points": points, **state, "pulses": None}
    lines = [state["reason"]]
    if state["state"] == "heavily-suppressed":
        low, high = int(t.p("heavy-suppression-min")), int(t.p("heavy-suppression-max"))
        roll = dice.roll(high - low + 1, f"heavy suppression lasts (d{high - low + 1} + {low - 1})")
        out["pulses"] = roll + low - 1
        lines.append(f"heavily suppressed for {count(out['pulses'], 'pulse')}: no moving or firing")
    if state["cautious_only"]:
        lines.append("seen by the enemy: may move only in Cautious Advance")
    return {
        "verdict": f"{state['state'].capitalize()}: {points} points, morale {s['morale']}",
        **out,
        "lines": lines,
    }


def rally_radius(t: Tables, cr: float, u: float) -> int:
    """CR / 5 + 1 + Rnd(1), fractions dropped."""
    return math.floor(cr / t.p("rally-divisor") + t.p("rally-add") + u + EPS)


RALLY_STATES = ("dug-in", "positioned", "cautious", "full", "pinned", "buttoned", "loaded")


def run_rally(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("rally", options, t)
    hq = o.unit("hq")
    cr = o.whole("cr", hq.command if hq else None, 0, 40, "the HQ's command rating")
    hq_state = o.choice("hq_state", (*RALLY_STATES, "retreating", "routed"), "positioned")
    if hq_state not in RALLY_STATES:
        raise RulesRefusal(f"a {hq_state} HQ cannot attempt a rally (ToS II.B.4 Rally)")
    distance = o.number("distance", None, 0, None, "squares from the HQ to the unit")
    points = o.whole("points", None, 0, 1000, "the unit's suppression points")
    unit = o.unit("unit")
    morale = o.whole("morale", unit.morale if unit else None, 1, 9, "the unit's morale")
    out: dict[str, Any] = {"radius": None, "in_radius": False, "rallied": False, "points": points}
    if not o.flag("in_command", True):
        return {
            "verdict": "Cannot rally: the unit is out of command control",
            **out,
            "lines": ["only units in command control rally (ToS II.B.4 Rally)"],
        }
    u, _ = t.rnd(dice, 1, "rally radius: CR / 5 + 1 + Rnd(1)")
    radius = rally_radius(t, cr, u)
    out["radius"] = radius
    out["in_radius"] = distance <= radius
    lines = [
        f"radius {cr} / {t.p('rally-divisor'):g} + {t.p('rally-add'):g} + {u:.3f} -> "
        f"{radius} squares [{t.rule('parameter', 'rally-divisor')}]"
    ]
    if not out["in_radius"]:
        return {
            "verdict": f"Out of reach: {distance:g} squares, radius {radius}",
            **out,
            "lines": lines,
        }
    if points < morale:
        lines.append(f"{points} points < morale {morale}: nothing to rally")
        return {"verdict": "No rally needed: points below morale", **out, "lines": lines}
    die = int(t.p("rally-die"))
    roll = dice.roll(die, f"rally check: rallies on {morale} or less (d{die})")
    if roll <= morale:
        out["rallied"] = True
        out["points"] = points // 2
        lines.append(
            f"d{die} {roll} <= morale {morale}: rallied, points {points} -> "
            f"{out['points']} (halved, rounded down)"
        )
        return {"verdict": f"Rallied: {points} -> {out['points']} points", **out, "lines": lines}
    lines.append(f"d{die} {roll} > morale {morale}: no rally")
    return {"verdict": f"Not rallied: rolled {roll} over morale {morale}", **out, "lines": lines}


def radio_in_command(t: Tables, cr: float, u: float) -> bool:
    return u * cr >= t.p("radio-threshold")


def run_command_control(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("command-control", options, t)
    if o.flag("battalion_hq"):
        return {
            "verdict": "In command: the battalion HQ always is",
            "in_command": True,
            "lines": ["ToS II.A Command control"],
        }
    unit = o.unit("unit")
    radio = o.flag("radio", unit.radio if unit else False)
    if not radio:
        distance = o.number("distance", None, 0, None, "squares to the superior HQ")
        limit = t.p("command-radius")
        ok = distance <= limit
        line = f"no radio: {distance:g} squares {'within' if ok else 'beyond'} {limit:g}"
    else:
        cr = o.whole("cr", None, 0, 40, "the superior HQ's command rating")
        u, _ = t.rnd(dice, 1, "radio command control: Rnd(1) x CR")
        ok = radio_in_command(t, cr, u)
        line = f"radio: {u:.3f} x {cr} = {u * cr:.2f} vs {t.p('radio-threshold'):g}"
    rule = t.rule("parameter", "command-radius")
    verdict = "In command" if ok else "Out of command control"
    return {"verdict": verdict, "in_command": ok, "lines": [f"{line} [{rule}]"]}


def run_orders(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("orders", options, t)
    cr = o.whole("cr", None, 0, 40, "the HQ's command rating")
    have = o.whole("orders", 0, 0, 1000)
    per = int(t.p("orders-per"))
    rule = t.rule("parameter", "orders-per")
    if have >= cr:
        return {
            "verdict": f"No new orders: holds {have}, command rating {cr}",
            "received": 0,
            "orders": have,
            "lines": [f"an HQ holding as many orders as its rating gets none [{rule}]"],
        }
    received = cr // per
    lines = [f"{cr} // {per} = {count(received, 'order')} [{rule}]"]
    rest = (cr % per) * 100 / per
    if rest:
        more, rolls = t.percent(dice, rest, "one more order?")
        received += int(more)
        lines.append(
            f"{shown(percent(rest))} for one more: {rolls_text(rolls)}, {'yes' if more else 'no'}"
        )
    if o.given("superior_orders"):
        superior = o.whole("superior_orders", None, 0, 1000)
        if have < superior / 10:
            received += 1
            lines.append(f"+1 from the superior HQ ({have} < {superior} / 10)")
    return {
        "verdict": f"{count(received, 'new order')}: {have + received} in hand",
        "received": received,
        "orders": have + received,
        "lines": lines,
    }


def run_victory(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("victory", options, t)
    missions = tuple(t.tables["mission"])
    att = t.entry("mission", o.choice("attacker_mission", missions))
    dfn = t.entry("mission", o.choice("defender_mission", missions))
    killed_d = o.number("defenders_killed", 0)
    killed_a = o.number("attackers_killed", 0)
    aband_d = o.number("defenders_abandoned", 0)
    aband_a = o.number("attackers_abandoned", 0)
    mult_d = att.defenders_killed * dfn.defenders_killed
    mult_a = att.attackers_killed * dfn.attackers_killed
    exit_a = o.whole("attackers_exited", 0) * att.attackers_exited * dfn.attackers_exited
    exit_d = o.whole("defenders_exited", 0) * att.defenders_exited * dfn.defenders_exited
    obj_a = obj_d = 0.0
    if (
        att.attacker_objective
        or dfn.attacker_objective
        or att.defender_objective
        or (dfn.defender_objective)
    ):
        inside = o.whole("defenders_in_objective", None, 0, 1000, "defending units left there")
        if inside == 0:
            obj_a = att.attacker_objective + dfn.attacker_objective
        else:
            obj_d = att.defender_objective + dfn.defender_objective
    keep = t.p("abandoned-kept-fraction")

    def score(a_half: bool, d_half: bool) -> tuple[float, float]:
        a = mult_d * (killed_d + aband_d * (keep if d_half else 1)) + exit_a + obj_a
        d = mult_a * (killed_a + aband_a * (keep if a_half else 1)) + exit_d + obj_d
        return a, d

    a_pts, d_pts = score(False, False)
    # ToS II.A: the side ahead holds the field and recovers half its abandoned units.
    a_pts, d_pts = score(a_pts > d_pts, d_pts > a_pts)
    level, winner = victory_level(t, a_pts, d_pts)
    lines = [
        f"attacker: {mult_d:g} x (killed {killed_d:g} + abandoned {aband_d:g}) + exits "
        f"{exit_a:g} + objective {obj_a:g} = {a_pts:g} [{att.rule}]",
        f"defender: {mult_a:g} x (killed {killed_a:g} + abandoned {aband_a:g}) + exits "
        f"{exit_d:g} + objective {obj_d:g} = {d_pts:g}",
    ]
    campaign = 0.0
    if level != "draw":
        campaign = float(t.entry("victory", level).campaign_points)
    verdict = "Draw" if level == "draw" else f"{level.capitalize()} victory for the {winner}"
    return {
        "verdict": f"{verdict}: {a_pts:g} to {d_pts:g}",
        "attacker_points": a_pts,
        "defender_points": d_pts,
        "level": level,
        "winner": winner,
        "campaign_bonus": campaign,
        "lines": lines,
    }


def victory_level(t: Tables, a: float, d: float) -> tuple[str, str | None]:
    """Marginal at twice the other side's points, decisive at four times (ToS V)."""
    if a == d:
        return "draw", None
    hi, lo, winner = (a, d, "attacker") if a > d else (d, a, "defender")
    for ident in ("decisive", "marginal"):
        if lo == 0 or hi >= t.entry("victory", ident).ratio * lo:
            return ident, winner
    return "draw", None
