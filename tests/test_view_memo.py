"""A side's view through the sight memo (``views.SightMemo``): the same answers as tracing
every pair in every state, for a fraction of the work.

One game, played once: Crossroads by day, a move and two shots, then night falls (CD 9.1.2),
a searchlight (CD 9.2.2), smoke, a burning stand (CD 9.2), the opportunity fire phase after
a shot (muzzle flashes), an illumination round (CD 9.2) and a referee's override. Every
state of its log is asked about, by both sides, with and without a memo.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.cli import cli
from tabletop.data.board import smoke_blockers
from tabletop.game.engine import Game
from tabletop.rules.cd.sighting import (
    End,
    light_now,
    seeing_at,
    sight,
    spotting_reach,
    spotting_row,
    spotting_world,
)
from tabletop.rules.context import RulesContext
from tabletop.rules.views import (
    LastSeen,
    SightMemo,
    Spotted,
    _radii,
    _range_floor,
    knowledge,
    last_seen,
    spotted_by,
)
from tabletop.state.document import centre, in_play
from tests.conftest import file_digest

PLAY = (
    "place G-2 22 21",
    "move G-5 36,18",
    "phase next",
    "fire US-4 G-5 --dice 6",
    "phase next",
    "turn next --yes",
    "phase next",
    "barrage US-5 --at 22,27 --ammo smoke",
    "weather set --light night-moonlit",
    "searchlight US-1 --bearing 0",
    "phase next",
    "move G-1 18,25",
    "marker G-3 --add burning",
    "phase next",
    "turn next --yes",
    "phase next",
    "barrage US-5 --at 30,20 --ammo illum",
    "phase next",
    "place US-2 12 9",
)
SIDES = ("USA", "Germany")


def invoke(game: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--game", str(game)], env={"TABLETOP_VIEW": None})
    assert result.exit_code == 0, (args, result.output)
    return result.output


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    game = tmp_path_factory.mktemp("memo") / "game.sqlite"
    invoke(game, "new", "crossroads", "--seed", "2")
    for line in PLAY:
        invoke(game, *line.split())
    return game


def contexts(game: Path) -> tuple[RulesContext, list[RulesContext]]:
    """The game's present context and one for each of its past states, newest first."""
    opened = Game.open(game)
    ctx = opened.context()
    past = [
        RulesContext(state, ctx.dice, ctx.scenario, ctx.charts, _table=ctx.table)
        for state in opened.past_states()
    ]
    return ctx, past


def traced(ctx: RulesContext, side: str, among: set[str] | None = None) -> dict[str, Spotted]:
    """Spotting as it was worked out before the memo: every pair's line traced, then
    ``sight`` (its own trace again) for each clear pair, nearest looker first."""
    from tabletop.table import sight_matrix

    stands = [
        s
        for s in ctx.state.stands()
        if s["x"] is not None
        and in_play(s)
        and (s["side"] == side or among is None or s["id"] in among)
    ]
    points = [centre(s) for s in stands]
    clear = sight_matrix(ctx.table, points, smoke_blockers(ctx.state.templates()))
    found: dict[str, Spotted] = {}
    for e, target in enumerate(stands):
        if target["side"] == side:
            continue
        own = [i for i, s in enumerate(stands) if s["side"] == side and clear[i, e]]
        own.sort(
            key=lambda i: (points[i][0] - points[e][0]) ** 2 + (points[i][1] - points[e][1]) ** 2
        )
        for i in own:
            look = sight(
                ctx,
                End(stands[i]["id"], *points[i], stands[i]),
                End(target["id"], *points[e], target),
            )
            if look.spotted:
                found[target["id"]] = Spotted(target["id"], stands[i]["id"], round(look.range, 3))
                break
    return found


def enemies(ctx: RulesContext, side: str) -> list[str]:
    return [s["id"] for s in ctx.state.stands() if s["side"] != side]


@pytest.mark.parametrize("side", SIDES)
def test_spotted_by_through_one_memo_is_the_pair_by_pair_trace_in_every_state(
    played: Path, side: str
) -> None:
    ctx, past = contexts(played)
    assert len(past) == 20
    memo = SightMemo(ctx.table)
    odd = set(enemies(ctx, side)[1::2])
    for then in [ctx, *past]:
        assert spotted_by(then, side, memo=memo) == traced(then, side)
        assert spotted_by(then, side, odd, memo) == traced(then, side, odd)
        assert spotted_by(then, side) == traced(then, side)  # a memo of its own


