"""Squad Battles effects besides fire: mines, obstacles, barriers and craters, clearing and
demolition, explosion radius and length, special loads (smoke, illumination, mines, gas),
weapon reliability and rest."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.rules.models.chance import roll_chance, rolls_text, shown
from tabletop.rules.models.squad_battles.results import apply_effectiveness, degrade, num, show
from tabletop.rules.models.squad_battles.tables import Tables, frac

MINES = "SB Movement: Normal Mines"
EXPLOSION = "SB Firing: Explosion Radius and Length"


# --- mines -----------------------------------------------------------------------------------


def trip_percent(tables: Tables, stacking: int) -> Fraction:
    """SB Normal Mines: 2 S / M, as a percentage (never over 100)."""
    m = tables.param("max-stacking")
    return min(Fraction(100), 100 * tables.param("mine-trip-factor") * stacking / m)


def mine(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    kind = o["type"]
    m = tables.entry("mine", kind)
    unit, stacking, armour = _mover(tables, o)
    infantry = unit in ("team", "leader")
    rule = m.rule

    def quiet(why: str) -> dict[str, Any]:
        return {
            "verdict": f"no mine attack: {why}",
            "trip_chance": 0,
            "tripped": False,
            "effect": "none",
            "casualties": 0,
            "lines": [f"{why} [{rule}]"],
            "rule": rule,
        }

    if m.water_only and not o["water"]:
        return quiet(f"{kind} mines threaten only in water hexes")
    if o["detector"]:
        return quiet("a unit carrying a mine detector is not attacked")
    if infantry and not m.infantry_trips:
        return quiet(f"infantry cannot trip {kind} mines")
    if not infantry and not m.vehicles_trip:
        return quiet(f"{kind} has no effect on vehicles")
    percent = trip_percent(tables, stacking)
    tripped, rolled = roll_chance(dice, percent / 100, "mine trips (2S/M)")
    lines = [
        f"trip chance 2 x S / M = 2 x {stacking} / {show(tables.param('max-stacking'))} = "
        f"{shown(percent / 100)}: {rolls_text(rolled)}"
    ]
    if not tripped:
        lines.append("not tripped")
        return {
            "verdict": "mine not tripped",
            "trip_chance": num(percent / 100, 4),
            "tripped": False,
            "effect": "none",
            "casualties": 0,
            "lines": lines,
            "rule": MINES,
        }
    casualties = 0
    if infantry:
        low, high = m.on_ground if o["ground"] else m.standing
        casualties = low
        if high > low:
            r = dice.roll(high - low + 1, f"mine casualties {low} to {high}")
            casualties = low - 1 + r
        effect = "casualties" if casualties else "none"
        lines.append(
            f"tripped by infantry {'on the ground' if o['ground'] else 'standing'}: "
            f"{casualties} {'casualty' if casualties == 1 else 'casualties'}"
        )
        verdict = f"mine tripped: {casualties} {'casualty' if casualties == 1 else 'casualties'}"
    else:
        hard = tables.hard(armour)
        effect = m.hard_vehicle if hard else m.soft_vehicle
        lines.append(
            f"tripped by a {'hard' if hard else 'soft'} vehicle (armour {show(armour)}, hard at "
            f"{show(tables.param('hard-vehicle-armour'))}): {effect}"
        )
        verdict = (
            f"mine tripped: vehicle {effect}" if effect != "none" else "mine tripped: no effect"
        )
    return {
        "verdict": verdict,
        "trip_chance": num(percent / 100, 4),
        "tripped": True,
        "effect": effect,
        "casualties": casualties,
        "lines": lines,
        "rule": rule,
    }


def _mover(tables: Tables, o: dict[str, Any]) -> tuple[str, int, Fraction]:
    unit, stacking, armour = o["unit"], o["stacking"], o["armour"]
    if o["profile"]:
        p = tables.profile(o["profile"], "--set profile")
        if p.kind == "weapon":
            raise BadInput(f"--set profile={p.id!r}: a weapon does not move on its own")
        unit = p.kind
        if stacking is None:
            stacking = p.men if p.kind == "team" else 1 if p.kind == "leader" else p.stacking
        if armour is None and p.armour is not None:
            armour = frac(p.armour)
    if unit is None:
        raise BadInput("give --set unit=team|leader|vehicle (or --set profile=ID)")
    if stacking is None:
        if unit == "leader":
            stacking = 1
        else:
            raise BadInput("give --set stacking=N: the movers' stacking value in men")
    return unit, int(stacking), frac(armour or 0)


# --- obstacles, barriers, craters -------------------------------------------------------------


def obstacle(tables: Tables, o: dict[str, Any]) -> dict[str, Any]:
    feature, unit = o["feature"], o["unit"]
    can_enter, pinned, extra = True, False, Fraction(0)
    lines: list[str] = []
    if feature == "obstacles":
        rule = "SB Movement: Obstacles"
        if unit == "horse":
            can_enter = False
            lines.append("horses cannot enter a hex with obstacles")
        elif unit == "team":
            pinned = True
            lines.append("a team entering obstacles is pinned")
        else:
            lines.append(f"a {unit} enters obstacles without effect")
    elif feature == "barriers":
        rule = "SB Movement: Barriers"
        if unit in ("vehicle", "train"):
            can_enter = False
            lines.append(f"a {unit} cannot enter a hex with barriers")
        else:
            lines.append(f"a {unit} enters barriers freely")
    else:
        rule = "SB Movement: Craters"
        extra = tables.param("cratered-cost")
        lines.append(f"craters cost {show(extra)} more movement points, road or not")
        if unit in ("team", "leader"):
            lines.append(
                f"infantry there gains crater protection {show(tables.param('crater-protection'))}"
                " unless the hex has a fortification or cave [SB Firing: Fortifications Protection]"
            )
    verdict = (
        f"cannot enter {feature}"
        if not can_enter
        else f"enters {feature}"
        + (": pinned" if pinned else "")
        + (f": +{show(extra)} movement points" if extra else "")
    )
    return {
        "verdict": verdict,
        "can_enter": can_enter,
        "pinned": pinned,
        "extra_cost": num(extra),
        "lines": lines,
        "rule": rule,
    }


CLEARS = {
    "demolition": ("barrier", "mine", "obstacle"),
    "clearing": ("mine", "obstacle"),
    "wire-cutter": ("obstacle",),
    "mine-detector": ("mine",),
}


def clear(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    """SB Demolition and Clearing Weapons: what each may clear, and the chance."""
    rule = "SB Weapon Types: Demolition and Clearing Weapons"
    weapon, target = o["weapon"], o["target"]
    bridges = tables.by_table["demolition"]
    if target in bridges:
        if weapon != "demolition":
            raise RulesRefusal(f"only demolition weapons can destroy a {target} ({rule})")
        percent = Fraction(bridges[target].percent)
        why = f"{target}: {show(percent)}%"
    else:
        if target not in CLEARS[weapon]:
            raise RulesRefusal(
                f"a {weapon} weapon cannot clear a {target}: it clears "
                f"{', '.join(CLEARS[weapon])} ({rule})"
            )
        rank = tables.entry("reliability", o["reliability"]).rank
        e = frac(o["effectiveness"])
        percent = Fraction(rank, 6) * e
        why = f"reliability {o['reliability']} ({rank}/6) x effectiveness {show(e)}%"
    done, rolled = roll_chance(dice, Fraction(percent) / 100, f"{target} cleared")
    lines = [
        f"chance {why} = {shown(Fraction(percent) / 100)}: {rolls_text(rolled)} "
        + ("succeeds" if done else "fails")
    ]
    if done and target in bridges:
        lines.append("vehicles on it become immobile")
    what = "destroyed" if target in bridges else "cleared"
    return {
        "verdict": f"{target} {what}" if done else f"{target} not {what}",
        "chance": num(percent / 100, 4),
        "success": done,
        "lines": lines,
        "rule": rule,
    }


# --- explosion, loads and gas -----------------------------------------------------------------


def explosion_factor(radius: int, length: int, offset: int, along: bool) -> Fraction:
    """SB Explosion Radius and Length: 1/(1+R) within the radius; full effect along the
    strike direction within the length; nothing beyond."""
    if along and offset <= length:
        return Fraction(1)
    if offset <= radius:
        return Fraction(1, 1 + offset)
    return Fraction(0)


def explosion(tables: Tables, o: dict[str, Any]) -> dict[str, Any]:
    f = explosion_factor(o["radius"], o["length"], o["offset"], o["along"])
    iph = tables.scale.inches_per_hex
    where = "along the strike direction" if o["along"] else "from the aim point"
    return {
        "verdict": f"x{show(f)} at {o['offset']} hexes {where}",
        "factor": num(f, 4),
        "radius_inches": round(o["radius"] * iph, 2),
        "length_inches": round(o["length"] * iph, 2),
        "lines": [
            f'radius {o["radius"]} hexes ({o["radius"] * iph:.2f}"), length {o["length"]} '
            f'hexes ({o["length"] * iph:.2f}"): {o["offset"]} hexes {where} -> x{show(f)}'
        ],
        "rule": EXPLOSION,
    }


LOAD_RULES = {
    "smoke": "SB Firing: Smoke",
    "wp-smoke": "SB Firing: Smoke",
    "illumination": "SB Firing: Illumination",
    "mine": "SB Firing: Mine Loads",
    "chemical": "SB Firing: Chemical Loads",
}


def load(tables: Tables, o: dict[str, Any]) -> dict[str, Any]:
    """What a special load leaves in the target hex, and the side's scenario limit."""
    kind = o["load"]
    rule = LOAD_RULES[kind]
    limit, used = o["limit"], o["used"]
    exempt = o["single_use"] and kind in ("smoke", "wp-smoke")
    if kind != "chemical" and not exempt and limit is not None and used >= limit:
        raise RulesRefusal(
            f"the side has used {used} of its {kind} limit of {limit} ({rule}); "
            "single-use smoke weapons are not limited"
        )
    iph = tables.scale.inches_per_hex
    hexes = o["radius"] if kind == "illumination" else 0
    effects = {
        "smoke": "smoke in the target hex until the firing side's next turn: blocks sight, "
        "halves fire from the hex and direct fire into it; no effect on units",
        "wp-smoke": "as smoke, and the units in the hex take fire at the load's lethality and "
        "penetration (resolve with fire)",
        "illumination": f"lights every hex within {hexes} hexes until the firing side's next turn",
        "mine": "an anti-personnel mine in the target hex, hidden from both sides (procedure mine)",
        "chemical": "a persistent gas cloud in the target hex; it may spread and clear each "
        "turn (procedure gas)",
    }
    return {
        "verdict": effects[kind].split(":")[0].split(",")[0],
        "load": kind,
        "lasts": "persistent"
        if kind in ("mine", "chemical")
        else "until the firing side's next turn",
        "radius_hexes": hexes,
        "radius_inches": round((hexes + 0.5) * iph, 2),
        "used": used + (0 if exempt else 1),
        "limit": limit,
        "lines": [effects[kind] + f" [{rule}]"]
        + (["a single-use smoke weapon does not count against the limit"] if exempt else []),
        "rule": rule,
    }


