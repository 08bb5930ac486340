"""Exact outcome distributions by running a rules procedure over every possible roll.

``distribution(procedure)`` calls ``procedure(dice)`` with a scripted dice object; whenever
the procedure asks for a roll beyond the script, every face is tried in turn. Each complete
run is one branch whose probability is the product of ``1/sides`` over its rolls. Three
helpers of ``tabletop.core.dice`` keep the tree small and the answer exact: a roll that
matters only by band (``roll_in_bands``: a test passed on 37 or less) is tried once per
band, weighted by the band's size; a die rolled again while over a number
(``roll_again_above``) is tried once per face kept; and a ``checkpoint`` (an assault's next
round) lets runs that reach the same position share what follows it. Because
the procedure is the very function the real command calls with the game's dice, the odds
and the resolution cannot disagree: there is one copy of each rule.

Procedures must be deterministic functions of their rolls (they are: rules code takes no
other randomness). Aggregation of independent repeats (``ROF`` dice) is done with
``convolve`` over a fold function the real command also uses.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import math
from collections.abc import Callable, Hashable, Iterator, Mapping
from fractions import Fraction
from typing import Any, Generic, Protocol, TypeVar

from tabletop.core.dice import DiceLike, Roll
from tabletop.core.frozen import frozen_dataclass

T = TypeVar("T", bound=Hashable)
S = TypeVar("S", bound=Hashable)
R = TypeVar("R")

MAX_BRANCHES = 200_000

# A chance as a whole numerator and denominator, not reduced: the enumeration multiplies and
# adds thousands of them, which whole numbers do several times quicker than ``Fraction``
# (whose every step divides by a greatest common divisor). Exact all the same; turned into
# fractions once, at the end.
Chance = tuple[int, int]

# One branch of a roll: the face tried and the chance of the faces it stands for.
Branch = tuple[int, int, int]


def _plus(a: Chance, b: Chance) -> Chance:
    """``a + b``, over the larger denominator when one divides the other (dice of one size
    make powers of it, so this is the usual case)."""
    (n, d), (m, e) = a, b
    if d == e:
        return n + m, d
    if e % d == 0:
        return n * (e // d) + m, e
    if d % e == 0:
        return n + m * (d // e), d
    both = d // math.gcd(d, e) * e
    return n * (both // d) + m * (both // e), both


def _fraction(c: Chance) -> Fraction:
    return Fraction(c[0], c[1])


def _fractions(dist: Mapping[T, Chance]) -> dict[T, Fraction]:
    return {o: Fraction(n, d) for o, (n, d) in dist.items()}


class _Known(Exception):
    def __init__(self, key: Hashable):
        self.key = key


class _Split(Exception):
    """A run passed a checkpoint past its own start: what follows is worked out once for
    that checkpoint (a nested enumeration)."""


@functools.cache
def _faces(sides: int) -> tuple[Branch, ...]:
    return tuple((v, 1, sides) for v in range(1, sides + 1))


@functools.cache
def _bands(sides: int, cuts: tuple[int, ...]) -> tuple[Branch, ...]:
    """One branch per band of faces (``cuts``: the highest face of each band but the last),
    its lowest face standing for the band."""
    tops = [*sorted({c for c in cuts if 1 <= c < sides}), sides]
    out: list[Branch] = []
    low = 1
    for top in tops:
        out.append((low, top - low + 1, sides))
        low = top + 1
    return tuple(out)


def _given(branches: tuple[Branch, ...]) -> tuple[Branch, ...]:
    return branches


class _ScriptedDice:
    """Dice that follow a script of faces, then take the first branch of each die past it
    (recording the other branches, to be run in turn), recording each roll as the game's
    dice do (rules code may read back ``rolls``)."""

    def __init__(
        self,
        script: tuple[int, ...],
        start: int = 0,
        memo: Mapping[Hashable, object] | None = None,
        composites: dict[Hashable, object] | None = None,
    ) -> None:
        self.faces = list(script)
        # Composite rolls worked out in this enumeration, by key (``roll_composite``).
        self._composites: dict[Hashable, object] = {} if composites is None else composites
        self._next = 0
        self._start = start
        self._memo = memo
        # The chance of the first branches taken past the script, as a numerator and a
        # denominator (whole numbers multiply quicker than fractions).
        self._num = 1
        self._den = 1
        # (position, chance before it, other branches) for each die past the script.
        self.others: list[tuple[int, Chance, tuple[Branch, ...]]] = []
        # Each die as (sides, face, purpose): ``rolls`` makes them the game's ``Roll``s when
        # asked (rules code seldom reads them back; an enumeration throws thousands).
        self._thrown: list[tuple[int, int, str]] = []
        self.no_roll_because: list[str] = []
        self.fewer_because: list[str] = []
        # Checkpoints passed where the enumeration started (for its memo).
        self.reached: list[Hashable] = []

    def _take(
        self,
        sides: int,
        purpose: str,
        branches: Callable[..., tuple[Branch, ...]],
        *asked: Any,
    ) -> int:
        """The next face: the script's, else the first of ``branches(*asked)`` (called only
        then: a run mostly follows its script)."""
        if self._next < len(self.faces):
            value = self.faces[self._next]
        else:
            found = branches(*asked)
            value, num, den = found[0]
            self.others.append((self._next, (self._num, self._den), found[1:]))
            self._num *= num
            self._den *= den
            self.faces.append(value)
        self._next += 1
        self._thrown.append((sides, value, purpose))
        return value

    @property
    def rolls(self) -> list[Roll]:
        return [Roll(sides, value, purpose, "odds") for sides, value, purpose in self._thrown]

    def roll(self, sides: int, purpose: str) -> int:
        return self._take(sides, purpose, _faces, sides)

    def roll_in_bands(self, sides: int, purpose: str, cuts: tuple[int, ...]) -> int:
        return self._take(sides, purpose, _bands, sides, cuts)

    def roll_again_above(self, sides: int, above: int, purpose: str) -> int:
        # Rolling again over ``above`` until a face is kept: each kept face 1/above.
        return self._take(sides, purpose, _faces, above)

    def roll_composite(
        self, key: Hashable, sub: Callable[[DiceLike], tuple[Hashable, object]]
    ) -> tuple[Hashable, object]:
        """One branch per value ``sub`` can make of its dice, weighted by its chance (worked
        out once per enumeration for ``key``), with the payload of the first run that made
        it."""
        values, payloads, branches = self._composite(key, sub)
        index = self._take(len(values), f"composite {key!r}", _given, branches)
        return values[index - 1], payloads[index - 1]

    def _composite(
        self, key: Hashable, sub: Callable[[DiceLike], tuple[Hashable, object]]
    ) -> tuple[list[Hashable], list[object], tuple[Branch, ...]]:
        memo: dict[Hashable, object] = self._composites
        found = memo.get(key)
        if found is None:
            payloads: dict[Hashable, object] = {}

            def value_of(dice: _ScriptedDice) -> Hashable:
                value, payload = sub(dice)
                payloads.setdefault(value, payload)
                return value

            dist = distribution(value_of)
            values = list(dist)
            found = memo[key] = (
                values,
                [payloads[v] for v in values],
                tuple(
                    (i + 1, dist[v].numerator, dist[v].denominator) for i, v in enumerate(values)
                ),
            )
        return found  # type: ignore[return-value]

    def checkpoint(self, key: Hashable) -> None:
        if self._memo is None or self._next < self._start:
            return
        if self._next > self._start:
            if key in self._memo:
                # Already followed from this key: no need to start again from it.
                raise _Known(key)
            raise _Split()
        self.reached.append(key)
        if key in self._memo:
            raise _Known(key)

    def allow_unused(self, reason: str) -> None:
        self.fewer_because.append(reason)


class _NoDice:
    def roll(self, sides: int, purpose: str) -> int:
        raise RuntimeError(f"no die may be rolled here (asked a d{sides} for {purpose})")


def no_dice() -> DiceLike:
    """Dice for the part of a procedure that must not roll (the opening of a staged one)."""
    return _NoDice()


class TooManyBranches(ValueError):
    def __init__(self, limit: int):
        super().__init__(f"too many dice branches to enumerate (over {limit})")
        self.limit = limit


def distribution(
    procedure: Callable[[_ScriptedDice], T], limit: int | None = None
) -> dict[T, Fraction]:
    """Exact distribution of ``procedure``'s result over all its dice; more than ``limit``
    runs of the procedure raise ``TooManyBranches``.

    Each run follows a script of faces and then takes the first branch of every further
    die (each face, or one face for each band of a banded roll), noting the others; each
    noted branch is run in turn, so every run ends in one complete outcome. A run that
    passes a ``checkpoint`` works out what follows it once, for its key: a later run that
    reaches the same key takes that distribution, so rounds that end alike are followed
    once.
    """
    return _fractions(_chances(procedure, MAX_BRANCHES if limit is None else limit))


def _chances(procedure: Callable[[_ScriptedDice], T], limit: int) -> dict[T, Chance]:
    """``distribution``, each chance as a whole numerator and denominator."""
    return _Enumeration(procedure, limit).explore(())


class _Enumeration(Generic[T]):
    """One ``distribution``: its procedure, its memo and its count of runs. A class rather
    than a function that recurses through its own closure, which is a reference cycle: it
    kept, through ``procedure``, everything the runs had made until the cycle collector
    came by."""

    def __init__(self, procedure: Callable[[_ScriptedDice], T], limit: int) -> None:
        self.procedure = procedure
        self.limit = limit
        self.memo: dict[Hashable, dict[T, Chance]] = {}
        self.composites: dict[Hashable, object] = {}
        self.runs = 0

    def explore(self, script: tuple[int, ...]) -> dict[T, Chance]:
        """The distribution given the first faces ``script``."""
        procedure, memo, composites = self.procedure, self.memo, self.composites
        found: dict[T, Chance] = {}
        reached: list[Hashable] = []
        stack: list[tuple[tuple[int, ...], int, int]] = [(script, 1, 1)]
        while stack:
            prefix, wn, wd = stack.pop()
            self.runs += 1
            if self.runs > self.limit:
                raise TooManyBranches(self.limit)
            dice = _ScriptedDice(prefix, len(script), memo, composites)
            after: Mapping[T, Chance] | None = None
            try:
                outcome = procedure(dice)
            except _Known as known:
                after = memo[known.key]
            except _Split:
                after = self.explore(tuple(dice.faces[: dice._next]))
            reached += dice.reached
            for position, (num, den), others in dice.others:
                head = tuple(dice.faces[:position])
                stack.extend(
                    ((*head, v), wn * num * q, wd * den * r) for v, q, r in reversed(others)
                )
            share = (wn * dice._num, wd * dice._den)
            if after is None:
                before = found.get(outcome)
                found[outcome] = share if before is None else _plus(before, share)
                continue
            for o, (q, r) in after.items():
                part = (share[0] * q, share[1] * r)
                before = found.get(o)
                found[o] = part if before is None else _plus(before, part)
        for key in reached:
            memo.setdefault(key, found)
        return found


def convolve(
    start: S,
    step: Mapping[T, Fraction],
    times: int,
    fold: Callable[[S, T], S],
    limit: int | None = None,
) -> dict[S, Fraction]:
    """Distribution of folding ``times`` independent draws from ``step`` into ``start``.

    Exact, but in whole numbers: each step's probabilities are put over one denominator, so
    the inner loop adds and multiplies integers rather than fractions (ROF 10 stays quick).
    More than ``limit`` folds in all raise ``TooManyBranches``.
    """
    denominator = math.lcm(*(q.denominator for q in step.values())) if step else 1
    weights = [(outcome, int(q * denominator)) for outcome, q in step.items()]
    current: dict[S, int] = {start: 1}
    folds = 0
    for _ in range(times):
        following: dict[S, int] = {}
        folds += len(current) * len(weights)
        if limit is not None and folds > limit:
            raise TooManyBranches(limit)
        for state, w in current.items():
            for outcome, v in weights:
                nxt = fold(state, outcome)
                following[nxt] = following.get(nxt, 0) + w * v
        current = following
    total = denominator**times
    return {state: Fraction(w, total) for state, w in current.items()}


@frozen_dataclass
class Repeats(Generic[S, T]):
    """A procedure that repeats one step ``times`` over, independently (a roll of 10d100:
    ten dice added up): ``start``, the ``step`` run on each repeat's dice, the ``fold`` of
    each step's result into the state, and ``finish`` of the last state into the procedure's
    result. ``step(dice, n)`` is told which repeat it is (for its dice's purpose) but must
    not otherwise depend on it. The command itself runs exactly these (``run``); its odds
    convolve the step's distribution, worked out once by ``distribution`` (``repeated``)."""

    start: S
    step: Callable[[Any, int], T]
    times: int
    fold: Callable[[S, T], S]
    finish: Callable[[S], dict[str, Any]]

    def run(self, dice: Any) -> dict[str, Any]:
        state = self.start
        for n in range(1, self.times + 1):
            state = self.fold(state, self.step(dice, n))
        return self.finish(state)


def repeated(plan: Repeats[S, T], limit: int | None = None) -> dict[S, Fraction]:
    """Exact distribution of the last state of ``plan`` (before ``finish``): the step's own
    distribution folded ``times`` over; ``limit`` bounds both the step's runs and the
    folds (300 times more of those, each a few additions: 20d100 is allowed)."""
    step = distribution(lambda dice: plan.step(dice, 1), limit)
    return convolve(plan.start, step, plan.times, plan.fold, None if limit is None else limit * 300)


def marginal(dist: Mapping[T, Fraction], key: Callable[[T], Hashable]) -> dict[Hashable, Fraction]:
    out: dict[Hashable, Fraction] = {}
    for outcome, p in dist.items():
        k = key(outcome)
        out[k] = out.get(k, Fraction(0)) + p
    return out


def expectation(dist: Mapping[T, Fraction], value: Callable[[T], float | int]) -> Fraction:
    return sum((p * Fraction(value(o)) for o, p in dist.items()), Fraction(0))


def by_stages(
    first: S,
    stage: Callable[[S, _ScriptedDice], None],
    over: Callable[[S], bool],
    key: Callable[[S], Hashable],
    copy: Callable[[S], S],
    limit: int | None = None,
    again: Again[S] | None = None,
    *,
    finish: Callable[[S], R],
) -> list[tuple[R, Fraction]]:
    """Exact distribution of where a procedure made of stages (an assault's rounds) ends.

    ``stage(s, dice)`` plays one stage on ``s`` in place; ``over(s)`` says the procedure has
    ended; ``key(s)`` holds everything the stages still to come and the outcome depend on.
    Each stage is enumerated from every position it can start from, on a ``copy``, and
    positions with the same key are merged (their chances added), so a battle of many
    rounds is followed as a few positions a round rather than as one tree of every roll.
    Positions of different stages that play their next stage alike (``again``: an
    assault's round does not depend on its number, mostly) have it enumerated once: the
    positions it reached are carried over to the other start. Returns each end once, with
    its chance, as ``finish`` tells it: ``finish`` of the first position of its key to end
    (positions of one key end alike), called as it ends, so that no ended position is kept.
    More than ``limit`` runs of a stage raise ``TooManyBranches``.
    """
    limit = MAX_BRANCHES if limit is None else limit
    with collector_paused():
        return _by_stages(first, stage, over, key, copy, limit, again, finish)


class Again(Protocol[S]):
    """How a procedure in stages says that a stage plays alike from two positions."""

    def stage_key(self, s: S, /) -> Hashable | None:
        """Everything the next stage played from ``s`` depends on, when that is less than
        ``key(s)`` (a round that does not depend on the rounds fought before it); None when
        the stage depends on all of it."""

    def carried(self, reached: S, origin: S, start: S, /) -> S:
        """``reached``, a position the stage reached from ``origin``, as reached from
        ``start`` instead (a position of the same ``stage_key``) by the same rolls; or
        ``reached`` itself when that is the same position (of the same ``key``: one that
        ended, when the key of an end does not tell when it came)."""

    def carried_key(self, reached: S, reached_key: Hashable, start: S, /) -> Hashable:
        """``key(carried(reached, origin, start))``, told without making that position:
        most carried positions merge into one reached already, and only the one kept of
        each key is made (``reached_key`` is ``key(reached)``)."""


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector paused: the positions an enumeration keeps are thousands of
    small containers in no cycle, and the collector's passes over them as they pile up cost
    a tenth of a long enumeration while finding nothing. The first pass after counts every
    container made meanwhile and walks those still alive (``by_stages`` keeps no position
    past its end, ``finish``). Whatever cycles there are wait for that pass."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _by_stages(
    first: S,
    stage: Callable[[S, _ScriptedDice], None],
    over: Callable[[S], bool],
    key: Callable[[S], Hashable],
    copy: Callable[[S], S],
    limit: int,
    again: Again[S] | None,
    finish: Callable[[S], R],
) -> list[tuple[R, Fraction]]:
    # Each end by its key, with its chance: finished (``_end``) as the first position of that
    # key ends, and no position kept after: an assault ends a thousand ways, its positions
    # are the most of what an enumeration holds, and memory first touched costs the system
    # a page fault for every four kilobytes (docs/performance.md).
    ended: dict[Hashable, tuple[R, Chance]] = {}
    frontier: dict[Hashable, tuple[S, Chance]] = {key(first): (first, (1, 1))}
    # By stage key: the first start of that key, where the stage went from it (None for an
    # end: the same end from any start, ``Again.carried``), and the runs that took (counted
    # again whenever it is carried over: ``limit`` stays the bound of the enumeration as if
    # every start were run, so a battle answered or refused stays so).
    played: dict[Hashable, tuple[S, list[tuple[S | None, Hashable, Chance]], int]] = {}
    runs = 0
    while frontier:
        following: dict[Hashable, tuple[S, Chance]] = {}
        for k, (start, p) in frontier.items():
            if isinstance(start, _Carried):
                start = start.made(again)
            if over(start):  # the first position, or one carried over into its last stage
                _end(ended, k, start, p, finish)
                continue
            pn, pd = p
            alike = None if again is None else again.stage_key(start)
            known = None if alike is None else played.get(alike)
            if known is not None and again is not None:
                origin, went, cost = known
                runs += cost
                if runs > limit:
                    raise TooManyBranches(limit)
                for reached_there, k, (q, r) in went:
                    share = (pn * q, pd * r)
                    if reached_there is None:
                        _end(ended, k, None, share, finish)
                        continue
                    carried_k = again.carried_key(reached_there, k, start)
                    if carried_k in ended:  # carried over into an end reached already
                        _end(ended, carried_k, None, share, finish)
                        continue
                    position: Any = reached_there
                    if carried_k != k:
                        # Made only if it is the one kept of its key (``_Carried.made``).
                        position = _Carried(reached_there, origin, start)
                    _merge(following, carried_k, position, share)
                continue
            before_runs = runs
            runs, reached = _stage_runs(start, stage, key, copy, runs, limit)
            went = []
            for k, (position, (q, r)) in reached.items():
                share = (pn * q, pd * r)
                if over(position):
                    _end(ended, k, position, share, finish)
                    went.append((None, k, (q, r)))
                else:
                    _merge(following, k, position, share)
                    went.append((position, k, (q, r)))
            if alike is not None:
                played[alike] = (start, went, runs - before_runs)
        frontier = following
    return [(s, _fraction(p)) for s, p in ended.values()]


