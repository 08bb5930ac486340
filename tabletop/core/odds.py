"""Exact outcome distributions by running a rules procedure over every possible roll.

``distribution(procedure)`` calls ``procedure(dice)`` with a scripted dice object; whenever
the procedure asks for a roll beyond the script, every face is tried in turn. Each complete
run is one branch whose probability is the product of ``1/sides`` over its rolls. Because
the procedure is the very function the real command calls with the game's dice, the odds
and the resolution cannot disagree: there is one copy of each rule.

Procedures must be deterministic functions of their rolls (they are: rules code takes no
other randomness). Aggregation of independent repeats (``ROF`` dice) is done with
``convolve`` over a fold function the real command also uses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from typing import TypeVar

from tabletop.core.dice import Roll

T = TypeVar("T", bound=Hashable)
S = TypeVar("S", bound=Hashable)

MAX_BRANCHES = 200_000


class _NeedRoll(Exception):
    def __init__(self, sides: int):
        self.sides = sides


class _ScriptedDice:
    """Dice that follow a script of faces, recording each roll as the game's dice do (rules
    code may read back ``rolls``), and ask for a new branch past its end."""

    def __init__(self, script: tuple[tuple[int, int], ...]):
        self._script = script
        self._next = 0
        self.rolls: list[Roll] = []
        self.no_roll_because: list[str] = []
        self.fewer_because: list[str] = []

    def roll(self, sides: int, purpose: str) -> int:
        if self._next < len(self._script):
            value, _ = self._script[self._next]
            self._next += 1
            self.rolls.append(Roll(sides, value, purpose, "odds"))
            return value
        raise _NeedRoll(sides)

    def allow_unused(self, reason: str) -> None:
        self.fewer_because.append(reason)


class TooManyBranches(ValueError):
    def __init__(self, limit: int):
        super().__init__(f"too many dice branches to enumerate (over {limit})")
        self.limit = limit


def distribution(
    procedure: Callable[[_ScriptedDice], T], limit: int | None = None
) -> dict[T, Fraction]:
    """Exact distribution of ``procedure``'s result over all its dice; more than ``limit``
    runs of the procedure raise ``TooManyBranches``."""
    limit = MAX_BRANCHES if limit is None else limit
    result: dict[T, Fraction] = {}
    stack: list[tuple[tuple[int, int], ...]] = [()]
    runs = 0
    while stack:
        script = stack.pop()
        runs += 1
        if runs > limit:
            raise TooManyBranches(limit)
        try:
            outcome = procedure(_ScriptedDice(script))
        except _NeedRoll as need:
            stack.extend((*script, (v, need.sides)) for v in range(need.sides, 0, -1))
            continue
        p = Fraction(1)
        for _, sides in script:
            p /= sides
        result[outcome] = result.get(outcome, Fraction(0)) + p
    return result


def convolve(
    start: S, step: Mapping[T, Fraction], times: int, fold: Callable[[S, T], S]
) -> dict[S, Fraction]:
    """Distribution of folding ``times`` independent draws from ``step`` into ``start``.

    Exact, but in whole numbers: each step's probabilities are put over one denominator, so
    the inner loop adds and multiplies integers rather than fractions (ROF 10 stays quick).
    """
    denominator = math.lcm(*(q.denominator for q in step.values())) if step else 1
    weights = [(outcome, int(q * denominator)) for outcome, q in step.items()]
    current: dict[S, int] = {start: 1}
    for _ in range(times):
        following: dict[S, int] = {}
        for state, w in current.items():
            for outcome, v in weights:
                nxt = fold(state, outcome)
                following[nxt] = following.get(nxt, 0) + w * v
        current = following
    total = denominator**times
    return {state: Fraction(w, total) for state, w in current.items()}


def marginal(dist: Mapping[T, Fraction], key: Callable[[T], Hashable]) -> dict[Hashable, Fraction]:
    out: dict[Hashable, Fraction] = {}
    for outcome, p in dist.items():
        k = key(outcome)
        out[k] = out.get(k, Fraction(0)) + p
    return out


def expectation(dist: Mapping[T, Fraction], value: Callable[[T], float | int]) -> Fraction:
    return sum((p * Fraction(value(o)) for o, p in dist.items()), Fraction(0))
