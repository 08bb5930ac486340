"""Squad Battles fire value (SB Firing): from the nominal fire value to the combat value.

``combat_value`` runs every step of the chapter in order and records each as a modifier
(a multiplier with its rule), so the working the referee reads is the calculation itself:
nominal value; range effect; firing-unit effects; smoke, gas and setup; concealment; target
effects; explosion radius and length; load restrictions; protection and the penetration
ratio; density. Every number is an exact fraction.
"""

from __future__ import annotations

from dataclasses import field
from fractions import Fraction
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import mutable_dataclass
from tabletop.rules.models.squad_battles.opts import Opt
from tabletop.rules.models.squad_battles.results import STATES, show
from tabletop.rules.models.squad_battles.tables import Profile, Tables, frac

RANGE = "SB Firing: Range Effect"
UNIT = "SB Firing: Firing Unit Effect"
TARGET = "SB Firing: Target Effects"
INFANTRY_KINDS = ("team", "leader")


def fire_opts(tables: Tables | None) -> list[Opt]:
    """The ``--set`` keys squad-battles fire accepts (choices from the chart when given)."""

    def keys(table: str, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
        return extra + tuple(tables.keys(table)) if tables else extra

    hexsides = tuple(
        k for k in keys("hexside") if not (tables and tables.entry("hexside", k).occupied)
    )
    features = tuple(k for k in keys("hexside") if tables and tables.entry("hexside", k).occupied)
    return [
        Opt("weapon", "fire this weapon profile instead of the shooter's own", "text"),
        Opt("weapon_effectiveness", "the weapon's effectiveness, %", "number", 100, min=0, max=100),
        Opt("effectiveness", "the firing unit's effectiveness, %", "number", 100, min=0, max=100),
        Opt("firer_state", "the firing unit's state", "choice", "normal", STATES),
        Opt("shooter_men", "men left in the firing team", "int", min=0, max=1000),
        Opt("crew", "men crewing the weapons (default: a full crew)", "int", min=0, max=1000),
        Opt("los", "line of sight to the target hex", "bool", True),
        Opt("smoke", "smoke: 1 in the target hex, 2 in both hexes", "int", 0, min=0, max=10),
        Opt("smoke_from", "smoke in the firing hex", "bool", False),
        Opt("smoke_into", "smoke in the target hex", "bool", False),
        Opt("gas", "firer wears gas masks (or is a vehicle in a gas hex)", "bool", False),
        Opt("setup", "a setup heavy weapon firing into its facing", "bool", False),
        Opt("concealed", "the target is concealed", "bool", False),
        Opt("ground", "the target team or leader is in ground mode", "bool", False),
        Opt("target_men", "men left in the target team", "int", min=0, max=1000),
        Opt("target_effectiveness", "the target's effectiveness, %", "number", 100, min=0, max=100),
        Opt("target_state", "the target's state", "choice", "normal", STATES),
        Opt("immobile", "the target vehicle is immobile", "bool", False),
        Opt("hovering", "the target helicopter is hovering", "bool", False),
        Opt("flying", "the target is a flying helicopter", "bool", False),
        Opt("water", "the target vehicle is in a water hex", "bool", False),
        Opt("terrain", "terrain in the target hex", "choice", "open", keys("terrain")),
        Opt(
            "fortification",
            "fortification in the target hex",
            "choice",
            "none",
            keys("fortification", ("none",)),
        ),
        Opt("owner", "who built it, relative to the target", "choice", "own", ("own", "enemy")),
        Opt(
            "outside_arc", "fire comes from outside the fortification's covered arc", "bool", False
        ),
        Opt(
            "trench_to_trench", "adjacent trenches of one owner firing at each other", "bool", False
        ),
        Opt("with_vehicle", "infantry shares the hex with a non-wreck vehicle", "bool", False),
        Opt("crater", "the target hex is cratered", "bool", False),
        Opt(
            "hexside",
            "hexside feature of the target hex the fire crosses",
            "choice",
            "none",
            ("none", *hexsides),
        ),
        Opt(
            "feature", "stream or gully the target occupies", "choice", "none", ("none", *features)
        ),
        Opt(
            "elevation",
            "contour levels the target stands above the firer",
            "int",
            0,
            min=-100,
            max=100,
        ),
        Opt("body_armour", "the target's body armour protection", "number", 0, min=0, max=100),
        Opt(
            "aspect",
            "hexside of the target vehicle the fire comes through",
            "choice",
            "side",
            ("front", "side", "rear"),
        ),
        Opt("hull_down", "hull-down vehicle fired on through a facing hexside", "bool", False),
        Opt("vulnerable", "vehicle that crossed a hedgerow this turn", "bool", False),
        Opt(
            "offset",
            "hexes from the aim point (explosion radius or length)",
            "int",
            0,
            min=0,
            max=100,
        ),
        Opt("along", "the hex lies along the strike direction (explosion length)", "bool", False),
        Opt("alt_density", "optional rule: alternate fire density", "bool", False),
        Opt("averaged", "optional rule: averaged fire results", "bool", False),
        Opt("quality_loss", "optional rule: quality loss modifier", "bool", False),
        Opt("inspired", "the target is inspired (+1 morale)", "bool", False),
    ]


@mutable_dataclass
class Step:
    name: str
    factor: Fraction
    rule: str

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "factor": float(self.factor), "rule": self.rule}


