"""Comparing measured distances with the rules' limits.

Ranges come from floating-point geometry, so a stand placed exactly 6" away may measure
6.000000000000002". A referee's tape reads that as 6", and so do we: a distance is within a
limit when it exceeds it by less than a thousandth of an inch's thousandth.
"""

from __future__ import annotations

TOLERANCE = 1e-6


def within(distance: float, limit: float) -> bool:
    return distance <= limit + TOLERANCE
