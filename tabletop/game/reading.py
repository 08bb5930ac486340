"""A read-only ``RulesContext`` for commands that only look (``measure``), without the action
registry, the views or the log, the file closed again at once; and the scenario and charts a
game was started with, rebuilt from its file (``stored_scenario``), which ``Game``
(``engine.py``) uses too. Reads that need neither scenario nor charts are in ``rows.py``.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType

from tabletop.core.dice import Dice
from tabletop.data.charts import CHARTS_FORMAT
from tabletop.data.scenario import LoadedScenario, ProfileLookup, rebuild_scenario
from tabletop.game.rows import read_rows
from tabletop.rules.context import RulesContext
from tabletop.state.document import State
from tabletop.state.store import GameFile, GameRow

# The scenario and charts last built, by the texts they were built from (the texts
# themselves: comparing them costs less than hashing them, and the scenario keeps them).
_LOADED: dict[tuple[str, str, str | None, int], LoadedScenario] = {}

# What an older game's stands' model profiles are checked against when its scenario is checked
# again: named as the registries name their entries, and imported only for such a game, so a
# reading command over a current game does not load the alternative models.
PROFILE_LOOKUP = "tabletop.rules.models:profile_lookup"
SCENARIO_LOADER = "tabletop.data.scenario_loader"


def read_context(path: GameFile) -> RulesContext:
    """A read-only context over the game's current state, its scenario and its charts (for
    ``measure``); the file is closed again before it is returned."""
    rows, row = read_rows(path)
    loaded = stored_scenario(row)
    return RulesContext(State.from_db(rows), Dice(row.seed), loaded.scenario, loaded.charts)


def stored_scenario(row: GameRow) -> LoadedScenario:
    """The scenario and charts the game was started with (as stored in the file).

    Kept for the process by the stored texts: a warm session ('tabletop play') builds them
    once, not for every command."""
    key = (row.scenario_text, row.charts_json, row.scenario_json, row.charts_format)
    found = _LOADED.get(key)
    if found is None:
        found = _load(row)
        _LOADED.clear()  # one game at a time is the common case; keep memory flat
        _LOADED[key] = found
    return found


def _load(row: GameRow) -> LoadedScenario:
    raw = json.loads(row.charts_json)
    if row.charts_format < CHARTS_FORMAT:
        # An older game: its own numbers stand, and entries added since come from the
        # bundled charts (checked together, as they were never checked as one).
        module, _, name = PROFILE_LOOKUP.partition(":")
        profiles: ProfileLookup = getattr(importlib.import_module(module), name)
        loaded: LoadedScenario = scenario_loader().check_older_game(
            row.scenario_text, row.scenario_source, raw, profiles
        )
        return loaded
    if row.scenario_json is None:
        # Stored before games kept their scenario as JSON: parse the text again.
        again: LoadedScenario = scenario_loader().rebuild_from_text(
            row.scenario_text, row.scenario_source, raw
        )
        return again
    # Checked when the game began; rebuilding without checks keeps commands quick.
    return rebuild_scenario(
        row.scenario_text, row.scenario_source, raw, json.loads(row.scenario_json)
    )


def scenario_loader() -> ModuleType:
    """The scenario files' reader and checks (``data/scenario_loader.py``, PyYAML among its
    imports), imported by name when first needed: by the games above, and by a replay or a
    check of the log (``engine.py``), which parse the scenario's text again. Every other
    command rebuilds the game's scenario from its stored JSON and loads neither
    (docs/performance.md)."""
    return importlib.import_module(SCENARIO_LOADER)
