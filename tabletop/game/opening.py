"""The state a game starts in, built from a validated scenario."""

from __future__ import annotations

from typing import Any

from tabletop.core.dice import Dice
from tabletop.core.errors import ScenarioError, TabletopError
from tabletop.data.scenario import LoadedScenario, stand_extent
from tabletop.rules.cd import terrain_state
from tabletop.rules.cd.ammo import fresh_ammo
from tabletop.rules.cd.minefields import place_action
from tabletop.rules.context import RulesContext
from tabletop.state.document import State


def opening_state(loaded: LoadedScenario, seed: int) -> State:
    sc, charts = loaded.scenario, loaded.charts
    cond = sc.conditions
    rows: dict[str, Any] = {
        "meta": {
            "turn": sc.turn.number,
            "phase": sc.turn.phase,
            "rng_counter": 0,
            "stand_order": [],
            "template_serial": 0,
        },
        "conditions": {
            "light": cond.light,
            "weather": cond.weather,
            "dusty": cond.dusty,
            "wind": {"from": cond.wind.from_, "force": cond.wind.force},
            "ground": cond.ground,
            "variable_wind": cond.variable_wind,
            "fog_returns": cond.fog_returns,
            "precipitation_changes": cond.precipitation_changes,
        },
        "pending": {},
    }
    rows.update(terrain_state.opening_rows(sc))
    state = State(rows)
    for side, spec in sc.stand_specs():
        width, depth = stand_extent(spec, charts)
        state.add_stand(
            {
                "id": spec.id,
                "side": side,
                "kind": spec.kind,
                "quality": spec.quality,
                "formation": spec.formation,
                "weapons": list(spec.weapons),
                "x": spec.at[0] if spec.at else None,
                "y": spec.at[1] if spec.at else None,
                "facing": spec.facing,
                "width": width,
                "depth": depth,
                "status": "ok",
                "markers": [],
                "moved_turn": None,
                "fired": None,
                "ammo": {w: fresh_ammo(charts.weapons[w], charts) for w in spec.weapons},
            }
        )
    if sc.minefields:
        _lay_minefields(loaded, state)
    return state


def _lay_minefields(loaded: LoadedScenario, state: State) -> None:
    """The scenario's pregame minefields, under the same rules as 'minefield place --pregame'
    (CD 3.1.1); a field the rules refuse is a scenario problem."""

    ctx = RulesContext(state, Dice(0), loaded.scenario, loaded.charts)
    problems = []
    for i, field in enumerate(loaded.scenario.minefields):
        inputs = {"side": field.side, "at": list(field.at), "dummy": field.dummy, "pregame": True}
        try:
            place_action(ctx, inputs)
        except TabletopError as exc:
            problems.append(f"{loaded.source}: minefields[{i}]: {exc}")
    if problems:
        raise ScenarioError(problems)
