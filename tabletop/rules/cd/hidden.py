"""What each view may know of the minefields (CD 3): light enough for ``status``.

Both sides see every minefield template on the table: they lie in plain view. Whether a
template is real or a dummy is known to the side that laid it, to the referee, and to
everyone once it is revealed (CD 3, 3.2). Rows are ``minefield:<id>`` in the state.
"""

from __future__ import annotations

from typing import Any

from tabletop.state.document import State

MINEFIELD = "minefield:"


def fields(state: State) -> list[dict[str, Any]]:
    return [
        v
        for k, v in sorted(state.rows.items(), key=lambda kv: kv[1].get("serial", 0))
        if k.startswith(MINEFIELD)
    ]


def visible_to(field: dict[str, Any], view: str) -> bool:
    """Whether a view ("referee" or a side's name) sees this template: every view does,
    since the templates lie on the table for both sides (CD 3)."""
    return True


def knows_real(field: dict[str, Any], view: str) -> bool:
    """Whether a view may know if this template is real or a dummy (CD 3, 3.2)."""
    return view == "referee" or field["side"] == view or bool(field["revealed"])


def view_of(field: dict[str, Any], view: str) -> dict[str, Any]:
    """The field as a view may see it: ``real`` is None where the view may not know."""
    shown = {k: field[k] for k in ("id", "side", "x", "y", "size", "revealed")}
    shown["real"] = field["real"] if knows_real(field, view) else None
    return shown
