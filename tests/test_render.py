"""Map pictures, the after-action report, dice statistics, completion and table fitting."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.shell_completion import ShellComplete
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tabletop.cli import cli
from tabletop.core.dice import Dice
from tabletop.core.sides import resolve_view
from tabletop.data.resources import bundled_scenario, scenarios_dir
from tabletop.data.scenario import TerrainPiece
from tabletop.data.scenario_loader import read_scenario
from tabletop.game.engine import Game
from tabletop.render import REFEREE
from tabletop.render.dicestats import chi2_survival, die_stats, summarise
from tabletop.render.labels import Item, place
from tabletop.render.scene import build_scene
from tabletop.rules.context import RulesContext
from tests.conftest import Run, as_json, file_digest, goto_phase

SVG_NS = "{http://www.w3.org/2000/svg}"
BUNDLED = sorted(p.stem for p in scenarios_dir().glob("*.yaml"))
SECRET_PIECE = "secret-lake"


# --- building games without the CLI (fast, and free to add hidden things) --------------------


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Game]:
    """One new game per bundled scenario (seed 1), shared by the tests of this module."""
    folder = tmp_path_factory.mktemp("render-games")
    made = {}
    for name in BUNDLED:
        loaded = read_scenario(bundled_scenario(name))
        made[name] = Game.create(folder / f"{name}.sqlite", loaded, 1, force=False)
    return made


def secret_context(game: Game) -> RulesContext:
    """The game's context with hidden things added: a referee-only lake, a wired bridge,
    and for each side a hidden real field, a hidden dummy and a revealed real field."""
    ctx = game.context()
    scenario = ctx.scenario
    w, d = scenario.table.width, scenario.table.depth
    lake = TerrainPiece(
        id=SECRET_PIECE,
        kind="lake",
        polygon=((w * 0.45, d * 0.45), (w * 0.55, d * 0.45), (w * 0.5, d * 0.55)),
        referee_only=True,
    )
    bridge = TerrainPiece(
        id="wired-span",
        kind="bridge",
        polygon=((1.0, 1.0), (3.0, 1.0), (3.0, 4.0), (1.0, 4.0)),
        wired=True,
    )
    scenario = dataclasses.replace(scenario, terrain=(*scenario.terrain, lake, bridge))
    state = ctx.state
    for n, side in enumerate(scenario.side_names()):
        for kind, real, revealed in (("hid", True, False), ("dum", False, False),
                                     ("shown", True, True)):  # fmt: skip
            fid = f"mf-{kind}-{n}"
            state.rows[f"minefield:{fid}"] = {
                "id": fid,
                "side": side,
                "real": real,
                "revealed": revealed,
                "x": 5.0 + 3 * n,
                "y": 5.0 + (3 if real else 0) + (6 if revealed else 0),
                "size": 1.0,
            }
    state.rows["minefield:broken"] = {"id": "broken", "side": "nobody"}  # read defensively
    return RulesContext(state, Dice(1), scenario, ctx.charts)


def svg_of(scene: Any) -> str:
    from tabletop.render.draw import write

    out = io.BytesIO()
    write(scene, out, "svg")
    return out.getvalue().decode("utf-8")


def shown(text: str) -> list[str]:
    """The lines of an element's text, without the SVG's layout whitespace."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def texts_by_id(svg: str) -> dict[str, str]:
    root = ET.fromstring(svg)
    return {
        el.get("id", ""): "".join(el.itertext()) for el in root.iter() if el.get("id") is not None
    }


def hidden_from(side: str, sides: list[str]) -> list[str]:
    """What a side must never see: the lake, and whether the enemy's unrevealed minefield
    templates are real or dummies (the templates themselves both sides see, CD 3)."""
    return [SECRET_PIECE]


# --- the done-when test: every bundled scenario, every view ----------------------------------


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_scenario_in_every_view(games: dict[str, Game], name: str) -> None:
    game = games[name]
    ctx = secret_context(game)
    sides = ctx.scenario.side_names()
    stand_ids = [s["id"] for s in ctx.state.stands() if s["x"] is not None]
    for view in [REFEREE, *sides]:
        svg = svg_of(build_scene(ctx, game.info.name, view))
        ids = texts_by_id(svg)  # parses: the SVG is well-formed XML
        if view == REFEREE:
            for sid in stand_ids:
                assert sid in ids.get(f"label-{sid}", ""), f"{name}: no label for {sid}"
            assert f"terrain-{SECRET_PIECE}" in ids
            assert "wired-wired-span" in ids
            assert all(f"minefield-mf-{k}-0" in ids for k in ("hid", "dum", "shown"))
            continue
        for secret in hidden_from(view, sides):
            assert secret not in svg, f"{name}: {view}'s view shows {secret}"
        assert "wired" not in svg.replace("wired-span", "")  # the span is drawn, not its wiring
        assert "referee only" not in svg
        own = sides.index(view)
        assert ids[f"minefield-label-mf-dum-{own}"].strip() == "D"  # a side knows its own dummies
        for n in range(len(sides)):
            assert ids[f"minefield-label-mf-shown-{n}"].strip() == "M"  # revealed: known to all
            if n != own:
                # CD 3: the enemy's templates lie on the table; real or dummy is unknown.
                assert ids[f"minefield-label-mf-hid-{n}"].strip() == "M?"
                assert ids[f"minefield-label-mf-dum-{n}"].strip() == "M?"


