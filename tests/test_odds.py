"""Odds for every rolling command (SPEC 3, issue 20): the exact distribution from running the
command's own procedure over every face of its dice (``Game.odds``), checked against a
brute-force count over every combination of thrown dice, on small cases."""

from __future__ import annotations

import math
import shutil
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tabletop.cli import cli
from tabletop.core.dice import GENERATE, GENERATED, Dice
from tabletop.game.actions import procedure
from tabletop.game.engine import Game, outcome_of
from tabletop.rules.context import RulesContext
from tabletop.state.document import State
from tests.conftest import Run, as_json, file_digest, goto_phase

ENGINEERS = str(Path(__file__).parent / "data" / "engineers.yaml")


def _made(folder: Path, *commands: tuple[str, ...]) -> Path:
    path = folder / "game.sqlite"
    runner = CliRunner()
    for argv in commands:
        result = runner.invoke(cli, [*argv, "--game", str(path)])
        assert result.exit_code == 0, (argv, result.output)
    return path


@pytest.fixture(scope="module")
def mud_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Crossroads (seed 1) in deep mud, turn 1, movement phase; G-5 has moved half an inch
    (set up by hand), so it checks for miring (CD 11.1.4)."""
    return _made(
        tmp_path_factory.mktemp("mud"),
        ("new", "crossroads", "--seed", "1"),
        ("weather", "set", "--ground", "mud-deep"),
        ("place", "G-5", "40", "20.5"),
    )


@pytest.fixture(scope="module")
def eng_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _made(tmp_path_factory.mktemp("eng"), ("new", ENGINEERS, "--seed", "5"))


@pytest.fixture
def mud(mud_file: Path, run: Run) -> Run:
    shutil.copy(mud_file, run.game)  # type: ignore[attr-defined]
    return run


def brute_force(
    path: Path,
    command: str,
    inputs: dict[str, Any],
    dice: int,
    tell: Any = outcome_of,
    sides: int = 10,
) -> dict[str, Any]:
    """Every combination of ``dice`` dice of ``sides`` thrown, each run through the command's
    procedure on a fresh copy of the state and told apart by ``tell`` (the command's reading
    of its result); dice a combination did not need are simply not used."""
    g = Game.open(path)
    try:
        rows, loaded = g.store.rows(), g.loaded
        counts: Counter[str] = Counter()
        for faces in product(range(1, sides + 1), repeat=dice):
            d = Dice(0, physical=list(faces), rest=GENERATE)
            ctx = RulesContext(State.from_db(rows), d, loaded.scenario, loaded.charts)
            key, _ = tell(procedure(command)(ctx, inputs))
            assert not any(r.source == GENERATED for r in d.rolls), "needs more dice"
            counts[key] += 1
    finally:
        g.close()
    return {k: Fraction(c, sides**dice) for k, c in counts.items()}


def odds_of(path: Path, command: str, inputs: dict[str, Any]) -> dict[str, Fraction]:
    g = Game.open(path)
    try:
        return g.odds(command, inputs).outcomes
    finally:
        g.close()


# --- each rolling command against brute force -------------------------------------------------


def test_mire_odds_match_brute_force(mud_file: Path) -> None:
    inputs = {"stand": "G-5", "where": None, "across": None}
    got = odds_of(mud_file, "mire", inputs)
    assert got == brute_force(mud_file, "mire", inputs, 1)
    # CD 11.1: the armoured car in deep mud mires on 4 or less.
    assert got == {"mired false": Fraction(3, 5), "mired true": Fraction(2, 5)}


def test_fire_odds_match_brute_force(mud_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "fire.sqlite"
    shutil.copy(mud_file, path)
    runner = CliRunner()
    assert runner.invoke(cli, ["phase", "next", "--game", str(path)]).exit_code == 0
    inputs = {
        "shooter": "G-4",
        "target": "US-4",
        "weapon": None,
        "ammo": "standard",
        "range": None,
        "cover": None,
        "mods": [],
        "spotted": False,
    }
    got = odds_of(path, "fire", inputs)
    assert got == brute_force(path, "fire", inputs, 2)  # ROF 1: to-hit, then its effect
    assert sum(got.values()) == 1


def test_demolition_odds_match_brute_force(eng_file: Path) -> None:
    inputs = {"target": "bridge-1", "by": "G-E1"}
    got = odds_of(eng_file, "demolish", inputs)
    assert got == brute_force(eng_file, "demolish", inputs, 1)
    # CD 2.1.1, class IV: damaged over 4, destroyed from 8 (twice the class); 10 destroys.
    assert got == {
        "result failed": Fraction(2, 5),
        "result destroyed": Fraction(3, 10),
        "result damaged": Fraction(3, 10),
    }


def test_structure_damage_odds_match_brute_force(eng_file: Path) -> None:
    inputs = {"target": "huts", "cause": "bomb", "by": None}
    got = odds_of(eng_file, "structure-damage", inputs)
    assert got == brute_force(eng_file, "structure-damage", inputs, 2)


def test_structure_fire_odds_group_by_what_happens(eng_file: Path, tmp_path: Path) -> None:
    # CD 6.1.2: the 155mm howitzer damages the town on a 1 in 10; then G-INF inside takes an
    # automatic hit (CD 6.2.2), a d10 on the hit effects chart (regular: 1-3 no effect, 4-6
    # forced back, 7+ eliminated). One outcome per effect, not per face.
    from tabletop.rules.cd.structures import fire_outcome

    path = tmp_path / "fire.sqlite"
    shutil.copy(eng_file, path)
    runner = CliRunner()
    for _ in range(2):
        assert runner.invoke(cli, ["phase", "next", "--game", str(path)]).exit_code == 0
    inputs = {"target": "town", "by": "US-TANK", "weapon": None}
    got = odds_of(path, "structure-fire", inputs)
    assert got == brute_force(path, "structure-fire", inputs, 2, fire_outcome)
    rubble = "damaged: town reduced to rubble: medium cover (CD 6.2.2); G-INF inside takes a hit: "
    assert got == {
        "holds": Fraction(9, 10),
        rubble + "no effect": Fraction(3, 100),
        rubble + "forced back": Fraction(3, 100),
        rubble + "eliminated": Fraction(4, 100),
    }


@pytest.fixture(scope="module")
def typhoon_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = Path(__file__).parent / "data" / "typhoon.yaml"
    return _made(tmp_path_factory.mktemp("typhoon"), ("new", str(data), "--seed", "1"))


def _typhoon(procedure: str, **options: Any) -> dict[str, Any]:
    return {"model": "typhoon", "procedure": procedure, "options": options}


def test_typhoon_skill_check_odds_group_by_pass_or_fail(typhoon_file: Path) -> None:
    # ToS V Skill check: a d10 at or under the skill passes (skill 6: 6 in 10).
    inputs = _typhoon("skill-check", skill=6)
    got = odds_of(typhoon_file, "model-run", inputs)
    assert got == brute_force(typhoon_file, "model-run", inputs, 1)
    assert got == {"result passed": Fraction(3, 5), "result failed": Fraction(2, 5)}


def test_typhoon_first_shot_odds_group_by_pass_or_fail(typhoon_file: Path) -> None:
    # ToS V First shot check: rating x Rnd(10) >= 50, Rnd(10) read from a d100 face; brute
    # force over the hundred faces.
    inputs = _typhoon("first-shot", rating=40)
    got = odds_of(typhoon_file, "model-run", inputs)
    assert got == brute_force(typhoon_file, "model-run", inputs, 1, sides=100)
    assert set(got) == {"result passed", "result failed"}


# --- the CLI: --odds and 'tabletop odds CMD' --------------------------------------------------


def test_odds_option_gives_exact_fractions_and_logs_nothing(mud: Run) -> None:
    before = file_digest(mud.game)  # type: ignore[attr-defined]
    data = as_json(mud("mire", "G-5", "--odds", "--json"))
    assert data["outcomes"] == {"mired false": "3/5", "mired true": "2/5"}
    assert data["expected"] == {"mired": "2/5"}
    assert file_digest(mud.game) == before  # type: ignore[attr-defined]


def test_odds_group_mirrors_the_option(mud: Run) -> None:
    assert mud("odds", "mire", "G-5").output == mud("mire", "G-5", "--odds").output
    assert mud("mire", "G-5", "--odds").output.splitlines() == [
        "Odds: mire (exact; nothing rolled or logged)",
        "  outcomes: not mired 60.0%, mired 40.0%",
        "  expected: mired 0.400",
    ]


def test_odds_with_dice_is_refused(mud: Run) -> None:
    out = mud("mire", "G-5", "--odds", "--dice", "3", code=2).output
    assert out.startswith("Error: --odds rolls nothing: leave out --dice")


def test_odds_refused_by_the_rules_like_the_command(mud: Run) -> None:
    mud("mire", "G-5", "--dice", "3")
    out = mud("odds", "mire", "G-5", code=3).output
    assert out.strip() == "Error: G-5 is already mired: unmire it first (CD 11.1.4, 11.1.5)"


def test_odds_of_too_many_branches_is_a_clear_refusal(mud: Run) -> None:
    out = mud("odds", "roll", "100d1000", code=2).output
    assert out.startswith("Error: the odds of roll cannot be worked out exactly here")


def _faces_until_kept(path: Path, command: str, inputs: dict[str, Any], dice: int) -> Any:
    """Every combination of ``dice`` d10, each run through the command; combinations after
    which the command still wanted a die (a re-roll not yet settled) are left out."""
    g = Game.open(path)
    try:
        rows, loaded = g.store.rows(), g.loaded
        counts: Counter[str] = Counter()
        for faces in product(range(1, 11), repeat=dice):
            d = Dice(0, physical=list(faces), rest=GENERATE)
            ctx = RulesContext(State.from_db(rows), d, loaded.scenario, loaded.charts)
            key, _ = outcome_of(procedure(command)(ctx, inputs))
            if not any(r.source == GENERATED for r in d.rolls):
                counts[key] += 1
    finally:
        g.close()
    return counts


def test_weather_roll_odds_are_exact_however_often_the_wind_die_is_rolled_again(
    mud_file: Path,
) -> None:
    # CD 10.1.1: a d10 on the wind direction chart, rolled again on 9 or 10: each of the
    # eight directions 1/8. By brute force over three dice, among the throws that settle
    # the wind within them, each direction is equally common.
    inputs = {"preset": None}
    got = odds_of(mud_file, "weather-roll", inputs)
    assert got == {f"wind from {n}": Fraction(1, 8) for n in range(1, 9)}
    counts = _faces_until_kept(mud_file, "weather-roll", inputs, 3)
    settled = sum(counts.values())
    assert {k: Fraction(n, settled) for k, n in counts.items()} == got


def test_weather_roll_preset_odds_match_brute_force(mud_file: Path) -> None:
    # A preset rolls a d10 each on its weather, ground and wind tables and for dust, then
    # the wind direction (1/8 each, above). Brute force over every face of the four table
    # dice with the direction die on 1, against the odds of "wind from 1" times 8.
    inputs = {"preset": "eastern-europe-winter"}
    got = odds_of(mud_file, "weather-roll", inputs)
    assert sum(got.values()) == 1
    from_1 = {k: p * 8 for k, p in got.items() if k.startswith("wind from 1;")}
    g = Game.open(mud_file)
    try:
        rows, loaded = g.store.rows(), g.loaded
        counts: Counter[str] = Counter()
        for faces in product(range(1, 11), repeat=4):
            d = Dice(0, physical=[*faces, 1])
            ctx = RulesContext(State.from_db(rows), d, loaded.scenario, loaded.charts)
            counts[outcome_of(procedure("weather-roll")(ctx, inputs))[0]] += 1
    finally:
        g.close()
    assert from_1 == {k: Fraction(n, 10**4) for k, n in counts.items()}


def test_plain_roll_odds_are_those_of_the_total(mud_file: Path) -> None:
    # 3d6: the dice are followed total by total; brute force over all 216 throws agrees.
    inputs = {"dice": "3d6", "purpose": None}
    got = odds_of(mud_file, "roll", inputs)
    counts = Counter(f"total {sum(t)}" for t in product(range(1, 7), repeat=3))
    assert got == {k: Fraction(n, 216) for k, n in counts.items()}
    assert got["total 10"] == Fraction(1, 8)


def test_plain_roll_odds_of_many_big_dice_are_exact(mud_file: Path) -> None:
    # 2d100 by brute force over all 10,000 throws; 10d100 answers too (its dice convolved),
    # its extremes one chance in 100^10.
    got = odds_of(mud_file, "roll", {"dice": "2d100", "purpose": None})
    counts = Counter(f"total {a + b}" for a in range(1, 101) for b in range(1, 101))
    assert got == {k: Fraction(n, 10_000) for k, n in counts.items()}
    ten = odds_of(mud_file, "roll", {"dice": "10d100", "purpose": None})
    assert len(ten) == 991 and sum(ten.values()) == 1
    assert ten["total 10"] == ten["total 1000"] == Fraction(1, 100**10)
    assert ten["total 11"] == Fraction(10, 100**10)


def test_plain_roll_still_rolls_each_die(mud: Run) -> None:
    data = as_json(mud("roll", "3d6", "--dice", "6,1,4", "--json"))
    assert (data["values"], data["total"]) == ([6, 1, 4], 11)
    assert [r["purpose"] for r in data["rolls"]] == [
        "referee roll (1 of 3)",
        "referee roll (2 of 3)",
        "referee roll (3 of 3)",
    ]


def test_plain_roll_odds_in_text_and_json(mud: Run) -> None:
    data = as_json(mud("odds", "roll", "2d6", "--json"))
    assert data["outcomes"]["total 7"] == "1/6"
    assert data["expected"] == {"total": "7/1"}
    assert mud("odds", "roll", "2d6").output.splitlines() == [
        "Odds: roll (exact; nothing rolled or logged)",
        "  total: 2 2.8%, 3 5.6%, 4 8.3%, 5 11.1%, 6 13.9%, 7 16.7%, 8 13.9%, 9 11.1%,",
        "    10 8.3%, 11 5.6%, 12 2.8%",
        "  expected: total 7.000",
    ]
    assert mud("roll", "2d6", "--odds").output == mud("odds", "roll", "2d6").output


# --- the enumerator itself ---------------------------------------------------------------------


def _walk(d: Any, banded: bool, marks: bool) -> int:
    """A made-up procedure of rounds: each round a d10 against 4 (banded or not), moving a
    counter; what follows a round depends on the counter only."""
    from tabletop.core.dice import checkpoint, roll_in_bands

    at = 0
    for n in range(4):
        if marks:
            checkpoint(d, (n, at))
        face = roll_in_bands(d, 10, "step", (4,)) if banded else d.roll(10, "step")
        at += 1 if face <= 4 else -1
        if at < -1:
            return at
    return at


def test_bands_and_checkpoints_change_no_chance() -> None:
    from tabletop.core.odds import distribution

    plain = distribution(lambda d: _walk(d, banded=False, marks=False))
    assert distribution(lambda d: _walk(d, banded=True, marks=False)) == plain
    assert distribution(lambda d: _walk(d, banded=True, marks=True)) == plain
    assert distribution(lambda d: _walk(d, banded=False, marks=True)) == plain
    # By hand: four steps up, (4/10)^4.
    assert plain[4] == Fraction(2, 5) ** 4


def test_checkpoints_save_runs() -> None:
    from tabletop.core.odds import TooManyBranches, distribution

    with pytest.raises(TooManyBranches):
        distribution(lambda d: _walk(d, banded=False, marks=False), limit=2000)
    distribution(lambda d: _walk(d, banded=False, marks=True), limit=2000)


def test_a_die_rolled_again_is_exact() -> None:
    from tabletop.core.dice import roll_again_above
    from tabletop.core.odds import distribution

    assert distribution(lambda d: roll_again_above(d, 6, 4, "again on 5+")[-1]) == {
        n: Fraction(1, 4) for n in range(1, 5)
    }
    # The game's dice throw until a face is kept, each throw logged.
    dice = Dice(0, physical=[6, 5, 2])
    assert roll_again_above(dice, 6, 4, "again on 5+") == [6, 5, 2]
    assert [r.value for r in dice.rolls] == [6, 5, 2]


def test_stages_merge_positions_without_changing_chances() -> None:
    from tabletop.core.odds import by_stages, distribution

    def stage(s: list[int], d: Any) -> None:
        s[0] += 1 if d.roll(6, "step") <= 2 else 0
        s[1] += 1

    ended = by_stages([0, 0], stage, lambda s: s[1] == 5, tuple, list, finish=tuple)
    staged = {s[0]: p for s, p in ended}

    def whole(d: Any) -> int:
        s = [0, 0]
        while s[1] < 5:
            stage(s, d)
        return s[0]

    assert staged == distribution(whole)
    assert staged[5] == Fraction(1, 3) ** 5


def test_stages_tell_each_end_once_as_it_is_first_reached() -> None:
    from tabletop.core.odds import by_stages

    def stage(s: list[int], d: Any) -> None:
        s[0] += 1 if d.roll(6, "step") <= 2 else 0
        s[1] += 1

    told: list[tuple[int, ...]] = []

    def finish(s: list[int]) -> str:
        told.append(tuple(s))
        return f"{s[0]} of 5"

    ended = by_stages([0, 0], stage, lambda s: s[1] == 5, tuple, list, finish=finish)
    # One end for each score, told once, though each is reached by many positions.
    assert sorted(told) == [(n, 5) for n in range(6)]
    binomial = {f"{n} of 5": Fraction(math.comb(5, n) * 2 ** (5 - n), 3**5) for n in range(6)}
    assert dict(ended) == binomial


def test_stages_played_alike_are_enumerated_once_and_carried_over() -> None:
    from tabletop.core.odds import TooManyBranches, by_stages

    # A stage that depends on the score only, not on the stages played: from a score seen
    # before, the stage is not run again but carried over (the stages played renumbered).
    runs = []

    def stage(s: list[int], d: Any) -> None:
        runs.append(tuple(s))
        s[0] = min(2, s[0] + (1 if d.roll(6, "step") <= 2 else 0))
        s[1] += 1

    class Alike:
        @staticmethod
        def stage_key(s: list[int]) -> int:
            return s[0]

        @staticmethod
        def carried(reached: list[int], origin: list[int], start: list[int]) -> list[int]:
            return [reached[0], start[1] + 1]

        @staticmethod
        def carried_key(reached: list[int], key: tuple[int, ...], start: list[int]) -> Any:
            return (reached[0], start[1] + 1)

    def over(s: list[int]) -> bool:
        return s[1] == 5

    plain = by_stages([0, 0], stage, over, tuple, list, finish=tuple)
    played = len(runs)
    runs.clear()
    carried = by_stages([0, 0], stage, over, tuple, list, again=Alike(), finish=tuple)
    assert dict(carried) == dict(plain)
    assert (played, len(runs)) == (72, 18)  # six faces from each of 0, 1 and 2 points
    # The bound counts the runs carried over too: the same battles are refused.
    with pytest.raises(TooManyBranches):
        by_stages([0, 0], stage, over, tuple, list, limit=71, again=Alike(), finish=tuple)
    assert len(by_stages([0, 0], stage, over, tuple, list, 72, Alike(), finish=tuple)) == 3


def test_an_assault_round_carried_over_is_the_round_fought_from_there(
    game: Run, tmp_path: Path
) -> None:
    """``Battle.continued``: a round the odds enumerated from one position, carried to
    another of the same stage key, is the battle that round fights from there by the same
    dice: its outcome, its rounds fought and its position."""
    from tabletop.core.odds import no_dice
    from tabletop.rules.models.aggression.battle import AssaultStages, Battle

    game("place", "US-1", "18", "26.2")
    g = Game.open(tmp_path / "game.sqlite")
    try:
        ctx = RulesContext(g.state(), no_dice(), g.loaded.scenario, g.loaded.charts)
        first = AssaultStages.begin(ctx, {"attackers": ["US-1"], "defenders": ["G-1"]})
    finally:
        g.close()

    def fought(start: Battle, *faces: int) -> Battle:
        battle = start.copy()
        AssaultStages.stage(battle, Dice(0, physical=list(faces)))
        return battle

    # Both miss and both stand, twice: the same position but for the rounds fought.
    one = fought(first, 100, 100, 100, 100)
    two = fought(one, 100, 100, 100, 100)
    assert one.stage_key() == two.stage_key() is not None
    assert one.position() != two.position()
    # Both hit and both stand (the battle goes on); G-1 is hit and fails its test (it ends).
    for faces, ends in [((1, 1, 100, 100), False), ((1, 100, 1), True)]:
        carried = fought(one, *faces).continued(one, two)
        direct = fought(two, *faces)
        assert carried.position() == direct.position()
        assert direct.ended() == ends
        if not ends:
            assert carried.outcome() == direct.outcome()
            assert (carried.fought, direct.fought) == (3, 3)
            assert carried.retreated == direct.retreated


def test_minefield_attack_odds_at_the_phase_end(eng_file: Path, run: Run) -> None:
    # CD 3.2: moved through a real field, two attacks at the opportunity fire phase; each
    # hits personnel on 1-3, and a hit rolls on the hit effects chart (regular: 7+
    # eliminated, so 4 in 10).
    shutil.copy(eng_file, run.game)  # type: ignore[attr-defined]
    run("minefield", "place", "30", "11", "--side", "Germany", "--pregame")
    run("place", "US-INF", "30", "14")
    run("minefield", "cross", "US-INF", "--path", "30,9")
    before = file_digest(run.game)  # type: ignore[attr-defined]
    data = as_json(run("odds", "phase", "next", "--json"))
    outcomes = {k: Fraction(v) for k, v in data["outcomes"].items()}
    assert outcomes["US-INF minefield attack: no hits (CD 3.2)"] == Fraction(7, 10) ** 2
    assert outcomes["US-INF minefield attack: 1 hit: eliminated (CD 3.2)"] == Fraction(
        2 * 3 * 7 * 4, 1000
    )
    text = run("odds", "phase", "next").output.splitlines()
    assert text[:4] == [
        "Odds: phase-next (exact; nothing rolled or logged)",
        "  US-INF minefield attack:",
        "     49.0%  no hits",
        "     16.8%  1 hit: eliminated",
    ]
    assert sum(outcomes.values()) == 1
    assert file_digest(run.game) == before  # type: ignore[attr-defined]


def test_model_procedure_odds_match_its_own_exact_chances(tmp_path: Path) -> None:
    # SB Combat Results: a combat value of 45 against the baseline 10,000, between the fire
    # chart's low 6 and high 60 casualties (the chart's defaults): a d100 picks the value
    # between them, and its fraction is rounded up at random (percentile dice to the
    # hundredth, tried by band). The procedure's own closed-form count must agree.
    from tabletop.rules.models.squad_battles.results import distribution as sb_chances

    path = _made(tmp_path, ("new", str(Path(__file__).parent / "data" / "squad_battles.yaml")))
    got = odds_of(
        path,
        "model-run",
        {
            "model": "squad-battles",
            "procedure": "combat-results",
            "options": {"combat_value": "45"},
        },
    )
    exact = sb_chances(Fraction(45), Fraction(6), Fraction(60), Fraction(10_000))
    assert got == {f"{n} {'casualty' if n == 1 else 'casualties'}": p for n, p in exact.items()}


def test_fire_odds_read_as_words_not_python_lists(game: Run) -> None:
    # Crossroads: US-4's 75 mm at G-4, 16.9" (medium), needs 5 or less (CD weapons chart);
    # the effect die on a hit: eliminated 4 in 10, forced back 3, no effect 3.
    game("phase", "next")
    game("phase", "next")
    odds = game("fire", "US-4", "G-4", "--odds").output
    assert odds.splitlines() == [
        "Odds: us-75mm-m2 at G-4, needs 5 or less, ROF 1 (exact; nothing rolled or logged)",
        "  outcomes: missed 50.0%, no effect 15.0%, forced back 15.0%, eliminated 20.0%",
        "  hits: 0 50.0%, 1 50.0%",
        "  ammunition: ok 94.0%, depleted 6.0%",
        "  expected: hits 0.500, depletion checks 0.100, depleted 0.060",
    ]
    # One summary, from one formatter: the option and the group say the same (issue 28).
    assert game("odds", "fire", "US-4", "G-4").output == odds
    assert as_json(game("fire", "US-4", "G-4", "--odds", "--json")) == as_json(
        game("odds", "fire", "US-4", "G-4", "--json")
    )


def test_fire_odds_typed_now_are_refused_as_the_shot_would_be(game: Run) -> None:
    # 'fire --odds' is the shot typed now: in the movement phase it is refused as the shot
    # is; 'odds fire' asks in advance and answers in any phase.
    refused = game("fire", "US-4", "G-4", "--odds", code=3).output
    assert refused.startswith("Error: direct fire is not allowed in the movement phase")
    assert game("odds", "fire", "US-4", "G-4").exit_code == 0


def test_barrage_odds_name_each_stand_under_the_template(game: Run) -> None:
    # Crossroads: US-5's 81 mm mortar at G-3 in the village (medium cover): needs 2 or
    # less on the d10 (CD barrage); the stands under a template are named, not a dict.
    game("turn", "next", "--yes")
    game("phase", "next")
    odds = game("barrage", "US-5", "--at", "27,21", "--odds").output
    assert odds.splitlines()[:4] == [
        "Odds: mortar-81 at 27,21 (exact; nothing rolled or logged)",
        "  G-3 (needs 2): suppressed 90.0%, forced back 4.0%, eliminated 6.0%",
        "  ammunition: depleted 8.0%, not depleted 92.0%",
        "  expected: hits 0.200, eliminated 0.060, depleted 0.080",
    ]
    assert game("odds", "barrage", "US-5", "--at", "27,21").output == odds


def test_demolition_odds_name_the_result_alone(eng_file: Path, run: Run) -> None:
    # CD 2.4.1: wired charges on bridge-1 fail, damage or destroy it (engineers.yaml).
    shutil.copy(eng_file, run.game)  # type: ignore[attr-defined]
    out = run("engineer", "demolish", "bridge-1", "--by", "G-E1", "--odds").output
    assert out.splitlines() == [
        "Odds: demolish (exact; nothing rolled or logged)",
        "  outcomes: failed 40.0%, damaged 30.0%, destroyed 30.0%",
    ]


@pytest.mark.parametrize("command", ["status", "move"])
def test_odds_of_a_command_that_gives_none_is_refused(mud: Run, command: str) -> None:
    before = file_digest(mud.game)  # type: ignore[attr-defined]
    out = mud("odds", command, code=2).output
    assert out == (
        f"Error: {command!r} gives no odds: 'odds' takes a command that rolls (fire, barrage, "
        "mire, assault, weather roll, ...); a move's risks are in 'move --check' "
        "(see 'tabletop odds --help')\n"
    )
    assert file_digest(mud.game) == before  # type: ignore[attr-defined]


def test_quick_fire_odds_option_mirrors_odds_fire() -> None:
    # The calculator without a game: --odds gives what 'tabletop odds fire' gives (CD
    # weapons chart: pak-36 at 14" against infantry needs 4 or less).
    args = ["--weapon", "pak-36", "--range", "14", "--target-kind", "infantry"]
    runner = CliRunner()
    option = runner.invoke(cli, ["fire", *args, "--odds"])
    group = runner.invoke(cli, ["odds", "fire", *args])
    assert option.exit_code == group.exit_code == 0
    assert option.output == group.output
    assert option.output.splitlines()[0] == (
        "Odds: pak-36 at infantry, needs 4 or less, ROF 1 (exact; nothing rolled or logged)"
    )


def test_odds_without_a_game_says_what_to_do(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["roll", "2d6", "--odds", "--game", str(tmp_path / "no")])
    assert (result.exit_code, result.output) == (
        2,
        "Error: --odds works out 'roll' in a game: start one with 'tabletop new SCENARIO' "
        "(without a game, only quick fire has odds: 'tabletop fire --weapon ... --odds') "
        "(see 'tabletop roll --help')\n",
    )


def test_typhoon_he_losses_odds_match_every_pair_of_rnd_faces(charts: Any) -> None:
    # ToS V Damage to soft targets: men killed = IA x Rnd(1) x RA / 200 + Rnd(1), the
    # remainder a percent chance of one more, then (shell size over 1) one more when
    # RA + 10 > 200 x Rnd(1). By brute force over both multiplied Rnd(1) faces (10,000
    # pairs), the remainder's chance as the percentile dice settle it and the extra kill by
    # counting its faces; the odds band the extra-kill die and follow the men killed once.
    from tabletop.core.odds import distribution
    from tabletop.rules.models import find_model
    from tabletop.rules.models.chance import percent, settled
    from tabletop.rules.models.typhoon import damage as dmg
    from tabletop.rules.models.typhoon.tables import EPS

    t = find_model("typhoon", charts).t  # type: ignore[attr-defined]
    weapon, target = t.weapons["105MM"], t.tables["unit"]["US-RIFLE"]
    ia, ra, men = 40.0, 63.37, 6
    assert weapon.size > 1
    got = distribution(
        lambda d: dmg.he_losses(t, d, weapon, ia, ra, target, dmg.Status(men=men), "he").killed,
        limit=60_000,
    )
    extra = Fraction(sum(dmg.extra_kill(t, ra, t.rnd_of(f, 1)) for f in t.faces()), 100)
    exact: dict[int, Fraction] = {}
    for f1 in t.faces():
        for f2 in t.faces():
            value = dmg.kill_value(t, ia, ra, t.rnd_of(f1, 1), t.rnd_of(f2, 1))
            whole, rest = dmg.split(value)
            more = settled(percent(rest)) if rest > EPS else Fraction(0)
            for n, p in (
                (whole, (1 - more) * (1 - extra)),
                (whole + 1, more * (1 - extra) + (1 - more) * extra),
                (whole + 2, more * extra),
            ):
                k = min(n, men)
                exact[k] = exact.get(k, Fraction(0)) + p / 10_000
    assert got == {k: p for k, p in exact.items() if p}
    assert sum(got.values()) == 1


def test_a_composite_roll_gives_the_odds_of_its_dice_face_by_face() -> None:
    # Two d10 multiplied, only whether the product passes 30 mattering to what follows, then
    # a d6: the composite's values (pass or not) weighted by their chance, exactly as every
    # face of every die counted.
    from tabletop.core.dice import roll_composite
    from tabletop.core.odds import distribution

    def product(d: Any) -> tuple[bool, str]:
        a, b = d.roll(10, "a"), d.roll(10, "b")
        return a * b > 30, f"{a} x {b}"

    def with_composite(d: Any) -> tuple[bool, int]:
        passed, _ = roll_composite(d, "product over 30", product)
        return passed, d.roll(6, "then")

    def face_by_face(d: Any) -> tuple[bool, int]:
        passed, _ = product(d)
        return passed, d.roll(6, "then")

    counted = distribution(face_by_face)
    assert distribution(with_composite) == counted
    over = sum(1 for a in range(1, 11) for b in range(1, 11) if a * b > 30)
    assert counted[(True, 1)] == Fraction(over, 100 * 6)


def test_phase_end_depletion_odds_say_depleted_not_die_faces(game: Run) -> None:
    # Crossroads: two 1s in the fire phase book two depletion dice (CD 1.1); each 75 mm in
    # a tank depletes on 6 or less (CD 1.2, 1.2.2: 7 cm - 1), 60% each, whatever the face.
    goto_phase(game, "fire")
    game("fire", "US-4", "G-1", "--range", "10", "--dice", "1,5")
    game("fire", "US-3", "G-3", "--range", "10", "--dice", "1,2")
    before = file_digest(game.game)  # type: ignore[attr-defined]
    assert game("phase", "next", "--odds").output.splitlines() == [
        "Odds: phase-next (exact; nothing rolled or logged)",
        "  US-4 us-75mm-m2 depletion check: depleted 60.0%, ammunition holds 40.0%",
        "  US-3 us-75mm-m3 depletion check: depleted 60.0%, ammunition holds 40.0%",
        "  4 outcomes in all (--json lists every one)",
    ]
    outcomes = as_json(game("odds", "phase", "next", "--json"))["outcomes"]
    assert outcomes == {
        "US-4 us-75mm-m2 depletion check: depleted (CD 1.2); "
        "US-3 us-75mm-m3 depletion check: depleted (CD 1.2)": "9/25",
        "US-4 us-75mm-m2 depletion check: ammunition holds; "
        "US-3 us-75mm-m3 depletion check: depleted (CD 1.2)": "6/25",
        "US-4 us-75mm-m2 depletion check: depleted (CD 1.2); "
        "US-3 us-75mm-m3 depletion check: ammunition holds": "6/25",
        "US-4 us-75mm-m2 depletion check: ammunition holds; "
        "US-3 us-75mm-m3 depletion check: ammunition holds": "4/25",
    }
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("depleted (rolled 3 <= 6, CD 1.2)", "depleted (CD 1.2)"),
        ("ammunition holds (rolled 10 > 6)", "ammunition holds"),
        (
            "the fire goes out (rolled 3); smoke removed (CD 6.2.2)",
            "the fire goes out; smoke removed (CD 6.2.2)",
        ),
        ("holds (rolled 7; CD 6.1.2)", "holds (CD 6.1.2)"),
    ],
)
def test_a_result_without_its_die_face(text: str, said: str) -> None:
    from tabletop.core.words import without_faces

    assert without_faces(text) == said


def test_an_enumeration_lets_its_procedure_go_without_the_cycle_collector() -> None:
    # An enumeration once recursed through its own closure, a reference cycle that kept the
    # procedure (and, for an assault, every battle its runs made) until the collector came.
    import gc
    import weakref

    from tabletop.core.dice import DiceLike
    from tabletop.core.odds import collector_paused, distribution

    class Procedure:
        def __call__(self, dice: DiceLike) -> int:
            return dice.roll(6, "a die")

    procedure = Procedure()
    gone = weakref.ref(procedure)
    with collector_paused():
        assert not gc.isenabled()
        assert distribution(procedure) == {face: Fraction(1, 6) for face in range(1, 7)}
        del procedure
        assert gone() is None
    assert gc.isenabled()
