"""tabletop new SCENARIO: start a game."""

from __future__ import annotations

from pathlib import Path

import click

from tabletop.cli.core import charts_option, command, emit_json, game_option, json_option


@click.command("new")
@click.argument("scenario")
@click.option("--force", is_flag=True, help="Replace an existing game file.")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed the game's dice (default: a random seed, shown and stored).",
)
@charts_option
@game_option
@json_option
@command
def cli(
    scenario: str,
    force: bool,
    seed: int | None,
    charts_dirs: tuple[Path, ...],
    game: str,
    as_json: bool,
) -> None:
    """Start a game from SCENARIO: a .yaml file or a bundled name.

    A bundled name is a scenario shipped with the program, like crossroads.

    The scenario is checked first; every problem is listed with its line.

    \b
    Example:
      tabletop new crossroads --seed 7
      tabletop new my-battle.yaml --game hill112.sqlite --force
    """
    import os

    from tabletop.data.resources import bundled_scenario
    from tabletop.data.scenario_loader import read_scenario
    from tabletop.game.engine import Game
    from tabletop.rules.models import profile_lookup

    path = Path(scenario)
    if not path.exists() and os.sep not in scenario and "/" not in scenario:
        try:
            path = bundled_scenario(scenario)
        except FileNotFoundError as exc:
            from tabletop.core.errors import BadInput

            raise BadInput(f"scenario {scenario!r}: no such file, and {exc}") from None
    loaded = read_scenario(path, tuple(charts_dirs), profiles=profile_lookup)
    if seed is None:
        seed = int.from_bytes(os.urandom(6), "big")
    created = Game.create(game, loaded, seed, force=force)
    state = created.state()
    created.close()
    if as_json:
        emit_json(
            {
                "game": str(game),
                "name": loaded.scenario.name,
                "seed": seed,
                "turn": state.turn,
                "phase": state.phase,
                "stands": len(state.stand_ids()),
            }
        )
        return
    click.echo(
        f"New game {loaded.scenario.name!r} in {game}: {len(state.stand_ids())} stands, "
        f"turn {state.turn}, {state.phase} phase, dice seed {seed}."
    )
