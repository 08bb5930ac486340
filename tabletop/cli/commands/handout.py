"""tabletop handout SIDE --out DIR: what one side may know, ready to hand over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import command, emit_json, game_option, json_option, open_game
from tabletop.core.words import possessive

FILES = ("map.svg", "map.png", "status.txt", "status.json", "report.md")


@click.command("handout")
@click.argument("side", metavar="SIDE")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The folder to write into (made if missing; its parent must exist).",
)
@game_option
@json_option
@command
def cli(side: str, out: Path, game: str, as_json: bool) -> None:
    """SIDE's handout: its map, status and report, in one folder.

    Everything is drawn from SIDE's view, as 'map', 'status' and 'report' show it
    with --view SIDE: its own stands, the enemy stands it spots now and where it
    last saw the others, every minefield template (real or dummy only where it
    may know, CD 3), and its log with the enemy's secrets left out. Writes
    map.svg, map.png, status.txt, status.json and report.md (the report shows
    map.svg).

    \b
    Example:
      tabletop handout USA --out handout-usa
    """
    from tabletop.cli.commands.report import map_svg
    from tabletop.cli.commands.status import render
    from tabletop.core.errors import BadInput
    from tabletop.core.sides import resolve_side
    from tabletop.render.report import build_report, markdown
    from tabletop.render.status import status_data

    g = open_game(game)
    ctx = g.context()
    chosen = resolve_side(side, ctx.scenario.side_names(), option="SIDE")
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out {str(out)!r}: not a folder")
    if not out.parent.is_dir():
        raise BadInput(f"--out {str(out)!r}: the folder {str(out.parent)!r} does not exist")
    known = g.knowledge(chosen, ctx)
    svg = map_svg(g, known)
    status = status_data(ctx.state, chosen, known, ctx.scenario)
    report = build_report(g, view=chosen, known=known)
    texts: dict[str, str] = {
        "map.svg": svg,
        "status.txt": render(status, g.info.name) + "\n",
        "status.json": json.dumps(status, indent=2, ensure_ascii=False) + "\n",
        "report.md": markdown(report, "map.svg"),
    }
    try:
        out.mkdir(exist_ok=True)
        for name, text in texts.items():
            (out / name).write_text(text, encoding="utf-8")
        _png(g, known, out / "map.png")
    except OSError as exc:
        raise BadInput(f"--out {str(out)!r}: cannot write it ({exc.strerror})") from None
    written = [str(out / name) for name in FILES]
    data: dict[str, Any] = {
        "side": chosen,
        "out": str(out),
        "files": written,
        "turn": status["turn"],
        "phase": status["phase"],
    }
    if as_json:
        emit_json(data)
        return
    click.echo(
        f"{possessive(chosen)} handout for turn {status['turn']}, {status['phase']} phase, "
        f"written to {out}: {', '.join(FILES)}"
    )


def _png(g: Any, known: Any, path: Path) -> None:
    from tabletop.render.draw import write
    from tabletop.render.scene import build_scene

    scene = build_scene(g.context(), g.info.name, known.view, known=known)
    with path.open("wb") as fh:
        write(scene, fh, "png")
