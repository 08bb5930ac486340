"""Engineering tasks: work that lives across turns (CD 2, 3.3.1, 4).

A task row ``task:<id>`` records who works, on what, since when, how much work it needs
(in hours: a day turn gives its length, a night turn one hour, CD 9.1.7) and what must hold
each turn. At the end of every turn each active task checks its workers: still in play,
not pinned or suppressed, not fired this turn, not moved (except the first turn, when
they come into position) and still at the work. If one fails, the task pauses, keeping the
hours done, and resumes after a turn its workers spend in place and fit; otherwise it gains
the turn's hours and completes when it has enough, running its completion. Estimates are
told in turns of the light in force (night turns at night, CD 9.1.7) with the hours.

Work that needs whole turns beside its object (clearing obstacles, CD 4: begin the movement
phase beside it; hand lifting, CD 3.3.1: spend one turn beside the field) has no such first
turn: a worker that moved this turn starts counting next turn (``from_turn``), and moving in
a counted turn interrupts it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.words import count
from tabletop.data.chart_params import EngineeringParams, TableParams
from tabletop.rules.cd.task_rows import TASK
from tabletop.rules.cd.task_rows import tasks as tasks  # read here too (boundaries, engineer)
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, State, fired_on, out_of_play

COMPLETIONS: dict[str, Callable[[Any, dict[str, Any]], str]] = {}
# Where a worker must be for a kind of task to go on: a sentence why not, or None.
PLACES: dict[str, Callable[[Any, dict[str, Any], StandRow], str | None]] = {}
OPEN = ("active", "paused")


def place_check(
    *kinds: str,
) -> Callable[
    [Callable[[Any, dict[str, Any], StandRow], str | None]],
    Callable[[Any, dict[str, Any], StandRow], str | None],
]:
    """Register where a worker of these kinds of task must be for the work to count."""

    def register(
        fn: Callable[[Any, dict[str, Any], StandRow], str | None],
    ) -> Callable[[Any, dict[str, Any], StandRow], str | None]:
        for kind in kinds:
            PLACES[kind] = fn
        return fn

    return register


def completion(
    kind: str,
) -> Callable[[Callable[[Any, dict[str, Any]], str]], Callable[[Any, dict[str, Any]], str]]:
    """Register what finishing a kind of task does; returns a sentence for the turn report."""

    def register(fn: Callable[[Any, dict[str, Any]], str]) -> Callable[[Any, dict[str, Any]], str]:
        COMPLETIONS[kind] = fn
        return fn

    return register


def turn_hours(ctx: RulesContext) -> float:
    now = effects(ctx.state.conditions, ctx.charts)
    if now.night:
        return ctx.charts.params(EngineeringParams).night_hour_per_turn
    return now.turn_minutes / 60


def day_turn_hours(ctx: RulesContext) -> float:
    return float(ctx.charts.params(TableParams).turn_minutes) / 60


def turns_for(ctx: RulesContext, hours: float) -> tuple[int, bool]:
    """Turns of the light in force that ``hours`` of work take, and whether they are night
    turns (CD 9.1.7: a night turn does an hour's work, and no task takes less than a turn)."""

    night = bool(effects(ctx.state.conditions, ctx.charts).night)
    if hours <= 1e-9:
        return 0, night
    return max(1, math.ceil(hours / turn_hours(ctx) - 1e-9)), night


def estimate_hours(ctx: RulesContext, hours: float) -> str:
    """``hours`` of work told in the turns of the light in force, the hours beside them."""
    turns, night = turns_for(ctx, hours)
    kind = "night turn" if night else "turn"
    rule = ", CD 9.1.7" if night else ""
    return f"{count(turns, kind)} ({hours:g} h{rule})"


def told(ctx: RulesContext, task: dict[str, Any]) -> dict[str, Any]:
    """A new task's length for JSON, as ``estimate`` words it: turns of the light in force
    (night turns at night: one a started hour of work, CD 9.1.7), whether they are night
    turns, and the hours of work; ``day_turns`` is the length the rule gives by day."""
    hours = max(task["hours_needed"] - task["hours_done"], 0.0)
    turns, night = turns_for(ctx, hours)
    return {
        "turns": turns,
        "night": night,
        "hours": round(hours, 4),
        "day_turns": task["turns"],
    }


def estimate(ctx: RulesContext, task: dict[str, Any]) -> str:
    """What a task still needs, in turns of the light in force and hours (CD 9.1.7)."""
    hours = max(task["hours_needed"] - task["hours_done"], 0.0)
    told = estimate_hours(ctx, hours)
    later = task.get("from_turn", 0) > ctx.state.turn
    return told + (f", from turn {task['from_turn']}" if later else "")


def work_left(ctx: RulesContext, task: dict[str, Any]) -> str:
    """What is left, in turns of the light in force, with the hours (CD 9.1.7): "1 night
    turn (0.5 h, CD 9.1.7) of work left, from turn 4"."""
    hours = max(task["hours_needed"] - task["hours_done"], 0.0)
    later = task.get("from_turn", 0) > ctx.state.turn
    return f"{estimate_hours(ctx, hours)} of work left" + (
        f", from turn {task['from_turn']}" if later else ""
    )


def start(
    ctx: RulesContext,
    kind: str,
    workers: list[str],
    target: str,
    turns: float,
    detail: dict[str, Any],
    *,
    no_fire: bool = True,
    whole_turns: bool = False,
) -> dict[str, Any]:
    """Begin a task needing ``turns`` day turns of work; returns the task row.

    ``whole_turns``: every counted turn must be spent in place, the first included, so a
    worker that has moved this turn begins counting next turn.
    """
    state = ctx.state
    for worker in workers:
        busy = [t for t in tasks(state) if worker in t["workers"] and t["status"] in OPEN]
        if busy:
            raise RulesRefusal(
                f"{worker} is already working on {busy[0]['id']} "
                f"({busy[0]['kind']}, {busy[0]['status']}); cancel it first"
            )
    serial = int(state.meta.get("task_serial", 0)) + 1
    state.meta["task_serial"] = serial
    task: dict[str, Any] = {
        "id": f"task-{serial}",
        "kind": kind,
        "workers": workers,
        "target": target,
        "started": {"turn": state.turn, "phase": state.phase},
        "hours_needed": turns * day_turn_hours(ctx),
        "hours_done": 0.0,
        "turns": turns,
        "no_fire": no_fire,
        "status": "active",
        "detail": detail,
        "report": None,
    }
    if whole_turns:
        moved = any(state.stand(w).get("moved_turn") == state.turn for w in workers)
        task["from_turn"] = state.turn + 1 if moved else state.turn
    state.rows[TASK + task["id"]] = task
    ctx.involve(*workers)
    return task


def get(state: State, task_id: str) -> dict[str, Any]:
    found = state.rows.get(TASK + task_id)
    if found is None:
        known = ", ".join(t["id"] for t in tasks(state)) or "none"
        raise BadInput(f"unknown task {task_id!r} (tasks: {known})")
    return found  # type: ignore[no-any-return,unused-ignore]


def cancel(ctx: RulesContext, task_id: str) -> dict[str, Any]:
    task = get(ctx.state, task_id)
    if task["status"] not in OPEN:
        raise RulesRefusal(f"{task_id} is already {task['status']}")
    task["status"] = "cancelled"
    task["report"] = f"cancelled in turn {ctx.state.turn}"
    ctx.involve(*task["workers"])
    return task


def blocker(ctx: RulesContext, task: dict[str, Any]) -> str | None:
    """Why a worker broke the task's conditions this turn, or None."""
    state = ctx.state
    # Work counted from a turn spent wholly in place has no turn for coming into position.
    first_turn = task["started"]["turn"] == state.turn and "from_turn" not in task
    for worker in task["workers"]:
        if not state.has_stand(worker):
            return f"{worker} is gone"
        stand = state.stand(worker)
        if out_of_play(stand):
            return f"{worker} was eliminated"
        for marker in ("pinned", "suppressed"):
            if marker in stand["markers"]:
                return f"{worker} was {marker}"
        if task["no_fire"] and fired_on(stand, state.turn):
            return f"{worker} fired"
        if not first_turn and stand.get("moved_turn") == state.turn:
            return f"{worker} moved"
        where = PLACES.get(task["kind"])
        problem = where(ctx, task, stand) if where is not None else None
        if problem is not None:
            return problem
    return None


def _gone(ctx: RulesContext, task: dict[str, Any]) -> str | None:
    """A worker that can never come back to the work: the task stops for good."""
    for worker in task["workers"]:
        if not ctx.state.has_stand(worker):
            return f"{worker} is gone"
        if out_of_play(ctx.state.stand(worker)):
            return f"{worker} was eliminated"
    return None


def advance(ctx: RulesContext) -> list[dict[str, Any]]:
    """End of turn: every open task works a turn, pauses, resumes, or completes.

    A turn in which a worker is pinned, suppressed, fires (where the work forbids it),
    moves, or is away from the work does not count: the task pauses and keeps the hours
    already done. A paused task resumes, counting the turn, at the end of a turn its workers
    spent in place and fit to work (CD 2.4, 3.3.1, 4: unpinned, unsuppressed, not firing,
    beside the work). A worker eliminated ends it for good.
    """
    happened = []
    hours = turn_hours(ctx)
    for task in tasks(ctx.state):
        if task["status"] not in OPEN:
            continue
        name = f"{task['id']} ({task['kind']} {task['target']})"

        def tell(result: str, task: dict[str, Any] = task) -> None:
            happened.append({"what": "engineering", "stand": task["workers"][0], "result": result})

        if task.get("from_turn", ctx.state.turn) > ctx.state.turn:
            tell(
                f"{name}: the work counts from turn {task['from_turn']} (its workers moved "
                "up this turn)"
            )
            continue
        gone = _gone(ctx, task)
        if gone is not None:
            task["status"] = "stopped"
            task["report"] = f"stopped in turn {ctx.state.turn}: {gone}"
            tell(f"{name} stopped: {gone}; {task['hours_done']:g} h had been done")
            continue
        why = blocker(ctx, task)
        if why is not None:
            kept = f"{task['hours_done']:g} h done are kept"
            if task["status"] == "active":
                task["status"] = "paused"
                tell(
                    f"{name} paused: {why}; {kept}; it resumes after a turn its workers "
                    "spend in place, unpinned and unsuppressed"
                )
            else:
                tell(f"{name} still paused: {why}; {kept}")
            task["report"] = f"paused in turn {ctx.state.turn}: {why}"
            continue
        resumed = task["status"] == "paused"
        task["status"] = "active"
        task["report"] = None
        task["hours_done"] = round(task["hours_done"] + hours, 6)
        again = " resumed and" if resumed else ""
        if task["hours_done"] + 1e-9 >= task["hours_needed"]:
            task["status"] = "complete"
            done = COMPLETIONS[task["kind"]](ctx, task)
            task["report"] = f"completed in turn {ctx.state.turn}: {done}"
            tell(f"{task['id']}{again} complete: {done}")
        else:
            tell(f"{name}{again}: {work_left(ctx, task)}")
    return happened
