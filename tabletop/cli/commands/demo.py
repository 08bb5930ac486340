"""tabletop demo: a scripted sample turn of the small scenario in a temporary game."""

from __future__ import annotations

import shlex

import click

from tabletop.cli.core import command, headline

SCRIPT: tuple[tuple[str, str], ...] = (
    (
        "Start a game from the bundled learning scenario, with a fixed dice seed.",
        "new crossroads --seed 1",
    ),
    ("Where everything stands.", "status"),
    (
        "Can the German riflemen on the ridge see the Americans across the field?",
        "measure G-1 US-1",
    ),
    ("The wood hides the other American platoon.", "measure G-2 US-2"),
    ("Movement: the referee records where a stand has moved to.", "place US-1 18 9 --facing 0"),
    ("On to the opportunity fire phase.", "phase next"),
    ("Before rolling: the exact odds of the PaK 36 against the Lee.", "odds fire G-4 US-4"),
    (
        "The PaK 36 fires; the referee threw a 1 (a hit that may deplete) and a 4.",
        "fire G-4 US-4 --dice 1,4",
    ),
    ("End of the phase: the pending ammunition depletion die is rolled now.", "phase next"),
    ("Fire phase: the Lee answers with its hull 75 mm.", "fire US-4 G-4 --weapon us-75mm-m2"),
    ("Morale, then the end of the turn (resupply near supply points).", "turn next --yes"),
    ("Turn 2: the artillery phase clears last turn's markers.", "phase next"),
    ("The American 81 mm mortar drops HE on the village.", "barrage US-5 --at 27,21"),
    ("What was rolled, and why.", "log --last 4"),
    ("Rebuild the game from the scenario and the log: it must match.", "replay"),
)


@click.command("demo")
@click.option(
    "--keep",
    type=click.Path(dir_okay=False),
    default=None,
    help="Keep the demo game in this file instead of a temporary one.",
)
@command
def cli(keep: str | None) -> None:
    """Run a scripted sample turn of the 'crossroads' scenario.

    Uses a temporary game file (your own game is not touched) and prints each
    command with what it resolved.

    \b
    Example:
      tabletop demo
    """
    import tempfile
    from pathlib import Path

    from tabletop.cli import cli as root

    if keep and Path(keep).exists():
        # Never overwrite a file the referee named: it may be their real game.
        from tabletop.core.errors import BadInput

        raise BadInput(f"--keep {keep!r} already exists: name a new file for the demo game")
    with tempfile.TemporaryDirectory(prefix="tabletop-demo-") as folder:
        game = Path(keep) if keep else Path(folder) / "demo.sqlite"
        for step, (why, line) in enumerate(SCRIPT):
            click.echo("")
            click.echo(f"# {why}")
            click.echo(headline(f"$ tabletop {line}"))
            args = [*shlex.split(line), "--game", str(game)]
            try:
                root.main(args, prog_name="tabletop", standalone_mode=False)
            except click.ClickException as exc:
                if step == 0:
                    raise  # without its game the rest of the script means nothing
                click.echo(f"Error: {exc.format_message()}")
            except SystemExit as exc:
                if exc.code not in (0, None):
                    click.echo(f"(exit status {exc.code})")
        click.echo("")
        click.echo("Demo finished. Start your own game with: tabletop new crossroads")
