"""tabletop replay: rebuild the game from the scenario and the log."""

from __future__ import annotations

import click

from tabletop.cli.core import command, emit_json, game_option, json_option, open_game


@click.command("replay")
@game_option
@json_option
@command
def cli(game: str, as_json: bool) -> None:
    """Rebuild the game from its scenario and log, and compare.

    The rebuilt game must reach the stored state.

    Reports the first event where the rebuilt game differs (exit status 1).

    \b
    Example:
      tabletop replay
    """
    import sys

    g = open_game(game)
    total = g.event_count()
    if total > 500 and not as_json and sys.stderr.isatty():
        with click.progressbar(length=total, label="replaying", file=sys.stderr) as bar:
            report = g.replay(progress=lambda done, _: bar.update(done - bar.pos))
    else:
        report = g.replay()
    if as_json:
        emit_json(
            {
                "ok": report.ok,
                "events": report.events,
                "first_divergence": report.first_divergence,
                "message": report.message,
            }
        )
    else:
        click.echo(
            f"{report.message} ({report.events} events)"
            if report.ok
            else f"DIVERGED at event {report.first_divergence}: {report.message}"
        )
    if not report.ok:
        raise SystemExit(1)
