"""Resolving Squad Battles fire: casualties or kills, effectiveness, morale states; and the
exact odds of the same procedure.

Dice, in order: where the casualty value falls and its rounding (two d100, four with the
averaged optional rule); then for a team or leader the effectiveness loss (the same again)
and the morale procedure (d6s); for a vehicle the immobile chance when killed, otherwise
the effectiveness loss and, for heavy HE, the HE immobilization chance.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.words import count
from tabletop.rules.models import Outcome
from tabletop.rules.models.chance import roll_chance, rolls_text, settled, shown
from tabletop.rules.models.squad_battles.fire import FireValue, Shooting, combat_value
from tabletop.rules.models.squad_battles.results import (
    apply_effectiveness,
    combat_result,
    distribution,
    effectiveness_combat_value,
    enumerate_rolls,
    loss_modifier,
    num,
    pin_check,
    position,
    scaled,
    show,
)
from tabletop.rules.models.squad_battles.tables import Tables, frac

KILLS = "SB Combat Results: Combat Losses and Vehicle Kills"


def _params(tables: Tables) -> tuple[Fraction, Fraction, Fraction]:
    return tables.param("fire-lcv"), tables.param("fire-hcv"), tables.param("baseline-combat-value")


def _modifier(tables: Tables, sh: Shooting) -> Fraction:
    infantry = sh.target.kind in ("team", "leader")
    return loss_modifier(tables, sh.target.quality, infantry, sh.o["quality_loss"])


def _data(sh: Shooting, fv: FireValue, low: Fraction, high: Fraction) -> dict[str, Any]:
    return {
        "fire_value": num(fv.nominal),
        "modifiers": [s.as_json() for s in fv.steps],
        "combat_value": num(fv.combat_value),
        "low": num(low),
        "high": num(high),
        "casualties": 0,
        "weapon": sh.weapon.id,
        "strength": sh.strength,
        "hexes": sh.hexes,
        "protection": num(fv.protection) if fv.protection is not None else None,
        "protection_parts": [{"name": n, "value": num(v), "rule": r} for n, v, r in fv.parts],
        "penetration_ratio": num(fv.ratio) if fv.ratio is not None else None,
    }


def he_immobile_chance(tables: Tables, sh: Shooting, value: Fraction) -> Fraction:
    """SB HE Immobilization: heavy direct HE at a ground vehicle out of water; a quarter of
    the immobile probability, scaled by the casualty value (capped at 1), in per cent."""
    w = sh.weapon
    eligible = (
        sh.vehicle_target
        and not w.indirect
        and not sh.o["flying"]
        and not sh.o["water"]
        and frac(w.lethality or 0) >= tables.param("he-immobile-lethality")
        and frac(w.penetration or 0) >= tables.param("he-immobile-penetration")
    )
    if not eligible:
        return Fraction(0)
    share = tables.param("he-immobile-share")
    return tables.param("immobile-probability") * share * min(Fraction(1), value)


def resolve(tables: Tables, sh: Shooting, dice: DiceLike) -> Outcome:
    fv = combat_value(tables, sh)
    lcv, hcv, base = _params(tables)
    mod = _modifier(tables, sh)
    cv = fv.combat_value
    if cv == 0:
        low = high = Fraction(0)
        data = _data(sh, fv, low, high)
        data.update(_unchanged(sh))
        why = fv.no_effect or "combat value 0"
        return Outcome(f"no effect on {sh.target.label}: {why}", data, fv.lines)
    if sh.vehicle_target:
        return _vehicle(tables, sh, fv, dice, lcv, hcv, base)
    return _infantry(tables, sh, fv, dice, lcv, hcv, base, mod)


def _unchanged(sh: Shooting) -> dict[str, Any]:
    o = sh.o
    out: dict[str, Any] = {
        "effectiveness_loss": 0,
        "effectiveness": num(frac(o["target_effectiveness"])),
        "killed": False,
    }
    if sh.target.kind == "team":
        out.update(men=sh.target_men, state=o["target_state"], ground=o["ground"])
    if sh.vehicle_target:
        out["immobilized"] = bool(o["immobile"])
    return out


def _infantry(
    tables: Tables,
    sh: Shooting,
    fv: FireValue,
    dice: DiceLike,
    lcv: Fraction,
    hcv: Fraction,
    base: Fraction,
    mod: Fraction,
) -> Outcome:
    o = sh.o
    averaged = o["averaged"]
    lines = list(fv.lines)
    cas = combat_result(
        fv.combat_value, lcv, hcv, base, dice, "casualties", averaged=averaged, modifier=mod
    )
    lines += cas.lines
    data = _data(sh, fv, cas.low, cas.high)
    data["casualty_value"] = num(cas.value)
    data["result"] = cas.result
    label = sh.target.label
    if sh.target.kind == "leader" and cas.result >= 1:
        data.update(
            casualties=1,
            killed=True,
            effectiveness_loss=0,
            effectiveness=num(frac(o["target_effectiveness"])),
        )
        return Outcome(
            f"{label} is a casualty", data, lines, target_state={"killed": True}, eliminated=True
        )
    men_before = sh.target_men
    lost = min(cas.result, men_before)
    men = men_before - lost
    data["casualties"] = lost
    if sh.target.kind == "team" and men == 0:
        data.update(
            men=0,
            killed=True,
            effectiveness_loss=0,
            effectiveness=num(frac(o["target_effectiveness"])),
            state="eliminated",
            ground=o["ground"],
        )
        return Outcome(
            f"{count(lost, 'casualty', 'casualties')}: {label} eliminated",
            data,
            lines,
            target_state={"men": 0, "killed": True},
            eliminated=True,
        )
    e_before = frac(o["target_effectiveness"])
    e_cv = effectiveness_combat_value(tables, fv.combat_value, vehicle=False)
    eff = combat_result(
        e_cv, lcv, hcv, base, dice, "effectiveness loss", averaged=averaged, modifier=mod
    )
    lines += [f"effectiveness loss at x{show(tables.param('effectiveness-scale'))}:"]
    lines += eff.lines
    e_after = apply_effectiveness(tables, e_before, eff.result)
    lines.append(
        f"effectiveness {show(e_before)}% - {eff.result} -> {show(e_after)}% "
        "(not below 25%) [SB Effectiveness: Effectiveness Values]"
    )
    data.update(effectiveness_loss=eff.result, effectiveness=num(e_after), killed=False)
    state, ground = o["target_state"], o["ground"]
    if sh.target.kind == "team":
        check = pin_check(
            tables,
            dice,
            state=state,
            quality=sh.target.quality or "C",
            effectiveness=e_after,
            men_lost=lost,
            effectiveness_lost=eff.result,
            ground=ground,
            inspired=o["inspired"],
            always=sh.sniping or sh.weapon.load == "demolition",
        )
        lines += check.lines
        state, ground = check.state, check.ground
        data.update(men=men, state=state, ground=ground, morale_check=check.ran)
        verdict = (
            f"{lost} {'casualty' if lost == 1 else 'casualties'}: {label} "
            f"{men} men, {state}, effectiveness {show(e_after)}%"
        )
        target_state = {"men": men, "effectiveness": num(e_after), "state": state, "ground": ground}
    else:
        verdict = f"{label} unhurt; effectiveness {show(e_after)}%"
        target_state = {"effectiveness": num(e_after)}
    return Outcome(verdict, data, lines, target_state=target_state)


def _vehicle(
    tables: Tables,
    sh: Shooting,
    fv: FireValue,
    dice: DiceLike,
    lcv: Fraction,
    hcv: Fraction,
    base: Fraction,
) -> Outcome:
    o = sh.o
    lines = list(fv.lines)
    cas = combat_result(fv.combat_value, lcv, hcv, base, dice, "kill", averaged=o["averaged"])
    lines += cas.lines
    data = _data(sh, fv, cas.low, cas.high)
    data.update(casualty_value=num(cas.value), result=cas.result, casualties=min(cas.result, 1))
    label = sh.target.label
    immobile = bool(o["immobile"])
    e_before = frac(o["target_effectiveness"])
    ip = tables.param("immobile-probability")
    if cas.result >= 1:
        lines.append(f"a nonzero result kills the vehicle [{KILLS}]")
        if not o["flying"]:
            survives, rolled = roll_chance(dice, ip / 100, "immobile probability: survives")
            if survives:
                lines.append(
                    f"{rolls_text(rolled)} within {shown(ip / 100)}: survives, immobile "
                    "[SB Movement: Immobilization]"
                )
                return _vehicle_hurt(
                    tables, sh, fv, dice, cas, data, lines, immobile=True, survived=True
                )
            lines.append(f"{rolls_text(rolled)} beyond {shown(ip / 100)}: destroyed")
        data.update(
            killed=True, immobilized=immobile, effectiveness_loss=0, effectiveness=num(e_before)
        )
        return Outcome(
            f"{label} killed", data, lines, target_state={"killed": True}, eliminated=True
        )
    return _vehicle_hurt(tables, sh, fv, dice, cas, data, lines, immobile=immobile, survived=False)


def _vehicle_hurt(
    tables: Tables,
    sh: Shooting,
    fv: FireValue,
    dice: DiceLike,
    cas: Any,
    data: dict[str, Any],
    lines: list[str],
    *,
    immobile: bool,
    survived: bool,
) -> Outcome:
    o = sh.o
    lcv, hcv, base = _params(tables)
    e_before = frac(o["target_effectiveness"])
    e_cv = effectiveness_combat_value(tables, fv.combat_value, vehicle=True)
    eff = combat_result(e_cv, lcv, hcv, base, dice, "effectiveness loss", averaged=o["averaged"])
    lines.append(
        "effectiveness loss at x5, and x10 for a vehicle [SB Combat Results: Effectiveness Losses]"
    )
    lines += eff.lines
    e_after = apply_effectiveness(tables, e_before, eff.result)
    newly = False
    if not survived and not immobile:
        chance = he_immobile_chance(tables, sh, cas.value)
        if chance > 0:
            newly, rolled = roll_chance(dice, Fraction(chance) / 100, "HE immobilization")
            lines.append(
                f"HE immobilization: chance {shown(Fraction(chance) / 100)}: {rolls_text(rolled)} "
                + ("immobilizes" if newly else "no")
                + " [SB Firing: HE Immobilization]"
            )
        elif sh.weapon.load == "demolition" and not o["flying"]:
            ip = tables.param("immobile-probability")
            newly, rolled = roll_chance(dice, ip / 100, "demolition immobile check")
            lines.append(
                f"demolition immobile check {shown(ip / 100)}: {rolls_text(rolled)} "
                + ("immobilizes" if newly else "no")
                + " [SB Weapon Types: Demolition and Clearing Weapons]"
            )
    immobile = immobile or survived or newly
    data.update(
        killed=False,
        immobilized=immobile,
        effectiveness_loss=eff.result,
        effectiveness=num(e_after),
    )
    label = sh.target.label
    verdict = (
        f"{label} survives immobile"
        if survived
        else f"{label} immobilized"
        if newly
        else f"{label} not killed"
    )
    verdict += f"; effectiveness {show(e_after)}%"
    return Outcome(
        verdict, data, lines, target_state={"effectiveness": num(e_after), "immobile": immobile}
    )


# --- odds ----------------------------------------------------------------------------------


def _values(low: Fraction, high: Fraction, averaged: bool) -> list[tuple[Fraction, Fraction]]:
    """The casualty values ``combat_result`` can reach, with their chances (before rounding)."""
    if high <= low:
        return [(low, Fraction(1))]
    points = [position(low, high, r) for r in range(1, 101)]
    if not averaged:
        return [(p, Fraction(1, 100)) for p in points]
    return [((a + b) / 2, Fraction(1, 10_000)) for a in points for b in points]


def odds(tables: Tables, sh: Shooting) -> dict[str, Any]:
    fv = combat_value(tables, sh)
    lcv, hcv, base = _params(tables)
    cv = fv.combat_value
    averaged = sh.o["averaged"]
    if sh.vehicle_target:
        return _vehicle_odds(tables, sh, cv, lcv, hcv, base, averaged)
    mod = _modifier(tables, sh)
    cas = distribution(cv, lcv, hcv, base, averaged=averaged, modifier=mod)
    if sh.target.kind == "leader":
        killed = sum((p for k, p in cas.items() if k >= 1), Fraction(0))
        e_cv = effectiveness_combat_value(tables, cv, vehicle=False)
        eff = distribution(e_cv, lcv, hcv, base, averaged=averaged, modifier=mod)
        return {
            "outcomes": {"killed": killed, "unhurt": 1 - killed},
            "expected": {
                "casualties": killed,
                "effectiveness loss": (1 - killed) * sum(k * p for k, p in eff.items()),
            },
        }
    men = sh.target_men
    outcomes: dict[str, Fraction] = {}
    for k, p in cas.items():
        lost = min(k, men)
        key = f"{lost} {'casualty' if lost == 1 else 'casualties'}"
        outcomes[key] = outcomes.get(key, Fraction(0)) + p
    expected_men = sum(min(k, men) * p for k, p in cas.items())
    e_cv = effectiveness_combat_value(tables, cv, vehicle=False)
    eff = distribution(e_cv, lcv, hcv, base, averaged=averaged, modifier=mod)
    survive = sum((p for k, p in cas.items() if k < men), Fraction(0))
    return {
        "outcomes": outcomes,
        "expected": {
            "casualties": expected_men,
            "effectiveness loss": survive * sum(k * p for k, p in eff.items()),
        },
        "states": _state_odds(tables, sh, cas, eff),
    }


def _state_odds(
    tables: Tables, sh: Shooting, cas: dict[int, Fraction], eff: dict[int, Fraction]
) -> dict[str, Fraction]:
    """The target team's state after the fire, enumerating the morale procedure's dice."""
    o = sh.o
    men = sh.target_men
    e_before = frac(o["target_effectiveness"])
    states: dict[str, Fraction] = {}
    groups: dict[tuple[bool, Fraction, bool], Fraction] = {}
    for k, pk in cas.items():
        if k >= men:
            states["eliminated"] = states.get("eliminated", Fraction(0)) + pk
            continue
        for loss, pl in eff.items():
            key = (k > 0, apply_effectiveness(tables, e_before, loss), loss > 0)
            groups[key] = groups.get(key, Fraction(0)) + pk * pl
    for (lost_men, e_after, lost_e), p in groups.items():

        def run(
            dice: DiceLike,
            lost_men: bool = lost_men,
            e_after: Fraction = e_after,
            lost_e: bool = lost_e,
        ) -> str:
            return pin_check(
                tables,
                dice,
                state=o["target_state"],
                quality=sh.target.quality or "C",
                effectiveness=e_after,
                men_lost=int(lost_men),
                effectiveness_lost=int(lost_e),
                ground=o["ground"],
                inspired=o["inspired"],
                always=sh.sniping or sh.weapon.load == "demolition",
            ).state

        for q, state in enumerate_rolls(run):
            states[state] = states.get(state, Fraction(0)) + p * q
    return dict(sorted(states.items()))


def _vehicle_odds(
    tables: Tables,
    sh: Shooting,
    cv: Fraction,
    lcv: Fraction,
    hcv: Fraction,
    base: Fraction,
    averaged: bool,
) -> dict[str, Any]:
    low, high = scaled(cv, lcv, hcv, base)
    ip = settled(tables.param("immobile-probability") / 100)
    if sh.o["flying"]:
        ip = Fraction(0)
    kill = Fraction(0)
    he = Fraction(0)
    for value, w in _values(low, high, averaged):
        whole = math.floor(value)
        p_kill = (
            Fraction(1)
            if whole >= 1
            else (settled(value - whole) if value > whole else Fraction(0))
        )
        kill += w * p_kill
        if not sh.o["immobile"]:
            he += w * (1 - p_kill) * _immobile_after_hit(tables, sh, value, ip)
    e_cv = effectiveness_combat_value(tables, cv, vehicle=True)
    eff = distribution(e_cv, lcv, hcv, base, averaged=averaged)
    killed = kill * (1 - ip)
    survives_immobile = kill * ip
    return {
        "outcomes": {
            "killed": killed,
            "immobilized": survives_immobile + he,
            "no kill": 1 - killed - survives_immobile - he,
        },
        "expected": {
            "kills": killed,
            "effectiveness loss": (1 - killed) * sum(k * p for k, p in eff.items()),
        },
    }


def _immobile_after_hit(tables: Tables, sh: Shooting, value: Fraction, ip: Fraction) -> Fraction:
    """The chance ``_vehicle_hurt`` immobilizes a vehicle it did not kill, at this value."""
    chance = he_immobile_chance(tables, sh, value)
    if chance > 0:
        return settled(Fraction(chance) / 100)
    if sh.weapon.load == "demolition" and not sh.o["flying"]:
        return ip
    return Fraction(0)
