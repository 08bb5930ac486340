"""Engineering (CD 2, 4, 5), minefields (CD 3) and structure damage (CD 6) through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from numpy.testing import assert_allclose

from tabletop.data.charts import Charts
from tabletop.rules.cd.engineering import (
    bridge_configurations,
    bridge_set_plan,
    clearing_turns,
    demolition_result,
    permanent_bridge,
    repair_turns,
)  # fmt: skip
from tests.conftest import Run, as_json, file_digest, goto_phase

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
    return as_json(
        run("turn", "next", "--yes", *(("--dice", ",".join(dice)) if dice else ()), "--json")
    )


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


def next_movement(run: Run) -> None:
    run("turn", "next", "--yes")
    goto_phase(run, "movement")


def test_failed_charges_need_a_recheck_on_the_bridge(eng: Run) -> None:
    # CD 2.4.1: a failed detonation (3 is not above class IV) leaves the charges to recheck:
    # a whole movement phase on the bridge, then a stationary turn off it.
    out = as_json(eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "3", "--json"))
    assert out["result"] == "failed"
    again = eng("engineer", "demolish", "bridge-1", "--by", "G-E1", code=3)
    assert again.output == (
        "Error: the charges on bridge-1 failed: an engineer must first end a movement "
        "phase on it, unpinned and unsuppressed, to recheck them ('tabletop engineer "
        "recheck bridge-1 --by STAND', CD 2.4.1)\n"
    )
    assert eng("engineer", "recheck", "bridge-1", "--by", "G-E1", code=3).output == (
        "Error: G-E1 must spend the whole movement phase on bridge-1 to recheck its "
        "charges (CD 2.4.1)\n"
    )
    # It fired the charges as this movement phase ends: it stays put until it ends.
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    stays = eng("move", "G-E1", "30,20", code=3)
    assert stays.output.splitlines()[0] == (
        "Error: G-E1 fired the charges on bridge-1 this movement phase and stays where it is "
        "until the phase ends (CD 2.4.1); undo that first to move it"
    )
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]
    next_movement(eng)  # turn 2: G-E1 moves onto the bridge and ends the phase there
    eng("move", "G-E1", "30,20")
    done = as_json(eng("engineer", "recheck", "bridge-1", "--by", "G-E1", "--json"))
    assert (done["verdict"], done["fire_from_turn"]) == (
        "G-E1 rechecked the charges on bridge-1 and ends the movement phase on it; it moves "
        "off in turn 3, and the charges may be fired by a stationary engineer off the bridge "
        "from turn 4 (CD 2.4.1)",
        4,
    )
    # Not even by the referee's override: 'place' holds the rule too.
    assert eng("place", "G-E1", "30", "23.5", code=3).output.splitlines()[0] == (
        "Error: G-E1 rechecks the charges on bridge-1 this movement phase and stays where it "
        "is until the phase ends (CD 2.4.1); undo that first to move it"
    )
    next_movement(eng)  # turn 3: G-E1 moves off the bridge, so it is not stationary
    eng("move", "G-E1", "30,23.5")
    assert (
        eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "9", code=3).output
        == "Error: G-E1 moved this turn; it must be stationary (CD 2.4.1)\n"
    )
    next_movement(eng)  # turn 4: a stationary turn off the bridge
    fired = as_json(
        eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "9", "--json")
    )
    assert fired["result"] == "destroyed"


def test_the_recheck_is_for_a_friendly_engineer(eng: Run) -> None:
    eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "1")
    eng("place", "US-E3", "30", "20")
    next_movement(eng)
    out = eng("engineer", "recheck", "bridge-1", "--by", "US-E3", code=3)
    assert out.output.strip() == (
        "Error: bridge-1's charges are Germany's (the scenario's owner); US-E3 is USA's: "
        "only a friendly engineer rechecks them (CD 2.4.1)"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["bridge-2", "--by", "US-E3"],
            3,
            "Error: bridge-2 was not wired for demolition before the game (CD 2.4.1)\n",
        ),
        (
            ["bridge-1", "--by", "US-E3"],
            3,
            "Error: bridge-1 was wired by Germany (the scenario's owner); only a friendly "
            "engineer detonates the charges and US-E3 is USA's (CD 2.4.1)\n",
        ),
        (
            ["bridge-1", "--by", "G-INF"],
            3,
            "Error: G-INF is an infantry: this needs an engineer stand (CD 2.4.1)\n",
        ),
        (["bridge-1", "--by", "G-E2"], 2, None),
        (
            ["bridge-9", "--by", "G-E1"],
            2,
            "Error: unknown terrain piece 'bridge-9'; did you mean 'bridge-2'?\n",
        ),
        (["wire-1", "--by", "G-E1"], 2, "Error: wire-1 is wire, not a bridge or structure\n"),
    ],
)
def test_who_may_demolish(eng: Run, args, code, message) -> None:
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    if args[2] == "G-E2":
        eng("place", "G-E2", "40", "26")  # 4.5" away; moving also breaks "stationary"
        before = file_digest(eng.game)  # type: ignore[attr-defined]
        out = eng("engineer", "demolish", *args, code=3)
        assert out.output == "Error: G-E2 moved this turn; it must be stationary (CD 2.4.1)\n"
    else:
        out = eng("engineer", "demolish", *args, code=code)
        assert out.output == message
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


def test_demolition_range_and_not_on_the_bridge(eng: Run) -> None:
    eng("turn", "next", "--yes")
    eng("phase", "next")
    eng("phase", "next")  # movement, turn 2: G-E2 has not moved this turn
    out = eng("engineer", "demolish", "bridge-1", "--by", "G-E2", code=3)
    assert (
        out.output == 'Error: G-E2 is 2.6" from bridge-1: it must be within 2" (CD 2.4.1)\n'
    )  # its base is 1.6" up and 2.1" right of it
    eng("marker", "G-E1", "--add", "pinned")
    assert (
        eng("engineer", "demolish", "bridge-1", "--by", "G-E1", code=3).output
        == "Error: G-E1 is pinned (CD 2.4.1)\n"
    )


def test_demolition_only_in_the_movement_phase(eng: Run) -> None:
    eng("phase", "next")
    out = eng("engineer", "demolish", "bridge-1", "--by", "G-E1", code=3)
    assert out.output == (
        "Error: demolition happens at the end of the movement phase (CD 2.4.1); it is "
        "the opportunity-fire phase now\n"
    )


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
    assert [h["result"] for h in first["happened"] if h["what"] == "engineering"] == [
        "task-1 (repair bridge-2): 1 turn (0.5 h) of work left"
    ]
    assert terrain(eng, "bridge-2")["state"] == "damaged"
    second = end_turn(eng)
    assert "task-1 complete: bridge-2 repaired and usable again" in [
        h["result"] for h in second["happened"]
    ]
    assert terrain(eng, "bridge-2") is None  # back to intact


def engineering_lines(report: dict) -> list[str]:
    return [h["result"] for h in report["happened"] if h["what"] == "engineering"]


def test_a_pinned_worker_pauses_the_task_and_it_resumes(eng: Run) -> None:
    # CD 2.4.2: class III, one stand: three turns (1.5 h). A turn pinned does not count;
    # the work done is kept and goes on once the stand is fit again.
    out = as_json(eng("engineer", "repair", "bridge-2", "--by", "US-E3", "--json"))
    assert out["verdict"] == (
        "repair of bridge-2 begun: 3 turns (1.5 h) (class III, 1 engineer stand, CD 2.4.2)"
    )
    assert engineering_lines(end_turn(eng)) == [
        "task-1 (repair bridge-2): 2 turns (1 h) of work left"
    ]
    eng("marker", "US-E3", "--add", "pinned")
    assert engineering_lines(end_turn(eng)) == [
        "task-1 (repair bridge-2) paused: US-E3 was pinned; 0.5 h done are kept; it resumes "
        "after a turn its workers spend in place, unpinned and unsuppressed"
    ]
    tasks = as_json(eng("engineer", "tasks", "--json"))["tasks"]
    assert (tasks[0]["status"], tasks[0]["hours_done"]) == ("paused", 0.5)
    assert engineering_lines(end_turn(eng)) == [
        "task-1 (repair bridge-2) still paused: US-E3 was pinned; 0.5 h done are kept"
    ]
    eng("marker", "US-E3", "--remove", "pinned")
    assert engineering_lines(end_turn(eng)) == [
        "task-1 (repair bridge-2) resumed and: 1 turn (0.5 h) of work left"
    ]
    assert terrain(eng, "bridge-2")["state"] == "damaged"
    assert engineering_lines(end_turn(eng)) == [
        "task-1 complete: bridge-2 repaired and usable again"
    ]
    assert terrain(eng, "bridge-2") is None


def test_a_paused_task_waits_for_its_worker_to_come_back(eng: Run) -> None:
    eng("engineer", "repair", "bridge-2", "--by", "US-E3")
    end_turn(eng)
    goto_phase(eng, "movement")
    eng("place", "US-E3", "45", "15")
    assert engineering_lines(end_turn(eng)) == [
        "task-1 (repair bridge-2) paused: US-E3 moved; 0.5 h done are kept; it resumes after "
        "a turn its workers spend in place, unpinned and unsuppressed"
    ]
    assert engineering_lines(end_turn(eng)) == [
        'task-1 (repair bridge-2) still paused: US-E3 is 4.8" from bridge-2; 0.5 h done are kept'
    ]
    goto_phase(eng, "movement")
    eng("place", "US-E3", "48.5", "17.8")
    busy = eng("engineer", "repair", "bridge-2", "--by", "US-E3", code=3)
    assert (
        busy.output
        == "Error: US-E3 is already working on task-1 (repair, paused); cancel it first\n"
    )


def test_destroyed_bridges_cannot_be_repaired(eng: Run) -> None:
    eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "10")
    out = eng("engineer", "repair", "bridge-1", "--by", "G-E1", code=3)
    assert out.output == (
        "Error: bridge-1 is destroyed: destroyed bridges cannot be repaired (CD 2.4.1)\n"
    )


def test_charges_that_went_off_are_spent(eng: Run) -> None:
    # CD 2.4.1: only the wiring laid before the game blows a bridge; once the charges have
    # gone off (here damaging bridge-1), a repaired bridge is not wired again.
    eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "5")
    assert terrain(eng, "bridge-1")["state"] == "damaged"
    eng("phase", "next")  # G-E1 fired the charges as the movement phase ended (CD 2.4.1)
    eng("place", "G-E1", "30", "22")  # beside the bridge
    eng("place", "G-E2", "31.5", "22")
    out = as_json(eng("engineer", "repair", "bridge-1", "--by", "G-E1", "--by", "G-E2", "--json"))
    for _ in range(out["turns"]):
        end_turn(eng)
    assert terrain(eng, "bridge-1") is None  # intact again
    goto_phase(eng, "movement")
    eng("place", "G-E1", "30", "23.5")  # 2" off, not on it
    goto_phase(eng, "movement")
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    out = eng("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "9", code=3)
    assert out.output == (
        "Error: the charges on bridge-1 already went off (turn 1): only the wiring "
        "laid before the game may blow it, and that is spent (CD 2.4.1)\n"
    )
    assert len(out.output.strip().splitlines()) == 1
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


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
    from tabletop.core.errors import RulesRefusal

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
    assert text.splitlines()[2] == '  lower: 2 bridges of 6", class III'
    # CD 2.4.4: a permanent bridge takes as many engineer stands, and days, as its class
    # (5 and 5 for class V above): class I is one of each, said in the singular, as is the
    # one bridge a class I set makes at its own class.
    text = runner.invoke(cli, ["engineer", "bridge-plan", "--class", "I"]).output
    assert text.splitlines()[-1] == "A permanent class I bridge: 1 engineer stand, 1 day (CD 2.4.4)"
    assert text.splitlines()[1] == '  nominal: 1 bridge of 6", class I'


def bridge_set(run: Run, start: str, end: str, *by: str, code: int = 0):
    args = ["engineer", "bridge-set", "--class", "II", "--from", start, "--to", end]
    for b in by:
        args += ["--by", b]
    return run(*args, code=code)


def test_building_a_bridge_set(eng: Run) -> None:
    # CD 2.4.3: a class II set takes two engineer stands two turns, after a turn readying
    # the bank; the span reaches from bank to bank across the river (y 19 to 21).
    eng("place", "US-E4", "48.5", "22.1")  # the far bank
    out = as_json(
        eng(
            "engineer",
            "bridge-set",
            "--class",
            "II",
            "--from",
            "48.5,18.4",
            "--to",
            "48.5,21.6",
            "--by",
            "US-E3",
            "--by",
            "US-E4",
            "--json",
        )
    )
    assert out["turns"] == 3  # banks 1 + one class II set 2
    assert out["verdict"] == (
        'portable bridge begun across river: 1 class II set for a class II span of 3.2", '
        "3 turns (1.5 h) (CD 2.4.3)"
    )
    for _ in range(3):
        end_turn(eng)
    templates = status(eng)["templates"]
    assert [(t["id"], t["kind"]) for t in templates] == [("built-bridge-1", "bridge")]
    built = as_json(eng("structure", "list", "--json"))["terrain"]
    assert [
        (r["id"], r["kind"], r["state"], r["weight_class"], r["crosses"], r["side"])
        for r in built
        if r.get("built")
    ] == [("built-bridge-1", "bridge", "intact", "II", ["river"], "USA")]
    # Built in play: not a scenario piece for repair (the scenario's bridges) or demolition.
    assert eng("engineer", "repair", "built-bridge-1", "--by", "US-E3", code=2).output.strip() == (
        "Error: built-bridge-1 is a bridge built in play, not one of the scenario's pieces "
        "(a bridge expected)"
    )
    assert eng("structure", "list").output.strip() == (
        "bridge-2 (bridge): damaged\nbuilt-bridge-1 (bridge, built class II across river): intact"
    )


@pytest.mark.parametrize(
    ("start", "end", "by", "message"),
    [
        # stops in mid-river
        (
            "48.5,18.4",
            "48.5,20",
            ("US-E3", "US-E4"),
            "Error: the span ends at 48.5,20 in river: a portable bridge reaches from bank to "
            "bank (CD 2.4.3)",
        ),
        # on dry land
        (
            "48.5,14",
            "48.5,18.4",
            ("US-E3", "US-E4"),
            "Error: the span 48.5,14 to 48.5,18.4 crosses no river or stream: a portable "
            "bridge is laid across a water gap, bank to bank (CD 2.4.3)",
        ),
        # the builders are far from it
        (
            "36.5,18.4",
            "36.5,21.6",
            ("US-E3", "US-E4"),
            'Error: US-E3 is 11.6" from the span: the engineers assemble the bridge from '
            'beside it (within 0.5", CD 2.4.3)',
        ),
        # over the 12" cap
        (
            "48.5,5",
            "48.5,21.6",
            ("US-E3", "US-E4"),
            'Error: 16.6" is more than the 12" portable bridging can span (CD 2.4.3)',
        ),
    ],
)
def test_portable_bridge_must_span_the_gap(eng: Run, start, end, by, message) -> None:
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    out = bridge_set(eng, start, end, *by, code=3)
    assert out.output.strip() == message
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


# --- CD 2.4.5, 4.2: launched bridges and fascines --------------------------------------------


def test_a_launched_bridge_is_refused_over_a_river(eng: Run) -> None:
    # CD 2.4.5: narrow water (streams, canals), dry gaps, ditches and craters; not a river.
    eng("place", "US-VLB", "36", "17.9")
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    out = eng("engineer", "launch", "US-VLB", "--at", "river", code=3)
    assert out.output.strip() == (
        "Error: river is a river: a launched bridge crosses only stream, ditch, crater (CD 2.4.5)"
    )
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("target", "code", "message"),
    [
        ("river", 3, "Error: river is a river: a fascine crosses only ditch, crater (CD 4.2)"),
        ("crater-1", 3, "Error: US-VLB must spend the turn beside crater-1 (CD 2.4.5)"),
    ],
)
def test_a_fascine_fills_only_ditches_and_craters(run: Run, tmp_path, target, code, message):
    text = Path(GROUND).read_text().replace("equipment: [vlb]", "equipment: [fascine]")
    ground = tmp_path / "fascine.yaml"
    ground.write_text(text)
    run("new", str(ground), "--seed", "5")
    run("place", "US-VLB", "36", "17.9")
    assert run("engineer", "launch", "US-VLB", "--at", target, code=code).output.strip() == message


def test_vlb_takes_one_turn(eng: Run) -> None:
    out = as_json(eng("engineer", "launch", "US-VLB", "--at", "ditch-1", "--json"))
    assert out["turns"] == 1
    report = end_turn(eng)
    assert engineering_lines(report) == [
        "task-1 complete: vlb emplaced across ditch-1 (built-bridge-1, class IV)"
    ]
    assert terrain(eng, "ditch-1")["gaps"] == 1
    # CD 2.4.5: the launched bridge is a bridge row: straight across the 1" ditch
    # (y 9.5 to 10.5) from US-VLB's side, resting 0.25" on each bank.
    built = {r["id"]: r for r in as_json(eng("structure", "list", "--json"))["terrain"]}
    bridge = built["built-bridge-1"]
    assert (bridge["how"], bridge["crosses"], bridge["weight_class"]) == ("vlb", ["ditch-1"], "IV")
    ys = sorted({round(p[1], 4) for p in bridge["polygon"]})
    assert (ys[0], ys[-1]) == (9.25, 10.75)
    eng("phase", "next")
    eng("phase", "next")
    eng("engineer", "launch", "US-VLB", "--at", "ditch-1", "--recover")
    end_turn(eng)
    assert terrain(eng, "ditch-1") is None
    assert terrain(eng, "built-bridge-1") is None  # recovered with the vehicle
    assert eng("engineer", "launch", "US-INF", "--at", "ditch-1", code=3).output == (
        "Error: US-INF carries no launched bridge or fascine (scenario equipment: vlb "
        "or fascine; CD 2.4.5)\n"
    )


def test_a_vlb_that_moved_up_lays_its_bridge_a_turn_later(eng: Run) -> None:
    # CD 2.4.5: one complete turn beside the gap; moving up this turn counts from the next.
    eng("place", "US-VLB", "21.2", "8")
    out = as_json(eng("engineer", "launch", "US-VLB", "--at", "ditch-1", "--json"))
    assert out["verdict"] == (
        "US-VLB lays its vlb at ditch-1: 1 turn (0.5 h), done at the end of turn 2 "
        "(it moved up this turn); it takes a hasty advance order but does not move (CD "
        "2.4.5)"
    )
    report = end_turn(eng)
    assert not any("vlb emplaced" in h["result"] for h in report["happened"])
    assert terrain(eng, "ditch-1") is None
    report = end_turn(eng)
    assert "task-1 complete: vlb emplaced across ditch-1 (built-bridge-1, class IV)" in [
        h["result"] for h in report["happened"]
    ]


# --- CD 2.1: assault boats ------------------------------------------------------------------


def test_assault_boat_loading_and_loss(eng: Run) -> None:
    eng("place", "US-INF2", "40", "18.8")  # touching the boat's stern
    eng("engineer", "boat", "US-BOAT", "--load", "US-INF2")
    assert stand(eng, "US-INF2")["x"] is None  # in the boat, off the table
    assert (
        eng("engineer", "boat", "US-BOAT", "--load", "US-INF", code=3).output
        == "Error: US-BOAT already carries US-INF2: one stand per boat (CD 2.1)\n"
    )
    eng("engineer", "boat", "US-BOAT", "--unload")
    # Ahead of the bow (the boat faces north, its bow at y = 20.8), touching it.
    assert (stand(eng, "US-INF2")["x"], stand(eng, "US-INF2")["y"]) == (40, 21.2)
    assert eng("engineer", "boat", "US-BOAT", "--load", "US-TANK", code=3).output == (
        "Error: an assault boat carries a personnel stand or a class I towed weapon; "
        "US-TANK is a tank of class IV (CD 2.1)\n"
    )
    eng("engineer", "boat", "US-BOAT", "--load", "US-INF2")
    eng("phase", "next")
    # A soft vehicle: hit effects as Green, so 6+ eliminates; its passenger goes with it.
    out = as_json(eng("fire", "G-FORT", "US-BOAT", "--dice", "2,8", "--json"))
    assert out["target_now"] == "eliminated, with US-INF2 aboard"
    assert stand(eng, "US-INF2")["status"] == "eliminated"


@pytest.mark.parametrize(
    ("setup", "args", "code", "message"),
    [
        # CD 2.1: only the boat's own side, and only from beside it.
        (
            ["G-INF2", "41.2", "20"],
            ["--load", "G-INF2"],
            3,
            "Error: G-INF2 is Germany's: US-BOAT carries only its own side's stands (USA, CD "
            "2.1)\n",
        ),
        (
            [],
            ["--load", "US-INF2"],
            3,
            'Error: US-INF2 is 1.8" from US-BOAT: a stand boards from beside the boat (within '
            '0.5", CD 2.1)\n',
        ),
        ([], ["--unload"], 3, "Error: US-BOAT carries nothing\n"),
        (
            [],
            ["--load", "US-INF2", "--at", "40,22"],
            2,
            "Error: --at is where an unloaded stand goes: use it with --unload\n",
        ),
        ([], ["--load", "US-INF2", "--unload"], 2, "Error: give either --load STAND or --unload\n"),
    ],
)
def test_who_may_board_an_assault_boat(eng: Run, setup, args, code, message) -> None:
    if setup:
        eng("place", *setup)
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    out = eng("engineer", "boat", "US-BOAT", *args, code=code)
    assert out.output == message
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("at", "ok", "message"),
    [
        ("41.2,20", True, None),  # beside the starboard side
        (
            "40,25",
            False,
            'Error: US-INF cannot unload there: 40,25 is 3.8" from US-BOAT; unloaded stands '
            "go beside it (CD 2.1)\n",
        ),
        (
            "40,20.5",
            False,
            "Error: US-INF cannot unload there: 40,20.5 is on US-BOAT itself (CD 2.1)\n",
        ),
        (
            "40,18.8",
            False,
            "Error: US-INF cannot unload there: at 40,18.8 US-INF would overlap US-INF2 (CD 2.1)\n",
        ),  # astern, where US-INF2 stands
    ],
)
def test_unloading_puts_the_stand_beside_the_boat(eng: Run, at, ok, message) -> None:
    eng("place", "US-INF", "40", "18.8")
    eng("engineer", "boat", "US-BOAT", "--load", "US-INF")
    eng("place", "US-INF2", "40", "18.1")
    if ok:
        eng("engineer", "boat", "US-BOAT", "--unload", "--at", at)
        x, y = (float(v) for v in at.split(","))
        assert (stand(eng, "US-INF")["x"], stand(eng, "US-INF")["y"]) == (x, y)
        return
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    out = eng("engineer", "boat", "US-BOAT", "--unload", "--at", at, code=3)
    assert out.output == message
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


def test_a_stand_aboard_is_moved_by_its_boat(eng: Run) -> None:
    eng("place", "US-INF2", "40", "18.8")
    eng("engineer", "boat", "US-BOAT", "--load", "US-INF2")
    out = eng("place", "US-INF2", "30", "30", code=3)
    assert out.output == "Error: US-INF2 is aboard US-BOAT: unload it first (CD 2.1, 8.1)\n"


# --- CD 3: minefields ----------------------------------------------------------------------------


def lay(run: Run, *args: str) -> str:
    return as_json(run("minefield", "place", *args, "--json"))["id"]


def test_minefield_place_and_views(eng: Run) -> None:
    real = lay(eng, "30", "11", "--side", "Germany", "--pregame")
    dummy = lay(eng, "33", "11", "--side", "Germany", "--pregame", "--dummy")
    referee = as_json(eng("minefield", "list", "--json"))["minefields"]
    assert [(f["id"], f["real"]) for f in referee] == [(real, True), (dummy, False)]
    own = as_json(eng("minefield", "list", "--view", "Germany", "--json"))["minefields"]
    assert [(f["id"], f["real"]) for f in own] == [(real, True), (dummy, False)]
    # CD 3: the enemy sees both templates on the table, not which one is real.
    enemy = as_json(eng("minefield", "list", "--view", "USA", "--json"))["minefields"]
    assert [(f["id"], f["real"]) for f in enemy] == [(real, None), (dummy, None)]


def test_real_or_dummy_never_appears_in_the_other_sides_view(eng: Run) -> None:
    real = lay(eng, "30", "11", "--side", "Germany", "--pregame")
    dummy = lay(eng, "33", "11", "--side", "Germany", "--pregame", "--dummy")
    assert real != dummy
    outputs = [
        eng("status", "--side", "USA").output,
        eng("status", "--side", "USA", "--json").output,
        eng("log", "--view", "USA").output,
        eng("log", "--view", "USA", "--json").output,
        eng("minefield", "list", "--view", "USA").output,
        eng("minefield", "list", "--view", "USA", "--json").output,
    ]
    for text in outputs:
        assert "dummy" not in text and "Germany real" not in text, text
        assert '"real": true' not in text and '"real": false' not in text, text
    # The templates themselves lie on the table for both sides (CD 3).
    assert outputs[4].splitlines()[1] == "mf-2: Germany (not known if real) at 33,11"
    assert "Minefield mf-2: Germany dummy at 33,11" in eng("status").output.splitlines()
    assert eng("log").output.splitlines()[2] == (
        "#3 turn 1 movement: minefield-place at=33,11 dummy pregame "
        "side=Germany -> minefield mf-2 placed for Germany"
    )


VIEWS = [
    ["log", "--view"],
    ["log", "--json", "--view"],
    ["minefield", "list", "--view"],
    ["minefield", "list", "--json", "--view"],
    ["status", "--side"],
]


@pytest.mark.parametrize("spelled", ["usa", "Usa", "uSA"])
@pytest.mark.parametrize("command", VIEWS)
def test_side_names_match_without_case(eng: Run, command: list[str], spelled: str) -> None:
    lay(eng, "30", "11", "--side", "germany", "--pregame")  # --side matches the same way
    assert eng(*command, spelled).output == eng(*command, "USA").output


@pytest.mark.parametrize("command", [*VIEWS, ["map", "--view"]])
def test_an_unknown_side_is_one_clear_error(eng: Run, command: list[str]) -> None:
    out = eng(*command, "Mars", code=2)
    option = command[-1]
    accepted = "referee, Germany, USA" if option == "--view" else "Germany, USA"
    what = "view" if option == "--view" else "side"
    assert (
        out.output == f"Error: {option} 'Mars': not a {what} of this game (accepted: {accepted})\n"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["30", "30", "--side", "Germany", "--pregame", "--dummy"],
            3,
            "Error: dummy minefields may not be placed on paved roads or streets (CD 3.1.1)\n",
        ),
        (
            ["30", "20", "--side", "Germany", "--pregame"],
            3,
            "Error: no minefields in river (CD 3.1.1)\n",
        ),
        (
            ["30", "11", "--side", "Italy", "--pregame"],
            2,
            "Error: --side 'Italy': not a side of this game (accepted: Germany, USA)\n",
        ),
        (
            ["30", "11", "--side", "Germany"],
            2,
            "Error: give --by ENGINEER for a field laid in battle, or --pregame for one the "
            "scenario or referee allows before the game (CD 3.1)\n",
        ),
        (
            ["0.2", "11", "--side", "Germany", "--pregame"],
            2,
            "Error: a minefield at 0.2,11 would be off the 60 x 40 table\n",
        ),
        (
            ["30", "26", "--side", "Germany", "--by", "G-E1"],
            3,
            'Error: the field must go next to G-E1 (1.6" away; CD 3.1.2)\n',
        ),
        (["30", "25", "--side", "USA", "--by", "G-E1"], 3, "Error: G-E1 is Germany's, not USA's\n"),
    ],
)
def test_bad_minefield_placement(eng: Run, args, code, message) -> None:
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    assert eng("minefield", "place", *args, code=code).output == message
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


def test_laying_in_battle_is_limited_by_the_engineer_companies(run: Run, tmp_path: Path) -> None:
    # Eight real fields per engineer company (CD 3.1.2), pooled: with the chart at one a
    # company, Germany's two companies may lay two; dummies are unlimited.
    folder = tmp_path / "house"
    folder.mkdir()
    (folder / "mines.yaml").write_text(
        "entries:\n  - {id: real-per-engineer-company, value: 1}\n", encoding="utf-8"
    )
    run("new", GROUND, "--seed", "5", "--charts", str(folder))
    lay(run, "30", "24.4", "--side", "Germany", "--by", "G-E1")  # company 1/Pi
    lay(run, "33.5", "24.4", "--side", "Germany", "--by", "G-E2")  # 1/Pi's stands, pooled
    out = run("minefield", "place", "20", "27.9", "--side", "Germany", "--by", "G-E3", code=3)
    assert out.output == (
        "Error: Germany has laid 2 real minefields: its engineer companies carry mines "
        "for 2 (CD 3.1.2)\n"
    )
    lay(run, "20", "27.9", "--side", "Germany", "--by", "G-E3", "--dummy")


def test_an_engineer_lays_one_field_each_movement_phase(eng: Run) -> None:
    # CD 3.1.2: one template next to each qualifying engineer at the end of a movement phase.
    lay(eng, "30", "24.4", "--side", "Germany", "--by", "G-E1")
    for dummy in ((), ("--dummy",)):
        before = file_digest(eng.game)  # type: ignore[attr-defined]
        out = eng(
            "minefield", "place", "31", "23", "--side", "Germany", "--by", "G-E1", *dummy, code=3
        )
        assert out.output == (
            "Error: G-E1 has already laid a minefield this movement phase: one template "
            "next to each engineer at the end of a movement phase (CD 3.1.2)\n"
        )
        assert file_digest(eng.game) == before  # type: ignore[attr-defined]
    lay(eng, "33.5", "24.4", "--side", "Germany", "--by", "G-E2")  # another engineer may
    end_turn(eng)
    goto_phase(eng, "movement")
    lay(eng, "31", "23", "--side", "Germany", "--by", "G-E1")  # the next movement phase


@pytest.mark.parametrize(
    ("at", "overlaps"),
    [
        ("30,11", True),  # on top of it
        ("30.5,11.5", True),  # a quarter of it
        ("30.99,11", True),  # a sliver
        ("31,11", False),  # side by side: edges touching
        ("31,12", False),  # corners touching
    ],
)
def test_minefield_templates_do_not_overlap(eng: Run, at: str, overlaps: bool) -> None:
    lay(eng, "30", "11", "--side", "Germany", "--pregame")
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    out = eng("minefield", "place", at, "--side", "USA", "--pregame", code=3 if overlaps else 0)
    if overlaps:
        assert out.output == (
            f"Error: a minefield at {at} would overlap mf-1 at 30,11: templates lie side by "
            "side, not on top of each other (CD 3)\n"
        )
        assert file_digest(eng.game) == before  # type: ignore[attr-defined]


def test_an_engineer_that_fired_last_turn_may_lay_in_this_turns_movement_phase(eng: Run) -> None:
    # CD 3.1.2: only firing during the same turn stops an engineer laying; the fire phases
    # follow the movement phase, so last turn's shot does not count.
    eng("phase", "next")
    eng("fire", "G-FT", "US-INF", "--range", "1", "--dice", "9")
    eng("turn", "next", "--yes")
    goto_phase(eng, "movement")
    out = eng("minefield", "place", "19", "37.2", "--side", "Germany", "--by", "G-FT")
    assert out.output == "minefield mf-1 placed for Germany (event 7)\n"


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
    assert attack["rolls"] == [9] * attacks and attack["result"] == "no hits (CD 3.2)"
    assert hit_on == (3 if who == "US-INF" else 5)


@pytest.mark.parametrize(
    ("who", "start", "path", "edge", "attacks", "stop", "met"),
    [
        # The field is 29.5-30.5 x 10.5-11.5; US-INF's 0.8" base comes down from 30,14.
        ("US-INF", None, ["30,11.9"], False, 1, (30, 11.9), True),  # touching its edge
        ("US-INF", None, ["30,11.7"], False, 1, (30, 11.7), True),  # partly on it
        ("US-INF", None, ["30,11"], False, 1, (30, 11), True),  # on it, not across
        ("US-INF", None, ["30,10.1"], False, 2, (30, 10.1), True),  # just across
        ("US-INF", None, ["30,9"], False, 2, (30, 10.1), True),  # through: stops once across
        ("US-INF", None, ["30,9"], True, 1, (30, 11.9), True),  # told to stop at the edge
        ("US-INF", None, ["30,11", "30,14"], False, 2, (30, 11.9), True),  # in and back out
        ("US-INF", None, ["30,12"], False, 0, (30, 12), False),  # 0.1" short: not met
        # Grazing its top edge on the way past: held at the edge where contact ends.
        ("US-INF", "28,11.9", ["32,11.9"], False, 1, (30.9, 11.9), True),
        # Already touching it where the move begins, and moving away: not met again.
        ("US-INF", "30,11.9", ["30,14"], False, 0, (30, 14), False),
        # A dismounted engineer: not attacked stopping at the edge, nor beside it (where it
        # still finds the field); attacked like anyone going on or through it.
        ("US-E1", "32,11", ["30.9,11"], False, 0, (30.9, 11), True),
        ("US-E1", "32,11", ["31.2,11"], False, 0, (31.2, 11), True),
        ("US-E1", "32,11", ["30.6,11"], False, 1, (30.6, 11), True),
        ("US-E1", "32,11", ["28,11"], False, 2, (29.1, 11), True),
        # A vehicle's base (1" x 2") is what meets the field, not its centre.
        ("US-FLAIL", "30,16", ["30,12.5"], False, 1, (30, 12.5), True),
    ],
)
def test_minefield_attacks_from_the_geometry_of_the_move(
    eng: Run, who, start, path, edge, attacks, stop, met
) -> None:
    field = lay(eng, "30", "11", "--side", "Germany", "--pregame")
    if start is not None:
        eng("place", who, *start.split(","))
    args = [a for p in path for a in ("--path", p)]
    out = as_json(
        eng("minefield", "cross", who, *args, *(["--stop-at-edge"] if edge else []), "--json")
    )
    assert out["attacks"] == attacks
    assert_allclose(out["stopped_at"], stop, atol=1e-3)
    assert out["revealed"] == ([{"id": field, "real": True}] if met else [])
    dice = ["--dice", ",".join(["9"] * attacks)] if attacks else []
    report = as_json(eng("phase", "next", *dice, "--json"))
    rolled = [h for h in report["happened"] if h["what"] == "minefield attack"]
    assert sum(len(h["rolls"]) for h in rolled) == attacks


def test_a_stand_already_at_the_edge_that_does_not_move_is_not_attacked_again(
    eng: Run,
) -> None:
    lay(eng, "30", "11", "--side", "Germany", "--pregame")
    first = as_json(eng("minefield", "cross", "US-INF", "--path", "30,6", "--stop-at-edge",
                        "--json"))  # fmt: skip
    assert first["attacks"] == 1
    again = as_json(eng("minefield", "cross", "US-INF", "--path", "30,6", "--stop-at-edge",
                        "--json"))  # fmt: skip
    assert again["attacks"] == 0 and again["stopped_at"] == first["stopped_at"]
    assert status(eng)["pending"] == {"mine-attacks": 1}


@pytest.mark.parametrize("dummy", [False, True])
def test_a_side_keeps_to_the_lanes_of_its_own_minefields(eng: Run, dummy: bool) -> None:
    # Germany's own engineer walks up to and across Germany's field: it finds nothing there
    # for the enemy to learn, sets nothing off, and a dummy stays on the table.
    field = lay(eng, "21", "27", "--side", "Germany", "--by", "G-E3",
                *(["--dummy"] if dummy else []))  # fmt: skip
    eng("turn", "next", "--yes")
    eng("phase", "next")
    eng("phase", "next")
    out = as_json(eng("minefield", "cross", "G-E3", "--path", "22,26.5", "--json"))
    assert out["attacks"] == 0 and out["revealed"] == []
    listed = eng("minefield", "list").output
    assert listed == f"{field}: Germany {'dummy' if dummy else 'real'} at 21,27\n"
    usa = eng("minefield", "list", "--view", "USA").output
    assert usa == "mf-1: Germany (not known if real) at 21,27\n"


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


def fields_left(run: Run) -> list[str]:
    return [f["id"] for f in as_json(run("minefield", "list", "--json"))["minefields"]]


def test_hand_lifting_takes_a_whole_turn_beside_the_field(eng: Run) -> None:
    field = lay(eng, "7", "7.5", "--side", "Germany", "--pregame")
    assert eng("minefield", "clear", field, "--by", "US-E1", code=3).output == (
        "Error: mf-1 has not been detected: only a revealed field can be cleared (CD 3.3)\n"
    )
    # CD 3.3.1: US-E1 moves up this turn, so its turn beside the field is the next one.
    eng("minefield", "cross", "US-E1", "--path", "7,6", "--stop-at-edge")
    out = as_json(eng("minefield", "clear", field, "--by", "US-E1", "--json"))
    assert out["turn"] == 2 and out["verdict"] == (
        "US-E1 lifts the mines of mf-1 in 1 turn (0.5 h): gone at the end of next "
        "turn (turn 2) if it spends that turn beside the field, unpinned and "
        "unsuppressed, and does not fire (cautious advance order, CD 3.3.1)"
    )
    end_turn(eng)
    assert fields_left(eng) == [field]  # not in the turn it moved up
    end_turn(eng)
    assert fields_left(eng) == []


def test_hand_lifting_by_an_engineer_already_beside_the_field(eng: Run) -> None:
    field = lay(eng, "7", "7.5", "--side", "Germany", "--pregame")
    eng("minefield", "cross", "US-E1", "--path", "7,6", "--stop-at-edge")
    end_turn(eng)
    goto_phase(eng, "movement")  # turn 2: US-E1 began it beside the field and has not moved
    out = as_json(eng("minefield", "clear", field, "--by", "US-E1", "--json"))
    assert out["turn"] == 2
    end_turn(eng)
    assert fields_left(eng) == []


def test_moving_in_the_counted_turn_stops_hand_lifting(eng: Run) -> None:
    field = lay(eng, "7", "7.5", "--side", "Germany", "--pregame")
    eng("minefield", "cross", "US-E1", "--path", "7,6", "--stop-at-edge")
    eng("minefield", "clear", field, "--by", "US-E1")
    end_turn(eng)
    goto_phase(eng, "movement")
    eng("place", "US-E1", "7.2", "6")  # still beside it, but it moved in its turn of work
    report = end_turn(eng)
    assert (
        "task-1 (hand-lift mf-1) paused: US-E1 moved; 0 h done are kept; it resumes after a "
        "turn its workers spend in place, unpinned and unsuppressed"
    ) in [h["result"] for h in report["happened"]]
    assert fields_left(eng) == [field]


def test_mine_clearing_tank_starts_beside_the_field(eng: Run) -> None:
    # USA's own fields (known to it) keep the enemy's opportunity attacks out of the test.
    first = lay(eng, "5", "16.5", "--side", "USA", "--pregame")
    far = lay(eng, "5", "18.4", "--side", "USA", "--pregame")
    eng("place", "US-FLAIL", "5", "14.6")  # moved up this turn
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    moved = eng("minefield", "clear", "--by", "US-FLAIL", "--method", "tank", code=3)
    assert moved.output.strip() == (
        "Error: US-FLAIL has already moved this turn: a mine-clearing tank starts its move "
        "beside the minefield and then advances (CD 3.3.2)"
    )
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]
    next_movement(eng)
    # CD 3.3.2: from beside the field the tank rolls 2" forward, clearing what it crosses.
    out = as_json(eng("minefield", "clear", "--by", "US-FLAIL", "--method", "tank", "--json"))
    assert out["cleared"] == [first]
    assert stand(eng, "US-FLAIL")["y"] == 16.6
    eng("phase", "next")
    assert eng("fire", "US-FLAIL", "G-E1", code=3).output == (
        "Error: US-FLAIL is flailing a minefield this turn and may not fire (CD 3.3.2)\n"
    )
    next_movement(eng)
    eng("place", "US-FLAIL", "20", "13.5")
    next_movement(eng)
    alone = eng("minefield", "clear", "--by", "US-FLAIL", "--method", "tank", code=3)
    assert alone.output.strip() == (
        "Error: US-FLAIL is not beside a detected minefield: a mine-clearing tank must start "
        'adjacent to one (within 0.5", CD 3.3.2)'
    )
    assert far in [f["id"] for f in as_json(eng("minefield", "list", "--json"))["minefields"]]


def test_line_charge_clear_then_move(eng: Run) -> None:
    # CD 3.3.3: one field beside the vehicle as the movement phase begins (then it moves),
    # one other beside it at the end of the opportunity fire phase; no more that turn.
    second = lay(eng, "10", "16", "--side", "Germany", "--pregame")
    third = lay(eng, "13", "16", "--side", "Germany", "--pregame")
    fourth = lay(eng, "16", "16", "--side", "Germany", "--pregame")
    assert eng(
        "minefield", "clear", second, "--by", "US-LC", "--method", "line-charge", code=3
    ).output == (
        "Error: mf-1 has not been detected: only a revealed field can be cleared (CD 3.3)\n"
    )
    eng("minefield", "cross", "US-LC", "--path", "10,15", "--stop-at-edge")
    moved = eng("minefield", "clear", second, "--by", "US-LC", "--method", "line-charge", code=3)
    assert moved.output.strip() == (
        "Error: US-LC has moved this turn: a line charge clears the field the vehicle begins "
        "the movement phase beside, and then it moves (CD 3.3.3)"
    )
    for at in ("13,15.2", "16,15.2"):  # US-INF walks up to reveal the other two
        eng("minefield", "cross", "US-INF", "--path", at, "--stop-at-edge")
    # the three opportunity attacks miss (CD 3.2)
    eng("turn", "next", "--yes", "--dice", "10,10,10")
    goto_phase(eng, "movement")
    early = eng("minefield", "clear", third, "--by", "US-LC", "--method", "line-charge", code=3)
    assert early.output == "Error: US-LC must be beside mf-2 (CD 3.3)\n"
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    odds = eng("minefield", "clear", second, "--by", "US-LC", "--method", "line-charge", "--odds")
    assert odds.output.splitlines() == [  # CD 3.3.3: a line charge clears without a roll
        "Odds: minefield-clear (exact; nothing rolled or logged)",
        "  outcomes:",
        "    100.0%  US-LC's line charge clears mf-1: it may now move; at the end of the",
        "              opportunity fire phase it may clear one more field beside it if",
        "              still unsuppressed (CD 3.3.3)",
    ]
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]
    out = as_json(
        eng("minefield", "clear", second, "--by", "US-LC", "--method", "line-charge", "--json")
    )
    assert out["cleared"] == [second] and out["window"] == "movement"
    assert out["verdict"] == (
        "US-LC's line charge clears mf-1: it may now move; at the end of the opportunity fire "
        "phase it may clear one more field beside it if still unsuppressed (CD 3.3.3)"
    )
    eng("place", "US-LC", "13", "14.5")
    twice = eng("minefield", "clear", third, "--by", "US-LC", "--method", "line-charge", code=3)
    assert twice.output == (
        "Error: US-LC already cleared mf-1 this movement phase: one line charge as the "
        "phase begins (CD 3.3.3)\n"
    )
    eng("phase", "next")  # opportunity fire
    out = as_json(
        eng("minefield", "clear", third, "--by", "US-LC", "--method", "line-charge", "--json")
    )
    assert out["cleared"] == [third] and out["window"] == "opportunity-fire"
    eng("place", "US-LC", "16", "14.5")
    third_try = eng(
        "minefield", "clear", fourth, "--by", "US-LC", "--method", "line-charge", code=3
    )
    assert third_try.output == (
        "Error: US-LC already cleared mf-2 at the end of this opportunity fire phase: "
        "one more field a turn (CD 3.3.3)\n"
    )
    eng("phase", "next")  # fire phase: no line charges
    late = eng("minefield", "clear", fourth, "--by", "US-LC", "--method", "line-charge", code=3)
    assert late.output.strip() == (
        "Error: a line charge clears a field as the movement phase begins, or another at the "
        "end of the opportunity fire phase (CD 3.3.3); it is the fire phase now"
    )


def test_pregame_minefields_only_before_the_game(eng: Run) -> None:
    eng("phase", "next")
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    out = eng("minefield", "place", "30", "11", "--side", "Germany", "--pregame", code=3)
    assert out.output.strip() == (
        "Error: --pregame minefields are placed before the game begins (turn 1, movement "
        "phase); it is turn 1, opportunity-fire phase: in battle an engineer lays them "
        "(--by ENGINEER, CD 3.1.1, 3.1.2)"
    )
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


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
    assert out["turns"] == 1 and out["verdict"] == (
        'US-DOZER clears a 4" gap in wire-1: 1 turn (0.5 h), from next turn (it '
        "moved up this turn, CD 4) (earthmover, CD 4.1)"
    )


def test_obstacle_clearing_needs_an_adjacent_engineer(eng: Run) -> None:
    assert (
        eng("engineer", "clear", "abatis-1", "--by", "US-E1", code=3).output
        == "Error: US-E1 must begin its work beside abatis-1 (CD 4)\n"
    )
    assert eng("engineer", "clear", "wire-1", "--by", "US-INF", code=3).output == (
        "Error: US-INF is an infantry: this needs an engineer stand or an earthmover (CD 4)\n"
    )


def test_obstacle_clearing_counts_from_a_turn_begun_beside_it(eng: Run) -> None:
    # CD 4: the engineer begins the movement phase of its first turn of work beside the
    # obstacle; US-E1 moves up to the wire this turn, so the work counts from turn 2.
    eng("place", "US-E1", "7", "5")
    eng("place", "US-E1", "7", "8.9")
    out = as_json(eng("engineer", "clear", "wire-1", "--by", "US-E1", "--json"))
    assert out["turns"] == 1 and out["verdict"] == (
        'US-E1 clears a 1" gap in wire-1: 1 turn (0.5 h), from next turn (it moved '
        "up this turn, CD 4) (hasty order, CD 4.1)"
    )
    first = end_turn(eng)
    assert (
        "task-1 (clear wire-1): the work counts from turn 2 (its workers moved up this turn)"
    ) in [h["result"] for h in first["happened"]]
    assert terrain(eng, "wire-1") is None
    end_turn(eng)
    assert terrain(eng, "wire-1")["gaps"] == 1


def test_firing_interrupts_obstacle_clearing(eng: Run) -> None:
    eng("engineer", "clear", "ditch-1", "--by", "US-E2")
    eng("phase", "next")
    eng("phase", "next")
    eng("marker", "US-E2", "--add", "suppressed")
    report = end_turn(eng)
    assert (
        "task-1 (clear ditch-1) paused: US-E2 was suppressed; 0 h done are kept; it resumes "
        "after a turn its workers spend in place, unpinned and unsuppressed"
    ) in [h["result"] for h in report["happened"]]


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


@pytest.mark.parametrize(
    ("work", "possible"),
    [
        # CD 5.1: defensive works (5.1.1, 5.1.2, tank ramps included) are barred...
        ("foxholes", False),
        ("entrenchments", False),
        ("fortification", False),
        ("tank-ramp", False),
        # ...but not the obstacles of 5.2.
        ("ditch", True),
        ("wire", True),
        ("crater", True),
        ("abatis", True),
        ("av-obstacle", True),
    ],
)
def test_no_defensive_works_in_deep_mud(eng: Run, work: str, possible: bool) -> None:
    eng("weather", "set", "--ground", "mud-deep")
    entry = plan(eng, "--days", "2")["works"][work]
    assert entry["possible"] is possible
    if not possible:
        assert entry["why_not"] == "no defensive works on mud-deep ground (CD 5.1)"
        assert entry["not_in"] == ["flooded"]
    eng("weather", "set", "--ground", "mud-moderate")  # built before the mud: unaffected
    assert plan(eng, "--days", "2")["works"][work]["possible"] is True


@pytest.mark.parametrize(
    "args",
    [
        ["--hours", "nan"],
        ["--days", "nan"],
        ["--hours", "inf"],
        ["--days", "-inf"],
        ["--hours", "1e400"],
        ["--hours", "-1"],
        ["--days", "61"],
        ["--hours", "three"],
    ],
)
def test_pregame_time_must_be_a_finite_number(eng: Run, args: list[str]) -> None:
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    out = eng("engineer", "pregame", "--side", "Germany", *args, "--accept", code=2)
    assert out.output.startswith("Error: ") and len(out.output.strip().splitlines()) == 1
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


def test_accepting_a_plan_digs_the_troops_in(eng: Run) -> None:
    out = as_json(
        eng("engineer", "pregame", "--side", "Germany", "--hours", "6", "--accept", "--json")
    )
    assert "G-INF" in out["dug_in"]
    assert "entrenched" in stand(eng, "G-INF")["markers"]
    eng("phase", "next")
    fired = as_json(eng("fire", "US-TANK", "G-INF", "--spotted", "--json"))
    assert "target in hard cover (town)" in [m["name"] for m in fired["modifiers"]]
    assert (
        eng("engineer", "pregame", "--side", "Germany", "--hours", "6", "--accept", code=3).output
        == "Error: pregame works are accepted once, before the first turn is played (CD 5)\n"
    )


def screen(run: Run) -> list[dict]:
    return [t for t in status(run)["templates"] if t["id"].startswith("screen-")]


def test_smoke_generator_screen_grows_and_thins(eng: Run) -> None:
    eng("weather", "set", "--wind-from", "7")  # from the west: G-E3 (20,27) smokes eastward
    eng("engineer", "smoke", "G-E3")
    counts = []
    for _ in range(7):
        end_turn(eng)
        counts.append(len(screen(eng)))
    assert counts == [2, 3, 4, 5, 6, 6, 6]  # 6" a turn to 36"
    # CD 5.3: every template 2" x 6", laid end to end downwind from the upwind edge of the
    # generator's base (so it covers the generator), 36" in all.
    laid = screen(eng)
    assert [(t["width"], t["length"], t["bearing"]) for t in laid] == [(2, 6, 90)] * 6
    assert [t["from"] for t in laid] == [[19.6 + 6 * i, 27] for i in range(6)]
    assert laid[-1]["to"] == [55.6, 27]
    eng("engineer", "smoke", "G-E3", "--stop")
    end_turn(eng)
    assert len(screen(eng)) == 4  # two a turn from the upwind end
    end_turn(eng)
    end_turn(eng)
    assert screen(eng) == []


@pytest.mark.parametrize(
    ("force", "templates", "length"),
    [("light", 6, 6), ("moderate", 9, 4), ("high", 36, 1)],
)
def test_smoke_generator_templates_capped_by_the_wind(
    eng: Run, force: str, templates: int, length: float
) -> None:
    # CD 10.1.2: every template no longer than the wind allows; the screen still to 36".
    eng("weather", "set", "--wind-from", "7", "--wind-force", force)
    eng("engineer", "smoke", "G-E3")
    for _ in range(templates + 1):
        end_turn(eng)
    laid = screen(eng)
    assert len(laid) == templates
    assert {t["length"] for t in laid} == {length}
    assert_allclose(laid[-1]["to"][0] - laid[0]["from"][0], 36)


def test_smoke_generator_screen_stops_at_the_table_edge(eng: Run) -> None:
    # Wind from the north: from G-E3 at y = 27 the screen runs south to the edge at y = 0.
    eng("engineer", "smoke", "G-E3")
    for _ in range(6):
        report = end_turn(eng)
    laid = screen(eng)
    assert [t["length"] for t in laid] == [6, 6, 6, 6, 3.4]  # the last cut at the edge
    assert laid[-1]["to"] == [20, 0]
    line = next(h["result"] for h in report["happened"] if h["what"] == "smoke generator")
    assert line == "screen 5 templates long (no more: it has reached the table edge)"


# --- CD 6: structures ---------------------------------------------------------------------------


def test_fortification_damage_then_destruction(eng: Run) -> None:
    out = as_json(
        eng("structure", "damage", "fort-1", "--cause", "bomb", "--dice", "1,3", "--json")
    )
    assert (
        out["damaged"] is True
        and out["effects"][0] == "fort-1 damaged: now an entrenchment (hard cover) (CD 6.2.1)"
    )
    eng("structure", "damage", "fort-1", "--cause", "bomb", "--dice", "2")  # holds
    again = as_json(
        eng("structure", "damage", "fort-1", "--cause", "bomb", "--dice", "1,9", "--json")
    )
    assert again["effects"][0] == "fort-1 destroyed (CD 6.2.1)"
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
    assert (
        eng("place", "G-INF", "15", "34", code=3).output
        == "Error: huts is burning: no stand may enter it (CD 6.2.2)\n"
    )
    report = end_turn(eng, "5")
    assert "huts: still burning (rolled 5)" in [h["result"] for h in report["happened"]]
    report = end_turn(eng, "3")
    assert "huts: the fire goes out (rolled 3); smoke removed (CD 6.2.2)" in [
        h["result"] for h in report["happened"]
    ]
    assert terrain(eng, "huts")["state"] == "rubble"
    assert all(t["id"] != "fire-smoke-huts" for t in status(eng)["templates"])


def test_rubble_gives_less_cover(eng: Run) -> None:
    eng("phase", "next")
    before = as_json(eng("odds", "fire", "US-TANK", "G-INF", "--spotted", "--json"))
    eng("structure", "damage", "town", "--cause", "bomb", "--dice", "1,1")
    after = as_json(eng("odds", "fire", "US-TANK", "G-INF", "--spotted", "--json"))
    names = [m["name"] for m in after["modifiers"]]
    assert "target in medium cover (town)" in names, names
    assert before["to_hit"] < after["to_hit"]


def test_large_calibre_direct_fire_damages_structures(eng: Run) -> None:
    eng("phase", "next")
    out = as_json(eng("fire", "US-TANK", "G-INF", "--spotted", "--dice", "9,1,4", "--json"))
    assert out["structures"][0] == "town: structure roll 1: damaged (CD 6.1.2)"
    assert terrain(eng, "town")["state"] == "rubble"


def test_flamethrower_sets_flimsy_bua_alight(eng: Run) -> None:
    eng("place", "US-INF2", "17.5", "37.5")  # in the huts, 0.7" from the flamethrower
    eng("phase", "next")
    out = as_json(eng("fire", "G-FT", "US-INF2", "--dice", "9,+", "--json"))
    assert (
        "huts burns: no stand may enter it; smoke drifts downwind (CD 6.2.2)" in out["structures"]
    )
    assert terrain(eng, "huts")["state"] == "burning"


def test_flame_damage_command(eng: Run) -> None:
    out = as_json(eng("structure", "damage", "huts", "--cause", "flame", "--dice", "1", "--json"))
    assert out["damaged"] is True and terrain(eng, "huts")["state"] == "burning"
    assert (
        eng("structure", "damage", "town", "--cause", "flame", code=3).output
        == "Error: flame sets only flimsy BUA alight; town is bua-strong (CD 6.1.4)\n"
    )


def test_structure_list_and_bad_input(eng: Run) -> None:
    assert eng("structure", "list").output == "bridge-2 (bridge): damaged\n"
    assert eng("structure", "damage", "wood", "--cause", "bomb", code=2).output == (
        "Error: wood is woods: only bridges, fortifications and BUA sectors take damage (CD 6.1)\n"
    )
    assert (
        eng("structure", "damage", "twn", "--cause", "bomb", code=2).output
        == "Error: unknown terrain piece 'twn'; did you mean 'town'?\n"
    )


def test_engineering_replays(eng: Run) -> None:
    eng("engineer", "repair", "bridge-2", "--by", "US-E3")
    lay(eng, "30", "11", "--side", "Germany", "--pregame")
    eng("minefield", "cross", "US-INF", "--path", "30,9")
    eng("engineer", "smoke", "G-E3")
    eng("structure", "damage", "huts", "--cause", "bomb", "--dice", "1,1")
    end_turn(eng)
    end_turn(eng)
    assert eng("replay").output == "replay reproduces the stored state (8 events)\n"
    assert json.loads(eng("log", "--verify", "--json").output)["ok"] is True


def variant(run: Run, tmp_path: Path, *swaps: tuple[str, str]) -> Run:
    """The engineering ground with some text swapped (a stand's weapons), as a new game."""
    text = Path(GROUND).read_text(encoding="utf-8")
    for old, new in swaps:
        assert old in text  # the swap must find its text: a fragment of one line
        text = text.replace(old, new)
    path = tmp_path / "variant.yaml"
    path.write_text(text, encoding="utf-8")
    run("new", str(path), "--seed", "5")
    return run


def test_structure_damage_is_in_the_fire_text(eng: Run) -> None:
    # CD 6.1.2: the structure's die is rolled hit or miss, and its result is the shot's.
    eng("phase", "next")
    text = eng("fire", "US-TANK", "G-INF", "--spotted", "--dice", "9,1,4").output
    lines = text.splitlines()
    assert lines[0] == "miss: howitzer-155 on G-INF; town now rubble"
    assert "  structure: town: structure roll 1: damaged (CD 6.1.2)" in lines
    assert "  structure: town reduced to rubble: medium cover (CD 6.2.2)" in lines
    assert "  structure: G-INF inside takes a hit: forced back (rolled 4)" in lines
    assert (
        text.splitlines()[3] == "  -3 target in hard cover (town) [CD cover (default)]"
        and "CD indirect fire" not in text
    )


@pytest.mark.parametrize(
    ("weapon", "rolls"),
    [
        ("howitzer-155", True),
        ("howitzer-150", True),  # 15 cm sFH 18: nominally 150 mm (CD 6.1)
        ("howitzer-152", True),
        ("howitzer-105", False),  # too small to damage structures
    ],
)
def test_only_guns_of_150_mm_or_more_roll_for_structures(
    run: Run, tmp_path: Path, weapon: str, rolls: bool
) -> None:
    game = variant(run, tmp_path, ("weapons: [howitzer-155]", f"weapons: [{weapon}]"))
    game("phase", "next")
    dice = "9,2" if rolls else "9"  # a miss, then the structure's die if it has one
    out = as_json(game("fire", "US-TANK", "G-INF", "--spotted", "--dice", dice, "--json"))
    assert bool(out["structures"]) is rolls
    if rolls:
        assert out["structures"] == ["town: structure roll 2: holds (CD 6.1.2)"]


def test_howitzer_150_counts_as_15_cm(charts: Charts) -> None:
    w = charts.weapons["howitzer-150"]
    assert w.calibre_mm == 150 and w.calibre_cm == 15  # depletes on 15 or less (CD 1.2)
    assert (w.note or "") == (
        "Nominal 150 mm (true bore 149.1 mm), as data charts list it: a 15 cm gun "
        "damages structures (CD 6.1: 150 mm or larger) and depletes on 15 or less (CD "
        "1.2)."
    )  # the true bore is kept in the note


def test_an_ap_only_gun_cannot_harm_a_loaded_assault_boat(run: Run, tmp_path: Path) -> None:
    # CD 2.1: AP rounds have no effect on assault boats; the PaK 38 has no HE round.
    game = variant(
        run, tmp_path, ("weapons: [pak-40], at: [23, 34]", "weapons: [pak-38], at: [23, 34]")
    )
    game("place", "US-INF2", "40", "18.8")
    game("engineer", "boat", "US-BOAT", "--load", "US-INF2")
    game("phase", "next")
    before = file_digest(game.game)  # type: ignore[attr-defined]
    for args in (["fire", "G-FORT", "US-BOAT"], ["odds", "fire", "G-FORT", "US-BOAT"]):
        out = game(*args, code=3)
        assert out.output == (
            "Error: pak-38 fires only AP rounds (weapons chart: ap_only), and AP rounds "
            "have no effect on US-BOAT (stand kind assault-boat: CD 2.1); fire a weapon "
            "with HE at it\n"
        )
    assert file_digest(game.game) == before  # type: ignore[attr-defined]
    assert stand(game, "US-BOAT")["status"] == "ok"


def test_a_minefield_stop_is_placed_to_the_hundredth_of_an_inch(eng: Run) -> None:
    # Issue 20: a stop short of the path's end was stored (and printed) with the exact
    # contact point's long decimals; it is tidied to 0.01", on the same side of the field.
    lay(eng, "30", "11", "--side", "Germany", "--pregame")
    eng("place", "US-INF", "30.37", "4")
    out = as_json(eng("minefield", "cross", "US-INF", "--path", "31.234,14.7", "--stop-at-edge",
                      "--json"))  # fmt: skip
    assert out["stopped_at"] == [30.86, 10.1]
    assert (stand(eng, "US-INF")["x"], stand(eng, "US-INF")["y"]) == (30.86, 10.1)
    assert out["attacks"] == 1  # stopped at the edge: clear of the field, attacked once
    assert (
        eng("show", "US-INF").output.splitlines()[1]
        == 'at 30.86,10.1 facing 0; base 0.8" x 0.8"; formation A/237'
    )


def test_a_wired_bridge_without_owner_belongs_to_the_side_holding_it(run: Run, tmp_path) -> None:
    # CD 2.4.1: only a friendly engineer detonates; with no owner: in the scenario, the side
    # whose stand stood nearest the bridge at the start holds it (G-E1, 2" off bridge-1).
    text = Path(GROUND).read_text().replace(", owner: Germany", "")
    ground = tmp_path / "no-owner.yaml"
    ground.write_text(text)
    run("new", str(ground), "--seed", "5")
    run("place", "US-E3", "30", "16.5")
    next_movement(run)
    out = run("engineer", "demolish", "bridge-1", "--by", "US-E3", code=3)
    assert out.output.strip() == (
        "Error: bridge-1 was wired by Germany (inferred: Germany's stands held it at the "
        "start); only a friendly engineer detonates the charges and US-E3 is USA's (CD 2.4.1)"
    )
    fired = as_json(
        run("engineer", "demolish", "bridge-1", "--by", "G-E1", "--dice", "5", "--json")
    )
    assert fired["result"] == "damaged"


@pytest.mark.parametrize(
    ("own_class", "code", "message"),
    [
        (
            ", weight_class: II",
            3,
            "Error: an assault boat carries a personnel stand or a class I towed weapon; "
            "US-GUN is a towed-gun of class II (CD 2.1)",
        ),
        ("", 0, None),  # the kind's class I: it boards
    ],
)
def test_assault_boat_reads_the_guns_own_class(run: Run, tmp_path, own_class, code, message):
    # CD 2.1: one class I towed weapon without crew; a gun the scenario makes class II
    # (a heavier piece on the towed-gun kind) stays ashore.
    gun = (
        "      - {id: US-GUN, kind: towed-gun, formation: A/237, weapons: [pak-40], "
        f"at: [40, 18.8]{own_class}}}\n"
    )
    text = Path(GROUND).read_text()
    text = text.replace(
        "      - {id: US-INF2, kind: infantry, formation: A/237, weapons: [rifle], at: [40, 17]}\n",
        gun,
    )
    ground = tmp_path / "gun.yaml"
    ground.write_text(text)
    run("new", str(ground), "--seed", "5")
    out = run("engineer", "boat", "US-BOAT", "--load", "US-GUN", code=code)
    if message is not None:
        assert out.output.strip() == message
    else:
        assert stand(run, "US-GUN")["x"] is None  # aboard


def test_task_estimates_at_night_are_in_night_turns(eng: Run) -> None:
    # CD 9.1.7 with CD 2.4.2: class III by one stand is three day turns (1.5 h); at night a
    # turn does an hour's work, so it is two night turns.
    eng("weather", "set", "--light", "night-dark")
    out = as_json(eng("engineer", "repair", "bridge-2", "--by", "US-E3", "--json"))
    assert out["verdict"] == (
        "repair of bridge-2 begun: 2 night turns (1.5 h, CD 9.1.7) (class III, 1 engineer "
        "stand, CD 2.4.2)"
    )
    # The JSON says what the text says: 2 night turns, not the 3 day turns of the rule.
    assert (out["turns"], out["night"], out["hours"], out["day_turns"]) == (2, True, 1.5, 3)
    assert engineering_lines(end_turn(eng)) == [
        "task-1 (repair bridge-2): 1 night turn (0.5 h, CD 9.1.7) of work left"
    ]
    assert engineering_lines(end_turn(eng)) == [
        "task-1 complete: bridge-2 repaired and usable again"
    ]


def test_the_task_list_at_night_says_night_turns_in_its_text_and_json(eng: Run) -> None:
    # The same repair (3 day turns, 1.5 h; 2 night turns, CD 9.1.7) as the list tells it:
    # the work left comes before the turn it counts from, and the JSON's 'left' says what
    # the text says (the row's own 'turns' stay the rule's day turns).
    eng("weather", "set", "--light", "night-dark")
    eng("engineer", "repair", "bridge-2", "--by", "US-E3")
    assert eng("engineer", "tasks").output == (
        "task-1: repair bridge-2 by US-E3 since turn 1: active (2 night turns (1.5 h, "
        "CD 9.1.7) of work left)\n"
    )
    (row,) = as_json(eng("engineer", "tasks", "--json"))["tasks"]
    assert (row["turns"], row["left"]) == (
        3,
        {"turns": 2, "night": True, "hours": 1.5, "day_turns": 3},
    )


# --- CD 6.1.1, 6.1.2: bombs and large guns against structures ----------------------------------


def test_a_large_bomb_rolls_once_for_every_structure_in_its_burst(eng: Run) -> None:
    # CD 6.1.1: one die: a 2 damages the flimsy huts (1-2) but not the strong town (1).
    eng("turn", "next", "--yes")
    goto_phase(eng, "artillery")
    out = as_json(
        eng(
            "structure",
            "bomb",
            "10,35",
            "--radius",
            "3",
            "--aircraft",
            "medium",
            "--dice",
            "2,5",
            "--json",
        )
    )
    assert (out["rolls"], out["structures"]) == ([2], {"huts": "damaged", "town": "holds"})
    assert out["verdict"] == "bomb rolled 2: huts damaged, town holds (CD 6.1.1)"
    assert terrain(eng, "huts")["state"] == "burning"
    assert terrain(eng, "town") is None


def test_a_bomb_rolling_one_damages_every_structure_in_the_burst(eng: Run) -> None:
    eng("turn", "next", "--yes")
    goto_phase(eng, "artillery")
    out = as_json(
        eng(
            "structure",
            "bomb",
            "10,35",
            "--radius",
            "3",
            "--aircraft",
            "heavy",
            "--dice",
            "1,5,5",
            "--json",
        )
    )
    assert out["structures"] == {"huts": "damaged", "town": "damaged"}
    assert (terrain(eng, "huts")["state"], terrain(eng, "town")["state"]) == ("burning", "rubble")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["10,35", "--radius", "3", "--aircraft", "fighter"],
            3,
            "Error: fighter aircraft carry smaller bombs: only dive, medium and heavy bombers' "
            "large bombs roll against structures (CD 6.1, 6.1.1 design note)",
        ),
        (
            ["30,5", "--radius", "3", "--aircraft", "dive"],
            3,
            'Error: no vulnerable structure within the 3" burst at 30,5: no structure roll '
            "(CD 6.1.1)",
        ),
        (
            ["10,35", "--radius", "0", "--aircraft", "dive"],
            2,
            "Error: --radius 0: give the burst's radius in inches, more than 0",
        ),
    ],
)
def test_bombs_that_roll_nothing(eng: Run, args, code, message) -> None:
    eng("turn", "next", "--yes")
    goto_phase(eng, "artillery")
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    assert eng("structure", "bomb", *args, code=code).output.strip() == message
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


