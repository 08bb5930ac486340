"""The one source of randomness.

Every roll in the program goes through a ``Dice`` object owned by the game: physical values
typed by the referee come first (``--dice 3,10,1``). When they run out, what happens is the
referee's choice (SPEC 7): too few values are refused, naming every die the command needs and
what it is for (``REFUSE``, the default); ``--dice 3,1,+`` lets the generator roll the rest
(``GENERATE``); ``--dice ask`` asks for each die at the prompt (``ASK``). Each roll is recorded
with the die, the value, its purpose and where it came from. A procedure that turns out to
need fewer dice than the referee threw (a template over empty ground) says so with
``allow_unused``: the dice left over are reported, not refused.

The generator is counter-based: roll *n* of a game with seed *s* is derived from
``blake2b(s, n)``, so the whole generator state is two numbers that fit in the game file and
``undo`` can restore it exactly. Physical rolls do not advance the counter.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import asdict, field
from typing import Protocol, TypeVar

from tabletop.core.errors import DiceError
from tabletop.core.frozen import frozen_dataclass, mutable_dataclass
from tabletop.core.words import count

try:
    # ``hashlib.blake2b`` is this very function; importing it from ``hashlib`` loads the
    # OpenSSL library for hashes the dice never use (2 to 4 ms of every command's start).
    from _blake2 import blake2b
except ImportError:  # an interpreter without CPython's own module
    from hashlib import blake2b

# The value and payload of a composite roll (``roll_composite``).
V = TypeVar("V", bound=Hashable)
W = TypeVar("W")

PHYSICAL = "physical"
GENERATED = "generated"

# What to do when the physical dice run out.
REFUSE = "refuse"
GENERATE = "generate"
ASK = "ask"

MAX_SIDES = 1000


@frozen_dataclass
class Roll:
    """One die as thrown or generated: its size, its face, what it was for and where it came
    from (``physical`` or ``generated``), as the log keeps it."""

    die: int
    value: int
    purpose: str
    source: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


class DiceLike(Protocol):
    """What rules code needs: a die roll for a stated purpose."""

    def roll(self, sides: int, purpose: str) -> int: ...


class RecordingDice(DiceLike, Protocol):
    """Dice that keep what they rolled, in order (the game's dice and the odds enumerator):
    for a procedure that reads back the faces it threw (a barrage's to-hit dice)."""

    rolls: list[Roll]


def parse_dice(text: str) -> list[int]:
    """Parse ``3,10,1`` (spaces allowed) into die values; raise ``DiceError`` on junk."""
    values: list[int] = []
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        # Plain ASCII digits only: int() would also take "1_0", "+3" or other scripts' digits.
        if not (part.isascii() and part.isdigit()):
            raise DiceError(
                f"--dice {text!r}: {part!r} is not a die value (give whole numbers like 3,10,1)"
            )
        value = int(part)
        if value > MAX_SIDES:
            raise DiceError(
                f"--dice {text!r}: {value} is not a die value (no die has more than "
                f"{MAX_SIDES} sides)"
            )
        # A 0 is refused when a die takes it, naming that die's own faces (``Dice.roll``).
        values.append(value)
    if not values:
        raise DiceError(f"--dice {text!r}: give the values you threw, like 3,10,1")
    return values


@frozen_dataclass
class DiceGiven:
    """What the referee typed after ``--dice``: the values, and what to do after them."""

    values: tuple[int, ...]
    rest: str = REFUSE


def parse_dice_given(text: str) -> DiceGiven:
    """``3,1`` (refuse if short), ``3,1,+`` (generate the rest), ``ask`` or ``3,ask``."""
    parts = text.replace(" ", ",").rstrip(",").split(",")
    last = parts[-1].strip().lower() if parts else ""
    rest = {"+": GENERATE, "ask": ASK}.get(last)
    if rest is None:
        return DiceGiven(tuple(parse_dice(text)), REFUSE)
    head = ",".join(parts[:-1])
    return DiceGiven(tuple(parse_dice(head)) if head.strip(", ") else (), rest)


def _draw(seed: int, counter: int) -> int:
    digest = blake2b(f"{seed}:{counter}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


_SPACE = 1 << 64


@mutable_dataclass
class Dice:
    """A game's dice: seeded generator plus the referee's physical dice."""

    seed: int
    counter: int = 0
    physical: list[int] = field(default_factory=list)
    ask: Callable[[int, str], int | None] | None = None
    rest: str = REFUSE
    rolls: list[Roll] = field(default_factory=list)
    # Why the command needed no roll, where the rules say (for the unused --dice message).
    no_roll_because: list[str] = field(default_factory=list)
    # Why the command rolled fewer dice than a referee throws for it (an empty template):
    # values left over are then reported in ``unused``, not refused.
    fewer_because: list[str] = field(default_factory=list)
    unused: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.given = len(self.physical)

    def allow_unused(self, reason: str) -> None:
        self.fewer_because.append(reason)

    def roll(self, sides: int, purpose: str) -> int:
        if not 2 <= sides <= MAX_SIDES:
            raise ValueError(f"a die must have 2 to {MAX_SIDES} sides, not {sides}")
        if self.physical:
            value = self.physical.pop(0)
            if not 1 <= value <= sides:
                raise DiceError(
                    f"physical die {value} cannot be a d{sides} (needed for {purpose}): "
                    f"give a value from 1 to {sides}"
                )
            return self._record(sides, value, purpose, PHYSICAL)
        if self.ask is not None:
            asked = self.ask(sides, purpose)
            if asked is not None:
                if not 1 <= asked <= sides:
                    raise DiceError(f"{asked} is not a d{sides} value (needed for {purpose})")
                return self._record(sides, asked, purpose, PHYSICAL)
        return self._record(sides, self._generate(sides), purpose, GENERATED)

    def roll_many(self, count: int, sides: int, purpose: str) -> list[int]:
        return [self.roll(sides, f"{purpose} ({i} of {count})") for i in range(1, count + 1)]

    def finish(self) -> None:
        """Refuse physical dice that were typed but not needed (a sign of a mistake), unless
        the procedure said it rolled fewer than thrown; refuse too few (``REFUSE``), naming
        each die the command needed and what it was for."""
        short = [r for r in self.rolls if r.source == GENERATED]
        if self.given and short and self.rest == REFUSE:
            raise too_few(self.rolls, self.given)
        if self.physical and self.fewer_because:
            self.unused = list(self.physical)
            self.physical.clear()
            return
        if self.physical:
            left = ",".join(str(v) for v in self.physical)
            used = sum(1 for r in self.rolls if r.source == PHYSICAL)
            if not self.rolls and self.no_roll_because:
                raise DiceError(
                    f"--dice gave {left} but no roll was needed: {'; '.join(self.no_roll_because)}"
                )
            raise DiceError(
                f"--dice gave {count(used + len(self.physical), 'value')} but the command "
                f"needed {used}: unused {left}"
            )

    def _generate(self, sides: int) -> int:
        # Rejection sampling keeps every face exactly equally likely.
        limit = _SPACE - (_SPACE % sides)
        while True:
            draw = _draw(self.seed, self.counter)
            self.counter += 1
            if draw < limit:
                return draw % sides + 1

    def _record(self, sides: int, value: int, purpose: str, source: str) -> int:
        self.rolls.append(Roll(sides, value, purpose, source))
        return value


def too_few(rolls: list[Roll], given: int) -> DiceError:
    """The refusal of too few ``--dice``: how many the command needs, each one's purpose."""
    lines = []
    for n, r in enumerate(rolls, start=1):
        mark = f"given {r.value}" if r.source == PHYSICAL else "missing"
        lines.append(f"{n}. d{r.die} for {r.purpose}: {mark}")
    return DiceError(
        f"--dice gave {count(given, 'value')} but this command needs {len(rolls)} here, in this "
        f"order: {'; '.join(lines)} (how many follow a missing die can depend on what it "
        f"shows); give them all, end the list with ,+ to let the program roll the rest, or "
        f"use --dice ask"
    )


def allow_unused(dice: DiceLike, reason: str) -> None:
    """Say the command rolled fewer dice than the referee threw for it (an empty template):
    values left over are reported, not refused."""
    method = getattr(dice, "allow_unused", None)
    if method is not None:
        method(reason)


def explain_no_roll(dice: DiceLike, reason: str) -> None:
    """Say why a command rolled nothing, for the message about unused physical dice."""
    reasons = getattr(dice, "no_roll_because", None)
    if reasons is not None:
        reasons.append(reason)


def roll_in_bands(dice: DiceLike, sides: int, purpose: str, cuts: Iterable[int]) -> int:
    """A roll whose face matters only by the band it falls in: ``cuts`` are the highest face
    of each band but the last (a test passed on 37 or less: ``(37,)``), taken from the same
    chart numbers the caller then compares the face with.

    The game's dice roll, log and show the real face as for any roll; only the odds
    enumerator reads the bands, trying one face of each band weighted by the band's size.
    The caller must then use the face only through its band (results may still show it)."""
    method = getattr(dice, "roll_in_bands", None)
    if method is not None:
        return int(method(sides, purpose, tuple(cuts)))
    return dice.roll(sides, purpose)


def roll_again_above(dice: DiceLike, sides: int, above: int, purpose: str) -> list[int]:
    """Roll, and roll again while the face is over ``above`` (CD 10.1.1's wind die): every
    face thrown, the last one the face kept. The odds enumerator takes the kept face as one
    of 1 to ``above``, each equally likely, which is exact however often the die repeats."""
    method = getattr(dice, "roll_again_above", None)
    if method is not None and 1 <= above < sides:
        return [int(method(sides, above, purpose))]
    rolls = []
    while True:
        rolls.append(dice.roll(sides, purpose))
        if rolls[-1] <= above:
            return rolls


def roll_composite(
    dice: DiceLike, key: Hashable, sub: Callable[[DiceLike], tuple[V, W]]
) -> tuple[V, W]:
    """Dice whose faces matter only through one value ``sub`` makes of them: ``sub(dice)``
    rolls them and gives ``(value, payload)`` (the payload: what the command prints, such as
    the working with each face). The game's dice just run ``sub``. The odds enumerator works
    out the distribution of ``value`` once for ``key`` (which names everything ``sub``
    depends on besides its dice) and branches on the values alone, so two continuous rolls
    multiplied together cost their 10,000 pairs once, not once per run of the command."""
    method = getattr(dice, "roll_composite", None)
    if method is not None:
        found: tuple[V, W] = method(key, sub)
        return found
    return sub(dice)


def checkpoint(dice: DiceLike, key: Hashable) -> None:
    """Say that everything still to happen, and every part of the outcome, depends only on
    ``key`` and the dice still to come (an assault at the start of a round: who is left,
    their strength and place). The odds enumerator works out what follows each ``key`` once;
    the game's dice ignore it."""
    method = getattr(dice, "checkpoint", None)
    if method is not None:
        method(key)


def rolls_as_dicts(rolls: Iterable[Roll]) -> list[dict[str, object]]:
    return [r.as_dict() for r in rolls]
