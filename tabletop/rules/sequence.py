"""The turn sequence and the procedures the rules attach to its boundaries.

Phases come from the turn chart. Rule modules register boundary procedures with ``@on``:

- ``"end-phase"`` runs as any phase ends (the procedure reads which phase it is);
- ``"start-phase:<id>"`` / ``"end-phase:<id>"`` for one named phase;
- ``"end-turn"`` and ``"start-turn"`` around the turn change.

Each procedure is ``f(ctx) -> list[happened]`` where a happened entry is a dict with
``what`` and ``result`` (and ``stand``, ``rolls`` when they apply). Registration order within
a boundary is the ``order`` number, then module order. Modules listed in ``HOOK_MODULES`` are
imported on first use, so a new rule area adds one line there.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

Happened = dict[str, Any]
Hook = Callable[[Any], list[Happened]]

HOOK_MODULES: tuple[str, ...] = (
    "tabletop.rules.cd.boundaries",
    "tabletop.rules.cd.conditions",
    "tabletop.rules.cd.amphibious",
    "tabletop.rules.models.decay",
)

_HOOKS: dict[str, list[tuple[int, int, Hook]]] = {}
_loaded = False


def on(boundary: str, order: int = 50) -> Callable[[Hook], Hook]:
    def register(hook: Hook) -> Hook:
        _HOOKS.setdefault(boundary, []).append((order, len(_HOOKS.get(boundary, [])), hook))
        return hook

    return register


def hooks(boundary: str) -> list[Hook]:
    global _loaded
    if not _loaded:
        for name in HOOK_MODULES:
            importlib.import_module(name)
        _loaded = True
    return [h for _, _, h in sorted(_HOOKS.get(boundary, []), key=lambda t: (t[0], t[1]))]


def _run(boundary: str, ctx: Any) -> list[Happened]:
    out: list[Happened] = []
    for hook in hooks(boundary):
        out.extend(hook(ctx))
    return out


def advance_phase(ctx: Any) -> list[Happened]:
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


def phase_next_action(ctx: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    before = (ctx.state.turn, ctx.state.phase)
    happened = advance_phase(ctx)
    _involve(ctx, happened)
    return {
        "from": {"turn": before[0], "phase": before[1]},
        "turn": ctx.state.turn,
        "phase": ctx.state.phase,
        "happened": happened,
    }


def turn_next_action(ctx: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Advance through the rest of the turn to the first phase of the next one."""
    before = (ctx.state.turn, ctx.state.phase)
    happened: list[Happened] = []
    start = ctx.state.turn
    while ctx.state.turn == start:
        happened += advance_phase(ctx)
    _involve(ctx, happened)
    return {
        "from": {"turn": before[0], "phase": before[1]},
        "turn": ctx.state.turn,
        "phase": ctx.state.phase,
        "happened": happened,
    }


def _involve(ctx: Any, happened: list[Happened]) -> None:
    ctx.involve(*(h["stand"] for h in happened if h.get("stand")))
