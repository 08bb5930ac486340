"""Setting up a table: ``tabletop scenario ...`` and the setup floor under it (issue 30).

Shapes measured with a tape give exact areas and bounds; an edit keeps the file's comments
and layout byte for byte around it; every refused edit leaves the file byte-identical and
names the file, the row or the entry, and the nearest valid word.
"""

from __future__ import annotations

import json
import math
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon

from tabletop.cli import cli
from tabletop.data.charts import Charts
from tabletop.data.scenario import stand_extent
from tabletop.data.scenario_loader import read_scenario
from tabletop.setup import shapes
from tabletop.setup.roster import parse_roster
from tabletop.table import Base, overlapping

ENV = {"NO_COLOR": "1", "COLUMNS": "80"}


def scenario(runner: CliRunner, *args: str, code: int = 0) -> Result:
    result = runner.invoke(cli, ["scenario", *args], env=ENV, catch_exceptions=False)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def field(runner: CliRunner, tmp_path: Path) -> Path:
    """A new 72 x 48 scenario with two sides and no terrain."""
    path = tmp_path / "field.yaml"
    scenario(runner, "new", str(path), "--table", "72x48", "--side", "Germany", "--side", "USA")
    return path


# --- shapes ------------------------------------------------------------------------------------


def bounds_and_area(points: list[tuple[float, float]]) -> tuple[float, list[float]]:
    return shapes.area_and_bounds(Polygon(points))


@pytest.mark.parametrize(
    ("angle", "area", "bounds"),
    [
        (0, 8.0, [8.0, 9.0, 12.0, 11.0]),
        (90, 8.0, [9.0, 8.0, 11.0, 12.0]),
        # Turned 30 degrees clockwise: 4 cos 30 + 2 sin 30 = 4.464 across, 2 + 1.732 deep.
        (30, 8.0, [7.768, 8.134, 12.232, 11.866]),
        (-60, 8.0, [8.134, 7.768, 11.866, 12.232]),
    ],
)
def test_a_turned_rectangle_keeps_its_area_and_turns_clockwise(
    angle: float, area: float, bounds: list[float]
) -> None:
    assert bounds_and_area(shapes.rect(10, 10, 4, 2, angle=angle)) == (area, bounds)


def test_a_rectangle_turns_clockwise_north_up() -> None:
    # Turned a quarter clockwise, the rectangle's east end points south.
    corners = shapes.rect(0, 0, 4, 2, angle=90)
    assert [(shapes.number(x), shapes.number(y)) for x, y in corners] == [
        (-1, 2),
        (-1, -2),
        (1, -2),
        (1, 2),
    ]


@pytest.mark.parametrize(
    ("angle", "corners", "area", "bounds"),
    [
        (0, 43, 98.608, [33.019, 19.503, 47.0, 28.497]),
        (90, 43, 98.608, [35.503, 17.0, 44.497, 30.981]),
    ],
)
def test_an_ellipse_measured_from_its_centre(
    angle: float, corners: int, area: float, bounds: list[float]
) -> None:
    points = shapes.ellipse(40, 24, 14, 9, angle=angle)
    assert len(points) == corners
    assert bounds_and_area(points) == (area, bounds)


@pytest.mark.parametrize(
    ("width", "depth", "angle"), [(14, 9, 0), (10, 4, 45), (40, 2, 17), (6, 6, 0)]
)
def test_an_ellipse_stays_within_two_hundredths_of_the_curve(
    width: float, depth: float, angle: float
) -> None:
    polygon = Polygon(shapes.ellipse(20, 20, width, depth, angle=angle)).exterior
    a, b, turn = width / 2, depth / 2, math.radians(angle)
    worst = 0.0
    for i in range(4000):
        t = 2 * math.pi * i / 4000
        x, y = a * math.cos(t), b * math.sin(t)
        on_curve = ShapelyPoint(
            20 + x * math.cos(turn) + y * math.sin(turn),
            20 - x * math.sin(turn) + y * math.cos(turn),
        )
        worst = max(worst, polygon.distance(on_curve))
    assert worst <= shapes.CURVE_TOLERANCE


