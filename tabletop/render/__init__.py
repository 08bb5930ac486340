"""Pictures and reports of a game: the map of the table and the after-action report.

``scene`` turns the game into plain drawing data for one view (the referee's, or one side's),
leaving out everything that view may not know; ``layout`` says where things go and what the
title and notes say; ``draw`` paints a scene with matplotlib as SVG, ``png`` with Pillow as
PNG; ``report`` reads the event log into an after-action report. Nothing here imports
matplotlib or Pillow at module level where the rest of the program would load it: ``draw``
imports matplotlib inside its functions, and ``png`` is imported only to write a PNG.
"""

from tabletop.core.sides import REFEREE

__all__ = ["REFEREE"]
