"""Point fire: skill check, accuracy, hit, then location and penetration (hard targets) or
HE losses (soft targets), shot by shot (ToS II.B.3 Point fire, ToS V)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from tabletop.core.dice import DiceLike, checkpoint
from tabletop.core.errors import RulesRefusal
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.words import count
from tabletop.rules.models.chance import rolls_text
from tabletop.rules.models.typhoon import damage as dmg
from tabletop.rules.models.typhoon.accuracy import Accuracy, Facts, accuracy
from tabletop.rules.models.typhoon.situation import Situation
from tabletop.rules.models.typhoon.states import unit_state
from tabletop.rules.models.typhoon.tables import PERCENT, Tables, Unit, Weapon


@frozen_dataclass
class Firing:
    """One unit's point fire at one target: everything but the dice."""

    t: Tables
    shooter: Unit
    target: Unit
    weapon: Weapon
    r: float  # range in squares
    sit: Situation

    @property
    def same_square(self) -> bool:
        return self.r <= self.t.p("same-square-within")

    @property
    def adjacent(self) -> bool:
        return self.r <= self.t.p("adjacent-within")

    @property
    def hull_down(self) -> bool:
        # Dug-in units are hull-down (ToS II.B.3); special weapons ignore defensive benefits
        # (ToS V), hull-down among them.
        down = self.sit.hull_down or self.sit.target_state == "dug-in"
        return down and self.weapon.special is None

    def facts(self, skill_failed: bool) -> Facts:
        return Facts(
            self.sit,
            self.shooter,
            self.target,
            self.weapon,
            self.same_square,
            self.adjacent,
            skill_failed,
        )

    def hit_accuracy(self, skill_failed: bool) -> Accuracy:
        """Hard targets: every hard row and the silhouette. Soft: the firer's rows only."""
        sides = ("firer", "target") if self.target.is_hard else ("firer",)
        return accuracy(self.t, self.facts(skill_failed), self.r, sides)

    def loss_accuracy(self, skill_failed: bool) -> Accuracy:
        """The RA of the losses formula: every soft row, firer's and target's (our reading)."""
        return accuracy(self.t, self.facts(skill_failed), self.r, ("firer", "target"))

    @property
    def infantry_attack(self) -> float:
        return dmg.squad_attack(self.t, self.shooter, self.weapon, self.sit.firer_men)

    def skill_passes(self, roll: int) -> bool:
        return roll <= self.shooter.skill

    def check_allowed(self) -> None:
        scale = self.t.scale
        if self.sit.smoke > 0:
            raise RulesRefusal(
                f"{count(self.sit.smoke, 'smoke square')} between the units "
                f"{'blocks' if self.sit.smoke == 1 else 'block'} the line of sight, and "
                "point fire needs it (ToS II.B.3 Smoke)"
            )
        if self.r > self.weapon.max_range:
            raise RulesRefusal(
                f"{self.weapon.id} reaches {self.weapon.max_range:g} squares "
                f'({self.weapon.max_range * scale.inches_per_square:g}"); the target is '
                f"{self.r:.2f} squares away (ToS II.B.3 Range)"
            )


def resolve_shot(
    f: Firing, dice: DiceLike, status: dmg.Status, number: int, mark: Hashable | None = None
) -> dict[str, Any]:
    """One shot. ``mark``: the caller's word that, once this shot's penetration has been
    survived, what follows depends only on ``mark``, the area, the target's state and the
    dice to come (the odds then follow it once)."""
    t = f.t
    die = int(t.p("skill-die"))
    skill_roll = t.roll_by(
        dice,
        die,
        f"shot {number}: skill check, passes on {f.shooter.skill} or less",
        f.skill_passes,
    )
    failed = not f.skill_passes(skill_roll)
    acc = f.hit_accuracy(failed)
    hit, hit_rolls = t.percent(dice, acc.value, f"shot {number}: to hit")
    lines = [
        f"shot {number}: skill check {skill_roll} vs {f.shooter.skill}: "
        f"{'failed' if failed else 'passed'} [{t.rule('parameter', 'skill-die')}]",
        *acc.lines(t, f.r, f.weapon),
        f"to hit: {rolls_text(hit_rolls)}: {'hit' if hit else 'miss'}",
    ]
    shot: dict[str, Any] = {
        "shot": number,
        "skill_roll": skill_roll,
        "skill_failed": failed,
        "ranged_accuracy": round(acc.ranged, 2),
        "shifts": acc.shifts,
        "modifiers": [m.as_json() for m in acc.mods],
        "silhouette": None if acc.silhouette is None else round(acc.silhouette, 4),
        "accuracy": round(acc.value, 2),
        "needed": acc.needed,
        "hit_roll": hit_rolls[0] if hit_rolls else None,
        "hit_rolls": hit_rolls,
        "hit": hit,
        "location": None,
        "penetration_depth": None,
        "penetrated": False,
        "men_killed": 0,
        "lines": lines,
    }
    if hit:
        if f.target.is_hard:
            if mark is not None:
                # A hit on a hard target: what follows no longer depends on the skill check.
                checkpoint(dice, ("hit", mark))
            _hard_damage(f, dice, status, shot, mark)
        else:
            _soft_damage(f, dice, status, shot, failed)
    return shot


