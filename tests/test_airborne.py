"""Airborne operations, Command Decision section 7, driven through the CLI.

The scenario (tests/data/airborne.yaml) opens in the artillery and air phase of turn 1 with
a German parachute company (3/FJR-6, veteran aircrews), a mixed one with a gun (4/FJR-6,
green aircrews) and a glider company (1/LLR, regular crews) off the table, and British AA
and infantry around the zone at 20,20.

Dice order of a drop: each AA gun's dice (after a hit: which aircraft, then its hit effect),
then for each square a d100 (Box-Muller u), a d100 (bearing) and a d10 (marked side), then
the hit effect of each square that landed down in woods. "100,1,1" is a square that drifts
a tenth of its sigma and lands marked side up.
"""

from __future__ import annotations

import functools
import itertools
import math
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.data.chart_files import load_charts
from tabletop.data.charts import Charts
from tabletop.rules.cd.airborne import drop as airborne
from tests.conftest import Run, as_json, file_digest

SCENARIO = str(Path(__file__).parent / "data" / "airborne.yaml")
CALM = "100,1,1"  # tiny drift, marked side up
CALM_DOWN = "100,1,6"  # tiny drift, marked side down
LAKE = [(40, 10), (60, 10), (60, 30), (40, 30)]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scenario's opening game, made once and copied for each test."""
    from click.testing import CliRunner

    from tabletop.cli import cli

    path = tmp_path_factory.mktemp("airborne") / "game.sqlite"
    result = CliRunner().invoke(cli, ["new", SCENARIO, "--seed", "3", "--game", str(path)])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def ab(run: Run, template: Path) -> Run:
    for suffix in ("", "-wal", "-shm"):
        source = template.with_name(template.name + suffix)
        if source.exists():
            shutil.copyfile(source, Path(str(run.game) + suffix))  # type: ignore[attr-defined]
    return run


def dice(*parts: str) -> str:
    return ",".join(parts)


def drop(run: Run, *args: str, code: int = 0) -> Any:
    out = run("airborne", "drop", *args, "--json", code=code)
    return as_json(out) if code == 0 else out


def glider(run: Run, *args: str, code: int = 0) -> Any:
    out = run("airborne", "glider", *args, "--json", code=code)
    return as_json(out) if code == 0 else out


def stands(run: Run) -> dict[str, Any]:
    return {s["id"]: s for s in as_json(run("status", "--json"))["stands"]}


def squares(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {sq["square"]: sq for sq in result["squares"]}


# --- CD 7.2.1: drop heights (golden examples) ----------------------------------------------------


@pytest.mark.parametrize(
    ("light", "weather", "overcast", "hits", "height"),
    [
        # CD 7.2.1 example: a veteran crew drops from 12" by day, 18" and 24" when hit,
        # and three hits abort.
        ("day", "clear", None, 0, 12),
        ("day", "clear", None, 1, 18),
        ("day", "clear", None, 2, 24),
        ("day", "clear", None, 3, None),
        # CD 7.2.1 example: on an overcast night 24", 30" with one hit, 36" with two.
        ("night-moonlit", "clear", True, 0, 24),
        ("night-moonlit", "clear", True, 1, 30),
        ("night-moonlit", "clear", True, 2, 36),
        ("night-moonlit", "clear", True, 3, None),
        # A clear moonlit night adds 6"; a moonless night 12"; bad weather 12" (not added
        # to the night's raise: the largest applies).
        ("night-moonlit", "clear", None, 0, 18),
        ("night-dark", "clear", None, 0, 24),
        ("day", "rain-heavy", None, 0, 24),
        ("night-dark", "fog", None, 1, 30),
        ("night-moonlit", "rain-light", None, 0, 24),  # a wet moonlit night is overcast
    ],
)
def test_drop_height_golden(
    charts: Charts, light: str, weather: str, overcast: bool | None, hits: int, height: int | None
) -> None:
    conditions = {"light": light, "weather": weather, "wind": {"from": 3, "force": "light"}}
    raised = airborne.condition_raise(charts, conditions, overcast, None)
    got, _ = airborne.drop_height(charts, "veteran", hits, raised)
    assert got == height


@pytest.mark.parametrize(
    ("crew", "height"),
    [
        ("elite", 6),
        ("veteran", 12),
        ("experienced", 18),
        ("regular", 24),
        ("trained", 30),
        ("green", 36),
    ],
)
def test_daylight_height_by_aircrew_through_the_cli(ab: Run, crew: str, height: int) -> None:
    r = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--crew", crew, "--no-aa",
             "--dice", CALM)  # fmt: skip
    assert r["squares"][0]["height"] == height


def test_overcast_night_heights_through_the_cli(ab: Run) -> None:
    # CD 7.2.1 example, with the radar-equipped flak (full dice at night, CD 9.1.6) scoring
    # forced-back results on two of the four transports.
    ab("weather", "set", "--light", "night-moonlit")
    r = drop(ab, "3/FJR-6", "--zone", "20,20", "--heading", "90", "--overcast",
             "--aa", "B-RADAR", "--dice", dice("1", "2", "6", CALM, CALM, CALM, CALM))  # fmt: skip
    heights = {sq["square"]: sq["height"] for sq in r["squares"]}
    assert heights == {"FJ-1": 24, "FJ-2": 30, "FJ-3": 24, "FJ-4": 24}


def test_bad_flying_weather_is_the_referees_call_too(ab: Run) -> None:
    r = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--no-aa", "--bad-weather",
             "--dice", CALM)  # fmt: skip
    assert r["squares"][0]["height"] == 24
    assert r["raise"]["name"] == "bad flying weather"


# --- CD 7.2.2: AA fire at transports ----------------------------------------------------------


def test_bofors_example_golden(ab: Run) -> None:
    # CD 7.2.2 example: one Bofors within 24" rolls one die needing 3, hits, the hit effect
    # is a 6 (forced back for a veteran crew); the stand it hit drops from 18", the rest
    # of the company from 12".
    r = drop(ab, "3/FJR-6", "--zone", "20,20", "--heading", "90", "--aa", "B-AA",
             "--dice", dice("3", "2", "6", CALM, CALM, CALM, CALM))  # fmt: skip
    (shot,) = r["aa"]
    assert (shot["dice"], shot["to_hit"], shot["rolls"]) == (1, 3, [3])
    assert shot["hits"] == [{"aircraft": "FJ-2", "effect": "forced back", "aborted": False}]
    heights = {sq["square"]: sq["height"] for sq in r["squares"]}
    assert heights == {"FJ-1": 12, "FJ-2": 18, "FJ-3": 12, "FJ-4": 12}