def gas(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    rule = "SB Firing: Chemical Loads"
    action = o["action"]
    if action == "spread":
        chance = tables.param("gas-spread")
        spread = []
        lines = []
        for i in range(1, o["adjacent"] + 1):
            gassed, rolled = roll_chance(dice, chance / 100, f"gas spreads to adjacent hex {i}")
            spread.append(gassed)
            lines.append(
                f"adjacent hex {i} (no higher), {shown(chance / 100)}: {rolls_text(rolled)} "
                + ("gassed" if gassed else "clear")
            )
        return {
            "verdict": f"gas spreads to {sum(spread)} of {o['adjacent']} adjacent hexes",
            "spread": spread,
            "chance": num(chance / 100, 4),
            "lines": lines,
            "rule": rule,
        }
    if action == "clear":
        chance = tables.param("gas-clear")
        cleared, rolled = roll_chance(dice, chance / 100, "gas clears")
        return {
            "verdict": "the gas clears" if cleared else "the gas stays",
            "cleared": cleared,
            "chance": num(chance / 100, 4),
            "lines": [f"{rolls_text(rolled)} against {shown(chance / 100)}"],
            "rule": rule,
        }
    # exposure: what gas first fired into a hex does to a unit there
    if o["unit"] == "vehicle":
        effects = ["fires at half value while in the gas hex"]
        state, masks = o["state"], "n/a"
    elif o["masks"] == "on":
        effects = [
            "fires and moves at half value",
            "cannot rest or recover from demoralization",
            "leaders: -1 to rally and command",
        ]
        state, masks = o["state"], "on"
    else:
        state = o["state"] if o["state"] in ("pinned", "demoralized") else "disrupted"
        if o["masks"] == "available":
            masks = "on"
            effects = [
                "disrupted; puts on its gas masks",
                "then fires and moves at half value",
                "cannot rest or recover from demoralization",
            ]
        else:
            masks = "none"
            effects = [
                "disrupted",
                "cannot fire, rest, or recover from disruption or demoralization while in gas",
                "leaders cannot rally or call support",
            ]
    return {
        "verdict": f"{o['unit']} in gas: {effects[0]}",
        "state": state,
        "masks": masks,
        "effects": effects,
        "lines": [f"{e} [{rule}]" for e in effects],
        "rule": rule,
    }


# --- reliability and rest ---------------------------------------------------------------------


def reliability(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    rule = "SB Effectiveness: Reliability"
    e = frac(o["effectiveness"])
    if o["dropped"] != "no":
        share = tables.param(
            "dropped-single-use" if o["dropped"] == "single-use" else "dropped-other"
        )
        after = apply_effectiveness(tables, e, 0) * share
        after = max(tables.param("effectiveness-floor"), after)
        return {
            "verdict": f"dropped: effectiveness {show(e)}% -> {show(after)}%",
            "effectiveness": num(after),
            "lines": [f"a dropped {o['dropped']} weapon keeps {show(share * 100)}% [{rule}]"],
            "rule": rule,
        }
    after, _, line = degrade(tables, o["reliability"], e, dice)
    return {
        "verdict": f"effectiveness {show(e)}% -> {show(after)}%",
        "effectiveness": num(after),
        "lines": [line],
        "rule": rule,
    }


def rest(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    """SB Rest: an idle, unfired-upon unit recovers on average the side's rest value (drawn
    from 0 to twice it); vehicles never recover."""
    rule = "SB Effectiveness: Rest"
    e = frac(o["effectiveness"])
    value = o["rest"] if o["rest"] is not None else int(tables.param("rest-value"))
    busy = [k.replace("_", " ") for k in ("moved", "fired", "assaulted", "fired_upon") if o[k]]
    why = None
    if o["vehicle"]:
        why = "vehicles cannot recover effectiveness"
    elif busy:
        why = f"not eligible: it {', '.join(busy)} this turn"
    elif o["gas"] != "none":
        why = "units in gas (masked or not) cannot rest"
    elif value <= 0:
        why = "the side's rest value is 0"
    if why:
        return {
            "verdict": f"no rest: {why}",
            "gain": 0,
            "effectiveness": num(e),
            "lines": [why],
            "rule": rule,
        }
    r = dice.roll(2 * value + 1, f"rest recovery 0 to {2 * value}")
    gain = r - 1
    after = min(Fraction(100), e + gain)
    return {
        "verdict": f"rests: effectiveness {show(e)}% -> {show(after)}%",
        "gain": gain,
        "effectiveness": num(after),
        "lines": [
            f"rest value {value}: d{2 * value + 1} {r} - 1 = +{gain} (also for its "
            "carried weapons); not over 100%"
        ],
        "rule": rule,
    }
