"""Small helpers for the wording of messages."""

from __future__ import annotations

# Words spelt with a vowel that are said with a consonant: "a universal-carrier".
_SAID_WITH_A_CONSONANT = ("uni", "use", "eu", "one")


def with_article(word: str) -> str:
    """``word`` after its indefinite article: ``a towed-gun``, ``an infantry``."""
    lower = word.lower()
    vowel = lower[:1] in tuple("aeiou") and not lower.startswith(_SAID_WITH_A_CONSONANT)
    return f"{'an' if vowel else 'a'} {word}"
