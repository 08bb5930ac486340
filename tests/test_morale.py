"""Morale tests at the morale phase: what falls due, the night rules (CD 9.1.3-9.1.5)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, as_json, file_digest, goto_phase

OUTPOST = str(Path(__file__).parent / "data" / "morale.yaml")

NIGHT = {"name": "night", "value": -2, "rule": "CD 9.1.3"}


@pytest.fixture
def night(run: Run) -> Run:
    """Night outpost, fire phase of turn 1; NEAR (regular) and MID (veteran) pinned."""
    run("new", OUTPOST, "--seed", "1")
    run("marker", "NEAR", "--add", "pinned")
    run("marker", "MID", "--add", "pinned")
    return run


def due(run: Run) -> list[dict[str, Any]]:
    return as_json(run("morale", "--json"))["due"]  # type: ignore[no-any-return]


def markers(run: Run, stand: str) -> list[str]:
    stands = {s["id"]: s for s in as_json(run("status", "--json"))["stands"]}
    return stands[stand]["markers"]  # type: ignore[no-any-return]


def add_due(run: Run, stand: str, *entries: dict[str, Any]) -> None:
    """What other rules (a glider crash, CD 7.3.4) leave on a stand: ``morale_due``."""
    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    with conn:
        (value,) = conn.execute(
            "SELECT value FROM state WHERE key = ?", (f"stand:{stand}",)
        ).fetchone()
        row = json.loads(value)
        row["morale_due"] = list(entries)
        conn.execute(
            "UPDATE state SET value = ? WHERE key = ?",
            (json.dumps(row, sort_keys=True, separators=(",", ":")), f"stand:{stand}"),
        )
    conn.close()


def test_the_morale_phase_lists_pinned_stands_at_night_with_the_night_modifier(
    night: Run,
) -> None:
    # CD 9.1.4: a pinned stand tests in every morale phase at night; CD 9.1.3: morale -2.
    out = as_json(night("phase", "next", "--json"))
    assert out["phase"] == "morale"
    listed = [h for h in out["happened"] if h["what"] in ("morale test due", "night orders")]
    assert listed == [
        {
            "what": "morale test due",
            "stand": "NEAR",
            "rule": "CD 9.1.4",
            "result": "pinned at night: no recovery by itself (CD 9.1.4); passes on 4 or less "
            "(level 6; night -2 (CD 9.1.3))",
        },
        {
            "what": "morale test due",
            "stand": "MID",
            "rule": "CD 9.1.4",
            "result": "pinned at night: no recovery by itself (CD 9.1.4); passes on 6 or less "
            "(level 8; night -2 (CD 9.1.3))",
        },
        {"what": "night orders", "result": 'orders reach 3"; no rally orders (CD 9.1.5)'},
    ]
    assert out["runs"] == [
        "end of the fire phase: no depletion dice pending (CD 1.2)",
        "start of the morale phase: 2 morale tests due (CD 9.1.3, 9.1.4)",
    ]


def test_the_list_gives_rule_modifiers_and_number(night: Run) -> None:
    assert due(night)[0] == {
        "stand": "NEAR",
        "number": 1,
        "rule": "CD 9.1.4",
        "why": "pinned at night: no recovery by itself",
        "turn": 1,
        "night_pin": True,
        "level": 6,
        "modifiers": [NIGHT],
        "needs": 4,
    }
    text = night("morale").output
    assert text == (
        "2 morale tests due (taken in the morale phase):\n"
        "  NEAR #1: pinned at night: no recovery by itself (CD 9.1.4); passes on 4 or less "
        "(level 6; night -2 (CD 9.1.3))\n"
        "  MID #1: pinned at night: no recovery by itself (CD 9.1.4); passes on 6 or less "
        "(level 8; night -2 (CD 9.1.3))\n"
        'Orders reach 3"; no rally orders (CD 9.1.5).\n'
    )


def test_by_day_a_pinned_stand_is_not_listed_and_orders_reach_six(night: Run) -> None:
    night("weather", "set", "--light", "day")
    out = as_json(night("morale", "--json"))
    assert out["due"] == []
    assert out["orders"] == {"radius": 6.0, "rally": True, "rule": "CD 9.1.5"}


def test_a_pinned_stand_never_recovers_by_itself_and_tests_every_morale_phase(
    night: Run,
) -> None:
    night("phase", "next")
    night("morale", "NEAR", "--result", "pinned")  # failed: stays pinned
    night("morale", "MID", "--result", "pinned")
    assert due(night) == []  # tested this phase
    out = as_json(night("turn", "next", "--json"))
    assert out["happened"][-1] == {"what": "phase", "result": "command phase begins"}
    goto_phase(night, "morale")
    assert markers(night, "NEAR") == ["pinned"]
    assert [(t["stand"], t["turn"]) for t in due(night)] == [("NEAR", 2), ("MID", 2)]


def test_passing_a_night_pin_test_recovers_the_stand(night: Run) -> None:
    night("phase", "next")
    out = as_json(night("morale", "NEAR", "--result", "pass", "--json"))
    assert out["verdict"] == (
        "NEAR morale test (pinned at night: no recovery by itself, CD 9.1.4): pass"
    )
    assert (out["changed"], out["markers"], out["still_due"]) == (["pinned removed"], [], [])
    assert [t["stand"] for t in due(night)] == ["MID"]


def test_due_tests_left_by_other_rules_are_listed_and_cleared(night: Run) -> None:
    add_due(night, "FAR", {"rule": "CD 7.3.4", "why": "forced back by a glider crash", "turn": 1})
    night("phase", "next")
    listed = [t for t in due(night) if t["stand"] == "FAR"]
    assert listed == [
        {
            "stand": "FAR",
            "number": 1,
            "rule": "CD 7.3.4",
            "why": "forced back by a glider crash",
            "turn": 1,
            "night_pin": False,
            "level": 4,
            "modifiers": [NIGHT],
            "needs": 2,
        }
    ]
    out = as_json(night("morale", "FAR", "--result", "forced-back", "--json"))
    assert (out["changed"], out["still_due"]) == (["forced-back added"], [])
    assert [t["stand"] for t in due(night)] == ["NEAR", "MID"]


def test_a_stand_with_two_tests_records_the_one_named(night: Run) -> None:
    add_due(night, "NEAR", {"rule": "CD 7.3.4", "why": "glider crash", "turn": 1})
    night("phase", "next")
    assert [(t["number"], t["rule"]) for t in due(night) if t["stand"] == "NEAR"] == [
        (1, "CD 7.3.4"),
        (2, "CD 9.1.4"),
    ]
    out = as_json(night("morale", "NEAR", "--test", "2", "--result", "pass", "--json"))
    assert out["test"]["rule"] == "CD 9.1.4"
    assert [t["rule"] for t in out["still_due"]] == ["CD 7.3.4"]
    assert night("morale", "NEAR", "--test", "3", "--result", "pass", code=2).output == (
        "Error: --test 3: NEAR has tests 1 to 1 due\n"
    )


def test_no_rally_orders_at_night(night: Run) -> None:
    night("phase", "next")
    before = file_digest(night.game)  # type: ignore[attr-defined]
    out = night("morale", "NEAR", "--result", "rallied", "--rally-by", "HQ", code=3).output
    assert out == (
        "Error: NEAR cannot be rallied: no rally orders may be given in a night turn "
        "(CD 9.1.5); a pinned stand tests morale instead (CD 9.1.4)\n"
    )
    assert file_digest(night.game) == before  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("stand", "code", "message"),
    [
        ("MID", 0, None),  # 4" from HQ: within the day's 6"
        ("FAR", 3, 'Error: FAR is 19.2" from HQ: orders reach 6" (CD 9.1.5)\n'),
    ],
)
def test_by_day_a_rally_order_reaches_six_inches(
    night: Run, stand: str, code: int, message: str | None
) -> None:
    night("weather", "set", "--light", "day")
    night("marker", "FAR", "--add", "pinned")
    night("phase", "next")
    out = night(
        "morale", stand, "--result", "rallied", "--rally-by", "HQ", "--why", "rally", code=code
    )
    if message is None:
        assert "pinned" not in markers(night, stand)
    else:
        assert out.output == message


def test_results_are_recorded_only_in_the_morale_phase(night: Run) -> None:
    out = night("morale", "NEAR", "--result", "pass", code=3).output
    assert out == (
        "Error: morale tests are taken in the morale phase, not the fire phase (turn chart); "
        "advance with 'tabletop phase next'\n"
    )


def test_a_test_not_due_needs_a_cause(night: Run) -> None:
    night("phase", "next")
    refused = night("morale", "FAR", "--result", "pass", code=3).output
    assert refused == (
        "Error: no morale test is due for FAR now; give --why to record one the rules call for\n"
    )
    out = as_json(night("morale", "FAR", "--result", "pinned", "--why", "saw HQ hit", "--json"))
    assert out["test"] == {"rule": "referee", "why": "saw HQ hit"}
    assert markers(night, "FAR") == ["pinned"]


def test_unrecorded_tests_are_named_as_the_phase_ends(night: Run) -> None:
    night("phase", "next")
    night("morale", "NEAR", "--result", "pinned")
    out = as_json(night("phase", "next", "--json"))
    left = [h for h in out["happened"] if h["what"] == "morale test not recorded"]
    assert left == [
        {
            "what": "morale test not recorded",
            "stand": "MID",
            "rule": "CD 9.1.4",
            "result": "pinned at night: no recovery by itself (CD 9.1.4): no result recorded "
            "this morale phase",
        }
    ]


def test_bad_result_word_is_a_usage_error(night: Run) -> None:
    out = night("morale", "NEAR", "--result", "panic", code=2).output
    assert out == (
        "Error: Invalid value for '--result': 'panic' is not one of 'pass', 'pinned', "
        "'forced-back', 'rallied'. (see 'tabletop morale --help')\n"
    )
