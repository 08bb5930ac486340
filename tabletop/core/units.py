"""Comparing measured distances with the rules' limits.

Two tolerances, for two different things:

- ``TOLERANCE``: floating-point noise. Ranges come from floating-point geometry, so a stand
  placed exactly 6" away may measure 6.000000000000002". A referee's tape reads that as 6",
  and so do we: a distance is within a limit when it exceeds it by less than a millionth of
  an inch.
- ``MOVE_TOLERANCE``: the tape itself. A tape on a table is read to a quarter inch at best,
  so where a stand is put is known to half that, an eighth of an inch, either way. A move
  whose cost is over its allowance by no more than that is one the tape cannot tell from
  an exact one, and it stands. One figure for the whole program: every check of a move's
  cost against an allowance goes through ``within_move``.
"""

from __future__ import annotations

TOLERANCE = 1e-6

# Half the finest reading of a tape (1/4"): what a referee's measurement cannot tell apart.
MOVE_TOLERANCE = 0.125


def within(distance: float, limit: float) -> bool:
    return distance <= limit + TOLERANCE


def within_move(cost: float, allowance: float) -> bool:
    """A move's cost fits its allowance, as a tape measures (``MOVE_TOLERANCE``)."""
    return cost <= allowance + MOVE_TOLERANCE
