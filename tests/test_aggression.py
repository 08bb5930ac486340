"""The aggression close-combat model (seed 003): its procedures, ``tabletop assault`` and
``tabletop model run aggression``.

Golden tests come from the seed's own examples (the Volksgrenadiers' retreat, the 50% of a
unit on AF 5, the surrender chances, the income a minefield costs); every other procedure has
a table of cases worked by hand from the chart.
"""

from __future__ import annotations

import math
import shutil
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.cli import cli
from tabletop.cli.commands.assault import expand_against
from tabletop.core.dice import Dice
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.data.chart_files import load_charts
from tabletop.data.charts import Charts
from tabletop.rules.models import find_model
from tabletop.rules.models.aggression import rules
from tabletop.rules.models.aggression.battle import _ammo_short
from tabletop.rules.models.aggression.chart import AggressionChart
from tests.conftest import Run, as_json, file_digest

SCENARIO = str(Path(__file__).parent / "data" / "aggression.yaml")


@pytest.fixture(scope="module")
def chart(charts: Charts) -> AggressionChart:
    return AggressionChart.of(charts)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("aggression")
    result = CliRunner().invoke(
        cli, ["new", SCENARIO, "--seed", "1", "--game", str(folder / "game.sqlite")]
    )
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture
def agg(run: Run, template: Path) -> Run:
    """A new game on the close-combat ground (seed 1), turn 1 (a copy of one made once)."""
    game = Path(run.game)  # type: ignore[attr-defined]
    for path in template.iterdir():
        shutil.copy(path, game.with_name(path.name.replace("game.sqlite", game.name)))
    return run


def dice(*values: int) -> Dice:
    return Dice(0, physical=list(values))


def assault(run: Run, *args: str, code: int = 0) -> Any:
    result = run("assault", *args, "--json", code=code)
    return as_json(result) if code == 0 else result


def error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1, output
    return lines[0].removeprefix("Error: ")


def stand(run: Run, sid: str) -> dict[str, Any]:
    """The stand's row in the game file, with its model record (``show`` leaves it out)."""
    import json
    import sqlite3

    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        (value,) = conn.execute(
            "SELECT value FROM state WHERE key = ?", (f"stand:{sid}",)
        ).fetchone()
    finally:
        conn.close()
    found: dict[str, Any] = json.loads(value)
    return found


# --- golden: the seed's examples -----------------------------------------------------------


def test_volksgrenadiers_retreat_direction_on_the_hex_map(chart: AggressionChart) -> None:
    # AGG Retreat example: set direction 1 (north); enemies came in from 1 and 2, enemy tanks
    # sit in 3: the first allowed direction is 4 (south), at 4 - 1 = 3 steps, 30 casualties.
    blocked = {1, 2, 3}
    choice = rules.choose_direction(
        chart, lambda k: ["blocked"] if rules.hex_direction(1, k) in blocked else []
    )
    assert choice.offset is not None
    assert rules.hex_direction(1, choice.offset) == 4
    assert (choice.steps, choice.loss) == (3, 30)


def test_volksgrenadiers_through_model_run(run: Run) -> None:
    result = as_json(
        run(
            "model", "run", "aggression", "retreat-direction",
            "--set", "direction=1", "--set", "blocked=1,2,3", "--json",
        )
    )  # fmt: skip
    assert (result["direction"], result["steps"], result["casualties"]) == (4, 3, 30)
    assert result["verdict"] == "Retreats in direction 4 with 30 extra casualties"


def test_volksgrenadiers_on_the_table(agg: Run) -> None:
    # The same example laid out on the table: VG's retreat bearing is north (0); US-A touches
    # it from the north and US-B from the north-east (bearing 60); the tank platoon US-TK
    # sits 3" to the south-east (bearing 120). Every die misses; US-A and US-B stand (99);
    # VG fails its 50% test (1) and falls back south with 30 extra casualties.
    r = assault(
        agg, "US-A", "US-B", "--against", "VG", "--rounds", "1", "--set", "retreat.VG=0",
        "--dice", "99,99,99,99,99,1",
    )  # fmt: skip
    assert r["retreat_chance"] == {"US-A": [50], "US-B": [50], "VG": [50]}
    assert r["rounds"] == 1
    assert r["surrendered"] == []
    [retreat] = r["retreated"]
    assert retreat["stand"] == "VG"
    assert (retreat["set_bearing"], retreat["bearing"], retreat["steps"]) == (0, 180, 3)
    assert retreat["loss"] == 30
    assert retreat["to"] == [24.0, 14.0]
    reasons = {t["bearing"]: " ".join(t["reasons"]) for t in retreat["tried"]}
    assert reasons[0] == "toward US-A (bearing 0), the enemy it fights"
    assert reasons[60] == "toward US-B (bearing 60), the enemy it fights"
    assert reasons[120] == "into enemy US-TK"
    assert reasons[180] == ""
    assert r["strength"]["VG"] == 90
    assert r["victor"] == "USA"
    # 30 casualties' equipment is 3 units; the victor takes half, in whole units.
    assert r["spoils"] == {
        "casualties": 30, "surplus": 0, "discarded": 3.0, "captured": 1, "to": "US-A"
    }  # fmt: skip
    vg = stand(agg, "VG")
    assert (vg["x"], vg["y"]) == (24.0, 14.0)
    # AGG Aggression factors: a unit that retreated goes to AF 1.
    assert vg["models"]["aggression"]["af"] == 1
    assert vg["models"]["aggression"]["strength"] == 90


def test_af_5_regular_has_the_seeds_50_percent(chart: AggressionChart) -> None:
    # AGG Retreat chance: "110 - 10 x AF" and "AF 5 has a 50% base chance" agree for regulars.
    chance = rules.retreat_chance(chart, rules.RetreatTest(5, "regular", 100))
    assert chance.chance == 50


@pytest.mark.parametrize(
    ("training", "chance"),
    [
        ("recruit", 90),
        ("regular", 75),
        ("elite", 50),
        ("security-police", 20),
        ("presidential-guard", 10),
    ],
)
def test_surrender_chances_by_training(chart: AggressionChart, training: str, chance: int) -> None:
    assert rules.surrender_chance(chart, training, 5, moving=False).chance == chance


def test_one_minefield_costs_an_income_of_50_a_twentieth(chart: AggressionChart) -> None:
    # AGG Mines: an income of 50 loses 0.05 for a single minefield laid.
    assert rules.mine_income_loss(chart, 1, 50) == pytest.approx(0.05)


# --- aggression factors --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("af", "moving", "retreated", "ammo_short", "expected", "meaning"),
    [
        (5, False, False, False, 5, "garrison"),
        (5, True, False, False, 5, "reconnaissance in force"),
        (9, True, False, False, 9, "full-scale assault"),
        (10, False, False, False, 10, "no surrender"),
        (8, False, True, False, 1, "hide"),
        (8, True, False, True, 1, "flee any contact"),
        (3, False, False, False, 3, "observation post"),
    ],
)
def test_effective_factor(
    chart: AggressionChart,
    af: int,
    moving: bool,
    retreated: bool,
    ammo_short: bool,
    expected: int,
    meaning: str,
) -> None:
    now = rules.effective_factor(
        chart, af, moving=moving, retreated=retreated, ammo_short=ammo_short
    )
    assert (now.af, now.meaning) == (expected, meaning)


@pytest.mark.parametrize("af", [0, 11, 5.5, True, "5"])
def test_factor_must_be_1_to_10(chart: AggressionChart, af: Any) -> None:
    with pytest.raises(BadInput):
        rules.effective_factor(chart, af, moving=False)


@pytest.mark.parametrize(
    ("ammo", "turn", "short"),
    [
        ({}, 2, False),
        ({"rifle": {"state": "ok", "depleted_turn": None}}, 2, False),
        ({"rifle": {"state": "depleted", "depleted_turn": 2}}, 2, False),  # resupply still due
        ({"rifle": {"state": "depleted", "depleted_turn": 1}}, 2, True),  # missed a resupply
        ({"ft": {"state": "ok", "depleted_turn": None, "uses_left": 0}}, 3, False),  # spent
        ({"rk": {"state": "depleted", "depleted_turn": 1, "resupplies_left": 0}}, 3, False),
        (
            {
                "a": {"state": "ok", "depleted_turn": None},
                "b": {"state": "depleted", "depleted_turn": 1},
            },
            2,
            True,
        ),
    ],
)
def test_ammunition_not_resupplied(ammo: dict[str, Any], turn: int, short: bool) -> None:
    assert _ammo_short({"ammo": ammo}, turn) is short


