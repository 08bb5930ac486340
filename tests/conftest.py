"""Shared fixtures: a CLI runner, a fresh game file, and the bundled charts."""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

# What tabletop keeps in its cache folder (compiled charts, data/compiled.py; compiled
# dataclass code, core/frozen.py) goes to a folder of this run, not the user's cache. Set
# before the program is imported, as its classes are made then; the workers inherit it, so
# the bundled charts are compiled once for the whole run.
_OWN_CACHE_FOLDER = None
if "TABLETOP_CACHE" not in os.environ:
    _OWN_CACHE_FOLDER = os.environ["TABLETOP_CACHE"] = tempfile.mkdtemp(prefix="tabletop-cache-")

from tabletop.cli import cli  # noqa: E402
from tabletop.data.chart_files import load_charts  # noqa: E402
from tabletop.data.charts import Charts  # noqa: E402

SEED = 1
DATA = Path(__file__).resolve().parent / "data"

# Games made by ``run("new", ...)``, kept for the session: a later ``new`` with the same
# arguments gets a copy of the file (and of what the command printed) instead of building
# the game again, the slowest step of most tests. Only for a new file, a fixed seed, and a
# scenario and chart folders that do not change during the session (bundled, or under
# tests/data): a test building its own scenario always runs the command.
_TEMPLATES: dict[tuple[str, ...], tuple[bytes, Result, str]] = {}


def _template_key(args: tuple[str, ...], game: Path, input: str | None) -> tuple[str, ...] | None:
    """The arguments, when ``run(*args)`` may be served from a template (else None)."""
    if not args or args[0] != "new" or "--seed" not in args or "--force" in args:
        return None
    if input is not None or game.exists():
        return None
    for arg in args[1:]:
        path = Path(arg)
        if arg.startswith("-") or not (path.exists() or "/" in arg):
            continue  # an option, a number or a bundled scenario's name
        if not path.resolve().is_relative_to(DATA):
            return None
    return args


def _complete(result: Result, game: Path) -> bool:
    """Whether the game is all in its one file (nothing left in a write-ahead log)."""
    wal = game.with_name(f"{game.name}-wal")
    return (
        result.exit_code == 0 and game.is_file() and not (wal.exists() and wal.stat().st_size > 0)
    )


def _moved(result: Result, before: str, after: str) -> Result:
    """A command's result as if run on ``after``: the game's path is in what ``new`` says."""
    moved = copy.copy(result)
    for name in ("stdout_bytes", "stderr_bytes", "output_bytes"):  # as this click has them
        value = getattr(result, name, None)
        if isinstance(value, bytes):
            setattr(moved, name, value.replace(before.encode(), after.encode()))
    return moved


# Every game write syncs the file to disk (synchronous = FULL), which on a shared disk costs
# more than the work. Unless --basetemp is given, the tests' files go to a memory file
# system where there is one (Linux); the sync is then free and nothing else changes.
MEMORY_FS = Path("/dev/shm")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return  # an xdist worker: the controller passes it the folders below
    if _OWN_CACHE_FOLDER is not None:
        config.stash[_OWN_CACHE] = _OWN_CACHE_FOLDER
    if config.option.basetemp is not None:
        return
    if MEMORY_FS.is_dir() and os.access(MEMORY_FS, os.W_OK):
        config.option.basetemp = tempfile.mkdtemp(prefix="tabletop-tests-", dir=MEMORY_FS)
        config.stash[_OWN_BASETEMP] = config.option.basetemp


def pytest_unconfigure(config: pytest.Config) -> None:
    for key in (_OWN_BASETEMP, _OWN_CACHE):
        own = config.stash.get(key, None)
        if own is not None:
            shutil.rmtree(own, ignore_errors=True)


_OWN_BASETEMP = pytest.StashKey[str]()
_OWN_CACHE = pytest.StashKey[str]()


@pytest.fixture(scope="session")
def charts() -> Charts:
    return load_charts()


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
        target = game_file or game
        argv = [*args, "--game", str(target)]
        key = _template_key(args, target, input)
        if key is not None and key in _TEMPLATES:
            data, made, where = _TEMPLATES[key]
            target.write_bytes(data)
            result = _moved(made, where, str(target))
        else:
            result = runner.invoke(cli, argv, input=input, catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        assert "Traceback" not in result.output, result.output
        if code is not None:
            assert result.exit_code == code, (argv, result.output)
        if key is not None and key not in _TEMPLATES and _complete(result, target):
            _TEMPLATES[key] = (target.read_bytes(), result, str(target))
        return result

    invoke.game = game  # type: ignore[attr-defined]
    return invoke


@pytest.fixture
def game(run: Run) -> Run:
    """A new crossroads game (seed 1), in the movement phase of turn 1.

    Built once per session and copied for each test (see ``_TEMPLATES``).
    """
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