@mutable_dataclass
class Shooting:
    """One fire action, resolved into profiles, hexes and the parsed options."""

    shooter: Profile
    weapon: Profile
    target: Profile
    hexes: int
    strength: int
    count: int
    o: dict[str, Any]

    @property
    def vehicle_target(self) -> bool:
        return self.target.kind == "vehicle"

    @property
    def sniping(self) -> bool:
        # SB Snipers: a disrupted, pinned or demoralized crew fires it as a normal weapon.
        return self.weapon.sniper and self.o["firer_state"] == "normal"

    @property
    def indirect(self) -> bool:
        return self.weapon.indirect

    @property
    def target_men(self) -> int:
        men = self.o["target_men"]
        return int(men if men is not None else (self.target.men or 1))


@mutable_dataclass
class FireValue:
    nominal: Fraction
    steps: list[Step] = field(default_factory=list)
    protection: Fraction | None = None
    parts: list[tuple[str, Fraction, str]] = field(default_factory=list)
    ratio: Fraction | None = None
    lines: list[str] = field(default_factory=list)
    no_effect: str | None = None

    @property
    def combat_value(self) -> Fraction:
        value = self.nominal
        for s in self.steps:
            value *= s.factor
        return value

    def apply(self, name: str, factor: Fraction, rule: str) -> None:
        self.steps.append(Step(name, factor, rule))
        self.lines.append(f"x{show(factor)} {name} [{rule}]")
        if factor == 0 and self.no_effect is None:
            self.no_effect = name


def hexes_for(inches: float, inches_per_hex: float) -> int:
    """Whole hexes between firer and target; under one hex counts as adjacent."""
    return max(1, round(inches / inches_per_hex + 1e-9))


def shooting(tables: Tables, shot: Any, o: dict[str, Any]) -> Shooting:
    shooter = tables.profile(shot.shooter, "--shooter")
    target = tables.profile(shot.target, "--target")
    if target.kind == "weapon":
        raise BadInput(
            f"--target {target.id!r} is a weapon: fire affects leaders, teams and vehicles "
            "(SB Firing); give the unit that carries it"
        )
    chosen = o["weapon"] or (shooter.id if shooter.kind == "weapon" else shooter.weapon)
    if chosen is None:
        raise BadInput(
            f"--shooter {shooter.id!r} has no weapon of its own: give --set weapon=ID "
            "(a weapon profile)"
        )
    weapon = tables.profile(chosen, "--set weapon")
    if weapon.kind != "weapon":
        raise BadInput(f"--set weapon={chosen!r}: not a weapon profile")
    count = int(shot.count)
    if weapon.single_use:
        strength = 1  # SB Lethality and Fire Values: one of them is used per firing
    elif shooter.kind == "team" and not o["weapon"]:
        men = o["shooter_men"] if o["shooter_men"] is not None else shooter.men or 0
        strength = count * min(shooter.carried or 1, men)
    else:
        strength = count
    hexes = hexes_for(shot.range_inches, tables.scale.inches_per_hex)
    assert weapon.range is not None
    if hexes > weapon.range:
        raise RulesRefusal(
            f"{weapon.label} reaches {weapon.range} hexes; the target is {hexes} hexes away "
            f"({RANGE})"
        )
    if not o["los"] and not weapon.indirect:
        raise RulesRefusal(
            f"{weapon.label} needs a line of sight to the target hex; only indirect fire "
            "may fire without one (SB Firing: Line-of-Sight)"
        )
    return Shooting(shooter, weapon, target, hexes, strength, count, o)


