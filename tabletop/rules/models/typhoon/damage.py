"""Damage: hit location, penetration, penetration effects and HE losses (ToS V).

The pure functions take the values read from the dice, so ``odds`` enumerates the very same
tests the rolling procedures apply.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import field
from typing import Any

from tabletop.core.dice import DiceLike, checkpoint, roll_composite, roll_in_bands
from tabletop.core.frozen import mutable_dataclass
from tabletop.rules.models.chance import percent, shown
from tabletop.rules.models.typhoon.tables import EPS, PERCENT, Tables, Unit, Weapon, band_cuts

TURRET_POSITIONS = (1, 2)  # ToS II.A: the first two weapons sit in the turret/upper hull
HULL_POSITIONS = (3, 4)  # and the last two in the lower hull


# --- hit location (ToS V Vehicle hit locations) ---------------------------------------------


def location_number(t: Tables, roll: int, levels_above: int) -> int:
    if levels_above >= t.p("higher-levels"):
        return roll + int(t.p("higher-bonus"))
    return roll


def hull_down_spares(t: Tables, number: int, hull_down: bool) -> bool:
    """A hull-down target is untouched by a location number under 51 (after the +10)."""
    return hull_down and number < t.p("hull-down-below")


def point_area(t: Tables, number: int, aspect: str) -> str:
    for band in t.tables["location"].values():
        if band.low <= number <= band.high:
            if band.area in ("hull", "turret"):
                return f"{aspect}-{band.area}"
            return str(band.area)
    raise ValueError(f"location number {number} is in no band of the location table")


def indirect_area(t: Tables, face: int) -> str:
    for row in t.tables["indirect_location"].values():
        if row.face == face:
            return str(row.area)
    raise ValueError(f"face {face} is in no row of the indirect_location table")


# --- penetration (ToS V Armour penetration, Penetration) -------------------------------------


def armour_at(target: Unit, area: str, aspect: str) -> float:
    assert target.armour is not None
    if area == "track":
        # Small arms on a track meet the hull armour of the face they strike (our reading).
        return target.armour.at(f"{aspect}-hull")
    return target.armour.at(area)


def always_penetrates(t: Tables, area: str, weapon: Weapon) -> bool:
    return area == "track" and weapon.size > t.p("track-always-above-size")


def depth_ap(t: Tables, u: float, weapon: Weapon, r: float) -> float:
    ss, p, mr = weapon.size, weapon.penetration, weapon.max_range
    falloff = max(0.0, (mr - r) / mr)
    if t.p("ap-reading") >= 1:
        return ss + u * (p / 2 + p / 2 * falloff)
    return ss + u * p * falloff


def depth_he(t: Tables, u: float, weapon: Weapon) -> float:
    return t.p("he-depth-factor") * weapon.size * u


def depth(t: Tables, shell: str, u: float, weapon: Weapon, r: float) -> float:
    return depth_ap(t, u, weapon, r) if shell == "ap" else depth_he(t, u, weapon)


def penetrates(pd: float, armour: float) -> bool:
    return pd >= armour - EPS


# --- effects of penetration (ToS V Effects of penetration) -----------------------------------


def destroyed_outright(t: Tables, weapon: Weapon, target: Unit, u1: float, u2: float) -> bool:
    """SS * Rnd(1) > target size * 2 * Rnd(1)."""
    return weapon.size * u1 > target.size * t.p("destroy-size-factor") * u2


@mutable_dataclass
class Status:
    """A target's running state through one fire action."""

    men: int
    immobilized: bool = False
    guns_out: set[int] = field(default_factory=set)
    destroyed: bool = False

    def key(self) -> tuple[object, ...]:
        """What of the target's state the rest of a fire's outcome can depend on, for the
        odds' checkpoints: guns already out only spare later gun-out rolls, which decide
        nothing the outcome names (ToS V Effects of penetration)."""
        return (self.men, self.immobilized, self.destroyed)

    def as_json(self) -> dict[str, Any]:
        return {
            "men": self.men,
            "immobilized": self.immobilized,
            "guns_out": sorted(self.guns_out),
            "destroyed": self.destroyed,
        }


@mutable_dataclass
class Penetration:
    destroyed_outright: bool = False
    immobilized: bool = False
    compartment: str | None = None
    guns_out: list[int] = field(default_factory=list)
    crew_killed: int = 0
    lines: list[str] = field(default_factory=list)


_OUTRIGHT_CUTS: dict[tuple[float, ...], tuple[int, ...]] = {}


