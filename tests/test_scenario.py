"""Scenario files (SPEC 6): the bundled ones, every kind of mistake, and `tabletop new`."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import Run, as_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.core.errors import BadInput, ScenarioError
from tabletop.data.chart_files import load_charts
from tabletop.data.charts import CHART_SCHEMAS, Charts
from tabletop.data.resources import bundled_scenario, scenarios_dir
from tabletop.data.scenario import LoadedScenario, Scenario, StandSpec, rebuild_scenario
from tabletop.data.scenario_loader import parse_scenario, read_scenario
from tabletop.rules.models import find_model, model_names, profile_lookup
from tabletop.setup.svg import read_svg

SOURCE = "battle.yaml"
BUNDLED = ("crossroads", "large", "roer")

# The smallest scenario with every kind of item; the broken cases below each change one
# thing in it, so the line numbers in their messages are the line numbers here.
MINIMAL = """\
format: 1
name: Test
table: {width: 48, depth: 36}
terrain:
- {id: wood-1, kind: woods, polygon: [[6, 10], [14, 9], [16, 13], [7, 15]]}
- {id: road-1, kind: road-hard, line: [[0, 18], [48, 18]], width: 1}
sides:
- name: Germany
  formations:
  - {id: II/86, kind: battalion}
  - {id: 6/II/86, kind: company, parent: II/86}
  stands:
  - {id: G-1, kind: infantry, quality: regular, formation: 6/II/86, weapons: [rifle], at: [18, 27]}
- name: USA
  formations:
  - {id: 2/26, kind: battalion}
  stands:
  - {id: US-1, kind: infantry, formation: 2/26, weapons: [rifle], at: [18, 6]}
"""

# Stand keys grow as rule areas add optional fields; the message lists them all.
STAND_KEYS = ", ".join(f.metadata.get("key", f.name) for f in dataclasses.fields(StandSpec))
STAND_KIND_LIST = ", ".join(sorted(load_charts().stand_kinds))
TERRAIN_KIND_LIST = ", ".join(sorted(load_charts().terrain))
TOP_KEYS = (
    "format, name, table, measure, model, turn, conditions, charts, terrain, weapons, sides, "
    "minefields"
)
TYPHOON_PROFILES = find_model("typhoon", load_charts()).profiles()
PAK_37 = (
    "{id: pak-37, calibre_mm: 37, rof: 1, to_hit: {close: 7, medium: 5, long: 3}, "
    "ranges: {close: 10, medium: 20, long: 40}}"
)


def unlisted(message: str) -> str:
    """A message with its list of accepted names cut to '...': the lists grow with the program."""
    return re.sub(r"\((accepted|known): [^)]*\)", r"(\1: ...)", message)


def edit(*changes: tuple[str, str], text: str = MINIMAL) -> str:
    """MINIMAL with each ``old`` (which must occur exactly once) replaced by ``new``."""
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def problems_of(text: str, **kwargs: object) -> list[str]:
    """Every problem ``parse_scenario`` reports for ``text`` (it must report some)."""
    try:
        kwargs.setdefault("profiles", profile_lookup)
        parse_scenario(text, SOURCE, **kwargs)  # type: ignore[arg-type]
    except ScenarioError as exc:
        assert str(exc).startswith(exc.problems[0] if len(exc.problems) == 1 else "")
        return exc.problems
    except BadInput as exc:
        return [str(exc)]
    raise AssertionError("the scenario was accepted")


# --- the bundled scenarios ------------------------------------------------------------------


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_scenarios_validate(name: str) -> None:
    loaded = read_scenario(bundled_scenario(name))
    assert isinstance(loaded, LoadedScenario)
    assert loaded.source == f"{name}.yaml"
    assert loaded.text == bundled_scenario(name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", BUNDLED)
def test_a_games_trusted_rebuild_equals_the_checked_build(name: str) -> None:
    # A game rebuilds its scenario and charts from its stored JSON without the checks
    # (schema.build_trusted); the objects must be those the checks built, floats and all
    # (repr tells 1 from 1.0, which == does not).
    checked = read_scenario(bundled_scenario(name))
    stored_data = json.loads(json.dumps(checked.data))
    stored_charts = json.loads(json.dumps(checked.charts.raw))
    rebuilt = rebuild_scenario(checked.text, checked.source, stored_charts, stored_data)
    assert repr(rebuilt.scenario) == repr(checked.scenario)
    for chart in CHART_SCHEMAS:
        assert repr(rebuilt.charts.table(chart)) == repr(checked.charts.table(chart)), chart


def test_every_scenario_file_is_bundled_by_name() -> None:
    names = sorted(p.stem for p in scenarios_dir().glob("*.yaml"))
    assert names == list(BUNDLED)


def test_the_large_scenario_is_large() -> None:
    sc: Scenario = read_scenario(bundled_scenario("large")).scenario
    assert len(sc.stand_specs()) >= 120
    assert len(sc.terrain) >= 60
    kinds = [p.kind for p in sc.terrain]
    assert "river" in kinds
    assert "hill" in kinds
    assert any(k.startswith("road-") for k in kinds)
    bridges = [p for p in sc.terrain if p.kind == "bridge"]
    assert bridges
    assert all(b.weight_class is not None for b in bridges)
    assert len(sc.sides) == 2
    for side in sc.sides:
        battalions = [f for f in side.formations if f.kind == "battalion"]
        assert len(battalions) == 2, side.name


# The example in SPEC 6, as printed there.
SPEC_EXAMPLE = """\
format: 1
name: Crossing at Hill 112
table: {width: 72, depth: 48}         # inches
measure: edge                         # edge (default) or centre
model: cd                             # default resolution model
turn: {number: 1, phase: movement}    # optional starting point
conditions:
  light: day                          # day | twilight | night-moonlit | night-dark
  weather: clear
  dusty: false
  wind: {from: 3, force: light}       # 1..8 on the wind chart; light | moderate | high
  ground: dry
terrain:
  - {id: wood-1, kind: woods, polygon: [[10, 10], [20, 10], [20, 18], [10, 18]]}
  - {id: road-1, kind: road-hard, line: [[0, 24], [72, 24]], width: 1}
  - {id: hill-1, kind: hill, polygon: [[40, 30], [50, 30], [50, 40], [40, 40]], height: 1}
weapons:
  - {id: pak-37, calibre_mm: 37, rof: 1, to_hit: {close: 7, medium: 5, long: 3},
     ranges: {close: 10, medium: 20, long: 40}}
sides:
  - name: Germany
    formations:                       # a tree; supply points belong to a formation
      - {id: II/125, kind: battalion, parent: null}
      - {id: 5/II/125, kind: company, parent: II/125}
    stands:
      - {id: G-1, kind: infantry, quality: regular, formation: 5/II/125, weapons: [rifle],
         at: [12, 5], facing: 0}
      - {id: G-2, kind: towed-gun, quality: veteran, formation: 5/II/125, weapons: [pak-37]}
      - {id: G-S, kind: supply, formation: II/125}
