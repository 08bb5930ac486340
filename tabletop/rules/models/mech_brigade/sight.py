"""Mech Brigade's sighting procedures: sighting range (MB 7.1), sighting firing units
(MB 7.12), the visibility level (MB 4.11) and line of sight over elevation (MB 8.0)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput
from tabletop.core.words import count
from tabletop.rules.models.chance import roll_chance, shown
from tabletop.rules.models.mech_brigade.data import Tables
from tabletop.rules.models.mech_brigade.formulas import half_up, num
from tabletop.rules.models.mech_brigade.reader import Reader

# --- sighting (MB 7.1, 4.11, 7.12) ---------------------------------------------------------


def sighting(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    if r.given("target"):
        profile = t.profile(str(o["target"]), "target")
        if profile.sl is None:
            raise BadInput(f"target {profile.id!r}: has no silhouette (MB 6.0)")
        silhouette = profile.sl
    else:
        silhouette = r.integer("silhouette", None, 0, 20)
    cover = _cover(t, r)
    lines = []
    reach = Fraction(silhouette) + t.num("sight-add")
    lines.append(f"silhouette {silhouette} + 1 = {num(reach)} squares [MB 7.1]")
    if cover:
        reach /= t.num("sight-cover-divisor")
        lines.append(f"in cover: / 3 = {num(reach)}")
    if r.flag("smoke"):
        reach /= t.num("sight-smoke-divisor")
        lines.append(f"in smoke: / 2 = {num(reach)}")
    if r.flag("moving"):
        reach *= t.num("sight-moving-multiplier")
        lines.append(f"moving: x 3 = {num(reach)}")
    visibility = r.integer("visibility", t.whole("visibility-max"), 0, 99)
    if reach > visibility:
        reach = Fraction(visibility)
        lines.append(f"capped by the visibility level: {visibility} [MB 4.11]")
    result: dict[str, Any] = {"sighting_range": float(reach), "spotted": None}
    verdict = f"sighting range {num(reach, 2)} squares"
    if r.given("range"):
        rng = r.number("range", None, 0, 999)
        result["spotted"] = rng <= reach
        verdict = (
            f"{'spotted' if result['spotted'] else 'not spotted'} at {num(rng)} squares "
            f"(sighting range {num(reach, 2)})"
        )
    return {"verdict": verdict, **result, "lines": lines}


def _cover(t: Tables, r: Reader) -> bool:
    value = r.options.get("cover")
    if value is None or isinstance(value, bool):
        return bool(value)
    return t.terrain_type(str(value), "--set cover=").sight_cover


def firer_sighted(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    pulses = r.integer("pulses", 1, 0, 99)
    rng = r.integer("range", None, 0, 999)
    mult = t.num("firer-sighted-multiplier")
    chance = Fraction(1) if rng == 0 else min(Fraction(1), mult * pulses / rng)
    why = "range 0" if rng == 0 else f"2 x {pulses} / {rng}"
    seen, rolls = roll_chance(dice, chance, "firing unit sighted")
    lines = [f"chance {why} = {shown(chance)} [MB 7.12]"]
    if rolls:
        lines.append(
            f"d100 {' then '.join(map(str, rolls))}: {'sighted' if seen else 'not sighted'}"
        )
    verdict = f"firing unit {'sighted' if seen else 'not sighted'} ({shown(chance)} chance)"
    return {"verdict": verdict, "sighted": seen, "chance": float(chance), "lines": lines}


def visibility(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    low, high = t.whole("visibility-min"), t.whole("visibility-max")
    roll = dice.roll(high - low + 1, f"visibility level: {low} to {high}")
    level = low - 1 + roll
    return {
        "verdict": f"visibility level {level} squares for the whole game",
        "visibility": level,
        "lines": [f"d{high - low + 1} {roll} + {low - 1} = {level} [MB 4.11]"],
    }


# --- line of sight (MB 8.0) ----------------------------------------------------------------

LETTERS = {"": "clear", "c": "clear", "w": "woods", "b": "broken", "t": "town", "e": "entrenchment"}


def parse_path(text: str) -> list[tuple[int, str]]:
    """``1,2w,1b`` -> [(1, 'clear'), (2, 'woods'), (1, 'broken')] (level and terrain)."""
    squares = []
    for part in str(text).replace(" ", "").split(","):
        if not part:
            continue
        digits = part.rstrip("abcdefghijklmnopqrstuvwxyz")
        letter = part[len(digits) :]
        if not digits.isdigit() or letter not in LETTERS:
            raise BadInput(
                f"--set path={text!r}: {part!r} is not a square; give each square between "
                "the units as its level with w (woods), b (broken), t (town) or e "
                "(entrenchment) for cover, e.g. path=1,2w,1b"
            )
        squares.append((int(digits), LETTERS[letter]))
    return squares


def line_of_sight(t: Tables, o: Mapping[str, Any], dice: DiceLike) -> dict[str, Any]:
    r = Reader(o)
    viewer = r.integer("viewer", None, 0, 99)
    target = r.integer("target", None, 0, 99)
    path = parse_path(str(o["path"])) if r.given("path") else []
    rng = r.integer("range", len(path) + 1, 0, 999)
    visibility = r.integer("visibility", None, 0, 99) if r.given("visibility") else None
    return trace_line(t, viewer, target, path, rng, visibility)


def trace_line(
    t: Tables,
    viewer: int,
    target: int,
    path: list[tuple[int, str]],
    rng: int | None = None,
    visibility: int | None = None,
) -> dict[str, Any]:
    """MB 8.0 for one line: the viewer's and target's levels and the squares between them,
    from the viewer, each as (level, terrain). The ``line-of-sight`` procedure and table-mode
    fire both call this, so the referee's check and the fire's refusal cannot disagree.

    ``cover`` in the answer counts, by terrain, the cover squares the line passes through
    rather than over (those MB 8.0 (5) limits); fire takes its blocking points from them."""
    distance = len(path) + 1
    rng = distance if rng is None else rng
    lines = [f"viewer at level {viewer}, target at level {target}, {distance} squares apart"]
    blocked: list[str] = []
    if visibility is not None and rng > visibility:
        blocked.append(f"range {rng} beyond the visibility level [MB 8.0 (2)]")
    high, low = max(viewer, target), min(viewer, target)
    rise = high - low
    counted: dict[str, int] = {}
    for i, (level, kind) in enumerate(path, start=1):
        d = i if viewer >= target else distance - i
        terrain = t.terrain_type(kind, "path terrain")
        cover = terrain.los is not None
        height = level + (t.whole("los-cover-height") if cover else 0)
        sight = half_up(high - Fraction(d * rise, distance))
        where = f"square {i} ({kind}, level {level})"
        if level > viewer and level > target:
            blocked.append(f"{where}: elevated above both units [MB 8.0 (5)]")
            continue
        lines.append(
            f"{where}: [{high} - ({d} x {rise} / {distance})] = {sight} vs height {height}"
        )
        if sight >= height:
            continue
        if cover:
            counted[kind] = counted.get(kind, 0) + 1
        else:
            blocked.append(f"{where}: rises above the line of sight [MB 8.0 (7)]")
    blocked += _cover_blocks(t, counted)
    clear = not blocked
    verdict = "line of sight clear" if clear else f"line of sight blocked: {blocked[0]}"
    return {
        "verdict": verdict,
        "los": clear,
        "blocked_by": blocked,
        "cover": counted,
        "lines": lines,
    }


def _cover_blocks(t: Tables, counted: dict[str, int]) -> list[str]:
    """MB 8.0 (5): towns always block; one woods or two broken squares may be seen through;
    woods and broken together block."""
    found = []
    for kind, n in counted.items():
        allowed = t.terrain[kind].los or 0
        if n > allowed:
            found.append(f"{count(n, kind + ' square')} in the way; at most {allowed} [MB 8.0 (5)]")
    if len(counted) > 1 and not found:
        mixed = " and ".join(sorted(counted))
        found.append(f"{mixed} together in the way [MB 8.0 (5)]")
    return found
