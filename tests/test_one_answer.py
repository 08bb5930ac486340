"""One answer per rule (issue 29): ``move-cost`` and ``move`` price a spot alike over the
charts' whole cross product, and the side commands (``mire``, ``engineer recheck``) reach
the verdict the move would have.

The agreement table is drawn from the charts themselves: one piece of every terrain kind,
a lake, a river and a stream of every ice class, and a bridge of every state, each a 4" cell;
a stand of every way of moving is put in each cell under every ground condition, and what
``move-cost`` says of the spot must be what the refereed move's plan says of its first inch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from tabletop.cli import cli
from tabletop.rules.cd.ice import ICE_ORDER
from tabletop.rules.cd.movecost import move_cost_for
from tabletop.rules.cd.movement import plan_move
from tests.conftest import Run, as_json, file_digest

CELL = 4.0
STANDS = {"FOOT": "infantry", "WHEELS": "truck", "TRACKS": "tank", "HALF": "halftrack"}
WATER = ("lake", "river", "stream")
BRIDGE_STATES = ("intact", "damaged", "destroyed")


def _cells(kinds: list[str], shapes: dict[str, str]) -> list[dict[str, Any]]:
    """Every terrain kind, every ice class on every water kind, every bridge state."""
    pieces: list[dict[str, Any]] = []

    def add(piece: dict[str, Any]) -> None:
        n = len(pieces)
        x0, y0 = 2 + (n % 12) * (CELL + 1), 2 + (n // 12) * (CELL + 1)
        cx, cy = x0 + CELL / 2, y0 + CELL / 2
        if shapes[piece["kind"]] == "line":
            piece["line"] = [[x0, cy], [x0 + CELL, cy]]
            piece["width"] = CELL
        else:
            piece["polygon"] = [[x0, y0], [x0 + CELL, y0], [x0 + CELL, y0 + CELL], [x0, y0 + CELL]]
        piece["centre"] = (cx, cy)
        pieces.append(piece)

    for kind in kinds:
        add({"id": f"k-{kind}", "kind": kind})
    for kind in WATER:
        for cls in ICE_ORDER:
            add({"id": f"ice-{kind}-{cls}", "kind": kind, "ice": cls})
    for state in BRIDGE_STATES:
        for cls in ("I", "VI"):
            add({"id": f"bridge-{state}-{cls}", "kind": "bridge", "weight_class": cls,
                 "state": state})  # fmt: skip
    return pieces


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[dict[str, Any]]]:
    terrain = yaml.safe_load((Path(__file__).parents[1] / "charts" / "terrain.yaml").read_text())
    kinds = [e["id"] for e in terrain["entries"]]
    shapes = {e["id"]: e.get("shape", "area") for e in terrain["entries"]}
    pieces = _cells(kinds, shapes)
    scenario = {
        "format": 1,
        "name": "One answer",
        "table": {"width": 72, "depth": 72},
        "turn": {"number": 1, "phase": "movement"},
        "conditions": {
            "light": "day",
            "weather": "clear",
            "wind": {"from": 1, "force": "light"},
            "ground": "dry",
        },
        "terrain": [{k: v for k, v in p.items() if k != "centre"} for p in pieces],
        "sides": [
            {
                "name": "Germany",
                "formations": [{"id": "KG", "kind": "battalion"}],
                "stands": [
                    {"id": sid, "kind": kind, "formation": "KG", "at": [70, 1 + 2 * n]}
                    for n, (sid, kind) in enumerate(STANDS.items())
                ],
            },
            {"name": "USA", "formations": [{"id": "CC", "kind": "battalion"}], "stands": []},
        ],
    }
    folder = tmp_path_factory.mktemp("one-answer")
    path = folder / "one.yaml"
    path.write_text(yaml.safe_dump(scenario, sort_keys=False))
    game = folder / "one.sqlite"
    result = CliRunner().invoke(cli, ["new", str(path), "--game", str(game)])
    assert result.exit_code == 0, result.output
    from tabletop.game.engine import Game

    return Game.open(game).context(), pieces


def test_move_cost_and_move_give_one_answer_over_the_charts_cross_product(
    table: tuple[Any, list[dict[str, Any]]],
) -> None:
    ctx, pieces = table
    grounds = list(ctx.charts.table("ground"))
    checked = 0
    for ground_id in grounds:
        ctx.state.conditions["ground"] = ground_id
        for piece in pieces:
            cx, cy = piece["centre"]
            for sid in STANDS:
                stand = ctx.state.stand(sid)
                stand["x"], stand["y"] = cx, cy
                asked = move_cost_for(ctx, sid, None, None)
                plan = plan_move(ctx, stand, [(cx, cy), (cx + 0.5, cy)], None)
                first = plan.segments[0]
                moved = None if first.multiplier is None else round(first.multiplier, 4)
                case = (ground_id, piece["id"], sid)
                assert asked["multiplier"] == moved, (case, asked, first)
                assert (asked["piece"] or "open") == first.terrain, case
                checked += 1
    # Every kind (26), ice class (7) on three waters, bridge state (3) at two classes; four
    # ways of moving; seven grounds.
    assert checked == len(pieces) * len(STANDS) * len(grounds) == (26 + 21 + 6) * 4 * 7


@pytest.mark.parametrize(
    ("piece", "stand", "ground", "multiplier", "said"),
    [
        # CD 11.3: ice doubles a vehicle's costs; class IV ice bears a class IV tank.
        ("ice-river-IV", "TRACKS", "dry", 2.0, "class IV ice on ice-river-IV: bears TRACKS"),
        # Infantry on class II ice: passable at x1 (ice costs personnel nothing more).
        ("ice-lake-II", "FOOT", "dry", 1.0, "class II ice on ice-lake-II: bears FOOT"),
        # CD 2.4.1: a damaged or destroyed bridge may not be used until repaired.
        ("bridge-damaged-VI", "FOOT", "dry", None, "bridge-damaged-VI is damaged"),
        ("bridge-destroyed-VI", "TRACKS", "dry", None, "bridge-destroyed-VI is destroyed"),
    ],
)
def test_move_cost_worked_cases(
    table: tuple[Any, list[dict[str, Any]]],
    piece: str,
    stand: str,
    ground: str,
    multiplier: float | None,
    said: str,
) -> None:
    ctx, pieces = table
    ctx.state.conditions["ground"] = ground
    row = ctx.state.stand(stand)
    row["x"], row["y"] = next(p["centre"] for p in pieces if p["id"] == piece)
    out = move_cost_for(ctx, stand, None, None)
    assert out["multiplier"] == multiplier
    assert any(said in why for why in out["because"]), out["because"]


# --- the seed's cases through the commands (tests/data/moves.yaml) ---------------------------

MOVES = Path(__file__).parent / "data" / "moves.yaml"


@pytest.fixture
def moves(run: Run) -> Run:
    run("new", str(MOVES), "--seed", "1")
    return run


def test_snow_covered_lake_costs_as_snowy_ground_and_is_not_named(run: Run, tmp_path: Path) -> None:
    # CD 11.3: a lake hidden under snow costs as snow-covered ground, not ice, and the
    # answer names no lake the players cannot see.
    text = MOVES.read_text().replace(
        "  - {id: pond,",
        "  - {id: hidden-lake, kind: lake, polygon: [[44, 40], [52, 40], "
        "[52, 46], [44, 46]], ice: III, referee_only: true}\n  - {id: pond,",
    )
    scenario = tmp_path / "snowy.yaml"
    scenario.write_text(text)
    run("new", str(scenario), "--seed", "1")
    run("weather", "set", "--ground", "snow")
    run("place", "FAST", "46", "42")
    out = as_json(run("move-cost", "FAST", "--json"))
    assert (out["terrain"], out["piece"], out["multiplier"]) == ("open", None, 2.0)
    assert not any("hidden-lake" in why for why in out["because"] if not why.startswith("referee"))
    check = as_json(run("move", "FAST", "47,42", "--check", "--json"))
    assert check["segments"][0]["multiplier"] == out["multiplier"]


def test_mud_spares_a_hard_roads_obstacle_strip_and_a_bridge(moves: Run, tmp_path: Path) -> None:
    # CD 11.1: hard-surfaced roads are exempt from mud; CD 4.3: anti-vehicle obstacles do not
    # slow personnel. Infantry crossing an obstacle strip laid across the hard road pays x1
    # in deep mud, as on the road itself; on the open ground beside it, x2.
    text = MOVES.read_text().replace(
        "  - {id: pond,",
        "  - {id: teeth, kind: av-obstacle, line: [[20, 42], [20, 46]], width: 1}\n  - {id: pond,",
    )
    scenario = tmp_path / "teeth.yaml"
    scenario.write_text(text)
    moves("new", str(scenario), "--seed", "1", "--force")
    moves("weather", "set", "--ground", "mud-deep")
    moves("place", "FAST", "18", "44")
    r = as_json(moves("move", "FAST", "22,44", "--check", "--json"))
    assert [(s["terrain"], s["length"], s["multiplier"]) for s in r["segments"]] == [
        ("road-1", 1.5, 1.0),
        ("teeth", 1.0, 1.0),
        ("road-1", 1.5, 1.0),
    ]
    # A bridge deck is a hard surface wherever it is crossed: the infantry pay no mud on
    # bridge-ok (18.5 to 21.5), x2 on the banks.
    moves("place", "INF", "11", "18")
    r = as_json(moves("move", "INF", "11,22", "--check", "--json"))
    assert [(s["terrain"], s["multiplier"]) for s in r["segments"]] == [
        ("open", 2.0),
        ("bridge-ok", 1.0),
        ("open", 2.0),
    ]


def test_a_move_that_costs_its_allowance_within_the_tape_passes(moves: Run) -> None:
    # INF has 6"; a move of 6.1" is within a tape's eighth of an inch (MOVE_TOLERANCE).
    r = as_json(moves("move", "INF", "7,8.1", "--check", "--json"))
    assert (r["refused"], r["cost"]) == (None, 6.1)
    r = as_json(moves("move", "INF", "7,8.2", "--check", "--json", code=3))
    assert r["refused"] is not None


def test_the_runs_out_point_is_always_reachable(moves: Run) -> None:
    # TANK (12", at 7,14) pays x2 in wood-1 (4..10 by 4..10): 4" of open to 7,10, then 1"
    # and 5" of woods (12"): 16" in all. It runs out 3" past the waypoint 7,9; the point
    # said, typed with its waypoint, passes.
    out = moves("move", "TANK", "7,4", "--via", "7,9", code=3).output
    head = out.splitlines()[0]
    assert head == (
        'Error: TANK needs 16.00" of movement but has 12" (tank allowance (CD core (default))): '
        "it runs out at 7.00,6.00 ('tabletop move TANK 7.00,6.00 --via 7,9' stops there) "
        "(movement costs, CD 10.2.2, 10.3.2, 11)"
    )
    moves("move", "TANK", "7.00,6.00", "--via", "7,9")


def test_a_refusal_shows_the_costs_and_names_the_first_limit(moves: Run) -> None:
    # INF (6") walking north from 7,2 to the river at y 19: it runs out at 7,8 long before
    # the river; refused for its allowance, not for the river, with the costs shown.
    before = file_digest(moves.game)  # type: ignore[attr-defined]
    out = moves("move", "INF", "7,25", code=3).output.splitlines()
    assert file_digest(moves.game) == before  # type: ignore[attr-defined]
    assert out[0].startswith(
        'Error: INF needs 17.00" of movement before it reaches what bars its way but has 6"'
    )
    assert out[1:] == [
        '  2.00" open: x1 = 2.00" (CD core (default))',
        '  6.00" wood-1: x1 = 6.00" (CD core (default))',
        '  9.00" open: x1 = 9.00" (CD core (default))',
        '  2.00" river-1: impassable (CD 2)',
        '  total 17.00" of its 6"',
    ]


def test_printed_costs_add_up(moves: Run) -> None:
    # TANK 0.5" of open, then 4.375" into the woods at x2: printed 4.38" x2 = 8.76" (not
    # 8.75"), and the total is the sum of the lines as printed.
    moves("place", "TANK", "7", "10.5")
    r = moves("move", "TANK", "7,5.625", "--check").output.splitlines()
    assert r[0] == 'TANK can move for 9.26" of its 12" (dry run, nothing logged)'
    assert r[1:3] == [
        '  0.50" open: x1 = 0.50" (CD core (default))',
        '  4.38" wood-1: x2 = 8.76" (CD core (default))',
    ]


# --- mire: the verdict the move would have reached (CD 10.3.4, 11.1, 11.1.4) ----------------


def test_mire_judges_the_mud_beside_a_flood(moves: Run) -> None:
    # HT moved by hand (recorded with 'place' while setting up) to 54,24.5: within 2" of the
    # impassable flood, deep mud on a dry table (CD 10.3.4); a halftrack in the open in deep
    # mud mires on 4 or less (CD 11.1.4): 'move-cost' there says x4, and 'mire' rolls.
    moves("place", "HT", "54", "24.5")
    assert as_json(moves("move-cost", "HT", "--json"))["multiplier"] == 4.0
    out = as_json(moves("mire", "HT", "--dice", "4", "--json"))
    assert (out["mired"], out["number"], out["ground"], out["basis"]) == (
        True,
        4,
        "mud-deep",
        "where it stands",
    )


def test_mire_judges_a_pieces_own_ground(moves: Run) -> None:
    # The bog is open ground of its own deep mud: CAR put in it rolls 1-4 (wheeled, open).
    moves("place", "CAR", "15", "7")
    out = as_json(moves("mire", "CAR", "--dice", "5", "--json"))
    assert (out["mired"], out["number"], out["ground"]) == (False, 4, "mud-deep")


def test_seed_detour_through_mud_rolls_though_it_ends_on_a_hard_road(moves: Run) -> None:
    # CD 11.1.4's armoured car: moved by hand round a wreck, off the hard road (road-1 covers
    # y 43.5-44.5) through deep mud from 30.5,43 to 31.5,43 and back on the road at 32,44.
    # It rolls for the mud it crossed, mired on 1-4, and is put halfway across it.
    moves("weather", "set", "--ground", "mud-deep")
    moves("place", "AC2", "32", "44")
    out = as_json(
        moves("mire", "AC2", "--across-mud", "30.5,43", "31.5,43", "--dice", "4", "--json")
    )
    assert (out["mired"], out["number"], out["basis"], out["placed_at"]) == (
        True,
        4,
        "the mud it crossed",
        [31.0, 43.0],
    )


def test_an_override_through_mud_leaves_the_roll_due_after_the_phase(moves: Run) -> None:
    moves("phase", "next")  # opportunity fire: 'place' is the referee's override now
    placed = as_json(moves("place", "CAR", "18", "7", "--json"))
    assert placed["notes"][-1] == (
        "CAR crossed mud-deep (open): its miring roll is due, mired on 4 or less; take it "
        "with 'tabletop mire CAR' (CD 11.1.4)"
    )
    moves("phase", "next")  # the fire phase: the roll is still due
    out = as_json(moves("mire", "CAR", "--dice", "4", "--json"))
    # It crossed the bog (14 to 16) and ended on dry ground: mired halfway across, 15,7.
    assert (out["mired"], out["basis"], out["placed_at"]) == (True, "its move this turn", [15, 7])
    again = moves("mire", "CAR", "--dice", "1", code=3).output
    assert again == "Error: CAR is already mired: unmire it first (CD 11.1.4, 11.1.5)\n"


def test_a_due_miring_roll_is_taken_before_the_stand_moves_again(moves: Run) -> None:
    moves("phase", "next")
    moves("place", "CAR", "18", "7")
    moves("turn", "next", "--yes")
    goto = ["phase", "next"]
    moves(*goto)
    moves(*goto)  # turn 2, movement
    out = moves("move", "CAR", "20,7", code=3).output.splitlines()[0]
    assert out == (
        "Error: CAR still owes the miring roll of its last move: roll it first with "
        "'tabletop mire CAR' (CD 11.1.4)"
    )
    assert as_json(moves("mire", "CAR", "--dice", "5", "--json"))["mired"] is False
    moves("move", "CAR", "20,7")


def test_unmiring_doubles_the_number_where_it_mired(moves: Run) -> None:
    # Mired in the bog on 1-4 (wheeled, deep mud): it frees itself only on more than 8.
    moves("place", "CAR", "15", "7")
    moves("mire", "CAR", "--dice", "1")
    out = as_json(moves("unmire", "CAR", "--dice", "8", "--json"))
    assert (out["mired"], out["number"]) == (True, 4)


# --- engineers that stay put (CD 3.1.2) ------------------------------------------------------


def test_an_engineer_that_lays_a_minefield_stays_put(moves: Run) -> None:
    # ENG at 45,35 lays a field beside itself; for the rest of the movement phase no command
    # moves it: not move, not a batch, not the referee's override.
    moves("minefield", "place", "45", "33.6", "--side", "Germany", "--by", "ENG")
    before = file_digest(moves.game)  # type: ignore[attr-defined]
    said = (
        "ENG lays minefield mf-3 this movement phase and stays where it is until the phase "
        "ends (CD 3.1.2); undo that first to move it"
    )
    assert moves("move", "ENG", "45,36", code=3).output.splitlines()[0] == f"Error: {said}"
    batch = moves("move", "FAST", "40,36", "--and", "ENG 45,36", code=3).output
    assert batch.splitlines()[0] == f"Error: move item 2 of 2 (ENG): {said}; nothing was applied"
    assert moves("place", "ENG", "45", "36", code=3).output.splitlines()[0] == f"Error: {said}"
    check = as_json(moves("move", "ENG", "45,36", "--check", "--json", code=3))
    assert check["refused"] == said
    crossing = moves("minefield", "cross", "ENG", "--path", "45,36", code=3).output
    assert crossing.splitlines()[0] == f"Error: {said}"
    assert file_digest(moves.game) == before  # type: ignore[attr-defined]


# --- a batch checked item by item -------------------------------------------------------------


def test_batch_check_gives_every_items_verdict(moves: Run) -> None:
    before = file_digest(moves.game)  # type: ignore[attr-defined]
    out = moves(
        "move", "INF", "7,7", "--and", "TANK 7,2", "--and", "CAR 13,7", "--check", code=3
    ).output.splitlines()
    assert file_digest(moves.game) == before  # type: ignore[attr-defined]
    assert out[0] == "1 move of 3 would be refused, so the batch would be (dry run, nothing logged)"
    assert out[1] == 'item 1: INF can move for 5.00" of its 6" (dry run, nothing logged)'
    # TANK (7,14 to 7,2): 4" open, 6" of woods at x2, 2" open = 18". Its 12" run out 4"
    # into the woods, at 7,6; INF (item 1) ends at 7,7, so the point is taken back a
    # quarter inch at a time until the tank's base is clear of it: 7,8.5.
    assert out[4] == (
        'item 2: TANK could not make this move: TANK needs 18.00" of movement but has 12" '
        "(tank allowance (CD core (default))): it runs out at 7.00,8.50 ('tabletop move TANK "
        "7.00,8.50' stops there) (movement costs, CD 10.2.2, 10.3.2, 11)"
    )
    assert out[8] == 'item 3: CAR can move for 1.00" of its 12" (dry run, nothing logged)'
    r = as_json(moves("move", "INF", "7,7", "--and", "CAR 13,7", "--check", "--json"))
    assert (r["count"], r["refused"], [i["refused"] for i in r["items"]]) == (2, 0, [None, None])


# --- forced back (hit effects chart) ----------------------------------------------------------


@pytest.fixture
def forced(moves: Run) -> Run:
    # FAST (rifle) set up 6" south of US-1 (30,12); the fire phase; a hit (a natural 1),
    # effect 5: forced back for a regular stand (no effect 1-3, forced back 4-6).
    moves("place", "FAST", "30", "6")
    moves("phase", "next")
    moves("phase", "next")
    return moves


def test_forced_back_says_how_far_and_which_way(forced: Run) -> None:
    out = as_json(forced("fire", "FAST", "US-1", "--dice", "1,5", "--json"))
    # Half of infantry's 6" (charts/table.yaml forced-back-fraction 0.5), straight away
    # from FAST at 30,6: bearing 0, from 30,12 to 30,15.
    assert out["target_now"] == (
        "forced back 3\" on bearing 0, away from the fire, to 30.00,15.00: 'tabletop move "
        "US-1 --fall-back' (hit effects chart)"
    )


def test_fall_back_is_carried_out_in_the_fire_phase_and_clears_the_marker(forced: Run) -> None:
    forced("fire", "FAST", "US-1", "--dice", "1,5")
    r = as_json(forced("move", "US-1", "--fall-back", "--json"))
    assert (r["verdict"], r["to"]) == (
        'US-1 falls back 3.00" to 30.00,15.00 (hit effects chart; no allowance spent)',
        [30.0, 15.0],
    )
    assert as_json(forced("show", "US-1", "--json"))["markers"] == []
    assert forced("move", "US-1", "--fall-back", code=3).output == (
        "Error: US-1 has no forced-back result to carry out\n"
    )


def test_a_fall_back_checked_shows_where_it_ends_and_changes_nothing(forced: Run) -> None:
    forced("fire", "FAST", "US-1", "--dice", "1,5")
    before = file_digest(forced.game)  # type: ignore[attr-defined]
    out = forced("move", "US-1", "--fall-back", "--check").output
    assert out == (
        'US-1 would fall back 3.00" to 30.00,15.00 (hit effects chart; no allowance spent) '
        "(dry run, nothing logged)\n"
        '  3.00" open: x1 = 3.00" (CD core (default))\n'
    )
    refused = forced("move", "US-1", "28,10", "--fall-back", "--check", code=3).output
    assert refused == (
        "Error: US-1 falls back away from the fire: 28,10 is nearer to it (hit effects chart)\n"
    )
    assert file_digest(forced.game) == before  # type: ignore[attr-defined]
    assert as_json(forced("move", "US-1", "--fall-back", "--json"))["to"] == [30.0, 15.0]


def test_a_fall_back_not_made_stays_pending_past_the_turn(forced: Run) -> None:
    forced("fire", "FAST", "US-1", "--dice", "1,5")
    forced("turn", "next", "--yes")
    assert as_json(forced("show", "US-1", "--json"))["markers"] == ["forced-back"]
    # The referee's own point: within 3" and no nearer the fire.
    too_far = forced("move", "US-1", "30,16", "--fall-back", code=3).output
    assert too_far == ('Error: US-1 falls back 3" (hit effects chart): 30,16 is 4.00" away\n')
    nearer = forced("move", "US-1", "28,10", "--fall-back", code=3).output
    assert nearer == (
        "Error: US-1 falls back away from the fire: 28,10 is nearer to it (hit effects chart)\n"
    )
    forced("move", "US-1", "32,14", "--fall-back")
    assert as_json(forced("show", "US-1", "--json"))["markers"] == []


def test_a_stand_forced_back_off_a_minefield_is_not_stopped_nor_attacked_again(
    moves: Run,
) -> None:
    # FAST stops on the edge of mf-1 (45,38) at 45,37.2; the attack hits (1) and forces it
    # back (5, regular): 5" (half its 10") straight away from the field. Moving back off the
    # field it lies on, it is neither stopped by it nor attacked again (CD 3.2).
    moves("move", "FAST", "45,37.2")
    moves("phase", "next", "--dice", "1,5")
    r = as_json(moves("move", "FAST", "--fall-back", "--json"))
    assert (r["verdict"], r["to"]) == (
        'FAST falls back 5.00" to 45.00,32.20 (hit effects chart; no allowance spent)',
        [45.0, 32.2],
    )
    assert (r["attacks"], r["revealed"]) == (0, [])


def test_forced_back_by_a_minefield_falls_back_away_from_it(moves: Run) -> None:
    # ENG crosses mf-1 (45,38) and stops past it at 45,38.9; in the opportunity fire phase
    # the first attack hits (1 on 3 or less), effect 5: forced back (regular); the second
    # misses (9). It falls back 3" straight away from the field: bearing 0, to 45,41.9.
    moves("move", "ENG", "45,39.5")
    out = as_json(moves("phase", "next", "--dice", "1,5,9", "--json"))
    said = [e["result"] for e in out["happened"] if e.get("what") == "minefield attack"]
    assert said == [
        '1 hit: forced back (CD 3.2); forced back 3" on bearing 0, away from the minefield, '
        "to 45.00,41.90: 'tabletop move ENG --fall-back' (hit effects chart)"
    ]
    r = as_json(moves("move", "ENG", "--fall-back", "--json"))
    assert r["to"] == [45.0, 41.9]
