"""tabletop status: the game at a glance."""

from __future__ import annotations

from pathlib import Path
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
from tabletop.rules.cd.compass import point_name


def status_data(
    state: Any, view: str = "referee", known: Any = None, scenario: Any = None
) -> dict[str, Any]:
    """The game now, as ``view`` (the referee, or a side's name) may know it.

    ``known`` (a ``Knowledge``, needed for a side's view) says which enemy stands the side
    spots now and where it last saw the others (``tabletop.rules.views``).
    """
    from tabletop.rules.cd.ammo_state import weapon_status
    from tabletop.rules.cd.hidden import fields, view_of
    from tabletop.rules.cd.task_rows import tasks
    from tabletop.rules.cd.template_info import template_info
    from tabletop.rules.cd.terrain_state import changed
    from tabletop.rules.models.display import stand_models

    cond = state.conditions
    spotted = {} if known is None else known.spotted
    side_view = known is not None and not known.is_referee
    if side_view:
        # Only a side's view filters what it may know: the referee's loads no views (nor,
        # through them, the table's geometry).
        from tabletop.rules.views import (
            stands_for_view,
            templates_for_view,
            terrain_changes_for_view,
        )

        stands: list[Any] = stands_for_view(state, known)
        templates = templates_for_view(state, known)
        terrain = terrain_changes_for_view(changed(state), known, scenario)
    else:
        stands, templates, terrain = state.stands(), state.templates(), changed(state)
    data = {
        "turn": state.turn,
        "phase": state.phase,
        "light": cond["light"],
        "weather": cond["weather"],
        "wind": {"from": cond["wind"]["from"], "force": cond["wind"]["force"]},
        "ground": cond["ground"],
        "dusty": cond["dusty"],
        "stands": [
            {
                "id": s["id"],
                "side": s["side"],
                "kind": s["kind"],
                "x": s["x"],
                "y": s["y"],
                "status": s["status"],
                "markers": s["markers"],
                # An enemy's ammunition is not for the other side to know (CD 1).
                "ammo": {w: weapon_status(a) for w, a in s.get("ammo", {}).items()},
                **({"spotted_by": known.spotted[s["id"]].by} if s["id"] in spotted else {}),
                **({"models": stand_models(s)} if s.get("models") else {}),
            }
            for s in stands
        ],
        "templates": [template_info(t) for t in templates],
        "pending": {
            k: n
            for k, v in state.rows.get("pending", {}).items()
            # A side counts only its own stands' pending work (its depletion dice, CD 1.2).
            if (n := len([p for p in v if not side_view or _own_item(p, known)]))
        },
        "minefields": [view_of(f, view) for f in fields(state)],
        "tasks": [
            {
                "id": t["id"],
                "kind": t["kind"],
                "target": t["target"],
                "workers": t["workers"],
                "status": t["status"],
                "left": round(max(t["hours_needed"] - t["hours_done"], 0), 3),
            }
            for t in tasks(state)
            if view == "referee" or state.stand(t["workers"][0])["side"] == view
        ],
        "terrain": [
            {"id": r["id"], "kind": r["kind"], "state": r["state"], "gaps": len(r["gaps"])}
            for r in terrain
        ],
    }
    if side_view:
        data["view"] = view
        data["last_seen"] = [m.as_json() for m in known.last_seen.values()]
    return data


def _own_item(item: Any, known: Any) -> bool:
    stand = item.get("stand") if isinstance(item, dict) else None
    return not isinstance(stand, str) or known.is_own(stand)


@click.command("status")
@click.option("--side", default=None, help="Show only this side's stands.")
@view_option
@game_option
@json_option
@command
def cli(side: str | None, view: str | None, game: Path, as_json: bool) -> None:
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
