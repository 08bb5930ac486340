"""Alternative resolution models (SPEC 5), found by name like python-chess's variants.

A model resolves fire (and, for some, close combat) on the same table, dice, state and log
as Command Decision, with its own chart ``charts/models/<chart>.yaml``. Each is a subclass of
``Model`` registered in ``MODELS``; the CLI only ever calls ``find_model(name)`` and the
``Model`` methods, so adding a model means adding a module, a chart and one line here.

Command Decision itself is registered too (``cd``, the default, ``models/cd.py``): an
adapter whose ``own_commands`` says its fire and procedures are the program's own commands
(``tabletop fire`` with the weapons chart), not a ``Shot`` of chart profiles nor
``tabletop model run``.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, ClassVar

from tabletop.core.errors import BadInput
from tabletop.core.frozen import frozen_dataclass, mutable_dataclass
from tabletop.core.spelling import did_you_mean

if TYPE_CHECKING:  # annotations only: status reads a stand's model state without the table
    from tabletop.core.dice import DiceLike
    from tabletop.data.charts import Charts
    from tabletop.rules.context import RulesContext
    from tabletop.state.document import StandRow

MODELS: dict[str, str] = {
    "cd": "tabletop.rules.models.cd:CommandDecision",
    "mech-brigade": "tabletop.rules.models.mech_brigade:MechBrigade",
    "typhoon": "tabletop.rules.models.typhoon:Typhoon",
    "squad-battles": "tabletop.rules.models.squad_battles:SquadBattles",
    "aggression": "tabletop.rules.models.aggression:Aggression",
}
CD = "cd"
# The seeds' own names for their games (and short forms referees use), by model.
ALIASES: dict[str, str] = {
    "command-decision": CD,
    "mb": "mech-brigade",
    "typhoon-of-steel": "typhoon",
    "tos": "typhoon",
    "sb": "squad-battles",
    "play-by-mail": "aggression",
    "pbm": "aggression",
}


def model_names() -> list[str]:
    return list(MODELS)


def canonical_name(name: str) -> str:
    """``name`` as the program calls the model: case and spaces do not matter, and the
    seeds' own names (``typhoon-of-steel``, ``Mech Brigade``) are aliases."""
    key = "-".join(str(name).strip().lower().split())
    return ALIASES.get(key, key)


def model_class(name: str) -> type[Model] | None:
    """The class of the model called ``name`` (any case, or an alias), or None if unknown;
    what a command asks before it has charts (does this model fire with CD's options?)."""
    target = MODELS.get(canonical_name(name))
    if target is None:
        return None
    module_name, _, attr = target.partition(":")
    cls: type[Model] = getattr(importlib.import_module(module_name), attr)
    return cls


def find_model(name: str, charts: Any) -> Model:
    """The model called ``name``, bound to the game's charts; BadInput if unknown."""
    cls = model_class(name)
    if cls is None:
        aliases = ", ".join(f"{a} = {m}" for a, m in ALIASES.items())
        raise BadInput(
            f"unsupported model: {name!r} (models: {', '.join(model_names())}; also {aliases})"
            f"{did_you_mean(name, [*model_names(), *ALIASES])}"
        )
    return cls(charts)


def find_alternative(name: str, charts: Any) -> Model:
    """``find_model`` for what only the alternative models have (model fire on a ``Shot``,
    ``model run``, profiles): Command Decision is refused with where its own commands are."""
    model = find_model(name, charts)
    if model.own_commands:
        raise model.no_model_procedures()
    return model


@frozen_dataclass
class Shot:
    """A model fire request: profiles from the model's chart and the range in inches.

    ``options`` holds the model's own situation keys (smoke level, cover, moving, ...), from
    the command line (``--smoke``, ``--set KEY=VALUE``) or from the table in table mode.
    """

    shooter: str
    target: str
    range_inches: float
    count: int = 1
    options: Mapping[str, Any] = field(default_factory=dict)
    shooter_stand: str | None = None
    target_stand: str | None = None


@mutable_dataclass
class Outcome:
    """What a model resolved: ``data`` holds the model's JSON keys; ``lines`` the working."""

    verdict: str
    data: dict[str, Any]
    lines: list[str] = field(default_factory=list)
    # Changes for the target stand's own record under stand["models"][model name].
    target_state: dict[str, Any] | None = None
    eliminated: bool = False


@frozen_dataclass
class Procedure:
    """A model's other procedure (sighting range, suppression decay, victory...), run with
    ``tabletop model run NAME PROCEDURE --set KEY=VALUE``. ``run(options, dice)`` returns a
    JSON-able dict with a ``verdict``; ``options`` describes each accepted key."""

    description: str
    options: Mapping[str, str]
    run: Callable[[Mapping[str, Any], DiceLike], dict[str, Any]]
    rule: str = ""


