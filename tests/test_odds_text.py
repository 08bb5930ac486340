"""How odds read as text (SPEC 3, issue 20): the likely outcomes listed, a long tail summed in
one line, and a chance too small for a tenth of a percent shown as "<0.1%", not "0.0%"."""

from __future__ import annotations

from fractions import Fraction

from tabletop.cli.core import percent_text as _percent
from tests.conftest import Run, as_json


def test_a_long_tail_of_outcomes_is_summed_in_one_line(game: Run) -> None:
    game("place", "US-1", "18,26")
    every = as_json(game("assault", "US-1", "--against", "G-1", "--odds", "--json"))["outcomes"]
    chances = sorted((Fraction(p) for p in every.values()), reverse=True)
    text = game("assault", "US-1", "--against", "G-1", "--odds").output.splitlines()
    listed = [line for line in text[1:] if not line.startswith("  expected ")]
    # Thirty outcomes at most (past the tenth, only those of one in a thousand or more), then
    # one line for the rest.
    shown = [p for i, p in enumerate(chances) if i < 30 and (i < 10 or p >= Fraction(1, 1000))]
    assert len(listed) == len(shown) + 1
    rest = sum(chances[len(shown) :], Fraction(0))
    assert listed[-1] == (
        f"  {_percent(rest):>6}  the {len(chances) - len(shown)} other outcomes together "
        "(--json lists every one)"
    )


def test_a_chance_below_a_twentieth_of_a_percent_reads_less_than_a_tenth() -> None:
    assert _percent(Fraction(1, 10_000)) == "<0.1%"
    assert _percent(Fraction(1, 2000)) == "0.1%"
    assert _percent(Fraction(0)) == "0.0%"
    assert _percent(Fraction(1, 3)) == "33.3%"
