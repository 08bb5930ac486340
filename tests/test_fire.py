"""Direct fire: to-hit planning, dice, hit effects, refusals, quick mode, and exact odds."""

from __future__ import annotations

import copy
import random
import re
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from tabletop.cli import cli
from tabletop.core.dice import Dice
from tabletop.core.errors import RulesRefusal
from tabletop.core.words import with_article
from tabletop.data.chart_params import AmmoParams
from tabletop.data.charts import Charts
from tabletop.rules.cd.fire import (
    ELIMINATED,
    FORCED_BACK,
    NO_EFFECT,
    Firer,
    Target,
    hit_effect,
    outcome,
    plan_direct,
    plan_indirect,
    roll_plan,
)  # fmt: skip
from tabletop.rules.cd.odds import fire_odds
from tests.conftest import Run, as_json, file_digest, goto_phase

RANGE = str(Path(__file__).parent / "data" / "range.yaml")


def quick(
    charts: Charts,
    weapon: str,
    distance: float,
    kind: str = "infantry",
    quality: str = "regular",
    cover: str = "none",
    mods: tuple = (),
    shooter_kind: str | None = None,
):
    k = charts.stand_kinds[kind]
    target = Target(kind, k, quality, cover=cover, weight_class=k.weight_class)
    firer = Firer(None, charts.stand_kinds[shooter_kind] if shooter_kind else None)
    return plan_direct(charts.weapons[weapon], firer, target, distance, charts, requested=mods)


# --- planning -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weapon", "distance", "band", "base"),
    [
        ("rifle", 0.0, "close", 7),
        ("rifle", 3.0, "close", 7),
        ("rifle", 3.01, "medium", 5),
        ("rifle", 6.0, "medium", 5),  # CD 7.2.2 example: medium range, normally a 5
        ("rifle", 15.0, "long", 3),
        ("pak-36", 14.0, "medium", 4),
        ("pak-40", 45.0, "long", 3),
    ],
)
def test_range_band_and_base_number(
    charts: Charts, weapon: str, distance: float, band: str, base: int
) -> None:
    plan = quick(charts, weapon, distance)
    assert (plan.band, plan.base, plan.to_hit) == (band, base, base)


def test_beyond_long_range_is_refused(charts: Charts) -> None:
    from tabletop.core.errors import RulesRefusal

    with pytest.raises(RulesRefusal, match="beyond rifle's long range of 15"):
        quick(charts, "rifle", 15.5)


def test_descending_paratroopers_seed_example(charts: Charts) -> None:
    # CD 7.2.2: British infantry at medium range hit descending paratroopers on a 3,
    # and the paratroopers get no cover even over a wood.
    plan = quick(charts, "rifle", 6, kind="paratroop", cover="medium", mods=(("descending", None),))
    assert plan.to_hit == 3
    assert [(m.value, m.rule) for m in plan.modifiers] == [(-2, "CD 7.2.2")]


@pytest.mark.parametrize(
    ("mods", "expected", "rules"),
    [
        ((("muzzle-flash", None),), 3, ["CD 9.1.2"]),
        ((("just-landed", None),), 3, ["CD 7.2.2, 7.3.2"]),
        ((("aa-veteran", None),), 6, ["CD 7.2.2"]),
        ((("aa-green", None),), 4, ["CD 7.2.2"]),
        ((("smoke", -1), ("hedge", -1)), 3, ["referee", "referee"]),
        ((("muzzle-flash", -3),), 2, ["referee"]),
    ],
)
def test_seed_modifiers_and_referee_modifiers(charts: Charts, mods, expected, rules) -> None:
    plan = quick(charts, "rifle", 6, mods=mods)
    assert plan.to_hit == expected
    assert [m.rule for m in plan.modifiers] == rules


def test_cover_and_armour(charts: Charts) -> None:
    plan = quick(charts, "rifle", 6, cover="medium")
    assert plan.to_hit == 5 + charts.cover["medium"].direct
    # An AT gun uses its anti-armour row against a tank; a gun without one pays the weight
    # class (a rifle may not fire at a tank at all: test_small_arms_cannot_harm_armour).
    at = quick(charts, "pak-36", 14, kind="tank")
    assert at.row == "to_hit_afv" and at.base == 5 and not at.modifiers
    gun = quick(charts, "infantry-gun-75", 6, kind="tank")
    assert gun.row == "to_hit" and gun.to_hit == 7 - 4  # class IV tank