# --- retreat chance ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("af", "training", "strength", "casualties", "retreated", "joined", "chance"),
    [
        (5, "regular", 100, 0, 0, 0, 50),
        (5, "recruit", 100, 0, 0, 0, 60),
        (1, "elite", 100, 0, 0, 0, 100),  # AF 1 always retreats
        (10, "regular", 100, 0, 0, 0, 0),  # 110 - 100 - 10
        (10, "recruit", 100, 0, 0, 0, 10),
        (5, "regular", 100, 3, 0, 0, 51),  # 3% -> one full 2%
        (5, "regular", 100, 4, 0, 0, 52),
        (5, "regular", 50, 1, 0, 0, 51),  # 2% of the round's start
        (5, "regular", 3, 1, 0, 0, 66),  # 33.3% -> 16
        (9, "elite", 40, 0, 2, 0, 10),  # 20 - 20 + 2 x 5
        (6, "regular", 100, 0, 0, 3, 25),  # 40 - 3 x 5
        (2, "recruit", 10, 10, 0, 0, 100),  # 90 + 50 held to 100
        (10, "presidential-guard", 100, 0, 0, 0, 0),  # -30 held to 0
        (7, "security-police", 40, 20, 1, 1, 35),  # 40 - 30 + 25 + 5 - 5
    ],
)
def test_retreat_chance(
    chart: AggressionChart,
    af: int,
    training: str,
    strength: int,
    casualties: int,
    retreated: int,
    joined: int,
    chance: int,
) -> None:
    test = rules.RetreatTest(af, training, strength, casualties, retreated, joined)
    assert rules.retreat_chance(chart, test).chance == chance


@given(
    af=st.integers(1, 10),
    training=st.sampled_from(["recruit", "regular", "elite", "security-police"]),
    strength=st.integers(1, 500),
    lost=st.integers(0, 500),
    retreated=st.integers(0, 10),
    joined=st.integers(0, 10),
)
@settings(max_examples=200, deadline=None)
def test_retreat_chance_is_a_percentage_and_grows_with_casualties(
    charts: Charts,
    af: int,
    training: str,
    strength: int,
    lost: int,
    retreated: int,
    joined: int,
) -> None:
    chart = AggressionChart.of(charts)

    def chance(casualties: int, factor: int = af) -> int:
        test = rules.RetreatTest(factor, training, strength, casualties, retreated, joined)
        return rules.retreat_chance(chart, test).chance

    assert 0 <= chance(lost) <= 100
    assert chance(lost) <= chance(lost + 1)
    if af < 10:
        assert chance(lost, af + 1) <= chance(lost, af)


def test_retreat_test_needs_no_die_when_certain() -> None:
    d = dice()
    assert rules.percent_test(d, 100, "certain") == (True, None)
    assert rules.percent_test(d, 0, "never") == (False, None)
    assert d.rolls == []
    assert rules.percent_test(dice(50), 50, "at") == (True, 50)
    assert rules.percent_test(dice(51), 50, "over") == (False, 51)


@pytest.mark.parametrize(
    ("damage", "order"),
    [
        ({"A": {"a1": 0, "a2": 0}, "B": {"b1": 0}}, [("A", ["a1", "a2"]), ("B", ["b1"])]),
        ({"A": {"a1": 5, "a2": 20}, "B": {"b1": 30}}, [("B", ["b1"]), ("A", ["a2", "a1"])]),
        ({"A": {"a1": 10, "a2": 10}, "B": {"b1": 19}}, [("A", ["a1", "a2"]), ("B", ["b1"])]),
        ({"A": {}, "B": {"b1": 1}}, [("B", ["b1"]), ("A", [])]),
    ],
)
def test_retreats_are_checked_in_order_of_damage(
    damage: dict[str, dict[str, int]], order: list[tuple[str, list[str]]]
) -> None:
    assert rules.check_order(damage) == order


# --- retreat directions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "order"),
    [
        ("clockwise", [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]),
        ("nearest", [(0, 0), (1, 1), (-1, 1), (2, 2), (-2, 2), (3, 3)]),
    ],
)
def test_search_order(mode: str, order: list[tuple[int, int]]) -> None:
    assert rules.search_order(6, mode) == order


@pytest.mark.parametrize(
    ("first", "blocked", "direction", "loss"),
    [
        (1, set(), 1, 0),
        (1, {1}, 2, 10),
        (6, {6}, 1, 10),  # round past 6
        (4, {4, 5}, 6, 20),
        (1, {1, 2, 3, 4, 5}, 6, 50),
        (3, {1, 2, 3, 4, 5, 6}, None, 0),  # nowhere: surrender or fight on
    ],
)
def test_retreat_direction_on_the_hex_map(
    chart: AggressionChart, first: int, blocked: set[int], direction: int | None, loss: int
) -> None:
    choice = rules.choose_direction(
        chart, lambda k: ["blocked"] if rules.hex_direction(first, k) in blocked else []
    )
    got = None if choice.offset is None else rules.hex_direction(first, choice.offset)
    assert (got, choice.loss) == (direction, loss)


@given(first=st.integers(1, 6), blocked=st.sets(st.integers(1, 6)))
def test_retreat_direction_invariants(charts: Charts, first: int, blocked: set[int]) -> None:
    chart = AggressionChart.of(charts)
    choice = rules.choose_direction(
        chart, lambda k: ["blocked"] if rules.hex_direction(first, k) in blocked else []
    )
    if choice.offset is None:
        assert blocked == {1, 2, 3, 4, 5, 6}
    else:
        assert rules.hex_direction(first, choice.offset) not in blocked
        assert choice.loss == 10 * choice.steps == 10 * choice.offset


# --- surrender and pursuit -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("af", "moving", "chance"),
    [(10, False, 0), (10, True, 75), (9, False, 75), (1, False, 75)],
)
def test_no_surrender_on_af_10_stationary(
    chart: AggressionChart, af: int, moving: bool, chance: int
) -> None:
    assert rules.surrender_chance(chart, "regular", af, moving).chance == chance


@pytest.mark.parametrize(
    ("af", "moving", "choice", "admin", "pursues"),
    [
        (1, False, True, False, False),
        (4, False, True, False, False),  # 4 or less never
        (7, False, None, False, True),  # static on 7: always
        (7, False, False, False, True),
        (7, True, None, False, False),  # moving on 7: the choice (default no)
        (7, True, True, False, True),
        (5, False, None, False, False),
        (5, False, True, False, True),
        (10, True, True, False, True),
        (9, False, True, True, False),  # administrative movers never pursue
    ],
)
def test_pursuit(
    chart: AggressionChart,
    af: int,
    moving: bool,
    choice: bool | None,
    admin: bool,
    pursues: bool,
) -> None:
    assert rules.pursues(chart, af, moving=moving, choice=choice, admin=admin)[0] is pursues


@pytest.mark.parametrize(
    ("af", "moving", "admin", "wanted"),
    [
        (4, False, False, True),
        (2, True, False, True),
        (7, False, False, False),
        (8, False, True, True),
    ],
)
def test_pursuit_orders_the_rules_override_are_refused(
    chart: AggressionChart, af: int, moving: bool, admin: bool, wanted: bool
) -> None:
    with pytest.raises(RulesRefusal):
        rules.check_pursuit_order(chart, "X", af, moving=moving, admin=admin, wanted=wanted)


# --- captured equipment --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("casualties", "surplus", "victors", "captured", "dump"),
    [
        (30, 0, 1, 1, False),  # 3 units, half is 1.5: whole units only
        (40, 0, 1, 2, False),
        (0, 3, 1, 1, False),
        (25, 2, 1, 2, False),  # 2.5 + 2 = 4.5 -> 2
        (9, 0, 1, 0, False),
        (0, 0, 1, 0, False),
        (100, 0, 2, 5, True),  # allies both left: into a dump
    ],
)
def test_spoils(
    chart: AggressionChart, casualties: int, surplus: int, victors: int, captured: int, dump: bool
) -> None:
    found = rules.spoils(chart, casualties, surplus, victors)
    assert (found.captured, found.dump) == (captured, dump)