def combat_value(tables: Tables, sh: Shooting) -> FireValue:
    """Every step from the nominal fire value to the final combat value."""
    w, o = sh.weapon, sh.o
    assert w.lethality is not None
    e_weapon = frac(o["weapon_effectiveness"])
    fv = FireValue(frac(w.lethality) * sh.strength * e_weapon / 100)
    fv.lines.append(
        f"nominal fire value L x S x E = {show(w.lethality)} x {sh.strength} x "
        f"{show(e_weapon)}% = {show(fv.nominal)} [SB Firing: Lethality and Fire Values]"
        + (" (single-use: one weapon per firing)" if w.single_use else "")
    )
    _lethality(tables, sh, fv)
    _range(tables, sh, fv)
    _firer(tables, sh, fv)
    _surroundings(tables, sh, fv)
    _target(tables, sh, fv)
    _explosion(sh, fv)
    _restrictions(tables, sh, fv)
    _protection(tables, sh, fv)
    _density(tables, sh, fv)
    fv.lines.append(f"= combat value {show(fv.combat_value)}")
    return fv


def _fort(tables: Tables, sh: Shooting) -> Any:
    key = sh.o["fortification"]
    return None if key == "none" else tables.entry("fortification", key)


def _lethality(tables: Tables, sh: Shooting, fv: FireValue) -> None:
    fort = _fort(tables, sh)
    if sh.weapon.anti_tank and (sh.vehicle_target or (fort is not None and fort.overhead)):
        fv.apply(
            "specialized anti-tank weapon: lethality doubled",
            tables.param("anti-tank-lethality"),
            "SB Weapon Types: Specialized Anti-Tank Weapons",
        )
    if sh.o["vulnerable"] and sh.vehicle_target:
        fv.apply(
            "vehicle vulnerable after crossing a hedgerow: lethality doubled",
            tables.param("hedgerow-lethality"),
            "SB Movement: Hedgerow Effects",
        )


def _range(tables: Tables, sh: Shooting, fv: FireValue) -> None:
    w, d = sh.weapon, sh.hexes
    assert w.range is not None
    if w.indirect:
        if not sh.o["los"]:
            fv.apply("indirect fire without line of sight", tables.param("indirect-no-los"), RANGE)
        else:
            fv.lines.append(f"indirect-fire weapon: no range effect [{RANGE}]")
        return
    if w.guided:
        fv.lines.append("guided missile: no range effect [SB Weapon Types: Guided Missiles]")
        return
    if sh.sniping:
        fv.lines.append("sniper weapon: no range effect [SB Weapon Types: Snipers]")
        return
    if d == 1:
        fv.apply("adjacent hex (range 1)", tables.param("range-adjacent"), RANGE)
    elif 2 * d <= w.range:
        fv.lines.append(f"range {d} hexes within half of {w.range}: unchanged [{RANGE}]")
    else:
        fv.apply(
            f"range {d} hexes beyond half of {w.range}", tables.param("range-beyond-half"), RANGE
        )


def _firer(tables: Tables, sh: Shooting, fv: FireValue) -> None:
    o = sh.o
    e_unit = frac(o["effectiveness"])
    if e_unit != 100:
        fv.apply(f"firing unit at {show(e_unit)}% effectiveness", e_unit / 100, UNIT)
    state = o["firer_state"]
    if state in ("disrupted", "pinned"):
        fv.apply(f"firing unit {state}", tables.param(f"firer-{state}"), UNIT)
    elif state == "demoralized":
        fv.apply("firing unit demoralized", tables.param("firer-demoralized"), UNIT)
    required = sh.weapon.crew * sh.strength
    available = o["crew"]
    if available is None and sh.shooter.kind == "team" and not o["weapon"]:
        men = o["shooter_men"] if o["shooter_men"] is not None else sh.shooter.men or 0
        available = sh.count * men
    if available is None and sh.shooter.kind == "leader":
        available = sh.count
    if available is not None and required > 0 and available < required:
        fv.apply(f"short crew: {available} of {required} men", Fraction(available, required), UNIT)


