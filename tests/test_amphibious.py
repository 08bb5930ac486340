"""Amphibious operations, Command Decision section 8, driven through the CLI.

The scenario (tests/data/beach.yaml) has the sea south of y = 10, a beach to y = 14 and a
ridge (hill-1) inland; German defenders; American landing craft (LC-1 to LC-3 in wave 1,
LCM-1 with a tank in wave 2, LC-5 in wave 3), an LVT, a DUKW, a raft, two warships and
observers on the beach. The craft and warship stand kinds are bundled charts. Turn 1 opens in
the movement phase.
"""

from __future__ import annotations

import itertools
import math
import re
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tabletop.data.chart_files import load_charts
from tests.conftest import Run, as_json, file_digest

SCENARIO = str(Path(__file__).parent / "data" / "beach.yaml")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scenario's opening game, made once and copied for each test."""
    from click.testing import CliRunner

    from tabletop.cli import cli

    path = tmp_path_factory.mktemp("beach") / "game.sqlite"
    result = CliRunner().invoke(cli, ["new", SCENARIO, "--seed", "5", "--game", str(path)])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def bc(run: Run, template: Path) -> Run:
    for suffix in ("", "-wal", "-shm"):
        source = template.with_name(template.name + suffix)
        if source.exists():
            shutil.copyfile(source, Path(str(run.game) + suffix))  # type: ignore[attr-defined]
    return run


def j(run: Run, *args: str, code: int = 0) -> Any:
    out = run(*args, "--json", code=code)
    return as_json(out) if code == 0 else out


def stands(run: Run) -> dict[str, Any]:
    return {s["id"]: s for s in as_json(run("status", "--json"))["stands"]}


def row(run: Run, stand: str) -> dict[str, Any]:
    """A stand's full state row (status shows only part of it)."""
    import json
    import sqlite3

    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        (value,) = conn.execute("SELECT value FROM state WHERE key = ?", (f"stand:{stand}",))
    finally:
        conn.close()
    return json.loads(value[0])


def next_movement(run: Run) -> None:
    run("turn", "next", "--yes")
    run("phase", "next")
    run("phase", "next")


def unchanged(run: Run, *args: str, code: int) -> str:
    before = file_digest(run.game)  # type: ignore[attr-defined]
    out = run(*args, code=code)
    assert file_digest(run.game) == before  # type: ignore[attr-defined]
    assert len(out.output.strip().splitlines()) == 1
    return out.output


# --- CD 8.1: the approach and the landing ------------------------------------------------------


def test_the_wave_makes_its_approach_six_inches_off_the_beach(bc: Run) -> None:
    r = j(bc, "amphibious", "approach", "--wave", "1", "--at", "30,10")
    assert [(c["craft"], c["approach"], c["beach"]) for c in r["craft"]] == [
        ("LC-1", [29, 4], [29, 10]),
        ("LC-2", [30, 4], [30, 10]),
        ("LC-3", [31, 4], [31, 10]),
    ]
    lc = row(bc, "LC-1")
    assert (lc["facing"], lc["amphib"]["stage"], lc["cargo"]) == (0, "approach", ["A-1"])
    assert row(bc, "A-1")["aboard"] == "LC-1" and stands(bc)["A-1"]["x"] is None


def test_the_craft_land_the_next_turn(bc: Run) -> None:
    bc("amphibious", "approach", "LC-1", "--at", "29,10")
    out = unchanged(bc, "amphibious", "land", "LC-1", code=3)
    assert out == (
        "Error: LC-1 made its approach this turn: it moves to the beach next turn (CD 8.1)\n"
    )
    next_movement(bc)
    r = j(bc, "amphibious", "land", "LC-1")
    assert r["craft"][0]["stage"] == "disembarked"
    assert r["craft"][0]["disembarked"] == ["A-1"]


def test_landing_craft_put_their_troops_just_ahead_of_the_bow(bc: Run) -> None:
    # CD 8.1.1: the stand steps onto the beach next to its craft, on a hasty advance order,
    # and its move ends there.
    bc("amphibious", "approach", "LC-1", "--at", "29,10")
    next_movement(bc)
    r = as_json(bc("amphibious", "land", "LC-1", "--json"))
    assert r["craft"][0]["orders"] == {"A-1": "hasty-advance"}
    lc, a1 = row(bc, "LC-1"), row(bc, "A-1")
    assert (lc["x"], lc["y"]) == (29, 9)
    assert (a1["x"], a1["y"]) == (29, 10.4)
    assert (a1["order"], a1["disembarked_turn"], a1["moved_turn"]) == ("hasty-advance", 2, 2)
    assert "aboard" not in a1


def test_the_approach_is_movement(bc: Run) -> None:
    bc("phase", "next")
    out = unchanged(bc, "amphibious", "approach", "LC-1", "--at", "29,10", code=3)
    assert out == (
        "Error: the approach of a landing wave is not allowed in the opportunity-fire "
        "phase: it happens in the movement phase (turn chart); advance with 'tabletop "
        "phase next'\n"
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("NOBODY", "--at", "29,10"), "unknown stand"),
        (("A-1", "--at", "29,10"), "not a landing craft"),
        (("LC-1", "--at", "99,10"), "off the table"),
        (("--at", "29,10"), "--wave N"),
        (("--wave", "9", "--at", "29,10"), "no craft has 'wave: 9'"),
    ],
)
def test_approach_bad_input(bc: Run, args: tuple[str, ...], says: str) -> None:
    assert says in unchanged(bc, "amphibious", "approach", *args, code=2)