# --- target priority -----------------------------------------------------------------------

INF1 = rules.Enemy("inf1", "infantry")
INF2 = rules.Enemy("inf2", "infantry")
TANK = rules.Enemy("tank", "armour")
APC = rules.Enemy("apc", "mechanised")
GUNS = rules.Enemy("guns", "artillery")
LDR = rules.Enemy("ldr", "leader", leader=True)


@pytest.mark.parametrize(
    ("firer", "enemies", "engaged", "selected", "rolls", "target", "stage"),
    [
        ("infantry", [INF1, TANK], {}, ["armour"], [], "tank", "selected"),
        ("infantry", [INF1, TANK], {}, ["artillery", "armour"], [], "tank", "selected"),
        ("infantry", [INF1, TANK], {}, ["tank"], [], "tank", "selected"),  # a stand id
        ("infantry", [INF1, TANK], {}, ["naval"], [], "inf1", "type"),  # priority absent
        ("infantry", [INF1, INF2], {"inf1": 1}, [], [], "inf2", "type"),  # one for one
        ("infantry", [INF1, INF2], {"inf1": 1, "inf2": 1}, [], [], "inf1", "type"),
        ("anti-tank", [INF1, TANK, APC], {}, [], [], "apc", "type"),  # APCs first
        ("anti-tank", [INF1, TANK], {}, [], [], "tank", "type"),
        ("anti-tank", [INF1, GUNS], {}, [], [], "inf1", "type"),
        ("armour", [INF1, GUNS], {}, [], [2], "guns", "random"),
        ("armour", [INF1, LDR], {}, [], [], "inf1", "random"),  # leaders last
        ("armour", [LDR], {}, [], [], "ldr", "leader"),
        ("infantry", [LDR, INF1], {}, ["leader"], [], "inf1", "type"),  # never selected
    ],
)
def test_target_priority(
    chart: AggressionChart,
    firer: str,
    enemies: list[rules.Enemy],
    engaged: dict[str, int],
    selected: list[str],
    rolls: list[int],
    target: str,
    stage: str,
) -> None:
    d = dice(*rolls)
    choice = rules.choose_target(chart, firer, enemies, engaged, selected, d, "F")
    d.finish()
    assert choice.target is not None
    assert (choice.target.id, choice.stage) == (target, stage)


def test_harassment_fire_picks_at_random_leaders_included(chart: AggressionChart) -> None:
    choice = rules.choose_target(
        chart, "artillery", [INF1, LDR], {}, [], dice(2), "H", harassment=True
    )
    assert (choice.target, choice.stage, choice.roll) == (LDR, "harassment", 2)


# --- the fire of a round (charted default procedure) ---------------------------------------


@pytest.mark.parametrize(
    ("firer", "target", "chance"),
    [
        ("rifle-platoon", "infantry-company", 50),
        ("rifle-platoon", "tank-platoon", 2),  # next to no chance against armour
        ("infantry-platoon", "apc-platoon", 10),  # a small chance
        ("at-platoon", "tank-platoon", 40),
        ("leader", "rifle-platoon", 0),
    ],
)
def test_hit_chance(chart: AggressionChart, firer: str, target: str, chance: int) -> None:
    assert rules.hit_chance(chart, chart.profile(firer), chart.profile(target)) == chance


@pytest.mark.parametrize(
    ("firer", "situation", "damage"),
    [
        ("rifle-platoon", rules.ShotSituation(40), 10),
        ("rifle-platoon", rules.ShotSituation(20), 5),
        ("rifle-platoon", rules.ShotSituation(15), 4),  # 3.75
        ("rifle-platoon", rules.ShotSituation(40, works="dug-in"), 8),  # 7.5 rounds up
        ("rifle-platoon", rules.ShotSituation(40, works="entrenched"), 5),
        ("rifle-platoon", rules.ShotSituation(40, works="fortified"), 3),  # 2.5
        ("rifle-platoon", rules.ShotSituation(40, works="fortified", fits=False), 10),
        ("rifle-platoon", rules.ShotSituation(40, admin_target=True), 15),
        ("rifle-platoon", rules.ShotSituation(40, admin_firer=True), 5),
        ("rifle-platoon", rules.ShotSituation(40, admin_target=True, admin_firer=True), 8),
        ("rifle-platoon", rules.ShotSituation(1), 1),  # a hit does at least 1
        ("rifle-platoon", rules.ShotSituation(0), 0),
        ("tank-platoon", rules.ShotSituation(50), 30),
        ("leader", rules.ShotSituation(1), 0),
    ],
)
def test_shot_damage(
    chart: AggressionChart, firer: str, situation: rules.ShotSituation, damage: int
) -> None:
    assert rules.shot_damage(chart, chart.profile(firer), situation)[0] == damage


@pytest.mark.parametrize(("roll", "hit", "damage"), [(50, True, 10), (51, False, 0), (1, True, 10)])
def test_fire_shot(chart: AggressionChart, roll: int, hit: bool, damage: int) -> None:
    rifle, company = chart.profile("rifle-platoon"), chart.profile("infantry-company")
    shot = rules.fire_shot(chart, rifle, company, rules.ShotSituation(40), dice(roll), "t")
    assert (shot.hit, shot.damage) == (hit, damage)


@pytest.mark.parametrize(("damage", "killed"), [(59, False), (60, True), (61, True)])
def test_a_hit_of_60_kills_a_leader(chart: AggressionChart, damage: int, killed: bool) -> None:
    assert rules.leader_killed(chart, damage) is killed


# --- administrative movement and ambush ----------------------------------------------------


@pytest.mark.parametrize(
    ("round_no", "units", "allowed"), [(1, 3, 1), (2, 3, 2), (3, 3, 3), (5, 3, 3), (1, 0, 0)]
)
def test_admin_firers(chart: AggressionChart, round_no: int, units: int, allowed: int) -> None:
    assert rules.admin_firers_allowed(chart, round_no, units) == allowed


@pytest.mark.parametrize(
    ("by_type", "enemy", "af"),
    [
        ("armour:3/infantry:8", "armour", 3),
        ("armour:3/infantry:8", "infantry", 8),
        ("", "armour", 6),
    ],
)
def test_ambush_factor_by_enemy_type(
    chart: AggressionChart, by_type: str, enemy: str, af: int
) -> None:
    found = rules.ambush(
        chart,
        stationary=True,
        enemy_type=enemy,
        af_by_type=rules.parse_af_by_type(by_type),
        default_af=6,
        admin_victim=False,
        on_route=False,
    )
    assert (found.af, found.free_shots) == (af, 1)


@pytest.mark.parametrize(
    ("stationary", "admin", "on_route"), [(False, False, True), (True, True, False)]
)
def test_ambush_refusals(
    chart: AggressionChart, stationary: bool, admin: bool, on_route: bool
) -> None:
    with pytest.raises(RulesRefusal):
        rules.ambush(
            chart,
            stationary=stationary,
            enemy_type="infantry",
            af_by_type={},
            default_af=5,
            admin_victim=admin,
            on_route=on_route,
        )


@pytest.mark.parametrize("text", ["armour=3", "armour:x", "armour:11"])
def test_ambush_factor_text_must_be_type_af_pairs(text: str) -> None:
    with pytest.raises(BadInput):
        rules.parse_af_by_type(text)


# --- minefields ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mine", "unit", "friendly", "searching", "attacked"),
    [
        ("AT", "tank-platoon", False, False, True),
        ("AT", "apc-platoon", False, False, True),  # mechanised infantry
        ("AT", "sp-battery", False, False, True),  # self-propelled artillery
        ("AT", "sp-aa", False, False, True),
        ("AT", "rifle-platoon", False, False, False),
        ("AP", "rifle-platoon", False, False, True),
        ("AP", "towed-battery", False, False, True),
        ("AP", "towed-aa", False, False, True),
        ("AP", "tank-platoon", False, False, False),
        ("AP", "sp-battery", False, False, False),
        ("AP", "leader", False, False, False),
        ("AT", "tank-platoon", True, False, False),  # own or allied field
        ("AP", "rifle-platoon", False, True, False),  # searching the area
    ],
)
def test_which_units_a_minefield_attacks(
    chart: AggressionChart, mine: str, unit: str, friendly: bool, searching: bool, attacked: bool
) -> None:
    profile = chart.profile(unit)
    got = rules.mine_attacks(
        chart, mine, profile.type, profile.armoured, friendly=friendly, searching=searching
    )
    assert got[0] is attacked