@pytest.mark.parametrize("kind", ["tank", "assault-gun", "recovery"])
def test_small_arms_cannot_harm_armour(charts: Charts, kind: str) -> None:
    """The seeds are silent; the ammo chart's small-arms-hit-armour (false, our default)
    says a rifle or an LMG does nothing to an armoured target: refused, not 'needs -1'."""
    assert charts.params(AmmoParams).small_arms_hit_armour is False
    with pytest.raises(RulesRefusal) as caught:
        quick(charts, "rifle", 6, kind=kind)
    assert str(caught.value) == (
        f"rifle is small arms (under 20 mm, no anti-tank row) and cannot harm "
        f"{with_article(kind)} (CD core (default), ammo chart small-arms-hit-armour); fire a "
        "weapon with an anti-tank row at it"
    )


def test_small_arms_still_hit_weak_afvs_and_a_50cal_uses_its_anti_tank_row(
    charts: Charts,
) -> None:
    # A weak AFV counts as armour 0 (CD 8.2.1): a rifle needs its plain number.
    assert quick(charts, "rifle", 6, kind="halftrack").to_hit == 5
    fifty = quick(charts, "mg-50cal", 6, kind="tank")
    assert fifty.row == "to_hit_afv"


def test_small_arms_against_armour_when_the_chart_allows_it(charts: Charts) -> None:
    from tabletop.data.charts import Charts as Built

    raw = copy.deepcopy(charts.raw)
    for entry in raw["ammo"]:
        if entry["id"] == "small-arms-hit-armour":
            entry["value"] = True
    allowing = Built(raw)
    rifle = quick(allowing, "rifle", 6, kind="tank")
    assert rifle.row == "to_hit" and rifle.to_hit == 5 - 4  # afv-no-at: minus class IV


def test_unknown_modifier_name_is_bad_input(charts: Charts) -> None:
    from tabletop.core.errors import BadInput

    with pytest.raises(BadInput, match="not a charted modifier"):
        quick(charts, "rifle", 6, mods=(("nosuch", None),))


@pytest.mark.parametrize(
    ("quality", "rolls"),
    [
        # SPEC 2: no effect / forced back / eliminated by quality.
        ("green", (1, 5, 6)),
        ("trained", (2, 6, 7)),
        ("regular", (3, 6, 7)),
        ("experienced", (4, 7, 8)),
        ("veteran", (5, 7, 8)),  # CD 7.2.2: a veteran crew forced back on a 6
        ("elite", (6, 8, 9)),
    ],
)
def test_hit_effects_chart(charts: Charts, quality: str, rolls: tuple[int, int, int]) -> None:
    plan = quick(charts, "rifle", 6, quality=quality)
    last_none, last_back, first_elim = rolls
    assert hit_effect(last_none, plan) == NO_EFFECT
    assert hit_effect(last_none + 1, plan) in (FORCED_BACK, ELIMINATED)
    assert hit_effect(last_back, plan) == FORCED_BACK
    assert hit_effect(first_elim, plan) == ELIMINATED


def test_soft_vehicles_roll_effects_as_green(charts: Charts) -> None:
    assert quick(charts, "rifle", 6, kind="truck", quality="elite").effect_quality == "green"


def test_natural_one_always_hits(charts: Charts) -> None:
    plan = quick(charts, "rifle", 15, mods=(("smoke", -5),))
    assert plan.to_hit < 1
    tally, dice = roll_plan(plan, Dice(0, physical=[1, 9]), 1)
    assert tally.hits == 1 and dice[0]["effect"] == ELIMINATED
    tally, _ = roll_plan(plan, Dice(0, physical=[2]), 1)
    assert tally.hits == 0


# --- odds ---------------------------------------------------------------------------------------