@settings(max_examples=40, deadline=None)
@given(
    width=st.floats(0.1, 80),
    depth=st.floats(0.1, 80),
    angle=st.floats(-360, 360),
)
def test_any_turned_shape_keeps_its_area(width: float, depth: float, angle: float) -> None:
    rect = Polygon(shapes.rect(50, 50, width, depth, angle=angle))
    assert math.isclose(rect.area, width * depth, rel_tol=1e-9)
    oval = Polygon(shapes.ellipse(50, 50, width, depth, angle=angle))
    true_area = math.pi * width * depth / 4
    # Inscribed: a little smaller than the true oval, by no more than the tolerance's strip.
    assert true_area - (width + depth) * math.pi * shapes.CURVE_TOLERANCE <= oval.area <= true_area


def test_a_circle_is_an_ellipse_as_wide_as_deep() -> None:
    assert bounds_and_area(shapes.circle(5, 5, 3)) == (28.038, [2.0, 2.0, 8.0, 8.0])


# --- terrain -----------------------------------------------------------------------------------


def test_terrain_prints_the_id_area_and_bounds_and_numbers_ids(
    runner: CliRunner, field: Path
) -> None:
    out = scenario(runner, "terrain", str(field), "woods", "--rect", "10,10,4,2", "--angle", "30")
    assert (
        out.output
        == "woods-1 added to field.yaml: woods, 8.00 sq in, x 7.768 to 12.232, y 8.134 to 11.866\n"
    )
    scenario(runner, "terrain", str(field), "woods", "--circle", "30,30,2", "--id", "copse")
    out = scenario(runner, "terrain", str(field), "woods", "--ellipse", "50,20,6,4", "--json")
    assert json.loads(out.output) == {"file": "field.yaml", "added": ["woods-2"]}
    text = field.read_text()
    assert (
        "  - {id: woods-1, kind: woods, polygon: [[7.768, 10.134], [11.232, 8.134], "
        "[12.232, 9.866], [8.768, 11.866]]}\n" in text
    )


def test_a_piece_off_the_edge_is_cut_at_the_edge(runner: CliRunner, field: Path) -> None:
    out = scenario(runner, "terrain", str(field), "lake", "--rect", "70,24,8,4")
    assert out.output == (
        "lake-1 added to field.yaml: lake, 24.00 sq in, x 66 to 72, y 22 to 26\n"
        "  lake-1 runs off the table: cut at its edge\n"
    )


def test_a_road_with_its_width_and_a_bridge_with_its_class(runner: CliRunner, field: Path) -> None:
    scenario(
        runner, "terrain", str(field), "road-dirt", "--line", "0,10 30,14 72,12", "--width", "1"
    )
    scenario(
        runner, "terrain", str(field), "bridge", "--rect", "30,14,2,3", "--class", "IV", "--wired"
    )
    text = field.read_text()
    assert (
        "  - {id: road-dirt-1, kind: road-dirt, line: [[0, 10], [30, 14], [72, 12]], width: 1}\n"
        in text
    )
    assert (
        "  - {id: bridge-1, kind: bridge, polygon: [[29, 12.5], [31, 12.5], [31, 15.5], "
        "[29, 15.5]], weight_class: IV, wired: true}\n" in text
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["woods", "--rect", "10,10,-4,2"],
            "Error: --rect: the width is -4; it must be more than 0 inches\n",
        ),
        (
            ["woods", "--rect", "100,100,4,4"],
            "Error: the new piece woods-1: no part of it lies on the 72 x 48 table\n",
        ),
        (
            ["woods", "--polygon", "0,0 10,10 10,0 0,10"],
            "Error: field.yaml not changed: the new piece woods-1 (woods): polygon: not a valid "
            "polygon: Self-intersection[5 5]\n",
        ),
        (
            ["road-dirt", "--line", "0,10 30,14"],
            "Error: --line needs --width W: how wide the road or river is, in inches\n",
        ),
        (
            ["woods", "--circle", "5,5,2", "--angle", "10"],
            "Error: --angle turns a --rect or an --ellipse, not a --circle\n",
        ),
        (
            ["woods", "--rect", "5,5,2,2", "--id", "h1"],
            "Error: the new piece h1: the id 'h1' is already a terrain piece's (field.yaml:13); "
            "give another id\n",
        ),
    ],
)
def test_a_refused_piece_leaves_the_file_byte_identical(
    runner: CliRunner, field: Path, args: list[str], says: str
) -> None:
    scenario(runner, "terrain", str(field), "hill", "--id", "h1", "--polygon", "1,1 5,1 5,5")
    before = field.read_bytes()
    assert scenario(runner, "terrain", str(field), *args, code=2).output == says
    assert field.read_bytes() == before


