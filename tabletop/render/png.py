"""Paint a ``Scene`` as a PNG with Pillow, without matplotlib.

The SVG is drawn by ``draw`` with matplotlib; importing matplotlib's figure and its Agg
rasteriser alone costs about as much as a referee should wait for a PNG of a big table, so
the PNG is painted here with Pillow's ``ImageDraw`` from the same scene, the same looks
(``style``), the same layout (``layout.Layout``: figure inches, 130 dpi), the same title,
notes and stand label placement (``layout.title_lines``, ``layout.panel_notes``,
``layout.stand_labels``). What the two pictures show is decided once, in ``scene``,
``style`` and ``layout``; this module only paints it.

Things on the table are painted in matplotlib's drawing order (the ``zorder`` of
``style``); what spills over the table's edge is cut off as matplotlib clips it. Shapes are
drawn at the picture's resolution without anti-aliasing (text is anti-aliased by
FreeType); matplotlib's hatching is imitated with thin lines and dots in the edge colour.
The picture is reduced to a 256-colour palette before it is written: a map has few
colours, and the file comes out about a third of the size.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import math
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from PIL import Image, ImageChops, ImageColor, ImageDraw, ImageFont
from PIL.PngImagePlugin import PngInfo

from tabletop.core.frozen import frozen_dataclass
from tabletop.render import style as st
from tabletop.render.layout import (
    BOTTOM,
    G_BANDS,
    G_HIDDEN,
    G_LOS,
    G_STANDS,
    G_TEMPLATES,
    G_TERRAIN,
    GAP,
    GRID_STEP,
    LEFT,
    PNG_DPI,
    TOP,
    Layout,
    Progress,
    area,
    buffered,
    centroid,
    label_point,
    left_of,
    marks,
    on_step,
    panel_notes,
    stand_labels,
    terrain_in_order,
    text_angle,
    title_lines,
)
from tabletop.render.scene import Ring, Scene, StandShape
from tabletop.rules.cd.compass import point_bearing, point_name

DPI = PNG_DPI
PT = DPI / 72.0  # pixels per typographic point
RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]
PxPoint = tuple[float, float]

# matplotlib's dash patterns, in multiples of the line's width.
DASHED = (3.7, 1.6)
DOTTED = (1.0, 1.65)
LINESTYLES: dict[str, tuple[float, float] | None] = {
    "-": None,
    "solid": None,
    "--": DASHED,
    "dashed": DASHED,
    ":": DOTTED,
    "dotted": DOTTED,
}
HATCH_DENSITY = 6  # matplotlib's: lines per inch for each repeat of a hatch character

FONT_FILES = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "italic": "DejaVuSans-Oblique.ttf",
}


def write(scene: Scene, out: IO[bytes], progress: Progress | None = None) -> None:
    """Paint the scene and write it to ``out`` as a palette PNG."""
    tick = progress or (lambda _stage: None)
    painter = _Painter(scene)
    painter.paint(tick)
    tick("writing")
    title = f"{scene.name}: turn {scene.turn}, {scene.phase} phase, {scene.view} view"
    palette = painter.img.quantize(palette=_palette(painter.img, painter.inks), dither=NO_DITHER)
    info = PngInfo()
    info.add_text("Title", title)
    info.add_text("Software", "tabletop (Pillow)")
    # zlib level 3: a tenth bigger than the default level 6, in half the time.
    palette.save(out, format="png", pnginfo=info, compress_level=3)


NO_DITHER = Image.Dither.NONE
SAMPLE = 3  # the palette's other colours are chosen from every third pixel each way


def _palette(img: Image.Image, inks: set[RGB]) -> Image.Image:
    """256 colours for the picture: every colour painted as it is (the stands' and the
    terrain's colours stay exact), and the blends (anti-aliased text, translucent
    templates) chosen by octree from a sample. Choosing from a ninth of the pixels and
    mapping the picture onto the result takes a third of the time of an octree over
    the whole picture, with a smaller error."""
    exact = sorted(inks)[:128]
    sample = img.resize(
        (max(1, img.width // SAMPLE), max(1, img.height // SAMPLE)), Image.Resampling.NEAREST
    )
    chosen = sample.quantize(256 - len(exact), method=Image.Quantize.FASTOCTREE, dither=NO_DITHER)
    found = (chosen.getpalette() or [])[: 3 * (256 - len(exact))]
    # Octree colours are averages: one a shade off a painted colour would take its pixels
    # (Pillow maps by small cells of colour), so those near a painted colour are dropped.
    blends = [
        found[i : i + 3]
        for i in range(0, len(found), 3)
        if all(max(abs(a - b) for a, b in zip(found[i : i + 3], c, strict=True)) > 8 for c in exact)
    ]
    flat = [v for colour in [*exact, *blends] for v in colour]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette


# --- fonts ----------------------------------------------------------------------------------


@functools.cache
def _font_folder() -> Path | None:
    """matplotlib's DejaVu fonts (the SVG's font), found without importing matplotlib."""
    spec = importlib.util.find_spec("matplotlib")
    for place in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(place) / "mpl-data" / "fonts" / "ttf"
        if (folder / FONT_FILES["regular"]).is_file():
            return folder
    return None


_FONTS: dict[tuple[str, float], Any] = {}


def font(size_pt: float, face: str = "regular") -> Any:
    """DejaVu Sans at ``size_pt`` points; Pillow's own scalable font if DejaVu is missing."""
    key = (face, size_pt)
    if key not in _FONTS:
        folder = _font_folder()
        size = size_pt * PT
        path = folder / FONT_FILES[face] if folder else None
        if path is not None and path.is_file():
            _FONTS[key] = ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)
        else:
            _FONTS[key] = ImageFont.load_default(size)
    return _FONTS[key]


