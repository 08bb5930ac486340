"""The squad-battles model (seed 000, Squad Battles): golden examples from the manual, a
parametrized table per procedure with cases derived by hand, invariants, odds against
simulation, and the CLI in quick and table mode."""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.cli import cli
from tabletop.core.dice import Dice
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.data.charts import Charts
from tabletop.rules.models import Shot, find_model
from tabletop.rules.models.chance import settled
from tabletop.rules.models.squad_battles import SquadBattles
from tabletop.rules.models.squad_battles.assault import (
    aggregate_morale,
    parse_units,
    share_losses,
    vehicle_kills,
)
from tabletop.rules.models.squad_battles.command import quality_value, recovery_limit
from tabletop.rules.models.squad_battles.effects import explosion_factor, trip_percent
from tabletop.rules.models.squad_battles.fire import (
    FireValue,
    combat_value,
    hexes_for,
    infantry_penetration,
    vehicle_penetration,
)
from tabletop.rules.models.squad_battles.resolve import he_immobile_chance
from tabletop.rules.models.squad_battles.results import (
    combat_result,
    distribution,
    enumerate_rolls,
    morale_value,
    pin_check,
    scaled,
)
from tabletop.rules.models.squad_battles.table import aspect
from tabletop.rules.models.squad_battles.tables import Tables
from tests.conftest import Run, as_json, file_digest, goto_phase

DATA = Path(__file__).parent / "data" / "squad_battles.yaml"
IPH = 0.87


@pytest.fixture(scope="module")
def model(charts: Charts) -> SquadBattles:
    found = find_model("squad-battles", charts)
    assert isinstance(found, SquadBattles)
    return found


@pytest.fixture(scope="module")
def tables(model: SquadBattles) -> Tables:
    return model.tables


def shot(shooter: str, target: str, hexes: float, count: int = 1, **opts: Any) -> Shot:
    return Shot(shooter, target, hexes * IPH, count, opts)


def fire_value(model: SquadBattles, *args: Any, **opts: Any) -> FireValue:
    sh, _ = model._shooting(shot(*args, **opts))
    return combat_value(model.tables, sh)


def dice(*values: int) -> Dice:
    return Dice(0, physical=list(values))


def run(model: SquadBattles, name: str, d: Dice | None = None, **opts: Any) -> dict[str, Any]:
    return dict(model.procedures()[name].run(opts, d or Dice(1)))


# --- golden examples from the manual ------------------------------------------------------


@pytest.mark.parametrize(
    ("penetration", "armour_piercing", "factor"),
    [(6, False, F(0)), (9, False, F(1, 2)), (12, False, F(1)), (24, True, F(3, 2))],
    ids=["pen-6-no-effect", "pen-9-half", "pen-12-nominal", "pen-24-ap-x1.5"],
)
def test_golden_penetration_ratio_against_protection_12(
    tables: Tables, penetration: int, armour_piercing: bool, factor: F
) -> None:
    # SB Vehicle Penetration: the manual's four cases for a protection of 12.
    assert vehicle_penetration(tables, F(penetration), F(12), armour_piercing) == factor


def test_golden_infantry_protection_8_against_penetration_4() -> None:
    # SB Infantry Protection: 4 / 8 halves the fire value.
    assert infantry_penetration(F(4), F(8)) == F(1, 2)


def test_golden_combat_value_400_with_lcv_6_and_hcv_60() -> None:
    # SB Combat Results: 400 is 4% of 10,000, so casualties lie between 0.24 and 2.4.
    low, high = scaled(F(400), F(6), F(60), F(10_000))
    assert (low, high) == (F(24, 100), F(24, 10))
    result = combat_result(F(400), F(6), F(60), F(10_000), dice(1, 1), "casualties")
    assert low <= result.value <= high


def test_golden_random_rounding_of_1_7() -> None:
    # SB Combat Results: 1.7 rounds down 30% of the time and up 70%.
    assert settled(F(7, 10)) == F(7, 10)
    assert distribution(F(10_000), F(17, 10), F(17, 10), F(10_000)) == {1: F(3, 10), 2: F(7, 10)}
    assert combat_result(F(10_000), F(17, 10), F(17, 10), F(10_000), dice(70), "x").result == 2
    assert combat_result(F(10_000), F(17, 10), F(17, 10), F(10_000), dice(71), "x").result == 1


def test_golden_effectiveness_loss_of_combat_value_400(model: SquadBattles) -> None:
    # SB Effectiveness Losses: 400 x 5 = 2000 gives a loss between 1.2 and 12.
    out = run(model, "effectiveness", dice(1, 1), combat_value=400)
    assert out["combat_value"] == 2000
    assert (out["low"], out["high"]) == (1.2, 12)


def test_golden_command_test_lt_smith_and_capt_jones(model: SquadBattles) -> None:
    # SB Command Test: Smith (C) under Jones (B, company) 3 hexes away.
    out = run(model, "command-test", dice(1, 50, 5), quality="C", superior="B", distance=3)
    assert out["superior_chance"] == "5/6"  # Jones passes 5/6 of the time
    assert out["nominal_chance"] == "2/3"  # Smith alone: 4/6
    # Jones passed (1), the +1 reached Smith (50 <= 50: chance 3/(3+3) = 1/2), so 5 passes.
    assert out["bonus"] is True and out["value"] == 5 and out["passed"] is True
    # Given Jones passed, the +1 comes half the time.
    given_pass = run(
        model,
        "command-test",
        dice(51, 5),
        quality="C",
        superior="B",
        distance=3,
        superior_passed=True,
    )
    assert given_pass["bonus_chance"] == "1/2"
    assert given_pass["bonus"] is False and given_pass["passed"] is False  # 5 > 4
    # Overall: 4/6 + 5/6 x 1/2 x 1/6 = 53/72, and the dice tree agrees.
    assert out["chance_exact"] == "53/72"
    procedure = model.procedures()["command-test"]
    tree = enumerate_rolls(
        lambda d: procedure.run({"quality": "C", "superior": "B", "distance": 3}, d)["passed"]
    )
    assert sum(p for p, passed in tree if passed) == F(53, 72)


@pytest.mark.parametrize(
    ("passed", "distance", "limit"),
    [(False, 1, 2), (True, 1, 3), (True, 0, 6)],
    ids=["failed-1-hex", "passed-1-hex", "passed-same-hex"],
)
def test_golden_recovery_test_lt_smith(
    tables: Tables, passed: bool, distance: int, limit: int
) -> None:
    # SB Recovery Test: a B leader; halved to 2 when he failed his command test.
    assert recovery_limit(tables, "B", passed, distance)[0] == limit


def test_golden_recovery_procedure_rolls_against_the_limit(model: SquadBattles) -> None:
    out = run(model, "recovery", dice(2), quality="B", leader_passed=False, distance=1)
    assert out["limit"] == 2 and out["recovered"] is True and out["chance"] == "1/3"
    out = run(model, "recovery", dice(3), quality="B", leader_passed=False, distance=1)
    assert out["recovered"] is False


def test_golden_vehicle_assault_value_533(model: SquadBattles) -> None:
    # SB Vehicle Assault Value: (36 - 4) x 20 x 20 / 24 = 533.3.
    out = run(model, "assault-value", unit="vehicle", armour=36)
    assert out["assault_value"] == pytest.approx(533.33, abs=0.01)


def test_golden_truck_loss_strength_3(model: SquadBattles) -> None:
    # SB Vehicle Assault Resolution: 4 x 20 / 24 = 3, fractions dropped.
    assert run(model, "assault-value", profile="truck")["loss_strength"] == 3


@pytest.mark.parametrize(
    ("units", "leader", "morale"),
    [(4, 5, 5), (5, 5, 5), (0, 5, 1), (4, None, 4)],
    ids=["C-units-B-leader", "B-units-B-leader", "demoralized-with-leader", "no-leader"],
)
def test_golden_leader_morale_modification(
    tables: Tables, units: int, leader: int | None, morale: int
) -> None:
    assert aggregate_morale(tables, units, leader)[0] == morale


def test_golden_hard_vehicle_morale_check_b_is_one_third(model: SquadBattles) -> None:
    # SB Hard Vehicle Morale Check: half of B (5) is 2, succeeding a third of the time.
    procedure = model.procedures()["assault"]
    opts = {"attack": 0, "defend": 0, "hard_vehicle": True, "attacker_min_morale": 5}
    tree = enumerate_rolls(lambda d: procedure.run(opts, d)["result"] != "X")
    assert sum(p for p, ok in tree if ok) == F(1, 3)


def test_golden_armour_assault_modifier_13(model: SquadBattles) -> None:
    # SB Armor Assault Modifier: armour 13 in a clear hex cuts the defenders' morale by 1.
    out = run(
        model,
        "assault",
        Dice(3),
        attack=0,
        defend=0,
        defender_morale=4,
        clear=True,
        attacker_armour=13,
    )
    assert out["defender_morale"] == 3


# --- fire value: a table of hand-derived cases ------------------------------------------------

