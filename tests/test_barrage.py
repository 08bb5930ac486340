"""Indirect fire templates: HE, smoke and illumination, and barrage odds."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.conftest import Run, as_json, file_digest, goto_phase


@pytest.fixture
def artillery(game: Run) -> Run:
    game("turn", "next", "--yes")
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


def test_a_burst_over_one_stand_says_stand_not_stands(artillery: Run) -> None:
    # One stand (G-3) under the mortar's burst at 27,21: the verdict a referee reads aloud
    # says "1 stand", not "1 stand(s)"; 1 then 8 on the D10s eliminate it (CD 4.1).
    out = as_json(artillery("barrage", "US-5", "--at", "27,21", "--dice", "1,8", "--json"))
    assert out["verdict"] == "mortar-81 burst at 27,21: 1 stand under, hits on G-3 (eliminated)"


def test_indirect_fire_only_in_the_artillery_phase(game: Run) -> None:
    out = game("barrage", "US-5", "--at", "27,21", code=3)
    assert out.output == (
        "Error: indirect fire is not allowed in the movement phase: it happens in the "
        "artillery phase (turn chart); advance with 'tabletop phase next'\n"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--at", "99,99"], 2, "Error: --at 99,99 is off the 48 x 36 table\n"),
        (
            ["--at", "nonsense"],
            2,
            "Error: Invalid value for '--at': 'nonsense' is not a point: write X,Y in inches, "
            "like 24,12.5 (see 'tabletop barrage --help')\n",
        ),
        (
            ["--at", "27,21", "--ammo", "smoke", "--hni"],
            2,
            "Error: H&I fire is HE (--hni goes with --ammo he)\n",
        ),
        (
            ["--at", "27,21", "--weapon", "rifle"],
            2,
            "Error: US-5 does not carry 'rifle'; it carries mortar-81\n",
        ),
    ],
)
def test_bad_barrage_input(artillery: Run, args, code, message) -> None:
    assert artillery("barrage", "US-5", *args, code=code).output == message


def test_a_direct_fire_gun_cannot_fire_indirect(artillery: Run) -> None:
    out = artillery("barrage", "US-4", "--at", "27,21", "--weapon", "us-75mm-m2", code=3)
    assert out.output == "Error: us-75mm-m2 cannot fire indirect (weapons chart)\n"


def test_a_stand_without_indirect_weapons_is_refused(artillery: Run) -> None:
    assert (
        artillery("barrage", "US-1", "--at", "27,21", code=3).output
        == "Error: US-1 has no indirect-fire weapon (weapons chart)\n"
    )


def test_smoke_drifts_downwind_and_blocks_sight(artillery: Run) -> None:
    # Wind from 3 (east): the strip runs west from the aiming point.
    out = as_json(artillery("barrage", "US-5", "--at", "20,16", "--ammo", "smoke", "--json"))
    assert out["verdict"] == "smoke placed at 20,16 by US-5"
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


# --- one procedure, one set of words: barrage and odds barrage agree (SPEC 2) ---------------------


@pytest.mark.parametrize(
    ("dice", "word"),
    [
        ("9", "suppressed"),  # a miss: HE suppresses every stand under it
        ("1,3", "suppressed"),  # a hit with no effect leaves it suppressed too
        ("2,6", "forced back"),
        ("1,8", "eliminated"),
    ],
)
def test_barrage_and_its_odds_use_the_same_outcome_words(
    artillery: Run, dice: str, word: str
) -> None:
    odds = as_json(artillery("odds", "barrage", "US-5", "--at", "27,21", "--json"))
    out = artillery("barrage", "US-5", "--at", "27,21", "--dice", dice)
    assert out.output.splitlines()[1].endswith(f"rolled {dice.replace(',', ', ')}: {word}")
    assert "no effect" not in out.output
    assert word in odds["stands"]["G-3"]["outcomes"]
    event = as_json(artillery("log", "--last", "1", "--json"))["events"][0]
    assert event["result"]["effects"] == {"G-3": word}


# --- one barrage per weapon a turn (CD core, default) --------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "fired"),
    [
        (["--at", "27,21", "--dice", "9"], ["--at", "20,16", "--ammo", "smoke"], "barrage US-5"),
        (["--at", "30,30", "--hni", "--dice", "9"], ["--at", "27,21"], "H&I by US-5"),  # counts too
    ],
)
def test_a_weapon_barrages_once_a_turn(
    artillery: Run, first: list[str], second: list[str], fired: str
) -> None:
    artillery("barrage", "US-5", *first)
    before = file_digest(artillery.game)  # type: ignore[attr-defined]
    out = artillery("barrage", "US-5", *second, code=3)
    assert out.output == (
        f"Error: US-5 cannot fire its mortar-81 again this turn: it fired in the artillery phase "
        f"({fired}); each weapon fires once a turn, in one phase: opportunity fire, fire, or a "
        "barrage (CD core (default), ammo chart fires-per-turn)\n"
    )
    assert file_digest(artillery.game) == before  # type: ignore[attr-defined]
    # Odds still answer (they look ahead), and next turn the mortar fires again.
    artillery("odds", "barrage", "US-5", *second)
    artillery("turn", "next", "--yes")
    goto_phase(artillery, "artillery")
    artillery("barrage", "US-5", *second)


# --- where templates are, in status ------------------------------------------------------------


def test_status_shows_where_templates_are_and_when_they_go(artillery: Run) -> None:
    artillery("barrage", "US-5", "--at", "20,16", "--ammo", "smoke")  # turn 2
    templates = as_json(artillery("status", "--json"))["templates"]
    assert templates == [
        {
            "id": "smoke-1",
            "kind": "smoke",
            "by": "US-5",
            "turn": 2,
            "shape": "strip",
            "from": [20.0, 16.0],
            "to": [14.0, 16.0],  # wind from the east: it drifts west
            "width": 1.0,
            "length": 6.0,
            "bearing": 270.0,
            "expires_turn": 3,
            "expires": "removed as turn 3's artillery phase starts",
        }
    ]
    text = artillery("status").output.split("Templates:\n")[1]
    assert text == (
        '  smoke-1 (smoke) by US-5: strip 20,16 to 14,16, 1" wide, 6" long on bearing\n'
        "    270; removed as turn 3's artillery phase starts\n"
    )


def test_status_describes_a_round_template(artillery: Run) -> None:
    artillery("barrage", "US-5", "--at", "27,21", "--ammo", "illum")
    (t,) = as_json(artillery("status", "--json"))["templates"]
    assert (t["shape"], t["centre"], t["diameter"]) == ("circle", [27.0, 21.0], 2.0)
    assert t["expires_turn"] == 3


UNOBSERVED = (
    "no USA stand sees 27,21: indirect fire is observed by a stand that sees its aiming point "
    "(CD artillery response (reference card), barrage chart observed-fire); unobserved fire "
    "is H&I (--hni, CD 1.1); the referee may go on"
)


def test_fire_at_a_point_no_friendly_stand_sees_warns_and_goes_on(artillery: Run) -> None:
    # 27,21 is in the village: every USA stand's sight is blocked by village-1.
    out = as_json(artillery("barrage", "US-5", "--at", "27,21", "--dice", "9", "--json"))
    assert out["warnings"] == [UNOBSERVED]
    assert out["effects"] == {"G-3": "suppressed"}  # the fire went on
    artillery("undo")
    text = artillery("barrage", "US-5", "--at", "27,21", "--dice", "9").output
    assert text.splitlines()[2:6] == [
        "  warning: no USA stand sees 27,21: indirect fire is observed by a stand that",
        "    sees its aiming point (CD artillery response (reference card), barrage chart",
        "    observed-fire); unobserved fire is H&I (--hni, CD 1.1); the referee may go",
        "    on",
    ]


def test_fire_at_a_point_a_friendly_stand_sees_or_h_and_i_gives_no_warning(
    artillery: Run,
) -> None:
    seen = as_json(artillery("barrage", "US-5", "--at", "20,12", "--json"))
    assert seen["warnings"] == []
    artillery("undo")
    hni = as_json(artillery("barrage", "US-5", "--at", "27,21", "--hni", "--dice", "5", "--json"))
    assert hni["warnings"] == []


def test_a_stand_the_burst_eliminates_is_not_suppressed_nor_unsuppressed_next_turn(
    artillery: Run,
) -> None:
    # G-3 alone under the mortar's burst, eliminated (1, 8): every other stand under HE is
    # suppressed, an eliminated one is not, and the next artillery phase does not say
    # "suppression removed" of it.
    artillery("barrage", "US-5", "--at", "27,21", "--dice", "1,8")
    g3 = next(s for s in as_json(artillery("status", "--json"))["stands"] if s["id"] == "G-3")
    assert (g3["status"], g3["markers"]) == ("eliminated", [])
    artillery("turn", "next", "--yes")
    out = artillery("phase", "next").output
    assert out.startswith("Turn 3, artillery phase\n")
    assert "  template: burst-1 (burst) removed\n" in out
    assert "suppression: G-3" not in out


def test_a_stand_a_burst_forces_back_is_told_how_far_which_way_and_how(artillery: Run) -> None:
    # G-3 (veteran) under a burst centred 0.3" north of it: 1 hits, 6 forces it back; it
    # falls back half its 6" allowance straight away from the fire, the mortar US-5 at
    # 21,3 (hit effects chart), not south from the burst's centre into the Americans; said
    # as fire says it, with the command that carries it out.
    out = artillery("barrage", "US-5", "--at", "27,21.3", "--dice", "1,6").output
    assert out.splitlines()[1:3] == [
        "  G-3 (67% under): needs 2 [-2 target in medium cover (village-1)], rolled 1, 6: "
        "forced back",
        '    G-3: forced back 3" on bearing 18.4, away from the fire, to 27.95,23.85: '
        "'tabletop move G-3 --fall-back' (hit effects chart)",
    ]
    artillery("undo")  # the JSON says the same
    now = as_json(artillery("barrage", "US-5", "--at", "27,21.3", "--dice", "1,6", "--json"))
    assert now["now"] == {"G-3": out.splitlines()[2].removeprefix("    G-3: ")}


def test_a_sliver_of_a_base_under_the_template_is_not_said_to_be_none_of_it() -> None:
    # A stand with 0.5% of its base under the burst is under it, rolled for and suppressed:
    # "<1% under", never "0% under".
    from tabletop.cli.commands.barrage import share

    assert [share(f) for f in (0.005, 0.971, 0.995, 1.0)] == ["<1%", "97%", ">99%", "100%"]


def test_a_sides_own_barrage_on_a_stand_it_never_saw_reads_in_its_log(artillery: Run) -> None:
    # US-5's burst eliminates G-3, which no American ever saw: USA's log keeps its own
    # barrage and the dice it saw thrown, saying of each only that it was about a stand not
    # seen (the target and its quality stay secret), and prints without a traceback.
    artillery("barrage", "US-5", "--at", "27,21", "--dice", "1,8")
    assert artillery("log", "--view", "USA", "--last", "1").output == (
        "#4 turn 2 artillery: barrage ammo=he at=27,21 shooter=US-5\n"
        "    dice: 1* (a roll about a stand not seen), 8* (a roll about a stand not seen)\n"
    )