def test_odds_are_exact_for_a_simple_shot(charts: Charts) -> None:
    plan = quick(charts, "pak-36", 14, shooter_kind="towed-gun")  # needs 4, ROF 1
    odds = fire_odds(plan, charts)
    assert odds["hits"] == {0: Fraction(6, 10), 1: Fraction(4, 10)}
    # Regular target: 1-3 no effect, 4-6 forced back, 7+ eliminated.
    assert odds["outcomes"] == {
        "missed": Fraction(6, 10),
        NO_EFFECT: Fraction(4, 10) * Fraction(3, 10),
        FORCED_BACK: Fraction(4, 10) * Fraction(3, 10),
        ELIMINATED: Fraction(4, 10) * Fraction(4, 10),
    }
    # Depletion: the die shows 1 (1/10), then the depletion die <= 3 (3/10).
    assert odds["expected"]["depleted"] == Fraction(3, 100)


@pytest.mark.parametrize("weapon", ["kwk-20", "hmg-mg34", "pak-36"])
def test_odds_sum_to_one_and_match_100k_simulated_shots(charts: Charts, weapon: str) -> None:
    plan = quick(charts, weapon, 5, kind="infantry", shooter_kind="armoured-car")
    odds = fire_odds(plan, charts)
    assert sum(odds["outcomes"].values()) == 1
    assert sum(odds["hits"].values()) == 1
    trials = 100_000
    dice = Dice(12345)
    counts: dict[str, int] = {}
    for _ in range(trials):
        tally, _ = roll_plan(plan, dice, 1)
        key = outcome(tally, plan.miss_effect)
        counts[key] = counts.get(key, 0) + 1
    for name, p in odds["outcomes"].items():
        expected = float(p)
        sigma = (expected * (1 - expected) / trials) ** 0.5
        # Five standard errors: a false alarm about once in 1.7 million checks.
        assert abs(counts.get(name, 0) / trials - expected) <= 5 * sigma + 1e-12


def test_odds_for_rof_ten_are_exact_and_fast_enough_to_enumerate(charts: Charts) -> None:
    plan = quick(charts, "rifle", 6)
    plan = plan.__class__(**{**plan.__dict__, "rof": 10})
    odds = fire_odds(plan, charts)
    assert sum(odds["hits"].values()) == 1
    p_hit = Fraction(5, 10)
    assert odds["expected"]["hits"] == 10 * p_hit


# --- through the CLI ----------------------------------------------------------------------------


@pytest.fixture
def rng(run: Run) -> Run:
    run("new", RANGE, "--seed", "3")
    return run


def test_fire_json_contract(rng: Run) -> None:
    out = as_json(rng("fire", "AT", "T1", "--dice", "3,8", "--json"))
    for key in ("event", "to_hit", "modifiers", "rolls", "hits", "effects", "depletion_checks"):
        assert key in out
    assert out["rolls"] == [3] and out["hits"] == 1 and out["effects"] == [ELIMINATED]
    status = {s["id"]: s for s in as_json(rng("status", "--json"))["stands"]}
    assert status["T1"]["status"] == "eliminated"
    assert (
        rng("fire", "AC", "T1", code=3).output == "Error: T1 is eliminated and cannot be fired at\n"
    )


def test_forced_back_marks_the_target(rng: Run) -> None:
    out = as_json(rng("fire", "AT", "T1", "--dice", "2,5", "--json"))
    assert out["effects"] == [FORCED_BACK]
    stands = {s["id"]: s for s in as_json(rng("status", "--json"))["stands"]}
    assert stands["T1"]["markers"] == ["forced-back"]


def test_text_output_shows_the_working(rng: Run) -> None:
    text = rng("fire", "AT", "T1", "--dice", "1,5").output
    assert text.splitlines()[0] == "1 hit: pak-36 on T1 (forced back)"
    assert text.splitlines()[2] == "  base 4 (pak-36 medium, to-hit row, weapons chart)"
    assert text.splitlines()[4] == "  dice: 1* hit, effect 5* forced back   (* physical)"
    assert text.splitlines()[6] == (
        "  ammunition: 1 depletion check at the end of the phase: depleted on 3 or less (CD 1.2)"
    )


