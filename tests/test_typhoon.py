"""Typhoon of Steel model (seed 004): every formula of section V with hand-derived cases,
the seed's worked chances as golden tests, exact odds against simulation, and the CLI.

Conventions under test (charts/models/typhoon.yaml): Rnd(x) read from a d100 face d is
x * (d - 0.5) / 100; a percent chance C passes when a d100 shows C or less.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.cli import cli
from tabletop.core.dice import Dice
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.data.chart_files import load_charts
from tabletop.data.charts import Charts
from tabletop.rules.models import Shot, find_model
from tabletop.rules.models.engine import run_procedure
from tabletop.rules.models.typhoon import Typhoon
from tabletop.rules.models.typhoon import damage as dmg
from tabletop.rules.models.typhoon.accuracy import (
    clamp,
    needed,
    ranged_accuracy,
    shift_multiplier,
    silhouette_modifier,
)
from tabletop.rules.models.typhoon.combat import (
    assault_result,
    first_shot_passes,
    morale_holds,
)
from tabletop.rules.models.typhoon.command import (
    good_state_benefits,
    radio_in_command,
    rally_radius,
    victory_level,
)
from tabletop.rules.models.typhoon.indirect import max_scatter, steps_for, walk_odds
from tabletop.rules.models.typhoon.odds import FireOdds
from tabletop.rules.models.typhoon.states import unit_state
from tabletop.rules.models.typhoon.tables import Tables
from tests.conftest import Run, as_json, file_digest, goto_phase

SCENARIO = str(Path(__file__).parent / "data" / "typhoon.yaml")
FIRE_KEYS = (
    "ranged_accuracy",
    "shifts",
    "accuracy",
    "hit",
    "location",
    "penetration_depth",
    "penetrated",
    "men_killed",
)


@pytest.fixture(scope="module")
def model(charts: Charts) -> Typhoon:
    m = find_model("typhoon", charts)
    assert isinstance(m, Typhoon)
    return m


@pytest.fixture(scope="module")
def t(model: Typhoon) -> Tables:
    return model.t


def dice(*values: int) -> Dice:
    return Dice(0, physical=list(values))


def used_all(d: Dice) -> None:
    assert d.physical == [], f"dice left over: {d.physical}"


def shot(shooter: str, target: str, squares: float, count: int = 1, **options: Any) -> Shot:
    return Shot(shooter, target, float(squares), count, options)


def u(face: int) -> float:
    """Rnd(1) from a d100 face, as the chart reads it."""
    return (face - 0.5) / 100


# --- scale and chart -------------------------------------------------------------------------


def test_scale_is_fifty_yards_an_inch_and_twenty_second_pulses(model: Typhoon, t: Tables) -> None:
    assert model.inches_per_unit == 1.0
    assert t.scale.yards_per_square == 50
    assert t.scale.seconds_per_pulse == 20
    assert t.scale.pulses_per_turn == 3
    assert model.to_units(12.5) == 12.5


def test_sample_weapons_page_is_charted_as_printed(model: Typhoon, t: Tables) -> None:
    pz = model.profiles()["PZ-IVH"]
    assert not pz.default
    assert [(m.weapon, m.ammo) for m in pz.weapons] == [("75L48", 81), ("TMG", 95), ("TMG", 70)]
    assert pz.armour is not None
    assert (pz.armour.front_turret, pz.armour.front_hull, pz.armour.side_turret) == (7, 9, 4)
    assert (pz.armour.side_hull, pz.armour.top) == (4, 3)
    assert (pz.size, pz.max_speed, pz.men, pz.first_shot, pz.radio) == (4, 13, 5, 10, True)
    assert (pz.skill, pz.morale, pz.cost) == (5, 4, 12)
    gun, mg = t.weapons["75L48"], t.weapons["TMG"]
    assert (gun.size, gun.penetration, gun.accuracy, gun.max_range, gun.infantry_attack) == (
        4,
        14,
        16,
        50,
        5,
    )
    assert (mg.size, mg.penetration, mg.accuracy, mg.max_range, mg.infantry_attack) == (
        1,
        0,
        6,
        10,
        8,
    )


def test_starter_set_is_marked_default(model: Typhoon, t: Tables) -> None:
    starters = [u for u in model.profiles().values() if u.id != "PZ-IVH"]
    assert len(starters) >= 10
    assert all(u.default for u in starters)
    assert all(w.default for w in t.weapons.values() if w.id not in ("75L48", "TMG"))


def test_target_kinds_follow_the_armour(model: Typhoon) -> None:
    p = model.profiles()
    assert p["M4A1"].is_hard and not p["M4A1"].is_open_topped
    assert p["M3-HT"].is_hard and p["M3-HT"].is_open_topped
    assert not p["TRUCK"].is_hard and p["TRUCK"].is_vehicle
    assert not p["US-RIFLE"].is_hard


def test_chart_overlay_with_an_unknown_modifier_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "typhoon.yaml").write_text(
        "entries:\n"
        "  - {id: target-smoking, table: hard_modifier, rule: X, shifts: -1, side: target}\n"
    )
    charts = load_charts((tmp_path,))
    with pytest.raises(BadInput, match="no typhoon procedure uses it"):
        _ = find_model("typhoon", charts).inches_per_unit


def test_chart_overlay_naming_a_missing_weapon_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "typhoon.yaml").write_text(
        "entries:\n  - {id: PZ-IVH, table: unit, weapons: [{weapon: 75L99}]}\n"
    )
    with pytest.raises(BadInput, match="'75L99' is not a weapon of this chart"):
        _ = find_model("typhoon", load_charts((tmp_path,))).profiles()


# --- the two random-number conventions (ToS V Notation) ------------------------------------


@pytest.mark.parametrize(
    ("face", "x", "value"),
    [(1, 1, 0.005), (50, 1, 0.495), (100, 1, 0.995), (51, 10, 5.05), (1, 20, 0.1)],
)
def test_rnd_reads_the_middle_of_each_hundredth(t: Tables, face: int, x: float, value: float):
    assert t.rnd_of(face, x) == pytest.approx(value)


@pytest.mark.parametrize(
    ("rolls", "chance", "ok"),
    [((20,), 20.0, True), ((21,), 20.0, False), ((20,), 19.999999999999996, True),
     ((70,), 70.57, True), ((71, 57), 70.57, True), ((71, 58), 70.57, False),
     ((72,), 70.57, False), ((1, 50), 0.5, True), ((1, 51), 0.5, False), ((2,), 0.5, False),
     ((), 100, True), ((), 0, False)],
)  # fmt: skip
def test_percent_chance_is_exact_to_a_hundredth(
    t: Tables, rolls: tuple[int, ...], chance: float, ok: bool
) -> None:
    # ToS V Notation: chances are real-valued; 70.57% is 1-70, or 71 then 1-57 on a second d100.
    d = dice(*rolls)
    assert t.percent(d, chance, "test")[0] is ok
    used_all(d)


# --- point fire accuracy (ToS V Point fire accuracy) -----------------------------------------


@pytest.mark.parametrize(
    ("r", "a", "mr", "ra"),
    [
        pytest.param(0, 16, 50, 98, id="range-0"),
        pytest.param(8, 16, 50, 74, id="half-way-in"),
        pytest.param(16, 16, 50, 50, id="range=accuracy"),
        pytest.param(33, 16, 50, 26, id="half-way-out"),
        pytest.param(50, 16, 50, 2, id="max-range"),
        pytest.param(0, 6, 10, 98, id="tmg-range-0"),
        pytest.param(4.5, 6, 10, 62, id="tmg-fraction"),
        pytest.param(6, 6, 10, 50, id="tmg-range=accuracy"),
        pytest.param(8, 6, 10, 26, id="tmg-8"),
        pytest.param(10, 6, 10, 2, id="tmg-max"),
        pytest.param(10, 10, 10, 50, id="accuracy=max-range"),
        pytest.param(10, 12, 10, 58, id="accuracy-beyond-max-range"),
    ],
)
def test_ranged_accuracy_two_piece_formula(t: Tables, r: float, a: float, mr: float, ra: float):
    assert ranged_accuracy(t, r, a, mr) == pytest.approx(ra)


@pytest.mark.parametrize(
    ("shifts", "mult"),
    [(0, 1.0), (1, 1.42), (2, 2.0164), (-1, 0.71), (-2, 0.5041), (-3, 0.357911)],
)
def test_shifts_multiply_by_1_42_up_and_0_71_down(t: Tables, shifts: int, mult: float) -> None:
    assert shift_multiplier(t, shifts) == pytest.approx(mult)


def test_two_negative_shifts_about_halve(t: Tables) -> None:
    assert shift_multiplier(t, -2) == pytest.approx(0.5, abs=0.005)


@pytest.mark.parametrize(
    ("size", "r", "mod"),
    [
        pytest.param(4, 0, 1.0, id="size-4-any-range"),
        pytest.param(4, 30, 1.0, id="size-4-far"),
        pytest.param(6, 0, 1.2, id="near-form-range-0"),
        pytest.param(6, 5, 1.4, id="near-form-5"),
        pytest.param(6, 6, 1.5, id="far-form-at-6"),
        pytest.param(6, 20, 1.5, id="far-form"),
        pytest.param(2, 0, 0.8, id="small-range-0"),
        pytest.param(2, 6, 0.5, id="small-at-6"),
        pytest.param(1, 3, 4 / 7, id="tiny-near"),
        pytest.param(8, 12, 2.0, id="huge-far"),
    ],
)
def test_silhouette_modifier(t: Tables, size: int, r: float, mod: float) -> None:
    assert silhouette_modifier(t, size, r) == pytest.approx(mod)


def test_silhouette_forms_meet_at_six_squares(t: Tables) -> None:
    for size in range(1, 10):
        assert silhouette_modifier(t, size, 5.999999) == pytest.approx(size / 4, rel=1e-5)


@pytest.mark.parametrize(
    ("value", "floor", "cap", "out"),
    [(120, 12, 99, 99), (99, 12, 99, 99), (5, 12, 99, 12), (-3, 0, 99, 0), (0.4, 0, 99, 0.4)],
)
def test_cap_and_floors(value: float, floor: float, cap: float, out: float) -> None:
    assert clamp(value, floor, cap) == out


@pytest.mark.parametrize(
    ("acc", "need"), [(85.0, 85), (57.6, 57.6), (0.36, 0.36), (99, 99), (70.5678, 70.57)]
)
def test_needed_is_the_chance_the_dice_give(acc: float, need: float) -> None:
    assert needed(acc) == need


def firing(model: Typhoon, shooter: str, target: str, r: float, **options: Any):
    return model.firing(shot(shooter, target, r, **options))


@pytest.mark.parametrize(
    ("options", "r", "failed", "expected"),
    [
        pytest.param({}, 10, False, [], id="none"),
        pytest.param({"fired_last_pulse": True}, 10, False, ["fired-last-pulse"], id="again"),
        pytest.param({"firer_state": "cautious"}, 10, False, ["firer-cautious"], id="cautious"),
        pytest.param({"firer_state": "full"}, 10, False, ["firer-full"], id="full"),
        pytest.param({}, 10, True, ["firer-skill-failed"], id="skill"),
        pytest.param({"firer_state": "pinned"}, 10, False, ["firer-pinned"], id="pinned"),
        pytest.param({"firer_state": "buttoned"}, 10, False, ["firer-pinned"], id="buttoned"),
        pytest.param({"firer_suppression": 1}, 10, False, ["firer-suppressed"], id="suppressed"),
        pytest.param({"target_state": "cautious"}, 10, False, ["target-moving"], id="moving"),
        pytest.param({"cover": "soft"}, 10, False, ["target-in-cover"], id="cover"),
        pytest.param(
            {"target_state": "retreating"},
            10,
            False,
            ["target-moving", "target-retreating"],
            id="retreating",
        ),
        pytest.param(
            {"target_state": "retreating"}, 1, False, ["target-moving"], id="retreating-adjacent"
        ),
        pytest.param(
            {"target_state": "routed"},
            1.6,
            False,
            ["target-moving", "target-retreating"],
            id="routed-just-beyond-adjacent",
        ),
    ],
)
def test_hard_target_modifier_rows(
    model: Typhoon, options: dict[str, Any], r: float, failed: bool, expected: list[str]
) -> None:
    acc = firing(model, "PZ-IVH", "M4A1", r, **options).hit_accuracy(failed)
    assert [m.id for m in acc.mods] == expected


def test_hard_target_shifts_add_up(model: Typhoon) -> None:
    acc = firing(
        model, "PZ-IVH", "M4A1", 10, fired_last_pulse=True, firer_state="full",
        firer_suppression=2,
    ).hit_accuracy(True)  # fmt: skip
    assert acc.shifts == 1 - 5 - 2 - 2
    # RA 68, x0.71^8, x silhouette 1.25 (size 5 from 6 squares)
    assert acc.value == pytest.approx(68 * 0.71**8 * 1.25)


def test_accuracy_working_says_shift_or_shifts_by_the_size_of_the_number(
    model: Typhoon, t: Tables
) -> None:
    # ToS V Modifiers for hard targets: +1 for firing at it last pulse, -5 in Full Advance,
    # -2 for a failed skill check, -2 for suppression; one shift reads "shift", others
    # (and 0) "shifts", whatever the sign.
    f = firing(
        model, "PZ-IVH", "M4A1", 10, fired_last_pulse=True, firer_state="full",
        firer_suppression=2,
    )  # fmt: skip
    shifts = [line for line in f.hit_accuracy(True).lines(t, f.r, f.weapon) if "shift" in line]
    assert shifts == [
        "  +1 shift: fired at this target last pulse [ToS V Modifiers for hard targets]",
        "  -5 shifts: firer in Full Advance [ToS V Modifiers for hard targets]",
        "  -2 shifts: firer failed its skill check [ToS V Modifiers for hard targets]",
        "  -2 shifts: firer has suppression points [ToS V Modifiers for hard targets]",
        "net -8 shifts: x0.0646",
    ]
    f = firing(model, "PZ-IVH", "M4A1", 10, fired_last_pulse=True)
    assert f.hit_accuracy(False).lines(t, f.r, f.weapon)[-3] == "net +1 shift: x1.4200"
    f = firing(model, "PZ-IVH", "M4A1", 10)
    assert f.hit_accuracy(False).lines(t, f.r, f.weapon)[1] == "net +0 shifts: x1.0000"


@pytest.mark.parametrize(
    ("target", "weapon", "options", "r", "failed", "shifts"),
    [
        pytest.param("US-RIFLE", 1, {"firer_state": "cautious"}, 5, False, -2, id="firer-moving"),
        pytest.param("US-RIFLE", 1, {"firer_state": "pinned"}, 5, False, -2, id="firer-pinned"),
        pytest.param("US-RIFLE", 1, {}, 5, True, -2, id="skill-failed"),
        pytest.param("US-RIFLE", 1, {"target_state": "full"}, 5, False, 2, id="advancing"),
        pytest.param("PAK-40", 1, {}, 5, False, 2, id="artillery"),
        pytest.param("US-RIFLE", 1, {"cover": "soft"}, 5, False, -2, id="soft-cover"),
        pytest.param("US-RIFLE", 1, {"cover": "hard"}, 5, False, -4, id="hard-cover"),
        pytest.param("US-RIFLE", 1, {"target_state": "dug-in"}, 5, False, -2, id="dug-in"),
        pytest.param(
            "US-RIFLE", 1, {"target_state": "dug-in", "cover": "soft"}, 5, False, -2,
            id="dug-in-soft-cover",
        ),
        pytest.param(
            "US-RIFLE", 1, {"target_state": "dug-in", "cover": "hard"}, 5, False, -5,
            id="dug-in-hard-cover",
        ),
        pytest.param(
            "US-RIFLE", 2, {"target_state": "dug-in"}, 5, False, -3, id="small-arms-dug-in"
        ),
        pytest.param("US-RIFLE", 2, {"cover": "hard"}, 5, False, -5, id="small-arms-hard-cover"),
        pytest.param("US-RIFLE", 2, {"cover": "soft"}, 5, False, -2, id="small-arms-soft-cover"),
        pytest.param("US-RIFLE", 1, {"target_state": "retreating"}, 5, False, -4, id="retreat"),
        pytest.param(
            "US-RIFLE", 1, {"target_state": "retreating"}, 0.4, False, 0, id="retreat-same-square"
        ),
        pytest.param("US-RIFLE", 1, {"target_state": "routed"}, 5, False, -6, id="routing"),
        pytest.param(
            "US-RIFLE", 1, {"target_state": "routed"}, 0.5, False, 0, id="routing-same-square"
        ),
        pytest.param("US-RIFLE", 1, {"target_state": "pinned"}, 5, False, -2, id="pinned"),
        pytest.param(
            "US-RIFLE", 1, {"target_state": "pinned", "cover": "soft"}, 5, False, -4,
            id="pinned-in-cover",
        ),
    ],
)  # fmt: skip
def test_soft_target_modifier_rows(
    model: Typhoon,
    target: str,
    weapon: int,
    options: dict[str, Any],
    r: float,
    failed: bool,
    shifts: int,
) -> None:
    f = firing(model, "PZ-IVH", target, r, weapon=weapon, **options)
    assert f.loss_accuracy(failed).shifts == shifts


def test_soft_hit_chance_takes_the_firers_rows_only(model: Typhoon) -> None:
    f = firing(model, "PZ-IVH", "US-RIFLE", 16, target_state="dug-in", firer_state="full")
    hit, loss = f.hit_accuracy(False), f.loss_accuracy(False)
    assert [m.id for m in hit.mods] == ["soft-firer-moving"]
    assert hit.value == pytest.approx(50 * 0.5041)
    assert loss.shifts == -4
    assert loss.value == pytest.approx(50 * 0.71**4)


def test_flamethrowers_ignore_defensive_benefits(model: Typhoon) -> None:
    f = firing(model, "US-FLAME", "GE-RIFLE", 0.5, target_state="dug-in", cover="hard")
    assert f.loss_accuracy(False).shifts == 0
    tank = firing(model, "US-FLAME", "PZ-IVH", 0.5, hull_down=True, cover="soft")
    assert not tank.hull_down
    assert [m.id for m in tank.hit_accuracy(False).mods] == []


@pytest.mark.parametrize(
    ("shooter", "target", "r", "options", "value"),
    [
        pytest.param("PZ-IVH", "M4A1", 0, {"fired_last_pulse": True}, 99, id="cap-99"),
        pytest.param("PZ-IVH", "PZ-IVH", 0, {}, 98, id="range-0-size-4"),
        pytest.param("PZ-IVH", "PZ-IVH", 50, {}, 2, id="hard-at-max-no-floor-lift"),
        pytest.param(
            "PZ-IVH", "PZ-IVH", 50, {"firer_state": "full"}, 2 * 0.71**5, id="hard-under-1"
        ),
        pytest.param("PZ-IVH", "US-RIFLE", 50, {}, 12, id="soft-floor-12"),
        pytest.param("PZ-IVH", "US-RIFLE", 16, {"firer_state": "full"}, 25.205, id="soft-shift"),
        pytest.param("PZ-IVH", "US-RIFLE", 0, {}, 98, id="soft-range-0"),
    ],
)
def test_final_accuracy_cap_and_floors(
    model: Typhoon, shooter: str, target: str, r: float, options: dict[str, Any], value: float
) -> None:
    acc = firing(model, shooter, target, r, **options).hit_accuracy(False)
    assert acc.value == pytest.approx(value)


def test_accuracy_under_one_percent_hits_that_rarely(model: Typhoon) -> None:
    # ToS V Notation: the chance is real-valued, so 0.36% hits 36 times in 10,000 (a d100 of
    # 1 and then 1-36 on a second), not never.
    f = firing(model, "PZ-IVH", "PZ-IVH", 50, firer_state="full")
    assert f.hit_accuracy(False).needed == 0.36
    odds = FireOdds(f)
    assert odds.p_hit(False) == Fraction(36, 10_000)


# --- skill and first-shot checks (ToS V Skill check, First shot check) --------------------


@pytest.mark.parametrize(
    ("skill", "roll", "ok"),
    [(4, 4, True), (4, 5, False), (0, 1, False), (10, 10, True), (5, 1, True)],
)
def test_skill_check(model: Typhoon, skill: int, roll: int, ok: bool) -> None:
    out = run_procedure(model, "skill-check", {"skill": skill}, dice(roll))
    assert out["passed"] is ok


@pytest.mark.parametrize(("skill", "chance"), [(4, 0.4), (0, 0.0), (10, 1.0), (7, 0.7)])
def test_skill_check_chance(model: Typhoon, skill: int, chance: float) -> None:
    out = run_procedure(model, "skill-check", {"skill": skill}, dice(1))
    assert out["chance"] == pytest.approx(chance)


@pytest.mark.parametrize(
    ("rating", "face", "ok"),
    [
        pytest.param(10, 50, False, id="10-just-short"),
        pytest.param(10, 51, True, id="10-just-enough"),
        pytest.param(5, 100, False, id="5-never"),
        pytest.param(20, 25, False, id="20-short"),
        pytest.param(20, 26, True, id="20-enough"),
        pytest.param(100, 6, True, id="100"),
    ],
)
def test_first_shot_check_faces(t: Tables, rating: float, face: int, ok: bool) -> None:
    assert first_shot_passes(t, rating, face) is ok


@pytest.mark.parametrize(
    ("rating", "lost", "chance"),
    [
        pytest.param(10, 0, 0.5, id="golden-rating-10-is-50%"),
        pytest.param(20, 0, 0.75, id="rating-20"),
        pytest.param(50, 0, 0.9, id="rating-50"),
        pytest.param(5, 0, 0.0, id="rating-5"),
        pytest.param(20, 1, 0.5, id="halved-once"),
        pytest.param(10, 1, 0.0, id="halved-to-5"),
    ],
)
def test_first_shot_chance(model: Typhoon, rating: int, lost: int, chance: float) -> None:
    out = run_procedure(model, "first-shot", {"rating": rating, "crew_lost": lost}, dice(50))
    assert out["chance"] == pytest.approx(chance)


@pytest.mark.parametrize(
    ("options", "rolls", "shots"),
    [
        pytest.param({"pulse": 1}, (5, 51), 1, id="first-pulse-both-pass"),
        pytest.param({"pulse": 1}, (6, 51), 0, id="first-pulse-skill-fails"),
        pytest.param({"pulse": 1}, (5, 50), 0, id="first-pulse-first-shot-fails"),
        pytest.param({"pulse": 2}, (5, 51), 2, id="later-both-pass"),
        pytest.param({"pulse": 2, "moving": True}, (5, 51), 1, id="later-moving"),
        pytest.param({"pulse": 2, "shell_size": 1}, (5, 51), 1, id="later-small-arms"),
        pytest.param({"pulse": 2}, (6, 51), 1, id="later-check-failed"),
        pytest.param({"bombardment": True}, (), 2, id="bombard-rating-10"),
        pytest.param({"bombardment": True, "crew_lost": 1}, (), 1, id="bombard-rating-5"),
    ],
)
def test_rate_of_fire(model: Typhoon, options: dict[str, Any], rolls: tuple[int, ...], shots):
    d = dice(*rolls)
    out = run_procedure(model, "rate-of-fire", {"unit": "PZ-IVH", **options}, d)
    assert out["shots"] == shots
    used_all(d)


# --- hit location (ToS V Vehicle hit locations) ---------------------------------------------


@pytest.mark.parametrize(
    ("levels", "hull_down", "roll", "aspect", "area"),
    [
        (0, False, 1, "front", "track"),
        (0, False, 15, "front", "track"),
        (0, False, 16, "front", "front-hull"),
        (0, False, 70, "front", "front-hull"),
        (0, False, 71, "front", "front-turret"),
        (0, False, 100, "front", "front-turret"),
        (0, False, 16, "side", "side-hull"),
        (0, False, 90, "side", "side-turret"),
        (2, False, 5, "front", "track"),
        (2, False, 6, "front", "front-hull"),
        (2, False, 91, "front", "top"),
        (2, False, 100, "front", "top"),
        (1, False, 100, "front", "front-turret"),
        (0, True, 50, "front", None),
        (0, True, 51, "front", "front-hull"),
        (2, True, 40, "front", None),
        (2, True, 41, "front", "front-hull"),
    ],
)
def test_hit_location(
    t: Tables, levels: int, hull_down: bool, roll: int, aspect: str, area: str | None
) -> None:
    number = dmg.location_number(t, roll, levels)
    if dmg.hull_down_spares(t, number, hull_down):
        assert area is None
    else:
        assert dmg.point_area(t, number, aspect) == area


@pytest.mark.parametrize(
    ("face", "area"),
    [(1, "track"), (2, "front-hull"), (3, "side-hull"), (4, "front-turret"),
     (5, "side-turret"), (6, "top")],
)  # fmt: skip
def test_indirect_hit_location_is_one_in_six(t: Tables, face: int, area: str) -> None:
    assert dmg.indirect_area(t, face) == area


def test_location_odds_with_and_without_height(model: Typhoon) -> None:
    flat = FireOdds(firing(model, "PZ-IVH", "M4A1", 10))
    spared, areas = flat.areas
    assert spared == 0
    assert areas == {
        "track": Fraction(15, 100),
        "front-hull": Fraction(55, 100),
        "front-turret": Fraction(30, 100),
    }
    high = FireOdds(firing(model, "PZ-IVH", "M4A1", 10, levels_above=2, hull_down=True))
    spared, areas = high.areas
    assert spared == Fraction(40, 100)  # rolls 1-40, +10, are under 51
    assert areas == {
        "front-hull": Fraction(20, 100),
        "front-turret": Fraction(30, 100),
        "top": Fraction(10, 100),
    }


# --- penetration (ToS V Armour penetration, Penetration) ------------------------------------


@pytest.mark.parametrize(
    ("shell", "r", "face", "depth"),
    [
        pytest.param("he", 10, 1, 0.04, id="he-low"),
        pytest.param("he", 10, 50, 3.96, id="he-mid"),
        pytest.param("he", 10, 100, 7.96, id="he-high"),
        pytest.param("ap", 0, 100, 17.93, id="ap-range-0"),
        pytest.param("ap", 16, 100, 4 + 0.995 * (7 + 7 * 34 / 50), id="ap-range=accuracy"),
        pytest.param("ap", 25, 51, 9.3025, id="ap-half-range"),
        pytest.param("ap", 50, 100, 10.965, id="ap-max-range"),
        pytest.param("ap", 50, 1, 4.035, id="ap-max-range-low"),
    ],
)
def test_penetration_depth(t: Tables, shell: str, r: float, face: int, depth: float) -> None:
    gun = t.weapons["75L48"]
    assert dmg.depth(t, shell, u(face), gun, r) == pytest.approx(depth)


def test_literal_ap_reading_can_be_charted(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "typhoon.yaml").write_text(
        "entries:\n  - {id: ap-reading, table: parameter, value: 0}\n"
    )
    alt = find_model("typhoon", load_charts((tmp_path,)))
    assert isinstance(alt, Typhoon)
    t = alt.t
    gun = t.weapons["75L48"]
    assert dmg.depth_ap(t, u(51), gun, 25) == pytest.approx(4 + 0.505 * 14 * 0.5)
    assert dmg.depth_ap(t, u(100), gun, 50) == pytest.approx(4)


@pytest.mark.parametrize(
    ("depth", "armour", "through"), [(9, 9, True), (8.99, 9, False), (0, 0, True)]
)
def test_penetrates_at_depth_equal_to_armour(depth: float, armour: float, through: bool) -> None:
    assert dmg.penetrates(depth, armour) is through


@pytest.mark.parametrize(
    ("weapon", "area", "always"),
    [("75L48", "track", True), ("TMG", "track", False), ("75L48", "front-hull", False),
     ("BAZOOKA", "track", True)],
)  # fmt: skip
def test_track_hits_always_penetrate_above_small_arms(t: Tables, weapon: str, area: str, always):
    assert dmg.always_penetrates(t, area, t.weapons[weapon]) is always


def test_small_arms_on_a_track_meet_the_hull_armour(model: Typhoon) -> None:
    sherman = model.profiles()["M4A1"]
    assert dmg.armour_at(sherman, "track", "front") == 8
    assert dmg.armour_at(sherman, "track", "side") == 4
    assert dmg.armour_at(sherman, "top", "front") == 2


# --- effects of penetration (ToS V Effects of penetration) ---------------------------------


@pytest.mark.parametrize(
    ("f1", "f2", "destroyed"), [(100, 50, True), (99, 50, False), (1, 1, False), (100, 1, True)]
)
def test_destroyed_outright(t: Tables, f1: int, f2: int, destroyed: bool) -> None:
    gun, pz = t.weapons["75L48"], t.units["PZ-IVH"]
    # 4 x Rnd(1) > 4 x 2 x Rnd(1)
    assert dmg.destroyed_outright(t, gun, pz, u(f1), u(f2)) is destroyed


def test_destroyed_outright_chance_is_a_quarter_for_equal_sizes(model: Typhoon) -> None:
    # 4 u1 > 8 u2 with midpoints: faces i >= 2j, 2500 of the 10000 pairs.
    assert FireOdds(firing(model, "PZ-IVH", "PZ-IVH", 10)).p_outright == Fraction(1, 4)


@pytest.mark.parametrize(
    ("area", "rolls", "men", "expect"),
    [
        pytest.param("track", (1, 100), 5, {"immobilized": True}, id="track"),
        pytest.param("side-hull", (1, 100, 50), 5, {"immobilized": True}, id="side-hull-engine"),
        pytest.param("top", (1, 100, 50), 5, {"immobilized": True}, id="top-engine"),
        pytest.param(
            "front-hull", (1, 100, 75, 90, 91), 4,
            {"compartment": "hull", "guns_out": [3], "crew_killed": 1}, id="front-hull",
        ),
        pytest.param(
            "side-hull", (1, 100, 51, 76, 91), 5,
            {"compartment": "hull", "guns_out": [], "crew_killed": 0}, id="side-hull-crew",
        ),
        pytest.param(
            "top", (1, 100, 51, 76, 75, 91), 5,
            {"compartment": "turret", "guns_out": [2], "crew_killed": 0}, id="top-turret",
        ),
        pytest.param(
            "front-turret", (1, 100, 1, 1, 10, 10, 10, 10, 10), 0,
            {"compartment": "turret", "guns_out": [1, 2], "crew_killed": 5}, id="whole-crew",
        ),
        pytest.param("side-turret", (100, 1), 5, {"destroyed_outright": True}, id="outright"),
    ],
)  # fmt: skip
def test_penetration_effects(
    t: Tables, area: str, rolls: tuple[int, ...], men: int, expect: dict[str, Any]
) -> None:
    d = dice(*rolls)
    status = dmg.Status(men=5)
    out = dmg.penetration_effects(t, d, t.weapons["75L48"], t.units["M4A1"], area, status)
    for key, value in expect.items():
        assert getattr(out, key) == value
    assert status.men == men
    assert status.destroyed is (men == 0 or bool(expect.get("destroyed_outright")))
    used_all(d)


def test_guns_already_out_are_not_rolled_again(t: Tables) -> None:
    d = dice(1, 100, 75, 91)
    status = dmg.Status(men=5, guns_out={1})
    out = dmg.penetration_effects(t, d, t.weapons["75L48"], t.units["M4A1"], "front-turret", status)
    assert out.guns_out == [2] and status.guns_out == {1, 2}
    used_all(d)


# --- HE damage (ToS V Damage by HE fire, Damage to soft targets) --------------------------


@pytest.mark.parametrize(
    ("weapon", "target", "primary", "chance"),
    [
        ("75L48", "US-RIFLE", True, 100),
        ("75L48", "US-RIFLE", False, 50),
        ("105MM", "GE-RIFLE", False, 120),
        ("75L48", "M3-HT", False, 8),
        ("75L48", "M4A1", False, 4),
        ("TMG", "M3-HT", False, 2),
        ("TMG", "TRUCK", False, 80),
    ],
)
def test_he_hit_chance(t: Tables, weapon: str, target: str, primary: bool, chance: float) -> None:
    assert dmg.he_chance(t, t.weapons[weapon], t.units[target], primary)[0] == chance


@pytest.mark.parametrize(
    ("ia", "ra", "f1", "f2", "value"),
    [
        (12, 50, 100, 1, 2.99),
        (5, 98, 100, 100, 5 * 0.995 * 98 / 200 + 0.995),
        (8, 12, 1, 1, 8 * 0.005 * 12 / 200 + 0.005),
        (0, 99, 100, 50, 0.495),
    ],
)
def test_men_killed_formula(t: Tables, ia: float, ra: float, f1: int, f2: int, value: float):
    assert dmg.kill_value(t, ia, ra, u(f1), u(f2)) == pytest.approx(value)


@pytest.mark.parametrize(
    ("value", "whole", "rest"),
    [
        pytest.param(1.2, 1, 20.0, id="golden-120%-one-man-and-20%"),
        pytest.param(2.0, 2, 0.0, id="whole"),
        pytest.param(0.005, 0, 0.5, id="tiny"),
        pytest.param(3.4402, 3, 44.02, id="fraction"),
    ],
)
def test_remainder_is_the_chance_of_another_man(value: float, whole: int, rest: float) -> None:
    w, r = dmg.split(value)
    assert w == whole and r == pytest.approx(rest)


def test_golden_120_percent_rolls(t: Tables) -> None:
    _, rest = dmg.split(1.2)
    assert t.percent(dice(20), rest, "one more")[0] and not t.percent(dice(21), rest, "x")[0]


@pytest.mark.parametrize(
    ("ra", "face", "extra"),
    [(50, 75, True), (50, 76, False), (99, 99, True), (99, 100, False), (12, 56, True),
     (12, 57, False)],
)  # fmt: skip
def test_extra_kill_when_ra_plus_100_beats_200_rnd(t: Tables, ra: float, face: int, extra: bool):
    assert dmg.extra_kill(t, ra, u(face)) is extra


@pytest.mark.parametrize(
    ("size", "killed", "face", "destroyed"),
    [(4, 1, 10, True), (4, 1, 11, False), (4, 10, 100, True), (4, 0, 1, False),
     (6, 2, 30, True), (6, 2, 31, False)],
)  # fmt: skip
def test_gun_destroyed_when_rnd_40_under_size_times_killed(
    t: Tables, size: int, killed: int, face: int, destroyed: bool
) -> None:
    weapon = next(w for w in t.weapons.values() if w.size == size)
    assert dmg.gun_destroyed(t, weapon, killed, u(face)) is destroyed


@pytest.mark.parametrize(
    ("weapon", "target", "ra", "ia", "rolls", "killed", "destroyed"),
    [
        pytest.param("RIFLE", "US-RIFLE", 50, 12, (100, 1, 99), 3, False, id="remainder-kills"),
        pytest.param("RIFLE", "US-RIFLE", 50, 12, (100, 1, 100), 2, False, id="remainder-misses"),
        pytest.param("75L48", "PAK-40", 98, 5, (100, 100, 43, 99), 5, True, id="gun-wiped-out"),
        pytest.param("75L48", "PAK-40", 98, 5, (1, 1, 76, 100), 0, False, id="gun-untouched"),
        pytest.param("75L48", "PAK-40", 98, 5, (1, 1, 50, 10, 10), 1, True, id="gun-destroyed"),
        pytest.param("75L48", "PAK-40", 98, 5, (1, 1, 50, 10, 11), 1, False, id="gun-survives"),
    ],
)
def test_he_losses(
    t: Tables, weapon: str, target: str, ra: float, ia: float, rolls: tuple[int, ...],
    killed: int, destroyed: bool,
) -> None:  # fmt: skip
    d = dice(*rolls)
    status = dmg.Status(men=t.units[target].men)
    out = dmg.he_losses(t, d, t.weapons[weapon], ia, ra, t.units[target], status)
    assert (out.killed, out.destroyed) == (killed, destroyed)
    used_all(d)


def test_squad_attack_is_weapon_ia_times_men(t: Tables) -> None:
    rifle, squad, tank = t.weapons["RIFLE"], t.units["US-RIFLE"], t.units["PZ-IVH"]
    assert dmg.squad_attack(t, squad, rifle, 12) == 12
    assert dmg.squad_attack(t, squad, rifle, 7) == 7
    assert dmg.squad_attack(t, tank, t.weapons["TMG"], 5) == 8
    assert dmg.squad_attack(t, t.units["US-FLAME"], t.weapons["FLAME"], 8) == 20


@pytest.mark.parametrize(
    ("options", "rolls", "keys"),
    [
        pytest.param(
            {"weapon": "105MM", "target": "GE-RIFLE"}, (99, 100, 100, 1, 1),
            {"chance": 99, "hit": True, "men_killed": 8}, id="soft-square-hit-capped-99",
        ),
        pytest.param(
            {"weapon": "105MM", "target": "GE-RIFLE", "cover": "hard"}, (61,),
            {"chance": round(120 * 0.71**4, 2), "hit": False}, id="soft-in-stone-missed",
        ),
        pytest.param(
            {"weapon": "75L48", "target": "M4A1"}, (4, 1, 5, 100),
            {"chance": 4, "hit": True, "location": "track", "penetrated": True,
             "immobilized": True}, id="hard-track",
        ),
        pytest.param({"weapon": "75L48", "target": "M4A1"}, (5,), {"hit": False}, id="hard-miss"),
        pytest.param(
            {"weapon": "75L48", "target": "M3-HT"}, (8, 6, 26, 5, 100, 51, 76, 91),
            {"chance": 8, "location": "top", "penetration_depth": 2.04, "penetrated": True,
             "men_killed": 0}, id="open-top",
        ),
        pytest.param(
            {"weapon": "75L48", "target": "M4A1"}, (4, 2, 26),
            {"location": "front-hull", "penetration_depth": 2.04, "penetrated": False},
            id="front-hull-holds",
        ),
    ],
)  # fmt: skip
def test_he_damage_procedure(
    model: Typhoon, options: dict[str, Any], rolls: tuple[int, ...], keys: dict[str, Any]
) -> None:
    d = dice(*rolls)
    out = run_procedure(model, "he-damage", options, d)
    assert {k: out.get(k) for k in keys} == keys
    used_all(d)


def test_he_damage_primary_hard_target_is_refused(model: Typhoon) -> None:
    with pytest.raises(BadInput, match="only soft targets are primary"):
        run_procedure(model, "he-damage", {"weapon": "75L48", "target": "M4A1",
                                           "primary": True}, dice())  # fmt: skip


# --- infantry assault (ToS V Infantry assaults against hard targets) ------------------------


@pytest.mark.parametrize(
    ("kr", "face", "result"),
    [(10, 61, "destroyed"), (10, 60, "immobilized"), (10, 31, "immobilized"),
     (10, 30, "no effect"), (3, 100, "no effect"), (7, 100, "destroyed")],
)  # fmt: skip
def test_assault_kill_rating_thresholds(t: Tables, kr: float, face: int, result: str) -> None:
    assert assault_result(t, kr * u(face)) == result


def test_golden_kill_rating_10_destroys_40_and_tracks_30(t: Tables) -> None:
    results = [assault_result(t, 10 * t.rnd_of(face)) for face in t.faces()]
    assert results.count("destroyed") == 40 and results.count("immobilized") == 30


def test_golden_morale_4_with_1_suppression_goes_in_75_percent(t: Tables) -> None:
    assert sum(morale_holds(4, 1, t.rnd_of(face)) for face in t.faces()) == 75
    assert not morale_holds(4, 1, u(25)) and morale_holds(4, 1, u(26))


@pytest.mark.parametrize(
    ("options", "rolls", "kr", "result"),
    [
        pytest.param({"target": "M4A1"}, (5, 51), 14, "destroyed", id="stationary-tank"),
        pytest.param({"target": "M4A1"}, (6, 51), 12, "destroyed", id="skill-failed"),
        pytest.param({"target": "M4A1", "target_state": "full"}, (5, 51), 10, "immobilized",
                     id="full-advance"),
        pytest.param({"target": "M3-HT"}, (5, 1), 16, "no effect", id="open-topped"),
        pytest.param({"target": "TRUCK", "men": 3}, (5, 87), 7, "destroyed", id="soft-vehicle"),
        pytest.param({"target": "TRUCK", "men": 3}, (5, 86), 7, "immobilized", id="soft-short"),
        pytest.param({"target": "M4A1", "suppression": 6}, (25,), None, "routed",
                     id="morale-fails"),
        pytest.param({"target": "M4A1", "suppression": 6, "morale": 9}, (100, 5, 51), 14,
                     "destroyed", id="morale-holds"),
    ],
)  # fmt: skip
def test_assault_on_vehicles(
    model: Typhoon, options: dict[str, Any], rolls: tuple[int, ...], kr: int | None, result: str
) -> None:
    d = dice(*rolls)
    out = run_procedure(model, "assault", {"assaulter": "US-RIFLE", **options}, d)
    assert (out["kill_rating"], out["result"]) == (kr, result)
    used_all(d)


def test_assault_with_a_special_weapon_uses_its_accuracy(model: Typhoon) -> None:
    d = dice(5, 51)
    out = run_procedure(
        model, "assault", {"assaulter": "US-FLAME", "target": "M4A1", "special": "FLAME"}, d
    )
    assert out["kill_rating"] == 12  # accuracy 10, +2 stationary
    with pytest.raises(BadInput, match="range 1"):
        run_procedure(
            model, "assault", {"assaulter": "US-FLAME", "target": "M4A1", "special": "RIFLE"}, d
        )


def test_assault_on_infantry_uses_he_with_four_times_the_value(model: Typhoon) -> None:
    # IA 1 x 12 men x 4 = 48; chance 100 (primary) capped 99; 48 x .995 x 99 / 200 + .005
    d = dice(5, 99, 100, 1, 100)
    out = run_procedure(model, "assault", {"assaulter": "US-RIFLE", "target": "GE-RIFLE"}, d)
    assert out["chance"] == 99
    assert out["men_killed"] == 10  # 23.645 men: the whole squad
    assert out["result"] == "destroyed"
    used_all(d)


# --- visibility and weather ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "squares"),
    [
        pytest.param({}, 50, id="level-5"),
        pytest.param({"visibility": 9}, 90, id="level-9"),
        pytest.param({"weather": "rain"}, 50, id="rain-outside-a-campaign"),
        pytest.param({"weather": "rain", "campaign": True}, 20, id="rain"),
        pytest.param({"weather": "snow", "campaign": True}, 30, id="snow"),
        pytest.param({"weather": "dust", "campaign": True}, 25, id="dust"),
        pytest.param({"buttoned": True}, 50 * 0.5041, id="buttoned"),
        pytest.param({"higher": True}, 71, id="higher"),
        pytest.param({"pulse": 2}, 50 * 0.5041, id="early-pulse"),
        pytest.param({"target_stationary": True, "target_hidden": True}, 50 * 0.71**4,
                     id="still-and-hidden"),
        pytest.param({"size": 6}, 75, id="big-target"),
        pytest.param({"size": 2, "range": 3}, 50 * 5 / 7, id="small-target-near"),
        pytest.param({"skill": 0}, 50 * 0.5041, id="skill-failed"),
    ],
)  # fmt: skip
def test_visibility_range(model: Typhoon, options: dict[str, Any], squares: float) -> None:
    base = {"visibility": 5, "skill": 10, "size": 4}
    d = dice(10)
    out = run_procedure(model, "visibility", {**base, **options}, d)
    assert out["visibility_range"] == pytest.approx(squares, abs=1e-3)
    used_all(d)


def test_visibility_says_whether_the_target_is_seen(model: Typhoon) -> None:
    opts = {"visibility": 1, "spotter": "PZ-IVH", "target": "TIGER-I"}
    near = run_procedure(model, "visibility", {**opts, "range": 12}, dice(1))
    far = run_procedure(model, "visibility", {**opts, "range": 16}, dice(1))
    assert near["visibility_range"] == pytest.approx(15)  # 10 x size 6 / 4
    assert near["sees"] and not far["sees"]


@pytest.mark.parametrize(
    ("options", "cost"),
    [
        ({"weather": "rain", "cost": 5}, 7.5),
        ({"weather": "snow", "cost": 5}, 7.5),
        ({"weather": "snow", "cost": 20, "swamp": True}, 10),
        ({"weather": "rain", "cost": 20, "swamp": True}, 22.5),
        ({"weather": "clear", "cost": 5}, 5),
        ({"weather": "dust", "cost": 5}, 5),
    ],
)
def test_weather_movement_cost(model: Typhoon, options: dict[str, Any], cost: float) -> None:
    assert run_procedure(model, "weather", options, dice())["move_cost"] == cost


# --- indirect fire (ToS V Indirect bombardment fire, Administrative delays) -----------------


@pytest.mark.parametrize(
    ("base", "los", "close", "off_map", "value"),
    [
        ("scatter-blind", False, False, False, 9),
        ("scatter-blind", True, False, False, 4.5),
        ("scatter-blind", True, True, False, 2.25),
        ("scatter-blind", True, True, True, 1.125),
        ("scatter-check-failed", False, False, False, 4),
        ("scatter-check-failed", True, True, False, 1),
        ("scatter-check-passed", False, False, False, 2),
        ("scatter-check-passed", True, True, False, 0.5),
    ],
)
def test_maximum_scatter(t: Tables, base: str, los: bool, close: bool, off_map: bool, value):
    assert max_scatter(t, base, los, close, off_map)[0] == value


@pytest.mark.parametrize(("value", "steps"), [(9, 9), (4.5, 4), (1.0, 1), (0.999, 0), (0.5, 0)])
def test_scatter_fractions_dropped(value: float, steps: int) -> None:
    assert steps_for(value) == steps


@pytest.mark.parametrize(("steps", "p"), [(0, Fraction(1)), (1, Fraction(0)), (2, Fraction(1, 8))])
def test_random_walk_back_to_target(steps: int, p: Fraction) -> None:
    assert walk_odds(steps) == p


@pytest.mark.parametrize(
    ("options", "rolls", "offset", "chance"),
    [
        pytest.param({"spotted": False}, (1, 5, 1, 5, 1, 5, 1, 5, 3), (1, 0), None, id="blind-9"),
        pytest.param({"firer_skill": 5, "spotter_skill": 5, "los": True, "range": 20}, (10, 25),
                     (0, 0), 0.5 * 0.25 + 0.5 * 0.0, id="passed-under-1-on-target"),
        pytest.param({"firer_skill": 5, "spotter_skill": 5, "los": True, "range": 20}, (10, 26, 2),
                     (1, 1), None, id="passed-under-1-one-off"),
        pytest.param({"firer_skill": 5, "spotter_skill": 5, "los": True, "range": 30}, (11, 3, 7),
                     (0, 0), 0.5 * 0 + 0.5 * 0.125, id="failed-2-steps-back"),
    ],
)  # fmt: skip
def test_scatter_procedure(
    model: Typhoon, options: dict[str, Any], rolls: tuple[int, ...], offset, chance
) -> None:
    d = dice(*rolls)
    out = run_procedure(model, "scatter", options, d)
    assert (out["offset"]["x"], out["offset"]["y"]) == offset
    assert out["offset_inches"]["x"] == offset[0]
    if chance is not None:
        assert out["chance_on_target"] == pytest.approx(chance)
    used_all(d)


def test_golden_combined_skill_10_passes_half_the_time(model: Typhoon) -> None:
    opts = {"firer_skill": 4, "spotter_skill": 6}
    passed = run_procedure(model, "scatter", opts, dice(10, *([1] * 2)))
    failed = run_procedure(model, "scatter", opts, dice(11, *([1] * 4)))
    assert passed["accuracy_check"] and passed["max_scatter"] == 2
    assert not failed["accuracy_check"] and failed["max_scatter"] == 4


@pytest.mark.parametrize(
    ("options", "pulses", "chance"),
    [
        ({"plotter": "self"}, 1, None),
        ({"plotter": "formation-hq"}, 3, None),
        ({"plotter": "battalion-hq"}, 6, None),
        ({"plotter": "other-hq"}, 9, None),
        ({"plotter": "other-hq", "repeat": True}, 1, None),
        ({"plotter": "battalion-hq", "assault_first_turn": True}, 1, None),
        ({"plotter": "other-hq", "direct": True}, 1, None),
        ({"plotter": "formation-hq", "off_map": True, "spotter_skill": 5, "firer_skill": 4}, 3, 9),
        ({"plotter": "formation-hq", "off_map": True, "smoke": True}, 3, None),
    ],
)
def test_bombardment_delays(model: Typhoon, options: dict[str, Any], pulses: int, chance):
    out = run_procedure(model, "bombard-delay", options, dice())
    assert out["delay_pulses"] == pulses and out["delay_seconds"] == pulses * 20
    assert out["start_chance"] == chance


# --- suppression, states, rally, command, orders (ToS V tables) ------------------------------


@pytest.mark.parametrize(
    ("options", "rolls", "points"),
    [
        pytest.param({"points": 5, "cover": "soft"}, (), 3, id="soft-cover-sighted"),
        pytest.param({"points": 5, "cover": "soft", "sighted": False}, (), 1, id="soft-unseen"),
        pytest.param({"points": 5, "cover": "hard"}, (), 2, id="hard-cover-sighted"),
        pytest.param({"points": 5, "cover": "hard", "sighted": False}, (), 0, id="hard-unseen"),
        pytest.param({"points": 1, "cover": "soft", "sighted": False}, (), 0, id="floor-0"),
        pytest.param({"points": 3, "out_of_command": True, "near_routed": 2, "alone": True,
                      "immobilized": True}, (), 7, id="bad-news"),
        pytest.param({"points": 12, "good_friends": 2, "unit": "M4A1"}, (60,), 9,
                     id="friends-help"),
        pytest.param({"points": 12, "good_friends": 2, "unit": "M4A1"}, (71,), 11,
                     id="friends-do-not-help"),
        pytest.param({"points": 12, "good_friends": 1, "unit": "US-RIFLE", "men": 2}, (1,), 10,
                     id="infantry-step-passes"),
        pytest.param({"points": 12, "good_friends": 1, "unit": "US-RIFLE", "men": 1}, (1,), 11,
                     id="infantry-step-fails"),
        pytest.param({"when": "fire", "points": 0, "targeted": True}, (), 1, id="zero-targeted"),
        pytest.param({"when": "fire", "points": 2, "targeted": True}, (), 2, id="targeted"),
        pytest.param({"when": "fire", "men_killed": 2, "destroyed_within_3": 1,
                      "destroyed_within_6": 1, "soft_hit_unsighted": 1, "destroyed_enemy": 1},
                     (), 14, id="fire-rows"),
        pytest.param({"when": "fire", "hard_hit_sighted": 2, "hard_hit_unsighted": 1,
                      "soft_hit_sighted": 1}, (), 6, id="hits"),
        pytest.param({"when": "pulse", "points": 4, "sees_no_enemy": True}, (), 3, id="pulse"),
    ],
)  # fmt: skip
def test_suppression_point_table(
    model: Typhoon, options: dict[str, Any], rolls: tuple[int, ...], points: int
) -> None:
    d = dice(*rolls)
    out = run_procedure(model, "suppression", {"morale": 5, **options}, d)
    assert out["points"] == points
    used_all(d)


def test_suppression_rows_of_another_moment_are_refused(model: Typhoon) -> None:
    with pytest.raises(BadInput, match="give --set when=after-pulse-3"):
        run_procedure(model, "suppression", {"when": "fire", "near_routed": 1, "morale": 4},
                      dice())  # fmt: skip


@pytest.mark.parametrize(
    ("points", "u_face", "men", "benefits"),
    [(12, 60, None, True), (12, 71, None, False), (5, 1, None, False), (6, 1, None, True),
     (12, 1, 2, True), (12, 1, 1, False)],
)  # fmt: skip
def test_good_state_benefit(t: Tables, points: int, u_face: int, men: int | None, benefits: bool):
    assert good_state_benefits(t, points, u(u_face), men) is benefits


@pytest.mark.parametrize(
    ("points", "morale", "kw", "state", "cautious"),
    [
        (1, 4, {}, "good", False),
        (2, 4, {}, "good", True),
        (2, 4, {"visible": False}, "good", False),
        (3, 4, {}, "good", True),
        (4, 4, {}, "pinned", True),
        (4, 4, {"vehicle": True}, "buttoned", True),
        (4, 4, {"dug_in": True}, "dug-in", True),
        (7, 4, {}, "pinned", True),
        (8, 4, {}, "retreating", True),
        (8, 4, {"dug_in": True}, "retreating", True),
        (11, 4, {}, "retreating", True),
        (12, 4, {}, "routed", True),
        (8, 4, {"japanese": True}, "heavily-suppressed", True),
        (12, 4, {"japanese": True}, "heavily-suppressed", True),
        (8, 4, {"vehicle": True, "cannot_move": True}, "abandoned", True),
        (12, 4, {"vehicle": True, "cannot_move": True}, "abandoned", True),
        (2, 2, {"vehicle": True}, "buttoned", True),
        (4, 2, {"vehicle": True}, "retreating", True),
    ],
)
def test_suppression_effects(
    t: Tables, points: int, morale: int, kw: dict[str, Any], state: str, cautious: bool
) -> None:
    kw.setdefault("vehicle", False)
    got = unit_state(t, points, morale, **kw)
    assert (got.state, got.cautious_only) == (state, cautious)


@pytest.mark.parametrize(("roll", "pulses"), [(1, 3), (4, 6), (7, 9)])
def test_heavy_suppression_lasts_3_to_9_pulses(model: Typhoon, roll: int, pulses: int) -> None:
    out = run_procedure(model, "state", {"points": 12, "unit": "JP-RIFLE"}, dice(roll))
    assert out["state"] == "heavily-suppressed" and out["pulses"] == pulses


def test_truck_counts_morale_two(model: Typhoon) -> None:
    out = run_procedure(model, "state", {"points": 4, "truck": True}, dice())
    assert out["state"] == "retreating"


@pytest.mark.parametrize(
    ("cr", "face", "radius"),
    [
        pytest.param(8, 40, 2, id="golden-cr-8-radius-2"),
        pytest.param(8, 41, 3, id="golden-cr-8-radius-3"),
        pytest.param(10, 1, 3, id="cr-10-low"),
        pytest.param(10, 100, 3, id="cr-10-high"),
        pytest.param(0, 100, 1, id="cr-0"),
        pytest.param(40, 50, 9, id="cr-40"),
    ],
)
def test_rally_radius(t: Tables, cr: int, face: int, radius: int) -> None:
    assert rally_radius(t, cr, u(face)) == radius


def test_golden_cr_8_rally_radius_2_for_40_percent(t: Tables) -> None:
    radii = [rally_radius(t, 8, t.rnd_of(face)) for face in t.faces()]
    assert radii.count(2) == 40 and radii.count(3) == 60


@pytest.mark.parametrize(
    ("options", "rolls", "rallied", "points"),
    [
        pytest.param({"points": 9}, (50, 4), True, 4, id="golden-morale-4-rallies-on-4"),
        pytest.param({"points": 9}, (50, 5), False, 9, id="morale-4-fails-on-5"),
        pytest.param({"points": 3}, (50,), False, 3, id="below-morale"),
        pytest.param({"points": 9, "distance": 4}, (50,), False, 9, id="out-of-reach"),
        pytest.param({"points": 9, "in_command": False}, (), False, 9, id="out-of-command"),
    ],
)
def test_rally(
    model: Typhoon, options: dict[str, Any], rolls: tuple[int, ...], rallied: bool, points: int
) -> None:
    d = dice(*rolls)
    opts = {"cr": 10, "distance": 3, "morale": 4, **options}
    out = run_procedure(model, "rally", opts, d)
    assert (out["rallied"], out["points"]) == (rallied, points)
    used_all(d)


def test_retreating_hq_cannot_rally(model: Typhoon) -> None:
    with pytest.raises(RulesRefusal, match="cannot attempt a rally"):
        run_procedure(model, "rally", {"cr": 10, "hq_state": "retreating", "distance": 1,
                                       "points": 5, "morale": 4}, dice())  # fmt: skip


@pytest.mark.parametrize(
    ("cr", "face", "ok"), [(10, 20, False), (10, 21, True), (8, 25, False), (8, 26, True)]
)
def test_radio_command_control(t: Tables, cr: int, face: int, ok: bool) -> None:
    assert radio_in_command(t, cr, u(face)) is ok


@pytest.mark.parametrize(("cr", "out_of_command"), [(10, 20), (8, 25)])
def test_golden_radio_out_of_command_chances(t: Tables, cr: int, out_of_command: int) -> None:
    assert sum(not radio_in_command(t, cr, t.rnd_of(f)) for f in t.faces()) == out_of_command


@pytest.mark.parametrize(
    ("options", "rolls", "ok"),
    [
        ({"radio": False, "distance": 5}, (), True),
        ({"radio": False, "distance": 5.5}, (), False),
        ({"radio": True, "cr": 10}, (21,), True),
        ({"battalion_hq": True}, (), True),
    ],
)
def test_command_control(model: Typhoon, options: dict[str, Any], rolls, ok: bool) -> None:
    assert run_procedure(model, "command-control", options, dice(*rolls))["in_command"] is ok


@pytest.mark.parametrize(
    ("options", "rolls", "received"),
    [
        pytest.param({"cr": 35}, (50,), 4, id="golden-cr-35-four"),
        pytest.param({"cr": 35}, (51,), 3, id="golden-cr-35-three"),
        pytest.param({"cr": 8}, (80,), 1, id="golden-cr-8-one"),
        pytest.param({"cr": 8}, (81,), 0, id="golden-cr-8-none"),
        pytest.param({"cr": 30}, (), 3, id="whole-tens"),
        pytest.param({"cr": 8, "orders": 8}, (), 0, id="full"),
        pytest.param({"cr": 30, "orders": 3, "superior_orders": 32}, (), 4,
                     id="golden-superior-32"),
        pytest.param({"cr": 30, "orders": 4, "superior_orders": 32}, (), 3, id="superior-short"),
    ],
)  # fmt: skip
def test_orders(model: Typhoon, options: dict[str, Any], rolls, received: int) -> None:
    assert run_procedure(model, "orders", options, dice(*rolls))["received"] == received


# --- missions and victory (ToS V Mission chart, Victory levels) -----------------------------


@pytest.mark.parametrize(
    ("a", "d", "level", "winner"),
    [(40, 20, "marginal", "attacker"), (39, 20, "draw", None), (80, 20, "decisive", "attacker"),
     (79, 20, "marginal", "attacker"), (20, 80, "decisive", "defender"), (10, 0, "decisive",
     "attacker"), (0, 0, "draw", None), (30, 30, "draw", None)],
)  # fmt: skip
def test_victory_levels(t: Tables, a: float, d: float, level: str, winner: str | None) -> None:
    assert victory_level(t, a, d) == (level, winner)


@pytest.mark.parametrize(
    ("options", "attacker", "defender"),
    [
        pytest.param({"attacker_mission": "bypass", "defender_mission": "delay",
                      "attackers_exited": 1, "attackers_killed": 10}, 40, 40,
                     id="golden-bypass-and-delay"),
        pytest.param({"attacker_mission": "engage", "defender_mission": "hold-objective",
                      "defenders_killed": 10, "attackers_killed": 5,
                      "defenders_in_objective": 1}, 20, 110, id="engage-against-hold"),
        pytest.param({"attacker_mission": "clear-objective", "defender_mission": "delay",
                      "defenders_killed": 12, "defenders_in_objective": 0}, 112, 0,
                     id="objective-cleared"),
        pytest.param({"attacker_mission": "engage", "defender_mission": "delay",
                      "defenders_killed": 30, "attackers_abandoned": 10}, 60, 20,
                     id="holder-recovers-half-its-abandoned"),
        pytest.param({"attacker_mission": "clear-objective", "defender_mission": "hold-objective",
                      "defenders_exited": 3, "defenders_in_objective": 2}, 0, 103,
                     id="hold-and-exits"),
    ],
)  # fmt: skip
def test_mission_points(model: Typhoon, options: dict[str, Any], attacker, defender) -> None:
    out = run_procedure(model, "victory", options, dice())
    assert (out["attacker_points"], out["defender_points"]) == (attacker, defender)


def test_victory_needs_the_objective_when_a_mission_scores_it(model: Typhoon) -> None:
    with pytest.raises(BadInput, match="defenders_in_objective"):
        run_procedure(model, "victory", {"attacker_mission": "clear-objective",
                                         "defender_mission": "delay"}, dice())  # fmt: skip


def test_campaign_points_for_the_victory(model: Typhoon) -> None:
    out = run_procedure(model, "victory", {"attacker_mission": "engage",
                                           "defender_mission": "delay", "defenders_killed": 20},
                        dice())  # fmt: skip
    assert out["level"] == "decisive" and out["campaign_bonus"] == 500


@pytest.mark.parametrize(
    ("options", "points"),
    [
        pytest.param({"battle": "meeting", "side": "axis", "size": 5, "handicap": 2,
                      "quality": "veteran"}, 192, id="golden-veteran-germans-192"),
        pytest.param({"battle": "meeting", "side": "allied", "size": 5, "handicap": 2,
                      "quality": "green"}, 360, id="golden-green-americans-360"),
        pytest.param({"battle": "meeting", "side": "allied", "size": 2}, 120,
                     id="golden-meeting-size-2"),
        pytest.param({"battle": "axis-assault", "side": "axis", "handicap": 1}, 60, id="level-1"),
        pytest.param({"battle": "allied-assault", "side": "allied", "handicap": 5,
                      "quality": "elite"}, 36, id="level-5-elite"),
        pytest.param({"battle": "axis-assault", "side": "axis", "handicap": 1,
                      "campaign": True}, 100, id="campaign-ignores-handicap"),
        pytest.param({"battle": "axis-pursuit", "side": "axis", "front": "pacific"}, 40,
                     id="pacific-halved"),
    ],
)  # fmt: skip
def test_purchase_points(model: Typhoon, options: dict[str, Any], points: float) -> None:
    assert run_procedure(model, "purchase-points", options, dice())["points"] == pytest.approx(
        points
    )


@pytest.mark.parametrize(
    ("options", "points", "fits"),
    [
        ({"carrier": "truck", "infantry_men": 10}, 10, True),
        ({"carrier": "truck", "infantry_men": 11}, 11, False),
        ({"carrier": "prime-mover", "heavy_how": 1}, 15, True),
        ({"carrier": "halftrack", "at_gun": 1, "infantry_men": 1}, 11, False),
        ({"carrier": "heavy-truck", "medium_mg": 2, "heavy_mg": 1, "light_mortar": 1,
          "heavy_mortar": 1}, 16, False),
    ],
)  # fmt: skip
def test_transport_cost(model: Typhoon, options: dict[str, Any], points: float, fits: bool):
    out = run_procedure(model, "transport", options, dice())
    assert (out["points"], out["fits"]) == (points, fits)


def test_only_some_carriers_take_artillery(model: Typhoon) -> None:
    with pytest.raises(RulesRefusal, match="cannot carry artillery"):
        run_procedure(model, "transport", {"carrier": "other", "light_ig": 1}, dice())


# --- fire: whole shots with the referee's dice ------------------------------------------------


def test_fire_hard_target_no_penetration(model: Typhoon) -> None:
    # RA 68 at 10 squares; silhouette 5/4 = 1.25; accuracy 85. Skill 3 passes; 85 hits;
    # location 50 front hull (armour 8); depth 4 + .315 x (7 + 7 x 40/50) = 7.969.
    d = dice(3, 85, 50, 32)
    out = model.fire(shot("PZ-IVH", "M4A1", 10), d)
    used_all(d)
    assert {k: out.data[k] for k in FIRE_KEYS} == {
        "ranged_accuracy": 68.0,
        "shifts": 0,
        "accuracy": 85.0,
        "hit": True,
        "location": "front-hull",
        "penetration_depth": 7.97,
        "penetrated": False,
        "men_killed": 0,
    }
    assert out.data["outcome"] == "no effect"
    assert out.verdict.startswith("No effect: PZ-IVH 75L48 at M4A1 on the front hull")
    assert out.target_state == {"men": 5, "immobilized": False, "guns_out": [],
                                "suppression": 2, "state": "good",
                                "suppression_rule": "ToS V Suppression point table, fire",
                                "state_rule": "ToS V Suppression effects table"}  # fmt: skip
    assert not out.eliminated


def test_fire_hard_target_penetrates_at_one_face_more(model: Typhoon) -> None:
    d = dice(3, 85, 50, 33, 1, 100, 75, 10, 10, 95)
    out = model.fire(shot("PZ-IVH", "M4A1", 10), d)
    used_all(d)
    assert out.data["penetration_depth"] == pytest.approx(8.1, abs=0.01)
    assert out.data["penetrated"] and out.data["outcome"] == "crew hit"
    assert out.data["men_killed"] == 2
    assert out.target_state is not None
    assert out.target_state["men"] == 3 and out.target_state["guns_out"] == [3]
    # +1 had none, +1 hit by a sighted enemy, +3 x 2 crew killed
    assert out.data["suppression"] == 8


def test_fire_miss_at_one_over(model: Typhoon) -> None:
    d = dice(3, 86)
    out = model.fire(shot("PZ-IVH", "M4A1", 10), d)
    used_all(d)
    assert not out.data["hit"] and out.data["location"] is None
    assert out.data["outcome"] == "missed" and out.verdict.startswith("Missed")


def test_fire_soft_target_losses(model: Typhoon) -> None:
    # TMG at 3 squares: RA 74. Losses 8 x .995 x 74 / 200 + .495 = 3.4402: 3 and 44.02%.
    d = dice(1, 74, 100, 50, 44)
    out = model.fire(shot("PZ-IVH", "US-RIFLE", 3, weapon="TMG"), d)
    used_all(d)
    assert out.data["ranged_accuracy"] == 74 and out.data["accuracy"] == 74
    assert out.data["men_killed"] == 4 and out.data["outcome"] == "4 killed"
    assert out.data["location"] is None and out.data["penetration_depth"] is None
    # +1 had none, +1 square hit, +3 x 4 men: 14 >= 2 x morale 5: retreating
    assert out.target_state == {"men": 8, "immobilized": False, "guns_out": [],
                                "suppression": 14, "state": "retreating",
                                "suppression_rule": "ToS V Suppression point table, fire",
                                "state_rule": "ToS V Suppression effects table",
                                "men_rule": "ToS V Damage to soft targets"}  # fmt: skip


def test_fire_reads_the_targets_losses_so_far(model: Typhoon) -> None:
    d = dice(1, 74, 100, 50, 44)
    out = model.fire(shot("PZ-IVH", "US-RIFLE", 3, weapon=2, target_men=3, target_suppression=4), d)
    assert out.data["men_killed"] == 3 and out.eliminated
    assert out.data["destroyed"] and out.data["outcome"] == "destroyed"


def test_fire_stops_when_the_target_is_destroyed(model: Typhoon) -> None:
    d = dice(3, 10, 50, 100, 100, 1)
    out = model.fire(shot("PZ-IVH", "M4A1", 10, count=3), d)
    used_all(d)
    assert len(out.data["shots"]) == 1 and out.eliminated


def test_fire_at_maximum_range_and_beyond(model: Typhoon) -> None:
    out = model.fire(shot("PZ-IVH", "M4A1", 50), dice(3, 2, 1, 1))
    assert out.data["ranged_accuracy"] == 2 and out.data["accuracy"] == 2.5  # x1.25
    with pytest.raises(RulesRefusal, match=r"reaches 50 squares .*ToS II.B.3 Range"):
        model.fire(shot("PZ-IVH", "M4A1", 50.01), dice())


def test_fire_through_smoke_is_refused(model: Typhoon) -> None:
    with pytest.raises(RulesRefusal, match="smoke"):
        model.fire(shot("PZ-IVH", "M4A1", 10, smoke=1), dice())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"weapon": "88L56"}, "PZ-IVH carries 75L48, TMG, TMG"),
        ({"weapon": 4}, "position 1-3"),
        ({"firer_state": "moving"}, "accepted positioned"),
        ({"hull_down": "yes please"}, "true or false"),
        ({"target_men": 9}, "give 1 to 5"),
        ({"target_guns_out": "9"}, "positions 1-4"),
    ],
)
def test_fire_bad_options(model: Typhoon, options: dict[str, Any], message: str) -> None:
    with pytest.raises(BadInput, match=message):
        model.fire(shot("PZ-IVH", "M4A1", 10, **options), dice())


def test_ap_at_a_soft_target_is_refused(model: Typhoon) -> None:
    with pytest.raises(RulesRefusal, match="uses HE"):
        model.fire(shot("PZ-IVH", "US-RIFLE", 3, shell="ap"), dice())


# --- odds ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rolls", "hit"),
    [((7, 42), True), ((7, 43, 85), True), ((7, 43, 86), False), ((7, 44), False)],
)
def test_the_chance_shown_is_the_chance_rolled(
    model: Typhoon, rolls: tuple[int, ...], hit: bool
) -> None:
    # Skill 5 failed (7): 68 x .5041 x 1.25 = 42.85%, shown and rolled as such: 1-42 hit,
    # 43 rolls a second d100 for the hundredths (1-85 hit), 44-100 miss.
    the_shot = shot("PZ-IVH", "M4A1", 10)
    out = model.fire(the_shot, dice(*rolls))
    assert out.data["hit"] is hit and out.data["needed"] == 42.85
    assert "accuracy 42.85 -> 42.85% (cap 99, floor 0): the chance to hit" in out.lines
    rolled = " then ".join(f"d100 {r}" for r in rolls[1:])
    assert f"to hit: {rolled}: {'hit' if hit else 'miss'}" in out.lines
    # odds give the very same chance (one code path: Tables.percent and settled)
    assert FireOdds(model.firing(the_shot)).p_hit(True) == Fraction(4285, 10_000)


def test_odds_miss_chance_by_hand(model: Typhoon) -> None:
    # skill 5 of 10: pass -> 85 needed; fail (-2) -> 68 x .5041 x 1.25 = 42.85%, exactly.
    odds = model.odds(shot("PZ-IVH", "M4A1", 10))
    assert odds["outcomes"]["missed"] == Fraction(1, 2) * Fraction(15, 100) + Fraction(
        1, 2
    ) * Fraction(5715, 10_000)
    assert odds["expected"]["hits"] == Fraction(8500 + 4285, 20_000)
    assert sum(odds["outcomes"].values()) == 1


def test_odds_count_two_soft_sums_to_one(model: Typhoon) -> None:
    odds = model.odds(shot("PZ-IVH", "US-RIFLE", 3, count=2, weapon="TMG"))
    assert sum(odds["outcomes"].values()) == 1
    assert all(0 <= p <= 1 for p in odds["outcomes"].values())


SIMULATED = [
    ("PZ-IVH", "M4A1", 10.0, 1, {}),
    ("PZ-IVH", "US-RIFLE", 3.0, 2, {"weapon": "TMG"}),
    ("TIGER-I", "PAK-40", 8.0, 1, {"cover": "soft"}),
    ("M4A1", "PZ-IVH", 6.0, 2, {"aspect": "side", "hull_down": True, "levels_above": 2}),
]


@pytest.mark.parametrize(("shooter", "target", "r", "count", "options"), SIMULATED)
def test_odds_agree_with_simulated_fire(
    model: Typhoon, shooter: str, target: str, r: float, count: int, options: dict[str, Any]
) -> None:
    n = 1500
    the_shot = shot(shooter, target, r, count, **options)
    odds = model.odds(the_shot)["outcomes"]
    seen: dict[str, int] = {}
    for seed in range(n):
        name = model.fire(the_shot, Dice(seed)).data["outcome"]
        seen[name] = seen.get(name, 0) + 1
    assert set(seen) <= set(odds)
    for name, p in odds.items():
        sigma = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(seen.get(name, 0) / n - float(p)) <= 4.5 * sigma + 0.005, name


# --- invariants -------------------------------------------------------------------------------


@given(r=st.floats(0, 50), a=st.floats(1, 49))
def test_ranged_accuracy_stays_between_2_and_98(t: Tables, r: float, a: float) -> None:
    ra = ranged_accuracy(t, r, a, 50)
    assert 2 - 1e-9 <= ra <= 98 + 1e-9


@settings(max_examples=60)
@given(
    r1=st.floats(0, 50),
    r2=st.floats(0, 50),
    target=st.sampled_from(["US-RIFLE", "PAK-40", "PZ-IVH", "M3-HT", "CHI-HA"]),
    state=st.sampled_from(["positioned", "cautious", "full", "pinned"]),
)
def test_accuracy_never_rises_with_range(
    model: Typhoon, r1: float, r2: float, target: str, state: str
) -> None:
    near, far = sorted((r1, r2))
    for failed in (False, True):
        a = model.firing(shot("PZ-IVH", target, near, firer_state=state)).hit_accuracy(failed)
        b = model.firing(shot("PZ-IVH", target, far, firer_state=state)).hit_accuracy(failed)
        assert b.value <= a.value + 1e-9
        assert 0 <= b.value <= 99


@settings(max_examples=20, deadline=None)
@given(
    r=st.floats(0, 10),
    target=st.sampled_from(["US-RIFLE", "PAK-40", "M4A1", "M3-HT", "TRUCK", "TIGER-I"]),
    count=st.integers(1, 3),
    aspect=st.sampled_from(["front", "side"]),
    men=st.integers(1, 2),
)
def test_odds_are_probabilities_summing_to_one(
    model: Typhoon, r: float, target: str, count: int, aspect: str, men: int
) -> None:
    odds = model.odds(shot("M4A1", target, r, count, aspect=aspect, target_men=men))
    assert sum(odds["outcomes"].values()) == 1
    assert all(0 <= p <= 1 for p in odds["outcomes"].values())
    assert 0 <= odds["expected"]["hits"] <= count


# --- CLI ----------------------------------------------------------------------------------------


def test_quick_mode_json_keys(run: Run) -> None:
    out = as_json(run("fire", "--model", "typhoon", "--shooter", "PZ-IVH", "--target", "M4A1",
                      "--range-squares", "10", "--dice", "3,85,50,32", "--json"))  # fmt: skip
    for key in FIRE_KEYS:
        assert key in out
    assert out["model"] == "typhoon" and out["event"] is None
    assert out["penetration_depth"] == 7.97
    assert [r["value"] for r in out["rolls"]] == [3, 85, 50, 32]
    assert all(
        r["die"] == 100 or r["purpose"] == "shot 1: skill check, passes on 5 or less"
        for r in out["rolls"]
    )
    assert out["rolls"][1]["purpose"] == "shot 1: to hit: yes on 1-85"


def test_quick_mode_range_in_inches_matches_squares(run: Run) -> None:
    a = as_json(run("fire", "--model", "typhoon", "--shooter", "PZ-IVH", "--target", "M4A1",
                    "--range", "10", "--seed", "4", "--json"))  # fmt: skip
    b = as_json(run("fire", "--model", "typhoon", "--shooter", "PZ-IVH", "--target", "M4A1",
                    "--range-squares", "10", "--seed", "4", "--json"))  # fmt: skip
    assert a["range_inches"] == b["range_inches"] == 10
    assert a["verdict"] == b["verdict"]


def test_quick_mode_text_output(run: Run) -> None:
    text = run("fire", "--model", "typhoon", "--shooter", "PZ-IVH", "--target", "M4A1",
               "--range-squares", "10", "--dice", "3,86").output  # fmt: skip
    assert text.splitlines()[0].startswith("Missed: PZ-IVH 75L48 at M4A1")
    assert (
        text.splitlines()[3]
        == "  RA = 50 + 48 x (16 - 10.00) / 16 = 68.00 [ToS V Point fire accuracy]"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("--shooter", "PZ-IV", "--target", "M4A1", "--range-squares", "5"), 2,
         "--shooter 'PZ-IV': not a typhoon profile"),
        (("--shooter", "PZ-IVH", "--target", "M4A1", "--range-squares", "5", "--set", "colour=2"),
         2, "--set 'colour': not an option of the typhoon model"),
        (("--shooter", "PZ-IVH", "--target", "M4A1"), 2, "give the range once"),
        (("--shooter", "PZ-IVH", "--target", "M4A1", "--range-squares", "5", "--set",
          "cover=woods"), 2, "--set cover='woods': accepted none, soft, hard"),
        (("--shooter", "PZ-IVH", "--target", "M4A1", "--range-squares", "60"), 3,
         "ToS II.B.3 Range"),
        (("--shooter", "PZ-IVH", "--target", "M4A1", "--range-squares", "5", "--smoke", "2"), 3,
         "smoke"),
    ],
)  # fmt: skip
def test_quick_mode_bad_input(run: Run, args: tuple[str, ...], code: int, message: str) -> None:
    result = run("fire", "--model", "typhoon", *args, code=code)
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_odds_quick_mode_json(run: Run) -> None:
    out = as_json(run("odds", "fire", "--model", "typhoon", "--shooter", "PZ-IVH", "--target",
                      "US-RIFLE", "--range-squares", "3", "--count", "2", "--set", "weapon=TMG",
                      "--json"))  # fmt: skip
    assert sum(out["outcomes"].values()) == pytest.approx(1)
    assert sum(Fraction(v) for v in out["exact"]["outcomes"].values()) == 1
    assert out["expected"]["men_killed"] > 0


def new_game(run: Run) -> Run:
    run("new", SCENARIO, "--seed", "1")
    return run


def typhoon_record(run: Run, stand: str) -> dict[str, Any]:
    from tabletop.cli.core import open_game

    row = open_game(run.game).context().state.stand(stand)  # type: ignore[attr-defined]
    return dict((row.get("models") or {}).get("typhoon") or {})


def test_table_mode_front_shot_logs_and_stores_the_target(run: Run) -> None:
    new_game(run)
    # ToS II.B.3: the rate of fire first (skill 1 <= 5, first shot 10 x 9.95 >= 50: once,
    # the first pulse at this target), then the shot itself
    out = as_json(run("fire", "G-TK", "US-TK", "--dice", "1,100,3,85,50,33,1,100,75,10,10,95",
                      "--json"))  # fmt: skip
    assert out["model"] == "typhoon" and out["event"] == 2
    assert out["range_squares"] == 10 and out["location"] == "front-hull"
    assert out["rate_of_fire"] == 1 and out["shots_fired"] == 1 and out["streak"] == 1
    assert typhoon_record(run, "US-TK") == {
        "men": 3, "immobilized": False, "guns_out": [3], "suppression": 8, "state": "buttoned",
        "suppression_rule": "ToS V Suppression point table, fire",
        "state_rule": "ToS V Suppression effects table",
        "men_rule": "ToS V Effects of penetration",
        "guns_out_rule": "ToS V Effects of penetration",
    }  # fmt: skip
    # the next pulse at the same target (turn 2's opportunity fire): the crew left, and two
    # shots allowed (both checks pass, not moving, a 75mm); --count 1 fires one
    goto_phase(run, "opportunity-fire")
    out = as_json(run("fire", "G-TK", "US-TK", "--count", "1", "--dice",
                      "1,100,3,85,50,33,1,100,76,10,10", "--json"))  # fmt: skip
    assert out["rate_of_fire"] == 2 and out["shots_fired"] == 1 and out["streak"] == 2
    assert out["destroyed"] and out["men_killed"] == 3
    status = as_json(run("status", "--json"))
    assert {s["id"]: s["status"] for s in status["stands"]}["US-TK"] == "eliminated"
    run("undo")
    assert typhoon_record(run, "US-TK")["men"] == 3


def test_table_mode_aspect_from_facing(run: Run) -> None:
    new_game(run)
    # 14.14 squares: RA 55.57 x 1.25 = 69.47; side hull (armour 4) always yields to a 75mm
    out = as_json(run("fire", "G-TK", "US-SIDE", "--dice", "1,100,3,60,50,1,1,100,50", "--json"))
    assert out["location"] == "side-hull" and out["shots"][0]["armour"] == 4
    assert out["outcome"] == "immobilized" and out["needed"] == 69.47


def test_table_mode_height_gives_the_top(run: Run) -> None:
    new_game(run)
    out = as_json(run("fire", "G-HILL", "US-LOW", "--dice", "1,100,3,85,91,1,1,100,50", "--json"))
    assert out["location"] == "top" and out["outcome"] == "immobilized"
    assert (
        "location 91 + 10 (firer 2+ levels up) = 101: top (armour 2) [ToS V Vehicle hit locations]"
    ) in out["lines"]


@pytest.mark.parametrize(("target", "shifts"), [("US-WOOD", -2), ("US-TOWN", -4)])
def test_table_mode_cover_from_the_terrain(run: Run, target: str, shifts: int) -> None:
    new_game(run)
    out = as_json(run("odds", "fire", "G-TK", target, "--json"))
    assert sum(out["outcomes"].values()) == pytest.approx(1)
    from tabletop.cli.core import open_game
    from tabletop.rules.models.engine import shot_from_table

    ctx = open_game(run.game).context()  # type: ignore[attr-defined]
    model = find_model("typhoon", ctx.charts)
    the_shot, _ = shot_from_table(ctx, model, {"shooter": "G-TK", "target": target})
    assert isinstance(model, Typhoon)
    assert model.firing(the_shot).loss_accuracy(False).shifts == shifts


def test_table_mode_stand_without_a_profile(run: Run) -> None:
    new_game(run)
    before = file_digest(run.game)  # type: ignore[attr-defined]
    result = run("fire", "G-TK", "US-CD", code=2)
    assert result.output == (
        "Error: stands without a profile for the typhoon model: US-CD; give each "
        "'profiles: {typhoon: ID}' in the scenario, with IDs from "
        "charts/models/typhoon.yaml\n"
    )
    assert file_digest(run.game) == before  # type: ignore[attr-defined]


def test_table_mode_refusal_leaves_the_game_unchanged(run: Run) -> None:
    new_game(run)
    before = file_digest(run.game)  # type: ignore[attr-defined]
    result = run("fire", "G-TK", "US-SIDE", "--set", "weapon=TMG", code=3)
    assert result.output == (
        'Error: TMG reaches 10 squares (10"); the target is 14.14 squares away (ToS II.B.3 Range)\n'
    )
    result = run("fire", "G-TK", "US-TK", "--set", "nonsense=1", code=2)
    # the accepted options are the model's whole list, which grows with the model
    assert re.fullmatch(
        r"Error: --set 'nonsense': not an option of the typhoon model \(accepted: weapon .+\)\n",
        result.output,
    )
    assert file_digest(run.game) == before  # type: ignore[attr-defined]


def test_model_run_procedures_in_a_game_are_logged(run: Run) -> None:
    new_game(run)
    out = as_json(run("model", "run", "typhoon", "skill-check", "--set", "skill=4", "--dice", "4",
                      "--json"))  # fmt: skip
    assert out["passed"] and out["event"] == 2 and out["rolls"][0]["value"] == 4
    log = as_json(run("log", "--json"))
    assert log["events"][-1]["command"] == "model-run"


@pytest.mark.parametrize(
    ("procedure", "sets", "dice_", "key", "value"),
    [
        ("first-shot", ("rating=10",), "51", "passed", True),
        ("rally", ("cr=8", "distance=2", "points=8", "morale=4"), "40,4", "points", 4),
        ("command-control", ("radio=true", "cr=10"), "20", "in_command", False),
        ("scatter", ("spotted=false", "los=true", "range=10"), "1,5", "on_target", True),
        ("victory", ("attacker_mission=bypass", "defender_mission=delay", "attackers_exited=2"),
         None, "attacker_points", 80),
        ("visibility", ("visibility=4", "skill=5", "size=4", "weather=rain", "campaign=true"),
         "5", "visibility_range", 16),
        ("suppression", ("points=6", "morale=4", "cover=hard"), None, "points", 3),
        ("state", ("points=9", "unit=PZ-IVH"), None, "state", "retreating"),
        ("assault", ("assaulter=US-RIFLE", "target=PZ-IVH"), "5,51", "result", "destroyed"),
        ("he-damage", ("weapon=105MM", "target=US-RIFLE"), "100", "hit", False),
        ("bombard-delay", ("plotter=battalion-hq",), None, "delay_pulses", 6),
        ("weather", ("weather=snow", "cost=10"), None, "move_cost", 12.5),
        ("orders", ("cr=35",), "50", "received", 4),
        ("rate-of-fire", ("unit=PZ-IVH", "pulse=2"), "5,51", "shots", 2),
    ],
)  # fmt: skip
def test_model_run_quick(
    run: Run, procedure: str, sets: tuple[str, ...], dice_: str | None, key: str, value: Any
) -> None:
    args = ["model", "run", "typhoon", procedure]
    for s in sets:
        args += ["--set", s]
    if dice_:
        args += ["--dice", dice_]
    out = as_json(run(*args, "--json"))
    assert out[key] == value, out
    assert out["verdict"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("rally", "--set", "cr=8"), "typhoon rally needs --set distance="),
        (("skill-check", "--set", "skill=11"), "--set skill=11: give 0 to 10"),
        (("victory", "--set", "attacker_mission=win", "--set", "defender_mission=delay"),
         "accepted clear-objective, bypass, engage, delay, hold-objective"),
        (("state", "--set", "points=3", "--set", "unit=KING-TIGER"), "not a typhoon unit profile"),
        (("teleport",), "has no procedure 'teleport'"),
        (("state", "--set", "points=3", "--set", "colour=red"), "not an option of typhoon state"),
    ],
)  # fmt: skip
def test_model_run_bad_input(run: Run, args: tuple[str, ...], message: str) -> None:
    result = run("model", "run", "typhoon", *args, code=2)
    assert message in result.output


def test_model_show_and_list(runner: CliRunner) -> None:
    shown = json.loads(runner.invoke(cli, ["model", "show", "typhoon", "--json"]).output)
    assert shown["inches_per_unit"] == 1.0 and "PZ-IVH" in shown["profiles"]
    assert set(shown["fire_options"]) >= {"weapon", "aspect", "hull_down", "cover"}
    assert {"visibility", "scatter", "suppression", "victory", "assault"} <= set(
        shown["procedures"]
    )
    listed = json.loads(runner.invoke(cli, ["model", "list", "--json"]).output)
    assert any(m["model"] == "typhoon" and m["scale"] == '1 square = 1 inch'
               for m in listed["models"])  # fmt: skip


# --- the scenario's strength (the men of an infantry unit) ---------------------------------


def test_scenario_strength_is_the_men_of_an_infantry_unit(run: Run, tmp_path: Path) -> None:
    text = Path(SCENARIO).read_text()
    for stand, men in (("US-WOOD", 4), ("G-INF", 3), ("G-TK", 2)):
        text = text.replace(f"{{id: {stand}, kind:", f"{{id: {stand}, strength: {men}, kind:")
    path = tmp_path / "strength.yaml"
    path.write_text(text)
    run("new", str(path), "--seed", "1")
    out = as_json(run("fire", "G-INF", "US-WOOD", "--range", "6", "--dice", "1,100,+", "--json"))
    assert out["target_after"]["men"] == 4  # not the US-RIFLE profile's 12
    assert out["verdict"] == "Hit, no losses: GE-RIFLE RIFLE at US-RIFLE, needed 43.14"
    odds = as_json(run("odds", "fire", "G-INF", "US-WOOD", "--range", "6", "--json"))
    assert max(int(k.split()[0]) for k in odds["outcomes"] if k.endswith("killed")) <= 4
    # a tank is one vehicle with its profile's crew: strength does not change its men
    tank = as_json(run("fire", "G-TK", "US-TK", "--dice", "3,100,+", "--json"))
    assert tank["target_after"]["men"] == 5


def test_scenario_strength_above_the_profile_is_refused(run: Run, tmp_path: Path) -> None:
    text = (
        Path(SCENARIO)
        .read_text()
        .replace("{id: US-WOOD, kind:", "{id: US-WOOD, strength: 20, kind:")
    )
    path = tmp_path / "strength.yaml"
    path.write_text(text)
    run("new", str(path), "--seed", "1")
    before = file_digest(run.game)  # type: ignore[attr-defined]
    out = run("fire", "G-INF", "US-WOOD", "--range", "6", code=2)
    assert out.output == (
        "Error: US-WOOD's strength 20 is more than the 12 men of a typhoon US-RIFLE "
        "(charts/models/typhoon.yaml)\n"
    )
    assert file_digest(run.game) == before  # type: ignore[attr-defined]


# --- limits and state on the table (ToS II.B.3 Rate of fire, ToS V Suppression point table) ---


def test_table_mode_failed_rate_of_fire_means_no_fire(run: Run) -> None:
    new_game(run)
    # first pulse at the target: skill 6 > 5 fails, so nothing is fired and nothing hit
    out = as_json(run("fire", "G-TK", "US-TK", "--dice", "6,100", "--json"))
    assert out["shots_fired"] == 0 and out["rate_of_fire"] == 0 and out["outcome"] == "no fire"
    assert out["verdict"] == (
        "G-TK does not fire this pulse: it failed its rate-of-fire checks (ToS II.B.3)"
    )
    assert [r["value"] for r in out["rolls"]] == [6, 100]
    assert typhoon_record(run, "US-TK") == {}
    # the pulse is spent all the same: a second fire action is refused, the game unchanged
    before = file_digest(run.game)  # type: ignore[attr-defined]
    refused = run("fire", "G-TK", "US-TK", code=3)
    assert refused.output == (
        "Error: G-TK has already fired this fire phase of turn 1 under typhoon, at "
        "US-TK (0 shots): one fire action a pulse (ToS II.B.3 Rate of fire: the shots "
        "a unit fires in a pulse, 0, 1 or 2, all at once); it fires again next phase\n"
    )
    assert file_digest(run.game) == before  # type: ignore[attr-defined]


def test_table_mode_first_shot_failure_also_stops_fire(run: Run) -> None:
    new_game(run)
    # skill passes (1), first shot 10 x Rnd(10) from d100 40 = 3.95 x 10 = 39.5 < 50: fails
    out = as_json(run("fire", "G-TK", "US-TK", "--dice", "1,40", "--json"))
    assert out["shots_fired"] == 0


def test_table_mode_later_pulse_fires_twice_and_counts_fired_last_pulse(run: Run) -> None:
    new_game(run)
    run("fire", "G-TK", "US-SIDE", "--dice", "1,100,3,100")  # a miss: 100 > 69.47
    goto_phase(run, "opportunity-fire")
    out = as_json(run("fire", "G-TK", "US-SIDE", "--dice", "1,100,3,100,3,100", "--json"))
    assert out["streak"] == 2 and out["rate_of_fire"] == 2 and out["shots_fired"] == 2
    assert len(out["shots"]) == 2
    names = [m["name"] for m in out["modifiers"]]
    assert "fired at this target last pulse" in names, names


def test_end_of_turn_suppression_table_decays_points(run: Run) -> None:
    new_game(run)
    run("fire", "G-TK", "US-TK", "--dice", "1,100,3,85,50,33,1,100,75,10,10,95")
    assert typhoon_record(run, "US-TK")["suppression"] == 8
    # ToS V after pulse 3: no cover, alone (+1), automatic (-1): 8 stays 8
    out = as_json(run("turn", "next", "--yes", "--json"))
    mine = [h for h in out["happened"] if h.get("stand") == "US-TK"]
    assert mine[0]["result"] == (
        "8 +0 = 8: buttoned (ToS V Suppression point table, after pulse 3)"
    )
    # with a friend in good state beside it, it is not alone: 8 - 1 = 7 at the next turn's
    # end; the friend helps only when 8 > 5 + 10 x Rnd(1): d100 100 gives 9.95, no help
    run("place", "US-SIDE", "22", "12")
    out = as_json(run("turn", "next", "--yes", "--dice", "100", "--json"))
    mine = [h for h in out["happened"] if h.get("stand") == "US-TK"]
    assert mine[0]["rolls"] == [100]
    record = typhoon_record(run, "US-TK")
    assert record["suppression"] == 7 and record["state"] == "buttoned"
    assert record["suppression_rule"] == "ToS V Suppression point table, after pulse 3"
    # soft cover unsighted: US-WOOD starts at 0 and never goes below 0
    assert typhoon_record(run, "US-WOOD")["suppression"] == 0
    run("undo", "--yes")
    assert typhoon_record(run, "US-TK")["suppression"] == 8


def test_heavily_suppressed_unit_cannot_fire(run: Run, tmp_path: Path) -> None:
    new_game(run)
    from tabletop.cli.core import open_game

    g = open_game(run.game)  # type: ignore[attr-defined]
    ctx = g.context()
    row = ctx.state.stand("G-TK")
    assert "models" not in row or not row["models"]
    run("model", "run", "typhoon", "state", "--set", "unit=G-TK", "--set", "points=20",
        "--set", "japanese=true", "--dice", "4")  # fmt: skip
    refused = run("fire", "G-TK", "US-TK", code=3)
    assert refused.output == (
        "Error: G-TK is heavily suppressed and cannot fire (ToS II.A Heavy suppression)\n"
    )


# --- procedures on stands (model run typhoon PROCEDURE STAND...) -----------------------------


def test_suppression_then_state_on_a_stand(run: Run) -> None:
    new_game(run)
    # ToS V: 3 men killed is +3 each: 0 + 9 = 9 points; a Panzer IV's morale 4: 9 >= 2 x 4
    out = as_json(run("model", "run", "typhoon", "suppression", "G-TK", "--set", "when=fire",
                      "--set", "men_killed=3", "--json"))  # fmt: skip
    assert out["points"] == 9 and out["stands"] == {"G-TK": {"suppression": 9,
                                                             "state": "retreating"}}  # fmt: skip
    record = typhoon_record(run, "G-TK")
    assert record["suppression_rule"] == "ToS V Suppression point table: suppression"
    # the state procedure reads the points back from the stand (as quick mode: points=9)
    out = as_json(run("model", "run", "typhoon", "state", "--set", "unit=G-TK", "--json"))
    assert out["points"] == 9 and out["state"] == "retreating"
    shown = run("show", "G-TK").output
    assert shown.splitlines()[4] == (
        "typhoon: suppression 9 [ToS V Suppression point table: suppression]; state "
        "retreating [ToS V Suppression effects table: state]"
    )
    run("undo")
    run("undo")
    assert typhoon_record(run, "G-TK") == {}
    run("replay")


def test_rally_on_stands_halves_the_recorded_points(run: Run, tmp_path: Path) -> None:
    text = (
        Path(SCENARIO)
        .read_text()
        .replace(
            "      - {id: US-CD,",
            "      - {id: US-HQ, kind: command, formation: CCB, at: [22, 11], profiles: "
            "{typhoon: US-HQ}}\n      - {id: US-CD,",
        )
    )
    path = tmp_path / "hq.yaml"
    path.write_text(text)
    run("new", str(path), "--seed", "1")
    run("fire", "G-TK", "US-TK", "--dice", "1,100,3,85,50,33,1,100,75,10,10,95")
    assert typhoon_record(run, "US-TK")["suppression"] == 8
    # ToS V: radius CR 10 / 5 + 1 + Rnd(1) = 3.395 -> 3 squares (the HQ is 2.24 away); morale
    # 5 >= d10 4 rallies; 8 points >= morale 5, halved to 4
    out = as_json(run("model", "run", "typhoon", "rally", "US-TK", "US-HQ", "--dice", "40,4",
                      "--json"))  # fmt: skip
    assert out["rallied"] and out["points"] == 4 and out["stands"]["US-TK"] == {"suppression": 4}
    assert typhoon_record(run, "US-TK")["suppression"] == 4
    far = run("model", "run", "typhoon", "rally", "US-TK", "US-HQ", "--set", "distance=9",
              "--dice", "40", "--json")  # fmt: skip
    assert not as_json(far)["rallied"]  # the referee's distance wins over the table's


def test_assault_on_stands_destroys_the_tank(run: Run) -> None:
    new_game(run)
    run("place", "US-WOOD", "10", "11.5")  # next to G-TK's square
    before = file_digest(run.game)  # type: ignore[attr-defined]
    far = run("model", "run", "typhoon", "assault", "US-TOWN", "G-TK", code=3)
    assert far.output == (
        "Error: US-TOWN is 31.016 squares from G-TK: an assault reaches its own square "
        "or the next (within 1.5; ToS II.B.3 Introduction to combat)\n"
    )
    assert file_digest(run.game) == before  # type: ignore[attr-defined]
    # ToS V golden: kill rating 14 x Rnd(1) from d100 51 = 7.07 > 6: destroyed (quick: 5,51)
    out = as_json(run("model", "run", "typhoon", "assault", "US-WOOD", "G-TK", "--dice", "5,51",
                      "--json"))  # fmt: skip
    assert out["result"] == "destroyed" and out["kill_rating"] == 14
    assert typhoon_record(run, "G-TK")["state"] == "destroyed"
    status = as_json(run("status", "--json"))
    assert {s["id"]: s["status"] for s in status["stands"]}["G-TK"] == "eliminated"
    again = run("model", "run", "typhoon", "assault", "US-WOOD", "G-TK", code=3)
    assert again.output == "Error: G-TK is eliminated and cannot take part in typhoon assault\n"
    run("undo")
    assert typhoon_record(run, "G-TK") == {}


def test_retreating_unit_may_not_assault(run: Run) -> None:
    new_game(run)
    run("model", "run", "typhoon", "suppression", "US-WOOD", "--set", "when=fire", "--set",
        "men_killed=4")  # fmt: skip
    assert typhoon_record(run, "US-WOOD")["state"] == "retreating"
    refused = run("model", "run", "typhoon", "assault", "US-WOOD", "G-TK", code=3)
    assert refused.output == (
        "Error: US-WOOD is retreating and may not assault (ToS II.A Unit states: it "
        "moves to cover or its own edge, our reading)\n"
    )


def test_stands_need_a_game_and_the_right_count(run: Run) -> None:
    out = run("model", "run", "typhoon", "state", "G-TK", code=2)
    assert out.output == (
        "Error: G-TK: stands need a game (--game PATH, or 'tabletop new' first); "
        "without one give profile ids with --set\n"
    )
    new_game(run)
    out = run("model", "run", "typhoon", "weather", "G-TK", code=2)
    assert out.output == (
        "Error: typhoon weather does not act on stands: give its options with --set "
        "KEY=VALUE (see 'tabletop model show')\n"
    )
    out = run("model", "run", "typhoon", "state", "G-TK", "US-TK", code=2)
    assert out.output == "Error: typhoon state takes 1 stand (unit); got 2: G-TK US-TK\n"
    out = run("model", "run", "typhoon", "state", "NOPE", code=2)
    assert re.fullmatch(r"Error: unknown stand 'NOPE' \(stands: G-TK, .+\)\n", out.output)


def test_typhoon_of_steel_is_an_alias(runner: CliRunner) -> None:
    shown = json.loads(runner.invoke(cli, ["model", "show", "typhoon-of-steel", "--json"]).output)
    assert shown["model"] == "typhoon"
    out = runner.invoke(cli, ["model", "run", "Typhoon of Steel", "skill-check", "--set",
                              "skill=4", "--dice", "4", "--json"])  # fmt: skip
    assert json.loads(out.output)["model"] == "typhoon"
    bad = runner.invoke(cli, ["model", "show", "typhoon-of-iron"])
    assert bad.exit_code == 2 and bad.output == (
        "Error: unsupported model: 'typhoon-of-iron' (models: cd, mech-brigade, "
        "typhoon, squad-battles, aggression; also command-decision = cd, mb = "
        "mech-brigade, typhoon-of-steel = typhoon, tos = typhoon, sb = squad-battles, "
        "play-by-mail = aggression, pbm = aggression); did you mean 'typhoon-of-steel'?\n"
    )


def test_table_odds_include_the_rate_of_fire(run: Run) -> None:
    new_game(run)
    # ToS II.B.3 on the first pulse: skill 5 passes 1/2, first shot 10 passes 1/2: no fire 3/4
    out = as_json(run("odds", "fire", "G-TK", "US-TK", "--json"))
    assert out["exact"]["outcomes"]["no fire"] == "3/4"
    assert sum(Fraction(v) for v in out["exact"]["outcomes"].values()) == 1


def test_stand_without_the_models_profile_is_refused(run: Run) -> None:
    new_game(run)
    before = file_digest(run.game)  # type: ignore[attr-defined]
    out = run("model", "run", "mech-brigade", "search", "G-TK", code=2)
    assert out.output == (
        "Error: G-TK has no profile for the mech-brigade model: give it 'profiles: "
        "{mech-brigade: ID}' in the scenario (IDs in charts/models/mech_brigade.yaml)\n"
    )
    assert file_digest(run.game) == before  # type: ignore[attr-defined]


def _fraction_odds(run: Run, shooter: str, target: str) -> dict[str, Fraction]:
    """The odds ``fire --odds`` gives a table shot: exact fractions keyed by outcome name
    (each outcome of one shot has its own number of hits)."""
    out = as_json(run("fire", shooter, target, "--odds", "--json"))
    return {
        key.split(",")[0].removeprefix("outcome "): Fraction(p)
        for key, p in out["outcomes"].items()
    }


def _face_by_face_odds(run: Run, shooter: str, target: str) -> dict[str, Fraction]:
    """The same shot's odds counted face by face (``FireOdds``, every d100 face of every
    roll), the rate of fire by ``distribution`` over every face: no bands, no checkpoints."""
    from tabletop.cli.core import open_game
    from tabletop.rules.models.engine import shot_from_table

    ctx = open_game(run.game).context()  # type: ignore[attr-defined]
    model = find_model("typhoon", ctx.charts)
    assert isinstance(model, Typhoon)
    the_shot, _ = shot_from_table(ctx, model, {"shooter": shooter, "target": target})
    outcomes = model.odds(the_shot)["outcomes"]
    return {k: Fraction(v) for k, v in outcomes.items() if v}


@pytest.mark.parametrize("target", ["US-TK", "US-SIDE", "US-WOOD"])
def test_table_fire_odds_by_bands_equal_a_face_by_face_count(run: Run, target: str) -> None:
    # Issue 20: every roll of table fire that matters by band only (skill checks, the first-
    # shot check, hit location, penetration, destroyed outright) is tried once per band by
    # the odds, and an HE hit's two Rnd(1) on a soft target (US-WOOD) by the count of men
    # they kill (a composite roll); the answer must be exactly the face-by-face count
    # (ToS II.B.3, ToS V).
    new_game(run)
    banded = _fraction_odds(run, "G-TK", target)
    assert banded == _face_by_face_odds(run, "G-TK", target)
    assert sum(banded.values()) == 1
    assert banded["no fire"] == Fraction(3, 4)  # skill 5 of 10, first shot 10 x Rnd(10) >= 50


def test_table_fire_odds_of_two_shots_equal_a_face_by_face_count(run: Run) -> None:
    # The next pulse at the same target fires twice when both checks pass (ToS II.B.3 Rate
    # of fire): the second shot follows each state the first leaves once (a checkpoint).
    new_game(run)
    run("fire", "G-TK", "US-TK", "--dice", "6,100")  # no fire, but the streak begins
    goto_phase(run, "opportunity-fire")
    out = as_json(run("fire", "G-TK", "US-TK", "--odds", "--json"))
    by_name: dict[str, Fraction] = {}
    for key, p in out["outcomes"].items():
        name = key.split(",")[0].removeprefix("outcome ")
        by_name[name] = by_name.get(name, Fraction(0)) + Fraction(p)
    assert by_name == _face_by_face_odds(run, "G-TK", "US-TK")
    assert sum(by_name.values()) == 1
