"""Shared fixtures: a CLI runner, a fresh game file, and the bundled charts."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tabletop.cli import cli
from tabletop.data.charts import Charts

SEED = 1


@pytest.fixture(scope="session")
def charts() -> Charts:
    return Charts.load()


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


Run = Callable[..., Result]


@pytest.fixture
def run(runner: CliRunner, tmp_path: Path) -> Run:
    """``run("fire", "G-4", "US-4", code=0)``: invoke the CLI against a game in tmp_path.

    Asserts the exit code (default 0) and that no traceback reached the user.
    """
    game = tmp_path / "game.sqlite"

    def invoke(
        *args: str, code: int | None = 0, game_file: Path | None = None, input: str | None = None
    ) -> Result:
        argv = [*args, "--game", str(game_file or game)]
        result = runner.invoke(cli, argv, input=input, catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        assert "Traceback" not in result.output, result.output
        if code is not None:
            assert result.exit_code == code, (argv, result.output)
        return result

    invoke.game = game  # type: ignore[attr-defined]
    return invoke


@pytest.fixture
def game(run: Run) -> Run:
    """A new crossroads game (seed 1), in the movement phase of turn 1."""
    run("new", "crossroads", "--seed", str(SEED))
    return run


def as_json(result: Result) -> Any:
    return json.loads(result.output)


def file_digest(path: Path) -> bytes:
    """The game's content, for 'unchanged' checks (the state rows and the log)."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        rows = list(conn.execute("SELECT key, value FROM state ORDER BY key"))
        events = list(conn.execute("SELECT * FROM events ORDER BY seq"))
    finally:
        conn.close()
    return json.dumps([rows, events]).encode()


def goto_phase(run: Run, phase: str) -> None:
    """Advance the game to ``phase`` of the current or next turn."""
    for _ in range(12):
        status = as_json(run("status", "--json"))
        if status["phase"] == phase:
            return
        run("phase", "next")
    raise AssertionError(f"never reached {phase}")


def is_error_report(err: str) -> bool:
    """What a user error prints: one ``Error:`` line; a file's several problems follow it.

    Only a scenario or chart file with N problems prints more: N lines in all, the others
    indented under the first.
    """
    import re

    lines = err.splitlines()
    if not lines or not lines[0].startswith("Error: ") or not err.endswith("\n"):
        return False
    if len(lines) == 1:
        return True
    many = re.match(r"Error: (\d+) (scenario|chart) problems: ", lines[0])
    return (
        many is not None
        and len(lines) == int(many.group(1))
        and all(line.startswith("  ") for line in lines[1:])
    )
