"""The one source of randomness.

Every roll in the program goes through a ``Dice`` object owned by the game: physical values
typed by the referee come first (``--dice 3,10,1``), then, when they run out, the referee is
asked at the prompt (if the CLI supplied an ``ask`` callback) or the game's generator rolls.
Each roll is recorded with the die, the value, its purpose and where it came from.

The generator is counter-based: roll *n* of a game with seed *s* is derived from
``blake2b(s, n)``, so the whole generator state is two numbers that fit in the game file and
``undo`` can restore it exactly. Physical rolls do not advance the counter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Protocol

from tabletop.core.errors import DiceError

PHYSICAL = "physical"
GENERATED = "generated"

MAX_SIDES = 1000


@dataclass(frozen=True)
class Roll:
    die: int
    value: int
    purpose: str
    source: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


class DiceLike(Protocol):
    """What rules code needs: a die roll for a stated purpose."""

    def roll(self, sides: int, purpose: str) -> int: ...


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
        if not 1 <= value <= MAX_SIDES:
            raise DiceError(
                f"--dice {text!r}: {value} is not a die value (dice show 1 to {MAX_SIDES})"
            )
        values.append(value)
    if not values:
        raise DiceError(f"--dice {text!r}: give the values you threw, like 3,10,1")
    return values


def _draw(seed: int, counter: int) -> int:
    digest = hashlib.blake2b(f"{seed}:{counter}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


_SPACE = 1 << 64


@dataclass
class Dice:
    """A game's dice: seeded generator plus the referee's physical dice."""

    seed: int
    counter: int = 0
    physical: list[int] = field(default_factory=list)
    ask: Callable[[int, str], int | None] | None = None
    rolls: list[Roll] = field(default_factory=list)
    # Why the command needed no roll, where the rules say (for the unused --dice message).
    no_roll_because: list[str] = field(default_factory=list)

    def roll(self, sides: int, purpose: str) -> int:
        if not 2 <= sides <= MAX_SIDES:
            raise ValueError(f"a die must have 2 to {MAX_SIDES} sides, not {sides}")
        if self.physical:
            value = self.physical.pop(0)
            if value > sides:
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
        """Refuse physical dice that were typed but not needed: a sign of a mistake."""
        if self.physical:
            left = ",".join(str(v) for v in self.physical)
            used = sum(1 for r in self.rolls if r.source == PHYSICAL)
            if not self.rolls and self.no_roll_because:
                raise DiceError(
                    f"--dice gave {left} but no roll was needed: {'; '.join(self.no_roll_because)}"
                )
            raise DiceError(
                f"--dice gave {used + len(self.physical)} values but the command needed "
                f"{used}: unused {left}"
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


def explain_no_roll(dice: DiceLike, reason: str) -> None:
    """Say why a command rolled nothing, for the message about unused physical dice."""
    reasons = getattr(dice, "no_roll_because", None)
    if reasons is not None:
        reasons.append(reason)


def rolls_as_dicts(rolls: Iterable[Roll]) -> list[dict[str, object]]:
    return [r.as_dict() for r in rolls]
