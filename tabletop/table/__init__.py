"""Table geometry: stands' bases, terrain, range, bearing, line of sight and templates.

Pure geometry on shapely and numpy: no rules numbers, no printing, no randomness. Units are
inches, origin at the table's south-west corner, x east, y north; bearings are degrees
clockwise from north in [0, 360).
"""

from tabletop.table.measure import (
    base_polygon,
    base_polygons,
    bearing,
    distance,
    overlapping,
    point_distance,
    within,
)
from tabletop.table.model import Base, Crossing, Piece, SightLine
from tabletop.table.sight import line_of_sight, sight_matrix, sight_pairs
from tabletop.table.templates import beam, circle, coverage, strip
from tabletop.table.terrain import Table, build_table

__all__ = [
    "Base",
    "Crossing",
    "Piece",
    "SightLine",
    "Table",
    "base_polygon",
    "base_polygons",
    "beam",
    "bearing",
    "build_table",
    "circle",
    "coverage",
    "distance",
    "line_of_sight",
    "overlapping",
    "point_distance",
    "sight_matrix",
    "sight_pairs",
    "strip",
    "within",
]
