"""To-hit numbers, dice and hit effects: the procedures shared by direct and indirect fire.

A shot is planned first (``FirePlan``: range band, base number, every modifier with its rule,
the final number, how ammunition is used), with no dice. Then the dice are thrown as a
referee throws them: every to-hit die (``roll_to_hit``), then an effect die for each hit
(``roll_effect``); depletion dice come at the end of the phase (CD 1.2). The dice are folded
into a ``Tally``. The ``fire`` and ``barrage``
commands, their explanations and ``odds`` all use these same functions.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass, field
from typing import Any, TypedDict

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.words import with_article
from tabletop.data.chart_params import AmmoParams, BarrageParams
from tabletop.data.charts import Charts, StandKind, Weapon, weight_number
from tabletop.rules.cd.depletion import (
    adjust_rule,
    depletes_by_roll,
    depletion_threshold,
    is_small_arms,
)

MISSED = "missed"
NO_EFFECT = "no effect"
SUPPRESSED = "suppressed"
FORCED_BACK = "forced back"
ELIMINATED = "eliminated"
SEVERITY = {NO_EFFECT: 0, SUPPRESSED: 1, FORCED_BACK: 2, ELIMINATED: 3}
# How alike a referee's modifier name must be to a charted one to be taken for a typo.
TYPO_CUTOFF = 0.8


class Working(TypedDict):
    """How a shot's to-hit number was worked out (``FirePlan.working``), in every fire result."""

    weapon: str
    target: str
    ammo: str
    range: float | None  # inches, to 3 places; None in quick fire without a range
    band: str | None  # the range band (CD 6.1.2)
    row: str  # the weapons chart row it reads
    base: int
    modifiers: list[dict[str, Any]]  # ``ModLine.as_json``, each with its rule
    to_hit: int  # base plus modifiers
    rof: int
    effect_quality: str
    depletion: str  # roll | limited | rocket | flame | never (CD 1)
    depletion_threshold: int | None
    notes: list[str]


@frozen_dataclass
class ModLine:
    name: str
    value: int
    rule: str

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "rule": self.rule}


@frozen_dataclass
class FirePlan:
    """Everything about a shot that is known before the dice are thrown."""

    weapon: str
    target: str
    ammo: str
    range: float | None
    band: str | None
    row: str
    base: int
    modifiers: tuple[ModLine, ...]
    rof: int
    effect_quality: str
    no_effect_up_to: int
    forced_back_up_to: int
    miss_effect: str | None = None  # indirect HE: every stand under the template is suppressed
    depletion: str = "never"  # roll | limited | rocket | flame | never
    depletion_threshold: int | None = None
    notes: tuple[str, ...] = field(default=())
    # The rules behind depletion_threshold, as the ammunition notes cite them (CD 1.2.1, 1.2.2).
    depletion_rule: str = "CD 1.2"

    @property
    def to_hit(self) -> int:
        return self.base + sum(m.value for m in self.modifiers)

    def working(self) -> Working:
        return {
            "weapon": self.weapon,
            "target": self.target,
            "ammo": self.ammo,
            "range": None if self.range is None else round(self.range, 3),
            "band": self.band,
            "row": self.row,
            "base": self.base,
            "modifiers": [m.as_json() for m in self.modifiers],
            "to_hit": self.to_hit,
            "rof": self.rof,
            "effect_quality": self.effect_quality,
            "depletion": self.depletion,
            "depletion_threshold": self.depletion_threshold,
            "notes": list(self.notes),
        }


# dataclass's generated equality and hash: ``fold`` is cached on these, and the odds call
# it thousands of times, where the generated methods are the faster (core/frozen.py).
@dataclass(frozen=True)
class DieOutcome:
    """What one to-hit die did: hit or not, its effect, and whether it triggers depletion."""

    hit: bool
    effect: str | None
    trigger: bool


