"""The wording helpers used in messages."""

import pytest

from tabletop.core.words import possessive, with_article


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


def test_logged_inputs_read_as_typed_not_as_python() -> None:
    from tabletop.core.words import inputs_text

    inputs = {
        "stand": "US-1",
        "to": [18.0, 9.5],
        "via": [[24.0, 10.0], [30.0, 12.0]],
        "mods": [["descending", None], ["muzzle-flash", -2]],
        "options": {"suppression": 40},
        "skip": True,
        "check": False,
        "facing": None,
        "range": 12.345678,
    }
    assert inputs_text(inputs) == (
        "stand=US-1 to=18,9.5 via=24,10;30,12 mods=descending;muzzle-flash=-2 "
        "options=(suppression=40) skip range=12.3457"
    )


def test_a_count_agrees_with_its_noun() -> None:
    from tabletop.core.words import count

    assert [count(n, "value") for n in (0, 1, 2)] == ["0 values", "1 value", "2 values"]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("Germany", "Germany's"),
        ("Allies", "Allies'"),
        ("USA", "USA's"),
        ("G-S", "G-S's"),
        ("us-75mm-m3", "us-75mm-m3's"),
    ],
)
def test_a_name_ending_in_s_takes_the_apostrophe_alone(name: str, said: str) -> None:
    assert possessive(name) == said


@pytest.mark.parametrize(
    ("status", "markers", "said"),
    [
        ("ok", [], "ok"),
        ("ok", ["suppressed"], "ok (suppressed)"),
        ("forced back", ["suppressed", "mired"], "forced back (suppressed, mired)"),
        ("eliminated", ["suppressed"], "eliminated"),
        ("lost", ["mired"], "lost"),
    ],
)
def test_a_stand_out_of_play_is_shown_without_its_markers(
    status: str, markers: list[str], said: str
) -> None:
    from tabletop.state.document import status_text

    assert status_text(status, markers) == said
