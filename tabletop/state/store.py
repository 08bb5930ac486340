"""The SQLite game file: numbered migrations, one transaction per command, the event log.

One file per game. WAL journaling lets read-only commands run while another command writes;
writers take the lock up front (``BEGIN IMMEDIATE``) and wait up to ``BUSY_SECONDS`` for it
(the environment variable ``TABLETOP_BUSY_SECONDS`` changes the wait, for example on a slow
network drive or in tests). A command's changes and its event are committed together or not at
all, so a crash or a kill mid-command leaves the game as it was.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from tabletop.core.errors import BadInput, GameBusy, NoGame, TabletopError
from tabletop.core.frozen import frozen_dataclass

BUSY_SECONDS = 5.0
BUSY_ENV = "TABLETOP_BUSY_SECONDS"
MAX_BUSY_SECONDS = 3600.0
GENESIS = "0" * 64

# Each migration is applied once, in order, inside a transaction; PRAGMA user_version
# records the last one applied. Never edit a released migration: add a new one.
MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema
    """
    CREATE TABLE game (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        name TEXT NOT NULL,
        scenario_source TEXT NOT NULL,
        scenario_text TEXT NOT NULL,
        charts_json TEXT NOT NULL,
        seed INTEGER NOT NULL
    );
    CREATE TABLE state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
        command TEXT NOT NULL,
        turn INTEGER NOT NULL,
        phase TEXT NOT NULL,
        inputs TEXT NOT NULL,
        rolls TEXT NOT NULL,
        result TEXT NOT NULL,
        undo TEXT NOT NULL,
        undoes INTEGER,
        state_hash TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
    );
    CREATE INDEX events_undoes ON events (undoes);
    CREATE TABLE event_subjects (
        stand TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (stand, seq)
    );
    """,
    # 2: which edition of the bundled charts a game's stored charts follow, so an older
    # game can take the chart entries added since (tabletop.data.charts.CHARTS_FORMAT).
    """
    ALTER TABLE game ADD COLUMN charts_format INTEGER NOT NULL DEFAULT 1;
    """,
    # 3: the scenario as parsed data (JSON), so commands need not parse its YAML again;
    # NULL in older games, which still parse the text.
    """
    ALTER TABLE game ADD COLUMN scenario_json TEXT;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


def canonical(value: Any) -> str:
    """The one JSON spelling used for hashing and storage."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# A game file as the command line gives it (text) or as a ``Path``: the store takes either
# and keeps it as text, worked with through ``os.path``, so a command that only reads a game
# does not load ``pathlib`` (3 ms of every start).
GameFile = str | os.PathLike[str]

# The hash of an event chained to the one before it: (previous hash, event) -> hash.
EventHasher = Callable[[str, dict[str, Any]], str]

EVENT_FIELDS = (
    "seq", "kind", "command", "turn", "phase", "inputs", "rolls", "result", "undo", "undoes",
    "state_hash",
)  # fmt: skip


@frozen_dataclass
class GameRow:
    """The game row: the scenario and charts the game began with (as text and JSON), its dice
    seed, and which edition of the charts' format they follow."""

    name: str
    scenario_source: str
    scenario_text: str
    charts_json: str
    seed: int
    charts_format: int = 1
    scenario_json: str | None = None


@frozen_dataclass
class EventRow:
    """One logged event: the command and its inputs, the dice it rolled, what it changed (and
    how to undo it), and the hash that chains it to the event before."""

    seq: int
    kind: str
    command: str
    turn: int
    phase: str
    inputs: Any
    rolls: list[dict[str, Any]]
    result: Any
    undo: dict[str, str | None]
    undoes: int | None
    state_hash: str
    prev_hash: str
    hash: str

    def hashed_fields(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in EVENT_FIELDS}


