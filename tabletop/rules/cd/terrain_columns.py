"""Which column of the terrain chart a stand pays by, from how it moves (CD 10).

Apart from the movement costs (``rules.cd.ground``) that read it, so a rule that only asks
where a stand may go (an assault's retreat, ``models.aggression.ground``) loads no weather
or movement rules.
"""

from __future__ import annotations

# How each kind of mobility pays terrain costs (terrain chart columns).
TERRAIN_COLUMN = {
    "foot": "foot", "mounted": "foot", "towed": "foot",
    "wheeled": "wheeled", "halftrack": "tracked", "tracked": "tracked",
}  # fmt: skip
