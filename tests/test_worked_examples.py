"""Golden tests: every worked example of the alternative models' seeds, in quick mode and on
stands in a game (the stands' state checked after, undo restoring it, replay matching).

A worked example is a calculation the seed carries through to a number. Each entry names the
seed section, the number, and the tests covering it: ``quick`` is the calculator without a
game (``model run`` / ``fire --model``, or the procedure function), ``stands`` the command
run on stands with forced dice. Tests in other modules are named ``module::test``; the rest
are below. "no stand" means the number belongs to no stand (a side's points, a
bombardment's square); "not modelled" means the project does not take that part of the seed
(see the seeds' README), so there is nothing to run.

Mech Brigade (seed 002)
-----------------------
MB-1  MB 7.3: M60A3 accuracy (60 + 50)^2 / 100 = 121; x 3/4 = 90.75; level 2 smoke: 45.38.
      quick: test_mech_brigade::test_worked_example_m60a3_accuracy
      stands: test_mb_7_3_duels_on_the_table[m60a3]
MB-2  MB 7.3: M60A3 APF 44.14, capped at 2 x 20 = 40.
      quick: test_mech_brigade::test_worked_example_m60a3_apf
      stands: test_mb_7_3_duels_on_the_table[m60a3]
MB-3  MB 7.3: 5 M60A3 at T-72s: 40 x 45.38 x 5 / 20000 = .4538, a 45.38% chance of a kill.
      quick: test_mech_brigade::test_worked_example_kill_numbers,
             test_mech_brigade::test_worked_example_reads_as_chances
      stands: test_mech_brigade::test_table_mode_duel_reproduces_the_example,
              test_mb_7_3_duels_on_the_table[m60a3]
MB-4  MB 7.3: 10 T-72s at M60A3s: 1.51, one kill and a 51% chance of a second.
      quick: as MB-3
      stands: test_mb_7_3_duels_on_the_table[t72-at-m60a3-two], [t72-at-m60a3-one]
MB-5  MB 7.3: 5 ABRAMS at T-72s: .454.
      quick: as MB-3
      stands: test_mb_7_3_duels_on_the_table[abrams]
MB-6  MB 7.3: 10 T-72s at ABRAMS: .368 (APF 43.75 under 1.25 x 36: accuracy halved once).
      quick: as MB-3, test_mech_brigade::test_worked_example_t72_against_abrams_halves_accuracy
      stands: test_mb_7_3_duels_on_the_table[t72-at-abrams]
MB-7  MB 7.7: suppression 180 cuts fire by 180 / 3 = 60%.
      quick: test_mech_brigade::test_suppression_effects[180-1.0-0.4-True]
      stands: test_mb_7_7_suppression_180_cuts_fire_by_60_percent_on_a_stand
MB-8  MB 5.4: 30 RIFLEs need 3 vehicles, 8 MILANs 2 APCs.
      not modelled (no embarking); the example's sizes are the chart's default strengths:
      test_mech_brigade::test_default_strength_by_kind_of_unit, and the 30 rifles fire on
      the table in test_mb_7_7_suppression_180_cuts_fire_by_60_percent_on_a_stand

Typhoon of Steel (seed 004)
---------------------------
TOS-1  V Command control radius: with a radio, out of command 20% at CR 10, 25% at CR 8.
       quick: test_typhoon::test_golden_radio_out_of_command_chances
       stands: test_tos_radio_command_control_on_stands
TOS-2  V Point fire accuracy: two negative shifts (x 0.71 each) about halve the accuracy.
       quick: test_typhoon::test_two_negative_shifts_about_halve
       stands: test_tos_failed_skill_check_halves_the_shot_on_the_table
TOS-3  V Damage to soft targets: 120% killed is one man and a 20% chance of another.
       quick: test_typhoon::test_golden_120_percent_rolls
       stands: test_tos_120_percent_killed_on_the_table (riflemen firing into the copse:
       10 x 0.375 x 12 / 200 + 0.975 = 1.2; d100 20 takes a second man, 21 does not)
TOS-4  V Mission chart: bypass against delay: 40 points an exited attacker.
       quick: test_typhoon::test_mission_points[golden-bypass-and-delay]; no stand
TOS-5  III Force size: meeting engagement size 2: 120; size 5, handicap 2: veteran Germans
       192, green Americans 360.
       quick: test_typhoon::test_purchase_points[golden-*]; no stand
TOS-6  II.B.1 Orders: CR 35: 3 or 4 orders, 50% each; CR 8: one 80%, none 20%.
       quick: test_typhoon::test_orders[golden-cr-*]
       stands: test_tos_orders_on_an_hq
TOS-7  II.B.1 Orders: a superior holding 32 orders gives one to an HQ holding 3.
       quick: test_typhoon::test_orders[golden-superior-32]
       stands: test_tos_orders_on_an_hq
TOS-8  II.B.3 Skill and first shot checks: skill 4 passes 40%, first shot 10 passes 50%.
       quick: test_typhoon::test_skill_check_chance, test_typhoon::test_first_shot_chance
       stands: test_typhoon::test_table_odds_include_the_rate_of_fire (no fire 3/4)
TOS-9  II.B.3 Rate of fire: a gun that lost crew may take twice as long (our reading: a lost
       crewman halves the first-shot rating); the seed carries it to no number to check.
       quick: test_typhoon::test_rate_of_fire[bombard-rating-5]
TOS-10 II.B.3 Indirect fire: combined skill 10 passes 50% (d20).
       quick: test_typhoon::test_golden_combined_skill_10_passes_half_the_time; no stand
TOS-11 II.B.3 Indirect fire: under a square of scatter, on target 25%, one square off 75%.
       quick: test_tos_scatter_under_one_square_hits_a_quarter_of_the_time; no stand
TOS-12 II.B.3 Assault: morale 4 with 1 suppression point goes in 75%; else it routs.
       quick: test_typhoon::test_golden_morale_4_with_1_suppression_goes_in_75_percent
       stands: test_tos_assault_morale_check_on_stands
TOS-13 II.B.3 Assault: kill rating 10 destroys 40%, takes a track 30% more.
       quick: test_typhoon::test_golden_kill_rating_10_destroys_40_and_tracks_30
       stands: test_tos_kill_rating_10_on_stands
TOS-14 II.B.4 Rally: CR 8 gives a radius of 2 for 40%, 3 for 60%.
       quick: test_typhoon::test_golden_cr_8_rally_radius_2_for_40_percent
       stands: test_tos_rally_radius_cr_8_on_stands
TOS-15 II.B.4 Rally: morale 4 rallies 40%; points halve (rounded down), the state stays
       until a combat pulse.
       quick: test_typhoon::test_rally[golden-morale-4-rallies-on-4]
       stands: test_tos_rally_halves_points_and_keeps_the_state,
               test_typhoon::test_rally_on_stands_halves_the_recorded_points
TOS-16 II.B.4 Rally: C1 may face 13 rally attempts from C0 (2), B0 (4) and A0 (10).
       not modelled (orders spent on rallies)
TOS-17 II.B.2 Movement: 5 MPH clear squares, a truck 5 pulses into a forest, debarking
       delays of 2 and 3. not modelled (movement is CD's)
TOS-18 II.A Weather: visibility 9 in dust stays 9 outside a campaign.
       quick: test_tos_weather_leaves_visibility_outside_a_campaign; no stand
TOS-19 V Suppression point table: a friend in good state helps over 5 + 10 x Rnd(1) points
       (infantry: from 14 - men).
       quick: test_typhoon::test_good_state_benefit
       stands: test_typhoon::test_end_of_turn_suppression_table_decays_points,
               test_tos_suppression_table_over_turns

Squad Battles (seed 000)
------------------------
SB-1  Firing, Density Effect: under the alternate rule a team of one man is x 0.5, not 0.1.
      quick: test_sb_alternate_density_floor_for_one_man
      stands: test_sb_alternate_density_on_a_one_man_team
SB-2  Firing, Infantry Protection: penetration 4 against protection 8 is x 0.5.
      quick: test_squad_battles::test_golden_infantry_protection_8_against_penetration_4
      stands: none (no chart weapon and cover give 4 against 8; the same ratio is in every
      table fire's modifiers)
SB-3  Firing, Vehicle Penetration: protection 12: penetration 6 no effect, 9 x 0.5, 12 x 1,
      24 armour piercing x 1.5.
      quick: test_squad_battles::test_golden_penetration_ratio_against_protection_12
      stands: none (as SB-2)
SB-4  Firing, Explosion: 1 hex off x 1/2, 2 hexes x 1/3; a length of 3 covers 4 hexes.
      quick: test_squad_battles::test_explosion_radius_and_length
      stands: test_squad_battles::test_table_mode_explosion_lists_neighbours
SB-5  Combat Results: combat value 400, LCV 6, HCV 60: 0.24 to 2.4; 1.7 rounds down 30%.
      quick: test_squad_battles::test_golden_combat_value_400_with_lcv_6_and_hcv_60,
             test_squad_battles::test_golden_random_rounding_of_1_7
      stands: the same scaling in table fire: test_sb_alternate_density_on_a_one_man_team
SB-6  Effectiveness Losses: combat value 400 x 5 = 2000: a loss of 1.2 to 12; vehicles x 10.
      quick: test_squad_battles::test_golden_effectiveness_loss_of_combat_value_400,
             test_sb_vehicle_effectiveness_is_ten_times
      stands: test_sb_effectiveness_400_on_stands
SB-7  Command Test: Capt Jones (B) passes 5/6; Lt Smith (C) 4/6, or 5/6 with the +1 that
      reaches him half the time at 3 hexes.
      quick: test_squad_battles::test_golden_command_test_lt_smith_and_capt_jones
      stands: test_sb_command_test_lt_smith_and_capt_jones_on_stands
SB-8  Recovery Test: a B leader who failed, 1 hex: 1 + 2/2 = 2; passed: 3; same hex: 6.
      quick: test_squad_battles::test_golden_recovery_test_lt_smith
      stands: test_sb_recovery_of_lt_smiths_platoon_on_stands
SB-9  Assault: vehicle assault value (36 - 4) x 20 x 20 / 24 = 533.3.
      quick: test_squad_battles::test_golden_vehicle_assault_value_533
      stands: test_sb_tank_assault_on_stands (no chart tank has armour 36: the Sherman's 30
      gives (30 - 4) x 20 x 20 / 24 = 433.33 by the same formula), and with other stands in
      test_sb_hex_against_hex_on_stands
SB-10 Assault: C units with a B leader: morale 5; B with B: 5; demoralized with a leader: 1.
      quick: test_squad_battles::test_golden_leader_morale_modification
      stands: test_sb_c_squad_with_a_b_leader_assaults_on_morale_5 (the leader a unit of the
      stack: his assault value, a share of the losses; his +1 goes if he falls),
      test_sb_hex_against_hex_on_stands
SB-11 Assault: a truck's strength 4 x 20 / 24 = 3.
      quick: test_squad_battles::test_golden_truck_loss_strength_3,
             test_squad_battles::test_golden_truck_shares_3_in_13_beside_a_squad,
             test_squad_battles::test_quick_assault_shares_losses_by_the_units_given
      stands: test_sb_truck_shares_the_losses_on_stands[truck-killed-squad-retreats] and
              [truck-stands-holds-the-hex] (the squad's 10 and the truck's 3 share the losses,
              d13 11-13 the truck's; its share x 0.5 x 1/2 x 24 / 4 = 1.5 kills it, and a
              killed truck no longer holds the squad in place),
              test_sb_hex_against_hex_on_stands (three attacking stands against the squad and
              the truck; the Sherman's share of 25 and its 0.2 chance of a kill)
SB-12 Assault: the hard vehicle check at B is on half of 5 = 2, passing 1/3.
      quick: test_squad_battles::test_golden_hard_vehicle_morale_check_b_is_one_third
      stands: test_sb_hard_vehicle_check_at_b_on_stands
SB-13 Assault: armour 13 in the clear takes 1 off the defenders' morale.
      quick: test_squad_battles::test_golden_armour_assault_modifier_13
      stands: test_sb_tank_assault_on_stands (the Sherman's armour 30 takes 30 / 12 = 2),
              test_sb_hex_against_hex_on_stands
SB-14 Movement Allowance: effectiveness 50% moves 75%, 33% moves 66%. not modelled
SB-15 Detection Devices: reliability B at 75% reveals (5/6) x 75%. not modelled

Play-by-mail aggression (seed 003)
----------------------------------
AGG-1 Retreat: the Volksgrenadiers (direction 1; enemies from 1 and 2, tanks in 3) go south
      (4) with 30 extra casualties.
      quick: test_aggression::test_volksgrenadiers_retreat_direction_on_the_hex_map,
             test_aggression::test_volksgrenadiers_through_model_run
      stands: test_aggression::test_volksgrenadiers_on_the_table,
              test_agg_volksgrenadiers_undo_and_replay
AGG-2 Retreat chance: AF 5 is 50% (110 - 10 x AF, regulars); 1% more per 2% casualties;
      5% per friend retreated or joined.
      quick: test_aggression::test_af_5_regular_has_the_seeds_50_percent,
             test_aggression::test_retreat_chance
      stands: test_aggression::test_retreat_test_on_a_stand_drops_its_factor,
              test_aggression::test_friends_who_retreated_or_joined_change_the_chance,
              test_agg_retreat_test_undo_and_replay
AGG-3 Surrender: 90% recruits, 75% regulars, 50% elite, 20% security police, 10%
      presidential guard.
      quick: test_aggression::test_surrender_chances_by_training
      stands: test_aggression::test_surrender_and_pursuit_on_stands
AGG-4 Mines: an income of 50 loses 0.05 a minefield.
      quick: test_aggression::test_one_minefield_costs_an_income_of_50_a_twentieth; no stand
AGG-5 Target priority: a hit of 60 kills a leader.
      quick: test_aggression::test_a_hit_of_60_kills_a_leader
      stands: test_aggression::test_leader_left_alone_retreats (the leader on the table)

Limits (issue 21)
-----------------
A squad-battles assault takes several stands a side (a hex's stack), each next to the other
side; a pinned or demoralized one refuses the whole assault (SB Attacking Restrictions):
test_sb_assault_stands_refused_and_checked. An aggression stand starts one assault a phase
and defends any number of times (AGG Combat, the chart's default):
test_agg_a_stand_starts_one_assault_a_phase_and_defends_any_number.
A second fire by one stand in one phase is refused (exit 3, the rule named, the file
unchanged): test_second_fire_in_a_phase_is_refused_under_each_model, and per model
test_mech_brigade::test_table_mode_second_fire_in_a_pulse_is_refused,
test_typhoon::test_table_mode_failed_rate_of_fire_means_no_fire and
test_squad_battles::test_table_mode_fire_records_the_target_state; aggression has no ranged
fire. MB suppression halves as each phase ends and stops pinning at 50 (MB 7.6, 7.7):
test_mb_suppression_decays_over_phases_and_turns and
test_mech_brigade::test_table_mode_suppression_halves_each_phase. The ToS suppression point
table at each turn's end (ToS V): test_tos_suppression_table_over_turns and
test_typhoon::test_end_of_turn_suppression_table_decays_points.
"""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tabletop.cli import cli
from tabletop.data.charts import Charts
from tabletop.rules.models import Shot, find_model
from tabletop.rules.models.squad_battles import SquadBattles
from tabletop.rules.models.squad_battles.fire import combat_value
from tests.conftest import Run, as_json, file_digest, goto_phase