# --- CD 8.1.2: amphibious vehicles ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("stand", "water", "multiplier"),
    [("DUKW-1", "sea", 0.5), ("DUKW-1", "lake", 1.0), ("DUKW-1", "river", 1.0),
     ("LVT-1", "sea", 1.0), ("LVT-1", "lake", 1.0)],
)  # fmt: skip
def test_amphibious_vehicles_in_water(bc: Run, stand: str, water: str, multiplier: float) -> None:
    r = j(bc, "amphibious", "speed", stand, "--in", water)
    assert r["multiplier"] == multiplier


def test_landing_craft_have_no_water_speed(bc: Run) -> None:
    out = bc("amphibious", "speed", "LC-1", "--in", "sea", code=3)
    assert out.output == (
        "Error: LC-1 is not an amphibious vehicle: landing craft run in to the beach "
        "in one turn (CD 8.1)\n"
    )


def test_an_lvt_drives_ashore_and_unloads_there(bc: Run) -> None:
    bc("amphibious", "approach", "LVT-1", "--at", "20,10")
    next_movement(bc)
    r = j(bc, "amphibious", "land", "LVT-1")
    assert r["craft"][0]["stage"] == "landed"
    lvt = row(bc, "LVT-1")
    assert (lvt["x"], lvt["y"]) == (20, 11) and lvt["cargo"] == ["A-3"]
    j(bc, "amphibious", "unload", "LVT-1")
    assert stands(bc)["A-3"]["y"] == pytest.approx(12.4)
    assert bc("amphibious", "unload", "LVT-1", code=3).output == "Error: LVT-1 carries nobody\n"


# --- CD 8.1.3: scatter --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "beach_x"),
    [
        ("6,6", 31),  # 6 or more lands where intended
        ("6,5,2,4", 23),  # 5 or less scatters; even: left, 2 x 4"
        ("6,1,3,4", 39),  # odd: right
    ],
)
def test_scatter_per_company(bc: Run, dice: str, beach_x: float) -> None:
    # One die per company in the wave: A/116 (LC-1, LC-2) then B/116 (LC-3).
    r = j(bc, "amphibious", "approach", "--wave", "1", "--at", "30,10", "--scatter",
          "--dice", dice)  # fmt: skip
    assert r["scatter"]["A/116"]["scattered"] is False
    beaches = {c["craft"]: c["beach"] for c in r["craft"]}
    assert beaches["LC-1"] == [29, 10] and beaches["LC-3"] == [beach_x, 10]


# --- CD 8.1.4: wading --------------------------------------------------------------------------


def in_the_water(run: Run, stand: str = "US-RIFLE", at: str = "36,4") -> None:
    run("amphibious", "into-water", stand, "--at", at)
    next_movement(run)


def test_wading_troops_move_three_inches_a_turn(bc: Run) -> None:
    in_the_water(bc)
    r = j(bc, "amphibious", "wade", "US-RIFLE")
    assert (r["order"], r["stands"][0]["at"], r["stands"][0]["ashore"]) == (
        "cautious", [36, 7], False,
    )  # fmt: skip
    out = unchanged(bc, "amphibious", "wade", "US-RIFLE", code=3)
    assert out == (
        "Error: US-RIFLE has moved through the water this turn: it wades on next turn (CD 8.1.4)\n"
    )
    next_movement(bc)
    r = j(bc, "amphibious", "wade", "US-RIFLE")
    assert r["stands"][0]["ashore"] is True
    assert "amphib" not in row(bc, "US-RIFLE")


def test_a_command_stand_ashore_may_order_a_hasty_wade(bc: Run) -> None:
    in_the_water(bc, at="31,6")
    r = j(bc, "amphibious", "wade", "US-RIFLE", "--by", "US-HQ")
    assert (r["order"], r["allowance"]) == ("hasty", 6)
    assert r["stands"][0]["ashore"] is True


@pytest.mark.parametrize(
    ("by", "says"),
    [
        ("US-JASCO", "not a command stand"),  # no staff orders
        ("G-1", "not a command stand"),
    ],
)
def test_only_command_stands_order_wading_troops(bc: Run, by: str, says: str) -> None:
    in_the_water(bc, at="31,6")
    assert says in unchanged(bc, "amphibious", "wade", "US-RIFLE", "--by", by, code=3)


def test_hasty_orders_reach_only_so_far(bc: Run) -> None:
    in_the_water(bc, at="45,4")
    out = unchanged(bc, "amphibious", "wade", "US-RIFLE", "--by", "US-HQ", code=3)
    assert out == 'Error: US-RIFLE is 15.9" from US-HQ: orders reach 6" (CD 8.1.4, 9.1.5)\n'


@pytest.mark.parametrize(
    ("other", "at", "blocked", "ashore"),
    [
        # US-HQ stands where US-RIFLE would come ashore: it stops with the bases touching.
        ("US-HQ", "30,10.6", "US-HQ", False),
        # A stand beside the way, its base touching the wader's side: no obstacle.
        ("US-FO", "30.8,8", None, True),
    ],
)
def test_wading_stops_short_of_another_stand(
    bc: Run, other: str, at: str, blocked: str | None, ashore: bool
) -> None:
    in_the_water(bc, at="30,6")
    bc("place", other, *at.split(","))
    r = j(bc, "amphibious", "wade", "US-RIFLE", "--by", "US-HQ")["stands"][0]
    assert (r["blocked_by"], r["ashore"]) == (blocked, ashore)
    # Stopped with its 0.8" base touching US-HQ's (from y = 10.2), as 'place' allows.
    assert r["at"] == ([30, 9.8] if blocked else [30, 10])


