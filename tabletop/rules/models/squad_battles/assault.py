"""Assaults (SB Assaulting): assault values, the combat results both ways, the hard-vehicle
morale check, retreat, surrender and the armour assault modifier.

When the units of each side are given (``attacker_units``/``defender_units``: on the table,
the stands of the assault), each side's losses are shared out among its units in proportion
to their strength (SB Assault Resolution): a team's men, a leader's one, a vehicle's armour x
Vehicle Infantry / Hard Vehicle, fractions dropped (SB Vehicle Assault Resolution). The
table has no hidden random draw, so each casualty is placed by a die with a face for each
point of strength still standing (d13 for a squad of 10 and a truck: 1-10 the squad, 11-13
the truck); the man or point taken leaves the pool, so the shares are proportional on
average and never exceed a unit's strength. A vehicle that took a share is killed by a
non-zero loss: the share x Vehicle Fire Factor x 1/2 x Hard Vehicle / armour, its fraction
rounded up at random as every combat result is (SB Combat Losses and Vehicle Kills); a
vehicle takes no loss when the other side has no infantry. The losses are applied before the
retreat test, so a wrecked vehicle no longer holds its defenders in place.

The odds (``--odds``) run this very procedure over its dice: the placing dice and the retreat
and hard vehicle tests are tried by band, and a checkpoint after each combat result and each
casualty placed lets the enumeration follow what comes next once for each position reached.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike, checkpoint, roll_in_bands
from tabletop.core.errors import BadInput
from tabletop.core.frozen import mutable_dataclass
from tabletop.rules.models.chance import roll_chance, rolls_text, shown
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
SHARING = "SB Assaulting: Assault Resolution; Vehicle Assault Resolution"
KILLS = "SB Combat Results: Combat Losses and Vehicle Kills"
UNIT_KINDS = ("team", "leader", "vehicle")
INFANTRY = ("team", "leader")


# What became of the defenders, as the odds and the record say it (SB Assaulting:
# Retreating).
OUTCOME_WORDS = {
    "destroyed": "the defenders are destroyed",
    "surrender": "the defenders surrender",
    "retreat": "the defenders retreat",
    "held": "the defenders hold",
}


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


@mutable_dataclass
class Unit:
    """One unit of a side in an assault (on the table: one stand)."""

    id: str
    kind: str  # team, leader or vehicle
    strength: int  # for sharing losses: men, 1, or the vehicle's loss strength
    armour: Fraction | None = None
    value: Fraction | None = None  # its assault value, when known (for the working)
    losses: int = 0
    killed: bool = False
    vehicle_loss: Fraction | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "strength": self.strength,
            "losses": self.losses,
            "killed": self.killed,
        }
        if self.armour is not None:
            out["armour"] = num(self.armour)
        if self.vehicle_loss is not None:
            out["vehicle_loss"] = num(self.vehicle_loss)
        return out


def unit_strength(tables: Tables, kind: str, number: Fraction | int | None) -> int:
    """The strength a unit shares losses by: a team's men, a leader's 1, a vehicle's armour x
    Vehicle Infantry / Hard Vehicle, fractions dropped (SB Vehicle Assault Resolution)."""
    if kind == "team":
        return int(number or 0)
    if kind == "leader":
        return 1
    return vehicle_loss_strength(tables, frac(number or 0))


def parse_units(tables: Tables, given: Any, what: str) -> list[Unit]:
    """Units from the stands (a list of dicts), or from ``--set`` text: ``team:10,leader,
    vehicle:4`` (a team's men, a vehicle's armour; ids are the kind and its place)."""
    if given is None:
        return []
    if isinstance(given, list):
        out = []
        for item in given:
            armour = item.get("armour")
            value = item.get("value")
            out.append(
                Unit(
                    id=str(item["id"]),
                    kind=str(item["kind"]),
                    strength=int(item["strength"]),
                    armour=None if armour is None else frac(armour),
                    value=None if value is None else frac(value),
                )
            )
        return out
    units = []
    for place, part in enumerate(str(given).replace(" ", "").split(","), start=1):
        kind, _, number = part.partition(":")
        kind = kind.lower()
        bad = BadInput(
            f"--set {what}={given!r}: expected units like team:10,leader,vehicle:4 "
            "(a team's men, a vehicle's armour)"
        )
        if kind not in UNIT_KINDS or (kind == "leader") != (number == ""):
            raise bad
        try:
            amount = Fraction(number) if number else None
        except (ValueError, ZeroDivisionError):
            raise bad from None
        if amount is not None and (amount < 0 or (kind == "team" and amount.denominator != 1)):
            raise bad
        units.append(
            Unit(
                id=f"{kind}{place}",
                kind=kind,
                strength=unit_strength(tables, kind, amount),
                armour=amount if kind == "vehicle" else None,
            )
        )
    return units


def share_losses(
    units: list[Unit],
    losses: int,
    dice: DiceLike,
    side: str,
    placed: Callable[[], None] | None = None,
) -> list[str]:
    """SB Assault Resolution: ``losses`` placed one at a time on the units by strength;
    ``placed`` is called after each casualty placed by a die (for the odds' checkpoints)."""
    if not units or losses <= 0:
        return []
    if len(units) == 1:
        units[0].losses = min(losses, units[0].strength)
        return [f"{side} losses {losses}: all on {units[0].id}, its side's only unit"]
    pool = {u.id: u.strength for u in units}
    by_id = {u.id: u for u in units}
    total = sum(pool.values())
    lines = [
        f"{side} losses {losses} shared by strength ("
        + ", ".join(f"{u.id} {u.strength}" for u in units)
        + f"; total {total}) [{SHARING}]"
    ]
    left = losses
    while left > 0:
        standing = [(uid, n) for uid, n in pool.items() if n > 0]
        total = sum(n for _, n in standing)
        if total == 0:
            lines.append(f"  {left} more lost: no one is left to take them")
            break
        if left >= total or len(standing) == 1:
            for uid, n in standing:
                took = min(n, left) if len(standing) == 1 else n
                by_id[uid].losses += took
                pool[uid] -= took
            lines.append(
                "  the rest, no roll: "
                + ", ".join(
                    f"{uid} {min(n, left) if len(standing) == 1 else n}" for uid, n in standing
                )
            )
            break
        bands, top = [], 0
        for uid, n in standing:
            bands.append((uid, top + 1, top + n))
            top += n
        where = ", ".join(f"{uid} {a}-{b}" if a != b else f"{uid} {a}" for uid, a, b in bands)
        r = roll_in_bands(
            dice,
            total,
            f"{side} loss {losses - left + 1} of {losses}: {where}",
            [b for *_, b in bands[:-1]],
        )
        hit = next(uid for uid, a, b in bands if a <= r <= b)
        by_id[hit].losses += 1
        pool[hit] -= 1
        left -= 1
        lines.append(f"  d{total} {r} ({where}): {hit}")
        if placed is not None:
            placed()
    return lines


def _shares(n: int) -> str:
    return f"{n} share{'s' if n != 1 else ''}"


def vehicle_kills(
    tables: Tables, units: list[Unit], dice: DiceLike, side: str, other_infantry: bool
) -> list[str]:
    """SB Combat Losses and Vehicle Kills: a vehicle's share x Vehicle Fire Factor x 1/2 x Hard
    Vehicle / armour; any loss after random rounding kills it. Without infantry on the other
    side, vehicles take no loss."""
    lines: list[str] = []
    vff = tables.param("vehicle-fire-factor")
    half = tables.param("assault-vehicle-loss-share")
    hard = tables.param("hard-vehicle-armour")
    for u in units:
        if u.kind == "vehicle" and u.losses > 0 and not other_infantry:
            lines.append(
                f"{u.id}: {_shares(u.losses)}, but no infantry against it: no loss [{KILLS}]"
            )
        elif u.kind == "vehicle" and u.losses > 0:
            armour = u.armour or Fraction(0)
            loss = u.losses * vff * half * (hard / armour) if armour > 0 else Fraction(u.losses)
            u.vehicle_loss = loss
            text = (
                f"{u.id}: {_shares(u.losses)} x {show(vff)} vehicle fire factor x {show(half)} x "
                f"{show(hard)} / armour {show(armour)} = {show(loss)}"
            )
            whole = math.floor(loss)
            if whole >= 1:
                u.killed = True
                lines.append(f"{text}: a loss: killed [{KILLS}]")
            else:
                up, rolled = roll_chance(
                    dice, loss, f"{side} {u.id}: killed if {show(loss)} rounds up"
                )
                u.killed = up
                lines.append(
                    f"{text}: rounds up {shown(loss)} of the time; {rolls_text(rolled)} -> "
                    + ("killed" if up else "no loss")
                    + f" [{KILLS}]"
                )
        elif u.kind in INFANTRY and u.losses > 0 and (u.kind == "leader" or u.losses >= u.strength):
            u.killed = True
    return lines


def _units_out(attackers: list[Unit], defenders: list[Unit]) -> dict[str, Any]:
    """Each side's units with their losses, when they were given."""
    out: dict[str, Any] = {}
    if attackers:
        out["attacker_units"] = [u.as_dict() for u in attackers]
    if defenders:
        out["defender_units"] = [u.as_dict() for u in defenders]
    return out


def assault(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    sides = die(tables)
    lines: list[str] = []
    base = tables.param("baseline-combat-value")
    attackers = parse_units(tables, o.get("attacker_units"), "attacker_units")
    defenders = parse_units(tables, o.get("defender_units"), "defender_units")
    for label, units, total in (
        ("attackers", attackers, o["attack"]),
        ("defenders", defenders, o["defend"]),
    ):
        if units and all(u.value is not None for u in units):
            parts = " + ".join(f"{u.id} {show(u.value or 0)}" for u in units)
            lines.append(f"{label}: {parts} = {show(total)} [{VALUES}]")
    # The odds: what follows each checkpoint depends only on the losses found so far and the
    # units' losses (and the options, the same throughout). The effectiveness losses change
    # nothing later and are not in the outcome the odds group by (the result a/d), so they
    # are left out of the key: the combat results' rolls are then followed once per result.
    found: list[int] = []

    def mark(stage: str) -> None:
        units = tuple((u.losses, u.killed) for u in (*attackers, *defenders))
        checkpoint(dice, ("squad-battles assault", stage, *found, units))

    if o["hard_vehicle"]:
        check = o["attacker_min_morale"] // 2
        r = roll_in_bands(dice, sides, f"hard vehicle morale check: {check} or less", (check,))
        lines.append(
            f"hard vehicle in the hex: check on half the lowest attacking morale "
            f"({o['attacker_min_morale']} // 2 = {check}): d{sides} {r}"
        )
        if r > check:
            lines.append("fails: the attacking infantry is pinned and the assault has no effect")
            return {
                "verdict": "X: the assault fails the hard vehicle morale check",
                "result": "X",
                "outcome": "the attackers fail the hard vehicle morale check",
                "attacker_losses": 0,
                "defender_losses": 0,
                "retreat": False,
                "surrendered": False,
                "attackers_pinned": True,
                **_units_out(attackers, defenders),
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
    found.append(d.result)
    mark("defender losses")
    a = combat_result(
        defend,
        tables.param("assault-attack-lcv"),
        tables.param("assault-attack-hcv"),
        base,
        dice,
        "attacker losses",
        averaged=o["averaged"],
    )
    found.append(a.result)
    mark("attacker losses")
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
        mark(f"{side} effectiveness loss")
    # SB Assault Resolution: the losses applied, unit by unit, before the retreat test
    lines += share_losses(defenders, d.result, dice, "defender", lambda: mark("defender share"))
    lines += vehicle_kills(
        tables,
        defenders,
        dice,
        "defender",
        not attackers or any(u.kind in INFANTRY for u in attackers),
    )
    mark("defender vehicle kills")
    lines += share_losses(attackers, a.result, dice, "attacker", lambda: mark("attacker share"))
    lines += vehicle_kills(
        tables,
        attackers,
        dice,
        "attacker",
        not defenders or any(u.kind in INFANTRY for u in defenders),
    )
    defender_vehicle = bool(o["defender_vehicle"])
    if defenders:
        defender_vehicle = any(u.kind == "vehicle" and not u.killed for u in defenders)
    destroyed = bool(defenders) and all(u.killed for u in defenders)
    leader = {"attacker": o["attacker_leader"], "defender": o["defender_leader"]}
    for side, units in (("attacker", attackers), ("defender", defenders)):
        fell = [u for u in units if u.kind == "leader"]
        if leader[side] is not None and fell and all(u.killed for u in fell):
            leader[side] = None
            lines.append(f"the {side}s' leader fell: no leader bonus to their morale")
    att_m, att_why = aggregate_morale(tables, o["attacker_morale"], leader["attacker"])
    def_m, def_why = aggregate_morale(tables, o["defender_morale"], leader["defender"])
    if o["clear"] and o["attacker_armour"]:
        cut = int(frac(o["attacker_armour"]) / tables.param("armour-assault-divisor"))
        def_m = max(0, def_m - cut)
        def_why += f" - {cut} (armour {show(o['attacker_armour'])} / 12 in a clear hex)"
    lines.append(f"morale: attacker {att_why}; defender {def_why}")
    retreat, surrendered = False, False
    if destroyed:
        lines.append("no defender is left standing: the attackers take the hex")
    elif d.result == 0:
        lines.append("no defender losses by the combat calculation: no retreat")
    elif defender_vehicle:
        lines.append("defenders with a non-wrecked vehicle do not retreat")
    else:
        mark("retreat test")
        r1 = roll_in_bands(
            dice, sides, f"retreat test 1: defender holds on {def_m} or less", (def_m,)
        )
        r2 = roll_in_bands(dice, sides, f"retreat test 2: defender holds over {att_m}", (att_m,))
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
    pinned = not retreat and not surrendered and not destroyed
    if pinned:
        lines.append("the defenders stay: the attacking infantry not demoralized is pinned")
    result = f"{a.result}/{d.result}"
    outcome = (
        "destroyed"
        if destroyed
        else "surrender"
        if surrendered
        else "retreat"
        if retreat
        else "held"
    )
    return {
        "verdict": f"assault {result} (attacker/defender losses): {outcome}",
        "result": result,
        "outcome": OUTCOME_WORDS[outcome],
        "attacker_losses": a.result,
        "defender_losses": d.result,
        "attacker_effectiveness_loss": eff["attacker"],
        "defender_effectiveness_loss": eff["defender"],
        "attacker_morale": att_m,
        "defender_morale": def_m,
        "retreat": retreat,
        "surrendered": surrendered,
        "attackers_pinned": pinned,
        "defenders_destroyed": destroyed,
        **_units_out(attackers, defenders),
        "lines": lines,
        "rule": RESOLUTION,
    }
