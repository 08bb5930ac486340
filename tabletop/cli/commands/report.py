"""tabletop report: the after-action report, from the log."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import command, emit_json, game_option, json_option, view_option
from tabletop.core.words import count

LONG_LOG = 300  # events: past this, a progress bar on a terminal


@click.command("report")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write FILE.md (with the map beside it as FILE-map.svg) or FILE.html (map inside). "
    "Without it, Markdown goes to the screen, without the map.",
)
@view_option
@game_option
@json_option
@command
def cli(out: Path | None, view: str | None, game: str, as_json: bool) -> None:
    """After-action report: the battle turn by turn, totals, dice.

    Reads the log: fire and its results, losses, ammunition depleted and spent,
    engineering, weather changes; totals per side; every die rolled, physical
    against generated, and how the dice ran against fair dice (mean, z-score,
    chi-square). Undone commands are left out. The map of the table, as it is
    now, closes the report. A side's report (--view SIDE) tells the battle from
    that side's log and map: nothing it may not know.

    \b
    Example:
      tabletop report --view USA
      tabletop report --out battle.html
      tabletop report --out battle.md --json
    """
    from tabletop.cli.core import chosen_view, open_game
    from tabletop.render.report import build_report

    fmt = _format(out)
    g = open_game(game)
    ctx = g.context()
    chosen = chosen_view(view, ctx.state, ctx.scenario.side_names())
    known = g.knowledge(chosen, ctx)
    total = g.event_count()
    if total > LONG_LOG and not as_json and sys.stderr.isatty():
        with click.progressbar(length=total, label="reading the log", file=sys.stderr) as bar:
            report = build_report(
                g, progress=lambda done: bar.update(done - bar.pos), view=chosen, known=known
            )
    else:
        report = build_report(g, view=chosen, known=known)
    written: list[str] = []
    if out is not None:
        written = _write(g, report, out, fmt, known)
    if as_json:
        emit_json({**report.as_json(), "written": written})
        return
    if out is None:
        from tabletop.render.report import markdown

        click.echo(markdown(report, None), nl=False)
        return
    click.echo(
        f"Report written to {', '.join(written)}: {count(len(report.turns()), 'turn')}, "
        f"{count(report.events, 'event')}, {count(report.dice.get('rolls', 0), 'die', 'dice')}"
    )


def _format(out: Path | None) -> str:
    from tabletop.core.errors import BadInput

    if out is None:
        return "md"
    suffix = out.suffix.lower().lstrip(".")
    if suffix in ("md", "markdown"):
        suffix = "md"
    elif suffix in ("html", "htm"):
        suffix = "html"
    else:
        raise BadInput(f"--out {str(out)!r}: name a .md or .html file")
    if not out.parent.is_dir():
        raise BadInput(f"--out {str(out)!r}: the folder {str(out.parent)!r} does not exist")
    return suffix


def map_svg(g: Any, known: Any) -> str:
    """The map as ``known.view`` may see it, as SVG text."""
    import io

    from tabletop.render.draw import write
    from tabletop.render.scene import build_scene

    scene = build_scene(g.context(), g.info.name, known.view, known=known)
    buffer = io.BytesIO()
    write(scene, buffer, "svg")
    return buffer.getvalue().decode("utf-8")


def _write(g: Any, report: Any, out: Path, fmt: str, known: Any) -> list[str]:
    from tabletop.core.errors import BadInput
    from tabletop.render.report import html, markdown

    svg = map_svg(g, known)
    try:
        if fmt == "html":
            out.write_text(html(report, svg), encoding="utf-8")
            return [str(out)]
        picture = out.with_name(f"{out.stem}-map.svg")
        picture.write_text(svg, encoding="utf-8")
        out.write_text(markdown(report, picture.name), encoding="utf-8")
        return [str(out), str(picture)]
    except OSError as exc:
        raise BadInput(f"--out {str(out)!r}: cannot write it ({exc.strerror})") from None
