"""The turn sequence and the procedures the rules attach to its boundaries.

Phases come from the turn chart, and so do the steps run at their boundaries: each step is
an entry of ``charts/turn.yaml`` with ``at`` naming its boundary, listed in the order it
runs there:

- ``"end-phase"`` runs as any phase ends (the procedure reads which phase it is);
- ``"start-phase:<id>"`` / ``"end-phase:<id>"`` for one named phase;
- ``"end-turn"`` and ``"start-turn"`` around the turn change.

Rule modules register the procedure of a step with ``@step("<id>")``. Each procedure is
``f(ctx) -> list[happened]`` where a happened entry is a dict with ``what`` and ``result``
(and ``stand``, ``rolls`` when they apply). The sequence does not know the rule areas (they
are a floor above it): ``tabletop/game/turns.py`` imports the ones that register steps
before a phase advances, so a new rule area adds one line there, and its step a line in the
turn chart.

A procedure may also say beforehand what it will do (``says``: ``f(ctx) -> str | None``,
None when it has nothing to do now): ``phase next`` and ``turn next`` announce it, so the
referee knows what a boundary runs before and after it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NotRequired, TypedDict

from tabletop.core.errors import RulesRefusal
from tabletop.data.charts import Charts
from tabletop.rules.context import RulesContext

Happened = dict[str, Any]


class TurnPhase(TypedDict):
    turn: int
    phase: str


# The result of ``phase-next`` and ``turn-next`` ("from" is a keyword: the functional form).
AdvanceResult = TypedDict(
    "AdvanceResult",
    {
        "from": TurnPhase,  # where the game was
        "turn": int,  # where it is now
        "phase": str,
        "skipped": NotRequired[list[str]],  # turn-next: the phases passed over
        "runs": list[str],  # what ran at the boundaries, each naming its rule
        "happened": list[Happened],  # what the boundary steps did
    },
)
Hook = Callable[[Any], list[Happened]]

Says = Callable[[Any], "str | None"]

_STEPS: dict[str, Hook] = {}
_SAYS: dict[Hook, Says] = {}


def step(step_id: str, says: Says | None = None) -> Callable[[Hook], Hook]:
    """Register the procedure of the turn chart's step ``step_id``."""

    def register(hook: Hook) -> Hook:
        if step_id in _STEPS and _STEPS[step_id] is not hook:
            raise ValueError(f"two procedures registered for the turn step {step_id!r}")
        _STEPS[step_id] = hook
        if says is not None:
            _SAYS[hook] = says
        return hook

    return register


def registered_steps() -> dict[str, Hook]:
    """Every step procedure registered so far, by step id."""
    return dict(_STEPS)


def hooks(boundary: str, charts: Charts) -> list[Hook]:
    """The procedures run at ``boundary``, in the turn chart's order. A chart step whose
    procedure is not registered is a chart problem the bundled chart's test rules out."""
    out = []
    for entry in charts.steps_at(boundary):
        hook = _STEPS.get(entry.id)
        if hook is None:
            raise RulesRefusal(
                f"the turn chart's step {entry.id!r} ({entry.at}) has no procedure in this "
                "program (turn chart)"
            )
        out.append(hook)
    return out


def _run(boundary: str, ctx: RulesContext) -> list[Happened]:
    out: list[Happened] = []
    for hook in hooks(boundary, ctx.charts):
        out.extend(hook(ctx))
    return out


def boundaries_ahead(ctx: RulesContext) -> list[tuple[str, str]]:
    """The boundaries ``phase next`` crosses now, as (boundary, phase or turn it concerns)."""
    state = ctx.state
    order = [p.id for p in ctx.charts.phases]
    current = state.phase
    out = [(f"end-phase:{current}", current), ("end-phase", current)]
    index = order.index(current) if current in order else -1
    if index + 1 >= len(order):
        out += [("end-turn", f"turn {state.turn}"), ("start-turn", f"turn {state.turn + 1}")]
        following = order[0]
    else:
        following = order[index + 1]
    out.append((f"start-phase:{following}", following))
    return out


