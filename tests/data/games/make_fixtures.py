"""Build the game files tests/test_upgrade.py opens: one per schema version.

    python tests/data/games/make_fixtures.py            # add the current schema's file
    python tests/data/games/make_fixtures.py --schema-1 # rebuild schema-1.db too

A file written at a schema version is kept as it is: when a migration is added, run this
script to add ``schema-<new>.db`` and commit it next to the older ones. Schema 1 came
before migration 2 (the ``game.charts_format`` column) and before event 1 recorded the digest
of the game's charts; its file is made by playing a game with this program and rewriting it
into the first schema (the DDL of ``MIGRATIONS[0]``, the old 'new' event, the chain rehashed).
The files end in ``.db`` because the repository ignores ``*.sqlite`` (players' games).
"""

from __future__ import annotations

import argparse
import gc
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parents[2]))  # the checkout, when run as a script

from tabletop.state.hashes import event_hash  # noqa: E402
from tabletop.state.store import (  # noqa: E402
    MIGRATIONS,
    SCHEMA_VERSION,
    canonical,
)

SEED = 11
# Commands whose replay depends on little but the dice: place, roll (typed and generated
# dice), undo. Run through the command line, as a referee would.
PLAY = [
    ("place", "G-1", "12", "30", "--facing", "90"),
    ("roll", "3d10", "--dice", "2,9,+"),
    ("roll", "d6", "--for", "who blinks"),
    ("undo",),
    ("place", "US-1", "20", "8"),
]


def play(path: Path) -> None:
    from click.testing import CliRunner

    from tabletop.cli import cli

    for args in [("new", "crossroads", "--seed", str(SEED)), *PLAY]:
        result = CliRunner().invoke(cli, [*args, "--game", str(path)])
        if result.exit_code != 0:
            raise SystemExit(f"{' '.join(args)}: {result.output}")
    gc.collect()  # the commands' connections, so the file can leave WAL mode
    settle(path)


def settle(path: Path) -> None:
    """One self-contained file: no write-ahead log beside it, no free pages."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("VACUUM")
    finally:
        conn.close()


def to_schema_1(source: Path, target: Path) -> None:
    """Rewrite a current game file as the first schema wrote it."""
    target.unlink(missing_ok=True)
    old = sqlite3.connect(source)
    new = sqlite3.connect(target, isolation_level=None)
    try:
        new.executescript(MIGRATIONS[0])
        new.execute("PRAGMA user_version = 1")
        new.execute("BEGIN")
        new.execute(
            "INSERT INTO game VALUES (1, ?, ?, ?, ?, ?)",
            old.execute(
                "SELECT name, scenario_source, scenario_text, charts_json, seed FROM game"
            ).fetchone(),
        )
        new.executemany("INSERT INTO state VALUES (?, ?)", old.execute("SELECT * FROM state"))
        new.executemany(
            "INSERT INTO event_subjects VALUES (?, ?)", old.execute("SELECT * FROM event_subjects")
        )
        prev = "0" * 64
        columns = [d[1] for d in old.execute("PRAGMA table_info(events)")]
        for values in old.execute("SELECT * FROM events ORDER BY seq"):
            row = dict(zip(columns, values, strict=True))
            if row["seq"] == 1:  # the first schema's 'new' recorded no digest of the charts
                inputs = json.loads(row["inputs"])
                inputs.pop("sha256_charts", None)
                row["inputs"] = canonical(inputs)
            fields = {k: row[k] for k in row if k not in ("prev_hash", "hash")}
            for key in ("inputs", "rolls", "result", "undo"):
                fields[key] = json.loads(fields[key])
            row["prev_hash"], row["hash"] = prev, event_hash(prev, fields)
            prev = row["hash"]
            new.execute(
                f"INSERT INTO events ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                list(row.values()),
            )
        new.execute("COMMIT")
    finally:
        old.close()
        new.close()
    settle(target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schema-1", action="store_true", help="rebuild schema-1.db too")
    parser.add_argument("--force", action="store_true", help="replace the current schema's file")
    args = parser.parse_args()
    current = HERE / f"schema-{SCHEMA_VERSION}.db"
    with tempfile.TemporaryDirectory() as folder:
        played = Path(folder) / "game.sqlite"
        play(played)
        if args.force or not current.exists():
            current.write_bytes(played.read_bytes())
            print(f"wrote {current}")
        if args.schema_1:
            to_schema_1(played, HERE / "schema-1.db")
            print(f"wrote {HERE / 'schema-1.db'}")


if __name__ == "__main__":
    main()