"""


def test_the_spec_example_is_valid() -> None:
    loaded = parse_scenario(SPEC_EXAMPLE, "hill112.yaml")
    sc = loaded.scenario
    assert [s.id for _, s in sc.stand_specs()] == ["G-1", "G-2", "G-S"]
    assert sc.stand_spec("G-2").at is None
    assert sc.piece("hill-1").height == 1
    assert loaded.charts.weapons["pak-37"].ranges.long == 40


def test_minimal_scenario_is_valid_and_fills_defaults() -> None:
    sc = parse_scenario(MINIMAL, SOURCE).scenario
    assert sc.measure == "edge"
    assert sc.model == "cd"
    assert (sc.turn.number, sc.turn.phase) == (1, "movement")
    assert sc.conditions.light == "day"
    assert (sc.conditions.wind.from_, sc.conditions.wind.force) == (3, "light")
    assert sc.stand_spec("US-1").quality == "regular"
    assert sc.stand_spec("G-1").at == (18.0, 27.0)
    assert sc.side_names() == ["Germany", "USA"]
    assert sc.piece("road-1").width == 1.0


def test_yaml_anchors_and_merge_keys_work() -> None:
    text = edit(
        (
            "  - {id: G-1, kind: infantry,",
            "  - &rifles {id: G-1, kind: infantry,",
        ),
        ("- name: USA", "  - {<<: *rifles, id: G-2, at: [20, 27]}\n- name: USA"),
    )
    sc = parse_scenario(text, SOURCE).scenario
    g2 = sc.stand_spec("G-2")
    assert (g2.kind, g2.quality, g2.formation, g2.weapons) == (
        "infantry", "regular", "6/II/86", ("rifle",)
    )  # fmt: skip
    assert g2.at == (20.0, 27.0)


def test_a_date_or_a_number_is_text_where_text_is_wanted() -> None:
    text = edit(("name: Test", "name: 1943-07-10"), ("id: US-1", "id: 101"))
    sc = parse_scenario(text, SOURCE).scenario
    assert sc.name == "1943-07-10"
    assert sc.stand_spec("101").kind == "infantry"


def test_aliases_of_aliases_are_bounded() -> None:
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for i in range(1, 8):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    text = MINIMAL.replace("format: 1\n", "format: 1\n" + "\n".join(lines) + "\n")
    assert problems_of(text) == [
        f"{SOURCE}: more than 200000 values once its aliases (*name) are expanded; write the "
        "values out, or use fewer aliases of aliases"
    ]


def test_scenario_is_frozen() -> None:
    import dataclasses

    sc = parse_scenario(MINIMAL, SOURCE).scenario
    with pytest.raises(dataclasses.FrozenInstanceError):
        sc.name = "changed"  # type: ignore[misc]


# Both sides advance on the ford in the middle of the river for three turns (mud-light
# halves every move): the US tank and the German rifle platoon meet in the ford in turn 3's
# movement phase, bases touching, and fight there (issue 30: the large table reaches contact).
LARGE_ADVANCE = [
    "move US-2-1-3 72.2,33.9",
    "move US-2-A-1 71.25,30.5 --via 71.05,25",
    "move G-2-1-3 71.5,46.7",
    "move G-2-A-1 71.5,49 --via 71.5,55.7",
    *["phase next"] * 3,
    "turn next --yes",
    *["phase next"] * 2,
    "move US-2-1-3 72.7,36.8",
    "move US-2-A-1 73.5,39 --via 71.4,33 --via 73.5,38",
    "move G-2-1-3 73,44.3 --via 71.5,46",
    "move G-2-A-1 73.8,46.6 --via 71.5,46",
    *["phase next"] * 3,
    "turn next --yes",
    *["phase next"] * 2,
    "move G-2-1-3 73,43.2",
    "move US-2-A-1 73.5,41.8",
    "move US-2-1-3 72.4,39.6",
    "measure US-2-A-1 G-2-1-3",
    *["phase next"] * 2,
    "fire US-2-A-1 G-2-1-3",
    "assault US-2-A-1 --against G-2-1-3 --odds",
]


def test_the_large_scenario_reaches_contact_by_turn_3(run: Run) -> None:
    run("new", "large", "--seed", "1")
    out = run("play", input="\n".join(LARGE_ADVANCE) + "\n").output
    assert "Error" not in out
    assert 'US-2-A-1 moves 2.80" to 73.50,41.80 for 9.33" of its 12"' in out
    assert "ford ford-2 at 73.5,40.872: fords river-1 at ford-2 (CD 2)" in out
    assert 'US-2-A-1 -> G-2-1-3: 0.0" at bearing 340, sight clear' in out
    assert 'US-2-A-1 fires us-75mm-m3 at G-2-1-3: 0.0" (close)' in out
    assert "  holds the field: Allies 58.9%, Germany 41.1%," in out


# --- roer: built from a drawing and a roster (issue 30) -------------------------------------


def test_the_roer_scenarios_terrain_is_what_its_drawing_gives(charts: Charts) -> None:
    data = yaml.safe_load(bundled_scenario("roer").read_text(encoding="utf-8"))
    drawn = read_svg(scenarios_dir() / "roer.svg", list(charts.terrain), None)
    assert (drawn.width, drawn.depth) == (data["table"]["width"], data["table"]["depth"])
    assert data["terrain"] == list(drawn.pieces)
    assert drawn.left_out == (
        "'north-arrow': no terrain kind in its label, its layer's label or its class",
    )


def roster_stand(row: dict[str, str]) -> dict[str, object]:
    """A roster line as the scenario's stand entry (SPEC 3: ``scenario stands --csv``)."""

    def number(text: str) -> float | int:
        value = float(text)
        return int(value) if value == int(value) else value

    stand: dict[str, object] = {"id": row["id"], "kind": row["kind"]}
    if row["quality"]:
        stand["quality"] = row["quality"]
    stand["formation"] = row["formation"]
    weapons = re.split(r"[;\s]+", row["weapons"].strip())
    if weapons != [""]:
        stand["weapons"] = weapons
    if row["x"]:
        stand["at"] = [number(row["x"]), number(row["y"])]
    if row["facing"]:
        stand["facing"] = number(row["facing"])
    return stand


def test_the_roer_scenarios_stands_are_its_roster() -> None:
    data = yaml.safe_load(bundled_scenario("roer").read_text(encoding="utf-8"))
    with (scenarios_dir() / "roer-roster.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == [
        "id", "side", "kind", "quality", "weapons", "formation", "x", "y", "facing"
    ]  # fmt: skip
    for side in data["sides"]:
        expected = [roster_stand(row) for row in rows if row["side"] == side["name"]]
        assert side["stands"] == expected, side["name"]
    assert sorted({row["side"] for row in rows}) == sorted(s["name"] for s in data["sides"])