def test_line_of_sight_refusal_names_the_blocker(rng: Run) -> None:
    out = rng("fire", "LIM", "WOODS", code=3)
    assert out.output == (
        "Error: LIM has no line of sight to WOODS: blocked by copse (see 'tabletop "
        "measure LIM WOODS')\n"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["fire", "AT", "T1", "--weapon", "pak-40"],
            2,
            "Error: AT does not carry 'pak-40'; it carries pak-36\n",
        ),
        (
            ["fire", "AT", "T1", "--weapon", "nosuch"],
            2,
            "Error: AT does not carry 'nosuch' (and no such weapon is charted); it carries "
            "pak-36\n",
        ),
        (
            ["fire", "AT", "T1", "--range", "-3"],
            2,
            "Error: Invalid value for '--range': '-3' is negative: distances are 0 or more "
            "inches (see 'tabletop fire --help')\n",
        ),
        (
            ["fire", "AT", "T1", "--range", "nan"],
            2,
            "Error: Invalid value for '--range': 'nan' is not a finite number of inches (see "
            "'tabletop fire --help')\n",
        ),
        (
            ["fire", "AT", "T1", "--range", "1e9"],
            2,
            "Error: Invalid value for '--range': '1e9' is more than 1000 inches (see 'tabletop "
            "fire --help')\n",
        ),
        (
            ["fire", "AT", "T1", "--range", "45"],
            3,
            'Error: T1 is out of range: 45.0" is beyond pak-36\'s long range of 30" (weapons '
            "chart)\n",
        ),
        (
            ["fire", "AT", "NOPE"],
            2,
            "Error: unknown stand 'NOPE' (stands: AT, AC, TK, MG, FT, FV, CR, PS, NW, MT, "
            "LIM, OTHER, ...)\n",
        ),
        (["fire", "AT", "AC"], 3, "Error: AT and AC are both Germany's\n"),
        (["fire", "AT", "AT"], 2, "Error: AT cannot fire at itself\n"),
        (
            ["fire", "AT", "T1", "--mod", "cover=x"],
            2,
            "Error: Invalid value for '--mod': 'cover=x': the value must be a whole number "
            "like -2 or +1 (see 'tabletop fire --help')\n",
        ),
        (
            ["fire", "AT", "T1", "--dice", "11"],
            2,
            "Error: physical die 11 cannot be a d10 (needed for to-hit, pak-36 at T1, needs 4 "
            "or less): give a value from 1 to 10\n",
        ),
        (
            ["fire", "AT", "T1", "--dice", "5,5,5"],
            2,
            "Error: --dice gave 3 values but the command needed 1: unused 5,5\n",
        ),
        (["fire", "SUP", "T1"], 3, "Error: SUP carries no weapons\n"),
        (["fire", "AT"], 2, "Error: give both SHOOTER and TARGET, or neither (quick mode)\n"),
    ],
)
def test_bad_fire_input_leaves_the_game_unchanged(rng: Run, args, code, message) -> None:
    before = file_digest(rng.game)  # type: ignore[attr-defined]
    out = rng(*args, code=code)
    assert out.output == message
    assert file_digest(rng.game) == before  # type: ignore[attr-defined]


def test_firing_out_of_phase_explains_which_phases_allow_it(game: Run) -> None:
    out = game("fire", "G-4", "US-4", code=3)
    assert out.output == (
        "Error: direct fire is not allowed in the movement phase: it happens in the "
        "opportunity-fire or fire phase (turn chart); advance with 'tabletop phase "
        "next'\n"
    )


def test_unplaced_stands_need_a_range(tmp_path: Path, run: Run) -> None:
    scenario = Path(RANGE).read_text().replace("at: [5, 10]}", "}")
    path = tmp_path / "s.yaml"
    path.write_text(scenario)
    run("new", str(path))
    assert run("fire", "AT", "T1", code=2).output == (
        "Error: AT not placed on the table: place with 'tabletop place' or give the "
        "measured range with --range (quick mode)\n"
    )
    out = as_json(run("fire", "AT", "T1", "--range", "14", "--cover", "medium", "--json"))
    assert out["range"] == 14 and out["band"] == "medium"
    assert out["modifiers"][0]["value"] == -2


