"""Assembling a parachuted gun (CD 7.1): its crew and ammunition, dropped apart from it, join
the weapon.
"""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import RulesRefusal
from tabletop.rules.context import RulesContext


def assemble_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A parachuted gun's crew and ammunition have reached it (CD 7.1)."""
    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    apart = [m for m in stand["markers"] if m in ("crew-apart", "ammo-apart")]
    if "no-crew" in stand["markers"]:
        raise RulesRefusal(f"{stand['id']}'s crew was lost in the drop: no crew to join (CD 7.1)")
    if not apart:
        raise RulesRefusal(f"{stand['id']} has no crew or ammunition apart from it")
    stand["markers"] = [m for m in stand["markers"] if m not in apart]
    return {"verdict": f"{stand['id']} assembled: {', '.join(apart)} joined", "joined": apart}