FIRE_CASES = [
    # (shooter, target, hexes, count, options, combat value)
    ("rifle-squad", "rifle-squad", 6, 1, {}, F(240)),  # 12 x 10 x 2 standing
    ("rifle-squad", "rifle-squad", 1, 1, {}, F(480)),  # adjacent x2
    ("rifle-squad", "rifle-squad", 7, 1, {}, F(120)),  # beyond half of 12
    ("rifle-squad", "rifle-squad", 12, 1, {}, F(120)),  # maximum range
    ("rifle-squad", "rifle-squad", 0, 1, {}, F(480)),  # under a hex counts as adjacent
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True}, F(120)),
    ("rifle-squad", "rifle-squad", 6, 2, {"ground": True}, F(240)),  # two teams
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "shooter_men": 7}, F(84)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "weapon_effectiveness": 80}, F(96)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "effectiveness": 50}, F(60)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "firer_state": "disrupted"}, F(60)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "firer_state": "pinned"}, F(60)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "firer_state": "demoralized"}, F(30)),
    ("hmg", "rifle-squad", 2, 1, {"ground": True}, F(140)),
    ("hmg", "rifle-squad", 2, 1, {"ground": True, "crew": 2}, F(280, 3)),  # 2 of 3 men
    ("mg-team", "rifle-squad", 2, 1, {"ground": True, "shooter_men": 2}, F(280, 3)),
    ("lieutenant", "rifle-squad", 3, 1, {"ground": True}, F(27, 4)),  # 18 x 1/2 x 3/4
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "smoke": 1}, F(60)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "smoke": 2}, F(30)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "smoke_from": True}, F(60)),
    ("mortar-team", "rifle-squad", 20, 1, {"ground": True, "smoke_into": True}, F(120)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "gas": True}, F(60)),
    ("hmg", "rifle-squad", 2, 1, {"ground": True, "setup": True}, F(420)),
    ("rifle-squad", "rifle-squad", 6, 1, {"concealed": True, "ground": True}, F(60)),
    # protection: terrain, fortifications, craters, hexsides, elevation, body armour
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "terrain": "woods"}, F(60)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "with_vehicle": True}, F(60)),
    (
        "rifle-squad",
        "rifle-squad",
        6,
        1,
        {"ground": True, "fortification": "trench", "owner": "enemy"},
        F(480, 7),
    ),
    (
        "rifle-squad",
        "rifle-squad",
        6,
        1,
        {"ground": True, "fortification": "bunker", "outside_arc": True},
        F(20),
    ),
    (
        "rifle-squad",
        "rifle-squad",
        1,
        1,
        {"ground": True, "fortification": "trench", "trench_to_trench": True},
        F(960, 7),
    ),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "crater": True}, F(80)),
    (
        "rifle-squad",
        "rifle-squad",
        6,
        1,
        {"ground": True, "crater": True, "fortification": "improved-position"},
        F(60),
    ),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "hexside": "wall"}, F(60)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "feature": "gully"}, F(60)),
    (
        "rifle-squad",
        "rifle-squad",
        6,
        1,
        {"ground": True, "hexside": "wall", "elevation": -1},
        F(120),
    ),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "elevation": 1}, F(80)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "body_armour": 4}, F(60)),
    ("mortar-team", "rifle-squad", 20, 1, {"ground": True, "los": False}, F(60)),
    (
        "mortar-team",
        "rifle-squad",
        20,
        1,
        {"ground": True, "hexside": "wall", "elevation": 2},
        F(120),
    ),
    ("mortar-team", "rifle-squad", 20, 1, {"ground": True, "offset": 1}, F(60)),
    ("mortar-team", "rifle-squad", 20, 1, {"ground": True, "offset": 2}, F(0)),
    ("napalm", "rifle-squad", 20, 1, {"ground": True, "offset": 3, "along": True}, F(300)),
    ("napalm", "rifle-squad", 20, 1, {"ground": True, "offset": 4, "along": True}, F(0)),
    # caves: own cave shelters from indirect fire and from outside the arc beyond one hex
    ("mortar-team", "rifle-squad", 20, 1, {"fortification": "cave"}, F(0)),
    ("rifle-squad", "rifle-squad", 3, 1, {"fortification": "cave", "outside_arc": True}, F(0)),
    (
        "rifle-squad",
        "rifle-squad",
        1,
        1,
        {"ground": True, "fortification": "cave", "outside_arc": True},
        F(80, 3),
    ),
    (
        "rifle-squad",
        "rifle-squad",
        6,
        1,
        {"ground": True, "fortification": "cave", "owner": "enemy"},
        F(120),
    ),
    # density
    ("rifle-squad", "lieutenant", 6, 1, {}, F(24)),
    ("rifle-squad", "rifle-squad", 6, 1, {"ground": True, "target_men": 2}, F(24)),
    (
        "rifle-squad",
        "rifle-squad",
        6,
        1,
        {"ground": True, "target_men": 2, "alt_density": True},
        F(60),
    ),
    ("sniper-team", "lieutenant", 15, 1, {}, F(60)),  # no range, no density
    ("sniper-team", "lieutenant", 15, 1, {"firer_state": "pinned"}, F(3, 2)),
    ("sniper-team", "sherman", 5, 1, {}, F(0)),
    # vehicles: facing, penetration curve, target effects
    ("sherman", "panzer-iv", 6, 1, {"aspect": "front"}, F(375, 7)),
    ("sherman", "panzer-iv", 6, 1, {"aspect": "rear"}, F(1425, 14)),
    ("sherman", "panzer-iv", 6, 1, {"aspect": "side"}, F(600, 7)),  # 36/28 AP: 1 + 2/7 x 1/2
    ("sherman", "tiger", 6, 1, {"vulnerable": True, "weapon": "tank-88-ap"}, F(300)),
    ("panzerfaust", "sherman", 1, 3, {}, F(200)),  # single-use: one weapon
    ("atgm", "tiger", 30, 1, {}, F(250)),  # guided: no range; anti-tank lethality x2
    ("tank-75-he", "halftrack", 3, 1, {"aspect": "front"}, F(100)),  # soft: no facing
    ("tank-75-he", "sherman", 3, 1, {"immobile": True}, F(0)),  # 8/30 under half
    ("tank-75-he", "halftrack", 3, 1, {"hovering": True}, F(200)),
    ("tank-75-he", "halftrack", 3, 1, {"hull_down": True}, F(50)),
    (
        "tank-75-he",
        "sherman",
        3,
        1,
        {"aspect": "rear", "fortification": "improved-position"},
        F(0),
    ),  # 8 / (22.5 + 4)
    ("hmg", "sherman", 2, 1, {}, F(0)),
    ("sherman", "rifle-squad", 6, 1, {}, F(0)),  # vehicle-only load against infantry
    ("sherman", "rifle-squad", 6, 1, {"fortification": "bunker"}, F(300)),
    ("mortar-81-smoke", "rifle-squad", 20, 1, {}, F(0)),
]


@pytest.mark.parametrize(
    ("shooter", "target", "hexes", "count", "opts", "expected"),
    FIRE_CASES,
    ids=[
        f"{c[0]}>{c[1]}@{c[2]}:{','.join(f'{k}={v}' for k, v in c[4].items())}" for c in FIRE_CASES
    ],
)
def test_combat_value(
    model: SquadBattles,
    shooter: str,
    target: str,
    hexes: int,
    count: int,
    opts: dict[str, Any],
    expected: F,
) -> None:
    assert fire_value(model, shooter, target, hexes, count, **opts).combat_value == expected


@pytest.mark.parametrize(
    ("target", "aspect_", "protection"),
    [
        ("sherman", "front", 45),
        ("sherman", "side", 30),
        ("sherman", "rear", F(45, 2)),
        ("halftrack", "front", 8),
        ("halftrack", "rear", 8),
    ],
    ids=["hard-front", "hard-side", "hard-rear", "soft-front", "soft-rear"],
)
def test_facing_effect(model: SquadBattles, target: str, aspect_: str, protection: F) -> None:
    # Sherman armour 30 is hard (24 or more): 150 / 100 / 75 %; a halftrack's 8 is soft.
    fv = fire_value(model, "tank-75-ap", target, 3, aspect=aspect_)
    assert fv.protection == protection


def test_hard_vehicle_threshold(tables: Tables) -> None:
    assert tables.hard(24) and not tables.hard(F(239, 10))


def test_facing_does_not_apply_to_indirect_fire(model: SquadBattles) -> None:
    fv = fire_value(model, "howitzer-105", "sherman", 40, aspect="front")
    assert fv.protection == 30 + 0


@pytest.mark.parametrize(
    ("bearing", "facing", "expected"),
    [
        (180, 0, "front"),
        (0, 0, "rear"),
        (90, 0, "side"),
        (210, 0, "side"),
        (209, 0, "front"),
        (330, 0, "rear"),
        (331, 0, "rear"),
        (329, 0, "side"),
        (0, 180, "front"),
    ],
    ids=[
        "head-on",
        "from-behind",
        "flank",
        "split-front-side",
        "just-front",
        "split-side-rear",
        "just-rear",
        "just-side",
        "turned",
    ],
)
def test_aspect_on_the_table(bearing: float, facing: float, expected: str) -> None:
    # The firer's bearing to the target; a split between hexsides counts against the vehicle.
    assert aspect(bearing, facing) == expected


@pytest.mark.parametrize(
    ("ratio", "ap", "factor"),
    [
        (F(0), False, 0),
        (F(1, 2), False, 0),
        (F(3, 4), False, F(1, 2)),
        (F(1), True, 1),
        (F(3, 2), True, F(5, 4)),
        (F(3, 2), False, 1),
        (F(2), True, F(3, 2)),
        (F(5), True, F(3, 2)),
    ],
)
def test_vehicle_penetration_curve(tables: Tables, ratio: F, ap: bool, factor: F) -> None:
    assert vehicle_penetration(tables, ratio * 12, F(12), ap) == factor


@pytest.mark.parametrize(
    ("pen", "prot", "factor"), [(4, 8, F(1, 2)), (8, 8, 1), (12, 8, 1), (0, 8, 0), (3, 0, 1)]
)
def test_infantry_protection_ratio(pen: int, prot: int, factor: F) -> None:
    assert infantry_penetration(F(pen), F(prot)) == factor


def test_vehicle_without_protection_counts_as_the_top_of_the_curve(tables: Tables) -> None:
    assert vehicle_penetration(tables, F(5), F(0), True) == F(3, 2)
    assert vehicle_penetration(tables, F(5), F(0), False) == 1


@pytest.mark.parametrize(
    ("inches", "hexes"), [(0, 1), (0.4, 1), (0.87, 1), (1.3, 1), (1.31, 2), (5.22, 6), (8.7, 10)]
)
def test_range_in_hexes(inches: float, hexes: int) -> None:
    assert hexes_for(inches, IPH) == hexes


