"""Mech Brigade (seed 002) as the ``mech-brigade`` model: the MB 7.3 worked example as a
golden test, each formula with hand-derived cases, the kill roll, the procedures, table
mode, odds against simulation, and the CLI.

Where the seed's own arithmetic is inconsistent (MB 7.3's example), the test says which
reading we chose:

- The accuracy after smoke is printed twice, as 45.30 and as 45.38; 90.75 x 2 / 4 is 45.375,
  so 45.38 (and the kill number .4538 computed from it) is the figure we reproduce.
- The APF is worked with the range as 5 (44 x (5 / 18), giving the printed 44.14) although
  the example's range is 6 (giving 42.92). Both exceed the cap of 2 x 20, so the M60A3's
  APF is 40 either way. We use the stated range 6: the T-72's kill number against the
  ABRAMS (.368) only comes out at range 6 (at range 5 its APF would be 45, not below
  1.25 x 36, and the kill number .756).
- The range term is 90 x (MR - R) / MR, as the example computes (60 at 6 of 18, giving
  121). Rule (2) prints 1 at maximum range, where that term is 0, so we floor the term at
  1; a straight line from 90 to 1 would give 121.74, not the printed 121.
- Accuracy is not capped at 100: the T-72s' 1.51 needs 151.25 before the smoke halving.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.cli import cli
from tabletop.core.dice import GENERATE, Dice
from tabletop.core.errors import BadInput, ChartError, RulesRefusal
from tabletop.data.chart_files import load_charts
from tabletop.data.charts import Charts
from tabletop.rules.models import Shot, find_model
from tabletop.rules.models.chance import roll_chance, settled, shown
from tabletop.rules.models.mech_brigade import MechBrigade
from tabletop.rules.models.mech_brigade import formulas as f
from tabletop.rules.models.mech_brigade.data import Tables
from tabletop.rules.models.mech_brigade.fire import resolve
from tabletop.rules.models.mech_brigade.sight import parse_path
from tabletop.rules.models.mech_brigade.table import is_front
from tests.conftest import Run, as_json, file_digest, goto_phase

SCENARIO = str(Path(__file__).parent / "data" / "mech_brigade.yaml")
SQUARE = 4.0  # inches per square (MB 1.4: 200 yards at 50 yards to the inch)


@pytest.fixture(scope="module")
def model(charts: Charts) -> MechBrigade:
    found = find_model("mech-brigade", charts)
    assert isinstance(found, MechBrigade)
    return found


@pytest.fixture(scope="module")
def t(model: MechBrigade) -> Tables:
    return model.tables


def printed(value: Any, text: str) -> bool:
    """Whether ``value`` reads as ``text`` at the precision printed (rounded half up)."""
    places = len(text.split(".")[1]) if "." in text else 0
    scale = 10**places
    exact = Fraction(str(value)) if isinstance(value, float) else Fraction(value)  # as shown
    return Fraction(math.floor(exact * scale + Fraction(1, 2)), scale) == Fraction(text)


def shot(shooter: str, target: str, squares: float, count: int = 1, **options: Any) -> Shot:
    return Shot(shooter, target, squares * SQUARE, count, options)


def fire(model: MechBrigade, s: Shot, dice: tuple[int, ...] = ()) -> Any:
    d = Dice(0, physical=list(dice), rest=GENERATE)  # the dice not given are generated
    out = model.fire(s, d)
    d.finish()  # every physical die given was needed
    return out, d.rolls


def attack(t: Tables, shooter: str, target: str, squares: float, count: int = 1, **o: Any) -> Any:
    return resolve(t, shooter, target, squares * SQUARE, count, o)


# --- the worked example of MB 7.3 (golden) ---------------------------------------------------


def test_worked_example_m60a3_accuracy(t: Tables) -> None:
    # range term 90 x 12 / 18 = 60, one pulse adds 50: 110, squared and over 100 gives 121
    assert f.range_term(t, 6, 18) == 60
    assert f.cannon_accuracy(t, 50, 1, 6, 18) == 121
    # x silhouette 3 / 4 = 90.75; through level 2 smoke x 2 / (2 + 2) = 45.38 (printed
    # first as 45.30, then used as 45.38: the exact value is 45.375)
    assert attack(t, "M60A3", "T-72", 6, 5).accuracy == Fraction("90.75")
    a = attack(t, "M60A3", "T-72", 6, 5, smoke=2)
    assert a.accuracy == Fraction("45.375")
    assert printed(a.accuracy, "45.38")


def test_worked_example_m60a3_apf(t: Tables) -> None:
    # Printed: 25 / 4 + 44 - 110 / 18 = 44.14, which is the formula at range 5 ...
    assert printed(f.apf(t, 5, 44, 5, 18), "44.14")
    # ... while the stated range, 6, gives 42.92; either is capped at 2 x 20 = 40.
    assert printed(f.apf(t, 5, 44, 6, 18), "42.92")
    a = attack(t, "M60A3", "T-72", 6, 5, smoke=2)
    assert a.apf == 40
    assert a.armour == 20


@pytest.mark.parametrize(
    ("shooter", "count", "target", "kills"),
    [
        ("M60A3", 5, "T-72", ".4538"),  # APF 40, accuracy 45.38, five guns, armour 20
        ("T-72", 10, "M60A3", "1.51"),
        ("ABRAMS", 5, "T-72", ".454"),
        ("T-72", 10, "ABRAMS", ".368"),
    ],
)
def test_worked_example_kill_numbers(
    t: Tables, shooter: str, count: int, target: str, kills: str
) -> None:
    a = attack(t, shooter, target, 6, count, smoke=2)
    assert printed(a.kills, kills), float(a.kills)


def test_worked_example_t72_against_abrams_halves_accuracy(t: Tables) -> None:
    # APF 43.75 is below 1.25 x 36 = 45 (but not below 36): accuracy 60.5 halved once.
    a = attack(t, "T-72", "ABRAMS", 6, 10, smoke=2)
    assert a.apf == Fraction("43.75")
    assert a.accuracy == Fraction("30.25")


def test_worked_example_reads_as_chances(model: MechBrigade) -> None:
    # MB 7.3 reads .4538 as about a 45% chance of one T-72 lost
    odds = model.odds(shot("M60A3", "T-72", 6, 5, smoke=2))
    assert odds["outcomes"] == {
        "0 killed": Fraction(5462, 10000),
        "1 killed": Fraction(4538, 10000),
    }
    # and 1.51 as one M60A3 lost for certain, with a 51% chance of another
    odds = model.odds(shot("T-72", "M60A3", 6, 10, smoke=2))
    assert set(odds["outcomes"]) == {"1 killed", "2 killed"}
    assert printed(odds["outcomes"]["2 killed"], ".51")


# --- scale and the chart ---------------------------------------------------------------------


def test_scale(t: Tables, model: MechBrigade) -> None:
    assert t.scale.yards == 200 and t.scale.inches == 4
    assert t.scale.pulse_seconds == 30 and t.scale.pulses_per_turn == 4
    assert model.inches_per_unit == 4.0
    assert model.to_units(24.0) == 6.0


def test_profiles_are_the_whole_weapons_table(t: Tables) -> None:
    numbers = sorted(p.number for p in t.profiles.values())
    assert numbers == list(range(70))  # weapons 0-69 of MB 6.0, each once
    m60 = t.profiles["M60A3"]
    assert (m60.mr, m60.mp, m60.ss, m60.ac, m60.sp, m60.mg) == (18, 44, 5, 50, 15, 2)
    assert (m60.fa, m60.ba, m60.sl, m60.gm, m60.countries, m60.era) == (
        19,
        7,
        5,
        None,
        ("US",),
        "O",
    )
    dragon = t.profiles["DRAGON"]
    assert (dragon.lr, dragon.mr, dragon.mp, dragon.ac, dragon.df, dragon.cc) == (
        1,
        8,
        30,
        80,
        8,
        2,
    )
    assert t.profiles["RIFLE-N"].name == "RIFLE (N)"
    assert t.profiles["M109"].mr_starred
    assert t.atgm_of(t.profiles["BRADLEY"]) == t.profiles["TOW3"]
    assert t.profiles["APACHE"].missiles == 16


def test_every_entry_cites_its_rule_and_defaults_say_why(charts: Charts) -> None:
    for entry in charts.raw["models/mech_brigade"]:
        assert str(entry["rule"]).startswith("MB "), entry["id"]
        if entry.get("default"):
            assert entry.get("note"), entry["id"]


def test_profile_lookup_is_forgiving_and_explains(t: Tables) -> None:
    assert t.profile("t-72").id == "T-72"
    with pytest.raises(BadInput, match=r"'T72'.*did you mean 'T-72'"):
        t.profile("T72")


def test_overlay_changes_a_number(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "mech_brigade.yaml").write_text(
        "entries:\n  - {id: T-72, table: profile, rule: MB 6.0, sl: 4}\n"
    )
    m = find_model("mech-brigade", load_charts((tmp_path,)))
    assert isinstance(m, MechBrigade)
    assert attack(m.tables, "M60A3", "T-72", 6, 5).accuracy == 121  # x 4 / 4


def test_chart_cross_checks(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "mech_brigade.yaml").write_text(
        "entries:\n  - {id: M60A3, table: profile, rule: MB 6.0, gm: XX}\n"
    )
    m = find_model("mech-brigade", load_charts((tmp_path,)))
    with pytest.raises(ChartError, match=r"entry 'M60A3': gm: no ATGM profile has the code 'XX'"):
        _ = m.inches_per_unit


# --- formulas, case by case ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rng", "mr", "term"),
    [
        (0, 18, 90),  # MB 7.3 (1): zero range
        (18, 18, 1),  # MB 7.3 (2): maximum range (90 x 0 floored at 1)
        (6, 18, 60),  # the worked example
        (17, 18, 5),
        (4, 5, 18),
        (99, 100, 1),  # 0.9 floored at 1
        (0, 0, 90),  # special infantry weapons: range 0 only
    ],
)
def test_range_term(t: Tables, rng: int, mr: int, term: int) -> None:
    assert f.range_term(t, rng, mr) == term


@pytest.mark.parametrize(
    ("ac", "pulses", "rng", "mr", "accuracy"),
    [
        (50, 1, 0, 18, 196),  # (90 + 50)^2 / 100
        (50, 1, 18, 18, Fraction("26.01")),  # (1 + 50)^2 / 100
        (50, 2, 6, 18, 256),  # (60 + 100)^2 / 100: pulses fired add up
        (0, 0, 18, 18, Fraction("0.01")),
        (9, 4, 28, 28, Fraction("13.69")),  # a mortar at its maximum range, 4 pulses
    ],
)
def test_cannon_accuracy(
    t: Tables, ac: int, pulses: int, rng: int, mr: int, accuracy: Fraction
) -> None:
    assert f.cannon_accuracy(t, ac, pulses, rng, mr) == accuracy


@pytest.mark.parametrize(
    ("ac", "pulses", "rng", "mr", "accuracy"),
    [(50, 1, 0, 2, 140), (50, 1, 1, 2, 95), (50, 1, 2, 2, 51), (8, 4, 12, 12, 33)],
)
def test_plain_accuracy_for_non_vehicles(
    t: Tables, ac: int, pulses: int, rng: int, mr: int, accuracy: int
) -> None:
    assert f.plain_accuracy(t, ac, pulses, rng, mr) == accuracy  # MB 7.4 (4)


@pytest.mark.parametrize(
    ("ac", "lr", "rng", "accuracy"),
    [(70, 1, 1, 140), (70, 1, 2, 198), (70, 1, 19, 198), (30, 2, 2, 60), (90, 3, 3, 180)],
)
def test_atgm_accuracy(t: Tables, ac: int, lr: int, rng: int, accuracy: int) -> None:
    assert f.atgm_accuracy(t, ac, lr, rng) == accuracy  # MB 7.3 ATGM (1)


@pytest.mark.parametrize(
    ("points", "factor"), [(0, 1), (1, Fraction(2, 3)), (2, Fraction(1, 2)), (4, Fraction(1, 3))]
)
def test_blocking_factor(t: Tables, points: int, factor: Fraction) -> None:
    assert f.blocking_factor(t, points) == factor


@pytest.mark.parametrize(("speed", "divisor"), [(10, 3), (20, 4), (15, Fraction(7, 2))])
def test_moving_divisor(t: Tables, speed: int, divisor: Fraction) -> None:
    assert f.moving_divisor(t, Fraction(speed)) == divisor


@pytest.mark.parametrize(
    ("ss", "mp", "rng", "mr", "value"),
    [
        (5, 44, 0, 18, Fraction("50.25")),  # full MP at range 0
        (5, 44, 18, 18, Fraction("28.25")),  # half MP at maximum range
        (0, 50, 19, 19, 25),  # an ATGM (no shell size) at maximum range
        (3, 12, 0, 0, Fraction("14.25")),  # LAW at zero range
        (6, 0, 12, 12, 9),  # M109 bombarding: shell size only
    ],
)
def test_apf(t: Tables, ss: int, mp: int, rng: int, mr: int, value: Fraction) -> None:
    assert f.apf(t, ss, mp, rng, mr) == value


@pytest.mark.parametrize(
    ("apf", "armour", "halves"),
    [
        (Fraction(25), 20, 0),  # exactly 1.25 x armour: not below
        (Fraction("24.99"), 20, 1),
        (Fraction(20), 20, 1),  # exactly the armour: halved once
        (Fraction("19.99"), 20, 2),
        (Fraction("0.25"), 2, 2),
    ],
)
def test_halvings(t: Tables, apf: Fraction, armour: int, halves: int) -> None:
    assert f.halvings(t, apf, Fraction(armour)) == halves


def test_kills_formulas(t: Tables) -> None:
    assert f.vehicle_kills(t, Fraction(40), Fraction("45.375"), 5, Fraction(20)) == Fraction(
        "0.45375"
    )
    # 30 rifles at range 1: 1 x 1 x 95 x 30 / (9 x 1000)
    assert f.nonvehicle_kills(t, 1, Fraction(95), 30, Fraction(9)) == Fraction(95 * 30, 9000)


@pytest.mark.parametrize(
    ("ss", "accuracy", "weapons", "added"),
    [
        (5, Fraction("45.375"), 5, Fraction(25 * 2058.890625 * 5) / 200),
        (1, Fraction(5), 1, Fraction(1, 2)),  # accuracy counts as at least 10
        (1, Fraction(10), 3, Fraction(3, 2)),
        (0, Fraction(50), 10, 0),
    ],
)
def test_suppression_added(
    t: Tables, ss: int, accuracy: Fraction, weapons: int, added: Fraction
) -> None:
    assert f.suppression_added(t, ss, accuracy, weapons) == added


@pytest.mark.parametrize(
    ("kills", "certain", "chance"),
    [
        (Fraction("0.45375"), 0, Fraction(4538, 10000)),  # 45.375% rounds half up
        (Fraction("1.5125"), 1, Fraction("0.5125")),
        (Fraction(2), 2, 0),
        (Fraction("0.99996"), 1, 0),  # 99.996% rounds to certain
        (Fraction("0.00004"), 0, 0),  # rounds to no chance
        (Fraction(0), 0, 0),
    ],
)
def test_kill_chance(kills: Fraction, certain: int, chance: Fraction) -> None:
    assert f.kill_chance(kills) == (certain, chance)


@pytest.mark.parametrize(
    ("kills", "strength", "dist"),
    [
        (Fraction("1.3"), None, {1: Fraction(7, 10), 2: Fraction(3, 10)}),
        (Fraction("1.3"), 2, {1: Fraction(7, 10), 2: Fraction(3, 10)}),
        (Fraction("2.3"), 2, {2: 1}),  # no more than the unit has
        (Fraction("1.3"), 1, {1: 1}),
        (Fraction(0), None, {0: 1}),
    ],
)
def test_killed_distribution(kills: Fraction, strength: int | None, dist: dict) -> None:
    assert f.killed_distribution(kills, strength) == dist


@pytest.mark.parametrize(("value", "whole"), [(0, 0), ("0.49", 0), ("0.5", 1), ("6.5", 7), (6, 6)])
def test_squares_round_half_up(value: Any, whole: int) -> None:
    assert f.squares(Fraction(value)) == whole


# --- the kill roll (percentile dice to a hundredth of a percent) ------------------------------


@pytest.mark.parametrize(
    ("chance", "dice", "result"),
    [
        ("0.4538", (45,), True),
        ("0.4538", (46, 38), True),  # the boundary face rolls again for the hundredths
        ("0.4538", (46, 39), False),
        ("0.4538", (47,), False),
        ("0.45", (46,), False),  # whole percents never roll twice
        ("0.0038", (1, 38), True),
        ("0.0038", (2,), False),
        ("0", (), False),
        ("1", (), True),
    ],
)
def test_roll_chance(chance: str, dice: tuple[int, ...], result: bool) -> None:
    d = Dice(0, physical=list(dice))
    ok, rolls = roll_chance(d, Fraction(chance), "test")
    d.finish()
    assert ok is result and rolls == list(dice)


@pytest.mark.parametrize("chance", ["0.4538", "0.0001", "0.9999", "0.5", "0.3333"])
def test_roll_chance_is_exact_over_every_face(chance: str) -> None:
    hits = Fraction(0)
    for first in range(1, 101):
        ok, rolls = roll_chance(Dice(0, physical=[first]), Fraction(chance), "test")
        if len(rolls) < 2:
            hits += Fraction(int(ok), 100)
            continue
        for second in range(1, 101):  # the boundary face: every second face, exactly
            ok, _ = roll_chance(Dice(0, physical=[first, second]), Fraction(chance), "test")
            hits += Fraction(int(ok), 100 * 100)
    assert hits == settled(Fraction(chance)) == Fraction(chance)


def test_shown_chance() -> None:
    assert shown(Fraction("0.4538")) == "45.38%"
    assert shown(Fraction("0.51")) == "51%"


def test_fire_kill_roll_with_physical_dice(model: MechBrigade) -> None:
    s = shot("M60A3", "T-72", 6, 5, smoke=2)
    assert fire(model, s, (45,))[0].data["killed"] == 1
    assert fire(model, s, (46, 38))[0].data["killed"] == 1
    assert fire(model, s, (46, 39))[0].data["killed"] == 0
    out, rolls = fire(model, shot("T-72", "M60A3", 6, 10, smoke=2), (52,))
    assert out.data["killed"] == 1 and rolls[0].die == 100
    assert fire(model, shot("T-72", "M60A3", 6, 10, smoke=2), (51,))[0].data["killed"] == 2


def test_fire_with_strength_never_kills_more_and_rolls_nothing(model: MechBrigade) -> None:
    out, rolls = fire(model, shot("T-72", "M60A3", 6, 10, smoke=2, strength=1))
    assert out.data["killed"] == 1 and out.eliminated and rolls == []
    assert out.target_state["left"] == 0


def test_fire_json_keys(model: MechBrigade) -> None:
    out, _ = fire(model, shot("M60A3", "T-72", 6, 5, smoke=2), (1,))
    for key in ("accuracy", "apf", "kills", "killed", "suppression"):
        assert key in out.data
    assert out.data["suppression"] == 50  # a vehicle holds at most 50 (MB 7.6)
    assert out.verdict.startswith("1 T-72 killed")
    assert (
        "M60A3 accuracy: range term 90 x (18 - 6) / 18 = 60 (at least 1); "
        "(60 + 50 x 1 pulse)^2 / 100 = 121 [MB 7.3 (1)-(2)]"
    ) in out.lines
    json.dumps(out.data)


# --- fire: each rule through the model, hand-derived -----------------------------------------


def test_cover_divides_stationary_targets_only(t: Tables) -> None:
    # MB 7.3 (3): / 3 when stationary in woods; (4): moving at 20 divides by 2 + 20 / 10.
    assert attack(t, "M60A3", "T-72", 6, cover="woods").accuracy == Fraction("90.75") / 3
    assert attack(t, "M60A3", "T-72", 6, cover="broken").accuracy == Fraction("90.75")
    moving = attack(t, "M60A3", "T-72", 6, cover="woods", target_speed=20)
    assert moving.accuracy == Fraction("90.75") / 4


def test_blocking_points_between(t: Tables) -> None:
    # MB 7.3 (7): a town (4) and a woods (2) square between, and smoke 1: x 2 / 9
    a = attack(t, "M60A3", "T-72", 6, towns=1, woods=1, smoke=1)
    assert a.accuracy == Fraction("90.75") * 2 / 9


def test_back_armour_at_range_zero_and_from_behind(t: Tables) -> None:
    assert attack(t, "M60A3", "T-72", 0).armour == 7
    assert attack(t, "M60A3", "T-72", 6, aspect="back").armour == 7
    assert attack(t, "M60A3", "T-72", 6).armour == 20


def test_firer_suppression_reduces_fire(t: Tables) -> None:
    # MB 7.7: suppression 150 takes 150 / 3 = 50% off the fire's effectiveness.
    a = attack(t, "M60A3", "T-72", 6, shooter_suppression=150)
    assert a.accuracy == Fraction("90.75") / 2


def test_atgm(t: Tables) -> None:
    # TOW3 (LR 1, MR 19, MP 50, AC 70) at a T-72 (front 20, SL 3) at range 10:
    # accuracy 99 x 2 x 3 / 4 = 148.5; APF 50 - 50 x 10 / 19 / 2 = 700 / 19; no suppression.
    a = attack(t, "TOW3", "T-72", 10)
    assert a.mode == "atgm" and a.accuracy == Fraction("148.5")
    assert a.apf == Fraction(700, 19)
    assert a.kills == Fraction(700, 19) * Fraction("148.5") / 20000
    assert a.added == 0 and a.suppression == 0
    # at its minimum range the printed AC: 70 x 2 x 3 / 4 = 105
    assert attack(t, "TOW3", "T-72", 1).accuracy == 105
    # suppressed over 25: quartered, and 30 / 3 = 10% off as any fire
    q = attack(t, "TOW3", "T-72", 10, shooter_suppression=30)
    assert q.accuracy == Fraction("148.5") / 4 * Fraction(9, 10)


def test_vehicle_with_atgm_fires_it_at_armour_and_its_gun_at_infantry(t: Tables) -> None:
    assert attack(t, "BRADLEY", "T-72", 5).weapon.id == "TOW3"
    assert attack(t, "BRADLEY", "T-72", 5, weapon="gun").weapon.id == "BRADLEY"
    assert attack(t, "BRADLEY", "RIFLE-S", 5).weapon.id == "BRADLEY"


@pytest.mark.parametrize(
    ("shooter", "target", "squares", "options", "message"),
    [
        ("SAGGER", "T-72", 1, {}, r"SAGGER fires from 2 to 15 squares, not 1 \(MB 6.0\)"),
        ("TOW3", "RIFLE-S", 3, {}, r"ATGMs fire only at vehicles.*MB 7.2"),
        ("TOW3", "HIND-D", 3, {}, r"ATGMs may not fire at helicopters.*MB 7.3"),
        ("M60A3", "T-72", 19, {}, r"M60A3 reaches 18 squares, not 19 \(MB 6.0\)"),
        ("ROLAND", "T-72", 3, {}, r"SAM units fire only at helicopters.*MB 7.2"),
        ("RIFLE-S", "T-72", 1, {"weapon": "siw"}, r"RPG-7 fires only at zero range.*MB 6.1"),
        ("T-72", "RIFLE-S", 3, {"indirect": True}, r"T-72 cannot bombard.*MB 5.6"),
        ("M109", "HIND-D", 3, {"indirect": True}, r"never affects helicopters.*MB 7.5"),
        ("T-72", "HIND-D", 1, {"altitude": 6}, r"RIFLE-N reaches 2 squares, not 3"),
    ],
)
def test_rules_refusals(
    t: Tables, shooter: str, target: str, squares: int, options: dict, message: str
) -> None:
    with pytest.raises(RulesRefusal, match=message):
        attack(t, shooter, target, squares, 1, **options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"smok": 2}, r"--set 'smok': not an option of mech-brigade fire"),
        ({"smoke": -1}, r"--set smoke=-1: expected a whole number from 0 to 99"),
        ({"cover": "jungle"}, r"--set cover='jungle': expected one of clear, town"),
        ({"moving": True}, r"'moving': not an option"),
        ({"weapon": "atgm"}, r"weapon=atgm: M60A3 has no ATGM"),
    ],
)
def test_bad_options(t: Tables, options: dict, message: str) -> None:
    with pytest.raises(BadInput, match=message):
        attack(t, "M60A3", "T-72", 6, 1, **options)


def test_special_infantry_weapons(t: Tables) -> None:
    # MB 6.1: 30 men of a Soviet rifle platoon fire 10 RPG-7s at a T-72 in their square.
    # Accuracy (90 + 30)^2 / 100 x 3 / 4 = 108; back armour 7; APF 16 / 4 + 12 = 16,
    # capped at 14; kills 14 x 108 x 10 / 7000 = 2.16; suppression 50.
    a = attack(t, "RIFLE-S", "T-72", 0, 30)
    assert (a.weapon.id, a.weapons, a.accuracy, a.apf) == ("RPG-7", 10, 108, 14)
    assert a.kills == Fraction("2.16") and a.suppression == 50
    assert attack(t, "RIFLE-N", "T-72", 0, 30).weapon.id == "LAW"


def test_fire_at_helicopters(t: Tables) -> None:
    # ROLAND at a HIND-D 5 squares off at altitude 3 (+1 square): term 90 x 19 / 25 = 68.4,
    # (68.4 + 80)^2 / 100 = 220.2256, x 4 / 4, not divided by 10 (a SAM); APF 25 / 4 capped
    # at 2 x 2 = 4; kills 4 x 220.2256 / 2000.
    a = attack(t, "ROLAND", "HIND-D", 5, altitude=3)
    assert a.range == 6 and a.accuracy == Fraction("220.2256") and a.apf == 4
    assert a.kills == Fraction("220.2256") * 4 / 2000
    # A T-72 (shell size 5) fires small arms at it, with the rifle's numbers, / 10:
    # term 90 x 1 / 2 = 45, (45 + 50)^2 / 100 = 90.25 / 10 = 9.025; APF 0.25 halved twice.
    s = attack(t, "T-72", "HIND-D", 1, 10, cover="woods")  # cover does not help in the air
    assert (s.mode, s.weapon.id) == ("small-arms", "RIFLE-N")
    assert s.accuracy == Fraction("9.025") / 4
    assert s.added == Fraction(100 * 10, 200)  # accuracy counts as at least 10


def test_non_vehicle_targets(t: Tables) -> None:
    # MB 7.4: an M60A3 at a rifle platoon 3 squares off, in woods and moving:
    # 90 x 15 / 18 + 50 = 125, x 2 moving, / 6 in woods = 125 / 3; kills
    # 5 x 5 x (125 / 3) / (9 x 1000) and its 2 machine guns (under 6 squares) at shell size 1.
    a = attack(t, "M60A3", "RIFLE-S", 3, 1, cover="woods", target_speed=6)
    acc = Fraction(125, 3)
    assert a.accuracy == acc and a.apf is None and a.defence == 9
    assert a.kills == 25 * acc / 9000 + acc * 2 / 9000
    assert a.suppression == 200  # capped for non-vehicles
    # at 6 squares no machine guns
    b = attack(t, "M60A3", "RIFLE-S", 6)
    assert b.kills == 25 * Fraction(110) / 9000


def test_point_blank_at_a_suppressed_target(t: Tables) -> None:
    # MB 7.4 KILLS (2): same square, suppression over 99: defence 1, accuracy x 2.
    a = attack(t, "M60A3", "RIFLE-S", 0, 1, target_suppression=100)
    assert a.defence == 1 and a.accuracy == 280
    assert a.kills == Fraction(25 * 280, 1000) + Fraction(280 * 2, 1000)
    assert attack(t, "M60A3", "RIFLE-S", 0, 1, target_suppression=99).defence == 9


def test_indirect_fire(t: Tables) -> None:
    # MB 7.5: 6 M109s (MR 12, SS 6, AC 8) at a T-72; armour (7 + 20) / 3 = 9; the spotter
    # sees a unit: 4 pulses. (1 + 32)^2 / 100 x 3 / 4 = 8.1675; APF 36 / 4 = 9, below
    # 1.25 x 9: halved; kills 9 x 4.08375 x 6 / 9000.
    a = attack(t, "M109", "T-72", 10, 6, indirect=True)
    assert a.armour == 9 and a.apf == 9 and a.accuracy == Fraction("4.08375")
    assert a.kills == 9 * Fraction("4.08375") * 6 / 9000
    # spotter sees only the square: 1 pulse; no line of sight: 0 pulses
    b = attack(t, "M109", "T-72", 10, 6, indirect=True, spotter="square")
    assert b.accuracy == Fraction(81, 100) * Fraction(3, 4) / 2
    # at moving infantry: (1 + 32) x 2 = 66; kills 36 x 66 x 6 / 9000
    c = attack(t, "M109", "RIFLE-S", 10, 6, indirect=True, target_speed=6)
    assert c.accuracy == 66 and c.kills == Fraction(36 * 66 * 6, 9000)
    # woods between do not matter to a bombardment; smoke in the square does
    d = attack(t, "M109", "RIFLE-S", 10, 6, indirect=True, woods=3, smoke=2)
    assert d.accuracy == Fraction(33, 2)


# --- invariants --------------------------------------------------------------------------------

VEHICLE_TARGETS = ["T-72", "M60A3", "ABRAMS", "BMP-1", "M113", "HIND-D"]
SHOOTERS = ["M60A3", "T-72", "BRADLEY", "RIFLE-N", "TOW3", "M106", "GEPARD", "SA-8"]


@settings(max_examples=150, deadline=None)
@given(
    shooter=st.sampled_from(SHOOTERS),
    target=st.sampled_from([*VEHICLE_TARGETS, "RIFLE-S", "DRAGON", "130-GUN"]),
    squares=st.integers(0, 30),
    count=st.integers(1, 30),
    smoke=st.integers(0, 6),
    cover=st.sampled_from(["clear", "woods", "town"]),
    speed=st.integers(0, 40),
)
def test_odds_are_probabilities(
    model: MechBrigade,
    shooter: str,
    target: str,
    squares: int,
    count: int,
    smoke: int,
    cover: str,
    speed: int,
) -> None:
    try:
        odds = model.odds(
            shot(shooter, target, squares, count, smoke=smoke, cover=cover, target_speed=speed)
        )
    except RulesRefusal:
        return
    probabilities = list(odds["outcomes"].values())
    assert all(0 <= p <= 1 for p in probabilities)
    assert sum(probabilities) == 1
    assert odds["expected"]["kills"] >= 0 and odds["expected"]["accuracy"] >= 0
    # the roll keeps the expected number of kills to a hundredth of a percent
    assert abs(odds["expected"]["killed"] - odds["expected"]["kills"]) <= Fraction(1, 20000)


@settings(max_examples=100, deadline=None)
@given(
    shooter=st.sampled_from(["M60A3", "T-72", "ABRAMS", "LEOPRD1", "SCORPON"]),
    target=st.sampled_from([*VEHICLE_TARGETS[:5], "RIFLE-S"]),
    near=st.integers(0, 20),
    step=st.integers(1, 10),
)
def test_accuracy_and_kills_fall_with_range(
    t: Tables, shooter: str, target: str, near: int, step: int
) -> None:
    mr = t.profiles[shooter].mr
    far = near + step
    if far > mr:
        return
    a, b = attack(t, shooter, target, near), attack(t, shooter, target, far)
    if near == 0 and target != "RIFLE-S":
        return  # range 0 turns to the back armour
    assert b.accuracy <= a.accuracy and b.kills <= a.kills


@settings(max_examples=60, deadline=None)
@given(level=st.integers(0, 200), added=st.integers(0, 5000), vehicle=st.booleans())
def test_suppression_never_exceeds_its_cap(
    model: MechBrigade, level: int, added: int, vehicle: bool
) -> None:
    run = model.procedures()["suppression"].run
    out = run({"level": level, "add": added, "vehicle": vehicle, "pulses": 2}, Dice(0))
    cap = 50 if vehicle else 200
    assert out["history"][0] == min(cap, level + added)
    assert out["history"][1] == out["history"][0] // 2
    assert 0 <= out["suppression"] <= cap


def test_odds_agree_with_simulated_fire(model: MechBrigade) -> None:
    s = shot("T-72", "M60A3", 6, 10, smoke=2)
    p2 = model.odds(s)["outcomes"]["2 killed"]
    d = Dice(2024)
    n = 2000
    twos = sum(model.fire(s, d).data["killed"] == 2 for _ in range(n))
    sigma = math.sqrt(float(p2) * (1 - float(p2)) / n)
    assert abs(twos / n - float(p2)) < 4 * sigma


# --- procedures --------------------------------------------------------------------------------


def proc(model: MechBrigade, name: str, dice: tuple[int, ...] = (), **options: Any) -> Any:
    d = Dice(0, physical=list(dice))
    out = model.procedures()[name].run(options, d)
    d.finish()
    json.dumps(out)
    return out


@pytest.mark.parametrize(
    ("options", "reach"),
    [
        ({"silhouette": 3}, 4),  # SL + 1
        ({"silhouette": 3, "cover": True}, Fraction(4, 3)),
        ({"silhouette": 3, "cover": "woods"}, Fraction(4, 3)),
        ({"silhouette": 3, "cover": "clear"}, 4),
        ({"silhouette": 3, "smoke": True}, 2),
        ({"silhouette": 3, "moving": True}, 12),
        ({"silhouette": 3, "moving": True, "visibility": 10}, 10),  # capped by visibility
        ({"silhouette": 3, "cover": True, "smoke": True, "moving": True}, 2),
        ({"target": "M60A3"}, 6),
    ],
)
def test_sighting_range(model: MechBrigade, options: dict, reach: Fraction) -> None:
    assert proc(model, "sighting", **options)["sighting_range"] == float(reach)


def test_sighting_spots_within_range(model: MechBrigade) -> None:
    assert proc(model, "sighting", silhouette=3, range=4)["spotted"] is True
    assert proc(model, "sighting", silhouette=3, range=5)["spotted"] is False


@pytest.mark.parametrize(
    ("viewer", "target", "path", "clear"),
    [
        (1, 1, "1,1,1", True),
        (1, 1, "1w", True),  # one woods square may be seen through
        (1, 1, "1w,1,1w", False),  # a second blocks
        (1, 1, "1b,1b", True),  # two broken squares may be seen through
        (1, 1, "1b,1b,1b", False),  # a third blocks
        (1, 1, "1w,1b", False),  # woods and broken together block
        (1, 1, "1t", False),  # towns always block
        (1, 1, "1,2,1", False),  # elevated terrain always blocks
        (3, 3, "1w,1t,1w", True),  # seen over from the hills
        (3, 1, "1w,1w", True),  # [3 - 1 x 2 / 3] = 2 >= 2; [3 - 2 x 2 / 3] = 2 >= 2
        (3, 1, "1,1,2", True),  # [3 - 3 x 2 / 4] = 1.5, rounded to 2 >= 2
        (3, 1, "1,1,1,2", False),  # [3 - 4 x 2 / 5] = 1.4, rounded to 1 < 2
        (1, 3, "2,1,1,1", False),  # the same line seen from the other end
        (5, 1, "4,2", True),  # [5 - 1 x 4 / 3] = 3.67, rounded to 4 >= 4; [2.33] = 2 >= 2
        (5, 1, "4,3", False),  # ... but [5 - 2 x 4 / 3] = 2 < 3
    ],
)
def test_line_of_sight(
    model: MechBrigade, viewer: int, target: int, path: str, clear: bool
) -> None:
    out = proc(model, "line-of-sight", viewer=viewer, target=target, path=path)
    assert out["los"] is clear, out


def test_line_of_sight_beyond_visibility(model: MechBrigade) -> None:
    out = proc(model, "line-of-sight", viewer=1, target=1, path="1,1", range=12, visibility=10)
    assert (
        out["los"] is False
        and out["blocked_by"][0] == "range 12 beyond the visibility level [MB 8.0 (2)]"
    )


@settings(max_examples=80, deadline=None)
@given(
    viewer=st.integers(0, 6),
    target=st.integers(0, 6),
    path=st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["", "w", "b", "t"])), max_size=8),
)
def test_line_of_sight_is_symmetric(
    model: MechBrigade, viewer: int, target: int, path: list[tuple[int, str]]
) -> None:
    there = ",".join(f"{level}{kind}" for level, kind in path)
    back = ",".join(f"{level}{kind}" for level, kind in reversed(path))
    a = proc(model, "line-of-sight", viewer=viewer, target=target, path=there)
    b = proc(model, "line-of-sight", viewer=target, target=viewer, path=back)
    assert a["los"] == b["los"]


def test_parse_path() -> None:
    assert parse_path("1,2w, 1b,3t") == [(1, "clear"), (2, "woods"), (1, "broken"), (3, "town")]
    with pytest.raises(BadInput, match=r"--set path='1,x2': 'x2' is not a square"):
        parse_path("1,x2")


@pytest.mark.parametrize(
    ("options", "level", "history"),
    [
        ({"level": 30, "add": 40, "vehicle": True}, 50, [50]),  # vehicles hold at most 50
        ({"level": 150, "add": 100}, 200, [200]),  # others at most 200
        ({"add": "200", "pulses": 3}, None, None),  # a bad value (text)
        ({"level": 200, "pulses": 3}, 25, [200, 100, 50, 25]),  # halved each pulse
        ({"level": 25, "pulses": 1}, 12, [25, 12]),  # whole points
    ],
)
def test_suppression_procedure(
    model: MechBrigade, options: dict, level: int | None, history: list[int] | None
) -> None:
    if level is None:
        with pytest.raises(BadInput, match=r"--set add='200': expected a number"):
            proc(model, "suppression", **options)
        return
    out = proc(model, "suppression", **options)
    assert out["suppression"] == level and out["history"] == history


@pytest.mark.parametrize(
    ("level", "search_fail", "fire", "pinned"),
    [
        (0, 0.0, 1.0, False),
        (50, 0.5, 5 / 6, False),  # 50% is not pinned; over 50 is
        (51, 0.51, 1 - 0.17, True),
        (99, 0.99, 0.67, True),
        (100, 1.0, 2 / 3, True),  # over 99: no search at all
        (180, 1.0, 0.4, True),  # MB 7.7's example: 180 / 3 = 60% off
    ],
)
def test_suppression_effects(
    model: MechBrigade, level: int, search_fail: float, fire: float, pinned: bool
) -> None:
    out = proc(model, "suppression", level=level)
    assert out["search_fail_chance"] == pytest.approx(search_fail)
    assert out["fire_effectiveness"] == pytest.approx(fire)
    assert out["pinned"] is pinned


def test_atgm_quartered_above_25(model: MechBrigade) -> None:
    assert proc(model, "suppression", level=26, atgm=True)["atgm_quartered"] is True
    assert proc(model, "suppression", level=25, atgm=True)["atgm_quartered"] is False


@pytest.mark.parametrize(
    ("options", "dice", "searches"),
    [
        ({"suppression": 0}, (), True),
        ({"suppression": 40}, (40,), False),
        ({"suppression": 40}, (41,), True),
        ({"suppression": 100}, (), False),
        ({"suppression": 150, "same_square": True}, (), True),
    ],
)
def test_search(model: MechBrigade, options: dict, dice: tuple, searches: bool) -> None:
    assert proc(model, "search", dice, **options)["searches"] is searches


@pytest.mark.parametrize(
    ("profile", "rounds", "missiles"),
    [
        ("M60A3", 40, 0),
        ("M901", 40, 16),  # a specialised ATGM vehicle
        ("BRADLEY", 40, 4),  # another ATGM unit
        ("TOW3", 0, 4),
        ("COBRA", 16, 4),
        ("APACHE", 16, 16),
        ("RIFLE-S", 40, 0),
    ],
)
def test_ammunition_loads(model: MechBrigade, profile: str, rounds: int, missiles: int) -> None:
    out = proc(model, "ammunition", profile=profile)
    assert (out["rounds"], out["missiles"]) == (rounds, missiles)


def test_ammunition_spent(model: MechBrigade) -> None:
    out = proc(model, "ammunition", profile="M60A3", fired=40)
    assert out["rounds_left"] == 0 and out["can_fire"] is False
    with pytest.raises(BadInput, match=r"--set fired=41: expected a whole number from 0 to 40"):
        proc(model, "ammunition", profile="M60A3", fired=41)
    with pytest.raises(BadInput, match="special infantry weapon"):
        proc(model, "ammunition", profile="LAW")


@pytest.mark.parametrize(
    ("level", "pulses", "dice", "after"),
    [
        (3, 1, (90,), 2),
        (3, 1, (91,), 3),
        (2, 1, (70,), 1),
        (2, 1, (71,), 2),
        (1, 1, (50,), 0),
        (1, 1, (51,), 1),
        (3, 5, (1, 1, 1), 0),  # gone after three pulses; no more dice
    ],
)
def test_smoke_decay(model: MechBrigade, level: int, pulses: int, dice: tuple, after: int) -> None:
    assert proc(model, "smoke-decay", dice, level=level, pulses=pulses)["level"] == after


@pytest.mark.parametrize(
    ("cause", "level", "after"),
    [("artillery", 0, 3), ("artillery", 1, 3), ("wreck", 0, 1), ("wreck", 2, 2)],
)
def test_smoke_place(model: MechBrigade, cause: str, level: int, after: int) -> None:
    assert proc(model, "smoke-place", cause=cause, level=level)["level"] == after


@pytest.mark.parametrize(
    ("options", "pulses"),
    [
        ({"side": "nato"}, 1),
        ({"side": "nato", "in_command": False}, 5),
        ({"side": "soviet"}, 3),
        ({"side": "soviet", "in_command": False}, 7),
        ({"helicopter": True}, 0),
        ({"side": "nato", "cancelled": True}, 2),
    ],
)
def test_move_delay(model: MechBrigade, options: dict, pulses: int) -> None:
    assert proc(model, "move-delay", **options)["pulses"] == pulses


def test_a_delay_of_one_pulse_is_said_in_the_singular(model: MechBrigade) -> None:
    # MB 5.12: a NATO unit in command control moves after one pulse; helicopters after none.
    out = proc(model, "move-delay", side="nato")
    assert out["verdict"] == "moves after 1 pulse"
    assert out["lines"] == ["nato unit in command control: 1 pulse [MB 5.12]"]
    assert proc(model, "move-delay", helicopter=True)["verdict"] == "moves after 0 pulses"
    out = proc(model, "bombard-delay", requester_hq=True, same_formation=True)
    assert out["verdict"] == "fires after 2 pulses"  # MB 5.6
    assert out["lines"][0] == "hq-same-formation: 2 pulses"


def test_suppression_halved_over_one_pulse_says_pulse(model: MechBrigade) -> None:
    # MB 7.6: 25 points halve to 12 (whole points) at the end of the one pulse.
    lines = proc(model, "suppression", level=25, pulses=1)["lines"]
    assert lines[1] == "halved at the end of each of 1 pulse: [25, 12] [MB 7.6]"


@pytest.mark.parametrize(
    ("options", "pulses"),
    [
        ({"requester_hq": True, "same_formation": True}, 2),
        ({"same_formation": True}, 4),
        ({"command_hq": True}, 4),
        ({"command_hq": True, "off_map": True}, 2),  # off-map guns are the command HQ's
        ({}, 8),
        ({"requester_hq": True}, 8),
        ({"cancelled": True}, 9),
    ],
)
def test_bombard_delay(model: MechBrigade, options: dict, pulses: int) -> None:
    assert proc(model, "bombard-delay", **options)["pulses"] == pulses


@pytest.mark.parametrize(
    ("options", "linked"),
    [
        ({"distance": 10}, True),
        ({"distance": 11}, False),
        ({"distance": 5, "sees_hq": False}, True),
        ({"distance": 6, "sees_hq": False}, False),
        ({"between_hqs": True}, True),
    ],
)
def test_command_link(model: MechBrigade, options: dict, linked: bool) -> None:
    assert proc(model, "command-link", **options)["linked"] is linked


def test_firer_sighted(model: MechBrigade) -> None:
    assert proc(model, "firer-sighted", range=0)["sighted"] is True  # no dice
    assert proc(model, "firer-sighted", pulses=1, range=2)["sighted"] is True  # 100%
    assert proc(model, "firer-sighted", (33,), range=6)["sighted"] is True  # 33.33%
    assert proc(model, "firer-sighted", (34, 33), range=6)["sighted"] is True
    assert proc(model, "firer-sighted", (34, 34), range=6)["sighted"] is False
    assert proc(model, "firer-sighted", (35,), range=6)["sighted"] is False


@pytest.mark.parametrize(("die", "level"), [(1, 7), (14, 20)])
def test_visibility(model: MechBrigade, die: int, level: int) -> None:
    assert proc(model, "visibility", (die,))["visibility"] == level


def test_victory_points(model: MechBrigade) -> None:
    # 5 unused SP (100) + 2 tanks (40) and 10 men (50) in the objective area + 3 T-72
    # killed (3 x (10 + 20)) + 12 riflemen (12 x 1) = 292; as defender no objective
    # points and everything doubled.
    kills = "T-72:3,RIFLE-S:12"
    out = proc(
        model,
        "victory-points",
        unused_sp=5,
        objective_armoured=2,
        objective_infantry=10,
        kills=kills,
    )
    assert out["points"] == 100 + 40 + 50 + 90 + 12
    defender = proc(model, "victory-points", role="defender", unused_sp=20, kills=kills)
    assert defender["points"] == 500 + 2 * 102  # unused: 400, capped 250, doubled to 500
    with pytest.raises(BadInput, match=r"'T-72:x': write PROFILE:COUNT"):
        proc(model, "victory-points", kills="T-72:x")


@pytest.mark.parametrize(
    ("nato", "soviet", "result"),
    [
        (200, 100, "NATO decisive victory"),
        (199, 100, "NATO substantive victory"),
        (150, 100, "NATO substantive victory"),
        (149, 100, "NATO marginal victory"),
        (110, 100, "NATO marginal victory"),
        (1095, 1000, "NATO marginal victory"),  # 1.095 reads as 1.10
        (109, 100, "draw"),
        (92, 100, "draw"),
        (91, 100, "Soviet marginal victory"),
        (67, 100, "Soviet marginal victory"),
        (66, 100, "Soviet substantive victory"),
        (51, 100, "Soviet substantive victory"),
        (50, 100, "Soviet decisive victory"),
        (0, 100, "Soviet decisive victory"),
        (5, 0, "NATO decisive victory"),
        (0, 0, "draw"),
    ],
)
def test_victory_bands(model: MechBrigade, nato: int, soviet: int, result: str) -> None:
    assert proc(model, "victory", nato=nato, soviet=soviet)["result"] == result


# --- table mode --------------------------------------------------------------------------------


def stand(path: Path, stand_id: str) -> dict[str, Any]:
    from tabletop.game.engine import Game

    game = Game.open(path)
    try:
        return dict(game.state().stand(stand_id))
    finally:
        game.close()


@pytest.fixture
def table(run: Run) -> Run:
    run("new", SCENARIO, "--seed", "1")
    return run


def test_table_mode_duel_reproduces_the_example(table: Run) -> None:
    out = as_json(
        table(
            "fire", "US-1", "SU-1", "--count", "5", "--set", "smoke=2", "--dice", "46,38", "--json"
        )
    )
    assert printed(out["kills"], ".4538") and out["killed"] == 1
    assert out["range_squares"] == 6 and out["range_inches"] == 24.0
    record = stand(table.game, "SU-1")["models"]["mech-brigade"]  # type: ignore[attr-defined]
    # the T-72 platoon has the chart's default 5 vehicles (no strength: in the scenario)
    assert record == {"suppression": 50, "suppression_rule": "MB 7.6: added by fire",
                      "pinned": False,  # MB 7.7: pinned only over 50
                      "pinned_rule": "MB 7.7: over 50 the unit is pinned and does not move",
                      "turn": 1, "phase": "fire", "killed": 1, "left": 4}  # fmt: skip


def test_table_mode_reads_terrain_and_facing(table: Run) -> None:
    woods = as_json(table("fire", "US-5", "SU-5", "--count", "5", "--dice", "99", "--json"))
    assert (
        "x 2 / (2 + 2 blocking points: 1 woods x 2) = 45.375 [MB 7.3 (7)]" in woods["lines"]
    )  # 4" of spinney: 1 square
    town = as_json(table("fire", "US-3", "SU-3", "--count", "5", "--dice", "99", "--json"))
    assert "defending in town: / 6 = 19.1667 [MB 7.4 (2)]" in town["lines"]
    behind = as_json(table("fire", "US-1", "SU-4", "--count", "5", "--dice", "99", "--json"))
    assert behind["armour"] == 7 and behind["range_squares"] == 7  # 26" is 6.5 squares


def test_table_mode_strength_eliminates(table: Run) -> None:
    table("fire", "US-1", "SU-1", "--count", "5", "--set", "strength=1", "--dice", "1")
    assert stand(table.game, "SU-1")["status"] == "eliminated"  # type: ignore[attr-defined]
    before = file_digest(table.game)  # type: ignore[attr-defined]
    refused = table("fire", "US-2", "SU-1", code=3)
    assert refused.output == "Error: SU-1 is eliminated and cannot be fired at\n"
    assert file_digest(table.game) == before  # type: ignore[attr-defined]


def test_table_mode_suppression_adds_up_within_the_phase(table: Run) -> None:
    # MB 7.6: two attacks in the same pulse add up (two firers: one fire action each)
    table("fire", "US-3", "SU-3", "--range", "20", "--set", "pulses=0", "--dice", "99")
    first = stand(table.game, "SU-3")["models"]["mech-brigade"]["suppression"]  # type: ignore[attr-defined]
    out = as_json(table("fire", "US-6", "SU-3", "--range", "20", "--set", "pulses=0", "--dice",
                        "99", "--json"))  # fmt: skip
    assert out["suppression"] == min(200, 2 * first)


def test_table_mode_second_fire_in_a_pulse_is_refused(table: Run) -> None:
    table("fire", "US-3", "SU-3", "--dice", "99")
    before = file_digest(table.game)  # type: ignore[attr-defined]
    refused = table("fire", "US-3", "SU-3", code=3)
    assert refused.output == (
        "Error: US-3 has already fired this fire phase of turn 1 under mech-brigade, at SU-3: "
        "one fire action a pulse (MB 7.0: each pulse a unit selects a target and fires); it "
        "fires again next phase\n"
    )
    assert table("fire", "US-3", "SU-1", code=3).exit_code == 3  # another target: still once
    assert file_digest(table.game) == before  # type: ignore[attr-defined]


def test_table_mode_pulses_at_the_same_target_grow_across_phases_and_turns(table: Run) -> None:
    # MB 7.3: accuracy counts the pulses fired at the target; each fire phase is a pulse
    first = as_json(table("fire", "US-1", "SU-1", "--dice", "99", "--json"))
    assert first["streak"] == 1
    assert (
        "M60A3 accuracy: range term 90 x (18 - 6) / 18 = 60 (at least 1); "
        "(60 + 50 x 1 pulse)^2 / 100 = 121 [MB 7.3 (1)-(2)]"
    ) in first["lines"]
    goto_phase(table, "opportunity-fire")  # turn 2
    second = as_json(table("fire", "US-1", "SU-1", "--dice", "99", "--json"))
    assert second["streak"] == 2
    assert (
        "M60A3 accuracy: range term 90 x (18 - 6) / 18 = 60 (at least 1); "
        "(60 + 50 x 2 pulses)^2 / 100 = 256 [MB 7.3 (1)-(2)]"
    ) in second["lines"]
    assert second["accuracy"] > first["accuracy"]
    goto_phase(table, "fire")
    other = as_json(table("fire", "US-1", "SU-4", "--dice", "99", "--json"))
    assert other["streak"] == 1  # a new target starts again
    record = stand(table.game, "US-1")["models"]["mech-brigade"]["fire"]  # type: ignore[attr-defined]
    assert record["target"] == "SU-4" and record["streak"] == 1 and record["turn"] == 2


def test_table_mode_suppression_halves_each_phase(table: Run) -> None:
    # MB 7.6: halved (rounded down) at the end of every pulse: here every phase's end
    table("fire", "US-3", "SU-3", "--range", "20", "--set", "pulses=0", "--dice", "99")
    level = stand(table.game, "SU-3")["models"]["mech-brigade"]["suppression"]  # type: ignore[attr-defined]
    assert level > 8
    seen = []
    for _ in range(3):
        out = as_json(table("phase", "next", "--json"))
        seen += [h["result"] for h in out["happened"] if h.get("stand") == "SU-3"]
    record = stand(table.game, "SU-3")["models"]["mech-brigade"]  # type: ignore[attr-defined]
    assert record["suppression"] == level // 2 // 2 // 2
    assert record["suppression_rule"] == "MB 7.6: halved at the end of each pulse"
    assert seen[0] == f"{level} -> {level // 2} (MB 7.6: halved at the end of each pulse)"
    shown = as_json(table("show", "SU-3", "--json"))["models"]["mech-brigade"]
    assert shown["facts"]["suppression"] == level // 8
    assert shown["rules"]["suppression"] == "MB 7.6: halved at the end of each pulse"
    text = table("status").output
    assert (
        f"  SU-3 mech-brigade: suppression {level // 8} [MB 7.6: halved at the end of each "
        "pulse]; left 30; killed 0; pinned no [MB 7.7: over 50 the unit is pinned and does not "
        "move]"
    ) in text.splitlines()


def test_table_mode_firer_suppression_cuts_its_fire(table: Run) -> None:
    # MB 7.7: the firer's own recorded suppression reduces its fire by a third of it, in %
    table("fire", "US-3", "SU-3", "--range", "20", "--set", "pulses=0", "--dice", "99")
    level = stand(table.game, "SU-3")["models"]["mech-brigade"]["suppression"]  # type: ignore[attr-defined]
    back = as_json(table("fire", "SU-3", "US-3", "--range", "8", "--dice", "99", "--json"))
    quick = as_json(table("fire", "--model", "mech-brigade", "--shooter", "RIFLE-S",
                          "--target", "M60A3", "--range-squares", "2", "--count",
                          str(back["weapons_firing"]), "--set", f"shooter_suppression={level}",
                          "--set", "strength=5", "--dice", "99", "--json"))  # fmt: skip
    assert (
        f"firer suppressed {level}: effectiveness x (1 - {level} / 3%) = 23.9509 [MB 7.7]"
    ) in back["lines"]
    assert back["kills"] == quick["kills"]


def test_table_mode_undo_and_replay(table: Run) -> None:
    before = stand(table.game, "SU-1")  # type: ignore[attr-defined]
    table("fire", "US-1", "SU-1", "--count", "5")
    assert "models" in stand(table.game, "SU-1")  # type: ignore[attr-defined]
    assert table("replay").output == "replay reproduces the stored state (2 events)\n"
    table("undo")
    assert stand(table.game, "SU-1") == before  # type: ignore[attr-defined]


def test_stand_without_a_profile(table: Run) -> None:
    before = file_digest(table.game)  # type: ignore[attr-defined]
    out = table("fire", "US-CD", "SU-1", "--model", "mech-brigade", code=2)
    assert out.output == (
        "Error: stands without a profile for the mech-brigade model: US-CD; give each "
        "'profiles: {mech-brigade: ID}' in the scenario, with IDs from "
        "charts/models/mech_brigade.yaml\n"
    )
    assert len(out.output.strip().splitlines()) == 1
    assert file_digest(table.game) == before  # type: ignore[attr-defined]


def test_table_helpers() -> None:
    assert is_front(270.0, 90.0)  # facing west, fired at from the west
    assert not is_front(90.0, 90.0)  # facing away
    assert is_front(225.0, 90.0) and not is_front(224.0, 90.0)


# MB 8.0 on the table: (firer, target, the squares between as the line-of-sight procedure
# takes them, what the fire says). 44" centre to centre is 11 squares, 10 between.
LINES_OF_FIRE = [
    pytest.param(
        "US-2", "SU-2", "0,0,0,0,0w,0w,0,0,0,0", "2 woods squares in the way; at most 1",
        id="two-woods-squares-block",
    ),
    pytest.param(
        "US-6", "SU-6", "0,0,0t,0,0", "1 town square in the way; at most 0",
        id="a-town-at-equal-level-blocks",
    ),
    pytest.param("US-5", "SU-5", "0,0,0w,0,0", "1 woods x 2", id="one-woods-square-seen-through"),
    pytest.param(
        "US-8", "SU-8", "2,2,0,0,0w,0w,0,0,0", "clear [MB 8.0]", id="from-the-ridge-over-the-grove"
    ),
]  # fmt: skip


@pytest.mark.parametrize(("firer", "target", "path", "says"), LINES_OF_FIRE)
def test_table_mode_line_of_sight_is_the_procedures(
    table: Run, firer: str, target: str, path: str, says: str
) -> None:
    viewer = path.split(",")[0] if firer == "US-8" else "0"
    proc = as_json(
        table("model", "run", "mech-brigade", "line-of-sight", "--set", f"viewer={viewer}",
              "--set", "target=0", "--set", f"path={path}", "--json")
    )  # fmt: skip
    before = file_digest(table.game)  # type: ignore[attr-defined]
    if proc["los"]:
        out = as_json(table("fire", firer, target, "--dice", "99", "--json"))
        sight = next(line for line in out["lines"] if line.startswith("line of sight"))
        assert f"(squares between: {path})" in sight and says in "\n".join(out["lines"])
        # MB 7.3 (7): the woods passed over from the ridge add no blocking points
        assert ("blocking points" in "\n".join(out["lines"])) == (proc["cover"] != {})
        return
    for command in (["fire"], ["odds", "fire"]):
        refused = table(*command, firer, target, code=3)
        message = refused.output.strip()
        assert len(message.splitlines()) == 1
        assert f"{firer} has no line of sight to {target} (MB 8.0): {proc['blocked_by'][0]}" in (
            message
        )
        assert says in message
    assert file_digest(table.game) == before  # type: ignore[attr-defined]


def test_table_mode_without_line_of_sight_a_referee_may_say_otherwise(table: Run) -> None:
    out = as_json(table("fire", "US-2", "SU-2", "--set", "los=true", "--dice", "99", "--json"))
    assert "x 2 / (2 + 4 blocking points: 2 woods x 2) = 18.0625 [MB 7.3 (7)]" in out["lines"]
    sight = next(line for line in out["lines"] if line.startswith("line of sight"))
    assert sight == (
        "line of sight over 11 squares from level 0 to 0 (squares between: "
        "0,0,0,0,0w,0w,0,0,0,0): blocked, 2 woods squares in the way; at most 1 [MB "
        "8.0 (5)] [MB 8.0] (the referee's --set los=true fires anyway)"
    )
    quick = table(
        "fire", "--model", "mech-brigade", "--shooter", "M60A3", "--target", "T-72",
        "--range-squares", "6", "--set", "los=false", code=3,
    )  # fmt: skip
    assert quick.output == (
        "Error: M60A3 has no line of sight to T-72 (MB 8.0): --set los=false; only a "
        "bombardment (--set indirect=true) fires without one\n"
    )


def test_table_mode_bombardment_needs_no_line_of_sight(table: Run) -> None:
    # The M106 sees nothing through 8" of copse, but may bombard (MB 7.5), which is artillery
    # fire: the artillery phase of the next turn, not the fire phase.
    assert table("fire", "US-M", "SU-2", code=3).output == (
        "Error: US-M has no line of sight to SU-2 (MB 8.0): 2 woods squares in the "
        "way; at most 1 [MB 8.0 (5)]; only a bombardment (--set indirect=true) fires "
        "without one\n"
    )
    refused = table("fire", "US-M", "SU-2", "--set", "indirect=true", code=3)
    assert refused.output == (
        "Error: a bombardment (indirect fire) is not allowed in the fire phase: it "
        "happens in the artillery phase (turn chart); advance with 'tabletop phase "
        "next'\n"
    )
    goto_phase(table, "artillery")
    out = as_json(table("fire", "US-M", "SU-2", "--set", "indirect=true", "--dice", "99", "--json"))
    assert out["mode"] == "indirect"


@pytest.mark.parametrize(
    ("args", "squares", "inches"),
    [
        (["--range-squares", "3"], 3, 12.0),
        (["--range", "12"], 3, 12.0),
        (["--range-squares", "2.6"], 3, 10.4),
        ([], 6, 24.0),
    ],
)
def test_table_mode_measured_range(
    table: Run, args: list[str], squares: int, inches: float
) -> None:
    both = table("fire", "US-1", "SU-1", "--range", "12", "--range-squares", "3", code=2)
    assert both.output == "Error: give the range once: --range INCHES or --range-squares N\n"
    odds = as_json(table("odds", "fire", "US-1", "SU-1", *args, "--json"))
    out = as_json(table("fire", "US-1", "SU-1", *args, "--dice", "99", "--json"))
    assert out["range_squares"] == squares and out["range_inches"] == inches
    assert odds["expected"]["kills"] == out["kills"]  # the same range: the same shot


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shooter", "M60A3"], "--shooter is for quick mode, without SHOOTER and TARGET"),
        (["--target", "T-72"], "--target is for quick mode, without SHOOTER and TARGET"),
        (["--seed", "3"], "--seed is for quick mode"),
        (["--target-kind", "tank"], "--target-kind is for quick mode"),
        (["--quality", "green"], "--quality is for quick mode"),
        (["--weapon", "kwk-50"], "--weapon is for Command Decision fire, not the mech-brigade"),
        (["--cover", "light"], "--cover is for Command Decision fire"),
        (["--mod", "x=1"], "--mod is for Command Decision fire"),
        (["--spotted"], "--spotted is for Command Decision fire"),
        (["--ammo", "smoke"], "--ammo is for Command Decision fire"),
    ],
)
def test_table_mode_refuses_options_it_would_ignore(
    table: Run, args: list[str], message: str
) -> None:
    before = file_digest(table.game)  # type: ignore[attr-defined]
    for command in (["fire"], ["odds", "fire"]):
        if "--seed" in args and command != ["fire"]:
            continue  # odds rolls nothing, so it has no --seed
        out = table(*command, "US-1", "SU-1", *args, code=2)
        assert message in out.output and len(out.output.strip().splitlines()) == 1
    assert file_digest(table.game) == before  # type: ignore[attr-defined]


def test_table_mode_kills_come_off_the_stand(table: Run) -> None:
    # 0.9075 kills: a d100 of 1 kills one of the T-72 platoon's 5 (the chart's default).
    out = as_json(table("fire", "US-1", "SU-1", "--dice", "1", "--json"))
    assert out["killed"] == 1 and out["weapons_firing"] == 5
    assert stand(table.game, "SU-1")["models"]["mech-brigade"]["left"] == 4  # type: ignore[attr-defined]
    table("phase", "next")  # morale
    goto_phase(table, "fire")
    refused = table("fire", "SU-1", "US-1", "--count", "5", code=2)
    assert (
        refused.output == "Error: --count 5: SU-1 has 4 left to fire (its mech-brigade strength)\n"
    )
    back = as_json(table("fire", "SU-1", "US-1", "--dice", "99", "--json"))
    assert back["weapons_firing"] == 4  # MB 7.3 (5): the 4 left fire


def test_table_mode_scenario_strength_eliminates(table: Run) -> None:
    # SU-9 is a single T-72 (strength: 1): one kill leaves nothing, and it is eliminated.
    out = as_json(table("fire", "US-1", "SU-9", "--dice", "1", "--json"))
    assert out["killed"] == 1
    assert stand(table.game, "SU-9")["status"] == "eliminated"  # type: ignore[attr-defined]
    at_it = table("fire", "US-2", "SU-9", code=3).output
    assert at_it == "Error: SU-9 is eliminated and cannot be fired at\n"
    assert (
        table("fire", "SU-9", "US-1", code=3).output
        == "Error: SU-9 is eliminated and cannot fire\n"
    )


@pytest.mark.parametrize(
    ("kind", "strength"), [("T-72", 5), ("RIFLE-S", 30), ("MILAN", 8), ("HIND-D", 5)]
)
def test_default_strength_by_kind_of_unit(t: Tables, kind: str, strength: int) -> None:
    from tabletop.rules.models.mech_brigade.table import default_strength

    assert default_strength(t, t.profile(kind)) == strength


# --- the command line --------------------------------------------------------------------------

QUICK = ["--model", "mech-brigade", "--shooter", "M60A3", "--count", "5", "--target", "T-72"]


def test_quick_mode_the_issue_example(run: Run) -> None:
    out = as_json(
        run("fire", *QUICK, "--range-squares", "6", "--smoke", "2", "--dice", "46,39", "--json")
    )
    assert {"accuracy", "apf", "kills", "killed", "suppression"} <= set(out)
    assert out["accuracy"] == 45.375 and out["apf"] == 40.0 and out["killed"] == 0
    assert [r["value"] for r in out["rolls"]] == [46, 39]
    inches = as_json(run("fire", *QUICK, "--range", "24", "--smoke", "2", "--dice", "1", "--json"))
    assert inches["kills"] == out["kills"] and inches["killed"] == 1


def test_quick_mode_text(run: Run) -> None:
    out = run("fire", *QUICK, "--range-squares", "6", "--smoke", "2", "--dice", "1")
    assert out.output.startswith("1 T-72 killed")
    assert (
        out.output.splitlines()[11]
        == "  dice: 1* (kill roll: one more kill: yes on 1-45; 46 rolls again for 1-38)"
    )  # * marks a physical die


def test_quick_mode_odds(run: Run) -> None:
    out = as_json(run("odds", "fire", *QUICK, "--range-squares", "6", "--smoke", "2", "--json"))
    assert out["exact"]["outcomes"] == {"0 killed": "2731/5000", "1 killed": "2269/5000"}
    assert sum(out["outcomes"].values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shooter", "M60", "--target", "T-72", "--range-squares", "6"], "did you mean 'M60A3'"),
        (["--shooter", "M60A3", "--target", "T-72"], "give the range once"),
        (
            ["--shooter", "M60A3", "--target", "T-72", "--range-squares", "6", "--set", "smok=2"],
            "'smok'",
        ),
        (
            [
                "--shooter",
                "M60A3",
                "--target",
                "T-72",
                "--range-squares",
                "6",
                "--set",
                "cover=lake",
            ],
            "cover='lake'",
        ),
        (["--shooter", "M60A3", "--range-squares", "6"], "needs --target"),
    ],
)
def test_quick_mode_bad_input(run: Run, args: list[str], message: str) -> None:
    out = run("fire", "--model", "mech-brigade", *args, code=2)
    assert message in out.output and len(out.output.strip().splitlines()) == 1


def test_quick_mode_refusal(run: Run) -> None:
    out = run("fire", *QUICK, "--range-squares", "19", code=3)
    assert out.output == "Error: M60A3 reaches 18 squares, not 19 (MB 6.0)\n"


def test_model_run_without_a_game(run: Run) -> None:
    out = as_json(
        run(
            "model",
            "run",
            "mech-brigade",
            "smoke-decay",
            "--set",
            "level=3",
            "--dice",
            "90",
            "--json",
        )
    )
    assert out["level"] == 2 and out["rolls"][0]["value"] == 90
    text = run(
        "model", "run", "mech-brigade", "victory", "--set", "nato=300", "--set", "soviet=200"
    )
    assert text.output.startswith("NATO substantive victory")


def test_model_run_in_a_game_is_logged(table: Run) -> None:
    out = as_json(
        table(
            "model",
            "run",
            "mech-brigade",
            "search",
            "--set",
            "suppression=40",
            "--dice",
            "41",
            "--json",
        )
    )
    assert out["searches"] is True and out["event"]
    assert table("log").output.splitlines()[1] == (
        "#2 turn 1 fire: model-run model=mech-brigade options=(suppression=40) "
        "procedure=search -> searches"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nonsense"], "no procedure 'nonsense'"),
        (
            ["sighting", "--set", "silhuette=3"],
            "'silhuette': not an option of mech-brigade sighting",
        ),
        (["sighting"], "give --set silhouette=N"),
        (
            ["move-delay", "--set", "side=french"],
            "--set side='french': expected one of nato, soviet",
        ),
    ],
)
def test_model_run_bad_input(run: Run, args: list[str], message: str) -> None:
    out = run("model", "run", "mech-brigade", *args, code=2)
    assert message in out.output


def test_model_show() -> None:
    result = CliRunner().invoke(cli, ["model", "show", "mech-brigade", "--json"])
    assert result.exit_code == 0, result.output
    out = as_json(result)
    assert out["inches_per_unit"] == 4.0
    assert len(out["profiles"]) == 70
    assert {"sighting", "line-of-sight", "suppression", "smoke-decay", "victory"} <= set(
        out["procedures"]
    )
    assert "smoke" in out["fire_options"]


# --- procedures on stands (model run mech-brigade PROCEDURE STAND...) -------------------------


def test_search_reads_the_stands_suppression(table: Run) -> None:
    table("fire", "US-3", "SU-3", "--range", "20", "--set", "pulses=0", "--dice", "99")
    level = stand(table.game, "SU-3")["models"]["mech-brigade"]["suppression"]  # type: ignore[attr-defined]
    assert 0 < level < 100
    # MB 7.7: a level-L unit fails to search L% of the time: d100 L fails
    out = as_json(table("model", "run", "mech-brigade", "search", "SU-3", "--dice", str(level),
                        "--json"))  # fmt: skip
    quick = as_json(table("model", "run", "mech-brigade", "search", "--set",
                          f"suppression={level}", "--dice", str(level), "--json"))  # fmt: skip
    assert out["searches"] is False and quick["searches"] is False
    record = stand(table.game, "SU-3")["models"]["mech-brigade"]  # type: ignore[attr-defined]
    assert record["searches"] is False and record["searches_rule"] == "MB 7.7: search"


def test_sighting_and_command_link_measure_the_table(table: Run) -> None:
    # US-1 (10,10) sees SU-1 (34,10): 24" = 6 squares; a T-72 in the open, not moving
    out = as_json(table("model", "run", "mech-brigade", "sighting", "SU-1", "US-1", "--json"))
    quick = as_json(table("model", "run", "mech-brigade", "sighting", "--set", "target=T-72",
                          "--set", "range=6", "--json"))  # fmt: skip
    assert out["sighting_range"] == quick["sighting_range"]
    assert out["spotted"] == quick["spotted"]
    record = stand(table.game, "SU-1")["models"]["mech-brigade"]  # type: ignore[attr-defined]
    assert record["spotted"] == quick["spotted"] and record["spotted_rule"] == "MB 7.1: sighting"
    # MB 5.12: US-1 and US-2 are 20" (5 squares) apart
    link = as_json(table("model", "run", "mech-brigade", "command-link", "US-1", "US-2",
                         "--json"))  # fmt: skip
    same = as_json(table("model", "run", "mech-brigade", "command-link", "--set", "distance=5",
                         "--json"))  # fmt: skip
    assert link["linked"] == same["linked"]
    assert stand(table.game, "US-1")["models"]["mech-brigade"]["linked"] == same["linked"]  # type: ignore[attr-defined]


def test_line_of_sight_between_stands_matches_fire(table: Run) -> None:
    out = as_json(table("model", "run", "mech-brigade", "line-of-sight", "US-5", "SU-5", "--json"))
    fire = as_json(table("odds", "fire", "US-5", "SU-5", "--json"))
    assert out["los"] is True and sum(fire["outcomes"].values()) > 0
    record = stand(table.game, "US-5")["models"]["mech-brigade"]  # type: ignore[attr-defined]
    assert record["line_of_sight"] == "clear"


def test_eliminated_stand_cannot_act(table: Run) -> None:
    table("fire", "US-1", "SU-9", "--dice", "1")
    before = file_digest(table.game)  # type: ignore[attr-defined]
    out = table("model", "run", "mech-brigade", "search", "SU-9", code=3)
    assert out.output == "Error: SU-9 is eliminated and cannot take part in mech-brigade search\n"
    assert file_digest(table.game) == before  # type: ignore[attr-defined]


def test_mb_alias_and_dice_order_in_help(runner: CliRunner) -> None:
    shown = json.loads(runner.invoke(cli, ["model", "show", "MB", "--json"]).output)
    assert shown["model"] == "mech-brigade"
    assert shown["dice_order"].startswith("fire: one d100 for the chance of one more kill")