def _end(
    ended: dict[Hashable, tuple[R, Chance]],
    k: Hashable,
    position: S | None,
    p: Chance,
    finish: Callable[[S], R],
) -> None:
    """An end of key ``k`` reached with chance ``p``: its chance added to what ``ended`` has of
    it, or ``finish`` of it kept (positions of one key end alike, so the first stands for
    them all; ``position`` is None only for a key already there)."""
    before = ended.get(k)
    if before is None:
        assert position is not None
        ended[k] = (finish(position), p)
    else:
        ended[k] = (before[0], _plus(before[1], p))


def _stage_runs(
    start: S,
    stage: Callable[[S, _ScriptedDice], None],
    key: Callable[[S], Hashable],
    copy: Callable[[S], S],
    runs: int,
    limit: int,
) -> tuple[int, dict[Hashable, tuple[S, Chance]]]:
    """One stage played from ``start`` on every roll (``_chances`` of a run that plays it on
    a copy), as the runs made so far and, by key, the first position reached of that key
    with the chance of reaching it. A round enumerates its own dice, a dozen runs or so,
    and is enumerated from a few hundred starts: its loop is ``explore``'s without what a
    stage never asks for (a memo of checkpoints, nested enumerations)."""
    reached: dict[Hashable, tuple[S, Chance]] = {}
    composites: dict[Hashable, object] = {}
    stack: list[tuple[tuple[int, ...], int, int]] = [((), 1, 1)]
    first = runs
    while stack:
        prefix, wn, wd = stack.pop()
        runs += 1
        if runs - first > MAX_BRANCHES:  # the bound of any one enumeration
            raise TooManyBranches(MAX_BRANCHES)
        if runs > limit:
            raise TooManyBranches(limit)
        dice = _ScriptedDice(prefix, 0, None, composites)
        position = copy(start)
        stage(position, dice)
        k = key(position)
        for at, (num, den), others in dice.others:
            head = tuple(dice.faces[:at])
            for v, q, r in reversed(others):
                stack.append(((*head, v), wn * num * q, wd * den * r))
        share = (wn * dice._num, wd * dice._den)
        before = reached.get(k)
        reached[k] = (position, share) if before is None else (before[0], _plus(before[1], share))
    return runs, reached


class _Carried(Generic[S]):
    """A position carried over to another start (``Again.carried``), to be made when it is
    played on: of the positions merged into one key only the last is kept."""

    __slots__ = ("origin", "reached", "start")

    def __init__(self, reached: S, origin: S, start: S) -> None:
        self.reached, self.origin, self.start = reached, origin, start

    def made(self, again: Again[S] | None) -> S:
        assert again is not None
        return again.carried(self.reached, self.origin, self.start)


def _merge(into: dict[Hashable, tuple[S, Chance]], k: Hashable, position: S, p: Chance) -> None:
    """Position ``k`` reached with chance ``p``: its chance added to what ``into`` has of it
    (positions of one key are alike for all that follows; the last reached is kept)."""
    before = into.get(k)
    into[k] = (position, p if before is None else _plus(before[1], p))