def test_quick_calculator_without_a_game(tmp_path: Path) -> None:
    runner = CliRunner()
    args = [
        "fire",
        "--weapon",
        "pak-36",
        "--range",
        "14",
        "--target-kind",
        "infantry",
        "--quality",
        "veteran",
        "--game",
        str(tmp_path / "none.sqlite"),
        "--json",
        "--dice",
        "2,6",
    ]
    out = runner.invoke(cli, args)
    assert out.exit_code == 0, out.output
    data = as_json(out)
    assert data["to_hit"] == 4 and data["hits"] == 1 and data["effects"] == [FORCED_BACK]
    assert data["event"] is None
    assert not (tmp_path / "none.sqlite").exists()
    missing = runner.invoke(cli, ["fire", "--weapon", "pak-36"])
    assert missing.exit_code == 2 and missing.output == (
        "Error: quick mode needs --range, --target-kind (or give SHOOTER and TARGET "
        "stands of a game)\n"
    )
    typo = runner.invoke(
        cli, ["fire", "--weapon", "pak36", "--range", "3", "--target-kind", "infantry"]
    )
    assert typo.exit_code == 2 and typo.output == (
        "Error: --weapon 'pak36': unknown weapon; did you mean 'pak-36'? (see "
        "'tabletop charts show')\n"
    )


def test_odds_command_matches_plan(rng: Run) -> None:
    out = as_json(rng("odds", "fire", "AT", "T1", "--json"))
    assert out["to_hit"] == 4
    assert out["exact"]["outcomes"]["missed"] == "3/5"
    assert abs(sum(out["outcomes"].values()) - 1) < 1e-12
    # Odds roll nothing and log nothing.
    assert len(as_json(rng("log", "--json"))["events"]) == 1


def test_referee_mod_and_spotted_override_are_logged(rng: Run) -> None:
    rng("fire", "AT", "T1", "--mod", "hedge=-1", "--dice", "9")
    event = as_json(rng("log", "--last", "1", "--json"))["events"][0]
    assert event["inputs"]["mods"] == [["hedge", -1]]
    assert event["result"]["modifiers"] == [{"name": "hedge", "value": -1, "rule": "referee"}]


def test_random_shots_never_crash_and_replay(rng: Run) -> None:
    shooters = ["AT", "AC", "TK", "MG", "LIM"]
    targets = ["T2", "T3", "T4", "T9", "LEE"]
    pick = random.Random(5)
    for _ in range(12):
        out = rng("fire", pick.choice(shooters), pick.choice(targets), code=None)
        assert out.exit_code in (0, 3), out.output
    goto_phase(rng, "morale")
    assert rng("replay").output == "replay reproduces the stored state (6 events)\n"


# --- each charted modifier counts once; typos are not new modifiers ----------------------------


@pytest.mark.parametrize(
    ("markers", "mods", "to_hit", "note"),
    [
        (
            (),
            (("descending", None), ("descending", None)),
            2,
            "--mod descending given more than once: counted once",
        ),
        (
            (),
            (("muzzle-flash", None),) * 3,
            2,
            "--mod muzzle-flash given more than once: counted once",
        ),
        (("suppressed",), (), 3, None),  # automatic, once
        (
            ("suppressed",),
            (("firer-suppressed", None),),
            3,
            "firer-suppressed applies here by itself: --mod firer-suppressed counted once",
        ),
        (
            ("suppressed",),
            (("firer-suppressed", -3),),
            1,
            "firer-suppressed applies here by itself: the referee's value replaces it",
        ),
        ((), (("hedge", -1), ("hedge", -1)), 3, "--mod hedge given more than once: counted once"),
    ],
)
def test_a_modifier_counts_once(charts: Charts, markers, mods, to_hit: int, note) -> None:
    target = Target("T", charts.stand_kinds["infantry"], "regular")
    firer = Firer("F", charts.stand_kinds["infantry"], "regular", markers)
    plan = plan_direct(charts.weapons["pak-36"], firer, target, 14, charts, requested=mods)
    assert plan.to_hit == to_hit  # base 4 at 14"
    assert len({m.name for m in plan.modifiers}) == len(plan.modifiers)
    assert note in plan.notes if note else len(plan.notes) <= 2


