"""Upgrades: a game file written at any earlier schema version opens, migrates and plays on.

``tests/data/games/schema-<N>.db`` is a small game (crossroads, seed 11: two moves, typed
and generated dice, an undo) as schema N wrote it; ``make_fixtures.py`` beside them says how
each was made. The files are copied before use: opening a game migrates it in place.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tabletop.state import store as store_module
from tabletop.state.store import SCHEMA_VERSION
from tests.conftest import Run, as_json, file_digest

GAMES = Path(__file__).parent / "data" / "games"
VERSIONS = list(range(1, SCHEMA_VERSION + 1))
# What the fixture games hold (make_fixtures.PLAY): events and where the two moved stands are.
EVENTS = ["new", "place", "roll", "roll", "undo", "place"]
PLACED = {"G-1": (12.0, 30.0), "US-1": (20.0, 8.0)}


def fixture_copy(version: int, folder: Path) -> Path:
    target = folder / "game.sqlite"
    shutil.copyfile(GAMES / f"schema-{version}.db", target)
    return target


def pragma(path: Path, name: str, *, readonly: bool = False) -> object:
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
    conn = sqlite3.connect(uri, uri=True)
    try:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture(params=VERSIONS, ids=lambda v: f"schema-{v}")
def old(request: pytest.FixtureRequest, run: Run) -> Run:
    fixture_copy(request.param, Path(run.game).parent)  # type: ignore[attr-defined]
    return run


def test_there_is_a_game_file_for_every_schema_version() -> None:
    for version in VERSIONS:
        path = GAMES / f"schema-{version}.db"
        assert path.is_file(), (
            f"no {path.name}: run tests/data/games/make_fixtures.py to add the new schema's game"
        )
        assert pragma(path, "user_version", readonly=True) == version
        # One self-contained file: committed without a write-ahead log beside it.
        assert pragma(path, "journal_mode", readonly=True) == "delete"
        assert not path.with_name(path.name + "-wal").exists()


def test_an_old_game_opens_upgrades_and_plays_on(old: Run) -> None:
    path = old.game  # type: ignore[attr-defined]
    status = as_json(old("status", "--json"))
    assert pragma(path, "user_version") == SCHEMA_VERSION
    assert (status["turn"], status["phase"]) == (1, "movement")
    where = {s["id"]: (s["x"], s["y"]) for s in status["stands"]}
    assert {k: where[k] for k in PLACED} == PLACED
    log = as_json(old("log", "--json"))["events"]
    assert [e["command"] for e in log] == EVENTS
    assert old("log", "--verify").output.startswith("hash chain intact (6 events; head ")
    # It accepts commands, each logged and chained onto the old events.
    old("roll", "2d10", "--dice", "4,+")
    old("place", "G-2", "10", "25")
    old("phase", "next")
    old("turn", "next", "--yes")
    old("undo", "--yes")  # back into turn 1
    old("show", "G-1")
    old("weather", "show")
    assert old("log", "--verify").output.startswith("hash chain intact (11 events; head ")


def test_an_old_game_still_replays(old: Run) -> None:
    """Replay rebuilds an old game with this program's rules and opening state.

    Failing here means games saved by an earlier version no longer replay: a change to the
    opening state (new rows or keys) or to the dice a place/roll/undo uses.
    """
    old("replay")
    old("roll", "d6")
    old("replay")


def test_a_first_schema_game_gets_charts_format_1(run: Run) -> None:
    """Migration 2 marks the stored charts as format 1, so later chart entries are added."""
    path = fixture_copy(1, Path(run.game).parent)  # type: ignore[attr-defined]
    run("status")
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT charts_format FROM game").fetchone()[0] == 1
    finally:
        conn.close()


def test_a_failed_migration_leaves_the_file_as_it_was(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = fixture_copy(1, Path(run.game).parent)  # type: ignore[attr-defined]
    before = file_digest(path)
    broken = "CREATE TABLE notes (x); INSERT INTO no_such_table VALUES (1)"
    monkeypatch.setattr(store_module, "MIGRATIONS", (*store_module.MIGRATIONS, broken))
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    result = run("status", code=2)
    assert result.output.count("\n") == 1
    monkeypatch.undo()
    assert pragma(path, "user_version") == 1  # not even migration 2 stayed
    conn = sqlite3.connect(path)
    try:
        columns = [r[1] for r in conn.execute("PRAGMA table_info(game)")]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert "charts_format" not in columns
    assert "notes" not in tables
    assert file_digest(path) == before
    run("status")  # and the real migrations still apply


def test_the_fixture_script_writes_the_first_schema(tmp_path: Path) -> None:
    """make_fixtures.py rewrites a game into exactly the DDL of the first migration."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_fixtures", GAMES / "make_fixtures.py")
    assert spec is not None and spec.loader is not None
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    played = tmp_path / "played.sqlite"
    make.play(played)
    make.to_schema_1(played, tmp_path / "one.sqlite")
    reference = sqlite3.connect(tmp_path / "reference.sqlite")
    reference.executescript(store_module.MIGRATIONS[0])
    ours = sqlite3.connect(tmp_path / "one.sqlite")
    kept = sqlite3.connect(f"file:{GAMES / 'schema-1.db'}?mode=ro", uri=True)
    query = "SELECT type, name, sql FROM sqlite_master ORDER BY name"
    try:
        assert list(ours.execute(query)) == list(reference.execute(query))
        assert list(kept.execute(query)) == list(reference.execute(query))
    finally:
        for conn in (reference, ours, kept):
            conn.close()
    from tabletop.game.engine import Game

    game = Game.open(tmp_path / "one.sqlite")
    try:
        assert game.verify().ok
    finally:
        game.close()


def test_replay_takes_the_opening_state_from_the_log_when_this_version_builds_another(
    game: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later version adding rows to the opening state must not stop old games replaying."""
    from tabletop.game import engine as game_module

    game("place", "G-1", "12", "30")
    game("roll", "2d10")
    game("undo")
    game("phase", "next")
    built = game_module.opening_state

    def newer(loaded: object, seed: int) -> object:
        state = built(loaded, seed)  # type: ignore[arg-type]
        state.rows["added-by-a-later-version"] = {"x": 1}
        return state

    monkeypatch.setattr(game_module, "opening_state", newer)
    result = game("replay")
    assert result.output == (
        "replay reproduces the stored state (from the opening state in the log: this "
        "version builds it differently) (5 events)\n"
    )
    # The log still has to account for the stored state exactly.
    conn = sqlite3.connect(game.game)  # type: ignore[attr-defined]
    with conn:
        conn.execute("UPDATE state SET value = replace(value, '\"ok\"', '\"eliminated\"')")
    conn.close()
    assert game("replay", code=1).output == (
        "DIVERGED at event 1: the scenario no longer builds the opening state recorded at 'new'\n"
    )