# Night, mud and minefields in three turns: a tank advancing rolls to mire in the mud, the
# night's orders reach 3", the Germans see nothing at 4" under the moon, and the US platoon on
# the road stops on a real minefield that attacks it in the opportunity fire phase.
ROER_TURNS = [
    "move US-2 24.4,17.3",
    "move US-7 33,14",
    "targets G-2",
    *["phase next"] * 3,
    "turn next --yes",
    *["phase next"] * 2,
    "move US-2 24.4,19.8",
    "phase next",
    "minefield list",
]


def test_the_roer_scenario_plays_night_mud_and_minefields(run: Run) -> None:
    out = run("new", "roer", "--seed", "1").output
    assert "20 stands, turn 1, movement phase" in out
    out = run("play", input="\n".join(ROER_TURNS) + "\n").output
    assert "Error" not in out
    for line in (
        'US-7 moves 3.00" to 33.00,14.00 for 12.00" of its 12" (event 3)',
        '  3.00" open: x4 = 12.00" (CD core (default); CD 11.1.2)',
        "  miring US-7 at 33,14: mires on 1 or less (open in mud-moderate): not mired (CD 11.1.4)",
        "G-2 sees no enemy stand now",
        '  night orders: orders reach 3"; no rally orders (CD 9.1.5)',
        "  minefield mf-1 at 24.4,18.767: real: stopped on it, 1 attack in the opportunity fire "
        "phase (CD 3.2)",
        "  minefield attack: US-2: 1 hit: eliminated (CD 3.2)",
        "mf-1: Germany real at 24.4,19.8 (revealed)",
    ):
        assert line in out.splitlines(), line


# --- broken scenarios: one problem each, with file:line and path -----------------------------

