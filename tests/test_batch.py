"""Several stands in one command (issue 20): each checked in turn, all applied or none."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Run, as_json, file_digest


def positions(run: Run, *ids: str) -> list[tuple[float, float]]:
    stands = {s["id"]: s for s in as_json(run("status", "--json"))["stands"]}
    return [(stands[i]["x"], stands[i]["y"]) for i in ids]


def test_place_several_stands_in_one_event(game: Run) -> None:
    out = game("place", "G-1", "12", "30", "--and", "G-2 14 30", "--and", "G-3 16,30 --facing 90")
    assert out.output.splitlines() == [
        "3 stands placed (event 2)",
        '  G-1 at 12,30 facing 180, moved 6.708"',
        '  G-2 at 14,30 facing 180, moved 7.211"',
        '  G-3 at 16,30 facing 90, moved 14.213"',
    ]
    assert positions(game, "G-1", "G-2", "G-3") == [(12, 30), (14, 30), (16, 30)]
    assert as_json(game("replay", "--json"))["ok"] is True


def test_one_refused_stand_places_none(game: Run) -> None:
    before = file_digest(game.game)  # type: ignore[attr-defined]
    out = game("place", "G-1", "20", "30", "--and", "G-2 20.3 30", code=3)
    assert out.output.strip() == (
        "Error: place item 2 of 2 (G-2): G-2 at (20.3, 30) would overlap G-1: bases may touch "
        "but not overlap; nothing was applied"
    )
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_a_bad_item_is_bad_input_naming_it(game: Run) -> None:
    out = game("place", "--and", "G-1 1", code=2)
    assert out.output == (
        "Error: --and 'G-1 1': missing Y: give the position as X Y (or X,Y) in inches "
        "(see 'tabletop place --help')\n"
    )


def test_an_item_without_a_position_is_bad_input_not_a_crash(game: Run) -> None:
    before = file_digest(game.game)  # type: ignore[attr-defined]
    out = game("place", "G-1", "12", "30", "--and", "G-2", code=2)
    assert out.output == (
        "Error: --and 'G-2': missing X Y: give the position as X Y (or X,Y) in inches "
        "(see 'tabletop place --help')\n"
    )
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_a_bad_line_of_a_file_names_the_line_and_the_argument(game: Run, tmp_path: Path) -> None:
    setup = tmp_path / "setup.txt"
    setup.write_text("US-1 5 5\nUS-2 x 5\n", encoding="utf-8")
    out = game("place", "--file", str(setup), code=2)
    assert out.output == (
        f"Error: {setup} line 2: Invalid value for 'X': 'x' is not a number of inches "
        "(see 'tabletop place --help')\n"
    )


def test_a_stand_placed_twice_in_one_batch_is_refused(game: Run) -> None:
    out = game("place", "G-1", "12", "30", "--and", "g-1 14 30", code=2)
    assert out.output == (
        "Error: G-1, g-1 given more than once: a batch places each stand once "
        "(see 'tabletop place --help')\n"
    )


def test_place_from_a_file_and_one_undo_takes_it_all_back(game: Run, tmp_path: Path) -> None:
    setup = tmp_path / "setup.txt"
    setup.write_text("# the American line\nUS-1 5 5\n\nUS-2 7 5 --facing 45\n", encoding="utf-8")
    before = positions(game, "US-1", "US-2")
    data = as_json(game("place", "--file", str(setup), "--json"))
    assert (data["command"], data["count"]) == ("place", 2)
    assert [(r["stand"], r["facing"]) for r in data["items"]] == [("US-1", 0.0), ("US-2", 45.0)]
    game("undo")
    assert positions(game, "US-1", "US-2") == before


def test_nothing_to_place_is_a_usage_error(game: Run) -> None:
    out = game("place", code=2)
    assert out.output == (
        "Error: give STAND X Y, or --file with one 'STAND X Y' a line "
        "(see 'tabletop place --help')\n"
    )


def test_several_moves_in_one_event_each_refereed(game: Run) -> None:
    out = game("move", "US-1", "18,9", "--and", "US-2 11,8", "--and", "us-3 40,10 --facing 90")
    assert out.output.splitlines() == [
        "3 stands moved (event 2)",
        '  US-1 moves 3.00" to 18.00,9.00 for 3.00" of its 6"',
        '  US-2 moves 3.00" to 11.00,8.00 for 3.00" of its 6"',
        '  US-3 moves 6.00" to 40.00,10.00 for 6.00" of its 12"',
    ]
    assert positions(game, "US-1", "US-2", "US-3") == [(18, 9), (11, 8), (40, 10)]
    preview = game("undo", "--dry-run").output.splitlines()
    assert preview[1] == (
        "  #2 batch move of 3: US-1, US-2, us-3 (turn 1, movement): move: 3 stands, all applied"
    )


def test_one_refused_move_moves_none(game: Run) -> None:
    before = file_digest(game.game)  # type: ignore[attr-defined]
    out = game("move", "US-1", "18,9", "--and", "US-3 40,30", code=3)
    lines = out.output.strip().splitlines()
    assert lines[0] == (
        'Error: move item 2 of 2 (US-3): US-3 needs 25.68" of movement but has 12" (tank '
        "allowance (CD core (default))): it runs out at 40.00,16.00 ('tabletop move US-3 "
        "40.00,16.00' stops there) (movement costs, CD 10.2.2, 10.3.2, 11); nothing was applied"
    )
    # The item's costs follow, piece by piece, adding up to what it needs.
    assert lines[1] == '  4.29" open: x1 = 4.29" (CD core (default))'
    assert lines[-1] == '  total 25.68" of its 12"'
    assert file_digest(game.game) == before  # type: ignore[attr-defined]