def test_wading_through_a_minefield(bc: Run) -> None:
    bc("minefield", "place", "36", "6", "--side", "Germany", "--pregame")
    in_the_water(bc)
    r = j(bc, "amphibious", "wade", "US-RIFLE")
    assert r["stands"][0]["minefields"]["attacks"] == 2


# --- CD 8.1.5, 8.1.6: mines and obstacles under water -------------------------------------------


def test_a_submerged_minefield_hits_a_landing_craft(bc: Run) -> None:
    bc("minefield", "place", "29", "6", "--side", "Germany", "--pregame")
    bc("amphibious", "approach", "LC-1", "--at", "29,10")
    next_movement(bc)
    r = j(bc, "amphibious", "land", "LC-1", "--dice", "1")  # trained crew: no effect
    (hazard,) = r["craft"][0]["hazards"]
    assert (hazard["what"], hazard["effect"]) == ("minefield mf-1", "no effect")
    assert r["craft"][0]["stage"] == "disembarked"


def test_a_dummy_under_water_is_only_revealed(bc: Run) -> None:
    bc("minefield", "place", "29", "6", "--side", "Germany", "--pregame", "--dummy")
    bc("amphibious", "approach", "LC-1", "--at", "29,10")
    next_movement(bc)
    r = j(bc, "amphibious", "land", "LC-1")
    assert r["craft"][0]["hazards"] == []
    assert as_json(bc("minefield", "list", "--json"))["minefields"] == []


def test_a_submerged_obstacle_hits_a_landing_craft(bc: Run) -> None:
    # gates-1 lies under water across x 40-46; the craft is forced back while running in.
    bc("amphibious", "approach", "LC-1", "--at", "43,10")
    next_movement(bc)
    r = j(bc, "amphibious", "land", "LC-1", "--dice", "5")
    (hazard,) = r["craft"][0]["hazards"]
    assert (hazard["what"], hazard["effect"]) == ("gates-1", "forced back")
    assert r["craft"][0]["stage"] == "approach"
    assert (row(bc, "LC-1")["x"], row(bc, "LC-1")["y"]) == (43, 4)


def test_obstacles_on_the_beach_do_not_hit_landing_craft(bc: Run) -> None:
    bc("amphibious", "approach", "LC-1", "--at", "53,10")
    next_movement(bc)
    assert j(bc, "amphibious", "land", "LC-1")["craft"][0]["hazards"] == []


def test_amphibious_vehicles_meet_obstacles_and_mines_as_on_land(bc: Run) -> None:
    bc("minefield", "place", "20", "7", "--side", "Germany", "--pregame")
    bc("amphibious", "approach", "LVT-1", "--at", "20,10")
    bc("amphibious", "approach", "DUKW-1", "--at", "43,10")
    next_movement(bc)
    r = j(bc, "amphibious", "land", "LVT-1", "DUKW-1")
    lvt, dukw = r["craft"]
    assert lvt["minefields"]["attacks"] == 2 and lvt["stage"] == "afloat"
    assert dukw["hazards"][0]["what"] == "gates-1" and dukw["stage"] == "afloat"
    assert row(bc, "DUKW-1")["y"] < 7


# --- CD 8.2: attacking the landing wave --------------------------------------------------------


def test_the_craft_kinds_match_the_craft_chart() -> None:
    # CD 8.2.1, 8.2.2: the stand kinds that carry the craft agree with amphibious.yaml.
    charts = load_charts()
    craft = {k: r for k, r in charts.table("amphibious").items() if r.table == "craft"}
    pairs = {"landing-craft": "landing-craft", "whaleboat": "whaleboat", "raft": "raft",
             "lvt": "lvt", "amphibious-truck": "amphibious"}  # fmt: skip
    for kind_id, craft_id in pairs.items():
        kind, row_ = charts.stand_kinds[kind_id], craft[craft_id]
        assert kind.weak_afv == (row_.target == "weak-afv"), kind_id
        assert kind.soft == (row_.target == "soft"), kind_id
        assert kind.ap_immune == row_.ap_immune, kind_id
        if row_.weight_class:
            assert kind.weight_class == row_.weight_class, kind_id
    assert (craft["landing-craft"].weight_class, craft["whaleboat"].weight_class,
            craft["raft"].weight_class) == ("V", "III", "I")  # fmt: skip


@pytest.mark.parametrize(
    ("craft", "roll", "effect"),
    [
        ("RAFT-1", "2", "forced back"),  # rafts are soft: their hits roll as Green
        ("LVT-1", "2", "no effect"),  # a weak AFV rolls by its crew (trained)
    ],
)
def test_rafts_are_soft_targets(bc: Run, craft: str, roll: str, effect: str) -> None:
    bc("amphibious", "approach", craft, "--at", "20,10")
    r = j(bc, "amphibious", "hit", craft, "--dice", roll)
    assert r["effect"] == effect


@pytest.mark.parametrize(
    ("year", "flag", "quality"),
    [
        ("1942", None, "regular"),
        ("1943", None, "experienced"),
        ("1944", None, "veteran"),
        ("1945", None, "veteran"),
        ("1944", "--minor", "regular"),
    ],
)
def test_crew_quality_by_year(bc: Run, year: str, flag: str | None, quality: str) -> None:
    args = ["amphibious", "approach", "LC-1", "--at", "29,10", "--year", year]
    r = j(bc, *args, *([flag] if flag else []))
    assert r["crew"]["quality"] == quality
    assert row(bc, "LC-1")["quality"] == quality