def test_a_large_gun_fires_at_a_structure_itself(eng: Run) -> None:
    # CD 6.1.2: US-TANK's 155 mm at 7.2" (close range) rolls a 1: the strong town is damaged,
    # rubble (medium cover); G-INF inside takes an automatic hit (CD 6.2.2).
    goto_phase(eng, "fire")
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    small = eng("structure", "fire", "fort-1", "--by", "G-FORT", code=3)
    assert small.output.strip() == (
        "Error: pak-40 is 75 mm: only guns of 150 mm or more damage structures "
        '(0.0" to fort-1; CD 6.1.2)'
    )
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]
    out = as_json(eng("structure", "fire", "town", "--by", "US-TANK", "--dice", "1,5", "--json"))
    assert out["verdict"] == (
        'US-TANK fires howitzer-155 at town (7.2", close): damaged (rolled 1; CD 6.1.2)'
    )
    assert out["effects"][0] == "town reduced to rubble: medium cover (CD 6.2.2)"
    assert terrain(eng, "town")["state"] == "rubble"
    again = eng("structure", "fire", "fort-1", "--by", "US-TANK", code=3)
    assert again.output == (
        "Error: US-TANK cannot fire its howitzer-155 again this turn: it fired in the "
        "fire phase (fire at town); each weapon fires once a turn, in one phase: "
        "opportunity fire, fire, or a barrage (CD core (default), ammo chart "
        "fires-per-turn)\n"
    )