# --- what a view may know -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("view", "field_side", "real", "revealed", "shown", "real_known"),
    [
        ("referee", "Germany", True, False, True, True),
        ("referee", "Germany", False, False, True, True),
        ("Germany", "Germany", True, False, True, True),
        ("Germany", "Germany", False, False, True, True),
        ("USA", "Germany", True, False, True, None),
        ("USA", "Germany", False, False, True, None),
        ("USA", "Germany", True, True, True, True),
    ],
)
def test_minefields_as_a_view_knows_them(
    games: dict[str, Game],
    view: str,
    field_side: str,
    real: bool,
    revealed: bool,
    shown: bool,
    real_known: bool | None,
) -> None:
    ctx = games["crossroads"].context()
    ctx.state.rows["minefield:m1"] = {
        "id": "m1", "side": field_side, "real": real, "revealed": revealed,
        "x": 10, "y": 10, "size": 1,
    }  # fmt: skip
    scene = build_scene(ctx, "t", view)
    assert bool(scene.minefields) is shown
    if shown:
        field = scene.minefields[0]
        assert field.real == (real if real_known else None)
        assert field.polygon == [(9.5, 9.5), (10.5, 9.5), (10.5, 10.5), (9.5, 10.5)]


def test_a_side_traces_sight_over_the_terrain_it_knows(games: dict[str, Game]) -> None:
    """A referee-only wood between G-1 and US-1 blocks the referee's line, not Germany's."""
    ctx = games["crossroads"].context()
    wood = TerrainPiece(
        id="hidden-wood",
        kind="woods",
        polygon=((15.0, 14.0), (21.0, 14.0), (21.0, 16.0), (15.0, 16.0)),
        referee_only=True,
    )
    ctx = RulesContext(
        ctx.state,
        ctx.dice,
        dataclasses.replace(ctx.scenario, terrain=(*ctx.scenario.terrain, wood)),
        ctx.charts,
    )
    referee = build_scene(ctx, "t", REFEREE, los=("G-1", "US-1")).sight
    germany = build_scene(ctx, "t", "Germany", los=("G-1", "US-1")).sight
    assert referee is not None and germany is not None
    assert not referee.clear and referee.blocked_by == ["hidden-wood"]
    assert germany.clear and all(c.piece != "hidden-wood" for c in germany.crossings)
    blocker = next(c for c in referee.crossings if c.blocks)
    assert blocker.entry[1] == pytest.approx(16.0, abs=0.01)  # entering the wood's north edge


@pytest.mark.parametrize(
    ("typed", "view"),
    [(None, "referee"), ("Referee", "referee"), ("germany", "Germany"), (" USA ", "USA")],
)
def test_views_are_named_case_insensitively(typed: str | None, view: str) -> None:
    assert resolve_view(typed, ["Germany", "USA"]) == view


def test_range_band_rings_follow_the_base_edge(games: dict[str, Game]) -> None:
    """Edge measuring: each ring is the base grown by the band's distance (CD range rule)."""
    ctx = games["crossroads"].context()
    bands = build_scene(ctx, "t", REFEREE, bands="G-1").bands  # 18,27 facing 180, rifle
    assert bands is not None
    rifle = ctx.charts.weapons["rifle"].ranges
    stand = ctx.state.stand("G-1")
    for ring in bands.rings:
        expected = getattr(rifle, ring.band)
        xs = [p[0] for p in ring.polygon]
        assert max(xs) == pytest.approx(18 + stand["width"] / 2 + expected, abs=0.01)
        assert ring.distance == expected
    assert [r.band for r in bands.rings] == ["close", "medium", "long"]


# --- labels ---------------------------------------------------------------------------------


def _overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_labels_avoid_each_other_and_other_stands() -> None:
    stands = [(x * 3.0, y * 2.5) for x in range(1, 8) for y in range(1, 6)]
    items = [
        Item(f"S-{n}", (x - 0.4, y - 0.4, x + 0.4, y + 0.4), width=1.8, height=0.45)
        for n, (x, y) in enumerate(stands)
    ]
    placed = place(items, (0, 0, 30, 20))
    assert [p.id for p in placed] == [i.id for i in items]
    boxes = [p.box for p in placed]
    for i, a in enumerate(boxes):
        assert not any(_overlaps(a, b) for b in boxes[i + 1 :])
        assert not any(_overlaps(a, item.anchor) for item in items)
    assert place(items, (0, 0, 30, 20)) == placed  # deterministic


# --- dice statistics ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [
        (3.841, 1, 0.05),
        (5.991, 2, 0.05),
        (11.070, 5, 0.05),
        (16.919, 9, 0.05),
        (21.666, 9, 0.01),
        (9.0, 9, 0.4373),
        (0.0, 9, 1.0),
    ],
)
def test_chi_square_survival_matches_the_tables(x: float, df: int, p: float) -> None:
    assert chi2_survival(x, df) == pytest.approx(p, abs=5e-4)


