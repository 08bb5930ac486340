"""The game's current state as plain JSON-able data, one row per key.

Rows: ``meta`` (turn, phase, generator counter, stand order), ``conditions`` (light, weather,
wind, ground), ``stand:<id>`` (position, status, markers, ammunition), ``template:<id>``
(smoke, illumination and burst templates on the table), ``pending`` (work waiting for a phase
boundary, such as ammunition depletion dice). Rules read and change these dictionaries; the
game diffs them by row to write the database and to record what ``undo`` must put back.
"""

from __future__ import annotations

import copy
import json
import marshal
from typing import TYPE_CHECKING, Any, Required, TypedDict

from tabletop.core.errors import UnknownStand
from tabletop.core.spelling import closest
from tabletop.state.store import canonical

STAND = "stand:"
TEMPLATE = "template:"


# --- the stand row ---------------------------------------------------------------------------
# A stand's row is a JSON object; these TypedDicts name each key the code reads or writes and
# its type, so mypy checks every access. They describe the row, they do not copy it: rules
# change the dictionary in place and the game diffs the rows.


if TYPE_CHECKING:

    class AmmoRow(TypedDict, total=False):
        """One weapon's ammunition on a stand (CD 1), built by ``rules.cd.ammo.fresh_ammo``."""

        state: Required[str]  # "ok" or "depleted" (CD 1.2)
        depleted_turn: Required[int | None]  # the turn it ran out; resupply looks at it (CD 1.4)
        fired: dict[str, Any]  # the last firing booked against it: turn, phase, by, count
        uses_left: int  # flame weapons: uses before empty (CD 1.3.1)
        resupplies_left: int  # rockets: one resupply a game (CD 1.3.3)
        limited: str  # limited-issue rounds: "available", "firing" or "spent" (CD 1.3)
        smoke: str  # an indirect weapon's smoke rounds, as ``limited`` (CD 1.3.2)
        illum: str  # an indirect weapon's illumination rounds, as ``limited`` (CD 9.2.1)

    class FiredRow(TypedDict, total=False):
        """When, with what and from where a stand last fired (sighting and hearing read it)."""

        turn: Required[int]
        phase: Required[str]
        weapon: str  # the weapon, under the CD rules
        model: str  # or the alternative model it fired under (rules/models/engine.py)
        x: Required[float | None]
        y: Required[float | None]

    class LastMoveRow(TypedDict):
        """A stand's last move, for miring after it (CD 11.1.4)."""

        turn: int
        phase: str
        ground: str | None  # the worst ground crossed
        where: str  # hard-road, dirt-road or open: the worst kind of place crossed
        mire_checked: bool  # a vehicle crossed mud and was checked

    class AmphibRow(TypedDict, total=False):
        """A landing craft's, or a wading stand's, progress ashore (CD 8)."""

        stage: Required[str]  # approach, afloat, landed, beached, disembarked, wading, sunk, ...
        approach: list[float]  # where the craft entered (x, y) (CD 8.1.1)
        beach: list[float]  # the beach point it heads for
        wave: int  # the landing wave it belongs to
        entered_turn: int  # the turn it came on
        company: str  # its company: craft of one company scatter together (CD 8.1)
        landed_turn: int  # beached on this turn
        off_turn: int  # the turn it left the table
        sunk_at: list[float | None]  # where it sank (CD 8)
        waded_turn: int  # waded on this turn (CD 8.1.4)

    class DropRow(TypedDict, total=False):
        """How an airborne stand came down (CD 7.2, 7.3)."""

        by: Required[str]  # "parachute" or "glider"
        turn: Required[int]
        phase: Required[str]
        zone: Required[list[float]]  # the drop zone's centre
        heading: Required[float]  # the transports' heading
        at: list[float]  # where its square fell

    class PartRow(TypedDict):
        """Where one part of a parachuted gun landed (CD 7.1)."""

        outcome: str
        at: list[float] | None

    class StandRow(TypedDict, total=False):
        """One stand's row, ``stand:<id>``, exactly as stored (built by ``game.opening``)."""

        # From the scenario, always present:
        id: Required[str]
        side: Required[str]
        kind: Required[str]  # a stand kind in charts/stand_kinds.yaml
        quality: Required[str]  # troop quality; a landing craft's, its crew's (CD 8)
        formation: Required[str | None]  # its formation in the scenario's order of battle
        weapons: Required[list[str]]  # weapon ids in charts/weapons.yaml, the first is its main
        x: Required[float | None]  # centre, inches; None while off the table (aboard, off-table)
        y: Required[float | None]
        facing: Required[float]  # degrees clockwise from +y (a step ahead adds sin, cos)
        width: Required[float]  # base, inches
        depth: Required[float]
        status: Required[str]  # ok, eliminated, lost, aborted, removed (OUT_OF_PLAY below)
        markers: Required[list[str]]  # suppressed, pinned, mired, foxholes, no-crew, ...
        moved_turn: Required[int | None]  # the last turn it moved
        fired: Required[FiredRow | None]  # its last firing
        ammo: Required[dict[str, AmmoRow]]  # by weapon id (CD 1)
        # Set by the rules as play goes on:
        fired_at: int  # the last turn it was fired at (morale, night sighting)
        last_move: LastMoveRow  # its last move (CD 11.1.4)
        mire_checked_turn: int  # the turn a miring check was rolled for it (CD 11.1.4)
        mire_due: dict[str, Any]  # a miring roll left due: number, where, ground, halfway
        mired_number: int  # the miring number where it mired (CD 11.1.5 doubles it)
        stays: dict[str, Any]  # a task it stays put for this movement phase: turn, phase, why, rule
        forced_back: dict[str, Any]  # a fall-back still to make: turn, distance, away_from, by
        unmired_turn: int  # the turn it got out of the mud (CD 11.1.4)
        unmire_tried_turn: int  # the turn it tried to (CD 11.1.4)
        morale_due: list[dict[str, Any]]  # morale tests owed: rule, why, turn (CD 7.3.4)
        morale_pin_tested: int  # the turn it tested for being pinned at night
        aboard: str  # the assault boat or craft carrying it (CD 2.1, 8)
        carrying: list[str]  # an assault boat's passengers (CD 2.1)
        cargo: list[str]  # a landing craft's passengers (CD 8)
        amphib: AmphibRow  # landing progress (CD 8)
        disembarked_turn: int  # the turn it left its landing craft (CD 8)
        order: str  # an order it is on, e.g. hasty-advance after landing (CD 7.2.2, CD 8)
        drop: DropRow  # how it came down from the air (CD 7.2, 7.3)
        landed_turn: int  # the turn it landed from the air (CD 7.2.2)
        landed_by: str  # parachute or glider
        regroup: bool  # a lost stick that may still come back
        parts: dict[str, PartRow]  # a parachuted gun's crew, ammunition and gun (CD 7.1)
        vlb_bridge: str  # the bridge a bridgelayer has laid and may recover (CD 2.4.5)
        # Each alternative model's own state, by model name (free-form for each model).
        models: dict[str, dict[str, Any]]