# dataclass's generated equality and hash: ``fold`` is cached on these, and the odds call
# it thousands of times, where the generated methods are the faster (core/frozen.py).
@dataclass(frozen=True)
class Tally:
    hits: int = 0
    eliminated: int = 0
    forced_back: int = 0
    no_effect: int = 0
    triggers: int = 0

    @property
    def worst(self) -> str | None:
        if self.eliminated:
            return ELIMINATED
        if self.forced_back:
            return FORCED_BACK
        if self.no_effect:
            return NO_EFFECT
        return None


@functools.cache
def fold(tally: Tally, die: DieOutcome) -> Tally:
    """Add one die to a tally (the real command and the odds both fold with this).

    Cached: the odds fold the same few tallies and dice thousands of times.
    """
    if not die.hit and not die.trigger:
        return tally
    return Tally(
        hits=tally.hits + die.hit,
        eliminated=tally.eliminated + (die.hit and die.effect == ELIMINATED),
        forced_back=tally.forced_back + (die.hit and die.effect == FORCED_BACK),
        no_effect=tally.no_effect + (die.hit and die.effect not in (ELIMINATED, FORCED_BACK)),
        triggers=tally.triggers + die.trigger,
    )


def outcome(tally: Tally, miss_effect: str | None) -> str:
    """The one word for what a stand's dice came to, used by the commands and the odds.

    HE suppresses every stand under it (SPEC 2), so under HE a miss and a hit with no
    effect both leave the stand suppressed.
    """
    if tally.hits == 0:
        return miss_effect or MISSED
    worst = tally.worst or NO_EFFECT
    if worst == NO_EFFECT and miss_effect:
        return miss_effect
    return worst


def hit_effect(roll: int, plan: FirePlan) -> str:
    """The hit effects chart by the target's quality (SPEC 2 defaults, quality chart)."""
    if roll <= plan.no_effect_up_to:
        return NO_EFFECT
    if roll <= plan.forced_back_up_to:
        return FORCED_BACK
    return ELIMINATED


def roll_to_hit(
    plan: FirePlan,
    dice: DiceLike,
    index: int,
    *,
    counts_for_depletion: bool = True,
    trigger_face: int = 1,
) -> DieOutcome:
    """One to-hit die: at or under the number hits, a natural 1 always hits (SPEC 2); a 1
    may trigger a depletion roll (CD 1.1). A hit's effect is rolled later (``roll_effect``),
    as a referee throws the effect dice after all the to-hit dice."""
    label = f"{plan.weapon} at {plan.target}"
    of = f" {index} of {plan.rof}" if plan.rof > 1 else ""
    roll = dice.roll(10, f"to-hit{of}, {label}, needs {plan.to_hit} or less")
    hit = roll <= plan.to_hit or roll == 1
    trigger = counts_for_depletion and plan.depletion == "roll" and roll == trigger_face
    return DieOutcome(hit, None, trigger)


def roll_effect(plan: FirePlan, dice: DiceLike, die: DieOutcome) -> DieOutcome:
    """A hit's roll on the hit effects chart; a miss rolls nothing."""
    if not die.hit:
        return die
    effect = hit_effect(dice.roll(10, f"hit effect on {plan.target} ({plan.effect_quality})"), plan)
    return DieOutcome(True, effect, die.trigger)


def resolve_die(
    plan: FirePlan,
    dice: DiceLike,
    index: int,
    *,
    counts_for_depletion: bool = True,
    trigger_face: int = 1,
) -> DieOutcome:
    """One to-hit die and, for a hit, its effect: the odds enumerate this (the dice are
    independent, so the order they are thrown in does not change the distribution)."""
    die = roll_to_hit(
        plan, dice, index, counts_for_depletion=counts_for_depletion, trigger_face=trigger_face
    )
    return roll_effect(plan, dice, die)


# --- planning ---------------------------------------------------------------------------------


@frozen_dataclass
class Target:
    """What the to-hit and hit effects procedures need to know about a target."""

    label: str
    kind: StandKind
    quality: str
    cover: str = "none"
    cover_source: str | None = None
    weight_class: str | None = None


@frozen_dataclass
class Firer:
    label: str | None
    kind: StandKind | None
    quality: str | None = None
    markers: tuple[str, ...] = ()


