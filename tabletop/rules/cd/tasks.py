"""Engineering tasks: work that lives across turns (CD 2, 3.3.1, 4).

A task row ``task:<id>`` records who works, on what, since when, how much work it needs
(in hours: a day turn gives its length, a night turn one hour, CD 9.1.7) and what must hold
each turn. At the end of every turn each active task checks its workers: still in play,
not pinned or suppressed, not fired this turn and not moved (except the first turn, when
they come into position). If one fails, the task is interrupted and says why; otherwise it
gains the turn's hours and completes when it has enough, running its completion.

Work that needs whole turns beside its object (clearing obstacles, CD 4: begin the movement
phase beside it; hand lifting, CD 3.3.1: spend one turn beside the field) has no such first
turn: a worker that moved this turn starts counting next turn (``from_turn``), and moving in
a counted turn interrupts it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.state.document import out_of_play

TASK = "task:"
COMPLETIONS: dict[str, Callable[[Any, dict[str, Any]], str]] = {}


def completion(
    kind: str,
) -> Callable[[Callable[[Any, dict[str, Any]], str]], Callable[[Any, dict[str, Any]], str]]:
    """Register what finishing a kind of task does; returns a sentence for the turn report."""

    def register(fn: Callable[[Any, dict[str, Any]], str]) -> Callable[[Any, dict[str, Any]], str]:
        COMPLETIONS[kind] = fn
        return fn

    return register


def turn_hours(ctx: Any) -> float:
    from tabletop.rules.cd.weather import effects

    now = effects(ctx.state.conditions, ctx.charts)
    if now.night:
        return float(ctx.charts.param("engineering", "night-hour-per-turn"))
    return now.turn_minutes / 60


def day_turn_hours(ctx: Any) -> float:
    return float(ctx.charts.param("table", "turn-minutes")) / 60


def work_left(ctx: Any, task: dict[str, Any]) -> str:
    """What is left, in day turns (and hours, which count at night, CD 9.1.7)."""
    hours = max(task["hours_needed"] - task["hours_done"], 0.0)
    turns = hours / day_turn_hours(ctx)
    later = task.get("from_turn", 0) > ctx.state.turn
    since = f"; from turn {task['from_turn']}" if later else ""
    return f"{turns:g} turn(s) ({hours:g} h{since})"


def start(
    ctx: Any,
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
        busy = [t for t in tasks(state) if worker in t["workers"] and t["status"] == "active"]
        if busy:
            raise RulesRefusal(
                f"{worker} is already working on {busy[0]['id']} "
                f"({busy[0]['kind']}); cancel it first"
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


def tasks(state: Any) -> list[dict[str, Any]]:
    return [
        v
        for k, v in sorted(state.rows.items(), key=lambda kv: kv[1].get("id", ""))
        if k.startswith(TASK)
    ]


def get(state: Any, task_id: str) -> dict[str, Any]:
    found = state.rows.get(TASK + task_id)
    if found is None:
        known = ", ".join(t["id"] for t in tasks(state)) or "none"
        raise BadInput(f"unknown task {task_id!r} (tasks: {known})")
    return found  # type: ignore[no-any-return,unused-ignore]


def cancel(ctx: Any, task_id: str) -> dict[str, Any]:
    task = get(ctx.state, task_id)
    if task["status"] != "active":
        raise RulesRefusal(f"{task_id} is already {task['status']}")
    task["status"] = "cancelled"
    task["report"] = f"cancelled in turn {ctx.state.turn}"
    ctx.involve(*task["workers"])
    return task


def blocker(ctx: Any, task: dict[str, Any]) -> str | None:
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
        if task["no_fire"] and (stand.get("fired") or {}).get("turn") == state.turn:
            return f"{worker} fired"
        if not first_turn and stand.get("moved_turn") == state.turn:
            return f"{worker} moved"
    return None


def advance(ctx: Any) -> list[dict[str, Any]]:
    """End of turn: every active task works a turn, is interrupted, or completes."""
    happened = []
    hours = turn_hours(ctx)
    for task in tasks(ctx.state):
        if task["status"] != "active":
            continue
        if task.get("from_turn", ctx.state.turn) > ctx.state.turn:
            happened.append(
                {
                    "what": "engineering",
                    "stand": task["workers"][0],
                    "result": f"{task['id']} ({task['kind']} {task['target']}): the work "
                    f"counts from turn {task['from_turn']} (its workers moved up this turn)",
                }
            )
            continue
        why = blocker(ctx, task)
        if why is not None:
            task["status"] = "interrupted"
            task["report"] = f"interrupted in turn {ctx.state.turn}: {why}"
            happened.append(
                {
                    "what": "engineering",
                    "stand": task["workers"][0],
                    "result": f"{task['id']} ({task['kind']} {task['target']}) "
                    f"interrupted: {why}; it does not complete",
                }
            )
            continue
        task["hours_done"] = round(task["hours_done"] + hours, 6)
        if task["hours_done"] + 1e-9 >= task["hours_needed"]:
            task["status"] = "complete"
            done = COMPLETIONS[task["kind"]](ctx, task)
            task["report"] = f"completed in turn {ctx.state.turn}: {done}"
            happened.append(
                {
                    "what": "engineering",
                    "stand": task["workers"][0],
                    "result": f"{task['id']} complete: {done}",
                }
            )
        else:
            happened.append(
                {
                    "what": "engineering",
                    "stand": task["workers"][0],
                    "result": f"{task['id']} ({task['kind']} {task['target']}): "
                    f"{work_left(ctx, task)} of work left",
                }
            )
    return happened
