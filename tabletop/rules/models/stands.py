"""Model procedures acting on stands: ``tabletop model run NAME PROCEDURE STAND...`` or
``--set unit=STAND`` (``assaulter=``, ``target=``, ``hq=`` where the procedure has them).

A procedure that the seeds apply to units reads the stand it is given: its profile for the
model, the facts its record holds (suppression, state, men, effectiveness, aggression
factor...), and what the table says (distance to an HQ, terrain, movement). The options the
referee gives with ``--set`` still win. The result is written back on the stand's record
(``stand["models"][model]``) with the procedure's rule beside each fact, inside the game's
event, so undo and replay restore and rebuild it. A stand out of play, or whose state the
model says may not act, is refused (exit 3, naming the rule) before anything is rolled.

Our readings where the seeds are silent: distances are measured centre to centre on the
table in the model's squares or hexes; an HQ named as a stand gives its own profile and
state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from tabletop.core.errors import RulesRefusal
from tabletop.core.frozen import frozen_dataclass
from tabletop.rules.context import RulesContext
from tabletop.rules.models import Model
from tabletop.state.document import StandRow, centre, out_of_play

Stand = StandRow
Reader = Callable[[RulesContext, Model, Stand, dict[str, Stand]], dict[str, Any]]
Writer = Callable[[RulesContext, Model, Stand, dict[str, Any]], dict[str, Any]]

# What a write may return besides record facts: the stand's own status.
STATUS = "_status"


@frozen_dataclass
class StandUse:
    """One stand a procedure takes: the option naming it, what it reads from the stand, what
    it writes back, and the record states that may not take part (with their rule)."""

    key: str
    read: Reader
    write: Writer | None = None
    refuse: Mapping[str, str] | None = None
    # Whether the stand needs a profile of the model (aggression derives one from its kind).
    needs_profile: bool = True


def record(model: Model, stand: Stand) -> dict[str, Any]:
    return dict(((stand.get("models") or {}).get(model.name)) or {})


def profile_of(ctx: RulesContext, model: Model, stand: Stand) -> str | None:
    return ctx.scenario.stand_spec(stand["id"]).profiles.get(model.name)


def squares_between(model: Model, a: Stand, b: Stand) -> float | None:
    if a.get("x") is None or b.get("x") is None:
        return None
    inches = math.hypot(centre(a)[0] - centre(b)[0], centre(a)[1] - centre(b)[1])
    return round(inches / model.inches_per_unit, 3)


def find_stand(ctx: RulesContext, value: Any) -> Stand | None:
    """The stand ``value`` names (ids are case-insensitive), or None (a profile id then)."""
    if not isinstance(value, str):
        return None
    for sid in ctx.state.meta["stand_order"]:
        if sid.lower() == value.lower():
            stand: Stand = ctx.state.stand(sid)
            return stand
    return None


def check_may_act(model: Model, procedure: str, use: StandUse, stand: Stand) -> None:
    if out_of_play(stand):
        raise RulesRefusal(
            f"{stand['id']} is {stand['status']} and cannot take part in {model.name} {procedure}"
        )
    state = str(record(model, stand).get("state") or "")
    if use.refuse and state in use.refuse:
        raise RulesRefusal(
            f"{stand['id']} is {state} and may not {procedure} ({use.refuse[state]})"
        )


def apply(
    ctx: RulesContext,
    model: Model,
    rule: str,
    bound: list[tuple[StandUse, Stand]],
    result: dict[str, Any],
) -> dict[str, Any]:
    """Write the result on each bound stand; returns what changed, by stand."""
    changed: dict[str, Any] = {}
    for use, stand in bound:
        ctx.involve(stand["id"])
        if use.write is None:
            continue
        changes = use.write(ctx, model, stand, result)
        status = changes.pop(STATUS, None)
        if status is not None:
            stand["status"] = status
        if not changes and status is None:
            continue
        mine = stand.setdefault("models", {}).setdefault(model.name, {})
        mine.update(changes)
        for key in changes:
            mine[f"{key}_rule"] = rule
        changed[stand["id"]] = {**changes, **({"status": status} if status else {})}
    return changed
