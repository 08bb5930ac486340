"""The wording helpers used in messages."""

import pytest

from tabletop.core.words import with_article


@pytest.mark.parametrize(
    ("word", "said"),
    [
        ("infantry", "an infantry"),
        ("armoured-car", "an armoured-car"),
        ("engineer", "an engineer"),
        ("towed-gun", "a towed-gun"),
        ("supply", "a supply"),
        ("universal-carrier", "a universal-carrier"),
    ],
)
def test_the_article_follows_the_sound_of_the_word(word: str, said: str) -> None:
    assert with_article(word) == said