def effect_quality(target: Target, charts: Charts, night: bool) -> str:
    """Soft vehicles roll hit effects as Green (SPEC 2); night lowers quality a level (9.1.3)."""
    quality = "green" if target.kind.soft else target.quality
    if night:
        quality = charts.quality[quality].night_as or quality
    return quality


def requested_modifiers(
    requested: tuple[tuple[str, int | None], ...], charts: Charts
) -> list[ModLine]:
    """``--mod NAME`` takes the charted value; ``--mod NAME=VALUE`` is the referee's own.

    A referee's own name that is close to a charted one is taken for a typo and refused:
    a misspelt charted modifier must not slip in as a new one.
    """

    out = []
    for name, value in requested:
        charted = charts.modifiers.get(name)
        close = (
            difflib.get_close_matches(name, list(charts.modifiers), n=1, cutoff=TYPO_CUTOFF)
            if charted is None
            else []
        )
        hint = f"did you mean {close[0]!r}? " if close else ""
        known = ", ".join(sorted(charts.modifiers))
        given = name if value is None else f"{name}={value}"
        unknown = f"--mod {given!r}: {name!r} is not a charted modifier; {hint}(charted: {known}); "
        if value is None:
            if charted is None:
                raise BadInput(f"{unknown}for a modifier of your own, give a value, like {name}=-1")
            out.append(ModLine(charted.label, charted.value, charted.rule))
        else:
            if close:
                raise BadInput(f"{unknown}for a modifier of your own, choose a name unlike these")
            label = charted.label if charted else name
            out.append(ModLine(label, value, "referee"))
    return out


def combine_modifiers(
    automatic: list[str], requested: tuple[tuple[str, int | None], ...], charts: Charts
) -> tuple[list[ModLine], list[str]]:
    """The charted modifiers the procedure applies by itself, then the referee's ``--mod``s.

    Each modifier counts once: one given twice, or one the procedure already applies, is
    listed once, and a note says so. A referee's value for a charted name replaces it.
    """
    given: dict[str, int | None] = {}
    notes: list[str] = []
    for name, value in requested:
        if name in given:
            if given[name] != value:
                raise BadInput(
                    f"--mod {name!r} given twice with different values "
                    f"({_shown(given[name])} and {_shown(value)}): give it once"
                )
            note = f"--mod {name} given more than once: counted once"
            if note not in notes:
                notes.append(note)
            continue
        given[name] = value
    mods: list[ModLine] = []
    for key in automatic:
        if key not in given:
            mods.append(_charted(charts, key))
        elif given[key] is None:
            notes.append(f"{key} applies here by itself: --mod {key} counted once")
        else:
            notes.append(f"{key} applies here by itself: the referee's value replaces it")
    mods.extend(requested_modifiers(tuple(given.items()), charts))
    return mods, notes


def _shown(value: int | None) -> str:
    return "charted value" if value is None else f"{value:+d}"


def _charted(charts: Charts, key: str, times: int = 1) -> ModLine:
    m = charts.modifier(key)
    return ModLine(m.label, m.value * times, m.rule)


def check_direct_weapon(weapon: Weapon, firer: Firer, target: Target, charts: Charts) -> None:
    """Refuse direct fire the weapons chart rules out, before any number is worked out."""
    if weapon.indirect_only:
        by = f" {firer.label}" if firer.label else " SHOOTER"
        raise RulesRefusal(
            f"{weapon.id} fires only indirect (weapons chart: indirect_only): it cannot fire "
            f"direct at {target.label}; fire it with 'tabletop barrage{by} --at X,Y'"
        )
    if target.kind.ap_immune and weapon.ap_only:
        # CD 2.1, 8.2.1: AP rounds have no effect on assault boats and rubber rafts.
        raise RulesRefusal(
            f"{weapon.id} fires only AP rounds (weapons chart: ap_only), and AP rounds have "
            f"no effect on {target.label} (stand kind {target.kind.id}: {target.kind.rule}); "
            "fire a weapon with HE at it"
        )
    if (
        target.kind.armoured
        and not target.kind.weak_afv
        and weapon.to_hit_afv is None
        and is_small_arms(weapon, charts)
        and not charts.params(AmmoParams).small_arms_hit_armour
    ):
        # Our choice where the seeds are silent (ammo chart); a weak AFV counts as armour 0
        # (CD 8.2.1) and stays a target.
        kind = with_article(target.kind.id)
        whom = kind if target.label == target.kind.id else f"{target.label}, {kind}"
        raise RulesRefusal(
            f"{weapon.id} is small arms (under "
            f"{charts.params(AmmoParams).min_calibre_mm:g} mm, no anti-tank row) and cannot "
            f"harm {whom} (CD core (default), ammo chart small-arms-hit-armour); fire a "
            "weapon with an anti-tank row at it"
        )