DATA = Path(__file__).parent / "data"
SCENARIOS = {
    "mb": "mech_brigade.yaml",
    "tos": "typhoon.yaml",
    "sb": "squad_battles.yaml",
    "agg": "aggression.yaml",
}


# --- games: one file per scenario for the module, copied for each test ----------------------


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    made: dict[str, Path] = {}
    runner = CliRunner()
    for key, name in SCENARIOS.items():
        path = tmp_path_factory.mktemp(key) / "game.sqlite"
        result = runner.invoke(cli, ["new", str(DATA / name), "--seed", "1", "--game", str(path)])
        assert result.exit_code == 0, result.output
        made[key] = path
    return made


def _game(run: Run, template: Path) -> Run:
    shutil.copy(template, run.game)  # type: ignore[attr-defined]
    return run


@pytest.fixture
def mb(run: Run, templates: dict[str, Path]) -> Run:
    """Mech Brigade range (tests/data/mech_brigade.yaml), turn 1, fire phase."""
    return _game(run, templates["mb"])


@pytest.fixture
def tos(run: Run, templates: dict[str, Path]) -> Run:
    """Typhoon range (tests/data/typhoon.yaml), turn 1, fire phase."""
    return _game(run, templates["tos"])


@pytest.fixture
def sb(run: Run, templates: dict[str, Path]) -> Run:
    """Squad Battles range (tests/data/squad_battles.yaml), turn 1, fire phase."""
    return _game(run, templates["sb"])


@pytest.fixture
def agg(run: Run, templates: dict[str, Path]) -> Run:
    """Aggression close combat (tests/data/aggression.yaml), turn 1, movement phase."""
    return _game(run, templates["agg"])


