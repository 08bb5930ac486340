"""``targets``: every enemy a stand sees, each with the stand's best weapon (issue 28), the
enemies beyond every weapon's reach on one line, and the same looks as ``measure``."""

from __future__ import annotations

import pytest

from tests.conftest import Run, as_json


@pytest.fixture
def large(run: Run) -> Run:
    run("new", "large", "--seed", "1")
    return run


def test_a_rifle_and_lmg_stand_reaches_with_its_lmg_what_its_rifle_does_not(large: Run) -> None:
    r = as_json(large("targets", "G-1-1-1", "--json"))
    assert r["weapons"] == ["rifle", "lmg"]
    assert r["reach"] == {"rifle": 15.0, "lmg": 20.0}
    assert r["targets"] == [
        {
            "id": "US-1-1-1",
            "range": 18.95,
            "weapon": "lmg",
            "band": "long",
            "to_hit": 3,
            "p_hit": 0.3,
            "p_hit_exact": "3/10",
            "p_effect": 0.24,
            "why": None,
        }
    ]
    assert [(t["id"], t["range"]) for t in r["out_of_range"]] == [
        ("US-R-AC-1", 20.71),
        ("US-1-1-3", 21.59),
        ("US-1-1-2", 21.8),
        ("US-1-A-1", 27.2),
        ("US-1-2-1", 29.12),
        ("US-1-2-3", 34.27),
        ("US-1-A-3", 35.29),
        ("US-1-4-4", 39.98),
    ]


def test_each_target_gets_the_weapon_likeliest_to_do_something(large: Run) -> None:
    """A Sherman's .50 cal against infantry (ROF 3: 32.76% of an effect), its 75 mm against
    an armoured car (the .50 cal cannot harm it)."""
    r = as_json(large("targets", "US-1-A-1", "--json"))
    assert [(t["id"], t["weapon"], t["p_hit_exact"], t["p_effect"]) for t in r["targets"]] == [
        ("G-1-1-3", "mg-50cal", "51/100", 0.3276),
        ("G-R-AC-1", "us-75mm-m3", "3/10", 0.18),
        ("G-1-1-1", "mg-50cal", "51/100", 0.3276),
        ("G-1-1-2", "mg-50cal", "51/100", 0.3276),
    ]
    assert r["out_of_range"] == []


def test_the_text_names_the_weapon_and_folds_what_is_out_of_range(large: Run) -> None:
    assert large("targets", "G-1-1-1").output == (
        "G-1-1-1 sees 9 enemy stands:\n"
        "target    range    weapon    band    to-hit    P(hit)      note\n"
        "--------  -------  --------  ------  --------  ----------  ------\n"
        'US-1-1-1  18.9"    lmg       long    3         30% (3/10)\n'
        "weapon: the best of rifle, lmg: the likeliest to do more than no effect, then to\n"
        "  hit, then the first carried\n"
        'out of range (rifle 15", lmg 20"): US-R-AC-1 20.7", US-1-1-3 21.6",\n'
        '  US-1-1-2 21.8", US-1-A-1 27.2", US-1-2-1 29.1", US-1-2-3 34.3",\n'
        '  US-1-A-3 35.3", US-1-4-4 40.0"\n'
    )


def test_one_weapon_asked_for_is_the_only_one_judged(large: Run) -> None:
    out = large("targets", "G-1-1-1", "--weapon", "rifle").output
    assert out == (
        "G-1-1-1 sees 9 enemy stands:\n"
        'out of range (rifle 15"): US-1-1-1 18.9", US-R-AC-1 20.7", US-1-1-3 21.6",\n'
        '  US-1-1-2 21.8", US-1-A-1 27.2", US-1-2-1 29.1", US-1-2-3 34.3",\n'
        '  US-1-A-3 35.3", US-1-4-4 40.0"\n'
    )
    r = as_json(large("targets", "US-1-A-1", "--weapon", "us-75mm-m3", "--json"))
    assert {t["weapon"] for t in r["targets"]} == {"us-75mm-m3"}
    assert r["weapons"] == ["us-75mm-m3"]


def test_targets_sees_what_measure_sees(large: Run) -> None:
    """The vectorised looks of ``targets`` give the ranges and spotting of one ``measure``
    at a time."""
    r = as_json(large("targets", "G-1-1-3", "--json"))
    listed = {t["id"]: t["range"] for t in [*r["targets"], *r["out_of_range"]]}
    assert len(listed) == 9
    for enemy, rng in listed.items():
        m = as_json(large("measure", "G-1-1-3", enemy, "--json"))
        assert (m["los"], m["spotted"], round(m["range"], 2)) == (True, True, rng)