def can_fire_direct(weapon: Weapon, target_kind: StandKind, charts: Charts) -> bool:
    """Whether ``check_direct_weapon`` lets this weapon fire direct at a stand of this kind:
    the same refusals, asked where a list of who could fire is drawn up (opportunity fire)."""
    try:
        check_direct_weapon(
            weapon, Firer(None, None), Target(target_kind.id, target_kind, "regular"), charts
        )
    except RulesRefusal:
        return False
    return True


def plan_direct(
    weapon: Weapon,
    firer: Firer,
    target: Target,
    distance: float,
    charts: Charts,
    *,
    ammo: str = "standard",
    night: bool = False,
    muzzle_flash: bool = False,
    requested: tuple[tuple[str, int | None], ...] = (),
) -> FirePlan:
    check_direct_weapon(weapon, firer, target, charts)
    band = weapon.band(distance)
    if band is None:
        raise RulesRefusal(
            f"{target.label} is out of range: {distance:.1f}\" is beyond {weapon.id}'s long "
            f'range of {weapon.ranges.long:g}" (weapons chart)'
        )
    names = {name for name, _ in requested}
    descending = "descending" in names
    armoured = target.kind.armoured
    row_name = "to_hit_afv" if armoured and weapon.to_hit_afv is not None else "to_hit"
    row = getattr(weapon, row_name)
    base = int(getattr(row, band))
    mods: list[ModLine] = []
    cover = charts.cover.get(target.cover)
    if cover is not None and cover.direct and not descending:
        where = f" ({target.cover_source})" if target.cover_source else ""
        mods.append(
            ModLine(
                f"target in {target.cover} cover{where}",
                cover.direct,
                cover.direct_rule or cover.rule,
            )
        )
    # Weak AFVs count as armour 0 (CD 8.2.1): small arms pay nothing against them.
    weak = target.kind.weak_afv
    if armoured and not weak and row_name == "to_hit" and weight_number(target.weight_class):
        mods.append(_charted(charts, "afv-no-at", weight_number(target.weight_class)))
    automatic = []
    if "pinned" in firer.markers:
        automatic.append("firer-pinned")
    elif "suppressed" in firer.markers:
        automatic.append("firer-suppressed")
    if "landed" in firer.markers:
        automatic.append("just-landed")
    if muzzle_flash:
        automatic.append("muzzle-flash")
    chosen, counted_once = combine_modifiers(automatic, requested, charts)
    mods.extend(chosen)
    mods = [m for m in mods if m.value != 0]
    quality = effect_quality(target, charts, night)
    bands = charts.quality[quality]
    notes = ["a natural 1 always hits", *counted_once]
    if descending:
        notes.append("descending paratroopers get no cover (CD 7.2.2)")
    depletion, threshold = _depletion(weapon, firer, ammo, charts)
    depletion_rule = "CD 1.2" if firer.kind is None else f"CD 1.2{adjust_rule(firer.kind)}"
    return FirePlan(
        weapon=weapon.id,
        target=target.label,
        ammo=ammo,
        range=distance,
        band=band,
        row=row_name,
        base=base,
        modifiers=tuple(mods),
        rof=weapon.rof,
        effect_quality=quality,
        no_effect_up_to=bands.no_effect_up_to,
        forced_back_up_to=bands.forced_back_up_to,
        depletion=depletion,
        depletion_threshold=threshold,
        notes=tuple(notes),
        depletion_rule=depletion_rule,
    )