class Model(ABC):
    name: ClassVar[str]
    chart: ClassVar[str]
    description: ClassVar[str] = ""
    # True for Command Decision only: its fire reads the weapons chart with the program's
    # own options (--weapon, --mod, --cover...) and its procedures are the program's own
    # commands; an alternative model fires on a ``Shot`` of profiles and runs ``procedures``.
    own_commands: ClassVar[bool] = False
    # What ``--set KEY=VALUE`` accepts for fire, with a one-line description each.
    options: ClassVar[Mapping[str, str]] = {}

    def __init__(self, charts: Any):
        self.charts = charts

    @property
    @abstractmethod
    def inches_per_unit(self) -> float:
        """Inches per square or hex (the model's chart ``scale``)."""

    @property
    def unit_name(self) -> str:
        return "square"

    def to_units(self, inches: float) -> float:
        return inches / self.inches_per_unit

    @property
    def chart_path(self) -> str:
        return f"charts/models/{self.chart}.yaml"

    def scale(self) -> str:
        """The model's scale as ``model list`` shows it."""
        unit = "inch" if self.inches_per_unit == 1 else "inches"
        return f"1 {self.unit_name} = {self.inches_per_unit:g} {unit}"

    def no_model_procedures(self) -> BadInput:
        """Why this model refuses ``model run`` and model fire (only CD does)."""
        return BadInput(f"the {self.name} model has no model procedures")

    def profiles(self) -> Mapping[str, Any]:
        """Unit data by profile id (for checks and shell completion)."""
        return {}

    @abstractmethod
    def fire(self, shot: Shot, dice: DiceLike) -> Outcome:
        """Resolve one fire action, rolling every random step through ``dice``."""

    def check_can_fire(self) -> None:
        """Refuse at once when the model has no ranged fire at all."""
        return  # most models fire; one that does not raises BadInput here

    def fire_kind(self, options: Mapping[str, Any]) -> tuple[str, str]:
        """The turn chart's action this fire is (``charts/turn.yaml`` ``allows``), and what
        to call it: table-mode fire keeps to the game's turn sequence, as CD's does."""
        return "direct-fire", "direct fire"

    def table_count(self, ctx: RulesContext, stand: StandRow) -> int | None:
        """How many weapons ``stand`` fires with in table mode when ``--count`` is not given,
        and the most it may give; None when the model does not count them (then 1)."""
        return None

    # The rule that limits a stand to one fire action a phase under this model (a phase of
    # the game's turn is one of the model's pulses or turns on the table).
    fire_limit_rule: ClassVar[str] = ""
    # The order the model's fire throws its dice in (``--dice`` values are used in it).
    dice_order: ClassVar[str] = ""

    def streak_options(self, streak: int) -> dict[str, Any]:
        """Fire options from the stand's consecutive pulses of fire at the same target
        (``streak`` counts this one); the referee's ``--set`` still overrides them."""
        return {}

    def fire_on_table(self, shot: Shot, dice: DiceLike, streak: int, count_given: bool) -> Outcome:
        """Table-mode fire: checks the model makes before any shot (rate of fire), then
        ``fire``. ``count_given`` says whether the referee gave ``--count``."""
        return self.fire(shot, dice)

    def odds(self, shot: Shot) -> dict[str, Any]:
        """Exact or analytic outcome probabilities: ``outcomes`` and ``expected``."""
        raise BadInput(f"the {self.name} model has no odds for fire")

    def situation_from_table(
        self, ctx: RulesContext, shooter: StandRow, target: StandRow, sight: Any
    ) -> dict[str, Any]:
        """Options the table itself decides (cover, smoke...) for table-mode fire."""
        return {}

    def procedures(self) -> Mapping[str, Procedure]:
        """The model's procedures besides fire, by name."""
        return {}

    def check_options(self, options: Mapping[str, Any]) -> None:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            accepted = ", ".join(f"{k} ({v})" for k, v in self.options.items()) or "none"
            raise BadInput(
                f"--set {unknown[0]!r}: not an option of the {self.name} model "
                f"(accepted: {accepted})"
            )


def profile_lookup(name: str, charts: Charts) -> Mapping[str, Any] | None:
    """An alternative model's profile ids from its chart, or None when ``name`` is no model
    with profiles: what a scenario's ``profiles:`` are checked against (handed to
    ``data.scenario`` by the game and ``new``, as the models sit a floor above it)."""
    try:
        return find_alternative(name, charts).profiles()
    except BadInput:
        return None
