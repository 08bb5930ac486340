"""tabletop scenario new|terrain|stands|...: set up your own table and forces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    Amount,
    Point,
    checked_charts_option,
    command,
    emit_json,
    json_option,
)
from tabletop.core.words import count

# Imports of the setup floor (ruamel.yaml, shapely) sit inside the commands: they cost
# nothing to the commands that are not these.

FILE = click.Path(dir_okay=False, path_type=Path)
WEIGHT_CLASSES = ("I", "II", "III", "IV", "V", "VI")


class TableSize(click.ParamType):
    """``WxD`` in inches: ``72x48``."""

    name = "WxD"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[float, float]:
        if isinstance(value, tuple):
            return value
        text = str(value).lower().replace("×", "x").replace('"', "").replace(" ", "")
        parts = text.split("x") if "x" in text else text.split(",")
        try:
            width, depth = (float(p) for p in parts)
        except ValueError:
            self.fail(f"{value!r} is not a table size: write WxD in inches, like 72x48", param, ctx)
        if not (1 <= width <= 2000 and 1 <= depth <= 2000):
            self.fail(f"{value!r}: each side of a table is 1 to 2000 inches", param, ctx)
        return (width, depth)


TABLE = TableSize()


@click.group("scenario")
def cli() -> None:
    """Set up your own table and forces in a scenario file.

    Shapes measured with a tape from the table's south-west corner (x east, y
    north, inches), a drawing made over a photo of the table, a roster from a
    spreadsheet, whole formations from templates. Every edit is checked as
    'tabletop new' checks a scenario; one that would spoil the file is refused
    and the file is left exactly as it was. Comments and layout are kept.

    \b
    Example:
      tabletop scenario new field.yaml --table 72x48 --side Germany --side USA
      tabletop scenario terrain field.yaml woods --ellipse 20,30,10,6 --angle 30
      tabletop scenario stands field.yaml USA --unit us-tank-platoon --prefix T
      tabletop scenario show field.yaml
    """


def _checks(charts_dirs: tuple[Path, ...]) -> Any:
    """What an edit is checked against: as 'tabletop new' checks, with the same --charts."""
    from tabletop.rules.models import profile_lookup
    from tabletop.setup.document import Checks

    return Checks(tuple(charts_dirs), profile_lookup)


# --- new ------------------------------------------------------------------------------------


@cli.command("new")
@click.argument("file", type=FILE)
@click.option("--table", "size", type=TABLE, required=True, help="The table, WxD inches: 72x48.")
@click.option("--name", default=None, help="The scenario's name (default: from FILE).")
@click.option("--side", "sides", multiple=True, help="A side's name; give one --side for each.")
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@json_option
@command
def new(
    file: Path,
    size: tuple[float, float],
    name: str | None,
    sides: tuple[str, ...],
    force: bool,
    as_json: bool,
) -> None:
    """Begin a scenario FILE: its table and its sides.

    Day, clear weather and dry ground to start with; the file says so and may be
    changed by hand.

    \b
    Example:
      tabletop scenario new field.yaml --table 72x48 --side Germany --side USA
    """
    from tabletop.setup.edits import new_scenario

    title = name or file.stem.replace("-", " ").replace("_", " ").capitalize()
    loaded = new_scenario(file, title, size[0], size[1], sides, force)
    sc = loaded.scenario
    if as_json:
        emit_json(
            {
                "file": file.name,
                "name": sc.name,
                "table": {"width": sc.table.width, "depth": sc.table.depth},
                "sides": sc.side_names(),
            }
        )
        return
    who = f"sides {' and '.join(sc.side_names())}" if sc.sides else "no sides (give --side)"
    shown = f'{sc.table.width:g}" x {sc.table.depth:g}"'
    click.echo(f"{file.name}: {sc.name!r} begun, a {shown} table; {who}.")


# --- terrain --------------------------------------------------------------------------------

SHAPES = ("rect", "ellipse", "circle", "polygon", "line")


@cli.command("terrain")
@click.argument("file", type=FILE)
@click.argument("kind")
@click.option(
    "--rect", metavar="X,Y,W,D", help="A rectangle: its centre, width (east-west) and depth."
)
@click.option("--ellipse", metavar="X,Y,W,D", help="An oval: its centre, width and depth.")
@click.option("--circle", metavar="X,Y,R", help="A round piece: its centre and radius.")
@click.option("--polygon", metavar='"X,Y X,Y ..."', help="Any outline: its corners in order.")
@click.option("--line", metavar='"X,Y X,Y ..."', help="A road, river or hedge: its points.")
@click.option("--width", type=Amount(0.01, 100, "inches"), default=None, help="A --line's width.")
@click.option(
    "--angle",
    type=Amount(-360, 360, "degrees"),
    default=0.0,
    help="Turn a --rect or --ellipse clockwise by this many degrees (north up).",
)
@click.option("--id", "ident", default=None, help="The piece's id (default: the next free KIND-N).")
@click.option("--height", type=Amount(0, 20, "levels"), default=None, help="A hill's height.")
@click.option(
    "--class",
    "weight_class",
    type=click.Choice(WEIGHT_CLASSES),
    default=None,
    help="Weight class I-VI a bridge, ford or ice bears.",
)
@click.option("--wired", is_flag=True, help="Prepared for demolition (a bridge).")
@click.option("--referee-only", is_flag=True, help="Hidden from the sides' views.")
@checked_charts_option
@json_option
@command
def terrain(
    file: Path,
    kind: str,
    rect: str | None,
    ellipse: str | None,
    circle: str | None,
    polygon: str | None,
    line: str | None,
    width: float | None,
    angle: float,
    ident: str | None,
    height: float | None,
    weight_class: str | None,
    wired: bool,
    referee_only: bool,
    charts_dirs: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Add one terrain piece of KIND, measured with a tape, to FILE.

    KIND is a terrain kind of the charts (woods, hill, road-dirt, river, ...).
    Give one shape; points are inches from the table's south-west corner. Ovals
    and circles become polygons within 0.02" of the curve; a piece running off
    the table is cut at its edge. Prints the id given.

    \b
    Example:
      tabletop scenario terrain field.yaml woods --rect 12,30,8,5 --angle 20
      tabletop scenario terrain field.yaml hill --ellipse 40,24,14,9 --height 1
      tabletop scenario terrain field.yaml road-dirt --line "0,10 72,12" --width 1
    """
    from tabletop.core.errors import BadInput
    from tabletop.setup.edits import Shape, add_terrain
    from tabletop.setup.overview import summary

    given = {k: v for k, v in zip(SHAPES, (rect, ellipse, circle, polygon, line), strict=True) if v}
    if len(given) != 1:
        raise BadInput(
            "give one shape: --rect X,Y,W,D, --ellipse X,Y,W,D, --circle X,Y,R, "
            '--polygon "X,Y X,Y ..." or --line "X,Y X,Y ..." --width W'
            + (f" (not {', '.join('--' + k for k in given)} together)" if given else "")
        )
    if ident is not None and (
        not ident or any(ch.isspace() or not ch.isprintable() for ch in ident)
    ):
        raise BadInput(f"--id {ident!r}: an id is one word, without spaces")
    how, text = next(iter(given.items()))
    if angle and how not in ("rect", "ellipse"):
        raise BadInput(f"--angle turns a --rect or an --ellipse, not a --{how}")
    if how == "line" and width is None:
        raise BadInput("--line needs --width W: how wide the road or river is, in inches")
    if width is not None and how != "line":
        raise BadInput(f"--width is a --line's width; a --{how} has its size in its numbers")
    added = add_terrain(
        file,
        kind,
        Shape(how, text, angle=angle, width=width),
        ident=ident,
        height=height,
        weight_class=weight_class,
        wired=wired,
        referee_only=referee_only,
        checks=_checks(charts_dirs),
    )
    if as_json:
        emit_json({"file": added.file, "added": added.added})
        return
    piece = _piece(summary(added.loaded, added.file), added.added[0]) if added.loaded else None
    said = f"{added.added[0]} added to {added.file}"
    if piece is not None:
        said += f": {piece['kind']}, {_area(piece)}, {_bounds(piece['bounds'])}"
    click.echo(said)
    for note in added.notes:
        click.echo(f"  {note}")


