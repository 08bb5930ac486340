"""The squad-battles procedures besides fire, for ``tabletop model run squad-battles NAME``.

Each is a list of typed options and a function of (tables, options, dice) returning a dict
with a ``verdict``, its own keys, the working (``lines``) and the ``rule``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.core.frozen import frozen_dataclass
from tabletop.rules.models import Procedure
from tabletop.rules.models.squad_battles import assault as assault_mod
from tabletop.rules.models.squad_battles import command, effects, scoring
from tabletop.rules.models.squad_battles.opts import Opt, describe, parse
from tabletop.rules.models.squad_battles.results import (
    STATES,
    apply_effectiveness,
    combat_result,
    distribution,
    effectiveness_combat_value,
    loss_modifier,
    morale_value,
    num,
    pin_check,
    show,
)
from tabletop.rules.models.squad_battles.tables import Tables

Run = Callable[[Tables, dict[str, Any], DiceLike], dict[str, Any]]
GAS = ("none", "masked", "unmasked")


@frozen_dataclass
class Spec:
    description: str
    rule: str
    opts: Callable[[Tables], Sequence[Opt]]
    run: Run
    required: tuple[str, ...] = ()


def _letters(tables: Tables, *, units: bool = False) -> tuple[str, ...]:
    return tuple(k for k, q in tables.by_table["quality"].items() if not (units and q.leaders_only))


def _need(o: dict[str, Any], keys: Sequence[str]) -> None:
    missing = [k for k in keys if o.get(k) is None]
    if missing:
        raise BadInput(f"give --set {missing[0]}=VALUE (this procedure needs it)")


# --- combat results and effectiveness ----------------------------------------------------------


def _results_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("combat_value", "the adjusted combat value", "number", min=0),
        Opt("lcv", "low combat value", "number", tables.param("fire-lcv"), min=0),
        Opt("hcv", "high combat value", "number", tables.param("fire-hcv"), min=0),
        Opt("averaged", "optional rule: the mean of two values", "bool", False),
        Opt(
            "quality",
            "the target's quality (for the quality loss modifier)",
            "choice",
            "C",
            _letters(tables),
        ),
        Opt("quality_loss", "optional rule: quality loss modifier (infantry)", "bool", False),
    ]


def _combat_results(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    base = tables.param("baseline-combat-value")
    mod = loss_modifier(tables, o["quality"], True, o["quality_loss"])
    r = combat_result(
        o["combat_value"],
        o["lcv"],
        o["hcv"],
        base,
        dice,
        "casualties",
        averaged=o["averaged"],
        modifier=mod,
    )
    odds = distribution(
        o["combat_value"], o["lcv"], o["hcv"], base, averaged=o["averaged"], modifier=mod
    )
    return {
        "verdict": f"{r.result} {'casualty' if r.result == 1 else 'casualties'}",
        "combat_value": num(o["combat_value"]),
        "low": num(r.low, 4),
        "high": num(r.high, 4),
        "value": num(r.value, 4),
        "casualties": r.result,
        "chances": {str(k): num(p, 6) for k, p in odds.items()},
        "lines": r.lines,
        "rule": "SB Combat Results",
    }


def _effectiveness_opts(tables: Tables) -> list[Opt]:
    return [
        *_results_opts(tables),
        Opt("vehicle", "the unit is a vehicle (x10)", "bool", False),
        Opt("assault", "losses from an assault (doubled)", "bool", False),
        Opt("effectiveness", "effectiveness before, %", "number", 100, min=0, max=100),
    ]


def _effectiveness(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    base = tables.param("baseline-combat-value")
    cv = effectiveness_combat_value(tables, o["combat_value"], vehicle=o["vehicle"])
    if o["assault"]:
        cv *= tables.param("assault-effectiveness")
    mod = loss_modifier(tables, o["quality"], not o["vehicle"], o["quality_loss"])
    r = combat_result(
        cv,
        o["lcv"],
        o["hcv"],
        base,
        dice,
        "effectiveness loss",
        averaged=o["averaged"],
        modifier=mod,
    )
    before = o["effectiveness"]
    after = apply_effectiveness(tables, before, r.result)
    scale = (
        "x5"
        + (" x10 (vehicle)" if o["vehicle"] else "")
        + (" x2 (assault)" if o["assault"] else "")
    )
    return {
        "verdict": f"effectiveness loss {r.result}: {show(before)}% -> {show(after)}%",
        "combat_value": num(cv),
        "low": num(r.low, 4),
        "high": num(r.high, 4),
        "loss": r.result,
        "effectiveness": num(after),
        "lines": [
            f"combat value {show(o['combat_value'])} {scale} = {show(cv)}",
            *r.lines,
            "not below 25% [SB Effectiveness: Effectiveness Values]",
        ],
        "rule": "SB Combat Results: Effectiveness Losses",
    }


def _morale_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("quality", "the unit's quality", "choice", "C", _letters(tables)),
        Opt("effectiveness", "effectiveness, %", "number", 100, min=0, max=100),
        Opt("state", "the unit's state", "choice", "normal", STATES),
        Opt("inspired", "within reach of an inspirational weapon (+1)", "bool", False),
    ]


def _morale(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    value, why = morale_value(tables, o["quality"], o["effectiveness"], o["state"], o["inspired"])
    return {
        "verdict": f"morale {value}",
        "morale": value,
        "lines": ["; ".join(why)],
        "rule": "SB Effectiveness: Morale",
    }


def _pin_opts(tables: Tables) -> list[Opt]:
    return [
        *_morale_opts(tables),
        Opt("men_lost", "men the team lost to the fire", "int", 0, min=0, max=1000),
        Opt("effectiveness_lost", "effectiveness it lost", "int", 1, min=0, max=100),
        Opt("ground", "already in ground mode", "bool", False),
        Opt("always", "sniper or demolition hit: checks whenever it has an effect", "bool", False),
    ]


def _pin(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    check = pin_check(
        tables,
        dice,
        state=o["state"],
        quality=o["quality"],
        effectiveness=o["effectiveness"],
        men_lost=o["men_lost"],
        effectiveness_lost=o["effectiveness_lost"],
        ground=o["ground"],
        inspired=o["inspired"],
        always=o["always"],
    )
    return {
        "verdict": f"{check.state}" + (", on the ground" if check.ground else ""),
        "state": check.state,
        "ground": check.ground,
        "checked": check.ran,
        "lines": check.lines,
        "rule": "SB Combat Results: Pinned, Disrupted, and Demoralized",
    }


# --- reliability and rest ------------------------------------------------------------------------


def _reliability_opts(tables: Tables) -> list[Opt]:
    return [
        Opt(
            "reliability",
            "the weapon's reliability",
            "choice",
            "B",
            tuple(tables.keys("reliability")),
        ),
        Opt("effectiveness", "the weapon's effectiveness, %", "number", 100, min=0, max=100),
        Opt(
            "dropped",
            "dropped in combat instead of fired",
            "choice",
            "no",
            ("no", "single-use", "other"),
        ),
    ]


def _rest_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("rest", "the side's rest value", "int", None, min=0, max=100),
        Opt("effectiveness", "effectiveness, %", "number", 100, min=0, max=100),
        Opt("vehicle", "the unit is a vehicle", "bool", False),
        Opt("moved", "it moved this turn", "bool", False),
        Opt("fired", "it fired this turn", "bool", False),
        Opt("assaulted", "it assaulted this turn", "bool", False),
        Opt("fired_upon", "it was fired upon this turn", "bool", False),
        Opt("gas", "gas in its hex, and its masks", "choice", "none", GAS),
    ]


# --- command ---------------------------------------------------------------------------------


def _levels(tables: Tables) -> tuple[str, ...]:
    return tuple(tables.keys("command"))


def _radius_opts(tables: Tables) -> list[Opt]:
    return [Opt("level", "what the leader commands", "choice", "platoon", _levels(tables))]


def _radius(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = command.radius(tables, o["level"])
    inches = r * tables.scale.inches_per_hex
    return {
        "verdict": f'command radius {r} hexes ({inches:.1f}")',
        "radius": r,
        "radius_inches": round(inches, 2),
        "lines": [f'{o["level"]} leader: {r} hexes x {tables.scale.inches_per_hex:g}"'],
        "rule": "SB Command: Command Radius",
    }


def _test_opts(tables: Tables) -> list[Opt]:
    return [
        Opt(
            "quality",
            "the leader's quality (A+ heroic, X political)",
            "choice",
            None,
            _letters(tables),
        ),
        Opt("gas_mask", "the leader wears a gas mask (-1)", "bool", False),
        Opt("superior", "his superior's quality", "choice", "none", ("none", *_letters(tables))),
        Opt("superior_level", "what the superior commands", "choice", "company", _levels(tables)),
        Opt("superior_radius", "the superior's command radius, hexes", "int", min=0, max=1000),
        Opt("distance", "hexes from the leader to his superior", "int", 0, min=0, max=10_000),
        Opt("superior_passed", "the superior's test, if already known", "bool"),
    ]


def _recovery_opts(tables: Tables) -> list[Opt]:
    return [
        Opt(
            "quality",
            "the unit's leader's quality (none: no leader on the map)",
            "choice",
            "none",
            ("none", *_letters(tables)),
        ),
        Opt("leader_passed", "whether the leader passed his command test (else rolled)", "bool"),
        Opt("distance", "hexes from the unit to its leader", "int", 0, min=0, max=10_000),
        Opt("gas_mask", "the leader wears a gas mask (-1 to his command test)", "bool", False),
        Opt("gas", "gas in the unit's hex, and its masks", "choice", "none", GAS),
    ]


def _pinned_opts(tables: Tables) -> list[Opt]:
    return [Opt("fired_upon", "fired upon during the last turn", "bool", False)]


def _demoralized_opts(tables: Tables) -> list[Opt]:
    return [
        *_pinned_opts(tables),
        Opt("gas", "gas in its hex, and its masks", "choice", "none", GAS),
    ]


def _rally_opts(tables: Tables) -> list[Opt]:
    return [
        Opt(
            "quality",
            "the leader's quality (A+ heroic, X political)",
            "choice",
            None,
            _letters(tables),
        ),
        Opt("state", "the unit's state", "choice", "pinned", ("pinned", "demoralized")),
        Opt("under_command", "the unit is in his chain of command", "bool", True),
        Opt("motivator", "the leader carries a motivator (+1)", "bool", False),
        Opt("gas_mask", "the leader wears a gas mask (-1)", "bool", False),
        Opt("gas", "gas in the leader's hex, and his mask", "choice", "none", GAS),
    ]


# --- movement: mines and obstacles -------------------------------------------------------------


def _mine_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("type", "the mine", "choice", "ap", tuple(tables.keys("mine"))),
        Opt("unit", "what trips it", "choice", None, ("team", "leader", "vehicle")),
        Opt("profile", "or a profile id for the unit", "text"),
        Opt("stacking", "stacking value of the movers, in men", "int", min=0, max=10_000),
        Opt("armour", "the vehicle's armour", "number", min=0, max=10_000),
        Opt("ground", "infantry in ground mode", "bool", False),
        Opt("water", "the hex is water", "bool", False),
        Opt("detector", "the unit carries a mine detector", "bool", False),
    ]


def _obstacle_opts(tables: Tables) -> list[Opt]:
    return [
        Opt(
            "feature",
            "what the hex holds",
            "choice",
            "obstacles",
            ("obstacles", "barriers", "craters"),
        ),
        Opt(
            "unit",
            "what enters",
            "choice",
            "team",
            ("team", "leader", "vehicle", "horse", "flying", "train"),
        ),
    ]


def _clear_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("weapon", "the tool used", "choice", "demolition", tuple(effects.CLEARS)),
        Opt(
            "target",
            "what it is used on",
            "choice",
            "obstacle",
            ("barrier", "mine", "obstacle", *tables.keys("demolition")),
        ),
        Opt(
            "reliability",
            "the tool's reliability",
            "choice",
            "C",
            tuple(tables.keys("reliability")),
        ),
        Opt("effectiveness", "the tool's effectiveness, %", "number", 100, min=0, max=100),
    ]


# --- loads -------------------------------------------------------------------------------------


def _explosion_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("radius", "the load's explosion radius, hexes", "int", 0, min=0, max=50),
        Opt("length", "the load's explosion length, hexes", "int", 0, min=0, max=50),
        Opt("offset", "hexes from the aim point", "int", 0, min=0, max=100),
        Opt("along", "the hex lies along the strike direction", "bool", False),
    ]


def _load_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("load", "the special load", "choice", "smoke", tuple(effects.LOAD_RULES)),
        Opt("radius", "illumination radius, hexes", "int", 3, min=0, max=50),
        Opt("used", "how many the side has fired so far", "int", 0, min=0, max=10_000),
        Opt("limit", "the side's scenario limit for this load", "int", min=0, max=10_000),
        Opt("single_use", "fired from a single-use smoke weapon", "bool", False),
    ]


def _gas_opts(tables: Tables) -> list[Opt]:
    return [
        Opt(
            "action",
            "spread and clear each turn; exposure when first fired",
            "choice",
            "exposure",
            ("spread", "clear", "exposure"),
        ),
        Opt("adjacent", "adjacent hexes no higher than the gas hex", "int", 6, min=0, max=6),
        Opt("unit", "the unit exposed", "choice", "infantry", ("infantry", "vehicle")),
        Opt("masks", "its gas masks", "choice", "none", ("none", "available", "on")),
        Opt("state", "its state", "choice", "normal", STATES),
    ]


# --- objectives and scoring --------------------------------------------------------------------


def _objective_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("kind", "the objective's type", "choice", "normal", tuple(tables.keys("objective"))),
        Opt(
            "value",
            "its points (exit: accumulated by exits)",
            "number",
            0,
            min=-100_000,
            max=100_000,
        ),
        Opt(
            "owner",
            "the side owning it (at the start for capture)",
            "choice",
            "first",
            ("first", "second"),
        ),
        Opt(
            "occupied_by",
            "the side occupying it now (normal: the last to occupy it)",
            "choice",
            "none",
            ("none", "first", "second"),
        ),
        Opt("captured", "a capture objective the other side has taken", "bool", False),
        Opt(
            "enemy_fires",
            "affecting fires from the owner's enemy (collateral)",
            "int",
            0,
            min=0,
            max=10_000,
        ),
        Opt("unknown", "an unknown (hidden) objective", "bool", False),
    ]


def _score_opts(tables: Tables) -> list[Opt]:
    opts = [
        Opt(
            "objective_points",
            "objective points for the first side (asymmetric: held each turn)",
            "numbers",
        ),
        Opt("first_losses", "first side loss points (asymmetric: per turn)", "numbers"),
        Opt("second_losses", "second side loss points (asymmetric: per turn)", "numbers"),
        Opt(
            "asymmetric",
            "the weaker (asymmetric) side",
            "choice",
            "none",
            ("none", "first", "second"),
        ),
        Opt("turns", "turns in the scenario (asymmetric)", "int", min=1, max=10_000),
    ]
    for side in ("first", "second"):
        for what in ("men", "leaders", "vehicles"):
            opts.append(
                Opt(
                    f"{side}_{what}",
                    f"{what} the {side} side lost (charted points)",
                    "int",
                    0,
                    min=0,
                    max=100_000,
                )
            )
    for k in ("major-defeat", "minor-defeat", "minor-victory", "major-victory"):
        opts.append(
            Opt(
                k.replace("-", "_"),
                f"victory level: {k.replace('-', ' ')}",
                "number",
                min=-1e9,
                max=1e9,
            )
        )
    return opts


# --- assault -----------------------------------------------------------------------------------


def _assault_value_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("unit", "the unit", "choice", None, ("team", "leader", "weapon", "vehicle", "horse")),
        Opt("profile", "or a profile id", "text"),
        Opt("strength", "men (team) or weapons", "int", min=0, max=10_000),
        Opt("weapon_assault", "a weapon's assault value", "number", 0, min=0, max=100_000),
        Opt("armour", "the vehicle's armour", "number", min=0, max=10_000),
        Opt("passengers", "passengers on horses", "int", 0, min=0, max=1000),
        Opt("disrupted", "the unit is disrupted", "bool", False),
        Opt("role", "attacker or defender", "choice", "attacker", ("attacker", "defender")),
        Opt(
            "slope",
            "attacking uphill or downhill",
            "choice",
            "level",
            ("level", "uphill", "downhill"),
        ),
        Opt("state", "a defender's state", "choice", "normal", ("normal", "pinned", "demoralized")),
        Opt("immobile", "an immobile vehicle (only its weapons count)", "bool", False),
    ]


def _assault_opts(tables: Tables) -> list[Opt]:
    return [
        Opt("attack", "the attackers' total assault value", "number", min=0),
        Opt("defend", "the defenders' total assault value", "number", min=0),
        Opt("attacker_morale", "highest morale of the attacking units", "int", 4, min=0, max=10),
        Opt("defender_morale", "highest morale of the defending units", "int", 4, min=0, max=10),
        Opt("attacker_leader", "morale of an attacking leader", "int", min=0, max=10),
        Opt("defender_leader", "morale of a defending leader", "int", min=0, max=10),
        Opt("hard_vehicle", "the defenders have a hard vehicle", "bool", False),
        Opt(
            "attacker_min_morale",
            "lowest morale of the attackers (hard vehicle check)",
            "int",
            min=0,
            max=10,
        ),
        Opt("defender_vehicle", "the defenders have a non-wrecked vehicle", "bool", False),
        Opt("clear", "the defenders are in a clear hex", "bool", False),
        Opt(
            "attacker_armour",
            "highest armour among attacking vehicles",
            "number",
            0,
            min=0,
            max=10_000,
        ),
        Opt("can_retreat", "the defenders have somewhere to retreat", "bool", True),
        Opt("japanese", "Japanese defenders (never surrender)", "bool", False),
        Opt("averaged", "optional rule: averaged assault results", "bool", False),
        Opt(
            "attacker_units",
            "the attacking units, to share losses by strength (a team's men, a vehicle's "
            "armour): team:10,leader,vehicle:30; on the table, the attacking stands",
            "units",
        ),
        Opt(
            "defender_units",
            "the defending units, as attacker_units: team:10,vehicle:4",
            "units",
        ),
    ]


def _assault(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    if o["attacker_min_morale"] is None:
        o = {**o, "attacker_min_morale": o["attacker_morale"]}
    return assault_mod.assault(tables, o, dice)


def _no_dice(fn: Callable[[Tables, dict[str, Any]], dict[str, Any]]) -> Run:
    return lambda tables, o, dice: fn(tables, o)


SPECS: dict[str, Spec] = {
    "combat-results": Spec(
        "casualties from a combat value between its low and high",
        "SB Combat Results",
        _results_opts,
        _combat_results,
        ("combat_value",),
    ),
    "effectiveness": Spec(
        "effectiveness loss (x5; vehicles x10; assault x2)",
        "SB Combat Results: Effectiveness Losses",
        _effectiveness_opts,
        _effectiveness,
        ("combat_value",),
    ),
    "morale": Spec("a unit's morale value", "SB Effectiveness: Morale", _morale_opts, _morale),
    "morale-check": Spec(
        "the pinned, disrupted and demoralized procedure after a hit",
        "SB Combat Results: Pinned, Disrupted, and Demoralized",
        _pin_opts,
        _pin,
    ),
    "reliability": Spec(
        "a weapon's effectiveness after firing (or being dropped)",
        "SB Effectiveness: Reliability",
        _reliability_opts,
        lambda t, o, d: effects.reliability(t, o, d),
    ),
    "rest": Spec(
        "effectiveness recovered by resting",
        "SB Effectiveness: Rest",
        _rest_opts,
        lambda t, o, d: effects.rest(t, o, d),
    ),
    "command-radius": Spec(
        "a leader's command radius by level", "SB Command: Command Radius", _radius_opts, _radius
    ),
    "command-test": Spec(
        "a leader's command test, with his superior's +1",
        "SB Command: Command Test",
        _test_opts,
        lambda t, o, d: command.command_test(t, o, d),
        ("quality",),
    ),
    "recovery": Spec(
        "a disrupted unit's recovery test",
        "SB Command: Recovery Test",
        _recovery_opts,
        lambda t, o, d: command.recovery(t, o, d),
    ),
    "pinned-recovery": Spec(
        "automatic recovery from pinned",
        "SB Command: Pinned Recovery",
        _pinned_opts,
        _no_dice(lambda t, o: command.pinned_recovery(o)),
    ),
    "demoralized-recovery": Spec(
        "automatic recovery from demoralized",
        "SB Command: Demoralized Recovery",
        _demoralized_opts,
        lambda t, o, d: command.demoralized_recovery(t, o, d),
    ),
    "rally": Spec(
        "a leader rallies a pinned or demoralized unit in his hex",
        "SB Command: Rally",
        _rally_opts,
        lambda t, o, d: command.rally(t, o, d),
        ("quality",),
    ),
    "mine": Spec(
        "a unit entering a mined hex: trip chance 2S/M and the effect",
        "SB Movement: Normal Mines",
        _mine_opts,
        lambda t, o, d: effects.mine(t, o, d),
    ),
    "obstacle": Spec(
        "entering obstacles, barriers or craters",
        "SB Movement: Obstacles",
        _obstacle_opts,
        _no_dice(effects.obstacle),
    ),
    "clear": Spec(
        "clearing barriers, mines and obstacles; demolishing bridges",
        "SB Weapon Types: Demolition and Clearing Weapons",
        _clear_opts,
        lambda t, o, d: effects.clear(t, o, d),
    ),
    "explosion": Spec(
        "effect at a distance from the aim point (radius and length)",
        "SB Firing: Explosion Radius and Length",
        _explosion_opts,
        _no_dice(effects.explosion),
    ),
    "load": Spec(
        "smoke, illumination, mine and chemical loads: what they leave, and limits",
        "SB Firing: Smoke",
        _load_opts,
        _no_dice(effects.load),
    ),
    "gas": Spec(
        "gas clouds: exposure, spreading and clearing",
        "SB Firing: Chemical Loads",
        _gas_opts,
        lambda t, o, d: effects.gas(t, o, d),
    ),
    "objective": Spec(
        "an objective's points for the first side",
        "SB Basics: Objectives",
        _objective_opts,
        _no_dice(scoring.objective),
    ),
    "score": Spec(
        "victory points and outcome, conventional or asymmetric",
        "SB Basics: Scoring",
        _score_opts,
        _no_dice(scoring.score),
    ),
    "assault-value": Spec(
        "a unit's assault value",
        "SB Assaulting: Assault Values",
        _assault_value_opts,
        _no_dice(assault_mod.assault_value),
    ),
    "assault": Spec(
        "an assault: losses both ways, retreat, surrender",
        "SB Assaulting: Assault Resolution",
        _assault_opts,
        _assault,
        ("attack", "defend"),
    ),
}


def build(tables: Tables) -> dict[str, Procedure]:
    out: dict[str, Procedure] = {}
    for name, spec in SPECS.items():
        opts = list(spec.opts(tables))

        def run(
            given: Mapping[str, Any], dice: DiceLike, spec: Spec = spec, opts: list[Opt] = opts
        ) -> dict[str, Any]:
            o = parse(opts, given)
            _need(o, spec.required)
            return spec.run(tables, o, dice)

        out[name] = Procedure(spec.description, describe(opts), run, spec.rule)
    return out
