"""Typed parameters: one frozen dataclass per chart of single values (``Param`` entries, or
the ``table: param`` rows of the airborne and amphibious charts).

``charts.params(EngineeringParams).adjacent`` gives a ``float``, checked when first asked for
(a chart overlay with a word where a number belongs is a ChartError naming the entry, not a
crash later). A field is the entry whose id is the field's name with ``-`` for ``_``;
counts, dice faces and turns are ``int`` (an overlay must give a whole number), distances
and fractions ``float``. Entries an overlay adds beyond the fields are read from the chart's
table by the few procedures that look a key up by name (a morale level by quality, naval
bombardment dice by year).

The classes live in ``tabletop.data.params``, one module per rule area; this module is their
index and loads a module when one of its classes is first named (PEP 562), so a command
defines only the parameter classes it reads (``measure`` reads the weather's).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tabletop.data.params.airborne import AirborneParams as AirborneParams
    from tabletop.data.params.amphibious import AmphibiousParams as AmphibiousParams
    from tabletop.data.params.fire import AmmoParams as AmmoParams
    from tabletop.data.params.fire import BarrageParams as BarrageParams
    from tabletop.data.params.morale import MoraleParams as MoraleParams
    from tabletop.data.params.table import TableParams as TableParams
    from tabletop.data.params.weather import WeatherParams as WeatherParams
    from tabletop.data.params.works import EngineeringParams as EngineeringParams
    from tabletop.data.params.works import MinesParams as MinesParams
    from tabletop.data.params.works import StructuresParams as StructuresParams

# Where each class is defined.
_WHERE: dict[str, str] = {
    "AmmoParams": "tabletop.data.params.fire",
    "BarrageParams": "tabletop.data.params.fire",
    "TableParams": "tabletop.data.params.table",
    "WeatherParams": "tabletop.data.params.weather",
    "EngineeringParams": "tabletop.data.params.works",
    "MinesParams": "tabletop.data.params.works",
    "StructuresParams": "tabletop.data.params.works",
    "MoraleParams": "tabletop.data.params.morale",
    "AirborneParams": "tabletop.data.params.airborne",
    "AmphibiousParams": "tabletop.data.params.amphibious",
}

# The charts made only of parameters (each entry is a field), and the charts of mixed rows
# (each ``table: param`` row is a field).
_ALL = (
    "AmmoParams",
    "BarrageParams",
    "TableParams",
    "WeatherParams",
    "EngineeringParams",
    "MinesParams",
    "StructuresParams",
    "MoraleParams",
)
_ROWS = ("AirborneParams", "AmphibiousParams")


def __getattr__(name: str) -> Any:
    """A parameter class (or ``ALL``/``ROWS``, tuples of them), loaded on first use."""
    if name in ("ALL", "ROWS"):
        return tuple(__getattr__(n) for n in (_ALL if name == "ALL" else _ROWS))
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