# --- colours --------------------------------------------------------------------------------


@functools.cache
def rgb(colour: str) -> RGB:
    r, g, b = ImageColor.getrgb(colour)[:3]
    return (r, g, b)


@functools.cache
def rgba(colour: str, alpha: float = 1.0) -> RGBA:
    return (*rgb(colour), max(0, min(255, round(alpha * 255))))


def width_px(points: float) -> int:
    return max(1, round(points * PT))


# --- the legend -----------------------------------------------------------------------------


@frozen_dataclass
class Key:
    """One legend entry: a swatch (a patch) or a line, with or without a marker."""

    label: str
    group: int
    order: int
    patch: bool
    face: str = "none"
    edge: str = "none"
    hatch: str | None = None
    alpha: float = 1.0
    linewidth: float = 0.6
    linestyle: str = "-"
    marker: str | None = None
    marker_face: str | None = None


# --- painting -------------------------------------------------------------------------------


class _Painter:
    def __init__(self, scene: Scene):
        self.scene = scene
        self.lay = Layout.for_scene(scene)
        lay = self.lay
        self.size = (round(lay.fig_w * DPI), round(lay.fig_h * DPI))
        self._canvas()
        self.k = lay.scale * DPI  # pixels per table inch
        self.ox, self.oy = LEFT * DPI, TOP * DPI
        self.table_box = (
            self.ox,
            self.oy,
            self.ox + lay.table_w * DPI,
            self.oy + lay.table_h * DPI,
        )
        self.side_index = {name: i for i, name in enumerate(scene.sides)}
        self.ops: list[tuple[float, int, Callable[[], None]]] = []
        self.legend: dict[str, Key] = {}
        self.inks: set[RGB] = {(255, 255, 255)}  # the colours painted as they are

    def _canvas(self) -> None:
        """The picture painted on (``render.svg`` writes elements instead)."""
        self.img = Image.new("RGB", self.size, "white")
        self.draw = ImageDraw.Draw(self.img, "RGBA")

    def ink(self, colour: str, alpha: float = 1.0) -> RGBA:
        """The colour for the pen; an opaque one is kept for the palette."""
        if alpha >= 1.0:
            self.inks.add(rgb(colour))
        return rgba(colour, alpha)

    def solid(self, colour: str) -> RGB:
        self.inks.add(rgb(colour))
        return rgb(colour)

    def px(self, x: float, y: float) -> PxPoint:
        return (self.ox + x * self.k, self.oy + (self.scene.depth - y) * self.k)

    def pxs(self, ring: Ring) -> list[PxPoint]:
        k, ox, top = self.k, self.ox, self.oy + self.scene.depth * self.k
        return [(ox + x * k, top - y * k) for x, y in ring]

    def on_table(self, z: float, op: Callable[[], None], gid: str | None = None) -> None:
        """Queue a drawing step; steps run in matplotlib's order (zorder, then as added).
        ``gid`` names what the step draws (the SVG's element id; a PNG has none)."""
        self.ops.append((z, len(self.ops), op))

    def paint(self, tick: Progress) -> None:
        self.terrain()
        tick("terrain")
        self.minefields()
        self.templates()
        self.bands()
        tick("minefields and templates")
        self.stands()
        self.sight()
        tick("stands and labels")
        self.table()
        self.title_block()
        self.panel()

    # --- drawing primitives -------------------------------------------------------------

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
        if fill and face != "none":
            self.draw.polygon(points, fill=self.ink(face, alpha))
        if hatch and edge != "none":
            self.hatch(points, hatch, edge, alpha)
        if edge != "none":
            self.line([*points, points[0]], edge, linewidth, alpha, linestyle)

    def line(
        self,
        points: list[PxPoint],
        colour: str,
        linewidth: float,
        alpha: float = 1.0,
        linestyle: Any = "-",
    ) -> None:
        width = width_px(linewidth)
        ink = self.ink(colour, alpha)
        dash = _dash(linestyle, linewidth)
        if dash is None:
            self.draw.line(points, fill=ink, width=width, joint="curve" if width > 2 else None)
            return
        for a, b in _dashes(points, dash):
            self.draw.line([a, b], fill=ink, width=width)

    def hatch(self, points: list[PxPoint], pattern: str, colour: str, alpha: float) -> None:
        """matplotlib's hatching inside the polygon: lines or dots in the edge colour."""
        w, h = self.size
        x0 = max(0, math.floor(min(p[0] for p in points)))
        y0 = max(0, math.floor(min(p[1] for p in points)))
        x1 = min(w, math.ceil(max(p[0] for p in points)) + 1)
        y1 = min(h, math.ceil(max(p[1] for p in points)) + 1)
        if x1 <= x0 or y1 <= y0:
            return
        size = (x1 - x0, y1 - y0)
        lines = Image.new("L", size, 0)
        if not _hatch_lines(ImageDraw.Draw(lines), size, pattern, round(255 * alpha)):
            return
        inside = Image.new("L", size, 0)
        ImageDraw.Draw(inside).polygon([(x - x0, y - y0) for x, y in points], fill=255)
        self.img.paste(self.solid(colour), (x0, y0, x1, y1), ImageChops.multiply(inside, lines))

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
        """``box``: a white box behind the text, (its opacity, its padding in font sizes);
        ``gid``: the SVG's element id (a PNG has none)."""
        f = font(size, face)
        if box is not None:
            opacity, pad = box
            x0, y0, x1, y1 = self.draw.textbbox(at, text, font=f, anchor=anchor)
            p = pad * size * PT  # matplotlib rounds the corners by the pad: a pixel or two
            self.draw.rectangle((x0 - p, y0 - p, x1 + p, y1 + p), fill=self.ink("#ffffff", opacity))
        self.draw.text(at, text, fill=self.ink(colour, alpha), font=f, anchor=anchor)

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
        """Text turned ``angle`` degrees anticlockwise about its centre, at ``at``."""
        if abs(angle) < 0.5:
            self.text(at, text, size, colour, "mm", face, box=box)
            return
        f = font(size, face)
        x0, y0, x1, y1 = self.draw.textbbox((0, 0), text, font=f, anchor="lt")
        p = (box[1] if box else 0.0) * size * PT + 1
        tile = Image.new("RGBA", (math.ceil(x1 - x0 + 2 * p), math.ceil(y1 - y0 + 2 * p)))
        pen = ImageDraw.Draw(tile)
        if box is not None:
            pen.rectangle((0, 0, tile.width, tile.height), fill=self.ink("#ffffff", box[0]))
        pen.text((p - x0, p - y0), text, fill=self.ink(colour), font=f, anchor="lt")
        turned = tile.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
        corner = (round(at[0] - turned.width / 2), round(at[1] - turned.height / 2))
        self.img.paste(turned, corner, turned)

    def key(self, label: str, group: int, patch: bool, **kwargs: Any) -> None:
        if not patch:
            kwargs.setdefault("linewidth", 1.5)  # matplotlib's lines.linewidth
        if label not in self.legend:
            self.legend[label] = Key(label, group, len(self.legend), patch, **kwargs)

    def look_key(self, label: str, look: st.Look, group: int, **over: Any) -> None:
        kwargs: dict[str, Any] = {
            "face": look.face,
            "edge": look.edge if look.edge != "none" else look.face,
            "hatch": look.hatch,
            "alpha": look.alpha,
            "linewidth": look.linewidth,
            "linestyle": look.linestyle,
        }
        kwargs.update(over)
        self.key(label, group, True, **kwargs)

    def small(self) -> float:
        return max(4.5, self.lay.label_points * 0.8)

    def look_shape(
        self, ring: Ring, look: st.Look, z: float | None = None, gid: str | None = None, **over: Any
    ) -> None:
        kwargs: dict[str, Any] = {
            "face": look.face,
            "edge": look.edge,
            "hatch": look.hatch,
            "alpha": look.alpha,
            "linewidth": look.linewidth,
            "linestyle": look.linestyle,
        }
        kwargs.update(over)
        points = self.pxs(ring)
        z = look.zorder if z is None else z
        self.on_table(z, lambda: self.polygon(points, **kwargs), gid)

    def table_text(
        self, z: float, x: float, y: float, text: str, size: float, gid: str, **kw: Any
    ) -> None:
        at = self.px(x, y)
        self.on_table(z, lambda: self.text(at, text, size, **kw), gid)

    # --- the table, its frame and rulers ----------------------------------------------

    def table(self) -> None:
        scene = self.scene
        x0, y0, x1, y1 = self.table_box
        # Big plain fills go through ``paste``: the blending pen is slower at them.
        self.img.paste(self.solid(st.TABLE_CLOTH), _box(self.table_box))
        w, d = scene.width, scene.depth
        grid: list[list[PxPoint]] = [
            [self.px(x, 0.0), self.px(x, d)] for x in marks(w, GRID_STEP)[1:]
        ]
        grid += [[self.px(0.0, y), self.px(w, y)] for y in marks(d, GRID_STEP)[1:]]
        self.on_table(1.5, lambda: self._lines(grid, st.GRID), "grid")
        self.on_table(2.5, self.frame)
        for _z, _n, op in sorted(self.ops, key=lambda o: (o[0], o[1])):
            op()
        # What spilled over the table's edge is cut off, as matplotlib clips the axes.
        W, H = self.size
        white = (255, 255, 255)
        for box in ((0, 0, W, y0), (0, y1, W, H), (0, y0, x0, y1), (x1, y0, W, y1)):
            self.img.paste(white, _box(box))
        self.frame()
        self.rulers()

    def _lines(self, lines: list[list[PxPoint]], colour: str) -> None:
        ink = self.solid(colour)
        for line in lines:
            self.draw.line(line, fill=ink)

    def frame(self) -> None:
        x0, y0, x1, y1 = self.table_box
        self.draw.rectangle((x0, y0, x1, y1), outline=(0, 0, 0), width=width_px(0.8))

    def rulers(self) -> None:
        w, d = self.scene.width, self.scene.depth
        short, long_, gap = 2.5 * PT, 5.0 * PT, 7.0 * PT
        ink = self.solid("#444444")
        pen = width_px(0.6)
        x0, y0, x1, y1 = self.table_box
        for x in marks(w, 1):
            n = long_ if on_step(x) else short
            px = self.px(x, 0)[0]
            self.draw.line([(px, y1), (px, y1 + n)], fill=ink, width=pen)
            self.draw.line([(px, y0), (px, y0 - n)], fill=ink, width=pen)
        for y in marks(d, 1):
            n = long_ if on_step(y) else short
            py = self.px(0, y)[1]
            self.draw.line([(x0, py), (x0 - n, py)], fill=ink, width=pen)
            self.draw.line([(x1, py), (x1 + n, py)], fill=ink, width=pen)
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

    def title_block(self) -> None:
        head, line2, line3 = title_lines(self.scene)
        x = LEFT * DPI
        self.text((x, 0.32 * DPI), head, 14, anchor="ls", face="bold")
        self.text((x, 0.58 * DPI), line2, 9.5, anchor="ls")
        self.text((x, 0.8 * DPI), line3, 8.5, "#444444", anchor="ls")

    # --- terrain --------------------------------------------------------------------------

    def terrain(self) -> None:
        for piece, above in terrain_in_order(self.scene):
            if above is not None:
                self._hill(piece, above)
            else:
                self._piece(piece)

    def _hill(self, piece: Any, above: list[Ring]) -> None:
        colour = st.hill_colour(piece.height)
        look = st.Look(f"hill, level {piece.height:g}", colour, st.HILL_EDGE, zorder=1.6)
        ring = piece.polygon or buffered(piece.line, piece.width)[0]
        self.look_shape(ring, look, 1.6 + piece.height * 0.01, f"terrain-{piece.id}", linewidth=0.9)
        self.look_key(look.label, look, G_TERRAIN, linewidth=0.9)
        self._terrain_extras(piece, ring)
        x, y = label_point(ring, avoid=above)
        text = f"{piece.id} (level {piece.height:g})"
        gid = f"terrain-label-{piece.id}"
        self.table_text(4.5, x, y, text, self.small(), gid, colour="#6b4f26", face="italic")

    def _piece(self, piece: Any) -> None:
        look = st.terrain_look(piece.kind)
        label = look.label if look is not st.UNKNOWN_TERRAIN else piece.kind
        rings = [piece.polygon] if piece.polygon else buffered(piece.line, piece.width)
        over = st.state_style(piece.state, look)
        if piece.state == "burning":
            self.look_key("burning", look, G_HIDDEN, edge=st.BURNING_EDGE, linewidth=2.0)
        for n, ring in enumerate(rings):
            self.look_shape(
                ring, look, None, f"terrain-{piece.id}" + (f"-{n}" if n else ""), **over
            )
        self.look_key(label, look, G_TERRAIN)
        self._terrain_extras(piece, rings[0])
        if piece.polygon and area(piece.polygon) >= 2.0:
            x, y = label_point(piece.polygon)
            state = "" if piece.state == "intact" else f" ({piece.state})"
            colour = look.edge if look.edge != "none" else "#444444"
            gid = f"terrain-label-{piece.id}"
            text = piece.id + state
            self.table_text(4.5, x, y, text, self.small(), gid, colour=colour, face="italic")

    def _terrain_extras(self, piece: Any, ring: Ring) -> None:
        """Referee-only pieces and wired bridges: marked, and only in a view that may know."""
        if piece.referee_only:
            look = st.Look("referee only (hidden from sides)", "none", "#c51b7d", linewidth=1.4)
            gid = f"hidden-{piece.id}"
            self.look_shape(ring, look, 4.6, gid, linestyle=(4.0, 2.0), fill=False)
            self.look_key(look.label, look, G_HIDDEN, face="none", linestyle="--")
        if piece.wired:
            look = st.Look("wired for demolition", "none", "#e31a1c", linewidth=1.6)
            self.look_shape(ring, look, 4.7, f"wired-{piece.id}", linestyle=(2.0, 1.5), fill=False)
            self.look_key(look.label, look, G_HIDDEN, face="none", linestyle=":")
            x, y = label_point(ring)
            gid = f"wired-label-{piece.id}"
            self.table_text(
                4.7, x, y - 0.9, "wired", self.small(), gid, colour="#e31a1c", face="bold"
            )

    # --- minefields and templates -----------------------------------------------------

    def minefields(self) -> None:
        for mine in self.scene.minefields:
            if mine.real is None:
                look, mark = st.MINE_UNKNOWN, "M?"
            elif mine.real:
                look, mark = st.MINE_REAL, "M"
            else:
                look, mark = st.MINE_DUMMY, "D"
            label = look.label
            if not mine.revealed and self.scene.view in (mine.side, "referee"):
                label += ", hidden"
            self.look_shape(mine.polygon, look, None, f"minefield-{mine.id}", linewidth=0.9)
            self.look_key(label, look, G_HIDDEN, linewidth=0.9)
            x, y = centroid(mine.polygon)
            colour = "white" if mine.real else "#3b220b"
            gid = f"minefield-label-{mine.id}"
            self.table_text(5.1, x, y, mark, self.small(), gid, colour=colour, face="bold")

    def templates(self) -> None:
        for t in self.scene.templates:
            look = st.template_look(t.kind)
            label = look.label if look is not st.UNKNOWN_TEMPLATE else t.kind
            # Above the stands (and translucent): the referee sees at a glance who is under it.
            self.look_shape(t.polygon, look, st.Z_TEMPLATES + look.zorder - 6, f"template-{t.id}")
            self.look_key(label, look, G_TEMPLATES)
            x, y = centroid(t.polygon)
            self.table_text(
                st.Z_TEMPLATES + 0.5,
                x,
                y,
                t.id,
                self.small() * 0.9,
                f"template-label-{t.id}",
                colour="#333333",
                alpha=0.9,
            )

    def bands(self) -> None:
        b = self.scene.bands
        if b is None:
            return
        weapons = list(dict.fromkeys(r.weapon for r in b.rings))
        for ring in b.rings:
            colour = st.BAND_COLOURS[weapons.index(ring.weapon) % len(st.BAND_COLOURS)]
            points = self.pxs(ring.polygon)
            dash = st.BAND_STYLES.get(ring.band, "-")
            self.on_table(
                st.Z_RINGS,
                functools.partial(self.line, [*points, points[0]], colour, 1.3, linestyle=dash),
                f"band-{ring.weapon}-{ring.band}",
            )
            self._band_label(ring, colour)
            self.key(
                f"{ring.weapon} range bands ({b.stand})", G_BANDS, False, edge=colour, linewidth=1.3
            )
        for band, dash in st.BAND_STYLES.items():
            if any(r.band == band for r in b.rings):
                self.key(f"{band} range limit", G_BANDS, False, edge="#555555", linestyle=dash)

    def _band_label(self, ring: Any, colour: str) -> None:
        """Label a ring where it crosses the table: at its top, else bottom, right or left."""
        w, d = self.scene.width, self.scene.depth
        xs = [p[0] for p in ring.polygon]
        ys = [p[1] for p in ring.polygon]
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        spots = (
            (cx, max(ys), "mb", 0.0),
            (cx, min(ys), "mt", 0.0),
            (max(xs), cy, "mm", 90.0),
            (min(xs), cy, "mm", 90.0),
        )
        text = f'{ring.weapon} {ring.band} {ring.distance:g}"'
        spot = next((s for s in spots if 0.5 < s[0] < w - 0.5 and 0.5 < s[1] < d - 0.5), None)
        if spot is None:
            return
        x, y, anchor, turn = spot
        at, size = self.px(x, y), self.small()
        gid = f"band-label-{ring.weapon}-{ring.band}"
        if turn:
            self.on_table(
                st.Z_RINGS,
                lambda: self.turned_text(at, text, size, colour, turn, box=(0.7, 0.05)),
                gid,
            )
        else:
            self.on_table(
                st.Z_RINGS,
                lambda: self.text(at, text, size, colour, anchor, box=(0.7, 0.05)),
                gid,
            )

    # --- stands ---------------------------------------------------------------------------

    def stands(self) -> None:
        for index, side in enumerate(self.scene.sides):
            face, edge = st.side_colours(index)
            self.look_key(side, st.Look(side, face, edge, linewidth=0.7), G_STANDS)
        self._bases()
        self._labels()
        for marker in self.scene.last_seen:
            self._last_seen(marker)

    def _side_colours(self, s: StandShape | Any) -> tuple[str, str]:
        return st.side_colours(self.side_index.get(s.side, len(self.side_index)))

    def _bases(self) -> None:
        live = [s for s in self.scene.stands if s.status != "eliminated"]
        dead = [s for s in self.scene.stands if s.status == "eliminated"]
        for s in self.scene.stands:
            face, edge = self._side_colours(s)
            self.look_key(s.side, st.Look(s.side, face, edge, linewidth=0.7), G_STANDS)

        def bases() -> None:
            for s in live:
                face, edge = self._side_colours(s)
                self.polygon(self.pxs(s.corners), face, edge, 0.7)

        def eliminated() -> None:
            for s in dead:
                colour = self._side_colours(s)[0]
                self.polygon(self.pxs(s.corners), "white", colour, 0.7, 0.9, "xxxx")

        def fronts() -> None:
            # The front edge (corners 2 and 3, see base_polygon) drawn thick and light.
            for s in self.scene.stands:
                self.line(self.pxs([s.corners[2], s.corners[3]]), "#ffe14d", 1.6)

        self.on_table(st.Z_STANDS, bases, "stands")
        if dead:
            self.on_table(st.Z_STANDS, eliminated, "stands-eliminated")
            look = st.Look("eliminated", "white", "#555555", linewidth=0.7)
            self.look_key("eliminated", look, G_STANDS, hatch="xxxx")
        if self.scene.stands:
            self.on_table(st.Z_STANDS + 0.1, fronts, "facing")
            self.key("stand's front edge (facing)", G_STANDS, False, edge="#ffe14d", linewidth=2.5)

    def _labels(self) -> None:
        pts = self.lay.label_points
        placed = stand_labels(self.scene, self.lay)

        def leaders() -> None:
            for s, p, _text in placed:
                if p.leader:
                    colour = self._side_colours(s)[1]
                    self.line([self.px(s.x, s.y), self.px(p.x, p.y)], colour, 0.4, 0.7)

        def labels() -> None:
            for s, p, text in placed:
                colour = self._side_colours(s)[1]
                at = self.px(p.x, p.y)
                self.text(
                    at, text, pts, colour, "mm", "bold", box=(0.72, 0.08), gid=f"label-{s.id}"
                )

        self.on_table(st.Z_LABELS - 0.1, leaders, "leaders")
        self.on_table(st.Z_LABELS, labels)

    def _last_seen(self, m: Any) -> None:
        """An enemy the side has lost sight of: a dashed ring where it was last seen."""
        colour = self._side_colours(m)[1]
        circle = [
            (m.x + 0.6 * math.cos(a * math.pi / 24), m.y + 0.6 * math.sin(a * math.pi / 24))
            for a in range(48)
        ]
        points = self.pxs(circle)
        self.on_table(
            st.Z_STANDS,
            lambda: self.line([*points, points[0]], colour, 0.8, linestyle="--"),
            f"last-seen-{m.id}",
        )
        self.key("enemy last seen (turn)", G_STANDS, False, edge=colour, linestyle="--")
        text = f"{m.id} ({m.gone})" if m.gone else f"{m.id}? t{m.turn}"
        gid = f"last-seen-label-{m.id}"
        self.table_text(
            st.Z_LABELS, m.x, m.y - 0.9, text, self.small(), gid, colour=colour, anchor="mt"
        )

    # --- line of sight ------------------------------------------------------------------

    def sight(self) -> None:
        line = self.scene.sight
        if line is None:
            return
        (ax_, ay), (bx, by) = line.start, line.end
        blockers = [c for c in line.crossings if c.blocks]
        cut = blockers[0].entry if blockers else line.end
        clear = [self.px(ax_, ay), self.px(*cut)]
        self.on_table(st.Z_LOS, lambda: self._round_line(clear, st.LOS_CLEAR, 2.0), "los-clear")
        self.key("line of sight, clear", G_LOS, False, edge=st.LOS_CLEAR, linewidth=2.0)
        if blockers:
            rest = [self.px(*cut), self.px(bx, by)]
            self.on_table(
                st.Z_LOS,
                lambda: self.line(rest, st.LOS_BLOCKED, 2.0, linestyle=(4.0, 2.0)),
                "los-blocked",
            )
            self.key(
                "line of sight, blocked",
                G_LOS,
                False,
                edge=st.LOS_BLOCKED,
                linewidth=2.0,
                linestyle="--",
            )
        small = self.small()
        for n, c in enumerate(line.crossings):
            if c.blocks:
                at = self.px(*c.entry)
                self.on_table(
                    st.Z_LOS + 0.2, functools.partial(self._cross, at, 9.0), f"los-crossing-{n}"
                )
                self.key(
                    "where the sight line is blocked",
                    G_LOS,
                    False,
                    edge=st.LOS_BLOCKED,
                    linestyle="none",
                    marker="X",
                )
                # Beside the mark, on the line's left as seen from A: off the line itself.
                nx, ny, ha = left_of(line.start, line.end)
                anchor = {"left": "lm", "right": "rm"}.get(ha, "mm")
                note = self.px(c.entry[0] + nx * 0.7, c.entry[1] + ny * 0.7)
                self.on_table(
                    st.Z_LABELS,
                    functools.partial(
                        self.text,
                        note,
                        f"blocked: {c.piece}",
                        small,
                        st.LOS_BLOCKED,
                        anchor,
                        "bold",
                        box=(0.8, 0.15),
                    ),
                    f"los-note-{n}",
                )
            else:
                ends = [self.px(*c.entry), self.px(*c.exit)]
                self.on_table(
                    st.Z_LOS + 0.1, functools.partial(self._rings, ends, 3.5), f"los-crossing-{n}"
                )
                self.key(
                    "sight line crosses terrain (clear)",
                    G_LOS,
                    False,
                    edge=st.LOS_CLEAR,
                    linestyle="none",
                    marker="o",
                    marker_face="white",
                )
        # The range label a quarter of the way from A; along the line when it runs across
        # the table, level beside it when it runs up and down.
        angle = text_angle(ax_, ay, bx, by)
        steep = abs(angle) > 55
        nx, ny, ha = left_of(line.start, line.end) if steep else (0.0, 0.0, "center")
        at = self.px(ax_ + (bx - ax_) * 0.25 + nx * 0.5, ay + (by - ay) * 0.25 + ny * 0.5)
        text = f'{line.a} to {line.b}: {line.range:.1f}"'
        if steep:
            anchor = {"left": "lm", "right": "rm"}.get(ha, "mm")
            self.on_table(
                st.Z_LABELS,
                lambda: self.text(at, text, small, "#222222", anchor, box=(0.8, 0.15)),
                "los-range",
            )
        else:
            self.on_table(
                st.Z_LABELS,
                lambda: self.turned_text(at, text, small, "#222222", angle, box=(0.8, 0.15)),
                "los-range",
            )

    def _round_line(self, points: list[PxPoint], colour: str, linewidth: float) -> None:
        self.line(points, colour, linewidth)
        r = width_px(linewidth) / 2
        for x, y in points:
            self.draw.ellipse((x - r, y - r, x + r, y + r), fill=self.solid(colour))

    def _cross(self, at: PxPoint, size: float) -> None:
        """matplotlib's 'X' marker: a filled cross ``size`` points across, edged in white."""
        x, y = at
        half, arm = size * PT / 2, size * PT * 0.14  # the arm's half-width
        reach = half * math.sqrt(2) - arm  # so that the arms' ends touch the box's corners
        plus = [(arm, reach), (arm, arm), (reach, arm), (reach, -arm), (arm, -arm), (arm, -reach)]
        plus += [(-u, -v) for u, v in plus]
        r = math.sqrt(0.5)  # the plus turned 45 degrees
        outline = [(x + (u - v) * r, y + (u + v) * r) for u, v in plus]
        self.draw.polygon(outline, fill=self.solid(st.LOS_BLOCKED), outline=(255, 255, 255))

    def _rings(self, points: list[PxPoint], size: float) -> None:
        r = size * PT / 2
        for x, y in points:
            self.draw.ellipse(
                (x - r, y - r, x + r, y + r), fill=(255, 255, 255), outline=self.solid(st.LOS_CLEAR)
            )

    # --- the side panel -----------------------------------------------------------------

    def panel(self) -> None:
        lay = self.lay
        x0 = (LEFT + lay.table_w + GAP) * DPI
        size = 1.35
        self._wind(x0, TOP * DPI, size * DPI)
        top = (TOP + size + 0.15) * DPI
        self.text((x0, top + 4), "Legend", 9, anchor="lt")
        y = top + 4 + 9 * PT * 1.45
        em = 7.5 * PT
        keys = sorted(self.legend.values(), key=lambda k: (k.group, k.order))
        for key in keys:
            self._swatch(key, (x0, y, x0 + 2.2 * em, y + 0.7 * em))
            self.text((x0 + 3.0 * em, y + 0.35 * em), key.label, 7.5, anchor="lm")
            y += 1.5 * em
        notes = panel_notes(self.scene)
        width = (lay.fig_w - LEFT - lay.table_w - GAP) * DPI - 4
        f = font(7)
        lines = [part for note in notes for part in _wrap(note, f, width)]
        pitch = 7 * PT * 1.2
        bottom = self.size[1] - BOTTOM * DPI
        for n, note in enumerate(reversed(lines)):
            self.text((x0, bottom - n * pitch), note, 7, "#333333", "ld")

    def _swatch(self, key: Key, box: tuple[float, float, float, float]) -> None:
        x0, y0, x1, y1 = box
        if key.patch:
            corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
            self.polygon(
                corners, key.face, key.edge, key.linewidth, key.alpha, key.hatch, key.linestyle
            )
            return
        mid = (y0 + y1) / 2
        if key.linestyle != "none":
            self.line([(x0, mid), (x1, mid)], key.edge, key.linewidth, key.alpha, key.linestyle)
        centre = ((x0 + x1) / 2, mid)
        if key.marker == "X":
            self._cross(centre, 8.0)
        elif key.marker == "o":
            self._rings([centre], 4.0)

    def _wind(self, x0: float, y0: float, height: float) -> None:
        """The wind: an arrow flying downwind in a compass ring (SPEC 2: wind is given as
        the direction it blows from, 1 = N ... 8 = NW)."""
        unit = height / 2.6  # the drawing spans -1.3 to 1.3 up, and from -1.3 across

        def at(u: float, v: float) -> PxPoint:
            return (x0 + (u + 1.3) * unit, y0 + (1.3 - v) * unit)

        c = self.scene.conditions
        cx, cy = at(0, 0)
        r = 0.95 * unit
        self.draw.ellipse(
            (cx - r, cy - r, cx + r, cy + r), outline=self.solid("#999999"), width=width_px(0.8)
        )
        for n, name in enumerate(("N", "E", "S", "W")):
            angle = math.radians(n * 90)
            self.text(at(1.15 * math.sin(angle), 1.15 * math.cos(angle)), name, 7, "#555555")
        point = c.get("wind_from")
        force = str(c.get("wind_force"))
        if isinstance(point, int) and 1 <= point <= 8:
            towards = math.radians(point_bearing(point) + 180)  # it blows from there, to here
            dx, dy = math.sin(towards), math.cos(towards)
            width = {"light": 0.06, "moderate": 0.1, "high": 0.15}.get(force, 0.08)
            arrow = _arrow((-0.7 * dx, -0.7 * dy), (dx, dy), 1.4, width, width * 3.2, 0.35)
            self.draw.polygon([at(u, v) for u, v in arrow], fill=self.solid("#1f5f8b"))
        self.text(at(1.55, 0.3), "Wind", 9, anchor="lm", face="bold")
        pitch = 8 * PT * 1.2 / unit
        self.text(
            at(1.55, -0.25 + pitch / 2), f"from {point_name(point)} ({point})", 8, anchor="lm"
        )
        self.text(at(1.55, -0.25 - pitch / 2), force, 8, anchor="lm")