@pytest.mark.parametrize(
    ("shooter", "target", "hexes", "opts", "error"),
    [
        ("rifle-squad", "rifle-squad", 13, {}, RulesRefusal),
        ("rifle-squad", "rifle-squad", 6, {"los": False}, RulesRefusal),
        ("rifle-squad", "rifle", 6, {}, BadInput),
        ("truck", "rifle-squad", 1, {}, BadInput),
        ("nobody", "rifle-squad", 1, {}, BadInput),
        ("rifle-squad", "rifle-squad", 6, {"weapon": "sherman"}, BadInput),
        ("rifle-squad", "rifle-squad", 6, {"terrain": "lava"}, BadInput),
        ("rifle-squad", "rifle-squad", 6, {"ground": "maybe"}, BadInput),
        ("rifle-squad", "rifle-squad", 6, {"effectiveness": 120}, BadInput),
    ],
    ids=[
        "beyond-range",
        "no-los-direct",
        "weapon-target",
        "no-weapon",
        "unknown-profile",
        "not-a-weapon",
        "bad-terrain",
        "bad-bool",
        "over-100",
    ],
)
def test_fire_refusals(
    model: SquadBattles,
    shooter: str,
    target: str,
    hexes: int,
    opts: dict[str, Any],
    error: type[Exception],
) -> None:
    with pytest.raises(error):
        model.fire(shot(shooter, target, hexes, **opts), Dice(1))


# --- resolving fire -----------------------------------------------------------------------------


def test_fire_on_a_team_with_known_dice(model: SquadBattles) -> None:
    # CV 240: 0.144-1.44; d100 100 -> 1.4335, rounds up on <= 43: 1 -> 2 men.
    # Effectiveness CV 1200: 0.72-7.2; d100 1 -> 0.7524, up on <= 75: 1 -> 1 point.
    # Morale: C 4, disrupted -1 = 3; d6 6 fails: pinned, on the ground.
    d = dice(100, 1, 1, 1, 6)
    out = model.fire(shot("rifle-squad", "rifle-squad", 6), d)
    d.finish()
    data = out.data
    assert {"fire_value", "modifiers", "combat_value", "low", "high", "casualties"} <= set(data)
    assert (data["fire_value"], data["combat_value"]) == (120, 240)
    assert (data["low"], data["high"]) == (0.144, 1.44)
    assert data["casualties"] == 2 and data["men"] == 8
    assert data["effectiveness"] == 99 and data["state"] == "pinned" and data["ground"] is True
    assert out.target_state == {
        "men": 8, "effectiveness": 99, "state": "pinned", "ground": True,
        "men_rule": "SB Combat Results: Combat Losses and Vehicle Kills",
        "effectiveness_rule": "SB Combat Results: Effectiveness Losses",
        "state_rule": "SB Combat Results: Pinned, Disrupted, and Demoralized",
        "ground_rule": "SB Combat Results: Pinned, Disrupted, and Demoralized",
    }  # fmt: skip
    assert out.verdict.startswith("2 casualties")


def test_fire_that_kills_a_team(model: SquadBattles) -> None:
    out = model.fire(shot("hmg", "rifle-squad", 1, target_men=1), dice(100, 1))
    assert out.eliminated and out.data["state"] == "eliminated"


def test_fire_kills_a_leader(model: SquadBattles) -> None:
    out = model.fire(shot("hmg", "lieutenant", 1), dice(100, 1))
    assert out.eliminated and out.data["killed"] is True


@pytest.mark.parametrize(
    ("rolls", "killed", "immobile"),
    [
        ((100, 1, 21), True, False),
        ((100, 1, 20, 50, 50), False, True),
        ((1, 100, 50, 50), False, False),
    ],
    ids=["killed", "survives-immobile", "missed"],
)
def test_fire_on_a_vehicle(
    model: SquadBattles, rolls: tuple[int, ...], killed: bool, immobile: bool
) -> None:
    d = dice(*rolls)
    out = model.fire(shot("sherman", "panzer-iv", 6, aspect="front"), d)
    d.finish()
    assert out.data["killed"] is killed and out.eliminated is killed
    assert out.data.get("immobilized", False) is immobile


def test_he_immobilization_with_known_dice(model: SquadBattles) -> None:
    # CV 100 against a halftrack: value 0.5973, not killed (61 > 60); effectiveness x50;
    # HE chance 20% x 1/4 x 0.5973 = 2.99%: d100 2 immobilizes.
    d = dice(100, 61, 1, 1, 2)
    out = model.fire(shot("tank-75-he", "halftrack", 3), d)
    d.finish()
    assert out.data["immobilized"] is True and not out.eliminated


@pytest.mark.parametrize(
    ("weapon", "target", "opts", "chance"),
    [
        ("tank-75-he", "halftrack", {}, F(5)),
        ("tank-75-he", "halftrack", {"water": True}, F(0)),
        ("mortar-81", "halftrack", {}, F(0)),
        ("tank-75-ap", "halftrack", {}, F(0)),
        ("hmg", "halftrack", {}, F(0)),
    ],
    ids=["eligible", "in-water", "indirect", "penetration-36-lethality-150", "light-weapon"],
)
def test_he_immobilization_chance(
    model: SquadBattles, weapon: str, target: str, opts: dict[str, Any], chance: F
) -> None:
    sh, _ = model._shooting(shot(weapon, target, 3, **opts))
    # At a casualty value of 1 or more the chance is a full quarter of 20%.
    assert he_immobile_chance(model.tables, sh, F(2)) == chance


# --- combat results, effectiveness, morale ----------------------------------------------------


@pytest.mark.parametrize(
    ("cv", "lcv", "hcv", "rolls", "value", "result"),
    [
        (F(400), F(6), F(60), (1, 1), F(24, 100) + F(216, 10_000) / 2, 1),
        (F(400), F(6), F(60), (100, 100), F(24, 10) - F(216, 10_000) / 2, 2),
        (F(0), F(6), F(60), (), F(0), 0),
        (F(10_000), F(2), F(2), (), F(2), 2),
    ],
    ids=["lowest", "highest", "zero", "whole-no-rolls"],
)
def test_combat_result(
    cv: F, lcv: F, hcv: F, rolls: tuple[int, ...], value: F, result: int
) -> None:
    d = dice(*rolls)
    r = combat_result(cv, lcv, hcv, F(10_000), d, "test")
    d.finish()
    assert (r.value, r.result) == (value, result)


def test_averaged_results_use_two_values(tables: Tables) -> None:
    r = combat_result(F(400), F(6), F(60), F(10_000), dice(1, 100, 1), "x", averaged=True)
    assert r.value == F(132, 100)  # midway between 0.24 and 2.4
    plain = distribution(F(400), F(6), F(60), F(10_000))
    mean = distribution(F(400), F(6), F(60), F(10_000), averaged=True)
    assert sum(mean.values()) == 1
    assert mean[1] > plain[1]  # more weight in the middle of the interval


@pytest.mark.parametrize(
    ("quality", "factor"),
    [("A", F(1, 2)), ("B", F(3, 4)), ("C", 1), ("D", F(13, 10)), ("E", F(8, 5)), ("F", 2)],
)
def test_quality_loss_modifier(model: SquadBattles, quality: str, factor: F) -> None:
    out = run(
        model, "combat-results", dice(1, 1), combat_value=400, quality=quality, quality_loss=True
    )
    assert F(str(out["high"])) == F(24, 10) * factor


@pytest.mark.parametrize(
    ("opts", "cv", "after"),
    [
        ({"combat_value": 400}, 2000, None),
        ({"combat_value": 400, "vehicle": True}, 20_000, 25),
        ({"combat_value": 400, "assault": True}, 4000, None),
        ({"combat_value": 100_000, "effectiveness": 40}, 500_000, 25),
    ],
    ids=["x5", "vehicle-x50-floor", "assault-doubled", "floor-25"],
)
def test_effectiveness_losses(
    model: SquadBattles, opts: dict[str, Any], cv: int, after: int | None
) -> None:
    out = run(model, "effectiveness", Dice(5), **opts)
    assert out["combat_value"] == cv
    if after is not None:
        assert out["effectiveness"] == after
    assert out["effectiveness"] >= 25


@pytest.mark.parametrize(
    ("quality", "effectiveness", "state", "inspired", "morale"),
    [
        ("A", 100, "normal", False, 6),
        ("C", 75, "normal", False, 3),
        ("C", 76, "normal", False, 4),
        ("C", 50, "normal", False, 2),
        ("B", 60, "disrupted", False, 3),
        ("F", 40, "pinned", False, 0),
        ("A", 100, "demoralized", False, 0),
        ("C", 100, "pinned", True, 3),
        ("A+", 100, "normal", False, 7),
    ],
)
def test_morale_value(
    tables: Tables, quality: str, effectiveness: int, state: str, inspired: bool, morale: int
) -> None:
    assert morale_value(tables, quality, F(effectiveness), state, inspired)[0] == morale


@pytest.mark.parametrize(
    ("state", "effectiveness", "men_lost", "eff_lost", "rolls", "after", "ground"),
    [
        ("normal", 90, 1, 5, (4,), "pinned", True),  # C 4, disrupted -1 = 3: 4 fails
        ("normal", 90, 1, 5, (3,), "disrupted", False),
        ("normal", 90, 0, 5, (2,), "normal", False),  # no men lost, no 1: nothing
        ("normal", 90, 0, 5, (1, 6), "pinned", True),  # the random 1: the procedure runs
        ("normal", 90, 1, 0, (), "normal", False),  # no effectiveness lost: nothing
        ("pinned", 50, 1, 5, (1,), "demoralized", True),  # morale 0: always fails
        ("pinned", 60, 1, 5, (3,), "pinned", True),  # over 51%: stays pinned
        ("demoralized", 30, 1, 5, (6,), "demoralized", True),
        ("disrupted", 100, 1, 5, (4,), "pinned", True),
    ],
    ids=[
        "normal-fails",
        "normal-holds",
        "no-loss-no-1",
        "no-loss-rolled-1",
        "no-eff-loss",
        "pinned-weak",
        "pinned-strong",
        "demoralized-stays",
        "disrupted-fails",
    ],
)
def test_pinned_disrupted_demoralized(
    tables: Tables,
    state: str,
    effectiveness: int,
    men_lost: int,
    eff_lost: int,
    rolls: tuple[int, ...],
    after: str,
    ground: bool,
) -> None:
    d = dice(*rolls)
    check = pin_check(
        tables,
        d,
        state=state,
        quality="C",
        effectiveness=F(effectiveness),
        men_lost=men_lost,
        effectiveness_lost=eff_lost,
        ground=False,
    )
    d.finish()
    assert (check.state, check.ground) == (after, ground)