def test_structure_fire_only_in_a_fire_phase(eng: Run) -> None:
    out = eng("structure", "fire", "town", "--by", "US-TANK", code=3)
    assert out.output == (
        "Error: direct fire at a structure is not allowed in the movement phase: it "
        "happens in the opportunity-fire or fire phase (turn chart); advance with "
        "'tabletop phase next'\n"
    )


@pytest.mark.parametrize(
    ("weapon", "band", "ammo", "says"),
    [
        ("howitzer-155", "close", "standard", None),
        ("howitzer-155", "medium", "standard", None),
        (
            "howitzer-155",
            "long",
            "standard",
            "howitzer-155 is at long range: large guns damage structures at close or medium range",
        ),
        (
            "howitzer-155",
            None,
            "standard",
            "howitzer-155 is out of range: large guns damage structures at close or medium range",
        ),
        (
            "howitzer-155",
            "close",
            "smoke",
            "howitzer-155 fires no HE here: structures are damaged by HE fire",
        ),
        (
            "pak-40",
            "close",
            "standard",
            "pak-40 is 75 mm: only guns of 150 mm or more damage structures",
        ),
    ],
)
def test_the_large_calibre_threshold(charts: Charts, weapon, band, ammo, says) -> None:
    from tabletop.rules.cd.structures import large_calibre_refusal

    assert large_calibre_refusal(charts.weapons[weapon], band, ammo, charts) == says