@pytest.mark.parametrize(
    ("owner_before", "types_before", "owner", "kind", "result", "types"),
    [
        (None, [], "red", "AT", "laid", ["AT"]),
        ("red", ["AT"], "red", "AP", "added", ["AP", "AT"]),  # both kinds, one player
        ("red", ["AT", "AP"], "blue", "AP", "replaced", ["AP"]),  # one owner per area
    ],
)
def test_laying_mines(
    owner_before: str | None,
    types_before: list[str],
    owner: str,
    kind: str,
    result: str,
    types: list[str],
) -> None:
    laid = rules.lay_mines(owner_before, types_before, owner, kind)
    assert (laid.result, laid.owner, laid.types) == (result, owner, types)


@pytest.mark.parametrize(
    ("in_combat", "searching", "engineer", "rolls", "cleared"),
    [
        (True, False, "regular", [30], True),  # 30% a round
        (True, False, "regular", [31], False),
        (True, False, "elite", [1], True),
        (True, False, "none", [], False),
        (False, True, "none", [], True),  # a search order finds them
        (False, False, "elite", [], True),  # elite engineers search by themselves
        (False, False, "regular", [], False),
    ],
)
def test_clearing_mines(
    chart: AggressionChart,
    in_combat: bool,
    searching: bool,
    engineer: str,
    rolls: list[int],
    cleared: bool,
) -> None:
    d = dice(*rolls)
    got = rules.clear_mines(
        chart, in_combat=in_combat, searching=searching, engineer=engineer, dice=d
    )
    d.finish()
    assert got[0] is cleared


def test_normal_units_cannot_search_for_mines_in_combat(chart: AggressionChart) -> None:
    with pytest.raises(RulesRefusal, match="in combat"):
        rules.clear_mines(chart, in_combat=True, searching=True, engineer="none", dice=dice())


@pytest.mark.parametrize(("mines", "income", "loss"), [(0, 50, 0), (1, 50, 0.05), (10, 200, 2.0)])
def test_mine_income_loss(chart: AggressionChart, mines: int, income: float, loss: float) -> None:
    assert rules.mine_income_loss(chart, mines, income) == pytest.approx(loss)


# --- digging in ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("works", "size", "kwargs", "after", "new_size", "result"),
    [
        (None, 0, {}, "dug-in", 0, "dug-in"),
        ("none", 0, {"in_combat": True}, "dug-in", 0, "dug-in"),  # effective at turn end
        ("dug-in", 0, {}, "entrenched", 0, "entrenched"),
        ("dug-in", 0, {"attacked": True}, "dug-in", 0, "failed"),
        ("entrenched", 0, {}, "fortified", 2, "fortified"),  # starts at size 2
        ("entrenched", 0, {"orders": 3}, "fortified", 4, "fortified"),  # all add to it
        ("fortified", 2, {}, "fortified", 3, "fortified"),
        ("fortified", 3, {"orders": 2}, "fortified", 5, "fortified"),
    ],
)
def test_digging_in(
    chart: AggressionChart,
    works: str | None,
    size: int,
    kwargs: dict[str, Any],
    after: str,
    new_size: int,
    result: str,
) -> None:
    dug = rules.dig_in(chart, works, size, **kwargs)
    assert (dug.works, dug.size, dug.result) == (after, new_size, result)


@pytest.mark.parametrize(
    ("works", "kwargs"),
    [
        ("dug-in", {"in_combat": True}),  # no entrenching in combat
        ("entrenched", {"enemy_present": True}),
        ("fortified", {"in_combat": True}),
    ],
)
def test_digging_refusals(chart: AggressionChart, works: str, kwargs: dict[str, Any]) -> None:
    with pytest.raises(RulesRefusal):
        rules.dig_in(chart, works, 2, **kwargs)


@pytest.mark.parametrize(
    ("size", "men", "vehicles", "capacity", "fits"),
    [
        (2, 200, 0, 200, True),
        (2, 201, 0, 200, False),  # a unit is in whole or not at all
        (2, 150, 5, 200, True),  # a vehicle counts 10 men
        (1, 0, 11, 100, False),
        (0, 1, 0, 0, False),
    ],
)
def test_fortification_room(
    chart: AggressionChart, size: int, men: int, vehicles: int, capacity: int, fits: bool
) -> None:
    room = rules.fort_room(chart, size, men, vehicles)
    assert (room.capacity, room.fits) == (capacity, fits)


# --- the chart -----------------------------------------------------------------------------


def test_the_chart(chart: AggressionChart) -> None:
    assert chart.scale.inches_per_hex > 0
    assert sorted(f.af for f in chart.tables["factors"].values()) == list(range(1, 11))
    for profile in chart.profiles.values():
        chart.fire_class(profile.fire)
        if profile.training:
            chart.training(profile.training)
    for table in chart.tables.values():
        for entry in table.values():
            assert entry.rule.startswith("AGG"), entry.id


def test_a_broken_chart_is_reported_whole(charts: Charts) -> None:
    import copy

    from tabletop.core.errors import ChartError

    raw = copy.deepcopy(charts.raw)
    entries = raw["models/aggression"]
    entries[:] = [e for e in entries if e["id"] != "loss-per-step"]
    next(e for e in entries if e["id"] == "rifle-platoon")["fire"] = "muskets"
    with pytest.raises(ChartError) as caught:
        AggressionChart.of(Charts(raw))
    assert caught.value.problems == [
        "models/aggression.yaml: table 'params' needs an entry 'loss-per-step'",
        "models/aggression.yaml: profile 'rifle-platoon': fire 'muskets' has no entry "
        "'fire-muskets' in table 'fire'",
    ]


@pytest.mark.parametrize(("af", "message"), [(0, "0 is too small"), (11, "11 is too large")])
def test_the_scenario_factor_is_1_to_10(af: int, message: str) -> None:
    from tabletop.core.errors import ScenarioError
    from tabletop.data.scenario_loader import parse_scenario

    text = Path(SCENARIO).read_text().replace("aggression: 8,", f"aggression: {af},")
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "aggression.yaml")
    assert caught.value.problems[0].startswith(
        f"aggression.yaml:22: sides[0].stands[3].aggression: {message}"
    )


def test_every_cd_quality_reads_as_a_training_level(charts: Charts, chart: AggressionChart) -> None:
    levels = {q: chart.training_for_quality(q) for q in charts.quality}
    assert levels == {
        "green": "recruit",
        "trained": "recruit",
        "regular": "regular",
        "experienced": "regular",
        "veteran": "elite",
        "elite": "elite",
    }


def test_the_model_has_no_ranged_fire(charts: Charts) -> None:
    model = find_model("aggression", charts)
    assert model.unit_name == "hex"
    assert model.inches_per_unit == 4
    assert "rifle-platoon" in model.profiles()
    with pytest.raises(BadInput, match="tabletop assault"):
        model.fire(None, dice())  # type: ignore[arg-type]


def test_fire_and_odds_with_the_model_say_to_use_assault(run: Run) -> None:
    for command in (["fire"], ["odds", "fire"]):
        result = run(
            *command, "--model", "aggression", "--shooter", "rifle-platoon",
            "--target", "tank-platoon", "--range", "1", code=2,
        )  # fmt: skip
        assert (
            error_line(result.output)
            == {
                "fire": "the aggression model has no ranged fire: it resolves close combat between "
                "stands in contact with 'tabletop assault ATTACKER... --against DEFENDER...'",
                "odds": "the aggression model has no ranged fire to give odds for; its retreat "
                "chances are in 'tabletop model run aggression retreat-test'",
            }[command[0]]
        )


# --- the assault command -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expanded"),
    [
        (["A", "--against", "B", "C"], ["A", "--against", "B", "--against", "C"]),
        (["A", "--against=B", "C", "--json"], ["A", "--against", "B", "--against", "C", "--json"]),
        (["--against", "B", "--rounds", "2", "A"], ["--against", "B", "--rounds", "2", "A"]),
        (["A", "--against"], ["A"]),
    ],
)
def test_against_takes_the_words_after_it(args: list[str], expanded: list[str]) -> None:
    assert expand_against(args) == expanded