def test_an_unknown_kind_is_refused_with_the_nearest_word(runner: CliRunner, field: Path) -> None:
    before = field.read_bytes()
    result = scenario(runner, "terrain", str(field), "wods", "--rect", "5,5,2,2", code=2)
    first = result.output.splitlines()[0]
    assert first.startswith(
        "Error: field.yaml not changed: the new piece wods-1 (wods): kind: unknown terrain kind "
        "'wods' (known: "
    )
    assert first.endswith("; did you mean 'woods'?")
    assert field.read_bytes() == before


def test_a_kind_drawn_as_a_line_refuses_an_area(runner: CliRunner, field: Path) -> None:
    result = scenario(runner, "terrain", str(field), "road-dirt", "--rect", "5,5,2,2", code=2)
    assert result.output == (
        "Error: field.yaml not changed: the new piece road-dirt-1 (road-dirt): polygon: a "
        "road-dirt is drawn as a 'line' with a 'width'\n"
    )


# --- the file stays the person's own ---------------------------------------------------------

HAND_MADE = """\
# Hill 203: a hand-made table.   Comments, blank lines and odd spacing are the person's.
format: 1
name: "Hill 203"
table: {width: 48, depth: 36}

terrain:
  # the woods first
  - {id: wood-1, kind: woods, polygon: [[6, 10], [14, 9], [16, 13]]}   # the big wood
  - {id: hill-1, kind: hill,  polygon: [[35, 9], [42, 8], [45, 12]], height: 1}

# ---- the forces ----
sides:
  - name: Germany
    stands:
      - {id: G-1, kind: infantry, weapons: [rifle], at: [18, 27], facing: 180}  # dug in
  - name: USA     # the attackers
    stands: []
"""