BROKEN = [
    pytest.param(
        edit(("at: [18, 27]}", "at: [18, 27]")),
        f"{SOURCE}:14: not valid YAML: did not find expected ',' or '}}'",
        id="broken-yaml",
    ),
    pytest.param(
        edit(("name: Test\n", "name: Test\nname: Again\n")),
        f"{SOURCE}:3: name: key 'name' is given twice (first on line 2); give each key once",
        id="key-given-twice",
    ),
    pytest.param(
        edit(("at: [18, 27]}", "at: [18, 27], at: [1, 1]}")),
        f"{SOURCE}:13: sides[0].stands[0].at: key 'at' is given twice (first on line 13); "
        "give each key once",
        id="stand-key-given-twice",
    ),
    pytest.param(
        edit(("name: Test", "name: " + "[" * 100 + "]" * 100)),
        f"{SOURCE}:2: nested more than 64 levels deep (a chart or scenario needs only a few)",
        id="deeply-nested",
    ),
    pytest.param(
        edit(("name: Test", "name: " + "[" * 100_000 + "]" * 100_000)),
        f"{SOURCE}:2: nested more than 64 levels deep (a chart or scenario needs only a few)",
        id="nested-deeper-than-the-c-stack",
    ),
    pytest.param(
        edit(("name: Test", "name: &loop [*loop]")),
        f"{SOURCE}:2: nested more than 64 levels deep through an alias (*name) that refers "
        "to itself",
        id="alias-inside-itself",
    ),
    pytest.param(
        edit(("name: Test", "? [Test]\n: 1")),
        f"{SOURCE}:2: not valid YAML: found unhashable key",
        id="list-as-key",
    ),
    pytest.param(
        edit(("name: Test", "name: !!python/object:os.system echo")),
        f"{SOURCE}:2: not valid YAML: could not determine a constructor for the tag "
        "'tag:yaml.org,2002:python/object:os.system'",
        id="python-tag",
    ),
    pytest.param(
        edit(("name: Test\n", "name: Test\nterain: []\n")),
        f"{SOURCE}:3: terain: unknown key 'terain' (accepted: {TOP_KEYS}); did you mean 'terrain'?",
        id="unknown-top-level-key",
    ),
    pytest.param(
        edit(("at: [18, 27]}", "at: [18, 27], facng: 90}")),
        f"{SOURCE}:13: sides[0].stands[0].facng: unknown key 'facng' (accepted: {STAND_KEYS}); "
        "did you mean 'facing'?",
        id="unknown-stand-key",
    ),
    pytest.param(
        edit(("width: 48,", "width: wide,")),
        f"{SOURCE}:3: table.width: expected a number, got 'wide'",
        id="string-table-width",
    ),
    pytest.param(
        edit(("name: Test", "name: [Test, Two]")),
        f"{SOURCE}:2: name: expected text, got ['Test', 'Two']",
        id="list-name",
    ),
    pytest.param(
        edit(("format: 1", "format: 2")),
        f"{SOURCE}:1: format: 2 is not accepted (accepted: 1)",
        id="format-2",
    ),
    pytest.param(
        edit(("id: G-1, kind: infantry", "id: G-1, kind: infantri")),
        f"{SOURCE}:13: sides[0].stands[0].kind: unknown stand kind 'infantri' (known: "
        f"{STAND_KIND_LIST}); did you mean 'infantry'?",
        id="unknown-stand-kind",
    ),
    pytest.param(
        edit(("quality: regular", "quality: regullar")),
        f"{SOURCE}:13: sides[0].stands[0].quality: unknown quality 'regullar' (known: elite, "
        "experienced, green, regular, trained, veteran); did you mean 'regular'?",
        id="unknown-quality",
    ),
    pytest.param(
        edit(("weapons: [rifle], at: [18, 6]", "weapons: [rifel], at: [18, 6]")),
        f"{SOURCE}:18: sides[1].stands[0].weapons[0]: unknown weapon 'rifel' (known: apd, "
        "at-37mm-m3, at-45mm, at-57mm-m1, battleship, bazooka, bofors-40, destroyer, "
        "destroyer-escort, f-34-76, flak-38, flak-88, flamethrower-crocodile, "
        "flamethrower-manpack, flamethrower-vehicle, gun-17pdr, gun-25pdr, heavy-cruiser, "
        "hmg-m1917, hmg-mg34, howitzer-105, howitzer-150, howitzer-152, howitzer-155, "
        "infantry-gun-75, katyusha-bm13, kwk-20, kwk-37, kwk-50, kwk-75-long, ...); "
        "did you mean 'rifle'?",
        id="unknown-weapon",
    ),
    pytest.param(
        edit(("kind: woods", "kind: wods")),
        f"{SOURCE}:5: terrain[0].kind: unknown terrain kind 'wods' (known: "
        f"{TERRAIN_KIND_LIST}); did you mean 'woods'?",
        id="unknown-terrain-kind",
    ),
    pytest.param(
        edit(("[[6, 10], [14, 9], [16, 13], [7, 15]]", "[[0, 0], [10, 10], [10, 0], [0, 10]]")),
        f"{SOURCE}:5: terrain[0].polygon: not a valid polygon: Self-intersection[5 5]",
        id="self-intersecting-polygon",
    ),
    pytest.param(
        edit(("[[6, 10], [14, 9], [16, 13], [7, 15]]", "[[6, 10], [14, 9]]")),
        f"{SOURCE}:5: terrain[0].polygon: a polygon needs at least 3 corners, got 2",
        id="polygon-with-2-points",
    ),
    pytest.param(
        edit((", width: 1}", "}")),
        f"{SOURCE}:6: terrain[1]: a line needs a 'width' (inches)",
        id="line-without-width",
    ),
    pytest.param(
        edit(("kind: woods, polygon:", "kind: woods, line: [[0, 0], [5, 5]], polygon:")),
        f"{SOURCE}:5: terrain[0]: give either 'polygon' (an area) or 'line' (with a 'width'), "
        "not both",
        id="polygon-and-line",
    ),
    pytest.param(
        edit(
            (
                "{id: wood-1, kind: woods, polygon: [[6, 10], [14, 9], [16, 13], [7, 15]]}",
                "{id: wood-1, kind: woods}",
            )
        ),
        f"{SOURCE}:5: terrain[0]: missing its shape: give 'polygon' (an area) or 'line' "
        "(with a 'width')",
        id="neither-polygon-nor-line",
    ),
    pytest.param(
        edit(("width: 1}", "width: 1, height: 1}")),
        f"{SOURCE}:6: terrain[1].height: a road-hard has no height (it never blocks sight)",
        id="height-on-a-road",
    ),
    pytest.param(
        edit(("line: [[0, 18], [48, 18]], width: 1", "polygon: [[0, 18], [48, 18], [48, 19]]")),
        f"{SOURCE}:6: terrain[1].polygon: a road-hard is drawn as a 'line' with a 'width'",
        id="road-as-polygon",
    ),
    pytest.param(
        edit(("kind: woods, polygon", "kind: woods, width: 1, line")),
        f"{SOURCE}:5: terrain[0].line: a woods is drawn as a 'polygon'",
        id="woods-as-line",
    ),
    pytest.param(
        edit(("[[0, 18], [48, 18]]", "[[0, 18]]")),
        f"{SOURCE}:6: terrain[1].line: a line needs at least 2 points, got 1",
        id="line-with-1-point",
    ),
    pytest.param(
        edit(("name: USA", "name: referee")),
        f"{SOURCE}:14: sides[1].name: 'referee' is reserved for the referee's view",
        id="side-named-referee",
    ),
    pytest.param(
        edit(("weapons: [rifle], at: [18, 6]", "weapons: [rifle, rifle], at: [18, 6]")),
        f"{SOURCE}:18: sides[1].stands[0].weapons[1]: 'rifle' is listed twice; "
        "list each weapon once",
        id="weapon-listed-twice",
    ),
    pytest.param(
        edit(("at: [18, 6]", "at: [18, 6], facing: 400")),
        f"{SOURCE}:18: sides[1].stands[0].facing: 400 is too large (at most 360)",
        id="facing-400",
    ),
    pytest.param(
        edit(("{id: 2/26, kind: battalion}", "{id: 2/26, kind: batallion}")),
        f"{SOURCE}:16: sides[1].formations[0].kind: 'batallion' is not accepted (accepted: "
        "division, brigade, regiment, battalion, company, platoon); did you mean 'battalion'?",
        id="formation-kind",
    ),
    pytest.param(
        edit(("at: [18, 6]", "at: [18, 36.5]")),
        f"{SOURCE}:18: sides[1].stands[0].at: (18, 36.5) is off the 48 x 36 table",
        id="stand-off-table",
    ),
    pytest.param(
        edit(("at: [18, 6]", "at: [-1, 6]")),
        f"{SOURCE}:18: sides[1].stands[0].at: (-1, 6) is off the 48 x 36 table",
        id="stand-off-table-west",
    ),
    pytest.param(
        edit(("[16, 13]", "[60, 13]")),
        f"{SOURCE}:5: terrain[0].polygon[2]: point (60, 13) is off the 48 x 36 table",
        id="terrain-point-off-table",
    ),
    pytest.param(
        edit(("[[0, 18], [48, 18]]", "[[0, 18], [48, 18], [48, -2]]")),
        f"{SOURCE}:6: terrain[1].line[2]: point (48, -2) is off the 48 x 36 table",
        id="line-point-off-table",
    ),
    pytest.param(
        edit(("parent: II/86", "parent: II/87")),
        f"{SOURCE}:11: sides[0].formations[1].parent: parent 'II/87' is not a formation of side "
        "'Germany' (its formations: 6/II/86, II/86; or null for the top)",
        id="dangling-parent",
    ),
    pytest.param(
        edit(("{id: II/86, kind: battalion}", "{id: II/86, kind: battalion, parent: II/86}")),
        f"{SOURCE}:10: sides[0].formations[0].parent: formation 'II/86' is its own ancestor "
        "(II/86 -> II/86); the top formation has parent null",
        id="formation-own-parent",
    ),
    pytest.param(
        edit(("formation: 2/26, weapons", "formation: 6/II/86, weapons")),
        f"{SOURCE}:18: sides[1].stands[0].formation: formation '6/II/86' belongs to another "
        "side (formations of 'USA': 2/26)",
        id="formation-of-other-side",
    ),
    pytest.param(
        edit(("formation: 6/II/86, weapons", "formation: 6/II/68, weapons")),
        f"{SOURCE}:13: sides[0].stands[0].formation: unknown formation '6/II/68' (known: "
        "6/II/86, II/86); did you mean '6/II/86'?",
        id="unknown-formation",
    ),
    pytest.param(
        edit(("id: US-1", "id: G-1")),
        f"{SOURCE}:18: sides[1].stands[0].id: duplicate id 'G-1' (already used by a stand)",
        id="duplicate-stand-id",
    ),
    pytest.param(
        edit(("id: US-1", "id: road-1")),
        f"{SOURCE}:18: sides[1].stands[0].id: duplicate id 'road-1' (already used by a "
        "terrain piece)",
        id="stand-id-of-terrain",
    ),
    pytest.param(
        edit(("name: USA", "name: Germany")),
        f"{SOURCE}:14: sides[1].name: 'Germany' is the name of another side too",
        id="duplicate-side-name",
    ),
    pytest.param(
        MINIMAL + "turn: {number: 2, phase: movment}\n",
        f"{SOURCE}:19: turn.phase: unknown phase 'movment' (known: artillery, command, fire, "
        "morale, movement, opportunity-fire); did you mean 'movement'?",
        id="unknown-turn-phase",
    ),
    pytest.param(
        MINIMAL + "conditions:\n  wind: {from: 9, force: high}\n",
        f"{SOURCE}:20: conditions.wind.from: 9 is too large (at most 8)",
        id="wind-from-9",
    ),
    pytest.param(
        MINIMAL + "conditions: {ground: mud}\n",
        f"{SOURCE}:19: conditions.ground: 'mud' is not accepted (accepted: dry, mud-light, "
        "mud-moderate, mud-deep, snow, snow-deep, ice)",
        id="unknown-ground",
    ),
    pytest.param(
        MINIMAL + "measure: center\n",
        f"{SOURCE}:19: measure: 'center' is not accepted (accepted: edge, centre); "
        "did you mean 'centre'?",
        id="measure-center",
    ),
    pytest.param(
        MINIMAL + "model: tyfoon\n",
        f"{SOURCE}:19: model: unknown model 'tyfoon' (known: aggression, cd, mech-brigade, "
        "squad-battles, typhoon); did you mean 'typhoon'?",
        id="unknown-model",
    ),
    pytest.param(
        edit(("width: 48,", "width: .nan,")),
        f"{SOURCE}:3: table.width: expected a finite number, got nan",
        id="nan-width",
    ),
    pytest.param(
        edit(("at: [18, 27]", "at: [.inf, 27]")),
        f"{SOURCE}:13: sides[0].stands[0].at[0]: expected a finite number, got inf",
        id="inf-coordinate",
    ),
    pytest.param(
        edit(("at: [18, 27]}", "at: [18, 27], facing: -.inf}")),
        f"{SOURCE}:13: sides[0].stands[0].facing: expected a finite number, got -inf",
        id="minus-inf-facing",
    ),
    pytest.param(
        edit(("at: [18, 27]", "at: [18, 27, 1]")),
        f"{SOURCE}:13: sides[0].stands[0].at: expected 2 values, got 3",
        id="three-coordinates",
    ),
    pytest.param(
        edit(("width: 1}", "width: 1, weight_class: VII}")),
        f"{SOURCE}:6: terrain[1].weight_class: 'VII' is not accepted (accepted: I, II, III, IV, "
        "V, VI); did you mean 'VI'?",
        id="weight-class-VII",
    ),
    pytest.param(
        edit(("name: Test\n", "")),
        f"{SOURCE}:1: missing required key 'name'",
        id="missing-name",
    ),
    pytest.param(
        MINIMAL.split("sides:")[0] + "sides: {a: 1}\n",
        f"{SOURCE}:7: sides: expected a list of mappings, got {{'a': 1}}",
        id="sides-not-a-list",
    ),
    pytest.param(
        "",
        f"{SOURCE}: the file is empty; a scenario is a mapping of keys (format, name, table, "
        "sides, ...)",
        id="empty-file",
    ),
    pytest.param(
        "# only a comment\n",
        f"{SOURCE}: the file is empty; a scenario is a mapping of keys (format, name, table, "
        "sides, ...)",
        id="only-a-comment",
    ),
    pytest.param(
        "- format: 1\n- name: Test\n",
        f"{SOURCE}:1: a scenario is a mapping of keys (format, name, table, sides, ...), "
        "not a list",
        id="yaml-list",
    ),
    pytest.param(
        "crossroads\n",
        f"{SOURCE}:1: a scenario is a mapping of keys (format, name, table, sides, ...), "
        "not 'crossroads'",
        id="yaml-text",
    ),
    pytest.param(
        MINIMAL + f"weapons:\n  - {PAK_37.replace('rof: 1', 'rof: 0')}\n",
        f"{SOURCE}:20: weapons[0].rof: 0 is too small (at least 1)",
        id="bad-scenario-weapon",
    ),
    pytest.param(
        MINIMAL + f"weapons:\n  - {PAK_37.replace('id: pak-37', 'id: [pak-37]')}\n",
        f"{SOURCE}:20: weapons[0].id: expected text, got ['pak-37']",
        id="scenario-weapon-id-a-list",
    ),
    pytest.param(
        MINIMAL + f"weapons:\n  - {PAK_37}\n  - {PAK_37}\n",
        f"{SOURCE}:21: weapons[1].id: duplicate weapon id 'pak-37'",
        id="duplicate-scenario-weapon",
    ),
    pytest.param(
        edit(("at: [18, 6]}", "at: [18, 6], profiles: {typhoon: M4A9}}")),
        f"{SOURCE}:18: sides[1].stands[0].profiles.typhoon: unknown typhoon profile 'M4A9' "
        f"(known: {', '.join(sorted(TYPHOON_PROFILES))}); did you mean 'M4A1'?",
        id="unknown-profile",
    ),
    pytest.param(
        edit(("at: [18, 6]}", "at: [18, 6], profiles: {mech_brigade: M60A3}}")),
        f"{SOURCE}:18: sides[1].stands[0].profiles.mech_brigade: 'mech_brigade' is not an "
        "alternative model with profiles (models: mech-brigade, typhoon, squad-battles, "
        "aggression); did you mean 'mech-brigade'?",
        id="profile-of-an-unknown-model",
    ),
    pytest.param(
        edit(("at: [18, 6]}", "at: [18, 6], craft: barge}")),
        f"{SOURCE}:18: sides[1].stands[0].craft: unknown landing craft type 'barge' (known: "
        "amphibious, landing-craft, lvt, raft, whaleboat)",
        id="unknown-craft",
    ),
    pytest.param(
        edit(("at: [18, 6]}", "at: [18, 6], craft: destroyer}")),
        f"{SOURCE}:18: sides[1].stands[0].craft: 'destroyer' is a warship's weapon, not a "
        "landing craft: give the ship 'weapons: [destroyer]' for naval fire (CD 8.4)",
        id="warship-as-craft",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BROKEN)
def test_broken_scenario_reports_its_problem(text: str, expected: str) -> None:
    assert problems_of(text) == [expected]


@pytest.mark.parametrize(("text", "expected"), BROKEN)
def test_every_problem_is_one_line(text: str, expected: str) -> None:
    for problem in problems_of(text):
        assert "\n" not in problem
        assert problem.startswith(SOURCE)


def test_formation_cycle_names_each_formation_in_it() -> None:
    text = edit(("{id: II/86, kind: battalion}", "{id: II/86, kind: battalion, parent: 6/II/86}"))
    assert problems_of(text) == [
        f"{SOURCE}:10: sides[0].formations[0].parent: formation 'II/86' is its own ancestor "
        "(II/86 -> 6/II/86 -> II/86); the top formation has parent null",
        f"{SOURCE}:11: sides[0].formations[1].parent: formation '6/II/86' is its own ancestor "
        "(6/II/86 -> II/86 -> 6/II/86); the top formation has parent null",
    ]


def test_a_key_with_a_newline_stays_on_one_line() -> None:
    text = MINIMAL + '"bad\\nkey": 1\n'
    (problem,) = problems_of(text)
    assert (
        unlisted(problem) == "battle.yaml:19: 'bad\\nkey': unknown key 'bad\\nkey' (accepted: ...)"
    )


# --- every problem at once ---------------------------------------------------------------------


def test_all_schema_problems_are_reported_at_once() -> None:
    text = (
        edit(
            ("name: Test", "name: [Test]"),
            ("width: 48,", "width: wide,"),
            ("at: [18, 27]}", "at: [18, 27], facng: 90}"),
        )
        + "measure: center\n"
    )
    problems = problems_of(text)
    assert [p.split(": ")[0:2] for p in problems] == [
        [f"{SOURCE}:2", "name"],
        [f"{SOURCE}:3", "table.width"],
        [f"{SOURCE}:19", "measure"],
        [f"{SOURCE}:13", "sides[0].stands[0].facng"],
    ]
    with pytest.raises(ScenarioError, match=r"^4 scenario problems: battle\.yaml:2: name: "):
        parse_scenario(text, SOURCE)


def test_problems_across_the_file_are_reported_with_schema_problems() -> None:
    # A bad key drops that stand from the later checks, but the other stands, the terrain
    # and the start of the turn are still checked, with their own lines.
    text = (
        edit(
            ("at: [18, 27]}", "at: [18, 27], facng: 90}"),
            (
                "formation: 2/26, weapons: [rifle]",
                "formation: 2/26, quality: vet, weapons: [rifle]",
            ),
            ("[16, 13]", "[60, 13]"),
        )
        + "turn: {phase: movment}\nconditions: {light: dya}\n"
    )
    problems = problems_of(text)
    assert len(problems) == 5
    # The shape of each part first (in the order of the format), then the checks across it.
    assert problems[0] == (
        "battle.yaml:20: conditions.light: 'dya' is not accepted (accepted: day, "
        "twilight, night-moonlit, night-dark, artificial-moonlight); did you mean "
        "'day'?"
    )
    assert unlisted(problems[1]) == (
        "battle.yaml:13: sides[0].stands[0].facng: unknown key 'facng' (accepted: ...); "
        "did you mean 'facing'?"
    )
    assert problems[2] == (
        "battle.yaml:19: turn.phase: unknown phase 'movment' (known: artillery, "
        "command, fire, morale, movement, opportunity-fire); did you mean 'movement'?"
    )
    assert (
        problems[3] == f"{SOURCE}:5: terrain[0].polygon[2]: point (60, 13) is off the 48 x 36 table"
    )
    assert problems[4] == (
        "battle.yaml:18: sides[1].stands[0].quality: unknown quality 'vet' (known: "
        "elite, experienced, green, regular, trained, veteran); did you mean 'veteran'?"
    )


def test_problems_after_a_dropped_item_keep_their_own_line() -> None:
    # The first terrain piece is left out of the checks; the second still reports as
    # terrain[1] on line 6, not as terrain[0].
    text = edit(
        ("[[6, 10], [14, 9], [16, 13], [7, 15]]}", "[[6, 10], [14, 9], [16, 13]], x: 1}"),
        ("kind: road-hard", "kind: road-hrad"),
    )
    problems = problems_of(text)
    assert len(problems) == 2
    assert unlisted(problems[0]) == "battle.yaml:5: terrain[0].x: unknown key 'x' (accepted: ...)"
    assert unlisted(problems[1]) == (
        "battle.yaml:6: terrain[1].kind: unknown terrain kind 'road-hrad' (known: ...); "
        "did you mean 'road-hard'?"
    )


def test_a_bad_stand_in_the_second_side_keeps_its_path() -> None:
    text = edit(
        ("name: Germany", "name: [Germany]"),
        (
            "{id: US-1, kind: infantry,",
            "{id: US-0, kind: tank, size: 1}\n  - {id: US-1, kind: infantry, quality: trainee,",
        ),
    )
    problems = problems_of(text)
    assert [p.split(": ")[0:2] for p in problems] == [
        [f"{SOURCE}:8", "sides[0].name"],
        [f"{SOURCE}:18", "sides[1].stands[0].size"],
        [f"{SOURCE}:19", "sides[1].stands[1].quality"],
    ]


def test_references_to_a_broken_item_are_not_reported_again() -> None:
    # The company's kind is wrong; the stand in it must not also be told the company is
    # unknown, and a stand using a broken scenario weapon is not told the weapon is unknown.
    text = (
        edit(
            ("{id: 6/II/86, kind: company", "{id: 6/II/86, kind: compny"),
            ("weapons: [rifle], at: [18, 27]", "weapons: [pak-37], at: [18, 27]"),
        )
        + f"weapons:\n  - {PAK_37.replace('rof: 1', 'rof: 0')}\n"
    )
    problems = problems_of(text)
    assert len(problems) == 2, problems
    assert problems[0] == (
        "battle.yaml:11: sides[0].formations[1].kind: 'compny' is not accepted "
        "(accepted: division, brigade, regiment, battalion, company, platoon); did you "
        "mean 'company'?"
    )
    assert problems[1] == f"{SOURCE}:20: weapons[0].rof: 0 is too small (at least 1)"


def test_a_wrong_format_stops_before_the_checks_across_the_file() -> None:
    text = edit(("format: 1", "format: 2"), ("quality: regular", "quality: regullar"))
    assert problems_of(text) == [f"{SOURCE}:1: format: 2 is not accepted (accepted: 1)"]


def test_an_unknown_top_level_key_stops_before_the_checks_across_the_file() -> None:
    # 'weapon:' for 'weapons:' would otherwise make every stand using them look wrong.
    text = edit(("weapons: [rifle], at: [18, 27]", "weapons: [pak-37], at: [18, 27]"))
    text += f"weapon:\n  - {PAK_37}\n"
    (problem,) = problems_of(text)
    assert unlisted(problem) == (
        "battle.yaml:19: weapon: unknown key 'weapon' (accepted: ...); did you mean 'weapons'?"
    )


# --- scenario weapons and chart overlays ------------------------------------------------------


def test_scenario_weapons_are_usable_by_stands() -> None:
    text = edit(("weapons: [rifle], at: [18, 27]", "weapons: [rifle, pak-37], at: [18, 27]"))
    loaded = parse_scenario(text + f"weapons:\n  - {PAK_37}\n", SOURCE)
    weapon = loaded.charts.weapons["pak-37"]
    assert (weapon.rof, weapon.calibre_mm, weapon.rule) == (1, 37.0, "scenario weapon")
    assert weapon.band(15) == "medium"
    assert loaded.scenario.stand_spec("G-1").weapons == ("rifle", "pak-37")


def test_a_scenario_weapon_changes_a_chart_weapon_it_names() -> None:
    loaded = parse_scenario(MINIMAL + "weapons:\n  - {id: pak-36, rof: 2}\n", SOURCE)
    pak = loaded.charts.weapons["pak-36"]
    assert pak.rof == 2
    assert pak.calibre_mm == 37.0 and pak.limited  # the rest is the chart's


def test_scenario_weapon_problems_name_the_field_and_line() -> None:
    text = MINIMAL + (
        "weapons:\n"
        "  - id: mortar-x\n"
        "    calibre_mm: 60\n"
        "    rof: 1\n"
        "    indirect: true\n"
        "    ranges: {close: 15, medium: 10, long: 60}\n"
        "    to_hit: {close: 4, medium: 4, long: 4}\n"
        "    burts: 1\n"
    )
    assert problems_of(text) == [
        f"{SOURCE}:26: weapons[0].burts: unknown key 'burts' (accepted: id, rule, default, note, "
        "name, calibre_mm, rof, ranges, to_hit, to_hit_afv, burst, he, indirect, indirect_only, "
        "ap_only, limited, rocket, smoke, illum, aa, flame); did you mean 'burst'?",
    ]
    fixed = text.replace("burts: 1", "he: 3")
    assert problems_of(fixed) == [
        f"{SOURCE}:24: weapons[0].ranges: range bands must not decrease (close <= medium <= "
        "long), got close 15, medium 10, long 60",
        f"{SOURCE}:20: weapons[0].burst: missing: an indirect-fire weapon needs 'burst' "
        "(template diameter, inches)",
    ]


def write_overlay(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "weapons.yaml").write_text(text, encoding="utf-8")
    return folder


def test_scenario_charts_folder_is_relative_to_the_scenario_file(tmp_path: Path) -> None:
    write_overlay(tmp_path / "house", "entries:\n  - {id: pak-36, rof: 3}\n")
    path = tmp_path / "battle.yaml"
    path.write_text(MINIMAL + "charts: house\n", encoding="utf-8")
    loaded = read_scenario(path)
    assert loaded.charts.weapons["pak-36"].rof == 3
    assert loaded.charts.weapons["pak-36"].ranges.long == 30
    # Without the overlay the chart number stands.
    assert parse_scenario(MINIMAL, SOURCE).charts.weapons["pak-36"].rof == 1


def test_scenario_charts_folder_missing(tmp_path: Path) -> None:
    path = tmp_path / "battle.yaml"
    path.write_text(MINIMAL + "charts: house\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        read_scenario(path)
    assert info.value.problems == [
        f"battle.yaml:19: charts: 'house' is not a folder (looked for "
        f"{str(tmp_path / 'house')!r}; give a folder of chart files, relative to the scenario "
        "file)"
    ]


def test_scenario_charts_folder_problems_name_the_chart_file(tmp_path: Path) -> None:
    write_overlay(tmp_path / "house", "entries:\n  - {id: pak-36, rof: 0}\n")
    path = tmp_path / "battle.yaml"
    path.write_text(MINIMAL + "charts: house\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        read_scenario(path)
    assert info.value.problems == [
        "battle.yaml: charts: house/weapons.yaml:2: entry 'pak-36': rof: 0 is too small "
        "(at least 1)"
    ]


def test_extra_overlays_apply_after_the_scenario_folder(tmp_path: Path) -> None:
    write_overlay(tmp_path / "house", "entries:\n  - {id: pak-36, rof: 3}\n")
    write_overlay(tmp_path / "mine", "entries:\n  - {id: pak-36, rof: 4}\n")
    path = tmp_path / "battle.yaml"
    path.write_text(MINIMAL + "charts: house\n", encoding="utf-8")
    assert read_scenario(path, (tmp_path / "mine",)).charts.weapons["pak-36"].rof == 4


def test_read_scenario_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(BadInput, match=r"^scenario '.*nope\.yaml': no such file$"):
        read_scenario(path)


def test_read_scenario_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"name: Caf\xe9\n")
    with pytest.raises(BadInput, match=r"not UTF-8 text \(save it as UTF-8\)$"):
        read_scenario(path)


def test_stored_charts_replace_the_files() -> None:
    # A game rebuilds from the charts it stored, whatever the folders hold now.
    loaded = parse_scenario(MINIMAL, SOURCE)
    raw = json.loads(json.dumps(loaded.charts.raw))
    for entry in raw["weapons"]:
        if entry["id"] == "rifle":
            entry["rof"] = 5
    again = parse_scenario(MINIMAL, SOURCE, charts_raw=raw)
    assert again.charts.weapons["rifle"].rof == 5


# --- through the command line ------------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "battle.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "first"),
    [
        (
            edit(("format: 1", "format: 2")),
            "battle.yaml:1: format: 2 is not accepted (accepted: 1)",
        ),
        (edit(("at: [18, 27]}", "at: [18, 27]")), "battle.yaml:14: not valid YAML:"),
        ("", "battle.yaml: the file is empty;"),
        (
            edit(("quality: regular", "quality: regullar"), ("at: [18, 6]", "at: [99, 6]")),
            "2 scenario problems: battle.yaml:13: sides[0].stands[0].quality: unknown quality "
            "'regullar'",
        ),
    ],
)
def test_new_with_a_broken_scenario(run: Run, tmp_path: Path, text: str, first: str) -> None:
    path = write(tmp_path, text)
    result = run("new", str(path), code=2)
    assert result.output.startswith(f"Error: {first}")
    # one line, or with several problems a line for each, every one with file and line
    many = int(first.split()[0]) if first[0].isdigit() else 1
    lines = result.output.splitlines()
    assert len(lines) == many
    assert all(line.startswith("  battle.yaml:") for line in lines[1:])
    assert "Traceback" not in result.output
    assert not run.game.exists()


def test_new_from_a_path_and_from_a_bundled_name(run: Run, tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL)
    data = as_json(run("new", str(path), "--seed", "3", "--json"))
    assert (data["name"], data["stands"], data["seed"]) == ("Test", 2, 3)
    assert data["turn"] == 1 and data["phase"] == "movement"
    other = tmp_path / "other.sqlite"
    result = run("new", "crossroads", "--seed", "3", game_file=other)
    assert result.output == (
        f"New game 'Crossroads' in {other}: 12 stands, turn 1, movement phase, dice seed 3.\n"
    )
    assert other.exists()
    result = run("new", "crossroads.yaml", "--force", game_file=other)
    assert result.output.startswith("New game 'Crossroads' in ")


def test_new_refuses_to_overwrite_without_force(run: Run, tmp_path: Path) -> None:
    run("new", "crossroads", "--seed", "1")
    before = run.game.read_bytes()
    result = run("new", str(write(tmp_path, MINIMAL)), code=2)
    assert result.output == (
        f"Error: {str(run.game)!r} already exists: use --force to replace it, or --game to "
        "choose another file\n"
    )
    assert run.game.read_bytes() == before
    run("new", str(write(tmp_path, MINIMAL)), "--force")
    status = as_json(run("status", "--json"))
    assert sorted(s["id"] for s in status["stands"]) == ["G-1", "US-1"]


def test_new_with_a_broken_scenario_keeps_the_old_game(run: Run, tmp_path: Path) -> None:
    run("new", "crossroads", "--seed", "1")
    before = run.game.read_bytes()
    run("new", str(write(tmp_path, edit(("format: 1", "format: 2")))), "--force", code=2)
    assert run.game.read_bytes() == before


def test_new_with_an_unknown_bundled_name(run: Run) -> None:
    result = run("new", "crossroad", code=2)
    assert result.output == (
        "Error: scenario 'crossroad': no such file, and no bundled scenario 'crossroad' "
        "(bundled: crossroads, large, roer)\n"
    )
    assert not run.game.exists()


def test_new_with_a_missing_path(run: Run, tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    result = run("new", str(missing), code=2)
    assert result.output == f"Error: scenario {str(missing)!r}: no such file\n"


def test_new_with_scenario_weapons_and_charts_folder(
    run: Run, runner: CliRunner, tmp_path: Path
) -> None:
    write_overlay(tmp_path / "house", "entries:\n  - {id: pak-36, rof: 3}\n")
    text = edit(("weapons: [rifle], at: [18, 27]", "weapons: [pak-36, pak-37], at: [18, 27]"))
    path = write(tmp_path, text + f"charts: house\nweapons:\n  - {PAK_37}\n")
    run("new", str(path), "--seed", "1")
    status = as_json(run("status", "--json"))
    g1 = next(s for s in status["stands"] if s["id"] == "G-1")
    assert g1["ammo"] == {"pak-36": "ok", "pak-37": "ok"}
    # The game keeps the charts it started with: removing the folder changes nothing.
    (tmp_path / "house" / "weapons.yaml").unlink()
    (tmp_path / "house").rmdir()
    run("status")
    from tabletop.cli import cli

    # `charts show` reads the chart files, not the game.
    shown = runner.invoke(cli, ["charts", "show", "weapons", "pak-36", "--json"])
    assert json.loads(shown.output)["rof"] == 1


# --- robustness ---------------------------------------------------------------------------------

SCENARIO_KEYS = [
    "format", "name", "table", "width", "depth", "measure", "model", "turn", "number", "phase",
    "conditions", "light", "weather", "wind", "from", "force", "ground", "charts", "terrain",
    "weapons", "sides", "formations", "stands", "id", "kind", "polygon", "line", "at",
    "quality", "formation", "parent", "facing", "weight_class", "rof", "ranges", "to_hit",
]  # fmt: skip

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=10)
    | st.sampled_from(["woods", "infantry", "regular", "rifle", "II/86", "G-1", "VI", "1"])
)
GARBAGE = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(SCENARIO_KEYS) | st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=25,
)
ROBUST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def only_domain_errors(text: str) -> None:
    try:
        parse_scenario(text, SOURCE)
    except (ScenarioError, BadInput) as exc:
        problems = getattr(exc, "problems", [str(exc)])
        assert problems
        assert all(isinstance(p, str) and "\n" not in p for p in problems)


