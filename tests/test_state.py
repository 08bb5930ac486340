"""The game file: migrations, the hash-chained event log, undo, replay, and atomic commands."""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import tempfile
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.core.errors import RulesRefusal, TabletopError
from tabletop.game.engine import Game
from tabletop.state import store as store_module
from tabletop.state.document import State
from tabletop.state.hashes import event_hash, state_hash
from tabletop.state.store import GENESIS, SCHEMA_VERSION, Store
from tests.conftest import Run, as_json, file_digest, goto_phase

# --- helpers -------------------------------------------------------------------------------


@pytest.fixture
def opened(game: Run) -> Iterator[Store]:
    store = Store.open(game.game)  # type: ignore[attr-defined]
    yield store
    store.close()


def rows_of(run: Run) -> dict[str, str]:
    store = Store.open(run.game)  # type: ignore[attr-defined]
    try:
        return store.rows()
    finally:
        store.close()


def events_of(run: Run) -> list[Any]:
    store = Store.open(run.game)  # type: ignore[attr-defined]
    try:
        return store.events()
    finally:
        store.close()


def sql(run: Run, statement: str, *args: Any) -> None:
    """Change the game file behind the program's back, as a tamperer would."""
    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        with conn:
            conn.execute(statement, args)
    finally:
        conn.close()


MIXED = [
    ("place", "G-1", "12", "30", "--facing", "90"),  # 2
    ("roll", "2d10"),  # 3
    ("phase", "next"),  # 4: opportunity fire
    ("fire", "G-4", "US-4", "--range", "10", "--dice", "1,4"),  # 5: a hit that may deplete
    ("roll", "d6", "--dice", "6"),  # 6
    ("undo",),  # 7 undoes 6
    ("phase", "next"),  # 8: fire phase, the depletion die is rolled
    ("fire", "US-4", "G-4", "--weapon", "us-75mm-m2", "--range", "12"),  # 9
    ("turn", "next", "--yes"),  # 10
    ("phase", "next"),  # 11: artillery
    ("barrage", "US-5", "--at", "27,21"),  # 12
]