@given(st.floats(0, 200), st.floats(0, 200), st.integers(1, 30))
def test_chi_square_survival_is_a_falling_probability(a: float, b: float, df: int) -> None:
    low, high = sorted((a, b))
    # Falling, up to the last bit of a double (the series and its complement round apart).
    assert 0.0 <= chi2_survival(high, df) <= chi2_survival(low, df) + 1e-12
    assert chi2_survival(low, df) <= 1.0


def test_fair_dice_read_as_fair() -> None:
    stats = die_stats(10, list(range(1, 11)) * 6)
    assert stats.mean == 5.5 and stats.z == 0
    assert stats.chi2 == 0 and stats.p_chi2 == pytest.approx(1.0)
    assert stats.verdict == "in line with fair dice"


def test_loaded_dice_read_as_loaded() -> None:
    stats = die_stats(10, [1] * 30 + [2] * 30)
    assert stats.mean == 1.5 and stats.z is not None and stats.z < -8
    assert stats.verdict == "ran low; very unusual for fair dice"


def test_too_few_rolls_for_a_chi_square() -> None:
    stats = die_stats(10, [3, 7, 9])
    assert stats.chi2 is None and stats.p_chi2 is None
    assert stats.as_json()["rolls"] == 3


@pytest.mark.parametrize(
    ("rolls", "verdict"),
    [
        ([1, 1], "too few rolls to judge"),  # 1% likely, but two rolls judge nothing
        ([1] * 11, "too few rolls to judge"),
        ([1] * 12, "ran low; very unusual for fair dice"),
        ([5, 6] * 6, "in line with fair dice"),
    ],
)
def test_the_mean_is_judged_only_from_enough_rolls(rolls: list[int], verdict: str) -> None:
    stats = die_stats(10, rolls)
    assert stats.mean is not None and stats.z is not None  # still shown
    assert stats.verdict == verdict


def test_physical_and_generated_are_counted_apart() -> None:
    rolls = [{"die": 10, "value": v, "source": "physical"} for v in (1, 2)]
    rolls += [{"die": 10, "value": v, "source": "generated"} for v in (9, 10, 8)]
    rolls += [{"die": 6, "value": 6, "source": "generated"}]
    summary = summarise(rolls)
    assert (summary["rolls"], summary["physical"], summary["generated"]) == (6, 2, 4)
    rows = [(s.sides, s.source, s.n) for s in summary["by_die"]]
    assert rows == [(6, "all", 1), (10, "all", 5), (10, "physical", 2), (10, "generated", 3)]