def test_what_each_side_spots_at_the_end(played: Path) -> None:
    ctx, _ = contexts(played)
    # Night: US-1's beam lights G-1 and US-1 itself (CD 9.2, 9.2.2); US-5 gave
    # itself away firing its illumination round this turn (CD 9.1.2).
    assert spotted_by(ctx, "USA") == {"G-1": Spotted("G-1", "US-1", 18.2)}
    assert spotted_by(ctx, "Germany") == {
        "US-1": Spotted("US-1", "G-1", 18.2),
        "US-5": Spotted("US-5", "G-5", 19.541),
    }


def test_a_second_walk_through_the_same_memo_traces_nothing(played: Path) -> None:
    ctx, past = contexts(played)
    memo = SightMemo(ctx.table)
    first = [spotted_by(then, "USA", memo=memo) for then in [ctx, *past]]
    lines, looks = dict(memo.lines), dict(memo.looks)
    assert [spotted_by(then, "USA", memo=memo) for then in [ctx, *past]] == first
    assert (memo.lines, memo.looks) == (lines, looks)


def test_a_memo_for_another_table_is_not_used(played: Path) -> None:
    ctx, _ = contexts(played)
    stale = SightMemo(object())
    assert spotted_by(ctx, "USA", memo=stale) == traced(ctx, "USA")
    assert (stale.lines, stale.looks) == ({}, {})


def test_last_seen_markers_of_the_game(played: Path) -> None:
    ctx, past = contexts(played)
    known = knowledge(ctx, "USA", [c.state for c in past])
    assert known.last_seen == {
        "G-2": LastSeen("G-2", "Germany", "infantry", 10.0, 24.0, 1, "movement"),
        "G-4": LastSeen("G-4", "Germany", "towed-gun", 34.0, 24.0, 2, "artillery"),
        "G-5": LastSeen("G-5", "Germany", "armoured-car", 36.0, 18.0, 2, "artillery"),
    }
    assert last_seen(ctx, "USA", [c.state for c in past], known.spotted) == known.last_seen


def test_reading_a_view_leaves_the_game_file_as_it_was(played: Path) -> None:
    before = file_digest(played)
    for side in SIDES:
        invoke(played, "status", "--view", side, "--json")
        invoke(played, "log", "--view", side)
    assert file_digest(played) == before


# --- what a look reads: spotting_row and spotting_world -------------------------------------


def test_spotting_row_is_what_a_look_reads_of_a_stand(played: Path) -> None:
    ctx, past = contexts(played)
    # US-4 fired in turn 1's opportunity fire phase from where it still stands.
    assert json.loads(spotting_row(ctx.state.stand("US-4"), ctx.state)) == [
        "US-4", "tank", [30.0, 6.0, 1.0, 2.0, 10.0], [], False, False, False,
    ]  # fmt: skip
    turn_2 = next(c for c in past if c.state.turn == 2)
    assert json.loads(spotting_row(turn_2.state.stand("US-4"), turn_2.state)) == [
        "US-4", "tank", [30.0, 6.0, 1.0, 2.0, 10.0], [], False, False, True,
    ]  # fmt: skip
    assert json.loads(spotting_row(ctx.state.stand("G-3"), ctx.state))[3] == ["burning"]


def world(ctx: RulesContext) -> Any:
    return json.loads(spotting_world(ctx, light_now(ctx)))


def test_spotting_world_by_day_is_the_conditions_and_the_terrain(played: Path) -> None:
    _, past = contexts(played)
    day = past[-1]  # after the first move, turn 1
    assert day.state.conditions["light"] == "day"
    villages = [
        [f"terrain:{v}", {**day.state.rows[f"terrain:{v}"]}] for v in ("village-1", "village-2")
    ]
    assert villages[0][1]["state"] == "intact"
    assert world(day) == [day.state.conditions, False, villages, [], []]


def test_spotting_world_at_night_names_lights_fires_and_noise(played: Path) -> None:
    ctx, past = contexts(played)
    now = world(ctx)
    assert now[0]["light"] == "night-moonlit"
    lights, makers, burning = now[3]
    assert [t["id"] for t in lights] == ["searchlight-US-1", "illumination-3"]
    assert makers == [["US-1", 18.0, 6.0], ["US-5", 21.0, 3.0]]
    assert burning == [["G-3", 27.0, 21.0, 0.8, 0.8, 180.0]]
    assert now[4] == [["US-5", 21.0, 3.0]]  # fired this turn: noise (CD 9.3)
    searchlit = next(c for c in past if c.state.turn == 2 and c.state.phase == "opportunity-fire")
    opportunity, _, lit, noisy = world(searchlit)[1:]
    assert opportunity is True
    assert [t["id"] for t in lit[0]] == ["searchlight-US-1"]
    assert lit[1] == [["US-1", 18.0, 6.0]]
    assert noisy == [["G-1", 18.0, 25.0], ["US-5", 21.0, 3.0]]