def test_forced_back_on_the_approach_leaves_the_table_until_next_turn(bc: Run) -> None:
    bc("amphibious", "approach", "LC-1", "--at", "29,10")
    r = j(bc, "amphibious", "hit", "LC-1", "--effect", "forced back")
    assert r["result"] == "forced off the table: back at the approach position next turn (CD 8.2.4)"
    assert stands(bc)["LC-1"]["x"] is None
    assert unchanged(bc, "amphibious", "approach", "LC-1", "--at", "29,10", code=3) == (
        "Error: LC-1 was forced back off the table this turn: it comes back next turn (CD 8.2.4)\n"
    )
    next_movement(bc)
    r = j(bc, "amphibious", "approach", "LC-1", "--at", "29,10")
    assert r["craft"][0]["approach"] == [29, 4]


def test_forced_back_while_running_in_returns_to_the_approach(bc: Run) -> None:
    bc("amphibious", "approach", "LC-1", "--at", "29,10")
    r = j(bc, "amphibious", "hit", "LC-1", "--effect", "forced back", "--moving")
    assert r["result"] == "back to the approach position (CD 8.2.4)"
    assert (row(bc, "LC-1")["x"], row(bc, "LC-1")["y"]) == (29, 4)


def test_forced_back_after_disembarking_removes_the_craft(bc: Run) -> None:
    bc("amphibious", "approach", "LC-1", "--at", "29,10")
    next_movement(bc)
    bc("amphibious", "land", "LC-1")
    r = j(bc, "amphibious", "hit", "LC-1", "--effect", "forced back")
    assert r["result"] == "removed from play: forced back after landing its troops (CD 8.2.4)"
    assert stands(bc)["LC-1"]["status"] == "removed"


def test_an_amphibious_vehicle_on_land_is_forced_back_as_usual(bc: Run) -> None:
    bc("amphibious", "approach", "LVT-1", "--at", "20,10")
    next_movement(bc)
    bc("amphibious", "land", "LVT-1")
    j(bc, "amphibious", "hit", "LVT-1", "--effect", "forced back")
    assert "forced-back" in stands(bc)["LVT-1"]["markers"]


@pytest.mark.parametrize(
    ("stand", "result"),
    [
        ("US-RIFLE", "wade ashore again"),
        ("US-HQ", "wade ashore again"),
    ],
)
def test_personnel_forced_into_the_water_wade(bc: Run, stand: str, result: str) -> None:
    r = j(bc, "amphibious", "into-water", stand, "--at", "30,8")
    assert r["result"] == f"in the water: it must {result} (CD 8.1.4, 8.2.4)"
    assert row(bc, stand)["amphib"]["stage"] == "wading"


def test_a_vehicle_forced_into_the_water_is_eliminated_unless_it_swims(bc: Run) -> None:
    bc("place", "TK-1", "45", "12")
    r = j(bc, "amphibious", "into-water", "TK-1", "--at", "45,8")
    assert (
        r["result"]
        == "eliminated: a vehicle that is not amphibious forced into the water (CD 8.2.4)"
        and stands(bc)["TK-1"]["status"] == "eliminated"
    )
    bc("place", "DUKW-1", "20", "12")
    r = j(bc, "amphibious", "into-water", "DUKW-1", "--at", "20,8")
    assert (
        r["result"] == "afloat: an amphibious vehicle swims"
        and stands(bc)["DUKW-1"]["status"] == "ok"
    )
    assert unchanged(bc, "amphibious", "into-water", "US-HQ", "--at", "30,20", code=2) == (
        "Error: --at 30,20 is not in the sea\n"
    )


@pytest.mark.parametrize(
    ("roll", "fate", "where"),
    [
        ("9", "eliminated", None),
        ("5", "forced back", [29, 4]),  # to the approach position, to wade
        ("2", "no effect", [29, 4]),  # where the craft went down (it was at the approach)
    ],
)
def test_personnel_aboard_a_sunk_craft_take_a_hit(
    bc: Run, roll: str, fate: str, where: list[float] | None
) -> None:
    bc("amphibious", "approach", "LC-1", "--at", "29,10")
    r = j(bc, "amphibious", "hit", "LC-1", "--effect", "eliminated", "--dice", roll)
    assert r["cargo"]["A-1"].startswith(fate)
    a1 = row(bc, "A-1")
    if where is None:
        assert a1["status"] == "eliminated"
    else:
        assert [a1["x"], a1["y"]] == where and a1["amphib"]["stage"] == "wading"


def test_a_craft_sunk_on_its_run_in_leaves_its_troops_where_it_sank(bc: Run) -> None:
    bc("amphibious", "approach", "LC-1", "--at", "43,10")
    next_movement(bc)
    # The gates hit the craft (9: eliminated); A-1 survives (2) and wades from there.
    r = j(bc, "amphibious", "land", "LC-1", "--dice", "9,2")
    assert r["craft"][0]["hazards"][0]["cargo"]["A-1"].startswith("no effect")
    a1 = row(bc, "A-1")
    assert [a1["x"], a1["y"]] == [43, 7]


def test_vehicles_aboard_a_sunk_craft_go_down_with_it(bc: Run) -> None:
    bc("amphibious", "approach", "LCM-1", "--at", "29,10")
    r = j(bc, "amphibious", "hit", "LCM-1", "--effect", "eliminated")
    assert r["cargo"] == {"TK-1": "eliminated with its craft"}
    assert stands(bc)["TK-1"]["status"] == "eliminated"


