"""Ammunition depletion and supply, Command Decision section 1, driven through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Run, as_json, file_digest

RANGE = str(Path(__file__).parent / "data" / "range.yaml")


@pytest.fixture
def rng(run: Run) -> Run:
    """The firing range scenario, turn 1, fire phase."""
    run("new", RANGE, "--seed", "3")
    return run


def ammo(run: Run, stand: str) -> dict[str, str]:
    stands = {s["id"]: s for s in as_json(run("status", "--json"))["stands"]}
    return stands[stand]["ammo"]


def pending(run: Run) -> int:
    return as_json(run("status", "--json"))["pending"].get("depletion", 0)


def to_phase(run: Run, phase: str) -> None:
    for _ in range(12):
        if as_json(run("status", "--json"))["phase"] == phase:
            return
        run("phase", "next")
    raise AssertionError(phase)


# --- CD 1.2 and its worked examples ------------------------------------------------------------


@pytest.mark.parametrize(
    ("shooter", "target", "dice", "threshold"),
    [
        # CD 1.2 example: a 37 mm gun depletes on 3 or less.
        ("AT", "T1", "1,5", 3),
        # CD 1.2.1 example: an armoured car's 2 cm gun counts as 3 cm.
        ("AC", "T2", "1,9,1", 3),  # to-hit 1 and 9, then the hit's effect die
        # CD 1.2.2 example: a tank's 5 cm gun counts as 4 cm.
        ("TK", "T3", "1,5", 4),
    ],
)
@pytest.mark.parametrize("offset", [0, 1])
def test_seed_examples_deplete_at_or_under_calibre_in_cm(
    rng: Run, shooter: str, target: str, dice: str, threshold: int, offset: int
) -> None:
    fired = as_json(rng("fire", shooter, target, "--dice", dice, "--json"))
    assert fired["depletion_checks"] == 1
    # CD 1.2: the depletion die waits for the end of the fire phase.
    assert ammo(rng, shooter) == {fired["weapon"]: "ok"}
    assert pending(rng) == 1
    roll = threshold + offset
    ended = as_json(rng("phase", "next", "--dice", str(roll), "--json"))
    check = [h for h in ended["happened"] if h["what"] == "depletion check"]
    assert check[0]["rolls"] == [roll]
    expected = "depleted" if offset == 0 else "ok"
    assert ammo(rng, shooter)[fired["weapon"]] == expected
    assert pending(rng) == 0


def test_each_one_on_a_multi_die_shot_rolls_its_own_depletion_die(rng: Run) -> None:
    # CD 1.2: ROF 2, both dice show 1 (then each hit rolls an effect die).
    fired = as_json(rng("fire", "AC", "T2", "--dice", "1,1,2,3", "--json"))
    assert fired["depletion_checks"] == 2
    ended = as_json(rng("phase", "next", "--dice", "9,8", "--json"))
    rolls = [h["rolls"] for h in ended["happened"] if h["what"] == "depletion check"]
    assert rolls == [[9], [8]]
    assert ammo(rng, "AC") == {"kwk-20": "ok"}


def test_a_roll_other_than_one_never_triggers(rng: Run) -> None:
    fired = as_json(rng("fire", "AT", "T1", "--dice", "2,5", "--json"))
    assert fired["hits"] == 1
    assert fired["depletion_checks"] == 0
    assert pending(rng) == 0


def test_weapons_under_20mm_never_deplete(rng: Run) -> None:
    fired = as_json(rng("fire", "MG", "T4", "--dice", "1,1,1,1", "--json"))
    assert fired["depletion_checks"] == 0
    assert (
        "a 1 was rolled but hmg-mg34 is under 20 mm: never depletes (CD 1)" in (fired["ammunition"])
    )
    assert pending(rng) == 0


def test_a_depleted_weapon_cannot_fire_and_the_game_is_unchanged(rng: Run) -> None:
    rng("fire", "AT", "T1", "--dice", "1,5")
    rng("phase", "next", "--dice", "1")
    to_phase(rng, "fire")
    before = file_digest(rng.game)  # type: ignore[attr-defined]
    refused = rng("fire", "AT", "T1", code=3)
    assert refused.output == (
        "Error: AT cannot fire its pak-36: ammunition depleted (CD 1.4); it resupplies "
        'at the end of a turn within 6" of a supply point of its battalion, regiment, '
        "brigade or division, not in the turn it depleted\n"
    )
    assert file_digest(rng.game) == before  # type: ignore[attr-defined]


# --- CD 1.4: resupply ---------------------------------------------------------------------------


def deplete(run: Run, stand: str, target: str) -> None:
    run("fire", stand, target, "--dice", "1,5")
    run("phase", "next", "--dice", "1")


def test_resupply_waits_a_turn_then_comes_from_own_battalion(rng: Run) -> None:
    deplete(rng, "AT", "T1")
    report = as_json(rng("turn", "next", "--yes", "--json"))
    resupply = [h for h in report["happened"] if h["what"] == "resupply" and h["stand"] == "AT"]
    assert resupply[0]["result"] == "pak-36: depleted this turn (CD 1.4)"
    assert ammo(rng, "AT") == {"pak-36": "depleted"}
    report = as_json(rng("turn", "next", "--yes", "--json"))
    resupply = [h for h in report["happened"] if h["what"] == "resupply" and h["stand"] == "AT"]
    assert resupply[0]["result"] == 'resupplied pak-36 from SUP (4.5")'
    assert ammo(rng, "AT") == {"pak-36": "ok"}


def test_regimental_supply_point_serves_its_battalions(rng: Run) -> None:
    rng("fire", "LIM", "T9", "--dice", "1,5")
    rng("phase", "next", "--dice", "1")
    rng("turn", "next", "--yes")
    report = as_json(rng("turn", "next", "--yes", "--json"))
    text = [h["result"] for h in report["happened"] if h.get("stand") == "LIM"]
    assert 'resupplied pak-40 from SUP-R (4.0")' in text


def test_a_supply_point_of_another_battalion_does_not_serve(rng: Run) -> None:
    # OTHER belongs to I/192; SUP (II/125) is within 6" but is not its own formation's.
    rng("fire", "OTHER", "LEE", "--dice", "1,5")
    rng("phase", "next", "--dice", "1")
    rng("turn", "next", "--yes")
    report = as_json(rng("turn", "next", "--yes", "--json"))
    text = [h["result"] for h in report["happened"] if h.get("stand") == "OTHER"]
    assert text and text[0] == 'nearest supply point SUP-X is 28.7" away (needs 6", CD 1.4)'
    assert ammo(rng, "OTHER") == {"pak-36": "depleted"}


def test_out_of_reach_of_supply_stays_depleted(rng: Run) -> None:
    deplete(rng, "TK", "T3")
    rng("turn", "next", "--yes")
    rng("turn", "next", "--yes")
    assert ammo(rng, "TK") == {"kwk-50": "depleted"}


def test_manual_resupply_is_refused_mid_turn_naming_the_serving_point(rng: Run) -> None:
    # CD 1.4: a stand resupplies as it ENDS a turn near a supply point; TK's base is 8.1"
    # from SUP (its battalion's), measured edge to edge.
    deplete(rng, "TK", "T3")
    to_phase(rng, "opportunity-fire")
    before = file_digest(rng.game)  # type: ignore[attr-defined]
    refused = rng("resupply", "TK", code=3)
    assert refused.output == (
        "Error: TK cannot resupply in the opportunity-fire phase: a stand resupplies as it "
        'ends a turn within 6" of a supply point (CD 1.4); its nearest supply point is SUP, '
        '8.1" away. Stands on the table resupply by themselves at the end of the turn; by '
        "hand only in the morale phase (or --override)\n"
    )
    assert file_digest(rng.game) == before  # type: ignore[attr-defined]


def test_manual_resupply_refused_in_the_turn_of_depletion(rng: Run) -> None:
    deplete(rng, "TK", "T3")  # depleted in turn 1; now the morale phase of turn 1
    refused = rng("resupply", "TK", "--from", "SUP", code=3)
    assert refused.output == (
        "Error: TK cannot resupply this turn: kwk-50 depleted in turn 1, and a stand never "
        "resupplies in the turn it depleted (CD 1.4); it may at the end of the next turn "
        '(its nearest supply point is SUP, 8.1" away)\n'
    )


def test_manual_resupply_checks_formation_distance_and_kind(rng: Run) -> None:
    deplete(rng, "TK", "T3")
    rng("turn", "next", "--yes")
    to_phase(rng, "morale")
    wrong = rng("resupply", "TK", "--from", "SUP-X", code=3)
    assert wrong.output == (
        "Error: SUP-X does not supply TK: a stand resupplies only from its own battalion, "
        'regiment, brigade or division (CD 1.4); its nearest supply point is SUP, 8.1" away\n'
    )
    assert (
        rng("resupply", "TK", "--from", "AT", code=3).output
        == "Error: AT is a towed-gun, not a supply point (CD 1.4)\n"
    )
    far = rng("resupply", "TK", code=3)
    assert far.output == (
        'Error: TK is 8.1" from SUP: a stand resupplies only within 6" of a supply point of '
        'its own formations (CD 1.4); its nearest supply point is SUP, 8.1" away\n'
    )
    assert ammo(rng, "TK") == {"kwk-50": "depleted"}


def test_referee_override_resupplies_and_is_logged_as_one(rng: Run) -> None:
    deplete(rng, "TK", "T3")
    rng("resupply", "TK", code=3)
    done = as_json(rng("resupply", "TK", "--override", "--json"))
    assert done["override"] is True
    assert done["restored"] == ["kwk-50"]
    assert done["verdict"] == "TK resupplied (referee override of CD 1.4)"
    assert ammo(rng, "TK") == {"kwk-50": "ok"}
    last = as_json(rng("log", "--json"))["events"][-1]
    assert last["command"] == "resupply"
    assert last["inputs"] == {"override": True, "source": None, "stand": "TK"}
    assert (
        rng("resupply", "TK", "--override", code=3).output
        == "Error: TK has nothing resupply can restore (CD 1.4)\n"
    )


def test_manual_resupply_within_reach_in_the_last_phase(rng: Run) -> None:
    # AT (5,10) sits 6" or less from SUP (5,4); depleted in turn 1, by hand in turn 2's
    # morale phase (before the end of turn would do it by itself).
    deplete(rng, "AT", "T1")
    rng("turn", "next", "--yes")
    to_phase(rng, "morale")
    done = as_json(rng("resupply", "AT", "--json"))
    assert (done["from"], done["restored"], done["override"]) == ("SUP", ["pak-36"], False)


# --- CD 1.3: limited issue, flame, smoke, rockets -----------------------------------------------


def test_limited_rounds_never_roll_and_are_gone_after_the_phase(rng: Run) -> None:
    fired = as_json(rng("fire", "LIM", "T9", "--ammo", "limited", "--dice", "1,5", "--json"))
    assert fired["depletion_checks"] == 0
    assert ammo(rng, "LIM")["pak-40"] == "ok"  # in use this phase, not yet spent
    rng("phase", "next")
    to_phase(rng, "fire")
    refused = rng("fire", "LIM", "T9", "--ammo", "limited", code=3)
    assert refused.output == (
        "Error: LIM cannot fire its pak-40: its limited-issue rounds were fired in an "
        "earlier phase (CD 1.3); resupply never restores limited-issue rounds\n"
    )
    # The standard rounds are unaffected.
    rng("fire", "LIM", "T9", "--dice", "9")


def test_a_weapon_without_limited_rounds_says_so(rng: Run) -> None:
    out = rng("fire", "AT", "T1", "--ammo", "smoke", code=2)
    assert out.output == "Error: pak-36 cannot fire smoke (weapons chart)\n"


@pytest.mark.parametrize(
    ("stand", "target", "uses", "weapon"),
    [
        ("FT", "T5", 1, "flamethrower-manpack"),
        ("FV", "T6", 2, "flamethrower-vehicle"),
        ("CR", "T7", 3, "flamethrower-crocodile"),
    ],
)
def test_flamethrower_uses_by_carrier_and_never_refuelled(
    rng: Run, stand: str, target: str, uses: int, weapon: str
) -> None:
    for _ in range(uses):
        fired = as_json(rng("fire", stand, target, "--dice", "1,2", "--json"))
        assert fired["depletion_checks"] == 0
        rng("phase", "next")
        to_phase(rng, "fire")
    refused = rng("fire", stand, target, code=3)
    assert refused.output == (
        f"Error: {stand} cannot fire its {weapon}: flamethrower fuel used up "
        "(CD 1.3.1); flamethrowers are never refuelled\n"
    )
    assert list(ammo(rng, stand).values()) == ["spent"]
    rng("turn", "next", "--yes")
    rng("turn", "next", "--yes")
    assert list(ammo(rng, stand).values()) == ["spent"]


def test_flame_uses_left_are_said_in_the_singular_or_plural(rng: Run) -> None:
    # CD 1.3.1: a vehicle flamethrower has two uses, a Crocodile three; after one shot each
    # the referee hears "1 use left" and "2 uses left".
    fired = as_json(rng("fire", "FV", "T6", "--dice", "1,2", "--json"))
    assert fired["ammunition"] == ["flamethrower: 1 use left (CD 1.3.1)"]
    assert rng("show", "FV").output.splitlines()[3] == (
        "  flamethrower-vehicle: ok (last fired in turn 1, fire phase; 1 use left)"
    )
    fired = as_json(rng("fire", "CR", "T7", "--dice", "1,2", "--json"))
    assert fired["ammunition"] == ["flamethrower: 2 uses left (CD 1.3.1)"]


def test_rockets_deplete_by_firing_and_resupply_once(rng: Run) -> None:
    fired = as_json(rng("fire", "PS", "T8", "--dice", "1,2", "--json"))
    assert fired["depletion_checks"] == 0
    assert ammo(rng, "PS") == {"panzerschreck": "depleted"}
    rng("turn", "next", "--yes")
    to_phase(rng, "morale")
    rng("resupply", "PS", "--from", "SUP", "--override")
    rng("turn", "next", "--yes")
    to_phase(rng, "fire")
    rng("fire", "PS", "T8", "--dice", "9")
    assert ammo(rng, "PS") == {"panzerschreck": "spent"}
    rng("turn", "next", "--yes")
    to_phase(rng, "fire")
    out = rng("fire", "PS", "T8", code=3)
    assert out.output == (
        "Error: PS cannot fire its panzerschreck: rockets fired and already resupplied "
        "once (CD 1.3.3); no more this game\n"
    )


def test_indirect_smoke_is_fired_once(rng: Run) -> None:
    to_phase(rng, "artillery")
    smoke = as_json(rng("barrage", "MT", "--at", "30,30", "--ammo", "smoke", "--json"))
    assert smoke["depletion_checks"] == 0
    assert "smoke rounds in use this phase, then spent (CD 1.3.2)" in smoke["ammunition"]
    spent = as_json(rng("phase", "next", "--json"))["happened"]
    assert any(h.get("result") == "smoke rounds spent (CD 1.3.2)" for h in spent)
    rng("turn", "next", "--yes")
    rng("phase", "next")
    out = rng("barrage", "MT", "--at", "30,30", "--ammo", "smoke", code=3)
    assert out.output == (
        "Error: MT cannot fire its mortar-81: its smoke rounds were fired in an earlier phase "
        "(CD 1.3.2); resupply never restores limited-issue rounds\n"
    )
    # HE is still available.
    rng("barrage", "MT", "--at", "30,30")


def test_a_depleted_main_gun_names_the_gun_that_can_still_fire(rng: Run) -> None:
    rng("phase", "next")
    to_phase(rng, "fire")
    rng("fire", "LEE", "AT", "--dice", "1,2")  # the 75 mm, the first gun it lists
    rng("phase", "next", "--dice", "1")
    to_phase(rng, "fire")
    out = rng("fire", "LEE", "AT", code=3).output
    assert out == (
        "Error: LEE cannot fire its us-75mm-m2: ammunition depleted (CD 1.4); it "
        'resupplies at the end of a turn within 6" of a supply point of its battalion, '
        "regiment, brigade or division, not in the turn it depleted; it can still fire "
        "us-37mm-m6 (--weapon us-37mm-m6)\n"
    )
    rng("fire", "LEE", "AT", "--weapon", "us-37mm-m6", "--dice", "9")


def test_a_gun_that_has_fired_names_the_other_gun_that_has_not(rng: Run) -> None:
    to_phase(rng, "fire")
    rng("fire", "LEE", "AT", "--dice", "9")  # the 75 mm
    out = rng("fire", "LEE", "AT", code=3).output
    assert out == (
        "Error: LEE cannot fire its us-75mm-m2 again this turn: it fired in the fire "
        "phase (fire LEE -> AT); each weapon fires once a turn, in one phase: "
        "opportunity fire, fire, or a barrage (CD core (default), ammo chart "
        "fires-per-turn); it can still fire us-37mm-m6 (--weapon us-37mm-m6)\n"
    )
    rng("fire", "LEE", "AT", "--weapon", "us-37mm-m6", "--dice", "9")
    out = rng("fire", "LEE", "AT", code=3).output
    assert (
        out
        == (
            "Error: LEE cannot fire its us-75mm-m2 again this turn: it fired in the fire "
            "phase (fire LEE -> AT); each weapon fires once a turn, in one phase: "
            "opportunity fire, fire, or a barrage (CD core (default), ammo chart "
            "fires-per-turn)\n"
        )
        and "can still fire" not in out
    )


def test_a_weapon_the_stand_lacks_is_bad_input_before_the_phase_is_checked(rng: Run) -> None:
    to_phase(rng, "movement")
    out = rng("fire", "LEE", "AT", "--weapon", "pak36", code=2).output
    assert out == (
        "Error: LEE does not carry 'pak36' (and no such weapon is charted); it carries "
        "us-75mm-m2, us-37mm-m6\n"
    )


def test_multi_gun_vehicle_tracks_each_gun(rng: Run) -> None:
    rng("phase", "next")
    to_phase(rng, "fire")
    rng("fire", "LEE", "AT", "--weapon", "us-37mm-m6", "--dice", "1,2")
    rng("phase", "next", "--dice", "1")
    assert ammo(rng, "LEE") == {"us-75mm-m2": "ok", "us-37mm-m6": "depleted"}
    to_phase(rng, "fire")
    rng("fire", "LEE", "AT", "--weapon", "us-75mm-m2", "--dice", "9")
    assert rng("fire", "LEE", "AT", "--weapon", "us-37mm-m6", code=3).output == (
        "Error: LEE cannot fire its us-37mm-m6: ammunition depleted (CD 1.4); it "
        'resupplies at the end of a turn within 6" of a supply point of its battalion, '
        "regiment, brigade or division, not in the turn it depleted\n"
    )


# --- CD 1.1: indirect fire --------------------------------------------------------------------


def two_under_one_burst(run: Run) -> None:
    run("place", "T5", "18.2", "20")
    to_phase(run, "artillery")


# The to-hit dice of both stands first, then the effect dice of the hits.
@pytest.mark.parametrize(("dice", "checks"), [("1,1,2,2", 1), ("5,1,2", 0), ("1,5,2", 1)])
def test_one_marked_die_for_a_multi_stand_burst(rng: Run, dice: str, checks: int) -> None:
    two_under_one_burst(rng)
    out = as_json(rng("barrage", "MT", "--at", "17.6,20", "--dice", dice, "--json"))
    assert out["under_template"] == ["T4", "T5"]
    assert out["marked_die"] == "T4"
    assert out["depletion_checks"] == checks


def test_hni_rolls_no_to_hit_and_never_depletes(rng: Run) -> None:
    two_under_one_burst(rng)
    out = as_json(rng("barrage", "MT", "--at", "17.6,20", "--hni", "--dice", "1", "--json"))
    assert out["landed"] is True
    assert out["rolls"] == {}
    assert out["depletion_checks"] == 0
    stands = {s["id"]: s for s in as_json(rng("status", "--json"))["stands"]}
    assert "suppressed" in stands["T4"]["markers"] and "suppressed" in stands["T5"]["markers"]