def test_sniper_hits_always_check(tables: Tables) -> None:
    d = dice(6)
    check = pin_check(
        tables,
        d,
        state="normal",
        quality="C",
        effectiveness=F(90),
        men_lost=0,
        effectiveness_lost=3,
        ground=False,
        always=True,
    )
    assert check.state == "pinned"


# --- reliability and rest -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reliability", "sides", "low", "high"),
    [
        ("A", 3, 98, 100),
        ("B", 6, 95, 100),
        ("C", 11, 90, 100),
        ("D", 16, 85, 100),
        ("E", 21, 80, 100),
        ("F", 31, 70, 100),
    ],
)
def test_reliability_degradation(
    model: SquadBattles, reliability: str, sides: int, low: int, high: int
) -> None:
    assert run(model, "reliability", dice(1), reliability=reliability)["effectiveness"] == low
    assert run(model, "reliability", dice(sides), reliability=reliability)["effectiveness"] == high
    with pytest.raises(Exception, match="cannot be a d"):
        run(model, "reliability", dice(sides + 1), reliability=reliability)


def test_reliability_x_never_degrades_and_dropped_weapons(model: SquadBattles) -> None:
    assert run(model, "reliability", dice(), reliability="X")["effectiveness"] == 100
    assert run(model, "reliability", dropped="single-use", effectiveness=80)["effectiveness"] == 60
    assert run(model, "reliability", dropped="other", effectiveness=80)["effectiveness"] == 40
    assert run(model, "reliability", dropped="other", effectiveness=40)["effectiveness"] == 25


@pytest.mark.parametrize(
    ("opts", "rolls", "gain"),
    [
        ({"rest": 5, "effectiveness": 60}, (11,), 10),
        ({"rest": 5, "effectiveness": 60}, (1,), 0),
        ({"rest": 5, "effectiveness": 95}, (11,), 5),
        ({"rest": 5, "vehicle": True}, (), 0),
        ({"rest": 5, "fired": True}, (), 0),
        ({"rest": 5, "fired_upon": True}, (), 0),
        ({"rest": 0}, (), 0),
        ({"rest": 5, "gas": "masked"}, (), 0),
    ],
    ids=["max", "min", "capped-100", "vehicle", "fired", "fired-upon", "no-rest", "gas"],
)
def test_rest(model: SquadBattles, opts: dict[str, Any], rolls: tuple[int, ...], gain: int) -> None:
    d = dice(*rolls)
    out = run(model, "rest", d, **opts)
    d.finish()
    before = opts.get("effectiveness", 100)
    assert out["effectiveness"] == min(100, before + gain)


# --- command --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "radius"),
    [
        ("platoon", 1),
        ("company", 3),
        ("battalion", 9),
        ("regiment", 27),
        ("brigade", 54),
        ("division", 71),
    ],
)
def test_command_radius(model: SquadBattles, level: str, radius: int) -> None:
    out = run(model, "command-radius", level=level)
    assert out["radius"] == radius
    assert out["radius_inches"] == pytest.approx(radius * IPH, abs=0.01)


@pytest.mark.parametrize(
    ("opts", "rolls", "passed", "chance"),
    [
        ({"quality": "A"}, (6,), True, "1"),
        ({"quality": "F"}, (2,), False, "1/6"),
        ({"quality": "A+"}, (6,), True, "1"),
        ({"quality": "B", "gas_mask": True}, (5,), False, "2/3"),
        ({"quality": "C", "superior": "X", "distance": 0}, (5,), False, "2/3"),
        (
            {"quality": "C", "superior": "B", "distance": 0, "superior_passed": True},
            (5,),  # R/(R+0) is certain: no percentile roll
            True,
            "5/6",
        ),
        (
            {
                "quality": "C",
                "superior": "B",
                "superior_level": "platoon",
                "distance": 3,
                "superior_passed": True,
            },
            (25, 5),
            True,
            "17/24",  # 4/6 + 1/4 x 1/6
        ),
    ],
    ids=[
        "A",
        "F-fails",
        "heroic",
        "gas-mask",
        "political-superior",
        "same-hex-superior",
        "quarter-pass-along",
    ],
)
def test_command_test(
    model: SquadBattles, opts: dict[str, Any], rolls: tuple[int, ...], passed: bool, chance: str
) -> None:
    d = dice(*rolls)
    out = run(model, "command-test", d, **opts)
    d.finish()
    assert out["passed"] is passed and out["chance_exact"] == chance


@pytest.mark.parametrize(
    ("quality", "passed", "distance", "limit"),
    [
        (None, True, 0, 1),
        ("X", True, 0, 1),
        ("A+", True, 0, 8),
        ("A", True, 2, 3),
        ("A", False, 2, 2),
        ("F", False, 0, 1),
    ],
    ids=["no-leader", "political", "heroic-same-hex", "A-2-hexes", "A-failed", "F-failed"],
)
def test_recovery_limits(
    tables: Tables, quality: str | None, passed: bool, distance: int, limit: int
) -> None:
    assert recovery_limit(tables, quality, passed, distance)[0] == limit


def test_recovery_rolls_the_leaders_command_test_when_not_given(model: SquadBattles) -> None:
    d = dice(6, 3)  # B fails on 6: halved to 2, limit 1 + 2/1 = 3
    out = run(model, "recovery", d, quality="B", distance=0)
    d.finish()
    assert out["limit"] == 3 and out["recovered"] is True


def test_gas_stops_recovery(model: SquadBattles) -> None:
    assert run(model, "recovery", dice(), gas="unmasked")["recovered"] is False
    assert run(model, "demoralized-recovery", dice(), gas="masked")["recovered"] is False


@pytest.mark.parametrize(("fired_upon", "state"), [(False, "disrupted"), (True, "pinned")])
def test_pinned_recovery(model: SquadBattles, fired_upon: bool, state: str) -> None:
    assert run(model, "pinned-recovery", fired_upon=fired_upon)["state"] == state


@pytest.mark.parametrize(
    ("fired_upon", "rolls", "state"),
    [(False, (1,), "disrupted"), (False, (2,), "demoralized"), (True, (), "demoralized")],
)
def test_demoralized_recovery(
    model: SquadBattles, fired_upon: bool, rolls: tuple[int, ...], state: str
) -> None:
    d = dice(*rolls)
    assert run(model, "demoralized-recovery", d, fired_upon=fired_upon)["state"] == state
    d.finish()


@pytest.mark.parametrize(
    ("opts", "roll", "rallied", "state"),
    [
        ({"quality": "B"}, 5, True, "disrupted"),
        ({"quality": "B"}, 6, False, "pinned"),
        ({"quality": "B", "under_command": False}, 1, True, "disrupted"),
        ({"quality": "B", "under_command": False}, 2, False, "pinned"),
        ({"quality": "B", "motivator": True}, 6, True, "disrupted"),
        ({"quality": "B", "gas_mask": True}, 5, False, "pinned"),
        ({"quality": "C", "state": "demoralized"}, 4, True, "disrupted"),
        ({"quality": "X"}, 5, False, "demoralized"),
        ({"quality": "X"}, 4, True, "disrupted"),
    ],
    ids=[
        "B-own",
        "B-own-fails",
        "other-1",
        "other-2",
        "motivator",
        "gas-mask",
        "demoralized",
        "political-fails",
        "political-rallies",
    ],
)
def test_rally(
    model: SquadBattles, opts: dict[str, Any], roll: int, rallied: bool, state: str
) -> None:
    out = run(model, "rally", dice(roll), **opts)
    assert (out["rallied"], out["state"]) == (rallied, state)


@pytest.mark.parametrize(
    "opts", [{"quality": "X", "state": "demoralized"}, {"quality": "B", "gas": "unmasked"}]
)
def test_rally_refusals(model: SquadBattles, opts: dict[str, Any]) -> None:
    with pytest.raises(RulesRefusal):
        run(model, "rally", dice(), **opts)


@pytest.mark.parametrize(
    ("quality", "motivator", "gas_mask", "value"),
    [
        ("A+", False, False, 7),
        ("X", False, False, 4),
        ("X", True, False, 5),
        ("B", True, True, 5),
        ("B", False, True, 4),
    ],
)
def test_quality_modifiers(
    tables: Tables, quality: str, motivator: bool, gas_mask: bool, value: int
) -> None:
    assert quality_value(tables, quality, motivator=motivator, gas_mask=gas_mask)[0] == value


# --- mines, obstacles, clearing -------------------------------------------------------------------


@pytest.mark.parametrize(("stacking", "percent"), [(0, 0), (1, 5), (10, 50), (20, 100), (30, 100)])
def test_mine_trip_chance(tables: Tables, stacking: int, percent: int) -> None:
    # 2 S / M with M = 40 men.
    assert trip_percent(tables, stacking) == percent


