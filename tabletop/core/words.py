"""Small helpers for the wording of messages."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

# Words spelt with a vowel that are said with a consonant: "a universal-carrier".
_SAID_WITH_A_CONSONANT = ("uni", "use", "eu", "one")


def with_article(word: str) -> str:
    """``word`` after its indefinite article: ``a towed-gun``, ``an infantry``."""
    lower = word.lower()
    vowel = lower[:1] in tuple("aeiou") and not lower.startswith(_SAID_WITH_A_CONSONANT)
    return f"{'an' if vowel else 'a'} {word}"


def input_value(value: object) -> str:
    """A logged input as the referee typed it: ``18,9`` for a point, ``2.5`` for 2.5,
    ``24,10;30,12`` for a list of points, ``muzzle-flash=-2`` for a named value."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        items = list(value)
        if len(items) == 2 and isinstance(items[0], str) and not isinstance(items[1], str):
            return items[0] if items[1] is None else f"{items[0]}={input_value(items[1])}"
        if items and all(isinstance(i, (int, float)) and not isinstance(i, bool) for i in items):
            return ",".join(input_value(i) for i in items)
        return ";".join(input_value(i) for i in items)
    if isinstance(value, dict):
        return "(" + ", ".join(f"{k}={input_value(v)}" for k, v in value.items()) + ")"
    return str(value)


def inputs_text(inputs: dict[str, object], sep: str = " ") -> str:
    """``stand=US-1 to=18,9 check``: a command's logged inputs, a flag by its name only."""
    shown = []
    for key, value in inputs.items():
        if value in (None, [], False, {}, ()):
            continue
        shown.append(key if value is True else f"{key}={input_value(value)}")
    return sep.join(shown)


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``1 value``, ``2 values``, ``0 values``."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def point_text(x: float, y: float) -> str:
    """A table position as a referee reads it off a tape: inches to two decimals at most
    (``12.44,16.37``, ``18,27``), whatever precision a computed position carries."""
    return f"{round(x, 2):g},{round(y, 2):g}"


def fraction_text(p: Fraction) -> str:
    """An exact chance as the JSON gives it: ``"3/40"`` (SPEC 3, exact fractions)."""
    return f"{p.numerator}/{p.denominator}"


def possessive(name: str) -> str:
    """``Germany's``, ``the Allies'``: a name ending in a plural s takes the apostrophe alone
    (a stand id such as ``G-S`` or a weapon id keeps ``'s``)."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


# What a die showed, inside a result: "rolled 3 <= 6, " in "depleted (rolled 3 <= 6, CD 1.2)".
_ROLLED = re.compile(r"rolled \d+(?:\s*(?:<=|>=|<|>|over|under)\s*\d+)?(?:[,;]\s*)?")


def without_faces(text: str) -> str:
    """A result without the face that told it: ``depleted (rolled 3 <= 6, CD 1.2)`` is
    ``depleted (CD 1.2)`` whatever the die showed, so odds count it as one outcome."""
    said = _ROLLED.sub("", text).replace("()", "").replace(" ;", ";")
    return re.sub(r"\s+", " ", said).strip()