def _surroundings(tables: Tables, sh: Shooting, fv: FireValue) -> None:
    o = sh.o
    smoke_from = o["smoke_from"] or o["smoke"] >= 2
    smoke_into = o["smoke_into"] or o["smoke"] >= 1
    if smoke_from:
        fv.apply("firing from a smoke hex", tables.param("smoke-from"), "SB Firing: Smoke")
    if smoke_into:
        if sh.indirect:
            fv.lines.append(
                "smoke in the target hex: no effect on indirect fire [SB Firing: Smoke]"
            )
        else:
            fv.apply("firing into a smoke hex", tables.param("smoke-into"), "SB Firing: Smoke")
    if o["gas"]:
        fv.apply(
            "firing in gas masks (or from a gas hex)",
            tables.param("gas-mask-fire"),
            "SB Firing: Chemical Loads",
        )
    if o["setup"]:
        fv.apply("setup weapon", tables.param("setup"), "SB Firing: Setup Weapons")


def _target(tables: Tables, sh: Shooting, fv: FireValue) -> None:
    o = sh.o
    if o["concealed"]:
        if sh.vehicle_target:
            fv.lines.append("vehicles are never concealed [SB Firing: Concealment]")
        else:
            fv.apply("target concealed", tables.param("concealed"), "SB Firing: Concealment")
    if sh.vehicle_target:
        fv.apply(
            "vehicle target (vehicle fire factor)", tables.param("vehicle-fire-factor"), TARGET
        )
        if o["hovering"]:
            fv.apply("hovering helicopter", tables.param("hovering"), TARGET)
        if o["immobile"]:
            fv.apply("immobile vehicle", tables.param("immobile-target"), TARGET)
        if o["hull_down"]:
            fv.apply(
                "hull-down vehicle fired on through a facing hexside",
                tables.param("hull-down"),
                "SB Firing: Hull Down Vehicles",
            )
    elif not o["ground"]:
        fv.apply("infantry not in ground mode", tables.param("standing-infantry"), TARGET)


def _explosion(sh: Shooting, fv: FireValue) -> None:
    r = sh.o["offset"]
    if not r:
        return
    rule = "SB Firing: Explosion Radius and Length"
    w = sh.weapon
    if sh.o["along"] and r <= w.explosion_length:
        fv.lines.append(
            f"{r} hexes along the strike direction, within length "
            f"{w.explosion_length}: full effect [{rule}]"
        )
    elif r <= w.explosion_radius:
        fv.apply(f"{r} hexes from the aim point: 1/(1+{r})", Fraction(1, 1 + r), rule)
    else:
        fv.apply(
            f"{r} hexes from the aim point, beyond explosion radius {w.explosion_radius}"
            + (f" and length {w.explosion_length}" if w.explosion_length else ""),
            Fraction(0),
            rule,
        )


def _restrictions(tables: Tables, sh: Shooting, fv: FireValue) -> None:
    w, o = sh.weapon, sh.o
    fort = _fort(tables, sh)
    own_cave = fort is not None and fort.cave and o["owner"] == "own"
    if w.load in ("smoke", "illumination", "mine", "chemical"):
        fv.apply(
            f"{w.load} load: no effect on the units in the hex (see procedure 'load')",
            Fraction(0),
            _load_rule(w.load),
        )
    if o["flying"] and w.ground_only:
        fv.apply(
            "ground-only load against a flying helicopter",
            Fraction(0),
            "SB Firing: Target Restrictions",
        )
    if w.vehicle_only and not sh.vehicle_target:
        sheltered = fort is not None and fort.overhead and (not fort.cave or own_cave)
        if not sheltered:
            fv.apply(
                "vehicle-only load against infantry outside bunkers and pillboxes",
                Fraction(0),
                "SB Firing: Target Restrictions",
            )
    if w.sniper and sh.vehicle_target and not w.vehicle_only:
        fv.apply("sniper fire against a vehicle", Fraction(0), "SB Weapon Types: Snipers")
    if own_cave and not sh.vehicle_target:
        if w.indirect:
            fv.apply("indirect fire at units in their own cave", Fraction(0), "SB Firing: Caves")
        elif o["outside_arc"] and sh.hexes > 1:
            fv.apply(
                "fire at a cave from outside its covered arc beyond one hex",
                Fraction(0),
                "SB Firing: Fortification Facing",
            )


