"""What a weapon's ammunition record says at a glance (CD 1), for ``status``, ``show`` and
the map: read from the record alone, so those need neither the charts nor the table's
geometry (the supply rules in ``ammo.py`` measure distances).
"""

from __future__ import annotations

from tabletop.state.document import AmmoRow


def weapon_status(ammo: AmmoRow) -> str:
    """``ok``, ``depleted`` (resupply will restore it) or ``spent`` (nothing will).

    Flamethrowers carry ``uses_left`` (CD 1.3.1), rockets ``resupplies_left`` (CD 1.3.3).
    """
    if "uses_left" in ammo and ammo["uses_left"] <= 0:
        return "spent"
    if ammo["state"] == "depleted" and ammo.get("resupplies_left", 1) <= 0:
        return "spent"
    return str(ammo["state"])
