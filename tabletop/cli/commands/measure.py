"""tabletop measure A B: range, bearing, line of sight, visibility and spotting."""

from __future__ import annotations

import dataclasses
from typing import Any

import click

from tabletop.cli.core import (
    POINT,
    command,
    emit_json,
    game_option,
    headline,
    json_option,
    view_option,
)  # fmt: skip


@click.command("measure")
@click.argument("a", required=False)
@click.argument("b", required=False)
@click.option("--at", "at", type=POINT, default=None, help="Measure from A to the point X,Y.")
@click.option(
    "--all",
    "all_pairs",
    is_flag=True,
    help="Line of sight between every pair of stands on the table.",
)
@view_option
@game_option
@json_option
@command
def cli(
    a: str | None,
    b: str | None,
    at: tuple[float, float] | None,
    all_pairs: bool,
    view: str | None,
    game: str,
    as_json: bool,
) -> None:
    """Range and sight from A to B. A and B are stand ids or points X,Y.

    Shows the range (base to base unless the scenario measures centres), bearing, the
    range band for each of A's weapons, what the sight line crosses and what blocks it,
    and whether B is visible and spotted now. In a side's view (--view SIDE) the
    ends are its own stands, enemy stands it spots now, or points; terrain only
    the referee knows is left out.

    \b
    Example:
      tabletop measure G-1 US-1
      tabletop measure G-4 --at 30,18
      tabletop measure 10,10 40,30
      tabletop measure --all --json
    """
    from tabletop.core.errors import BadInput
    from tabletop.game.reading import read_context
    from tabletop.rules.cd.sighting import sight

    if all_pairs:
        if a is not None or b is not None or at is not None:
            raise BadInput("--all measures every pair: give no A, B or --at with it")
        _all_pairs(game, view, as_json)
        return
    if a is None:
        raise BadInput("give A (a stand or X,Y), or --all")
    if b is not None and at is not None:
        raise BadInput(f"give B ({b!r}) or --at X,Y, not both")
    if b is None and at is None:
        raise BadInput(f"measure from {a!r} to what? give B (a stand or X,Y) or --at X,Y")
    ctx, known = _viewed(read_context(game), view)
    first = _end(ctx, a, known, "a")
    second = _end(ctx, b, known, "b") if b is not None else _point(ctx, at)
    result = sight(ctx, first, second)
    if as_json:
        emit_json(result.as_json())
        return
    click.echo(render(result))


def _viewed(ctx: Any, view: str | None) -> tuple[Any, Any]:
    """The context a view measures in (its own terrain), and what it knows (None for the
    referee, who knows everything: the views are not even imported then)."""
    from tabletop.cli.core import chosen_view
    from tabletop.core.sides import REFEREE

    chosen = chosen_view(view, ctx.state, ctx.scenario.side_names())
    if chosen == REFEREE:
        return ctx, None
    from tabletop.rules.views import knowledge, view_context

    # Only stands known now matter here: last-seen markers are not measured from.
    known = knowledge(ctx, chosen)
    return view_context(ctx, chosen), known


def _end(ctx: Any, text: str, known: Any, name: str) -> Any:
    from tabletop.rules.cd.sighting import end_for_stand

    if "," in text:
        # A bad point names its argument, as click does for --at: "Invalid value for 'B'".
        try:
            xy = POINT.convert(text, None, None)
        except click.BadParameter as exc:
            hint = f"'{name.upper()}'"
            raise click.BadParameter(exc.message, click.get_current_context(), None, hint) from None
        return _point(ctx, xy)
    if known is not None:
        from tabletop.rules.views import stand_in_view

        stand_in_view(ctx.state, known, text)  # a stand the view may not see is unknown
    return end_for_stand(ctx.state, text)


def _point(ctx: Any, xy: Any) -> Any:
    from tabletop.rules.cd.sighting import end_for_point

    return end_for_point(xy[0], xy[1], ctx.scenario)


def render(s: Any) -> str:
    sight_word = "clear" if s.los else "BLOCKED by " + ", ".join(s.blocked_by)
    lines = [
        headline(f'{s.a} -> {s.b}: {s.range:.1f}" at bearing {s.bearing:.0f}, sight {sight_word}')
    ]
    if s.bands:
        lines.append(
            "range band: "
            + ", ".join(f"{w} {band or 'out of range'}" for w, band in s.bands.items())
        )
    lines.append(f"levels: {s.level_a:g} -> {s.level_b:g}")
    for c in s.crossings:
        mark = "blocks" if c["blocks"] else "clear"
        lines.append(f"  {c['piece']} ({c['kind']}) {mark}: {c['reason']}")
    # SPEC 7: "visible" is what light and weather allow; the sight line is reported above.
    lit = f"; lit by {s.lit}, so the night's limits are lifted (CD 9.2)" if s.lit else ""
    if s.visibility is None:
        lines.append(
            "within visibility: yes ("
            + (
                f"lit by {s.lit}: no limit from the weather"
                if s.lit
                else "no limit from light or weather"
            )
            + ")"
        )
    else:
        lines.append(
            f'within visibility: {"yes" if s.visible else "no"} (visibility {s.visibility:g}"{lit})'
        )
    if s.spotted is not None:
        lines.append(
            f"spotted: {'yes' if s.spotted else 'no'}: " + "; ".join(s.spotting["because"])
        )
    return "\n".join(lines)


def _all_pairs(game: str, view: str | None, as_json: bool) -> None:
    from tabletop.game.reading import read_context
    from tabletop.rules.cd.sighting import all_pairs

    ctx, known = _viewed(read_context(game), view)
    if known is not None:
        from tabletop.rules.views import state_for_view

        # Only the stands this view may see, over the terrain it knows.
        ctx = dataclasses.replace(ctx, state=state_for_view(ctx.state, known), subjects=set())
    data = all_pairs(ctx)
    if as_json:
        emit_json(data)
        return
    click.echo(
        headline(
            f"{len(data['stands'])} stands, {data['pairs']} pairs: "
            f"{data['clear']} with clear line of sight"
        )
    )
    for stand, seen in data["sees"].items():
        if seen:
            click.echo(f"  {stand} sees enemies: {', '.join(seen)}")
