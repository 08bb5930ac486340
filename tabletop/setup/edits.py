"""The scenario edits the ``tabletop scenario`` commands make, each one checked and written
whole or not at all (``document.ScenarioFile.save``).

Each takes the file and what the person gave, and returns what it added. An edit starts
from a valid file: one that ``new`` would refuse is refused first, with its own problems
(``remove`` excepted: taking a bad entry out is how a file is mended).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tabletop.core.errors import BadInput
from tabletop.core.frozen import mutable_dataclass
from tabletop.data.charts import Charts
from tabletop.data.params.table import TableParams
from tabletop.data.scenario import FORMATION_KINDS, LoadedScenario, stand_extent
from tabletop.data.scenario_loader import parse_scenario
from tabletop.setup import shapes
from tabletop.setup.document import Checks, ScenarioFile, write_atomically
from tabletop.setup.formations import deploy, find_template, load_templates
from tabletop.setup.roster import RosterRow, read_roster
from tabletop.table import Base, overlapping


@mutable_dataclass
class Added:
    """What an edit did: the ids added (in order), and notes for the person."""

    file: str
    added: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    loaded: LoadedScenario | None = None  # the file as written


# --- a new file -------------------------------------------------------------------------------


def new_text(name: str, width: float, depth: float, sides: Sequence[str]) -> str:
    """A scenario to build on: the table, day and dry ground, the sides with no stands."""
    lines = [
        f"# {name}: begun with 'tabletop scenario new'. Terrain: 'tabletop scenario terrain';",
        "# stands: 'tabletop scenario stands'; look: 'tabletop scenario show'.",
        "format: 1",
        f"name: {_scalar(name)}",
        f"table: {{width: {shapes.number(width)}, depth: {shapes.number(depth)}}}",
        "turn: {number: 1, phase: movement}",
        "conditions:",
        "  light: day",
        "  weather: clear",
        "  wind: {from: 3, force: light}",
        "  ground: dry",
        "terrain: []",
    ]
    if sides:
        lines.append("sides:")
        for side in sides:
            lines += [f"  - name: {_scalar(side)}", "    formations: []", "    stands: []"]
    else:
        lines.append("sides: []")
    return "\n".join(lines) + "\n"


def _scalar(text: str) -> str:
    """A name as a YAML scalar: plain where YAML reads it back as the same text."""
    plain = (
        text
        and text.strip() == text
        and text[0] not in "!&*[]{}|>'\"%@`#,?:-"
        and ": " not in text
        and " #" not in text
        and text.lower() not in ("null", "true", "false", "yes", "no", "on", "off", "~")
    )
    if plain:
        try:
            float(text)
        except ValueError:
            return text
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML one


def new_scenario(
    path: Path, name: str, width: float, depth: float, sides: Sequence[str], force: bool
) -> LoadedScenario:
    for what, text in [("--name", name), *(("--side", side) for side in sides)]:
        if not text.strip() or not text.isprintable():
            raise BadInput(f"{what} {text!r}: give a name on one line")
    if path.exists() and not force:
        raise BadInput(
            f"{str(path)!r} exists already; add to it with 'tabletop scenario terrain' and "
            "'stands', or give --force to start it again"
        )
    text = new_text(name, width, depth, sides)
    loaded = parse_scenario(text, path.name, base_dir=path.parent)
    write_atomically(path, text)
    return loaded


# --- terrain ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """One shape option as typed: ``rect`` and ``10,12,6,4``."""

    how: str  # rect, ellipse, circle, polygon, line
    text: str
    angle: float = 0.0
    width: float | None = None  # a line's


SHAPE_FIELDS = {"rect": "X,Y,W,D", "ellipse": "X,Y,W,D", "circle": "X,Y,R"}


def _outline(shape: Shape) -> list[shapes.Point]:
    option = f"--{shape.how}"
    if shape.how in SHAPE_FIELDS:
        names = SHAPE_FIELDS[shape.how].split(",")
        values = shapes.parse_numbers(shape.text, option, names)
        if shape.how == "circle":
            x, y, radius = values
            return shapes.circle(x, y, radius)
        x, y, width, depth = values
        make = shapes.rect if shape.how == "rect" else shapes.ellipse
        return make(x, y, width, depth, angle=shape.angle)
    return shapes.parse_points(shape.text, option)


def add_terrain(
    path: Path,
    kind: str,
    shape: Shape,
    *,
    ident: str | None = None,
    height: float | None = None,
    weight_class: str | None = None,
    wired: bool = False,
    referee_only: bool = False,
    checks: Checks | None = None,
) -> Added:
    """Add one piece measured with a tape; a piece running off the table is cut at its edge."""
    doc = ScenarioFile.open(path, checks)
    loaded = doc.check()
    table = loaded.scenario.table
    ident = ident or doc.next_id(kind)
    what = f"the new piece {ident}"
    doc.refuse_taken(ident, what)
    points = _outline(shape)
    entry: dict[str, Any] = {"id": ident, "kind": kind}
    if shape.how == "line":
        if shape.width is not None and shape.width <= 0:
            raise BadInput(f"--width {shape.width:g}: a line's width must be more than 0 inches")
        cut = shapes.line_on_table(points, table.width, table.depth, what)
        entry["line"] = cut.points
        if shape.width is not None:
            entry["width"] = shapes.number(shape.width)
    else:
        cut = shapes.area_on_table(points, table.width, table.depth, what)
        entry["polygon"] = cut.points
    if height is not None:
        entry["height"] = shapes.number(height)
    if weight_class is not None:
        entry["weight_class"] = weight_class
    if wired:
        entry["wired"] = True
    if referee_only:
        entry["referee_only"] = True
    doc.add_terrain(entry, f"{what} ({kind})")
    out = Added(doc.name, [ident], loaded=doc.save())
    if cut.trimmed:
        out.notes.append(f"{ident} runs off the table: cut at its edge")
    return out


@dataclass(frozen=True)
class Removed:
    file: str
    id: str
    what: str  # terrain piece, stand, formation
    remaining: list[str]  # problems the file still has (a bad file being mended)


def remove(path: Path, ident: str, checks: Checks | None = None) -> Removed:
    """Take one terrain piece, stand or empty formation out."""
    doc = ScenarioFile.open(path, checks)
    what = doc.remove(ident)
    doc.save(fewer_problems=True)
    return Removed(doc.name, ident, what, doc.remaining)


# --- stands -----------------------------------------------------------------------------------


def add_roster(path: Path, roster: Path, checks: Checks | None = None) -> Added:
    """Add every stand of a spreadsheet roster, all or none."""
    doc = ScenarioFile.open(path, checks)
    doc.check()
    rows = read_roster(roster)
    out = Added(doc.name)
    _add_named_formations(doc, rows, roster.name, out)
    for row in rows:
        origin = row.origin(roster.name)
        side = doc.side_index(row.side, f"{roster.name} row {row.row}")
        doc.refuse_taken(str(row.entry["id"]), origin)
        doc.add_stand(side, row.entry, origin)
        out.added.append(str(row.entry["id"]))
    out.loaded = doc.save()
    return out


def _add_named_formations(
    doc: ScenarioFile, rows: Sequence[RosterRow], source: str, out: Added
) -> None:
    """Declare the formations a roster names that the file lacks (a spreadsheet lists each
    stand's formation; nobody types the tree out first).

    A formation's parent is read from its id as armies write them, the longest tail after a
    '/' that is another formation of the side (E/2/329 belongs to 2/329); its kind is one
    level below its parent's, or for a top formation as many levels above a company as the
    tree under it is deep. The note lists them so the referee can correct a guess."""
    kinds: dict[str, str] = {}
    known: dict[int, set[str]] = {}
    for index, side in enumerate(_items_of(doc.data.get("sides"))):
        for form in _items_of(side.get("formations")):
            ident = str(form.get("id"))
            known.setdefault(index, set()).add(ident)
            kinds[ident] = str(form.get("kind"))
    named: dict[int, list[str]] = {}
    for row in rows:
        formation = row.entry.get("formation")
        if not formation:
            continue
        side = doc.side_index(row.side, f"{source} row {row.row}")
        if formation in known.get(side, set()) or formation in named.get(side, []):
            continue
        named.setdefault(side, []).append(str(formation))
    for side, new in named.items():
        parents = _parents_by_id(new, known.get(side, set()) | set(new))
        depths = {ident: _depth(ident, parents) for ident in new}
        new.sort(key=depths.__getitem__)  # a parent before its own (the file reads top down)
        for ident in new:
            kind = _guess_kind(ident, parents, new, kinds)
            entry = {"id": ident, "kind": kind, "parent": parents[ident]}
            doc.refuse_taken(ident, f"{source}: formation {ident}")
            doc.add_formation(side, entry, f"{source}: formation {ident}")
        out.notes.append(
            f"formations added for {doc.side_name(side)}: "
            + ", ".join(
                f"{ident} ({kinds[ident]}" + (f" of {parents[ident]})" if parents[ident] else ")")
                for ident in new
            )
            + "; correct a kind or parent in the file if it is not so"
        )


def _parents_by_id(new: list[str], members: set[str]) -> dict[str, str | None]:
    """Each new formation's parent: the longest tail of its id after a '/' that names a
    formation of the side (E/2/329 -> 2/329), else none."""
    parents: dict[str, str | None] = {}
    for ident in new:
        parts = ident.split("/")
        tails = ("/".join(parts[i:]) for i in range(1, len(parts)))
        parents[ident] = next((tail for tail in tails if tail in members), None)
    return parents


def _depth(ident: str, parents: Mapping[str, str | None]) -> int:
    parent = parents.get(ident)
    return 0 if parent is None else 1 + _depth(parent, parents)


def _height(ident: str, parents: Mapping[str, str | None], new: list[str]) -> int:
    below = [child for child in new if parents[child] == ident]
    return 1 + max(_height(child, parents, new) for child in below) if below else 0


def _guess_kind(
    ident: str, parents: Mapping[str, str | None], new: list[str], kinds: dict[str, str]
) -> str:
    """One level below the parent's kind; a top formation as many levels above a company
    as the tree under it is deep."""
    if ident in kinds:
        return kinds[ident]
    levels, parent = list(FORMATION_KINDS), parents.get(ident)
    if parent is None:
        level = max(0, levels.index("company") - _height(ident, parents, new))
    else:
        level = min(len(levels) - 1, levels.index(_guess_kind(parent, parents, new, kinds)) + 1)
    kinds[ident] = levels[level]
    return kinds[ident]


def _items_of(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def add_formation(
    path: Path,
    side: str,
    unit: str,
    prefix: str,
    *,
    at: shapes.Point | None = None,
    facing: float = 0.0,
    quality: str | None = None,
    parent: str | None = None,
    templates: Path | None = None,
    checks: Checks | None = None,
) -> Added:
    """Add a whole formation from a template, in line abreast at ``at`` or off the table."""
    if not prefix or any(ch.isspace() or not ch.isprintable() for ch in prefix):
        raise BadInput(f"--prefix {prefix!r}: give the start of the ids, without spaces")
    doc = ScenarioFile.open(path, checks)
    loaded = doc.check()
    template = find_template(load_templates(templates), unit)
    where = f"--unit {unit}"
    index = doc.side_index(side, where)
    charts = loaded.charts
    deployed = deploy(
        template,
        prefix,
        at=at,
        facing=facing,
        quality=quality,
        parent=parent,
        extent=lambda kind: _extent(charts, kind),
        is_supply=lambda kind: kind in charts.stand_kinds and charts.stand_kinds[kind].supply,
    )
    out = Added(doc.name)
    for entry in deployed.formations:
        origin = f"{where} formation {entry['id']}"
        doc.refuse_taken(str(entry["id"]), origin)
        doc.add_formation(index, entry, origin)
    for entry in deployed.stands:
        origin = f"{where} stand {entry['id']}"
        doc.refuse_taken(str(entry["id"]), origin)
        doc.add_stand(index, entry, origin)
        out.added.append(str(entry["id"]))
    if at is not None:
        _refuse_overlaps(loaded, deployed.stands, charts)
    out.loaded = doc.save()
    if at is None:
        out.notes.append("off the table: place them as they arrive ('tabletop place')")
    return out


def _extent(charts: Charts, kind: str) -> tuple[float, float]:
    if kind not in charts.stand_kinds:
        return (1.0, 1.0)  # the scenario checks refuse the unknown kind, naming it
    found = charts.stand_kinds[kind]
    return (found.width, found.depth)


def _refuse_overlaps(
    loaded: LoadedScenario, stands: list[dict[str, object]], charts: Charts
) -> None:
    """The new line may not lie on a stand the file already sets down."""
    placed = [
        Base(spec.id, spec.at[0], spec.at[1], *stand_extent(spec, charts), spec.facing)
        for _, spec in loaded.scenario.stand_specs()
        if spec.at is not None
    ]
    tolerance = charts.params(TableParams).base_overlap_tolerance
    for entry in stands:
        at = entry["at"]
        assert isinstance(at, list)
        x, y = float(at[0]), float(at[1])
        width, depth = _extent(charts, str(entry["kind"]))
        base = Base(str(entry["id"]), x, y, width, depth, float(str(entry["facing"])))
        clash = overlapping(base, placed, tolerance)
        if clash:
            raise BadInput(
                f"{entry['id']} at ({x:g}, {y:g}) would lie on {', '.join(clash)}, already "
                "on the table: give another --at, or --facing to turn the line"
            )


# --- a drawing --------------------------------------------------------------------------------


class Drawing(Protocol):
    """What ``setup.svg.read_svg`` returns (``SvgImport``, a frozen dataclass)."""

    @property
    def width(self) -> float: ...
    @property
    def depth(self) -> float: ...
    @property
    def pieces(self) -> tuple[dict[str, object], ...]: ...
    @property
    def left_out(self) -> tuple[str, ...]: ...


def add_drawing(
    path: Path,
    drawing: Drawing,
    source: str,
    *,
    replace: bool = False,
    checks: Checks | None = None,
) -> Added:
    """Add the pieces read from a drawing. A piece whose id the file has already is refused,
    or with ``replace`` put in the place of the file's piece (a drawing redrawn and read
    again); ids of stands and formations are never replaced."""
    doc = ScenarioFile.open(path, checks)
    loaded = doc.check()
    table = loaded.scenario.table
    if abs(drawing.width - table.width) > 0.01 or abs(drawing.depth - table.depth) > 0.01:
        raise BadInput(
            f"{source}: its table is {drawing.width:g} x {drawing.depth:g} but {doc.name}'s is "
            f"{table.width:g} x {table.depth:g}; give --table {table.width:g}x{table.depth:g} "
            "or draw the 'table' rectangle to the table's size"
        )
    taken = doc.ids()
    clashes = [str(p["id"]) for p in drawing.pieces if str(p["id"]) in taken]
    if clashes and not replace:
        shown = ", ".join(clashes[:8]) + (", ..." if len(clashes) > 8 else "")
        raise BadInput(
            f"{source}: {doc.name} has already {len(clashes)} of its ids ({shown}); rename them "
            "in the drawing, or give --replace to put the drawing's pieces in their place"
        )
    out = Added(doc.name, left_out=list(drawing.left_out))
    for given in drawing.pieces:
        ident = str(given["id"])
        origin = f"{source} shape {ident}"
        try:
            piece = _on_table(given, table.width, table.depth, origin)
        except BadInput as exc:  # drawn wholly beyond the table's edge
            out.left_out.append(f"{ident}: {str(exc).removeprefix(origin + ': ')}")
            continue
        if ident in taken:
            if taken[ident] != "terrain piece":
                raise BadInput(
                    f"{origin}: {ident!r} is a {taken[ident]} of {doc.name}, not a piece"
                )
            doc.replace_terrain(ident, piece, origin)
            out.replaced.append(ident)
        else:
            doc.add_terrain(piece, origin)
            out.added.append(ident)
    out.loaded = doc.save()
    return out


def _on_table(piece: dict[str, object], width: float, depth: float, what: str) -> dict[str, object]:
    """A drawn piece cut at the table's edge: a drawing over a photo runs past it."""
    for key, cut_at_edge in (("polygon", shapes.area_on_table), ("line", shapes.line_on_table)):
        points = piece.get(key)
        if isinstance(points, list | tuple) and all(
            isinstance(p, list | tuple) and len(p) == 2 for p in points
        ):
            pairs = [(float(p[0]), float(p[1])) for p in points]
            return {**piece, key: cut_at_edge(pairs, width, depth, what).points}
    return dict(piece)  # a malformed piece: the scenario checks name what is wrong
