"""Typhoon procedures around fire: checks, rate of fire, visibility, weather, HE damage on a
square, infantry assault (ToS V, ToS II.B.3, ToS II.D)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.core.words import count
from tabletop.rules.models.chance import rolls_text
from tabletop.rules.models.typhoon import damage as dmg
from tabletop.rules.models.typhoon.accuracy import (
    Facts,
    clamp,
    modifiers,
    shift_multiplier,
    silhouette_modifier,
)
from tabletop.rules.models.typhoon.opts import Opts
from tabletop.rules.models.typhoon.situation import COVERS, TARGET_STATES, Situation
from tabletop.rules.models.typhoon.tables import PERCENT, Tables, Unit, Weapon

# --- skill and first-shot checks (ToS V Skill check, First shot check) ------------------------


def skill_check(t: Tables, dice: DiceLike, skill: int, purpose: str) -> tuple[bool, int]:
    die = int(t.p("skill-die"))
    roll = t.roll_by(
        dice,
        die,
        f"{purpose}: skill check, passes on {skill} or less (d{die})",
        lambda face: face <= skill,
    )
    return roll <= skill, roll


def first_shot_rating(rating: float, crew_lost: int) -> float:
    # ToS II.B.3: each crewman lost halves a vehicle's first-shot rating.
    return float(rating / 2**crew_lost)


def first_shot_passes(t: Tables, rating: float, roll: int) -> bool:
    """rating >= 50 / Rnd(10), worked as rating * Rnd(10) >= 50 (no division by zero)."""
    return rating * t.rnd_of(roll, 10) >= t.p("first-shot-numerator")


def run_skill_check(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("skill-check", options, t)
    unit = o.unit("unit")
    skill = o.whole("skill", unit.skill if unit else None, 0, 10, "the skill rating 0-10")
    passed, roll = skill_check(t, dice, skill, "skill check")
    die = int(t.p("skill-die"))
    chance = Fraction(min(max(skill, 0), die), die)
    return {
        "verdict": f"Skill check {'passed' if passed else 'failed'}: {roll} vs skill {skill}",
        # What happened, without the face (the odds group by it).
        "result": "passed" if passed else "failed",
        "passed": passed,
        "roll": roll,
        "chance": float(chance),
        "lines": [f"passes when a d{die} shows {skill} or less: {float(chance):.0%}"],
    }


def run_first_shot(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("first-shot", options, t)
    unit = o.unit("unit")
    base = o.number("rating", unit.first_shot if unit else None, 0, 100, "the first-shot rating")
    lost = o.whole("crew_lost", 0, 0, 40)
    rating = first_shot_rating(base, lost)
    roll = t.roll_by(
        dice,
        PERCENT,
        "first-shot check (d100 as Rnd(10))",
        lambda face: first_shot_passes(t, rating, face),
    )
    passed = first_shot_passes(t, rating, roll)
    chance = Fraction(sum(1 for f in t.faces() if first_shot_passes(t, rating, f)), len(t.faces()))
    value = rating * t.rnd_of(roll, 10)
    need = t.p("first-shot-numerator")
    return {
        "verdict": f"First-shot check {'passed' if passed else 'failed'}: "
        f"{rating:g} x Rnd(10) = {value:.2f} vs {need:g}",
        # What happened, without the face (the odds group by it).
        "result": "passed" if passed else "failed",
        "passed": passed,
        "rating": rating,
        "chance": float(chance),
        "lines": [
            f"rating {base:g}"
            + (f", halved {count(lost, 'time')} for crew lost = {rating:g}" if lost else ""),
            f"Rnd(10) = {t.rnd_of(roll, 10):.2f} from d100 {roll}; passes {float(chance):.0%} "
            f"[{t.rule('parameter', 'first-shot-numerator')}]",
        ],
    }


def rate_of_fire(
    t: Tables,
    dice: DiceLike,
    *,
    skill: int,
    rating: float,
    size: int,
    pulse: int,
    moving: bool,
) -> tuple[int, list[str]]:
    """Shots of point fire this pulse and the working (ToS II.B.3 Rate of fire): a skill
    check (d10) then a first-shot check (d100 as Rnd(10)). The first pulse at a target fires
    once when both pass, else not at all; a later pulse twice when both pass, the unit is not
    moving and its shell is larger than small arms, else once."""
    ok_skill, skill_roll = skill_check(t, dice, skill, "rate of fire")
    roll = t.roll_by(
        dice,
        PERCENT,
        "rate of fire: first-shot check (d100 as Rnd(10))",
        lambda face: first_shot_passes(t, rating, face),
    )
    ok_first = first_shot_passes(t, rating, roll)
    both = ok_skill and ok_first
    lines = [
        f"rate of fire, pulse {pulse} at this target: skill {skill_roll} vs {skill}: "
        f"{'pass' if ok_skill else 'fail'}; first shot {rating:g} x {t.rnd_of(roll, 10):.2f} "
        f"vs {t.p('first-shot-numerator'):g}: {'pass' if ok_first else 'fail'}"
    ]
    if pulse == 1:
        shots = 1 if both else 0
        lines.append(
            "first pulse after the order: fires once if both checks pass, else not at all "
            "[ToS II.B.3 Rate of fire]"
        )
    else:
        double = both and not moving and size > 1
        shots = 2 if double else 1
        lines.append(
            "later pulse: twice if both pass, not moving and not small arms; else once "
            "[ToS II.B.3 Rate of fire]"
        )
    return shots, lines


def run_rate_of_fire(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    """Shots this pulse (ToS II.B.3 Rate of fire)."""
    o = Opts("rate-of-fire", options, t)
    unit = o.unit("unit")
    skill = o.whole("skill", unit.skill if unit else None, 0, 10, "the skill rating")
    base = o.number("first_shot", unit.first_shot if unit else None, 0, 100, "the rating")
    weapon_id = unit.weapons[0].weapon if unit and unit.weapons else None
    size = o.whole("shell_size", t.weapons[weapon_id].size if weapon_id else None, 1, 20)
    lost = o.whole("crew_lost", 0, 0, 40)
    rating = first_shot_rating(base, lost)
    lines = []
    if o.flag("bombardment"):
        double = rating >= t.p("bombard-double-first-shot")
        shots = 2 if double else 1
        lines.append(
            f"bombardment: first-shot rating {rating:g} "
            f"{'>=' if double else '<'} {t.p('bombard-double-first-shot'):g}: "
            f"{count(shots, 'shot')} "
            f"[{t.rule('parameter', 'bombard-double-first-shot')}]"
        )
        return {"verdict": f"{count(shots, 'shot')} this pulse", "shots": shots, "lines": lines}
    pulse = o.whole("pulse", 1, 1, 1000)
    shots, lines = rate_of_fire(
        t, dice, skill=skill, rating=rating, size=size, pulse=pulse, moving=o.flag("moving")
    )
    return {"verdict": f"{count(shots, 'shot')} this pulse", "shots": shots, "lines": lines}


# --- visibility and weather (ToS V Visibility range modifiers, ToS II.D Weather) ------------


def weather_factor(t: Tables, weather: str, campaign: bool) -> float:
    # ToS II.D: weather shortens visibility only in campaign battles.
    return float(t.entry("weather", weather).visibility) if campaign else 1.0


def run_weather(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("weather", options, t)
    weather = o.choice("weather", tuple(t.tables["weather"]), "clear")
    row = t.entry("weather", weather)
    campaign = o.flag("campaign")
    factor = weather_factor(t, weather, campaign)
    out: dict[str, Any] = {"weather": weather, "visibility_factor": factor, "rule": row.rule}
    lines = [
        f"visibility x{factor:g}"
        + ("" if campaign or weather == "clear" else " (weather shortens sight only in campaigns)")
    ]
    if o.given("visibility"):
        level = o.whole("visibility", None, 1, 9)
        squares = level * t.p("squares-per-visibility") * factor
        out["visibility_range"] = squares
        out["visibility_inches"] = squares * t.scale.inches_per_square
        lines.append(
            f"visibility {level} x {t.p('squares-per-visibility'):g} x {factor:g} = "
            f"{squares:g} squares"
        )
    if o.given("cost"):
        cost = o.number("cost", None, 0)
        if o.flag("swamp") and row.swamp_cost_factor is not None:
            new = cost * row.swamp_cost_factor
            lines.append(f"swamp in {weather}: cost {cost:g} x {row.swamp_cost_factor:g}")
        else:
            new = cost + row.move_cost_add
            lines.append(f"movement cost {cost:g} + {row.move_cost_add:g}")
        out["move_cost"] = new
    verdict = f"{weather.capitalize()}: visibility x{factor:g}"
    if "move_cost" in out:
        verdict += f", square costs {out['move_cost']:g}"
    return {"verdict": verdict, **out, "lines": lines}


VIS_TESTS = {
    "vis-buttoned": "buttoned",
    "vis-skill-failed": "skill_failed",
    "vis-higher": "higher",
    "vis-early-pulse": "early_pulse",
    "vis-stationary": "target_stationary",
    "vis-hidden": "target_hidden",
}


def run_visibility(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("visibility", options, t)
    level = o.whole("visibility", None, 1, 9, "the scenario's visibility level 1-9")
    weather = o.choice("weather", tuple(t.tables["weather"]), "clear")
    factor = weather_factor(t, weather, o.flag("campaign"))
    spotter = o.unit("spotter")
    target = o.unit("target")
    skill = o.whole("skill", spotter.skill if spotter else None, 0, 10, "the spotter's skill")
    size = o.whole("size", target.size if target else None, 1, 10, "the target's silhouette")
    pulse = o.whole("pulse", 3, 1, 3)
    passed, roll = skill_check(t, dice, skill, "visibility")
    facts = {
        "buttoned": o.flag("buttoned"),
        "skill_failed": not passed,
        "higher": o.flag("higher"),
        "early_pulse": pulse <= 2,
        "target_stationary": o.flag("target_stationary"),
        "target_hidden": o.flag("target_hidden"),
    }
    base = level * t.p("squares-per-visibility") * factor
    lines = [
        f"visibility {level} x {t.p('squares-per-visibility'):g} x weather {factor:g} = "
        f"{base:g} squares; skill check {roll} vs {skill}: {'pass' if passed else 'fail'}"
    ]
    shifts = 0
    for entry in t.tables["visibility_modifier"].values():
        if facts[VIS_TESTS[entry.id]]:
            shifts += entry.shifts
            lines.append(
                f"  {entry.shifts:+d}: {VIS_TESTS[entry.id].replace('_', ' ')} [{entry.rule}]"
            )
    mult = shift_multiplier(t, shifts)
    distance = o.number("range", None, 0) if o.given("range") else None
    sil = silhouette_modifier(t, size, distance if distance is not None else t.p("silhouette-near"))
    squares = base * mult * sil
    lines.append(
        f"{base:g} x{mult:.4f} ({shifts:+d} shifts) x silhouette {sil:.4f} = "
        f"{squares:.2f} squares [{t.rule('parameter', 'silhouette-near')}]"
    )
    out: dict[str, Any] = {
        "visibility_range": round(squares, 3),
        "visibility_inches": round(squares * t.scale.inches_per_square, 3),
        "shifts": shifts,
        "silhouette": round(sil, 4),
        "skill_passed": passed,
    }
    verdict = f'Sees {squares:.1f} squares ({out["visibility_inches"]:.1f}")'
    if distance is not None:
        out["sees"] = distance <= squares
        verdict = ("Seen" if out["sees"] else "Not seen") + f" at {distance:g} squares: " + verdict
    return {"verdict": verdict, **out, "lines": lines}


# --- HE damage on a square (ToS V Damage by HE fire) --------------------------------------


def _he_situation(o: Opts, target: Unit) -> Situation:
    return Situation(
        weapon=0,
        shell="he",
        fired_last_pulse=False,
        firer_state=o.choice(
            "firer_state",
            ("positioned", "cautious", "full", "pinned", "buttoned", "dug-in"),
            "positioned",
        ),
        firer_suppression=0,
        firer_men=o.whole("firer_men", 1, 1, 40),
        target_state=o.choice("target_state", TARGET_STATES, "positioned"),
        cover=o.choice("cover", COVERS, "none"),
        hull_down=False,
        levels_above=0,
        aspect="side",
        target_men=o.whole("target_men", target.men, 1, target.men),
        target_suppression=0,
        target_immobilized=False,
        target_guns_out=(),
        sighted=True,
        smoke=0,
    )


def soft_chance(
    t: Tables,
    base: float,
    sit: Situation,
    firer: Unit | None,
    target: Unit,
    weapon: Weapon,
    skill_failed: bool,
) -> tuple[float, list[str]]:
    """An HE chance modified by every soft-target row, then capped and floored."""
    facts = Facts(sit, firer or target, target, weapon, False, False, skill_failed)
    mods = modifiers(t, "soft_modifier", facts, ("firer", "target"))
    shifts = sum(m.shifts for m in mods)
    value = clamp(
        base * shift_multiplier(t, shifts), t.p("accuracy-floor-soft"), t.p("accuracy-cap")
    )
    lines = [f"  {m.shifts:+d}: {m.name} [{m.rule}]" for m in mods]
    lines.append(
        f"chance {base:g} x{shift_multiplier(t, shifts):.4f} ({shifts:+d} shifts) -> "
        f"{value:.2f}% (cap and floor as for soft targets)"
    )
    return value, lines


def run_he_damage(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("he-damage", options, t)
    weapon = o.weapon("weapon")
    target = o.unit("target", required=True)
    assert target is not None
    firer = o.unit("firer")
    primary = o.flag("primary")
    if primary and target.is_hard:
        raise BadInput(
            f"--set primary=true: {target.id} is a hard target and only soft targets are primary "
            "(fire at it with 'tabletop fire --model typhoon')"
        )
    sit = _he_situation(o, target)
    base, ident = dmg.he_chance(t, weapon, target, primary)
    lines = [f"chance to hit {target.id}: {base:g}% ({ident}) [{t.rule('he_chance', ident)}]"]
    status = dmg.Status(men=sit.target_men)
    out: dict[str, Any] = {
        "weapon": weapon.id,
        "target": target.id,
        "chance": base,
        "hit": False,
        "location": None,
        "penetration_depth": None,
        "penetrated": False,
        "men_killed": 0,
        "destroyed": False,
    }
    if target.is_hard:
        hit, rolls = t.percent(dice, base, "HE hits the hard target?")
        out["hit"] = hit
        lines.append(f"{rolls_text(rolls)}: {'hit' if hit else 'miss'}")
        if hit:
            _he_hard(t, dice, weapon, target, status, out, lines)
    else:
        chance, more = soft_chance(t, base, sit, firer, target, weapon, o.flag("skill_failed"))
        lines.extend(more)
        out["chance"] = round(chance, 2)
        if primary:
            hit = True
            lines.append("the primary target is hit")
        else:
            hit, rolls = t.percent(dice, chance, "HE hits the unit?")
            lines.append(f"{rolls_text(rolls)}: {'hit' if hit else 'miss'}")
        out["hit"] = hit
        if hit:
            ia = dmg.squad_attack(t, firer, weapon, sit.firer_men)
            losses = dmg.he_losses(t, dice, weapon, ia, chance, target, status, "he-damage")
            lines.extend(losses.lines)
            out["men_killed"] = losses.killed
    out["destroyed"] = status.destroyed
    out["target_after"] = status.as_json()
    return {"verdict": _he_verdict(out), **out, "lines": lines}


def _he_hard(
    t: Tables,
    dice: DiceLike,
    weapon: Weapon,
    target: Unit,
    status: dmg.Status,
    out: dict[str, Any],
    lines: list[str],
) -> None:
    face = dice.roll(6, "HE hit location (d6)")
    area = dmg.indirect_area(t, face)
    out["location"] = area
    armour = dmg.armour_at(target, area, "side")
    lines.append(
        f"location d6 {face}: {area} (armour {armour:g}) [{t.rule('indirect_location', 'ind-1')}]"
    )
    if dmg.always_penetrates(t, area, weapon):
        out["penetrated"] = True
        lines.append("track hit by a shell over size 1: always penetrates")
    else:
        u, _ = t.rnd(dice, 1, "HE penetration depth")
        pd = dmg.depth_he(t, u, weapon)
        out["penetration_depth"] = round(pd, 2)
        out["penetrated"] = dmg.penetrates(pd, armour)
        lines.append(
            f"HE depth = {t.p('he-depth-factor'):g} x {weapon.size} x {u:.3f} = {pd:.2f}"
            f" vs {armour:g}"
        )
    if out["penetrated"]:
        effects = dmg.penetration_effects(t, dice, weapon, target, area, status)
        lines.extend(effects.lines)
        out["men_killed"] = effects.crew_killed
        out["immobilized"] = effects.immobilized


def _he_verdict(out: dict[str, Any]) -> str:
    if not out["hit"]:
        return f"Missed: HE from {out['weapon']} does not touch {out['target']}"
    if out["destroyed"]:
        return f"Destroyed: {out['target']} ({out['men_killed']} men killed)"
    if out["penetrated"]:
        return f"Penetrated: {out['target']} hit on the {out['location']}"
    if out["location"] is not None:
        return f"No effect: {out['target']} hit on the {out['location']}, not penetrated"
    return f"{out['men_killed']} men killed in {out['target']}"


# --- infantry assault (ToS V Infantry assaults against hard targets, II.B.3) ---------------


def run_assault(t: Tables, options: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    o = Opts("assault", options, t)
    squad = o.unit("assaulter", required=True)
    target = o.unit("target", required=True)
    assert squad is not None and target is not None
    if squad.kind != "infantry":
        raise BadInput(f"--set assaulter={squad.id!r}: only infantry assault (ToS II.B.3)")
    men = o.whole("men", squad.men, 1, squad.men)
    skill = o.whole("skill", squad.skill, 0, 10)
    state = o.choice("target_state", TARGET_STATES, "positioned")
    if target.is_vehicle:
        return _assault_vehicle(t, o, dice, squad, target, men, skill, state)
    return _assault_soft(t, o, dice, squad, target, men, skill)


def assault_result(t: Tables, value: float) -> str:
    if value > t.p("assault-destroy-above"):
        return "destroyed"
    if value > t.p("assault-track-above"):
        return "immobilized"
    return "no effect"


def morale_holds(morale: float, suppression: float, u: float) -> bool:
    """ToS II.B.3: the squad goes in when morale x Rnd(1) >= its suppression points."""
    return morale * u >= suppression


def _assault_vehicle(
    t: Tables,
    o: Opts,
    dice: DiceLike,
    squad: Unit,
    target: Unit,
    men: int,
    skill: int,
    state: str,
) -> dict[str, Any]:
    morale = o.whole("morale", squad.morale, 1, 9)
    points = o.whole("suppression", 0, 0, 100)
    lines = []
    if points > 0:
        u, _ = t.rnd(dice, 1, "assault morale check")
        holds = morale_holds(morale, points, u)
        lines.append(
            f"morale {morale} x {u:.3f} = {morale * u:.2f} vs {points} suppression: "
            f"{'goes in' if holds else 'routs'} [ToS II.B.3 Infantry assaults]"
        )
        if not holds:
            return {
                "verdict": f"Routs: {squad.id} fails its morale check",
                "result": "routed",
                "kill_rating": None,
                "lines": lines,
            }
    special_id = o.o.get("special")
    if special_id is not None:
        names = [m.weapon for m in squad.weapons]
        special = t.weapons.get(str(special_id))
        if special is None or special_id not in names or special.max_range > 1:
            raise BadInput(
                f"--set special={special_id!r}: give a weapon of {squad.id} with range "
                f"1 (its weapons: {', '.join(names)})"
            )
        kr = special.accuracy
        lines.append(f"kill rating {kr:g}: accuracy of {special.id}")
    else:
        kr = men
        lines.append(f"kill rating {kr}: men in the squad")
    passed, roll = skill_check(t, dice, skill, "assault")
    lines.append(f"skill check {roll} vs {skill}: {'pass' if passed else 'fail'}")
    rows = t.tables["assault_modifier"]
    applies = {
        "assault-soft-or-open": not target.is_hard or target.is_open_topped,
        "assault-stationary": state not in ("cautious", "full", "retreating", "routed"),
        "assault-full-advance": state == "full",
        "assault-skill-failed": not passed,
    }
    for ident, row in rows.items():
        if applies[ident]:
            kr += row.points
            lines.append(
                f"  {row.points:+d}: {ident.removeprefix('assault-').replace('-', ' ')} "
                f"[{row.rule}]"
            )
    u, _ = t.rnd(dice, 1, "assault kill rating x Rnd(1)")
    value = kr * u
    result = assault_result(t, value)
    lines.append(
        f"{kr:g} x {u:.3f} = {value:.2f}: {result} (destroyed over "
        f"{t.p('assault-destroy-above'):g}, track over {t.p('assault-track-above'):g})"
    )
    verdict = {"destroyed": "Destroyed", "immobilized": "Immobilized", "no effect": "No effect"}
    return {
        "verdict": f"{verdict[result]}: {squad.id} assaults {target.id}",
        "result": result,
        "kill_rating": kr,
        "skill_passed": passed,
        "lines": lines,
    }


def _assault_soft(
    t: Tables, o: Opts, dice: DiceLike, squad: Unit, target: Unit, men: int, skill: int
) -> dict[str, Any]:
    weapon = t.weapons[squad.weapons[0].weapon]
    passed, roll = skill_check(t, dice, skill, "assault")
    sit = _he_situation(o, target)
    base, _ = dmg.he_chance(t, weapon, target, primary=True)
    chance, lines = soft_chance(t, base, sit, squad, target, weapon, not passed)
    ia = dmg.squad_attack(t, squad, weapon, men) * t.p("assault-ia-factor")
    lines.insert(
        0,
        f"skill check {roll} vs {skill}: {'pass' if passed else 'fail'}; assault "
        f"value {ia:g} (x{t.p('assault-ia-factor'):g}) [ToS II.B.3 Infantry assaults]",
    )
    status = dmg.Status(men=sit.target_men)
    hit, hit_rolls = t.percent(dice, chance, "assault hits the unit?")
    lines.append(f"{rolls_text(hit_rolls)}: {'hit' if hit else 'miss'}")
    killed = 0
    if hit:
        losses = dmg.he_losses(t, dice, weapon, ia, chance, target, status)
        lines.extend(losses.lines)
        killed = losses.killed
    result = "destroyed" if status.destroyed else ("no effect" if not killed else "losses")
    verdict = "Destroyed" if status.destroyed else f"{killed} men killed"
    return {
        "verdict": f"{verdict}: {squad.id} assaults {target.id}",
        "result": result,
        "men_killed": killed,
        "chance": round(chance, 2),
        "lines": lines,
    }