else:
    # At run time a row is the plain dictionary it is: making these classes (each key's
    # annotation compiled) cost a millisecond of every command's start, for checks only mypy
    # makes.
    AmmoRow = FiredRow = LastMoveRow = AmphibRow = DropRow = PartRow = StandRow = dict


class State:
    def __init__(self, rows: dict[str, Any]):
        self.rows = rows

    @classmethod
    def from_db(cls, raw: dict[str, str]) -> State:
        # The rows parsed as one JSON array: a call per row cost more in calls than in
        # parsing (a large game has about 170 rows). Each row is one JSON value as stored.
        values = json.loads("[" + ",".join(raw.values()) + "]") if raw else []
        return cls(dict(zip(raw, values, strict=True)))

    def copy(self) -> State:
        """An independent deep copy (a dry run changes the copy, never this state).

        The rows are plain JSON-like data, so ``marshal`` copies them several times quicker
        than ``copy.deepcopy`` (0.3 ms against 1.7 for a large game's 165 rows), giving back
        equal values of the same types, dict key order kept. A value ``marshal``
        cannot write (a rule's own object left in a row) falls back to ``deepcopy``.
        """
        try:
            return State(marshal.loads(marshal.dumps(self.rows)))
        except ValueError:
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

    def stand(self, stand_id: str) -> StandRow:
        row: StandRow | None = self.rows.get(STAND + stand_id)
        if row is None:
            # Stand ids are case-insensitive (SPEC 3): "us-1" is US-1.
            folded = stand_id.casefold()
            same = [s for s in self.meta["stand_order"] if s.casefold() == folded]
            if len(same) == 1:
                found: StandRow = self.rows[STAND + same[0]]
                return found
            raise UnknownStand(unknown_stand_message(stand_id, self.stand_ids()))
        return row

    def stands(self) -> list[StandRow]:
        return [self.rows[STAND + s] for s in self.meta["stand_order"]]

    def add_stand(self, row: StandRow) -> None:
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
    close = closest(stand_id.casefold(), folded)
    hint = f"; did you mean {folded[close]!r}?" if close is not None else ""
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


def position(stand: StandRow) -> tuple[float, float]:
    """Where a stand on the table stands (its centre), as stored (an int stays an int). The
    rules refuse a stand off the table before they ask, so one here is a programming error
    (as in ``data.board.base_of``)."""
    x, y = stand["x"], stand["y"]
    if x is None or y is None:
        raise ValueError(f"{stand['id']} has no position")
    return x, y


def centre(stand: StandRow) -> tuple[float, float]:
    """``position``, as floats."""
    x, y = position(stand)
    return float(x), float(y)


def fired_on(stand: StandRow, turn: int) -> bool:
    """Whether the stand fired on this turn."""
    fired = stand.get("fired")
    return fired is not None and fired["turn"] == turn


def stage_of(stand: StandRow) -> str | None:
    """How far ashore a landing craft or a wading stand is (CD 8); None: not landing."""
    amphib = stand.get("amphib")
    return amphib["stage"] if amphib else None


def in_play(stand: StandRow) -> bool:
    return stand["status"] not in OUT_OF_PLAY


def out_of_play(stand: StandRow) -> bool:
    return stand["status"] in OUT_OF_PLAY


def status_text(status: str, markers: list[str]) -> str:
    """A stand's status as a referee reads it: ``ok (suppressed, mired)``; a stand out of
    play is that alone (``eliminated``: a marker it carried no longer means anything)."""
    if status in OUT_OF_PLAY or not markers:
        return status
    return f"{status} ({', '.join(markers)})"