def _load_rule(load: str) -> str:
    return {
        "smoke": "SB Firing: Smoke",
        "illumination": "SB Firing: Illumination",
        "mine": "SB Firing: Mine Loads",
        "chemical": "SB Firing: Chemical Loads",
    }[load]


def _protection(tables: Tables, sh: Shooting, fv: FireValue) -> None:
    parts = _vehicle_parts(tables, sh) if sh.vehicle_target else _infantry_parts(tables, sh)
    total = sum((p for _, p, _ in parts), Fraction(0))
    fv.protection, fv.parts = total, parts
    fv.lines.append(
        "protection: "
        + " + ".join(f"{name} {show(p)}" for name, p, _ in parts if p or len(parts) == 1)
        + f" = {show(total)}"
    )
    pen = frac(sh.weapon.penetration or 0)
    if sh.vehicle_target:
        factor = vehicle_penetration(tables, pen, total, sh.weapon.vehicle_only)
        rule = "SB Firing: Vehicle Penetration"
    else:
        factor = infantry_penetration(pen, total)
        rule = "SB Firing: Infantry Protection"
    fv.ratio = pen / total if total else None
    shown = show(fv.ratio) if fv.ratio is not None else "unbounded (no protection)"
    fv.apply(f"penetration {show(pen)} / protection {show(total)} = {shown}", factor, rule)


def _infantry_parts(tables: Tables, sh: Shooting) -> list[tuple[str, Fraction, str]]:
    o = sh.o
    base = tables.param("infantry-protection")
    parts = [("infantry", base, "SB Firing: Basic Protection")]
    if not o["flying"]:
        terrain = tables.entry("terrain", o["terrain"])
        parts.append((o["terrain"], frac(terrain.protection), "SB Firing: Terrain Protection"))
        if o["with_vehicle"]:
            parts.append(("sharing the hex with a vehicle", base, "SB Firing: Terrain Protection"))
        fort = _fort(tables, sh)
        if fort is not None:
            parts.append(_fortification_part(tables, sh, fort))
        elif o["crater"]:
            parts.append(
                (
                    "craters",
                    tables.param("crater-protection"),
                    "SB Firing: Fortifications Protection",
                )
            )
    parts += _hexside_parts(tables, sh)
    if o["body_armour"]:
        parts.append(("body armour", frac(o["body_armour"]), "SB Firing: Body Armor"))
    return parts


def _fortification_part(tables: Tables, sh: Shooting, fort: Any) -> tuple[str, Fraction, str]:
    o = sh.o
    key = o["fortification"]
    rule = "SB Firing: Fortifications Protection"
    value = tables.fortification_protection(key)
    name = key
    if fort.cave and o["owner"] != "own":
        return (f"{key} held by the enemy: no effect", Fraction(0), "SB Firing: Caves")
    if o["owner"] == "enemy":
        value *= tables.param("enemy-fortification-share")
        name += " built by the enemy (half)"
    if o["outside_arc"] and fort.overhead:
        value *= tables.param("outside-arc")
        name += ", fired on outside its covered arc (doubled)"
        rule = "SB Firing: Fortification Facing"
    if o["trench_to_trench"] and key == "trench":
        value *= tables.param("trench-to-trench")
        name += ", trench to adjacent trench of one owner (half)"
    return (name, value, rule)


