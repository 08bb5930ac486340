"""What happens to terrain during a battle: bridges blown and repaired, buildings turned to
rubble or burning, fortifications damaged, gaps cleared through obstacles.

Each such piece has a state row ``terrain:<id>``; the scenario keeps its shape and kind.
"""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import BadInput
from tabletop.core.spelling import did_you_mean
from tabletop.core.words import with_article
from tabletop.state.document import State

TERRAIN = "terrain:"
# Kinds whose state can change in play (CD 2.4, 4, 6).
CHANGEABLE = (
    "bridge",
    "bua-strong",
    "bua-flimsy",
    "fortification",
    "rubble",
    "wire",
    "ditch",
    "crater",
    "av-obstacle",
    "abatis",
)
STRUCTURES = ("bridge", "bua-strong", "bua-flimsy", "fortification")


def opening_rows(scenario: Any) -> dict[str, dict[str, Any]]:
    rows = {}
    for piece in scenario.terrain:
        if piece.kind in CHANGEABLE:
            rows[TERRAIN + piece.id] = {
                "id": piece.id,
                "kind": piece.kind,
                "state": piece.state,
                "wired": piece.wired,
                "damage": 1 if piece.state == "damaged" else 0,
                "recheck": False,
                "gaps": [],
            }
    return rows


def row(state: State, piece_id: str, scenario: Any) -> dict[str, Any]:
    found = state.rows.get(TERRAIN + piece_id)
    if found is not None:
        return found  # type: ignore[no-any-return,unused-ignore]
    known = [p.id for p in scenario.terrain]
    if piece_id in known:
        kind = scenario.piece(piece_id).kind
        raise BadInput(f"{piece_id} is {kind}: nothing about it changes in play")

    raise BadInput(f"unknown terrain piece {piece_id!r}{did_you_mean(piece_id, known)}")


def changed(state: State) -> list[dict[str, Any]]:
    """Terrain whose state is not as the scenario began it, and bridges built in play
    (rows with ``built: True``, CD 2.4.3, 2.4.5), for status and ``structure list``."""
    return [
        v
        for k, v in sorted(state.rows.items())
        if k.startswith(TERRAIN)
        and (v["state"] != "intact" or v["gaps"] or v["recheck"] or v.get("built"))
    ]


def not_a_scenario_piece(state: State, piece_id: str, scenario: Any, what: str) -> BadInput:
    """The error for a piece id that is not the scenario's: unknown, or built in play."""
    found = row(state, piece_id, scenario)  # raises for an unknown id
    return BadInput(
        f"{piece_id} is {with_article(found['kind'])} built in play, "
        f"not one of the scenario's pieces ({what} expected)"
    )
