"""The dice service (tabletop.core.dice) and exact odds by enumeration (tabletop.core.odds)."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop.core import odds
from tabletop.core.dice import (
    ASK,
    GENERATE,
    GENERATED,
    MAX_SIDES,
    PHYSICAL,
    REFUSE,
    Dice,
    DiceGiven,
    allow_unused,
    parse_dice,
    parse_dice_given,
)
from tabletop.core.errors import BadInput, DiceError

# --- parse_dice ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("3", [3]),
        ("3,10,1", [3, 10, 1]),
        ("3, 10, 1", [3, 10, 1]),
        ("3 10 1", [3, 10, 1]),
        (" 4 ", [4]),
        ("3,,1", [3, 1]),
        ("6,", [6]),
        ("100", [100]),
        (str(MAX_SIDES), [MAX_SIDES]),
        ("007", [7]),
        # A 0 is refused by the die that takes it, naming its own faces (Dice.roll).
        ("0", [0]),
        ("3,0", [3, 0]),
    ],
)
def test_parse_dice_accepts(text: str, values: list[int]) -> None:
    assert parse_dice(text) == values


SHOW = " (no die has more than 1000 sides)"  # a number, but no die's face
WHOLE = " (give whole numbers like 3,10,1)"  # not a whole number as written


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("-1", "'-1' is not a die value" + WHOLE),
        ("+3", "'+3' is not a die value" + WHOLE),
        ("1_0", "'1_0' is not a die value" + WHOLE),
        ("2.5", "'2.5' is not a die value" + WHOLE),
        ("x", "'x' is not a die value" + WHOLE),
        ("3;4", "'3;4' is not a die value" + WHOLE),
        ("٣", "'٣' is not a die value" + WHOLE),  # an Arabic-Indic three: int() would take it
        ("1e3", "'1e3' is not a die value" + WHOLE),
        (str(MAX_SIDES + 1), f"{MAX_SIDES + 1} is not a die value" + SHOW),
        ("", "give the values you threw, like 3,10,1"),
        (" , ", "give the values you threw, like 3,10,1"),
    ],
)
def test_parse_dice_refuses(text: str, says: str) -> None:
    with pytest.raises(DiceError) as caught:
        parse_dice(text)
    message = str(caught.value)
    assert message == f"--dice {text!r}: {says}"
    assert isinstance(caught.value, BadInput)  # exit 2 in the CLI


# --- physical dice -------------------------------------------------------------------------


def test_physical_values_are_used_once_in_order_then_the_generator() -> None:
    dice = Dice(seed=5, physical=[3, 10, 1], rest=GENERATE)  # --dice 3,10,1,+
    got = [dice.roll(10, f"roll {i}") for i in range(5)]
    assert got[:3] == [3, 10, 1]
    assert dice.physical == []
    # Physical rolls do not advance the generator: the next two are the seed's first two.
    fresh = Dice(seed=5)
    assert got[3:] == [fresh.roll(10, "a"), fresh.roll(10, "b")]
    assert [r.source for r in dice.rolls] == [PHYSICAL] * 3 + [GENERATED] * 2
    assert [r.purpose for r in dice.rolls] == [f"roll {i}" for i in range(5)]
    assert all(r.die == 10 for r in dice.rolls)
    dice.finish()  # every physical value was used


def test_too_few_physical_values_are_refused_naming_each_die() -> None:
    dice = Dice(seed=5, physical=[3, 10])
    dice.roll(10, "to-hit 1 of 2")
    dice.roll(10, "to-hit 2 of 2")
    dice.roll(6, "hit effect")
    with pytest.raises(DiceError) as caught:
        dice.finish()
    assert str(caught.value) == (
        "--dice gave 2 values but this command needs 3 here, in this order: "
        "1. d10 for to-hit 1 of 2: given 3; 2. d10 for to-hit 2 of 2: given 10; "
        "3. d6 for hit effect: missing (how many follow a missing die can depend on what it "
        "shows); give them all, end the list with ,+ to let the program roll the rest, or "
        "use --dice ask"
    )


@pytest.mark.parametrize(
    ("text", "given"),
    [
        ("3,1", DiceGiven((3, 1), REFUSE)),
        ("3,1,+", DiceGiven((3, 1), GENERATE)),
        ("3 1 +", DiceGiven((3, 1), GENERATE)),
        ("+", DiceGiven((), GENERATE)),
        ("ask", DiceGiven((), ASK)),
        ("ASK", DiceGiven((), ASK)),
        ("4,ask", DiceGiven((4,), ASK)),
    ],
)
def test_parse_dice_given_reads_what_follows_the_values(text: str, given: DiceGiven) -> None:
    assert parse_dice_given(text) == given


def test_fewer_dice_than_thrown_are_reported_when_the_procedure_says_so() -> None:
    dice = Dice(seed=5, physical=[4, 7])
    allow_unused(dice, "the template caught no stand")
    dice.finish()
    assert dice.unused == [4, 7]
    assert dice.rolls == []


def test_physical_value_larger_than_the_die_names_the_purpose() -> None:
    dice = Dice(seed=1, physical=[7])
    with pytest.raises(DiceError, match=r"physical die 7 cannot be a d6 \(needed for to-hit G-1\)"):
        dice.roll(6, "to-hit G-1")


def test_physical_zero_is_refused_naming_the_dies_own_faces() -> None:
    dice = Dice(seed=1, physical=[0])
    with pytest.raises(DiceError) as caught:
        dice.roll(10, "to-hit G-1")
    assert str(caught.value) == (
        "physical die 0 cannot be a d10 (needed for to-hit G-1): give a value from 1 to 10"
    )


def test_finish_refuses_unused_physical_values() -> None:
    dice = Dice(seed=1, physical=[4, 2, 9])
    dice.roll(10, "to-hit")
    with pytest.raises(DiceError) as caught:
        dice.finish()
    assert str(caught.value) == "--dice gave 3 values but the command needed 1: unused 2,9"


def test_ask_callback_gives_physical_values_and_none_lets_the_generator_roll() -> None:
    answers = iter([4, None])
    asked: list[tuple[int, str]] = []

    def ask(sides: int, purpose: str) -> int | None:
        asked.append((sides, purpose))
        return next(answers)

    dice = Dice(seed=2, physical=[9], ask=ask)
    assert dice.roll(10, "first") == 9  # the --dice value comes before any question
    assert dice.roll(10, "second") == 4
    third = dice.roll(10, "third")
    assert asked == [(10, "second"), (10, "third")]
    assert third == Dice(seed=2).roll(10, "x")
    assert [r.source for r in dice.rolls] == [PHYSICAL, PHYSICAL, GENERATED]


@pytest.mark.parametrize("answer", [0, 11, -3])
def test_ask_callback_value_out_of_range(answer: int) -> None:
    dice = Dice(seed=2, ask=lambda sides, purpose: answer)
    with pytest.raises(DiceError, match=rf"{answer} is not a d10 value \(needed for morale\)"):
        dice.roll(10, "morale")


@pytest.mark.parametrize("sides", [0, 1, MAX_SIDES + 1])
def test_impossible_die_is_a_programming_error(sides: int) -> None:
    with pytest.raises(ValueError, match="sides"):
        Dice(seed=1).roll(sides, "x")


def test_roll_many_numbers_its_purposes() -> None:
    dice = Dice(seed=3)
    values = dice.roll_many(3, 10, "to-hit")
    assert len(values) == 3
    assert [r.purpose for r in dice.rolls] == [
        "to-hit (1 of 3)",
        "to-hit (2 of 3)",
        "to-hit (3 of 3)",
    ]
    assert [r.as_dict()["value"] for r in dice.rolls] == values


# --- the generator -------------------------------------------------------------------------


def test_same_seed_and_counter_give_the_same_rolls() -> None:
    first = Dice(seed=42, counter=17)
    second = Dice(seed=42, counter=17)
    a = [first.roll(10, "x") for _ in range(50)]
    b = [second.roll(10, "x") for _ in range(50)]
    assert a == b
    assert first.counter == second.counter >= 67


def test_the_counter_is_the_whole_generator_state() -> None:
    # Restoring the counter (what undo does) repeats the rolls from there.
    dice = Dice(seed=9)
    [dice.roll(6, "x") for _ in range(10)]
    mark = dice.counter
    after = [dice.roll(6, "x") for _ in range(10)]
    again = Dice(seed=9, counter=mark)
    assert [again.roll(6, "x") for _ in range(10)] == after


def sequence(seed: int, count: int = 20, sides: int = 100) -> tuple[int, ...]:
    dice = Dice(seed=seed)
    return tuple(dice.roll(sides, "x") for _ in range(count))


def test_different_seeds_differ() -> None:
    assert len({sequence(seed) for seed in range(50)}) == 50
    assert sequence(1) != sequence(2**63 - 1)


@given(
    seed=st.integers(0, 2**63 - 1),
    counter=st.integers(0, 2**40),
    sides=st.integers(2, 100),
)
def test_every_generated_roll_is_in_range(seed: int, counter: int, sides: int) -> None:
    dice = Dice(seed=seed, counter=counter)
    for _ in range(20):
        value = dice.roll(sides, "x")
        assert 1 <= value <= sides
        assert isinstance(value, int)
    assert dice.counter >= counter + 20


# --- uniformity: a chi-square goodness-of-fit test per die ----------------------------------

SAMPLE = 60_000
# Each test below has this chance of failing for a perfectly fair generator. The seed is
# fixed, so a pass is repeatable; the rate says how strong the evidence is when it fails.
FALSE_ALARM = 1e-4


def chi_square_critical(df: int, alpha: float) -> float:
    """Upper ``alpha`` point of chi-square with ``df`` degrees of freedom (Wilson-Hilferty).

    (X/df)^(1/3) is close to normal with mean 1 - 2/(9 df) and variance 2/(9 df).
    """
    z = NormalDist().inv_cdf(1 - alpha)
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


def chi_square(counts: Counter[int], sides: int, total: int) -> float:
    expected = total / sides
    return sum((counts.get(face, 0) - expected) ** 2 / expected for face in range(1, sides + 1))


def test_wilson_hilferty_matches_the_tables() -> None:
    # Published critical values: chi2(0.05; 5) = 11.070, (0.01; 9) = 21.666, (0.001; 99) = 148.23
    assert chi_square_critical(5, 0.05) == pytest.approx(11.070, rel=0.01)
    assert chi_square_critical(9, 0.01) == pytest.approx(21.666, rel=0.01)
    assert chi_square_critical(99, 0.001) == pytest.approx(148.23, rel=0.01)


@pytest.mark.parametrize("sides", [6, 10, 100])
def test_generated_rolls_are_uniform(sides: int) -> None:
    dice = Dice(seed=20240601 + sides)
    counts = Counter(dice.roll(sides, "x") for _ in range(SAMPLE))
    assert set(counts) == set(range(1, sides + 1))
    statistic = chi_square(counts, sides, SAMPLE)
    critical = chi_square_critical(sides - 1, FALSE_ALARM)
    assert statistic < critical, (sides, statistic, critical)


def test_the_chi_square_check_can_fail() -> None:
    # A die that turns 3% of its 1s into 2s is caught: the check has teeth at this sample size.
    dice = Dice(seed=7)
    values = [dice.roll(10, "x") for _ in range(SAMPLE)]
    biased = [2 if v == 1 and i % 33 == 0 else v for i, v in enumerate(values)]
    assert chi_square(Counter(values), 10, SAMPLE) < chi_square_critical(9, FALSE_ALARM)
    skew = [2 if v == 1 and i % 4 == 0 else v for i, v in enumerate(values)]
    assert chi_square(Counter(skew), 10, SAMPLE) > chi_square_critical(9, FALSE_ALARM)
    assert chi_square(Counter(biased), 10, SAMPLE) > chi_square(Counter(values), 10, SAMPLE)


# --- exact odds ----------------------------------------------------------------------------


def test_distribution_of_one_d10() -> None:
    dist = odds.distribution(lambda dice: dice.roll(10, "x"))
    assert dist == {face: Fraction(1, 10) for face in range(1, 11)}


def test_distribution_of_2d6_sums() -> None:
    dist = odds.distribution(lambda dice: dice.roll(6, "a") + dice.roll(6, "b"))
    ways = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
    assert dist == {total: Fraction(n, 36) for total, n in ways.items()}
    assert sum(dist.values()) == 1
    assert odds.expectation(dist, lambda total: total) == 7


def test_distribution_rolls_a_second_die_only_when_needed() -> None:
    # A d10; on a 1 (say, a hit that may deplete) a d6 follows.
    def procedure(dice: odds._ScriptedDice) -> tuple[int, int | None]:
        first = dice.roll(10, "to-hit")
        return (first, dice.roll(6, "check") if first == 1 else None)

    dist = odds.distribution(procedure)
    assert len(dist) == 9 + 6
    for face in range(2, 11):
        assert dist[(face, None)] == Fraction(1, 10)
    for face in range(1, 7):
        assert dist[(1, face)] == Fraction(1, 60)
    assert sum(dist.values()) == 1
    assert odds.marginal(dist, lambda o: o[1] is not None) == {
        True: Fraction(1, 10),
        False: Fraction(9, 10),
    }


def test_distribution_of_a_procedure_without_dice() -> None:
    assert odds.distribution(lambda dice: "no roll") == {"no roll": Fraction(1)}


def test_distribution_agrees_with_the_real_dice() -> None:
    # The same procedure run with the game's dice, fed every face, lands on an outcome the
    # enumeration gives for that face.
    def procedure(dice: object) -> int:
        return min(dice.roll(10, "a"), 5)  # type: ignore[attr-defined]

    dist = odds.distribution(procedure)
    for face in range(1, 11):
        assert procedure(Dice(seed=0, physical=[face])) in dist


def test_distribution_refuses_too_many_branches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(odds, "MAX_BRANCHES", 50)
    with pytest.raises(ValueError, match="too many dice branches"):
        odds.distribution(lambda dice: dice.roll(10, "a") + dice.roll(10, "b"))


def test_convolve_binomial_hits() -> None:
    # Three shots, each a hit with 3/10: the binomial distribution of hits.
    shot = {True: Fraction(3, 10), False: Fraction(7, 10)}
    dist = odds.convolve(0, shot, 3, lambda hits, hit: hits + int(hit))
    p, q = Fraction(3, 10), Fraction(7, 10)
    assert dist == {k: math.comb(3, k) * p**k * q ** (3 - k) for k in range(4)}
    assert odds.expectation(dist, lambda k: k) == Fraction(9, 10)


def test_convolve_of_a_distribution_equals_enumerating_both_dice() -> None:
    d6 = odds.distribution(lambda dice: dice.roll(6, "x"))
    folded = odds.convolve(0, d6, 2, lambda total, face: total + face)
    direct = odds.distribution(lambda dice: dice.roll(6, "a") + dice.roll(6, "b"))
    assert folded == direct


def test_convolve_zero_times_is_the_start() -> None:
    assert odds.convolve("start", {1: Fraction(1)}, 0, lambda s, o: s) == {"start": Fraction(1)}