# --- helpers ---------------------------------------------------------------------------------


def rows(run: Run, *stands: str) -> dict[str, Any]:
    """The stands' rows in the game file (what undo must restore exactly)."""
    query = "SELECT value FROM state WHERE key = ?"
    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        return {
            sid: json.loads(conn.execute(query, (f"stand:{sid}",)).fetchone()[0]) for sid in stands
        }
    finally:
        conn.close()


def facts(run: Run, stand: str, model: str) -> dict[str, Any]:
    """What ``show STAND --json`` says of the stand's state under ``model``."""
    shown = as_json(run("show", stand, "--json"))
    found: dict[str, Any] = shown["models"][model]["facts"]
    return found


def status(run: Run, stand: str) -> str:
    return str(as_json(run("show", stand, "--json"))["status"])


def replay_then_undo(run: Run, before: dict[str, Any]) -> None:
    """Replay rebuilds the state just made; undo puts the stands back exactly as they were."""
    assert "replay reproduces the stored state" in run("replay").output
    run("undo")
    assert rows(run, *before) == before


def printed(value: float, text: str) -> bool:
    """Whether ``value`` reads as the seed's ``text`` at its precision, rounded half up."""
    places = len(text.split(".")[1])
    exact = Fraction(str(value)) * 10**places
    return Fraction(math.floor(exact + Fraction(1, 2)), 10**places) == Fraction(text)


def model_run(run: Run, *args: str) -> Any:
    return as_json(run("model", "run", *args, "--json"))


# --- Mech Brigade (seed 002) -----------------------------------------------------------------

DUELS = [
    # firer, target, weapons, dice, kills (as printed), killed, accuracy, APF, target left
    pytest.param("US-1", "SU-1", 5, "46,38", ".4538", 1, "45.375", "40", 4, id="m60a3"),
    pytest.param("SU-M60", "US-M60", 10, "51", "1.51", 2, "75.625", "38", 3,
                 id="t72-at-m60a3-two"),
    pytest.param("SU-M60", "US-M60", 10, "52,26", "1.51", 1, "75.625", "38", 4,
                 id="t72-at-m60a3-one"),
    pytest.param("US-AB", "SU-AB", 5, "46,39", ".454", 0, "45.375", "40", 10, id="abrams"),
    pytest.param("SU-AB", "US-AB", 10, "37,76", ".368", 1, "30.25", "43.75", 4,
                 id="t72-at-abrams"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("firer", "target", "count", "dice", "kills", "killed", "accuracy", "apf", "left"), DUELS
)
def test_mb_7_3_duels_on_the_table(
    mb: Run,
    firer: str,
    target: str,
    count: int,
    dice: str,
    kills: str,
    killed: int,
    accuracy: str,
    apf: str,
    left: int,
) -> None:
    # MB 7.3: the tanks 24" (6 squares) apart, front to front, level 2 smoke between; the
    # kill roll settles the fraction with d100s to a hundredth of a percent.
    before = rows(mb, firer, target)
    out = as_json(mb("fire", firer, target, "--count", str(count), "--set", "smoke=2",
                     "--dice", dice, "--json"))  # fmt: skip
    assert out["range_squares"] == 6
    assert Fraction(str(out["accuracy"])) == Fraction(accuracy)
    assert Fraction(str(out["apf"])) == Fraction(apf)
    assert printed(out["kills"], kills)
    assert out["killed"] == killed
    # the target's record: vehicles left, and the 50 a vehicle holds at most (MB 7.6)
    assert facts(mb, target, "mech-brigade") == {
        "suppression": 50, "left": left, "killed": killed, "pinned": False,
    }  # fmt: skip
    replay_then_undo(mb, before)


def test_mb_7_7_suppression_180_cuts_fire_by_60_percent_on_a_stand(mb: Run) -> None:
    before = rows(mb, "SU-3")
    # MB 7.6: the rifle platoon in the village takes 180 points (a non-vehicle holds 200)
    out = model_run(mb, "mech-brigade", "suppression", "SU-3", "--set", "add=180")
    assert out["stands"] == {"SU-3": {"suppression": 180, "pinned": True}}
    assert out["fire_effectiveness"] == pytest.approx(0.4)  # 1 - 180 / 3 %
    assert facts(mb, "SU-3", "mech-brigade") == {"suppression": 180, "pinned": True}
    # MB 7.7: its fire is cut by 60%, as quick mode gives it for the same 30 rifles
    back = as_json(mb("fire", "SU-3", "US-3", "--range", "8", "--dice", "99", "--json"))
    quick = as_json(mb("fire", "--model", "mech-brigade", "--shooter", "RIFLE-S", "--target",
                       "M60A3", "--range-squares", "2", "--count", "30", "--set",
                       "shooter_suppression=180", "--set", "strength=5", "--dice", "99",
                       "--json"))  # fmt: skip
    plain = as_json(mb("fire", "--model", "mech-brigade", "--shooter", "RIFLE-S", "--target",
                       "M60A3", "--range-squares", "2", "--count", "30", "--set", "strength=5",
                       "--dice", "99", "--json"))  # fmt: skip
    assert back["weapons_firing"] == 30  # MB 5.4's platoon of 30 rifles, the default size
    assert back["kills"] == quick["kills"]
    assert Fraction(str(back["accuracy"])) == Fraction(str(plain["accuracy"])) * Fraction(2, 5)
    assert "firer suppressed 180: effectiveness x (1 - 180 / 3%)" in " ".join(back["lines"])
    mb("undo")  # the fire
    replay_then_undo(mb, before)


def test_mb_suppression_decays_over_phases_and_turns(mb: Run) -> None:
    # MB 7.6: halved (rounded down) as each pulse ends, a pulse being a phase of the turn;
    # MB 7.7: pinned only while over 50
    model_run(mb, "mech-brigade", "suppression", "SU-3", "--set", "add=180")
    seen = []
    for _ in range(7):
        now = as_json(mb("status", "--json"))
        mine = facts(mb, "SU-3", "mech-brigade")
        seen.append((now["turn"], now["phase"], mine["suppression"], mine["pinned"]))
        mb("phase", "next")
    assert seen == [
        (1, "fire", 180, True),
        (1, "morale", 90, True),
        (2, "command", 45, False),  # the turn's end halves it too
        (2, "artillery", 22, False),
        (2, "movement", 11, False),
        (2, "opportunity-fire", 5, False),
        (2, "fire", 2, False),
    ]
    assert facts(mb, "SU-3", "mech-brigade") == {"suppression": 1, "pinned": False}


# --- Typhoon of Steel (seed 004) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("sets", "face", "in_command"),
    [
        ((), 20, False),
        ((), 21, True),
        (("--set", "cr=8"), 25, False),
        (("--set", "cr=8"), 26, True),
    ],
    ids=["cr-10-out", "cr-10-in", "cr-8-out", "cr-8-in"],
)
def test_tos_radio_command_control_on_stands(
    tos: Run, sets: tuple[str, ...], face: int, in_command: bool
) -> None:
    # ToS V: a Sherman (radio) under the company HQ US-CO (command rating 10, read from its
    # profile; the referee's cr=8 wins): in command when Rnd(1) x CR >= 2; d100 20 reads
    # as 0.195 (the middle of its hundredth): 1.95 out, 21 -> 2.05 in; at CR 8, 25 -> 1.96
    before = rows(tos, "US-LOW", "US-CO")
    out = model_run(tos, "typhoon", "command-control", "US-LOW", "US-CO", *sets, "--dice",
                    str(face))  # fmt: skip
    assert out["in_command"] is in_command
    assert out["stands"] == {"US-LOW": {"in_command": in_command}, "US-CO": {}}
    assert facts(tos, "US-LOW", "typhoon") == {"in_command": in_command}
    replay_then_undo(tos, before)


def test_tos_orders_on_an_hq(tos: Run) -> None:
    before = rows(tos, "US-CO")
    # ToS II.B.1: CR 10 is one order a turn, no roll; then the referee's CR 35: 3 for
    # certain and a 50% chance of a fourth (d100 50: yes), added to the one it holds
    out = model_run(tos, "typhoon", "orders", "US-CO")
    assert out["received"] == 1 and out["stands"] == {"US-CO": {"orders": 1}}
    out = model_run(tos, "typhoon", "orders", "US-CO", "--set", "cr=35", "--dice", "50")
    assert out["received"] == 4 and out["orders"] == 5
    assert facts(tos, "US-CO", "typhoon") == {"orders": 5}
    tos("undo")
    out = model_run(tos, "typhoon", "orders", "US-CO", "--set", "cr=35", "--dice", "51")
    assert out["received"] == 3 and facts(tos, "US-CO", "typhoon") == {"orders": 4}
    tos("undo")
    tos("undo")
    # an HQ holding 3 orders or fewer gets one more from a superior holding 32 (32 / 10)
    out = model_run(tos, "typhoon", "orders", "US-CO", "--set", "cr=30", "--set",
                    "superior_orders=32")  # fmt: skip
    assert out["received"] == 4 and facts(tos, "US-CO", "typhoon") == {"orders": 4}
    replay_then_undo(tos, before)
    # a routed HQ receives none
    model_run(tos, "typhoon", "state", "US-CO", "--set", "points=18")
    refused = tos("model", "run", "typhoon", "orders", "US-CO", code=3)
    assert "US-CO is routed and may not orders (ToS II.A Unit states: a retreating" in (
        refused.output
    )