@pytest.mark.parametrize(
    ("opts", "rolls", "effect", "casualties"),
    [
        ({"type": "booby-trap", "unit": "team", "stacking": 10}, (50,), "casualties", 1),
        ({"type": "booby-trap", "unit": "vehicle", "stacking": 5}, (), "none", 0),
        ({"type": "ap", "unit": "team", "stacking": 10}, (50, 5), "casualties", 5),
        ({"type": "ap", "unit": "team", "stacking": 10}, (51,), "none", 0),
        ({"type": "ap", "unit": "team", "stacking": 10, "ground": True}, (1,), "casualties", 1),
        ({"type": "ap", "profile": "halftrack"}, (1,), "immobile", 0),
        ({"type": "ap", "profile": "sherman"}, (1,), "none", 0),
        ({"type": "at", "profile": "rifle-squad"}, (), "none", 0),
        ({"type": "at", "profile": "halftrack"}, (1,), "destroyed", 0),
        ({"type": "at", "profile": "sherman"}, (1,), "immobile", 0),
        ({"type": "teller", "profile": "sherman"}, (), "none", 0),
        ({"type": "teller", "profile": "sherman", "water": True}, (1,), "immobile", 0),
        ({"type": "flame", "profile": "rifle-squad"}, (1, 3), "casualties", 3),
        ({"type": "flame", "profile": "halftrack"}, (1,), "destroyed", 0),
        ({"type": "ap", "profile": "rifle-squad", "detector": True}, (), "none", 0),
    ],
    ids=[
        "booby-infantry",
        "booby-vehicle",
        "ap-standing",
        "ap-not-tripped",
        "ap-ground",
        "ap-soft",
        "ap-hard",
        "at-infantry",
        "at-soft",
        "at-hard",
        "teller-dry",
        "teller-water",
        "flame-infantry",
        "flame-soft",
        "detector",
    ],
)
def test_mines(
    model: SquadBattles,
    opts: dict[str, Any],
    rolls: tuple[int, ...],
    effect: str,
    casualties: int,
) -> None:
    d = dice(*rolls)
    out = run(model, "mine", d, **opts)
    d.finish()
    assert (out["effect"], out["casualties"]) == (effect, casualties)


@pytest.mark.parametrize(
    ("feature", "unit", "enter", "pinned", "cost"),
    [
        ("obstacles", "team", True, True, 0),
        ("obstacles", "leader", True, False, 0),
        ("obstacles", "horse", False, False, 0),
        ("obstacles", "vehicle", True, False, 0),
        ("barriers", "vehicle", False, False, 0),
        ("barriers", "train", False, False, 0),
        ("barriers", "horse", True, False, 0),
        ("barriers", "team", True, False, 0),
        ("barriers", "flying", True, False, 0),
        ("craters", "vehicle", True, False, 2),
        ("craters", "team", True, False, 2),
    ],
)
def test_obstacles_barriers_craters(
    model: SquadBattles, feature: str, unit: str, enter: bool, pinned: bool, cost: int
) -> None:
    out = run(model, "obstacle", feature=feature, unit=unit)
    assert (out["can_enter"], out["pinned"], out["extra_cost"]) == (enter, pinned, cost)


@pytest.mark.parametrize(
    ("weapon", "target", "chance"),
    [
        ("demolition", "railroad-bridge", 0.05),
        ("demolition", "heavy-bridge", 0.1),
        ("demolition", "medium-bridge", 0.2),
        ("demolition", "light-bridge", 0.4),
        ("demolition", "rail-line", 0.4),
        ("demolition", "barrier", F(4, 6)),
        ("clearing", "mine", F(4, 6)),
    ],
)
def test_clearing_and_demolition(
    model: SquadBattles, weapon: str, target: str, chance: float | F
) -> None:
    out = run(model, "clear", dice(1), weapon=weapon, target=target)
    assert out["chance"] == pytest.approx(float(chance), abs=1e-4)
    assert out["success"] is True


@pytest.mark.parametrize(
    ("weapon", "target"),
    [("clearing", "barrier"), ("wire-cutter", "mine"), ("clearing", "heavy-bridge")],
)
def test_clearing_refusals(model: SquadBattles, weapon: str, target: str) -> None:
    with pytest.raises(RulesRefusal):
        run(model, "clear", dice(), weapon=weapon, target=target)


# --- explosion and loads -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("radius", "length", "offset", "along", "factor"),
    [
        (0, 0, 0, False, 1),
        (1, 0, 1, False, F(1, 2)),
        (2, 0, 2, False, F(1, 3)),
        (2, 0, 3, False, 0),
        (0, 3, 3, True, 1),
        (0, 3, 4, True, 0),
        (1, 3, 1, False, F(1, 2)),
    ],
)
def test_explosion_radius_and_length(
    radius: int, length: int, offset: int, along: bool, factor: F
) -> None:
    assert explosion_factor(radius, length, offset, along) == factor


@pytest.mark.parametrize(
    ("opts", "used"),
    [
        ({"load": "smoke", "used": 0, "limit": 2}, 1),
        ({"load": "illumination", "limit": 1}, 1),
        ({"load": "mine", "used": 1, "limit": 2}, 2),
        ({"load": "chemical"}, 1),
        ({"load": "smoke", "used": 2, "limit": 2, "single_use": True}, 2),
    ],
)
def test_special_loads(model: SquadBattles, opts: dict[str, Any], used: int) -> None:
    assert run(model, "load", **opts)["used"] == used


@pytest.mark.parametrize("kind", ["smoke", "wp-smoke", "illumination", "mine"])
def test_special_load_limits(model: SquadBattles, kind: str) -> None:
    with pytest.raises(RulesRefusal, match="limit"):
        run(model, "load", load=kind, used=3, limit=3)


@pytest.mark.parametrize(
    ("opts", "state", "masks"),
    [
        ({"masks": "none"}, "disrupted", "none"),
        ({"masks": "available"}, "disrupted", "on"),
        ({"masks": "on"}, "normal", "on"),
        ({"masks": "none", "state": "pinned"}, "pinned", "none"),
    ],
)
def test_gas_exposure(model: SquadBattles, opts: dict[str, Any], state: str, masks: str) -> None:
    out = run(model, "gas", **opts)
    assert (out["state"], out["masks"]) == (state, masks)


def test_gas_spread_and_clear(model: SquadBattles) -> None:
    out = run(model, "gas", dice(25, 26), action="spread", adjacent=2)
    assert out["spread"] == [True, False]
    assert run(model, "gas", dice(20), action="clear")["cleared"] is True


# --- objectives and scoring ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("opts", "points", "visible"),
    [
        ({"kind": "normal", "value": 20}, 20, True),
        ({"kind": "normal", "value": 20, "occupied_by": "second"}, 0, True),
        ({"kind": "normal", "value": 20, "owner": "second", "occupied_by": "first"}, 20, True),
        ({"kind": "exit", "value": 15, "owner": "second"}, -15, True),
        ({"kind": "capture", "value": 30, "owner": "second"}, 0, True),
        ({"kind": "capture", "value": 30, "owner": "second", "captured": True}, 30, True),
        ({"kind": "capture", "value": 30, "owner": "first", "occupied_by": "second"}, -30, True),
        ({"kind": "collateral", "value": 0, "owner": "second", "enemy_fires": 2}, -10, True),
        ({"kind": "collateral", "value": -10, "owner": "second", "occupied_by": "first"}, 10, True),
        ({"kind": "collateral", "value": -10, "owner": "second"}, 0, True),
        ({"kind": "normal", "value": 20, "owner": "second", "unknown": True}, 0, False),
        (
            {"kind": "collateral", "value": 0, "owner": "first", "unknown": True, "enemy_fires": 1},
            5,
            True,
        ),
    ],
    ids=[
        "normal-held",
        "normal-taken",
        "normal-retaken",
        "exit-second",
        "capture-not",
        "capture-taken",
        "capture-lost",
        "collateral-fired-on",
        "collateral-negative-held",
        "collateral-negative-empty",
        "hidden",
        "hiding-revealed",
    ],
)
def test_objectives(model: SquadBattles, opts: dict[str, Any], points: int, visible: bool) -> None:
    out = run(model, "objective", **opts)
    assert (out["points"], out["visible_to_opponent"]) == (points, visible)


@pytest.mark.parametrize(
    ("kind", "name"),
    [("normal", "hidden"), ("exit", "escape"), ("capture", "cache"), ("collateral", "hiding")],
)
def test_unknown_objective_names(model: SquadBattles, kind: str, name: str) -> None:
    assert run(model, "objective", kind=kind, unknown=True)["name"] == name


@pytest.mark.parametrize(
    ("opts", "vp", "outcome"),
    [
        (
            {"objective_points": "50", "first_losses": "20", "second_losses": "35"},
            65,
            "minor victory",
        ),
        ({"objective_points": "0", "first_losses": "100"}, -100, "major defeat"),
        ({"objective_points": "10"}, 10, "draw"),
        ({"first_men": 10, "second_vehicles": 2}, 10, "draw"),
        (
            {
                "asymmetric": "second",
                "objective_points": "0,10,10",
                "first_losses": "2,0,1",
                "second_losses": "3,3,0",
            },
            26,
            "minor victory",
        ),
        (
            {"asymmetric": "first", "turns": 4, "first_losses": "0,4", "second_losses": "5"},
            8,
            "draw",
        ),
        ({"objective_points": "30", "minor_victory": 40}, 30, "draw"),
    ],
    ids=[
        "conventional",
        "major-defeat",
        "draw",
        "counted-losses",
        "asymmetric-second",
        "asymmetric-first",
        "own-levels",
    ],
)
def test_scoring(model: SquadBattles, opts: dict[str, Any], vp: int, outcome: str) -> None:
    out = run(model, "score", **opts)
    assert (out["victory_points"], out["outcome"]) == (vp, outcome)


# --- assault -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("opts", "value"),
    [
        ({"unit": "leader"}, 20),
        ({"unit": "team", "strength": 8}, 160),
        ({"unit": "weapon", "strength": 2, "weapon_assault": 15}, 30),
        ({"unit": "horse", "passengers": 3}, 12),
        ({"unit": "team", "strength": 8, "disrupted": True}, 80),
        ({"unit": "team", "strength": 8, "slope": "uphill"}, 80),
        ({"unit": "team", "strength": 8, "slope": "downhill"}, 320),
        ({"unit": "team", "strength": 8, "role": "defender", "state": "pinned"}, 40),
        ({"unit": "team", "strength": 8, "role": "defender", "state": "demoralized"}, 20),
        ({"unit": "vehicle", "armour": 36, "immobile": True}, 0),
    ],
    ids=[
        "leader",
        "team",
        "weapons",
        "horses",
        "disrupted",
        "uphill",
        "downhill",
        "pinned",
        "demoralized",
        "immobile",
    ],
)
def test_assault_values(model: SquadBattles, opts: dict[str, Any], value: float) -> None:
    assert run(model, "assault-value", **opts)["assault_value"] == value


