"""tabletop status: the game at a glance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import command, emit_json, game_option, headline, json_option
from tabletop.rules.cd.compass import point_name


def status_data(state: Any, view: str = "referee") -> dict[str, Any]:
    """The game now, as ``view`` (the referee, or a side's name) may know it."""
    from tabletop.rules.cd.ammo import weapon_status
    from tabletop.rules.cd.hidden import fields, view_of, visible_to
    from tabletop.rules.cd.tasks import tasks
    from tabletop.rules.cd.template_info import template_info
    from tabletop.rules.cd.terrain_state import changed
    from tabletop.rules.models.display import stand_models

    cond = state.conditions
    return {
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
                "ammo": {w: weapon_status(a) for w, a in s["ammo"].items()},
                **({"models": stand_models(s)} if s.get("models") else {}),
            }
            for s in state.stands()
        ],
        "templates": [template_info(t) for t in state.templates()],
        "pending": {k: len(v) for k, v in state.rows.get("pending", {}).items() if v},
        "minefields": [view_of(f, view) for f in fields(state) if visible_to(f, view)],
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
            for r in changed(state)
        ],
    }


@click.command("status")
@click.option("--side", default=None, help="Show only this side's stands.")
@game_option
@json_option
@command
def cli(side: str | None, game: Path, as_json: bool) -> None:
    """Turn, phase, light, weather, wind, ground, and every stand.

    \b
    Example:
      tabletop status
      tabletop status --side Germany --json
    """
    from tabletop.state.document import State
    from tabletop.state.store import Store

    # The store alone: status needs neither the scenario nor the charts, so it stays quick.
    store = Store.open(game)
    try:
        state = State.from_db(store.rows())
        name = store.game().name
    finally:
        store.close()
    if side is not None:
        from tabletop.core.sides import resolve_side

        side = resolve_side(side, sorted({s["side"] for s in state.stands()}))
    # A side's view leaves out what only the referee knows (hidden minefields).
    data = status_data(state, side or "referee")
    if side is not None:
        data["stands"] = [s for s in data["stands"] if s["side"] == side]
    if as_json:
        emit_json(data)
        return
    click.echo(render(data, name))


def render(data: dict[str, Any], name: str) -> str:
    from tabletop.cli.core import fit_table

    wind = data["wind"]
    lines = [
        headline(f"{name}: turn {data['turn']}, {data['phase']} phase"),
        f"{data['light']}, {data['weather']}{', dusty' if data['dusty'] else ''}; wind from "
        f"{wind['from']} ({point_name(wind['from'])}) {wind['force']}; ground {data['ground']}",
        "",
    ]
    rows = []
    for s in data["stands"]:
        where = "-" if s["x"] is None else f"{s['x']:g},{s['y']:g}"
        status = s["status"] + ("" if not s["markers"] else " +" + ", ".join(s["markers"]))
        ammo = " ".join(f"{w}:{v}" if v != "ok" else w for w, v in s["ammo"].items())
        rows.append([s["id"], s["side"], s["kind"], where, status, ammo or "-"])
    lines.append(fit_table(rows, ["stand", "side", "kind", "at", "status", "weapons"]))
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
        what = "" if "real" not in f else (" real" if f["real"] else " dummy")
        lines.append(
            f"Minefield {f['id']}: {f['side']}{what} at {f['x']:g},{f['y']:g}"
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
            + (f", {r['gaps']} gap(s)" if r["gaps"] else "")
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