def busy_seconds() -> float:
    """How long a command waits for another one to finish with the game file."""
    raw = os.environ.get(BUSY_ENV, "").strip()
    if not raw:
        return BUSY_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= MAX_BUSY_SECONDS:  # also refuses nan
        raise BadInput(
            f"{BUSY_ENV}={raw!r} is not a wait in seconds: give a number from 0 to "
            f"{MAX_BUSY_SECONDS:g}, or unset it for the default {BUSY_SECONDS:g}"
        )
    return seconds


def _connect(path: str) -> sqlite3.Connection:
    seconds = busy_seconds()
    conn = sqlite3.connect(path, timeout=seconds, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
    return conn


@contextlib.contextmanager
def _closed_on_failure(conn: sqlite3.Connection, path: str, what: str) -> Iterator[None]:
    """Opening a game: any failure closes the connection and is said as one domain error (a
    busy file as busy, another SQLite complaint as ``path what (its words)``)."""
    try:
        yield
    except TabletopError:
        conn.close()
        raise
    except sqlite3.OperationalError as exc:
        conn.close()
        if "locked" in str(exc) or "busy" in str(exc):
            raise _busy(path) from None
        raise BadInput(f"{path!r} {what} ({exc})") from None
    except sqlite3.DatabaseError:
        conn.close()
        raise BadInput(f"{path!r} is not a tabletop game file") from None


class Store:
    """An open game file."""

    def __init__(self, conn: sqlite3.Connection, path: GameFile):
        self.conn = conn
        self.path = os.fspath(path)

    # --- opening and creating ---------------------------------------------------------------

    @classmethod
    def open(cls, path: GameFile) -> Store:
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise NoGame(
                f"no game at {path!r}: start one with 'tabletop new SCENARIO.yaml' "
                "(or pass --game PATH)"
            )
        conn = _connect(path)
        store = cls(conn, path)
        with _closed_on_failure(conn, path, "is not a tabletop game file"):
            # Check the file is a game before anything writes to it: an empty file or another
            # program's database must not be migrated into a half-made game or switched to WAL,
            # and a newer program's game must be left exactly as that program wrote it.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                raise BadInput(
                    f"{path!r} is not a tabletop game file (start a game with "
                    "'tabletop new SCENARIO.yaml')"
                )
            if version > SCHEMA_VERSION:
                raise _newer(path, version)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            store._migrate()
            store.game()
        return store

    @classmethod
    def open_read_only(cls, path: GameFile) -> Store:
        """The game opened for reading only (``tabletop serve``): SQLite refuses every write
        on this connection, and nothing is migrated or switched, so the file stays exactly as
        its writers left it. The reads from here to ``close`` are one snapshot (a read
        transaction), however the referee's commands write meanwhile (WAL)."""
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise NoGame(
                f"no game at {path!r}: start one with 'tabletop new SCENARIO.yaml' "
                "(or pass --game PATH)"
            )
        uri = _file_uri(path) + "?mode=ro"
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=busy_seconds(), isolation_level=None)
        except sqlite3.Error as exc:
            raise BadInput(f"cannot read the game {path!r}: {exc}") from None
        store = cls(conn, path)
        with _closed_on_failure(conn, path, "cannot be read as a tabletop game"):
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                raise BadInput(f"{path!r} is not a tabletop game file")
            if version > SCHEMA_VERSION:
                raise _newer(path, version)
            if version < SCHEMA_VERSION:
                # Bringing it up to date is a write: another command does it first.
                raise BadInput(
                    f"{path!r} was written by an older tabletop: run any command on it "
                    "once (for example 'tabletop status') to bring it up to date"
                )
            conn.execute("BEGIN")
            store.game()
        return store

    @classmethod
    def create(
        cls,
        path: GameFile,
        game: GameRow,
        rows: dict[str, str],
        first_event: dict[str, Any],
        *,
        force: bool,
        hash_event: EventHasher,
    ) -> Store:
        """Write a new game file atomically (a temporary file renamed into place); the first
        event chained by ``hash_event`` (``state/hashes.py``)."""
        path = os.fspath(path)
        if os.path.isdir(path):
            raise BadInput(f"{path!r} is a folder, not a game file")
        if os.path.exists(path) and not force:
            raise BadInput(
                f"{path!r} already exists: use --force to replace it, "
                "or --game to choose another file"
            )
        folder, name = os.path.split(path)
        if not os.path.isdir(folder or "."):
            raise BadInput(
                f"cannot create a game at {path!r}: the folder {folder or '.'!r} does not exist"
            )
        temp = os.path.join(folder, f".{name}.new-{os.getpid()}")
        for leftover in _family(temp):
            _unlink(leftover)
        if os.path.exists(path):
            _fold_wal(path)
        try:
            conn = _connect(temp)
        except sqlite3.OperationalError as exc:
            raise BadInput(f"cannot create a game at {path!r}: {exc}") from None
        try:
            conn.execute("PRAGMA journal_mode = DELETE")
            store = cls(conn, temp)
            store._migrate()
            with store.transaction():
                conn.execute(
                    "INSERT INTO game (id, name, scenario_source, scenario_text, charts_json, seed,"
                    " charts_format, scenario_json) VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        game.name,
                        game.scenario_source,
                        game.scenario_text,
                        game.charts_json,
                        game.seed,
                        game.charts_format,
                        game.scenario_json,
                    ),
                )
                store.write_rows({k: v for k, v in rows.items()})
                store.append_event(first_event, subjects=(), hash_event=hash_event)
            conn.close()
            for old in _family(path):
                if old != path:
                    _unlink(old)
            os.replace(temp, path)
        except BaseException as exc:
            conn.close()
            for leftover in _family(temp):
                _unlink(leftover)
            if isinstance(exc, sqlite3.Error | OSError):
                raise BadInput(f"cannot create a game at {path!r}: {exc}") from None
            raise
        return cls.open(path)

    def close(self) -> None:
        self.conn.close()

    def _migrate(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise _newer(self.path, version)
        if version < SCHEMA_VERSION:
            with self.transaction():
                version = self.conn.execute("PRAGMA user_version").fetchone()[0]
                for number in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in MIGRATIONS[number - 1].split(";"):
                        if statement.strip():
                            self.conn.execute(statement)
                    self.conn.execute(f"PRAGMA user_version = {number}")
        else:
            tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}
            if not {"game", "state", "events"} <= tables:
                raise BadInput(f"{self.path!r} is not a tabletop game file")

    # --- transactions -----------------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise _busy(self.path) from None
            raise
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    # --- reading ----------------------------------------------------------------------------

    def game(self) -> GameRow:
        row = self.conn.execute(
            "SELECT name, scenario_source, scenario_text, charts_json, seed, charts_format,"
            " scenario_json FROM game"
        ).fetchone()
        if row is None:
            raise BadInput(f"{self.path!r} has no game in it")
        return GameRow(*row)

    def rows(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM state"))

    def row(self, key: str) -> str | None:
        found = self.conn.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return None if found is None else str(found[0])

    def last_hash(self) -> str:
        row = self.conn.execute("SELECT hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return GENESIS if row is None else str(row[0])

    def next_seq(self) -> int:
        row = self.conn.execute("SELECT MAX(seq) FROM events").fetchone()
        return 1 if row[0] is None else int(row[0]) + 1

    def events(self, *, stand: str | None = None, last: int | None = None) -> list[EventRow]:
        """Events in log order; only those involving ``stand``; only the ``last`` N of them."""
        where = ""
        args: list[Any] = []
        if stand is not None:
            where = "WHERE seq IN (SELECT seq FROM event_subjects WHERE stand = ?)"
            args.append(stand)
        # LIMIT -1 is SQLite's "no limit", so one statement serves both cases.
        args.append(-1 if last is None else last)
        query = (
            f"SELECT * FROM (SELECT * FROM events {where} ORDER BY seq DESC LIMIT ?) ORDER BY seq"
        )
        return [_event(r) for r in self.conn.execute(query, args)]

    def event(self, seq: int) -> EventRow | None:
        row = self.conn.execute("SELECT * FROM events WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else _event(row)

    def last_active_action(self) -> EventRow | None:
        row = self.conn.execute(
            "SELECT * FROM events WHERE kind = 'action' AND seq > 1 AND seq NOT IN "
            "(SELECT undoes FROM events WHERE undoes IS NOT NULL) ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return None if row is None else _event(row)

    # --- writing ----------------------------------------------------------------------------

    def write_rows(self, changes: dict[str, str | None]) -> None:
        for key, value in changes.items():
            if value is None:
                self.conn.execute("DELETE FROM state WHERE key = ?", (key,))
            else:
                self.conn.execute(
                    "INSERT INTO state (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    def append_event(
        self,
        event: dict[str, Any],
        subjects: tuple[str, ...] | list[str],
        hash_event: EventHasher,
    ) -> str:
        """Log ``event`` after the last, chained to it by ``hash_event`` (``state/hashes.py``:
        a writer passes it, so a command that only reads does not load the hashing)."""
        prev = self.last_hash()
        event = {**event, "seq": self.next_seq()}
        digest = hash_event(prev, event)
        self.conn.execute(
            "INSERT INTO events (seq, kind, command, turn, phase, inputs, rolls, result, undo,"
            " undoes, state_hash, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                event["seq"],
                event["kind"],
                event["command"],
                event["turn"],
                event["phase"],
                canonical(event["inputs"]),
                canonical(event["rolls"]),
                canonical(event["result"]),
                canonical(event["undo"]),
                event["undoes"],
                event["state_hash"],
                prev,
                digest,
            ),
        )
        for stand in sorted(set(subjects)):
            self.conn.execute(
                "INSERT INTO event_subjects (stand, seq) VALUES (?, ?)", (stand, event["seq"])
            )
        return digest


def _event(row: tuple[Any, ...]) -> EventRow:
    (seq, kind, command, turn, phase, inputs, rolls, result, undo, undoes, sh, prev, digest) = row
    return EventRow(
        seq,
        kind,
        command,
        turn,
        phase,
        json.loads(inputs),
        json.loads(rolls),
        json.loads(result),
        json.loads(undo),
        undoes,
        sh,
        prev,
        digest,
    )


def _family(path: str) -> list[str]:
    """A game file and the files SQLite keeps beside it."""
    return [path, path + "-wal", path + "-shm", path + "-journal"]


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _file_uri(path: str) -> str:
    """``path`` as an SQLite ``file:`` URI (for ``?mode=ro``): absolute, with the three
    characters a URI's path may not hold as they are (``%``, ``?``, ``#``) escaped, as
    SQLite's URI rules ask; SQLite reads every other character as written."""
    absolute = os.path.abspath(path)
    if os.sep != "/":  # Windows: file:///C:/folder/game.sqlite
        absolute = "/" + absolute.replace(os.sep, "/")
    escaped = absolute.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return f"file://{escaped}"


def _fold_wal(path: str) -> None:
    """Move what a game's write-ahead log holds into its main file, before a replacement.

    ``create`` removes the old game's -wal and -shm files before renaming the new file into
    place (a stale log beside the new file would be read as part of it). Commits can still be
    only in the log (a killed command leaves them there), so they are folded in first: a crash
    between the removal and the rename then leaves the old game whole.
    """
    if not os.path.exists(path + "-wal"):
        return
    try:
        conn = sqlite3.connect(path, timeout=busy_seconds(), isolation_level=None)
    except sqlite3.Error:
        return
    try:
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise _busy(path) from None
        return
    except sqlite3.DatabaseError:
        return  # not a database: the log beside it holds nothing of ours to keep
    finally:
        conn.close()
    if busy:
        raise _busy(path)


def _newer(path: str, version: int) -> BadInput:
    return BadInput(
        f"{path!r} was written by a newer tabletop (schema {version}; "
        f"this program knows up to {SCHEMA_VERSION}): upgrade tabletop"
    )


def _busy(path: str) -> GameBusy:
    return GameBusy(
        f"the game {path!r} is busy: another tabletop command held it for more than "
        f"{busy_seconds():g} s; try again"
    )
