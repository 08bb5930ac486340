"""tabletop show STAND: one stand in full, with its history."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from tabletop.cli.core import (
    STAND,
    command,
    emit_json,
    game_option,
    headline,
    json_option,
    view_option,
)  # fmt: skip
from tabletop.core.sides import REFEREE
from tabletop.core.words import count, point_text


@click.command("show")
@click.argument("stand", type=STAND)
@view_option
@game_option
@json_option
@command
def cli(stand: str, view: str | None, game: str, as_json: bool) -> None:
    """STAND's position, status, ammunition and history.

    In a side's view: its own stands in full; an enemy stand only while spotted,
    and then only what can be seen of it (no ammunition, quality or formation);
    an enemy it has lost sight of, where it was last seen.

    \b
    Example:
      tabletop show G-4
      tabletop show G-1 --view USA
    """
    from tabletop.cli.core import chosen_view
    from tabletop.game.rows import read_events, read_rows
    from tabletop.rules.cd.ammo_state import weapon_status
    from tabletop.state.document import State

    # The rows alone: the referee reads the stand and its events as stored, so the command
    # stays quick (no scenario, charts or table geometry).
    state = State.from_db(read_rows(game)[0])
    chosen = chosen_view(view, state)
    known = None
    if chosen == REFEREE:
        row: Mapping[str, Any] = state.stand(stand)
        # The stand's own id: 'us-3' names US-3, and the log keeps subjects as written.
        events: list[Any] = read_events(game, stand=str(row["id"]))
    else:
        from tabletop.cli.core import open_game
        from tabletop.rules.views import events_for_view, stand_in_view

        # A side's view needs the table and the charts: what it spots is worked out.
        g = open_game(game)
        known = g.knowledge(chosen, state=state)
        if stand in known.last_seen:
            seen = known.last_seen[stand].as_json()
            if as_json:
                emit_json({"id": stand, "last_seen": seen})
                return
            click.echo(
                headline(f"{stand}: {seen['kind']} of {seen['side']}, not in sight")
                + f"\nlast seen at {point_text(seen['x'], seen['y'])} in turn {seen['turn']}, "
                f"{seen['phase']} phase"
            )
            return
        row = stand_in_view(state, known, stand)
        events = events_for_view(g.events(stand=stand), known)
    history = [
        {
            "seq": ev.seq,
            "turn": ev.turn,
            "phase": ev.phase,
            "command": ev.command,
            "result": ev.result,
        }
        for ev in events
    ]
    if known is not None and not known.is_own(stand):
        # What the side can see of an enemy stand it spots, and its history as seen.
        seen = {k: row[k] for k in row}
        seen["spotted_by"] = known.spotted[stand].by
        data_seen: dict[str, Any] = {**seen, "history": history}
        if as_json:
            emit_json(data_seen)
            return
        click.echo(headline(f"{row['id']}: {row['kind']} of {row['side']}, spotted"))
        click.echo(
            f"at {point_text(row['x'], row['y'])} facing {row['facing']:g}; "
            f"spotted by {seen['spotted_by']}"
        )
        from tabletop.state.document import status_text

        click.echo(f"status: {status_text(row['status'], row['markers'])}")
        _history(history, row["id"])
        return
    data: dict[str, Any] = {
        **{
            k: row[k]
            for k in (
                "id",
                "side",
                "kind",
                "quality",
                "formation",
                "x",
                "y",
                "facing",
                "width",
                "depth",
                "status",
                "markers",
            )
        },
        "ammo": {w: {**a, "status": weapon_status(a)} for w, a in row["ammo"].items()},
        "history": history,
    }
    from tabletop.rules.models.display import stand_model_lines, stand_models

    if row.get("models"):
        data["models"] = stand_models(row)
    if as_json:
        emit_json(data)
        return
    where = (
        "not placed"
        if row["x"] is None
        else f"at {point_text(row['x'], row['y'])} facing {row['facing']:g}"
    )
    click.echo(headline(f"{row['id']}: {row['quality']} {row['kind']} of {row['side']}"))
    formation = f"; formation {row['formation']}" if row["formation"] else "; no formation"
    click.echo(f'{where}; base {row["width"]:g}" x {row["depth"]:g}"{formation}')
    from tabletop.state.document import status_text

    click.echo(f"status: {status_text(row['status'], row['markers'])}")
    for weapon, ammo in data["ammo"].items():
        notes = _ammo_notes(ammo)
        click.echo(f"  {weapon}: {ammo['status']}" + (f" ({'; '.join(notes)})" if notes else ""))
    for line in stand_model_lines(row):
        click.echo(line)
    _history(history, row["id"])


def _history(history: list[dict[str, Any]], stand: str) -> None:
    if history:
        click.echo("history:")
        for h in history:
            click.echo(
                f"  #{h['seq']} turn {h['turn']} {h['phase']}: {h['command']} "
                f"{_summary(h['result'], stand)}".rstrip()
            )


# How each field of an ammunition record reads to a referee ("limited available" did not).
AMMO_NOTES = {
    "limited": "limited-issue rounds {}",
    "smoke": "smoke rounds {}",
    "illum": "illumination rounds {}",
    "depleted_turn": "depleted in turn {}",
}


# The fields that count something left: singular and plural of the thing.
AMMO_LEFT = {"uses_left": ("use", "uses"), "resupplies_left": ("resupply", "resupplies")}


def _ammo_notes(ammo: dict[str, Any]) -> list[str]:
    return [_ammo_note(key, value) for key, value in ammo.items()
            if key not in ("state", "status") and value is not None]  # fmt: skip


def _ammo_note(key: str, value: Any) -> str:
    if key == "fired":
        return _fired_note(value)
    if key in AMMO_LEFT:
        return f"{count(value, *AMMO_LEFT[key])} left"
    return AMMO_NOTES.get(key, key + " {}").format(value)


def _fired_note(fired: dict[str, Any]) -> str:
    """The weapon's last firing, which counts against its turn's allowance."""
    return f"last fired in turn {fired['turn']}, {fired['phase']} phase"


def _summary(result: Any, stand: str) -> str:
    if isinstance(result, dict) and "verdict" in result:
        return str(result["verdict"])
    if isinstance(result, dict) and "happened" in result:
        # A phase or turn boundary: what it did to this stand, not the whole table's news.
        mine = [h for h in result["happened"] if h.get("stand") == stand]
        return "; ".join(f"{h['what']}: {h['result']}" for h in mine)
    if isinstance(result, dict):
        from tabletop.core.words import input_value

        scalars = {k: v for k, v in result.items() if isinstance(v, str | int | float)}
        if "x" in scalars and "y" in scalars:
            # A position reads as one value; cut at four, 'x' alone would name half a point.
            scalars["at"] = f"{input_value(scalars.pop('x'))},{input_value(scalars.pop('y'))}"
        keys = [f"{k}={input_value(v)}" for k, v in scalars.items()][:4]
        return ", ".join(keys)
    return str(result)
