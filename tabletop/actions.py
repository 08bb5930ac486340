"""The state-changing commands, by name, and where their procedures live.

Each action is ``procedure(ctx: RulesContext, inputs: dict) -> dict``: it changes
``ctx.state`` through the rules, rolls only with ``ctx.dice``, and returns a JSON-able result.
The log records the name and the inputs, so ``replay`` can run the very same procedure.
Procedures are imported only when run, keeping start-up light. A new rule area adds its
actions here; the CLI core does not change.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

ACTIONS: dict[str, str] = {
    "place": "tabletop.rules.placement:place",
    "roll": "tabletop.rules.placement:plain_roll",
    "fire": "tabletop.rules.cd.direct:fire_action",
    "barrage": "tabletop.rules.cd.barrage:barrage_action",
    "phase-next": "tabletop.rules.sequence:phase_next_action",
    "turn-next": "tabletop.rules.sequence:turn_next_action",
    "resupply": "tabletop.rules.cd.ammo:resupply_action",
    "weather-set": "tabletop.rules.cd.conditions:weather_set_action",
    "weather-roll": "tabletop.rules.cd.conditions:weather_roll_action",
    "mire": "tabletop.rules.cd.conditions:mire_action",
    "unmire": "tabletop.rules.cd.conditions:unmire_action",
    "model-fire": "tabletop.rules.models.engine:model_fire_action",
    "model-run": "tabletop.rules.models.engine:model_run_action",
    "assault": "tabletop.rules.models.aggression:assault_action",
}


def procedure(name: str) -> Callable[[Any, dict[str, Any]], dict[str, Any]]:
    try:
        target = ACTIONS[name]
    except KeyError:
        raise KeyError(f"unknown action {name!r}") from None
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr)  # type: ignore[no-any-return,unused-ignore]