# --- tabletop map ---------------------------------------------------------------------------


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new crossroads game (seed 1) for tests that only read it (a map changes nothing)."""
    path = tmp_path_factory.mktemp("shared") / "game.sqlite"
    _invoke("new", "crossroads", "--seed", "1", "--game", str(path))
    return path


@pytest.fixture
def look(run: Run, shared: Path) -> Run:
    """``run`` against the shared game."""

    def invoke(*args: str, code: int | None = 0) -> Any:
        return run(*args, code=code, game_file=shared)

    invoke.game = shared  # type: ignore[attr-defined]
    return invoke


def test_map_svg_by_default_beside_the_game(look: Run, shared: Path) -> None:
    result = look("map")
    picture = shared.parent / "map.svg"
    assert result.output.startswith(f"Map written to {picture} (referee's view, turn 1 movement")
    ids = texts_by_id(picture.read_text())
    picture.unlink()
    assert "label-G-1" in ids and "wind-arrow" in ids and "terrain-wood-1" in ids


def test_map_png_side_view_json(look: Run, tmp_path: Path) -> None:
    out = tmp_path / "germany.png"
    data = as_json(look("map", "--out", str(out), "--view", "germany", "--json"))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert {"out", "format", "view", "turn", "phase", "stands", "templates", "los"} <= set(data)
    assert (data["format"], data["view"], data["stands"]) == ("png", "Germany", 12)


def test_map_line_of_sight_and_range_bands(look: Run, tmp_path: Path) -> None:
    out = tmp_path / "m.svg"
    result = look("map", "--out", str(out), "--los", "G-2", "US-2", "--range-bands", "G-4")
    assert result.output.splitlines()[1] == '  sight G-2 -> US-2: 18.2", BLOCKED by wood-1'
    assert (
        result.output.splitlines()[2]
        == '  range bands of G-4: pak-36 close 8", pak-36 medium 16", pak-36 long 30"'
    )
    ids = texts_by_id(out.read_text())
    assert shown(ids["los-note-1"]) == ["blocked: wood-1"]
    assert {"band-pak-36-close", "band-pak-36-long", "los-clear", "los-blocked"} <= set(ids)
    data = as_json(look("map", "--out", str(out), "--los", "10,10", "40,30", "--json"))
    assert data["los"]["a"] == "(10, 10)" and data["range_bands"] is None


def test_map_shows_templates_and_status(run: Run, tmp_path: Path) -> None:
    # Two barrages from the one mortar in a turn: the referee's house charts allow it.
    house = tmp_path / "house"
    house.mkdir()
    (house / "ammo.yaml").write_text("entries:\n  - {id: fires-per-turn, value: 2}\n")
    run("new", "crossroads", "--seed", "1", "--charts", str(house))
    game = run
    goto_phase(game, "artillery")  # turn 2
    game("barrage", "US-5", "--at", "27,21")
    game("barrage", "US-5", "--at", "20,26", "--ammo", "smoke")
    out = tmp_path / "m.svg"
    data = as_json(game("map", "--out", str(out), "--json"))
    assert data["templates"] == ["burst-1", "smoke-2"]
    ids = texts_by_id(out.read_text())
    assert {"template-burst-1", "template-smoke-2"} <= set(ids)
    assert shown(ids["label-G-3"]) == ["G-3 (sup)"]


def test_map_to_stdout(look: Run) -> None:
    result = look("map", "--out", "-")
    assert result.output.splitlines()[0] == '<?xml version="1.0" encoding="utf-8" standalone="no"?>'
    ET.fromstring(result.output.encode())


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ("--out", "map.jpg"),
            "Error: --out 'map.jpg': name a .svg or .png file (or '-' for SVG on stdout)\n",
        ),
        (
            ("--out", "no/such/folder/map.svg"),
            "Error: --out 'no/such/folder/map.svg': the folder 'no/such/folder' does not exist\n",
        ),
        (
            ("--view", "Italy"),
            "Error: --view 'Italy': not a view of this game (accepted: referee, Germany, USA)\n",
        ),
        (
            ("--los", "G-1", "nobody"),
            "Error: unknown stand 'nobody' (stands: G-1, G-2, G-3, G-4, G-5, G-S, US-1, US-2, "
            "US-3, US-4, US-5, US-S)\n",
        ),
        (("--los", "G-1", "500,3"), "Error: (500, 3) is off the 48 x 36 table\n"),
        (
            ("--los", "G-1", "1,x"),
            "Error: --los end '1,x' is not a stand id or a point X,Y in inches\n",
        ),
        (("--range-bands", "G-S"), "Error: --range-bands 'G-S': it carries no weapons\n"),
        (
            ("--range-bands", "G-1", "--weapon", "pak-36"),
            "Error: --weapon 'pak-36': G-1 carries rifle\n",
        ),
        (
            ("--weapon", "rifle"),
            "Error: --weapon 'rifle' needs --range-bands STAND (whose rings to draw)\n",
        ),
    ],
)
def test_map_bad_input(
    look: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    before = file_digest(look.game)  # type: ignore[attr-defined]
    result = look("map", *args, code=2)
    assert result.output == says
    assert file_digest(look.game) == before  # type: ignore[attr-defined]
    assert not (tmp_path / "map.svg").exists()
    assert not (look.game.parent / "map.svg").exists()  # type: ignore[attr-defined]


def test_map_draws_no_progress_bar_off_a_terminal(look: Run, tmp_path: Path) -> None:
    result = look("map", "--out", str(tmp_path / "m.svg"))
    assert result.stderr == ""


# --- tabletop report ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def battle_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Crossroads after some fire, an undone roll, and a turn boundary (built once)."""
    path = tmp_path_factory.mktemp("battle") / "game.sqlite"
    for args in (
        ("new", "crossroads", "--seed", "1"),
        ("phase", "next"),
        ("fire", "G-4", "US-4", "--dice", "1,4"),
        ("phase", "next"),
        ("fire", "US-4", "G-4", "--weapon", "us-75mm-m2", "--dice", "3,9"),
        ("roll", "2d6"),
        ("undo",),
        ("turn", "next", "--yes"),
    ):
        _invoke(*args, "--game", str(path))
    return path


@pytest.fixture
def battle(run: Run, battle_file: Path) -> Run:
    """``run`` against the battle game; the report only reads it."""

    def invoke(*args: str, code: int | None = 0) -> Any:
        return run(*args, code=code, game_file=battle_file)

    return invoke


def test_report_markdown_to_the_screen(battle: Run) -> None:
    text = battle("report").output
    assert text.startswith("# After-action report: Crossroads\n")
    for heading in ("## Totals by side", "### Turn 1", "## The dice"):
        assert heading in text.splitlines()
    # The end of turn 1 is one event, typed in turn 1: all of it is turn 1's, what follows
    # "turn 2 begins" saying so (it was split between turns 1 and 2). US-4 has not fallen back
    # yet: its marker stays until it does.
    assert "### Turn 2" not in text.splitlines()
    assert (
        "- end of fire, event 8: turn 2 begins: marker: US-4: forced-back kept: US-4 has still "
        "to fall back"
    ) in text.splitlines()
    assert (
        "Scenario crossroads.yaml, dice seed 1. 8 events in the log (1 undone and left "
        "out). The game now stands at turn 2, command phase."
    ) in text.splitlines()
    assert (
        "- opportunity-fire, event 3: G-4 fires at US-4: 1 hit: pak-36 on US-4 (forced back)"
    ) in text.splitlines()
    assert (
        "- end of opportunity-fire, event 4: depletion check: G-4 pak-36: depleted "
        "(rolled 2 <= 3, CD 1.2)"
    ) in text.splitlines()
    assert "| eliminated now | G-4 | - |" in text.splitlines()
    assert "2d6" not in text  # the undone roll


