"""Undo (named, back to event N, previewed, guarded at turn boundaries) and redo, with
replay reproducing every round trip."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.conftest import Run, as_json, file_digest, goto_phase


def rows_of(run: Run) -> dict[str, str]:
    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        return dict(conn.execute("SELECT key, value FROM state"))
    finally:
        conn.close()


def last_event(run: Run) -> tuple[Any, ...]:
    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        row = conn.execute(
            "SELECT seq, kind, command, undoes FROM events ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return tuple(row)
    finally:
        conn.close()


def test_undo_names_the_command_it_takes_back(game: Run) -> None:
    game("place", "G-1", "12", "30")
    out = game("undo").output.splitlines()
    assert out == [
        "Undid #2 place stand=G-1 x=12 y=30 (turn 1, movement) (event 3).",
        "Now turn 1, movement phase. 'tabletop redo' puts it back.",
    ]


def test_undo_after_a_refused_command_names_the_earlier_command(game: Run) -> None:
    game("roll", "d10")
    game("place", "NOPE", "1", "1", code=2)  # refused: never logged
    data = as_json(game("undo", "--json"))
    assert (data["undid"], data["command"]) == (2, "roll")
    assert data["undone"][0]["inputs"] == {"dice": "d10", "purpose": None}


def test_dry_run_lists_what_would_go_and_changes_nothing(game: Run) -> None:
    game("roll", "d10")
    game("roll", "d6")
    before = file_digest(game.game)  # type: ignore[attr-defined]
    data = as_json(game("undo", "--to", "1", "--dry-run", "--json"))
    assert [e["seq"] for e in data["undone"]] == [3, 2]
    assert (data["turn"], data["phase"], data["crosses_turn"]) == (1, "movement", False)
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_undo_to_n_goes_back_to_the_state_after_event_n(game: Run) -> None:
    game("roll", "d10")
    after_2 = rows_of(game)
    game("place", "G-1", "12", "30")
    game("roll", "2d6")
    data = as_json(game("undo", "--to", "2", "--json"))
    assert [e["seq"] for e in data["undone"]] == [4, 3]
    assert data["events"] == [5, 6]
    assert rows_of(game) == after_2
    assert game("replay").output == "replay reproduces the stored state (6 events)\n"


def test_undo_refuses_to_cross_a_turn_without_yes(game: Run) -> None:
    goto_phase(game, "command")  # turn 2: the last 'phase next' crossed the turn
    before = file_digest(game.game)  # type: ignore[attr-defined]
    result = game("undo", code=3)
    assert result.output == (
        "Error: undo would take the game back from turn 2 to turn 1 (#5 phase-next): "
        "add --yes to go back across the turn\n"
    )
    assert file_digest(game.game) == before  # type: ignore[attr-defined]
    data = as_json(game("undo", "--yes", "--json"))
    assert (data["turn"], data["phase"]) == (1, "morale")


def test_undo_to_an_unknown_event_is_bad_input(game: Run) -> None:
    game("roll", "d10")
    result = game("undo", "--to", "9", code=2)
    assert result.output.strip() == "Error: --to 9: the log holds events 1 to 2"


def test_redo_puts_back_the_exact_state_and_is_logged(game: Run) -> None:
    game("roll", "3d10")
    after = rows_of(game)
    game("undo")
    data = as_json(game("redo", "--json"))
    assert (data["event"], data["redid"], data["command"]) == (4, 2, "roll")
    assert rows_of(game) == after
    assert last_event(game) == (4, "undo", "redo", 3)
    assert game("replay").output.strip() == "replay reproduces the stored state (4 events)"


def test_redo_after_a_new_command_is_refused(game: Run) -> None:
    game("roll", "d10")
    game("undo")
    game("roll", "d6")
    result = game("redo", code=3)
    assert result.output.strip() == (
        "Error: nothing to redo: #4 (roll) was logged after the last undo, so what was "
        "undone stays undone"
    )


def test_redo_with_nothing_undone_is_refused(game: Run) -> None:
    result = game("redo", code=3)
    assert result.output.strip() == "Error: nothing to redo: no command has been undone"


def test_redo_all_puts_back_in_order_and_the_generator_follows(game: Run) -> None:
    game("roll", "d10")
    game("roll", "d10")
    game("roll", "d10")
    after = rows_of(game)
    game("undo", "--to", "1")
    data = as_json(game("redo", "--all", "--json"))
    assert [e["seq"] for e in data["redone"]] == [2, 3, 4]
    assert rows_of(game) == after
    # The generator is where the three rolls left it: the next roll is a fresh one.
    fourth = as_json(game("roll", "d10", "--json"))
    assert fourth["event"] == 11


def test_undo_redo_undo_round_trip_replays(game: Run) -> None:
    before = rows_of(game)
    game("place", "G-1", "12", "30")
    game("undo")
    game("redo")
    game("undo")
    assert rows_of(game) == before
    game("redo")
    data = as_json(game("replay", "--json"))
    assert data == {
        "ok": True,
        "events": 6,
        "first_divergence": None,
        "message": "replay reproduces the stored state",
    }


def test_report_counts_a_redone_command_as_in_force(game: Run, tmp_path: Path) -> None:
    game("roll", "d10")
    game("undo")
    game("redo")
    data = as_json(game("report", "--json"))
    assert data["undone"] == 0


def test_log_shows_the_redo(game: Run) -> None:
    game("roll", "d10")
    game("undo")
    game("redo")
    lines = game("log").output.splitlines()
    assert lines[-1] == "#4 turn 1 movement: redo -> redid #2 (roll)"
    assert json.loads(game("log", "--json").output)["events"][-1]["undoes"] == 3
