"""How the dice ran against what fair dice would give: means, z-scores and chi-square.

Plain arithmetic on the rolls in the log; no randomness and no third-party statistics
package. For a fair N-sided die the mean is (N + 1) / 2 and the variance (N^2 - 1) / 12;
the z-score says how many standard errors the observed mean lies from that. The chi-square
test compares how often each face came up with an even spread, once there are enough rolls
for it to mean something (at least five expected per face, the usual rule of thumb). The
mean is judged only from a handful of rolls up (two 1s on a d10 are not a verdict on the
dice), where the normal approximation behind the z-score is fair for a uniform die.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import field
from typing import Any

from tabletop.core.frozen import mutable_dataclass

MIN_EXPECTED_PER_FACE = 5
MIN_ROLLS_FOR_MEAN = 12
UNUSUAL = 0.05
VERY_UNUSUAL = 0.01


@mutable_dataclass
class DieStats:
    sides: int
    source: str  # "all", "physical" or "generated"
    n: int
    mean: float | None
    expected: float
    z: float | None
    p_mean: float | None
    chi2: float | None
    df: int
    p_chi2: float | None
    counts: dict[int, int] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        if self.n == 0:
            return "no rolls"
        p_values = [p for p in (self.p_mean, self.p_chi2) if p is not None]
        if not p_values:
            return "too few rolls to judge"
        worst = min(p_values)
        if worst < VERY_UNUSUAL:
            judged = "very unusual for fair dice"
        elif worst < UNUSUAL:
            judged = "unusual for fair dice"
        else:
            judged = "in line with fair dice"
        assert self.mean is not None
        if abs(self.mean - self.expected) < 1e-9:
            return judged
        lean = "high" if self.mean > self.expected else "low"
        return f"ran {lean}; {judged}"

    def as_json(self) -> dict[str, Any]:
        return {
            "die": self.sides,
            "source": self.source,
            "rolls": self.n,
            "mean": None if self.mean is None else round(self.mean, 3),
            "expected_mean": self.expected,
            "z": None if self.z is None else round(self.z, 3),
            "p_mean": None if self.p_mean is None else round(self.p_mean, 4),
            "chi2": None if self.chi2 is None else round(self.chi2, 3),
            "df": self.df,
            "p_chi2": None if self.p_chi2 is None else round(self.p_chi2, 4),
            "counts": {str(k): v for k, v in sorted(self.counts.items())},
            "verdict": self.verdict,
        }


def die_stats(sides: int, values: Iterable[int], source: str = "all") -> DieStats:
    rolled = [int(v) for v in values]
    n = len(rolled)
    expected = (sides + 1) / 2
    counts = Counter(rolled)
    if n == 0:
        return DieStats(sides, source, 0, None, expected, None, None, None, sides - 1, None)
    mean = sum(rolled) / n
    sd = math.sqrt((sides * sides - 1) / 12)
    z = (mean - expected) / (sd / math.sqrt(n)) if sd > 0 else 0.0
    # two-sided; not judged on a few rolls
    p_mean = math.erfc(abs(z) / math.sqrt(2)) if n >= MIN_ROLLS_FOR_MEAN else None
    chi2 = p_chi2 = None
    if sides > 1 and n / sides >= MIN_EXPECTED_PER_FACE:
        each = n / sides
        chi2 = sum((counts.get(face, 0) - each) ** 2 / each for face in range(1, sides + 1))
        p_chi2 = chi2_survival(chi2, sides - 1)
    return DieStats(
        sides, source, n, mean, expected, z, p_mean, chi2, sides - 1, p_chi2, dict(counts)
    )


def chi2_survival(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom (exact sums)."""
    half = x / 2
    if half <= 0:  # also a positive x so small that half of it underflows to zero
        return 1.0
    if df % 2 == 0:
        # Q(k, h) = exp(-h) * sum_{i<k} h^i / i!
        term = total = 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    # Odd df: erfc for the first half-degree, then terms h^(i-1/2) / Gamma(i+1/2).
    total = math.erfc(math.sqrt(half))
    for i in range(1, (df - 1) // 2 + 1):
        total += math.exp((i - 0.5) * math.log(half) - half - math.lgamma(i + 0.5))
    return min(1.0, total)


def summarise(rolls: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Totals and per-die statistics (all rolls, then physical and generated apart)."""
    by_die: dict[int, dict[str, list[int]]] = {}
    physical = generated = 0
    for roll in rolls:
        sides, value, source = int(roll["die"]), int(roll["value"]), str(roll["source"])
        bucket = by_die.setdefault(sides, {"physical": [], "generated": []})
        bucket.setdefault(source, []).append(value)
        if source == "physical":
            physical += 1
        else:
            generated += 1
    stats = []
    for sides in sorted(by_die):
        sources = by_die[sides]
        every = [v for values in sources.values() for v in values]
        stats.append(die_stats(sides, every, "all"))
        for source in ("physical", "generated"):
            if sources.get(source) and len(sources[source]) != len(every):
                stats.append(die_stats(sides, sources[source], source))
    return {
        "rolls": physical + generated,
        "physical": physical,
        "generated": generated,
        "by_die": stats,
    }