def test_fire_at_a_craft_is_resolved_at_the_end_of_the_phase(bc: Run) -> None:
    # An ordinary 'fire' eliminates the craft; the phase end applies CD 8.2.5 to its cargo.
    bc("amphibious", "approach", "LC-1", "--at", "29,10")
    bc("phase", "next")
    bc("fire", "G-MG", "LC-1", "--range", "10", "--dice", "1,10,9")
    assert stands(bc)["LC-1"]["status"] == "eliminated"
    r = as_json(bc("phase", "next", "--dice", "2", "--json"))
    (wave,) = [h for h in r["happened"] if h["what"] == "landing wave"]
    assert wave["stand"] == "LC-1" and wave["result"] == "eliminated: removed from play (CD 8.2.5)"
    assert row(bc, "A-1")["amphib"]["stage"] == "wading"


def test_hit_refuses_what_is_not_in_a_landing_wave(bc: Run) -> None:
    assert unchanged(bc, "amphibious", "hit", "A-1", code=2) == (
        "Error: A-1 is not a landing craft or amphibious vehicle: give it 'craft:' in "
        "the scenario (CD 8.1)\n"
    )
    assert (
        unchanged(bc, "amphibious", "hit", "LC-1", code=3)
        == "Error: LC-1 is not on the table as part of a landing wave\n"
    )


# --- CD 8.3: lift points ----------------------------------------------------------------------


def test_lift_points_for_odd_and_even_waves(bc: Run) -> None:
    r = j(bc, "amphibious", "lift", "--side", "USA", "--odd", "1", "--even", "5")
    assert (r["odd"], r["even"]) == (1, 5)
    bc("amphibious", "approach", "LC-1", "--at", "29,10", "--wave", "1")
    # The first wave's craft sinks with A-1 aboard: one lift point lost to odd waves.
    j(bc, "amphibious", "hit", "LC-1", "--effect", "eliminated", "--dice", "2")
    shown = j(bc, "amphibious", "lift", "--side", "USA")
    assert shown["lost"] == {"1": 1}
    # Wave 2 (even) still has its 5 points: the class V tank needs all of them (CD 8.3.1).
    r = j(bc, "amphibious", "approach", "--wave", "2", "--at", "20,10")
    assert r["lift"] == {"needed": 5, "left": 0, "pool": "even", "wave": 2, "capacity": 5}
    # Wave 3 (odd) has none left.
    out = unchanged(bc, "amphibious", "approach", "--wave", "3", "--at", "40,10", code=3)
    assert out == (
        "Error: wave 3 needs 1 lift point but USA has 0 left for odd waves (CD 8.3.1, 8.3.2)\n"
    )


def test_lift_shown_as_what_each_wave_can_carry(bc: Run) -> None:
    # CD 8.3.2: lift is two totals, one for odd and one for even waves; craft lost in a wave
    # reduce only the later waves of its parity. Nothing is used up by landing.
    bc("amphibious", "lift", "--side", "USA", "--odd", "10", "--even", "6")
    out = bc("amphibious", "approach", "--wave", "1", "--at", "30,10").output
    assert out.splitlines()[4] == (
        "  lift: wave 1 takes 3 of the 10 points odd waves can carry now; room for 7 "
        "more in this wave (CD 8.3)"
    )
    j(bc, "amphibious", "hit", "LC-1", "--effect", "eliminated", "--dice", "2")  # 1 point
    shown = bc("amphibious", "lift", "--side", "usa").output
    assert shown.splitlines() == [
        "USA lift points (CD 8.3):",
        "  odd waves: 10 points, 1 lost (wave 1: 1); wave 1 carries 3 of 10 (room for 7 more);"
        " wave 3 can carry 9",
        "  even waves: 6 points, none lost; wave 2 can carry 6",
    ]
    assert "{" not in shown
    next_movement(bc)  # turn 2: wave 1 is over
    waves = j(bc, "amphibious", "lift", "--side", "USA")["waves"]
    assert (waves["odd"]["next_wave"], waves["odd"]["carries"], waves["odd"]["loading"]) == (
        3, 9, None,
    )  # fmt: skip
    assert (waves["even"]["next_wave"], waves["even"]["carries"]) == (2, 6)


def test_a_wave_cannot_exceed_its_lift(bc: Run) -> None:
    bc("amphibious", "lift", "--side", "USA", "--odd", "2", "--even", "2")
    out = unchanged(bc, "amphibious", "approach", "--wave", "1", "--at", "30,10", code=3)
    assert out == (
        "Error: wave 1 needs 3 lift points but USA has 2 left for odd waves (CD 8.3.1, 8.3.2)\n"
    )


def test_lift_bad_input(bc: Run) -> None:
    unchanged(bc, "amphibious", "lift", "--side", "USA", "--odd", "3", code=2)
    unchanged(bc, "amphibious", "lift", "--side", "Mars", "--odd", "3", "--even", "3", code=2)
    assert bc("amphibious", "lift", "--side", "USA").output == "USA: lift points are not tracked\n"


# --- CD 8.4: naval gunfire ---------------------------------------------------------------------


def test_preliminary_bombardment(bc: Run) -> None:
    r = j(bc, "amphibious", "bombard", "--side", "USA", "--area", "0,14", "--area", "60,40",
          "--per-stand", "2", "--dice", "8,8,8,8,8,8,8,8")  # fmt: skip
    assert set(r["stands"]) == {"G-1", "G-2", "G-MG", "G-TK"}
    to_hit = {s: v["to_hit"] for s, v in r["stands"].items()}
    # light cruiser HE 7; woods -2 (medium cover); a class IV tank -4
    assert to_hit == {"G-1": 7, "G-2": 5, "G-MG": 7, "G-TK": 3}
    assert all(len(v["rolls"]) == 2 for v in r["stands"].values())
    out = unchanged(bc, "amphibious", "bombard", "--side", "USA", "--area", "0,14",
                    "--area", "60,40", "--per-stand", "1", code=3)  # fmt: skip
    assert out == (
        "Error: the preliminary bombardment comes once, before the battle's first turn "
        "is played (CD 8.4.1)\n"
    )