def test_report_json_counts(battle: Run) -> None:
    data = as_json(battle("report", "--json"))
    assert data["undone"] == 1 and data["written"] == []
    germany, usa = data["totals"]["Germany"], data["totals"]["USA"]
    assert (germany["shots"], germany["hits"], germany["depleted"]) == (1, 1, 1)
    assert (usa["shots"], usa["hits"], usa["forced back"]) == (1, 1, 1)
    assert germany["eliminated"] == 1 and data["eliminated_now"]["Germany"] == ["G-4"]
    log = as_json(battle("log", "--json"))["events"]
    undone = {e["undoes"] for e in log if "undoes" in e}
    rolls = [r for e in log if e["seq"] not in undone and "undoes" not in e for r in e["rolls"]]
    assert data["dice"]["rolls"] == len(rolls)
    assert data["dice"]["physical"] == sum(r["source"] == "physical" for r in rolls) == 4


def test_report_counts_a_sides_minefields_as_its_engineering(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    run("new", "crossroads", "--seed", "1", game_file=path)
    run("minefield", "place", "20", "14", "--side", "Germany", "--pregame", game_file=path)
    run(
        "minefield",
        "place",
        "22",
        "14",
        "--side",
        "Germany",
        "--dummy",
        "--pregame",
        game_file=path,
    )
    totals = as_json(run("report", "--json", game_file=path))["totals"]
    assert (totals["Germany"]["engineering"], totals["USA"]["engineering"]) == (2, 0)


DATA = Path(__file__).parent / "data"


def test_report_counts_model_fire_and_assaults(run: Run, tmp_path: Path) -> None:
    fire_game, assault_game = tmp_path / "fire.sqlite", tmp_path / "assault.sqlite"
    run("new", str(DATA / "typhoon.yaml"), "--seed", "1", game_file=fire_game)
    shot = as_json(run("fire", "G-TK", "US-TK", "--json", game_file=fire_game))
    run("new", str(DATA / "aggression.yaml"), "--seed", "1", game_file=assault_game)
    assault = as_json(
        run(
            "assault", "US-A", "US-B", "--against", "VG", "--rounds", "1",
            "--set", "retreat.VG=0", "--dice", "99,99,99,99,99,1", "--json",
            game_file=assault_game,
        )
    )  # fmt: skip
    assert [r["stand"] for r in assault["retreated"]] == ["VG"]

    fired = as_json(run("report", "--json", game_file=fire_game))
    assert fired["totals"]["Germany"]["shots"] == 1 and fired["totals"]["USA"]["shots"] == 0
    assert fired["totals"]["USA"]["eliminated"] == int(shot["target_eliminated"])
    [entry] = [e for t in fired["turns"] for e in t["entries"] if e["command"] == "model-fire"]
    assert entry["kind"] == "fire" and entry["text"] == (
        "G-TK fires at US-TK (typhoon): G-TK does not fire this pulse: it failed its "
        "rate-of-fire checks (ToS II.B.3)"
    )

    report = as_json(run("report", "--json", game_file=assault_game))
    germany, usa = report["totals"]["Germany"], report["totals"]["USA"]
    shots = len(assault["combat"][0]["shots"])
    assert germany["shots"] + usa["shots"] == shots
    assert germany["hits"] + usa["hits"] == 0  # every die missed
    assert germany["forced back"] == 1  # VG fell back
    text = run("report", game_file=assault_game).output
    assert (
        "- movement, event 2: US-A, US-B assault VG: USA holds the field after 1 "
        "round: VG retreated"
    ) in text.splitlines()


def test_report_markdown_file_with_the_map_beside_it(battle: Run, tmp_path: Path) -> None:
    out = tmp_path / "battle.md"
    result = battle("report", "--out", str(out))
    assert result.output.startswith(f"Report written to {out}, {tmp_path / 'battle-map.svg'}")
    assert "![The table at the end of the report](battle-map.svg)" in out.read_text().splitlines()
    ET.fromstring((tmp_path / "battle-map.svg").read_bytes())


def test_report_html_embeds_the_map(battle: Run, tmp_path: Path) -> None:
    out = tmp_path / "battle.html"
    battle("report", "--out", str(out))
    page = out.read_text()
    lines = page.splitlines()
    assert lines[0] == "<!DOCTYPE html>" and "<?xml" not in page
    # the map inline; its size attributes follow the drawing, so only the element is checked
    assert sum(line.startswith("<figure><svg ") for line in lines) == 1
    assert "<h2>Totals by side</h2>" in lines and '   <g id="label-G-1">' in lines


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--out", "r.txt"), "Error: --out 'r.txt': name a .md or .html file\n"),
        (("--out", "no/r.md"), "Error: --out 'no/r.md': the folder 'no' does not exist\n"),
    ],
)
def test_report_bad_input(look: Run, args: tuple[str, ...], says: str) -> None:
    result = look("report", *args, code=2)
    assert result.output == says


# --- at the table: completion, colour, tables, light start-up ------------------------------


def completions(args: list[str], incomplete: str) -> list[str]:
    found = ShellComplete(cli, {}, "tabletop", "_TABLETOP_COMPLETE").get_completions(
        args, incomplete
    )
    return [c.value for c in found]