def test_bofors_example_descending_fire_golden(ab: Run) -> None:
    # ... and the British infantry 6" off fire at the paratroopers as they come down,
    # hitting on 3: normally 5 at medium range, -2 at descending targets.
    drop(ab, "3/FJR-6", "--zone", "20,20", "--heading", "90", "--aa", "B-AA",
         "--dice", dice("3", "2", "6", CALM, CALM, CALM, CALM))  # fmt: skip
    r = as_json(ab("airborne", "fire", "B-1", "FJ-2", "--dice", "4", "--json"))
    assert (r["band"], r["base"], r["to_hit"]) == ("medium", 5, 3)
    assert [m["name"] for m in r["modifiers"]] == ["target is paratroopers descending (no cover)"]
    assert r["hits"] == 0


def test_each_shooter_fires_once_at_the_descending_stick(ab: Run) -> None:
    # The Bofors example: B-AA fired at the aircraft, so it has no fire left for the
    # paratroopers (it "chooses to fire at the aircraft", CD 7.2.2); B-1 fires once.
    drop(ab, "3/FJR-6", "--zone", "20,20", "--heading", "90", "--aa", "B-AA",
         "--dice", dice("3", "2", "6", CALM, CALM, CALM, CALM))  # fmt: skip
    ab("airborne", "fire", "B-1", "FJ-2", "--dice", "4")
    before = file_digest(ab.game)  # type: ignore[attr-defined]
    again = ab("airborne", "fire", "B-1", "FJ-3", code=3).output
    assert again == (
        "Error: B-1 cannot fire its rifle again this turn: it fired in the artillery "
        "phase (fire B-1 -> FJ-2); each weapon fires once a turn, in one phase: "
        "opportunity fire, fire, or a barrage (CD core (default), ammo chart "
        "fires-per-turn)\n"
    )
    aa = ab("airborne", "fire", "B-AA", "FJ-3", code=3).output
    assert aa == (
        "Error: B-AA cannot fire its bofors-40 again this turn: it fired in the "
        "artillery phase (AA B-AA); each weapon fires once a turn, in one phase: "
        "opportunity fire, fire, or a barrage (CD core (default), ammo chart "
        "fires-per-turn)\n"
    )
    assert file_digest(ab.game) == before  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("stand", "dice_", "to_hit", "why"),
    [
        ("B-AA", 1, 3, None),  # bofors ROF 2: one die
        ("B-RADAR", 1, 4, None),  # veteran +1 (aa-veteran)
        ("B-GREEN", 1, 2, None),  # flak-88 ROF 1: half, rounded up; green -1 (aa-green)
        ("B-FAR", 1, 4, "beyond 24"),
    ],
)
def test_aa_dice_numbers_and_reach(
    ab: Run, stand: str, dice_: int, to_hit: int, why: str | None
) -> None:
    r = as_json(ab("airborne", "aa", "--zone", "20,20", "--side", "Germany", "--json"))
    found = {c["stand"]: c for c in r["aa"]}[stand]
    assert (found["dice"], found["to_hit"]) == (dice_, to_hit)
    assert (found["why_not"] is None) == (why is None)
    if why:
        assert found["why_not"] == '41.4" from the zone, beyond 24" (CD 7.2.2)'


def test_only_stationary_aa_fires(ab: Run) -> None:
    ab("place", "B-AA", "20", "34")
    r = as_json(ab("airborne", "aa", "--zone", "20,20", "--side", "Germany", "--json"))
    assert "B-AA" not in r["firing"]
    before = file_digest(ab.game)  # type: ignore[attr-defined]
    out = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--aa", "B-AA", code=3)
    assert out.output == (
        "Error: B-AA cannot fire at the aircraft: moved this turn: only stationary AA "
        "fires (CD 7.2.2)\n"
    )
    assert file_digest(ab.game) == before  # type: ignore[attr-defined]


def test_an_aa_gun_fires_once_a_turn(ab: Run) -> None:
    # AA fire counts against the gun's fire for the turn (charted fires-per-turn).
    drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--aa", "B-AA", "--dice", "9,+")
    r = as_json(ab("airborne", "aa", "--zone", "20,20", "--side", "Germany", "--json"))
    found = {c["stand"]: c for c in r["aa"]}
    assert (
        found["B-AA"]["why_not"]
        == (
            "B-AA cannot fire its bofors-40 again this turn: it fired in the artillery "
            "phase (AA B-AA); each weapon fires once a turn, in one phase: opportunity "
            "fire, fire, or a barrage (CD core (default), ammo chart fires-per-turn)"
        )
        and "B-AA" not in r["firing"]
    )
    before = file_digest(ab.game)  # type: ignore[attr-defined]
    out = drop(ab, "3/FJR-6", "--zone", "20,20", "--heading", "90", "--aa", "B-AA", code=3)
    assert out.output == (
        "Error: B-AA cannot fire at the aircraft: B-AA cannot fire its bofors-40 again "
        "this turn: it fired in the artillery phase (AA B-AA); each weapon fires once "
        "a turn, in one phase: opportunity fire, fire, or a barrage (CD core "
        "(default), ammo chart fires-per-turn)\n"
    )
    assert file_digest(ab.game) == before  # type: ignore[attr-defined]


def test_aa_at_night_loses_a_die_without_detection(ab: Run) -> None:
    # CD 9.1.6: one die fewer; the Bofors' one die becomes none. Radar keeps its die.
    ab("weather", "set", "--light", "night-dark")
    r = as_json(ab("airborne", "aa", "--zone", "20,20", "--side", "Germany", "--json"))
    found = {c["stand"]: c for c in r["aa"]}
    assert (
        found["B-AA"]["dice"] == 0
        and found["B-AA"]["why_not"] == "no dice left at night (CD 9.1.6)"
    )
    assert found["B-RADAR"]["dice"] == 1 and found["B-RADAR"]["why_not"] is None


def test_three_forced_backs_abort_a_transport(ab: Run) -> None:
    # Three AA guns each hit the one transport, each a forced back (veteran crew: 6-7).
    r = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90",
             "--dice", "1,6,1,6,1,6")  # fmt: skip
    assert [h["effect"] for s in r["aa"] for h in s["hits"]] == ["forced back"] * 3
    assert r["squares"][0]["outcome"] == "aborted"
    assert stands(ab)["FJ-1"]["status"] == "aborted"


def test_an_eliminated_result_aborts_a_transport(ab: Run) -> None:
    r = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--aa", "B-AA",
             "--dice", "2,8")  # fmt: skip
    assert r["squares"][0]["outcome"] == "aborted"
    assert r["squares"][0]["why"] == "eliminated by AA: returns to base (CD 7.2.2)"


def test_aa_fire_can_trigger_depletion(ab: Run) -> None:
    r = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--aa", "B-AA",
             "--dice", dice("1", "1", CALM))  # fmt: skip
    assert (
        "1 depletion check at the end of the phase: depleted on 4 or less (CD 1.2)"
        in (r["aa"][0]["ammunition"])
    )


# --- CD 7.2: the stick and the drop ------------------------------------------------------------


def test_squares_lie_edge_to_edge_along_the_flight_path(ab: Run) -> None:
    r = drop(ab, "3/FJR-6", "--zone", "20,20", "--heading", "90", "--no-aa",
             "--dice", dice(CALM, CALM, CALM, CALM))  # fmt: skip
    slots = [c for sq in r["squares"] for c in sq["slot"]]
    assert slots == pytest.approx([17, 20, 19, 20, 21, 20, 23, 20])


