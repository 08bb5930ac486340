"""Refereed moves (`tabletop move`), `place` as set-up and override, `targets`, stand ids.

The table is tests/data/moves.yaml, drawn for these tests: every figure below is worked by
hand from it (inches to the hundredth) with the charts' numbers and forced dice.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tabletop.cli import cli
from tests.conftest import file_digest

DATA = Path(__file__).parent / "data"
MOVES = DATA / "moves.yaml"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("moves") / "moves.sqlite"
    result = CliRunner().invoke(cli, ["new", str(MOVES), "--seed", "1", "--game", str(path)])
    assert result.exit_code == 0, result.output
    return path


class Table:
    def __init__(self, game: Path):
        self.game = game
        self.runner = CliRunner()

    def __call__(self, *args: str, code: int = 0) -> Any:
        result = self.runner.invoke(cli, [*args, "--game", str(self.game)])
        assert "Traceback" not in result.output, result.output
        assert result.exit_code == code, (args, result.output)
        return result

    def json(self, *args: str, code: int = 0) -> Any:
        return json.loads(self(*args, "--json", code=code).output)

    def stand(self, stand_id: str) -> dict[str, Any]:
        import sqlite3

        conn = sqlite3.connect(self.game)
        try:
            (raw,) = conn.execute("SELECT value FROM state WHERE key = ?", (f"stand:{stand_id}",))
        finally:
            conn.close()
        return json.loads(raw[0])  # type: ignore[no-any-return]


@pytest.fixture
def table(template: Path, tmp_path: Path) -> Table:
    game = tmp_path / "game.sqlite"
    shutil.copy(template, game)
    return Table(game)


def refused(table: Table, *args: str, code: int = 3) -> str:
    before = file_digest(table.game)
    result = table(*args, code=code)
    assert file_digest(table.game) == before, "a refused move changed the game"
    return result.output.strip()


def costs(result: dict[str, Any]) -> list[tuple[str, float, float | None, float]]:
    return [(s["terrain"], s["length"], s["multiplier"], s["cost"]) for s in result["segments"]]


# --- pricing ---------------------------------------------------------------------------------


def test_infantry_walks_into_woods_at_normal_cost(table: Table) -> None:
    r = table.json("move", "INF", "7,7")
    assert costs(r) == [("open", 2.0, 1.0, 2.0), ("wood-1", 3.0, 1.0, 3.0)]
    assert (r["cost"], r["allowance"], r["to"]) == (5.0, 6.0, [7.0, 7.0])
    assert r["refused"] is None and r["crossed"] == []


def test_tank_pays_double_in_woods(table: Table) -> None:
    r = table.json("move", "TANK", "7,9")  # from 7,14: 4" open, then 1" into wood-1
    assert costs(r) == [("open", 4.0, 1.0, 4.0), ("wood-1", 1.0, 2.0, 2.0)]
    assert r["cost"] == 6.0


RUNS_OUT = (
    'TANK needs 24.00" of movement but has 12" (tank allowance (CD core (default))): it runs '
    "out at 7.00,11.00 (movement costs, CD 10.2.2, 10.3.2, 11)"
)


@pytest.mark.parametrize(
    ("ground", "multiplier", "cost", "refusal"),
    [
        # CD 11.1.1: a tracked vehicle in woods in light mud pays 2 x 2 = 4 per inch.
        ("mud-light", 4.0, 4 * 2.0 + 1 * 4.0, None),
        # CD 11.1.2: in moderate mud, 2 x 4 = 8; the open ground costs 4 an inch, so the
        # 12" allowance runs out 3" along.
        ("mud-moderate", 8.0, 4 * 4.0 + 1 * 8.0, RUNS_OUT),
        # CD 11.2.1 and 11.2.2: snow doubles (4 in woods), deep snow quadruples (8).
        ("snow", 4.0, 4 * 2.0 + 1 * 4.0, None),
        ("snow-deep", 8.0, 4 * 4.0 + 1 * 8.0, RUNS_OUT),
    ],
)
def test_seed_woods_and_ground_multipliers(
    table: Table, ground: str, multiplier: float, cost: float, refusal: str | None
) -> None:
    table("weather", "set", "--ground", ground)
    before = file_digest(table.game)
    r = table.json("move", "TANK", "7,9", "--check", code=3 if refusal else 0)
    assert file_digest(table.game) == before, "--check logs nothing"
    assert r["segments"][1]["multiplier"] == multiplier
    assert (r["cost"], r["refused"]) == (cost, refusal)
