"""Assaults (SB Assaulting): assault values, the combat results both ways, the hard-vehicle
morale check, retreat, surrender and the armour assault modifier."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.rules.models.squad_battles.results import (
    combat_result,
    die,
    effectiveness_combat_value,
    num,
    show,
)
from tabletop.rules.models.squad_battles.tables import Tables, frac

VALUES = "SB Assaulting: Assault Values"
VEHICLE = "SB Assaulting: Vehicle Assault Value"
RESOLUTION = "SB Assaulting: Assault Resolution"
RETREAT = "SB Assaulting: Retreating"


def vehicle_assault_value(tables: Tables, armour: Fraction) -> Fraction:
    """(Armour - 4) x Vehicle Infantry x Infantry Assault / Hard Vehicle."""
    offset = tables.param("vehicle-assault-armour-offset")
    return (
        max(Fraction(0), armour - offset)
        * tables.param("vehicle-infantry")
        * tables.param("infantry-assault")
        / tables.param("hard-vehicle-armour")
    )


def vehicle_loss_strength(tables: Tables, armour: Fraction) -> int:
    """SB Vehicle Assault Resolution: armour x Vehicle Infantry / Hard Vehicle, rounded down."""
    return int(armour * tables.param("vehicle-infantry") / tables.param("hard-vehicle-armour"))


def assault_value(tables: Tables, o: dict[str, Any]) -> dict[str, Any]:
    unit, strength, armour = o["unit"], o["strength"], o["armour"]
    if o["profile"]:
        p = tables.profile(o["profile"], "--set profile")
        unit = "horse" if p.horse else p.kind
        if strength is None:
            strength = p.men if p.kind == "team" else 1
        if armour is None and p.armour is not None:
            armour = frac(p.armour)
    if unit is None:
        raise BadInput("give --set unit=team|leader|weapon|vehicle|horse (or --set profile=ID)")
    ia = tables.param("infantry-assault")
    strength = 1 if strength is None else strength
    lines: list[str] = []
    loss_strength = None
    if unit == "leader":
        value = ia
        lines.append(f"leader: infantry assault {show(ia)}")
    elif unit == "team":
        value = strength * ia
        lines.append(f"team: {strength} men x {show(ia)} = {show(value)}")
    elif unit == "weapon":
        value = strength * frac(o["weapon_assault"])
        lines.append(f"weapons: {strength} x assault value {show(o['weapon_assault'])}")
    elif unit == "horse":
        value = o["passengers"] * tables.param("horse-assault-per-passenger")
        lines.append(f"horses: {o['passengers']} passengers x 4 = {show(value)}")
    else:
        a = frac(armour or 0)
        loss_strength = vehicle_loss_strength(tables, a)
        if o["immobile"]:
            value = Fraction(0)
            lines.append("immobile vehicle: only its weapons count")
        else:
            value = vehicle_assault_value(tables, a)
            lines.append(
                f"vehicle: ({show(a)} - {show(tables.param('vehicle-assault-armour-offset'))}) x "
                f"{show(tables.param('vehicle-infantry'))} x {show(ia)} / "
                f"{show(tables.param('hard-vehicle-armour'))} = {show(value)} [{VEHICLE}]"
            )
        lines.append(
            f"strength for sharing losses {show(a)} x {show(tables.param('vehicle-infantry'))} / "
            f"{show(tables.param('hard-vehicle-armour'))} = {loss_strength} (fractions dropped)"
        )
    factors = []
    if o["disrupted"]:
        factors.append(("disrupted", tables.param("assault-disrupted")))
    if o["role"] == "attacker" and o["slope"] != "level":
        factors.append((f"attacking {o['slope']}", tables.param(f"assault-{o['slope']}")))
    if o["role"] == "defender" and o["state"] in ("pinned", "demoralized"):
        factors.append((f"{o['state']} defender", tables.param(f"assault-{o['state']}-defender")))
    for name, f in factors:
        value *= f
        lines.append(f"x{show(f)} {name}")
    return {
        "verdict": f"assault value {show(value)}",
        "assault_value": num(value, 2),
        "loss_strength": loss_strength,
        "lines": lines,
        "rule": VALUES,
    }


def aggregate_morale(tables: Tables, units: int, leader: int | None) -> tuple[int, str]:
    """SB Assault Morale with the leader modification: +1 when a leader rates higher."""
    if leader is not None and leader > units:
        bonus = int(tables.param("leader-morale-bonus"))
        return units + bonus, f"{units} + {bonus} (leader {leader} rates higher)"
    return units, str(units)


def assault(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    sides = die(tables)
    lines: list[str] = []
    base = tables.param("baseline-combat-value")
    if o["hard_vehicle"]:
        check = o["attacker_min_morale"] // 2
        r = dice.roll(sides, f"hard vehicle morale check: {check} or less")
        lines.append(
            f"hard vehicle in the hex: check on half the lowest attacking morale "
            f"({o['attacker_min_morale']} // 2 = {check}): d{sides} {r}"
        )
        if r > check:
            lines.append("fails: the attacking infantry is pinned and the assault has no effect")
            return {
                "verdict": "X: the assault fails the hard vehicle morale check",
                "result": "X",
                "attacker_losses": 0,
                "defender_losses": 0,
                "retreat": False,
                "surrendered": False,
                "attackers_pinned": True,
                "lines": lines,
                "rule": "SB Assaulting: Hard Vehicle Morale Check",
            }
    attack, defend = o["attack"], o["defend"]
    d = combat_result(
        attack,
        tables.param("assault-defend-lcv"),
        tables.param("assault-defend-hcv"),
        base,
        dice,
        "defender losses",
        averaged=o["averaged"],
    )
    a = combat_result(
        defend,
        tables.param("assault-attack-lcv"),
        tables.param("assault-attack-hcv"),
        base,
        dice,
        "attacker losses",
        averaged=o["averaged"],
    )
    lines += d.lines + a.lines
    share = tables.param("assault-effectiveness")
    eff: dict[str, int] = {}
    for side, cv in (("defender", attack), ("attacker", defend)):
        # The same low and high as that side's casualties, x5 and doubled in an assault.
        e_cv = effectiveness_combat_value(tables, cv, vehicle=False) * share
        low_high = (
            tables.param(f"assault-{'defend' if side == 'defender' else 'attack'}-lcv"),
            tables.param(f"assault-{'defend' if side == 'defender' else 'attack'}-hcv"),
        )
        loss = combat_result(
            e_cv, *low_high, base, dice, f"{side} effectiveness loss", averaged=o["averaged"]
        )
        eff[side] = loss.result
        lines.append(f"{side} effectiveness loss (x5, doubled in an assault): {loss.result}")
    att_m, att_why = aggregate_morale(tables, o["attacker_morale"], o["attacker_leader"])
    def_m, def_why = aggregate_morale(tables, o["defender_morale"], o["defender_leader"])
    if o["clear"] and o["attacker_armour"]:
        cut = int(frac(o["attacker_armour"]) / tables.param("armour-assault-divisor"))
        def_m = max(0, def_m - cut)
        def_why += f" - {cut} (armour {show(o['attacker_armour'])} / 12 in a clear hex)"
    lines.append(f"morale: attacker {att_why}; defender {def_why}")
    retreat, surrendered = False, False
    if d.result == 0:
        lines.append("no defender losses by the combat calculation: no retreat")
    elif o["defender_vehicle"]:
        lines.append("defenders with a non-wrecked vehicle do not retreat")
    else:
        r1 = dice.roll(sides, f"retreat test 1: defender holds on {def_m} or less")
        r2 = dice.roll(sides, f"retreat test 2: defender holds over {att_m}")
        held = r1 <= def_m or r2 > att_m
        lines.append(
            f"retreat test: d{sides} {r1} vs defender morale {def_m}, d{sides} {r2} vs attacker "
            f"morale {att_m}: " + ("defenders hold" if held else "defenders retreat, demoralized")
        )
        if not held:
            if o["can_retreat"]:
                retreat = True
            elif o["japanese"]:
                lines.append("no way to retreat; Japanese units do not surrender")
            else:
                surrendered = True
                lines.append("no way to retreat: the demoralized defenders surrender")
    pinned = not retreat and not surrendered
    if pinned:
        lines.append("the defenders stay: the attacking infantry not demoralized is pinned")
    result = f"{a.result}/{d.result}"
    outcome = "surrender" if surrendered else "retreat" if retreat else "held"
    return {
        "verdict": f"assault {result} (attacker/defender losses): {outcome}",
        "result": result,
        "attacker_losses": a.result,
        "defender_losses": d.result,
        "attacker_effectiveness_loss": eff["attacker"],
        "defender_effectiveness_loss": eff["defender"],
        "attacker_morale": att_m,
        "defender_morale": def_m,
        "retreat": retreat,
        "surrendered": surrendered,
        "attackers_pinned": pinned,
        "lines": lines,
        "rule": RESOLUTION,
    }
