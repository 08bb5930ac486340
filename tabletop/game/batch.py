"""Several stands in one command: each item refereed by the command's own procedure, in
order, in one transaction; one refused item refuses the whole batch, and nothing changes.

``batch_action`` is an action like any other (``tabletop.game.actions``): the log records
``{"command": NAME, "items": [inputs, ...]}`` and replay runs it again. Any action listed in
``BATCHABLE`` can be batched; its CLI parses each item as its own arguments
(``tabletop.cli.core.batch_items``).
"""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import BadInput, TabletopError
from tabletop.core.words import count
from tabletop.game.actions import ACTIONS, procedure
from tabletop.rules.context import ActionResult, RulesContext

# Actions whose items may be batched: setting up and moving stands.
BATCHABLE = ("place", "move")
MAX_ITEMS = 500


def batch_action(ctx: RulesContext, inputs: dict[str, Any]) -> ActionResult:
    name = str(inputs.get("command"))
    items = inputs.get("items")
    if name not in BATCHABLE or name not in ACTIONS:
        raise BadInput(f"{name!r} cannot be batched (accepted: {', '.join(_available())})")
    if not isinstance(items, list) or not items:
        raise BadInput("a batch needs at least one item")
    if len(items) > MAX_ITEMS:
        raise BadInput(f"a batch of {len(items)} items is more than {MAX_ITEMS}")
    run = procedure(name)
    results = []
    for n, item in enumerate(items, start=1):
        try:
            results.append(run(ctx, item))
        except TabletopError as exc:
            raise _for_item(exc, n, len(items), name, item) from None
    verdicts = [str(r.get("verdict") or r.get("stand") or "") for r in results]
    return {
        "verdict": f"{name}: {count(len(results), 'stand')}, all applied",
        "command": name,
        "count": len(results),
        "items": results,
        "verdicts": verdicts,
    }


def _available() -> list[str]:
    return [name for name in BATCHABLE if name in ACTIONS]


def _for_item(
    exc: TabletopError, n: int, total: int, name: str, item: dict[str, Any]
) -> TabletopError:
    """The item's own error, saying which item it was; the exit code stays the item's."""
    who = item.get("stand") if isinstance(item, dict) else None
    error = TabletopError(
        f"{name} item {n} of {total}{f' ({who})' if who else ''}: {exc}; nothing was applied"
    )
    error.exit_code = exc.exit_code
    error.details = exc.details  # a refused move's costs, piece by piece
    return error
