"""Mech Brigade fire up to the dice: which weapon fires, accuracy, penetration, kills and
suppression (MB 6.1, 7.3-7.6, 7.14), with the working in plain English.

Everything is exact arithmetic on fractions, so ``odds`` can be exact. The one random step,
the kill roll, is made by the model (``__init__.py``) from ``formulas.kill_chance``.

Ranges are in whole squares: the measured range is rounded to the nearest square (half
up), as the game counts squares; range 0 is the same square.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import field
from fractions import Fraction
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import frozen_dataclass, mutable_dataclass
from tabletop.core.words import count
from tabletop.rules.models.mech_brigade.data import (
    ANTI_AIR_KINDS,
    INDIRECT_KINDS,
    SAM_KINDS,
    Profile,
    Tables,
)
from tabletop.rules.models.mech_brigade.formulas import (
    apf,
    atgm_accuracy,
    blocking_factor,
    cannon_accuracy,
    halvings,
    moving_divisor,
    nonvehicle_kills,
    num,
    plain_accuracy,
    range_term,
    squares,
    suppression_added,
    suppression_cap,
    vehicle_kills,
)
from tabletop.rules.models.mech_brigade.reader import Reader

WEAPONS = ("auto", "gun", "atgm", "siw")
SPOTTERS = ("no-los", "square", "unit")
ASPECTS = ("front", "back")

# What ``--set KEY=VALUE`` means for mech-brigade fire (shown by ``tabletop model show``).
FIRE_OPTIONS: dict[str, str] = {
    "pulses": "pulses the unit has fired at this target, 1 on the first (MB 7.3; default 1)",
    "cover": "terrain of the target's square: clear, town, woods, broken, entrenchment",
    "target_speed": "the target's speed setting; 0 is stationary (MB 7.3, 7.4; default 0)",
    "smoke": "smoke levels on the line of fire, the two end squares included (MB 7.3)",
    "woods": "woods squares between the units, end squares not counted (MB 7.3)",
    "towns": "town squares between the units, end squares not counted (MB 7.3)",
    "aspect": "armour facing the firer: front (default) or back; range 0 is always back",
    "weapon": "auto (default), gun, atgm or siw (special infantry weapon, MB 6.1)",
    "indirect": "true for a bombardment (MB 7.5); range counts as the weapon's maximum",
    "spotter": "indirect fire: no-los, square (sees the square) or unit (sees a unit)",
    "altitude": "a helicopter target's altitude level, 1-9 (MB 7.14; default 1)",
    "shooter_suppression": "the firer's suppression, 0-200 (MB 7.7; default 0)",
    "target_suppression": "the target's suppression before this fire (MB 7.4, 7.6)",
    "strength": "vehicles or men left in the target unit: kills beyond it are lost (table "
    "mode: what the stand has left)",
    "los": "line of sight to the target (MB 8.0; default true): without it only a "
    "bombardment may fire (table mode: traced over the table's squares)",
}

# --- the situation -----------------------------------------------------------------------------


@frozen_dataclass
class Situation:
    pulses: int
    cover: str
    target_speed: Fraction
    smoke: int
    woods: int
    towns: int
    aspect: str
    weapon: str
    indirect: bool
    spotter: str
    altitude: int
    shooter_suppression: Fraction
    target_suppression: int
    strength: int | None
    los: bool

    @classmethod
    def read(cls, t: Tables, options: Mapping[str, Any]) -> Situation:
        unknown = sorted(set(options) - set(FIRE_OPTIONS))
        if unknown:
            raise BadInput(
                f"--set {unknown[0]!r}: not an option of mech-brigade fire "
                f"(accepted: {', '.join(FIRE_OPTIONS)})"
            )
        r = Reader(options)
        cover = r.choice("cover", "clear", t.terrain)
        return cls(
            pulses=r.integer("pulses", 1, 0, 99),
            cover=cover,
            target_speed=r.number("target_speed", 0, 0, 999),
            smoke=r.integer("smoke", 0, 0, 99),
            woods=r.integer("woods", 0, 0, 99),
            towns=r.integer("towns", 0, 0, 99),
            aspect=r.choice("aspect", "front", ASPECTS),
            weapon=r.choice("weapon", "auto", WEAPONS),
            indirect=r.flag("indirect"),
            spotter=r.choice("spotter", "unit", SPOTTERS),
            altitude=r.integer("altitude", 1, 1, 9),
            shooter_suppression=r.number(
                "shooter_suppression", 0, 0, t.num("suppression-cap-nonvehicle")
            ),
            target_suppression=r.integer(
                "target_suppression", 0, 0, t.whole("suppression-cap-nonvehicle")
            ),
            strength=r.integer("strength", None, 1) if r.given("strength") else None,
            los=r.flag("los", True),
        )


# --- resolution --------------------------------------------------------------------------------


@mutable_dataclass
class Attack:
    """One fire resolved up to the dice: the numbers and the working."""

    shooter: Profile
    target: Profile
    weapon: Profile
    mode: str  # gun, small-arms, atgm, siw, indirect
    count: int
    weapons: int
    measured: Fraction
    range: int
    situation: Situation
    accuracy: Fraction = Fraction(0)
    apf: Fraction | None = None
    armour: Fraction | None = None
    defence: Fraction | None = None
    kills: Fraction = Fraction(0)
    added: Fraction = Fraction(0)
    suppression: int = 0
    lines: list[str] = field(default_factory=list)

    @property
    def vehicle_target(self) -> bool:
        return self.target.is_vehicle

    def note(self, text: str) -> None:
        self.lines.append(text)


def resolve(
    t: Tables, shooter_id: str, target_id: str, inches: float, count: int, options: Any
) -> Attack:
    """Everything about one fire but the kill roll."""
    sit = Situation.read(t, options)
    shooter = t.profile(shooter_id, "--shooter")
    target = t.profile(target_id, "--target")
    if target.kind == "siw":
        raise BadInput(
            f"--target {target.id!r}: a special infantry weapon is carried by a rifle "
            "platoon, not a unit of its own; target RIFLE-N or RIFLE-S (MB 6.1)"
        )
    if inches < 0 or not math.isfinite(inches):
        raise BadInput(f"range {inches!r}: give a distance of 0 or more")
    size = Fraction(str(t.scale.inches))
    # Read as a tape is read: to a millionth of an inch, so 25.999999999 is 26.
    measured = Fraction(str(round(inches, 6))) / size
    rng = squares(measured)
    a = Attack(shooter, target, shooter, "gun", count, count, measured, rng, sit)
    a.note(
        f'range {num(inches, 2)}" = {num(measured, 2)} squares of {num(size)}": '
        f"{rng} square{'s' if rng != 1 else ''} [MB 1.4]"
    )
    _choose_weapon(t, a)
    if a.mode == "indirect":
        _indirect(t, a)
    elif a.vehicle_target:
        _against_vehicle(t, a)
    else:
        _against_nonvehicle(t, a)
    _suppression(t, a)
    return a


def _helicopter_range(t: Tables, a: Attack) -> None:
    # MB 7.14: ground fire at a helicopter adds a square per 3 altitude levels.
    if a.target.is_helicopter and not a.shooter.is_helicopter:
        extra = a.situation.altitude // t.whole("helicopter-levels-per-square")
        if extra:
            a.range += extra
            a.note(
                f"helicopter at altitude {a.situation.altitude}: range +{extra} "
                f"= {a.range} squares [MB 7.14]"
            )


def _choose_weapon(t: Tables, a: Attack) -> None:
    sit, shooter, target = a.situation, a.shooter, a.target
    if sit.indirect:
        _choose_indirect(a)
        return
    _helicopter_range(t, a)
    wanted = sit.weapon
    atgm = t.atgm_of(shooter)
    siw = _siw_of(t, shooter)
    armoured = target.is_ground_vehicle
    if (
        wanted == "siw"
        or shooter.kind == "siw"
        or (wanted == "auto" and siw is not None and armoured and a.range == 0)
    ):
        _use_siw(t, a, siw)
        return
    if wanted == "atgm" or shooter.kind == "atgm":
        _use_atgm(a, atgm)
        return
    if (
        wanted == "auto"
        and atgm is not None
        and armoured
        and atgm.lr is not None
        and atgm.lr <= a.range <= atgm.mr
    ):
        _use_atgm(a, atgm)
        return
    _use_gun(t, a)


def _siw_of(t: Tables, shooter: Profile) -> Profile | None:
    if shooter.kind == "siw":
        return shooter
    key = f"siw-{shooter.id}"
    if key in t.tables["param"]:
        return t.profile(t.text(key))
    return None


def _use_siw(t: Tables, a: Attack, siw: Profile | None) -> None:
    # MB 6.1: at zero range against armoured vehicles only, one weapon per 3 men.
    if siw is None:
        raise BadInput(
            f"weapon=siw: {a.shooter.id} carries no special infantry weapon "
            "(rifle platoons do: RIFLE-N, RIFLE-S; or fire LAW, PZF-44, RPG-7)"
        )
    if a.range != 0 or not a.target.is_ground_vehicle:
        raise RulesRefusal(
            f"{siw.id} fires only at zero range against armoured vehicles, not at "
            f"{a.target.id} at {a.range} squares (MB 6.1)"
        )
    per = t.whole("siw-men-per-weapon")
    a.weapon, a.mode, a.weapons = siw, "siw", a.count // per
    a.note(
        f"{siw.id}: special infantry weapons, {a.count} men / {per} = {a.weapons} "
        "weapons firing [MB 6.1]"
    )


def _use_atgm(a: Attack, atgm: Profile | None) -> None:
    if atgm is None:
        raise BadInput(f"weapon=atgm: {a.shooter.id} has no ATGM (MB 6.0, GM column)")
    if not a.target.is_vehicle:
        raise RulesRefusal(f"ATGMs fire only at vehicles, not at {a.target.id} (MB 7.2)")
    if a.target.is_helicopter:
        raise RulesRefusal(f"ATGMs may not fire at helicopters such as {a.target.id} (MB 7.3)")
    low = atgm.lr or 0
    if not low <= a.range <= atgm.mr:
        raise RulesRefusal(
            f"{atgm.id} fires from {low} to {atgm.mr} squares, not {a.range} (MB 6.0)"
        )
    a.weapon, a.mode = atgm, "atgm"
    if atgm is not a.shooter:
        a.note(f"fires its {atgm.id} ATGM [MB 6.0, GM column]")


def _use_gun(t: Tables, a: Attack) -> None:
    shooter, target = a.shooter, a.target
    if shooter.kind in SAM_KINDS and not target.is_helicopter:
        raise RulesRefusal(f"SAM units fire only at helicopters, not at {target.id} (MB 7.2)")
    if shooter.kind == "atgm":
        raise RulesRefusal(f"{shooter.id} has only its missiles (MB 7.2)")
    limit = t.whole("helicopter-small-arms-above-ss")
    if target.is_helicopter and shooter.kind not in ANTI_AIR_KINDS and (shooter.ss or 0) > limit:
        rifle = t.profile(t.text("small-arms-profile"))
        a.weapon, a.mode = rifle, "small-arms"
        a.note(
            f"shell size {shooter.ss} > {limit}: small arms fire at the helicopter, "
            f"with {rifle.label}'s numbers [MB 7.14]"
        )
    if a.range > a.weapon.mr:
        raise RulesRefusal(f"{a.weapon.id} reaches {a.weapon.mr} squares, not {a.range} (MB 6.0)")


def _choose_indirect(a: Attack) -> None:
    if a.shooter.kind not in INDIRECT_KINDS:
        raise RulesRefusal(
            f"{a.shooter.id} cannot bombard: only mortars and artillery fire indirect (MB 5.6)"
        )
    if a.target.is_helicopter:
        raise RulesRefusal(f"indirect fire never affects helicopters like {a.target.id} (MB 7.5)")
    a.mode = "indirect"


# --- accuracy ----------------------------------------------------------------------------------


def _firer_effects(t: Tables, a: Attack) -> None:
    s = a.situation.shooter_suppression
    if s > 0:
        factor = 1 - s / (100 * t.num("fire-suppression-divisor"))
        a.accuracy *= factor
        a.note(
            f"firer suppressed {num(s)}: effectiveness x (1 - {num(s)} / "
            f"{num(t.num('fire-suppression-divisor'))}%) = {num(a.accuracy)} [MB 7.7]"
        )


def _blocking(t: Tables, a: Attack) -> None:
    sit = a.situation
    town = t.terrain.get("town")
    woods = t.terrain.get("woods")
    parts = []
    points = 0
    if a.mode != "indirect":
        # Shells fired indirect pass over the squares between; only smoke counts (our reading).
        for n, kind, row in ((sit.towns, "town", town), (sit.woods, "woods", woods)):
            if n and row is not None:
                points += n * row.blocking
                parts.append(f"{n} {kind} x {row.blocking}")
    if sit.smoke:
        points += sit.smoke
        parts.append(f"smoke {sit.smoke}")
    if points:
        a.accuracy *= blocking_factor(t, points)
        base = num(t.num("blocking-base"))
        a.note(
            f"x {base} / ({base} + {points} blocking points: {', '.join(parts)}) "
            f"= {num(a.accuracy)} [MB 7.3 (7)]"
        )


def _vehicle_modifiers(t: Tables, a: Attack) -> None:
    """MB 7.3 (3), (4), (6), (7), (8); ATGMs take (3), (4), (6) and (7)."""
    sit, target = a.situation, a.target
    terrain = t.terrain[sit.cover]
    if terrain.fire_cover and sit.target_speed == 0 and not target.is_helicopter:
        a.accuracy /= t.num("accuracy-cover-divisor")
        a.note(
            f"stationary in {sit.cover}: / {num(t.num('accuracy-cover-divisor'))} "
            f"= {num(a.accuracy)} [MB 7.3 (3)]"
        )
    if sit.target_speed > 0:
        div = moving_divisor(t, sit.target_speed)
        a.accuracy /= div
        a.note(
            f"target moving at speed {num(sit.target_speed)}: / (2 + {num(sit.target_speed)} "
            f"/ 10) = {num(a.accuracy)} [MB 7.3 (4)]"
        )
    sl = target.sl or 0
    a.accuracy *= Fraction(sl) / t.num("accuracy-silhouette-divisor")
    a.note(f"x silhouette {sl} / 4 = {num(a.accuracy)} [MB 7.3 (6)]")
    _blocking(t, a)
    if target.is_helicopter and a.mode != "atgm" and a.shooter.kind not in ANTI_AIR_KINDS:
        a.accuracy /= t.num("helicopter-divisor")
        a.note(f"at a helicopter, not SAM or flak: / 10 = {num(a.accuracy)} [MB 7.3 (8)]")


def _nonvehicle_modifiers(t: Tables, a: Attack) -> None:
    """MB 7.4 ACCURACY (1)-(3), with blocking points as for cannon."""
    sit = a.situation
    if sit.target_speed > 0:
        a.accuracy *= t.num("nonvehicle-moving-multiplier")
        a.note(f"target moving: x 2 = {num(a.accuracy)} [MB 7.4 (1)]")
    if t.terrain[sit.cover].fire_cover:
        a.accuracy /= t.num("nonvehicle-cover-divisor")
        a.note(f"defending in {sit.cover}: / 6 = {num(a.accuracy)} [MB 7.4 (2)]")
    _blocking(t, a)


def _against_vehicle(t: Tables, a: Attack) -> None:
    w, sit = a.weapon, a.situation
    if a.mode == "atgm":
        a.accuracy = atgm_accuracy(t, w.ac, w.lr or 0, a.range)
        rating = w.ac if a.range == (w.lr or 0) else num(t.num("atgm-beyond-minimum-rating"))
        where = "at" if a.range == (w.lr or 0) else "beyond"
        a.note(
            f"{w.id} accuracy: rating {rating} ({where} minimum range {w.lr}) x 2 "
            f"= {num(a.accuracy)} [MB 7.3 ATGM (1)]"
        )
        if sit.shooter_suppression > t.num("atgm-suppression-limit"):
            a.accuracy /= t.num("atgm-suppressed-divisor")
            a.note(f"ATGM firer suppressed over 25: / 4 = {num(a.accuracy)} [MB 7.3 ATGM (2)]")
    else:
        term = range_term(t, a.range, w.mr)
        a.accuracy = cannon_accuracy(t, w.ac, sit.pulses, a.range, w.mr)
        a.note(
            f"{w.id} accuracy: range term {_term_text(a.range, w.mr, term)}; "
            f"({num(term)} + {w.ac} x {sit.pulses} pulse{'s' if sit.pulses != 1 else ''})^2 "
            f"/ 100 = {num(a.accuracy)} [MB 7.3 (1)-(2)]"
        )
    _vehicle_modifiers(t, a)
    _firer_effects(t, a)
    _penetration(t, a, a.range, w.mr)


def _term_text(rng: int, max_range: int, term: Fraction) -> str:
    if rng == 0 or max_range == 0:
        return "90 at range 0"
    return f"90 x ({max_range} - {rng}) / {max_range} = {num(term)} (at least 1)"


def _penetration(t: Tables, a: Attack, rng: int, max_range: int) -> None:
    w, target, sit = a.weapon, a.target, a.situation
    fa, ba = Fraction(target.fa or 1), Fraction(target.ba or 1)
    if a.mode == "indirect":
        a.armour = (fa + ba) / t.num("indirect-armour-divisor")
        a.note(
            f"armour against indirect fire: ({num(ba)} + {num(fa)}) / 3 = {num(a.armour)} [MB 7.5]"
        )
    elif a.range == 0 or sit.aspect == "back":
        a.armour = ba
        why = "range 0 hits the back" if a.range == 0 else "back armour faces the firer"
        a.note(f"armour: back {num(ba)} ({why}) [MB 7.3 KILLS (1)]")
    else:
        a.armour = fa
        a.note(f"armour: front {num(fa)} [MB 7.3 KILLS (1)]")
    ss, mp = w.ss or 0, w.mp or 0
    raw = apf(t, ss, mp, rng, max_range)
    cap = t.num("apf-cap") * a.armour
    a.apf = min(raw, cap)
    capped = f", capped at 2 x {num(a.armour)} = {num(cap)}" if raw > cap else ""
    a.note(
        f"APF: {ss} x {ss} / 4 + {mp} - {mp} x ({rng} / {max_range}) / 2 = {num(raw)}"
        f"{capped} [MB 7.3 KILLS (2)-(3)]"
    )
    halves = halvings(t, a.apf, a.armour)
    if halves:
        a.accuracy /= 2**halves
        why = "below 1.25 x armour" + (" and below armour" if halves == 2 else "")
        a.note(f"APF {why}: accuracy halved {halves}x = {num(a.accuracy)} [MB 7.3 KILLS (4)]")
    a.kills = vehicle_kills(t, a.apf, a.accuracy, a.weapons, a.armour)
    a.note(
        f"kills: {num(a.apf)} x {num(a.accuracy)} x {a.weapons} / ({num(a.armour)} x 1000) "
        f"= {num(a.kills)} [MB 7.3 KILLS (5)]"
    )


def _against_nonvehicle(t: Tables, a: Attack) -> None:
    w, sit, target = a.weapon, a.situation, a.target
    if a.mode == "atgm":  # _use_atgm refuses this; kept as a guard for new modes
        raise RulesRefusal("ATGMs fire only at vehicles (MB 7.2)")
    term = range_term(t, a.range, w.mr)
    a.accuracy = plain_accuracy(t, w.ac, sit.pulses, a.range, w.mr)
    a.note(
        f"{w.id} accuracy: range term {_term_text(a.range, w.mr, term)}; {num(term)} + "
        f"{w.ac} x {sit.pulses} = {num(a.accuracy)} (not squared) [MB 7.4 (4)]"
    )
    _nonvehicle_modifiers(t, a)
    a.defence = Fraction(target.df or 1)
    if a.range == 0 and sit.target_suppression > t.num("point-blank-suppression"):
        a.defence = t.num("point-blank-defence")
        a.accuracy *= t.num("point-blank-multiplier")
        a.note(
            f"same square, target suppression {sit.target_suppression} > 99: defence 1, "
            f"accuracy x 2 = {num(a.accuracy)} [MB 7.4 KILLS (2)]"
        )
    _firer_effects(t, a)
    _nonvehicle_kills(t, a)


def _nonvehicle_kills(t: Tables, a: Attack) -> None:
    ss = a.weapon.ss or 0
    assert a.defence is not None
    a.kills = nonvehicle_kills(t, ss, a.accuracy, a.weapons, a.defence)
    a.note(
        f"kills: {ss} x {ss} x {num(a.accuracy)} x {a.weapons} / ({num(a.defence)} x 1000) "
        f"= {num(a.kills)} [MB 7.4 KILLS (1)]"
    )
    mg = _machine_guns(t, a)
    if mg:
        shell = t.whole("machine-gun-shell")
        extra = nonvehicle_kills(t, shell, a.accuracy, mg, a.defence)
        a.kills += extra
        a.note(
            f"armoured vehicle under 6 squares adds its machine guns: {mg} MG at shell size "
            f"{shell}: + {num(extra)} = {num(a.kills)} [MB 7.4 KILLS (3)]"
        )


def _machine_guns(t: Tables, a: Attack) -> int:
    # MB 7.4 KILLS (3): a (ground) armoured vehicle firing under 6 squares adds its MGs.
    s = a.shooter
    if a.mode != "gun" or not s.is_ground_vehicle or not s.mg:
        return 0
    if a.range >= t.whole("machine-gun-range-below"):
        return 0
    return s.mg * a.count


def _indirect(t: Tables, a: Attack) -> None:
    w, sit, target = a.weapon, a.situation, a.target
    pulses = t.whole(f"spotter-{sit.spotter}")
    rng = w.mr
    a.note(
        f"bombardment: range counts as {w.id}'s maximum {rng}; spotter {sit.spotter}: "
        f"{count(pulses, 'pulse')} fired at the target [MB 7.5]"
    )
    if target.is_vehicle:
        term = range_term(t, rng, w.mr)
        a.accuracy = cannon_accuracy(t, w.ac, pulses, rng, w.mr)
        a.note(
            f"{w.id} accuracy: ({num(term)} + {w.ac} x {pulses})^2 / 100 = "
            f"{num(a.accuracy)} [MB 7.3 (2), 7.5]"
        )
        _vehicle_modifiers(t, a)
        _firer_effects(t, a)
        _penetration(t, a, rng, w.mr)
        return
    term = range_term(t, rng, w.mr)
    a.accuracy = plain_accuracy(t, w.ac, pulses, rng, w.mr)
    a.note(
        f"{w.id} accuracy: {num(term)} + {w.ac} x {pulses} = {num(a.accuracy)} [MB 7.4 (4), 7.5]"
    )
    _nonvehicle_modifiers(t, a)
    _firer_effects(t, a)
    a.defence = Fraction(target.df or 1)
    _nonvehicle_kills(t, a)


def _suppression(t: Tables, a: Attack) -> None:
    prior = a.situation.target_suppression
    cap = suppression_cap(t, a.target)
    if a.mode == "atgm":
        a.added = Fraction(0)
        a.note("ATGM fire at an armoured target adds no suppression [MB 7.6]")
    elif a.mode == "siw":
        a.added = t.num("siw-suppression")
        a.note(f"special infantry weapons: {num(a.added)} suppression [MB 6.1]")
    else:
        ss = a.weapon.ss or 0
        a.added = suppression_added(t, ss, a.accuracy, a.weapons)
        shown = max(a.accuracy, t.num("suppression-min-accuracy"))
        a.note(
            f"suppression: {ss} x {ss} x {num(shown)}^2 x {a.weapons} / 200 = {num(a.added)} "
            "(accuracy at least 10) [MB 7.6]"
        )
        mg = 0 if a.vehicle_target else _machine_guns(t, a)
        if mg:
            shell = t.whole("machine-gun-shell")
            more = suppression_added(t, shell, a.accuracy, mg)
            a.added += more
            a.note(f"machine guns: + {num(more)} = {num(a.added)} [MB 7.4 KILLS (3), 7.6]")
    # Suppression is kept in whole points (the game shows whole percents); fractions drop.
    a.suppression = min(cap, prior + math.floor(a.added))
    kind = "vehicle" if a.vehicle_target else "non-vehicle"
    a.note(
        f"target suppression {prior} + {math.floor(a.added)} = {a.suppression} "
        f"(a {kind} holds at most {cap}) [MB 7.6]"
    )
