"""Exact odds of typhoon point fire, from the same tests ``fire`` rolls.

Each d100 face, read through the same pure functions (``location_number``, ``depth``,
``destroyed_outright``, ``kill_value``...), is counted once, and each percent chance
weighs what ``chance.roll_chance`` gives it (``settled``); shots follow one another as a
Markov chain over the target's men left, so the outcome fractions are exact and sum to 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import cached_property
from typing import Any

from tabletop.rules.models.chance import percent, settled
from tabletop.rules.models.typhoon import damage as dmg
from tabletop.rules.models.typhoon.fire import Firing
from tabletop.rules.models.typhoon.tables import EPS

HARD_ORDER = ("missed", "no effect", "immobilized", "crew hit", "destroyed")
SOFT_ORDER = ("missed", "hit", "destroyed")

Step = dict[tuple[str, int], Fraction]  # (category, men killed) -> probability


def _share(count: int, total: int) -> Fraction:
    return Fraction(count, total)


class FireOdds:
    """Per-shot and whole-action distributions for one ``Firing``."""

    def __init__(self, f: Firing):
        self.f = f
        self.t = f.t
        self.faces = list(self.t.faces())
        self.n = len(self.faces)

    def _count(self, test: Iterable[bool]) -> Fraction:
        return _share(sum(1 for ok in test if ok), self.n)

    def _pct(self, chance: float) -> Fraction:
        """The probability ``Tables.percent`` gives a percent chance (the same dice)."""
        return settled(percent(chance))

    @cached_property
    def skill_branches(self) -> list[tuple[bool, Fraction]]:
        die = int(self.t.p("skill-die"))
        ok = _share(sum(1 for d in range(1, die + 1) if self.f.skill_passes(d)), die)
        return [(b, p) for b, p in ((False, ok), (True, 1 - ok)) if p]

    def p_hit(self, failed: bool) -> Fraction:
        return self._pct(self.f.hit_accuracy(failed).value)

    # --- hard targets ------------------------------------------------------------------------

    @cached_property
    def areas(self) -> tuple[Fraction, dict[str, Fraction]]:
        """P(no effect through hull-down) and P(each area) given a hit."""
        t, f = self.t, self.f
        spared = 0
        counts: dict[str, int] = {}
        for face in self.faces:
            number = dmg.location_number(t, face, f.sit.levels_above)
            if dmg.hull_down_spares(t, number, f.hull_down):
                spared += 1
                continue
            area = dmg.point_area(t, number, f.sit.aspect)
            counts[area] = counts.get(area, 0) + 1
        return _share(spared, self.n), {a: _share(c, self.n) for a, c in counts.items()}

    def p_penetrate(self, area: str) -> Fraction:
        t, f = self.t, self.f
        if dmg.always_penetrates(t, area, f.weapon):
            return Fraction(1)
        armour = dmg.armour_at(f.target, area, f.sit.aspect)
        return self._count(
            dmg.penetrates(dmg.depth(t, f.sit.shell, t.rnd_of(face), f.weapon, f.r), armour)
            for face in self.faces
        )

    @cached_property
    def p_outright(self) -> Fraction:
        t, f = self.t, self.f
        values = [t.rnd_of(face) for face in self.faces]
        count = sum(
            1
            for u1 in values
            for u2 in values
            if dmg.destroyed_outright(t, f.weapon, f.target, u1, u2)
        )
        return _share(count, self.n * self.n)

    def _effects(self, area: str, men: int) -> Step:
        t = self.t
        out: Step = {("destroyed", 0): self.p_outright}
        rest = 1 - self.p_outright
        effect = t.entry("penetration_effect", area)
        chance = float(effect.immobilize_chance)
        if chance >= 100:
            p_engine = Fraction(1)
        elif chance <= 0 or effect.compartment is None:
            p_engine = Fraction(0)
        else:
            p_engine = self._pct(chance)
        _add(out, ("immobilized", 0), rest * p_engine)
        crew = rest * (1 - p_engine)
        if crew:
            p = self._pct(t.p("crew-kill-chance"))
            for k in range(men):
                _add(out, ("crew hit", k), crew * p**k * (1 - p))
            _add(out, ("destroyed", men), crew * p**men)
        return out

    def hard_step(self, men: int) -> Step:
        step: Step = {}
        spared, areas = self.areas
        for failed, w in self.skill_branches:
            hit = self.p_hit(failed)
            _add(step, ("missed", 0), w * (1 - hit))
            _add(step, ("no effect", 0), w * hit * spared)
            for area, pa in areas.items():
                pen = self.p_penetrate(area)
                _add(step, ("no effect", 0), w * hit * pa * (1 - pen))
                for key, q in self._effects(area, men).items():
                    _add(step, key, w * hit * pa * pen * q)
        return step

    @cached_property
    def p_penetration_per_shot(self) -> Fraction:
        _, areas = self.areas
        through = sum((pa * self.p_penetrate(a) for a, pa in areas.items()), Fraction(0))
        return sum(
            (w * self.p_hit(failed) * through for failed, w in self.skill_branches), Fraction(0)
        )

    # --- soft targets -----------------------------------------------------------------------

    def _kills_before_cap(self, ra: float) -> dict[int, Fraction]:
        t, f = self.t, self.f
        ia = f.infantry_attack
        values = [t.rnd_of(face) for face in self.faces]
        # Weights of the (u1, u2) pairs, each split by the chance of one more man.
        counts: dict[int, Fraction] = {}
        for u1 in values:
            for u2 in values:
                whole, rest = dmg.split(dmg.kill_value(t, ia, ra, u1, u2))
                more = self._pct(rest) if rest > EPS else Fraction(0)
                counts[whole] = counts.get(whole, Fraction(0)) + 1 - more
                if more:
                    counts[whole + 1] = counts.get(whole + 1, Fraction(0)) + more
        total = self.n**2
        dist = {k: c / total for k, c in counts.items() if c}
        if f.weapon.size > 1:
            extra = self._count(dmg.extra_kill(t, ra, u) for u in values)
            shifted: dict[int, Fraction] = {}
            for k, p in dist.items():
                _add(shifted, k, p * (1 - extra))
                _add(shifted, k + 1, p * extra)
            dist = shifted
        return dist

    @cached_property
    def kills(self) -> dict[bool, dict[int, Fraction]]:
        return {
            failed: self._kills_before_cap(self.f.loss_accuracy(failed).value)
            for failed, _ in self.skill_branches
        }

    def _p_gun_destroyed(self, killed: int) -> Fraction:
        t, f = self.t, self.f
        if not killed or not dmg.can_be_destroyed_by_losses(f.target):
            return Fraction(0)
        return self._count(dmg.gun_destroyed(t, f.weapon, killed, t.rnd_of(u)) for u in self.faces)

    def soft_step(self, men: int) -> Step:
        step: Step = {}
        for failed, w in self.skill_branches:
            hit = self.p_hit(failed)
            _add(step, ("missed", 0), w * (1 - hit))
            for total, p in self.kills[failed].items():
                killed = min(total, men)
                gone = Fraction(1) if killed == men else self._p_gun_destroyed(killed)
                _add(step, ("destroyed", killed), w * hit * p * gone)
                _add(step, ("hit", killed), w * hit * p * (1 - gone))
        return step

    # --- the whole action ---------------------------------------------------------------------

    def action(self, count: int) -> dict[str, Any]:
        f = self.f
        hard = f.target.is_hard
        order = HARD_ORDER if hard else SOFT_ORDER
        start = f.sit.target_men
        states: dict[tuple[int, str], Fraction] = {(start, "missed"): Fraction(1)}
        finished: dict[tuple[int, str], Fraction] = {}
        hits = Fraction(0)
        penetrations = Fraction(0)
        p_hit = sum((w * self.p_hit(b) for b, w in self.skill_branches), Fraction(0))
        steps: dict[int, Step] = {}
        for _ in range(count):
            alive = sum(states.values(), Fraction(0))
            hits += alive * p_hit
            if hard:
                penetrations += alive * self.p_penetration_per_shot
            following: dict[tuple[int, str], Fraction] = {}
            for (men, worst), p in states.items():
                if men not in steps:
                    steps[men] = self.hard_step(men) if hard else self.soft_step(men)
                for (cat, killed), q in steps[men].items():
                    key = (men - killed, max(worst, cat, key=order.index))
                    target = finished if cat == "destroyed" else following
                    _add(target, key, p * q)
            states = following
        for key, p in states.items():
            _add(finished, key, p)
        outcomes: dict[str, Fraction] = {}
        killed_e = Fraction(0)
        for (men, worst), p in finished.items():
            _add(outcomes, label(hard, worst, start - men), p)
            killed_e += p * (start - men)
        destroyed = outcomes.get("destroyed", Fraction(0))
        expected: dict[str, Fraction] = {"hits": hits, "destroyed": destroyed}
        if hard:
            expected["penetrations"] = penetrations
            expected["crew_killed"] = killed_e
        else:
            expected["men_killed"] = killed_e
        return {"outcomes": _ordered(outcomes, hard), "expected": expected}


def label(hard: bool, worst: str, killed: int) -> str:
    """The outcome name shared by ``fire`` (its ``outcome`` key) and ``odds``."""
    if hard or worst in ("missed", "destroyed"):
        return worst
    return "no losses" if killed == 0 else f"{killed} killed"


def _ordered(outcomes: dict[str, Fraction], hard: bool) -> dict[str, Fraction]:
    def rank(name: str) -> tuple[int, int]:
        if name in HARD_ORDER:
            return (HARD_ORDER.index(name) * 1000, 0)
        if name == "no losses":
            return (1, 0)
        if name.endswith(" killed"):
            return (2, int(name.split()[0]))
        return (9, 0)

    return {k: outcomes[k] for k in sorted(outcomes, key=rank) if outcomes[k]}


def _add(d: dict[Any, Fraction], key: Any, p: Fraction | int) -> None:
    if p:
        d[key] = d.get(key, Fraction(0)) + p
