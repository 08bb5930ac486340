"""tabletop status: the game at a glance."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    command,
    emit_json,
    game_option,
    headline,
    json_option,
    view_option,
)  # fmt: skip
from tabletop.core.words import count, point_text, possessive
from tabletop.render.status import status_data
from tabletop.rules.cd.compass import point_name


@click.command("status")
@click.option("--side", default=None, help="Show only this side's stands.")
@view_option
@game_option
@json_option
@command
def cli(side: str | None, view: str | None, game: str, as_json: bool) -> None:
    """Turn, phase, light, weather, wind, ground, and every stand.

    A side's view (--view SIDE) lists its own stands, the enemy stands it spots
    now, and where it last saw the others; every minefield template, real or
    dummy only where it may know (CD 3).

    \b
    Example:
      tabletop status
      tabletop status --side Germany --json
      tabletop status --view USA
    """
    from tabletop.game.rows import read_rows
    from tabletop.state.document import State

    # The rows alone: status needs neither the scenario nor the charts, so it stays quick.
    rows, info = read_rows(game)
    state = State.from_db(rows)
    name = info.name
    from tabletop.cli.core import chosen_view

    sides = list(dict.fromkeys(s["side"] for s in state.stands()))
    if side is not None:
        from tabletop.core.sides import resolve_side

        side = resolve_side(side, sorted(sides))
    # --side alone shows that side's view: naming a side never shows it the referee's.
    chosen = side if (view is None and side is not None) else chosen_view(view, state, sides)
    known = scenario = None
    if chosen != "referee":
        from tabletop.cli.core import open_game

        # A side's view needs the table and the charts: what it spots is worked out.
        g = open_game(game)
        known, scenario = g.knowledge(chosen), g.loaded.scenario
    data = status_data(state, chosen, known, scenario)
    if side is not None:
        data["stands"] = [s for s in data["stands"] if s["side"] == side]
    if as_json:
        emit_json(data)
        return
    click.echo(render(data, name))


def render(data: dict[str, Any], name: str) -> str:
    from tabletop.cli.core import fit_table
    from tabletop.state.document import status_text

    wind = data["wind"]
    lines = [
        headline(f"{name}: turn {data['turn']}, {data['phase']} phase"),
        f"{data['light']}, {data['weather']}{', dusty' if data['dusty'] else ''}; wind from "
        f"{wind['from']} ({point_name(wind['from'])}) {wind['force']}; ground {data['ground']}",
        "",
    ]
    rows = []
    for s in data["stands"]:
        where = "-" if s["x"] is None else point_text(s["x"], s["y"])
        status = status_text(s["status"], s["markers"])
        ammo = " ".join(f"{w}:{v}" if v != "ok" else w for w, v in s["ammo"].items())
        rows.append([s["id"], s["side"], s["kind"], where, status, ammo or "-"])
    lines.append(fit_table(rows, ["stand", "side", "kind", "at", "status", "weapons"]))
    if "view" in data:
        spotted = [f"{s['id']} (by {s['spotted_by']})" for s in data["stands"] if "spotted_by" in s]
        import textwrap

        lines.extend(
            textwrap.wrap(
                f"{possessive(data['view'])} view: enemy spotted now: "
                + (", ".join(spotted) or "none"),
                80,
                subsequent_indent="    ",
                break_on_hyphens=False,
            )
        )
        for m in data["last_seen"]:
            lines.append(
                f"  last seen: {m['id']} ({m['kind']}) at {point_text(m['x'], m['y'])} in turn "
                f"{m['turn']}, {m['phase']} phase" + (f"; {m['gone']} since" if m["gone"] else "")
            )
    model_lines(lines, data["stands"])
    if data["templates"]:
        import textwrap

        from tabletop.rules.cd.template_info import describe

        lines.extend(["", "Templates:"])
        for t in data["templates"]:
            lines.extend(
                textwrap.wrap(
                    describe(t),
                    80,
                    initial_indent="  ",
                    subsequent_indent="    ",
                    break_on_hyphens=False,
                )
            )
    for f in data["minefields"]:
        what = {True: " real", False: " dummy", None: " (not known if real)"}[f["real"]]
        lines.append(
            f"Minefield {f['id']}: {f['side']}{what} at {point_text(f['x'], f['y'])}"
            + (" (revealed)" if f["revealed"] else "")
        )
    for t in data["tasks"]:
        if t["status"] == "active":
            lines.append(
                f"Task {t['id']}: {t['kind']} {t['target']} by {', '.join(t['workers'])}"
                f" ({t['left']:g} h left)"
            )
    for r in data["terrain"]:
        lines.append(
            f"Terrain {r['id']} ({r['kind']}): {r['state']}"
            + (f", {count(r['gaps'], 'gap')}" if r["gaps"] else "")
        )
    if data["pending"]:
        lines.append("Pending: " + ", ".join(f"{n} {k}" for k, n in data["pending"].items()))
    return "\n".join(lines)


def model_lines(lines: list[str], stands: list[dict[str, Any]]) -> None:
    """The alternative models' state of each stand that has one, with the rules that set it."""
    from tabletop.rules.models.display import model_lines as lines_of

    shown = [(s["id"], lines_of(s["models"])) for s in stands if s.get("models")]
    if any(text for _, text in shown):
        lines.extend(["", "Model state:"])
        lines.extend(f"  {sid} {line}" for sid, text in shown for line in text)