def test_assault_json_contract(agg: Run) -> None:
    r = assault(agg, "US-2", "--against", "G-2")
    for key in ("retreat_chance", "retreated", "surrendered", "rounds", "verdict", "combat"):
        assert key in r
    assert r["rounds"] == len(r["combat"]) >= 1
    assert all(len(v) <= r["rounds"] for v in r["retreat_chance"].values())
    assert r["event"] == 2
    assert all(roll["die"] == 100 for roll in r["rolls"])


def test_assault_text_output(agg: Run) -> None:
    out = agg(
        "assault", "US-2", "--against", "G-2", "--rounds", "1", "--dice", "99,99,99,99"
    ).output
    assert out.splitlines()[0] == "Still fighting after 1 round"
    assert out.splitlines()[4] == (
        "    US-2 fires at G-2 (type target): 50% to hit: rifles fire against "
        "unarmoured targets (default); rolled 99: miss"
    )
    assert out.splitlines()[7] == (
        "    G-2 retreat chance 50% (base 110 - 10 x AF 5 = 60% (AGG Retreat chance); "
        "-10% regular training; +0% casualties: 0 of 40 at the start of the round = "
        "0%, 1% per full 2%): rolled 99, stands"
    )
    assert out.splitlines()[8] == (
        "  dice: 99* (round 1 US-2 fires at G-2), 99* (round 1 G-2 fires at US-2), 99* "
        "(round 1 retreat test US-2 (<= 50)), 99* (round 1 retreat test G-2 (<= 50))"
    )


def test_casualties_decide_who_is_checked_first(agg: Run) -> None:
    # US-2 hits G-2 (1): 10 of 40 lost, so Germany is checked first: 50 + 12 = 62%.
    r = assault(agg, "US-2", "--against", "G-2", "--rounds", "1", "--dice", "1,99,99,99")
    assert [t["stand"] for t in r["combat"][0]["tests"]] == ["G-2", "US-2"]
    assert r["retreat_chance"] == {"G-2": [62], "US-2": [50]}
    assert r["strength"] == {"US-2": 40, "G-2": 30}
    assert r["verdict"] == "Still fighting after 1 round"


def test_friends_who_retreated_or_joined_change_the_chance(agg: Run) -> None:
    # US-B joined (-5% for US-A); US-A fails (1) and is gone: +5% for US-B, which does not
    # count its own joining.
    r = assault(
        agg, "US-A", "US-B", "--against", "VG", "--rounds", "1", "--set", "joined=US-B",
        "--dice", "99,99,99,1,99,99",
    )  # fmt: skip
    assert r["retreat_chance"] == {"US-A": [45], "US-B": [55], "VG": [50]}
    assert [x["stand"] for x in r["retreated"]] == ["US-A"]


def test_a_stand_with_nowhere_to_go_surrenders(agg: Run) -> None:
    # G-3 is in the south-west corner, US-3 north and US-4 east of it. On AF 1 it always
    # retreats (no die), finds no bearing and surrenders on 44 (recruits: 90%).
    r = assault(
        agg, "US-3", "US-4", "--against", "G-3", "--set", "af.G-3=1", "--set", "retreat.G-3=0",
        "--dice", "99,99,99,99,99,44",
    )  # fmt: skip
    assert r["retreat_chance"]["G-3"] == [100]
    assert r["surrendered"] == ["G-3"]
    assert r["retreated"] == []
    assert r["victor"] == "USA"
    g3 = stand(agg, "G-3")
    assert g3["status"] == "eliminated"
    assert "surrendered" in g3["markers"]


def test_a_stand_that_will_not_surrender_fights_on(agg: Run) -> None:
    r = assault(
        agg, "US-3", "US-4", "--against", "G-3", "--rounds", "1", "--set", "af.G-3=1",
        "--dice", "99,99,99,99,99,91",
    )  # fmt: skip
    assert r["surrendered"] == [] and r["retreated"] == []
    assert r["victor"] is None
    assert stand(agg, "G-3")["status"] == "ok"


def test_pursuit_pushes_the_retreat_a_further_hex(agg: Run) -> None:
    # G-2 fails (1) and falls back south; US-2 fired at it and pursues: G-2 goes 2 hexes (8"),
    # US-2 follows one hex (4").
    r = assault(
        agg, "US-2", "--against", "G-2", "--set", "pursue.US-2=true", "--dice", "99,99,99,1"
    )
    [retreat] = r["retreated"]
    assert retreat["pursued_by"] == ["US-2"]
    assert retreat["to"] == [10.0, 2.0]
    us2 = stand(agg, "US-2")
    assert (us2["x"], us2["y"]) == (10.0, 6.8)
    assert r["victor"] == "USA"


def test_a_stationary_stand_on_af_7_pursues_by_itself(agg: Run) -> None:
    r = assault(agg, "US-2", "--against", "G-2", "--set", "af.US-2=7", "--dice", "99,99,99,1")
    assert r["retreated"][0]["pursued_by"] == ["US-2"]
    assert r["retreat_chance"]["US-2"] == [30]


def test_works_protect_and_stay_until_the_stand_moves(agg: Run) -> None:
    r = assault(
        agg, "US-2", "--against", "G-2", "--rounds", "1", "--set", "works.G-2=entrenched",
        "--dice", "1,99,99,99",
    )  # fmt: skip
    assert r["strength"]["G-2"] == 35  # 10 x 0.5
    agg("phase", "next")  # a stand starts one assault a phase (AGG Combat, default)
    r = assault(agg, "US-2", "--against", "G-2", "--rounds", "1", "--dice", "1,99,99,99")
    assert r["strength"]["G-2"] == 30  # still entrenched
    assert stand(agg, "G-2")["models"]["aggression"]["works"]["kind"] == "entrenched"


def test_ambush_fires_a_free_shot_first(agg: Run) -> None:
    r = assault(
        agg, "US-COL", "--against", "G-AMB", "--rounds", "1", "--set", "ambush=G-AMB",
        "--set", "admin=US-COL", "--dice", "1,99,99,99,99",
    )  # fmt: skip
    shots = r["combat"][0]["shots"]
    assert [(s["shooter"], s["free"]) for s in shots] == [
        ("G-AMB", True), ("US-COL", False), ("G-AMB", False)
    ]  # fmt: skip
    # 12 firepower x 1.5 against a column moving administratively.
    assert shots[0]["damage"] == 18
    assert r["strength"]["US-COL"] == 22


def test_leader_left_alone_retreats(agg: Run) -> None:
    r = assault(agg, "US-5", "--against", "G-LDR", "--dice", "99")
    assert [x["stand"] for x in r["retreated"]] == ["G-LDR"]
    assert r["victor"] == "USA"


def test_disengage_keeps_the_factor(agg: Run) -> None:
    r = assault(
        agg, "US-2", "--against", "G-2", "--set", "disengage=G-2", "--set", "af.G-2=8",
        "--dice", "99,99,99,99",
    )  # fmt: skip
    assert r["retreated"] == []
    assert [x["stand"] for x in r["disengaged"]] == ["G-2"]
    assert stand(agg, "G-2")["models"]["aggression"]["af"] == 8


def test_the_scenario_factor_is_the_starting_one(agg: Run) -> None:
    r = assault(agg, "US-COL", "--against", "G-AMB", "--rounds", "1", "--dice", "99,99,99,99")
    assert r["factors"]["G-AMB"]["af"] == 8
    assert r["factors"]["US-COL"]["af"] == 5


def test_retreat_order_refused_once_fighting_or_moving(agg: Run) -> None:
    assault(agg, "US-2", "--against", "G-2", "--rounds", "1", "--dice", "99,99,99,99")
    result = assault(agg, "US-2", "--against", "G-2", "--set", "retreat.G-2=90", code=3)
    assert error_line(result.output) == (
        "G-2 is already fighting this turn: its retreat direction cannot be changed "
        "with the enemy present (AGG Retreat directions)"
    )
    agg("place", "US-5", "10", "21")  # a move this turn, still in contact with G-LDR
    before = file_digest(agg.game)  # type: ignore[attr-defined]
    result = assault(agg, "US-5", "--against", "G-LDR", "--set", "retreat.US-5=90", code=3)
    assert error_line(result.output) == (
        "US-5 moved this turn: it retreats back the way it came, and an order cannot "
        "override that (AGG Retreat directions)"
    )
    assert file_digest(agg.game) == before  # type: ignore[attr-defined]


