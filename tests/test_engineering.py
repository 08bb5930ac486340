"""Engineering (CD 2, 4, 5), minefields (CD 3) and structure damage (CD 6) through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop.charts import Charts
from tabletop.rules.cd.engineering import (
    bridge_configurations,
    bridge_set_plan,
    clearing_turns,
    demolition_result,
    permanent_bridge,
    repair_turns,
)  # fmt: skip
from tests.conftest import Run, as_json, file_digest

GROUND = str(Path(__file__).parent / "data" / "engineers.yaml")


@pytest.fixture
def eng(run: Run) -> Run:
    """The engineering test ground, turn 1, movement phase."""
    run("new", GROUND, "--seed", "5")
    return run


def status(run: Run, *args: str) -> dict:
    return as_json(run("status", "--json", *args))


def stand(run: Run, stand_id: str) -> dict:
    return next(s for s in status(run)["stands"] if s["id"] == stand_id)


def terrain(run: Run, piece: str) -> dict | None:
    return next((t for t in status(run)["terrain"] if t["id"] == piece), None)


def end_turn(run: Run, *dice: str) -> dict:
    return as_json(run("turn", "next", *(("--dice", ",".join(dice)) if dice else ()), "--json"))


# --- CD 2.4.1: demolition ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "weight", "result"),
    [
        (4, 4, "failed"),
        (5, 4, "damaged"),
        (7, 4, "damaged"),
        (8, 4, "destroyed"),
        (10, 6, "destroyed"),
        (9, 6, "damaged"),
        (6, 6, "failed"),
        (2, 1, "destroyed"),
        (1, 1, "failed"),
    ],
)
def test_demolition_table(roll: int, weight: int, result: str) -> None:
    assert demolition_result(roll, weight, 10) == result


@pytest.mark.parametrize(
    ("roll", "state"), [("5", "damaged"), ("8", "destroyed"), ("10", "destroyed")]
)
def test_demolishing_the_wired_bridge(eng: Run, roll: str, state: str) -> None:
    out = as_json(eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", roll, "--json"))
    assert out["result"] == state and out["rolls"] == [int(roll)]
    assert terrain(eng, "bridge-1")["state"] == state


def test_failed_charges_need_a_recheck_on_the_bridge(eng: Run) -> None:
    out = as_json(eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "3", "--json"))
    assert out["result"] == "failed"
    again = eng("engineer", "demolish", "bridge-1", "--by", "G-E1", code=3)
    assert "recheck" in again.output
    assert (
        "must end the movement phase on bridge-1"
        in eng("engineer", "recheck", "bridge-1", "--by", "G-E1", code=3).output
    )
    eng("place", "G-E1", "30", "20")
    eng("engineer", "recheck", "bridge-1", "--by", "G-E1")
    eng("turn", "next")
    for _ in range(2):
        eng("phase", "next")  # back to the movement phase of turn 2
    eng("place", "G-E1", "30", "23.5")
    eng("turn", "next")
    eng("phase", "next")
    eng("phase", "next")
    assert (
        as_json(eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "9", "--json"))[
            "result"
        ]
        == "destroyed"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["bridge-2", "--by", "US-E3"], 3, "was not wired"),
        (["bridge-1", "--by", "US-E3"], 3, "wired by Germany"),
        (["bridge-1", "--by", "G-INF"], 3, "needs an engineer stand"),
        (["bridge-1", "--by", "G-E2"], 2, None),
        (["bridge-9", "--by", "G-E1"], 2, "unknown terrain piece 'bridge-9'"),
        (["wire-1", "--by", "G-E1"], 2, "not a bridge or structure"),
    ],
)
def test_who_may_demolish(eng: Run, args, code, message) -> None:
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    if args[2] == "G-E2":
        eng("place", "G-E2", "40", "26")  # 4.5" away; moving also breaks "stationary"
        before = file_digest(eng.game)  # type: ignore[attr-defined]
        out = eng("engineer", "demolish", *args, code=3)
        assert "must be stationary" in out.output
    else:
        out = eng("engineer", "demolish", *args, code=code)
        assert message in out.output
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


def test_demolition_range_and_not_on_the_bridge(eng: Run) -> None:
    eng("turn", "next")
    eng("phase", "next")
    eng("phase", "next")  # movement, turn 2: G-E2 has not moved this turn
    out = eng("engineer", "demolish", "bridge-1", "--by", "G-E2", code=3)
    assert 'must be within 2"' in out.output  # its base is 1.6" up and 2.1" right of it
    eng("marker", "G-E1", "--add", "pinned")
    assert "pinned" in eng("engineer", "demolish", "bridge-1", "--by", "G-E1", code=3).output


def test_demolition_only_in_the_movement_phase(eng: Run) -> None:
    eng("phase", "next")
    out = eng("engineer", "demolish", "bridge-1", "--by", "G-E1", code=3)
    assert "end of the movement phase" in out.output


# --- CD 2.4.2: repair --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weight", "stands", "turns"), [(3, 1, 3), (3, 2, 2), (1, 2, 1), (6, 1, 6), (6, 3, 5)]
)
def test_repair_turns(weight: int, stands: int, turns: int) -> None:
    assert repair_turns(weight, stands, 1) == turns


def test_repair_takes_turns_and_completes(eng: Run) -> None:
    out = as_json(eng("engineer", "repair", "bridge-2", "--by", "US-E3", "--by", "US-E4", "--json"))
    assert out["turns"] == 2
    first = end_turn(eng)
    assert any("1 turn(s)" in h["result"] for h in first["happened"] if h["what"] == "engineering")
    assert terrain(eng, "bridge-2")["state"] == "damaged"
    second = end_turn(eng)
    assert any("bridge-2 repaired" in h["result"] for h in second["happened"])
    assert terrain(eng, "bridge-2") is None  # back to intact


def test_a_pinned_worker_interrupts_the_task(eng: Run) -> None:
    eng("engineer", "repair", "bridge-2", "--by", "US-E3")
    end_turn(eng)
    eng("marker", "US-E3", "--add", "pinned")
    report = end_turn(eng)
    line = next(h["result"] for h in report["happened"] if h["what"] == "engineering")
    assert "interrupted: US-E3 was pinned; it does not complete" in line
    end_turn(eng)
    assert terrain(eng, "bridge-2")["state"] == "damaged"
    tasks = as_json(eng("engineer", "tasks", "--json"))["tasks"]
    assert tasks[0]["status"] == "interrupted"


def test_destroyed_bridges_cannot_be_repaired(eng: Run) -> None:
    eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "10")
    out = eng("engineer", "repair", "bridge-1", "--by", "G-E1", code=3)
    assert "destroyed bridges cannot be repaired" in out.output


# --- CD 2.4.3, 2.4.4: bridge sets and permanent bridges ---------------------------------------


def test_bridge_set_configurations_seed_example(charts: Charts) -> None:
    # CD 2.4.3: a class IV set makes two 6" class III, one 6" class IV, or one 3" class V.
    assert bridge_configurations("IV", charts) == [
        {"config": "nominal", "bridges": 1, "span": 6, "class": "IV"},
        {"config": "lower", "bridges": 2, "span": 6, "class": "III"},
        {"config": "higher", "bridges": 1, "span": 3, "class": "V"},
    ]


@pytest.mark.parametrize(
    ("cls", "config", "span", "stands", "both", "ready", "sets", "turns"),
    [
        ("IV", "nominal", 6, 4, False, False, 1, 5),  # 1 turn of banks + 4 turns
        ("IV", "nominal", 6, 4, False, True, 1, 4),
        ("IV", "nominal", 12, 4, False, True, 2, 8),  # one set at a time
        ("IV", "nominal", 12, 8, True, True, 2, 4),  # both banks at once
        ("III", "higher", 3, 3, False, True, 1, 3),  # the class of the set sets the work
        ("II", "lower", 10, 2, False, False, 2, 5),
    ],
)
def test_bridge_set_plans(charts, cls, config, span, stands, both, ready, sets, turns) -> None:
    plan = bridge_set_plan(cls, config, span, stands, both, ready, charts)
    assert (plan["sets"], plan["turns"]) == (sets, turns)


def test_bridge_set_limits(charts: Charts) -> None:
    from tabletop.errors import RulesRefusal

    with pytest.raises(RulesRefusal, match='12" portable bridging'):
        bridge_set_plan("IV", "nominal", 12.5, 8, True, True, charts)
    with pytest.raises(RulesRefusal, match="needs 4 engineer stands"):
        bridge_set_plan("IV", "nominal", 6, 3, False, True, charts)
    with pytest.raises(RulesRefusal, match="cannot be built 'lower'"):
        bridge_set_plan("I", "lower", 6, 1, False, True, charts)


@pytest.mark.parametrize(("cls", "n"), [("I", 1), ("III", 3), ("V", 5), ("VI", 6)])
def test_permanent_bridge(cls: str, n: int) -> None:
    # CD 2.4.4 example: a class V bridge needs five engineer stands and five days.
    assert permanent_bridge(cls) == {"class": cls, "stands": n, "days": n}


def test_bridge_plan_command() -> None:
    from click.testing import CliRunner

    from tabletop.cli import cli

    runner = CliRunner()
    out = as_json(runner.invoke(cli, ["engineer", "bridge-plan", "--class", "V", "--json"]))
    assert out["permanent"] == {"class": "V", "stands": 5, "days": 5}
    text = runner.invoke(cli, ["engineer", "bridge-plan", "--class", "IV"]).output
    assert 'lower: 2 bridge(s) of 6", class III' in text


def test_building_a_bridge_set(eng: Run) -> None:
    out = as_json(
        eng(
            "engineer",
            "bridge-set",
            "--class",
            "II",
            "--from",
            "45,18",
            "--to",
            "45,22",
            "--by",
            "US-E3",
            "--by",
            "US-E4",
            "--json",
        )
    )
    assert out["turns"] == 3  # banks 1 + one class II set 2
    for _ in range(3):
        end_turn(eng)
    templates = status(eng)["templates"]
    assert [t["kind"] for t in templates] == ["bridge"]


# --- CD 2.4.5, 4.2: launched bridges and fascines --------------------------------------------


def test_vlb_takes_one_turn(eng: Run) -> None:
    out = as_json(eng("engineer", "launch", "US-VLB", "--at", "ditch-1", "--json"))
    assert out["turns"] == 1
    report = end_turn(eng)
    assert any("vlb emplaced across ditch-1" in h["result"] for h in report["happened"])
    assert terrain(eng, "ditch-1")["gaps"] == 1
    eng("phase", "next")
    eng("phase", "next")
    eng("engineer", "launch", "US-VLB", "--at", "ditch-1", "--recover")
    end_turn(eng)
    assert terrain(eng, "ditch-1") is None
    assert (
        "no launched bridge"
        in eng("engineer", "launch", "US-INF", "--at", "ditch-1", code=3).output
    )


# --- CD 2.1: assault boats ------------------------------------------------------------------


def test_assault_boat_loading_and_loss(eng: Run) -> None:
    eng("engineer", "boat", "US-BOAT", "--load", "US-INF2")
    assert (
        "one stand per boat"
        in eng("engineer", "boat", "US-BOAT", "--load", "US-INF", code=3).output
    )
    eng("engineer", "boat", "US-BOAT", "--unload")
    assert "towed weapon" in eng("engineer", "boat", "US-BOAT", "--load", "US-TANK", code=3).output
    eng("engineer", "boat", "US-BOAT", "--load", "US-INF2")
    eng("phase", "next")
    # A soft vehicle: hit effects as Green, so 6+ eliminates; its passenger goes with it.
    out = as_json(eng("fire", "G-FORT", "US-BOAT", "--dice", "2,8", "--json"))
    assert out["target_now"] == "eliminated, with US-INF2 aboard"
    assert stand(eng, "US-INF2")["status"] == "eliminated"


# --- CD 3: minefields ----------------------------------------------------------------------------


def lay(run: Run, *args: str) -> str:
    return as_json(run("minefield", "place", *args, "--json"))["id"]


def test_minefield_place_and_views(eng: Run) -> None:
    real = lay(eng, "30", "11", "--side", "Germany", "--pregame")
    dummy = lay(eng, "33", "11", "--side", "Germany", "--pregame", "--dummy")
    referee = as_json(eng("minefield", "list", "--json"))["minefields"]
    assert [(f["id"], f["real"]) for f in referee] == [(real, True), (dummy, False)]
    own = as_json(eng("minefield", "list", "--view", "Germany", "--json"))["minefields"]
    assert len(own) == 2
    assert as_json(eng("minefield", "list", "--view", "USA", "--json"))["minefields"] == []


def test_hidden_minefields_never_appear_in_a_sides_view(eng: Run) -> None:
    real = lay(eng, "30", "11", "--side", "Germany", "--pregame")
    dummy = lay(eng, "33", "11", "--side", "Germany", "--pregame", "--dummy")
    outputs = [
        eng("status", "--side", "USA").output,
        eng("status", "--side", "USA", "--json").output,
        eng("log", "--view", "USA").output,
        eng("log", "--view", "USA", "--json").output,
        eng("minefield", "list", "--view", "USA").output,
        eng("minefield", "list", "--view", "USA", "--json").output,
    ]
    for text in outputs:
        for hidden in (real, dummy, "30,11", "33,11", "dummy"):
            assert hidden not in text, text
    assert real in eng("status").output and real in eng("log").output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["30", "30", "--side", "Germany", "--pregame", "--dummy"], 3, "paved roads"),
        (["30", "20", "--side", "Germany", "--pregame"], 3, "no minefields in river"),
        (["30", "11", "--side", "Italy", "--pregame"], 2, "--side 'Italy'"),
        (["30", "11", "--side", "Germany"], 2, "give --by ENGINEER"),
        (["0.2", "11", "--side", "Germany", "--pregame"], 2, "off the 60 x 40 table"),
        (["30", "26", "--side", "Germany", "--by", "G-E1"], 3, "next to G-E1"),
        (["30", "25", "--side", "USA", "--by", "G-E1"], 3, "not USA's"),
    ],
)
def test_bad_minefield_placement(eng: Run, args, code, message) -> None:
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    assert message in eng("minefield", "place", *args, code=code).output
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


def test_laying_in_battle_is_limited_to_eight_per_engineer_company(eng: Run) -> None:
    # Germany has engineer stands in two companies: 16 real fields, dummies unlimited.
    spots = [(30, 24.5), (28.9, 23.5), (31.1, 23.5)]  # touching G-E1's base
    for i in range(16):
        x, y = spots[i % 3]
        eng(
            "minefield",
            "place",
            str(x),
            str(y + (i // 3) * 0.001),
            "--side",
            "Germany",
            "--by",
            "G-E1",
        )
    out = eng("minefield", "place", "30", "24.5", "--side", "Germany", "--by", "G-E1", code=3)
    assert "laid 16 real minefields" in out.output and "(CD 3.1.2)" in out.output
    eng("minefield", "place", "30", "24.5", "--side", "Germany", "--by", "G-E1", "--dummy")


def test_an_engineer_that_fired_cannot_lay(eng: Run) -> None:
    eng("phase", "next")
    eng("fire", "G-FT", "US-INF", "--range", "1", "--dice", "9")
    eng("turn", "next")
    eng("phase", "next")
    eng("phase", "next")
    eng("minefield", "place", "19", "37.2", "--side", "Germany", "--by", "G-FT")


@pytest.mark.parametrize(
    ("who", "path", "stop", "attacks", "hit_on"),
    [
        ("US-INF", ["30,9"], False, 2, 3),  # through: twice; personnel hit on 1-3
        ("US-INF", ["30,9"], True, 1, 3),  # at the edge: once
        ("US-FLAIL", ["30,14", "30,9"], False, 2, 5),  # vehicles hit on 1-5
    ],
)
def test_crossing_a_real_minefield(eng, who, path, stop, attacks, hit_on) -> None:
    field = lay(eng, "30", "11", "--side", "Germany", "--pregame")
    if who == "US-FLAIL":
        eng("place", "US-FLAIL", "30", "16")
    args = ["minefield", "cross", who, *[a for p in path for a in ("--path", p)], "--json"]
    out = as_json(eng(*args, *(["--stop-at-edge"] if stop else [])))
    assert out["attacks"] == attacks
    assert out["revealed"] == [{"id": field, "real": True}]
    y = out["stopped_at"][1]
    if stop:
        assert y > 11.5  # at the north edge of the template
    else:
        assert 9 < y < 10.6  # just across it (its base clear of it), not at the path's end
    assert (
        as_json(eng("minefield", "list", "--view", "USA", "--json"))["minefields"][0]["real"]
        is True
    )
    report = as_json(eng("phase", "next", "--dice", ",".join(["9"] * attacks), "--json"))
    attack = next(h for h in report["happened"] if h["what"] == "minefield attack")
    assert attack["rolls"] == [9] * attacks and attack["result"].startswith("no hits")
    assert hit_on == (3 if who == "US-INF" else 5)


def test_minefield_attack_hits_roll_hit_effects(eng: Run) -> None:
    lay(eng, "30", "11", "--side", "Germany", "--pregame")
    eng("minefield", "cross", "US-INF", "--path", "30,9")
    report = as_json(eng("phase", "next", "--dice", "3,9,4", "--json"))
    attack = next(h for h in report["happened"] if h["what"] == "minefield attack")
    assert attack["rolls"] == [3, 9, 4]
    assert stand(eng, "US-INF")["status"] == "eliminated"


def test_dummy_revealed_and_removed(eng: Run) -> None:
    dummy = lay(eng, "30", "11", "--side", "Germany", "--pregame", "--dummy")
    out = as_json(eng("minefield", "cross", "US-INF", "--path", "30,5", "--json"))
    assert out["revealed"] == [{"id": dummy, "real": False}] and out["attacks"] == 0
    assert out["stopped_at"] == [30, 5]
    assert as_json(eng("minefield", "list", "--json"))["minefields"] == []


def test_engineer_stopping_adjacent_is_not_attacked(eng: Run) -> None:
    lay(eng, "7", "6", "--side", "Germany", "--pregame")
    out = as_json(eng("minefield", "cross", "US-E1", "--path", "7,3", "--stop-at-edge", "--json"))
    assert out["attacks"] == 0 and out["revealed"][0]["real"] is True


def test_hand_lifting_clears_at_the_end_of_the_turn(eng: Run) -> None:
    field = lay(eng, "7", "7.5", "--side", "Germany", "--pregame")
    assert (
        "has not been detected" in eng("minefield", "clear", field, "--by", "US-E1", code=3).output
    )
    eng("minefield", "cross", "US-E1", "--path", "7,6", "--stop-at-edge")
    eng("minefield", "clear", field, "--by", "US-E1")
    end_turn(eng)
    assert as_json(eng("minefield", "list", "--json"))["minefields"] == []


def test_mine_clearing_tank_and_line_charge(eng: Run) -> None:
    first = lay(eng, "5", "16.5", "--side", "Germany", "--pregame")
    out = as_json(eng("minefield", "clear", "--by", "US-FLAIL", "--method", "tank", "--json"))
    assert out["cleared"] == [first]
    assert stand(eng, "US-FLAIL")["y"] == 16
    eng("phase", "next")
    assert "flailing" in eng("fire", "US-FLAIL", "G-E1", code=3).output
    second = lay(eng, "10", "16", "--side", "Germany", "--pregame")
    assert (
        "not been detected"
        in eng(
            "minefield", "clear", second, "--by", "US-LC", "--method", "line-charge", code=3
        ).output
    )
    eng("minefield", "cross", "US-LC", "--path", "10,15", "--stop-at-edge")
    out = as_json(
        eng("minefield", "clear", second, "--by", "US-LC", "--method", "line-charge", "--json")
    )
    assert out["cleared"] == [second]


# --- CD 4: obstacles ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("turns", "order", "mover", "expected"),
    [
        (1, "hasty", False, 1),
        (1, "hold", False, 2),
        (2, "hasty", False, 2),
        (2, "hold", False, 4),
        (4, "hasty", False, 4),
        (4, "hold", False, 8),
        (4, "hold", True, 1),
    ],
)
def test_clearing_times(turns, order, mover, expected) -> None:
    assert clearing_turns(turns, order, mover, 2, 1) == expected


@pytest.mark.parametrize(
    ("obstacle", "by", "order", "turns"),
    [
        ("wire-1", "US-E1", "hasty", 1),
        ("wire-1", "US-E1", "hold", 2),
        ("ditch-1", "US-E2", "hasty", 2),
        ("av-1", "US-DOZER", "hasty", 1),
    ],
)
def test_clearing_obstacles(eng: Run, obstacle, by, order, turns) -> None:
    out = as_json(eng("engineer", "clear", obstacle, "--by", by, "--order", order, "--json"))
    assert out["turns"] == turns
    for _ in range(turns):
        end_turn(eng)
    assert terrain(eng, obstacle)["gaps"] == 1


def test_earthmover_clears_four_inches_of_wire(eng: Run) -> None:
    eng("place", "US-DOZER", "8", "8.5")
    out = as_json(eng("engineer", "clear", "wire-1", "--by", "US-DOZER", "--json"))
    assert out["turns"] == 1 and '4" gap' in out["verdict"]


def test_obstacle_clearing_needs_an_adjacent_engineer(eng: Run) -> None:
    assert "beside abatis-1" in eng("engineer", "clear", "abatis-1", "--by", "US-E1", code=3).output
    assert (
        "needs an engineer stand or an earthmover"
        in eng("engineer", "clear", "wire-1", "--by", "US-INF", code=3).output
    )


def test_firing_interrupts_obstacle_clearing(eng: Run) -> None:
    eng("engineer", "clear", "ditch-1", "--by", "US-E2")
    eng("phase", "next")
    eng("phase", "next")
    eng("marker", "US-E2", "--add", "suppressed")
    report = end_turn(eng)
    assert any("interrupted: US-E2 was suppressed" in h["result"] for h in report["happened"])


# --- CD 5: pregame engineering and smoke generators --------------------------------------------


def plan(run: Run, *args: str) -> dict:
    return as_json(run("engineer", "pregame", "--side", "Germany", *args, "--json"))["plan"]


@pytest.mark.parametrize(
    ("hours", "foxholes", "entrenchments"),
    [("2", False, False), ("3", True, False), ("6", True, True)],
)
def test_digging_in_by_hours(eng: Run, hours, foxholes, entrenchments) -> None:
    works = plan(eng, "--hours", hours)["works"]
    assert works["foxholes"]["possible"] is foxholes
    assert works["entrenchments"]["possible"] is entrenchments


def test_work_by_engineers_and_earthmovers(eng: Run) -> None:
    # Germany: 4 engineer stands and 1 earthmover; 2 days.
    works = plan(eng, "--days", "2")["works"]
    assert works["fortification"]["amount"] == 4 * 2  # earthmovers do not help
    assert works["tank-ramp"]["amount"] == 4 * 2 + 1 * 2 * 4
    assert works["ditch"]["amount"] == 4 * 2 * 1 + 1 * 2 * 12
    assert works["crater"]["amount"] == 4 * 2 * 2 + 1 * 2 * 8
    assert works["abatis"]["amount"] == 4 * 2 * 4 + 1 * 2 * 16
    assert works["av-obstacle"]["amount"] == 4 * 2 * 2
    assert works["wire"]["amount"] == 2 * 12  # per engineer company; not earthmovers
    assert works["ditch"]["not_in"] == ["woods", "forest", "swamp"]


def test_no_defensive_works_in_deep_mud(eng: Run) -> None:
    eng("weather", "set", "--ground", "mud-deep")
    works = plan(eng, "--days", "2")["works"]
    assert works["foxholes"]["possible"] is False
    assert works["fortification"]["possible"] is False
    assert works["ditch"]["possible"] is True


def test_accepting_a_plan_digs_the_troops_in(eng: Run) -> None:
    out = as_json(
        eng("engineer", "pregame", "--side", "Germany", "--hours", "6", "--accept", "--json")
    )
    assert "G-INF" in out["dug_in"]
    assert "entrenched" in stand(eng, "G-INF")["markers"]
    eng("phase", "next")
    fired = as_json(eng("fire", "US-TANK", "G-INF", "--spotted", "--json"))
    assert any(m["name"].startswith("target in hard cover") for m in fired["modifiers"])
    assert (
        "accepted once"
        in eng(
            "engineer", "pregame", "--side", "Germany", "--hours", "6", "--accept", code=3
        ).output
    )


def test_smoke_generator_screen_grows_and_thins(eng: Run) -> None:
    eng("engineer", "smoke", "G-E3")
    counts = []
    for _ in range(7):
        end_turn(eng)
        counts.append(len(status(eng)["templates"]))
    assert counts == [2, 3, 4, 5, 6, 6, 6]  # 6" a turn to 36"
    eng("engineer", "smoke", "G-E3", "--stop")
    end_turn(eng)
    assert len(status(eng)["templates"]) == 4  # two a turn from the upwind end
    end_turn(eng)
    end_turn(eng)
    assert status(eng)["templates"] == []


def test_smoke_generator_length_capped_by_wind(eng: Run) -> None:
    eng("weather", "set", "--wind-force", "high")
    eng("engineer", "smoke", "G-E3")
    for _ in range(40):
        end_turn(eng)
    # High wind: each template is 1" long; the screen stops at 36".
    assert len(status(eng)["templates"]) == 36


# --- CD 6: structures ---------------------------------------------------------------------------


def test_fortification_damage_then_destruction(eng: Run) -> None:
    out = as_json(
        eng("structure", "damage", "fort-1", "--cause", "bomb", "--dice", "1,3", "--json")
    )
    assert out["damaged"] is True and "entrenchment" in out["effects"][0]
    eng("structure", "damage", "fort-1", "--cause", "bomb", "--dice", "2")  # holds
    again = as_json(
        eng("structure", "damage", "fort-1", "--cause", "bomb", "--dice", "1,9", "--json")
    )
    assert "fort-1 destroyed" in again["effects"][0]
    assert stand(eng, "G-FORT")["status"] == "eliminated"  # the automatic hit, rolled 9


@pytest.mark.parametrize(
    ("piece", "roll", "damaged"),
    [("town", "1", True), ("town", "2", False), ("huts", "2", True), ("huts", "3", False)],
)
def test_bomb_damage_rolls(eng: Run, piece: str, roll: str, damaged: bool) -> None:
    # Damaged: one more die, the hit effect on the stand inside (CD 6.2.1, 6.2.2).
    dice = f"{roll},1" if damaged else roll
    out = as_json(eng("structure", "damage", piece, "--cause", "bomb", "--dice", dice, "--json"))
    assert out["damaged"] is damaged


def test_flimsy_bua_burns_and_goes_out(eng: Run) -> None:
    eng("structure", "damage", "huts", "--cause", "bomb", "--dice", "1,1")
    assert terrain(eng, "huts")["state"] == "burning"
    assert "forced-back" in stand(eng, "G-INF2")["markers"]
    assert any(t["id"] == "fire-smoke-huts" for t in status(eng)["templates"])
    assert "burning: no stand may enter it" in eng("place", "G-INF", "15", "34", code=3).output
    report = end_turn(eng, "5")
    assert any("still burning" in h["result"] for h in report["happened"])
    report = end_turn(eng, "3")
    assert any("the fire goes out" in h["result"] for h in report["happened"])
    assert terrain(eng, "huts")["state"] == "rubble"
    assert all(t["id"] != "fire-smoke-huts" for t in status(eng)["templates"])


def test_rubble_gives_less_cover(eng: Run) -> None:
    eng("phase", "next")
    before = as_json(eng("odds", "fire", "US-TANK", "G-INF", "--spotted", "--json"))
    eng("structure", "damage", "town", "--cause", "bomb", "--dice", "1,1")
    after = as_json(eng("odds", "fire", "US-TANK", "G-INF", "--spotted", "--json"))
    names = [m["name"] for m in after["modifiers"]]
    assert any("medium cover" in n for n in names), names
    assert before["to_hit"] < after["to_hit"]


def test_large_calibre_direct_fire_damages_structures(eng: Run) -> None:
    eng("phase", "next")
    out = as_json(eng("fire", "US-TANK", "G-INF", "--spotted", "--dice", "9,1,4", "--json"))
    assert out["structures"][0].startswith("town: structure roll 1: damaged (CD 6.1.2)")
    assert terrain(eng, "town")["state"] == "rubble"


def test_flamethrower_sets_flimsy_bua_alight(eng: Run) -> None:
    eng("place", "US-INF2", "17.5", "37.5")  # in the huts, 0.7" from the flamethrower
    eng("phase", "next")
    out = as_json(eng("fire", "G-FT", "US-INF2", "--dice", "9", "--json"))
    assert (
        "huts burns: no stand may enter it; smoke drifts downwind (CD 6.2.2)" in out["structures"]
    )
    assert terrain(eng, "huts")["state"] == "burning"


def test_flame_damage_command(eng: Run) -> None:
    out = as_json(eng("structure", "damage", "huts", "--cause", "flame", "--dice", "1", "--json"))
    assert out["damaged"] is True and terrain(eng, "huts")["state"] == "burning"
    assert (
        "only flimsy BUA" in eng("structure", "damage", "town", "--cause", "flame", code=3).output
    )


def test_structure_list_and_bad_input(eng: Run) -> None:
    assert eng("structure", "list").output == "bridge-2 (bridge): damaged\n"
    assert (
        "only bridges, fortifications and BUA"
        in eng("structure", "damage", "wood", "--cause", "bomb", code=2).output
    )
    assert (
        "did you mean 'town'" in eng("structure", "damage", "twn", "--cause", "bomb", code=2).output
    )


def test_engineering_replays(eng: Run) -> None:
    eng("engineer", "repair", "bridge-2", "--by", "US-E3")
    lay(eng, "30", "11", "--side", "Germany", "--pregame")
    eng("minefield", "cross", "US-INF", "--path", "30,9")
    eng("engineer", "smoke", "G-E3")
    eng("structure", "damage", "huts", "--cause", "bomb", "--dice", "1,1")
    end_turn(eng)
    end_turn(eng)
    assert "replay reproduces" in eng("replay").output
    assert json.loads(eng("log", "--verify", "--json").output)["ok"] is True