def test_tos_failed_skill_check_halves_the_shot_on_the_table(tos: Run) -> None:
    # ToS V: G-TK's 75mm at the Sherman 10 squares away needs 85 (RA 68 x 1.25 for the
    # Sherman's size); a failed skill check (d10 6 > 5) is two negative shifts: 85 x 0.71 x
    # 0.71 = 42.85, about half
    before = rows(tos, "G-TK", "US-TK")
    hit = as_json(tos("fire", "G-TK", "US-TK", "--dice", "1,100,3,100", "--json"))
    assert hit["accuracy"] == 85.0 and hit["modifiers"] == []
    tos("undo")
    out = as_json(tos("fire", "G-TK", "US-TK", "--dice", "1,100,6,100", "--json"))
    assert out["accuracy"] == pytest.approx(85 * 0.71**2, abs=0.005)
    assert [(m["name"], m["shifts"]) for m in out["modifiers"]] == [
        ("firer failed its skill check", -2)
    ]
    # a miss: the target only gains the point for being fired at with none (ToS V)
    assert out["outcome"] == "missed"
    assert facts(tos, "US-TK", "typhoon")["suppression"] == 1
    replay_then_undo(tos, before)


@pytest.mark.parametrize(
    ("face", "killed", "men", "points", "text"),
    [(20, 2, 10, 8, "yes"), (21, 1, 11, 5, "no")],
    ids=["another-man-on-20", "one-man-on-21"],
)
def test_tos_120_percent_killed_on_the_table(
    tos: Run, face: int, killed: int, men: int, points: int, text: str
) -> None:
    # ToS V Damage to soft targets: G-INF's ten riflemen (IA 10 x 1) move up 6 squares from
    # the Americans in the copse and fire (rate of fire d10 1, d100 100; skill d10 1; to hit
    # d100 1 of 21.75). The losses' accuracy, 43.14 less four shifts (the firer moving, the
    # target in soft cover), is 10.96, raised to the floor of 12 against soft targets. Men
    # killed = 10 x Rnd x 12 / 200 + Rnd, d100 38 and 98 reading 0.375 and 0.975: 0.225 +
    # 0.975 = 1.2, the seed's 120%: one man, and a 20% chance of another (d100 1-20)
    tos("place", "G-INF", "25", "31")
    before = rows(tos, "G-INF", "US-WOOD")
    out = as_json(tos("fire", "G-INF", "US-WOOD", "--dice", f"1,100,1,1,38,98,{face}", "--json"))
    assert (
        "losses use RA 43.14 x0.2541 (-4 shifts, every soft row) = 12.00 [ToS V Damage to "
        "soft targets]" in out["lines"]
    )
    at = out["lines"].index(
        "men killed = 10 x 0.375 x 12.00 / 200 + 0.975 = 1.200 [ToS V Damage to soft targets]"
    )
    assert out["lines"][at + 1] == f"1 killed, and 20% for one more: {text}"
    assert (out["men_killed"], out["outcome"]) == (killed, f"{killed} killed")
    # the riflemen's record: men left, with the rule that took them (US-RIFLE is 12 men)
    assert facts(tos, "US-WOOD", "typhoon") == {
        "suppression": points, "state": "pinned", "men": men, "guns_out": [],
        "immobilized": False,
    }  # fmt: skip
    shown = as_json(tos("show", "US-WOOD", "--json"))["models"]["typhoon"]["rules"]
    assert shown["men"] == "ToS V Damage to soft targets"
    replay_then_undo(tos, before)


def test_tos_scatter_under_one_square_hits_a_quarter_of_the_time(run: Run) -> None:
    # ToS II.B.3: seen, under 30 squares, off-map HE: 2 x 0.5 x 0.5 x 0.5 = 0.25 squares;
    # the best there is: on target on d100 1-25, one square off on 26-100
    base = ["model", "run", "typhoon", "scatter", "--set", "firer_skill=5", "--set",
            "spotter_skill=5", "--set", "los=true", "--set", "range=20", "--set",
            "off_map_he=true", "--json", "--dice"]  # fmt: skip
    on = as_json(run(*base, "10,25"))
    off = as_json(run(*base, "10,26,2"))
    assert on["max_scatter"] == 0.25 and on["on_target"] is True
    assert on["chance_on_target_exact"] == "1/4"
    assert off["on_target"] is False and off["offset"] == {"x": 1, "y": 1}


def test_tos_weather_leaves_visibility_outside_a_campaign(run: Run) -> None:
    # ToS II.A Weather: visibility 9 in dust stays 9 outside a campaign (x 0.5 in one)
    args = ["model", "run", "typhoon", "visibility", "--set", "visibility=9", "--set",
            "weather=dust", "--set", "skill=10", "--set", "size=4", "--json"]  # fmt: skip
    assert as_json(run(*args))["visibility_range"] == 90
    assert as_json(run(*args, "--set", "campaign=true"))["visibility_range"] == 45


def test_tos_assault_morale_check_on_stands(tos: Run) -> None:
    # ToS II.B.3: the bazooka team (morale 4) with 1 suppression point, next to G-TK: it goes
    # in when 4 x Rnd(1) >= 1, i.e. d100 26-100 (75%); on 25 it routs, and the stand says so
    tos("place", "US-BZK", "10", "11.5")
    model_run(tos, "typhoon", "suppression", "US-BZK", "--set", "when=fire", "--set",
              "targeted=true")  # fmt: skip
    assert facts(tos, "US-BZK", "typhoon") == {"suppression": 1, "state": "good"}
    before = rows(tos, "US-BZK", "G-TK")
    out = model_run(tos, "typhoon", "assault", "US-BZK", "G-TK", "--dice", "25")
    assert out["result"] == "routed"
    assert facts(tos, "US-BZK", "typhoon") == {
        "suppression": 1, "state": "routed", "last_assault": "routed",
    }  # fmt: skip
    refused = tos("model", "run", "typhoon", "assault", "US-BZK", "G-TK", code=3)
    assert "US-BZK is routed and may not assault (ToS II.A Unit states" in refused.output
    replay_then_undo(tos, before)
    # d100 26 goes in: kill rating 2 men + 2 (a stationary target) x 0.605 = 2.42, no effect
    out = model_run(tos, "typhoon", "assault", "US-BZK", "G-TK", "--dice", "26,5,61")
    assert out["result"] == "no effect" and out["kill_rating"] == 4
    assert facts(tos, "US-BZK", "typhoon")["state"] == "good"


@pytest.mark.parametrize(
    ("face", "result", "target"),
    [
        (61, "destroyed", {"state": "destroyed"}),
        (60, "immobilized", {"immobilized": True}),
        (31, "immobilized", {"immobilized": True}),
        (30, "no effect", None),
    ],
)
def test_tos_kill_rating_10_on_stands(
    tos: Run, face: int, result: str, target: dict[str, Any] | None
) -> None:
    # ToS V Infantry assaults: eight men + 2 for a stationary target = kill rating 10;
    # 10 x Rnd(1) over 6 destroys (d100 61-100: 40%), over 3 takes a track (31-60: 30%)
    tos("place", "US-SQD", "10", "11.5")
    before = rows(tos, "US-SQD", "G-TK")
    out = model_run(tos, "typhoon", "assault", "US-SQD", "G-TK", "--dice", f"5,{face}")
    assert out["kill_rating"] == 10 and out["result"] == result
    if target is None:
        assert "typhoon" not in as_json(tos("show", "G-TK", "--json")).get("models", {})
    else:
        assert facts(tos, "G-TK", "typhoon") == target
    assert status(tos, "G-TK") == ("eliminated" if result == "destroyed" else "ok")
    replay_then_undo(tos, before)