def test_drift_follows_the_documented_transform(ab: Run) -> None:
    r = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "0", "--no-aa", "--dice", "37,26,3")
    sq = r["squares"][0]
    sigma = 0.25 * 12  # charted 0.25 per inch of a veteran crew's 12"
    distance = sigma * math.sqrt(-2 * math.log(0.365))
    bearing = math.radians(360 * 0.255)
    assert sq["sigma"] == pytest.approx(sigma)
    assert sq["at"] == pytest.approx(
        [20 + distance * math.sin(bearing), 20 + distance * math.cos(bearing)], abs=1e-3
    )
    assert sq["marked"] == "up"


def test_a_gun_drops_as_three_squares_and_can_lose_its_crew(ab: Run) -> None:
    # CD 7.1: the crew square blows off the north edge; the gun itself comes down.
    r = drop(ab, "4/FJR-6", "--zone", "20,30", "--heading", "90", "--no-aa",
             "--dice", dice(CALM, "1,1,1", CALM, CALM))  # fmt: skip
    assert [sq["square"] for sq in r["squares"]] == [
        "FJ-5", "FJ-GUN crew", "FJ-GUN ammo", "FJ-GUN weapon"
    ]  # fmt: skip
    assert squares(r)["FJ-GUN crew"]["outcome"] == "lost"
    gun = stands(ab)["FJ-GUN"]
    assert gun["status"] == "ok" and gun["x"] is not None
    assert {"no-crew", "ammo-apart"} <= set(gun["markers"])
    out = ab("airborne", "assemble", "FJ-GUN", code=3)
    assert out.output == "Error: FJ-GUN's crew was lost in the drop: no crew to join (CD 7.1)\n"


def test_a_gun_whose_weapon_is_lost_keeps_its_crew(ab: Run) -> None:
    # CD 7.1: gun and crew land apart: the weapon square blows off the edge, the crew lands.
    r = drop(ab, "4/FJR-6", "--zone", "20,30", "--heading", "90", "--no-aa",
             "--dice", dice(CALM, CALM, CALM, "1,1,1"))  # fmt: skip
    assert r["stands"]["FJ-GUN"] == "landed: its gun lost, the crew lands without it (CD 7.1)"
    gun = stands(ab)["FJ-GUN"]
    crew_at = squares(r)["FJ-GUN crew"]["at"]
    assert (gun["status"], [gun["x"], gun["y"]]) == ("ok", crew_at)
    assert "no-gun" in gun["markers"]
    assert r["orders"] == {"FJ-5": "hasty-advance", "FJ-GUN": "hasty-advance"}
    goto_fire(ab)
    out = ab("fire", "FJ-GUN", "B-1", code=3)
    assert out.output.strip() == (
        "Error: FJ-GUN cannot fire: its gun was lost in the drop: the crew has no weapon to "
        "serve (CD 7.1, 7.2)"
    )


def goto_fire(run: Run) -> None:
    for _ in range(3):
        run("phase", "next")  # artillery and air -> movement -> opportunity fire -> fire


def test_a_gun_without_its_crew_or_ammunition_may_not_fire(ab: Run) -> None:
    # CD 7.1, 7.2: the crew square blows off the table; the gun lands and cannot fire.
    drop(ab, "4/FJR-6", "--zone", "20,30", "--heading", "90", "--no-aa",
         "--dice", dice(CALM, "1,1,1", CALM, CALM))  # fmt: skip
    goto_fire(ab)
    before = file_digest(ab.game)  # type: ignore[attr-defined]
    out = ab("fire", "FJ-GUN", "B-1", code=3)
    assert out.output.strip() == (
        "Error: FJ-GUN cannot fire: its crew was lost in the drop; its ammunition landed "
        "apart and has not been assembled with it (CD 7.1, 7.2)"
    )
    assert file_digest(ab.game) == before  # type: ignore[attr-defined]


def test_a_gun_fires_only_once_assembled(ab: Run) -> None:
    drop(ab, "4/FJR-6", "--zone", "20,30", "--heading", "90", "--no-aa",
         "--dice", dice(CALM, CALM, CALM, CALM))  # fmt: skip
    goto_fire(ab)
    out = ab("fire", "FJ-GUN", "B-1", code=3)
    assert out.output.strip() == (
        "Error: FJ-GUN cannot fire: its crew landed apart and has not been assembled with "
        "it; its ammunition landed apart and has not been assembled with it (CD 7.1, 7.2); "
        "'tabletop airborne assemble FJ-GUN' once they have joined it"
    )
    ab("airborne", "assemble", "FJ-GUN")
    # Close range 4.7": pak-36 needs 5, -2 landed this turn (CD 7.2.2) = 3; 2 hits.
    shot = as_json(ab("fire", "FJ-GUN", "B-1", "--dice", "2,9", "--json"))
    assert shot["verdict"] == "1 hit: pak-36 on B-1 (eliminated)"


def test_assemble_joins_crew_and_ammunition(ab: Run) -> None:
    drop(ab, "4/FJR-6", "--zone", "20,30", "--heading", "90", "--no-aa",
         "--dice", dice(CALM, CALM, CALM, CALM))  # fmt: skip
    assert {"crew-apart", "ammo-apart"} <= set(stands(ab)["FJ-GUN"]["markers"])
    ab("airborne", "assemble", "FJ-GUN")
    assert not {"crew-apart", "ammo-apart"} & set(stands(ab)["FJ-GUN"]["markers"])
    ab("airborne", "assemble", "FJ-GUN", code=3)


@pytest.mark.parametrize(
    ("stick", "says"),
    [
        ("FJ-TRUCK", "vehicles cannot be dropped"),
        ("FJ-LEG", "not a parachute stand"),
        ("FJ-1,FJ-5", "a stick is one company"),
        ("GL-1", "not a parachute stand"),
    ],
)
def test_who_may_jump(ab: Run, stick: str, says: str) -> None:
    before = file_digest(ab.game)  # type: ignore[attr-defined]
    out = drop(ab, stick, "--zone", "20,20", "--heading", "90", "--no-aa", code=3)
    assert says in out.output and "CD 7.2" in out.output
    assert file_digest(ab.game) == before  # type: ignore[attr-defined]


def test_all_transports_of_a_side_fly_one_path(ab: Run) -> None:
    drop(ab, "3/FJR-6", "--zone", "20,20", "--heading", "90", "--no-aa")
    out = drop(ab, "4/FJR-6", "--zone", "30,25", "--heading", "0", "--no-aa", code=3)
    assert out.output == (
        "Error: Germany's transports fly heading 90 this turn (FJ-1's stick): every "
        "parachute transport takes the same flight path (CD 7.2)\n"
    )
    drop(ab, "4/FJR-6", "--zone", "30,25", "--heading", "90", "--no-aa")