def _where(f: Firing, face: int) -> tuple[str, ...]:
    """What a hit location face decides: spared by hull-down, or the area struck (the odds
    try one face of each run of faces alike)."""
    t = f.t
    number = dmg.location_number(t, face, f.sit.levels_above)
    if dmg.hull_down_spares(t, number, f.hull_down):
        return ("spared",)
    try:
        return (dmg.point_area(t, number, f.sit.aspect),)
    except ValueError:
        return ("no band", str(number))


def _hard_damage(
    f: Firing,
    dice: DiceLike,
    status: dmg.Status,
    shot: dict[str, Any],
    mark: Hashable | None = None,
) -> None:
    t, lines = f.t, shot["lines"]
    roll = t.roll_by(dice, PERCENT, "hit location (d100)", lambda face: _where(f, face))
    number = dmg.location_number(t, roll, f.sit.levels_above)
    rule = t.rule("location", "loc-track")
    bonus = f" + {number - roll} (firer 2+ levels up)" if number != roll else ""
    shot["location_roll"] = roll
    if dmg.hull_down_spares(t, number, f.hull_down):
        lines.append(f"location {roll}{bonus} = {number}: hull-down, no effect [{rule}]")
        shot["hull_down_no_effect"] = True
        return
    area = dmg.point_area(t, number, f.sit.aspect)
    shot["location"] = area
    armour = dmg.armour_at(f.target, area, f.sit.aspect)
    shot["armour"] = armour
    lines.append(f"location {roll}{bonus} = {number}: {area} (armour {armour:g}) [{rule}]")
    if dmg.always_penetrates(t, area, f.weapon):
        shot["penetrated"] = True
        lines.append(f"track hit by shell size {f.weapon.size}: always penetrates [ToS II.B.3]")
    else:
        u, _ = t.rnd_test(
            dice,
            1,
            f"{f.sit.shell.upper()} penetration depth",
            lambda v: dmg.penetrates(dmg.depth(t, f.sit.shell, v, f.weapon, f.r), armour),
        )
        pd = dmg.depth(t, f.sit.shell, u, f.weapon, f.r)
        shot["penetration_depth"] = round(pd, 2)
        shot["penetrated"] = dmg.penetrates(pd, armour)
        lines.append(_depth_line(f, u, pd, armour, shot["penetrated"]))
    if shot["penetrated"]:
        if mark is not None:
            # Through the armour: what follows depends on the area only (not the faces).
            checkpoint(dice, ("penetrated", mark, area))
        effects = dmg.penetration_effects(
            t, dice, f.weapon, f.target, area, status, mark=(mark, area) if mark else None
        )
        lines.extend(effects.lines)
        shot["destroyed_outright"] = effects.destroyed_outright
        shot["immobilized"] = effects.immobilized
        shot["compartment"] = effects.compartment
        shot["guns_out"] = effects.guns_out
        shot["crew_killed"] = effects.crew_killed
        shot["men_killed"] = effects.crew_killed
    elif f.sit.shell == "he":
        lines.append("the HE round may attack other units in the square (procedure he-damage)")


