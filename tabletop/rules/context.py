"""What a rules procedure is handed: the state to change, the dice, the scenario and charts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from tabletop.core.dice import DiceLike
from tabletop.core.frozen import mutable_dataclass
from tabletop.data.board import build_table
from tabletop.data.charts import Charts
from tabletop.data.scenario import Scenario
from tabletop.state.document import State

if TYPE_CHECKING:
    from tabletop.table import Table


# What an action's procedure returns (``game/actions.py``): a JSON-able object the log keeps
# and the CLI prints. The most used actions describe theirs as a TypedDict (``FireResult``,
# ``MoveResult``, ``BarrageResult``, ``AdvanceResult``); the rest are this.
ActionResult = dict[str, Any]


@mutable_dataclass
class RulesContext:
    """What a rule procedure works on: the game's state, the dice, the scenario and the charts,
    the stands the action involves, and the table's geometry built when first asked for."""

    state: State
    dice: DiceLike
    scenario: Scenario
    charts: Charts
    subjects: set[str] = field(default_factory=set)
    _table: Any = None

    @property
    def table(self) -> Table:
        """The table's geometry, built on first use: most actions never measure."""
        if self._table is None:
            self._table = build_table(self.scenario, self.charts)
        return self._table  # type: ignore[no-any-return,unused-ignore]

    def involve(self, *stand_ids: str) -> None:
        """Mark stands whose history (``show STAND``) this event belongs to."""
        self.subjects.update(s for s in stand_ids if s)


# An action: ``procedure(ctx, inputs) -> result`` (``game/actions.py``).
Procedure = Callable[[RulesContext, dict[str, Any]], ActionResult]
