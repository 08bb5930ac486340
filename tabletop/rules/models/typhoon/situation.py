"""What the referee says about a typhoon shot (``--set KEY=VALUE``), checked and typed.

In table mode ``Typhoon.situation_from_table`` fills some keys from the table (cover, aspect,
levels, moving, the target's losses so far); the referee's ``--set`` values win.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import frozen_dataclass
from tabletop.rules.models.typhoon.tables import Unit, Weapon

FIRER_STATES = ("positioned", "dug-in", "cautious", "full", "pinned", "buttoned")
TARGET_STATES = (*FIRER_STATES, "retreating", "routed")
MOVING = ("cautious", "full")
COVERS = ("none", "soft", "hard")
ASPECTS = ("front", "side")
SHELLS = ("ap", "he")

OPTIONS: dict[str, str] = {
    "weapon": "which of the firer's weapons: its id or position 1-4 (default: the first)",
    "shell": "ap or he (default: AP at hard targets, HE at soft ones)",
    "fired_last_pulse": "true when the firer fired at this target last pulse",
    "firer_state": "the firer's state: " + ", ".join(FIRER_STATES) + " (default positioned)",
    "firer_suppression": "the firer's suppression points (default 0)",
    "firer_men": "men left in the firing squad (default: its profile)",
    "target_state": "the target's state: " + ", ".join(TARGET_STATES) + " (default positioned)",
    "cover": "the target's cover: none, soft, or hard (stone buildings)",
    "hull_down": "true when the target is hull-down to the firer (Dug-in targets always are)",
    "levels_above": "levels the firer stands above the target (2 or more: +10 on location)",
    "aspect": "front or side: the face of the target the shot strikes (default front)",
    "target_men": "men (crew) left in the target (default: its profile)",
    "target_suppression": "the target's suppression points before this fire (default 0)",
    "target_immobilized": "true when the target has already lost its track or engine",
    "target_guns_out": "positions of the target's guns already knocked out, like 1,2",
    "sighted": "false when the target cannot see the firer (+3 suppression a hit, not +1)",
    "smoke": "smoke squares between the units: any smoke blocks the line of sight",
}


@frozen_dataclass
class Situation:
    weapon: int  # position in the firer's weapons, 0-based
    shell: str
    fired_last_pulse: bool
    firer_state: str
    firer_suppression: int
    firer_men: int
    target_state: str
    cover: str
    hull_down: bool
    levels_above: int
    aspect: str
    target_men: int
    target_suppression: int
    target_immobilized: bool
    target_guns_out: tuple[int, ...]
    sighted: bool
    smoke: int


def parse_situation(
    options: Mapping[str, Any], shooter: Unit, target: Unit, weapons: Mapping[str, Weapon]
) -> Situation:
    o = dict(options)
    index = _weapon_index(o.get("weapon"), shooter)
    weapon = weapons[shooter.weapons[index].weapon]
    default_shell = "ap" if target.is_hard and weapon.size > 1 else "he"
    shell = _choice(o, "shell", SHELLS, default_shell)
    if shell == "ap" and not target.is_hard:
        raise RulesRefusal(
            f"--set shell=ap: {target.id} is a soft target, and point fire at soft targets uses "
            "HE (ToS II.B.3 Point fire); leave shell unset or give shell=he"
        )
    return Situation(
        weapon=index,
        shell=shell,
        fired_last_pulse=_flag(o, "fired_last_pulse", False),
        firer_state=_choice(o, "firer_state", FIRER_STATES, "positioned"),
        firer_suppression=_count(o, "firer_suppression", 0),
        firer_men=_count(o, "firer_men", shooter.men, low=1),
        target_state=_choice(o, "target_state", TARGET_STATES, "positioned"),
        cover=_choice(o, "cover", COVERS, "none"),
        hull_down=_flag(o, "hull_down", False),
        levels_above=_count(o, "levels_above", 0, low=-10),
        aspect=_choice(o, "aspect", ASPECTS, "front"),
        target_men=_count(o, "target_men", target.men, low=1, high=target.men),
        target_suppression=_count(o, "target_suppression", 0),
        target_immobilized=_flag(o, "target_immobilized", False),
        target_guns_out=_positions(o.get("target_guns_out")),
        sighted=_flag(o, "sighted", True),
        smoke=_count(o, "smoke", 0),
    )


def _weapon_index(value: Any, shooter: Unit) -> int:
    if not shooter.weapons:
        raise BadInput(f"{shooter.id} has no weapons to fire (see its profile's weapons)")
    names = [m.weapon for m in shooter.weapons]
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= len(names):
        return value - 1
    if isinstance(value, str) and value in names:
        return names.index(value)
    raise BadInput(
        f"--set weapon={value!r}: {shooter.id} carries {', '.join(names)} "
        f"(give one of these or a position 1-{len(names)})"
    )


def _choice(o: Mapping[str, Any], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = o.get(key, default)
    if value not in allowed:
        raise BadInput(f"--set {key}={value!r}: accepted {', '.join(allowed)}")
    return str(value)


def _flag(o: Mapping[str, Any], key: str, default: bool) -> bool:
    value = o.get(key, default)
    if not isinstance(value, bool):
        raise BadInput(f"--set {key}={value!r}: give true or false")
    return value


def _count(
    o: Mapping[str, Any], key: str, default: int, low: int = 0, high: int | None = None
) -> int:
    value = o.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"--set {key}={value!r}: give a whole number")
    if value < low or (high is not None and value > high):
        top = f" to {high}" if high is not None else " or more"
        raise BadInput(f"--set {key}={value!r}: give {low}{top}")
    return value


def _positions(value: Any) -> tuple[int, ...]:
    if value is None or value == "":
        return ()
    items: list[Any]
    if isinstance(value, int) and not isinstance(value, bool):
        items = [value]
    elif isinstance(value, str):
        items = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        items = [value]
    out = []
    for item in items:
        try:
            number = int(item)
        except (TypeError, ValueError):
            number = 0
        if isinstance(item, bool) or not 1 <= number <= 4:
            raise BadInput(f"--set target_guns_out={value!r}: give weapon positions 1-4, like 1,2")
        out.append(number)
    return tuple(sorted(set(out)))
