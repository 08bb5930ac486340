"""Write a ``Scene`` as SVG text, without matplotlib.

The picture is the PNG's (``render.png``): the same painter lays out the same scene, in
the same order, with the same looks, title, notes, labels and legend; only its canvas is
different. Where the PNG painter sets pixels, this one writes SVG elements, in the PNG's
pixel units (130 to the inch; the ``viewBox``) so one layout serves both. Each drawing
step keeps its name as an element id (``label-G-1``, ``terrain-wood-1``, ``los-note-0``,
``wind-arrow``...), and text stays text, in DejaVu Sans as the PNG paints it, so a stand's
id can be searched for in the file.

matplotlib drew the SVG before: importing its figure and SVG backend and laying out 300
texts took 0.5 s of CPU, more than painting and writing the whole PNG.
"""

from __future__ import annotations

import math
from typing import IO, Any
from xml.sax.saxutils import escape, quoteattr

from PIL import Image, ImageDraw

from tabletop.render import png
from tabletop.render import style as st
from tabletop.render.layout import GRID_STEP, TOP, Progress, marks, on_step
from tabletop.render.png import DPI, PT, PxPoint, font, width_px
from tabletop.rules.cd.compass import point_bearing, point_name

FAMILY = "DejaVu Sans, Bitstream Vera Sans, Arial, sans-serif"
FACES = {
    "regular": "",
    "bold": "font-weight:bold;",
    "italic": "font-style:italic;",
}
INDENT = "   "  # each named step, as matplotlib indented its artists


def write(scene: Any, out: IO[bytes], progress: Progress | None = None) -> None:
    """Paint the scene as SVG and write it to ``out`` (UTF-8)."""
    tick = progress or (lambda _stage: None)
    painter = _SvgPainter(scene)
    painter.paint(tick)
    tick("writing")
    out.write(painter.document().encode("utf-8"))


