"""The aggression close-combat model (seed 003): ``--model aggression``.

Close combat between stands in contact is fought with ``tabletop assault`` (the ``assault``
action, ``assault_action`` here); the model's other procedures (retreat tests, retreat
directions, surrender, pursuit, target priority, ambush, minefields, digging in) run with
``tabletop model run aggression NAME``. The seed gives no ranged fire, so ``fire`` refuses.

Modules: ``chart`` (schemas of ``charts/models/aggression.yaml``), ``rules`` (the procedures
on plain values), ``orders`` (the assault's ``--set`` orders), ``ground`` (retreat bearings
on the table), ``battle`` (the rounds of an assault), ``procedures`` (``model run``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.rules.context import RulesContext
from tabletop.rules.models import Model, Outcome, Procedure, Shot
from tabletop.rules.models.aggression.battle import assault
from tabletop.rules.models.aggression.chart import CHART, AggressionChart
from tabletop.rules.models.aggression.procedures import build


class Aggression(Model):
    name = "aggression"
    chart = CHART
    dice_order = (
        "assault: each round, ambushers' free shots first, then one d100 fire roll for each "
        "stand in the order named (attackers, then defenders); then the retreat tests, one "
        "d100 each, the side and the stand that took most damage first; a stand with no way "
        "out rolls a d100 to surrender"
    )

    @cached_property
    def table(self) -> AggressionChart:
        return AggressionChart.of(self.charts)

    @property
    def inches_per_unit(self) -> float:
        return float(self.table.scale.inches_per_hex)

    @property
    def unit_name(self) -> str:
        return "hex"

    def profiles(self) -> Mapping[str, Any]:
        return self.table.profiles

    def check_can_fire(self) -> None:
        raise BadInput(
            "the aggression model has no ranged fire: it resolves close combat between stands "
            "in contact with 'tabletop assault ATTACKER... --against DEFENDER...'"
        )

    def fire(self, shot: Shot, dice: DiceLike) -> Outcome:
        self.check_can_fire()
        raise AssertionError("unreachable: check_can_fire refuses")

    def odds(self, shot: Shot) -> dict[str, Any]:
        raise BadInput(
            "the aggression model has no ranged fire to give odds for; its retreat chances "
            "are in 'tabletop model run aggression retreat-test'"
        )

    def procedures(self) -> Mapping[str, Procedure]:
        return build(lambda: self.table)


def assault_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """Close combat between stands in contact (the ``assault`` action)."""

    return assault(ctx, inputs)