def test_bombardment_dice_by_year_and_limits(bc: Run) -> None:
    r = j(bc, "amphibious", "bombard", "--side", "USA", "--area", "25,25", "--area", "35,35",
          "--year", "1944")  # fmt: skip
    assert r["dice_per_stand"] == 2 and set(r["stands"]) == {"G-1"}
    bc("undo")
    assert unchanged(bc, "amphibious", "bombard", "--side", "USA", "--area",
                     "0,0", "--area", "9,9", "--per-stand", "4", code=2) == (
        "Error: --per-stand 4: give 1 to 3 dice (CD 8.4.1)\n"
    )  # fmt: skip
    assert unchanged(bc, "amphibious", "bombard", "--side", "USA", "--area",
                     "0,0", "--area", "9,9", code=2) == (
        "Error: give --per-stand 1-3, or --year 1943, 1944 or 1945 for the default\n"
    )  # fmt: skip


def test_warship_ratings_table() -> None:
    # CD 8.4.2 warship ratings: ROF and HE template and number.
    from click.testing import CliRunner

    from tabletop.cli import cli

    out = CliRunner().invoke(cli, ["amphibious", "ships", "--json", "--game", "/nonexistent"])
    rows = {s["ship"]: (s["rof"], s["burst"], s["he"], s["self_observe"])
            for s in json_of(out.output)["ships"]}  # fmt: skip
    assert rows == {
        "battleship": (3, 2, 9, False),
        "heavy-cruiser": (3, 2, 8, False),
        "light-cruiser": (3, 2, 7, False),
        "destroyer": (2, 2, 7, True),
        "destroyer-escort": (1, 2, 7, True),
        "apd": (1, 1, 4, True),
    }


def json_of(text: str) -> Any:
    import json

    return json.loads(text)


def to_artillery(run: Run) -> None:
    run("turn", "next", "--yes")
    run("phase", "next")


@pytest.mark.parametrize(
    ("ship", "observer", "number"),
    [
        ("DD-1", "US-FO", 5),  # its own ship: a dedicated battery, 3 + 2
        ("BB-1", "US-JASCO", 3),  # any ship, as an artillery command stand
        ("DD-1", "US-HQ", 2),  # a non-artillery command stand, 3 - 1
    ],
)
def test_who_may_call_naval_fire(bc: Run, ship: str, observer: str, number: int) -> None:
    to_artillery(bc)
    r = j(bc, "amphibious", "naval-fire", ship, "--at", "50,16", "--observer", observer,
          "--dice", "6")  # fmt: skip
    assert r["request"]["number"] == number
    assert r["request"]["answered"] is False and r["barrage"] is None


def test_answered_naval_fire_is_indirect_he(bc: Run) -> None:
    to_artillery(bc)
    r = j(bc, "amphibious", "naval-fire", "DD-1", "--at", "50,16", "--observer", "US-FO",
          "--dice", "5,9")  # fmt: skip
    assert r["request"]["answered"] is True
    assert r["barrage"]["weapon"] == "destroyer" and r["barrage"]["under_template"] == ["G-MG"]
    assert r["barrage"]["to_hit"]["G-MG"] == 7


def test_a_ship_that_has_fired_is_refused_before_its_request_die(bc: Run) -> None:
    to_artillery(bc)
    j(bc, "amphibious", "naval-fire", "DD-1", "--at", "50,16", "--observer", "US-FO",
      "--dice", "5,9")  # fmt: skip
    out = unchanged(bc, "amphibious", "naval-fire", "DD-1", "--at", "50,16", "--observer",
                    "US-FO", "--dice", "6", code=3)  # fmt: skip
    assert out == (
        "Error: DD-1 cannot fire its destroyer again this turn: it fired in the "
        "artillery phase (barrage DD-1); each weapon fires once a turn, in one phase: "
        "opportunity fire, fire, or a barrage (CD core (default), ammo chart "
        "fires-per-turn)\n"
    )


@pytest.mark.parametrize(
    ("ship", "observer", "says"),
    [
        ("BB-1", "US-FO", "calls only its own ship"),
        ("DD-1", "US-RIFLE", "only command stands, naval FOs and JASCO"),
        ("BB-1", "BB-1", "only destroyers and smaller"),
        ("US-HQ", "US-HQ", "not a fire support ship"),
    ],
)
def test_naval_fire_refusals(bc: Run, ship: str, observer: str, says: str) -> None:
    to_artillery(bc)
    out = unchanged(bc, "amphibious", "naval-fire", ship, "--at", "50,16", "--observer",
                    observer, code=3)  # fmt: skip
    assert says in out and "CD 8.4" in out


def test_a_ship_given_as_a_craft_is_told_how_to_fix_it(run: Run, tmp_path: Path) -> None:
    text = (
        Path(SCENARIO)
        .read_text(encoding="utf-8")
        .replace(
            "{id: DD-1, kind: warship, quality: regular, formation: NAVY, weapons: [destroyer]}",
            "{id: DD-1, kind: warship, quality: regular, formation: NAVY, craft: destroyer}",
        )
    )
    scenario = tmp_path / "beach.yaml"
    scenario.write_text(text, encoding="utf-8")
    # The scenario check catches it when the game starts, with the file and line.
    out = run("new", str(scenario), "--seed", "5", code=2).output
    # the line and the stand's place in the list follow the bundled scenario's text
    assert re.fullmatch(
        r"Error: beach\.yaml:\d+: sides\[1\]\.stands\[\d+\]\.craft: 'destroyer' is a warship's "
        r"weapon, not a landing craft: give the ship 'weapons: \[destroyer\]' for naval "
        r"fire \(CD 8\.4\)\n",
        out,
    )