def test_drops_happen_in_the_air_phase(ab: Run) -> None:
    ab("phase", "next")
    out = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--no-aa", code=3)
    assert out.output == (
        "Error: an airborne landing is not allowed in the movement phase: it happens "
        "in the artillery phase (turn chart); advance with 'tabletop phase next'\n"
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("NOBODY", "--zone", "20,20", "--heading", "90"), "'NOBODY' is neither a company"),
        (("FJ-1", "--zone", "80,20", "--heading", "90"), "off the 60 x 40 table"),
        (("FJ-1", "--zone", "20,20", "--heading", "400"), "bearing"),
        (("FJ-1", "--zone", "20,20", "--heading", "90", "--crew", "superb"), "unknown"),
    ],
)
def test_drop_bad_input(ab: Run, args: tuple[str, ...], says: str) -> None:
    before = file_digest(ab.game)  # type: ignore[attr-defined]
    out = drop(ab, *args, "--no-aa", code=2)
    assert says in out.output
    assert len(out.output.strip().splitlines()) == 1
    assert file_digest(ab.game) == before  # type: ignore[attr-defined]


def test_a_misspelt_company_is_named_with_the_companies(ab: Run) -> None:
    out = drop(ab, "3/FJR-9", "--zone", "20,20", "--heading", "90", "--no-aa", code=2)
    assert out.output == (
        "Error: '3/FJR-9' is neither a company nor a stand (companies: 1/LLR, 2/OXF, 3/FJR-6, "
        "4/FJR-6; or stand ids like G-1,G-2); did you mean '3/FJR-6'?\n"
    )


# --- CD 7.2.2: drop results ----------------------------------------------------------------------


def test_marked_side_up_lands_clean_and_may_not_move(ab: Run) -> None:
    r = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--no-aa", "--dice", CALM)
    assert r["stands"] == {"FJ-1": "landed"}
    fj = stands(ab)["FJ-1"]
    assert fj["markers"] == [] and fj["x"] == pytest.approx(20, abs=0.5)
    out = ab("place", "FJ-1", "25", "25", code=3)
    assert out.output == "Error: FJ-1 landed this turn and may not move (CD 7.2.2, 7.3.2)\n"


def test_marked_side_down_is_suppressed(ab: Run) -> None:
    r = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--no-aa", "--dice", CALM_DOWN)
    assert r["squares"][0]["marked"] == "down"
    assert stands(ab)["FJ-1"]["markers"] == ["suppressed"]


@pytest.mark.parametrize(
    ("effect", "status", "markers"),
    [("5", "ok", ["suppressed"]), ("6", "ok", ["suppressed", "forced-back"]),
     ("8", "eliminated", ["suppressed"])],
)  # fmt: skip
def test_marked_side_down_in_woods_takes_a_hit(
    ab: Run, effect: str, status: str, markers: list[str]
) -> None:
    r = drop(ab, "FJ-1", "--zone", "7,7", "--heading", "90", "--no-aa",
             "--dice", dice(CALM_DOWN, effect))  # fmt: skip
    assert r["squares"][0]["rough"] == "wood-1"
    fj = stands(ab)["FJ-1"]
    assert (fj["status"], fj["markers"]) == (status, markers)


def test_marked_side_up_in_woods_takes_no_hit(ab: Run) -> None:
    r = drop(ab, "FJ-1", "--zone", "7,7", "--heading", "90", "--no-aa", "--dice", CALM)
    assert r["squares"][0]["outcome"] == "landed"


@pytest.mark.parametrize(
    ("zone", "why"), [("50,20", "lake-1"), ("20,39.5", "off the table")]
)  # fmt: skip
def test_water_and_the_table_edge_lose_the_stand(ab: Run, zone: str, why: str) -> None:
    rolls = "100,1,1" if why == "lake-1" else "1,1,1"
    r = drop(ab, "FJ-1", "--zone", zone, "--heading", "90", "--no-aa", "--dice", rolls)
    assert r["squares"][0]["outcome"] == "lost" and why in r["squares"][0]["why"]
    fj = stands(ab)["FJ-1"]
    assert fj["status"] == "lost" and fj["x"] is None


def test_landed_paratroopers_fire_at_minus_two(ab: Run) -> None:
    drop(ab, "FJ-1", "--zone", "19,21", "--heading", "90", "--no-aa", "--dice", CALM)
    ab("phase", "next")
    ab("phase", "next")
    r = as_json(ab("fire", "FJ-1", "B-1", "--range", "5", "--json"))
    assert {"name": "firer landed by parachute or glider this turn", "value": -2,
            "rule": "CD 7.2.2, 7.3.2"} in r["modifiers"]  # fmt: skip


# --- CD 7.2.2: fire at descending paratroopers ----------------------------------------------------


def test_descending_fire_only_while_they_come_down(ab: Run) -> None:
    drop(ab, "FJ-1", "--zone", "19,21", "--heading", "90", "--no-aa", "--dice", CALM)
    ab("phase", "next")
    out = ab("airborne", "fire", "B-1", "FJ-1", code=3)
    assert out.output == (
        "Error: FJ-1 is not coming down now: paratroopers are fired at in the air only "
        "in the phase they drop (CD 7.2.2); once down, use 'tabletop fire'\n"
    )


def test_descending_fire_needs_a_stationary_stand_near_the_zone(ab: Run) -> None:
    drop(ab, "FJ-1", "--zone", "19,21", "--heading", "90", "--no-aa", "--dice", CALM)
    out = ab("airborne", "fire", "B-2", "FJ-1", code=3)
    assert out.output == (
        'Error: B-2 is 40.2" from the drop zone: only stands within 24" may fire at '
        "descending paratroopers (CD 7.2.2)\n"
    )
    ab("place", "B-1", "19", "27")
    out = ab("airborne", "fire", "B-1", "FJ-1", code=3)
    assert out.output == (
        "Error: B-1 moved this turn: only stationary stands fire at descending "
        "paratroopers (CD 7.2.2)\n"
    )


def test_waiting_for_the_landing_means_normal_fire(ab: Run) -> None:
    # Down in the woods: from the air no cover; once landed the wood's cover counts.
    drop(ab, "FJ-1", "--zone", "11,11", "--heading", "90", "--no-aa", "--dice", CALM)
    air = as_json(ab("airborne", "fire", "B-GREEN", "FJ-1", "--dice", "9", "--json"))
    assert [m["name"] for m in air["modifiers"]] == ["target is paratroopers descending (no cover)"]
    for _ in range(3):
        ab("phase", "next")
    # Its one fire of the turn is spent (CD core); had it waited instead, the cover counts.
    assert ab("fire", "B-GREEN", "FJ-1", "--spotted", code=3).output == (
        "Error: B-GREEN cannot fire its flak-88 again this turn: it fired in the "
        "artillery phase (fire B-GREEN -> FJ-1); each weapon fires once a turn, in one "
        "phase: opportunity fire, fire, or a barrage (CD core (default), ammo chart "
        "fires-per-turn)\n"
    )
    for _ in range(4):
        ab("undo")  # the three phases, then the fire in the air
    for _ in range(3):
        ab("phase", "next")
    later = as_json(ab("fire", "B-GREEN", "FJ-1", "--spotted", "--dice", "9", "--json"))
    names = [m["name"] for m in later["modifiers"]]
    assert not any("descending" in n for n in names)
    assert "target in medium cover (wood-1)" in names