@pytest.mark.parametrize(
    ("opts", "rolls", "retreat", "surrendered", "pinned"),
    [
        ({}, (100, 1, 1, 1, 1, 1, 1, 1, 5, 1), True, False, False),  # 5 > 4, 1 <= 4: retreat
        ({}, (100, 1, 1, 1, 1, 1, 1, 1, 4, 1), False, False, True),  # 4 <= 4: holds
        ({}, (100, 1, 1, 1, 1, 1, 1, 1, 5, 5), False, False, True),  # 5 > 4: holds
        ({"can_retreat": False}, (100, 1, 1, 1, 1, 1, 1, 1, 6, 1), False, True, False),
        (
            {"can_retreat": False, "japanese": True},
            (100, 1, 1, 1, 1, 1, 1, 1, 6, 1),
            False,
            False,
            True,
        ),
        ({"defender_vehicle": True}, (100, 1, 1, 1, 1, 1, 1, 1), False, False, True),
    ],
    ids=[
        "retreat",
        "holds-own-morale",
        "holds-attacker-morale",
        "surrender",
        "japanese",
        "vehicle-holds",
    ],
)
def test_assault_resolution(
    model: SquadBattles,
    opts: dict[str, Any],
    rolls: tuple[int, ...],
    retreat: bool,
    surrendered: bool,
    pinned: bool,
) -> None:
    d = dice(*rolls)
    out = run(model, "assault", d, attack=2000, defend=400, **opts)
    d.finish()
    assert out["defender_losses"] > 0
    assert (out["retreat"], out["surrendered"], out["attackers_pinned"]) == (
        retreat,
        surrendered,
        pinned,
    )


def test_golden_truck_shares_3_in_13_beside_a_squad(tables: Tables) -> None:
    # SB Vehicle Assault Resolution: a truck (armour 4) shares losses as 4 x 20 / 24 = 3
    # beside a squad of 10: one casualty is the truck's 3 times in 13; of two, it takes at
    # least one 1 - 10/13 x 9/12 = 11/26 of the time (the pool shrinks as men fall)
    def truck_hit(losses: int) -> Any:
        def go(d: Any) -> bool:
            units = parse_units(tables, "team:10,vehicle:4", "defender_units")
            share_losses(units, losses, d, "defender")
            return units[1].losses > 0

        return go

    assert parse_units(tables, "team:10,vehicle:4", "x")[1].strength == 3
    assert sum(p for p, hit in enumerate_rolls(truck_hit(1)) if hit) == F(3, 13)
    assert sum(p for p, hit in enumerate_rolls(truck_hit(2)) if hit) == F(11, 26)


@pytest.mark.parametrize(
    ("other", "killed"),
    [
        ("team:10", True),  # a truck: 1 x 0.5 x 1/2 x 24 / 4 = 1.5, a loss: killed, no roll
        ("vehicle:30", False),  # no infantry against it: no loss
    ],
    ids=["infantry-kills-the-truck", "no-infantry-no-loss"],
)
def test_vehicle_kills_in_an_assault(tables: Tables, other: str, killed: bool) -> None:
    # SB Combat Results: Combat Losses and Vehicle Kills
    units = parse_units(tables, "vehicle:4", "defender_units")
    share_losses(units, 1, Dice(1), "defender")
    against = parse_units(tables, other, "attacker_units")
    d = Dice(1)
    vehicle_kills(tables, units, d, "defender", any(u.kind != "vehicle" for u in against))
    assert units[0].killed is killed and d.rolls == []


def test_a_sherman_share_kills_a_fifth_of_the_time(tables: Tables) -> None:
    # 1 x 0.5 x 1/2 x 24 / 30 = 0.2: rounded up at random, a kill 20% of the time
    def go(d: Any) -> bool:
        units = parse_units(tables, "vehicle:30", "attacker_units")
        share_losses(units, 1, d, "attacker")
        vehicle_kills(tables, units, d, "attacker", True)
        return units[0].killed

    assert sum(p for p, killed in enumerate_rolls(go) if killed) == F(1, 5)


def test_quick_assault_shares_losses_by_the_units_given() -> None:
    runner = CliRunner()
    args = ["model", "run", "squad-battles", "assault", "--set", "attack=400", "--set",
            "defend=400", "--set", "defender_units=team:10,vehicle:4", "--set",
            "attacker_units=team:9,leader", "--json", "--dice",
            "100,1,1,1,1,1,1,1,11,1,1,1,5,3"]  # fmt: skip
    out = json.loads(runner.invoke(cli, args).output)
    # SB Combat Results: 400 is 4%: 0.24 to 2.4, d100 100 is 2.389, rounded up: 3 German
    # casualties, shared by d13 11 (the truck's 11-13), d12 1, d11 1 (the squad's); the
    # truck's one share is 1.5, a kill. The one American casualty: d10 1, the squad's.
    assert (out["defender_losses"], out["attacker_losses"]) == (3, 1)
    assert [(u["id"], u["losses"], u["killed"]) for u in out["defender_units"]] == [
        ("team1", 2, False), ("vehicle2", 1, True),
    ]  # fmt: skip
    assert out["attacker_units"][1] == {
        "id": "leader2", "kind": "leader", "strength": 1, "losses": 0, "killed": False,
    }  # fmt: skip
    # the killed truck no longer holds the squad: it fails its retreat test
    assert out["retreat"] is True
    bad = runner.invoke(cli, [*args[:9], "defender_units=truck:4"])
    assert bad.exit_code == 2 and bad.output == (
        "Error: --set defender_units='truck:4': expected units like team:10,leader,vehicle:4 "
        "(a team's men, a vehicle's armour)\n"
    )


def test_assault_without_defender_losses_never_retreats(model: SquadBattles) -> None:
    out = run(model, "assault", Dice(2), attack=0, defend=400)
    assert out["defender_losses"] == 0 and out["retreat"] is False


# --- invariants ------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    cv=st.fractions(min_value=0, max_value=20_000, max_denominator=100),
    lcv=st.integers(0, 20),
    spread=st.integers(0, 80),
)
def test_distribution_is_a_probability_table(cv: F, lcv: int, spread: int) -> None:
    dist = distribution(cv, F(lcv), F(lcv + spread), F(10_000))
    assert sum(dist.values()) == 1
    assert all(0 <= p <= 1 for p in dist.values())
    low, high = scaled(cv, F(lcv), F(lcv + spread), F(10_000))
    assert min(dist) >= math.floor(low) and max(dist) <= math.ceil(high)


@settings(max_examples=40, deadline=None)
@given(near=st.integers(1, 12), far=st.integers(1, 12), ground=st.booleans())
def test_fire_value_never_rises_with_range(
    model: SquadBattles, near: int, far: int, ground: bool
) -> None:
    near, far = min(near, far), max(near, far)
    a = fire_value(model, "rifle-squad", "rifle-squad", near, ground=ground).combat_value
    b = fire_value(model, "rifle-squad", "rifle-squad", far, ground=ground).combat_value
    assert a >= b


@settings(max_examples=60, deadline=None)
@given(p1=st.integers(0, 100), p2=st.integers(0, 100), armour=st.integers(1, 80), ap=st.booleans())
def test_penetration_curve_is_monotone(
    tables: Tables, p1: int, p2: int, armour: int, ap: bool
) -> None:
    lo, hi = min(p1, p2), max(p1, p2)
    a = vehicle_penetration(tables, F(lo), F(armour), ap)
    b = vehicle_penetration(tables, F(hi), F(armour), ap)
    assert 0 <= a <= b <= F(3, 2)


@settings(max_examples=40, deadline=None)
@given(
    quality=st.sampled_from(["A", "B", "C", "D", "E", "F"]),
    effectiveness=st.integers(25, 100),
    state=st.sampled_from(["normal", "disrupted", "pinned", "demoralized"]),
)
def test_morale_stays_in_range(
    tables: Tables, quality: str, effectiveness: int, state: str
) -> None:
    value, _ = morale_value(tables, quality, F(effectiveness), state)
    assert 0 <= value <= 6


@settings(max_examples=15, deadline=None)
@given(
    hexes=st.integers(1, 12),
    men=st.integers(1, 12),
    state=st.sampled_from(["normal", "disrupted", "pinned", "demoralized"]),
    terrain=st.sampled_from(["open", "woods", "bua-strong"]),
    ground=st.booleans(),
)
def test_team_odds_sum_to_one(
    model: SquadBattles, hexes: int, men: int, state: str, terrain: str, ground: bool
) -> None:
    odds = model.odds(
        shot(
            "rifle-squad",
            "rifle-squad",
            hexes,
            target_men=men,
            target_state=state,
            terrain=terrain,
            ground=ground,
        )
    )
    assert sum(odds["outcomes"].values()) == 1
    assert sum(odds["states"].values()) == 1
    assert all(0 <= p <= 1 for p in odds["outcomes"].values())


@pytest.mark.parametrize(
    ("shooter", "target", "hexes", "opts"),
    [
        ("rifle-squad", "rifle-squad", 6, {}),
        ("hmg", "rifle-squad", 1, {"target_state": "pinned", "target_effectiveness": 50}),
        ("tank-75-he", "halftrack", 3, {}),
        ("sherman", "panzer-iv", 3, {"aspect": "front"}),
        ("rifle-squad", "lieutenant", 1, {}),
    ],
    ids=["team", "pinned-team", "he-halftrack", "ap-tank", "leader"],
)
def test_odds_agree_with_simulated_fire(
    model: SquadBattles, shooter: str, target: str, hexes: int, opts: dict[str, Any]
) -> None:
    s = shot(shooter, target, hexes, **opts)
    odds = model.odds(s)
    assert sum(odds["outcomes"].values()) == 1
    n = 1000
    seen: Counter[str] = Counter()
    d = Dice(11)
    for _ in range(n):
        data = model.fire(s, d).data
        if "immobilized" in data:
            key = (
                "killed" if data["killed"] else "immobilized" if data["immobilized"] else "no kill"
            )
        elif target == "lieutenant":
            key = "killed" if data["killed"] else "unhurt"
        else:
            k = data["casualties"]
            key = f"{k} {'casualty' if k == 1 else 'casualties'}"
        seen[key] += 1
    for key, p in odds["outcomes"].items():
        sigma = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(seen[key] / n - float(p)) <= 4 * sigma + 1e-9, (key, seen, odds["outcomes"])


