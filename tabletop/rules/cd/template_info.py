"""Where a template lies on the table and when it goes, for ``status``.

Read from the stored template alone (its polygon, kind and lifetime), so ``status`` needs
neither the charts nor the geometry library. A four-cornered template is a strip (smoke
drifting downwind, a searchlight beam, a smoke generator's screen, a bridge span) described
by its two short ends; any other is a round template (HE burst, illumination) described by
its centre and diameter.
"""

from __future__ import annotations

import math
from typing import Any

DEFAULT_TURNS = 1  # charts/barrage.yaml template-lifetime-turns, for templates stored without it


def template_info(t: dict[str, Any]) -> dict[str, Any]:
    """The template's id, kind, maker and turn, its shape and place, and when it expires."""
    info: dict[str, Any] = {
        "id": t["id"],
        "kind": t["kind"],
        "by": t.get("by"),
        "turn": t.get("turn"),
        **_shape(t.get("polygon") or []),
    }
    info.update(_expiry(t))
    return info


def _shape(polygon: list[list[float]]) -> dict[str, Any]:
    points = [(float(x), float(y)) for x, y in polygon]
    if len(points) > 1 and points[0] == points[-1]:
        points = points[:-1]
    if not points:
        return {"shape": None}
    if len(points) == 4:
        # strip(): corners 0-1 are the near short edge, 1-2 a long side, 2-3 the far edge.
        start = _mid(points[0], points[1])
        end = _mid(points[2], points[3])
        return {
            "shape": "strip",
            "from": _r(start),
            "to": _r(end),
            "width": round(math.dist(points[0], points[1]), 2),
            "length": round(math.dist(points[1], points[2]), 2),
            "bearing": round(
                math.degrees(math.atan2(end[0] - start[0], end[1] - start[1])) % 360, 1
            ),
        }
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)
    radius = max(math.dist((cx, cy), p) for p in points)
    return {"shape": "circle", "centre": _r((cx, cy)), "diameter": round(2 * radius, 2)}


def _expiry(t: dict[str, Any]) -> dict[str, Any]:
    lifetime = t.get("lifetime")
    if lifetime == "turn":
        turn = int(t.get("expires_turn") or int(t.get("turn") or 0) + DEFAULT_TURNS)
        return {
            "expires_turn": turn,
            "expires": f"removed as turn {turn}'s artillery phase starts",
        }
    words = {
        "light": f"until the searchlight is put out ('tabletop searchlight {t.get('by')} --off')",
        "fire": f"until the fire in {t.get('by')} goes out (rolled at the start of each turn)",
        "screen": "until the smoke generator's screen disperses",
        "game": "for the rest of the game",
    }
    return {"expires_turn": None, "expires": words.get(str(lifetime), "until removed")}


def describe(info: dict[str, Any]) -> str:
    """One line for a person: 'smoke-2 (smoke) by US-5: strip 22,27 to 22,21 ...'."""
    head = f"{info['id']} ({info['kind']})" + (f" by {info['by']}" if info.get("by") else "")
    if info.get("shape") == "strip":
        where = (
            f'strip {_xy(info["from"])} to {_xy(info["to"])}, {info["width"]:g}" wide, '
            f'{info["length"]:g}" long on bearing {info["bearing"]:g}'
        )
    elif info.get("shape") == "circle":
        where = f'circle at {_xy(info["centre"])}, {info["diameter"]:g}" across'
    else:
        where = "no shape on the table"
    return f"{head}: {where}; {info['expires']}"


def _mid(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2


def _r(p: tuple[float, float]) -> list[float]:
    return [round(p[0], 2) + 0.0, round(p[1], 2) + 0.0]


def _xy(p: list[float]) -> str:
    return f"{p[0]:g},{p[1]:g}"
