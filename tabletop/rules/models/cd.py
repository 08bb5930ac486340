"""Command Decision as one registered model: an adapter over the program's own CD rules.

Command Decision is the default model. Unlike the alternative models it reads no profiles
from a model chart and takes no ``--set`` options: its fire is the weapons chart's (CD 1,
``tabletop.rules.cd.direct`` on the table, ``tabletop.rules.cd.quick`` as a calculator, exact
odds from ``tabletop.rules.cd.odds``) and its other procedures are the program's own
commands. This class only delegates to those procedures, so the CLI can ask the registry
what a model is instead of comparing its name with ``"cd"``. It imports no table geometry:
the calculator (``tabletop fire --weapon ...``) loads this class and no shapely; a shot on
the table is planned by ``rules.cd.direct.prepare``, which the commands call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.data.chart_params import TableParams
from tabletop.rules.cd.fire import FirePlan
from tabletop.rules.cd.odds import fire_odds
from tabletop.rules.cd.quick import quick_fire, quick_plan
from tabletop.rules.models import MODELS, Model, Outcome, Procedure, Shot


class CommandDecision(Model):
    name = "cd"
    chart = "*"
    description = "Command Decision, the default model"
    own_commands = True
    # The program's commands that fire under Command Decision (``model show cd``).
    commands: ClassVar[tuple[str, ...]] = ("fire", "barrage", "odds fire", "odds barrage")

    @property
    def inches_per_unit(self) -> float:
        return 1.0  # CD measures in inches on the table

    @property
    def unit_name(self) -> str:
        return "inch"

    @property
    def chart_path(self) -> str:
        return "charts/*.yaml"

    def scale(self) -> str:
        yards = 1 / self.charts.params(TableParams).inches_per_yard
        return f"1 inch = {yards:g} yards"

    def fire(self, shot: Shot, dice: DiceLike) -> Outcome:
        raise BadInput(
            "Command Decision fire reads the weapons chart, not model profiles: use "
            "'tabletop fire' with --weapon, --range and --target-kind (or SHOOTER and TARGET)"
        )

    # --- CD's own fire, delegated to tabletop.rules.cd --------------------------------------

    def quick_plan(
        self,
        weapon: str | None,
        range_: float | None,
        target_kind: str | None,
        quality: str | None,
        shooter_kind: str | None,
        cover: str | None,
        ammo: str,
        mods: tuple[Any, ...],
    ) -> FirePlan:
        """A shot given as weapon, range and target kind (no game): ``rules.cd.quick``."""
        return quick_plan(
            weapon, range_, target_kind, quality, shooter_kind, cover, ammo, mods, self.charts
        )

    def quick_fire(self, plan: FirePlan, dice: DiceLike) -> dict[str, Any]:
        """Roll a quick-mode shot: to-hit dice, then effect dice (CD 1)."""
        return quick_fire(plan, dice, self.charts)

    def plan_odds(self, plan: FirePlan) -> dict[str, Any]:
        """Exact odds of a fire plan: hits, effects, depletion (``rules.cd.odds``)."""
        return fire_odds(plan, self.charts)

    def procedures(self) -> Mapping[str, Procedure]:
        return {}  # the program's own commands, not 'tabletop model run'

    def no_model_procedures(self) -> BadInput:
        """Why ``model run cd`` (or model fire under cd) is refused."""
        others = ", ".join(n for n in MODELS if n != self.name)
        return BadInput(
            "cd (Command Decision, the default model) has no model procedures: its fire and "
            "procedures are the program's own commands ('tabletop model show cd'); the "
            f"alternative models are {others}"
        )
