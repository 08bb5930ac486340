"""Unit states from suppression points and morale (ToS V Suppression effects table, II.A)."""

from __future__ import annotations

from tabletop.core.frozen import frozen_dataclass
from tabletop.rules.models.typhoon.tables import Tables


@frozen_dataclass
class UnitState:
    state: str  # good, pinned, buttoned, retreating, routed, heavily-suppressed, abandoned
    cautious_only: bool  # may move only in Cautious Advance while seen (2+ points)
    reason: str
    rule: str


def unit_state(
    t: Tables,
    points: int,
    morale: int,
    *,
    vehicle: bool,
    japanese: bool = False,
    dug_in: bool = False,
    visible: bool = True,
    cannot_move: bool = False,
) -> UnitState:
    """The state a unit's points force on it; ``cannot_move`` for a vehicle or gun with
    maximum speed 0, which is abandoned instead of retreating or routing (ToS II.A)."""
    rows = t.tables["unit_state"]
    cautious = visible and points >= (rows["cautious-only"].points or 0)
    for ident in ("routed", "retreating"):
        row = rows[ident]
        limit = (row.times_morale or 0) * morale
        if points >= limit:
            why = f"{points} points >= {row.times_morale:g} x morale {morale}"
            if japanese:
                verb = "rout" if ident == "routed" else "retreat"
                why = f"{why}; Japanese units do not {verb}"
                return UnitState("heavily-suppressed", cautious, why, row.rule)
            if cannot_move:
                return UnitState("abandoned", cautious, f"{why} and it cannot move", row.rule)
            return UnitState(ident, cautious, why, row.rule)
    row = rows["pinned"]
    if points >= (row.times_morale or 0) * morale:
        why = f"{points} points >= morale {morale}"
        if dug_in:
            return UnitState("dug-in", cautious, f"{why}, but Dug-in units hold", row.rule)
        return UnitState("buttoned" if vehicle else "pinned", cautious, why, row.rule)
    return UnitState("good", cautious, f"{points} points < morale {morale}", row.rule)
