"""Point fire accuracy (ToS V Point fire accuracy, Modifiers, Silhouette modifiers).

Ranged accuracy comes from the two-piece formula; modifiers are counted in shifts and the net
number of shifts multiplies it by 1.42 (up) or 0.71 (down) per shift; against hard targets the
silhouette modifier multiplies it too; then the 99 cap and the floor (12 soft, 0 hard).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletop.core.frozen import frozen_dataclass
from tabletop.rules.models.chance import basis, percent, shown
from tabletop.rules.models.typhoon.situation import MOVING, Situation
from tabletop.rules.models.typhoon.tables import Tables, Unit, Weapon


def ranged_accuracy(t: Tables, r: float, a: float, mr: float) -> float:
    """RA at range ``r`` squares for accuracy rating ``a`` and maximum range ``mr``.

    98 at range 0, 50 at range ``a``, 2 at ``mr`` (ToS V Point fire accuracy)."""
    base, span = t.p("ra-base"), t.p("ra-span")
    if r <= a:
        return base + span * (a - r) / a
    return base - span * (r - a) / (mr - a)


def shift_multiplier(t: Tables, shifts: int) -> float:
    """x1.42 for each net positive shift, x0.71 for each net negative one."""
    if shifts >= 0:
        return float(t.p("shift-up") ** shifts)
    return float(t.p("shift-down") ** -shifts)


def silhouette_modifier(t: Tables, size: float, r: float) -> float:
    """size / 4 from 6 squares out; nearer, (size + 6 - r) / (4 + 6 - r) (ToS V)."""
    near, base = t.p("silhouette-near"), t.p("silhouette-base")
    if r >= near:
        return size / base
    return (size + near - r) / (base + near - r)


def clamp(value: float, floor: float, cap: float) -> float:
    return max(floor, min(cap, value))


def _shifts(n: int) -> str:
    """``+1 shift``, ``-2 shifts``, ``+0 shifts``: the word by the size of the number."""
    return f"{n:+d} {'shift' if abs(n) == 1 else 'shifts'}"


def needed(accuracy: float) -> float:
    """The hit chance in percent, as the dice settle it: the accuracy to a hundredth of a
    percent (the game compares it with a real-valued Rnd(100), ToS V Notation)."""
    return basis(percent(accuracy)) / 100


@frozen_dataclass
class Mod:
    id: str
    name: str
    shifts: int
    rule: str
    side: str

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "shifts": self.shifts, "rule": self.rule, "side": self.side}


@frozen_dataclass
class Facts:
    """What the modifier rows test, for one shot."""

    sit: Situation
    shooter: Unit
    target: Unit
    weapon: Weapon
    same_square: bool
    adjacent: bool
    skill_failed: bool


def _stationary(state: str) -> bool:
    # Our reading: "Positioned" rows also cover Pinned and Buttoned units, which hold still.
    return state in ("positioned", "pinned", "buttoned")


Test = Callable[[Facts], bool]
HARD: dict[str, tuple[str, Test]] = {
    "fired-last-pulse": ("fired at this target last pulse", lambda f: f.sit.fired_last_pulse),
    "firer-cautious": ("firer in Cautious Advance", lambda f: f.sit.firer_state == "cautious"),
    "firer-full": ("firer in Full Advance", lambda f: f.sit.firer_state == "full"),
    "firer-skill-failed": ("firer failed its skill check", lambda f: f.skill_failed),
    "firer-pinned": (
        "firer Pinned or Buttoned",
        lambda f: f.sit.firer_state in ("pinned", "buttoned"),
    ),
    "firer-suppressed": ("firer has suppression points", lambda f: f.sit.firer_suppression >= 1),
    "target-moving": (
        "target moving",
        lambda f: f.sit.target_state in (*MOVING, "retreating", "routed"),
    ),
    "target-in-cover": ("target in cover", lambda f: f.sit.cover != "none"),
    "target-retreating": (
        "target retreating, not adjacent",
        lambda f: f.sit.target_state in ("retreating", "routed") and not f.adjacent,
    ),
}
SOFT: dict[str, tuple[str, Test]] = {
    "soft-firer-moving": ("firer moving", lambda f: f.sit.firer_state in MOVING),
    "soft-firer-pinned": (
        "firer Pinned or Buttoned",
        lambda f: f.sit.firer_state in ("pinned", "buttoned"),
    ),
    "soft-firer-skill-failed": ("firer failed its skill check", lambda f: f.skill_failed),
    "soft-target-advancing": ("target advancing", lambda f: f.sit.target_state in MOVING),
    "soft-target-artillery": ("target is artillery", lambda f: f.target.artillery),
    "soft-positioned-soft-cover": (
        "target positioned in soft cover",
        lambda f: _stationary(f.sit.target_state) and f.sit.cover == "soft",
    ),
    "soft-positioned-hard-cover": (
        "target positioned in hard cover",
        lambda f: _stationary(f.sit.target_state) and f.sit.cover == "hard",
    ),
    "soft-dug-in": ("target Dug-in", lambda f: f.sit.target_state == "dug-in"),
    "soft-dug-in-hard-cover": (
        "target Dug-in in hard cover",
        lambda f: f.sit.target_state == "dug-in" and f.sit.cover == "hard",
    ),
    "soft-small-arms-protected": (
        "small arms at a target Dug-in or in hard cover",
        lambda f: f.weapon.size == 1 and (f.sit.target_state == "dug-in" or f.sit.cover == "hard"),
    ),
    "soft-target-retreating": (
        "target Retreating, not in the firer's square",
        lambda f: f.sit.target_state == "retreating" and not f.same_square,
    ),
    "soft-target-routing": (
        "target Routing, not in the firer's square",
        lambda f: f.sit.target_state == "routed" and not f.same_square,
    ),
    "soft-target-pinned": ("target Pinned", lambda f: f.sit.target_state == "pinned"),
}


def modifiers(t: Tables, table: str, facts: Facts, sides: tuple[str, ...]) -> list[Mod]:
    """The rows of ``table`` that apply, in chart order; special weapons lose no defence."""
    tests = HARD if table == "hard_modifier" else SOFT
    out = []
    for entry in t.tables[table].values():
        name, test = tests[entry.id]
        if entry.side not in sides or not test(facts):
            continue
        if entry.defensive and facts.weapon.special is not None:
            continue  # ToS V: no defensive benefits against flamethrowers and demo charges
        out.append(Mod(entry.id, name, int(entry.shifts), entry.rule, entry.side))
    return out


@frozen_dataclass
class Accuracy:
    """The working of one shot's hit chance."""

    ranged: float
    mods: tuple[Mod, ...]
    shifts: int
    multiplier: float
    silhouette: float | None
    raw: float
    value: float
    floor: float
    cap: float

    @property
    def needed(self) -> float:
        return needed(self.value)

    def lines(self, t: Tables, r: float, weapon: Weapon) -> list[str]:
        a, mr = weapon.accuracy, weapon.max_range
        base, span = f"{t.p('ra-base'):g}", f"{t.p('ra-span'):g}"
        if r <= a:
            form = f"RA = {base} + {span} x ({a:g} - {r:.2f}) / {a:g} = {self.ranged:.2f}"
        else:
            form = (
                f"RA = {base} - {span} x ({r:.2f} - {a:g}) / ({mr:g} - {a:g}) = {self.ranged:.2f}"
            )
        out = [f"{form} [ToS V Point fire accuracy]"]
        for m in self.mods:
            out.append(f"  {_shifts(m.shifts)}: {m.name} [{m.rule}]")
        out.append(f"net {_shifts(self.shifts)}: x{self.multiplier:.4f}")
        if self.silhouette is not None:
            out.append(f"silhouette x{self.silhouette:.4f} [ToS V Silhouette modifiers]")
        out.append(
            f"accuracy {self.raw:.2f} -> {shown(percent(self.value))} (cap {self.cap:g}, "
            f"floor {self.floor:g}): the chance to hit"
        )
        return out


def accuracy(
    t: Tables, facts: Facts, r: float, sides: tuple[str, ...] = ("firer", "target")
) -> Accuracy:
    """Final hit chance: hard targets take every hard row and the silhouette; soft targets the
    soft rows of ``sides`` (the hit roll uses the firer's rows only, ToS II.B.3 Point fire)."""
    w = facts.weapon
    ra = ranged_accuracy(t, r, w.accuracy, w.max_range)
    hard = facts.target.is_hard
    mods = modifiers(t, "hard_modifier" if hard else "soft_modifier", facts, sides)
    shifts = sum(m.shifts for m in mods)
    mult = shift_multiplier(t, shifts)
    sil = silhouette_modifier(t, facts.target.size, r) if hard else None
    raw = ra * mult * (sil if sil is not None else 1.0)
    floor = t.p("accuracy-floor-hard") if hard else t.p("accuracy-floor-soft")
    cap = t.p("accuracy-cap")
    return Accuracy(ra, tuple(mods), shifts, mult, sil, raw, clamp(raw, floor, cap), floor, cap)