def test_completion_of_commands_stands_weapons_and_views(shared: Path) -> None:
    path = str(shared)
    assert "map" in completions([], "ma")
    assert completions(["fire", "--game", path], "US-") == [
        "US-1", "US-2", "US-3", "US-4", "US-5", "US-S",
    ]  # fmt: skip
    assert completions(["fire", "--game", path, "US-4", "--weapon"], "") == [
        "us-75mm-m2",
        "us-37mm-m6",
    ]
    assert completions(["barrage", "--game", path, "US-5", "--weapon"], "") == ["mortar-81"]
    assert "pak-40" in completions(["fire", "--game", path, "--weapon"], "pak")
    assert completions(["map", "--game", path, "--view"], "") == ["referee", "Germany", "USA"]


def test_completion_after_a_misspelt_option_still_completes(shared: Path) -> None:
    # move refuses '--chek' when run; completing the rest of the line must not.
    args = ["move", "--game", str(shared), "US-1", "1,1", "--chek"]
    assert completions(args, "--fa") == ["--facing", "--fall-back"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_script(runner: CliRunner, shell: str) -> None:
    result = runner.invoke(cli, ["completion", shell, "--json"])
    data = json.loads(result.output)
    assert "_TABLETOP_COMPLETE" in data["script"] and data["shell"] == shell


def test_completion_refuses_an_unknown_shell(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["completion", "tcsh"])
    assert result.exit_code == 2 and result.output == (
        "Error: Invalid value for 'SHELL': 'tcsh' is not one of 'bash', "
        "'zsh', 'fish'. (see 'tabletop completion --help')\n"
    )


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.cli import core

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert core.style("x", bold=True) != "x"
    monkeypatch.setenv("NO_COLOR", "1")
    assert core.style("x", bold=True) == "x"
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert core.style("x", bold=True) == "x"


def test_status_of_the_large_scenario_fits_80_columns(run: Run) -> None:
    run("new", "large", "--seed", "1")
    text = run("status").output
    assert "\x1b[" not in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_fit_table_wraps_the_widest_column() -> None:
    from tabletop.cli.core import fit_table

    rows = [["G-1", "rifle lmg panzerschreck " * 4], ["G-2", "-"]]
    text = fit_table(rows, ["stand", "weapons"], width=40)
    assert max(len(line) for line in text.splitlines()) <= 40
    assert text.splitlines()[2] == "G-1      rifle lmg panzerschreck rifle"


def test_fit_table_never_cuts_a_weapon_id() -> None:
    from tabletop.cli.core import fit_table

    rows = [["G-R-E-1", "forced back (suppressed)", "flamethrower-manpack:spent rifle:depleted"]]
    text = fit_table(rows, ["stand", "status", "weapons"], width=40)
    assert text.splitlines()[2:] == [
        "G-R-E-1  forced back   flamethrower-manpack:spent",
        "         (suppressed)  rifle:depleted",
    ]


def test_a_sides_view_of_the_allies_says_allies_not_allies_s(run: Run) -> None:
    run("new", "large", "--seed", "1")
    text = run("status", "--view", "Allies").output
    assert "Allies' view: enemy spotted now: " in text
    assert "Allies's" not in text


HEAVY = ("shapely", "numpy", "matplotlib", "PIL")


def imported_by(*argvs: list[str]) -> list[str]:
    """The heavy libraries loaded after running these command lines in one fresh process."""
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from tabletop.cli import cli\n"
        f"for args in {list(argvs)!r}:\n"
        "    assert CliRunner().invoke(cli, args).exit_code == 0, args\n"
        f"print(','.join(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [m for m in done.stdout.strip().split(",") if m]


def test_help_imports_no_geometry_plotting_or_imaging_library() -> None:
    assert imported_by(["--help"]) == []


def test_map_and_report_help_do_not_import_matplotlib() -> None:
    assert "matplotlib" not in imported_by(["map", "--help"], ["report", "--help"])


def test_png_map_is_painted_without_matplotlib(shared: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.png"
    loaded = imported_by(["map", "--out", str(out), "--game", str(shared)])
    assert loaded == ["PIL", "numpy", "shapely"]  # the game's geometry, and Pillow to paint
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_svg_map_is_written_without_matplotlib(shared: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.svg"
    loaded = imported_by(["map", "--out", str(out), "--game", str(shared)])
    assert loaded == ["PIL", "numpy", "shapely"]  # Pillow measures the text as the PNG has it
    ET.fromstring(out.read_bytes())


def test_svg_and_png_paint_the_same_steps(games: dict[str, Game]) -> None:
    """The SVG is the PNG's painter on another canvas: every text the PNG paints is an SVG
    text element, in the same order."""
    from tabletop.render import png, svg

    scene = build_scene(games["crossroads"].context(), "t", los=("G-2", "US-2"))
    painted: list[str] = []

    class Recording(png._Painter):
        def text(self, at: Any, text: str, size: float, *args: Any, **kwargs: Any) -> None:
            painted.append(text)

    Recording(scene).paint(lambda _stage: None)
    picture = svg._SvgPainter(scene)
    picture.paint(lambda _stage: None)
    root = ET.fromstring(picture.document())
    texts = [el.text for el in root.iter(f"{SVG_NS}text")]
    assert texts == painted
    assert "blocked: wood-1" in texts and "G-2" in texts and "Wind" in texts
    # the stand's label stays searchable by its id, as the report's embedded map needs
    assert '   <g id="label-G-2">' in picture.document().splitlines()


def test_stand_bases_are_drawn_to_scale(games: dict[str, Game]) -> None:
    ctx = games["crossroads"].context()
    scene = build_scene(ctx, "t")
    g4 = next(s for s in scene.stands if s.id == "G-4")  # 1" x 1", facing 200
    xs, ys = zip(*g4.corners, strict=True)
    side = math.dist(g4.corners[0], g4.corners[1])
    assert side == pytest.approx(1.0) and (sum(xs) / 4, sum(ys) / 4) == pytest.approx((34, 24))


# --- the PNG, painted with Pillow from the same scene as the SVG ----------------------------


def png_of(scene: Any) -> Any:
    from PIL import Image

    from tabletop.render.draw import write

    out = io.BytesIO()
    write(scene, out, "png")
    return Image.open(io.BytesIO(out.getvalue()))


def pixel(image: Any, scene: Any, x: float, y: float) -> tuple[int, int, int]:
    """The colour at table point (x, y): the table is drawn to ``Layout``'s scale."""
    from tabletop.render.layout import LEFT, PNG_DPI, TOP, Layout

    lay = Layout.for_scene(scene)
    px = (LEFT + x * lay.scale) * PNG_DPI
    py = (TOP + (scene.depth - y) * lay.scale) * PNG_DPI
    r, g, b = image.convert("RGB").getpixel((round(px), round(py)))
    return (r, g, b)


def colours_near(image: Any, scene: Any, x: float, y: float) -> set[tuple[int, int, int]]:
    """The colours within two pixels of table point (x, y), for lines a pixel wide."""
    from tabletop.render.layout import LEFT, PNG_DPI, TOP, Layout

    lay = Layout.for_scene(scene)
    px = round((LEFT + x * lay.scale) * PNG_DPI)
    py = round((TOP + (scene.depth - y) * lay.scale) * PNG_DPI)
    picture = image.convert("RGB")
    return {picture.getpixel((px + i, py + j)) for i in range(-2, 3) for j in range(-2, 3)}


def rgb(colour: str) -> tuple[int, int, int]:
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))


def test_png_map_shows_stands_and_terrain_in_their_colours(games: dict[str, Game]) -> None:
    from tabletop.render import style

    scene = build_scene(games["crossroads"].context(), "Crossroads")
    image = png_of(scene)
    # 18.7" x 12.65" at 130 dpi, as matplotlib drew it; a palette of 256 colours.
    assert (image.format, image.mode, image.size) == ("PNG", "P", (2431, 1644))
    assert image.info["Title"] == "Crossroads: turn 1, movement phase, referee view"
    assert pixel(image, scene, 34, 24) == rgb(style.SIDE_COLOURS[0])  # G-4, Germany's blue
    assert pixel(image, scene, 40, 4) == rgb(style.SIDE_COLOURS[1])  # US-3, the USA's red
    assert pixel(image, scene, 8, 11) == rgb(style.TERRAIN["woods"].face)  # inside wood-1
    assert pixel(image, scene, 37, 10) == rgb(style.HILL_LEVELS[0])  # hill-1, level 1
    assert pixel(image, scene, 3, 33) == rgb(style.TABLE_CLOTH)  # open ground
    assert pixel(image, scene, 10, 18) == rgb(style.TERRAIN["road-hard"].face)  # road-1


def test_png_map_draws_the_sight_line_and_what_a_side_knows(games: dict[str, Game]) -> None:
    from tabletop.render import style
    from tabletop.rules.views import LastSeen

    ctx = secret_context(games["crossroads"])
    scene = build_scene(ctx, "t", "Germany", los=("G-2", "US-2"), bands="G-4")
    gone = scene.stands[0]
    gone.status = "eliminated"
    scene.last_seen = [LastSeen("US-9", "USA", "tank", 30.0, 30.0, 1, "movement")]
    image = png_of(scene)
    assert image.size == (2431, 1644)
    # G-2 (10, 24) to US-2 (11, 5): clear until wood-1 (y 16 down to 9) blocks it.
    assert pixel(image, scene, 10 + 5 / 19, 19) == rgb(style.LOS_CLEAR)
    assert rgb(style.SIDE_EDGES[1]) in colours_near(image, scene, 30.6, 30)  # last seen here
    assert rgb(style.SIDE_EDGES[1]) not in colours_near(image, scene, 30, 30)  # a ring: hollow
    # An eliminated stand: a white base hatched across, no longer the side's solid blue.
    assert (255, 255, 255) in colours_near(image, scene, gone.x, gone.y)
    assert rgb(style.SIDE_COLOURS[0]) not in colours_near(image, scene, gone.x, gone.y)


@pytest.mark.parametrize("name", BUNDLED)
def test_png_map_of_every_bundled_scenario(games: dict[str, Game], name: str) -> None:
    from tabletop.render import style
    from tabletop.render.layout import PNG_DPI, Layout

    scene = build_scene(secret_context(games[name]), name)  # hidden things included
    lay = Layout.for_scene(scene)
    image = png_of(scene)
    assert image.size == (round(lay.fig_w * PNG_DPI), round(lay.fig_h * PNG_DPI))
    assert pixel(image, scene, 1.3, 3.7) == rgb(style.TERRAIN["bridge"].face)  # the wired span


def test_a_report_of_a_fresh_game_counts_one_event(game: Run) -> None:
    lines = game("report").output.splitlines()
    assert [line for line in lines if line.startswith("Scenario ")] == [
        "Scenario crossroads.yaml, dice seed 1. 1 event in the log. The game now stands at "
        "turn 1, movement phase."
    ]


def test_a_report_counts_one_die_in_the_singular(game: Run) -> None:
    game("roll", "d10", "--dice", "4")
    lines = game("report").output.splitlines()
    assert [line[:40] for line in lines if " rolled: " in line] == [
        "1 die rolled: 1 physical (thrown at the "
    ]


def test_a_turns_summary_says_one_shot_and_two_stands() -> None:
    from tabletop.render.report import _turn_summary

    assert _turn_summary({"shots": 1, "hits": 1, "eliminated": 2, "depletion checks": 1}) == (
        "In all: 1 shot, 1 hit scored, 2 stands lost, 1 depletion die."
    )


def _boundary_event(happened: list[dict[str, Any]]) -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(
        seq=9, turn=2, phase="morale", command="turn-next", inputs={}, result={"happened": happened}
    )


def test_a_failed_resupply_check_is_not_counted_as_a_resupply() -> None:
    from tabletop.render.report import _entries, _Tally

    tally = _Tally(["Germany", "USA"], {"G-4": "Germany", "G-5": "Germany", "US-4": "USA"})
    far = 'nearest supply point G-S is 9.0" away (needs 6", CD 1.4)'
    entries = _entries(
        _boundary_event(
            [
                {"what": "resupply", "stand": "G-4", "result": far, "restored": []},
                {"what": "resupply", "stand": "G-5", "result": far},  # logged before 'restored'
                {
                    "what": "resupply",
                    "stand": "US-4",
                    "result": 'resupplied us-37mm-m6 from US-S (2.0")',
                    "restored": ["us-37mm-m6"],
                },
            ]
        ),
        tally,
    )
    assert [e.text for e in entries] == [
        f"resupply: G-4: {far}",
        f"resupply: G-5: {far}",
        'resupply: US-4: resupplied us-37mm-m6 from US-S (2.0")',
    ]
    assert tally.totals["Germany"]["resupplied"] == 0
    assert tally.totals["USA"]["resupplied"] == 1
    assert tally.by_turn == {2: {"resupplied": 1}}


def test_one_boundary_is_reported_in_the_turn_it_was_typed_in() -> None:
    from tabletop.render.report import _entries, _Tally

    tally = _Tally(["Germany", "USA"], {"G-4": "Germany"})
    entries = _entries(
        _boundary_event(
            [
                {
                    "what": "depletion check",
                    "stand": "G-4",
                    "weapon": "pak-36",
                    "rolls": [2],
                    "result": "depleted (rolled 2 <= 3, CD 1.2)",
                },
                {"what": "turn", "result": "turn 3 begins"},
                {"what": "variable wind", "result": "no change (CD 10.1.3)", "rolls": [2]},
            ]
        ),
        tally,
    )
    assert [(e.turn, e.text) for e in entries] == [
        (2, "depletion check: G-4 pak-36: depleted (rolled 2 <= 3, CD 1.2)"),
        (2, "turn 3 begins: variable wind: no change (CD 10.1.3)"),
    ]
    assert tally.by_turn == {2: {"depletion checks": 1, "depleted": 1}}


def test_a_sides_report_of_fire_from_a_stand_it_never_saw_names_no_firer() -> None:
    from types import SimpleNamespace

    from tabletop.render.report import _entries, _Tally

    tally = _Tally(["Germany", "USA"], {"US-1": "USA"})
    barrage = SimpleNamespace(
        seq=7,
        turn=2,
        phase="artillery",
        command="barrage",
        inputs={"at": [18.0, 6.0]},
        result={
            "verdict": "howitzer-105 burst at 18,6: 1 stand under, hits on US-1 (suppressed)",
            "hits": {"US-1": 1},
            "effects": {"US-1": "suppressed"},
        },
    )
    fire = SimpleNamespace(
        seq=9,
        turn=2,
        phase="fire",
        command="fire",
        inputs={"target": "US-1"},
        result={"target": "US-1", "verdict": "miss: pak-40 on US-1", "hits": 0, "effects": []},
    )
    assert [e.text for e in _entries(barrage, tally) + _entries(fire, tally)] == [
        "a stand not seen: howitzer-105 burst at 18,6: 1 stand under, hits on US-1 "
        "(suppressed) (US-1 suppressed)",
        "a stand not seen fires at US-1: miss: pak-40 on US-1",
    ]
    assert tally.totals["USA"]["suppressed"] == 1
    assert tally.by_turn == {2: {"suppressed": 1}}
