"""The aggression model's procedures on plain values (seed 003, cited "AGG <topic>").

Each function takes numbers and the chart, rolls only through the dice it is handed, and
returns its result with the working. The battle (``battle.py``) and the ``model run``
procedures (``procedures.py``) are both built on these, so what a referee checks by hand is
what the assault uses.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike, roll_in_bands
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import frozen_dataclass, mutable_dataclass
from tabletop.core.words import count, possessive
from tabletop.rules.models.aggression.chart import AggressionChart, Profile


def percent_test(dice: DiceLike, chance: int, purpose: str) -> tuple[bool, int | None]:
    """A percentile test passed at or under ``chance``; no die when the answer is certain."""
    if chance <= 0:
        return False, None
    if chance >= 100:
        return True, None
    # Only the band matters (passed or not): the odds try one face of each.
    roll = roll_in_bands(dice, 100, purpose, (chance,))
    return roll <= chance, roll


def roll_text(roll: int | None) -> str:
    return "certain, no roll" if roll is None else f"rolled {roll}"


def round_half_up(value: Fraction) -> int:
    return math.floor(value + Fraction(1, 2))


@functools.cache
def fraction(value: float) -> Fraction:
    # Chart numbers such as 0.5 or 1.5 are read exactly as written (each once: a battle's
    # odds ask for the same few thousands of times).
    return Fraction(str(value))


# --- aggression factors ----------------------------------------------------------------------


def check_factor(af: Any) -> int:
    if isinstance(af, bool) or not isinstance(af, int) or not 1 <= af <= 10:
        raise BadInput(f"aggression factor {af!r}: give a whole number from 1 to 10")
    return af


@mutable_dataclass
class FactorNow:
    af: int
    meaning: str
    lines: list[str]


def effective_factor(
    chart: AggressionChart,
    af: int,
    *,
    moving: bool,
    retreated: bool = False,
    ammo_short: bool = False,
) -> FactorNow:
    """The factor a unit fights on now, and what it means for a moving or stationary unit."""
    check_factor(af)
    lines = [f"ordered AF {af}"]
    if retreated:
        af = chart.params.af_after_retreat
        lines.append(f"retreated: AF {af} (AGG Aggression factors)")
    if ammo_short:
        af = chart.params.af_without_ammo
        lines.append(f"ammunition not resupplied: AF {af} (AGG Aggression factors)")
    factor = chart.factor(af)
    meaning = factor.moving if moving else factor.stationary
    lines.append(f"AF {af} {'moving' if moving else 'stationary'}: {meaning} ({factor.rule})")
    return FactorNow(af, meaning, lines)


# --- retreat tests -----------------------------------------------------------------------------


@frozen_dataclass
class RetreatTest:
    af: int
    training: str
    start_strength: int
    casualties: int = 0
    retreated_friends: int = 0
    joined_friends: int = 0


@mutable_dataclass
class Chance:
    chance: int
    lines: list[str] = field(default_factory=list)


def retreat_chance(chart: AggressionChart, test: RetreatTest) -> Chance:
    """AGG Retreat chance: 110 - 10 x AF, training, casualties this round, friends."""
    factor = chart.factor(check_factor(test.af))
    if factor.always_retreats:
        return Chance(100, [f"AF {test.af}: always retreats when checked ({factor.rule})"])
    if test.start_strength <= 0:
        raise BadInput(f"strength {test.start_strength!r}: a unit tested has 1 or more")
    if test.casualties < 0:
        raise BadInput(f"casualties {test.casualties!r}: give 0 or more")
    base = chart.params.retreat_base - chart.params.retreat_per_af * test.af
    lines = [
        f"base {chart.params.retreat_base} - {chart.params.retreat_per_af} x AF {test.af}"
        f" = {base}% (AGG Retreat chance)"
    ]
    training = chart.training(test.training)
    total = base + training.retreat
    lines.append(f"{training.retreat:+d}% {training.id} training")
    per = fraction(chart.params.casualty_percent_per_point)
    # Whole points of (100 x casualties / strength) / per, in whole numbers.
    points = (100 * test.casualties * per.denominator) // (test.start_strength * per.numerator)
    share = 100 * test.casualties / test.start_strength
    total += points
    lines.append(
        f"+{points}% casualties: {test.casualties} of {test.start_strength} at the start of "
        f"the round = {share:.4g}%, 1% per full {float(per):g}%"
    )
    for step, friends, what in (
        (chart.params.per_friend_retreated, test.retreated_friends, "already retreated"),
        (chart.params.per_friend_joined, test.joined_friends, "joined the battle"),
    ):
        if friends:
            total += step * friends
            lines.append(
                f"{step * friends:+d}% {count(friends, 'friendly unit')} {what} ({step:+d}% each)"
            )
    clamped = max(0, min(100, total))
    if clamped != total:
        lines.append(f"{total}% is held to {clamped}%")
    return Chance(clamped, lines)


def check_order(damage: Mapping[str, Mapping[str, int]]) -> list[tuple[str, list[str]]]:
    """AGG Retreat chance: sides by damage received (most first), and within each side its
    units by damage received this round (most first); ties keep the order given."""
    # Python's sort is stable, most first (``reverse``) too: equal damage keeps the order
    # given.
    totals = {side: sum(units.values()) for side, units in damage.items()}
    return [
        (side, sorted(units, key=units.__getitem__, reverse=True) if len(units) > 1 else [*units])
        for side in sorted(totals, key=totals.__getitem__, reverse=True)
        for units in (damage[side],)
    ]


# --- retreat directions ----------------------------------------------------------------------


def search_order(count: int, mode: str) -> list[tuple[int, int]]:
    """Directions to try as (offset from the set direction, steps of difference).

    ``clockwise`` (AGG Retreat example): 0, 1, 2, ... steps round, each counting its offset.
    ``nearest``: 0, +1, -1, +2, -2, ... (clockwise first on a tie).
    """
    if count < 1:
        raise BadInput(f"directions {count!r}: give 1 or more")
    if mode == "clockwise":
        return [(k, k) for k in range(count)]
    if mode == "nearest":
        out = [(0, 0)]
        for k in range(1, count // 2 + 1):
            out.append((k, k))
            if (-k) % count != k % count:
                out.append((-k, k))
        return out
    raise BadInput(f"direction search {mode!r}: accepted: clockwise, nearest")


@functools.cache
def _search_order(count: int, mode: str) -> tuple[tuple[int, int], ...]:
    """``search_order`` worked out once for each chart (a battle asks it at every retreat)."""
    return tuple(search_order(count, mode))


@mutable_dataclass
class Tried:
    offset: int
    steps: int
    reasons: list[str]


@mutable_dataclass
class DirectionChoice:
    offset: int | None
    steps: int
    loss: int
    tried: list[Tried]


def choose_direction(
    chart: AggressionChart, forbidden: Callable[[int], list[str]]
) -> DirectionChoice:
    """The first allowed direction in the search order; a loss for each step of difference.

    ``forbidden(offset)`` says why a direction may not be used (empty when it may).
    """
    tried: list[Tried] = []
    count = chart.params.directions
    for offset, steps in _search_order(count, chart.params.direction_search):
        reasons = forbidden(offset)
        tried.append(Tried(offset, steps, reasons))
        if not reasons:
            return DirectionChoice(offset, steps, steps * chart.params.loss_per_step, tried)
    return DirectionChoice(None, 0, 0, tried)


def hex_direction(first: int, offset: int, count: int = 6) -> int:
    """Hex direction ``offset`` steps clockwise from ``first`` (directions 1..count)."""
    return (first - 1 + offset) % count + 1


# --- surrender and pursuit -----------------------------------------------------------------------


def surrender_chance(chart: AggressionChart, training: str, af: int, moving: bool) -> Chance:
    """AGG Surrender: by training, for a unit that may not retreat anywhere."""
    factor = chart.factor(check_factor(af))
    if not moving and not factor.stationary_surrenders:
        return Chance(0, [f"AF {af} stationary: {factor.stationary}, never surrenders"])
    level = chart.training(training)
    return Chance(level.surrender, [f"{level.id}: {level.surrender}% ({level.rule})"])


def pursues(
    chart: AggressionChart, af: int, *, moving: bool, choice: bool | None, admin: bool = False
) -> tuple[bool, str]:
    """AGG Pursuit and Aggression factors: whether a unit follows one that retreats."""
    factor = chart.factor(check_factor(af))
    if admin:
        return False, "moving administratively: never pursues (AGG Admin movement)"
    if factor.pursuit == "never":
        return False, f"AF {af}: never pursues ({factor.rule})"
    if factor.pursuit == "yes-if-stationary" and not moving:
        return True, f"AF {af} stationary: always pursues ({factor.rule})"
    if choice is None:
        default = chart.params.pursuit_choice
        return default, f"AF {af}: the player's choice, not given ({'yes' if default else 'no'})"
    return bool(choice), f"AF {af}: the player's choice ({'yes' if choice else 'no'})"


def check_pursuit_order(
    chart: AggressionChart, unit: str, af: int, *, moving: bool, admin: bool, wanted: bool
) -> None:
    """Refuse a pursuit order the factor or the movement overrides."""
    factor = chart.factor(af)
    if wanted and admin:
        raise RulesRefusal(f"{unit} moves administratively and never pursues (AGG Admin movement)")
    if wanted and factor.pursuit == "never":
        raise RulesRefusal(
            f"{unit} is on AF {af}: a factor of 4 or less never pursues (AGG Aggression factors); "
            "order a higher factor first"
        )
    if not wanted and factor.pursuit == "yes-if-stationary" and not moving:
        raise RulesRefusal(
            f"{unit} is stationary on AF {af}: it always pursues (AGG Aggression factors); "
            "order another factor to stop it"
        )


# --- captured equipment -----------------------------------------------------------------------


@mutable_dataclass
class Spoils:
    discarded: Fraction
    captured: int
    dump: bool
    lines: list[str]


def spoils(chart: AggressionChart, casualties: int, surplus: int, victors: int) -> Spoils:
    """AGG Captured equipment: a share of everything discarded, in whole units."""
    if casualties < 0 or surplus < 0:
        raise BadInput("casualties and surplus are 0 or more")
    unit = chart.params.equipment_unit
    share = fraction(chart.params.victor_share)
    discarded = Fraction(casualties, unit) + surplus
    captured = math.floor(share * discarded)
    lines = [
        f"discarded: {casualties} casualties / {unit} per unit + {surplus} surplus = "
        f"{float(discarded):g} units (AGG Captured equipment)",
        f"victor takes {float(share):g} x {float(discarded):g} = {count(captured, 'whole unit')}",
    ]
    dump = victors > 1
    if dump:
        lines.append("more than one player left: dropped in a dump for whoever takes it first")
    return Spoils(discarded, captured, dump, lines)


# --- target priority --------------------------------------------------------------------------


@frozen_dataclass
class Enemy:
    id: str
    type: str
    leader: bool = False


@mutable_dataclass
class TargetChoice:
    target: Enemy | None
    stage: str
    roll: int | None = None


def choose_target(
    chart: AggressionChart,
    engages_as: str,
    enemies: Sequence[Enemy],
    engaged: Mapping[str, int],
    selected: Sequence[str],
    dice: DiceLike,
    who: str,
    *,
    harassment: bool = False,
) -> TargetChoice:
    """AGG Target priority: selected, by type (one for one), random, leaders last.

    ``engaged`` counts the shooters of the firer's side already on each enemy this round, so
    units of a type pair off one for one before any doubles up. Harassment fire picks at
    random among every enemy, leaders included.
    """
    if not enemies:
        return TargetChoice(None, "none")
    if harassment:
        return _random(list(enemies), "harassment", dice, who)
    fighting = [e for e in enemies if not e.leader]

    def least_engaged(found: list[Enemy]) -> Enemy:
        return min(found, key=lambda e: (engaged.get(e.id, 0), fighting.index(e)))

    for wanted in selected:
        found = [e for e in fighting if wanted in (e.id, e.type)]
        if found:
            return TargetChoice(least_engaged(found), "selected")
    for kind in chart.engages(engages_as):
        found = [e for e in fighting if e.type == kind]
        if found:
            return TargetChoice(least_engaged(found), "type")
    if fighting:
        return _random(fighting, "random", dice, who)
    return _random(list(enemies), "leader", dice, who)


def _random(found: list[Enemy], stage: str, dice: DiceLike, who: str) -> TargetChoice:
    if len(found) == 1:
        return TargetChoice(found[0], stage)
    roll = dice.roll(len(found), f"{stage} target for {who} among {', '.join(e.id for e in found)}")
    return TargetChoice(found[roll - 1], stage, roll)


# --- the fire of one round (the seed's casualties, with charted default numbers) -----------


@mutable_dataclass
class Shot:
    chance: int
    roll: int | None
    hit: bool
    damage: int
    working: ShotWorking

    @property
    def lines(self) -> list[str]:
        """The shot's working in words: its chance, the die, and a hit's damage (made when
        asked: a battle's odds take thousands of shots and tell none of them)."""
        lines = [
            self.working.chance_line,
            f"{roll_text(self.roll)}: {'hit' if self.hit else 'miss'}",
        ]
        if self.hit:
            lines += self.working.damage_lines
        return lines


@frozen_dataclass
class ShotSituation:
    """What changes a shot's damage: the firer's strength now, the target's works (and
    whether it fits in them), administrative movement on either side."""

    strength: int
    works: str | None = None
    fits: bool = True
    admin_target: bool = False
    admin_firer: bool = False


def hit_chance(chart: AggressionChart, firer: Profile, target: Profile) -> int:
    fire = chart.fire_class(firer.fire)
    return fire.armoured if target.armoured else fire.soft


def shot_damage(
    chart: AggressionChart, firer: Profile, situation: ShotSituation
) -> tuple[int, list[str]]:
    """Damage of a hit: firepower x strength left, x works, x administrative movement."""
    if firer.firepower == 0:
        return 0, [f"{firer.id} has no firepower"]
    ratio = Fraction(max(0, situation.strength), firer.strength)
    value = firer.firepower * ratio
    lines = [f"firepower {firer.firepower} x strength {situation.strength}/{firer.strength}"]
    if situation.works is not None and situation.works != "none":
        works = chart.works(situation.works)
        if situation.fits:
            value *= fraction(works.damage)
            lines.append(f"x {works.damage:g} {works.id} ({works.rule})")
        else:
            lines.append(f"{works.id}: does not fit whole, so not protected ({works.rule})")
    if situation.admin_target:
        value *= fraction(chart.params.admin_target_bonus)
        lines.append(f"x {chart.params.admin_target_bonus:g} target moving administratively")
    if situation.admin_firer:
        value *= fraction(chart.params.admin_fire_penalty)
        lines.append(f"x {chart.params.admin_fire_penalty:g} firer moving administratively")
    damage = max(1, round_half_up(value)) if value > 0 else 0
    lines.append(f"= {float(value):.4g}, {damage} damage (AGG Combat, default fire procedure)")
    return damage, lines


@frozen_dataclass
class ShotWorking:
    """What one unit's shot at another comes to before its die: the chance to hit, the damage
    of a hit, and the working of both."""

    chance: int
    damage: int
    chance_line: str
    damage_lines: tuple[str, ...]


def shot_working(
    chart: AggressionChart, firer: Profile, target: Profile, situation: ShotSituation
) -> ShotWorking:
    """The chance and the damage of a shot (AGG Combat, default fire procedure)."""
    chance = hit_chance(chart, firer, target)
    kind = "armoured" if target.armoured else "unarmoured"
    damage, lines = shot_damage(chart, firer, situation)
    return ShotWorking(
        chance,
        damage,
        f"{chance}% to hit: {firer.fire} fire against {kind} targets (default)",
        tuple(lines),
    )


def fire_shot(
    chart: AggressionChart,
    firer: Profile,
    target: Profile,
    situation: ShotSituation,
    dice: DiceLike,
    purpose: str,
) -> Shot:
    """One unit's shot of a combat round: a percentile die for the hit, then the damage."""
    return take_shot(shot_working(chart, firer, target, situation), dice, purpose)


def take_shot(working: ShotWorking, dice: DiceLike, purpose: str) -> Shot:
    """The shot worked out in ``working``, its percentile die rolled (``fire_shot``; a battle
    works out each shot once, as the same shot comes again round after round)."""
    hit, roll = percent_test(dice, working.chance, purpose)
    return Shot(working.chance, roll, hit, working.damage if hit else 0, working)


def leader_killed(chart: AggressionChart, damage: int) -> bool:
    return damage >= chart.params.leader_kill


# --- administrative movement and ambush ------------------------------------------------------


def admin_firers_allowed(chart: AggressionChart, round_no: int, count: int) -> int:
    """AGG Admin movement: one may return fire at first, one more each later round."""
    if round_no < 1:
        raise BadInput(f"round {round_no!r}: rounds count from 1")
    first = chart.params.admin_firers_first
    return min(count, first + chart.params.admin_firers_per_round * (round_no - 1))


def parse_af_by_type(text: str) -> dict[str, int]:
    """``armour:3/infantry:8``: the ambusher's factor by the type of enemy it meets."""
    out: dict[str, int] = {}
    for part in str(text).replace(",", "/").split("/"):
        if not part.strip():
            continue
        kind, sep, value = part.partition(":")
        if not sep or not value.strip().isdigit():
            raise BadInput(f"{text!r}: write TYPE:AF pairs like armour:3/infantry:8")
        out[kind.strip()] = check_factor(int(value))
    return out


@mutable_dataclass
class Ambush:
    af: int
    free_shots: int
    lines: list[str]


def ambush(
    chart: AggressionChart,
    *,
    stationary: bool,
    enemy_type: str,
    af_by_type: Mapping[str, int],
    default_af: int,
    admin_victim: bool,
    on_route: bool,
) -> Ambush:
    """AGG Ambush: a stationary unit on ambush orders fires once before combat begins."""
    if not stationary:
        raise RulesRefusal("only a stationary unit on ambush orders can ambush (AGG Ambush)")
    if admin_victim and not on_route:
        raise RulesRefusal(
            "ambushing units moving administratively needs the ambusher on their road, rail "
            "or river route (AGG Ambush)"
        )
    af = af_by_type.get(enemy_type, check_factor(default_af))
    shots = chart.params.ambush_free_shots
    lines = [
        f"AF {af} against {enemy_type}"
        + (" (its ambush order for that type)" if enemy_type in af_by_type else ""),
        f"{shots} free shot before combat begins; its damage lands with the first round's",
    ]
    if admin_victim:
        lines.append(
            "victims moving administratively stop for the turn and fight at a penalty "
            "(AGG Admin movement)"
        )
    return Ambush(af, shots, lines)


# --- minefields -------------------------------------------------------------------------------


def mine_attacks(
    chart: AggressionChart,
    kind: str,
    unit_type: str,
    armoured: bool,
    *,
    friendly: bool = False,
    searching: bool = False,
) -> tuple[bool, str]:
    """AGG Mines: whether a minefield attacks a unit entering its area."""
    mine = chart.mine(kind)
    if friendly:
        return False, "its own side's or an ally's minefield never attacks it (AGG Mines)"
    if searching:
        return False, "a unit searching the area is not attacked (AGG Mines)"
    if armoured != mine.armoured or unit_type not in mine.types:
        what = "armoured" if mine.armoured else "unarmoured infantry, towed guns or towed AD"
        return False, f"{mine.id} mines attack only {what} units ({mine.rule})"
    return True, f"{mine.id} mines attack it: {mine.damage} damage (default), pinned ({mine.rule})"


@mutable_dataclass
class Laying:
    result: str
    owner: str
    types: list[str]
    lines: list[str]


def lay_mines(
    existing_owner: str | None, existing_types: Sequence[str], owner: str, kind: str
) -> Laying:
    """AGG Mines: one player's minefield per area; another player's laying clears it."""
    kind = kind.upper()
    if existing_owner is None or not existing_types:
        return Laying("laid", owner, [kind], [f"{owner} lays {kind} mines in an unmined area"])
    if existing_owner == owner:
        types = sorted({*existing_types, kind})
        return Laying(
            "added", owner, types, [f"{owner} adds {kind}: both kinds may share the area"]
        )
    return Laying(
        "replaced",
        owner,
        [kind],
        [
            f"{possessive(existing_owner)} minefield is cleared: only one player may mine an area "
            "(AGG Mines), allies included",
            f"{owner} lays {kind} mines",
        ],
    )


def clear_mines(
    chart: AggressionChart,
    *,
    in_combat: bool,
    searching: bool,
    engineer: str,
    dice: DiceLike,
) -> tuple[bool, int | None, str]:
    """AGG Mines: searching clears outside combat; in combat only engineers, 30% a round."""
    if in_combat:
        if engineer == "none":
            if searching:
                raise RulesRefusal(
                    "a unit that is not an engineer cannot search for mines in combat (AGG Mines)"
                )
            return False, None, "no engineers: the mines attack again this round (AGG Mines)"
        chance = chart.params.engineer_clearing
        cleared, roll = percent_test(dice, chance, f"engineers clear the minefield (<= {chance})")
        verdict = "cleared for good" if cleared else "not cleared this round"
        return cleared, roll, f"{chance}% a round with engineers: {roll_text(roll)}, {verdict}"
    if searching or engineer == "elite":
        why = "searching" if searching else "elite engineers search by themselves"
        return True, None, f"{why}: mines found and destroyed (AGG Mines)"
    return False, None, "no search order: the mines stay (AGG Mines)"


def mine_income_loss(chart: AggressionChart, mines: int, income: float) -> float:
    """AGG Mines: each mine unit ever laid cuts income by 0.1% for good."""
    if mines < 0 or income < 0:
        raise BadInput("mines and income are 0 or more")
    return income * chart.params.mine_income_loss / 100 * mines


# --- digging in ---------------------------------------------------------------------------------


@mutable_dataclass
class Digging:
    works: str
    size: int
    result: str
    lines: list[str]


def dig_in(
    chart: AggressionChart,
    works: str | None,
    size: int = 0,
    *,
    orders: int = 1,
    in_combat: bool = False,
    attacked: bool = False,
    enemy_present: bool = False,
) -> Digging:
    """AGG Digging in, Entrenched, Fortifications: one step per turn of repeated orders."""
    works = works if works not in (None, "none") else "none"
    if orders < 1:
        raise BadInput(f"orders {orders!r}: at least the one unit giving the order")
    if works == "none":
        lines = ["dug in at the end of the turn (AGG Digging in)"]
        if in_combat:
            lines.append("in a battle lasting past this turn: still takes effect at its end")
        return Digging("dug-in", 0, "dug-in", lines)
    if works == "dug-in":
        if in_combat:
            raise RulesRefusal("a unit cannot entrench while in combat (AGG Entrenched)")
        if attacked:
            return Digging("dug-in", 0, "failed", ["attacked during the turn: entrenching fails"])
        return Digging("entrenched", 0, "entrenched", ["entrenched (AGG Entrenched)"])
    if works not in ("entrenched", "fortified"):
        raise BadInput(f"works {works!r}: accepted: none, dug-in, entrenched, fortified")
    if enemy_present or in_combat:
        raise RulesRefusal(
            "fortifications are not built with an enemy unit present (AGG Fortifications)"
        )
    if works == "entrenched":
        first = chart.params.fort_first_size
        new = first + orders - 1
        lines = [f"fortification of size {first} (AGG Fortifications)"]
        if orders > 1:
            lines.append(f"+{orders - 1} from the other units digging with it")
    else:
        if size < 1:
            raise BadInput(f"size {size!r}: a fortification has size 1 or more")
        new = size + orders
        lines = [f"size {size} + {orders} (one for each unit repeating the order)"]
    return Digging("fortified", new, "fortified", lines)


@mutable_dataclass
class FortRoom:
    capacity: int
    needed: int
    fits: bool


def fort_room(chart: AggressionChart, size: int, men: int, vehicles: int = 0) -> FortRoom:
    """AGG Fortifications: size x 100 men; a vehicle or gun takes the room of 10 men."""
    if size < 0 or men < 0 or vehicles < 0:
        raise BadInput("size, men and vehicles are 0 or more")
    capacity = size * chart.params.fort_men_per_size
    needed = men + vehicles * chart.params.vehicle_men
    return FortRoom(capacity, needed, needed <= capacity)
