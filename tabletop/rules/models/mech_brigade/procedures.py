"""Mech Brigade's procedures besides fire: ``tabletop model run mech-brigade NAME``.

Suppression and its effects (MB 7.6-7.7), searching (MB 7.7), ammunition (MB 7.8), smoke
(MB 7.13), command control and bombardment delays (MB 5.6, 5.11, 5.12) and victory
(MB 10.2) here; sighting, line of sight and visibility in ``sight.py``. Each returns a
JSON-able dict with a ``verdict`` and ``lines`` of working.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.core.words import count
from tabletop.rules.models import Procedure
from tabletop.rules.models.chance import roll_chance
from tabletop.rules.models.mech_brigade.data import Profile, Tables
from tabletop.rules.models.mech_brigade.formulas import half_up, num
from tabletop.rules.models.mech_brigade.reader import Reader
from tabletop.rules.models.mech_brigade.sight import (
    firer_sighted,
    line_of_sight,
    sighting,
    visibility,
)

Run = Callable[[Mapping[str, Any], DiceLike], dict[str, Any]]

# --- suppression (MB 7.6, 7.7) -------------------------------------------------------------


def suppression(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    vehicle = r.flag("vehicle")
    cap = t.whole("suppression-cap-vehicle" if vehicle else "suppression-cap-nonvehicle")
    level = r.integer("level", 0, 0, t.whole("suppression-cap-nonvehicle"))
    added = r.number("add", 0, 0, 10**9)
    now = min(cap, level + math.floor(added))
    lines = [f"{level} + {math.floor(added)} = {now} (at most {cap}) [MB 7.6]"]
    pulses = r.integer("pulses", 0, 0, 99)
    history = [now]
    for _ in range(pulses):
        now //= t.whole("suppression-pulse-divisor")
        history.append(now)
    if pulses:
        lines.append(f"halved at the end of each of {count(pulses, 'pulse')}: {history} [MB 7.6]")
    effects = suppression_effects(t, now, r.flag("atgm"))
    lines += effects.pop("lines")
    return {
        "verdict": f"suppression {now}: " + effects["summary"],
        "suppression": now,
        "history": history,
        **{k: v for k, v in effects.items() if k != "summary"},
        "lines": lines,
    }


def suppression_effects(t: Tables, level: int, atgm: bool = False) -> dict[str, Any]:
    no_search = t.whole("search-impossible-above")
    fire = 1 - Fraction(level, 100) / t.num("fire-suppression-divisor")
    pinned = level > t.whole("pinned-above")
    quartered = atgm and level > t.whole("atgm-suppression-limit")
    search_fail = Fraction(1) if level > no_search else Fraction(level, 100)
    parts = [
        "cannot search" if level > no_search else f"fails to search {level}% of the time",
        f"fire at {num(fire * 100, 1)}%",
        "pinned" if pinned else "may move",
    ]
    if quartered:
        parts.append("ATGM accuracy quartered")
    return {
        "summary": ", ".join(parts),
        "search_fail_chance": float(search_fail),
        "fire_effectiveness": float(fire),
        "pinned": pinned,
        "atgm_quartered": quartered,
        "lines": [
            f"search: {parts[0]} (own square always searched) [MB 7.7]",
            f"fire: effectiveness 1 - {level} / 3 % = {num(fire * 100, 2)}% [MB 7.7]",
            f"move: {'pinned (over 50)' if pinned else 'not pinned'} [MB 7.7]",
        ],
    }


def search(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    level = r.integer("suppression", 0, 0, t.whole("suppression-cap-nonvehicle"))
    if r.flag("same_square"):
        return _searched(True, "a unit always searches its own square [MB 7.7]")
    if level > t.whole("search-impossible-above"):
        return _searched(False, f"suppression {level} is over 99: no search [MB 7.7]")
    fails, rolls = roll_chance(
        dice, Fraction(level, 100), f"fails to search at suppression {level}"
    )
    if not rolls:
        return _searched(not fails, f"suppression {level}: {level}% chance of failing [MB 7.7]")
    return _searched(not fails, f"d100 {rolls[0]} against suppression {level} [MB 7.7]")


def _searched(ok: bool, line: str) -> dict[str, Any]:
    return {"verdict": "searches" if ok else "does not search", "searches": ok, "lines": [line]}


# --- ammunition and smoke (MB 7.8, 7.13) ---------------------------------------------------


def loads(t: Tables, p: Profile) -> tuple[int, int]:
    """Rounds and missiles a unit starts with (MB 7.8)."""
    if p.kind == "siw":
        raise BadInput(f"profile {p.id!r}: a special infantry weapon of a rifle platoon (MB 6.1)")
    if p.is_helicopter:
        return t.whole("ammo-helicopter-rounds"), p.missiles or t.whole("ammo-helicopter-missiles")
    if p.kind == "atgm":
        return 0, p.missiles or t.whole("ammo-atgm-missiles")
    if p.kind == "atgm-vehicle":
        return t.whole("ammo-rounds"), p.missiles or t.whole("ammo-atgm-vehicle-missiles")
    missiles = (p.missiles or t.whole("ammo-atgm-missiles")) if p.gm is not None else 0
    return t.whole("ammo-rounds"), missiles


def ammunition(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    if not r.given("profile"):
        raise BadInput("give --set profile=ID (a mech-brigade profile, e.g. M901)")
    p = t.profile(str(o["profile"]), "--set profile=")
    rounds, missiles = loads(t, p)
    fired = r.integer("fired", 0, 0, rounds)
    launched = r.integer("missiles_fired", 0, 0, missiles)
    left, missiles_left = rounds - fired, missiles - launched
    can_fire = left > 0 or missiles_left > 0
    verdict = f"{p.id}: {left} of {rounds} rounds, {missiles_left} of {missiles} missiles left"
    if not can_fire:
        verdict += "; out of ammunition, cannot fire"
    return {
        "verdict": verdict,
        "rounds": rounds,
        "missiles": missiles,
        "rounds_left": left,
        "missiles_left": missiles_left,
        "can_fire": can_fire,
        "lines": [
            f"{p.id} ({p.kind}) carries {rounds} rounds and {missiles} missiles [MB 7.8]",
            "one round is spent each pulse the unit fires; at 0 it cannot fire [MB 7.8]",
        ],
    }


def smoke_decay(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    levels = [int(x) for x in t.smoke_levels().split(", ")]
    level = r.integer("level", None, min(levels), max(levels))
    pulses = r.integer("pulses", 1, 1, 99)
    lines, history = [], [level]
    for pulse in range(1, pulses + 1):
        if level == 0:
            break
        chance = t.smoke_chance(level)
        roll = dice.roll(100, f"smoke level {level} thins: reduced on 1-{chance}")
        reduced = roll <= chance
        lines.append(
            f"pulse {pulse}: level {level}, d100 {roll} "
            f"{'<=' if reduced else '>'} {chance}: {'reduced' if reduced else 'stays'} [MB 7.13]"
        )
        level -= 1 if reduced else 0
        history.append(level)
    verdict = "smoke gone" if level == 0 else f"smoke at level {level}"
    return {"verdict": verdict, "level": level, "history": history, "lines": lines}


def smoke_place(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    cause = r.choice("cause", None, ("artillery", "wreck"))
    now = r.integer("level", 0, 0, 9)
    if cause == "artillery":
        new = max(now, t.whole("smoke-artillery-level"))
        line = f"artillery smoke is placed at level {t.whole('smoke-artillery-level')} [MB 7.13]"
    else:
        new = now if now else t.whole("smoke-wreck-level")
        line = "a vehicle destroyed in a square without smoke leaves level 1 smoke [MB 7.13]"
    return {"verdict": f"smoke at level {new}", "level": new, "lines": [line]}


# --- command control (MB 5.6, 5.11, 5.12) --------------------------------------------------


def move_delay(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    lines = []
    if r.flag("helicopter"):
        pulses = t.whole("helicopter-delay")
        lines.append("helicopters are never delayed [MB 5.12]")
    else:
        side = r.choice("side", None, ("nato", "soviet"))
        linked = r.flag("in_command", True)
        pulses = t.move_delay(side, linked)
        status = "in" if linked else "out of"
        lines.append(f"{side} unit {status} command control: {count(pulses, 'pulse')} [MB 5.12]")
    if r.flag("cancelled"):
        pulses += t.whole("cancel-delay")
        lines.append("orders cancelled: +1 pulse [MB 5.11]")
    return {"verdict": f"moves after {count(pulses, 'pulse')}", "pulses": pulses, "lines": lines}


def bombard_delay(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    command = r.flag("command_hq")
    hq = r.flag("requester_hq") or command
    same = r.flag("same_formation") or (command and r.flag("off_map"))
    cases = []
    if hq and same:
        cases.append("hq-same-formation")
    if same and not hq:
        cases.append("same-formation")
    if command:
        cases.append("command-hq")
    cases = cases or ["other"]
    pulses = min(t.bombard_delay(c) for c in cases)
    lines = [f"{c}: {count(t.bombard_delay(c), 'pulse')}" for c in cases]
    lines.append(f"the shortest applies: {pulses} [MB 5.6]")
    if r.flag("cancelled"):
        pulses += t.whole("cancel-delay")
        lines.append("orders cancelled: +1 pulse [MB 5.11]")
    return {"verdict": f"fires after {count(pulses, 'pulse')}", "pulses": pulses, "lines": lines}


def command_link(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    if r.flag("between_hqs"):
        return {
            "verdict": "linked",
            "linked": True,
            "lines": ["an HQ's link to its next higher HQ holds while both exist [MB 5.12]"],
        }
    distance = r.integer("distance", None, 0, 999)
    sees = r.flag("sees_hq", True)
    limit = t.whole("link-range" if sees else "link-range-unseen")
    linked = distance <= limit
    seen = "sees" if sees else "cannot see"
    return {
        "verdict": "linked" if linked else "not linked: out of command control",
        "linked": linked,
        "lines": [f"{distance} squares from its HQ, which it {seen}: at most {limit} [MB 5.12]"],
    }


# --- victory (MB 10.2) ---------------------------------------------------------------------


def parse_kills(t: Tables, text: str) -> list[tuple[Profile, int]]:
    out = []
    for part in str(text).replace(" ", "").split(","):
        if not part:
            continue
        ident, _, count = part.partition(":")
        if count and not count.isdigit():
            raise BadInput(f"--set kills={text!r}: {part!r}: write PROFILE:COUNT, like T-72:3")
        out.append((t.profile(ident, "--set kills="), int(count or 1)))
    return out


def kill_value(t: Tables, p: Profile) -> int:
    if p.is_vehicle:
        return t.whole("vp-kill-armoured") + (p.fa or 0)
    if p.kind == "siw":
        raise BadInput(f"--set kills=: {p.id} is a weapon, not a unit; count RIFLE-N/RIFLE-S men")
    return p.cc or 0


def victory_points(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    role = r.choice("role", "attacker", ("attacker", "defender", "meeting"))
    unused = min(r.integer("unused_sp", 0) * t.whole("vp-unused-sp"), t.whole("vp-unused-sp-cap"))
    lines = [f"unused selection points: {unused} (at most 250) [MB 10.2]"]
    objective = 0
    if role != "defender":
        for key, param in (
            ("objective_armoured", "vp-objective-armoured"),
            ("objective_artillery", "vp-objective-artillery"),
            ("objective_infantry", "vp-objective-infantryman"),
        ):
            n = r.integer(key, 0)
            objective += n * t.whole(param)
            if n:
                lines.append(f"{n} {key.split('_')[1]} in the objective area x {t.whole(param)}")
    kills = 0
    for p, n in parse_kills(t, str(o.get("kills") or "")):
        value = kill_value(t, p)
        kills += value * n
        lines.append(f"{n} {p.id} killed x {value}")
    total = unused + objective + kills
    if role == "defender":
        doubled = min(unused * t.whole("vp-defender-multiplier"), t.whole("vp-defender-unused-cap"))
        total = doubled + (objective + kills) * t.whole("vp-defender-multiplier")
        lines.append(f"defender's points doubled (unused selection points at most 500): {total}")
    return {
        "verdict": f"{total} victory points ({role})",
        "points": total,
        "unused": unused,
        "objective": objective,
        "kills": kills,
        "lines": lines,
    }


def victory(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    nato = r.number("nato", None, 0, 10**9)
    soviet = r.number("soviet", None, 0, 10**9)
    if soviet == 0:
        ratio = None if nato else Fraction(1)
    else:
        ratio = Fraction(half_up(nato / soviet * 100), 100)
    bands = t.bands()
    band = bands[0]
    if ratio is not None:
        band = next(b for b in bands if ratio >= Fraction(str(b.at_least)))
    text = "unbounded (no Soviet points)" if ratio is None else num(ratio, 2)
    return {
        "verdict": band.result,
        "ratio": None if ratio is None else float(ratio),
        "result": band.result,
        "lines": [
            f"NATO {num(nato)} / Soviet {num(soviet)} = {text}, to two places [MB 10.2]",
            f"{band.result}: {num(band.at_least, 2)} or more",
        ],
    }


# --- the registry --------------------------------------------------------------------------

SPECS: dict[str, tuple[str, str, dict[str, str], Callable[..., dict[str, Any]]]] = {
    "sighting": (
        "sighting range: silhouette + 1, cover / 3, smoke / 2, moving x 3, at most visibility",
        "MB 7.1",
        {
            "silhouette": "the target's SL rating (or give target)",
            "target": "the target's profile id, for its silhouette",
            "cover": "true, or the terrain of its square (town, woods, broken, entrenchment)",
            "smoke": "true if the target is in smoke",
            "moving": "true if the target is moving",
            "visibility": "the game's visibility level, 7-20 (default 20)",
            "range": "squares to the target: says whether it is spotted",
        },
        sighting,
    ),
    "line-of-sight": (
        "line of sight over elevation and through woods, broken ground and towns",
        "MB 8.0",
        {
            "viewer": "the viewer's altitude level",
            "target": "the target's altitude level",
            "path": "the squares between, from the viewer: level + w/b/t/e, e.g. 1,2w,1b",
            "range": "squares between the units (default: the path's squares + 1)",
            "visibility": "the visibility level: beyond it nothing is seen",
        },
        line_of_sight,
    ),
    "suppression": (
        "suppression added with its caps, halved each pulse, and what it stops",
        "MB 7.6-7.7",
        {
            "level": "suppression now (default 0)",
            "add": "suppression an attack adds",
            "vehicle": "true for a vehicle (at most 50; others at most 200)",
            "pulses": "end-of-pulse halvings to apply (default 0)",
            "atgm": "true if the unit fires ATGMs (quartered above 25)",
        },
        suppression,
    ),
    "search": (
        "whether a suppressed unit searches this pulse (a d100 at its suppression)",
        "MB 7.7",
        {
            "suppression": "the unit's suppression",
            "same_square": "true to search its own square (always)",
        },
        search,
    ),
    "firer-sighted": (
        "whether a unit that fired is sighted: 2 x pulses at the same target / range",
        "MB 7.12",
        {"pulses": "pulses fired at the same target (default 1)", "range": "range in squares"},
        firer_sighted,
    ),
    "visibility": (
        "roll the game's visibility level (7 to 20 squares)",
        "MB 4.11",
        {},
        visibility,
    ),
    "ammunition": (
        "a unit's rounds and missiles, and what is left",
        "MB 7.8",
        {
            "profile": "the unit's profile id",
            "fired": "pulses it has fired its gun (default 0)",
            "missiles_fired": "missiles it has fired (default 0)",
        },
        ammunition,
    ),
    "smoke-decay": (
        "end-of-pulse thinning of smoke: level 3, 2, 1 reduce on 90, 70, 50 percent",
        "MB 7.13",
        {"level": "smoke level now, 1-3", "pulses": "pulses to run (default 1)"},
        smoke_decay,
    ),
    "smoke-place": (
        "smoke placed by artillery (level 3) or by a wrecked vehicle (level 1)",
        "MB 7.13",
        {"cause": "artillery or wreck", "level": "smoke already in the square (default 0)"},
        smoke_place,
    ),
    "move-delay": (
        "pulses before a unit with new movement orders moves",
        "MB 5.12",
        {
            "side": "nato or soviet",
            "in_command": "true if in command control (default true)",
            "helicopter": "true for helicopters (never delayed)",
            "cancelled": "true if its orders were cancelled (+1)",
        },
        move_delay,
    ),
    "bombard-delay": (
        "pulses before artillery fires a requested bombardment",
        "MB 5.6",
        {
            "requester_hq": "true if the requester is an HQ",
            "same_formation": "true if the artillery is in the requester's formation",
            "command_hq": "true if the requester is the command HQ",
            "off_map": "true for off-map artillery (in the command HQ's formation)",
            "cancelled": "true if its orders were cancelled (+1)",
        },
        bombard_delay,
    ),
    "command-link": (
        "whether a unit is linked to its HQ: 10 squares, 5 if it cannot see the HQ",
        "MB 5.12",
        {
            "distance": "squares from the unit to its formation HQ",
            "sees_hq": "true if it can see the HQ (default true)",
            "between_hqs": "true for an HQ and its next higher HQ (always linked)",
        },
        command_link,
    ),
    "victory-points": (
        "one side's victory points: unused selection, objective area, kills",
        "MB 10.2",
        {
            "role": "attacker (default), defender (doubled) or meeting (both attack)",
            "unused_sp": "unused selection points",
            "objective_armoured": "armoured vehicles in the objective area",
            "objective_artillery": "artillery pieces or trucks in the objective area",
            "objective_infantry": "infantrymen in the objective area",
            "kills": "enemy killed as PROFILE:COUNT, e.g. T-72:3,RIFLE-S:12",
        },
        victory_points,
    ),
    "victory": (
        "the victory ratio NATO / Soviet points and its band",
        "MB 10.2",
        {"nato": "NATO victory points", "soviet": "Soviet victory points"},
        victory,
    ),
}


def procedures(t: Tables) -> dict[str, Procedure]:
    def bind(fn: Callable[..., dict[str, Any]]) -> Run:
        return lambda options, dice: fn(t, options, dice)

    return {
        name: Procedure(description, options, bind(fn), rule)
        for name, (description, rule, options, fn) in SPECS.items()
    }
