"""How odds read as text (SPEC 3, issue 20): the likely outcomes listed, a long tail summed in
one line, and a chance too small for a tenth of a percent shown as "<0.1%", not "0.0%"."""

from __future__ import annotations

from fractions import Fraction

from tabletop.cli.odds_text import percent_text as _percent
from tests.conftest import Run, as_json


def test_assault_odds_open_with_who_holds_the_field_and_count_losses_in_men(
    game: Run,
) -> None:
    # Crossroads: US-1 against G-1 in contact, both AF 5 (aggression model defaults);
    # strength is counted in men (charts/models/aggression.yaml).
    game("place", "US-1", "18,26")
    every = as_json(game("assault", "US-1", "--against", "G-1", "--odds", "--json"))["outcomes"]
    germany = sum((Fraction(p) for k, p in every.items() if k.startswith("Germany ")), Fraction(0))
    assert _percent(germany) == "66.4%"
    text = game("assault", "US-1", "--against", "G-1", "--odds").output.splitlines()
    assert text[:4] == [
        "Odds: assault (exact; nothing rolled or logged)",
        "  holds the field: Germany 66.4%, USA 33.6%, nobody yet (still fighting) <0.1%",
        "  US-1 losses: 0 men 45.4%, 8 men 1.8%, 12 men 49.6%, 20 men 1.1%, 24 men 1.7%,",
        "    other 0.5%",
    ]
    assert text[-3:] == [
        "  expected: US-1 losses 6.813 men, US-1 retreated 0.664, G-1 losses 6.823 men,",
        "    G-1 retreated 0.336, G-1 destroyed 0.000, US-1 destroyed 0.000",
        f"  {len(every)} outcomes in all (--json lists every one)",
    ]


def test_a_long_tail_of_outcomes_is_summed_in_one_line() -> None:
    from tabletop.cli.odds_text import Summary, Table, lines

    # Forty outcomes, each longer than a word: listed one a line, thirty at most (past the
    # tenth only those of one in a thousand or more), the rest in one line.
    chances = {f"outcome number {i:02d}": Fraction(1, 40) for i in range(40)}
    text = lines(Summary("made up", [Table("outcomes", chances)]))
    assert text[:3] == [
        "Odds: made up (exact; nothing rolled or logged)",
        "  outcomes:",
        "      2.5%  outcome number 00",
    ]
    assert len(text) == 2 + 30 + 1
    assert text[-1] == "     25.0%  the 10 other outcomes together (--json lists every one)"


def test_a_chance_below_a_twentieth_of_a_percent_reads_less_than_a_tenth() -> None:
    assert _percent(Fraction(1, 10_000)) == "<0.1%"
    assert _percent(Fraction(1, 2000)) == "0.1%"
    assert _percent(Fraction(0)) == "0.0%"
    assert _percent(Fraction(1, 3)) == "33.3%"