BAD = [
    (["US-A", "--against", "G-FAR"], 3, "US-A is not in contact with G-FAR"),
    (["US-A", "--against", "US-B"], 2, "US-A and US-B are both USA"),
    (["US-A", "G-2", "--against", "VG"], 2, "the attackers US-A, G-2 belong to Germany and USA"),
    (["US-A", "--against", "NOPE"], 2, "unknown stand 'NOPE'"),
    (["US-NP", "--against", "G-2"], 2, "US-NP (supply) has no aggression profile: its kind has"),
    (["US-2", "--against", "G-2", "--set", "af.US-2=1"], 3, "US-2 is on AF 1 and never starts"),
    (["US-2", "--against", "G-2", "--set", "af.US-2=11"], 2, "an aggression factor is 1 to 10"),
    (["US-2", "--against", "G-2", "--set", "bogus=1"], 2, "--set 'bogus': not an assault order"),
    (["US-2", "--against", "G-2", "--set", "af.VG=3"], 2, "'VG' is not in this assault"),
    (
        ["US-2", "--against", "G-2", "--set", "pursue.US-2=true", "--set", "af.US-2=3"],
        3,
        "never pursues",
    ),
    (["US-2", "--against", "G-2", "--set", "target.US-2=plane"], 2, "'plane' is neither"),
    (["US-2", "--against", "G-2", "--set", "ambush=US-2"], 2, "US-2 is an attacker"),
    (["US-2", "--against", "G-2", "--set", "works.G-2=bunker"], 2, "accepted: none, dug-in"),
    (["US-2", "--against", "G-2", "--model", "typhoon"], 2, "aggression model only"),
    (["US-2", "G-2", "--against", "G-2"], 2, "G-2 is listed twice"),
    (["US-2"], 2, "name the defending stands"),
    (["--against", "G-2"], 2, "name the attacking stands"),
    (["US-2", "--against", "G-2", "--dice", "1,2,3,4,5,6,7,8,9"], 2, "unused"),
    (
        ["US-2", "--against", "G-2", "--set", "ambush=G-2", "--set", "admin=US-2"],
        3,
        "road, rail or river",
    ),
]


@pytest.mark.parametrize(("args", "code", "message"), BAD)
def test_bad_assaults_leave_the_game_unchanged(
    agg: Run, args: list[str], code: int, message: str
) -> None:
    before = file_digest(agg.game)  # type: ignore[attr-defined]
    result = agg("assault", *args, code=code)
    assert message in error_line(result.output)
    assert file_digest(agg.game) == before  # type: ignore[attr-defined]


def test_eliminated_and_unplaced_stands_cannot_fight(agg: Run) -> None:
    assault(
        agg, "US-3", "US-4", "--against", "G-3", "--set", "af.G-3=1",
        "--dice", "99,99,99,99,99,44",
    )  # fmt: skip
    result = assault(agg, "US-3", "--against", "G-3", code=3)
    assert error_line(result.output) == "G-3 is eliminated and cannot fight (AGG Combat)"


def test_an_ambusher_that_moved_is_refused(agg: Run) -> None:
    agg("place", "G-AMB", "30.01", "30")
    result = assault(agg, "US-COL", "--against", "G-AMB", "--set", "ambush=G-AMB", code=3)
    assert (
        error_line(result.output)
        == "only a stationary unit on ambush orders can ambush (AGG Ambush)"
    )


def test_no_game(run: Run) -> None:
    result = run("assault", "US-2", "--against", "G-2", code=2)
    assert error_line(result.output).startswith("no game at")


def test_dice_undo_and_replay(agg: Run) -> None:
    assault(agg, "US-2", "--against", "G-2", "--rounds", "1", "--dice", "1,99,99,99")
    log = as_json(agg("log", "--json"))["events"][-1]
    assert log["command"] == "assault"
    assert [r["source"] for r in log["rolls"]] == ["physical"] * 4
    before = file_digest(agg.game)  # type: ignore[attr-defined]
    assault(agg, "US-A", "US-B", "--against", "VG", "--set", "retreat.VG=0")
    assault(agg, "US-3", "US-4", "--against", "G-3")
    agg("undo")
    agg("undo")
    assert stand(agg, "VG")["x"] == 24.0
    assert stand(agg, "G-2")["models"]["aggression"]["strength"] == 30
    assert file_digest(agg.game) != before  # type: ignore[attr-defined]  # the log grew
    assault(agg, "US-COL", "--against", "G-AMB", "--set", "ambush=G-AMB", "--set", "admin=US-COL")
    assert agg("replay").output == "replay reproduces the stored state (7 events)\n"


@pytest.mark.parametrize("seed", [3, 4])
def test_random_battles_never_crash_and_replay(run: Run, seed: int) -> None:
    run("new", SCENARIO, "--seed", str(seed))
    fights = [
        ("US-A", "US-B", "--against", "VG", "--set", "pursue.US-A=true"),
        ("US-2", "--against", "G-2", "--set", "works.G-2=fortified"),
        ("US-3", "US-4", "--against", "G-3"),
        ("US-COL", "--against", "G-AMB", "--set", "ambush=G-AMB", "--set", "admin=US-COL"),
        ("US-L", "--against", "G-LAKE"),
        ("US-5", "--against", "G-LDR"),
    ]
    for args in fights:
        r = assault(run, *args)
        assert 1 <= r["rounds"] <= 6
        assert all(v >= 0 for v in r["strength"].values())
        assert all(0 <= c <= 100 for chances in r["retreat_chance"].values() for c in chances)
    assert run("replay").output == "replay reproduces the stored state (7 events)\n"


def test_the_lake_blocks_a_retreat(agg: Run) -> None:
    # G-LAKE has the lake at its back (east) and US-L in front (west): its own bearing, 90,
    # and the next, 150, cross the lake, so it goes round to 210.
    r = assault(
        agg, "US-L", "--against", "G-LAKE", "--set", "retreat.G-LAKE=90", "--rounds", "1",
        "--dice", "99,99,99,1",
    )  # fmt: skip
    [retreat] = r["retreated"]
    assert retreat["tried"][0]["reasons"] == ["across lake-1 (lake), impassable to foot stands"]
    assert retreat["tried"][1]["reasons"] == [
        "across lake-1 (lake), impassable to foot stands"
    ]  # 150 clips it too
    assert retreat["bearing"] == 210
    assert retreat["loss"] == 20


# --- model run -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("procedure", "settings", "dice_values", "expected"),
    [
        ("factor", ["af=7"], "", {"af": 7, "meaning": "blocking force", "pursuit": "always"}),
        ("factor", ["af=7", "moving=true"], "", {"pursuit": "the player's choice"}),
        ("factor", ["af=6", "resupplied=false"], "", {"af": 1, "initiates": False}),
        (
            "retreat-test",
            ["strength=100", "casualties=30"],
            "65",
            {"retreat_chance": 65, "retreated": True},
        ),
        ("retreat-test", ["strength=100", "casualties=30"], "66", {"retreated": False}),
        ("retreat-direction", ["direction=2", "blocked=2"], "", {"direction": 3, "casualties": 10}),
        ("retreat-direction", ["direction=1", "blocked=1,2,3,4,5,6"], "", {"direction": None}),
        ("surrender", ["training=elite"], "50", {"surrender_chance": 50, "surrendered": True}),
        ("pursuit", ["af=4", "choice=true"], "", {"pursues": False}),
        ("spoils", ["casualties=30"], "", {"captured": 1, "discarded": 3.0}),
        ("target", ["firer=at-platoon", "enemies=infantry,armour,mechanised"], "", {"target": 3}),
        (
            "target",
            ["firer=tank-platoon", "enemies=infantry,artillery"],
            "2",
            {"target": 2, "stage": "random"},
        ),
        (
            "shot",
            ["firer=rifle-platoon", "target=infantry-company", "works=dug-in"],
            "50",
            {"damage": 8},
        ),
        (
            "shot",
            ["firer=tank-platoon", "target=leader"],
            "1",
            {"damage": 30, "killed_leader": False},
        ),
        ("admin-fire", ["round=2", "units=4"], "", {"may_fire": 2}),
        ("ambush", ["by_type=armour:3", "enemy=armour"], "", {"af": 3, "free_shots": 1}),
        ("minefield", ["mine=AT", "unit=apc-platoon"], "", {"attacked": True}),
        (
            "mine-lay",
            ["owner=red", "mine=AP", "existing_owner=blue", "existing=AT"],
            "",
            {"result": "replaced"},
        ),
        ("mine-clear", ["in_combat=true", "engineer=regular"], "30", {"cleared": True}),
        ("mine-income", ["mines=1", "income=50"], "", {"loss": 0.05}),
        ("dig-in", ["works=entrenched", "orders=2"], "", {"works": "fortified", "size": 3}),
        ("fort", ["size=2", "men=150", "vehicles=6"], "", {"fits": False, "needed": 210}),
    ],
)
def test_model_run_procedures(
    charts: Charts,
    procedure: str,
    settings: list[str],
    dice_values: str,
    expected: dict[str, Any],
) -> None:
    result = model_run(charts, procedure, settings, dice_values)
    for key, value in expected.items():
        if isinstance(value, float):
            assert result[key] == pytest.approx(value)
        else:
            assert result[key] == value