# --- the CLI ---------------------------------------------------------------------------------


def test_quick_mode_fire_json(run: Run) -> None:
    out = as_json(
        run(
            "fire",
            "--model",
            "squad-battles",
            "--shooter",
            "rifle-squad",
            "--target",
            "rifle-squad",
            "--range-squares",
            "6",
            "--dice",
            "100,1,1,1,6",
            "--json",
        )
    )
    for key in ("fire_value", "modifiers", "combat_value", "low", "high", "casualties"):
        assert key in out
    assert out["casualties"] == 2 and out["state"] == "pinned"
    assert out["modifiers"][0] == {
        "name": "infantry not in ground mode",
        "factor": 2.0,
        "rule": "SB Firing: Target Effects",
    }


def test_quick_mode_range_in_inches_matches_hexes(run: Run) -> None:
    a = as_json(
        run(
            "fire",
            "--model",
            "squad-battles",
            "--shooter",
            "hmg",
            "--target",
            "rifle-squad",
            "--range",
            "8.7",
            "--seed",
            "3",
            "--json",
        )
    )
    b = as_json(
        run(
            "fire",
            "--model",
            "squad-battles",
            "--shooter",
            "hmg",
            "--target",
            "rifle-squad",
            "--range-squares",
            "10",
            "--seed",
            "3",
            "--json",
        )
    )
    assert a["hexes"] == b["hexes"] == 10 and a["combat_value"] == b["combat_value"]


def test_quick_mode_smoke_option(run: Run) -> None:
    out = as_json(
        run(
            "fire",
            "--model",
            "squad-battles",
            "--shooter",
            "rifle-squad",
            "--target",
            "rifle-squad",
            "--range-squares",
            "6",
            "--smoke",
            "1",
            "--seed",
            "1",
            "--json",
        )
    )
    assert out["combat_value"] == 120


def test_quick_mode_odds(run: Run) -> None:
    out = as_json(
        run(
            "odds",
            "fire",
            "--model",
            "squad-battles",
            "--shooter",
            "rifle-squad",
            "--target",
            "rifle-squad",
            "--range-squares",
            "6",
            "--json",
        )
    )
    assert sum(out["outcomes"].values()) == pytest.approx(1)
    assert "states" in out and "exact" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--shooter", "nobody", "--target", "rifle-squad", "--range-squares", "6"],
            "not a squad-battles profile",
        ),
        (
            [
                "--shooter",
                "rifle-squad",
                "--target",
                "rifle-squad",
                "--range-squares",
                "6",
                "--set",
                "colour=red",
            ],
            "not an option",
        ),
        (["--shooter", "rifle-squad", "--target", "rifle-squad"], "give the range once"),
        (
            [
                "--shooter",
                "rifle-squad",
                "--target",
                "rifle-squad",
                "--range-squares",
                "6",
                "--set",
                "aspect=top",
            ],
            "expected front, side, rear",
        ),
    ],
    ids=["unknown-profile", "unknown-set-key", "missing-range", "bad-choice"],
)
def test_quick_mode_bad_input(run: Run, args: list[str], message: str) -> None:
    result = run("fire", "--model", "squad-battles", *args, code=2)
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_quick_mode_beyond_range_is_refused(run: Run) -> None:
    result = run(
        "fire",
        "--model",
        "squad-battles",
        "--shooter",
        "rifle-squad",
        "--target",
        "rifle-squad",
        "--range-squares",
        "13",
        code=3,
    )
    assert result.output == (
        "Error: Rifle reaches 12 hexes; the target is 13 hexes away (SB Firing: Range Effect)\n"
    )


def test_model_show_and_list(runner: CliRunner) -> None:
    shown = json.loads(runner.invoke(cli, ["model", "show", "squad-battles", "--json"]).output)
    assert shown["inches_per_unit"] == IPH
    assert {"command-test", "recovery", "rally", "mine", "score", "assault"} <= set(
        shown["procedures"]
    )
    assert "terrain" in shown["fire_options"]
    listed = json.loads(runner.invoke(cli, ["model", "list", "--json"]).output)
    assert any(
        m["model"] == "squad-battles" and m["scale"] == "1 hex = 0.87 inches"
        for m in listed["models"]
    )


def test_model_run_quick_mode(run: Run) -> None:
    out = as_json(
        run(
            "model",
            "run",
            "squad-battles",
            "recovery",
            "--set",
            "quality=B",
            "--set",
            "leader_passed=true",
            "--set",
            "distance=1",
            "--dice",
            "3",
            "--json",
        )
    )
    assert out["limit"] == 3 and out["recovered"] is True


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["rally"], 2, "give --set quality"),
        (["rally", "--set", "quality=Z"], 2, "expected"),
        (["rally", "--set", "quality=X", "--set", "state=demoralized"], 3, "political"),
        (["nothing"], 2, "no procedure"),
        (["rally", "--set", "colour=red"], 2, "not an option"),
    ],
    ids=["missing", "bad-value", "refused", "unknown-procedure", "unknown-key"],
)
def test_model_run_bad_input(run: Run, args: list[str], code: int, message: str) -> None:
    result = run("model", "run", "squad-battles", *args, code=code)
    assert message in result.output


@pytest.fixture
def sb_game(run: Run) -> Run:
    run("new", str(DATA), "--seed", "1")
    return run


def test_table_mode_fire_records_the_target_state(sb_game: Run) -> None:
    first = as_json(sb_game("fire", "US-SQ", "G-SQ", "--dice", "100,1,1,1,6", "--json"))
    assert first["hexes"] == 6 and first["casualties"] == 2 and first["state"] == "pinned"
    assert first["event"] is not None
    # The next fire reads the pinned team back: 8 men, on the ground (no x2), 99%.
    odds = as_json(sb_game("odds", "fire", "US-SQ", "G-SQ", "--json"))
    assert sum(odds["outcomes"].values()) == pytest.approx(1)
    # one fire action a stand a phase: the second waits for the next fire phase
    before = file_digest(sb_game.game)  # type: ignore[attr-defined]
    refused = sb_game("fire", "US-SQ", "G-SQ", code=3)
    assert refused.output == (
        "Error: US-SQ has already fired this fire phase of turn 1 under squad-battles, "
        "at G-SQ: one fire action a pulse (SB Unit displays: a weapon fires a set "
        "number of times a turn; on the table, one fire action a phase (our reading)); "
        "it fires again next phase\n"
    )
    assert file_digest(sb_game.game) == before  # type: ignore[attr-defined]
    goto_phase(sb_game, "morale")
    goto_phase(sb_game, "fire")
    again = as_json(sb_game("fire", "US-SQ", "G-SQ", "--json"))
    names = [m["name"] for m in again["modifiers"]]
    assert "infantry not in ground mode" not in names
    assert "density: team of 8: S/10" in names
    sb_game("undo")
    sb_game("replay")


def test_table_mode_terrain_and_fortification(sb_game: Run) -> None:
    out = as_json(sb_game("fire", "US-SQ", "G-PB", "--json"))
    parts = {p["name"] for p in out["protection_parts"]}
    assert "bunker" in parts  # German-built, German-held: full value


def test_table_mode_vehicle_aspect(sb_game: Run) -> None:
    out = as_json(sb_game("fire", "US-TK", "G-TK", "--json"))
    assert out["protection_parts"][0]["name"].endswith("through the front hexside")


def test_table_mode_explosion_lists_neighbours(sb_game: Run) -> None:
    out = as_json(sb_game("fire", "US-MT", "G-SQ", "--json"))
    assert {"stand": "G-NB", "hexes": 1, "offset": 1} in out["under_blast"]


def test_table_mode_stand_without_profile(sb_game: Run) -> None:
    before = file_digest(sb_game.game)  # type: ignore[attr-defined]
    result = sb_game("fire", "US-SQ", "G-NP", "--range", "5", code=2)
    assert result.output == (
        "Error: stands without a profile for the squad-battles model: G-NP; give each "
        "'profiles: {squad-battles: ID}' in the scenario, with IDs from "
        "charts/models/squad_battles.yaml\n"
    )
    assert file_digest(sb_game.game) == before  # type: ignore[attr-defined]


def test_table_mode_no_line_of_sight_is_refused(sb_game: Run) -> None:
    before = file_digest(sb_game.game)  # type: ignore[attr-defined]
    result = sb_game("fire", "US-SQ", "G-WD", code=3)
    assert result.output == (
        "Error: Rifle needs a line of sight to the target hex; only indirect fire may "
        "fire without one (SB Firing: Line-of-Sight)\n"
    )
    assert file_digest(sb_game.game) == before  # type: ignore[attr-defined]


def test_table_mode_model_run_is_logged(sb_game: Run) -> None:
    out = as_json(
        sb_game("model", "run", "squad-battles", "demoralized-recovery", "--dice", "1", "--json")
    )
    assert out["event"] is not None and out["state"] == "disrupted"


def test_chart_problems_are_reported(charts: Charts) -> None:
    from tabletop.core.errors import ChartError
    from tabletop.rules.models.squad_battles.tables import SCHEMAS

    raw = {k: [dict(e) for e in v] for k, v in charts.raw.items()}
    for entry in raw["models/squad_battles"]:
        if entry["id"] == "rifle-squad":
            entry["weapon"] = "sherman"
        if entry["id"] == "fort-cave":
            entry["protection"] = 3
    with pytest.raises(ChartError) as caught:
        Tables(Charts(raw).model_tables("squad_battles", SCHEMAS))
    text = "\n".join(caught.value.problems)
    assert text.splitlines()[0] == (
        "models/squad_battles.yaml: entry 'rifle-squad': weapon: 'sherman' is not a weapon profile"
    )
    assert text.splitlines()[1] == (
        "models/squad_battles.yaml: entry 'fort-cave': give one of protection or protection_as"
    )