def _piece(shown: dict[str, Any], ident: str) -> dict[str, Any] | None:
    return next((p for p in shown["terrain"] if p["id"] == ident), None)


def _area(piece: dict[str, Any]) -> str:
    return f"{piece['area']:.2f} sq in"


def _bounds(bounds: list[float]) -> str:
    x1, y1, x2, y2 = bounds
    return f"x {x1:g} to {x2:g}, y {y1:g} to {y2:g}"


# --- remove ---------------------------------------------------------------------------------


@cli.command("remove")
@click.argument("file", type=FILE)
@click.argument("ident", metavar="ID")
@checked_charts_option
@json_option
@command
def remove(file: Path, ident: str, charts_dirs: tuple[Path, ...], as_json: bool) -> None:
    """Take the terrain piece, stand or formation ID out of FILE.

    A formation goes only once nothing belongs to it.

    \b
    Example:
      tabletop scenario remove field.yaml woods-3
    """
    from tabletop.setup.edits import remove as take_out

    done = take_out(file, ident, checks=_checks(charts_dirs))
    if as_json:
        emit_json(
            {"file": done.file, "removed": done.id, "what": done.what, "problems": done.remaining}
        )
        return
    click.echo(f"{done.what} {done.id} removed from {done.file}")
    if done.remaining:
        click.echo(f"  {done.file} still has {count(len(done.remaining), 'problem')}:")
        for problem in done.remaining:
            click.echo(f"  {problem}")


