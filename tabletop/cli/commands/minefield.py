"""tabletop minefield place|list|cross|clear: hidden minefields (CD 3)."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    BEARING,
    POINT,
    STAND,
    SignedCommand,
    command,
    dice_inputs,
    dice_option,
    emit_json,
    executed,
    game_option,
    json_option,
    odds_option,
    open_game,
    view_option,
    xy_arguments,
)  # fmt: skip


@click.group("minefield")
def cli() -> None:
    """Real and dummy minefields, hidden from the other side (CD 3).

    \b
    Example:
      tabletop minefield place 20 14 --side Germany --pregame
      tabletop minefield cross US-1 --path 20,16 --path 20,12
      tabletop minefield list --view USA
    """


@cli.command("place", cls=SignedCommand)
@xy_arguments
@click.option("--side", required=True, help="The side laying it.")
@click.option("--dummy", is_flag=True, help="A dummy field (a bluff).")
@click.option("--by", "by", type=STAND, default=None, help="The engineer laying it in battle.")
@click.option("--pregame", is_flag=True, help="Placed before the game by the scenario's leave.")
@game_option
@json_option
@command
def place(
    x: float,
    y: float,
    side: str,
    dummy: bool,
    by: str | None,
    pregame: bool,
    game: str,
    as_json: bool,
) -> None:
    """Place a 1" minefield template centred at X Y (CD 3.1).

    In battle an engineer that is stationary, unpinned, unsuppressed and has not fired
    lays it next to itself at the end of the movement phase: one template an engineer a
    movement phase. Templates may touch but not overlap. The output names only the id:
    whether it is real stays with the referee.

    \b
    Example:
      tabletop minefield place 20 14 --side Germany --by G-E1
    """
    out = open_game(game).execute(
        "minefield-place",
        {"at": [x, y], "side": side, "dummy": dummy, "by": by, "pregame": pregame},
    )
    if as_json:
        emit_json({"event": out.seq, "id": out.result["id"]})
        return
    click.echo(f"{out.result['verdict']} (event {out.seq})")


@cli.command("list")
@view_option
@game_option
@json_option
@command
def list_fields(view: str | None, game: str, as_json: bool) -> None:
    """Minefields as a view may know them.

    Every template lies on the table for both sides to see; whether one is real
    or a dummy only its own side and the referee know, until it is revealed
    (CD 3). "real" is null in JSON where the view may not know.

    \b
    Example:
      tabletop minefield list --view Germany
    """
    from tabletop.cli.core import chosen_view
    from tabletop.rules.views import minefields_for_view

    g = open_game(game)
    state = g.state()
    view = chosen_view(view, state, g.loaded.scenario.side_names())
    shown = minefields_for_view(state, view)
    if as_json:
        emit_json({"view": view, "minefields": shown})
        return
    if not shown:
        click.echo("no minefields on the table")
    for f in shown:
        what = {True: " real", False: " dummy", None: " (not known if real)"}[f["real"]]
        seen = " (revealed)" if f["revealed"] else ""
        click.echo(f"{f['id']}: {f['side']}{what} at {f['x']:g},{f['y']:g}{seen}")


@cli.command("cross")
@odds_option
@click.argument("stand", type=STAND)
@click.option(
    "--path",
    "path",
    type=POINT,
    multiple=True,
    required=True,
    help="The next point of the move, X,Y (repeat in order).",
)
@click.option("--stop-at-edge", is_flag=True, help="Stop at the edge of the first field met.")
@game_option
@json_option
@command
def cross(stand: str, path: tuple[Any, ...], stop_at_edge: bool, game: str, as_json: bool) -> None:
    """Move STAND along a path through any minefields (CD 3.2).

    The stand's base, carried along the path, meets a template when it touches it. Every
    template met is revealed at the end of the move; dummies go. A real one whose far
    side the base came clear of stops the stand there (attacked twice); one it stopped
    at the edge of, or on without getting across, attacks once; both in the opportunity
    fire phase. A dismounted engineer stopping at the edge is not attacked, and finds the
    fields beside it.

    \b
    Example:
      tabletop minefield cross US-1 --path 20,16 --path 20,12
    """
    out = open_game(game).execute(
        "minefield-cross",
        {
            "stand": stand,
            "path": [list(p) for p in path],
            "stop_at_edge": stop_at_edge,
            "tidy_stop": True,  # a stop short of the path's end to 0.01" (tidy_stop)
        },
    )
    r = out.result
    if as_json:
        emit_json(
            {
                "event": out.seq,
                "attacks": r["attacks"],
                "revealed": r["revealed"],
                "stopped_at": r["stopped_at"],
            }
        )
        return
    click.echo(f"{r['verdict']} (event {out.seq})")
    for f in r["revealed"]:
        click.echo(f"  revealed {f['id']}: {'real' if f['real'] else 'dummy, removed'}")


@cli.command("clear")
@odds_option
@click.argument("field", required=False)
@click.option("--by", "by", type=STAND, required=True, help="The clearing stand.")
@click.option(
    "--method",
    type=click.Choice(["hand", "tank", "line-charge"]),
    default="hand",
    help="Hand lifting, a mine-clearing tank, or a line charge.",
)
@click.option(
    "--heading",
    type=BEARING,
    default=None,
    help='Mine-clearing tank: direction of its 2" advance (default: its facing).',
)
@dice_option
@game_option
@json_option
@command
def clear(
    field: str | None,
    by: str,
    method: str,
    heading: float | None,
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """Clear FIELD, a detected minefield (CD 3.3).

    By hand lifting, a mine-clearing tank, or a line charge. Hand lifting takes a whole
    turn beside the field: an engineer that moved up this turn lifts it next turn.

    \b
    Example:
      tabletop minefield clear mf-1 --by US-E1
      tabletop minefield clear --by US-FLAIL --method tank
    """
    out = open_game(game).execute(
        "minefield-clear",
        {"field": field, "by": by, "method": method, "heading": heading},
        **dice_inputs(dice),
    )
    if executed(out, as_json) is None:
        return
    click.echo(f"{out.result['verdict']} (event {out.seq})")
