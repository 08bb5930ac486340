"""Refereed moves (`tabletop move`), `place` as set-up and override, `targets`, stand ids.

The table is tests/data/moves.yaml, drawn for these tests: every figure below is worked by
hand from it (inches to the hundredth) with the charts' numbers and forced dice.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tabletop.cli import cli
from tabletop.rules.cd.fire import can_fire_direct
from tests.conftest import Run, as_json, file_digest

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
    # The reason is the first line; a refused move's costs follow it, piece by piece.
    return result.output.strip().splitlines()[0]


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
    "out at 7.00,11.00 ('tabletop move TANK 7.00,11.00' stops there) (movement costs, CD "
    "10.2.2, 10.3.2, 11)"
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


def test_road_is_priced_at_the_road_allowance(table: Table) -> None:
    # A tank's 12" across country is 18" along a road: 18" of road-1 costs exactly 12".
    r = table.json("move", "PZ", "20,44")
    assert costs(r) == [("road-1", 18.0, 0.6667, 12.0)]
    assert r["segments"][0]["rule"] == "CD 11 (roads)"


def test_own_allowance_from_the_scenario(table: Table) -> None:
    r = table.json("move", "FAST", "40,26.5", "--check")  # 8.5" of which 3.5" on pond ice
    assert (r["allowance"], r["cost"], r["refused"]) == (10.0, 8.5, None)


def test_over_allowance_names_inches_and_where_it_runs_out(table: Table) -> None:
    assert refused(table, "move", "INF", "7,18") == (
        'Error: INF needs 16.00" of movement but has 6" (infantry allowance (CD core '
        "(default))): it runs out at 7.00,8.00 ('tabletop move INF 7.00,8.00' stops there) "
        "(movement costs, CD 10.2.2, 10.3.2, 11)"
    )


# --- what the path crosses -------------------------------------------------------------------


def test_river_without_ford_or_bridge_is_refused_where_entered(table: Table) -> None:
    assert refused(table, "move", "TANK", "7,22") == (
        "Error: TANK cannot enter river-1 at 7.00,19.00: river-1 (river) is crossed only at "
        "a ford, by a bridge that carries the stand or by assault boat ('tabletop engineer "
        "boat') (CD 2)"
    )


def test_bridge_carries_infantry_but_not_a_heavier_tank(table: Table) -> None:
    assert refused(table, "move", "TANK", "11,22", "--via", "11,14") == (
        "Error: TANK cannot enter bridge-ok at 11.00,18.50: bridge-ok (class III) cannot "
        "carry TANK (class IV) (CD 2.4.1)"
    )
    r = table.json("move", "US-1", "11,22", "--via", "11,12", "--check", code=3)
    assert r["refused"] == (
        'US-1 needs 29.00" of movement but has 6" (infantry allowance (CD core (default))): '
        "it runs out at 24.00,12.00 ('tabletop move US-1 24.00,12.00' stops there) (movement "
        "costs, CD 10.2.2, 10.3.2, 11)"
    )
    table("place", "INF", "11,17")
    r = table.json("move", "INF", "11,22")
    assert costs(r) == [
        ("open", 1.5, 1.0, 1.5),
        ("bridge-ok", 3.0, 1.0, 3.0),
        ("open", 0.5, 1.0, 0.5),
    ]
    assert [(e["kind"], e["id"], e["rule"], e["result"]) for e in r["crossed"]] == [
        ("bridge", "bridge-ok", "CD 2.4", "crosses bridge-ok (class III)")
    ]


def test_damaged_bridge_cannot_be_crossed_nor_stood_on(table: Table) -> None:
    table("place", "INF", "21,16")  # still setting up
    assert refused(table, "move", "INF", "21,19") == (
        "Error: INF cannot enter bridge-bad at 21.00,18.50: bridge-bad is damaged: no stand "
        "may cross it (CD 2.4.1)"
    )
    assert refused(table, "place", "INF", "21", "20") == (
        "Error: bridge-bad is damaged: no stand may be put on the wreck (CD 2.4.1)"
    )


def test_ford_at_double_cost(table: Table) -> None:
    table("place", "INF", "31,18.5")
    r = table.json("move", "INF", "31,21.5")
    assert costs(r) == [("ford-1", 3.0, 2.0, 6.0)]
    assert [(e["kind"], e["id"], e["rule"]) for e in r["crossed"]] == [("ford", "ford-1", "CD 2")]


def test_wire_slows_and_ditch_bars_vehicles(table: Table) -> None:
    table("place", "INF", "35,7")
    table("place", "TANK", "40,7", "--facing", "90")
    r = table.json("move", "INF", "37,7")  # 0.5" of wire at x2
    assert r["cost"] == 2.5
    assert [(e["kind"], e["id"], e["rule"]) for e in r["crossed"]] == [
        ("obstacle", "wire-1", "CD 4.1")
    ]
    assert refused(table, "move", "TANK", "44,7") == (
        "Error: TANK cannot enter ditch-1 at 41.50,7.00: ditch-1 (ditch) bars tracked stands "
        "until cleared or bridged (CD 4.2)"
    )


def test_burning_terrain_cannot_be_entered(table: Table) -> None:
    table("place", "INF", "4,24")
    assert refused(table, "move", "INF", "4,28") == (
        "Error: INF cannot enter house at 4.00,26.00: house is burning: no stand may enter it "
        "(CD 6.2.2)"
    )


# --- ice (CD 11.3) ---------------------------------------------------------------------------


def test_ice_that_bears_costs_double_for_vehicles(table: Table) -> None:
    r = table.json("move", "LORRY", "26,27")
    assert costs(r) == [("lake-1", 3.0, 2.0, 6.0)]
    assert r["crossed"][0]["result"] == "class III ice on lake-1: bears LORRY (needs II)"


def test_snow_covered_lake_costs_as_snowy_ground(table: Table) -> None:
    table("weather", "set", "--ground", "snow")
    r = table.json("move", "LORRY", "26,27", "--check")
    assert costs(r) == [("lake-1", 3.0, 2.0, 6.0)]
    assert r["segments"][0]["ground"] == "snow"


def test_vehicle_breaks_through_a_hidden_thin_patch_where_it_starts(table: Table) -> None:
    r = table.json("move", "LORRY", "29,30.5")
    assert (r["to"], r["moved"], r["status"]) == ([29.0, 30.0], 3.0, "eliminated")
    # The patch cuts nothing the players see: one stretch of lake-1, paid up to where the
    # ice gave way.
    assert costs(r) == [("lake-1", 3.0, 2.0, 6.0)]
    hidden = [e for e in r["crossed"] if e["id"] == "thin"]
    assert hidden[0]["result"] == "referee: class I ice on thin: too thin for LORRY (needs II)"
    assert r["crossed"][-1] == {
        "kind": "ice-breaks",
        "id": "lake-1",
        "point": [29.0, 30.0],
        "rule": "CD 11.3",
        "result": "breaks through at 29.00,30.00 and is lost",
    }


def test_infantry_break_through_and_stay_at_the_edge(table: Table) -> None:
    r = table.json("move", "FAST", "40,27", "--dice", "1")
    assert (r["to"], r["moved"], r["cost"], r["status"]) == ([40.0, 30.0], 5.0, 5.0, "ok")
    assert r["crossed"][-1]["result"] == (
        "breaks through at 40.00,30.00: takes a hit (no effect (rolled 1)) and stays at the "
        "edge of the ice it fell through"
    )


def test_hidden_patch_is_not_called_a_snow_covered_lake_on_a_dry_table(table: Table) -> None:
    r = table.json("place", "ENG", "29", "31")
    assert r["notes"][0] == (
        "referee: ENG ends its move on thin, a hidden patch of class I ice that looks like "
        "the ice around it (CD 11.3)"
    )


# --- mud and miring (CD 10.3.4, 11.1.4) -----------------------------------------------------


def test_detour_through_a_local_bog_mires_and_is_placed_halfway(table: Table) -> None:
    r = table.json("move", "CAR", "18,7", "--dice", "3")
    assert costs(r) == [("open", 2.0, 1.0, 2.0), ("bog", 2.0, 4.0, 8.0), ("open", 2.0, 1.0, 2.0)]
    assert (r["cost"], r["mired"], r["to"]) == (12.0, True, [15.0, 7.0])
    row = table.stand("CAR")
    assert "mired" in row["markers"]
    assert row["last_move"] == {
        "turn": 1,
        "phase": "movement",
        "ground": "mud-deep",
        "where": "open",
        "mire_checked": True,
    }


def test_seed_detour_off_a_hard_road_must_roll(table: Table) -> None:
    # CD 11.1.4's example: an armoured car leaves a hard road round a wreck into deep mud and
    # regains the road; it is safe on the road but still rolls, mired on 1-4, halfway across.
    table("weather", "set", "--ground", "mud-deep")
    r = table.json("move", "AC2", "32,44", "--via", "31,43", "--dice", "4")
    assert [s["cost"] for s in r["segments"]] == [0.354, 5.657, 0.354]
    assert (r["cost"], r["mired"], r["to"]) == (6.36, True, [31.0, 43.0])
    r = table.json("move", "CAR", "13,7", "--check")
    assert r["odds"] == {
        "mires on 4 or less (open in mud-deep): not mired": "3/5",
        "mires on 4 or less (open in mud-deep): mired": "2/5",
    }


def test_deep_mud_beside_a_flood_mires(table: Table) -> None:
    r = table.json("move", "HT", "54,25", "--dice", "5")
    assert costs(r) == [("open", 1.0, 4.0, 4.0)]
    assert 'within 2" of impassable flooding: deep mud (CD 10.3.4)' in r["segments"][0]["because"]
    assert r["crossed"][-1]["result"] == "mires on 4 or less (open in mud-deep): not mired"
    assert table.stand("HT")["last_move"]["mire_checked"] is True


def test_no_miring_roll_on_dry_ground(table: Table) -> None:
    result = table("move", "CAR", "12,9", "--dice", "3", code=2)
    assert result.output == (
        "Error: --dice gave 3 but no roll was needed: CAR crossed no ground where it "
        "can mire (CD 11.1.4)\n"
    )


def test_mired_and_freed_vehicles_do_not_move(table: Table) -> None:
    table("move", "CAR", "18,7", "--dice", "3")
    for _ in range(6):
        table("phase", "next")  # turn 2, movement
    assert refused(table, "move", "CAR", "15,9") == (
        "Error: CAR is mired: it may not move or change facing until unmired (CD 11.1.4); "
        "free it with 'tabletop unmire CAR'"
    )


def test_a_vehicle_that_freed_itself_waits_a_turn(template: Path, tmp_path: Path) -> None:
    from tabletop.core.errors import RulesRefusal
    from tabletop.game.engine import Game
    from tabletop.rules.cd.movement import move_action

    game = tmp_path / "g.sqlite"
    shutil.copy(template, game)
    g = Game.open(game)
    ctx = g.context()
    # CD 11.1.5: a tracked vehicle in the open mires on 1-2 and frees itself above 4; freed,
    # it moves one inch and no more that turn.
    ctx.state.stand("TANK")["unmired_turn"] = ctx.state.turn
    with pytest.raises(RulesRefusal, match=r"freed itself .* next turn \(CD 11\.1\.5\)"):
        move_action(ctx, {"stand": "TANK", "to": [7, 12]})
    g.close()


def test_a_stand_a_model_has_pinned_does_not_move(template: Path, tmp_path: Path) -> None:
    from tabletop.core.errors import RulesRefusal
    from tabletop.game.engine import Game
    from tabletop.rules.cd.movement import move_action

    game = tmp_path / "g.sqlite"
    shutil.copy(template, game)
    g = Game.open(game)
    ctx = g.context()
    # MB 7.7: over 50 suppression the unit is pinned; the record says so and why.
    ctx.state.stand("TANK")["models"] = {
        "mech-brigade": {
            "suppression": 60,
            "pinned": True,
            "pinned_rule": "MB 7.7: over 50 the unit is pinned and does not move",
        }
    }
    with pytest.raises(RulesRefusal) as refusal:
        move_action(ctx, {"stand": "TANK", "to": [7, 12]})
    assert str(refusal.value) == (
        "TANK is pinned under mech-brigade and may not move "
        "(MB 7.7: over 50 the unit is pinned and does not move)"
    )
    g.close()


# --- minefields (CD 3.2) ---------------------------------------------------------------------


def test_through_a_real_field_stops_past_it_and_is_attacked_twice(table: Table) -> None:
    r = table.json("move", "ENG", "45,39.5")
    assert (r["to"], r["attacks"], r["revealed"]) == (
        [45.0, 38.9],
        2,
        [{"id": "mf-1", "real": True}],
    )


def test_stopping_at_the_edge_is_one_attack_and_engineers_none(table: Table) -> None:
    r = table.json("move", "FAST", "45,37.1", "--via", "44,35.5")
    assert (r["attacks"], r["to"]) == (1, [45.0, 37.1])


def test_engineer_stopping_beside_a_field_reveals_it_unharmed(table: Table) -> None:
    r = table.json("move", "ENG", "45,37")
    assert (r["attacks"], r["revealed"]) == (0, [{"id": "mf-1", "real": True}])


def test_dummy_field_is_removed_when_met(table: Table) -> None:
    table("place", "INF", "48,36")
    r = table.json("move", "INF", "48,40")
    assert (r["attacks"], r["revealed"], r["to"]) == (
        0,
        [{"id": "mf-2", "real": False}],
        [48.0, 40.0],
    )
    assert [f["id"] for f in table.json("minefield", "list")["minefields"]] == ["mf-1"]


def test_minefield_cross_meets_mines_as_move_does(table: Table) -> None:
    r = table.json("minefield", "cross", "ENG", "--path", "45,39.5")
    assert (r["stopped_at"], r["attacks"], r["revealed"]) == (
        [45.0, 38.9],
        2,
        [{"id": "mf-1", "real": True}],
    )


def test_scenario_minefields_follow_the_placing_rules(tmp_path: Path) -> None:
    text = MOVES.read_text().replace("at: [45, 38]}", "at: [20, 20]}")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    result = CliRunner().invoke(cli, ["new", str(bad), "--game", str(tmp_path / "b.sqlite")])
    assert result.exit_code == 2
    assert result.output == "Error: bad.yaml: minefields[0]: no minefields in river (CD 3.1.1)\n"


# --- refusals and bad input ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["INF", "70,5"], "Error: 70,5 is off the 60 x 48 table"),
        (["INF", "-1,5"], "Error: -1,5 is off the 60 x 48 table"),
        (["INF", "5,5", "--via=-1,5"], "Error: -1,5 is off the 60 x 48 table"),
        (
            ["INF", "5,5", "--chek"],
            "Error: No such option '--chek'. Did you mean '--check'? (see 'tabletop move --help')",
        ),
        (["INF", "5,5", "--odds"], "Error: No such option '--odds'. (see 'tabletop move --help')"),
        (
            ["INF", "5"],
            "Error: Invalid value for 'X,Y': '5' is not a point: write X,Y in inches, like "
            "24,12.5 (see 'tabletop move --help')",
        ),
        (
            ["INX", "5,5"],
            "Error: unknown stand 'INX' (stands: INF, TANK, CAR, LORRY, AC2, HT, ENG, PZ, "
            "FAST, US-1, US-2); did you mean 'INF'?",
        ),
        (
            ["us-3", "5,5"],
            "Error: unknown stand 'us-3' (stands: INF, TANK, CAR, LORRY, AC2, HT, ENG, PZ, "
            "FAST, US-1, US-2); did you mean 'US-2'?",
        ),
    ],
)
def test_bad_input_exits_2_and_changes_nothing(table: Table, args: list[str], message: str) -> None:
    assert refused(table, "move", *args, code=2) == message


def test_stand_ids_are_case_insensitive(table: Table) -> None:
    assert table.json("move", "inf", "7,5")["stand"] == "INF"
    assert table.json("show", "us-1")["id"] == "US-1"


def test_once_per_movement_phase_and_only_in_movement(table: Table) -> None:
    table("move", "INF", "7,3")
    assert refused(table, "move", "INF", "7,4") == (
        "Error: INF has already moved this movement phase: one move per stand per movement "
        "phase (CD core)"
    )
    table("phase", "next")
    assert refused(table, "move", "TANK", "7,12") == (
        "Error: TANK cannot move in the opportunity-fire phase: stands move in the movement "
        "phase (turn chart); advance with 'tabletop phase next'"
    )


def test_bases_may_not_overlap_at_the_end(table: Table) -> None:
    assert refused(table, "move", "ENG", "40.5,35") == (
        "Error: ENG would end at 40.5,35 on top of FAST: bases may touch but not overlap"
    )


# --- place, opportunity fire, targets --------------------------------------------------------


def test_place_outside_set_up_is_an_override_saying_what_move_refuses(table: Table) -> None:
    table("move", "INF", "7,3")  # the game is under way
    r = table.json("place", "TANK", "7", "22")
    assert r["override"] is True
    assert r["move_would_refuse"] == (
        "TANK cannot enter river-1 at 7.00,19.00: river-1 (river) is crossed only at a ford, "
        "by a bridge that carries the stand or by assault boat ('tabletop engineer boat') (CD 2)"
    )
    assert r["notes"][0] == (
        "referee's override (not a refereed move); 'move' would have refused: TANK "
        "cannot enter river-1 at 7.00,19.00: river-1 (river) is crossed only at a "
        "ford, by a bridge that carries the stand or by assault boat ('tabletop "
        "engineer boat') (CD 2)"
    )


def test_opportunity_candidates_see_the_path(table: Table) -> None:
    # US-1's rifles reach 15": the car's short move is out of their reach.
    assert table.json("move", "CAR", "12,9")["opportunity"] == []
    # US-2's 75mm reaches the tank on the road; the nearest point it sees is the road's end.
    assert table.json("move", "PZ", "20,44")["opportunity"] == [
        {"stand": "US-2", "range": 37.03, "point": [20.0, 44.0]}
    ]


def test_targets_lists_what_the_stand_sees_with_the_fire_procedure(table: Table) -> None:
    r = table.json("targets", "us-2")
    assert r["stand"] == "US-2"
    for t in r["targets"]:
        assert set(t) >= {"id", "range", "band", "to_hit", "p_hit"}
    assert refused(table, "targets", "NOPE", code=2) == (
        "Error: unknown stand 'NOPE' (stands: INF, TANK, CAR, LORRY, AC2, HT, ENG, PZ, "
        "FAST, US-1, US-2)"
    )


def _context(template: Path, tmp_path: Path) -> Any:
    from tabletop.game.engine import Game

    game = tmp_path / "ctx.sqlite"
    shutil.copy(template, game)
    g = Game.open(game)
    ctx = g.context()
    g.close()
    return ctx


def test_a_bridge_built_in_play_carries_what_its_class_allows(
    template: Path, tmp_path: Path
) -> None:
    from tabletop.core.errors import RulesRefusal
    from tabletop.rules.cd.movement import move_action

    ctx = _context(template, tmp_path)
    # A class II portable bridge set across the river at x = 40 (CD 2.4.3), as the
    # engineering task leaves it in the state.
    ctx.state.add_template(
        {"kind": "bridge", "weight_class": "II", "lifetime": "game",
         "polygon": [[39.5, 18], [40.5, 18], [40.5, 22], [39.5, 22], [39.5, 18]]}
    )  # fmt: skip
    ctx.state.stand("FAST").update(x=40.0, y=17.0)
    r = move_action(ctx, {"stand": "FAST", "to": [40, 23]})
    assert [(e["kind"], e["result"]) for e in r["crossed"]] == [
        ("bridge", "crosses bridge-1 (class II)")
    ]
    assert r["cost"] == 6.0
    ctx.state.stand("TANK").update(x=40.0, y=16.0)
    with pytest.raises(RulesRefusal, match=r"bridge-1 \(class II\) cannot carry TANK \(class IV\)"):
        move_action(ctx, {"stand": "TANK", "to": [40, 23]})


def test_a_launched_bridge_takes_vehicles_over_the_ditch(template: Path, tmp_path: Path) -> None:
    from tabletop.rules.cd.movement import move_action

    ctx = _context(template, tmp_path)
    # What 'engineer launch' leaves once the VLB is down beside the ditch (CD 2.4.5).
    ctx.state.rows["terrain:ditch-1"]["gaps"].append({"at": [41.2, 7.0], "by": "vlb"})
    ctx.state.stand("TANK").update(x=40.0, y=7.0, facing=90.0)
    r = move_action(ctx, {"stand": "TANK", "to": [44, 7]})
    assert r["cost"] == 4.0
    assert r["crossed"][0]["result"] == "through the gap in ditch-1"


def test_check_gives_the_odds_of_the_minefield_attacks(table: Table) -> None:
    r = table.json("move", "FAST", "45,40", "--via", "45,35.5", "--check")
    # Through a real field: two attacks, each hitting dismounted infantry on 1-3 (CD 3.2):
    # 1 - (7/10)^2 = 51/100 for at least one hit.
    assert r["odds"] == {"referee: mf-1 hits at least once": "51/100"}
    assert [e["kind"] for e in r["crossed"]] == ["minefield"]
    assert r["crossed"][0]["result"] == "referee: met (hidden until the move ends)"


def _next_movement(table: Table) -> None:
    table("phase", "next")
    for _ in range(8):
        if table.json("status")["phase"] == "movement":
            return
        table("phase", "next")
    raise AssertionError("never reached the movement phase")


def test_seed_unmiring_a_tracked_vehicle_needs_more_than_four(table: Table) -> None:
    # CD 11.1.4-11.1.5: a tracked vehicle in the open in deep mud mires on 1-2, and frees
    # itself only on more than 4; then it is moved an inch the way it faces.
    table("weather", "set", "--ground", "mud-deep")
    r = table.json("move", "TANK", "7,12.5", "--dice", "2")
    assert (r["cost"], r["mired"]) == (6.0, True)
    _next_movement(table)
    assert table.json("unmire", "TANK", "--dice", "4")["mired"] is True
    _next_movement(table)
    r = table.json("unmire", "TANK", "--dice", "5")
    assert (r["mired"], r["moved_to"]) == (False, [7.0, 11.5])


def test_ending_on_a_hidden_patch_tells_the_referee(table: Table) -> None:
    table("place", "FAST", "33,31")
    r = table.json("move", "FAST", "29,31")
    assert (r["to"], r["cost"], r["status"]) == ([29.0, 31.0], 4.0, "ok")
    assert r["crossed"][-1]["result"] == (
        "referee: FAST ends its move on thin, a hidden patch of class I ice that looks like "
        "the ice around it (CD 11.3)"
    )


def test_turning_in_place_is_a_move_of_no_inches(table: Table) -> None:
    r = table.json("move", "INF", "7,2", "--facing", "90")
    assert (r["verdict"], r["cost"], r["moved"]) == ("INF turns in place to face 90", 0.0, 0.0)
    assert table.stand("INF")["facing"] == 90.0


def _one_by_one_opportunity(ctx: Any, stand_id: str, points: list[Any], upto: float) -> list[Any]:
    """Opportunity candidates as they were found before the looks were batched: one
    ``sight`` per enemy and sample, nearest first, stopping at the first seen."""
    from tabletop.rules.cd.sighting import End, end_for_stand, sight
    from tabletop.state.document import centre, out_of_play
    from tabletop.table.paths import point_along

    stand = ctx.state.stand(stand_id)
    n = max(1, math.ceil(upto))
    samples = [point_along(points, min(upto, i * 1.0)) for i in range(n + 1)]
    out = []
    for enemy in ctx.state.stands():
        if enemy["side"] == stand["side"] or enemy["x"] is None or out_of_play(enemy):
            continue
        weapons = [ctx.charts.weapons[w] for w in enemy["weapons"] if w in ctx.charts.weapons]
        # Only weapons 'fire' would let fire direct at the mover (the same checks).
        mover = ctx.charts.stand_kinds[stand["kind"]]
        weapons = [w for w in weapons if can_fire_direct(w, mover, ctx.charts)]
        reach = max((w.ranges.long for w in weapons), default=0.0)
        if reach <= 0:
            continue
        near = sorted((math.dist(centre(enemy), p), p) for p in samples)
        for dist, p in near:
            if dist > reach + 1e-9:
                break
            seen = sight(ctx, end_for_stand(ctx.state, enemy["id"]), End("p", p[0], p[1]))
            if seen.los and seen.visible:
                point = [round(p[0], 2), round(p[1], 2)]
                out.append({"stand": enemy["id"], "range": round(seen.range, 2), "point": point})
                break
    return out


@pytest.mark.parametrize("light", ["day", "night-moonlit"])
def test_glances_are_what_sight_says_one_look_at_a_time(
    template: Path, tmp_path: Path, light: str
) -> None:
    # The batched looks behind the opportunity candidates must agree exactly with 'sight'
    # (range, line of sight, visibility), by day and under the night's limits (CD 9.1).
    from tabletop.rules.cd.sighting import End, end_for_stand, glances, sight

    ctx = _context(template, tmp_path)
    ctx.state.conditions["light"] = light
    # An illumination round over part of the table lifts the night's limits there (CD 9.2),
    # and a smoke screen blocks the lines through it.
    square = [[20, 10], [32, 10], [32, 22], [20, 22], [20, 10]]
    ctx.state.add_template({"kind": "illumination", "illuminates": True, "polygon": square})
    smoke = [[44, 20], [46, 20], [46, 30], [44, 30], [44, 20]]
    ctx.state.add_template({"kind": "smoke", "blocks_sight": True, "polygon": smoke})
    stands = [s["id"] for s in ctx.state.stands() if s["x"] is not None]
    points = [End("p", x + 0.5, y + 0.25) for x in range(0, 60, 7) for y in range(0, 48, 5)]
    looks = [(end_for_stand(ctx.state, s), p) for s in stands for p in points]
    looks += [
        (end_for_stand(ctx.state, a), end_for_stand(ctx.state, b))
        for a in stands[:3]
        for b in stands
    ]
    found = [(g.range, g.los, g.visible) for g in glances(ctx, looks)]
    expected = [(s.range, s.los, s.visible) for s in (sight(ctx, a, b) for a, b in looks)]
    assert found == expected
    assert {los for _, los, _ in found} == {True, False}  # the layout blocks some lines
    assert glances(ctx, []) == []


@pytest.mark.parametrize(
    ("stand", "path"),
    [
        ("PZ", [(20, 30), (20, 44)]),
        ("INF", [(7, 5), (7, 7)]),
        ("TANK", [(10, 14), (20, 20), (30, 25)]),
        ("CAR", [(12, 9)]),
    ],
)
def test_opportunity_candidates_equal_the_one_look_at_a_time_search(
    template: Path, tmp_path: Path, stand: str, path: list[tuple[float, float]]
) -> None:
    from tabletop.rules.cd.movement import opportunity
    from tabletop.state.document import centre

    ctx = _context(template, tmp_path)
    points = [centre(ctx.state.stand(stand)), *path]
    upto = sum(math.dist(a, b) for a, b in itertools.pairwise(points))
    expected = _one_by_one_opportunity(ctx, stand, points, upto)
    assert opportunity(ctx, ctx.state.stand(stand), points, upto) == expected


def test_a_mortar_is_no_candidate_for_opportunity_fire(game: Run) -> None:
    # US-5's 81 mm mortar fires only indirect (weapons chart, indirect_only): 'fire' refuses
    # it direct fire, so it cannot fire on G-5's move either (it was listed, at 23.65").
    moved = as_json(game("move", "G-5", "40,24", "--json"))
    assert moved["opportunity"] == [{"stand": "US-4", "range": 17.75, "point": [40.0, 22.0]}]


def test_small_arms_are_no_candidate_for_opportunity_fire_on_a_tank(
    template: Path, tmp_path: Path
) -> None:
    # 'fire' refuses a rifle at a tank (ammo chart small-arms-hit-armour, default), so a
    # rifle stand is no opportunity candidate on a tank's move either (US-1 was listed).
    from tabletop.rules.cd.movement import opportunity
    from tabletop.state.document import centre

    ctx = _context(template, tmp_path)
    points = [centre(ctx.state.stand("TANK")), (10, 14), (20, 20), (30, 25)]
    upto = sum(math.dist(a, b) for a, b in itertools.pairwise(points))
    found = opportunity(ctx, ctx.state.stand("TANK"), points, upto)
    assert found == [{"stand": "US-2", "range": 33.9, "point": [30.0, 25.0]}]