@pytest.mark.parametrize(
    ("mod", "code", "says"),
    [
        (
            "muzle-flash=-2",
            2,
            "Error: --mod 'muzle-flash=-2': 'muzle-flash' is not a charted modifier; did you mean "
            "'muzzle-flash'? (charted: ...); for a modifier of your own, choose a name unlike "
            "these",
        ),
        (
            "descendng",
            2,
            "Error: --mod 'descendng': 'descendng' is not a charted modifier; did you mean "
            "'descending'? (charted: ...); for a modifier of your own, give a value, like "
            "descendng=-1",
        ),
        (
            "firer-supressed=-1",
            2,
            "Error: --mod 'firer-supressed=-1': 'firer-supressed' is not a charted modifier; did "
            "you mean 'firer-suppressed'? (charted: ...); for a modifier of your own, choose a "
            "name unlike these",
        ),
        ("smoke-haze=-1", 0, "  -1 smoke-haze [referee]"),  # clearly a new name: allowed
        ("hedge=-1", 0, "  -1 hedge [referee]"),
    ],
)
def test_a_misspelt_charted_modifier_is_refused(mod: str, code: int, says: str) -> None:
    args = ["fire", "--weapon", "pak-36", "--range", "14", "--target-kind", "infantry"]
    out = CliRunner().invoke(cli, [*args, "--mod", mod, "--dice", "9"])
    # the charted modifiers are the modifiers chart's whole list, which grows with the charts
    lines = [re.sub(r"\(charted: [^)]*\)", "(charted: ...)", x) for x in out.output.splitlines()]
    assert out.exit_code == code and says in lines


def test_repeated_modifier_is_listed_once_in_the_working() -> None:
    args = ["fire", "--weapon", "pak-36", "--range", "14", "--target-kind", "infantry"]
    out = CliRunner().invoke(cli, [*args, "--mod", "descending", "--mod", "descending"])
    assert out.exit_code == 0
    assert out.output.count("-2 target is paratroopers descending") == 1
    lines = out.output.splitlines()
    assert lines[1] == 'Fire pak-36 at infantry: 14.0" (medium), ROF 1, needs 2 or less'
    assert lines[4] == (
        "  = 2; a natural 1 always hits; --mod descending given more than once: "
        "counted once; descending paratroopers get no cover (CD 7.2.2)"
    )


def test_same_modifier_with_two_values_is_refused(charts: Charts) -> None:
    from tabletop.core.errors import BadInput

    with pytest.raises(BadInput, match="given twice with different values"):
        quick(charts, "rifle", 6, mods=(("hedge", -1), ("hedge", -2)))


def test_a_suppressed_firer_pays_once_through_the_cli(rng: Run) -> None:
    rng("marker", "AT", "--add", "suppressed")
    plain = as_json(rng("odds", "fire", "AT", "T1", "--json"))
    named = as_json(rng("odds", "fire", "AT", "T1", "--mod", "firer-suppressed", "--json"))
    assert plain["to_hit"] == named["to_hit"] == 3
    assert [m["name"] for m in named["modifiers"]] == ["firer is suppressed"]


# --- the weapons chart rules some shots out ------------------------------------------------------


def test_indirect_only_weapons_are_marked_in_the_chart(charts: Charts) -> None:
    marked = {w.id for w in charts.weapons.values() if w.indirect_only}
    assert {"mortar-50", "mortar-81", "mortar-120", "nebelwerfer-41", "katyusha-bm13"} <= marked
    assert all(charts.weapons[w].indirect for w in marked)
    assert not charts.weapons["howitzer-105"].indirect_only  # fires over open sights too


@pytest.mark.parametrize(
    ("args", "weapon", "shooter"),
    [
        (["fire", "MT", "T8"], "mortar-81", "MT"),
        (["fire", "NW", "T8", "--range", "30"], "nebelwerfer-41", "NW"),
        (["odds", "fire", "MT", "T8"], "mortar-81", "MT"),
    ],
)
def test_indirect_only_weapons_cannot_fire_direct(
    rng: Run, args: list[str], weapon: str, shooter: str
) -> None:
    before = file_digest(rng.game)  # type: ignore[attr-defined]
    out = rng(*args, code=3)
    assert out.output == (
        f"Error: {weapon} fires only indirect (weapons chart: indirect_only): it cannot fire "
        f"direct at T8; fire it with 'tabletop barrage {shooter} --at X,Y'\n"
    )
    assert file_digest(rng.game) == before  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", [["fire"], ["odds", "fire"]])
def test_quick_mode_refuses_direct_fire_by_an_indirect_only_weapon(command: list[str]) -> None:
    args = ["--weapon", "nebelwerfer-41", "--range", "30", "--target-kind", "infantry"]
    out = CliRunner().invoke(cli, [*command, *args])
    assert out.exit_code == 3
    assert out.output == (
        "Error: nebelwerfer-41 fires only indirect (weapons chart: indirect_only): it "
        "cannot fire direct at infantry; fire it with 'tabletop barrage SHOOTER --at "
        "X,Y'\n"
    )


