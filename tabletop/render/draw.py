"""Write a ``Scene`` as a picture: SVG (``render.svg``) or PNG (``render.png``).

Both are painted by one painter from the same scene, layout, title, notes and label
placement (``render.layout``); the PNG paints pixels with Pillow, the SVG writes the same
steps as elements (text kept as text, each step named by its id, so stand ids can be
searched). Neither imports matplotlib: its figure and backends alone took longer than a
referee should wait for a picture (docs/performance.md).

The table is drawn to scale: one table inch is the same length across and up the picture,
with a 6" grid and inch rulers along all four edges. A panel to the right holds the wind
arrow and the legend; the title block above names the turn, phase, light, weather, ground
and the view.
"""

from __future__ import annotations

from typing import IO

from tabletop.render.layout import FORMATS, STAGES, Progress
from tabletop.render.scene import Scene

__all__ = ["FORMATS", "STAGES", "write"]


def write(scene: Scene, out: IO[bytes], fmt: str, progress: Progress | None = None) -> None:
    """Paint the scene and write it to ``out`` as ``svg`` or ``png``."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown map format {fmt!r}")
    if fmt == "png":
        from tabletop.render.png import write as write_png

        write_png(scene, out, progress)
        return
    from tabletop.render.svg import write as write_svg

    write_svg(scene, out, progress)
