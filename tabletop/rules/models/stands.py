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
from dataclasses import dataclass
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.rules.context import RulesContext
from tabletop.rules.models import Model
from tabletop.state.document import out_of_play

Stand = dict[str, Any]
Reader = Callable[[RulesContext, Model, Stand, dict[str, Stand]], dict[str, Any]]
Writer = Callable[[RulesContext, Model, Stand, dict[str, Any]], dict[str, Any]]

# What a write may return besides record facts: the stand's own status.
STATUS = "_status"


@dataclass(frozen=True)
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
    inches = math.hypot(float(a["x"]) - float(b["x"]), float(a["y"]) - float(b["y"]))
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


def bind(
    ctx: RulesContext,
    model: Model,
    procedure: str,
    accepted: Mapping[str, str],
    options: dict[str, Any],
    stands: list[str],
) -> tuple[dict[str, Any], list[tuple[StandUse, Stand]]]:
    """The procedure's options with every stand read in, and the stands bound to it."""
    from tabletop.rules.models.bindings import uses_of

    uses = uses_of(model.name, procedure)
    if stands and not uses:
        raise BadInput(
            f"{model.name} {procedure} does not act on stands: give its options with --set "
            "KEY=VALUE (see 'tabletop model show')"
        )
    if len(stands) > len(uses):
        keys = ", ".join(u.key for u in uses)
        raise BadInput(
            f"{model.name} {procedure} takes {len(uses)} stand(s) ({keys}); got "
            f"{len(stands)}: {' '.join(stands)}"
        )
    given = dict(options)
    for use, sid in zip(uses, stands, strict=False):
        if use.key in given:
            raise BadInput(f"{sid}: {use.key} is given twice (a stand and --set {use.key}=)")
        if find_stand(ctx, sid) is None:
            ctx.state.stand(sid)  # the unknown-stand message, with the nearest ids
        given[use.key] = sid
    found: dict[str, Stand] = {}
    for use in uses:
        stand = find_stand(ctx, given.get(use.key))
        if stand is not None:
            found[use.key] = stand
    bound: list[tuple[StandUse, Stand]] = []
    out = {k: v for k, v in given.items() if k not in found}
    referee = set(out)  # what the referee gave with --set wins over what a stand says
    for use in uses:
        stand = found.get(use.key)
        if stand is None:
            continue
        check_may_act(model, procedure, use, stand)
        if use.needs_profile and profile_of(ctx, model, stand) is None:
            raise BadInput(
                f"{stand['id']} has no profile for the {model.name} model: give it "
                f"'profiles: {{{model.name}: ID}}' in the scenario (IDs in "
                f"charts/models/{model.chart}.yaml)"
            )
        read = use.read(ctx, model, stand, found)
        for key, value in read.items():
            if key in accepted and key not in referee and value is not None:
                out[key] = value
        bound.append((use, stand))
    return out, bound


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
