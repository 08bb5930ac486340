"""Pictures and reports of a game: the map of the table and the after-action report.

``scene`` turns the game into plain drawing data for one view (the referee's, or one side's),
leaving out everything that view may not know; ``draw`` paints a scene with matplotlib (SVG
or PNG from one drawing); ``report`` reads the event log into an after-action report.
Nothing here imports matplotlib at module level: ``draw`` imports it inside its functions,
so the rest of the program starts without it.
"""

from tabletop.core.sides import REFEREE

__all__ = ["REFEREE"]