def _outright_cuts(t: Tables, weapon: Weapon, target: Unit) -> tuple[int, ...]:
    """The first Rnd(1) of ``destroyed_outright`` matters only by which faces of the second
    then destroy the target: the bands of first faces that agree on them (computed once)."""
    key = (weapon.size, target.size, t.p("destroy-size-factor"), t.p("rnd-offset"))
    if key not in _OUTRIGHT_CUTS:
        seconds = [t.rnd_of(g) for g in t.faces()]

        def answer(face: int) -> tuple[bool, ...]:
            u1 = t.rnd_of(face)
            return tuple(destroyed_outright(t, weapon, target, u1, u2) for u2 in seconds)

        _OUTRIGHT_CUTS[key] = tuple(band_cuts(PERCENT, answer))
    return _OUTRIGHT_CUTS[key]


def penetration_effects(
    t: Tables,
    dice: DiceLike,
    weapon: Weapon,
    target: Unit,
    area: str,
    status: Status,
    mark: Hashable | None = None,
) -> Penetration:
    """``mark``: the caller's word that, once the target survives, what follows depends
    only on ``mark``, the target's state and the dice to come (the odds follow it once)."""
    out = Penetration()
    factor = t.p("destroy-size-factor")
    # Both Rnd(1) matter only through the one comparison: the first by which faces of the
    # second then destroy, the second by whether it does (the odds try one face of each).
    first = roll_in_bands(
        dice,
        PERCENT,
        f"destroyed outright? shell size {weapon.size} x Rnd(1) (d100 as Rnd)",
        _outright_cuts(t, weapon, target),
    )
    u1 = t.rnd_of(first)
    u2, _ = t.rnd_test(
        dice,
        1,
        f"destroyed outright? size {target.size} x {factor:g} x Rnd(1)",
        lambda v: destroyed_outright(t, weapon, target, u1, v),
    )
    left, right = weapon.size * u1, target.size * factor * u2
    rule = t.rule("penetration_effect", area)
    if destroyed_outright(t, weapon, target, u1, u2):
        out.destroyed_outright = True
        status.destroyed = True
        out.lines.append(f"destroyed outright: {left:.2f} > {right:.2f} [{rule}]")
        return out
    out.lines.append(f"survives the penetration: {left:.2f} <= {right:.2f} [{rule}]")
    if mark is not None:
        # What follows depends on the area, the target's state and the caller's mark only.
        checkpoint(dice, ("survived", mark, status.key()))
    effect = t.entry("penetration_effect", area)
    chance = float(effect.immobilize_chance)
    if chance >= 100:
        engine = True
    elif chance <= 0 or effect.compartment is None:
        engine = False
    else:
        engine, _ = t.percent(dice, chance, f"{area}: engine knocked out?")
    if engine:
        out.immobilized = True
        status.immobilized = True
        what = "track" if area == "track" else "engine"
        out.lines.append(f"{area}: {what} knocked out, maximum speed 0 [{rule}]")
        return out
    assert effect.compartment is not None
    crew_compartment(t, dice, target, effect.compartment, status, out)
    return out


def crew_compartment(
    t: Tables, dice: DiceLike, target: Unit, compartment: str, status: Status, out: Penetration
) -> None:
    out.compartment = compartment
    rule = t.rule("parameter", "gun-out-chance")
    positions = TURRET_POSITIONS if compartment == "turret" else HULL_POSITIONS
    gun_chance = t.p("gun-out-chance")
    for pos in positions:
        if pos > len(target.weapons) or pos in status.guns_out:
            continue
        gone, _ = t.percent(dice, gun_chance, f"gun {pos} ({target.weapons[pos - 1].weapon}) out?")
        if gone:
            status.guns_out.add(pos)
            out.guns_out.append(pos)
    shown = ", ".join(str(p) for p in out.guns_out) or "none"
    out.lines.append(f"{compartment} crew compartment hit: guns knocked out: {shown} [{rule}]")
    kill_chance = t.p("crew-kill-chance")
    while status.men > 0:
        dead, _ = t.percent(dice, kill_chance, f"crewman {out.crew_killed + 1} killed?")
        if not dead:
            break
        status.men -= 1
        out.crew_killed += 1
    out.lines.append(
        f"crew killed: {out.crew_killed} ({status.men} left) "
        f"[{t.rule('parameter', 'crew-kill-chance')}]"
    )
    if status.men == 0:
        status.destroyed = True
        out.lines.append("the whole crew is dead: vehicle destroyed")


# --- HE damage (ToS V Damage by HE fire, Damage to soft targets) ------------------------------


def he_chance(t: Tables, weapon: Weapon, target: Unit, primary: bool) -> tuple[float, str]:
    if primary:
        ident = "he-primary"
    elif not target.is_hard:
        ident = "he-soft"
    elif target.is_open_topped:
        ident = "he-open-topped"
    else:
        ident = "he-closed"
    row = t.entry("he_chance", ident)
    scale = {"fixed": 1.0, "infantry-attack": weapon.infantry_attack, "shell-size": weapon.size}
    return float(row.value) * scale[row.per], ident


