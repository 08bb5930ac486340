"""Advancing the turn with every rule area's boundary steps in place.

The sequence (``rules/sequence.py``) keeps the registry of boundary steps that the rule
areas fill with ``@on``; it does not import them, as they stand a floor above it. This
module, on the game floor, imports each area that registers steps, so a phase or turn
advanced here (and announced beforehand) runs all of them. A new rule area with boundary
steps adds its import here.
"""

from __future__ import annotations

from typing import Any

# Imported for the steps they register with the sequence (CD 1, 3, 5, 8, 9, 10, 11).
from tabletop.rules.cd import boundaries, conditions, morale  # noqa: F401
from tabletop.rules.cd.amphibious import attacks  # noqa: F401
from tabletop.rules.context import RulesContext
from tabletop.rules.models import decay  # noqa: F401  (MB 7.6, ToS V)
from tabletop.rules.sequence import (
    AdvanceResult,
    announce,
    phase_next_action,
    skip_warning,
    turn_next_action,
)

__all__ = ["announce", "phase_next", "skip_warning", "turn_next"]


def phase_next(ctx: RulesContext, inputs: dict[str, Any]) -> AdvanceResult:
    """The ``phase-next`` action."""
    return phase_next_action(ctx, inputs)


def turn_next(ctx: RulesContext, inputs: dict[str, Any]) -> AdvanceResult:
    """The ``turn-next`` action."""
    return turn_next_action(ctx, inputs)
