"""The game's current state as plain JSON-able data, one row per key.

Rows: ``meta`` (turn, phase, generator counter, stand order), ``conditions`` (light, weather,
wind, ground), ``stand:<id>`` (position, status, markers, ammunition), ``template:<id>``
(smoke, illumination and burst templates on the table), ``pending`` (work waiting for a phase
boundary, such as ammunition depletion dice). Rules read and change these dictionaries; the
game diffs them by row to write the database and to record what ``undo`` must put back.
"""

from __future__ import annotations

import copy
import difflib
import json
from typing import Any

from tabletop.core.errors import UnknownStand
from tabletop.state.store import canonical

STAND = "stand:"
TEMPLATE = "template:"


class State:
    def __init__(self, rows: dict[str, Any]):
        self.rows = rows

    @classmethod
    def from_db(cls, raw: dict[str, str]) -> State:
        return cls({k: json.loads(v) for k, v in raw.items()})

    def copy(self) -> State:
        return State(copy.deepcopy(self.rows))

    def canonical(self) -> dict[str, str]:
        return {k: canonical(v) for k, v in self.rows.items()}

    # --- turn -------------------------------------------------------------------------------

    @property
    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = self.rows["meta"]
        return meta

    @property
    def turn(self) -> int:
        return int(self.meta["turn"])

    @property
    def phase(self) -> str:
        return str(self.meta["phase"])

    @property
    def conditions(self) -> dict[str, Any]:
        conditions: dict[str, Any] = self.rows["conditions"]
        return conditions

    # --- stands -----------------------------------------------------------------------------

    def stand_ids(self) -> list[str]:
        return list(self.meta["stand_order"])

    def has_stand(self, stand_id: str) -> bool:
        return STAND + stand_id in self.rows

    def stand(self, stand_id: str) -> dict[str, Any]:
        row: dict[str, Any] | None = self.rows.get(STAND + stand_id)
        if row is None:
            # Stand ids are case-insensitive (SPEC 3): "us-1" is US-1.
            folded = stand_id.casefold()
            same = [s for s in self.meta["stand_order"] if s.casefold() == folded]
            if len(same) == 1:
                found: dict[str, Any] = self.rows[STAND + same[0]]
                return found
            raise UnknownStand(unknown_stand_message(stand_id, self.stand_ids()))
        return row

    def stands(self) -> list[dict[str, Any]]:
        return [self.rows[STAND + s] for s in self.meta["stand_order"]]

    def add_stand(self, row: dict[str, Any]) -> None:
        self.rows[STAND + row["id"]] = row
        if row["id"] not in self.meta["stand_order"]:
            self.meta["stand_order"].append(row["id"])

    # --- templates --------------------------------------------------------------------------

    def templates(self) -> list[dict[str, Any]]:
        found = [v for k, v in self.rows.items() if k.startswith(TEMPLATE)]
        return sorted(found, key=lambda t: (t.get("serial", 0), t["id"]))

    def add_template(self, template: dict[str, Any]) -> str:
        serial = int(self.meta.get("template_serial", 0)) + 1
        self.meta["template_serial"] = serial
        template_id = template.get("id") or f"{template['kind']}-{serial}"
        template = {**template, "id": template_id, "serial": serial}
        self.rows[TEMPLATE + template_id] = template
        return template_id

    def remove_template(self, template_id: str) -> None:
        self.rows.pop(TEMPLATE + template_id, None)

    # --- pending work at phase boundaries ---------------------------------------------------

    def pending(self, name: str) -> list[dict[str, Any]]:
        bucket: dict[str, list[dict[str, Any]]] = self.rows.setdefault("pending", {})
        return bucket.setdefault(name, [])


def unknown_stand_message(stand_id: str, known: list[str]) -> str:
    folded = {k.casefold(): k for k in known}
    close = difflib.get_close_matches(stand_id.casefold(), list(folded), n=1)
    hint = f"; did you mean {folded[close[0]]!r}?" if close else ""
    shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
    return f"unknown stand {stand_id!r} (stands: {shown}){hint}"


def diff(
    before: dict[str, str], after: dict[str, str]
) -> tuple[dict[str, str | None], dict[str, str | None]]:
    """Rows to write, and the before-image that undoes them (None = row did not exist)."""
    writes: dict[str, str | None] = {}
    undo: dict[str, str | None] = {}
    for key, value in after.items():
        if before.get(key) != value:
            writes[key] = value
            undo[key] = before.get(key)
    for key in before.keys() - after.keys():
        writes[key] = None
        undo[key] = before[key]
    return writes, undo


# Stands no longer on the table: eliminated by fire, or lost, aborted or removed by the
# airborne and amphibious rules (CD 7, 8).
OUT_OF_PLAY = frozenset({"eliminated", "lost", "aborted", "removed"})


def in_play(stand: dict[str, Any]) -> bool:
    return stand["status"] not in OUT_OF_PLAY


def out_of_play(stand: dict[str, Any]) -> bool:
    return stand["status"] in OUT_OF_PLAY
