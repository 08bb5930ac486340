"""The ``--set KEY=VALUE`` orders of an assault: standing orders per stand, and the lists of
stands in a special situation for this battle only."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import Any

from tabletop.core.errors import BadInput
from tabletop.core.frozen import mutable_dataclass
from tabletop.rules.models.aggression.chart import UNIT_TYPES
from tabletop.rules.models.aggression.rules import check_factor

# Standing orders, kept on the stand until changed: KEY.STAND=VALUE.
PER_STAND: dict[str, str] = {
    "af": "af.STAND=1..10: order a new aggression factor (kept until changed)",
    "retreat": "retreat.STAND=DEGREES: a stationary stand's retreat bearing (before contact)",
    "pursue": "pursue.STAND=true|false: the pursuit choice where the factor leaves one",
    "target": "target.STAND=TYPE[/TYPE...] or ENEMY: priority targets (selective fire)",
    "works": "works.STAND=none|dug-in|entrenched|fortified[:SIZE]: its prepared position",
    "surplus": "surplus.STAND=N: units of surplus equipment it carries",
    "profile": "profile.STAND=ID: the profile it fights with (default: its kind's, chart 'kinds')",
}
# This battle only: KEY=STAND[,STAND...].
LISTS: dict[str, str] = {
    "ambush": "ambush=STAND,...: defenders on ambush orders (one free shot first)",
    "admin": "admin=STAND,...: stands moving administratively (road column)",
    "joined": "joined=STAND,...: stands that joined the battle this turn (not its starters)",
    "disengage": "disengage=STAND,...: stands ordered to disengage (after a round)",
}
OPTIONS: dict[str, str] = {**PER_STAND, **LISTS}

WORKS_RE = re.compile(r"^(none|dug-in|entrenched|fortified)(?::(\d+))?$")


@mutable_dataclass
class Orders:
    per_stand: dict[str, dict[str, Any]] = field(default_factory=dict)
    lists: dict[str, list[str]] = field(default_factory=dict)

    def of(self, stand: str) -> dict[str, Any]:
        return self.per_stand.get(stand, {})

    def listed(self, name: str) -> list[str]:
        return self.lists.get(name, [])


def accepted() -> str:
    return ", ".join(f"{k}.STAND" for k in PER_STAND) + ", " + ", ".join(LISTS)


def parse_orders(options: Mapping[str, Any], stands: Iterable[str]) -> Orders:
    """Check every key, stand and value; the message quotes the setting and what is accepted."""
    ids = list(stands)
    orders = Orders()
    for key, value in options.items():
        name, dot, stand = str(key).partition(".")
        if dot:
            if name not in PER_STAND:
                raise BadInput(f"--set {key!r}: not an assault order (accepted: {accepted()})")
            _in_battle(key, stand, ids)
            orders.per_stand.setdefault(stand, {})[name] = _value(key, name, value)
        else:
            if name not in LISTS:
                hint = f"; write {name}.STAND=VALUE" if name in PER_STAND else ""
                raise BadInput(
                    f"--set {key!r}: not an assault order{hint} (accepted: {accepted()})"
                )
            members = [m.strip() for m in str(value).split(",") if m.strip()]
            if not members:
                raise BadInput(f"--set {key}=: name the stands, like {key}=G-1,G-2")
            for member in members:
                _in_battle(key, member, ids)
            orders.lists[name] = members
    return orders


def _in_battle(key: str, stand: str, ids: list[str]) -> None:
    if stand not in ids:
        raise BadInput(
            f"--set {key!r}: {stand!r} is not in this assault (stands: {', '.join(ids)})"
        )


def _value(key: str, name: str, value: Any) -> Any:
    if name == "af":
        try:
            return check_factor(value)
        except BadInput:
            raise BadInput(f"--set {key}={value!r}: an aggression factor is 1 to 10") from None
    if name == "retreat":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 360:
            raise BadInput(f"--set {key}={value!r}: a bearing in degrees, 0 to 360")
        return float(value) % 360
    if name == "pursue":
        if not isinstance(value, bool):
            raise BadInput(f"--set {key}={value!r}: write true or false")
        return value
    if name == "profile":
        return str(value)
    if name == "surplus":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise BadInput(f"--set {key}={value!r}: a whole number of equipment units, 0 or more")
        return value
    if name == "works":
        match = WORKS_RE.match(str(value))
        if not match or (match.group(2) and match.group(1) != "fortified"):
            raise BadInput(
                f"--set {key}={value!r}: accepted: none, dug-in, entrenched, fortified, "
                "fortified:SIZE"
            )
        size = int(match.group(2)) if match.group(2) else None
        if size is not None and size < 1:
            raise BadInput(f"--set {key}={value!r}: a fortification has size 1 or more")
        return {"kind": match.group(1), "size": size}
    # target: types or enemy stand ids, checked against the battle by the caller
    wanted = [w.strip() for w in str(value).split("/") if w.strip()]
    if not wanted:
        raise BadInput(f"--set {key}=: name a type ({', '.join(UNIT_TYPES)}) or an enemy stand")
    return wanted