def _n(value: float) -> str:
    """A coordinate to a hundredth of a pixel, without trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _path(points: list[PxPoint], closed: bool = False) -> str:
    d = "M" + " L".join(f"{_n(x)} {_n(y)}" for x, y in points)
    return d + " Z" if closed else d


def _opacity(name: str, alpha: float) -> str:
    return "" if alpha >= 1.0 else f"{name}:{_n(alpha)};"


class _SvgPainter(png._Painter):
    """``png._Painter`` on an SVG canvas: its primitives write elements."""

    def _canvas(self) -> None:
        # A pixel to measure text with (Pillow's metrics place it as the PNG places it).
        self.draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
        self.out: list[str] = []
        self.patterns: dict[tuple[str, str, float], str] = {}

    def document(self) -> str:
        w, h = self.size
        lay, scene = self.lay, self.scene
        title = f"{scene.name}: turn {scene.turn}, {scene.phase} phase, {scene.view} view"
        head = [
            '<?xml version="1.0" encoding="utf-8" standalone="no"?>',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(lay.fig_w)}in" '
            f'height="{_n(lay.fig_h)}in" viewBox="0 0 {w} {h}" version="1.1">',
            f" <title>{escape(title)}</title>",
            " <defs>",
            *self._defs(),
            " </defs>",
            ' <g id="figure_1">',
        ]
        return "\n".join([*head, *self.out, " </g>", "</svg>", ""])

    def _defs(self) -> list[str]:
        x0, y0, x1, y1 = self.table_box
        defs = [
            '  <clipPath id="table-clip">',
            f'   <rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" height="{_n(y1 - y0)}"/>',
            "  </clipPath>",
        ]
        for (pattern, colour, alpha), pid in self.patterns.items():
            defs += _hatch_pattern(pid, pattern, colour, alpha)
        return defs

    def emit(self, element: str) -> None:
        self.out.append(INDENT + " " + element)

    # --- named steps ----------------------------------------------------------------------

    def on_table(self, z: float, op: Any, gid: str | None = None) -> None:
        def named() -> None:
            if gid is not None:
                self.out.append(f"{INDENT}<g id={quoteattr(gid)}>")
            op()
            if gid is not None:
                self.out.append(f"{INDENT}</g>")

        super().on_table(z, named)

    # --- primitives -----------------------------------------------------------------------

    def polygon(
        self,
        points: list[PxPoint],
        face: str = "none",
        edge: str = "none",
        linewidth: float = 0.6,
        alpha: float = 1.0,
        hatch: str | None = None,
        linestyle: Any = "-",
        fill: bool = True,
    ) -> None:
        if len(points) < 3:
            return
        d = _path(points, closed=True)
        if fill and face != "none":
            self.emit(f'<path d="{d}" style="fill:{face};{_opacity("fill-opacity", alpha)}"/>')
        if hatch and edge != "none":
            self.emit(f'<path d="{d}" style="fill:url(#{self._pattern(hatch, edge, alpha)})"/>')
        if edge != "none":
            stroke = self._stroke(edge, linewidth, alpha, linestyle)
            self.emit(f'<path d="{d}" style="fill:none;{stroke}"/>')

    def line(
        self,
        points: list[PxPoint],
        colour: str,
        linewidth: float,
        alpha: float = 1.0,
        linestyle: Any = "-",
    ) -> None:
        style = self._stroke(colour, linewidth, alpha, linestyle)
        self.emit(f'<path d="{_path(points)}" style="fill:none;{style}"/>')

    def _stroke(self, colour: str, linewidth: float, alpha: float, linestyle: Any) -> str:
        dash = png._dash(linestyle, linewidth)
        style = f"stroke:{colour};stroke-width:{_n(linewidth * PT)};"
        style += "stroke-linejoin:round;" + _opacity("stroke-opacity", alpha)
        if dash is not None:
            style += f"stroke-dasharray:{_n(dash[0])},{_n(dash[1])};"
        return style

    def _pattern(self, hatch: str, colour: str, alpha: float) -> str:
        key = (hatch, colour, alpha)
        if key not in self.patterns:
            self.patterns[key] = f"hatch-{len(self.patterns)}"
        return self.patterns[key]

    def text(
        self,
        at: PxPoint,
        text: str,
        size: float,
        colour: str = "#000000",
        anchor: str = "mm",
        face: str = "regular",
        alpha: float = 1.0,
        box: tuple[float, float] | None = None,
        gid: str | None = None,
    ) -> None:
        f = font(size, face)
        lines = text.split("\n")
        # Where the first line's baseline starts, for the text to sit as Pillow anchors it.
        placed = anchor if len(lines) == 1 else "la"
        x0, y0, x1, y1 = self.draw.textbbox(at, text, font=f, anchor=placed)
        bx0, by0, _bx1, _by1 = f.getbbox(lines[0], anchor="ls")
        left, base = x0 - bx0, y0 - by0
        if gid is not None:
            self.out.append(f"{INDENT}<g id={quoteattr(gid)}>")
        if box is not None:
            opacity, pad = box
            p = pad * size * PT
            fill = "fill:#ffffff;" + _opacity("fill-opacity", opacity)
            self.emit(
                f'<rect x="{_n(x0 - p)}" y="{_n(y0 - p)}" width="{_n(x1 - x0 + 2 * p)}" '
                f'height="{_n(y1 - y0 + 2 * p)}" style="{fill}"/>'
            )
        style = (
            f"font-family:{FAMILY};font-size:{_n(size * PT)}px;{FACES.get(face, '')}"
            f"fill:{colour};{_opacity('fill-opacity', alpha)}"
        )
        pitch = size * PT * 1.2
        for n, line in enumerate(lines):
            self.emit(
                f'<text x="{_n(left)}" y="{_n(base + n * pitch)}" style="{style}" '
                f'xml:space="preserve">{escape(line)}</text>'
            )
        if gid is not None:
            self.out.append(f"{INDENT}</g>")

    def turned_text(
        self,
        at: PxPoint,
        text: str,
        size: float,
        colour: str,
        angle: float,
        face: str = "regular",
        box: tuple[float, float] | None = None,
    ) -> None:
        if abs(angle) < 0.5:
            self.text(at, text, size, colour, "mm", face, box=box)
            return
        self.emit(f'<g transform="rotate({_n(-angle)} {_n(at[0])} {_n(at[1])})">')
        self.text(at, text, size, colour, "mm", face, box=box)
        self.emit("</g>")

    def _round_line(self, points: list[PxPoint], colour: str, linewidth: float) -> None:
        style = f"fill:none;stroke:{colour};stroke-width:{_n(linewidth * PT)};stroke-linecap:round"
        self.emit(f'<path d="{_path(points)}" style="{style}"/>')

    def _cross(self, at: PxPoint, size: float) -> None:
        x, y = at
        half, arm = size * PT / 2, size * PT * 0.14
        reach = half * math.sqrt(2) - arm
        plus = [(arm, reach), (arm, arm), (reach, arm), (reach, -arm), (arm, -arm), (arm, -reach)]
        plus += [(-u, -v) for u, v in plus]
        r = math.sqrt(0.5)
        outline = [(x + (u - v) * r, y + (u + v) * r) for u, v in plus]
        style = f"fill:{st.LOS_BLOCKED};stroke:#ffffff;stroke-width:{_n(0.8 * PT)}"
        self.emit(f'<path d="{_path(outline, closed=True)}" style="{style}"/>')

    def _rings(self, points: list[PxPoint], size: float) -> None:
        r = size * PT / 2
        style = f"fill:#ffffff;stroke:{st.LOS_CLEAR};stroke-width:{_n(PT)}"
        for x, y in points:
            self.emit(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" style="{style}"/>')

    def _lines(self, lines: list[list[PxPoint]], colour: str) -> None:
        d = " ".join(_path(line) for line in lines)
        self.emit(f'<path d="{d}" style="fill:none;stroke:{colour};stroke-width:{_n(0.5 * PT)}"/>')

    # --- the table, its frame and rulers --------------------------------------------------

    def table(self) -> None:
        x0, y0, x1, y1 = self.table_box
        self.out.append(' <g id="axes_1">')
        self.emit(
            f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" height="{_n(y1 - y0)}" '
            f'style="fill:{st.TABLE_CLOTH}"/>'
        )
        w, d = self.scene.width, self.scene.depth
        grid = [[self.px(x, 0.0), self.px(x, d)] for x in marks(w, GRID_STEP)[1:]]
        grid += [[self.px(0.0, y), self.px(w, y)] for y in marks(d, GRID_STEP)[1:]]
        self.on_table(1.5, lambda: self._lines(grid, st.GRID), "grid")
        self.on_table(2.5, self.frame)
        # What spills over the table's edge is cut off, as matplotlib clips the axes.
        self.out.append('  <g clip-path="url(#table-clip)">')
        for *_order, op in sorted(self.ops, key=lambda o: (o[0], o[1])):
            op()
        self.out.append("  </g>")
        self.frame()
        self.out.append(f'{INDENT}<g id="rulers">')
        self.rulers()
        self.out.append(f"{INDENT}</g>")
        self.out.append(" </g>")

    def frame(self) -> None:
        x0, y0, x1, y1 = self.table_box
        self.emit(
            f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" height="{_n(y1 - y0)}" '
            f'style="fill:none;stroke:#000000;stroke-width:{_n(0.8 * PT)}"/>'
        )

    def rulers(self) -> None:
        w, d = self.scene.width, self.scene.depth
        short, long_, gap = 2.5 * PT, 5.0 * PT, 7.0 * PT
        x0, y0, x1, y1 = self.table_box
        ticks: list[list[PxPoint]] = []
        for x in marks(w, 1):
            n = long_ if on_step(x) else short
            px = self.px(x, 0)[0]
            ticks += [[(px, y1), (px, y1 + n)], [(px, y0), (px, y0 - n)]]
        for y in marks(d, 1):
            n = long_ if on_step(y) else short
            py = self.px(0, y)[1]
            ticks += [[(x0, py), (x0 - n, py)], [(x1, py), (x1 + n, py)]]
        d_ = " ".join(_path(t) for t in ticks)
        self.emit(f'<path d="{d_}" style="fill:none;stroke:#444444;stroke-width:{_n(0.6 * PT)}"/>')
        for x in marks(w, GRID_STEP):
            px = self.px(x, 0)[0]
            self.text((px, y1 + gap), f'{x:g}"', 7, "#444444", "mt")
            self.text((px, y0 - gap), f'{x:g}"', 7, "#444444", "mb")
        for y in marks(d, GRID_STEP):
            py = self.px(0, y)[1]
            self.text((x0 - gap, py), f'{y:g}"', 7, "#444444", "rm")
            self.text((x1 + gap, py), f'{y:g}"', 7, "#444444", "lm")
        caption = "inches east of the south-west corner"
        self.text(((x0 + x1) / 2, y1 + gap * 2.6), caption, 7, "#555555", "mt")

    # --- the wind -------------------------------------------------------------------------

    def _wind(self, x0: float, y0: float, height: float) -> None:
        unit = height / 2.6

        def at(u: float, v: float) -> PxPoint:
            return (x0 + (u + 1.3) * unit, y0 + (1.3 - v) * unit)

        c = self.scene.conditions
        cx, cy = at(0, 0)
        self.emit(
            f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(0.95 * unit)}" '
            f'style="fill:none;stroke:#999999;stroke-width:{_n(0.8 * PT)}"/>'
        )
        for n, name in enumerate(("N", "E", "S", "W")):
            angle = math.radians(n * 90)
            self.text(at(1.15 * math.sin(angle), 1.15 * math.cos(angle)), name, 7, "#555555")
        point = c.get("wind_from")
        force = str(c.get("wind_force"))
        if isinstance(point, int) and 1 <= point <= 8:
            towards = math.radians(point_bearing(point) + 180)
            dx, dy = math.sin(towards), math.cos(towards)
            width = {"light": 0.06, "moderate": 0.1, "high": 0.15}.get(force, 0.08)
            arrow = png._arrow((-0.7 * dx, -0.7 * dy), (dx, dy), 1.4, width, width * 3.2, 0.35)
            d = _path([at(u, v) for u, v in arrow], closed=True)
            self.emit(f'<path id="wind-arrow" d="{d}" style="fill:#1f5f8b"/>')
        self.text(at(1.55, 0.3), "Wind", 9, anchor="lm", face="bold")
        pitch = 8 * PT * 1.2 / unit
        self.text(
            at(1.55, -0.25 + pitch / 2), f"from {point_name(point)} ({point})", 8, anchor="lm"
        )
        self.text(at(1.55, -0.25 - pitch / 2), force, 8, anchor="lm")

    def panel(self) -> None:
        self.out.append(' <g id="panel">')
        super().panel()
        self.out.append(" </g>")

    def title_block(self) -> None:
        self.out.append(' <g id="title">')
        super().title_block()
        self.out.append(" </g>")


def _hatch_pattern(pid: str, pattern: str, colour: str, alpha: float) -> list[str]:
    """matplotlib's hatch ``pattern`` as an SVG pattern tile, as the PNG hatches it:
    ``6 x repeats`` lines (or rows of dots) per inch for each character."""
    marks_: list[str] = []
    size = DPI / png.HATCH_DENSITY
    for char, kinds in (
        ("/", "/"),
        ("\\", "\\"),
        ("x", "/\\"),
        ("X", "/\\"),
        ("-", "-"),
        ("+", "-|"),
        ("|", "|"),
        (".", "."),
    ):
        repeats = pattern.count(char)
        if not repeats:
            continue
        step = size / repeats
        for kind in kinds:
            for n in range(repeats):
                c = n * step
                if kind == "/":
                    marks_.append(f"M{_n(c - size)} {_n(size)} L{_n(c + size)} {_n(-size)}")
                    marks_.append(f"M{_n(c)} {_n(size)} L{_n(c + size)} 0")
                elif kind == "\\":
                    marks_.append(f"M{_n(c - size)} 0 L{_n(c + size)} {_n(2 * size)}")
                    marks_.append(f"M{_n(c)} 0 L{_n(c + size)} {_n(size)}")
                elif kind == "-":
                    marks_.append(f"M0 {_n(c + step / 2)} L{_n(size)} {_n(c + step / 2)}")
                elif kind == "|":
                    marks_.append(f"M{_n(c + step / 2)} 0 L{_n(c + step / 2)} {_n(size)}")
                else:
                    marks_.append(f"M{_n(c + step / 2 - 1)} {_n(c + step / 2)} h2")
    style = f"fill:none;stroke:{colour};stroke-width:{_n(width_px(0.5))};"
    style += _opacity("stroke-opacity", alpha)
    return [
        f'  <pattern id="{pid}" patternUnits="userSpaceOnUse" x="0" y="{_n(TOP * DPI)}" '
        f'width="{_n(size)}" height="{_n(size)}">',
        f'   <path d="{" ".join(marks_)}" style="{style}"/>',
        "  </pattern>",
    ]
