"""tabletop map: a picture of the table (SVG or PNG)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    STAND,
    command,
    emit_json,
    game_option,
    json_option,
    view_option,
    weapon_completer,
)  # fmt: skip
from tabletop.core.words import count, possessive

DEFAULT_OUT = "map.svg"


@click.command("map")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the picture: FILE.svg or FILE.png ('-' writes SVG to stdout). "
    "Default: map.svg beside the game file.",
)
@view_option
@click.option(
    "--los",
    nargs=2,
    metavar="A B",
    default=None,
    help="Draw the line of sight from A to B (stand ids or X,Y) and mark what blocks it.",
)
@click.option(
    "--range-bands",
    "range_bands",
    type=STAND,
    default=None,
    help="Draw rings at the range band limits of this stand's weapons.",
)
@click.option(
    "--weapon",
    default=None,
    metavar="WEAPON",
    shell_complete=weapon_completer("range_bands"),
    help="With --range-bands: only this weapon's rings.",
)
@game_option
@json_option
@command
def cli(
    out: Path | None,
    view: str | None,
    los: tuple[str, str] | None,
    range_bands: str | None,
    weapon: str | None,
    game: str,
    as_json: bool,
) -> None:
    """A picture of the table to scale, as SVG or PNG.

    A 6" grid and inch rulers on the edges; terrain by kind; stands as their
    real bases in their side's colour, labelled, with the front edge marked;
    bursts, smoke and illumination; minefields as the view may know them; a
    title block with turn, phase, light, weather and a wind arrow. A side's view
    shows its own stands, the enemy stands it spots now and dashed rings where it
    last saw the others; it leaves out referee-only terrain, whether the enemy's
    unrevealed minefield templates are real or dummies, and wired bridges it
    does not hold.

    \b
    Example:
      tabletop map
      tabletop map --out turn3.png --view Germany
      tabletop map --los G-2 US-2 --range-bands G-4
    """
    from tabletop.cli.core import chosen_view, open_game
    from tabletop.core.errors import BadInput
    from tabletop.render.scene import build_scene

    if out is None:
        out = Path(game).parent / DEFAULT_OUT  # "map.svg" for the default ./tabletop.sqlite
    fmt = _format(out)
    if weapon is not None and range_bands is None:
        raise BadInput(f"--weapon {weapon!r} needs --range-bands STAND (whose rings to draw)")
    g = open_game(game)
    ctx = g.context()
    chosen = chosen_view(view, ctx.state, ctx.scenario.side_names())
    known = g.knowledge(chosen, ctx)
    scene = build_scene(
        ctx, g.info.name, chosen, los=los, bands=range_bands, weapon=weapon, known=known
    )
    _write(scene, out, fmt, quiet=as_json)
    summary = {"out": str(out), "format": fmt, **scene.summary()}
    if as_json:
        emit_json(summary)
        return
    if str(out) == "-":
        return
    click.echo(_verdict(summary))


def _format(out: Path) -> str:
    from tabletop.core.errors import BadInput

    if str(out) == "-":
        return "svg"
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in ("svg", "png"):
        raise BadInput(f"--out {str(out)!r}: name a .svg or .png file (or '-' for SVG on stdout)")
    if out.parent and not out.parent.is_dir():
        raise BadInput(f"--out {str(out)!r}: the folder {str(out.parent)!r} does not exist")
    return suffix


def _write(scene: Any, out: Path, fmt: str, quiet: bool) -> None:
    """Write the picture; a progress bar on a terminal for a big table."""
    import io

    from tabletop.render.draw import STAGES, write

    buffer = io.BytesIO()
    big = len(scene.stands) + len(scene.terrain) > 120
    if big and not quiet and sys.stderr.isatty():
        with click.progressbar(length=len(STAGES), label="drawing the map", file=sys.stderr) as bar:
            write(scene, buffer, fmt, progress=lambda _stage: bar.update(1))
    else:
        write(scene, buffer, fmt)
    if str(out) == "-":
        click.echo(buffer.getvalue().decode("utf-8"), nl=False)
        return
    try:
        out.write_bytes(buffer.getvalue())
    except OSError as exc:
        from tabletop.core.errors import BadInput

        raise BadInput(f"--out {str(out)!r}: cannot write it ({exc.strerror})") from None


def _verdict(summary: dict[str, Any]) -> str:
    view = (
        "referee's view" if summary["view"] == "referee" else f"{possessive(summary['view'])} view"
    )
    templates = len(summary["templates"])
    line = (
        f"Map written to {summary['out']} ({view}, turn {summary['turn']} {summary['phase']} "
        f"phase): {count(summary['stands'], 'stand')}, {count(templates, 'template')}"
    )
    if summary["minefields"]:
        line += f", {count(summary['minefields'], 'minefield')}"
    lines = [line]
    if summary["off_table"]:
        lines.append("  not on the table: " + ", ".join(summary["off_table"]))
    los = summary["los"]
    if los is not None:
        verdict = "clear" if los["los"] else "BLOCKED by " + ", ".join(los["blocked_by"])
        lines.append(f'  sight {los["a"]} -> {los["b"]}: {los["range"]:.1f}", {verdict}')
    bands = summary["range_bands"]
    if bands is not None:
        rings = ", ".join(f'{r["weapon"]} {r["band"]} {r["inches"]:g}"' for r in bands["rings"])
        lines.append(f"  range bands of {bands['stand']}: {rings}")
    return "\n".join(lines)