@pytest.mark.parametrize(("face", "reached"), [(40, False), (41, True)])
def test_tos_rally_radius_cr_8_on_stands(tos: Run, face: int, reached: bool) -> None:
    # ToS V: radius CR 8 / 5 + 1 + Rnd(1) is 2 squares for d100 1-40, 3 for 41-100; the team
    # stands 2.5 squares from the HQ, with 6 points (over its morale 4); d10 4 rallies
    tos("place", "US-BZK", "64", "41.5")
    model_run(tos, "typhoon", "suppression", "US-BZK", "--set", "when=fire", "--set",
              "soft_hit_unsighted=2")  # fmt: skip
    dice = f"{face},4" if reached else str(face)
    out = model_run(tos, "typhoon", "rally", "US-BZK", "US-CO", "--set", "cr=8", "--dice", dice)
    assert out["radius"] == (3 if reached else 2)
    assert out["rallied"] is reached
    assert facts(tos, "US-BZK", "typhoon")["suppression"] == (3 if reached else 6)


def test_tos_rally_halves_points_and_keeps_the_state(tos: Run) -> None:
    # ToS II.B.4: two unsighted hits on its square make the team's 6 points, over its morale
    # 4: pinned. US-CO (CR 10) 2 squares away rallies it on a d10 of 4 or less (40%): the
    # points halve to 3, but the state still reads pinned until a combat pulse looks again
    tos("place", "US-BZK", "64", "42")
    model_run(tos, "typhoon", "suppression", "US-BZK", "--set", "when=fire", "--set",
              "soft_hit_unsighted=2")  # fmt: skip
    assert facts(tos, "US-BZK", "typhoon") == {"suppression": 6, "state": "pinned"}
    before = rows(tos, "US-BZK", "US-CO")
    failed = model_run(tos, "typhoon", "rally", "US-BZK", "US-CO", "--dice", "40,5")
    assert failed["rallied"] is False and failed["stands"] == {"US-BZK": {}, "US-CO": {}}
    tos("undo")
    out = model_run(tos, "typhoon", "rally", "US-BZK", "US-CO", "--dice", "40,4")
    assert out["rallied"] is True and out["points"] == 3
    assert facts(tos, "US-BZK", "typhoon") == {"suppression": 3, "state": "pinned"}
    state = model_run(tos, "typhoon", "state", "US-BZK")
    assert state["state"] == "good" and facts(tos, "US-BZK", "typhoon")["state"] == "good"
    tos("undo")
    replay_then_undo(tos, before)


def test_tos_suppression_table_over_turns(tos: Run) -> None:
    # ToS V, after pulse 3 of each turn: two unsighted hits made the team's 6 points
    model_run(tos, "typhoon", "suppression", "US-BZK", "--set", "when=fire", "--set",
              "soft_hit_unsighted=2")  # fmt: skip
    before = rows(tos, "US-BZK")
    ends = []
    for dice in ((), ("--dice", "1"), ("--dice", "1")):
        out = as_json(tos("turn", "next", "--yes", *dice, "--json"))
        ends += [h["result"] for h in out["happened"] if h.get("stand") == "US-BZK"]
        if len(ends) == 1:
            tos("place", "US-BZK", "29", "29")  # into the copse, 2.8 squares from US-WOOD
    rule = "(ToS V Suppression point table, after pulse 3)"
    assert ends == [
        # alone (+1) and the automatic loss (-1)
        f"6 +0 = 6: pinned {rule}",
        # in soft cover, sighted as it moved (-1); US-WOOD is near and in good state, but an
        # infantry unit of 2 men benefits only from 14 - 2 = 12 points; automatic (-1)
        f"6 -2 = 4: pinned {rule}",
        # soft cover, not sighted (-3); automatic (-1)
        f"4 -4 = 0: good {rule}",
    ]
    assert facts(tos, "US-BZK", "typhoon") == {"suppression": 0, "state": "good"}
    tos("undo", "--yes")
    assert facts(tos, "US-BZK", "typhoon") == {"suppression": 4, "state": "pinned"}
    tos("undo", "--yes")
    tos("undo", "--yes")  # the move into the copse
    tos("undo", "--yes")
    assert rows(tos, "US-BZK") == before
    assert "replay reproduces the stored state" in tos("replay").output


# --- Squad Battles (seed 000) ----------------------------------------------------------------


@pytest.fixture(scope="module")
def squad(charts: Charts) -> SquadBattles:
    found = find_model("squad-battles", charts)
    assert isinstance(found, SquadBattles)
    return found


def test_sb_alternate_density_floor_for_one_man(squad: SquadBattles) -> None:
    # SB Firing: Density Effect: a team of one man is x 0.1, x 0.5 under the optional rule
    def density(**opts: Any) -> float:
        sh, _ = squad._shooting(Shot("rifle-squad", "rifle-squad", 3 * 0.87, 1, opts))
        factors = [m for m in combat_value(squad.tables, sh).steps if "density" in m.name]
        return float(factors[0].factor)

    assert density(target_men=1) == pytest.approx(0.1)
    assert density(target_men=1, alt_density=True) == 0.5


def test_sb_alternate_density_on_a_one_man_team(sb: Run) -> None:
    # SB Firing: G-ONE is a team of one man 3 hexes from US-SQD: x 0.1, or 0.5 under the
    # optional rule, so a combat value of 24 or 120 (SB Combat Results: 0.6% or 1.2% of
    # LCV 6 and HCV 60); d100 100 takes the top, d100 1 rounds it up to a casualty
    before = rows(sb, "US-SQ", "G-ONE")
    plain = as_json(sb("fire", "US-SQ", "G-ONE", "--dice", "100,16,1,100", "--json"))
    assert plain["combat_value"] == 24 and (plain["low"], plain["high"]) == (0.014, 0.144)
    assert plain["casualties"] == 0 and status(sb, "G-ONE") == "ok"
    # no man lost, and the effectiveness loss (x 5: 0.072 to 0.72) rounded down to nothing
    assert facts(sb, "G-ONE", "squad-battles") == {
        "state": "normal", "effectiveness": 100, "men": 1, "ground": False,
    }  # fmt: skip
    sb("undo")
    out = as_json(sb("fire", "US-SQ", "G-ONE", "--set", "alt_density=true", "--dice", "100,1",
                     "--json"))  # fmt: skip
    assert out["combat_value"] == 120 and (out["low"], out["high"]) == (0.072, 0.72)
    assert out["casualties"] == 1 and out["state"] == "eliminated"
    assert status(sb, "G-ONE") == "eliminated"
    assert facts(sb, "G-ONE", "squad-battles") == {"men": 0, "killed": True}
    replay_then_undo(sb, before)


def test_sb_vehicle_effectiveness_is_ten_times(run: Run) -> None:
    # SB Effectiveness Losses: a vehicle's loss takes 10 x the (already x5) combat value
    out = model_run(run, "squad-battles", "effectiveness", "--set", "combat_value=400",
                    "--set", "vehicle=true", "--dice", "1,1")  # fmt: skip
    assert out["combat_value"] == 20_000 and (out["low"], out["high"]) == (12, 120)


def test_sb_effectiveness_400_on_stands(sb: Run) -> None:
    before = rows(sb, "G-SQ", "G-TK")
    # SB Effectiveness Losses: 400 x 5 = 2000, 20% of 10000: a loss between 1.2 and 12;
    # d100 1 is 1.254, its fraction rounding up on d100 1: 2 points off the squad's 100%
    out = model_run(sb, "squad-battles", "effectiveness", "G-SQ", "--set", "combat_value=400",
                    "--dice", "1,1")  # fmt: skip
    assert (out["combat_value"], out["low"], out["high"], out["loss"]) == (2000, 1.2, 12, 2)
    assert facts(sb, "G-SQ", "squad-battles") == {"effectiveness": 98}
    # a second loss starts from the 98 recorded on the stand
    again = model_run(sb, "squad-battles", "effectiveness", "G-SQ", "--set", "combat_value=400",
                      "--dice", "1,1")  # fmt: skip
    assert again["effectiveness"] == 96
    # the Panzer IV is a vehicle by its profile: x 10 more, 12 to 120 (never below 25%)
    tank = model_run(sb, "squad-battles", "effectiveness", "G-TK", "--set", "combat_value=400",
                     "--dice", "1,100")  # fmt: skip
    assert (tank["combat_value"], tank["low"], tank["high"]) == (20_000, 12, 120)
    assert facts(sb, "G-TK", "squad-battles") == {"effectiveness": tank["effectiveness"]}
    sb("undo")
    sb("undo")
    replay_then_undo(sb, before)