@ROBUST
@given(GARBAGE)
def test_garbage_raises_only_domain_errors(data: object) -> None:
    only_domain_errors(yaml.safe_dump(data))


@ROBUST
@given(st.dictionaries(st.sampled_from(SCENARIO_KEYS), GARBAGE, max_size=8))
def test_garbage_mappings_raise_only_domain_errors(data: dict[str, object]) -> None:
    only_domain_errors(yaml.safe_dump({"format": 1, **data}))


WEAPON_KEYS = ["id", "rule", "rof", "ranges", "to_hit", "calibre_mm", "burst", "he", "indirect"]


@ROBUST
@given(
    st.lists(
        st.dictionaries(st.sampled_from(WEAPON_KEYS) | st.text(max_size=4), GARBAGE, max_size=6)
        | GARBAGE,
        max_size=4,
    )
)
def test_garbage_scenario_weapons_raise_only_domain_errors(weapons: list[object]) -> None:
    only_domain_errors(yaml.safe_dump({**yaml.safe_load(MINIMAL), "weapons": weapons}))


@ROBUST
@given(st.data())
def test_a_scenario_with_one_part_replaced_raises_only_domain_errors(data: st.DataObject) -> None:
    doc = yaml.safe_load(MINIMAL)
    node = doc
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = data.draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, dict | list) and child and data.draw(st.booleans()):
            node = child
            continue
        node[key] = data.draw(GARBAGE)
        break
    only_domain_errors(yaml.safe_dump(doc))


