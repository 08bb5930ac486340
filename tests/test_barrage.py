"""Indirect fire templates: HE, smoke and illumination, and barrage odds."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.conftest import Run, as_json, goto_phase


@pytest.fixture
def artillery(game: Run) -> Run:
    game("turn", "next")
    goto_phase(game, "artillery")
    return game


def test_barrage_json_contract_and_cover_modifier(artillery: Run) -> None:
    out = as_json(artillery("barrage", "US-5", "--at", "27,21", "--dice", "1,8", "--json"))
    for key in ("event", "under_template", "rolls", "hits", "depletion_checks"):
        assert key in out
    assert out["under_template"] == ["G-3"]
    # A single stand's die is its own depletion die (CD 1.1).
    assert out["marked_die"] is None and out["depletion_checks"] == 1
    assert out["to_hit"]["G-3"] == 4 - 2  # mortar HE 4, medium cover in the village -2
    assert out["rolls"] == {"G-3": [1, 8]} and out["effects"] == {"G-3": "eliminated"}


def test_indirect_fire_only_in_the_artillery_phase(game: Run) -> None:
    out = game("barrage", "US-5", "--at", "27,21", code=3)
    assert "indirect fire is not allowed in the movement phase" in out.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--at", "99,99"], 2, "off the 48 x 36 table"),
        (["--at", "nonsense"], 2, "not a point"),
        (["--at", "27,21", "--ammo", "smoke", "--hni"], 2, "H&I fire is HE"),
        (["--at", "27,21", "--weapon", "rifle"], 2, "US-5 does not carry 'rifle'"),
    ],
)
def test_bad_barrage_input(artillery: Run, args, code, message) -> None:
    assert message in artillery("barrage", "US-5", *args, code=code).output


def test_a_direct_fire_gun_cannot_fire_indirect(artillery: Run) -> None:
    out = artillery("barrage", "US-4", "--at", "27,21", "--weapon", "us-75mm-m2", code=3)
    assert "us-75mm-m2 cannot fire indirect" in out.output


def test_a_stand_without_indirect_weapons_is_refused(artillery: Run) -> None:
    assert "no indirect-fire weapon" in artillery("barrage", "US-1", "--at", "27,21", code=3).output


def test_smoke_drifts_downwind_and_blocks_sight(artillery: Run) -> None:
    # Wind from 3 (east): the strip runs west from the aiming point.
    out = as_json(artillery("barrage", "US-5", "--at", "20,16", "--ammo", "smoke", "--json"))
    assert out["verdict"].startswith("smoke placed")
    sight = as_json(artillery("measure", "G-1", "US-1", "--json"))
    assert sight["los"] is False and sight["blocked_by"] == ["smoke-1"]


def test_illumination_covers_four_times_the_burst_area(artillery: Run) -> None:
    artillery("barrage", "US-5", "--at", "27,21", "--ammo", "illum")
    status = as_json(artillery("status", "--json"))
    assert [t["kind"] for t in status["templates"]] == ["illumination"]


def test_barrage_odds(artillery: Run) -> None:
    out = as_json(artillery("odds", "barrage", "US-5", "--at", "27,21", "--json"))
    g3 = out["exact"]["stands"]["G-3"]["outcomes"]
    # Needs 2: hit on 1-2; G-3 is veteran: eliminated on 8+, no effect (suppressed) to 5.
    assert sum(Fraction(v) for v in g3.values()) == 1
    assert Fraction(g3["eliminated"]) == Fraction(2, 10) * Fraction(3, 10)
    assert Fraction(g3["suppressed"]) == Fraction(8, 10) + Fraction(2, 10) * Fraction(5, 10)
    assert Fraction(out["exact"]["outcomes"]["depleted"]) == Fraction(1, 10) * Fraction(8, 10)
