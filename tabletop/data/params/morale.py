"""Typed parameters of morale (CD 9.1.3-9.1.5)."""

from __future__ import annotations

from typing import ClassVar

from tabletop.core.frozen import frozen_dataclass


@frozen_dataclass(kw_only=True)
class MoraleParams:
    """charts/morale.yaml: morale tests (CD core, our defaults; CD 9.1.3-9.1.5 at night).

    The levels are also read by quality name (``level-<quality>``), so an overlay may add a
    level for a quality of its own; the fields are the bundled ones."""

    CHART: ClassVar[str] = "morale"

    die: int  # CD core (default)
    level_green: int  # CD core (default)
    level_trained: int  # CD core (default)
    level_regular: int  # CD core (default)
    level_experienced: int  # CD core (default)
    level_veteran: int  # CD core (default)
    level_elite: int  # CD core (default)
    level_none: int  # CD core (default)
    night_pins_test: bool  # CD 9.1.4
    results: str  # CD core (default); CD 9.1.5