def test_sb_command_test_lt_smith_and_capt_jones_on_stands(sb: Run) -> None:
    # SB Command Test: Smith (G-LT, a C leader by the referee's word: the lieutenant profile
    # is B) and Jones (G-CPT, B, 3 hexes away on the table). Jones passes on d6 1 (5/6); his
    # +1 reaches Smith at 3 / (3 + 3) = 1/2 (d100 50); Smith then passes on 5 (5/6)
    before = rows(sb, "G-LT", "G-CPT")
    out = model_run(sb, "squad-battles", "command-test", "G-LT", "G-CPT", "--set", "quality=C",
                    "--dice", "1,50,5")  # fmt: skip
    assert (out["superior_chance"], out["nominal_chance"]) == ("5/6", "2/3")
    assert "pass-along chance R/(R+D) = 3/(3+3) = 0.5: 50%" in out["lines"]
    assert out["bonus"] is True and out["value"] == 5 and out["passed"] is True
    assert out["chance_exact"] == "53/72"
    assert facts(sb, "G-LT", "squad-battles") == {"command_test": "passed", "command_test_turn": 1}
    replay_then_undo(sb, before)
    # without the +1 (d100 51), 5 fails Smith's nominal 4/6
    out = model_run(sb, "squad-battles", "command-test", "G-LT", "G-CPT", "--set", "quality=C",
                    "--dice", "1,51,5")  # fmt: skip
    assert out["passed"] is False and facts(sb, "G-LT", "squad-battles")["command_test"] == (
        "failed"
    )


@pytest.mark.parametrize(
    ("test_die", "sets", "limit", "die", "state"),
    [
        pytest.param("6", (), 2, 2, "normal", id="failed-1-hex-recovers-on-2"),
        pytest.param("6", (), 2, 3, "disrupted", id="failed-1-hex-not-on-3"),
        pytest.param("5", (), 3, 3, "normal", id="passed-1-hex-3"),
        pytest.param("5", ("--set", "distance=0"), 6, 6, "normal", id="passed-same-hex-6"),
    ],
)
def test_sb_recovery_of_lt_smiths_platoon_on_stands(
    sb: Run, test_die: str, sets: tuple[str, ...], limit: int, die: int, state: str
) -> None:
    # SB Recovery Test: Lt Smith (G-LT, a B leader: 5) and his platoon G-PL, one hex away
    # (0.87"), disrupted by a morale check. Smith's command test this turn is on his stand
    # and read back, not rolled again: failed, his Q is halved to 2. Two bases cannot share
    # a hex on this table, so the referee gives the same-hex case (distance 0) by hand.
    model_run(sb, "squad-battles", "morale-check", "G-PL", "--set", "men_lost=2", "--dice", "1")
    assert facts(sb, "G-PL", "squad-battles")["state"] == "disrupted"
    model_run(sb, "squad-battles", "command-test", "G-LT", "--dice", test_die)
    before = rows(sb, "G-PL", "G-LT")
    out = model_run(sb, "squad-battles", "recovery", "G-PL", "G-LT", *sets, "--dice", str(die))
    assert out["limit"] == limit and out["state"] == state
    assert [r["value"] for r in out["rolls"]] == [die]
    assert facts(sb, "G-PL", "squad-battles")["state"] == state
    replay_then_undo(sb, before)


def test_sb_recovery_refuses_a_unit_not_disrupted(sb: Run) -> None:
    before = file_digest(sb.game)  # type: ignore[attr-defined]
    refused = sb("model", "run", "squad-battles", "recovery", "G-PL", "G-LT", code=3)
    assert refused.output == (
        "Error: G-PL is normal, not disrupted: the recovery test is for disrupted units "
        "(SB Command: Recovery Test)\n"
    )
    assert file_digest(sb.game) == before  # type: ignore[attr-defined]


def test_sb_leaders_are_named_by_leader_stands(sb: Run) -> None:
    model_run(sb, "squad-battles", "morale-check", "G-PL", "--set", "men_lost=2", "--dice", "1")
    before = file_digest(sb.game)  # type: ignore[attr-defined]
    bad = sb("model", "run", "squad-battles", "recovery", "G-PL", "G-SQ", "--dice", "2", code=2)
    assert bad.output == (
        "Error: G-SQ is not a leader (its squad-battles profile is rifle-squad): name a leader "
        "stand as the leader\n"
    )
    bad = sb("model", "run", "squad-battles", "command-test", "G-LT", "G-PL", code=2)
    assert "G-PL is not a leader" in bad.output and "as the superior" in bad.output
    assert file_digest(sb.game) == before  # type: ignore[attr-defined]


def test_sb_hard_vehicle_check_at_b_on_stands(sb: Run) -> None:
    # SB Hard Vehicle Morale Check: the veteran (B, morale 5) squad beside the Panzer IV
    # (armour 28, at least the hard vehicle value 24) checks on 5 // 2 = 2: d6 3 fails, the
    # assault has no effect ("X") and the attacking squad is pinned
    sb("place", "US-VET", "17", "16.4")
    before = rows(sb, "US-VET", "G-TK")
    out = model_run(sb, "squad-battles", "assault", "US-VET", "G-TK", "--dice", "3")
    assert out["result"] == "X" and out["attackers_pinned"] is True
    assert out["stands"] == {"US-VET": {"state": "pinned"}, "G-TK": {}}
    assert facts(sb, "US-VET", "squad-battles") == {"state": "pinned"}
    # SB Assaulting: Attacking Restrictions: pinned units cannot attack
    refused = sb("model", "run", "squad-battles", "assault", "US-VET", "G-TK", code=3)
    assert refused.output == (
        "Error: US-VET is pinned and may not assault (SB Assaulting: Attacking Restrictions)\n"
    )
    replay_then_undo(sb, before)
    # d6 2 passes (1/3 of the time): the assault goes on to its combat results
    out = model_run(sb, "squad-battles", "assault", "US-VET", "G-TK", "--dice", "2,+")
    assert out["result"] != "X"
    assert facts(sb, "US-VET", "squad-battles")["men"] == 9 - out["attacker_losses"]


def test_sb_c_squad_with_a_b_leader_assaults_on_morale_5(sb: Run) -> None:
    # SB Assault Morale: the C squad (4) with its B lieutenant (5): 4 + 1 = 5 against the
    # German C squad's 4. The lieutenant is a unit of the stack (SB Assault Values: a leader
    # is worth the Infantry Assault value, 20): 200 + 20 = 220. The attackers' one loss falls
    # on the squad (d11 1-10; the leader is 11); the Germans fail their retreat test (d6 5
    # over 4, d6 5 not over 5): demoralized, for the referee to move back (SB Assaulting)
    sb("place", "US-SQ", "12", "17.1")
    sb("place", "US-LT", "13", "17.1")
    before = rows(sb, "US-SQ", "G-SQ", "US-LT")
    dice = "72,23,79,44,93,97,47,70,{},5,5"
    out = model_run(sb, "squad-battles", "assault", "US-SQ", "G-SQ", "US-LT", "--dice",
                    dice.format(10))  # fmt: skip
    assert (
        out["lines"][0] == "attackers: US-SQ 200 + US-LT 20 = 220 [SB Assaulting: Assault Values]"
    )
    assert "morale: attacker 4 + 1 (leader 5 rates higher); defender 4" in out["lines"]
    assert (out["attacker_morale"], out["defender_morale"]) == (5, 4)
    assert (out["result"], out["retreat"]) == ("1/1", True)
    assert facts(sb, "G-SQ", "squad-battles") == {
        "men": 9, "effectiveness": 88, "state": "demoralized",
    }  # fmt: skip
    assert facts(sb, "US-SQ", "squad-battles") == {"men": 9, "effectiveness": 96}
    assert facts(sb, "US-LT", "squad-battles") == {"effectiveness": 96}
    replay_then_undo(sb, before)
    # d11 11: the lieutenant falls, his +1 with him, and the same dice hold the Germans
    out = model_run(sb, "squad-battles", "assault", "US-SQ", "G-SQ", "US-LT", "--dice",
                    dice.format(11))  # fmt: skip
    assert "the attackers' leader fell: no leader bonus to their morale" in out["lines"]
    assert out["attacker_morale"] == 4 and out["retreat"] is False
    assert status(sb, "US-LT") == "eliminated"
    assert facts(sb, "US-LT", "squad-battles") == {"effectiveness": 96, "killed": True}
    assert facts(sb, "US-SQ", "squad-battles") == {
        "state": "pinned", "effectiveness": 96, "men": 10,
    }  # fmt: skip
    replay_then_undo(sb, before)


