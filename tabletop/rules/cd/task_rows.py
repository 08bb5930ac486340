"""The engineering tasks' rows (``task:<id>``, CD 2, 3.3.1, 4) read alone, for ``status``:
no weather, charts or table geometry (the work itself is in ``tasks.py``).
"""

from __future__ import annotations

from typing import Any

from tabletop.state.document import State

TASK = "task:"


def tasks(state: State) -> list[dict[str, Any]]:
    """Every task, in the order of their ids."""
    return [
        v
        for k, v in sorted(state.rows.items(), key=lambda kv: kv[1].get("id", ""))
        if k.startswith(TASK)
    ]