# --- CD 5: pregame works on the table -----------------------------------------------------------


def accept_works(run: Run, *builds: str, code: int = 0):
    args = ["engineer", "pregame", "--side", "Germany", "--days", "1", "--accept"]
    for b in builds:
        args += ["--build", b]
    return run(*args, *(["--json"] if code == 0 else []), code=code)


def test_pregame_works_go_on_the_table(eng: Run) -> None:
    # CD 5: one work day, four engineer stands and an earthmover. A fortification takes an
    # engineer-day (5.1.2: earthmovers cannot help); the earthmover builds the tank ramp (a
    # quarter day: 4 a day), the 4" ditch (a third of a day: 12" a day, 5.2.1) and the 4" of
    # abatis in the wood (a quarter day: 16" a day, 5.2.4), a sixth of its day left over.
    out = as_json(
        accept_works(
            eng,
            "fortification@26,27",
            "tank-ramp@35,28",
            "ditch@10,26:14,26",
            "abatis@42,32:46,32",
        )
    )
    assert [(b["id"], b["kind"]) for b in out["built"]] == [
        ("works-1", "fortification"),
        ("works-2", "tank-ramp"),
        ("works-3", "ditch"),
        ("works-4", "abatis"),
    ]
    assert out["left"]["wire"] == 24
    assert round(out["left"]["earthmover_days"], 6) == round(1 / 6, 6)
    assert out["left"]["engineer_days"] == 3
    rows = {r["id"]: r for r in as_json(eng("structure", "list", "--json"))["terrain"]}
    assert (rows["works-1"]["kind"], rows["works-1"]["state"], rows["works-1"]["side"]) == (
        "fortification",
        "intact",
        "Germany",
    )
    # A 4" ditch, half an inch wide (engineering chart works-line-width).
    assert rows["works-3"]["polygon"] == [
        [14.0, 26.25], [14.0, 25.75], [10.0, 25.75], [10.0, 26.25], [14.0, 26.25]
    ]  # fmt: skip
    assert {t["id"] for t in status(eng)["templates"]} == {
        "works-1",
        "works-2",
        "works-3",
        "works-4",
    }