def test_sb_tank_assault_on_stands(sb: Run) -> None:
    # SB Vehicle Assault Value: the Sherman, armour 30: (30 - 4) x 20 x 20 / 24 = 433.33;
    # SB Armor Assault Modifier: against infantry in the clear, 30 / 12 = 2 off their morale.
    # SB Combat Losses and Vehicle Kills: the tank's one loss x 0.5 (vehicle fire factor) x
    # 1/2 x 24 / 30 = 0.2, a kill if it rounds up: d100 1-20
    sb("place", "US-TK", "12", "16.4")
    before = rows(sb, "US-TK", "G-SQ")
    dice = "72,23,79,44,93,97,47,70,{},5,3"
    out = model_run(sb, "squad-battles", "assault", "US-TK", "G-SQ", "--dice", dice.format(21))
    assert out["lines"][2] == (
        "defender losses: combat value 433.33 is 4.333% of 10000: low 6 -> 0.26, high 60 -> 2.6"
    )
    assert "morale: attacker 4; defender 4 - 2 (armour 30 / 12 in a clear hex)" in out["lines"]
    assert (out["result"], out["defender_morale"], out["retreat"]) == ("1/2", 2, True)
    assert out["attacker_units"] == [
        {"id": "US-TK", "kind": "vehicle", "strength": 25, "losses": 1, "killed": False,
         "armour": 30, "vehicle_loss": 0.2},
    ]  # fmt: skip
    assert facts(sb, "G-SQ", "squad-battles") == {
        "state": "demoralized", "effectiveness": 76, "men": 8,
    }  # fmt: skip
    assert facts(sb, "US-TK", "squad-battles") == {"effectiveness": 96}
    replay_then_undo(sb, before)
    out = model_run(sb, "squad-battles", "assault", "US-TK", "G-SQ", "--dice", dice.format(20))
    assert (
        "US-TK: 1 share x 0.5 vehicle fire factor x 0.5 x 24 / armour 30 = 0.2: rounds up 20% "
        "of the time; d100 20 -> killed [SB Combat Results: Combat Losses and Vehicle Kills]"
    ) in out["lines"]
    assert status(sb, "US-TK") == "eliminated"
    assert facts(sb, "US-TK", "squad-battles") == {
        "effectiveness": 96, "killed": True, "vehicle_loss": 0.2,
    }  # fmt: skip
    replay_then_undo(sb, before)
    far = sb("model", "run", "squad-battles", "assault", "US-SQ", "G-SQ", code=3)
    assert "an assault is only between adjacent hexes (SB Assaulting)" in far.output


TRUCK = [
    # SB Vehicle Assault Resolution: the truck shares losses as 4 x 20 / 24 = 3 (fractions
    # dropped) beside the squad's 10 men: d13 11-13 put a casualty on it; then its share x
    # 0.5 (vehicle fire factor) x 1/2 x 24 / 4 = 1.5, a loss: the truck is killed, no longer
    # holds the squad, which fails its retreat test (d6 5 over 4, d6 3 not over 4)
    pytest.param("12,1,5,3", "retreat", {"men": 9, "state": "demoralized"}, True, False,
                 id="truck-killed-squad-retreats"),
    # both casualties on the squad: the truck stands, so the defenders do not retreat and
    # the attacking squad is pinned (SB Assaulting: Retreating, Assault Resolution)
    pytest.param("3,9", "held", {"men": 8}, False, True, id="truck-stands-holds-the-hex"),
]  # fmt: skip


@pytest.mark.parametrize(("shares", "outcome", "squad", "killed", "pinned"), TRUCK)
def test_sb_truck_shares_the_losses_on_stands(
    sb: Run, shares: str, outcome: str, squad: dict[str, Any], killed: bool, pinned: bool
) -> None:
    # US-SQ assaults the hex of G-SQ and the truck G-TRK: 200 against 200 + 0 (a truck's
    # armour 4 gives (4 - 4) x 20 x 20 / 24 = 0); d100 100 then 1: two German casualties,
    # d100 100 then 100: none American
    sb("place", "US-SQ", "12", "17.1")
    sb("place", "G-TRK", "10.3", "18")
    before = rows(sb, "US-SQ", "G-SQ", "G-TRK")
    out = model_run(sb, "squad-battles", "assault", "US-SQ", "G-SQ", "G-TRK", "--dice",
                    f"100,1,100,100,72,23,79,44,{shares}")  # fmt: skip
    assert out["lines"][1] == (
        "defenders: G-SQ 200 + G-TRK 0 = 200 [SB Assaulting: Assault Values]"
    )
    at = out["lines"].index(
        "defender losses 2 shared by strength (G-SQ 10, G-TRK 3; total 13) "
        "[SB Assaulting: Assault Resolution; Vehicle Assault Resolution]"
    )
    first = shares.split(",")[0]
    assert out["lines"][at + 1] == (
        f"  d13 {first} (G-SQ 1-10, G-TRK 11-13): {'G-TRK' if killed else 'G-SQ'}"
    )
    assert out["result"] == "0/2" and out["verdict"].endswith(outcome)
    truck = out["defender_units"][1]
    assert (truck["strength"], truck["losses"], truck["killed"]) == (3, int(killed), killed)
    assert out["attackers_pinned"] is pinned and out["retreat"] is killed
    assert facts(sb, "G-SQ", "squad-battles") == {**squad, "effectiveness": 91} | (
        {"state": "demoralized"} if killed else {}
    )
    if killed:
        assert (
            "G-TRK: 1 share x 0.5 vehicle fire factor x 0.5 x 24 / armour 4 = 1.5: a loss: "
            "killed [SB Combat Results: Combat Losses and Vehicle Kills]" in out["lines"]
        )
        assert status(sb, "G-TRK") == "eliminated"
        assert facts(sb, "G-TRK", "squad-battles") == {
            "effectiveness": 91, "killed": True, "vehicle_loss": 1.5,
        }  # fmt: skip
    else:
        assert "defenders with a non-wrecked vehicle do not retreat" in out["lines"]
        assert status(sb, "G-TRK") == "ok"
        assert facts(sb, "G-TRK", "squad-battles") == {"effectiveness": 91}
        assert facts(sb, "US-SQ", "squad-battles")["state"] == "pinned"
    shown = sb("show", "G-TRK").output
    assert "squad-battles: effectiveness 91 [SB Assaulting: Assault Resolution: assault]" in shown
    replay_then_undo(sb, before)


def test_sb_hex_against_hex_on_stands(sb: Run) -> None:
    # SB Assaulting: the stack of US-SQ (10 men), Lt US-LT and the Sherman US-TK assaults the
    # hex of G-SQ and the truck G-TRK: 200 + 20 + 433.33 = 653.33 against 200 + 0.
    # d100 100 then 1: four German casualties over G-SQ 10 and the truck 3 (d13, d12, d11,
    # d10 as the pool shrinks); the truck takes two: 2 x 0.5 x 1/2 x 24 / 4 = 3, killed. One
    # American casualty over US-SQ 10, US-LT 1 and the tank 25 (30 x 20 / 24): d36 13 is the
    # tank's, 0.2 to kill, and d100 97 spares it. Morale: 4 + 1 for the lieutenant against
    # 4 - 2 for the armour; d6 1 holds the Germans, so the attacking squad is pinned.
    for stand, x, y in (("US-SQ", 12, 17.1), ("US-LT", 13, 17.1), ("G-TRK", 10.3, 18),
                        ("US-TK", 8.8, 18)):  # fmt: skip
        sb("place", stand, str(x), str(y))
    before = rows(sb, "US-SQ", "US-LT", "US-TK", "G-SQ", "G-TRK")
    out = model_run(sb, "squad-battles", "assault", "US-SQ", "US-LT", "US-TK", "G-SQ", "G-TRK",
                    "--dice", "100,1,100,1,72,23,79,44,4,11,10,4,13,97,1,2")  # fmt: skip
    assert out["lines"][0] == (
        "attackers: US-SQ 200 + US-LT 20 + US-TK 433.33 = 653.33 [SB Assaulting: Assault Values]"
    )
    assert out["result"] == "1/4" and out["verdict"].endswith("held")
    assert [(u["id"], u["strength"], u["losses"], u["killed"]) for u in out["defender_units"]] == [
        ("G-SQ", 10, 2, False), ("G-TRK", 3, 2, True),
    ]  # fmt: skip
    assert [(u["id"], u["strength"], u["losses"], u["killed"]) for u in out["attacker_units"]] == [
        ("US-SQ", 10, 0, False), ("US-LT", 1, 0, False), ("US-TK", 25, 1, False),
    ]  # fmt: skip
    assert (out["attacker_morale"], out["defender_morale"]) == (5, 2)
    assert out["stands"] == {
        "US-SQ": {"men": 10, "effectiveness": 93, "state": "pinned"},
        "US-LT": {"effectiveness": 93},
        "US-TK": {"effectiveness": 93},
        "G-SQ": {"men": 8, "effectiveness": 71},
        "G-TRK": {"killed": True, "vehicle_loss": 3, "effectiveness": 71, "status": "eliminated"},
    }
    assert facts(sb, "G-SQ", "squad-battles") == {"effectiveness": 71, "men": 8}
    assert status(sb, "G-TRK") == "eliminated"
    text = sb("status").output
    assert "US-SQ squad-battles: state pinned [SB Assaulting: Assault Resolution: assault]" in text
    replay_then_undo(sb, before)
    # the same stands named with --set, one side each
    same = model_run(sb, "squad-battles", "assault", "--set", "attacker=US-SQ,US-LT,US-TK",
                     "--set", "defender=G-SQ,G-TRK", "--dice",
                     "100,1,100,1,72,23,79,44,4,11,10,4,13,97,1,2")  # fmt: skip
    assert same["stands"] == out["stands"]
    sb("undo")


