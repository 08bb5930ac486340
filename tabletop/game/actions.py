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

from tabletop.rules.context import Procedure

ACTIONS: dict[str, str] = {
    "place": "tabletop.rules.cd.movement:place",
    "move": "tabletop.rules.cd.movement:move_action",
    "roll": "tabletop.rules.cd.movement:plain_roll",
    "marker": "tabletop.rules.cd.movement:marker_action",
    "batch": "tabletop.game.batch:batch_action",
    "searchlight": "tabletop.rules.cd.ice:searchlight_action",
    "fire": "tabletop.rules.cd.direct_fire:fire_action",
    "barrage": "tabletop.rules.cd.barrage:barrage_action",
    "phase-next": "tabletop.game.turns:phase_next",
    "turn-next": "tabletop.game.turns:turn_next",
    "resupply": "tabletop.rules.cd.ammo:resupply_action",
    "weather-set": "tabletop.rules.cd.conditions:weather_set_action",
    "weather-roll": "tabletop.rules.cd.conditions:weather_roll_action",
    "mire": "tabletop.rules.cd.miring:mire_action",
    "unmire": "tabletop.rules.cd.miring:unmire_action",
    "morale": "tabletop.rules.cd.morale:morale_action",
    "model-fire": "tabletop.rules.models.engine:model_fire_action",
    "model-run": "tabletop.rules.models.engine:model_run_action",
    "assault": "tabletop.rules.models.aggression:assault_action",
    "demolish": "tabletop.rules.cd.engineering:demolish_action",
    "recheck": "tabletop.rules.cd.engineering:recheck_action",
    "repair": "tabletop.rules.cd.engineering:repair_action",
    "bridge-set": "tabletop.rules.cd.engineering:bridge_set_action",
    "launch": "tabletop.rules.cd.engineering:launch_action",
    "clear-obstacle": "tabletop.rules.cd.engineering:clear_obstacle_action",
    "boat": "tabletop.rules.cd.engineering:boat_action",
    "task-cancel": "tabletop.rules.cd.engineering:cancel_task_action",
    "pregame": "tabletop.rules.cd.pregame:pregame_action",
    "smoke-generator": "tabletop.rules.cd.smokegen:start_action",
    "minefield-place": "tabletop.rules.cd.minefields:place_action",
    "minefield-cross": "tabletop.rules.cd.minefields:cross_action",
    "minefield-clear": "tabletop.rules.cd.minefields:clear_action",
    "structure-damage": "tabletop.rules.cd.damage:structure_damage_action",
    "structure-bomb": "tabletop.rules.cd.structures:bomb_action",
    "structure-fire": "tabletop.rules.cd.structures:direct_fire_action",
    "airborne-drop": "tabletop.rules.cd.airborne.drop:drop_action",
    "airborne-glider": "tabletop.rules.cd.airborne.gliders:glider_action",
    "airborne-fire": "tabletop.rules.cd.airborne.descent:descent_fire_action",
    "airborne-assemble": "tabletop.rules.cd.airborne.assemble:assemble_action",
    "amphibious-approach": "tabletop.rules.cd.amphibious.landing:approach_action",
    "amphibious-land": "tabletop.rules.cd.amphibious.landing:land_action",
    "amphibious-unload": "tabletop.rules.cd.amphibious.landing:unload_action",
    "amphibious-wade": "tabletop.rules.cd.amphibious.wading:wade_action",
    "amphibious-hit": "tabletop.rules.cd.amphibious.attacks:hit_action",
    "amphibious-into-water": "tabletop.rules.cd.amphibious.attacks:into_water_action",
    "amphibious-lift": "tabletop.rules.cd.amphibious.lift:lift_action",
    "amphibious-bombard": "tabletop.rules.cd.amphibious.naval:bombard_action",
    "amphibious-naval-fire": "tabletop.rules.cd.amphibious.naval:naval_fire_action",
    "view-set": "tabletop.rules.views:view_set_action",
}


def _load(target: str) -> Any:
    """What a registry entry ``"module:attribute"`` names, its module imported now."""
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def _lookup(registry: dict[str, str], name: str) -> Any:
    """A registry's entry for ``name``, loaded; None when it has none."""
    target = registry.get(name)
    return None if target is None else _load(target)


def procedure(name: str) -> Procedure:
    try:
        target = ACTIONS[name]
    except KeyError:
        raise KeyError(f"unknown action {name!r}") from None
    found: Procedure = _load(target)
    return found


# Actions whose odds are told apart by their own reading of the result (``Game.odds``), not
# by the common outcome fields: ``reader(result) -> (key, fields)``.
ODDS_OUTCOMES: dict[str, str] = {
    "roll": "tabletop.rules.cd.movement:roll_outcome",
    "assault": "tabletop.rules.models.aggression.battle:odds_outcome",
    "structure-fire": "tabletop.rules.cd.structures:fire_outcome",
}


def odds_outcome(
    name: str,
) -> Callable[[dict[str, Any]], tuple[str, dict[str, Any]]] | None:
    reader: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]] | None = _lookup(
        ODDS_OUTCOMES, name
    )
    return reader


# Actions whose odds are worked out in stages (an assault's rounds), positions merged between
# them: an object with ``begin(ctx, inputs)``, ``stage(s, dice)``, ``over(s)``, ``key(s)``,
# ``copy(s)`` and ``finish(s) -> result`` (``core.odds.by_stages``).
ODDS_STAGES: dict[str, str] = {
    "assault": "tabletop.rules.models.aggression.battle:AssaultStages",
}


def odds_stages(name: str) -> Any:
    return _lookup(ODDS_STAGES, name)


# Actions made of one step repeated independently (a roll of 10d100), for their odds: a
# function ``plan(ctx, inputs) -> core.odds.Repeats`` the procedure itself runs.
ODDS_REPEATS: dict[str, str] = {
    "roll": "tabletop.rules.cd.movement:roll_plan",
}


def odds_repeats(name: str) -> Any:
    return _lookup(ODDS_REPEATS, name)