@pytest.fixture(scope="module")
def mixed_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A short game touching every kind of event: actions, rolls, boundaries, undo."""
    from click.testing import CliRunner

    from tabletop.cli import cli

    path = tmp_path_factory.mktemp("mixed") / "game.sqlite"
    runner = CliRunner()
    for args in [("new", "crossroads", "--seed", "1"), *MIXED]:
        result = runner.invoke(cli, [*args, "--game", str(path)])
        assert result.exit_code == 0, (args, result.output)
    return path


@pytest.fixture
def mixed(run: Run, mixed_file: Path) -> Run:
    """Like ``game``, holding a copy of the mixed game (cheaper than playing it again)."""
    # The backup API copies what is committed, wherever it lies (the file or its WAL).
    source, target = sqlite3.connect(mixed_file), sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    return run


# --- the file ------------------------------------------------------------------------------


def test_new_game_is_at_the_current_schema_in_wal_mode(opened: Store) -> None:
    assert SCHEMA_VERSION == len(store_module.MIGRATIONS) >= 1
    assert opened.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert opened.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in opened.conn.execute("SELECT name FROM sqlite_master")}
    assert {"game", "state", "events", "event_subjects"} <= tables
    first = opened.events()
    assert [(e.seq, e.command, e.prev_hash) for e in first] == [(1, "new", GENESIS)]
    assert first[0].state_hash == state_hash(opened.rows())


def test_a_new_migration_is_applied_once_on_open(
    game: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = "CREATE TABLE notes (seq INTEGER, text TEXT NOT NULL)"
    monkeypatch.setattr(store_module, "MIGRATIONS", (*store_module.MIGRATIONS, extra))
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    for _ in range(2):  # the second open finds nothing to do
        store = Store.open(game.game)  # type: ignore[attr-defined]
        try:
            assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
            assert store.conn.execute("SELECT COUNT(*) FROM notes").fetchone()[0] == 0
        finally:
            store.close()
    game("status")


def test_a_file_from_a_newer_program_is_refused(game: Run) -> None:
    sql(game, f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    result = game("status", code=2)
    assert result.output == (
        f"Error: '{game.game}' was written by a newer tabletop "  # type: ignore[attr-defined]
        f"(schema {SCHEMA_VERSION + 1}; this program knows up to {SCHEMA_VERSION}): "
        "upgrade tabletop\n"
    )


@pytest.mark.parametrize("kind", ["empty", "other-database"])
def test_another_sqlite_file_is_refused_and_left_alone(run: Run, tmp_path: Path, kind: str) -> None:
    path = tmp_path / "other.db"
    if kind == "empty":
        path.write_bytes(b"")
    else:
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
        conn.close()
    before = path.read_bytes()
    result = run("status", code=2, game_file=path)
    assert result.output == (
        f"Error: '{path}' is not a tabletop game file "
        "(start a game with 'tabletop new SCENARIO.yaml')\n"
    )
    assert path.read_bytes() == before  # not migrated, not switched to WAL


def test_events_filters_by_stand_and_last(mixed: Run) -> None:
    game = mixed
    store = Store.open(game.game)  # type: ignore[attr-defined]
    try:
        every = store.events()
        assert [e.seq for e in every] == list(range(1, len(every) + 1))
        assert [e.seq for e in store.events(last=3)] == [e.seq for e in every[-3:]]
        assert [e.seq for e in store.events(last=1000)] == [e.seq for e in every]
        assert store.events(last=0) == []
        g4 = store.events(stand="G-4")
        assert g4 and all(e.command in ("fire", "phase-next", "turn-next") for e in g4)
        assert [e.seq for e in store.events(stand="G-4", last=2)] == [e.seq for e in g4[-2:]]
        assert store.events(stand="nobody") == []
    finally:
        store.close()


# --- the event log and its hash chain ------------------------------------------------------

CHANGING = [
    ("place", "G-1", "12", "30"),
    ("roll", "3d10"),
    ("roll", "d6", "--dice", "4"),
    ("phase", "next"),
    ("fire", "G-4", "US-4", "--range", "10"),
    ("undo",),
    ("turn", "next", "--yes"),
    ("phase", "next"),
    ("barrage", "US-5", "--at", "27,21"),
    ("resupply",),
]


def test_every_changing_command_appends_one_chained_event(game: Run) -> None:
    events = events_of(game)
    for args in CHANGING:
        result = game(*args, code=None)
        after = events_of(game)
        if result.exit_code != 0:  # a refusal appends nothing
            assert after == events, (args, result.output)
            continue
        assert len(after) == len(events) + 1, args
        new = after[-1]
        assert new.seq == events[-1].seq + 1
        assert new.prev_hash == events[-1].hash
        assert new.hash == event_hash(new.prev_hash, new.hashed_fields())
        assert new.state_hash == state_hash(rows_of(game))
        events = after
    assert {e.command for e in events} >= {
        "new",
        "place",
        "roll",
        "phase-next",
        "fire",
        "undo",
        "turn-next",
        "barrage",
    }


@pytest.mark.parametrize(
    "args",
    [
        ("status",),
        ("status", "--json"),
        ("show", "G-1"),
        ("measure", "G-1", "US-1"),
        ("log",),
        ("log", "--verify"),
        ("replay",),
        ("show", "G-4", "--json"),
    ],
)
def test_reading_commands_change_nothing(game: Run, args: tuple[str, ...]) -> None:
    before = file_digest(game.game)  # type: ignore[attr-defined]
    game(*args)
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_verify_accepts_an_intact_log(mixed: Run) -> None:
    game = mixed
    report = Game.open(game.game).verify()  # type: ignore[attr-defined]
    assert report.ok
    assert report.first_bad is None
    assert report.events == len(events_of(game))
    # the head digest follows every event, the charts' digest in the first among them
    assert re.fullmatch(
        r"hash chain intact \(12 events; head [0-9a-f]{64}\)\n", game("log", "--verify").output
    )


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("inputs", '{"dice":"3d10","purpose":null}'),
        ("turn", 7),
        ("phase", "morale"),
        ("rolls", "[]"),
        ("result", '{"dice":"2d10"}'),
        ("command", "turn-next"),
    ],
)
def test_verify_detects_an_edited_event(mixed: Run, column: str, value: Any) -> None:
    game = mixed
    sql(game, f"UPDATE events SET {column} = ? WHERE seq = 3", value)
    report = Game.open(game.game).verify()  # type: ignore[attr-defined]
    assert not report.ok
    assert report.first_bad == 3
    assert report.message == "event 3 was edited"


def test_verify_detects_a_deleted_event(mixed: Run) -> None:
    game = mixed
    sql(game, "DELETE FROM events WHERE seq = 4")
    report = Game.open(game.game).verify()  # type: ignore[attr-defined]
    assert (report.ok, report.first_bad, report.message) == (False, 4, "event 4 is missing")


def test_verify_detects_a_deleted_last_event_by_the_state(mixed: Run) -> None:
    game = mixed
    last = events_of(game)[-1].seq
    sql(game, "DELETE FROM events WHERE seq = ?", last)
    report = Game.open(game.game).verify()  # type: ignore[attr-defined]
    assert (report.ok, report.first_bad) == (False, last - 1)
    assert report.message == "the stored state does not match the state after event 11"


def test_verify_detects_swapped_events(mixed: Run) -> None:
    game = mixed
    sql(game, "UPDATE events SET seq = -1 WHERE seq = 5")
    sql(game, "UPDATE events SET seq = 5 WHERE seq = 6")
    sql(game, "UPDATE events SET seq = 6 WHERE seq = -1")
    report = Game.open(game.game).verify()  # type: ignore[attr-defined]
    assert (report.ok, report.first_bad) == (False, 5)
    assert report.message == "event 5 does not follow event 4 (removed or reordered)"


def test_verify_detects_an_edited_state(mixed: Run) -> None:
    game = mixed
    sql(
        game,
        "UPDATE state SET value = replace(value, '\"ok\"', '\"eliminated\"') "
        "WHERE key = 'stand:G-1'",
    )
    report = Game.open(game.game).verify()  # type: ignore[attr-defined]
    assert not report.ok
    assert report.message == "the stored state does not match the state after event 12"


def test_log_verify_exits_1_naming_the_event(mixed: Run) -> None:
    game = mixed
    sql(game, "UPDATE events SET rolls = '[]' WHERE seq = 3")
    result = game("log", "--verify", code=1)
    assert result.output.strip() == "TAMPERED: event 3 was edited"
    data = as_json(game("log", "--verify", "--json", code=1))
    assert data["ok"] is False
    assert data["first_bad"] == 3


# --- undo ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("place", "G-1", "12", "30", "--facing", "45"),
        ("roll", "3d10"),
        ("phase", "next"),
        ("turn", "next", "--yes"),
    ],
)
def test_undo_restores_the_exact_rows(game: Run, args: tuple[str, ...]) -> None:
    game("roll", "2d6")  # the generator has moved on from 0
    before = rows_of(game)
    game(*args)
    assert rows_of(game) != before
    game("undo", "--yes")  # undoing 'turn next' goes back into turn 1
    assert rows_of(game) == before


def test_undo_puts_back_the_generator_so_the_dice_repeat(game: Run) -> None:
    goto_phase(game, "opportunity-fire")
    before = rows_of(game)
    first = as_json(game("fire", "G-4", "US-4", "--range", "10", "--json"))
    counter_after = json.loads(rows_of(game)["meta"])["rng_counter"]
    assert counter_after > json.loads(before["meta"])["rng_counter"]
    game("undo")
    assert rows_of(game) == before
    again = as_json(game("fire", "G-4", "US-4", "--range", "10", "--json"))
    assert again["rolls"] == first["rolls"]
    assert {k: v for k, v in again.items() if k != "event"} == {
        k: v for k, v in first.items() if k != "event"
    }


def test_undo_walks_back_one_action_at_a_time(game: Run) -> None:
    snapshots = [rows_of(game)]
    for args in (("place", "G-1", "12", "30"), ("roll", "d10"), ("phase", "next")):
        game(*args)
        snapshots.append(rows_of(game))
    for expected in reversed(snapshots[:-1]):
        game("undo")
        assert rows_of(game) == expected
    result = game("undo", code=3)
    assert (
        result.output
        == "Error: nothing to undo: every command since 'new' has already been undone\n"
    )


def test_undo_with_nothing_to_undo_exits_3(game: Run) -> None:
    before = file_digest(game.game)  # type: ignore[attr-defined]
    result = game("undo", code=3)
    assert result.output.strip() == (
        "Error: nothing to undo: the log holds only the start of the game"
    )
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_undo_is_logged_and_names_what_it_undid(game: Run) -> None:
    game("roll", "d10")
    data = as_json(game("undo", "--json"))
    assert {k: data[k] for k in ("event", "undid", "command", "turn", "phase", "events")} == {
        "event": 3,
        "undid": 2,
        "command": "roll",
        "turn": 1,
        "phase": "movement",
        "events": [3],
    }
    assert [e["seq"] for e in data["undone"]] == [2]
    last = events_of(game)[-1]
    assert (last.kind, last.undoes, last.command) == ("undo", 2, "undo")


# --- replay --------------------------------------------------------------------------------


def test_replay_reproduces_a_mixed_game(mixed: Run) -> None:
    game = mixed
    result = game("replay")
    assert (
        result.output.strip()
        == f"replay reproduces the stored state ({len(events_of(game))} events)"
    )
    data = as_json(game("replay", "--json"))
    assert data["ok"] is True
    assert data["first_divergence"] is None


def test_replay_detects_a_state_altered_directly(mixed: Run) -> None:
    game = mixed
    last = events_of(game)[-1]
    sql(
        game,
        "UPDATE state SET value = replace(value, '\"ok\"', '\"eliminated\"') "
        "WHERE key = 'stand:G-1'",
    )
    result = game("replay", code=1)
    assert result.output == (
        "DIVERGED at event 12: the stored state is not the state after event 12 "
        "(barrage): row 'stand:G-1' differs\n"
    )
    data = as_json(game("replay", "--json", code=1))
    assert data["first_divergence"] == last.seq


def test_replay_detects_an_edited_generated_roll(game: Run) -> None:
    game("roll", "3d10")
    game("roll", "d10")
    rolls = events_of(game)[1].rolls
    rolls[1]["value"] = rolls[1]["value"] % 10 + 1
    sql(game, "UPDATE events SET rolls = ? WHERE seq = 2", json.dumps(rolls))
    result = game("replay", code=1)
    assert result.output == (
        "DIVERGED at event 2: event 2 (roll): the generator gives 3 where the log has "
        "4 (referee roll (2 of 3))\n"
    )


# --- atomic commands -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phase", "args", "code"),
    [
        ("movement", ("fire", "G-4", "US-4", "--range", "10"), 3),  # wrong phase
        ("opportunity-fire", ("fire", "G-4", "US-4", "--range", "10", "--dice", "11"), 2),
        ("opportunity-fire", ("fire", "G-4", "US-4", "--range", "10", "--dice", "1,2,3,4"), 2),
        ("opportunity-fire", ("fire", "G-4", "G-5", "--range", "10"), 3),  # same side
        ("movement", ("place", "G-1", "18", "6"), 3),  # onto US-1
        ("movement", ("place", "G-1", "99", "6"), 2),
        ("movement", ("roll", "3d10", "--dice", "1,2,3,4"), 2),
        ("movement", ("roll", "3d6", "--dice", "1,9"), 2),  # fails on the second die
    ],
)
def test_a_failing_command_leaves_the_file_unchanged(
    game: Run, phase: str, args: tuple[str, ...], code: int
) -> None:
    goto_phase(game, phase)
    before = file_digest(game.game)  # type: ignore[attr-defined]
    result = game(*args, code=code)
    assert result.output.startswith("Error: ")
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_a_crash_after_the_rows_are_written_leaves_the_game_as_it_was(
    game: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = file_digest(game.game)  # type: ignore[attr-defined]

    def crash(*args: Any, **kwargs: Any) -> str:
        raise KeyboardInterrupt  # the referee's Ctrl-C, between the rows and the event

    monkeypatch.setattr(Store, "append_event", crash)
    g = Game.open(game.game)  # type: ignore[attr-defined]
    with pytest.raises(KeyboardInterrupt):
        g.execute("place", {"stand": "G-1", "x": 12.0, "y": 30.0, "facing": None})
    g.close()
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


# --- property: replay and undo hold after any short sequence of commands -----------------

PAIRS = [("G-4", "US-4"), ("US-4", "G-4"), ("G-1", "US-1"), ("US-3", "G-5"), ("G-5", "US-3")]
STANDS = ["G-1", "G-2", "G-3", "G-4", "G-5", "US-1", "US-2", "US-3", "US-4", "US-5"]

steps = st.one_of(
    st.tuples(
        st.just("place"),
        st.sampled_from(STANDS),
        st.floats(0, 48),
        st.floats(0, 36),
        st.one_of(st.none(), st.floats(0, 359.9)),
    ),
    st.tuples(st.just("roll"), st.integers(1, 4), st.sampled_from([6, 10, 100])),
    st.tuples(st.just("phase")),
    st.tuples(st.just("fire"), st.sampled_from(PAIRS), st.floats(0.5, 40)),
    st.tuples(st.just("undo")),
)


@functools.cache
def crossroads() -> Any:
    from tabletop.data.resources import bundled_scenario
    from tabletop.data.scenario_loader import read_scenario

    return read_scenario(bundled_scenario("crossroads"), ())


def perform(g: Game, step: tuple[Any, ...]) -> Any:
    from tabletop.cli.commands.fire import fire_inputs

    kind = step[0]
    if kind == "place":
        _, stand, x, y, facing = step
        return g.execute("place", {"stand": stand, "x": x, "y": y, "facing": facing})
    if kind == "roll":
        return g.execute("roll", {"dice": f"{step[1]}d{step[2]}", "purpose": None})
    if kind == "phase":
        return g.execute("phase-next", {})
    if kind == "fire":
        (shooter, target), distance = step[1], step[2]
        return g.execute(
            "fire", fire_inputs(shooter, target, None, "standard", distance, None, (), False)
        )
    return g.undo(cross_turns=True)


FIRE_PHASES = ("opportunity-fire", "fire")


def check_step(g: Game, step: tuple[Any, ...]) -> None:
    """Do one step; then replay must match, and undo must restore the rows exactly."""
    before = g.store.rows()
    try:
        outcome = perform(g, step)
    except RulesRefusal:  # overlapping bases, an eliminated stand, nothing to undo, ...
        assert g.store.rows() == before, step
        return
    after = g.store.rows()
    replayed = g.replay()
    assert replayed.ok, (step, replayed.message)
    assert g.verify().ok, step
    if step[0] == "undo":
        return
    # Undo restores the rows exactly; doing the step again rolls the same dice.
    g.undo(cross_turns=True)
    assert g.store.rows() == before, step
    again = perform(g, step)
    assert g.store.rows() == after, step
    assert [r.as_dict() for r in again.rolls] == [r.as_dict() for r in outcome.rolls], step


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(steps, min_size=1, max_size=6))
def test_replay_and_undo_hold_after_any_sequence(sequence: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        g = Game.create(Path(folder) / "game.sqlite", crossroads(), 1, force=False)
        try:
            for step in sequence:
                # Fire is drawn for its own phase: advance to it, each advance a checked step.
                while step[0] == "fire" and g.state().phase not in FIRE_PHASES:
                    check_step(g, ("phase",))
                check_step(g, step)
        except TabletopError as exc:  # bad input or a crash of the rules: never expected here
            pytest.fail(f"{type(exc).__name__}: {exc}")
        finally:
            g.close()


def test_state_copy_is_equal_independent_and_keeps_types() -> None:
    # State.copy goes through marshal: equal rows, same types and key order, nothing shared.
    rows: dict[str, Any] = {
        "meta": {"turn": 2, "phase": "movement", "order": ["b", "a"]},
        "stand:A": {"x": 1.5, "y": None, "markers": ["pinned"], "hidden": True, "at": (1, 2)},
    }
    copied = State(rows).copy().rows
    assert copied == rows
    assert list(copied["stand:A"]) == ["x", "y", "markers", "hidden", "at"]
    assert copied["stand:A"]["at"] == (1, 2) and copied["stand:A"]["hidden"] is True
    copied["stand:A"]["markers"].append("mired")
    copied["meta"]["order"].pop()
    assert rows["stand:A"]["markers"] == ["pinned"]
    assert rows["meta"]["order"] == ["b", "a"]


def test_state_copy_falls_back_to_deepcopy_for_a_value_marshal_cannot_write() -> None:
    rows: dict[str, Any] = {"pending": {"odds": [Fraction(1, 3)]}}
    copied = State(rows).copy().rows
    assert copied == rows
    assert copied["pending"]["odds"] is not rows["pending"]["odds"]


def test_the_log_hashes_are_sha256_as_hashlib_makes_them() -> None:
    """``state.hashes`` uses CPython's own SHA-256 (no OpenSSL): the same digests."""
    import hashlib

    from tabletop.state.hashes import text_hash

    rows = {"b": "2", "a": "é"}
    assert state_hash(rows) == hashlib.sha256("a\té\nb\t2\n".encode()).hexdigest()
    assert text_hash("scenario") == hashlib.sha256(b"scenario").hexdigest()
