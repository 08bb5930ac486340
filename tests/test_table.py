"""Table geometry: range, bearing, line of sight, the sight matrix and templates."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from tabletop.table import (
    Base,
    Piece,
    Table,
    base_polygon,
    base_polygons,
    beam,
    bearing,
    build_table,
    circle,
    coverage,
    distance,
    line_of_sight,
    point_distance,
    sight_matrix,
    sight_pairs,
    strip,
    within,
)
from tabletop.table.terrain import piece_geometries


def rect(x0: float, y0: float, x1: float, y1: float) -> tuple[tuple[float, float], ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def wood(pid: str, polygon: tuple[tuple[float, float], ...], see_into: float = 2.0) -> Piece:
    return Piece(pid, "woods", polygon=polygon, blocks=True, height=1.0, see_into=see_into)


def hill(pid: str, polygon: tuple[tuple[float, float], ...], height: float) -> Piece:
    return Piece(pid, "hill", polygon=polygon, ground=True, height=height)


# A 100" x 100" field with one band of terrain per kind of case, so cases do not interfere.
FIELD_PIECES = (
    wood("wood", rect(20, 10, 30, 20)),  # band y = 15
    Piece("road", "road-dirt", line=((35, 22), (35, 28)), width=1.0),  # band y = 25
    Piece("river", "river", polygon=rect(40, 22, 42, 28)),
    hill("hill-2", rect(0, 30, 10, 40), 2.0),  # band y = 35
    wood("copse", rect(14, 32, 16, 38)),
    hill("knoll", rect(0, 50, 10, 60), 2.0),  # band y = 55
    hill("ridge", rect(15, 50, 20, 60), 1.0),
    hill("far-knoll", rect(90, 50, 100, 60), 2.0),
    hill("plateau", rect(20, 65, 80, 85), 2.0),  # band y = 75
    wood("hilltop-wood", rect(45, 70, 55, 80)),
)
SMOKE = (("smoke-1", rect(50, 88, 52, 96)),)  # band y = 92


def test_piece_geometries_are_the_shapes_of_each_piece_alone():
    # The table builds all its shapes with one shapely call per kind; each must be exactly
    # the shape the piece gives on its own: its polygon, or its line buffered with flat caps.
    alone = []
    for p in FIELD_PIECES:
        if p.polygon is not None:
            alone.append(shapely.polygons(p.polygon))
        else:
            alone.append(shapely.buffer(shapely.linestrings(p.line), p.width / 2, cap_style="flat"))
    together = piece_geometries(FIELD_PIECES)
    assert [shapely.to_wkb(g) for g in together] == [shapely.to_wkb(g) for g in alone]
    assert len(piece_geometries(())) == 0


@pytest.fixture(scope="module")
def field() -> Table:
    return build_table(100, 100, FIELD_PIECES)


def los(name, a, b, blocked_by, crossed, smoke=False):
    """One worked case: the verdict follows from `blocked_by`; `crossed` lists
    (piece id, blocks, entry point) in order from a."""
    return pytest.param(a, b, smoke, tuple(blocked_by), crossed, id=name)


W, R, C = "wood", "ridge", "copse"
LOS_CASES = [
    los("open ground", (2, 5), (98, 5), [], []),
    los("wood between", (10, 15), (40, 15), [W], [(W, True, (20, 15))]),
    los("wood between, reversed", (40, 15), (10, 15), [W], [(W, True, (30, 15))]),
    los("in wood 1in from edge sees out", (21, 15), (10, 15), [], [(W, False, (21, 15))]),
    los("in wood 3in deep does not", (23, 15), (10, 15), [W], [(W, True, (23, 15))]),
    los("target in wood at its edge", (10, 15), (20.5, 15), [], [(W, False, (20, 15))]),
    los("both in wood 1.5in apart", (24, 15), (25.5, 15), [], [(W, False, (24, 15))]),
    los("both in wood 3in apart", (24, 15), (27, 15), [W], [(W, True, (24, 15))]),
    los(
        "road and river never block",
        (30, 25),
        (50, 25),
        [],
        [("road", False, (34.5, 25)), ("river", False, (40, 25))],
    ),
    los(
        "level-2 hill sees over low wood",
        (5, 35),
        (40, 35),
        [],
        [("hill-2", False, (5, 35)), (C, False, (14, 35))],
    ),
    los(
        "dead ground just behind the wood",
        (5, 35),
        (18, 35),
        [C],
        [("hill-2", False, (5, 35)), (C, True, (14, 35))],
    ),
    los("hill between two valleys", (12, 55), (80, 55), [R], [(R, True, (15, 55))]),
    los("stand on the ridge sees off it", (17, 55), (80, 55), [], [(R, False, (17, 55))]),
    los("stand on the ridge is seen on it", (80, 55), (17, 55), [], [(R, False, (20, 55))]),
    los(
        "level 2 over level 1 hill, far target",
        (5, 55),
        (95, 55),
        [],
        [("knoll", False, (5, 55)), (R, False, (15, 55)), ("far-knoll", False, (90, 55))],
    ),
    los(
        "level 2 over level 1 hill, near target",
        (5, 55),
        (25, 55),
        [R],
        [("knoll", False, (5, 55)), (R, True, (15, 55))],
    ),
    los(
        "wood on a hill blocks between level-2 points",
        (30, 75),
        (70, 75),
        ["hilltop-wood"],
        [("plateau", False, (30, 75)), ("hilltop-wood", True, (45, 75))],
    ),
    los("plateau alone does not block", (30, 68), (70, 68), [], [("plateau", False, (30, 68))]),
    los(
        "smoke blocks",
        (10, 92),
        (90, 92),
        ["smoke-1"],
        [("smoke-1", True, (50, 92))],
        smoke=True,
    ),
    los("no smoke, clear", (10, 92), (90, 92), [], []),
]


@pytest.mark.parametrize(("a", "b", "with_smoke", "blocked_by", "crossed"), LOS_CASES)
def test_line_of_sight_cases(field, a, b, with_smoke, blocked_by, crossed):
    smoke = SMOKE if with_smoke else ()
    sight = line_of_sight(field, a, b, smoke=smoke)
    assert sight.clear is (not blocked_by)
    assert sight.blocked_by == blocked_by
    assert [(c.piece_id, c.blocks) for c in sight.crossings] == [
        (pid, blocks) for pid, blocks, _ in crossed
    ]
    for crossing, (_, _, entry) in zip(sight.crossings, crossed, strict=True):
        assert crossing.entry == pytest.approx(entry)
        assert crossing.reason
    assert line_of_sight(field, b, a, smoke=smoke).clear is (not blocked_by)


def test_a_wood_crossing_reports_its_exit_depth_top_and_reason(field):
    sight = line_of_sight(field, (10, 15), (40, 15))
    (crossing,) = sight.crossings
    assert crossing.kind == "woods"
    assert crossing.exit == pytest.approx((30, 15))
    assert crossing.inside == pytest.approx(10.0)
    assert crossing.top == 1.0
    assert crossing.line_level == 0.0
    assert crossing.reason == 'rises to level 1.0 above the sight line at 0.0; 10.0" inside'


def test_see_into_reasons(field):
    out = line_of_sight(field, (21, 15), (10, 15)).crossings[0]
    assert out.inside == pytest.approx(1.0)
    assert out.reason == (
        'A stands inside it; the sight line runs 1.0" inside, within the see-into depth 2.0"'
    )
    deep = line_of_sight(field, (23, 15), (10, 15)).crossings[0]
    assert deep.reason == (
        'rises to level 1.0 above the sight line at 0.0; 3.0" inside, more than the '
        '2.0" a stand can see into it'
    )
    seen = line_of_sight(field, (10, 15), (20.5, 15)).crossings[0]
    assert seen.reason == (
        'B stands inside it; the sight line runs 0.5" inside, within the see-into depth 2.0"'
    )


def test_sight_line_levels_over_hills_and_the_tops_of_pieces(field):
    sight = line_of_sight(field, (30, 75), (70, 75))
    assert (sight.level_a, sight.level_b) == (2.0, 2.0)
    wood_crossing = sight.crossings[1]
    assert wood_crossing.top == 3.0  # level-2 hill + a wood 1 level high
    assert wood_crossing.line_level == 2.0
    over = line_of_sight(field, (5, 35), (40, 35)).crossings[1]
    assert over.line_level == pytest.approx(2 * (1 - 11 / 35))
    assert over.reason == 'sight line at 1.37 passes over its top 1.0; 2.0" inside'


def test_smoke_reported_with_infinite_top(field):
    (crossing,) = line_of_sight(field, (10, 92), (90, 92), smoke=SMOKE).crossings
    assert crossing.kind == "smoke"
    assert crossing.top == math.inf
    assert crossing.exit == pytest.approx((52, 92))


def test_smoke_blocks_whatever_the_levels(field):
    smoke = (("smoke-2", rect(50, 72, 52, 74)),)
    assert line_of_sight(field, (30, 68), (70, 68)).clear
    assert not line_of_sight(field, (30, 73), (70, 73), smoke=smoke).clear
    assert line_of_sight(field, (30, 68), (70, 68), smoke=smoke).clear


@pytest.mark.parametrize(
    ("ring", "message"),
    [
        (((0, 0), (1, 1)), "smoke 'bad': not a polygon"),
        ((*rect(0, 0, 2, 2)[:2], (0, 2), (2, 2)), "Self-intersection"),
    ],
)
def test_bad_smoke_polygon(field, ring, message):
    with pytest.raises(ValueError, match=message):
        line_of_sight(field, (1, 1), (5, 5), smoke=[("bad", ring)])


def test_concave_piece_several_stretches():
    u_wood = wood("u", ((10, 0), (12, 0), (12, 8), (18, 8), (18, 0), (20, 0), (20, 10), (10, 10)))
    table = build_table(30, 20, [u_wood])
    sight = line_of_sight(table, (0, 5), (30, 5))
    (crossing,) = sight.crossings
    assert crossing.entry == pytest.approx((10, 5))
    assert crossing.exit == pytest.approx((20, 5))
    assert crossing.inside == pytest.approx(4.0)
    assert sight.blocked_by == ("u",)
    # Above the gap the wood is solid: 10" inside.
    assert line_of_sight(table, (0, 9), (30, 9)).crossings[0].inside == pytest.approx(10.0)


@pytest.mark.parametrize(
    ("a", "b", "crossed"),
    [
        ((0, 5), (30, 5), True),  # straight through
        ((0, 0), (30, 30), False),  # passes the corner (10, 10) only
        ((0, 0), (10, 10), False),  # ends on the corner
        ((10, 15), (10, 25), False),  # starts off the wood, heads away from it
        ((0, 10), (30, 10), True),  # along the top edge: boundary counts as inside
    ],
)
def test_zero_length_touches_do_not_count(a, b, crossed):
    table = build_table(30, 30, [wood("w", rect(10, 0, 20, 10))])
    sight = line_of_sight(table, a, b)
    assert bool(sight.crossings) is crossed
    assert sight.clear is not crossed


def test_same_point_is_clear(field):
    for xy in [(5, 5), (25, 15), (5, 35)]:
        sight = line_of_sight(field, xy, xy)
        assert sight.clear
        assert sight.crossings == ()
    assert line_of_sight(field, (25, 15), (25, 15), smoke=SMOKE).clear


def test_an_empty_table_blocks_nothing_and_lies_at_level_0():
    table = build_table(10, 10, [])
    assert line_of_sight(table, (1, 1), (9, 9)).clear
    assert sight_matrix(table, [(1, 1), (9, 9), (5, 5)]).all()
    assert table.ground_level(5, 5) == 0.0
    assert table.pieces_at(5, 5) == []


# --- the table itself --------------------------------------------------------------------


def test_ground_level_boundary_and_nesting():
    table = build_table(
        20, 20, [hill("low", rect(0, 0, 10, 10), 1.0), hill("top", rect(2, 2, 4, 4), 2.0)]
    )
    assert table.ground_level(10, 5) == 1.0  # edge counts as on the hill
    assert table.ground_level(3, 3) == 2.0
    assert table.ground_level(4, 4) == 2.0
    assert table.ground_level(15, 15) == 0.0


def test_pieces_at_in_scenario_order(field):
    assert [p.id for p in field.pieces_at(50, 75)] == ["plateau", "hilltop-wood"]
    assert [p.id for p in field.pieces_at(20, 15)] == ["wood"]
    assert field.pieces_at(50, 5) == []


def test_on_table_and_geometry(field):
    assert field.on_table(0, 0)
    assert field.on_table(100, 100)
    assert not field.on_table(-0.1, 5)
    assert field.geometry("river").area == pytest.approx(12.0)
    # A road is its line buffered with flat caps: 1" wide, exactly 6" long.
    assert field.geometry("road").area == pytest.approx(6.0)
    with pytest.raises(KeyError, match="'nowhere'"):
        field.geometry("nowhere")


@pytest.mark.parametrize(
    ("pieces", "message"),
    [
        ([wood("w", rect(0, 0, 1, 1)), wood("w", rect(2, 2, 3, 3))], "'w' is used twice"),
        ([wood("bow", ((0, 0), (2, 2), (2, 0), (0, 2)))], "'bow': invalid shape"),
        ([Piece("flat", "road", line=((1, 1), (1, 1)), width=1)], "'flat': its shape covers"),
    ],
)
def test_build_table_rejects_bad_terrain(pieces, message):
    with pytest.raises(ValueError, match=message):
        build_table(10, 10, pieces)


def test_build_table_rejects_bad_size():
    with pytest.raises(ValueError, match="table size must be positive"):
        build_table(0, 10, [])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one of 'polygon' or 'line'"),
        ({"polygon": rect(0, 0, 1, 1), "line": ((0, 0), (1, 1))}, "exactly one"),
        ({"polygon": ((0, 0), (1, 1))}, "at least 3 points"),
        ({"line": ((0, 0),), "width": 1}, "at least 2 points"),
        ({"line": ((0, 0), (1, 1))}, "positive width"),
        ({"polygon": rect(0, 0, 1, 1), "see_into": -1}, "see_into must be >= 0"),
        ({"polygon": ((0, 0), (1, 0), (1, math.nan))}, "finite"),
    ],
)
def test_piece_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Piece("p", "woods", **kwargs)


def test_piece_freezes_lists():
    piece = Piece("p", "woods", polygon=[[0, 0], [1, 0], [1, 1]])  # type: ignore[arg-type]
    assert piece.polygon == ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0))
    hash(piece)


# --- range and bearing -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "edge", "centre"),
    [
        (Base("a", 0, 0, 1, 1), Base("b", 5, 0, 1, 1), 4.0, 5.0),
        (Base("a", 0, 0, 1, 1), Base("b", 3, 4, 1, 1), math.hypot(2, 3), 5.0),
        # Facing east: the 2" width runs north-south, the 1" depth east-west.
        (Base("a", 0, 0, 2, 1, facing=90), Base("b", 5, 0, 1, 1), 4.0, 5.0),
        (Base("a", 0, 0, 2, 1, facing=0), Base("b", 5, 0, 1, 1), 3.5, 5.0),
        (Base("a", 0, 0, 2, 2, facing=45), Base("b", 5, 0, 1, 1), 4.5 - math.sqrt(2), 5.0),
        (Base("a", 0, 0, 2, 2), Base("b", 2, 0, 2, 2), 0.0, 2.0),  # touching
        (Base("a", 0, 0, 2, 2), Base("b", 1, 1, 2, 2), 0.0, math.sqrt(2)),  # overlapping
    ],
)
def test_edge_and_centre_distances_between_bases(a, b, edge, centre):
    assert distance(a, b) == pytest.approx(edge, abs=1e-12)
    assert distance(a, b, "edge") == pytest.approx(edge, abs=1e-12)
    assert distance(a, b, "centre") == pytest.approx(centre)
    assert within(a, b, edge + 1e-9)
    assert not within(a, b, edge - 0.01) or edge == 0.0
    assert within(a, b, centre, measure="centre")


def test_an_unknown_measure_is_a_value_error():
    a, b = Base("a", 0, 0, 1, 1), Base("b", 5, 0, 1, 1)
    with pytest.raises(ValueError, match="unknown measure: 'center'"):
        distance(a, b, "center")
    with pytest.raises(ValueError, match="unknown measure"):
        within(a, b, 3, measure="nearest")


def test_base_polygon_orientation():
    north = base_polygon(Base("a", 10, 10, 4, 2))
    assert north.bounds == pytest.approx((8, 9, 12, 11))
    east = base_polygon(Base("a", 10, 10, 4, 2, facing=90))
    assert east.bounds == pytest.approx((9, 8, 11, 12))
    assert base_polygon(Base("a", 0, 0, 3, 2, facing=33)).area == pytest.approx(6.0)


def test_base_validation():
    with pytest.raises(ValueError, match=r"stand 'x'.*positive"):
        Base("x", 0, 0, 0, 1)


def test_a_points_distance_is_to_the_base_edge_and_0_inside():
    base = Base("a", 0, 0, 2, 2)
    assert point_distance(base, (0.5, 0.5)) == 0.0
    assert point_distance(base, (1, 0)) == 0.0
    assert point_distance(base, (4, 0)) == pytest.approx(3.0)
    assert point_distance(base, (4, 5)) == pytest.approx(5.0)


@pytest.mark.parametrize(
    ("dx", "dy", "expected"),
    [
        (0, 1, 0),
        (1, 1, 45),
        (1, 0, 90),
        (1, -1, 135),
        (0, -1, 180),
        (-1, -1, 225),
        (-1, 0, 270),
        (-1, 1, 315),
    ],
)
def test_bearing_compass_points(dx, dy, expected):
    assert bearing(10, 10, 10 + 3 * dx, 10 + 3 * dy) == pytest.approx(expected)


def test_bearing_edge_cases():
    assert bearing(5, 5, 5, 5) == 0.0
    # Just west of north: must stay below 360, never equal it.
    assert 0.0 <= bearing(0, 0, -1e-300, 1) < 360.0


# --- templates ---------------------------------------------------------------------------


def test_a_circle_template_has_its_diameter_and_refuses_0():
    burst = circle(10, 10, 4)
    assert burst.area == pytest.approx(math.pi * 4, rel=2e-3)
    assert burst.bounds == pytest.approx((8, 8, 12, 12))
    with pytest.raises(ValueError, match="diameter must be positive"):
        circle(0, 0, 0)


@pytest.mark.parametrize(
    ("bearing_deg", "bounds"),
    [(0, (9, 10, 11, 16)), (90, (10, 9, 16, 11)), (180, (9, 4, 11, 10)), (270, (4, 9, 10, 11))],
)
def test_a_strip_template_runs_along_its_bearing(bearing_deg, bounds):
    shape = strip(10, 10, bearing_deg, 2, 6)
    assert shape.area == pytest.approx(12.0)
    assert_allclose(shape.bounds, bounds, atol=1e-12)


def test_strip_rejects_empty():
    with pytest.raises(ValueError, match="length must be positive"):
        strip(0, 0, 0, 2, 0)


def test_beam_without_table_is_a_strip():
    assert beam(10, 10, 45, 2, 6).equals(strip(10, 10, 45, 2, 6))


@pytest.mark.parametrize(
    ("x", "y", "bearing_deg", "reach"),
    [
        (10, 15, 90, 12.0),  # stops 2" into the wood (its see-into depth)
        (21, 15, 270, 50.0),  # from inside the wood: shines out of it freely
        (22, 15, 90, 50.0),  # the wood it stands in never cuts it
        (30, 25, 90, 50.0),  # over road and river
        (5, 55, 90, 15.0),  # from the knoll over the ridge: dead ground just behind it
        (12, 55, 90, 8.0),  # to the far edge of the ridge, then dead ground
    ],
)
def test_beam_cut_by_terrain(field, x, y, bearing_deg, reach):
    shape = beam(x, y, bearing_deg, 2, 50, field)
    assert shape.area == pytest.approx(2 * reach, abs=1e-6)


def test_beam_stops_where_sight_starts_to_fail_inside_an_interval():
    # From level 0, past a wood it sees through (see-into 10) onto a level-3 hill: the
    # wood's near edge (5") hides the hill from 15" on, as 3 * 5 / s > 1 fails.
    table = build_table(
        72, 48, [wood("w", rect(5, 0, 10, 48), see_into=10), hill("h", rect(10, 0, 100, 48), 3)]
    )
    shape = beam(0, 24, 90, 2, 60, table)
    assert shape.bounds[2] == pytest.approx(15.0, abs=1e-6)
    assert line_of_sight(table, (0, 24), (14.99, 24)).clear
    assert not line_of_sight(table, (0, 24), (15.01, 24)).clear


def test_coverage_gives_each_base_the_fraction_under_a_template():
    burst = circle(0, 0, 4)
    bases = [
        Base("far", 10, 0, 1, 1),
        Base("inside", 0, 0, 1, 1),
        Base("half", 0, 5, 2, 2),
        Base("edge", 3, 0, 2, 2),  # touches the circle at one point only
    ]
    half_strip = strip(-5, 5, 90, 10, 10)  # y 0..10 over x -5..5
    assert coverage(half_strip, bases) == [
        ("inside", pytest.approx(0.5)),
        ("half", pytest.approx(1.0)),
        ("edge", pytest.approx(0.5)),
    ]
    result = coverage(burst, bases)
    assert [pid for pid, _ in result] == ["inside"]
    assert result[0][1] == pytest.approx(1.0)
    assert coverage(strip(1, -5, 0, 2, 10), [Base("touch", 3, 0, 2, 2)]) == []
    assert coverage(burst, []) == []


# --- invariants --------------------------------------------------------------------------

coord_x = st.floats(0, 100, allow_nan=False)
coord_y = st.floats(0, 100, allow_nan=False)
vertices = st.sampled_from([xy for piece in FIELD_PIECES if piece.polygon for xy in piece.polygon])
points = st.one_of(st.tuples(coord_x, coord_y), vertices)


@settings(deadline=None)
@given(a=points, b=points, with_smoke=st.booleans())
def test_line_of_sight_is_symmetric(field, a, b, with_smoke):
    smoke = SMOKE if with_smoke else ()
    forward = line_of_sight(field, a, b, smoke=smoke)
    backward = line_of_sight(field, b, a, smoke=smoke)
    assert forward.clear == backward.clear
    assert sorted(forward.blocked_by) == sorted(backward.blocked_by)
    entries = [c.entry for c in forward.crossings]
    distances = [math.dist(a, e) for e in entries]
    assert distances == sorted(distances)


@settings(deadline=None)
@given(a=points, b=points)
def test_inches_inside_match_shapely(field, a, b):
    segment = shapely.LineString([a, b])
    for crossing in line_of_sight(field, a, b).crossings:
        clipped = shapely.intersection(segment, field.geometry(crossing.piece_id))
        assert crossing.inside == pytest.approx(clipped.length, abs=1e-9)
        assert crossing.inside > 0


bases = st.builds(
    Base,
    id=st.just("s"),
    x=st.floats(-20, 20),
    y=st.floats(-20, 20),
    width=st.floats(0.1, 5),
    depth=st.floats(0.1, 5),
    facing=st.floats(0, 360),
)


@given(a=bases, b=bases, measure=st.sampled_from(["edge", "centre"]))
def test_distance_symmetric_and_non_negative(a, b, measure):
    there = distance(a, b, measure)
    assert there >= 0.0
    assert there == pytest.approx(distance(b, a, measure), abs=1e-9)
    assert distance(a, b) <= distance(a, b, "centre") + 1e-9


@given(
    x=st.floats(-10, 10),
    y=st.floats(-10, 10),
    diameter=st.floats(0.5, 12),
    many=st.lists(bases, max_size=6),
)
def test_coverage_fractions_in_range(x, y, diameter, many):
    result = coverage(circle(x, y, diameter), many)
    assert all(0.0 < fraction <= 1.0 for _, fraction in result)
    assert len(result) <= len(many)


def random_layout(seed: int) -> tuple[Table, list[tuple[float, float]]]:
    """A small seeded table: star-shaped woods and hills, a road, and points (some on edges)."""
    rng = np.random.default_rng(seed)
    pieces: list[Piece] = []
    for k in range(8):
        cx, cy = rng.uniform(0, 30, size=2)
        angles = np.sort(rng.uniform(0, 2 * np.pi, size=int(rng.integers(3, 9))))
        radii = rng.uniform(0.5, 5, size=len(angles))
        polygon = tuple(
            (float(cx + r * np.cos(t)), float(cy + r * np.sin(t)))
            for r, t in zip(radii, angles, strict=True)
        )
        if not shapely.Polygon(polygon).is_valid:
            continue
        kind = rng.integers(3)
        if kind == 0:
            pieces.append(hill(f"h{k}", polygon, float(rng.integers(1, 3))))
        else:
            pieces.append(wood(f"w{k}", polygon, see_into=float(rng.uniform(0, 3))))
    pieces.append(Piece("road", "road", line=((0, 15), (30, 20)), width=1.0))
    pts = [(float(x), float(y)) for x, y in rng.uniform(0, 30, size=(10, 2))]
    # Integer points and piece vertices exercise the degenerate cases.
    pts += [(float(x), float(y)) for x, y in rng.integers(0, 30, size=(3, 2))]
    pts += [p.polygon[0] for p in pieces[:2] if p.polygon]
    pts.append(pts[0])  # a duplicate point
    return build_table(30, 30, pieces), pts


@settings(deadline=None, max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), with_smoke=st.booleans())
def test_sight_matrix_matches_line_of_sight(seed, with_smoke):
    table, pts = random_layout(seed)
    smoke = (("s", rect(10, 10, 12, 25)),) if with_smoke else ()
    matrix = sight_matrix(table, pts, smoke=smoke)
    expected = np.array([[line_of_sight(table, a, b, smoke=smoke).clear for b in pts] for a in pts])
    assert matrix.dtype == bool
    assert (matrix == expected).all()
    assert (matrix == matrix.T).all()
    assert matrix.diagonal().all()


@settings(deadline=None, max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), with_smoke=st.booleans())
def test_sight_pairs_match_line_of_sight_one_pair_at_a_time(seed, with_smoke):
    # Separate pairs traced together (opportunity fire's candidates) give exactly what
    # line_of_sight gives each pair alone: both ways round, repeated pairs, a point to itself.
    table, pts = random_layout(seed)
    smoke = (("s", rect(10, 10, 12, 25)),) if with_smoke else ()
    pairs = [(a, b) for a in pts for b in pts[::3]]
    found = sight_pairs(table, [a for a, _ in pairs], [b for _, b in pairs], smoke=smoke)
    expected = [line_of_sight(table, a, b, smoke=smoke).clear for a, b in pairs]
    assert found.dtype == bool
    assert found.tolist() == expected


def test_sight_pairs_small_inputs(field):
    assert sight_pairs(field, [], []).tolist() == []
    found = sight_pairs(field, [(10, 15), (40, 15), (10, 15)], [(40, 15), (10, 15), (2, 15)])
    assert found.tolist() == [False, False, True]
    with pytest.raises(ValueError, match="2 first ends but 1 second ends"):
        sight_pairs(field, [(1, 1), (2, 2)], [(3, 3)])


def test_sight_matrix_small_inputs(field):
    assert sight_matrix(field, []).shape == (0, 0)
    assert sight_matrix(field, [(1, 1)]).tolist() == [[True]]
    matrix = sight_matrix(field, [(10, 15), (40, 15), (10, 15), (2, 15)])
    assert matrix.tolist() == [
        [True, False, True, True],
        [False, True, False, False],
        [True, False, True, True],
        [True, False, True, True],
    ]


# --- a base swept along a path (minefield crossings, wading short of other bases) ------------

UNIT = Base("b", 0.0, 0.0, 1.0, 1.0, 0.0)
TURNED = Base("b", 0.0, 0.0, 1.0, 1.0, 45.0)


@pytest.mark.parametrize(
    ("path", "base", "touching", "overlapping", "ends_on"),
    [
        # Straight through a 1" square 4-5 on the x axis: touching from 3.5 to 5.5.
        ([(0, 0), (10, 0)], UNIT, [(3.5, 5.5)], [(3.5, 5.5)], False),
        # Stopping on it.
        ([(0, 0), (4.5, 0)], UNIT, [(3.5, 4.5)], [(3.5, 4.5)], True),
        # Stopping with the base just touching its near edge: contact, no overlap.
        ([(0, 0), (3.5, 0)], UNIT, [(3.5, 3.5)], [], False),
        # Sliding along its top edge (the base's bottom on y = 0.5): touching, never on it.
        ([(0, 1), (10, 1)], UNIT, [(3.5, 5.5)], [], False),
        # Passing 0.1" above it: nothing.
        ([(0, 1.1), (10, 1.1)], UNIT, [], [], False),
        # A base turned 45 degrees reaches 0.707" ahead of its centre.
        ([(0, 0), (10, 0)], TURNED, [(3.2929, 5.7071)], [(3.2929, 5.7071)], False),
        # In and back out the way it came, over two legs (and a repeated point).
        ([(0, 0), (4, 0), (4, 0), (0, 0)], UNIT, [(3.5, 4.5)], [(3.5, 4.5)], False),
    ],
)
def test_sweep_stretches(path, base, touching, overlapping, ends_on) -> None:
    from tabletop.table.sweep import sweep

    square = shapely.box(4.0, -0.5, 5.0, 0.5)
    moved = base_polygon(Base("b", path[0][0], path[0][1], base.width, base.depth, base.facing))
    swept = sweep(path, moved, square, 1e-6)
    assert len(swept.touching) == len(touching)
    for got, want in zip(swept.touching, touching, strict=True):
        assert_allclose(got, want, atol=1e-3)
    assert len(swept.overlapping) == len(overlapping)
    for got, want in zip(swept.overlapping, overlapping, strict=True):
        assert_allclose(got, want, atol=1e-3)
    assert swept.ends_overlapping is ends_on


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-3, 12, allow_nan=False), st.floats(-3, 3, allow_nan=False)),
        min_size=2,
        max_size=4,
    ),
    st.floats(0, 360, allow_nan=False),
)
def test_sweep_agrees_with_shapely_at_the_stretch_ends(path, facing) -> None:
    """At each stretch's ends and middle the moved base touches (or overlaps) the square."""
    from tabletop.table.sweep import sweep

    square = shapely.box(4.0, -0.5, 5.0, 0.5)
    start = base_polygon(Base("b", path[0][0], path[0][1], 1.0, 0.6, facing))
    swept = sweep(path, start, square, 1e-6)
    line = shapely.LineString(path) if swept.length > 0 else None
    for a, b in swept.touching:
        for s in (a, (a + b) / 2, b):
            assert line is not None
            p = line.interpolate(s)
            moved = shapely.affinity.translate(start, p.x - path[0][0], p.y - path[0][1])
            assert moved.distance(square) < 1e-4
    for a, b in swept.overlapping:
        p = line.interpolate((a + b) / 2) if line is not None else None
        assert p is not None
        moved = shapely.affinity.translate(start, p.x - path[0][0], p.y - path[0][1])
        assert moved.intersection(square).area > 0