def announce(ctx: RulesContext) -> list[str]:
    """What the next ``phase next`` will run, in order, each line naming its rule."""
    lines: list[str] = []
    for boundary, subject in boundaries_ahead(ctx):
        for hook in hooks(boundary, ctx.charts):
            says = _SAYS.get(hook)
            text = says(ctx) if says is not None else None
            if text:
                when = "start of" if boundary.startswith("start") else "end of"
                what = subject if subject.startswith("turn") else f"the {subject} phase"
                lines.append(f"{when} {what}: {text}")
    return lines


def phases_left(ctx: RulesContext) -> list[str]:
    """The phases of this turn after the current one (what ``turn next`` would skip)."""
    order = [p.id for p in ctx.charts.phases]
    current = ctx.state.phase
    index = order.index(current) if current in order else len(order)
    return order[index + 1 :]


def advance_phase(ctx: RulesContext) -> list[Happened]:
    """End the current phase, run its boundaries, and start the next (maybe a new turn)."""
    state = ctx.state
    order = [p.id for p in ctx.charts.phases]
    current = state.phase
    happened = _run(f"end-phase:{current}", ctx) + _run("end-phase", ctx)
    index = order.index(current) if current in order else -1
    if index + 1 >= len(order):
        happened += _run("end-turn", ctx)
        state.meta["turn"] = state.turn + 1
        state.meta["phase"] = order[0]
        happened.append({"what": "turn", "result": f"turn {state.turn} begins"})
        happened += _run("start-turn", ctx)
    else:
        state.meta["phase"] = order[index + 1]
    happened.append({"what": "phase", "result": f"{state.phase} phase begins"})
    happened += _run(f"start-phase:{state.phase}", ctx)
    return happened


def phase_next_action(ctx: RulesContext, inputs: dict[str, Any]) -> AdvanceResult:
    before = (ctx.state.turn, ctx.state.phase)
    runs = announce(ctx)
    happened = advance_phase(ctx)
    _involve(ctx, happened)
    return {
        "from": {"turn": before[0], "phase": before[1]},
        "turn": ctx.state.turn,
        "phase": ctx.state.phase,
        "runs": runs,
        "happened": happened,
    }


def skip_warning(ctx: RulesContext) -> str | None:
    """What ``turn next`` would pass over from here (None in the last phase)."""
    left = phases_left(ctx)
    if not left:
        return None
    names = ", ".join(left)
    return (
        f"turn next from the {ctx.state.phase} phase of turn {ctx.state.turn} ends it and "
        f"passes over the {names} phase{'s' if len(left) > 1 else ''} "
        "(each phase's boundary procedures still run)"
    )


def turn_next_action(ctx: RulesContext, inputs: dict[str, Any]) -> AdvanceResult:
    """Advance through the rest of the turn to the first phase of the next one.

    Outside the last phase it passes over whole phases: refused when ``skip`` is False (the
    referee did not agree: the CLI asks, or takes ``--yes``). Logs written before the guard
    carry no ``skip`` and replay as they were.
    """
    warning = skip_warning(ctx)
    if warning and inputs.get("skip") is False:
        raise RulesRefusal(
            f"{warning}; give --yes to do so, or 'tabletop phase next' to take them one at "
            "a time (turn sequence, turn chart)"
        )
    before = (ctx.state.turn, ctx.state.phase)
    skipped = phases_left(ctx)
    happened: list[Happened] = []
    runs: list[str] = []
    start = ctx.state.turn
    while ctx.state.turn == start:
        runs += announce(ctx)
        happened += advance_phase(ctx)
    _involve(ctx, happened)
    return {
        "from": {"turn": before[0], "phase": before[1]},
        "turn": ctx.state.turn,
        "phase": ctx.state.phase,
        "skipped": skipped,
        "runs": runs,
        "happened": happened,
    }


def _involve(ctx: RulesContext, happened: list[Happened]) -> None:
    ctx.involve(*(h["stand"] for h in happened if h.get("stand")))