# --- the reach: no stand past it spots the target -----------------------------------------


def reaches(ctx: RulesContext) -> dict[str, float | None]:
    light = light_now(ctx)
    out = {}
    for s in ctx.state.stands():
        if s["x"] is not None:
            end = End(s["id"], *centre(s), s)
            out[s["id"]] = spotting_reach(ctx, end, light, seeing_at(ctx, end, *light))
    return out


def test_spotting_reach_by_day_and_at_night(played: Path) -> None:
    ctx, past = contexts(played)
    # Day: 40" in the open, stationary; 10" in the village (CD spotting).
    assert reaches(past[-1]) == {
        "G-1": 40.000001, "G-2": 40.000001, "G-3": 10.000001, "G-4": 40.000001,
        "G-5": 40.000001, "G-S": 40.000001, "US-1": 40.000001, "US-2": 40.000001,
        "US-3": 40.000001, "US-4": 40.000001, "US-5": 40.000001, "US-S": 40.000001,
    }  # fmt: skip
    # Moonlit night: 4", doubled for a stand that may be heard moving (CD 9.1.2, 9.3);
    # G-1 in US-1's beam and G-3 by its own fire are lit (CD 9.2); US-1's searchlight and
    # US-5's muzzle flashes give them away at any range in sight (CD 9.2.2, 9.1.2).
    assert reaches(ctx) == {
        "G-1": 40.000001, "G-2": 8.000002, "G-3": 10.000001, "G-4": 8.000002,
        "G-5": 8.000002, "G-S": 8.000002, "US-1": None, "US-2": 8.000002,
        "US-3": 8.000002, "US-4": 8.000002, "US-5": None, "US-S": 8.000002,
    }  # fmt: skip
    # Turn 2's opportunity fire: US-4 fired last turn from where it stands (CD 9.1.2); G-1,
    # moving in the beam, is seen by daylight's rule, at any distance in sight.
    opportunity = next(c for c in past if c.state.turn == 2 and c.state.phase == "opportunity-fire")
    found = reaches(opportunity)
    assert (found["US-4"], found["G-1"], found["G-2"]) == (None, None, 8.000002)


def test_no_stand_past_the_reach_spots_the_target(played: Path) -> None:
    ctx, past = contexts(played)
    passed_over = 0
    for then in [ctx, *past]:
        reach = reaches(then)
        stands = [s for s in then.state.stands() if s["x"] is not None and in_play(s)]
        points = [centre(s) for s in stands]
        radius = _radii(stands, then.scenario.measure)
        for e, target in enumerate(stands):
            for i, looker in enumerate(stands):
                if looker["side"] == target["side"]:
                    continue
                look = sight(
                    then,
                    End(looker["id"], *points[i], looker),
                    End(target["id"], *points[e], target),
                )
                assert _range_floor(points, radius, i, e) <= look.range
                limit = reach[target["id"]]
                if limit is not None and _range_floor(points, radius, i, e) > limit:
                    passed_over += 1
                    assert look.spotted is False, (then.state.turn, looker["id"], target["id"])
    assert passed_over == 743  # of 1512 looks


# --- any table: stands anywhere, by day, at twilight, at night ----------------------------

LIGHTS = ("day", "twilight", "night-moonlit", "night-dark")
MARKERS = ((), ("foxholes",), ("burning",), ("searchlight",))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    light=st.sampled_from(LIGHTS),
    places=st.lists(
        st.tuples(
            st.floats(1, 47, allow_nan=False),
            st.floats(1, 35, allow_nan=False),
            st.sampled_from((0, 45, 90, 180, 270)),
            st.sampled_from(MARKERS),
            st.booleans(),
        ),
        min_size=12,
        max_size=12,
    ),
)
def test_spotted_by_anywhere_is_the_pair_by_pair_trace(
    played: Path, light: str, places: list[tuple[float, float, int, tuple[str, ...], bool]]
) -> None:
    ctx, _ = contexts(played)
    state = ctx.state.copy()
    state.rows["conditions"] = {**state.conditions, "light": light}
    for stand, (x, y, facing, markers, moved) in zip(state.stands(), places, strict=True):
        stand.update(x=round(x, 1), y=round(y, 1), facing=facing, markers=list(markers))
        stand["moved_turn"] = state.turn if moved else None
    then = RulesContext(state, ctx.dice, ctx.scenario, ctx.charts, _table=ctx.table)
    memo = SightMemo(ctx.table)
    for side in SIDES:
        assert spotted_by(then, side, memo=memo) == traced(then, side)