def model_run(charts: Charts, procedure: str, settings: list[str], dice_values: str = "") -> Any:
    """What 'tabletop model run aggression PROCEDURE --set ...' runs, read the same way."""
    from tabletop.cli.core import SETTING
    from tabletop.rules.models.engine import run_procedure

    options = dict(SETTING.convert(s, None, None) for s in settings)
    d = dice(*(int(v) for v in dice_values.split(",") if v))
    result = run_procedure(find_model("aggression", charts), procedure, options, d)
    d.finish()
    return result


@pytest.mark.parametrize(
    ("procedure", "settings", "error", "message"),
    [
        ("retreat-test", [], BadInput, "give --set strength=N"),
        ("retreat-test", ["strength=10", "training=conscript"], BadInput, "training 'conscript'"),
        ("retreat-direction", ["direction=7"], BadInput, "direction=7"),
        ("factor", ["af=0"], BadInput, "af=0"),
        ("shot", ["firer=nope", "target=leader"], BadInput, "profile 'nope'"),
        ("dig-in", ["works=dug-in", "in_combat=true"], RulesRefusal, "entrench while in combat"),
        ("mine-clear", ["in_combat=true", "searching=true"], RulesRefusal, "mines in combat"),
        ("ambush", ["stationary=false"], RulesRefusal, "only a stationary unit"),
        ("factor", ["colour=red"], BadInput, "--set 'colour': not an option of aggression factor"),
    ],
)
def test_model_run_bad_input(
    charts: Charts, procedure: str, settings: list[str], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        model_run(charts, procedure, settings)
    assert message in str(caught.value)


def test_model_run_bad_input_through_the_cli(run: Run) -> None:
    result = run("model", "run", "aggression", "dig-in", "--set", "works=dug-in",
                 "--set", "in_combat=true", code=3)  # fmt: skip
    assert error_line(result.output) == "a unit cannot entrench while in combat (AGG Entrenched)"


def test_model_run_in_a_game_logs_its_dice(agg: Run) -> None:
    result = as_json(
        agg(
            "model",
            "run",
            "aggression",
            "retreat-test",
            "--set",
            "strength=40",
            "--dice",
            "7",
            "--json",
        )
    )
    assert result["event"] == 2 and result["retreated"] is True
    assert as_json(agg("log", "--json"))["events"][-1]["rolls"][0]["value"] == 7


def test_model_show_lists_the_procedures() -> None:
    result = CliRunner().invoke(cli, ["model", "show", "aggression", "--json"])
    assert result.exit_code == 0, result.output
    data = as_json(result)
    assert data["inches_per_unit"] == 4
    assert {"retreat-test", "retreat-direction", "surrender", "pursuit", "target", "dig-in"} <= set(
        data["procedures"]
    )
    assert math.isclose(data["inches_per_unit"], 4)


# --- out of the box: the bundled scenario has no aggression profiles (AGG Aggression factors) --


def test_close_assault_works_in_the_bundled_scenario(game: Run) -> None:
    from tabletop.cli.core import open_game

    game("place", "US-1", "18", "26.2")  # into contact with G-1 (at 18,27)
    # US-1 fires (d100 72: miss), G-1 fires (23: hit, 12 damage), US-1 tests (79 > 75:
    # stands), G-1 tests (44 <= 50: retreats one hex along its bearing, north)
    out = as_json(game("assault", "US-1", "--against", "G-1", "--dice", "72,23,79,44", "--json"))
    assert out["verdict"] == "USA holds the field after 1 round: G-1 retreated"
    state = open_game(game.game).context().state  # type: ignore[attr-defined]
    us, g = state.stand("US-1"), state.stand("G-1")
    # AF 5 for a unit never given one; the profile by kind (infantry -> infantry-platoon);
    # training from quality (trained -> recruit, regular -> regular)
    assert us["models"]["aggression"]["af"] == 5 and g["models"]["aggression"]["af"] == 1
    assert us["models"]["aggression"]["strength"] == 28
    assert (g["x"], g["y"]) == (18.0, 31.0)
    assert out["lines"][0] == (
        "US-1: AF 5 moving (reconnaissance in force), recruit, strength 40, retreats "
        "toward 180 (moved this turn: back the way it came, behind its facing)"
    )
    game("undo")
    state = open_game(game.game).context().state  # type: ignore[attr-defined]
    assert (state.stand("G-1")["x"], state.stand("G-1")["y"]) == (18.0, 27.0)
    assert "aggression" not in (state.stand("G-1").get("models") or {})


def test_kind_profile_can_be_overridden_per_stand(game: Run) -> None:
    game("place", "US-1", "18", "26.2")
    out = as_json(
        game("assault", "US-1", "--against", "G-1", "--rounds", "1", "--set",
             "profile.US-1=rifle-platoon", "--dice", "100,100,100,100", "--json")
    )  # fmt: skip
    from tabletop.cli.core import open_game

    state = open_game(game.game).context().state  # type: ignore[attr-defined]
    assert state.stand("US-1")["models"]["aggression"]["profile"] == "rifle-platoon"
    assert out["event"] is not None
    bad = game("assault", "US-1", "--against", "G-1", "--set", "profile.US-1=panzer", code=2)
    profiles = ", ".join(find_model("aggression", load_charts()).profiles())  # as charted
    assert bad.output == (
        f"Error: profile 'panzer' is not in charts/models/aggression.yaml (profiles: {profiles})\n"
    )


def test_kind_chart_names_known_profiles(charts: Any) -> None:
    from tabletop.rules.models.aggression.chart import AggressionChart

    chart = AggressionChart.of(charts)
    assert chart.kind_profile("infantry") == "infantry-platoon"
    assert chart.kind_profile("tank") == "tank-platoon"
    assert chart.kind_profile("supply") is None
    assert all(e.default for e in chart.tables["kinds"].values())


# --- retreat, surrender and pursuit on stands (model run aggression PROCEDURE STAND) --------


def test_retreat_test_on_a_stand_drops_its_factor(game: Run) -> None:
    from tabletop.cli.core import open_game

    # AGG Retreat chance: 110 - 10 x AF 5 (never set) = 60, regular -10, and the referee's
    # 12 casualties of 40 (30%) +15 = 65%: d100 65 retreats, the factor drops to 1
    out = as_json(game("model", "run", "aggression", "retreat-test", "G-1", "--set",
                       "casualties=12", "--dice", "65", "--json"))  # fmt: skip
    assert out["retreat_chance"] == 65 and out["retreated"]
    assert out["stands"] == {"G-1": {"af": 1, "retreated_turn": 1}}
    record = open_game(game.game).context().state.stand("G-1")["models"]["aggression"]  # type: ignore[attr-defined]
    assert record["af_rule"] == "AGG Retreat chance: retreat-test"
    # the stand's own facts: 40 strong, no casualties: 60 - 10 = 50%
    out = as_json(game("model", "run", "aggression", "retreat-test", "G-2", "--dice", "51",
                       "--json"))  # fmt: skip
    assert out["retreat_chance"] == 50 and not out["retreated"] and out["stands"] == {"G-2": {}}


def test_surrender_and_pursuit_on_stands(game: Run) -> None:
    from tabletop.cli.core import open_game

    # AGG Surrender: regular troops not on AF 10 surrender 75% of the time
    out = as_json(game("model", "run", "aggression", "surrender", "--set", "unit=G-1", "--dice",
                       "75", "--json"))  # fmt: skip
    assert out["surrender_chance"] == 75 and out["surrendered"]
    row = open_game(game.game).context().state.stand("G-1")  # type: ignore[attr-defined]
    assert row["status"] == "eliminated" and "surrendered" in row["markers"]
    refused = game("model", "run", "aggression", "pursuit", "G-1", code=3)
    assert refused.output == "Error: G-1 is eliminated and cannot take part in aggression pursuit\n"
    # AGG Aggression factors: a stationary unit on 5 pursues only when it chooses to
    out = as_json(game("model", "run", "aggression", "pursuit", "G-2", "--json"))
    assert out["pursues"] is False and out["stands"] == {"G-2": {"pursue": False}}
    game("undo")
    game("undo")
    assert open_game(game.game).context().state.stand("G-1")["status"] == "ok"  # type: ignore[attr-defined]


def test_play_by_mail_is_an_alias(game: Run) -> None:
    out = as_json(game("model", "run", "play-by-mail", "pursuit", "--set", "af=7", "--json"))
    assert out["model"] == "aggression" and out["pursues"] is True


# --- assault --odds (issue 21 item 4) ------------------------------------------------------------


def _assault_odds(agg: Run, *args: str) -> dict[str, Any]:
    return as_json(agg("assault", *args, "--odds", "--json"))


def test_assault_odds_one_round_one_against_one(agg: Run, chart: AggressionChart) -> None:
    # AGG Combat: two rifle platoons hit each other on 50 or less; a hit does 10 damage
    # (firepower at full strength). AGG Retreat chance: each then tests, on 50 with no
    # losses, more after losses; a retreat one direction off costs 10 more (AGG Retreat
    # example). Worked from the rules functions, not the battle's code.
    before = file_digest(agg.game)  # type: ignore[attr-defined]
    data = _assault_odds(agg, "US-2", "--against", "G-2", "--rounds", "1")
    got = {k: Fraction(v) for k, v in data["outcomes"].items()}
    assert sum(got.values()) == 1
    hit = Fraction(50, 100)
    stays = {
        lost: 1
        - Fraction(
            rules.retreat_chance(chart, rules.RetreatTest(5, "regular", 40, lost)).chance, 100
        )
        for lost in (0, 10)
    }
    # Nobody hit, both stay: (1/2)^2 x (1/2)^2.
    assert got["still fighting: US-2 stays, loses 0; G-2 stays, loses 0"] == (1 - hit) ** 2 * (
        stays[0] ** 2
    )
    # Both hit, both stay (19% each at 10 casualties).
    assert got["still fighting: US-2 stays, loses 10; G-2 stays, loses 10"] == hit**2 * (
        stays[10] ** 2
    )
    assert got["still fighting: US-2 stays, loses 10; G-2 stays, loses 10"] == Fraction(361, 10000)
    assert data["expected"]["G-2 losses"] == "5/1"
    assert file_digest(agg.game) == before  # type: ignore[attr-defined]


def _enumerated(path: Path, inputs: dict[str, Any], staged: bool) -> dict[str, Fraction]:
    """The assault's odds round by round (positions merged), or as one tree of its rolls."""
    from tabletop.game import engine

    g = engine.Game.open(path)
    keep = engine.odds_stages
    try:
        if not staged:
            engine.odds_stages = lambda name: None  # type: ignore[assignment]
        return g.odds("assault", inputs, limit=100_000).outcomes
    finally:
        engine.odds_stages = keep  # type: ignore[assignment]
        g.close()


def test_assault_odds_by_rounds_match_the_whole_tree_two_against_one(agg: Run) -> None:
    # Merging battles that reach the same position between rounds changes no chance.
    inputs = {"attackers": ["US-A", "US-B"], "defenders": ["VG"], "rounds": 2}
    path = Path(agg.game)  # type: ignore[attr-defined]
    by_rounds = _enumerated(path, inputs, staged=True)
    assert by_rounds == _enumerated(path, inputs, staged=False)
    assert sum(by_rounds.values()) == 1


@pytest.mark.parametrize(
    ("attackers", "defenders", "options"),
    [
        (["US-2"], ["G-2"], {"pursue.US-2": True}),
        (["US-2"], ["G-2"], {"disengage": "G-2", "af.G-2": 8}),
        (["US-2"], ["G-2"], {"works.G-2": "entrenched"}),
        (["US-3", "US-4"], ["G-3"], {"af.G-3": 1, "retreat.G-3": 0}),
        (["US-COL"], ["G-AMB"], {"ambush": "G-AMB", "admin": "US-COL"}),
    ],
    ids=["pursuit", "disengage", "works", "no-way-out", "ambushed-column"],
)
def test_assault_odds_by_rounds_match_the_whole_tree_under_orders(
    agg: Run, attackers: list[str], defenders: list[str], options: dict[str, Any]
) -> None:
    # The odds' battles tell nothing, carry rounds over and share their rows until they
    # change them; the whole tree plays the command itself, telling all. Same chances.
    inputs = {"attackers": attackers, "defenders": defenders, "rounds": 2, "options": options}
    path = Path(agg.game)  # type: ignore[attr-defined]
    by_rounds = _enumerated(path, inputs, staged=True)
    assert by_rounds == _enumerated(path, inputs, staged=False)
    assert sum(by_rounds.values()) == 1


def test_assault_odds_default_rounds_answer(agg: Run) -> None:
    # Up to the chart's 6 rounds (AGG Combat, max-rounds): each round's positions merged.
    data = _assault_odds(agg, "US-2", "--against", "G-2")
    got = {k: Fraction(v) for k, v in data["outcomes"].items()}
    assert sum(got.values()) == 1
    # Fighting on to the end without a hit on either side takes six rounds of misses and
    # passed tests: (1/2)^4 a round.
    assert got["still fighting: US-2 stays, loses 0; G-2 stays, loses 0"] == Fraction(1, 16) ** 6


def test_percent_test_bands_agree_with_every_face() -> None:
    # The odds roll a percentile test once per band; over all 100 faces the chance is the same.
    from tabletop.core.odds import distribution

    for chance in (1, 37, 50, 99):
        banded = distribution(lambda d, c=chance: rules.percent_test(d, c, "test")[0])
        faces = Fraction(sum(1 for face in range(1, 101) if face <= chance), 100)
        assert banded == {True: faces, False: 1 - faces}


def test_model_run_retreat_test_odds_match_every_face(agg: Run, chart: AggressionChart) -> None:
    # AGG Retreat chance: AF 5, regular, 40 strong with 10 lost.
    data = as_json(
        agg(
            "model", "run", "aggression", "retreat-test", "--set", "strength=40",
            "--set", "casualties=10", "--odds", "--json",
        )
    )  # fmt: skip
    chance = rules.retreat_chance(chart, rules.RetreatTest(5, "regular", 40, 10)).chance
    every_face = Counter(
        "result retreats" if face <= chance else "result stands" for face in range(1, 101)
    )
    assert {k: Fraction(v) for k, v in data["outcomes"].items()} == {
        k: Fraction(n, 100) for k, n in every_face.items()
    }


def test_show_says_no_formation_rather_than_none(agg: Run) -> None:
    lines = agg("show", "VG").output.splitlines()  # aggression.yaml gives VG no formation
    assert lines[1] == 'at 24,18 facing 180; base 0.8" x 0.8"; no formation'


def test_a_retreat_names_its_end_point_as_typed(game: Run) -> None:
    # Crossroads: US-1 put against G-1, then a close assault (aggression model, AF 5 by
    # default): both hit (30, 40 on 50%), US-1 fails its retreat test (50 <= 75) and goes back.
    game("place", "US-1", "18", "26.2")
    game("phase", "next")
    game("phase", "next")
    lines = game("assault", "US-1", "--against", "G-1", "--dice", "30,40,50").output.splitlines()
    assert lines[7] == (
        "      US-1 retreats toward 180: 0 steps from its own 180, 0 extra casualties "
        "(AGG Retreat directions), to 18,22.2"
    )