# --- helpers ----------------------------------------------------------------------------------


def _box(box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    """A box in whole pixels, as ``ImageDraw.rectangle`` covers it (both edges included)."""
    x0, y0, x1, y1 = box
    return (round(x0), round(y0), round(x1) + 1, round(y1) + 1)


def _dash(linestyle: Any, linewidth: float) -> tuple[float, float] | None:
    """A dash pattern (on, off) in pixels, or None for a solid line."""
    if isinstance(linestyle, tuple):
        pattern: tuple[float, float] | None = linestyle
        scale = linewidth * PT
    else:
        pattern = LINESTYLES.get(str(linestyle))
        scale = max(linewidth, 1.0) * PT
    if pattern is None:
        return None
    return (max(1.0, pattern[0] * scale), max(1.0, pattern[1] * scale))


def _dashes(points: list[PxPoint], dash: tuple[float, float]) -> list[tuple[PxPoint, PxPoint]]:
    """The dashes along a polyline, the pattern running on round the corners."""
    on, off = dash
    out = []
    phase, drawing = 0.0, True  # how far into the current dash or gap
    for (x1, y1), (x2, y2) in itertools.pairwise(points):
        length = math.hypot(x2 - x1, y2 - y1)
        if length == 0:
            continue
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        pos = 0.0
        while True:
            part = on if drawing else off
            end = pos + part - phase
            if end >= length - 1e-9:  # this dash or gap runs on past the corner
                if drawing:
                    out.append(((x1 + ux * pos, y1 + uy * pos), (x2, y2)))
                phase += length - pos
                if phase >= part - 1e-9:
                    phase, drawing = 0.0, not drawing
                break
            if drawing:
                out.append(((x1 + ux * pos, y1 + uy * pos), (x1 + ux * end, y1 + uy * end)))
            pos, phase, drawing = end, 0.0, not drawing
    return out


def _hatch_lines(pen: Any, size: tuple[int, int], pattern: str, ink: int) -> bool:
    """Draw matplotlib's hatch ``pattern`` over a box of ``size``; False if it has no marks.

    matplotlib draws ``6 x repeats`` lines (or rows of dots) per inch for each character:
    ``/`` and ``\\`` diagonals, ``x`` both, ``-`` across, ``|`` up, ``+`` both, ``.`` dots."""
    w, h = size
    drew = False
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
        step = max(2.0, DPI / (HATCH_DENSITY * repeats))
        for kind in kinds:
            drew = True
            if kind in "/\\":
                # Diagonals: n lines a unit square's diagonal apart, 2/n apart across.
                n = 0
                while n * step * 2 < w + h:
                    c = n * step * 2
                    if kind == "/":
                        pen.line([(c - h, h), (c, 0)], fill=ink)
                    else:
                        pen.line([(c - h, 0), (c, h)], fill=ink)
                    n += 1
            elif kind == "-":
                y = step / 2
                while y < h:
                    pen.line([(0, y), (w, y)], fill=ink)
                    y += step
            elif kind == "|":
                x = step / 2
                while x < w:
                    pen.line([(x, 0), (x, h)], fill=ink)
                    x += step
            else:
                # Dots three pixels across, every other row shifted half a step.
                dots: list[tuple[float, float]] = []
                row, y = 0, step / 2
                while y < h:
                    x = step / 2 + (step / 2 if row % 2 else 0.0)
                    while x < w:
                        dots += [(x + i, y + j) for i in (-1, 0, 1) for j in (-1, 0, 1)]
                        x += step
                    row, y = row + 1, y + step
                pen.point(dots, fill=ink)
    return drew


def _arrow(
    tail: tuple[float, float],
    direction: tuple[float, float],
    length: float,
    width: float,
    head_width: float,
    head_length: float,
) -> list[tuple[float, float]]:
    """matplotlib's FancyArrow outline (head included in the length)."""
    dx, dy = direction
    nx, ny = -dy, dx
    tx, ty = tail
    base = length - head_length
    hw, w = head_width / 2, width / 2

    def p(along: float, side: float) -> tuple[float, float]:
        return (tx + dx * along + nx * side, ty + dy * along + ny * side)

    return [p(0, w), p(base, w), p(base, hw), p(length, 0), p(base, -hw), p(base, -w), p(0, -w)]


def _wrap(text: str, f: Any, width: float) -> list[str]:
    """``text`` broken between words into lines no wider than ``width`` pixels."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}" if current else word
        if current and f.getlength(trial) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    lines.append(current)
    return lines