@pytest.mark.parametrize(
    ("builds", "code", "message"),
    [
        (["abatis@10,26:14,26"], 3, "Error: abatis is built only in woods, forest (CD 5.2.4)"),
        (["ditch@42,32:46,32"], 3, "Error: no ditch in woods (CD 5.2.1)"),
        (
            [f"fortification@{x},27" for x in (26, 28, 30, 32, 34)],
            3,
            "Error: not enough time for this fortification: it needs 1 more engineer-day and "
            "0 are left (CD 5.1.2)",
        ),
        (["ditch@1,1"], 2, "Error: --build 'ditch@1,1': ditch takes ditch@X1,Y1:X2,Y2"),
        (["crater@59.8,1"], 2, "Error: a crater there would be off the 60 x 40 table"),
    ],
)
def test_pregame_works_refused(eng: Run, builds, code, message) -> None:
    before = file_digest(eng.game)  # type: ignore[attr-defined]
    assert accept_works(eng, *builds, code=code).output.strip() == message
    assert file_digest(eng.game) == before  # type: ignore[attr-defined]


def test_a_built_fortification_can_be_bombed(eng: Run) -> None:
    # CD 6.1.1, 6.2.1: a fortification built before the game is vulnerable like any other.
    accept_works(eng, "fortification@26,27")
    eng("turn", "next", "--yes")
    goto_phase(eng, "artillery")
    out = as_json(
        eng(
            "structure",
            "bomb",
            "26,27",
            "--radius",
            "1",
            "--aircraft",
            "dive",
            "--dice",
            "1",
            "--json",
        )
    )
    assert out["structures"] == {"works-1": "damaged"}
    assert out["effects"] == ["works-1 damaged: now an entrenchment (hard cover) (CD 6.2.1)"]