def _vehicle_parts(tables: Tables, sh: Shooting) -> list[tuple[str, Fraction, str]]:
    o = sh.o
    armour = frac(sh.target.armour or 0)
    parts: list[tuple[str, Fraction, str]] = []
    name = "armour"
    if o["vulnerable"]:
        armour *= tables.param("hedgerow-armour")
        name += " (halved: crossed a hedgerow)"
    if tables.hard(sh.target.armour or 0) and not sh.indirect:
        factor = tables.param(f"facing-{o['aspect']}")
        armour *= factor
        name += f" x{show(factor)} through the {o['aspect']} hexside"
    parts.append((name, armour, "SB Firing: Facing Effect"))
    if not o["flying"]:
        terrain = tables.entry("terrain", o["terrain"])
        share = tables.param("vehicle-terrain-share")
        parts.append(
            (
                f"{o['terrain']} (half)",
                frac(terrain.protection) * share,
                "SB Firing: Terrain Protection",
            )
        )
        fort = _fort(tables, sh)
        if fort is not None:
            if not fort.vehicles:
                parts.append(
                    (
                        f"{o['fortification']}: no benefit to vehicles",
                        Fraction(0),
                        "SB Firing: Fortifications Protection",
                    )
                )
            elif o["owner"] == "enemy":
                parts.append(
                    (
                        f"{o['fortification']} built by the enemy: none for vehicles",
                        Fraction(0),
                        "SB Firing: Fortifications Protection",
                    )
                )
            else:
                parts.append(
                    (
                        o["fortification"],
                        tables.fortification_protection(o["fortification"]),
                        "SB Firing: Fortifications Protection",
                    )
                )
    parts += _hexside_parts(tables, sh)
    return parts


def _hexside_parts(tables: Tables, sh: Shooting) -> list[tuple[str, Fraction, str]]:
    """Hexside, stream/gully and elevation protection: direct fire from no higher only."""
    o = sh.o
    parts: list[tuple[str, Fraction, str]] = []
    if sh.indirect or o["flying"]:
        return parts
    if o["elevation"] >= 0:
        for key in (o["hexside"], o["feature"]):
            if key != "none":
                parts.append(
                    (
                        key,
                        frac(tables.entry("hexside", key).protection),
                        "SB Firing: Hexside Protection",
                    )
                )
    if o["elevation"] > 0:
        parts.append(
            (
                f"{o['elevation']} levels higher",
                o["elevation"] * tables.param("elevation-protection"),
                "SB Firing: Elevation Protection",
            )
        )
    return parts


def infantry_penetration(penetration: Fraction, protection: Fraction) -> Fraction:
    """SB Infantry Protection: a ratio under 1 scales the fire value; above 1 it does not."""
    if protection <= 0:
        return Fraction(1)
    return min(Fraction(1), penetration / protection)


def vehicle_penetration(
    tables: Tables, penetration: Fraction, protection: Fraction, armour_piercing: bool
) -> Fraction:
    """SB Vehicle Penetration: nothing under half; a straight line to nominal at 1; for
    armour-piercing (vehicle-only) loads a further rise to 1.5 at a ratio of 2."""
    floor = tables.param("penetration-floor-ratio")
    cap = tables.param("penetration-cap-ratio")
    top = tables.param("penetration-cap-factor")
    if protection <= 0:
        return top if armour_piercing else Fraction(1)
    ratio = penetration / protection
    if ratio < floor:
        return Fraction(0)
    if ratio < 1:
        return (ratio - floor) / (1 - floor)
    if not armour_piercing:
        return Fraction(1)
    if ratio < cap:
        return 1 + (ratio - 1) * (top - 1) / (cap - 1)
    return top


def _density(tables: Tables, sh: Shooting, fv: FireValue) -> None:
    rule = "SB Firing: Density Effect"
    if sh.sniping:
        fv.lines.append(f"sniper fire: no density effect [{rule}]")
        return
    if sh.target.kind == "vehicle":
        return
    if sh.target.kind == "leader":
        factor, name = tables.param("leader-density"), "leader target"
    else:
        factor = sh.target_men * tables.param("team-density-per-man")
        name = f"team of {sh.target_men}: S/10"
    if sh.o["alt_density"] and factor < tables.param("alternate-density-floor"):
        factor = tables.param("alternate-density-floor")
        name += " (alternate fire density: not under 0.5)"
    fv.apply(f"density: {name}", factor, rule)