def test_overlapping_lists_bases_sharing_more_than_the_tolerance() -> None:
    from tabletop.table import overlapping

    me = Base("A", 10, 10, 1, 1)
    touching = Base("T", 11, 10, 1, 1)  # side by side: a shared edge, no area
    sliver = Base("S", 10, 10.99, 1, 1)  # 0.01 sq in shared: under the tolerance
    over = Base("O", 10.5, 10, 1, 1)  # half its area shared
    turned = Base("R", 10, 10.9, 1, 1, 45)  # its corner reaches 0.31" in: 0.096 sq in
    assert overlapping(me, [touching, sliver, over, turned], 0.05) == ["O", "R"]
    assert overlapping(me, [], 0.05) == []


def test_base_polygons_have_exactly_the_corners_of_base_polygon() -> None:
    # The overlap test builds the others' bases in one call: the same corners, bit for bit.
    bases = [
        Base(f"s{n}", 3.1 * n, 47.9 - 2.3 * n, w, d, facing)
        for n, (w, d, facing) in enumerate(
            [(1.5, 0.75, 0.0), (1.5, 0.75, 33.3), (2.0, 1.0, 90.0), (0.75, 0.75, 181.7),
             (1.25, 2.5, 270.0), (1.5, 0.75, 359.9)]
        )
    ]  # fmt: skip
    many = base_polygons(bases)
    assert len(many) == len(bases)
    for polygon, base in zip(many, bases, strict=True):
        expected = shapely.get_coordinates(base_polygon(base))
        assert shapely.get_coordinates(polygon).tolist() == expected.tolist()
    assert len(base_polygons([])) == 0
