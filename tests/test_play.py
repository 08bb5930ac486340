"""'tabletop play': a warm session reading one command a line when stdin is not a terminal."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

from tabletop.cli.commands.play import Session, candidates
from tests.conftest import Run, as_json


def events(path: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return list(
            conn.execute(
                "SELECT seq, kind, command, inputs, rolls, result FROM events ORDER BY seq"
            )
        )
    finally:
        conn.close()


SCRIPT = [
    "roll d10 --dice 4",
    "tabletop place G-1 12 30",
    "# a comment line is skipped",
    "",
    "undo --dry-run",
    "phase next",
]


def test_a_scripted_session_logs_exactly_what_the_shell_does(game: Run, tmp_path: Path) -> None:
    path: Path = game.game  # type: ignore[attr-defined]
    shell = tmp_path / "shell.sqlite"
    shutil.copy(path, shell)
    result = game("play", input="\n".join(SCRIPT) + "\n")
    for line in SCRIPT:
        words = line.removeprefix("tabletop ").split()
        if words and not line.startswith("#"):
            game(*words, game_file=shell)
    assert events(path) == events(shell)
    lines = result.output.splitlines()
    assert lines[0] == "1d10: 4 (total 4)"
    assert "Undo would take back 1 command:" in lines
    assert lines[-1] == "Turn 1, opportunity-fire phase"


def test_an_error_does_not_end_the_session_and_sets_the_exit_status(game: Run) -> None:
    result = game("play", input="show NOPE\nroll d6 --dice 3\n", code=2)
    assert result.output.splitlines()[0] == (
        "Error: line 1 (show NOPE): unknown stand 'NOPE' (stands: G-1, G-2, G-3, G-4, G-5, "
        "G-S, US-1, US-2, US-3, US-4, US-5, US-S)"
    )
    assert result.output.splitlines()[1] == "1d6: 3 (total 3)"
    assert result.output.splitlines()[-1] == "play: 1 of 2 commands failed: line 1 (exit 2)"
    assert len(events(game.game)) == 2  # type: ignore[attr-defined]


def test_quit_ends_the_session(game: Run) -> None:
    game("play", input="quit\nroll d10\n")
    assert len(events(game.game)) == 1  # type: ignore[attr-defined]


def test_play_is_not_run_inside_play(game: Run) -> None:
    result = game("play", input="play\n", code=2)
    assert result.output.splitlines() == [
        "Error: line 1 (play): 'play' is not run inside 'tabletop play'",
        "play: 1 of 1 command failed: line 1 (exit 2)",
    ]


def test_dice_ask_in_a_scripted_session_does_not_eat_the_next_commands(game: Run) -> None:
    # The lines after it are commands: read as die answers, they were lost and every die
    # was then generated and logged.
    result = game("play", input="roll d10 --dice ask\nroll d6 --dice 3\n", code=2)
    assert result.output.splitlines() == [
        "Error: line 1 (roll d10 --dice ask): --dice ask reads each die from the terminal, but "
        "this session reads its commands from a pipe: give the dice on the line, like --dice "
        "3,4 (or 3,+ to let the program roll the rest)",
        "1d6: 3 (total 3)",
        "  dice: 3* (referee roll)",
        "play: 1 of 2 commands failed: line 1 (exit 2)",
    ]
    assert len(events(game.game)) == 2  # type: ignore[attr-defined]


def test_view_applies_to_reading_commands(game: Run) -> None:
    result = game("play", input="view USA\nlog --json\n")
    assert as_json(result)["events"][0]["command"] == "new"


def test_another_process_writing_the_game_is_detected(game: Run) -> None:
    session = Session(game.game)  # type: ignore[attr-defined]
    assert session.refresh() is False  # the first look
    assert (session.turn, session.phase) == (1, "movement")
    assert session.refresh() is False  # nothing changed
    game("phase", "next")  # another process
    assert session.refresh() is True
    assert (session.turn, session.phase) == (1, "opportunity-fire")


def test_completion_offers_commands_stands_and_weapons(game: Run) -> None:
    session = Session(game.game)  # type: ignore[attr-defined]
    session.refresh()
    first = candidates(session, [])
    assert {"fire", "undo", "redo", "quit", "view"} <= set(first)
    assert "play" not in first
    assert {"demolish", "recheck"} <= set(candidates(session, ["engineer"]))
    after_fire = candidates(session, ["fire"])
    assert {"G-4", "US-4", "--weapon", "--dice", "--odds"} <= set(after_fire)
    assert candidates(session, ["fire", "US-4", "G-4", "--weapon"]) == [
        "kwk-20",
        "mortar-81",
        "pak-36",
        "rifle",
        "us-37mm-m6",
        "us-75mm-m2",
        "us-75mm-m3",
    ]


def test_a_failed_script_line_names_its_line_number_and_command(game: Run) -> None:
    script = "# turn 1\n\nroll d6 --dice 2   # the referee's roll\nfire US-1 G-1  # refused\n"
    result = game("play", "--echo", input=script, code=3)
    assert result.stdout.splitlines() == [
        "turn 1 movement [referee]> roll d6 --dice 2   # the referee's roll",
        "1d6: 2 (total 2)",
        "  dice: 2* (referee roll)",
        "turn 1 movement [referee]> fire US-1 G-1  # refused",
    ]
    assert result.stderr.splitlines() == [
        "Error: line 4 (fire US-1 G-1): direct fire is not allowed in the movement phase: it "
        "happens in the opportunity-fire or fire phase (turn chart); advance with 'tabletop "
        "phase next'",
        "play: 1 of 2 commands failed: line 4 (exit 3)",
    ]