# --- the drop simulation, statistically ----------------------------------------------------------


def run_drops(path: Path, inputs: dict[str, Any], seeds: range) -> list[dict[str, Any]]:
    """Many drops from one game file, each on its own seed, none written to the game."""
    from tabletop.core.dice import Dice
    from tabletop.game.engine import Game

    g = Game.open(path)
    try:
        return [airborne.drop_action(g.context(g.state(), Dice(seed)), inputs) for seed in seeds]
    finally:
        g.close()


def flight_offsets(results: list[dict[str, Any]], heading: float) -> list[tuple[float, float]]:
    """(along, across) the flight path, from each square's slot to where it landed."""
    ux, uy = math.sin(math.radians(heading)), math.cos(math.radians(heading))
    out = []
    for r in results:
        for sq in r["squares"]:
            dx, dy = sq["at"][0] - sq["slot"][0], sq["at"][1] - sq["slot"][1]
            out.append((dx * ux + dy * uy, dx * uy - dy * ux))
    return out


def mean_sd(values: list[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def stick(crew: str) -> dict[str, Any]:
    return {"stick": "3/FJR-6", "zone": [20, 20], "heading": 60, "crew": crew, "no_aa": True}


@pytest.fixture
def game_file(ab: Run) -> Path:
    return ab.game  # type: ignore[attr-defined]


def test_drop_statistics_over_many_seeds(game_file: Path) -> None:
    veteran = flight_offsets(run_drops(game_file, stick("veteran"), range(150)), 60)
    green = flight_offsets(run_drops(game_file, stick("green"), range(150, 300)), 60)
    for offsets, height in ((veteran, 12), (green, 36)):
        sigma = 0.25 * height
        n = len(offsets)
        for axis in (0, 1):
            mean, sd = mean_sd([o[axis] for o in offsets])
            # mean on the flight line (and on the slot along it), within 4 standard errors
            assert abs(mean) < 4 * sigma / math.sqrt(n)
            assert sd == pytest.approx(sigma, rel=0.15)
    ratio = mean_sd([o[1] for o in green])[1] / mean_sd([o[1] for o in veteran])[1]
    assert ratio == pytest.approx(3.0, rel=0.2)  # spread grows with height: 36" / 12"


def test_drop_statistics_on_one_seed(game_file: Path) -> None:
    # One seed, one big stick over and over: the same properties hold on a single stream.
    from tabletop.core.dice import Dice

    rolls = Dice(7)
    draws = [airborne.drift(1.0, rolls.roll(100, "u"), rolls.roll(100, "b")) for _ in range(4000)]
    downs = [rolls.roll(10, "side") > 5 for _ in range(4000)]
    xs, ys = [d[0] for d in draws], [d[1] for d in draws]
    for values in (xs, ys):
        mean, sd = mean_sd(values)
        assert abs(mean) < 4 / math.sqrt(len(values))
        assert sd == pytest.approx(1.0, rel=0.06)
    assert sum(downs) / len(downs) == pytest.approx(0.5, abs=0.03)


def test_marked_side_down_is_about_half(game_file: Path) -> None:
    results = run_drops(game_file, stick("veteran"), range(300, 450))
    marks = [sq["marked"] == "down" for r in results for sq in r["squares"]]
    assert sum(marks) / len(marks) == pytest.approx(0.5, abs=0.06)


def test_the_transform_is_exactly_symmetric_and_isotropic() -> None:
    # Every pair of d100 rolls once: mean zero, equal spread on both axes, no correlation.
    pts = [airborne.drift(1.0, a, b)[:2] for a in range(1, 101) for b in range(1, 101)]
    n = len(pts)
    mx, my = sum(p[0] for p in pts) / n, sum(p[1] for p in pts) / n
    vx = sum(p[0] ** 2 for p in pts) / n
    vy = sum(p[1] ** 2 for p in pts) / n
    cxy = sum(p[0] * p[1] for p in pts) / n
    assert abs(mx) < 1e-12 and abs(my) < 1e-12
    assert vx == pytest.approx(vy, rel=1e-9)
    assert abs(cxy) < 1e-12
    assert vx == pytest.approx(1.0, rel=0.02)  # per-axis variance is sigma squared


@functools.cache
def bundled_charts() -> Charts:
    return load_charts()


@settings(max_examples=200, deadline=None)
@given(
    first=st.integers(1, 100),
    second=st.integers(1, 100),
    height=st.floats(1, 60),
)
def test_drift_scales_with_height_and_stays_bounded(first: int, second: int, height: float) -> None:
    charts = bundled_charts()
    sigma = airborne.scatter_sigma(height, charts)
    dx, dy, distance, _ = airborne.drift(sigma, first, second)
    dx2, dy2, _, _ = airborne.drift(airborne.scatter_sigma(2 * height, charts), first, second)
    assert (dx2, dy2) == pytest.approx((2 * dx, 2 * dy))
    assert distance <= sigma * math.sqrt(-2 * math.log(0.005)) + 1e-9


def test_a_stick_over_the_lake_loses_exactly_the_squares_in_it(game_file: Path) -> None:
    from shapely import Point, Polygon

    lake = Polygon(LAKE)
    inputs = {"stick": "3/FJR-6", "zone": [40, 20], "heading": 90, "crew": "veteran",
              "no_aa": True}  # fmt: skip
    lost = kept = 0
    for r in run_drops(game_file, inputs, range(60)):
        for sq in r["squares"]:
            wet = lake.covers(Point(sq["at"]))
            assert (sq["outcome"] == "lost") == wet, sq
            assert (r["stands"][sq["stand"]] == "lost") == wet
            lost, kept = lost + wet, kept + (not wet)
    assert lost > 30 and kept > 30


# --- CD 7.3: gliders -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("light", "flags", "crew", "number"),
    [
        # CD 7.3.1: 8 by day, 6 on a clear night, 4 on an overcast or moonless night;
        # veterans and elites +1, green and trained -1.
        ("day", (), "regular", 8),
        ("day", (), "veteran", 9),
        ("day", (), "elite", 9),
        ("day", (), "green", 7),
        ("day", (), "trained", 7),
        ("night-moonlit", ("--clear-night",), "regular", 6),
        ("night-moonlit", ("--overcast",), "regular", 4),
        ("night-dark", (), "regular", 4),
        ("night-dark", (), "veteran", 5),
    ],
)
def test_glider_landing_numbers_golden(
    ab: Run, light: str, flags: tuple[str, ...], crew: str, number: int
) -> None:
    if light != "day":
        ab("weather", "set", "--light", light)
    r = glider(ab, "GL-1", "--zone", "20,30", "--no-aa", "--crew", crew, *flags, "--dice", "1")
    assert r["gliders"][0]["landing_number"] == number


def test_each_aa_hit_costs_a_glider_one(ab: Run) -> None:
    r = glider(ab, "GL-1", "--zone", "20,30", "--aa", "B-AA", "--dice", "2,1")
    assert r["gliders"][0]["landing_number"] == 7
    assert r["gliders"][0]["working"][-1] == {"name": "1 AA hit", "value": -1.0,
                                              "rule": "CD 7.3.1"}  # fmt: skip


def test_three_hits_abort_a_glider(ab: Run) -> None:
    r = glider(ab, "GL-1", "--zone", "20,30", "--dice", "1,1,1")
    assert r["gliders"][0]["outcome"] == "aborted"


def test_successful_gliders_land_where_aimed_and_may_not_move(ab: Run) -> None:
    r = glider(ab, "1/LLR", "--zone", "20,30", "--no-aa", "--dice", "8,1,5")
    assert [g["outcome"] for g in r["gliders"]] == ["landed"] * 3
    assert [g["at"] for g in r["gliders"]] == [[20, 30], [20, 32], [20, 28]]
    assert stands(ab)["GL-1"]["x"] == 20
    assert (
        ab("place", "GL-1", "20", "25", code=3).output
        == "Error: GL-1 landed this turn and may not move (CD 7.2.2, 7.3.2)\n"
    )


def test_a_ten_destroys_the_glider(ab: Run) -> None:
    r = glider(ab, "GL-1", "--zone", "20,30", "--no-aa", "--dice", "10")
    assert (
        r["gliders"][0]["outcome"] == "lost"
        and r["gliders"][0]["why"] == "rolled 10: destroyed or lost en route (CD 7.3.3)"
    )
    assert stands(ab)["GL-1"]["status"] == "lost"


@pytest.mark.parametrize(("crew", "inches"), [("regular", 4), ("veteran", 2), ("green", 8)])
def test_deviation_by_wind_chart_and_crew(ab: Run, crew: str, inches: float) -> None:
    # CD 7.3.3: on a moonless night 9 fails; direction 9 is rolled again, then 3 (east);
    # 4" for a regular crew, halved for veterans, doubled for green crews.
    ab("weather", "set", "--light", "night-dark")
    r = glider(ab, "GL-1", "--zone", "20,30", "--no-aa", "--crew", crew, "--dice", "9,9,3,4")
    g = r["gliders"][0]
    assert g["outcome"] == "deviated"
    assert g["deviation"]["distance"] == inches
    assert g["at"] == pytest.approx([20 + inches, 30])


@pytest.mark.parametrize(
    ("zone", "rolls", "into"),
    [
        ("22,6", "9,3,4", "orchard-1"),  # east into the orchard
        ("20,18", "9,5,4", "B-TK"),  # south onto the British tank
    ],
)
def test_deviating_onto_terrain_or_a_vehicle_crashes(
    ab: Run, zone: str, rolls: str, into: str
) -> None:
    # CD 7.3.4: one hit, a second landing check (8 or less), a second hit when it fails.
    r = glider(ab, "GL-1", "--zone", zone, "--no-aa", "--dice", rolls + ",3,9,2")
    g = r["gliders"][0]
    assert g["outcome"] == "crashed" and into in g["crashed_into"]
    assert g["crash"] == {"second_check": 9, "held": False,
                          "effects": ["no effect", "no effect"], "worst": "no effect"}  # fmt: skip


def test_a_crash_that_holds_takes_one_hit_and_forced_back_means_only_morale(ab: Run) -> None:
    r = glider(ab, "GL-1", "--zone", "22,6", "--no-aa", "--dice", "9,3,4,5,2")
    crash = r["gliders"][0]["crash"]
    assert crash["effects"] == ["forced back"] and crash["held"]
    assert "forced-back" not in stands(ab)["GL-1"]["markers"]
    # CD 7.3.4: the stand stays put, but the morale test of a forced-back result falls due.
    due = {
        "rule": "CD 7.3.4",
        "why": "GL-1's glider crashed: forced back result (the stand stays put)",
        "turn": 1,
    }
    assert crash["morale_due"] == due
    assert state_stand(ab, "GL-1")["morale_due"] == [due]
    assert r["orders"] == {"GL-1": "hasty-advance"}
    assert state_stand(ab, "GL-1")["order"] == "hasty-advance"


def state_stand(run: Run, stand_id: str) -> dict[str, Any]:
    """The stand's row as the game file keeps it."""
    from tabletop.game.engine import Game

    return dict(Game.open(run.game).state().stand(stand_id))  # type: ignore[attr-defined]


def test_a_crash_can_eliminate(ab: Run) -> None:
    glider(ab, "GL-1", "--zone", "22,6", "--no-aa", "--dice", "9,3,4,9,1")
    assert stands(ab)["GL-1"]["status"] == "eliminated"


def test_deviating_onto_another_glider_crashes(ab: Run) -> None:
    # GL-1 lands on the zone; GL-2 aims 2" north of it and deviates 2" south onto it.
    r = glider(ab, "GL-1,GL-2", "--zone", "20,30", "--no-aa",
               "--dice", "1,9,5,2,3,1")  # fmt: skip
    assert r["gliders"][1]["outcome"] == "crashed"
    assert r["gliders"][1]["crashed_into"] == ["glider of GL-1"]


@pytest.mark.parametrize(
    ("zone", "rolls", "why"),
    [
        ("38,20", "9,3,4", "lake-1"),
        ("2,20", "9,7,4", "off the table"),
        ("5,27", "9,1,4", "village-1 (burning)"),
    ],
)
def test_deviating_into_water_fire_or_off_the_table_is_lost(
    ab: Run, zone: str, rolls: str, why: str
) -> None:
    r = glider(ab, "GL-1", "--zone", zone, "--no-aa", "--dice", rolls)
    g = r["gliders"][0]
    assert g["outcome"] == "lost" and why in g["why"]
    gl = stands(ab)["GL-1"]
    assert gl["status"] == "lost" and gl["x"] is None


def test_glider_targets_must_chain_from_the_zone(ab: Run) -> None:
    before = file_digest(ab.game)  # type: ignore[attr-defined]
    out = glider(ab, "GL-1", "--zone", "20,30", "--no-aa", "--at", "GL-1=24,30", code=3)
    assert out.output == (
        "Error: GL-1's target 24,30 is not within 2\" of the zone or of a glider of "
        'the stick down within 2" of it (CD 7.3)\n'
    )
    assert file_digest(ab.game) == before  # type: ignore[attr-defined]
    r = glider(ab, "GL-1,GL-2", "--zone", "20,30", "--no-aa", "--at", "GL-1=22,30",
               "--at", "GL-2=24,30", "--dice", "1,1")  # fmt: skip
    assert [g["at"] for g in r["gliders"]] == [[22, 30], [24, 30]]


def test_only_glider_stands_come_by_glider(ab: Run) -> None:
    out = glider(ab, "FJ-1", "--zone", "20,30", "--no-aa", code=3)
    assert out.output == (
        "Error: FJ-1 cannot come by glider: not a glider stand: mark it 'glider: true' "
        "in the scenario (CD 7.3)\n"
    )


def test_glider_bad_input(ab: Run) -> None:
    before = file_digest(ab.game)  # type: ignore[attr-defined]
    out = glider(ab, "GL-1", "--zone", "20,30", "--at", "GL-1:20,30", code=2)
    assert out.output == (
        "Error: Invalid value for '--at': 'GL-1:20,30': write STAND=X,Y, like "
        "G-1=24,12 (see 'tabletop airborne glider --help')\n"
    )
    out = glider(ab, "GL-1", "--zone", "20,30", "--at", "GL-2=20,30", code=2)
    assert out.output == "Error: --at names GL-2, not in the stick\n"
    assert file_digest(ab.game) == before  # type: ignore[attr-defined]


def test_text_output_and_replay(ab: Run) -> None:
    out = ab("airborne", "drop", "3/FJR-6", "--zone", "20,20", "--heading", "90")
    assert (
        out.output.splitlines()[0]
        == "4 of 4 stands of the stick landed; FJ-1 suppressed; FJ-4 suppressed"
    )
    out = ab("airborne", "glider", "1/LLR", "--zone", "20,8", "--heading", "90")
    assert out.output.splitlines()[0] == "3 of 3 gliders down; GL-1 deviated"
    assert (
        ab("airborne", "aa", "--zone", "20,20", "--side", "Germany").output.splitlines()[0]
        == "AA over 20,20: 0 may fire"
    )
    assert ab("replay").output == "replay reproduces the stored state (3 events)\n"
    ab("undo")
    ab("undo")
    assert stands(ab)["FJ-1"]["x"] is None


# --- Odds (issue 20): exact, part by part, against brute force over the dice ---------------------


class Faces:
    """Dice that show the given faces in order (brute force drives the rolling code with it)."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def roll(self, sides: int, purpose: str) -> int:
        value = self.values.pop(0)
        assert value <= sides, purpose
        return value


def game_context(run: Run) -> Any:
    from tabletop.game.engine import Game

    return Game.open(run.game).context()  # type: ignore[attr-defined]


def add_to(into: dict[str, Fraction], key: str, p: Fraction) -> None:
    into[key] = into.get(key, Fraction(0)) + p


def exact(out: dict[str, str]) -> dict[str, Fraction]:
    return {k: Fraction(v) for k, v in out.items()}


def test_drop_odds_of_one_square_match_brute_force_over_its_dice(ab: Run) -> None:
    # CD 7.2, 7.2.2: FJ-1 (veteran aircrew: 12", sigma 3") drops on 12,3, by the woods and
    # the table's edge. Brute force: every pair of d100 through the drift, the site of the
    # point, then every d10 for the side and every d10 for the hit effect.
    from dataclasses import replace

    from tabletop.rules.cd.airborne.common import site_of, stand_effect

    r = drop(ab, "FJ-1", "--zone", "12,3", "--heading", "90", "--no-aa", "--odds")
    [part] = r["parts"]
    ctx = game_context(ab)
    stand = ctx.state.stand("FJ-1")
    sigma = airborne.scatter_sigma(12.0, ctx.charts)
    effect = {e: stand_effect(replace(ctx, dice=Faces(e)), stand, "hit") for e in range(1, 11)}
    brute: dict[str, Fraction] = {}
    ground: dict[str, Fraction] = {}
    for first in range(1, 101):
        for second in range(1, 101):
            dx, dy, _, _ = airborne.drift(sigma, first, second)
            site = site_of(ctx, 12 + dx, 3 + dy)
            ids = [p.id for p in site["pieces"]]
            add_to(ground, "off the table" if site["off_table"] else " + ".join(ids)
                   or "open ground", Fraction(1, 10_000))  # fmt: skip
            for side in range(1, 11):
                p = Fraction(1, 100_000)
                fell = airborne.landing(ctx.charts, site, side > 5)  # 6+: side down
                if fell["outcome"] == "lost":
                    add_to(brute, f"lost: {fell['why']}", p)
                elif fell["outcome"] == "hit":
                    for e in range(1, 11):
                        add_to(brute, f"suppressed and hit: {effect[e]}", p / 10)
                else:
                    add_to(brute, fell["outcome"], p)
    assert exact(part["outcomes"]) == brute
    assert exact(part["where"]) == ground
    assert set(brute) == {
        "landed", "suppressed", "suppressed and hit: no effect",
        "suppressed and hit: forced back", "suppressed and hit: eliminated",
        "lost: fell off the table: lost en route (CD 7.2.2)",
    }  # fmt: skip
    assert r["outcomes"] == {f"FJ-1: {k}": v for k, v in part["outcomes"].items()}
    assert sum(exact(r["outcomes"]).values()) == 1


def test_drop_odds_follow_the_rolled_drop(ab: Run) -> None:
    # The odds and the roll are one procedure: the odds put FJ-1 in the woods at times, and
    # such dice, rolled, land it there. First 60: u = 0.595, a drift of 3 x 1.02"; second 76:
    # bearing 271.8, west, from 12,6 to 8.9,6.1 in wood-1; marked side down (6), a hit.
    r = drop(ab, "FJ-1", "--zone", "12,6", "--heading", "90", "--no-aa", "--odds")
    assert "wood-1" in r["parts"][0]["where"]
    rolled = drop(ab, "FJ-1", "--zone", "12,6", "--heading", "90", "--no-aa",
                  "--dice", "60,76,6,1")  # fmt: skip
    assert squares(rolled)["FJ-1"]["terrain"] == ["wood-1"]
    assert squares(rolled)["FJ-1"]["outcome"] == "hit"


def test_drop_odds_with_aa_count_every_die(ab: Run) -> None:
    # CD 7.2.2: B-GREEN fires at FJ-1 alone. Brute force over its dice (a hit on its number
    # or less, or a 1) and each hit's effect on a veteran aircrew (the quality chart): an
    # eliminated result or three forced-back results abort the transport (CD 7.2.1).
    from tabletop.rules.cd.airborne.common import roll_effect

    r = drop(ab, "FJ-1", "--zone", "20,20", "--heading", "90", "--aa", "B-GREEN", "--odds")
    ctx = game_context(ab)
    to_hit = {c["stand"]: c for c in as_json(ab("airborne", "aa", "--zone", "20,20", "--side",
                                                "Germany", "--json"))["aa"]}["B-GREEN"]  # fmt: skip
    dice_count, number = to_hit["dice"], to_hit["to_hit"]
    effects = [roll_effect(replace_dice(ctx, e), "veteran", "x") for e in range(1, 11)]
    aborted = Fraction(0)
    for faces in itertools.product(range(1, 11), repeat=dice_count):
        hits = [f for f in faces if f <= number or f == 1]
        for chosen in itertools.product(effects, repeat=len(hits)):
            p = Fraction(1, 10 ** (dice_count + len(hits)))
            if "eliminated" in chosen or chosen.count("forced back") >= 3:
                aborted += p
    got = sum((Fraction(v) for k, v in r["parts"][0]["outcomes"].items()
               if k.startswith("aborted")), Fraction(0))  # fmt: skip
    assert got == aborted
    assert aborted > 0


def replace_dice(ctx: Any, *faces: int) -> Any:
    from dataclasses import replace

    return replace(ctx, dice=Faces(*faces))


def test_odds_roll_and_log_nothing(ab: Run) -> None:
    before = file_digest(ab.game)  # type: ignore[attr-defined]
    out = ab("airborne", "drop", "FJ-1,FJ-2", "--zone", "20,20", "--heading", "90",
             "--aa", "B-GREEN", "--odds")  # fmt: skip
    lines = out.output.splitlines()
    assert lines[:4] == [
        "Odds: airborne-drop, square by square (exact; nothing rolled or logged)",
        "  FJ-1:",
        "     48.5%  landed",
        "     48.5%  suppressed",
    ]
    assert lines[8:10] == [
        "    comes down in: open ground 97.0%, not dropped 3.0%, wood-1 <0.1%,",
        "      orchard-1 <0.1%",
    ]
    assert "  expected: squares down 1.940" in lines
    assert any(line.startswith("  assumes: each square on its own") for line in lines)
    mirrored = ab("odds", "airborne", "drop", "FJ-1,FJ-2", "--zone", "20,20", "--heading", "90",
                  "--aa", "B-GREEN")  # fmt: skip
    assert mirrored.output == out.output
    out = ab("airborne", "drop", "FJ-1", "--zone", "20,20", "--heading", "90", "--odds",
             "--dice", "1,1,1", code=2)  # fmt: skip
    assert "--odds rolls nothing: leave out --dice" in out.output
    ab("airborne", "glider", "GL-1,GL-2", "--zone", "20,30", "--no-aa", "--odds")
    assert file_digest(ab.game) == before  # type: ignore[attr-defined]
    # Refused as the command is refused (CD 7.2, 7.3).
    assert "CD 7.3" in glider(ab, "FJ-1", "--zone", "20,30", "--odds", code=3).output


def test_glider_odds_match_brute_force_over_its_dice(ab: Run) -> None:
    # CD 7.3.1-7.3.4: GL-1 (regular crew, lands on 8 or less by day, 10 destroys) aims at
    # 22,6 beside the orchard. Brute force: every landing roll; for a failure every accepted
    # wind-chart face (9 and 10 are rolled again, so each of 1-8 has 1/8) and every distance
    # die through the rolling code, the site it deviates onto, and every crash die.
    from dataclasses import replace

    from tabletop.rules.cd.airborne import gliders
    from tabletop.rules.cd.airborne.common import Aircraft

    r = glider(ab, "GL-1", "--zone", "22,6", "--no-aa", "--odds")
    [part] = r["parts"]
    ctx = game_context(ab)
    stand = ctx.state.stand("GL-1")
    plane = Aircraft("GL-1", "GL-1", "regular")
    crash: dict[str, Fraction] = {}
    for faces in itertools.product(range(1, 11), repeat=3):
        down = {**stand, "markers": list(stand["markers"])}
        worst = gliders._crash(replace(ctx, dice=Faces(*faces)), down, 8, [])["worst"]
        add_to(crash, str(worst), Fraction(1, 1000))
    brute: dict[str, Fraction] = {}
    for roll in range(1, 11):
        p = Fraction(1, 10)
        if roll == 10:
            add_to(brute, "lost: rolled 10: destroyed or lost en route (CD 7.3.3)", p)
            continue
        if roll <= 8:
            add_to(brute, "landed where it aimed", p)
            continue
        for point in range(1, 9):
            for pips in range(1, 11):
                q = p / 8 / 10
                at, _ = gliders._deviate(replace(ctx, dice=Faces(point, pips)), plane,
                                         (22.0, 6.0), [])  # fmt: skip
                lost, crashed = gliders._glider_site(ctx, stand, at, 0.0)
                if lost is not None:
                    add_to(brute, f"lost: {lost}", q)
                elif not crashed:
                    add_to(brute, "deviated, down safely", q)
                else:
                    for worst, c in crash.items():
                        add_to(brute, f"crashed: {worst}", q * c)
    assert exact(part["outcomes"]) == brute
    assert {"crashed: eliminated", "deviated, down safely"} <= set(brute)


def test_glider_odds_count_aa_hits_and_the_gliders_before(ab: Run) -> None:
    # CD 7.3.1: each AA hit costs a glider one from its landing number; three abort it.
    # B-AA fires at GL-1 alone: brute force over its dice gives P(hits = k); a glider with k
    # hits lands on 8 - k or less (10 destroys; others deviate onto open ground here).
    r = glider(ab, "GL-1", "--zone", "20,30", "--aa", "B-AA", "--odds")
    gun = {c["stand"]: c for c in as_json(ab("airborne", "aa", "--zone", "20,30", "--side",
                                             "Germany", "--json"))["aa"]}["B-AA"]  # fmt: skip
    landed = aborted = Fraction(0)
    for faces in itertools.product(range(1, 11), repeat=gun["dice"]):
        p = Fraction(1, 10 ** gun["dice"])
        hits = sum(1 for f in faces if f <= gun["to_hit"] or f == 1)
        if hits >= 3:
            aborted += p
        else:
            landed += p * Fraction(8 - hits, 10)
    outcomes = exact(r["parts"][0]["outcomes"])
    assert outcomes["landed where it aimed"] == landed
    assert outcomes.get("aborted: 3 AA hits: aborted (CD 7.2.1, 7.3.1)", Fraction(0)) == aborted
    # The second glider aims where the first would leave room, and may hit its glider.
    r = glider(ab, "GL-1,GL-2", "--zone", "20,30", "--no-aa", "--odds")
    assert [p["part"] for p in r["parts"]] == ["GL-1", "GL-2"]
    assert any("glider of GL-1" in k for k in r["parts"][1]["where"])
    assert r["assumes"][0].startswith("each glider on its own")


def test_aa_list_counts_its_dice_in_words(ab: Run) -> None:
    # CD 7.2.2: each AA weapon within 24" of the zone fires its dice at the aircraft.
    assert ab("airborne", "aa", "--zone", "30,20", "--side", "Germany").output.splitlines() == [
        "AA over 30,20: 3 may fire",
        "  B-AA (bofors-40): 1 die, hits on 3 or less; fires",
        '  B-FAR (flak-38): 1 die, hits on 4 or less; cannot: 32.6" from the zone, beyond 24" '
        "(CD 7.2.2)",
        "  B-RADAR (flak-38): 1 die, hits on 4 or less; fires",
        "  B-GREEN (flak-88): 1 die, hits on 2 or less; fires",
    ]