def squad_attack(t: Tables, shooter: Unit | None, weapon: Weapon, men: int) -> float:
    """A squad's IA is the weapon's IA times its men (not for special weapons: our reading)."""
    if shooter is not None and shooter.kind == "infantry" and weapon.special is None:
        return weapon.infantry_attack * men
    return weapon.infantry_attack


def kill_value(t: Tables, ia: float, ra: float, u1: float, u2: float) -> float:
    """Men killed, in men: IA * Rnd(1) * RA / 200 + Rnd(1)."""
    return ia * u1 * ra / t.p("kill-divisor") + u2


def split(value: float) -> tuple[int, float]:
    """Whole men and the remainder as a percent chance of one more."""
    whole = math.floor(value + EPS)
    return whole, max(0.0, (value - whole) * 100)


def extra_kill(t: Tables, ra: float, u: float) -> bool:
    return ra + t.p("extra-kill-add") > t.p("extra-kill-scale") * u


def gun_destroyed(t: Tables, weapon: Weapon, killed: int, u: float) -> bool:
    return u * t.p("gun-destroy-scale") < weapon.size * killed


def can_be_destroyed_by_losses(target: Unit) -> bool:
    # Gun units, and (our reading) soft vehicles, may be destroyed outright by HE losses.
    return target.kind == "gun" or (target.kind == "vehicle" and not target.is_hard)


@mutable_dataclass
class Losses:
    killed: int = 0
    destroyed: bool = False
    lines: list[str] = field(default_factory=list)


def he_losses(
    t: Tables,
    dice: DiceLike,
    weapon: Weapon,
    ia: float,
    ra: float,
    target: Unit,
    status: Status,
    mark: Hashable | None = None,
) -> Losses:
    """Men killed by HE (ToS V Damage to soft targets). ``mark``: the caller's word that
    nothing after these losses but the men killed and the dice still to come decides its
    outcome (a lone HE hit), so the odds may follow what comes after once per count."""
    out = Losses()
    rule = t.rule("parameter", "kill-divisor")
    div = t.p("kill-divisor")

    def men_killed(d: DiceLike) -> tuple[int, tuple[str, ...]]:
        # The two Rnd(1) are used continuously (multiplied in, then the fraction left is the
        # chance of one more man), so only the count they make matters to what follows.
        u1, _ = t.rnd(d, 1, "men killed: first Rnd(1)")
        u2, _ = t.rnd(d, 1, "men killed: second Rnd(1)")
        value = kill_value(t, ia, ra, u1, u2)
        whole, rest = split(value)
        lines = [
            f"men killed = {ia:g} x {u1:.3f} x {ra:.2f} / {div:g} + {u2:.3f} = {value:.3f} [{rule}]"
        ]
        count = whole
        if rest > EPS:
            more, _ = t.percent(d, rest, "one more man killed?")
            count += int(more)
            lines.append(
                f"{whole} killed, and {shown(percent(rest))} for one more: "
                f"{'yes' if more else 'no'}"
            )
        return count, tuple(lines)

    total, lines = roll_composite(dice, ("typhoon HE men killed", ia, ra), men_killed)
    out.lines.extend(lines)
    if mark is not None:
        # What follows depends on the men killed so far only (and what the caller fixed).
        checkpoint(dice, (mark, total))
    if weapon.size > 1:
        u3, _ = t.rnd_test(
            dice, 1, "extra kill for shell size over 1", lambda u: extra_kill(t, ra, u)
        )
        add, scale = t.p("extra-kill-add"), t.p("extra-kill-scale")
        extra = extra_kill(t, ra, u3)
        total += int(extra)
        out.lines.append(
            f"extra kill: {ra:.2f} + {add:g} > {scale:g} x {u3:.3f}: {'yes' if extra else 'no'}"
        )
    out.killed = min(total, status.men)
    status.men -= out.killed
    if out.killed and status.men and can_be_destroyed_by_losses(target):
        killed = out.killed
        u4, _ = t.rnd_test(
            dice, 1, "gun or soft vehicle destroyed?", lambda u: gun_destroyed(t, weapon, killed, u)
        )
        scale = t.p("gun-destroy-scale")
        if gun_destroyed(t, weapon, out.killed, u4):
            out.destroyed = True
            out.lines.append(
                f"destroyed: {u4:.3f} x {scale:g} < {weapon.size} x {out.killed} "
                f"[{t.rule('parameter', 'gun-destroy-scale')}]"
            )
    if status.men == 0:
        out.destroyed = True
        out.lines.append("no men left: the unit is destroyed")
    status.destroyed = status.destroyed or out.destroyed
    return out
