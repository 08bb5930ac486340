"""The closest name to a mistyped one, for "did you mean" in a refusal."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice most like ``word`` (difflib's ratio, at least 0.6), or None."""
    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return close[0] if close else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the closest choice, or nothing: for the end of a message."""
    close = closest(word, choices)
    return f"; did you mean {close!r}?" if close is not None else ""