@pytest.mark.parametrize(
    ("weapon", "kind", "refused"),
    [
        ("pak-38", "assault-boat", True),  # CD 2.1: AP does nothing to an assault boat
        ("pak-36", "raft", True),  # CD 8.2.1: nor to a rubber raft
        ("qf-2pdr", "assault-boat", True),
        ("kwk-50", "assault-boat", False),  # has HE: its soft row fires normally
        ("rifle", "assault-boat", False),
        ("pak-38", "truck", False),  # AP against an ordinary soft vehicle
    ],
)
def test_ap_rounds_have_no_effect_on_boats_and_rafts(
    charts: Charts, weapon: str, kind: str, refused: bool
) -> None:
    from tabletop.core.errors import RulesRefusal

    if not refused:
        assert quick(charts, weapon, 5, kind=kind).to_hit >= 1
        return
    with pytest.raises(RulesRefusal, match=r"AP rounds have no effect .*CD (2\.1|8\.2\.1)"):
        quick(charts, weapon, 5, kind=kind)


@pytest.mark.parametrize("command", [["fire"], ["odds", "fire"]])
def test_ap_only_gun_refused_against_an_assault_boat_in_quick_mode(command: list[str]) -> None:
    args = ["--weapon", "pak-38", "--range", "14", "--target-kind", "assault-boat"]
    out = CliRunner().invoke(cli, [*command, *args])
    assert out.exit_code == 3 and out.output == (
        "Error: pak-38 fires only AP rounds (weapons chart: ap_only), and AP rounds "
        "have no effect on assault-boat (stand kind assault-boat: CD 2.1); fire a "
        "weapon with HE at it\n"
    )


def test_direct_cover_cites_its_own_source(charts: Charts) -> None:
    direct = quick(charts, "rifle", 6, cover="medium")
    assert [m.rule for m in direct.modifiers] == ["CD cover (default)"]
    indirect = plan_indirect(
        charts.weapons["mortar-81"],
        Firer(None, None),
        Target("T", charts.stand_kinds["infantry"], "regular", cover="medium"),
        charts,
    )
    assert [m.rule for m in indirect.modifiers] == ["CD indirect fire (reference card)"]


# --- each weapon fires once a turn (CD core, default) -------------------------------------------


def test_a_weapon_fires_once_a_turn(rng: Run) -> None:
    rng("fire", "AT", "T1", "--dice", "9")
    before = file_digest(rng.game)  # type: ignore[attr-defined]
    out = rng("fire", "AT", "T2", code=3)
    assert out.output == (
        "Error: AT cannot fire its pak-36 again this turn: it fired in the fire phase "
        "(fire AT -> T1); each weapon fires once a turn, in one phase: opportunity "
        "fire, fire, or a barrage (CD core (default), ammo chart fires-per-turn)\n"
    )
    assert file_digest(rng.game) == before  # type: ignore[attr-defined]
    # Odds look ahead: a later turn renews the allowance.
    assert as_json(rng("odds", "fire", "AT", "T2", "--json"))["to_hit"] == 4
    goto_phase(rng, "opportunity-fire")  # turn 2
    rng("fire", "AT", "T2", "--dice", "9")


def test_opportunity_fire_uses_the_turns_fire(game: Run) -> None:
    goto_phase(game, "opportunity-fire")
    game("fire", "G-4", "US-4", "--range", "10", "--dice", "9")
    game("phase", "next")  # the fire phase of the same turn
    out = game("fire", "G-4", "US-4", "--range", "10", code=3)
    assert out.output == (
        "Error: G-4 cannot fire its pak-36 again this turn: it fired in the "
        "opportunity-fire phase (fire G-4 -> US-4); each weapon fires once a turn, in "
        "one phase: opportunity fire, fire, or a barrage (CD core (default), ammo "
        "chart fires-per-turn)\n"
    )