def test_destroyers_observe_what_the_beach_can_see(bc: Run) -> None:
    to_artillery(bc)
    # Right behind the ridge nothing on the beach sees the ground.
    out = unchanged(bc, "amphibious", "naval-fire", "DD-1", "--at", "30,20", "--observer",
                    "DD-1", code=3)  # fmt: skip
    assert out == (
        "Error: 30,20 cannot be seen from any point along the beach: DD-1 cannot "
        "observe it (CD 8.4.3)\n"
    )
    r = j(bc, "amphibious", "naval-fire", "DD-1", "--at", "50,16", "--observer", "DD-1",
          "--dice", "9")  # fmt: skip
    assert r["request"]["as"] == "self-observing ship" and r["barrage"] is not None


def test_an_observer_must_see_the_target(bc: Run) -> None:
    to_artillery(bc)
    out = unchanged(bc, "amphibious", "naval-fire", "DD-1", "--at", "30,30", "--observer",
                    "US-FO", code=3)  # fmt: skip
    assert out == (
        "Error: US-FO cannot see 30,30 (hill-1): it cannot observe naval fire there (CD 8.4.3)\n"
    )


def test_naval_fire_in_the_artillery_phase_only(bc: Run) -> None:
    out = unchanged(bc, "amphibious", "naval-fire", "DD-1", "--at", "50,16", "--observer",
                    "US-FO", code=3)  # fmt: skip
    assert out == (
        "Error: naval fire is not allowed in the movement phase: it happens in the "
        "artillery phase (turn chart); advance with 'tabletop phase next'\n"
    )


# --- the whole landing, logged ---------------------------------------------------------------


def test_text_output_undo_and_replay(bc: Run) -> None:
    bc("amphibious", "lift", "--side", "USA", "--odd", "10", "--even", "10")
    out = bc("amphibious", "approach", "--wave", "1", "--at", "30,10", "--scatter")
    assert out.output.splitlines()[0] == 'wave 1: 3 craft making their approach, 6" off the beach'
    next_movement(bc)
    out = bc("amphibious", "land", "LC-1", "LC-2", "LC-3")
    assert out.output.splitlines()[0] == "3 of 3 craft reached the beach"
    assert bc("replay").output == "replay reproduces the stored state (7 events)\n"
    bc("undo")
    assert math.isclose(row(bc, "LC-1")["y"], 4)


# --- Odds (issue 20): exact, part by part, against brute force over the dice ---------------------