def test_every_unprinted_parameter_is_marked_default(tables: Tables) -> None:
    # The parameter data the manual names without printing (issue 8's list).
    for key in (
        "infantry-protection",
        "vehicle-fire-factor",
        "hard-vehicle-armour",
        "max-stacking",
        "crater-protection",
        "elevation-protection",
        "immobile-probability",
        "fire-lcv",
        "fire-hcv",
    ):
        entry = tables.by_table["param"][key]
        assert entry.default and entry.note, key


def test_scenario_strength_is_the_men_of_a_team(run: Run, tmp_path: Path) -> None:
    text = DATA.read_text()
    for stand, men in (("G-SQ", 5), ("US-SQ", 4)):
        text = text.replace(f"{{id: {stand}, kind:", f"{{id: {stand}, strength: {men}, kind:")
    path = tmp_path / "strength.yaml"
    path.write_text(text)
    run("new", str(path), "--seed", "1")
    out = as_json(run("fire", "US-SQ", "G-SQ", "--dice", "100,1,1,1,6", "--json"))
    assert out["strength"] == 4  # the firing team's 4 men, not the profile's 10
    assert "density: team of 5: S/10" in [m["name"] for m in out["modifiers"]]
    assert out["men"] == 5 - out["casualties"]


@pytest.mark.parametrize(
    ("rolls", "result"), [((44,), 2), ((45, 50), 2), ((45, 51), 1), ((46,), 1)]
)
def test_random_rounding_is_the_fraction_exactly(rolls: tuple[int, ...], result: int) -> None:
    # SB Combat Results: 1.445 rounds up 44.5% of the time, as shown: 1-44, or 45 and then
    # 1-50 on a second d100 for the hundredths; distribution gives the same odds.
    d = dice(*rolls)
    out = combat_result(F(10_000), F(1445, 1000), F(1445, 1000), F(10_000), d, "casualties")
    d.finish()
    assert out.result == result
    rolled = " then ".join(f"d100 {r}" for r in rolls)
    assert out.lines[-1] == f"  fraction 0.445: rounds up 44.50% of the time; {rolled} -> {result}"
    exact = distribution(F(10_000), F(1445, 1000), F(1445, 1000), F(10_000))
    assert exact == {1: F(555, 1000), 2: F(445, 1000)}


def test_procedures_on_stands_read_and_record_the_team(sb_game: Run) -> None:
    first = as_json(sb_game("fire", "US-SQ", "G-SQ", "--dice", "100,1,1,1,6", "--json"))
    assert first["state"] == "pinned"
    # SB Command: Rally of the pinned C-quality squad, as quick mode gives it
    quick = as_json(sb_game("model", "run", "squad-battles", "rally", "--set", "quality=C",
                            "--set", "state=pinned", "--dice", "1", "--json"))  # fmt: skip
    out = as_json(sb_game("model", "run", "squad-battles", "rally", "G-SQ", "--dice", "1",
                          "--json"))  # fmt: skip
    assert out["rallied"] == quick["rallied"] and out["state"] == quick["state"]
    from tabletop.cli.core import open_game

    record = open_game(sb_game.game).context().state.stand("G-SQ")["models"]["squad-battles"]  # type: ignore[attr-defined]
    assert record["state"] == quick["state"]
    assert record["state_rule"] == "SB Command: Rally: rally"
    # SB Effectiveness: Morale from the recorded effectiveness
    morale = as_json(sb_game("model", "run", "squad-battles", "morale", "G-SQ", "--json"))
    again = as_json(sb_game("model", "run", "squad-battles", "morale", "--set", "quality=C",
                            "--set", f"effectiveness={record['effectiveness']}", "--set",
                            f"state={record['state']}", "--json"))  # fmt: skip
    assert morale["morale"] == again["morale"]


def test_sb_alias(sb_game: Run) -> None:
    out = as_json(sb_game("model", "run", "SB", "command-test", "--set", "quality=B", "--dice",
                          "5", "--json"))  # fmt: skip
    assert out["model"] == "squad-battles" and out["passed"] is True


def test_model_show_writes_a_default_as_typed(runner: CliRunner) -> None:
    lines = runner.invoke(cli, ["model", "show", "squad-battles"]).output.splitlines()
    assert "  los: line of sight to the target hex; default true" in lines


# --- the assault's odds (issue 20): bands and checkpoints against the plain enumeration ------


class _Plain:
    """The enumerator's dice with only ``roll``: every face of every die, no band, no
    checkpoint."""

    def __init__(self, dice: Any) -> None:
        self.dice = dice

    def roll(self, sides: int, purpose: str) -> int:
        return int(self.dice.roll(sides, purpose))


class _Unmarked(_Plain):
    """Bands kept, checkpoints ignored."""

    def roll_in_bands(self, sides: int, purpose: str, cuts: tuple[int, ...]) -> int:
        return int(self.dice.roll_in_bands(sides, purpose, cuts))


class _Fixed(Tables):
    """The chart with some numbers changed (to make a case small enough for every face)."""

    changed: dict[str, F]

    def param(self, key: str) -> F:
        return self.changed[key] if key in self.changed else super().param(key)


def _fixed_tables(charts: Charts, **changed: int) -> _Fixed:
    from tabletop.rules.models.squad_battles.tables import CHART, SCHEMAS

    fixed = _Fixed(charts.model_tables(CHART, SCHEMAS))
    fixed.changed = {k.replace("_", "-"): F(v) for k, v in changed.items()}
    return fixed


def _assault_odds(tables: Tables, given: dict[str, Any], wrap: Any) -> dict[Any, F]:
    from tabletop.core.odds import distribution
    from tabletop.rules.models.squad_battles.opts import parse
    from tabletop.rules.models.squad_battles.procedures import _assault, _assault_opts

    o = parse(_assault_opts(tables), given)

    def outcome(dice: Any) -> Any:
        r = _assault(tables, o, wrap(dice))
        units = [*r.get("attacker_units", []), *r.get("defender_units", [])]
        return (
            r["result"],
            r["retreat"],
            r["surrendered"],
            r["defenders_destroyed"],
            tuple((u["id"], u["losses"], u["killed"]) for u in units),
        )

    return distribution(outcome, limit=100_000)


def test_assault_odds_by_bands_and_checkpoints_are_the_plain_enumeration(charts: Charts) -> None:
    # SB Assault Resolution with the low and high casualties made equal and whole (10 at the
    # baseline), so every face of every die can be tried: 2000 against 1000 is 2 defender
    # losses and 1 attacker loss, no d100. The defenders' 2 losses are placed by a d7 (team
    # 1-2, the armour-6 truck 3-7: strength 6 x 20 / 24 = 5) then a die of what is left;
    # the truck's share x 0.5 x 1/2 x 24 / 6 = 1 kills it. The attackers' loss by a d4.
    # With the truck wrecked the retreat test's two d6 follow (SB Assaulting: Retreating).
    tables = _fixed_tables(
        charts,
        assault_defend_lcv=10,
        assault_defend_hcv=10,
        assault_attack_lcv=10,
        assault_attack_hcv=10,
    )
    given = {
        "attack": "2000",
        "defend": "1000",
        "defender_units": "team:2,vehicle:6",
        "attacker_units": "team:3,leader",
    }
    plain = _assault_odds(tables, given, _Plain)
    assert _assault_odds(tables, given, lambda d: d) == plain
    assert sum(plain.values()) == 1
    # Both losses on the team (d7 1-2, then d6 1-1): 2/7 x 1/6; it is destroyed, the truck
    # holds, no retreat; the attackers' loss on the leader 1 time in 4.
    held = (("team1", 0, False), ("leader2", 1, True), ("team1", 2, True), ("vehicle2", 0, False))
    assert plain[("1/2", False, False, False, held)] == F(2, 7) * F(1, 6) * F(1, 4)


def test_assault_odds_checkpoints_change_no_chance(charts: Charts) -> None:
    # Fractions to round at random every time (SB Combat Results): 1525 x 10 / 10000 =
    # 1.525 defender losses, 0.5 attacker losses, effectiveness 15.25 and 5; the
    # checkpoints after each result must give what the banded tree without them gives.
    tables = _fixed_tables(
        charts,
        assault_defend_lcv=10,
        assault_defend_hcv=10,
        assault_attack_lcv=10,
        assault_attack_hcv=10,
    )
    given = {"attack": "1525", "defend": "500"}
    unmarked = _assault_odds(tables, given, _Unmarked)
    assert _assault_odds(tables, given, lambda d: d) == unmarked
    held = {k: p for k, p in unmarked.items() if k[0] == "1/2"}
    assert sum(held.values()) == settled(F(525, 1000)) * settled(F(1, 2))


def test_quick_mode_assault_odds_are_exact(sb_game: Run) -> None:
    # SB Assault Resolution: 10 against 5 (options, no stands), the defenders' losses from
    # the defend low and high (6 and 60 at 10,000), the attackers' from 4 and 40, each by
    # its own d100s: each result a/d is the product of the two closed-form chances.
    out = as_json(
        sb_game(
            "model", "run", "squad-battles", "assault",
            "--set", "attack=10", "--set", "defend=5", "--odds", "--json",
        )
    )  # fmt: skip
    # Each outcome also says what became of the defenders; summed over that, by result.
    got: dict[str, F] = {}
    for key, p in out["outcomes"].items():
        result, _, fate = key.partition(", outcome ")
        assert fate in {"the defenders hold", "the defenders retreat", "the defenders surrender",
                        "the defenders are destroyed"}  # fmt: skip
        got[result] = got.get(result, F(0)) + F(p)
    d = distribution(F(10), F(6), F(60), F(10_000))
    a = distribution(F(5), F(4), F(40), F(10_000))
    assert got == {f"result {x}/{y}": a[x] * d[y] for x in a for y in d}
