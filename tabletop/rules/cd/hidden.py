"""What each view may know of the hidden minefields (CD 3): light enough for ``status``.

A side sees its own fields (real or dummy) and the enemy's revealed ones; the referee sees
all. Rows are ``minefield:<id>`` in the state.
"""

from __future__ import annotations

from typing import Any

MINEFIELD = "minefield:"


def fields(state: Any) -> list[dict[str, Any]]:
    return [
        v
        for k, v in sorted(state.rows.items(), key=lambda kv: kv[1].get("serial", 0))
        if k.startswith(MINEFIELD)
    ]


def visible_to(field: dict[str, Any], view: str) -> bool:
    """Whether a view ("referee" or a side's name) may know of this field."""
    return view == "referee" or field["side"] == view or field["revealed"]


def view_of(field: dict[str, Any], view: str) -> dict[str, Any]:
    """The field as a view may see it: an enemy's revealed field is known to be real."""
    shown = {k: field[k] for k in ("id", "side", "x", "y", "size", "revealed")}
    if view == "referee" or field["side"] == view or field["revealed"]:
        shown["real"] = field["real"]
    return shown