class Faces:
    """Dice that show the given faces in order (brute force drives the rolling code with it)."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def roll(self, sides: int, purpose: str) -> int:
        value = self.values.pop(0)
        assert value <= sides, purpose
        return value


def add_to(into: dict[str, Fraction], key: str, p: Fraction) -> None:
    into[key] = into.get(key, Fraction(0)) + p


def exact(out: dict[str, str]) -> dict[str, Fraction]:
    return {k: Fraction(v) for k, v in out.items()}


def test_scatter_odds_match_brute_force_over_the_dice(bc: Run) -> None:
    # CD 8.1.3: each company's die scatters on 5 or less, then even left, odd right, 2 x D10".
    # Brute force over all three dice of a company, each throw 1/1000 (a die that is not
    # needed still has its ten faces).
    from tabletop.rules.cd.amphibious.landing import scatter_roll

    before = file_digest(bc.game)  # type: ignore[attr-defined]
    r = j(bc, "amphibious", "approach", "--wave", "1", "--at", "30,10", "--scatter", "--odds")
    assert [p["part"] for p in r["parts"]] == ["A/116", "B/116"]
    charts = load_charts()
    outcomes: dict[str, Fraction] = {}
    where: dict[str, Fraction] = {}
    for faces in itertools.product(range(1, 11), repeat=3):
        s = scatter_roll(Faces(*faces), charts, "A/116")
        p = Fraction(1, 1000)
        add_to(outcomes, f"scattered {s['direction']}" if s["scattered"] else "on target", p)
        add_to(where, f'{s["direction"]} {abs(s["inches"]):g}"' if s["scattered"] else
               "on target", p)  # fmt: skip
    for part in r["parts"]:
        assert exact(part["outcomes"]) == outcomes
        assert exact(part["where"]) == where
    assert outcomes == {"on target": Fraction(1, 2), "scattered left": Fraction(1, 4),
                        "scattered right": Fraction(1, 4)}  # fmt: skip
    assert where['left 20"'] == Fraction(1, 40)
    assert Fraction(r["expected"]["companies scattered"]) == 1
    # Nothing was rolled or logged; 'tabletop odds' asks the same.
    assert file_digest(bc.game) == before  # type: ignore[attr-defined]
    mirrored = j(bc, "odds", "amphibious", "approach", "--wave", "1", "--at", "30,10",
                 "--scatter")  # fmt: skip
    assert mirrored == r


def test_land_odds_match_brute_force_over_the_dice(bc: Run) -> None:
    # CD 8.1.6, 8.2.4, 8.2.5: LC-1 runs in across gates-1 (trained crew); an eliminated
    # craft's passenger A-1 takes a hit. Brute force: both dice through the rolling code on
    # a fresh copy of the state, each throw 1/100.
    from dataclasses import replace

    from tabletop.game.engine import Game
    from tabletop.rules.cd.amphibious.landing import _land_one
    from tabletop.rules.cd.amphibious.odds import _land_outcome

    bc("amphibious", "approach", "LC-1", "--at", "43,10")
    next_movement(bc)
    r = j(bc, "amphibious", "land", "LC-1", "--odds")
    ctx = Game.open(bc.game).context()  # type: ignore[attr-defined]
    brute: dict[str, Fraction] = {}
    for faces in itertools.product(range(1, 11), repeat=2):
        mine = replace(ctx, dice=Faces(*faces), state=ctx.state.copy())
        craft = mine.state.stand("LC-1")
        kind = ctx.charts.table("amphibious")["landing-craft"]
        add_to(brute, _land_outcome(_land_one(mine, craft, kind)), Fraction(1, 100))
    [part] = r["parts"]
    assert exact(part["outcomes"]) == brute
    assert exact(part["where"]) == {"approach": Fraction(2, 5), "sunk": Fraction(2, 5),
                                    "disembarked": Fraction(1, 5)}  # fmt: skip
    assert Fraction(r["expected"]["craft ashore"]) == Fraction(1, 5)
    out = bc("amphibious", "land", "LC-1", "--odds").output.splitlines()
    assert out[:5] == [
        "Odds: amphibious-land, craft by craft (exact; nothing rolled or logged)",
        "  LC-1:",
        "     40.0%  approach (gates-1: forced back, back to the approach position (CD",
        "              8.2.4))",
        "     20.0%  disembarked (gates-1: no effect; A-1 ashore)",
    ]
    assert "    ends: approach 40.0%, sunk 40.0%, disembarked 20.0%" in out
    assert "  expected: craft ashore 0.200" in out


def test_bombard_odds_match_brute_force_over_the_dice(bc: Run) -> None:
    # CD 8.4.1: two D10 at G-1 (HE 7, in the open: a hit on 7 or less, or a 1), an effect die
    # for each hit, the worst effect counts. Brute force over all four dice, 1/10^4 each (an
    # effect die after a miss is not needed but still has its ten faces).
    from dataclasses import replace

    from tabletop.game.engine import Game
    from tabletop.rules.cd.amphibious import naval

    before = file_digest(bc.game)  # type: ignore[attr-defined]
    r = j(bc, "amphibious", "bombard", "--side", "USA", "--area", "25,25", "--area", "35,35",
          "--per-stand", "2", "--odds")  # fmt: skip
    assert file_digest(bc.game) == before  # type: ignore[attr-defined]
    ctx = Game.open(bc.game).context()  # type: ignore[attr-defined]
    stand = ctx.state.stand("G-1")
    weapon = ctx.charts.weapons["light-cruiser"]
    plan = naval.bombard_target(ctx, stand, weapon, False)
    assert plan.to_hit == 7
    worst: dict[str, Fraction] = {}
    hits: dict[str, Fraction] = {}
    for r1, e1, r2, e2 in itertools.product(range(1, 11), repeat=4):
        found = [naval.bombard_die(replace(ctx, dice=Faces(r, e)), stand, plan, 1, 2)[2]
                 for r, e in ((r1, e1), (r2, e2))]  # fmt: skip
        effects = [f for f in found if f is not None]
        key = max(effects, key=naval.SEVERITY.__getitem__) if effects else None
        add_to(worst, "no hit" if key is None else f"hit: {key}", Fraction(1, 10_000))
        n = len(effects)
        add_to(hits, f"{n} hit" + ("" if n == 1 else "s"), Fraction(1, 10_000))
    [part] = r["parts"]
    assert part["part"] == "G-1 (needs 7 or less)"
    assert exact(part["outcomes"]) == worst
    assert exact(part["where"]) == hits == {"0 hits": Fraction(9, 100), "1 hit": Fraction(42, 100),
                                            "2 hits": Fraction(49, 100)}  # fmt: skip
    assert Fraction(r["expected"]["hits"]) == Fraction(7, 5)
    # An area with no enemy stand rolls nothing, and says so.
    out = bc("amphibious", "bombard", "--side", "USA", "--area", "0,0", "--area", "1,1",
             "--per-stand", "2", "--odds").output.splitlines()  # fmt: skip
    assert out[1] == "  nothing here would be rolled"


def test_naval_fire_odds_match_the_whole_command_run_over_its_dice(bc: Run) -> None:
    # CD 8.4.3: US-FO calls its own ship DD-1 (a dedicated battery: 5 or less answers), then
    # the destroyer's HE burst falls on G-MG alone. The whole command run over every face of
    # every die (Game.odds) is the brute force here; a miss under the template suppresses.
    from tabletop.game.engine import Game

    to_artillery(bc)
    r = j(bc, "amphibious", "naval-fire", "DD-1", "--at", "50,16", "--observer", "US-FO",
          "--odds")  # fmt: skip
    answer, stand = r["parts"]
    assert exact(answer["outcomes"]) == {"answers": Fraction(1, 2),
                                         "does not answer": Fraction(1, 2)}  # fmt: skip
    assert stand["part"] == "G-MG (needs 7 or less)"
    inputs = {"ship": "DD-1", "at": [50, 16], "observer": "US-FO"}
    whole = Game.open(bc.game).odds("amphibious-naval-fire", inputs)  # type: ignore[attr-defined]
    brute: dict[str, Fraction] = {}
    for verdict, p in whole.outcomes.items():
        if "does not answer" in verdict:
            add_to(brute, "not answered", p)
        elif "no hits" in verdict:
            add_to(brute, "suppressed", p)
        else:
            add_to(brute, verdict.rsplit("(", 1)[1].rstrip(")"), p)
    assert exact(stand["outcomes"]) == brute