def _depth_line(f: Firing, u: float, pd: float, armour: float, through: bool) -> str:
    w, t = f.weapon, f.t
    rule = t.rule("parameter", "ap-reading")
    if f.sit.shell == "he":
        form = f"HE depth = {t.p('he-depth-factor'):g} x {w.size} x {u:.3f}"
    elif t.p("ap-reading") >= 1:
        form = (
            f"AP depth = {w.size} + {u:.3f} x ({w.penetration:g}/2 + {w.penetration:g}/2 x "
            f"({w.max_range:g} - {f.r:.2f}) / {w.max_range:g})"
        )
    else:
        form = (
            f"AP depth = {w.size} + {u:.3f} x {w.penetration:g} x ({w.max_range:g} - {f.r:.2f}) "
            f"/ {w.max_range:g}"
        )
    verdict = "penetrates" if through else "does not penetrate"
    return f"{form} = {pd:.2f} vs armour {armour:g}: {verdict} [{rule}]"


def _soft_damage(
    f: Firing, dice: DiceLike, status: dmg.Status, shot: dict[str, Any], failed: bool
) -> None:
    t = f.t
    ra = f.loss_accuracy(failed)
    shot["loss_accuracy"] = round(ra.value, 2)
    shot["lines"].append(
        f"losses use RA {ra.ranged:.2f} x{ra.multiplier:.4f} ({ra.shifts:+d} shifts, every soft "
        f"row) = {ra.value:.2f} [{t.rule('parameter', 'kill-divisor')}]"
    )
    losses = dmg.he_losses(t, dice, f.weapon, f.infantry_attack, ra.value, f.target, status)
    shot["lines"].extend(losses.lines)
    shot["men_killed"] = losses.killed
    shot["destroyed"] = losses.destroyed


def _so_far(shots: list[dict[str, Any]]) -> tuple[object, ...]:
    """What earlier shots did that the fire's outcome and suppression can depend on."""
    return (
        sum(1 for s in shots if s["hit"]),
        any(s.get("compartment") for s in shots),
        any(s.get("immobilized") for s in shots),
        sum(s["men_killed"] for s in shots),
    )


def suppression_gained(t: Tables, f: Firing, shots: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """The Suppression Point Table's fire rows that the fire itself decides."""
    rows = t.tables["suppression"]
    total, lines = 0, []
    if f.sit.target_suppression == 0:
        total += rows["zero-and-targeted"].points
        lines.append(f"{rows['zero-and-targeted'].points:+d}: had no suppression and was fired on")
    kind = "hard" if f.target.is_hard else "soft"
    seen = "sighted" if f.sit.sighted else "unsighted"
    hits = sum(1 for s in shots if s["hit"])
    if hits:
        row = rows[f"{kind}-hit-{seen}"]
        total += row.points * hits
        lines.append(f"{row.points * hits:+d}: {count(hits, 'hit')} by a {seen} enemy")
    killed = sum(s["men_killed"] for s in shots)
    if killed:
        row = rows["men-killed"]
        total += row.points * killed
        lines.append(f"{row.points * killed:+d}: {killed} man/men killed")
    return total, lines


def resolve(f: Firing, dice: DiceLike, count: int) -> dict[str, Any]:
    """``count`` shots in turn, stopping once the target is destroyed."""
    f.check_allowed()
    s = f.sit
    status = dmg.Status(
        men=s.target_men, immobilized=s.target_immobilized, guns_out=set(s.target_guns_out)
    )
    shots: list[dict[str, Any]] = []
    for number in range(1, count + 1):
        # What the rest of the fire (and its outcome) depends on: the shots left, the
        # target's state and what the shots so far did (the odds follow each once).
        mark = ("tos-fire", count, number, status.key(), _so_far(shots))
        if number > 1:
            checkpoint(dice, mark)
        shots.append(resolve_shot(f, dice, status, number, mark))
        if status.destroyed:
            break
    gained, why = suppression_gained(f.t, f, shots)
    points = s.target_suppression + gained
    morale = f.target.morale
    state = unit_state(
        f.t,
        points,
        morale,
        vehicle=f.target.is_vehicle,
        japanese=f.target.japanese,
        dug_in=s.target_state == "dug-in",
        cannot_move=status.immobilized or f.target.max_speed == 0,
    )
    return {
        "shots": shots,
        "status": status,
        "suppression": gained,
        "why": why,
        "points": points,
        "state": state,
    }
