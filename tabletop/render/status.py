"""The game's status as one view may know it: the data ``status --json`` prints, which
``handout`` writes as status.json and ``serve`` gives each side's page as ``state.json``.

What a side may know is decided in ``tabletop.rules.views``; this only puts it in one object.
The rules are imported inside the function, as everywhere in ``render``: the referee's status
loads no views (nor, through them, the table's geometry), so it stays quick.
"""

from __future__ import annotations

from typing import Any


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
