"""tabletop show STAND: one stand in full, with its history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import STAND, command, emit_json, game_option, headline, json_option


@click.command("show")
@click.argument("stand", type=STAND)
@game_option
@json_option
@command
def cli(stand: str, game: Path, as_json: bool) -> None:
    """One stand: position, status, each weapon's ammunition, and its history.

    \b
    Example:
      tabletop show G-4
    """
    from tabletop.cli.core import open_game
    from tabletop.rules.cd.ammo import weapon_status
    from tabletop.state.document import State

    g = open_game(game)
    state = State.from_db(g.store.rows())
    row = state.stand(stand)
    history = [
        {"seq": ev.seq, "turn": ev.turn, "phase": ev.phase, "command": ev.command,
         "result": ev.result}
        for ev in g.store.events(stand=stand)
    ]
    data: dict[str, Any] = {
        **{k: row[k] for k in ("id", "side", "kind", "quality", "formation", "x", "y", "facing",
                               "width", "depth", "status", "markers")},
        "ammo": {w: {**a, "status": weapon_status(a)} for w, a in row["ammo"].items()},
        "history": history,
    }
    if as_json:
        emit_json(data)
        return
    where = "not placed" if row["x"] is None else f"at {row['x']:g},{row['y']:g} facing {row['facing']:g}"
    click.echo(headline(f"{row['id']}: {row['quality']} {row['kind']} of {row['side']}"))
    click.echo(f"{where}; base {row['width']:g}\" x {row['depth']:g}\"; formation {row['formation']}")
    click.echo(f"status: {row['status']}" + (f" ({', '.join(row['markers'])})" if row["markers"] else ""))
    for weapon, ammo in data["ammo"].items():
        extras = [f"{k} {v}" for k, v in ammo.items()
                  if k not in ("state", "status", "depleted_turn") and v is not None]
        if ammo["depleted_turn"] is not None:
            extras.append(f"depleted in turn {ammo['depleted_turn']}")
        click.echo(f"  {weapon}: {ammo['status']}" + (f" ({'; '.join(extras)})" if extras else ""))
    if history:
        click.echo("history:")
        for h in history:
            click.echo(f"  #{h['seq']} turn {h['turn']} {h['phase']}: {h['command']} "
                       f"{_summary(h['result'])}")


def _summary(result: Any) -> str:
    if isinstance(result, dict) and "verdict" in result:
        return str(result["verdict"])
    if isinstance(result, dict):
        keys = [f"{k}={v}" for k, v in result.items() if isinstance(v, str | int | float)][:4]
        return ", ".join(keys)
    return str(result)