def test_sb_assault_stands_refused_and_checked(sb: Run) -> None:
    sb("place", "US-SQ", "12", "17.1")
    sb("place", "US-VET", "13", "17.1")
    model_run(sb, "squad-battles", "morale-check", "US-VET", "--set", "men_lost=2", "--dice",
              "6")  # fmt: skip
    assert facts(sb, "US-VET", "squad-battles")["state"] == "pinned"
    digest = file_digest(sb.game)  # type: ignore[attr-defined]
    # SB Assaulting: Attacking Restrictions: one pinned stand in the stack may not attack
    refused = sb("model", "run", "squad-battles", "assault", "US-SQ", "US-VET", "G-SQ", code=3)
    assert refused.output == (
        "Error: US-VET is pinned and may not assault (SB Assaulting: Attacking Restrictions)\n"
    )
    # a defending stand of the attackers' side, a stand named twice, no defenders
    bad = sb("model", "run", "squad-battles", "assault", "--set", "attacker=US-SQ", "--set",
             "defender=G-SQ,US-LT", code=2)  # fmt: skip
    assert bad.output == (
        "Error: US-LT is on USA's side: the attacker stands are one side's (USA), the defender "
        "stands the other's\n"
    )
    bad = sb("model", "run", "squad-battles", "assault", "US-SQ", "G-SQ", "us-sq", code=2)
    assert bad.output == "Error: US-SQ is named twice: name each stand once, on one side\n"
    bad = sb("model", "run", "squad-battles", "assault", "US-SQ", code=2)
    assert "squad-battles assault needs defender stands too" in bad.output
    # every stand must be next to the other side: G-WD, in the copse, is 8 hexes from US-SQ
    far = sb("model", "run", "squad-battles", "assault", "US-SQ", "G-SQ", "G-WD", code=3)
    assert far.output == (
        "Error: US-SQ is 8 hexes from G-WD: an assault is only between adjacent hexes "
        "(SB Assaulting)\n"
    )
    assert file_digest(sb.game) == digest  # type: ignore[attr-defined]


# --- aggression (seed 003) -------------------------------------------------------------------


def test_agg_volksgrenadiers_undo_and_replay(agg: Run) -> None:
    # AGG Retreat: the Volksgrenadiers fall back south 3" with 30 casualties and AF 1
    # (test_aggression::test_volksgrenadiers_on_the_table checks the battle); undo returns
    # them to their ground
    before = rows(agg, "VG", "US-A", "US-B")
    agg("assault", "US-A", "US-B", "--against", "VG", "--rounds", "1", "--set", "retreat.VG=0",
        "--dice", "99,99,99,99,99,1")  # fmt: skip
    vg = rows(agg, "VG")["VG"]
    assert (vg["x"], vg["y"]) == (24.0, 14.0)
    assert vg["models"]["aggression"]["af"] == 1 and vg["models"]["aggression"]["strength"] == 90
    # show gives each fact the assault set with the rule that set it
    shown = as_json(agg("show", "VG", "--json"))["models"]["aggression"]
    assert (shown["facts"]["af"], shown["rules"]["af"]) == (1, "AGG Aggression factors: assault")
    assert shown["rules"]["retreated_turn"] == "AGG Retreats: assault"
    assert shown["rules"]["strength"] == "AGG Combat: assault"
    replay_then_undo(agg, before)


def test_agg_retreat_test_undo_and_replay(agg: Run) -> None:
    # AGG Retreat chance: G-2 (AF 5, regular, 40 strong, no casualties) retreats on 50 or
    # less; its factor drops to 1 (AGG Aggression factors)
    before = rows(agg, "G-2")
    out = model_run(agg, "aggression", "retreat-test", "G-2", "--dice", "50")
    assert out["retreat_chance"] == 50 and out["retreated"] is True
    assert facts(agg, "G-2", "aggression") == {"af": 1, "retreated_turn": 1}
    replay_then_undo(agg, before)


# --- limits ----------------------------------------------------------------------------------


def test_agg_a_stand_starts_one_assault_a_phase_and_defends_any_number(agg: Run) -> None:
    # AGG Combat: one battle a turn in a hex, fought in rounds; the seed sets no limit per
    # unit, so the chart's default: a stand starts one assault a phase, defends at will
    before = rows(agg, "US-2", "G-2")
    hold = ("--rounds", "1", "--dice", "99,99,99,99")  # both miss, both hold
    agg("assault", "US-2", "--against", "G-2", *hold)
    assert facts(agg, "US-2", "aggression")["assaulted"] == {
        "turn": 1, "phase": "movement", "count": 1,
    }  # fmt: skip
    assert "assaulted" not in facts(agg, "G-2", "aggression")  # it defended
    digest = file_digest(agg.game)  # type: ignore[attr-defined]
    refused = agg("assault", "US-2", "--against", "G-2", *hold, code=3)
    assert refused.output == (
        "Error: US-2 has already assaulted this movement phase of turn 1: a stand starts at "
        "most 1 assault a phase (AGG Combat: one assault a stand a phase, default); fight more "
        "rounds with --rounds, or defend when the enemy attacks\n"
    )
    assert file_digest(agg.game) == digest  # type: ignore[attr-defined]
    # G-2 defended; it may still start its own assault, and US-2 defends a second time
    agg("assault", "G-2", "--against", "US-2", *hold)
    assert facts(agg, "G-2", "aggression")["assaulted"]["count"] == 1
    shown = agg("show", "US-2").output
    assert "assaulted count 1, phase movement, turn 1 [AGG Combat: one assault a stand a " in shown
    # the next phase, US-2 may assault again
    agg("phase", "next")
    agg("assault", "US-2", "--against", "G-2", *hold)
    assert facts(agg, "US-2", "aggression")["assaulted"] == {
        "turn": 1, "phase": "opportunity-fire", "count": 1,
    }  # fmt: skip
    assert "replay reproduces the stored state" in agg("replay").output
    for _ in range(4):
        agg("undo", "--yes")
    assert rows(agg, "US-2", "G-2") == before


@pytest.mark.parametrize(
    ("key", "firer", "target", "dice", "rule"),
    [
        ("mb", "US-3", "SU-3", "99", "(MB 7.0: each pulse a unit selects a target and fires)"),
        ("tos", "G-TK", "US-TK", "1,100,3,100", "ToS II.B.3 Rate of fire"),
        ("sb", "US-SQ", "G-SQ", "100,1,1,1,6", "under squad-battles"),
    ],
    ids=["mech-brigade", "typhoon", "squad-battles"],
)
def test_second_fire_in_a_phase_is_refused_under_each_model(
    run: Run,
    templates: dict[str, Path],
    key: str,
    firer: str,
    target: str,
    dice: str,
    rule: str,
) -> None:
    game = _game(run, templates[key])
    game("fire", firer, target, "--dice", dice)
    before = file_digest(game.game)  # type: ignore[attr-defined]
    refused = game("fire", firer, target, code=3)
    assert f"{firer} has already fired this fire phase of turn 1" in refused.output
    assert rule in refused.output
    assert file_digest(game.game) == before  # type: ignore[attr-defined]
    goto_phase(game, "opportunity-fire")  # the next turn's first fire phase: free again
    assert game("odds", "fire", firer, target).exit_code == 0


# --- the table above -------------------------------------------------------------------------


def test_the_table_names_only_tests_that_exist() -> None:
    import importlib
    import re

    doc = __doc__ or ""
    named = re.findall(r"(?:(test_\w+)::)?(test_\w+)", doc)
    assert len(named) > 60
    for module, test in named:
        found = importlib.import_module(f"tests.{module}") if module else globals()
        where = found if isinstance(found, dict) else vars(found)
        assert callable(where.get(test)), f"{module or __name__}::{test}"
