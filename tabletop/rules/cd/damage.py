"""The ``structure damage`` action: every cause of damage to a structure in one command
(CD 6.1). A demolition is the engineers' own procedure, with its charges, its die and its
owner (CD 2.4.1, 6.1.3); a bomb, a large gun or flame is the structure damage roll
(``structures.py``). This module sits above both so that neither borrows from the other.
"""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import BadInput
from tabletop.rules.cd.engineering import demolish_action
from tabletop.rules.cd.structures import damage_action, damageable
from tabletop.rules.context import RulesContext


def structure_damage_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    if inputs["cause"] != "demolition":
        return damage_action(ctx, inputs)
    damageable(ctx, inputs["target"], "demolition")
    if not inputs.get("by"):
        raise BadInput("demolition needs the engineer: --by STAND")
    return demolish_action(ctx, {"target": inputs["target"], "by": inputs["by"]})