def test_each_gun_of_a_multi_gun_vehicle_fires_once(rng: Run) -> None:
    rng("fire", "LEE", "AT", "--weapon", "us-75mm-m2", "--dice", "9")
    rng("fire", "LEE", "AT", "--weapon", "us-37mm-m6", "--dice", "9")
    out = rng("fire", "LEE", "AT", "--weapon", "us-75mm-m2", code=3)
    assert out.output == (
        "Error: LEE cannot fire its us-75mm-m2 again this turn: it fired in the fire "
        "phase (fire LEE -> AT); each weapon fires once a turn, in one phase: "
        "opportunity fire, fire, or a barrage (CD core (default), ammo chart "
        "fires-per-turn)\n"
    )


def test_the_allowance_is_charted_and_a_referee_may_change_it(run: Run, tmp_path: Path) -> None:
    house = tmp_path / "house"
    house.mkdir()
    (house / "ammo.yaml").write_text("entries:\n  - {id: fires-per-turn, value: 2}\n")
    run("new", RANGE, "--seed", "3", "--charts", str(house))
    run("fire", "AT", "T1", "--dice", "9")
    run("fire", "AT", "T1", "--dice", "9")
    assert run("fire", "AT", "T1", code=3).output == (
        "Error: AT cannot fire its pak-36 again this turn: it fired in the fire phase "
        "(fire AT -> T1); each weapon fires 2 times a turn, in one phase: opportunity "
        "fire, fire, or a barrage (CD core (default), ammo chart fires-per-turn)\n"
    )


def _range_with(tmp_path: Path, run: Run) -> None:
    """The firing range with T1 carrying a rifle and an LMG, and TK an assault gun."""
    text = (
        Path(RANGE)
        .read_text()
        .replace("weapons: [rifle], at: [5, 20]", "weapons: [rifle, lmg], at: [5, 20]")
        .replace("{id: TK, kind: tank,", "{id: TK, kind: assault-gun,")
    )
    path = tmp_path / "range2.yaml"
    path.write_text(text)
    run("new", str(path), "--seed", "3")


def test_a_stands_small_arms_fire_once_a_turn(tmp_path: Path, run: Run) -> None:
    """The ammo chart's small-arms-fire-once (our default, the seeds being silent): a
    rifle-and-LMG stand fires one of them a turn, and says so when it fires."""
    _range_with(tmp_path, run)
    fired = run("fire", "T1", "AT", "--dice", "8").output
    assert (
        "rifle fires for all its small arms (lmg not again this turn: CD core (default), "
        "ammo chart small-arms-fire-once)"
    ) in fired
    before = file_digest(run.game)  # type: ignore[attr-defined]
    refused = run("fire", "T1", "MG", "--weapon", "lmg", code=3).output
    assert refused == (
        "Error: T1 cannot fire its lmg this turn: its small arms fire together, once a turn, "
        "and its rifle fired in the fire phase (fire T1 -> AT) (CD core (default), ammo "
        "chart small-arms-fire-once)\n"
    )
    assert file_digest(run.game) == before  # type: ignore[attr-defined]


def test_an_assault_gun_depletes_as_a_tank_and_says_so(tmp_path: Path, run: Run) -> None:
    """CD 1.2.2 names tanks; the stand kinds chart counts an assault gun as one (default)."""
    _range_with(tmp_path, run)
    out = run("fire", "TK", "T2", "--dice", "1,2").output
    assert (
        "  ammunition: 1 depletion check at the end of the phase: depleted on 4 or less "
        "(CD 1.2, 1.2.2: -1 cm, an assault-gun counted as a tank)"
    ) in out


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        (
            "assault-gun",
            "depleted on 6 or less (CD 1.2, 1.2.2: -1 cm, an assault-gun counted as a tank)",
        ),
        ("tank", "depleted on 6 or less (CD 1.2, 1.2.2: -1 cm)"),
        ("towed-gun", "depleted on 7 or less (CD 1.2)"),
    ],
)
def test_quick_fire_says_why_its_depletion_number(kind: str, said: str) -> None:
    out = CliRunner().invoke(
        cli,
        ["fire", "--weapon", "kwk-75-long", "--range", "5", "--target-kind", "infantry",
         "--shooter-kind", kind, "--dice", "1,5"],
    )  # fmt: skip
    assert out.exit_code == 0
    assert out.output.splitlines()[-1] == (
        f"  ammunition: 1 depletion check due at the end of the fire phase: {said}"
    )
