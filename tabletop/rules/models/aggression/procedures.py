"""The aggression model's procedures for ``tabletop model run aggression NAME --set K=V``.

Each wraps one function of ``rules.py`` so the referee can check a single step by hand (a
retreat test, a retreat direction on the hex map, a surrender, a minefield...). Options come
from ``--set`` already read as numbers and booleans where they look like them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tabletop.core import words
from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.core.words import possessive
from tabletop.rules.models import Procedure
from tabletop.rules.models.aggression import rules
from tabletop.rules.models.aggression.chart import UNIT_TYPES, AggressionChart

Options = Mapping[str, Any]


# --- reading options -------------------------------------------------------------------------


def _int(o: Options, key: str, default: int | None = None, lo: int = 0, hi: int = 10**9) -> int:
    value = o.get(key, default)
    if value is None:
        raise BadInput(f"give --set {key}=N")
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadInput(f"--set {key}={value!r}: a whole number from {lo} to {hi}")
    return value


def _number(o: Options, key: str, default: float | None = None) -> float:
    value = o.get(key, default)
    if value is None:
        raise BadInput(f"give --set {key}=N")
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise BadInput(f"--set {key}={value!r}: a number, 0 or more")
    return float(value)


def _bool(o: Options, key: str, default: bool = False) -> bool:
    value = o.get(key, default)
    if not isinstance(value, bool):
        raise BadInput(f"--set {key}={value!r}: write true or false")
    return value


def _text(o: Options, key: str, default: str | None = None, choices: tuple[str, ...] = ()) -> str:
    value = o.get(key, default)
    if value is None:
        accepted = f" ({', '.join(choices)})" if choices else ""
        raise BadInput(f"give --set {key}=VALUE{accepted}")
    text = str(value)
    if choices and text not in choices:
        raise BadInput(f"--set {key}={text!r}: accepted: {', '.join(choices)}")
    return text


def _list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    return [part.strip() for part in str(value).replace("/", ",").split(",") if part.strip()]


def _numbers(value: Any, key: str, lo: int, hi: int) -> list[int]:
    out = []
    for part in _list(value):
        if not part.isdigit() or not lo <= int(part) <= hi:
            raise BadInput(f"--set {key}={value!r}: numbers from {lo} to {hi}, like 1,2,3")
        out.append(int(part))
    return out


# --- the procedures -------------------------------------------------------------------------


def build(chart_of: Callable[[], AggressionChart]) -> dict[str, Procedure]:
    """The procedures, bound to the chart (read when one runs, not when they are listed)."""

    def bind(fn: Callable[[AggressionChart, Options, DiceLike], dict[str, Any]]) -> Any:
        return lambda options, dice: fn(chart_of(), options, dice)

    training = "recruit, regular, elite, security-police, presidential-guard"
    return {
        "factor": Procedure(
            "What an aggression factor means now and what it fixes (pursuit, starting a fight)",
            {
                "af": "the ordered factor, 1-10 (default 5)",
                "moving": "true if the unit moved this turn",
                "retreated": "true if it retreated from a battle",
                "resupplied": "false if its ammunition could not be resupplied",
            },
            bind(_factor),
            "AGG Aggression factors",
        ),
        "retreat-test": Procedure(
            "A unit's retreat test at the end of a combat round (percentile)",
            {
                "af": "aggression factor 1-10 (default 5)",
                "training": f"{training} (default regular)",
                "strength": "strength at the start of the round",
                "casualties": "casualties this round (default 0)",
                "retreated": "friendly units already retreated from this battle",
                "joined": "friendly units that joined the battle this turn",
            },
            bind(_retreat_test),
            "AGG Retreat chance",
        ),
        "retreat-direction": Procedure(
            "The hex direction a unit retreats in, and the casualties of going round",
            {
                "direction": "its retreat direction 1-6 (1 north, clockwise)",
                "blocked": "directions it may not take, like 1,2,3 (enemy came from there, "
                "enemy units, impassable terrain)",
            },
            bind(_direction),
            "AGG Retreat directions; AGG Retreat example",
        ),
        "surrender": Procedure(
            "Surrender of a unit that may retreat nowhere",
            {
                "training": f"{training} (default regular)",
                "af": "aggression factor (default 5)",
                "moving": "true if it moved this turn",
            },
            bind(_surrender),
            "AGG Surrender",
        ),
        "pursuit": Procedure(
            "Whether a unit pursues one that retreats from it",
            {
                "af": "aggression factor (default 5)",
                "moving": "true if it moved this turn",
                "choice": "the player's pursuit choice, true or false",
                "admin": "true if it moves administratively",
            },
            bind(_pursuit),
            "AGG Pursuit; AGG Aggression factors",
        ),
        "spoils": Procedure(
            "The victor's share of the discarded equipment",
            {
                "casualties": "casualties of both sides",
                "surplus": "surplus equipment units the losers carried (default 0)",
                "victors": "players left on the field (default 1)",
            },
            bind(_spoils),
            "AGG Captured equipment",
        ),
        "target": Procedure(
            "Which enemy a unit fires at: selected, by type, random, leaders last",
            {
                "firer": "the firer's profile id",
                "enemies": "enemy types or profile ids in order, like infantry,armour,leader",
                "selected": "the firer's priority types, like armour/mechanised",
                "harassment": "true for indirect harassment fire (random, leaders included)",
            },
            bind(_target),
            "AGG Target priority",
        ),
        "shot": Procedure(
            "One unit's shot in a combat round (the charted default fire procedure)",
            {
                "firer": "the firer's profile id",
                "target": "the target's profile id",
                "strength": "the firer's strength now (default: full)",
                "works": "the target's works: none, dug-in, entrenched, fortified",
                "fits": "false if it does not fit whole in its fortification",
                "admin_target": "true if the target moves administratively",
                "admin_firer": "true if the firer moves administratively",
            },
            bind(_shot),
            "AGG Combat (default)",
        ),
        "admin-fire": Procedure(
            "How many units of a column moving administratively may return fire",
            {"round": "the combat round, from 1", "units": "units in the column"},
            bind(_admin_fire),
            "AGG Admin movement",
        ),
        "ambush": Procedure(
            "An ambush: the ambusher's factor by enemy type and its free shot",
            {
                "af": "the ambusher's factor (default 5)",
                "by_type": "factor by enemy type, like armour:3/infantry:8",
                "enemy": f"the type of the enemy met ({', '.join(UNIT_TYPES)})",
                "stationary": "false if the ambusher moved (default true)",
                "admin": "true if the victims move administratively",
                "on_route": "true if the ambusher sits on their road, rail or river",
            },
            bind(_ambush),
            "AGG Ambush",
        ),
        "minefield": Procedure(
            "Whether a minefield attacks a unit entering it",
            {
                "mine": "AT or AP",
                "unit": "the unit's profile id",
                "friendly": "true if the field is its own side's or an ally's",
                "searching": "true if the unit is searching the area",
            },
            bind(_minefield),
            "AGG Mines",
        ),
        "mine-lay": Procedure(
            "Laying mines where another field may already be",
            {
                "owner": "the player laying",
                "mine": "AT or AP",
                "existing_owner": "the player whose field is there, if any",
                "existing": "kinds already there, like AT,AP",
            },
            bind(_mine_lay),
            "AGG Mines",
        ),
        "mine-clear": Procedure(
            "Clearing a minefield: search outside combat, engineers 30% a round in it",
            {
                "in_combat": "true if the unit is pinned in the field by the enemy",
                "searching": "true if it has a search order",
                "engineer": "none, regular or elite",
            },
            bind(_mine_clear),
            "AGG Mines",
        ),
        "mine-income": Procedure(
            "Income lost for good to the mines a player has laid",
            {"mines": "mine units ever laid", "income": "income per turn"},
            bind(_mine_income),
            "AGG Mines",
        ),
        "dig-in": Procedure(
            "One more digging order: dug in, entrenched, fortification and its size",
            {
                "works": "none, dug-in, entrenched or fortified (now)",
                "size": "the fortification's size now",
                "orders": "units repeating the order together (default 1)",
                "in_combat": "true if the unit is in a battle",
                "attacked": "true if it was attacked this turn",
                "enemy_present": "true if an enemy unit is in the area",
            },
            bind(_dig_in),
            "AGG Digging in; AGG Entrenched; AGG Fortifications",
        ),
        "fort": Procedure(
            "Whether a unit fits in a fortification",
            {"size": "the fortification's size", "men": "men", "vehicles": "vehicles and guns"},
            bind(_fort),
            "AGG Fortifications",
        ),
    }


def _factor(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    af = _int(o, "af", chart.params.default_af, 1, 10)
    moving = _bool(o, "moving")
    now = rules.effective_factor(
        chart,
        af,
        moving=moving,
        retreated=_bool(o, "retreated"),
        ammo_short=not _bool(o, "resupplied", True),
    )
    factor = chart.factor(now.af)
    pursuit = {"never": "never", "choice": "the player's choice"}.get(
        factor.pursuit, "always" if not moving else "the player's choice"
    )
    lines = [*now.lines, f"pursuit: {pursuit}"]
    if not factor.initiates:
        lines.append("never starts a fight: an enemy of AF 2 or more must contact it")
    if factor.always_retreats:
        lines.append("retreats at the end of every combat round it is checked")
    return {
        "verdict": f"AF {now.af} {'moving' if moving else 'stationary'}: {now.meaning}",
        "af": now.af,
        "meaning": now.meaning,
        "pursuit": pursuit,
        "initiates": factor.initiates,
        "always_retreats": factor.always_retreats,
        "lines": lines,
    }


def _retreat_test(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    test = rules.RetreatTest(
        af=_int(o, "af", chart.params.default_af, 1, 10),
        training=_text(o, "training", "regular"),
        start_strength=_int(o, "strength", None, 1),
        casualties=_int(o, "casualties", 0),
        retreated_friends=_int(o, "retreated", 0),
        joined_friends=_int(o, "joined", 0),
    )
    chance = rules.retreat_chance(chart, test)
    retreats, roll = rules.percent_test(dice, chance.chance, f"retreat test (<= {chance.chance})")
    return {
        "verdict": f"{'Retreats' if retreats else 'Stands'}: {chance.chance}% retreat chance, "
        f"{rules.roll_text(roll)}",
        # What the odds tell apart (the verdict shows the face, the odds roll by band).
        "result": "retreats" if retreats else "stands",
        "retreat_chance": chance.chance,
        "roll": roll,
        "retreated": retreats,
        "lines": chance.lines,
    }


def _direction(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    count = chart.params.directions
    first = _int(o, "direction", None, 1, count)
    blocked = set(_numbers(o.get("blocked"), "blocked", 1, count))

    def forbidden(offset: int) -> list[str]:
        return ["blocked"] if rules.hex_direction(first, offset, count) in blocked else []

    choice = rules.choose_direction(chart, forbidden)
    tried = [rules.hex_direction(first, t.offset, count) for t in choice.tried]
    if choice.offset is None:
        return {
            "verdict": "No direction allowed: the unit surrenders or fights on (AGG Surrender)",
            "direction": None,
            "steps": None,
            "casualties": 0,
            "tried": tried,
            "lines": [f"tried {', '.join(map(str, tried))}: all blocked"],
        }
    direction = rules.hex_direction(first, choice.offset, count)
    return {
        "verdict": f"Retreats in direction {direction} with "
        f"{words.count(choice.loss, 'extra casualty', 'extra casualties')}",
        "direction": direction,
        "steps": choice.steps,
        "casualties": choice.loss,
        "tried": tried,
        "lines": [
            f"tried {', '.join(map(str, tried))} ({chart.params.direction_search} from "
            f"{first}): first allowed {direction}",
            f"{words.count(choice.steps, 'step')} of difference x {chart.params.loss_per_step} = "
            f"{words.count(choice.loss, 'casualty', 'casualties')} (AGG Retreat example)",
        ],
    }


def _surrender(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    chance = rules.surrender_chance(
        chart,
        _text(o, "training", "regular"),
        _int(o, "af", chart.params.default_af, 1, 10),
        _bool(o, "moving"),
    )
    gives_up, roll = rules.percent_test(dice, chance.chance, f"surrender (<= {chance.chance})")
    return {
        "verdict": f"{'Surrenders' if gives_up else 'Fights on'}: {chance.chance}% surrender "
        f"chance, {rules.roll_text(roll)}",
        "result": "surrenders" if gives_up else "fights on",
        "surrender_chance": chance.chance,
        "roll": roll,
        "surrendered": gives_up,
        "lines": chance.lines,
    }


def _pursuit(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    choice = o.get("choice")
    if choice is not None and not isinstance(choice, bool):
        raise BadInput(f"--set choice={choice!r}: write true or false")
    yes, why = rules.pursues(
        chart,
        _int(o, "af", chart.params.default_af, 1, 10),
        moving=_bool(o, "moving"),
        choice=choice,
        admin=_bool(o, "admin"),
    )
    return {"verdict": f"{'Pursues' if yes else 'Does not pursue'}: {why}", "pursues": yes}


def _spoils(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    found = rules.spoils(
        chart, _int(o, "casualties"), _int(o, "surplus", 0), _int(o, "victors", 1, 1)
    )
    where = "into a dump" if found.dump else "to one of the victor's units"
    return {
        "verdict": f"{words.count(found.captured, 'unit')} of equipment captured, {where}",
        "discarded": float(found.discarded),
        "captured": found.captured,
        "dump": found.dump,
        "lines": found.lines,
    }


def _target(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    firer = chart.profile(_text(o, "firer"))
    kinds = _list(o.get("enemies"))
    if not kinds:
        raise BadInput("give --set enemies=TYPE,TYPE... (the enemy units present, in order)")
    enemies = []
    for i, kind in enumerate(kinds, start=1):
        kind = chart.profiles[kind].type if kind in chart.profiles else kind
        if kind not in UNIT_TYPES:
            raise BadInput(
                f"--set enemies: {kind!r} is not a unit type ({', '.join(UNIT_TYPES)}) "
                "or a profile id"
            )
        enemies.append(rules.Enemy(f"{i}:{kind}", kind, kind == "leader"))
    engages_as = "anti-tank" if firer.anti_tank else firer.type
    choice = rules.choose_target(
        chart,
        engages_as,
        enemies,
        {},
        _list(o.get("selected")),
        dice,
        firer.id,
        harassment=_bool(o, "harassment"),
    )
    assert choice.target is not None
    number = enemies.index(choice.target) + 1
    return {
        "verdict": f"Fires at enemy {number} ({choice.target.type}): {choice.stage} target",
        "target": number,
        "type": choice.target.type,
        "stage": choice.stage,
        "roll": choice.roll,
    }


def _shot(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    firer = chart.profile(_text(o, "firer"))
    target = chart.profile(_text(o, "target"))
    works = _text(o, "works", "none", ("none", "dug-in", "entrenched", "fortified"))
    situation = rules.ShotSituation(
        strength=_int(o, "strength", firer.strength, 0, firer.strength),
        works=None if works == "none" else works,
        fits=_bool(o, "fits", True),
        admin_target=_bool(o, "admin_target"),
        admin_firer=_bool(o, "admin_firer"),
    )
    shot = rules.fire_shot(chart, firer, target, situation, dice, f"{firer.id} at {target.id}")
    return {
        "verdict": f"{'Hit' if shot.hit else 'Miss'}: {shot.damage} damage",
        "chance": shot.chance,
        "roll": shot.roll,
        "hit": shot.hit,
        "damage": shot.damage,
        "killed_leader": target.type == "leader" and rules.leader_killed(chart, shot.damage),
        "lines": shot.lines,
    }


def _admin_fire(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    count = _int(o, "units", None, 1)
    allowed = rules.admin_firers_allowed(chart, _int(o, "round", 1, 1), count)
    return {"verdict": f"{allowed} of {count} may return fire", "may_fire": allowed}


def _ambush(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    found = rules.ambush(
        chart,
        stationary=_bool(o, "stationary", True),
        enemy_type=_text(o, "enemy", "infantry", UNIT_TYPES),
        af_by_type=rules.parse_af_by_type(str(o.get("by_type") or "")),
        default_af=_int(o, "af", chart.params.default_af, 1, 10),
        admin_victim=_bool(o, "admin"),
        on_route=_bool(o, "on_route"),
    )
    return {
        "verdict": f"Ambush on AF {found.af} with {found.free_shots} free shot",
        "af": found.af,
        "free_shots": found.free_shots,
        "lines": found.lines,
    }


def _minefield(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    unit = chart.profile(_text(o, "unit"))
    mine = chart.mine(_text(o, "mine", None, ("AT", "AP", "at", "ap")))
    attacked, why = rules.mine_attacks(
        chart,
        mine.id,
        unit.type,
        unit.armoured,
        friendly=_bool(o, "friendly"),
        searching=_bool(o, "searching"),
    )
    return {
        "verdict": f"{'Attacked' if attacked else 'Not attacked'}: {why}",
        "attacked": attacked,
        "damage": mine.damage if attacked else 0,
    }


def _mine_lay(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    existing = [k.upper() for k in _list(o.get("existing"))]
    mine = _text(o, "mine", None, ("AT", "AP", "at", "ap"))
    owner_before = o.get("existing_owner")
    laid = rules.lay_mines(
        str(owner_before) if owner_before is not None else None,
        existing,
        _text(o, "owner"),
        mine,
    )
    loss = chart.params.mine_income_loss
    return {
        "verdict": f"{laid.result.capitalize()}: {possessive(laid.owner)} field holds "
        + ", ".join(laid.types),
        "result": laid.result,
        "owner": laid.owner,
        "types": laid.types,
        "lines": [
            *laid.lines,
            f"{possessive(laid.owner)} income falls by {loss:g}% for good (AGG Mines)",
        ],
    }


def _mine_clear(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    cleared, roll, why = rules.clear_mines(
        chart,
        in_combat=_bool(o, "in_combat"),
        searching=_bool(o, "searching"),
        engineer=_text(o, "engineer", "none", ("none", "regular", "elite")),
        dice=dice,
    )
    return {
        "verdict": f"{'Cleared' if cleared else 'Not cleared'}: {why}",
        "result": "cleared" if cleared else "not cleared",
        "cleared": cleared,
        "roll": roll,
    }


def _mine_income(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    income = _number(o, "income")
    loss = rules.mine_income_loss(chart, _int(o, "mines"), income)
    return {
        "verdict": f"Income {income:g} falls by {loss:g} to {income - loss:g}",
        "loss": loss,
        "income": income - loss,
    }


def _dig_in(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    works = _text(o, "works", "none", ("none", "dug-in", "entrenched", "fortified"))
    dug = rules.dig_in(
        chart,
        works,
        _int(o, "size", 0),
        orders=_int(o, "orders", 1, 1),
        in_combat=_bool(o, "in_combat"),
        attacked=_bool(o, "attacked"),
        enemy_present=_bool(o, "enemy_present"),
    )
    shown = f"fortified, size {dug.size}" if dug.works == "fortified" else dug.works
    verdict = "Order fails: still dug in" if dug.result == "failed" else f"Now {shown}"
    return {
        "verdict": f"{verdict} (at the end of the turn)",
        "works": dug.works,
        "size": dug.size,
        "result": dug.result,
        "lines": dug.lines,
    }


def _fort(chart: AggressionChart, o: Options, dice: DiceLike) -> dict[str, Any]:
    room = rules.fort_room(chart, _int(o, "size"), _int(o, "men", 0), _int(o, "vehicles", 0))
    return {
        "verdict": f"{'Fits' if room.fits else 'Does not fit'}: needs room for {room.needed}, "
        f"holds {room.capacity}",
        "capacity": room.capacity,
        "needed": room.needed,
        "fits": room.fits,
    }
