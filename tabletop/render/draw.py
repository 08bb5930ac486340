"""Paint a ``Scene`` with matplotlib as SVG; ``write`` hands a PNG to ``render.png``.

matplotlib draws the figure and writes it through its SVG backend (vector, text kept as
text so stand ids can be searched). It is imported only inside these functions, on the Agg
canvas, without pyplot and its global state. The PNG is painted with Pillow from the same
scene, layout, title, notes and label placement (``render.layout``), because importing
matplotlib's figure and rasteriser alone takes about as long as a referee should wait for
the picture (docs/performance.md).

The table is drawn to scale: one table inch is the same length across and up the picture,
with a 6" grid and inch rulers along all four edges. A panel to the right holds the wind
arrow and the legend; the title block above names the turn, phase, light, weather, ground
and the view.
"""

from __future__ import annotations

import math
from typing import IO, Any

from tabletop.render import style as st
from tabletop.render.layout import (
    BOTTOM,
    FORMATS,
    G_BANDS,
    G_HIDDEN,
    G_LOS,
    G_STANDS,
    G_TEMPLATES,
    G_TERRAIN,
    GAP,
    GRID_STEP,
    LEFT,
    PANEL,
    STAGES,
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

__all__ = ["FORMATS", "STAGES", "figure", "write"]
RC: Any = {  # the rcParams this drawing needs (typed loosely: matplotlib lists every key)
    "svg.fonttype": "none",  # text stays text: searchable, selectable, small
    "svg.hashsalt": "tabletop",  # the same game draws the same SVG, byte for byte
    "font.family": "DejaVu Sans",
    "hatch.linewidth": 0.5,
    "axes.linewidth": 0.8,
    "path.simplify": True,
}


def write(scene: Scene, out: IO[bytes], fmt: str, progress: Progress | None = None) -> None:
    """Draw the scene and write it to ``out`` as ``svg`` or ``png`` (painted by
    ``render.png`` with Pillow: matplotlib's import alone would cost more than the rest)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown map format {fmt!r}")
    if fmt == "png":
        from tabletop.render.png import write as write_png

        write_png(scene, out, progress)
        return
    import matplotlib

    tick = progress or (lambda _stage: None)
    with matplotlib.rc_context(RC):
        fig = figure(scene, tick)
        tick("writing")
        title = f"{scene.name}: turn {scene.turn}, {scene.phase} phase, {scene.view} view"
        fig.savefig(
            out, format="svg", metadata={"Title": title, "Date": None, "Creator": "tabletop"}
        )


def figure(scene: Scene, tick: Progress | None = None) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    tick = tick or (lambda _stage: None)
    lay = Layout.for_scene(scene)
    fig = Figure(figsize=(lay.fig_w, lay.fig_h))
    FigureCanvasAgg(fig)  # the Agg canvas, chosen explicitly (no pyplot, no GUI backend)
    ax = fig.add_axes(
        (
            LEFT / lay.fig_w,
            (lay.fig_h - TOP - lay.table_h) / lay.fig_h,
            lay.table_w / lay.fig_w,
            lay.table_h / lay.fig_h,
        )
    )
    painter = _Painter(scene, fig, ax, lay)
    painter.table()
    tick("terrain")
    painter.terrain()
    tick("minefields and templates")
    painter.minefields()
    painter.templates()
    painter.bands()
    tick("stands and labels")
    painter.stands()
    painter.sight()
    painter.title_block()
    painter.panel()
    return fig


class _Painter:
    def __init__(self, scene: Scene, fig: Any, ax: Any, lay: Layout):
        self.scene, self.fig, self.ax, self.lay = scene, fig, ax, lay
        self.legend: dict[str, tuple[int, int, Any]] = {}
        self.side_index = {name: i for i, name in enumerate(scene.sides)}

    # --- helpers --------------------------------------------------------------------------

    def _patch(self, ring: Ring, look: st.Look, gid: str, **over: Any) -> Any:
        from matplotlib.patches import Polygon

        kwargs: dict[str, Any] = {
            "closed": True,
            "facecolor": look.face,
            "edgecolor": look.edge,
            "hatch": look.hatch,
            "alpha": look.alpha,
            "linewidth": look.linewidth,
            "linestyle": look.linestyle,
            "zorder": look.zorder,
        }
        kwargs.update(over)
        patch = Polygon(ring, **kwargs)
        patch.set_gid(gid)
        self.ax.add_patch(patch)
        return patch

    def _add_key(self, label: str, group: int, handle: Any) -> None:
        if label not in self.legend:
            self.legend[label] = (group, len(self.legend), handle)

    def _key(self, label: str, look: st.Look, group: int, **over: Any) -> None:
        from matplotlib.patches import Patch

        if label in self.legend:
            return
        kwargs: dict[str, Any] = {
            "facecolor": look.face,
            "edgecolor": look.edge if look.edge != "none" else look.face,
            "hatch": look.hatch,
            "alpha": look.alpha,
            "linewidth": look.linewidth,
            "linestyle": look.linestyle,
        }
        kwargs.update(over)
        self._add_key(label, group, Patch(label=label, **kwargs))

    def _line_key(self, label: str, group: int, **kwargs: Any) -> None:
        from matplotlib.lines import Line2D

        if label not in self.legend:
            self._add_key(label, group, Line2D([], [], label=label, **kwargs))

    def _text(self, x: float, y: float, text: str, gid: str, **kwargs: Any) -> Any:
        artist = self.ax.text(x, y, text, **kwargs)
        artist.set_gid(gid)
        return artist

    def _small(self) -> float:
        return max(4.5, self.lay.label_points * 0.8)

    # --- the table --------------------------------------------------------------------------

    def table(self) -> None:
        ax, w, d = self.ax, self.scene.width, self.scene.depth
        ax.set_xlim(0, w)
        ax.set_ylim(0, d)
        ax.set_aspect("equal", adjustable="box")
        ax.set_facecolor(st.TABLE_CLOTH)
        ax.set_xticks([])
        ax.set_yticks([])
        self._grid()
        self._rulers()

    def _grid(self) -> None:
        from matplotlib.collections import LineCollection

        w, d = self.scene.width, self.scene.depth
        lines = [[(x, 0.0), (x, d)] for x in marks(w, GRID_STEP)[1:]]
        lines += [[(0.0, y), (w, y)] for y in marks(d, GRID_STEP)[1:]]
        grid = LineCollection(lines, colors=st.GRID, linewidths=0.5, zorder=1.5)
        grid.set_gid("grid")
        self.ax.add_collection(grid)

    def _rulers(self) -> None:
        """Inch rulers on all four edges: a tick every inch, a longer one and a figure every
        6". Drawn as one line collection and a few labels (matplotlib's own tick machinery
        is a hundred times slower for a 120" table's 400 ticks)."""
        from matplotlib.collections import LineCollection

        w, d = self.scene.width, self.scene.depth
        per = self.lay.points_per_inch()
        short, long_, gap = 2.5 / per, 5.0 / per, 7.0 / per
        segments = []
        for x in marks(w, 1):
            n = long_ if on_step(x) else short
            segments += [[(x, 0.0), (x, -n)], [(x, d), (x, d + n)]]
        for y in marks(d, 1):
            n = long_ if on_step(y) else short
            segments += [[(0.0, y), (-n, y)], [(w, y), (w + n, y)]]
        ticks = LineCollection(segments, colors="#444444", linewidths=0.6, clip_on=False)
        ticks.set_gid("rulers")
        self.ax.add_collection(ticks)
        style = {"fontsize": 7, "color": "#444444", "clip_on": False}
        for x in marks(w, GRID_STEP):
            self.ax.text(x, -gap, f'{x:g}"', ha="center", va="top", **style)
            self.ax.text(x, d + gap, f'{x:g}"', ha="center", va="bottom", **style)
        for y in marks(d, GRID_STEP):
            self.ax.text(-gap, y, f'{y:g}"', ha="right", va="center", **style)
            self.ax.text(w + gap, y, f'{y:g}"', ha="left", va="center", **style)
        self.ax.text(
            w / 2,
            -gap * 2.6,
            "inches east of the south-west corner",
            ha="center",
            va="top",
            fontsize=7,
            color="#555555",
            clip_on=False,
        )

    def title_block(self) -> None:
        lay, fig = self.lay, self.fig
        x = LEFT / lay.fig_w
        head, line2, line3 = title_lines(self.scene)
        fig.text(x, 1 - 0.32 / lay.fig_h, head, fontsize=14, weight="bold", va="baseline")
        fig.text(x, 1 - 0.58 / lay.fig_h, line2, fontsize=9.5, va="baseline")
        fig.text(x, 1 - 0.8 / lay.fig_h, line3, fontsize=8.5, va="baseline", color="#444444")

    # --- terrain ----------------------------------------------------------------------------

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
        self._patch(
            ring, look, f"terrain-{piece.id}", zorder=1.6 + piece.height * 0.01, linewidth=0.9
        )
        self._key(look.label, look, G_TERRAIN, linewidth=0.9)
        self._terrain_extras(piece, ring)
        x, y = label_point(ring, avoid=above)
        self._text(
            x,
            y,
            f"{piece.id} (level {piece.height:g})",
            f"terrain-label-{piece.id}",
            fontsize=self._small(),
            color="#6b4f26",
            ha="center",
            va="center",
            style="italic",
            zorder=4.5,
        )

    def _piece(self, piece: Any) -> None:
        look = st.terrain_look(piece.kind)
        label = look.label if look is not st.UNKNOWN_TERRAIN else piece.kind
        rings = [piece.polygon] if piece.polygon else buffered(piece.line, piece.width)
        # matplotlib names the outline's colour ``edgecolor``.
        over = {
            ("edgecolor" if k == "edge" else k): v
            for k, v in st.state_style(piece.state, look).items()
        }
        if piece.state == "burning":
            self._key("burning", look, G_HIDDEN, edgecolor=st.BURNING_EDGE, linewidth=2.0)
        for n, ring in enumerate(rings):
            gid = f"terrain-{piece.id}" + (f"-{n}" if n else "")
            self._patch(ring, look, gid, **over)
        self._key(label, look, G_TERRAIN)
        self._terrain_extras(piece, rings[0])
        if piece.polygon and area(piece.polygon) >= 2.0:
            x, y = label_point(piece.polygon)
            state = "" if piece.state == "intact" else f" ({piece.state})"
            self._text(
                x,
                y,
                piece.id + state,
                f"terrain-label-{piece.id}",
                fontsize=self._small(),
                color=look.edge if look.edge != "none" else "#444444",
                ha="center",
                va="center",
                style="italic",
                zorder=4.5,
            )

    def _terrain_extras(self, piece: Any, ring: Ring) -> None:
        """Referee-only pieces and wired bridges: marked, and only in a view that may know."""
        if piece.referee_only:
            look = st.Look("referee only (hidden from sides)", "none", "#c51b7d", linewidth=1.4)
            self._patch(
                ring, look, f"hidden-{piece.id}", fill=False, linestyle=(0, (4, 2)), zorder=4.6
            )
            self._key(look.label, look, G_HIDDEN, fill=False, linestyle="--")
        if piece.wired:
            look = st.Look("wired for demolition", "none", "#e31a1c", linewidth=1.6)
            self._patch(
                ring, look, f"wired-{piece.id}", fill=False, linestyle=(0, (2, 1.5)), zorder=4.7
            )
            self._key(look.label, look, G_HIDDEN, fill=False, linestyle=":")
            x, y = label_point(ring)
            self._text(
                x,
                y - 0.9,
                "wired",
                f"wired-label-{piece.id}",
                fontsize=self._small(),
                color="#e31a1c",
                ha="center",
                va="center",
                weight="bold",
                zorder=4.7,
            )

    # --- minefields and templates ---------------------------------------------------------

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
            self._patch(mine.polygon, look, f"minefield-{mine.id}", linewidth=0.9)
            self._key(label, look, G_HIDDEN, linewidth=0.9)
            x, y = centroid(mine.polygon)
            self._text(
                x,
                y,
                mark,
                f"minefield-label-{mine.id}",
                fontsize=self._small(),
                ha="center",
                va="center",
                weight="bold",
                zorder=5.1,
                color="white" if mine.real else "#3b220b",
            )

    def templates(self) -> None:
        for t in self.scene.templates:
            look = st.template_look(t.kind)
            label = look.label if look is not st.UNKNOWN_TEMPLATE else t.kind
            # Above the stands (and translucent): the referee sees at a glance who is under it.
            self._patch(
                t.polygon, look, f"template-{t.id}", zorder=st.Z_TEMPLATES + look.zorder - 6
            )
            self._key(label, look, G_TEMPLATES)
            x, y = centroid(t.polygon)
            self._text(
                x,
                y,
                t.id,
                f"template-label-{t.id}",
                fontsize=self._small() * 0.9,
                ha="center",
                va="center",
                color="#333333",
                zorder=st.Z_TEMPLATES + 0.5,
                alpha=0.9,
            )

    def bands(self) -> None:
        b = self.scene.bands
        if b is None:
            return
        from matplotlib.patches import Polygon

        weapons = list(dict.fromkeys(r.weapon for r in b.rings))
        for ring in b.rings:
            colour = st.BAND_COLOURS[weapons.index(ring.weapon) % len(st.BAND_COLOURS)]
            patch = Polygon(
                ring.polygon,
                closed=True,
                fill=False,
                edgecolor=colour,
                linewidth=1.3,
                linestyle=st.BAND_STYLES.get(ring.band, "-"),
                zorder=st.Z_RINGS,
            )
            patch.set_gid(f"band-{ring.weapon}-{ring.band}")
            self.ax.add_patch(patch)
            self._band_label(ring, colour)
            self._line_key(
                f"{ring.weapon} range bands ({b.stand})", G_BANDS, color=colour, linewidth=1.3
            )
        for band, dash in st.BAND_STYLES.items():
            if any(r.band == band for r in b.rings):
                self._line_key(f"{band} range limit", G_BANDS, color="#555555", linestyle=dash)

    def _band_label(self, ring: Any, colour: str) -> None:
        """Label a ring where it crosses the table: at its top, else bottom, right or left."""
        w, d = self.scene.width, self.scene.depth
        xs = [p[0] for p in ring.polygon]
        ys = [p[1] for p in ring.polygon]
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        spots = (
            (cx, max(ys), "center", "bottom", 0.0),
            (cx, min(ys), "center", "top", 0.0),
            (max(xs), cy, "right", "center", 90.0),
            (min(xs), cy, "left", "center", 90.0),
        )
        for x, y, ha, va, turn in spots:
            if 0.5 < x < w - 0.5 and 0.5 < y < d - 0.5:
                self._text(
                    x,
                    y,
                    f'{ring.weapon} {ring.band} {ring.distance:g}"',
                    f"band-label-{ring.weapon}-{ring.band}",
                    fontsize=self._small(),
                    color=colour,
                    ha=ha if not turn else "center",
                    va=va,
                    rotation=turn,
                    zorder=st.Z_RINGS,
                    bbox={"boxstyle": "square,pad=0.05", "fc": "white", "ec": "none", "alpha": 0.7},
                )
                return

    # --- stands -----------------------------------------------------------------------------

    def stands(self) -> None:
        for index, side in enumerate(self.scene.sides):
            face, edge = st.side_colours(index)
            self._key(side, st.Look(side, face, edge, linewidth=0.7), G_STANDS)
        self._bases()
        self._labels()
        for marker in self.scene.last_seen:
            self._last_seen(marker)

    def _last_seen(self, m: Any) -> None:
        """An enemy the side has lost sight of: a dashed ring where it was last seen."""
        from matplotlib.patches import Circle

        index = self.side_index.get(m.side, len(self.side_index))
        colour = st.side_colours(index)[1]
        ring = Circle(
            (m.x, m.y),
            0.6,
            fill=False,
            linestyle="--",
            linewidth=0.8,
            edgecolor=colour,
            zorder=st.Z_STANDS,
        )
        ring.set_gid(f"last-seen-{m.id}")
        self.ax.add_patch(ring)
        self._line_key("enemy last seen (turn)", G_STANDS, color=colour, linestyle="--")
        self._text(
            m.x,
            m.y - 0.9,
            f"{m.id} ({m.gone})" if m.gone else f"{m.id}? t{m.turn}",
            f"last-seen-label-{m.id}",
            fontsize=self._small(),
            color=colour,
            ha="center",
            va="top",
            zorder=st.Z_LABELS,
        )

    def _bases(self) -> None:
        """Every stand's base and front edge, drawn as three collections (bases, eliminated
        bases, front edges) rather than two artists a stand: a large table has over a
        hundred stands, and one artist each cost more than the rest of the figure."""
        from matplotlib.collections import LineCollection, PolyCollection

        live: list[StandShape] = []
        dead: list[StandShape] = []
        for s in self.scene.stands:
            (dead if s.status == "eliminated" else live).append(s)
            index = self.side_index.get(s.side, len(self.side_index))
            face, edge = st.side_colours(index)
            self._key(s.side, st.Look(s.side, face, edge, linewidth=0.7), G_STANDS)
        if live:
            colours = [self._side_colours(s) for s in live]
            bases = PolyCollection(
                [s.corners for s in live],
                closed=True,
                facecolors=[face for face, _edge in colours],
                edgecolors=[edge for _face, edge in colours],
                linewidths=0.7,
                zorder=st.Z_STANDS,
            )
            bases.set_gid("stands")
            self.ax.add_collection(bases, autolim=False)
        if dead:
            # One collection a side: a collection's hatch takes a single colour.
            by_colour: dict[str, list[StandShape]] = {}
            for s in dead:
                by_colour.setdefault(self._side_colours(s)[0], []).append(s)
            for n, (colour, group) in enumerate(by_colour.items()):
                gone = PolyCollection(
                    [s.corners for s in group],
                    closed=True,
                    facecolors="white",
                    edgecolors=colour,
                    hatch="xxxx",
                    alpha=0.9,
                    linewidths=0.7,
                    zorder=st.Z_STANDS,
                )
                gone.set_gid("stands-eliminated" + (f"-{n}" if n else ""))
                self.ax.add_collection(gone, autolim=False)
            look = st.Look("eliminated", "white", "#555555", linewidth=0.7)
            self._key("eliminated", look, G_STANDS, hatch="xxxx")
        if self.scene.stands:
            # The front edge (corners 2 and 3, see base_polygon) drawn thick and light: facing.
            fronts = LineCollection(
                [[s.corners[2], s.corners[3]] for s in self.scene.stands],
                colors="#ffe14d",
                linewidths=1.6,
                capstyle="butt",
                zorder=st.Z_STANDS + 0.1,
            )
            fronts.set_gid("facing")
            self.ax.add_collection(fronts, autolim=False)
            self._line_key("stand's front edge (facing)", G_STANDS, color="#ffe14d", linewidth=2.5)

    def _side_colours(self, s: StandShape) -> tuple[str, str]:
        return st.side_colours(self.side_index.get(s.side, len(self.side_index)))

    def _labels(self) -> None:
        pts = self.lay.label_points
        leaders: list[list[tuple[float, float]]] = []
        leader_colours: list[str] = []
        for s, placed, text in stand_labels(self.scene, self.lay):
            index = self.side_index.get(s.side, len(self.side_index))
            colour = st.side_colours(index)[1]
            if placed.leader:
                leaders.append([(s.x, s.y), (placed.x, placed.y)])
                leader_colours.append(colour)
            self._text(
                placed.x,
                placed.y,
                text,
                f"label-{s.id}",
                fontsize=pts,
                color=colour,
                ha="center",
                va="center",
                weight="bold",
                zorder=st.Z_LABELS,
                # A pale box rather than a stroked halo: path effects would turn the SVG's
                # text into outlines, and a referee searching the SVG for a stand's id
                # would not find it.
                bbox={"boxstyle": "round,pad=0.08", "fc": "white", "ec": "none", "alpha": 0.72},
            )
        if leaders:
            from matplotlib.collections import LineCollection

            lines = LineCollection(
                leaders,
                colors=leader_colours,
                linewidths=0.4,
                alpha=0.7,
                zorder=st.Z_LABELS - 0.1,
            )
            lines.set_gid("leaders")
            self.ax.add_collection(lines, autolim=False)

    # --- line of sight ----------------------------------------------------------------------

    def sight(self) -> None:
        line = self.scene.sight
        if line is None:
            return
        (ax_, ay), (bx, by) = line.start, line.end
        blockers = [c for c in line.crossings if c.blocks]
        cut = blockers[0].entry if blockers else line.end
        plotted = self.ax.plot(
            [ax_, cut[0]],
            [ay, cut[1]],
            color=st.LOS_CLEAR,
            linewidth=2.0,
            zorder=st.Z_LOS,
            solid_capstyle="round",
        )[0]
        plotted.set_gid("los-clear")
        self._line_key("line of sight, clear", G_LOS, color=st.LOS_CLEAR, linewidth=2.0)
        if blockers:
            rest = self.ax.plot(
                [cut[0], bx],
                [cut[1], by],
                color=st.LOS_BLOCKED,
                linewidth=2.0,
                linestyle=(0, (4, 2)),
                zorder=st.Z_LOS,
            )[0]
            rest.set_gid("los-blocked")
            self._line_key(
                "line of sight, blocked", G_LOS, color=st.LOS_BLOCKED, linewidth=2.0, linestyle="--"
            )
        for n, c in enumerate(line.crossings):
            if c.blocks:
                mark = self.ax.plot(
                    *c.entry,
                    marker="X",
                    markersize=9,
                    color=st.LOS_BLOCKED,
                    markeredgecolor="white",
                    markeredgewidth=0.8,
                    zorder=st.Z_LOS + 0.2,
                    linestyle="none",
                )[0]
                self._line_key(
                    "where the sight line is blocked",
                    G_LOS,
                    marker="X",
                    markersize=8,
                    color=st.LOS_BLOCKED,
                    linestyle="none",
                )
                # Beside the mark, on the line's left as seen from A: off the line itself.
                nx, ny, ha = left_of(line.start, line.end)
                self._text(
                    c.entry[0] + nx * 0.7,
                    c.entry[1] + ny * 0.7,
                    f"blocked: {c.piece}",
                    f"los-note-{n}",
                    fontsize=self._small(),
                    color=st.LOS_BLOCKED,
                    ha=ha,
                    va="center",
                    weight="bold",
                    zorder=st.Z_LABELS,
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8},
                )
            else:
                xs, ys = [c.entry[0], c.exit[0]], [c.entry[1], c.exit[1]]
                mark = self.ax.plot(
                    xs,
                    ys,
                    marker="o",
                    markersize=3.5,
                    color=st.LOS_CLEAR,
                    markerfacecolor="white",
                    linestyle="none",
                    zorder=st.Z_LOS + 0.1,
                )[0]
                self._line_key(
                    "sight line crosses terrain (clear)",
                    G_LOS,
                    marker="o",
                    markersize=4,
                    color=st.LOS_CLEAR,
                    markerfacecolor="white",
                    linestyle="none",
                )
            mark.set_gid(f"los-crossing-{n}")
        # The range label sits a quarter of the way from A, clear of the blocking mark; along
        # the line when it runs across the table, level beside it when it runs up and down
        # (sideways text is hard to read at the table).
        angle = text_angle(ax_, ay, bx, by)
        steep = abs(angle) > 55
        nx, ny, ha = left_of(line.start, line.end) if steep else (0.0, 0.0, "center")
        self._text(
            ax_ + (bx - ax_) * 0.25 + nx * 0.5,
            ay + (by - ay) * 0.25 + ny * 0.5,
            f'{line.a} to {line.b}: {line.range:.1f}"',
            "los-range",
            fontsize=self._small(),
            color="#222222",
            ha=ha,
            va="center",
            rotation=0.0 if steep else angle,
            rotation_mode="anchor",
            zorder=st.Z_LABELS,
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8},
        )

    # --- the side panel ---------------------------------------------------------------------

    def panel(self) -> None:
        lay, fig = self.lay, self.fig
        x0 = (LEFT + lay.table_w + GAP) / lay.fig_w
        width = PANEL / lay.fig_w
        top = lay.fig_h - TOP
        # The wind: an arrow flying downwind, inside a compass ring (SPEC 2: wind is given
        # as the direction it blows from, 1 = N ... 8 = NW).
        size = 1.35
        wind_ax = fig.add_axes((x0, (top - size) / lay.fig_h, width, size / lay.fig_h))
        self._wind(wind_ax)
        legend_ax = fig.add_axes(
            (x0, BOTTOM / lay.fig_h, width, (top - size - 0.15 - BOTTOM) / lay.fig_h)
        )
        legend_ax.set_axis_off()
        handles = [h for _g, _n, h in sorted(self.legend.values(), key=lambda k: k[:2])]
        legend_ax.legend(
            handles=handles,
            loc="upper left",
            fontsize=7.5,
            frameon=False,
            title="Legend",
            title_fontsize=9,
            alignment="left",
            handlelength=2.2,
            borderaxespad=0,
        )
        notes = panel_notes(self.scene)
        legend_ax.text(
            0,
            0,
            "\n".join(notes),
            fontsize=7,
            va="bottom",
            ha="left",
            color="#333333",
            transform=legend_ax.transAxes,
            wrap=True,
        )

    def _wind(self, ax: Any) -> None:
        from matplotlib.patches import Circle, FancyArrow

        c = self.scene.conditions
        ax.set_xlim(-1.3, 3.4)
        ax.set_ylim(-1.3, 1.3)
        ax.set_aspect("equal", anchor="W")
        ax.set_axis_off()
        ax.add_patch(Circle((0, 0), 0.95, fill=False, edgecolor="#999999", linewidth=0.8))
        for n, name in enumerate(("N", "E", "S", "W")):
            angle = math.radians(n * 90)
            ax.text(
                1.15 * math.sin(angle),
                1.15 * math.cos(angle),
                name,
                fontsize=7,
                ha="center",
                va="center",
                color="#555555",
            )
        point = c.get("wind_from")
        force = str(c.get("wind_force"))
        if isinstance(point, int) and 1 <= point <= 8:
            towards = math.radians(point_bearing(point) + 180)  # it blows from there, to here
            dx, dy = math.sin(towards), math.cos(towards)
            width = {"light": 0.06, "moderate": 0.1, "high": 0.15}.get(force, 0.08)
            arrow = FancyArrow(
                -0.7 * dx,
                -0.7 * dy,
                1.4 * dx,
                1.4 * dy,
                width=width,
                head_width=width * 3.2,
                head_length=0.35,
                length_includes_head=True,
                color="#1f5f8b",
            )
            arrow.set_gid("wind-arrow")
            ax.add_patch(arrow)
        ax.text(1.55, 0.3, "Wind", fontsize=9, weight="bold", va="center")
        ax.text(
            1.55, -0.25, f"from {point_name(point)} ({point})\n{force}", fontsize=8, va="center"
        )
