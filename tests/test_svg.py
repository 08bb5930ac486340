"""Terrain from a drawing (issue 30, item 3): ``tabletop.setup.svg.read_svg``.

Each drawing here is written out in full, so every number asserted can be worked out by hand
from it: the transforms, the scale (user units per inch) and SVG's downward y turned north-up.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from shapely import LineString, Point, Polygon

from tabletop.core.errors import ScenarioError
from tabletop.setup.svg import TOLERANCE, SvgImport, read_svg

KINDS = ("woods", "hill", "road-dirt", "river", "swamp", "ford", "bridge")
INKSCAPE = 'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"'
# A 72" x 48" table drawn at 10 user units to the inch, on a page 72in x 48in.
HEAD = (
    f'<svg xmlns="http://www.w3.org/2000/svg" {INKSCAPE} width="72in" height="48in" '
    'viewBox="0 0 720 480">'
)
TABLE = '<rect inkscape:label="table" x="0" y="0" width="720" height="480" fill="none"/>'


def drawing(tmp_path: Path, body: str, head: str = HEAD, name: str = "table.svg") -> Path:
    path = tmp_path / name
    path.write_text(f"{head}\n{body}\n</svg>\n", encoding="utf-8")
    return path


def read(tmp_path: Path, body: str, table: tuple[float, float] | None = None) -> SvgImport:
    return read_svg(drawing(tmp_path, body), KINDS, table)


def refusal(tmp_path: Path, body: str, head: str = HEAD, table: tuple[float, float] | None = None):
    path = drawing(tmp_path, body, head)
    with pytest.raises(ScenarioError) as caught:
        read_svg(path, KINDS, table)
    return str(caught.value).replace(str(path), "DRAWING")


# --- transforms, scale and axes ------------------------------------------------------------


def test_a_rect_under_nested_translate_rotate_scale_groups(tmp_path: Path) -> None:
    # rect 10x5 uu, scaled x2 -> 20x10, turned 30 degrees clockwise on the page, moved to
    # (300, 200) uu = (30", 20") from the page's top-left: its corners (30, 20),
    # (47.32, 30), (42.32, 38.66), (25, 28.66) inches down the page, y = 48 - that.
    found = read(
        tmp_path,
        TABLE
        + '<g transform="translate(300,200)"><g transform="rotate(30)"><g transform="scale(2)">'
        '<rect id="wood-a" inkscape:label="woods" x="0" y="0" width="100" height="50"/>'
        "</g></g></g>",
    )
    assert (found.width, found.depth) == (72, 48)
    assert found.pieces == (
        {
            "id": "wood-a",
            "kind": "woods",
            "polygon": [[30, 28], [25, 19.34], [42.32, 9.34], [47.32, 18]],
        },
    )
    shape = Polygon(found.pieces[0]["polygon"])  # type: ignore[arg-type]
    assert shape.bounds == (25, 9.34, 47.32, 28)
    assert shape.area == pytest.approx(200, abs=0.01)
    assert found.left_out == ()


def test_a_transform_on_the_shape_itself_and_a_matrix_on_its_layer(tmp_path: Path) -> None:
    # The layer's matrix moves everything 100 uu right and 40 down; the 10" square turned
    # 45 degrees about its own centre, then at (250, 290) uu, is a diamond of half-diagonal
    # 7.07" around (25, 19): its area 2 x 7.07**2 with the corners rounded to 0.01".
    found = read(
        tmp_path,
        TABLE + '<g inkscape:groupmode="layer" inkscape:label="swamp" '
        'transform="matrix(1,0,0,1,100,40)">'
        '<rect id="bog" x="100" y="200" width="100" height="100" transform="rotate(45 150 250)"/>'
        "</g>",
    )
    (piece,) = found.pieces
    shape = Polygon(piece["polygon"])  # type: ignore[arg-type]
    assert piece["kind"] == "swamp"
    assert shape.bounds == (17.93, 11.93, 32.07, 26.07)
    assert shape.area == pytest.approx(99.9698)
    assert shape.centroid.x == pytest.approx(25) and shape.centroid.y == pytest.approx(19)


def test_a_table_rectangle_on_a_photo_sized_page_sets_the_scale_and_origin(tmp_path: Path) -> None:
    # A 1000x700 px photo; the table's edges are drawn from (100, 50) to (820, 530) px, a
    # 720x480 px box given as 72x48 inches: 10 px to the inch, the origin at (100, 530).
    head = f'<svg xmlns="http://www.w3.org/2000/svg" {INKSCAPE} width="1000" height="700">'
    body = (
        '<rect class="table" x="100" y="50" width="720" height="480"/>'
        '<circle id="h1" inkscape:label="hill 2" cx="460" cy="290" r="50"/>'
    )
    found = read_svg(drawing(tmp_path, body, head), KINDS, (72, 48))
    (hill,) = found.pieces
    assert (hill["id"], hill["kind"], hill["height"]) == ("h1", "hill", 2)
    shape = Polygon(hill["polygon"])  # type: ignore[arg-type]
    assert shape.bounds == (31, 19, 41, 29)
    # The circle of 5" is flattened within 0.05": the polygon's corners lie on it (to the
    # 0.01" rounding) and its sides stray inside by less than the tolerance.
    assert shape.area == pytest.approx(math.pi * 25, abs=math.tau * 5 * TOLERANCE)
    for x, y in hill["polygon"]:  # type: ignore[attr-defined]
        assert math.hypot(x - 36, y - 24) == pytest.approx(5, abs=0.01)
    assert Point(36, 24).buffer(5 - TOLERANCE, quad_segs=256).within(shape)
    assert len(hill["polygon"]) == 28  # type: ignore[arg-type]


def test_the_table_size_in_the_rectangles_label(tmp_path: Path) -> None:
    head = f'<svg xmlns="http://www.w3.org/2000/svg" {INKSCAPE} width="800" height="600">'
    body = (
        '<rect inkscape:label="table 60x30" x="0" y="0" width="600" height="300"/>'
        '<rect id="w" class="woods" x="0" y="0" width="100" height="100"/>'
    )
    found = read_svg(drawing(tmp_path, body, head), KINDS, None)
    assert (found.width, found.depth) == (60, 30)
    assert found.pieces[0]["polygon"] == [[0, 30], [0, 20], [10, 20], [10, 30]]


def test_the_table_argument_maps_the_whole_page_when_no_rectangle_is_labelled(
    tmp_path: Path,
) -> None:
    head = f'<svg xmlns="http://www.w3.org/2000/svg" {INKSCAPE} width="480" height="240">'
    body = '<polygon id="p" class="woods" points="0,0 120,0 120,60"/>'
    found = read_svg(drawing(tmp_path, body, head), KINDS, (48, 24))
    assert found.pieces == ({"id": "p", "kind": "woods", "polygon": [[0, 24], [12, 18], [12, 24]]},)


# --- curves --------------------------------------------------------------------------------


def cubic(p: list[tuple[float, float]], t: float) -> tuple[float, float]:
    u = 1 - t
    weights = (u**3, 3 * u * u * t, 3 * u * t * t, t**3)
    return (
        sum(w * q[0] for w, q in zip(weights, p, strict=True)),
        sum(w * q[1] for w, q in zip(weights, p, strict=True)),
    )


def test_a_bezier_curve_is_flattened_within_the_tolerance(tmp_path: Path) -> None:
    # A river drawn as one S-shaped cubic from the west edge to the east edge, 1.5" wide.
    found = read(
        tmp_path,
        TABLE + '<path id="r" class="river" fill="none" stroke="blue" stroke-width="15" '
        'd="M 0 240 C 240 -100 480 580 720 240"/>',
    )
    (river,) = found.pieces
    assert (river["kind"], river["width"]) == ("river", 1.5)
    points = river["line"]
    assert points[0] == [0, 24] and points[-1] == [72, 24]  # type: ignore[index]
    assert len(points) == 45  # type: ignore[arg-type]
    flat = LineString(points)  # type: ignore[arg-type]
    control = [(0.0, 24.0), (24.0, 58.0), (48.0, -10.0), (72.0, 24.0)]
    # The true curve is at most 0.05" from the flattened one, everywhere along it.
    worst = max(flat.distance(Point(cubic(control, i / 2000))) for i in range(2001))
    assert worst <= TOLERANCE
    assert worst == pytest.approx(0.0266, abs=0.0001)


def test_an_arc_in_a_path_is_flattened_within_the_tolerance(tmp_path: Path) -> None:
    # A half-disc hill: a flat south side and an arc of radius 10" bulging north.
    found = read(
        tmp_path,
        TABLE + '<path id="dome" inkscape:label="hill" d="M 260 300 A 100 100 0 0 1 460 300 Z"/>',
    )
    (hill,) = found.pieces
    shape = Polygon(hill["polygon"])  # type: ignore[arg-type]
    assert shape.bounds == (26, 18, 46, 28)
    half_disc = (
        Point(36, 18)
        .buffer(10, quad_segs=512)
        .intersection(Polygon([(26, 18), (46, 18), (46, 29), (26, 29)]))
    )
    assert half_disc.hausdorff_distance(shape) <= TOLERANCE
    assert "height" not in hill


# --- labels --------------------------------------------------------------------------------


def test_an_inkscape_layer_label_gives_its_shapes_their_kind(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        TABLE + '<g inkscape:groupmode="layer" id="layer1" inkscape:label="Woods">'
        '<rect id="w-1" x="0" y="0" width="50" height="50"/>'
        '<g id="g7"><rect x="100" y="0" width="50" height="50"/></g>'
        '<rect x="200" y="0" width="50" height="50" inkscape:label="hill"/>'
        "</g>",
    )
    assert [(p["id"], p["kind"]) for p in found.pieces] == [
        ("w-1", "woods"),
        ("woods-1", "woods"),
        ("hill-1", "hill"),
    ]


def test_a_class_gives_the_kind_and_an_open_path_its_stroke_as_width(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        TABLE + '<polyline id="lane" class="muddy road-dirt" points="0,100 300,100 300,480" '
        'fill="none" stroke="brown" stroke-width="8"/>'
        '<line id="ford-a" class="ford" x1="350" y1="300" x2="350" y2="340" stroke-width="20"/>',
    )
    assert found.pieces == (
        {"id": "lane", "kind": "road-dirt", "line": [[0, 38], [30, 38], [30, 0]], "width": 0.8},
        {"id": "ford-a", "kind": "ford", "line": [[35, 18], [35, 14]], "width": 2},
    )


def test_uses_nested_drawings_and_hidden_layers(tmp_path: Path) -> None:
    # A shape in <defs> is drawn only where a <use> draws it (with the use's id and place);
    # a hidden layer draws nothing; a nested <svg> scales its own viewBox into place.
    found = read(
        tmp_path,
        TABLE + '<defs><rect id="proto" class="woods" x="0" y="0" width="20" height="10"/></defs>'
        '<use id="copse-a" href="#proto" x="100" y="100"/>'
        '<use id="copse-b" href="#proto" x="300" y="100"/>'
        '<g inkscape:groupmode="layer" inkscape:label="woods" style="display:none">'
        '<rect id="hidden" x="0" y="0" width="10" height="10"/></g>'
        '<svg x="200" y="0" width="100" height="100" viewBox="0 0 10 10">'
        '<rect id="inner" inkscape:label="Hill 2" x="0" y="0" width="5" height="5"/></svg>'
        '<polyline id="lane" inkscape:label="Road_dirt" points="0,200 100,200" stroke-width="5"/>',
    )
    assert found.pieces == (
        {"id": "copse-a", "kind": "woods", "polygon": [[10, 38], [10, 37], [12, 37], [12, 38]]},
        {"id": "copse-b", "kind": "woods", "polygon": [[30, 38], [30, 37], [32, 37], [32, 38]]},
        {
            "id": "inner",
            "kind": "hill",
            "polygon": [[20, 48], [20, 43], [25, 43], [25, 48]],
            "height": 2,
        },
        {"id": "lane", "kind": "road-dirt", "line": [[0, 28], [10, 28]], "width": 0.5},
    )


def test_unlabelled_shapes_are_left_out_and_listed(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        TABLE + '<g inkscape:groupmode="layer" inkscape:label="Photo">'
        '<rect id="rect12" x="0" y="0" width="50" height="50"/>'
        '<circle class="marker" cx="100" cy="100" r="5"/>'
        "</g>"
        '<rect id="w" inkscape:label="Big wood" x="0" y="0" width="5" height="5" class="woods"/>'
        '<text x="10" y="10">Hill 112</text>',
    )
    assert [p["id"] for p in found.pieces] == ["w"]
    assert found.left_out == (
        "'rect12': no terrain kind in its label, its layer's label or its class (labelled 'Photo')",
        "a circle with no id: no terrain kind in its label, its layer's label or its class "
        "(labelled 'Photo'; class 'marker')",
    )


def test_shapes_off_the_table_are_clipped_or_left_out(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        TABLE + '<polyline id="river" class="river" points="-100,240 820,240" stroke-width="20"/>'
        '<rect id="out" class="woods" x="800" y="0" width="50" height="50"/>'
        '<rect id="edge" class="woods" x="-50" y="-50" width="100" height="100"/>'
        '<polygon id="bow" class="swamp" points="0,0 100,100 100,0 0,100"/>',
    )
    assert found.pieces == (
        {"id": "river", "kind": "river", "line": [[0, 24], [72, 24]], "width": 2},
        {"id": "edge", "kind": "woods", "polygon": [[5, 43], [5, 48], [0, 48], [0, 43]]},
    )
    assert found.left_out == (
        "'out' (woods): it lies off the table",
        "'bow' (swamp): its outline crosses itself",
    )


def test_made_up_ids_never_take_an_id_of_the_drawing(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        TABLE + '<rect class="woods" x="0" y="0" width="50" height="50"/>'
        '<rect id="woods-1" class="woods" x="100" y="0" width="50" height="50"/>'
        '<path id="twin" class="woods" d="M 200 0 h 50 v 50 z M 300 0 h 50 v 50 z"/>'
        '<rect id="twin-2" class="woods" x="400" y="0" width="50" height="50"/>',
    )
    assert [p["id"] for p in found.pieces] == ["woods-2", "woods-1", "twin-1", "woods-3", "twin-2"]


# --- refusals ------------------------------------------------------------------------------


def test_a_turned_table_rectangle_is_refused(tmp_path: Path) -> None:
    body = (
        '<rect inkscape:label="table" x="0" y="0" width="720" height="480" transform="rotate(3)"/>'
    )
    assert refusal(tmp_path, body) == (
        "DRAWING: the rectangle labelled 'table' is turned 3.0 degrees on the page: the "
        "table's edges must lie square to the page (turn the whole drawing)"
    )


def test_a_drawing_with_no_scale_is_refused(tmp_path: Path) -> None:
    body = '<rect class="woods" x="0" y="0" width="5" height="5"/>'
    assert refusal(tmp_path, body) == (
        "DRAWING: no scale: draw a rectangle labelled 'table' over the table's edges, "
        "or give the table's size (--table WxD)"
    )


def test_a_pixel_drawing_with_a_table_rectangle_of_no_size_is_refused(tmp_path: Path) -> None:
    head = f'<svg xmlns="http://www.w3.org/2000/svg" {INKSCAPE} width="800" height="600">'
    body = '<rect inkscape:label="table" x="0" y="0" width="720" height="480"/>'
    assert refusal(tmp_path, body, head) == (
        "DRAWING: no scale: the drawing is in pixels, so the rectangle labelled 'table' needs "
        "the table's size: label it 'table 72x48' or give --table WxD"
    )


def test_width_and_depth_swapped_are_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path, TABLE, table=(48, 72)) == (
        "DRAWING: a 48 x 72 table does not fit the rectangle labelled 'table', drawn 1.50 "
        "times as wide as deep (width and depth swapped?)"
    )


def test_two_table_rectangles_and_a_table_that_is_not_a_rectangle_are_refused(
    tmp_path: Path,
) -> None:
    two = TABLE + '<rect id="t2" class="table" x="0" y="0" width="72" height="48"/>'
    assert refusal(tmp_path, two) == (
        "DRAWING: 2 shapes are labelled 'table' (a rect with no id, 't2')"
    )
    circle = '<circle id="c" inkscape:label="table" cx="5" cy="5" r="5"/>'
    assert refusal(tmp_path, circle) == "DRAWING: the shape labelled 'table' ('c') is not a rect"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<svg><rect", r"DRAWING: not a readable SVG drawing \(.+\)"),
        ("not xml at all", r"DRAWING: not a readable SVG drawing \(.+\)"),
    ],
)
def test_an_unreadable_drawing_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "broken.svg"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        read_svg(path, KINDS, (72, 48))
    assert re.fullmatch(message, str(caught.value).replace(str(path), "DRAWING"))


def test_a_missing_drawing_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"nope\.svg: no such drawing$"):
        read_svg(tmp_path / "nope.svg", KINDS, (72, 48))