def test_comments_and_layout_are_kept_byte_for_byte_around_an_edit(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "hill.yaml"
    path.write_text(HAND_MADE)
    scenario(runner, "terrain", str(path), "orchard", "--rect", "20,20,4,2")
    new_line = (
        "  - {id: orchard-1, kind: orchard, polygon: [[18, 19], [22, 19], [22, 21], [18, 21]]}\n"
    )
    lines = HAND_MADE.splitlines(keepends=True)
    assert path.read_text() == "".join([*lines[:9], new_line, *lines[9:]])
    scenario(runner, "remove", str(path), "orchard-1")
    assert path.read_text() == HAND_MADE


def test_stands_join_the_side_in_the_files_style(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "hill.yaml"
    path.write_text(HAND_MADE)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,side,kind,weapons,x,y\nUS-1,USA,infantry,rifle,10,3\n")
    scenario(runner, "stands", str(path), "--csv", str(roster))
    assert path.read_text() == HAND_MADE.replace(
        "    stands: []\n",
        "    stands:\n      - {id: US-1, kind: infantry, weapons: [rifle], at: [10, 3]}\n",
    )


BLOCK_STYLE = """\
format: 1
name: Block
table:
    width: 48
    depth: 36
terrain:
-   id: wood-1
    kind: woods
    polygon: [[6, 10], [14, 9], [16, 13]]
"""


def test_a_block_style_file_gets_its_new_piece_in_block_style(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "block.yaml"
    path.write_text(BLOCK_STYLE)
    scenario(runner, "terrain", str(path), "woods", "--rect", "30,20,2,2")
    assert path.read_text() == BLOCK_STYLE + (
        "-   id: woods-1\n    kind: woods\n    polygon: [[29, 19], [31, 19], [31, 21], [29, 21]]\n"
    )


def test_a_file_with_problems_is_not_edited(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(HAND_MADE.replace("kind: hill,", "kind: hil,"))
    before = path.read_bytes()
    result = scenario(runner, "terrain", str(path), "woods", "--rect", "5,5,2,2", code=2)
    assert result.output.startswith(
        "Error: bad.yaml:9: terrain[1].kind: unknown terrain kind 'hil'"
    )
    assert result.output.rstrip().endswith("did you mean 'hill'?")
    assert path.read_bytes() == before
    # Taking the bad piece out mends it.
    scenario(runner, "remove", str(path), "hill-1")
    scenario(runner, "check", str(path))


def test_remove_names_the_nearest_id_and_keeps_a_formation_in_use(
    runner: CliRunner, field: Path
) -> None:
    scenario(runner, "stands", str(field), "USA", "--unit", "us-tank-platoon", "--prefix", "T")
    assert scenario(runner, "remove", str(field), "T-11", code=2).output == (
        "Error: field.yaml: no terrain piece, formation or stand 'T-11'; did you mean 'T-1'?\n"
    )
    assert scenario(runner, "remove", str(field), "T", code=2).output == (
        "Error: formation 'T' still has 2 under it (T-1, T-S): remove those first\n"
    )
    assert scenario(runner, "remove", str(field), "T-1").output == (
        "stand T-1 removed from field.yaml\n"
    )


def test_a_file_with_windows_line_ends_keeps_them(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "crlf.yaml"
    path.write_bytes(HAND_MADE.replace("\n", "\r\n").encode())
    scenario(runner, "terrain", str(path), "orchard", "--rect", "20,20,4,2")
    written = path.read_bytes()
    assert written.count(b"\r\n") == written.count(b"\n") == HAND_MADE.count("\n") + 1


def test_an_id_taken_in_another_case_is_refused(runner: CliRunner, field: Path) -> None:
    scenario(runner, "terrain", str(field), "woods", "--rect", "5,5,2,2", "--id", "Copse")
    assert scenario(
        runner, "terrain", str(field), "woods", "--rect", "9,9,2,2", "--id", "copse", code=2
    ).output == (
        "Error: the new piece copse: the id 'Copse' is already a terrain piece's "
        "(field.yaml:13); give another id\n"
    )


# --- rosters -----------------------------------------------------------------------------------


def test_a_roster_with_a_bad_row_names_the_row_and_the_nearest_weapon(
    runner: CliRunner, field: Path, tmp_path: Path
) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "id,side,kind,quality,weapons,formation,x,y,facing\n"
        "US-1,USA,infantry,veteran,rifle;bazooka,,20,5,0\n"
        "\n"
        "US-2,USA,infantry,,rifel,,,,\n"
    )
    before = field.read_bytes()
    result = scenario(runner, "stands", str(field), "--csv", str(roster), code=2)
    first = result.output.splitlines()[0]
    assert first.startswith(
        "Error: field.yaml not changed: roster.csv row 4 (US-2): weapons[0]: unknown weapon "
        "'rifel' (known: "
    )
    assert first.endswith("; did you mean 'rifle'?")
    assert field.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "id,side,kind,weapon\n",
            "roster.csv row 1: unknown column 'weapon' (columns: id, side, "
            "kind, quality, weapons, formation, x, y, facing); did you mean 'weapons'?",
        ),
        (
            "id,kind\nA,tank\n",
            "roster.csv row 1: no 'side' column (the header names the columns: "
            "id, side, kind, quality, weapons, formation, x, y, facing)",
        ),
        (
            "id,side,kind,x,y\nA,USA,tank,3,\n",
            "roster.csv row 2: give both x and y (on the table) or neither (off the table)",
        ),
        (
            "id,side,kind,x,y\nA,USA,tank,3,four\n",
            "roster.csv row 2: y 'four' is not a number of inches",
        ),
        ("id,side,kind\n,USA,tank\n", "roster.csv row 2: the id is empty"),
    ],
)
def test_a_malformed_roster_row_is_named(text: str, says: str) -> None:
    from tabletop.core.errors import BadInput

    with pytest.raises(BadInput) as caught:
        parse_roster(text, "roster.csv")
    assert str(caught.value) == says


def test_a_spreadsheets_semicolons_and_byte_order_mark_are_read() -> None:
    rows = parse_roster(
        "\ufeffid;side;kind;weapons;x;y;facing\nG-1;Germany;infantry;rifle lmg;3;4;90\n", "r.csv"
    )
    assert [(r.row, r.side, r.entry) for r in rows] == [
        (
            2,
            "Germany",
            {
                "id": "G-1",
                "kind": "infantry",
                "weapons": ["rifle", "lmg"],
                "at": [3, 4],
                "facing": 90,
            },
        )
    ]


def test_a_roster_row_for_an_unknown_side_is_refused(
    runner: CliRunner, field: Path, tmp_path: Path
) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("id,side,kind\nX-1,Germny,infantry\n")
    assert scenario(runner, "stands", str(field), "--csv", str(roster), code=2).output == (
        "Error: roster.csv row 2: 'Germny' is not a side of field.yaml (its sides: Germany, USA); "
        "did you mean 'Germany'?\n"
    )


# --- formation templates ----------------------------------------------------------------------


def test_a_rifle_company_deploys_in_line_abreast_with_its_supply_behind(
    runner: CliRunner, field: Path
) -> None:
    out = scenario(
        runner, "stands", str(field), "USA", "--unit", "us-rifle-company", "--prefix", "A",
        "--at", "36,4", "--json",
    )  # fmt: skip
    assert json.loads(out.output) == {
        "file": "field.yaml",
        "added": ["A-HQ", "A-1", "A-2", "A-3", "A-4", "A-S"],
    }
    shown = json.loads(scenario(runner, "show", str(field), "--json").output)
    assert [(s["id"], s["x"], s["y"]) for s in shown["stands"]] == [
        ("A-HQ", 32.4, 4),
        ("A-1", 34.2, 4),
        ("A-2", 36, 4),
        ("A-3", 37.8, 4),
        ("A-4", 39.6, 4),
        ("A-S", 36, 1.6),
    ]
    text = field.read_text()
    assert "      - {id: A, kind: company, parent: null}\n" in text
    assert (
        "      - {id: A-4, kind: mortar, quality: trained, formation: A, weapons: [mortar-60], "
        "at: [39.6, 4], facing: 0}\n" in text
    )


def test_a_line_facing_south_runs_the_other_way(runner: CliRunner, field: Path) -> None:
    scenario(
        runner, "stands", str(field), "Germany", "--unit", "german-rifle-company", "--prefix",
        "5", "--at", "36,40", "--facing", "180", "--quality", "veteran",
    )  # fmt: skip
    shown = json.loads(scenario(runner, "show", str(field), "--json").output)
    assert [(s["id"], s["x"], s["y"]) for s in shown["stands"]] == [
        ("5-HQ", 39.6, 40),
        ("5-1", 37.8, 40),
        ("5-2", 36, 40),
        ("5-3", 34.2, 40),
        ("5-MG", 32.4, 40),
        ("5-S", 36, 42.4),
    ]
    assert "quality: veteran" in field.read_text()


def test_a_template_without_a_place_waits_off_the_table(runner: CliRunner, field: Path) -> None:
    out = scenario(
        runner, "stands", str(field), "Germany", "--unit", "german-tank-platoon", "--prefix", "P1"
    )
    assert out.output == (
        "2 stands added to field.yaml from german-tank-platoon:\n"
        "  stand    side     kind    at\n"
        "  -------  -------  ------  -------------\n"
        "  P1-1     Germany  tank    off the table\n"
        "  P1-S     Germany  supply  off the table\n"
        "  off the table: place them as they arrive ('tabletop place')\n"
    )


def test_a_line_on_top_of_stands_already_there_is_refused(runner: CliRunner, field: Path) -> None:
    scenario(runner, "stands", str(field), "USA", "--unit", "us-tank-platoon", "--prefix", "T",
             "--at", "36,4")  # fmt: skip
    before = field.read_bytes()
    out = scenario(runner, "stands", str(field), "USA", "--unit", "us-rifle-company", "--prefix",
                   "A", "--at", "36,4", code=2)  # fmt: skip
    assert out.output == (
        "Error: A-2 at (36, 4) would lie on T-1, already on the table: give another --at, or "
        "--facing to turn the line\n"
    )
    assert field.read_bytes() == before


def test_an_unknown_template_names_the_nearest(runner: CliRunner, field: Path) -> None:
    out = scenario(runner, "stands", str(field), "USA", "--unit", "us-rifle-coy", "--prefix", "A",
                   code=2)  # fmt: skip
    assert out.output.startswith("Error: --unit 'us-rifle-coy': no such formation template")
    assert out.output.rstrip().endswith("did you mean 'us-rifle-company'?")


@pytest.mark.parametrize(
    "template",
    ["us-rifle-company", "german-rifle-company", "us-tank-platoon", "german-tank-platoon",
     "us-tank-company"],
)  # fmt: skip
def test_every_bundled_template_deploys_into_a_valid_scenario_without_overlaps(
    runner: CliRunner, field: Path, template: str, charts: Charts
) -> None:
    scenario(runner, "stands", str(field), "USA", "--unit", template, "--prefix", "X", "--at",
             "36,10", "--facing", "30")  # fmt: skip
    scenario(runner, "check", str(field))
    loaded = read_scenario(field)
    bases = [
        Base(spec.id, spec.at[0], spec.at[1], *stand_extent(spec, charts), spec.facing)
        for _, spec in loaded.scenario.stand_specs()
        if spec.at is not None
    ]
    assert len(bases) == len(loaded.scenario.stand_specs())
    for i, base in enumerate(bases):
        assert overlapping(base, bases[:i] + bases[i + 1 :], 0.0) == []


def test_your_own_templates_file_adds_to_the_bundled_ones(
    runner: CliRunner, field: Path, tmp_path: Path
) -> None:
    own = tmp_path / "army.yaml"
    own.write_text(
        "entries:\n"
        "  - id: recce-troop\n"
        "    name: Recce troop\n"
        "    source: our club's army list\n"
        "    formations: [{id: troop, kind: platoon}]\n"
        "    stands:\n"
        "      - {id: '1', kind: armoured-car, weapons: [kwk-20]}\n"
        "      - {id: '2', kind: armoured-car, weapons: [kwk-20]}\n"
    )
    out = scenario(runner, "stands", str(field), "Germany", "--unit", "recce-troop", "--prefix",
                   "R", "--at", "10,40", "--templates", str(own), "--json")  # fmt: skip
    assert json.loads(out.output) == {"file": "field.yaml", "added": ["R-1", "R-2"]}


def test_every_template_cites_its_source() -> None:
    from tabletop.setup.formations import load_templates

    templates = load_templates()
    assert {"us-rifle-company", "german-rifle-company", "us-tank-platoon",
            "german-tank-platoon"} <= set(templates)  # fmt: skip
    for template in templates.values():
        assert template.source.strip() and template.default
        assert any(s.kind == "supply" for s in template.stands), template.id


# --- check, show, map -------------------------------------------------------------------------


def test_show_lists_areas_and_bounds(runner: CliRunner, field: Path) -> None:
    scenario(runner, "terrain", str(field), "hill", "--ellipse", "40,24,14,9", "--height", "1")
    scenario(runner, "terrain", str(field), "road-dirt", "--line", "0,10 72,10", "--width", "1")
    shown = json.loads(scenario(runner, "show", str(field), "--json").output)
    assert shown == {
        "file": "field.yaml",
        "name": "Field",
        "table": {"width": 72.0, "depth": 48.0},
        "terrain": [
            {
                "id": "hill-1",
                "kind": "hill",
                # The polygon as written to the thousandth: 98.608 before rounding.
                "area": 98.609,
                "bounds": [33.019, 19.503, 47.0, 28.497],
            },
            {
                "id": "road-dirt-1",
                "kind": "road-dirt",
                "area": 72.0,
                "bounds": [0.0, 9.5, 72.0, 10.5],
            },
        ],
        "stands": [],
    }


def test_check_says_valid_and_counts(runner: CliRunner, field: Path) -> None:
    assert scenario(runner, "check", str(field)).output == (
        "field.yaml: valid. 'Field': a 72\" x 48\" table, 0 terrain pieces, 2 sides, 0 stands.\n"
    )


def test_check_lists_every_problem(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(HAND_MADE.replace("kind: hill,", "kind: hil,").replace("rifle", "rifel"))
    out = scenario(runner, "check", str(path), code=2).output.splitlines()
    assert out[0].startswith("Error: 2 scenario problems: bad.yaml:9: terrain[1].kind: unknown")
    assert out[1].startswith("  bad.yaml:15: sides[0].stands[0].weapons[0]: unknown weapon 'rifel'")


def test_map_draws_the_scenario_without_a_game(runner: CliRunner, field: Path) -> None:
    scenario(runner, "stands", str(field), "USA", "--unit", "us-tank-platoon", "--prefix", "T",
             "--at", "36,4")  # fmt: skip
    picture = field.with_suffix(".png")
    out = scenario(runner, "map", str(field), "--out", str(picture))
    assert out.output == (
        f"Map of field.yaml written to {picture}: 0 terrain pieces, 2 stands on the table\n"
    )
    assert picture.read_bytes().startswith(b"\x89PNG")


# --- new -------------------------------------------------------------------------------------


def test_new_refuses_to_overwrite_without_force(runner: CliRunner, field: Path) -> None:
    before = field.read_bytes()
    out = scenario(runner, "new", str(field), "--table", "48x36", code=2)
    assert out.output.startswith(f"Error: {str(field)!r} exists already")
    assert field.read_bytes() == before
    out = scenario(runner, "new", str(field), "--table", "48x36", "--name", "Again", "--force")
    assert out.output == "field.yaml: 'Again' begun, a 48\" x 36\" table; no sides (give --side).\n"


def test_a_built_table_starts_a_game_and_a_stand_moves(
    runner: CliRunner, field: Path, tmp_path: Path
) -> None:
    scenario(runner, "terrain", str(field), "woods", "--rect", "20,20,6,4")
    scenario(runner, "stands", str(field), "USA", "--unit", "us-rifle-company", "--prefix", "A",
             "--at", "36,4")  # fmt: skip
    game = str(tmp_path / "game.sqlite")
    started = runner.invoke(cli, ["new", str(field), "--seed", "1", "--game", game], env=ENV)
    assert started.exit_code == 0, started.output
    moved = runner.invoke(cli, ["move", "A-1", "34.2,8", "--game", game], env=ENV)
    assert moved.exit_code == 0, moved.output


# --- a drawing (the reading itself is setup/svg.py's; here only the command) ----------------


@dataclass(frozen=True)
class FakeImport:
    width: float
    depth: float
    pieces: tuple[dict[str, object], ...]
    left_out: tuple[str, ...]


@pytest.fixture
def fake_svg(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    calls: list[tuple[object, ...]] = []
    module = types.ModuleType("tabletop.setup.svg")

    def read_svg(path: Path, kinds: object, table: tuple[float, float]) -> FakeImport:
        calls.append((path.name, table))
        width, depth = table
        return FakeImport(
            width,
            depth,
            (
                {"id": "wood-a", "kind": "woods", "polygon": [[1, 1], [5, 1], [5, 4]]},
                {"id": "road-a", "kind": "road-dirt", "line": [[-3, 20], [72, 20]], "width": 1},
                {"id": "lake-z", "kind": "lake", "polygon": [[80, 1], [85, 1], [85, 4]]},
            ),
            ("path7: no terrain kind in its label 'sketch'",),
        )

    module.read_svg = read_svg  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tabletop.setup.svg", module)
    return calls


def test_import_svg_adds_the_drawings_pieces(
    runner: CliRunner, field: Path, tmp_path: Path, fake_svg: list[tuple[object, ...]]
) -> None:
    drawing = tmp_path / "table.svg"
    out = scenario(runner, "import-svg", str(field), str(drawing))
    assert fake_svg == [("table.svg", (72.0, 48.0))]
    assert out.output == (
        "2 pieces added to field.yaml from table.svg: wood-a, road-a\n"
        "  left out (2):\n"
        "    path7: no terrain kind in its label 'sketch'\n"
        "    lake-z: no part of it lies on the 72 x 48 table\n"
    )
    # Drawn past the table's edge, the road is cut at it.
    assert "line: [[0, 20], [72, 20]]" in field.read_text()
    before = field.read_bytes()
    clash = scenario(runner, "import-svg", str(field), str(drawing), code=2)
    assert clash.output == (
        "Error: table.svg: field.yaml has already 2 of its ids (wood-a, road-a); rename them in "
        "the drawing, or give --replace to put the drawing's pieces in their place\n"
    )
    assert field.read_bytes() == before
    again = scenario(runner, "import-svg", str(field), str(drawing), "--replace", "--json")
    assert json.loads(again.output) == {
        "file": "field.yaml",
        "added": [],
        "replaced": ["wood-a", "road-a"],
        "left_out": [
            "path7: no terrain kind in its label 'sketch'",
            "lake-z: no part of it lies on the 72 x 48 table",
        ],
    }
    assert field.read_bytes() == before


def test_import_svg_refuses_a_drawing_of_another_table(
    runner: CliRunner, field: Path, tmp_path: Path, fake_svg: list[tuple[object, ...]]
) -> None:
    before = field.read_bytes()
    out = scenario(
        runner, "import-svg", str(field), str(tmp_path / "t.svg"), "--table", "60x40", code=2
    )
    assert out.output == (
        "Error: t.svg: its table is 60 x 40 but field.yaml's is 72 x 48; give --table 72x48 or "
        "draw the 'table' rectangle to the table's size\n"
    )
    assert field.read_bytes() == before


@pytest.mark.parametrize("name", ["crossroads", "large"])
def test_an_edit_to_a_bundled_scenario_inserts_one_line(
    runner: CliRunner, tmp_path: Path, name: str
) -> None:
    from tabletop.data.resources import bundled_scenario

    original = bundled_scenario(name).read_text(encoding="utf-8")
    path = tmp_path / f"{name}.yaml"
    path.write_text(original, encoding="utf-8")
    scenario(runner, "terrain", str(path), "crater", "--circle", "2,2,1", "--id", "hole")
    before, after = original.splitlines(), path.read_text(encoding="utf-8").splitlines()
    added = [line for line in after if line not in before]
    assert len(after) == len(before) + 1 and len(added) == 1
    assert added[0].startswith("  - {id: hole, kind: crater, polygon: [[3, 2], ")
    assert [line for line in after if line != added[0]] == before


def test_an_edit_is_checked_with_the_charts_new_would_use(
    runner: CliRunner, field: Path, tmp_path: Path
) -> None:
    overlay = tmp_path / "house"
    overlay.mkdir()
    (overlay / "weapons.yaml").write_text(
        "entries:\n"
        "  - {id: piat, rule: house, calibre_mm: 88, rof: 1, ranges: {close: 2, medium: 4, "
        "long: 6}, to_hit: {close: 6, medium: 4, long: 2}}\n"
    )
    roster = tmp_path / "roster.csv"
    roster.write_text("id,side,kind,weapons\nB-1,USA,infantry,piat\n")
    before = field.read_bytes()
    refused = scenario(runner, "stands", str(field), "--csv", str(roster), code=2)
    assert "roster.csv row 2 (B-1): weapons[0]: unknown weapon 'piat'" in refused.output
    assert field.read_bytes() == before
    scenario(runner, "stands", str(field), "--csv", str(roster), "--charts", str(overlay))
    scenario(runner, "check", str(field), "--charts", str(overlay))


def test_the_roer_table_is_rebuilt_from_its_drawing_and_roster_by_the_commands_alone(
    runner: CliRunner, tmp_path: Path
) -> None:
    """The bundled roer scenario, built as a referee builds their own: an empty file, the
    drawing, the roster (whose formations the file does not declare yet)."""
    from tabletop.data.resources import bundled_scenario

    bundled = bundled_scenario("roer")
    path = tmp_path / "roer.yaml"
    scenario(runner, "new", str(path), "--table", "48x36", "--side", "USA", "--side", "Germany")
    drawn = scenario(runner, "import-svg", str(path), str(bundled.with_suffix(".svg")))
    assert drawn.output.splitlines()[-1] == (
        "    'north-arrow': no terrain kind in its label, its layer's label or its class"
    )
    roster = bundled.with_name("roer-roster.csv")
    out = scenario(runner, "stands", str(path), "--csv", str(roster), "--json")
    assert json.loads(out.output)["added"][:3] == ["G-1", "G-2", "G-3"]
    built, shipped = read_scenario(path).scenario, read_scenario(bundled).scenario

    def pieces(sc: Any) -> list[tuple[object, ...]]:
        return [(p.id, p.kind, p.polygon, p.line, p.width, p.height) for p in sc.terrain]

    def stands(sc: Any) -> dict[str, tuple[object, ...]]:
        return {
            s.id: (side.name, s.kind, s.quality, s.formation, s.weapons, s.at, s.facing)
            for side in sc.sides
            for s in side.stands
        }

    assert pieces(built) == pieces(shipped)
    assert stands(built) == stands(shipped)
    usa = {f.id: (f.kind, f.parent) for f in built.sides[0].formations}
    assert usa == {
        "2/329": ("battalion", None),
        "E/2/329": ("company", "2/329"),
        "H/2/329": ("company", "2/329"),
        "C/774-Tk": ("company", None),
    }


def test_a_roster_declares_the_formations_it_names(runner: CliRunner, field: Path) -> None:
    roster = field.with_name("roster.csv")
    roster.write_text(
        "id,side,kind,quality,weapons,formation,x,y,facing\n"
        "A-1,USA,infantry,regular,rifle,1/A/1/7,10,10,0\n"
        "A-S,USA,supply,regular,,1/7,12,6,0\n"
        "A-2,USA,infantry,regular,rifle,A/1/7,14,10,0\n",
        encoding="utf-8",
    )
    out = scenario(runner, "stands", str(field), "--csv", str(roster))
    assert out.output.splitlines()[-1] == (
        "  formations added for USA: 1/7 (regiment), A/1/7 (battalion of 1/7), 1/A/1/7 "
        "(company of A/1/7); correct a kind or parent in the file if it is not so"
    )
    assert "      - {id: 1/7, kind: regiment, parent: null}\n" in field.read_text()
