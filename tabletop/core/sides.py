"""Naming a side or a view on the command line: matched the same way everywhere.

A side's name is matched without regard to case or surrounding spaces (``usa`` is ``USA``);
a view is ``referee`` (all that is hidden too) or a side. Both return the name as the
scenario spells it, or raise a ``BadInput`` that lists what would be accepted.
"""

from __future__ import annotations

from collections.abc import Iterable

from tabletop.core.errors import BadInput

REFEREE = "referee"


def _match(name: str, known: list[str]) -> str | None:
    wanted = str(name).strip().casefold()
    return next((side for side in known if side.casefold() == wanted), None)


def resolve_side(name: str, sides: Iterable[str], option: str = "--side") -> str:
    """The side called ``name`` (case-insensitive), as the scenario spells it."""
    known = list(sides)
    found = _match(name, known)
    if found is None:
        raise BadInput(f"{option} {name!r}: not a side of this game (accepted: {', '.join(known)})")
    return found


def resolve_view(view: str | None, sides: Iterable[str], option: str = "--view") -> str:
    """``referee`` (also for no view at all) or a side, matched like ``resolve_side``."""
    known = list(sides)
    if view is None or _match(view, [REFEREE]):
        return REFEREE
    found = _match(view, known)
    if found is None:
        accepted = ", ".join([REFEREE, *known])
        raise BadInput(f"{option} {view!r}: not a view of this game (accepted: {accepted})")
    return found