# --- stands ---------------------------------------------------------------------------------


@cli.command("stands")
@click.argument("file", type=FILE)
@click.argument("side", required=False)
@click.option(
    "--csv",
    "roster",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A roster from a spreadsheet: columns id, side, kind, quality, weapons, "
    "formation, x, y, facing.",
)
@click.option("--unit", default=None, metavar="TEMPLATE", help="A formation template.")
@click.option("--prefix", default=None, help="With --unit: the start of every id it adds.")
@click.option("--at", type=Point(), default=None, help="With --unit: the line's centre, X,Y.")
@click.option(
    "--facing",
    type=Amount(0, 360, "degrees"),
    default=0.0,
    help="With --unit: the way the line faces, degrees clockwise from north.",
)
@click.option("--quality", default=None, help="With --unit: every stand's quality.")
@click.option("--parent", default=None, help="With --unit: the formation of SIDE it belongs to.")
@click.option(
    "--templates",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Your own formation templates (same shape as charts/formations.yaml).",
)
@checked_charts_option
@json_option
@command
def stands(
    file: Path,
    side: str | None,
    roster: Path | None,
    unit: str | None,
    prefix: str | None,
    at: tuple[float, float] | None,
    facing: float,
    quality: str | None,
    parent: str | None,
    templates: Path | None,
    charts_dirs: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Add stands to FILE from a roster or a template.

    With --csv, each row names its own side (give no SIDE). With --unit, the
    template's formations and stands (supply point included) go to SIDE, their
    ids starting with --prefix, in line abreast at --at or off the table.
    Templates: us-rifle-company, german-rifle-company, us-tank-platoon,
    german-tank-platoon, us-tank-company (charts/formations.yaml).

    \b
    Example:
      tabletop scenario stands field.yaml --csv roster.csv
      tabletop scenario stands field.yaml USA --unit us-rifle-company \\
          --prefix A --at 36,4
      tabletop scenario stands field.yaml Germany --unit german-tank-platoon \\
          --prefix P1
    """
    from tabletop.core.errors import BadInput
    from tabletop.setup.edits import add_formation, add_roster

    if (roster is None) == (unit is None):
        raise BadInput("give --csv ROSTER.csv, or SIDE --unit TEMPLATE --prefix P")
    if roster is not None:
        given = {"SIDE": side, "--prefix": prefix, "--at": at, "--quality": quality}
        extra = [name for name, value in {**given, "--parent": parent}.items() if value]
        if extra:
            raise BadInput(f"--csv takes each stand's side and place from its row, not {extra[0]}")
        added = add_roster(file, roster, checks=_checks(charts_dirs))
        source = roster.name
    else:
        assert unit is not None
        if side is None or prefix is None:
            raise BadInput(f"--unit {unit}: give the SIDE it joins and --prefix P for its ids")
        added = add_formation(
            file,
            side,
            unit,
            prefix,
            at=at,
            facing=facing,
            quality=quality,
            parent=parent,
            templates=templates,
            checks=_checks(charts_dirs),
        )
        source = unit
    if as_json:
        emit_json({"file": added.file, "added": added.added})
        return
    click.echo(f"{count(len(added.added), 'stand')} added to {added.file} from {source}:")
    click.echo(_stand_lines(added))
    for note in added.notes:
        click.echo(f"  {note}")


def _stand_lines(added: Any) -> str:
    from tabletop.cli.core import fit_table

    shown = {s["id"]: s for s in (_summary(added.loaded)["stands"] if added.loaded else [])}
    rows = []
    for ident in added.added:
        s = shown.get(ident, {"side": "", "kind": "", "x": None, "y": None})
        rows.append([ident, s["side"], s["kind"], _at(s)])
    text = fit_table(rows, ["stand", "side", "kind", "at"])
    return "\n".join(f"  {line}" for line in text.splitlines())


def _summary(loaded: Any) -> dict[str, Any]:
    from tabletop.setup.overview import summary

    return summary(loaded, loaded.source)


def _at(stand: dict[str, Any]) -> str:
    if stand.get("x") is None:
        return "off the table"
    return f"{stand['x']:g},{stand['y']:g}"


# --- check, show, map -----------------------------------------------------------------------


def _read(file: Path, charts_dirs: tuple[Path, ...]) -> Any:
    from tabletop.data.scenario_loader import read_scenario

    checks = _checks(charts_dirs)
    return read_scenario(file, checks.overlays, profiles=checks.profiles)


@cli.command("check")
@click.argument("file", type=FILE)
@checked_charts_option
@json_option
@command
def check(file: Path, charts_dirs: tuple[Path, ...], as_json: bool) -> None:
    """Check FILE as 'tabletop new' would, without starting a game.

    Every problem is listed with its line (exit status 2).

    \b
    Example:
      tabletop scenario check field.yaml
    """
    loaded = _read(file, charts_dirs)
    sc = loaded.scenario
    stands_ = sc.stand_specs()
    off = sum(1 for _, s in stands_ if s.at is None)
    if as_json:
        emit_json(
            {
                "file": file.name,
                "valid": True,
                "name": sc.name,
                "terrain": len(sc.terrain),
                "stands": len(stands_),
            }
        )
        return
    click.echo(
        f'{file.name}: valid. {sc.name!r}: a {sc.table.width:g}" x {sc.table.depth:g}" table, '
        f"{count(len(sc.terrain), 'terrain piece')}, {count(len(sc.sides), 'side')}, "
        f"{count(len(stands_), 'stand')}" + (f" ({off} off the table)." if off else ".")
    )


@cli.command("show")
@click.argument("file", type=FILE)
@checked_charts_option
@json_option
@command
def show(file: Path, charts_dirs: tuple[Path, ...], as_json: bool) -> None:
    """List FILE's terrain pieces (area, bounds) and stands.

    \b
    Example:
      tabletop scenario show field.yaml
    """
    from tabletop.cli.core import fit_table, headline

    loaded = _read(file, charts_dirs)
    shown = _summary(loaded) | {"file": file.name}
    if as_json:
        emit_json(shown)
        return
    table = shown["table"]
    click.echo(
        headline(f'{shown["name"]} ({file.name}): {table["width"]:g}" x {table["depth"]:g}"')
    )
    click.echo("")
    if shown["terrain"]:
        rows = [
            [p["id"], p["kind"], f"{p['area']:.2f}", _bounds(p["bounds"])] for p in shown["terrain"]
        ]
        click.echo(fit_table(rows, ["terrain", "kind", "sq in", "bounds"]))
    else:
        click.echo("no terrain yet")
    click.echo("")
    if shown["stands"]:
        rows = [[s["id"], s["side"], s["kind"], _at(s)] for s in shown["stands"]]
        click.echo(fit_table(rows, ["stand", "side", "kind", "at"]))
    else:
        click.echo("no stands yet")


@cli.command("map")
@click.argument("file", type=FILE)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="FILE.svg or FILE.png (default: FILE with .svg in place of .yaml).",
)
@checked_charts_option
@json_option
@command
def map_(file: Path, out: Path | None, charts_dirs: tuple[Path, ...], as_json: bool) -> None:
    """Picture FILE's table, as a game on it begins.

    The referee's view: every piece and stand, stands off the table listed.

    \b
    Example:
      tabletop scenario map field.yaml --out field.png
    """
    from tabletop.cli.commands.map import _format, _write
    from tabletop.setup.overview import scene

    loaded = _read(file, charts_dirs)
    out = out or file.with_suffix(".svg")
    fmt = _format(out)
    picture = scene(loaded)
    _write(picture, out, fmt, quiet=as_json)
    if as_json:
        emit_json({"file": file.name, "out": str(out), "format": fmt})
        return
    if str(out) == "-":
        return
    line = (
        f"Map of {file.name} written to {out}: {count(len(picture.terrain), 'terrain piece')}, "
        f"{count(len(picture.stands), 'stand')} on the table"
    )
    if picture.off_table:
        line += f", {len(picture.off_table)} off it"
    click.echo(line)


# --- a drawing ------------------------------------------------------------------------------


@cli.command("import-svg")
@click.argument("file", type=FILE)
@click.argument("drawing", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--table",
    "size",
    type=TABLE,
    default=None,
    help="The table, WxD inches, when the "
    "drawing has no rectangle labelled 'table' (default: FILE's table).",
)
@click.option(
    "--replace", is_flag=True, help="Put the drawing's pieces in place of FILE's of the same id."
)
@checked_charts_option
@json_option
@command
def import_svg(
    file: Path,
    drawing: Path,
    size: tuple[float, float] | None,
    replace: bool,
    charts_dirs: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Add terrain to FILE from DRAWING, an SVG.

    DRAWING is drawn in any SVG editor over a photo of the table. Every shape
    labelled with a terrain kind (its Inkscape label, else its layer's, else
    its class) becomes a piece with the shape's id; a rectangle labelled
    'table' gives the scale. Shapes with no terrain kind are listed as left
    out. An id FILE has already is refused, unless --replace.

    \b
    Example:
      tabletop scenario import-svg field.yaml field.svg
    """
    from tabletop.setup.edits import add_drawing
    from tabletop.setup.svg import read_svg

    loaded = _read(file, charts_dirs)
    if size is None:
        size = (loaded.scenario.table.width, loaded.scenario.table.depth)
    found = read_svg(drawing, tuple(loaded.charts.terrain), size)
    added = add_drawing(file, found, drawing.name, replace=replace, checks=_checks(charts_dirs))
    if as_json:
        emit_json(
            {
                "file": added.file,
                "added": added.added,
                "replaced": added.replaced,
                "left_out": added.left_out,
            }
        )
        return
    click.echo(
        f"{count(len(added.added), 'piece')} added to {added.file} from {drawing.name}"
        + (f": {', '.join(added.added)}" if added.added else "")
    )
    if added.replaced:
        click.echo(f"  replaced: {', '.join(added.replaced)}")
    if added.left_out:
        click.echo(f"  left out ({len(added.left_out)}):")
        for why in added.left_out:
            click.echo(f"    {why}")