@ROBUST
@given(st.text(max_size=200))
def test_any_text_raises_only_domain_errors(text: str) -> None:
    only_domain_errors(text)


@pytest.mark.parametrize("levels", [65, 100, 5_000])
def test_the_depth_guard_refuses_nesting_past_64_levels_whatever_pyyaml_does(levels: int) -> None:
    """The guard itself, on events from the pure-Python parser (which has no limit of its own),
    so the project's limit is tested whichever PyYAML or libyaml is installed."""
    from tabletop.data.yaml_text import _check_depth

    events = yaml.parse("name: " + "[" * levels + "]" * levels, Loader=yaml.SafeLoader)
    with pytest.raises(BadInput) as refused:
        _check_depth(events, "deep.yaml")
    assert str(refused.value) == (
        "deep.yaml:1: nested more than 64 levels deep (a chart or scenario needs only a few)"
    )


def test_the_depth_guard_lets_64_levels_through() -> None:
    from tabletop.data.yaml_text import _check_depth

    _check_depth(yaml.parse("name: " + "[" * 63 + "]" * 63, Loader=yaml.SafeLoader), "ok.yaml")


def test_the_scenario_knows_the_models_the_registry_has() -> None:
    # The data floor names the models a scenario may choose; rules/models registers them.
    from tabletop.data.scenario import KNOWN_MODELS

    assert sorted(KNOWN_MODELS) == sorted(model_names())


def test_without_a_profile_lookup_profiles_are_not_checked_but_model_names_are() -> None:
    text = MINIMAL.replace("weapons: [rifle]", "weapons: [rifle], profiles: {typhoon: nobody}", 1)
    assert text != MINIMAL
    parse_scenario(text, SOURCE)  # no lookup handed in: the profile id is not checked
    assert problems_of(text) == [
        f"{SOURCE}:13: sides[0].stands[0].profiles.typhoon: unknown typhoon profile 'nobody' "
        "(known: " + ", ".join(sorted(TYPHOON_PROFILES)) + ")"
    ]