def plan_indirect(
    weapon: Weapon,
    firer: Firer,
    target: Target,
    charts: Charts,
    *,
    night: bool = False,
    requested: tuple[tuple[str, int | None], ...] = (),
) -> FirePlan:
    """One stand under an HE template: the weapon's HE number, modified (SPEC 2)."""
    assert weapon.he is not None
    mods: list[ModLine] = []
    if target.kind.category == "personnel":
        cover = charts.cover.get(target.cover)
        if cover is not None and cover.indirect:
            where = f" ({target.cover_source})" if target.cover_source else ""
            mods.append(
                ModLine(f"target in {target.cover} cover{where}", cover.indirect, cover.rule)
            )
    if target.kind.armoured:
        # SPEC 2: +1 against weak AFVs, and minus the weight class against any AFV (a landing
        # craft's class for HE is charted, CD 8.2.2).
        if target.kind.weak_afv:
            mods.append(_charted(charts, "weak-afv"))
        weight = weight_number(target.weight_class)
        if weight:
            mods.append(_charted(charts, "afv-weight", weight))
    automatic = ["firer-pinned"] if "pinned" in firer.markers else []
    chosen, counted_once = combine_modifiers(automatic, requested, charts)
    mods.extend(chosen)
    mods = [m for m in mods if m.value != 0]
    quality = effect_quality(target, charts, night)
    bands = charts.quality[quality]
    depletion, threshold = _depletion(weapon, firer, "standard", charts)
    return FirePlan(
        weapon=weapon.id,
        target=target.label,
        ammo="he",
        range=None,
        band=None,
        row="he",
        base=weapon.he,
        modifiers=tuple(mods),
        rof=1,
        effect_quality=quality,
        no_effect_up_to=bands.no_effect_up_to,
        forced_back_up_to=bands.forced_back_up_to,
        miss_effect=SUPPRESSED if charts.params(BarrageParams).he_suppresses else None,
        depletion=depletion,
        depletion_threshold=threshold,
        notes=(
            "a natural 1 always hits",
            "HE suppresses every stand under the template",
            *counted_once,
        ),
    )


def _depletion(weapon: Weapon, firer: Firer, ammo: str, charts: Charts) -> tuple[str, int | None]:
    if weapon.flame is not None:
        return "flame", None
    if ammo in ("limited", "smoke", "illum"):
        return "limited", None
    if weapon.rocket:
        return "rocket", None
    if not depletes_by_roll(weapon, charts):
        return "never", None
    if firer.kind is None:
        return "roll", weapon.calibre_cm
    return "roll", depletion_threshold(weapon, firer.kind)


def roll_plan(plan: FirePlan, dice: Any, trigger_face: int) -> tuple[Tally, list[dict[str, Any]]]:
    """Every to-hit die first, then an effect die for each hit, in the order of the to-hit
    dice: the order a referee throws them (the --dice values are taken in this order)."""
    to_hit = []
    for index in range(1, plan.rof + 1):
        before = len(getattr(dice, "rolls", []))
        die = roll_to_hit(plan, dice, index, trigger_face=trigger_face)
        rolled = [r.value for r in getattr(dice, "rolls", [])[before:]]
        to_hit.append((die, rolled[0] if rolled else None))
    tally = Tally()
    dice_out = []
    for die, value in to_hit:
        before = len(getattr(dice, "rolls", []))
        outcome = roll_effect(plan, dice, die)
        rolled = [r.value for r in getattr(dice, "rolls", [])[before:]]
        dice_out.append(
            {
                "to_hit": value,
                "hit": outcome.hit,
                "effect": outcome.effect,
                "effect_roll": rolled[0] if rolled else None,
                "trigger": outcome.trigger,
            }
        )
        tally = fold(tally, outcome)
    return tally, dice_out


def verdict(tally: Tally, plan: FirePlan, target: str) -> str:
    if not tally.hits:
        return f"miss: {plan.weapon} on {target}"
    worst = tally.worst
    noun = "hit" if tally.hits == 1 else "hits"
    effects = f" ({worst})" if worst else ""
    return f"{tally.hits} {noun}: {plan.weapon} on {target}{effects}"
