"""Night, weather and ground (CD 9, 10, 11): effects in force, movement, miring, changes."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tabletop.rules.cd.weather import effects
from tests.conftest import Run, as_json, file_digest, goto_phase

MUD = str(Path(__file__).parent / "data" / "mud.yaml")

# --- the effects table, derived by hand from CD 9.1.2, 9.4, 9.2.2, 10.1.2, 10.2, 10.3 ---------
# Each condition on its own: (visibility, spotting factor, fixed spotting, severity).
LIGHT = {
    "day": (None, None, None, 0),
    "twilight": (30, 0.5, None, 1),  # CD 9.4
    "artificial-moonlight": (30, 0.5, None, 1),  # CD 9.2.2: night treated as twilight
    "night-moonlit": (4, None, 4, 3),  # CD 9.1.2
    "night-dark": (2, None, 2, 4),  # CD 9.1.2
}
WEATHER = {
    "clear": (None, None, None, 0),
    "mist": (30, 0.5, None, 1),  # CD 10.2.1
    "fog": (4, None, 4, 3),
    "light": (30, 0.5, None, 1),  # CD 10.3.1, precipitation by level
    "steady": (15, 0.25, None, 2),
    "heavy": (4, None, 4, 3),
}
# CD 10.1.2: moderate wind makes precipitation a level worse, high wind makes it heavy.
WORSE = {
    ("light", "light"): "light", ("light", "moderate"): "steady", ("light", "high"): "heavy",
    ("steady", "light"): "steady", ("steady", "moderate"): "heavy", ("steady", "high"): "heavy",
    ("heavy", "light"): "heavy", ("heavy", "moderate"): "heavy", ("heavy", "high"): "heavy",
}  # fmt: skip
# CD 10.1.2: wind on dusty ground counts as mist (moderate) or fog (high), for seeing only.
DUST = {"light": None, "moderate": "mist", "high": "fog"}
# CD 10.2.2, 10.3.2: base movement multipliers (vehicle, personnel).
MOVE = {
    "clear": (1, 1),
    "mist": (0.5, 1),
    "fog": (0.25, 0.5),
    "light": (0.5, 1),
    "steady": (0.5, 1),
    "heavy": (0.25, 0.5),
}
SMOKE = {"light": None, "moderate": 4, "high": 1}  # CD 10.1.2


def expected(light: str, weather: str, force: str, dusty: bool) -> dict:
    kind, _, level = weather.partition("-")
    weather_key = WORSE[(level, force)] if kind in ("rain", "snow") else weather
    parts = [LIGHT[light], WEATHER[weather_key]]
    if dusty and DUST[force]:
        parts.append(WEATHER[DUST[force]])
    limits = [p[0] for p in parts if p[0] is not None]
    worst = max(parts, key=lambda p: (p[3], -(p[0] or 1000)))
    return {
        "visibility": min(limits) if limits else None,
        "spotting_factor": worst[1],
        "spotting_fixed": worst[2],
        "smoke_max_length": SMOKE[force],
        "movement": MOVE[weather_key],
    }


COMBINATIONS = list(
    itertools.product(
        LIGHT,
        [
            "clear",
            "mist",
            "fog",
            "rain-light",
            "rain-steady",
            "rain-heavy",
            "snow-light",
            "snow-steady",
            "snow-heavy",
        ],
        ["light", "moderate", "high"],
        [False, True],
    )
)


@pytest.mark.parametrize(("light", "weather", "force", "dusty"), COMBINATIONS)
def test_effects_for_every_combination(charts, light, weather, force, dusty) -> None:
    now = effects(
        {
            "light": light,
            "weather": weather,
            "dusty": dusty,
            "ground": "dry",
            "wind": {"from": 1, "force": force},
        },
        charts,
    )
    want = expected(light, weather, force, dusty)
    assert now.visibility == want["visibility"]
    assert now.spotting_factor == want["spotting_factor"]
    assert now.spotting_fixed == want["spotting_fixed"]
    assert now.smoke_max_length == want["smoke_max_length"]
    assert (now.vehicle_move, now.personnel_move) == want["movement"]


@pytest.mark.parametrize(
    ("light", "daylight", "spotting"),
    [
        ("twilight", 10, 5),
        ("twilight", 1, 0),
        ("twilight", 7, 3),  # halved, rounded down
        ("night-moonlit", 40, 4),
        ("night-moonlit", 6, 0),
        ("night-moonlit", None, 4),
        ("night-dark", 20, 2),
        ("day", None, None),
        ("day", 10, 10),
    ],
)
def test_spotting_distance_rounding_and_contact(charts, light, daylight, spotting) -> None:
    now = effects(
        {
            "light": light,
            "weather": "clear",
            "dusty": False,
            "ground": "dry",
            "wind": {"from": 1, "force": "light"},
        },
        charts,
    )
    assert now.spotting_distance(daylight) == spotting


def test_weather_show_json_keys(game: Run) -> None:
    game("weather", "set", "--weather", "rain-light", "--wind-force", "moderate")
    out = as_json(game("weather", "show", "--json"))
    assert out["visibility"] == 15 and out["spotting_factor"] == 0.25
    assert out["spotting_fixed"] is None and out["smoke_max_length"] == 4
    assert out["movement"] == {"vehicle": 0.5, "personnel": 1}


def test_night_rules_in_force(game: Run) -> None:
    game("weather", "set", "--light", "night-dark")
    out = as_json(game("weather", "show", "--json"))
    assert out["turn_minutes"] == 120 and out["night"] is True
    rules = out["night_rules"]
    assert rules["orders_radius"] == 3 and rules["rally_orders"] is False
    assert rules["morale"] == -2 and rules["aa_dice"] == -1
    text = game("weather", "show").output
    assert text.splitlines()[11] == '  night orders: radius 3"; no rally orders (CD 9.1.5)'
    assert (
        text.splitlines()[13]
        == "  night AA: -1 die without sound detection, searchlight or radar (CD 9.1.6)"
    )
    assert max(len(line) for line in text.splitlines()) <= 80
    game("weather", "set", "--light", "twilight")
    out = as_json(game("weather", "show", "--json"))
    assert out["turn_minutes"] == 60 and out["night_rules"] == {}
    assert "night orders" not in game("weather", "show").output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--wind-from", "9"],
            "Error: Invalid value for '--wind-from': 9 is out of range: give a whole number from 1 "
            "to 8 (see 'tabletop weather set --help')\n",
        ),
        (
            ["--ground", "swampy"],
            "Error: Invalid value for '--ground': 'swampy' is not one of 'dry', 'mud-light', "
            "'mud-moderate', 'mud-deep', 'snow', 'snow-deep', 'ice'. (see 'tabletop weather set "
            "--help')\n",
        ),
        (
            [],
            "Error: nothing to change: give at least one of --light, --weather, --wind-from, "
            "--wind-force, --dusty/--no-dusty, --ground\n",
        ),
    ],
)
def test_bad_weather_input(game: Run, args, message) -> None:
    before = file_digest(game.game)  # type: ignore[attr-defined]
    assert game("weather", "set", *args, code=2).output == message
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


# --- movement: the seed's tracked vehicle in woods (CD 11.1.1, 11.1.2, 11.2.1, 11.2.2) -----------


@pytest.fixture
def mud(run: Run) -> Run:
    run("new", MUD, "--seed", "2")
    return run


def nudged(run: Run, stand: str) -> None:
    """Record that ``stand`` moved this turn, as a move moved by hand on the table: only a
    vehicle that moved checks for miring (CD 11.1.4)."""
    turn = as_json(run("status", "--json"))["turn"]
    set_stand(run, stand, moved_turn=turn)


@pytest.mark.parametrize(
    ("ground", "multiplier"),
    [
        ("dry", 2),
        ("mud-light", 4),
        ("mud-moderate", 8),
        ("mud-deep", 8),
        ("snow", 4),
        ("snow-deep", 8),
        ("ice", 4),
    ],
)
def test_tracked_vehicle_in_woods(mud: Run, ground: str, multiplier: float) -> None:
    mud("weather", "set", "--ground", ground) if ground != "mud-deep" else None
    out = as_json(mud("move-cost", "TANK", "--json"))
    assert out["terrain"] == "woods" and out["multiplier"] == multiplier


@pytest.mark.parametrize(
    ("stand", "args", "ground", "multiplier"),
    [
        # Along a road the armoured car uses its 24" road allowance against 12" across
        # country: x0.5 on top, as 'move' prices the road (CD 11.2.1).
        ("CAR", ["--road", "hard"], "mud-deep", 0.5),  # hard roads ignore mud (CD 11.1)
        ("CAR", ["--road", "dirt"], "mud-deep", 2),
        ("INF", ["--terrain", "open"], "mud-light", 2),
        ("INF", ["--terrain", "open"], "mud-moderate", 2),
        ("CAR", ["--road", "plowed"], "snow-deep", 0.5),  # CD 11.2.2
        ("CAR", ["--road", "unplowed"], "snow-deep", 2),
        ("CAR", ["--road", "unplowed"], "snow", 1),  # CD 11.2.1
        ("SKI", ["--terrain", "open"], "snow-deep", 1),  # ski-mobile
        ("INF", ["--terrain", "open"], "snow-deep", 2),
        ("CAR", ["--road", "hard"], "ice", 1),  # CD 11.3: roads too
        ("INF", ["--terrain", "open"], "ice", 1),
        ("CAR", ["--terrain", "woods"], "dry", None),
    ],
)
def test_ground_on_roads_and_for_ski_stands(mud: Run, stand, args, ground, multiplier) -> None:
    mud("weather", "set", "--ground", ground) if ground != "mud-deep" else None
    out = as_json(mud("move-cost", stand, *args, "--json"))
    assert out["multiplier"] == multiplier


@pytest.mark.parametrize(
    ("stand", "terrain", "ground", "multiplier", "why"),
    [
        ("INF", "road-hard", "mud-light", 1, "mud-light: no effect on a hard road (CD 11.1.1)"),
        ("CAR", "road-hard", "mud-deep", 1, "mud-deep: no effect on a hard road (CD 11.1.3)"),
        ("INF", "road-dirt", "mud-light", 2, "mud-light: x2 for personnel (CD 11.1.1)"),
    ],
)
def test_a_hard_road_asked_as_a_terrain_kind_is_spared_the_mud(
    mud: Run, stand: str, terrain: str, ground: str, multiplier: float, why: str
) -> None:
    # CD 11.1: hard-surfaced roads are exempt from mud, however the road is named.
    mud("weather", "set", "--ground", ground) if ground != "mud-deep" else None
    out = as_json(mud("move-cost", stand, "--terrain", terrain, "--json"))
    assert (out["multiplier"], out["because"][-1]) == (multiplier, why)


def test_weather_slows_movement_on_top_of_ground(mud: Run) -> None:
    mud("weather", "set", "--ground", "dry", "--weather", "fog")
    assert as_json(mud("move-cost", "CAR", "--terrain", "open", "--json"))["multiplier"] == 4
    assert as_json(mud("move-cost", "INF", "--terrain", "open", "--json"))["multiplier"] == 2


def test_near_flooding_counts_as_deep_mud(mud: Run) -> None:
    mud("weather", "set", "--ground", "dry")
    out = as_json(mud("move-cost", "WET", "--terrain", "open", "--json"))
    assert out["multiplier"] == 2
    assert out["because"] == [
        "open: x1 for foot stands (CD core (default))",
        'within 2" of impassable flooding: deep mud (CD 10.3.4)',
        "mud-deep: x2 for personnel (CD 11.1.3)",
    ]


def test_move_cost_bad_input(mud: Run) -> None:
    assert (
        mud("move-cost", "CAR", "--terrain", "wods", code=2).output
        == "Error: --terrain 'wods': unknown terrain kind; did you mean 'woods'?\n"
    )
    assert mud("move-cost", "NOPE", code=2).output == (
        "Error: unknown stand 'NOPE' (stands: CAR, HT, TANK, BIG, BERGE, LORRY, INF, "
        "SKI, WET, R1, R2)\n"
    )


# --- miring (CD 11.1.4, 11.1.5) ------------------------------------------------------------------

# Why no roll can mire the stand, where the chart gives 0 (CD 11.1, 11.1.4).
NO_ROLL = {
    ("LORRY", "dirt-road", "mud-moderate"): (
        "(moving on a dirt road): no miring chance for wheeled dirt road in moderate mud "
        "(CD 11.1.4)"
    ),
    ("HT", "dirt-road", "mud-deep"): (
        "(moving on a dirt road): halftracks never mire on dirt roads (CD 11.1.4)"
    ),
    ("TANK", "dirt-road", "mud-deep"): (
        "(moving on a dirt road): no miring chance for tracked dirt road in deep mud (CD 11.1.4)"
    ),
    ("CAR", "hard-road", "mud-deep"): (
        "(moving on a hard road): hard roads are safe from miring (CD 11.1)"
    ),
    ("BERGE", "open", "mud-deep"): (
        "(moving in the open): recovery vehicles never mire (CD 11.1.4)"
    ),
    ("CAR", "open", "mud-light"): (
        "(moving in the open): no miring in mud-light (CD 11.1.4: moderate and deep mud only)"
    ),
}


@pytest.mark.parametrize(
    ("stand", "where", "ground", "number"),
    [
        ("CAR", "open", "mud-moderate", 2),
        ("CAR", "open", "mud-deep", 4),
        ("TANK", "open", "mud-moderate", 1),
        ("TANK", "open", "mud-deep", 2),
        ("LORRY", "dirt-road", "mud-deep", 1),
        ("LORRY", "dirt-road", "mud-moderate", 0),
        ("HT", "open", "mud-deep", 4),
        ("HT", "dirt-road", "mud-deep", 0),
        ("TANK", "dirt-road", "mud-deep", 0),
        ("CAR", "hard-road", "mud-deep", 0),
        ("BERGE", "open", "mud-deep", 0),
        ("CAR", "open", "mud-light", 0),
    ],
)
def test_miring_chart(mud: Run, stand, where, ground, number) -> None:
    if ground != "mud-deep":
        mud("weather", "set", "--ground", ground)
    nudged(mud, stand)
    if not number:
        # CD 11.1.4: where no roll can mire it, the answer is a rules refusal (exit 3).
        out = mud("mire", stand, "--where", where, code=3).output
        assert (
            out == f"Error: {stand} cannot mire {NO_ROLL[stand, where, ground]}; no roll is made\n"
        )
        return
    nudged(mud, stand)
    out = as_json(mud("mire", stand, "--where", where, "--dice", str(number), "--json"))
    assert out["number"] == number
    assert out["mired"] is True
    if number:
        higher = as_json(mud("undo", "--json"))
        assert higher["command"] == "mire"
        again = as_json(mud("mire", stand, "--where", where, "--dice", str(number + 1), "--json"))
        assert again["mired"] is False


def test_only_vehicles_mire(mud: Run) -> None:
    before = file_digest(mud.game)  # type: ignore[attr-defined]
    assert (
        mud("mire", "INF", code=3).output
        == "Error: only vehicles mire; infantry stands do not (CD 11.1.4)\n"
    )
    assert file_digest(mud.game) == before  # type: ignore[attr-defined]


def test_mired_across_mud_is_placed_halfway(mud: Run) -> None:
    nudged(mud, "CAR")
    out = as_json(mud("mire", "CAR", "--across-mud", "4,10", "8,14", "--dice", "1", "--json"))
    assert out["placed_at"] == [6, 12]


def test_unmiring_by_itself_needs_more_than_double(mud: Run) -> None:
    nudged(mud, "TANK")
    mud("mire", "TANK", "--where", "open", "--dice", "1")
    stuck = as_json(mud("unmire", "TANK", "--dice", "4", "--json"))  # tracked deep: 2 -> beat 4
    assert stuck["mired"] is True
    # CD 11.1.5: one attempt by itself a turn.
    again = mud("unmire", "TANK", "--dice", "5", code=3).output
    assert again == (
        "Error: TANK already tried to unmire itself this turn: one attempt a turn (CD 11.1.5); "
        "try again next turn, or have a vehicle tow it (--assist)\n"
    )
    mud("turn", "next", "--yes")
    goto_phase(mud, "movement")
    free = as_json(mud("unmire", "TANK", "--dice", "5", "--json"))
    assert free["mired"] is False and free["moved_to"] == [35, 26]
    assert stand_row(mud, "TANK")["unmired_turn"] == 2


def test_unmiring_with_help(mud: Run) -> None:
    nudged(mud, "TANK")
    mud("mire", "TANK", "--where", "open", "--dice", "1")
    # Helpers push or tow, so they stand in contact (CD 11.1.5): bases touching.
    mud("place", "LORRY", "34", "25")
    mud("place", "BIG", "36", "25")
    assert mud("unmire", "TANK", "--assist", "LORRY", code=3).output == (
        "Error: LORRY cannot tow TANK: it must be a vehicle of equal or greater weight "
        "class (CD 11.1.5)\n"
    )
    # The class V Tiger tows the class IV tank out, rolling to see it does not mire itself.
    helped = as_json(mud("unmire", "TANK", "--assist", "BIG", "--dice", "9", "--json"))
    assert helped["mired"] is False
    assert mud("unmire", "TANK", code=3).output == (
        "Error: TANK is not mired: nothing to free (CD 11.1.5)\n"
    )
    mud("turn", "next", "--yes")  # freed, it moves on only next turn (CD 11.1.5)
    goto_phase(mud, "movement")
    nudged(mud, "TANK")
    mud("mire", "TANK", "--where", "open", "--dice", "1")
    stuck = as_json(mud("unmire", "TANK", "--assist", "BIG", "--dice", "1", "--json"))
    assert stuck["mired"] is True and stuck["verdict"] == "BIG mires too; TANK stays mired"
    assert (
        mud("unmire", "TANK", "--assist", "BIG", code=3).output
        == "Error: BIG cannot help: it is mired itself (CD 11.1.5)\n"
    )


def stand_row(run: Run, stand: str) -> dict[str, Any]:
    import sqlite3

    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        (value,) = conn.execute(
            "SELECT value FROM state WHERE key = ?", (f"stand:{stand}",)
        ).fetchone()
    finally:
        conn.close()
    return json.loads(value)  # type: ignore[no-any-return]


def set_stand(run: Run, stand: str, **fields: Any) -> None:
    """Write what 'tabletop move' records on a stand row (last_move, moved_turn)."""
    import sqlite3

    row = {**stand_row(run, stand), **fields}
    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    with conn:
        conn.execute(
            "UPDATE state SET value = ? WHERE key = ?",
            (json.dumps(row, sort_keys=True, separators=(",", ":")), f"stand:{stand}"),
        )
    conn.close()


def moved(turn: int, ground: str, where: str, checked: bool = False) -> dict[str, Any]:
    return {
        "turn": turn,
        "phase": "movement",
        "ground": ground,
        "where": where,
        "mire_checked": checked,
    }


@pytest.mark.parametrize(("roll", "mired"), [(4, True), (5, False)])
def test_seed_example_detour_through_deep_mud_still_rolls(mud: Run, roll: int, mired: bool) -> None:
    # CD 11.1.4 example: an armoured car leaves the hard road round a wreck into deep mud and
    # regains the road; it ends on the road, but the ground it crossed decides: 1-4 mires.
    mud("weather", "set", "--ground", "dry")
    mud("place", "CAR", "5", "10")  # on the highway, a hard road
    set_stand(mud, "CAR", last_move=moved(1, "mud-deep", "open"), moved_turn=1)
    out = as_json(mud("mire", "CAR", "--dice", str(roll), "--json"))
    assert (out["number"], out["mired"], out["where"], out["ground"], out["basis"]) == (
        4,
        mired,
        "open",
        "mud-deep",
        "its move this turn",
    )
    assert stand_row(mud, "CAR")["last_move"]["mire_checked"] is True
    if not mired:
        # CD 11.1.4: one roll per move.
        again = mud("mire", "CAR", "--dice", "1", code=3).output
        assert again == (
            "Error: CAR has already checked for miring after this move: one roll per move "
            "(CD 11.1.4)\n"
        )


def test_a_move_that_stayed_on_the_hard_road_needs_no_roll(mud: Run) -> None:
    mud("place", "CAR", "5", "10")
    set_stand(mud, "CAR", last_move=moved(1, "mud-deep", "hard-road"), moved_turn=1)
    before = file_digest(mud.game)  # type: ignore[attr-defined]
    out = mud("mire", "CAR", "--dice", "1", code=3).output
    assert out == (
        "Error: CAR cannot mire (its move this turn): hard roads are safe from miring "
        "(CD 11.1); no roll is made\n"
    )
    assert file_digest(mud.game) == before  # type: ignore[attr-defined]


def test_no_miring_roll_for_a_vehicle_that_did_not_move_this_turn(mud: Run) -> None:
    set_stand(mud, "TANK", last_move=moved(1, "mud-deep", "open"), moved_turn=1)
    mud("turn", "next", "--yes")
    goto_phase(mud, "movement")
    out = mud("mire", "TANK", "--dice", "1", code=3).output
    assert out == (
        "Error: TANK has not moved this turn (last in turn 1): only a vehicle that moved "
        "checks for miring (CD 11.1.4)\n"
    )


def test_no_miring_roll_for_a_vehicle_that_never_moved(mud: Run) -> None:
    # CD 11.1.4: only a vehicle that moved checks; TANK stands where the scenario put it.
    before = file_digest(mud.game)  # type: ignore[attr-defined]
    out = mud("mire", "TANK", "--where", "open", "--dice", "1", code=3).output
    assert out == (
        "Error: TANK has not moved this turn: only a vehicle that moved checks for miring "
        "(CD 11.1.4)\n"
    )
    assert file_digest(mud.game) == before  # type: ignore[attr-defined]


def test_no_miring_roll_outside_the_movement_phase(mud: Run) -> None:
    nudged(mud, "TANK")
    mud("phase", "next")
    out = mud("mire", "TANK", "--dice", "1", code=3).output
    assert out == (
        "Error: miring is checked only in the movement phase, not the opportunity-fire phase "
        "(CD 11.1.4); advance with 'tabletop phase next'\n"
    )


def test_a_placed_stand_rolls_once_a_turn_from_where_it_stands(mud: Run) -> None:
    nudged(mud, "TANK")
    out = as_json(mud("mire", "TANK", "--dice", "3", "--json"))
    assert (out["mired"], out["basis"]) == (False, "where it stands")
    again = mud("mire", "TANK", "--dice", "1", code=3).output
    assert again == (
        "Error: TANK has already checked for miring after this move: one roll per move "
        "(CD 11.1.4)\n"
    )


@pytest.mark.parametrize(
    ("how", "tank", "big"),
    [
        # CD 11.1.5: towing, BIG (in front, north) draws TANK an inch north after it.
        ([], [35, 26], [35, 28.3]),
        # Pushing, BIG shoves from where it is: both go an inch away from it, south.
        (["--push"], [35, 24], [35, 26.3]),
    ],
)
def test_towing_or_pushing_moves_both_stands_an_inch(
    mud: Run, how: list[str], tank: list[float], big: list[float]
) -> None:
    nudged(mud, "TANK")
    mud("mire", "TANK", "--where", "open", "--dice", "1")
    mud("place", "BIG", "35", "27.3")  # bases 0.5" apart: in contact
    out = as_json(mud("unmire", "TANK", "--assist", "BIG", *how, "--dice", "9", "--json"))
    assert out["mired"] is False
    assert out["moved_to"] == {"TANK": tank, "BIG": big}
    row = stand_row(mud, "TANK")
    assert ([row["x"], row["y"]], row["unmired_turn"]) == (tank, 1)


def test_towing_refused_when_the_inch_is_blocked(mud: Run) -> None:
    nudged(mud, "TANK")
    mud("mire", "TANK", "--where", "open", "--dice", "1")
    mud("place", "BIG", "35", "27.3")
    mud("place", "CAR", "35", "29.9")  # just clear of BIG now, not once BIG has moved an inch
    before = file_digest(mud.game)  # type: ignore[attr-defined]
    out = mud("unmire", "TANK", "--assist", "BIG", "--dice", "9", code=3).output
    assert out == "Error: towing TANK the inch CD 11.1.5 needs is blocked: BIG would overlap CAR\n"
    assert file_digest(mud.game) == before  # type: ignore[attr-defined]


def test_pushing_refused_off_the_table(mud: Run) -> None:
    mud("place", "TANK", "20", "35.5")
    nudged(mud, "TANK")
    mud("mire", "TANK", "--where", "open", "--dice", "1")
    mud("place", "BIG", "20", "33.2")
    out = mud("unmire", "TANK", "--assist", "BIG", "--push", "--dice", "9", code=3).output
    assert out == (
        "Error: pushing TANK the inch CD 11.1.5 needs would take TANK off the table "
        "(to 20,36.5); try towing\n"
    )


# --- turn-boundary procedures (CD 10.1.3, 10.2.3) ---------------------------------------------


def test_variable_wind_each_turn(game: Run) -> None:
    game("weather", "set", "--variable-wind", "--wind-from", "8", "--wind-force", "light")
    out = as_json(game("turn", "next", "--yes", "--dice", "9", "--json"))
    assert next(h for h in out["happened"] if h["what"] == "variable wind")["rolls"] == [9]
    status = as_json(game("status", "--json"))
    assert status["wind"] == {"from": 1, "force": "light"}  # clockwise; light stays light
    game("turn", "next", "--yes", "--dice", "10")
    assert as_json(game("status", "--json"))["wind"] == {"from": 8, "force": "moderate"}


@pytest.mark.parametrize(
    ("weather", "dice", "after"),
    [
        ("fog", "3,5", "mist"),
        ("mist", "2,1", "clear"),
        ("mist", "1,6", "fog"),
        ("fog", "4", "fog"),
        ("fog", "1,10", "fog"),
    ],
)
def test_mist_and_fog_change(game: Run, weather: str, dice: str, after: str) -> None:
    game("weather", "set", "--weather", weather)
    game("turn", "next", "--yes", "--dice", dice)
    assert as_json(game("status", "--json"))["weather"] == after


def test_wind_direction_roll_rerolls_nine_and_ten(game: Run) -> None:
    out = as_json(game("weather", "roll", "--dice", "10,9,4", "--json"))
    assert out["conditions"]["wind_from"] == 4
    assert [r["value"] for r in out["rolls"]] == [10, 9, 4]


def test_preset_rolls_a_days_conditions(game: Run) -> None:
    out = as_json(
        game(
            "weather",
            "roll",
            "--preset",
            "eastern-europe-winter",
            "--dice",
            "9,10,10,1,2",
            "--json",
        )
    )
    c = out["conditions"]
    assert (c["weather"], c["ground"], c["wind_force"], c["wind_from"]) == (
        "snow-heavy",
        "snow-deep",
        "high",
        2,
    )
    assert game("weather", "roll", "--preset", "mars", code=2).output == (
        "Error: --preset 'mars': known presets: central-europe-spring, "
        "central-europe-summer, central-europe-autumn, central-europe-winter, "
        "eastern-europe-spring, eastern-europe-summer, eastern-europe-autumn, "
        "eastern-europe-winter, southern-europe-spring, southern-europe-summer, "
        "southern-europe-autumn, southern-europe-winter, north-africa-spring, "
        "north-africa-summer, north-africa-autumn, north-africa-winter, "
        "pacific-spring, pacific-summer, pacific-autumn, pacific-winter\n"
    )


# --- sound detection: the seed's example (CD 9.3) ------------------------------------------------


@pytest.mark.parametrize(("light", "spotted"), [("night-moonlit", True), ("night-dark", False)])
def test_sound_detection_example(mud: Run, light: str, spotted: bool) -> None:
    # A moving infantry stand 6" from a stationary, silent enemy counts as 3" away: spotted
    # under a normal night's 4" visibility, not under an overcast night's 2".
    mud("weather", "set", "--light", light, "--ground", "dry")
    mud("place", "INF", "20", "12.2")  # base to base 6" from R2 at (20, 19)
    out = as_json(mud("measure", "R2", "INF", "--json"))
    assert out["range"] == pytest.approx(6.0)
    assert out["spotted"] is spotted
    assert (
        'heard moving within 6": counts as 3" away for spotting (CD 9.3)'
        in (out["spotting"]["because"])
    )


@pytest.mark.parametrize(
    ("wind", "distance", "why"),
    [
        ("high", "12.2", "not heard: sound deadened by high wind (CD 9.3, 10.1.2)"),
        ("light", "8", 'not heard: beyond 6" for moving personnel'),
    ],
)
def test_measure_says_why_a_moving_stand_was_not_heard(
    mud: Run, wind: str, distance: str, why: str
) -> None:
    mud("weather", "set", "--light", "night-moonlit", "--ground", "dry", "--wind-force", wind)
    mud("place", "INF", "20", distance)
    out = as_json(mud("measure", "R2", "INF", "--json"))
    assert out["spotted"] is False
    assert why in out["spotting"]["because"]


# --- ice (CD 11.3) and searchlights (CD 9.2.2) --------------------------------------------------

ICE = """
format: 1
name: Ice
table: {width: 40, depth: 30}
conditions: {ground: snow}
terrain:
  - {id: pond, kind: lake, polygon: [[10, 10], [20, 10], [20, 20], [10, 20]], ice: II}
  - {id: hidden, kind: lake, polygon: [[25, 10], [35, 10], [35, 20], [25, 20]], ice: "0",
     referee_only: true}
sides:
  - name: Finland
    formations: [{id: JR, kind: battalion}]
    stands:
      - {id: SKI, kind: infantry, formation: JR, weapons: [rifle], ski: true, at: [5, 15]}
      - {id: GUN, kind: towed-gun, formation: JR, weapons: [pak-36], at: [5, 5]}
  - name: USSR
    formations: [{id: RD, kind: battalion}]
    stands:
      - {id: T34, kind: tank, formation: RD, weapons: [f-34-76], at: [5, 25]}
      - {id: LIGHT, kind: infantry, formation: RD, weapons: [rifle], at: [38, 2]}
"""


@pytest.fixture
def ice(run: Run, tmp_path: Path) -> Run:
    path = tmp_path / "ice.yaml"
    path.write_text(ICE)
    run("new", str(path), "--seed", "4")
    return run


def test_ice_bears_what_its_class_allows(ice: Run) -> None:
    out = as_json(ice("place", "SKI", "15", "15", "--json"))
    assert out["notes"] == [] and (out["x"], out["y"]) == (15, 15)
    out = as_json(ice("place", "GUN", "12", "12", "--json"))  # class I on class II ice
    assert out["notes"] == []
    out = as_json(ice("place", "T34", "15", "18", "--json"))  # class IV breaks through
    assert (
        out["notes"][0] == "T34 breaks through pond (class II ice, needs IV) and is lost (CD 11.3)"
    )
    status = {s["id"]: s for s in as_json(ice("status", "--json"))["stands"]}
    assert status["T34"]["status"] == "eliminated"


def test_personnel_break_through_and_go_back(ice: Run) -> None:
    out = as_json(ice("place", "SKI", "30", "15", "--dice", "2", "--json"))
    assert out["notes"][1] == (
        "SKI breaks through hidden (class 0 ice, needs I): takes a hit (no effect "
        "(rolled 2)) and goes back (CD 11.3)"
    )
    assert (out["x"], out["y"]) == (5, 15)  # back where it came from
    assert out["notes"][0] == (
        "referee: SKI ends its move on hidden, a snow-covered frozen lake; tell its "
        "player if it is a stationary personnel stand or a patrol (CD 11.3)"
    )
    assert out["terrain"] == []  # the hidden lake is not named as terrain


def test_searchlight_illuminates_and_is_seen(ice: Run) -> None:
    ice("weather", "set", "--light", "night-dark")
    before = as_json(ice("measure", "GUN", "LIGHT", "--json"))
    assert before["spotted"] is False
    ice("searchlight", "GUN", "--bearing", "95.2")
    lit = as_json(ice("measure", "GUN", "LIGHT", "--json"))
    assert lit["spotted"] is True
    assert (
        "illuminated by searchlight-GUN: night limits lifted (CD 9.2)"
        in (lit["spotting"]["because"])
    )
    seen = as_json(ice("measure", "LIGHT", "GUN", "--json"))
    assert seen["spotted"] is True
    assert seen["spotting"]["because"] == [
        'GUN is stationary in the open: spotted within 40" by day (CD spotting (default))',
        "illuminated by searchlight-GUN: night limits lifted (CD 9.2)",
    ]
    ice("searchlight", "GUN", "--off")
    assert as_json(ice("measure", "GUN", "LIGHT", "--json"))["spotted"] is False
    assert ice("searchlight", "GUN", code=2).output == "Error: give --bearing DEGREES, or --off\n"


# --- illumination lifts the night's limits, not the weather's (CD 9.2, 10.2.1, 10.3.1) -----------
# Crossroads: US-1 at 18,6 shines north at G-1, 20.2" away at 18,27 (or 2.7" away at 18,9.5).


@pytest.mark.parametrize(
    ("light", "weather", "g1_y", "lit", "visibility", "spotted"),
    [
        ("night-dark", "clear", "27", True, None, True),  # lit: daylight spotting, no limit
        ("day", "fog", "27", False, 4, False),  # no night limit to lift; fog caps at 4"
        ("night-moonlit", "fog", "27", False, 4, False),  # the beam stops at 4" in fog
        ("night-dark", "rain-heavy", "27", False, 2, False),  # 4" beam: the dark night's 2"
        ("night-dark", "fog", "9.5", True, 4, True),  # lit: the fog's 4", not the night's 2"
        ("night-dark", "rain-heavy", "9.5", True, 4, True),  # CD 10.3.1: as fog
        ("night-moonlit", "snow-steady", "17.6", True, 15, True),  # lit, 10.8": steady snow's 15"
        ("night-moonlit", "snow-steady", "24", False, 4, False),  # 17.2": past the 15" beam
    ],
)
def test_searchlight_lifts_night_limits_but_not_the_weathers(
    game: Run,
    light: str,
    weather: str,
    g1_y: str,
    lit: bool,
    visibility: float | None,
    spotted: bool,
) -> None:
    if g1_y != "27":
        game("place", "G-1", "18", g1_y)  # moving: by day seen at any distance in the open
    game("weather", "set", "--light", light, "--weather", weather)
    game("searchlight", "US-1", "--bearing", "0")
    seen = as_json(game("measure", "US-1", "G-1", "--json"))
    assert (seen["illuminated_by"] == "searchlight-US-1") is lit
    assert (seen["visibility"], seen["spotted"]) == (visibility, spotted)


def test_fire_in_fog_is_refused_though_a_searchlight_shines(game: Run) -> None:
    game("weather", "set", "--weather", "fog")
    game("place", "G-1", "18", "17.6")  # 11.2" away, in the old 40" beam
    game("searchlight", "US-1", "--bearing", "0")
    goto_phase(game, "fire")
    before = file_digest(game.game)  # type: ignore[attr-defined]
    refused = game("fire", "US-1", "G-1", code=3)
    assert refused.output == (
        "Error: US-1 has not spotted G-1: G-1 is moving in the open: spotted at any "
        'distance in sight by day (CD spotting (default)); 4" under present conditions '
        "(light: day (CD core); weather: fog (CD 10.2.1, 10.2.2)) "
        "(CD spotting: by distance and cover, no roll); "
        "if another stand spotted it for you, add --spotted\n"
    )
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("weather", "length", "limit"),
    [
        ("clear", 40, ""),
        ("fog", 4, " (no farther than visibility: weather: fog (CD 10.2.1, 10.2.2))"),
        (
            "rain-steady",
            15,
            " (no farther than visibility: weather: rain-steady (CD 10.3.1, 10.3.2))",
        ),
        ("mist", 30, " (no farther than visibility: weather: mist (CD 10.2.1, 10.2.2))"),
    ],
)
def test_searchlight_beam_reaches_no_farther_than_the_weather_lets_it(
    game: Run, weather: str, length: float, limit: str
) -> None:
    game("weather", "set", "--light", "night-dark", "--weather", weather)
    out = game("searchlight", "US-2", "--bearing", "90").output  # east along open ground
    assert out == (
        f'US-2 lights a beam on bearing 90 for {length:.1f}"{limit}; enemy stands in sight of '
        "it spot the light (CD 9.2.2) (event 3)\n"
    )
    beam = next(
        t for t in as_json(game("status", "--json"))["templates"] if t["kind"] == "searchlight"
    )
    assert beam["length"] == pytest.approx(length) and beam["width"] == 2


@pytest.mark.parametrize(
    ("source", "where", "lit"),
    [
        # An illumination round from US-5's 81 mm: a 2" circle (4 x the 1" burst's area).
        ("illum", "18,27", True),  # over the centre
        ("illum", "19.3,27", True),  # the circle reaches 0.1" into the base, not its centre
        ("illum", "19.5,27", False),  # stops 0.1" short of the base
        # A burning stand lights bases within 1" of its own (CD 9.2), edge to edge.
        ("fire", "19.6,27", True),  # bases 0.8" apart, centres 1.6"
        ("fire", "20,27", False),  # bases 1.2" apart
    ],
)
def test_a_base_partly_in_the_light_is_lit(game: Run, source: str, where: str, lit: bool) -> None:
    game("weather", "set", "--light", "night-moonlit")
    if source == "illum":
        goto_phase(game, "artillery")  # turn 2
        game("barrage", "US-5", "--at", where, "--ammo", "illum")
    else:
        game("place", "G-2", *where.split(","))
        game("marker", "G-2", "--add", "burning")
    seen = as_json(game("measure", "US-1", "G-1", "--json"))
    assert (seen["illuminated_by"] is not None) is lit
    assert seen["spotted"] is lit  # 20.2" away: only daylight spotting sees it


def test_an_illumination_round_in_daytime_fog_changes_nothing(game: Run) -> None:
    goto_phase(game, "artillery")  # turn 2 (fog set before would roll to change, CD 10.2.3)
    game("weather", "set", "--weather", "fog")
    game("barrage", "US-5", "--at", "18,27", "--ammo", "illum")
    seen = as_json(game("measure", "US-1", "G-1", "--json"))
    assert (seen["visibility"], seen["visible"], seen["spotted"]) == (4, False, False)
    assert seen["illuminated_by"] is None  # by day there is no night limit to lift


# --- mired vehicles (CD 11.1.4, 11.1.5) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (["41", "5"], True),  # moved
        (["40", "4", "--facing", "90"], True),  # turned on the spot
        (["40", "4", "--facing", "360"], False),  # the facing it already has
        (["40", "4"], False),  # where it is: no move
    ],
)
def test_a_mired_vehicle_may_not_move_or_turn(game: Run, args: list[str], refused: bool) -> None:
    game("weather", "set", "--ground", "mud-moderate")
    nudged(game, "US-3")
    game("mire", "US-3", "--where", "open", "--dice", "1")
    before = file_digest(game.game)  # type: ignore[attr-defined]
    out = game("place", "US-3", *args, code=3 if refused else 0)
    if refused:
        assert out.output == (
            "Error: US-3 is mired: it may not move or change facing until unmired (CD "
            "11.1.4); free it with 'tabletop unmire US-3'\n"
        )
        assert file_digest(game.game) == before  # type: ignore[attr-defined]
    cost = as_json(game("move-cost", "US-3", "--json"))
    assert cost["multiplier"] is None and cost["mired"] is True


def test_a_mired_vehicle_may_not_cross_a_minefield_either(game: Run) -> None:
    game("weather", "set", "--ground", "mud-moderate")
    nudged(game, "US-3")
    game("mire", "US-3", "--where", "open", "--dice", "1")
    before = file_digest(game.game)  # type: ignore[attr-defined]
    out = game("minefield", "cross", "US-3", "--path", "40,8", code=3)
    assert out.output == (
        "Error: US-3 is mired: it may not move or change facing until unmired (CD "
        "11.1.4); free it with 'tabletop unmire US-3'\n"
    )
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_freed_it_moves_again(game: Run) -> None:
    game("weather", "set", "--ground", "mud-moderate")
    nudged(game, "US-3")
    game("mire", "US-3", "--where", "open", "--dice", "1")
    game("unmire", "US-3", "--dice", "9")  # more than twice 1: free, and 1" forward
    game("place", "US-3", "41", "8")


@pytest.mark.parametrize(
    ("helper", "at", "message"),
    [
        (
            "US-4",
            None,
            'Error: US-4 is 9.0" from US-3: it must be in contact (within 0.5") to push or '
            "tow it (CD 11.1.5); move it up first\n",
        ),
        (
            "G-5",
            None,
            "Error: G-5 cannot help US-3: it is Germany's, not USA's; only a friendly vehicle "
            "pushes or tows (CD 11.1.5)\n",
        ),
        ("US-4", "41.2,4", None),  # bases 0.2" apart: in contact
    ],
)
def test_a_helper_must_be_friendly_and_in_contact(
    game: Run, helper: str, at: str | None, message: str | None
) -> None:
    game("weather", "set", "--ground", "mud-moderate")
    nudged(game, "US-3")
    game("mire", "US-3", "--where", "open", "--dice", "1")
    if at is not None:
        game("place", helper, *at.split(","), "--facing", "0")
    before = file_digest(game.game)  # type: ignore[attr-defined]
    if message is None:
        out = as_json(game("unmire", "US-3", "--assist", helper, "--dice", "9", "--json"))
        assert out["mired"] is False and out["assist"] == helper
        return
    assert game("unmire", "US-3", "--assist", helper, code=3).output == message
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_a_vehicle_cannot_tow_itself(game: Run) -> None:
    game("weather", "set", "--ground", "mud-moderate")
    nudged(game, "US-3")
    game("mire", "US-3", "--where", "open", "--dice", "1")
    assert game("unmire", "US-3", "--assist", "US-3", code=2).output == (
        "Error: --assist 'US-3': a vehicle cannot tow itself; leave out --assist to "
        "try unmiring it by itself\n"
    )


# --- small messages -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stand", "where", "why"),
    [
        (
            "US-3",
            "hard-road",
            "Error: US-3 cannot mire (moving on a hard road): hard roads are safe from "
            "miring (CD 11.1); no roll is made\n",
        ),
        (
            "US-3",
            "dirt-road",
            "Error: US-3 cannot mire (moving on a dirt road): no miring chance for tracked "
            "dirt road in moderate mud (CD 11.1.4); no roll is made\n",
        ),
    ],
)
def test_dice_given_when_no_roll_is_needed_say_why(
    game: Run, stand: str, where: str, why: str
) -> None:
    game("weather", "set", "--ground", "mud-moderate")
    nudged(game, stand)
    before = file_digest(game.game)  # type: ignore[attr-defined]
    out = game("mire", stand, "--where", where, "--dice", "3", code=3).output
    assert out == why
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_setting_the_weather_it_already_is_changes_nothing(game: Run) -> None:
    game("weather", "set", "--weather", "fog")
    before = file_digest(game.game)  # type: ignore[attr-defined]
    out = game("weather", "set", "--weather", "fog", "--light", "day").output
    assert out == "conditions unchanged: already light day, weather fog (no event logged)\n"
    data = as_json(game("weather", "set", "--weather", "fog", "--json"))
    assert data["event"] is None and data["changed"] == {}
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--variable-wind"], "conditions now variable wind (CD 10.1.3)"),
        (["--fog-returns"], "conditions now mist may return (CD 10.2.3)"),
        (["--dusty"], "conditions now dusty ground"),
        (["--wind-force", "high"], "conditions now high wind"),
    ],
)
def test_weather_set_speaks_a_referees_words(game: Run, args: list[str], said: str) -> None:
    # Issue 20: no "variable_wind True" (a Python name and bool) in what the referee reads.
    out = game("weather", "set", *args).output
    assert out.startswith(f"{said} (event ")
    again = game("weather", "set", *args).output
    assert (
        again
        == f"{said.replace('conditions now', 'conditions unchanged: already')} (no event logged)\n"
    )


def test_weather_show_names_what_is_rolled_each_turn(game: Run) -> None:
    game("weather", "set", "--variable-wind", "--fog-returns")
    lines = game("weather", "show").output.splitlines()
    assert lines[1] == "  rolled each turn: variable wind (CD 10.1.3), mist may return (CD 10.2.3)"


def test_a_miring_roll_says_its_number_once(mud: Run) -> None:
    # CD 11.1.4: a tracked vehicle in the open in deep mud mires on 2 or less.
    nudged(mud, "TANK")
    assert mud("mire", "TANK", "--dice", "7").output.splitlines() == [
        "TANK is not mired (rolled 7); tracked open in deep mud: mires on 2 or less "
        "(CD 11.1.4) (where it stands)",
        "  dice: 7 physical (d10, miring TANK: mired on 2 or less)",
    ]


@pytest.mark.parametrize(
    ("ground", "said"),
    [
        ("dry", ["  ground dry (CD 11): no effect on movement"]),
        (
            "mud-deep",
            [
                "  ground mud-deep (CD 11.1.3): moving costs personnel x2 and vehicles x4, not on",
                "    hard or paved roads; vehicles may mire (CD 11.1.4, deep mud)",
            ],
        ),
        (
            "ice",
            [
                "  ground ice (CD 11.3): moving costs vehicles x2, roads included; ski-mobile",
                "    stands pay normal costs",
            ],
        ),
    ],
)
def test_weather_show_says_what_the_ground_does(game: Run, ground: str, said: list[str]) -> None:
    game("weather", "set", "--ground", ground)
    lines = game("weather", "show").output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  ground "))
    assert lines[at : at + len(said)] == said
    effect = as_json(game("weather", "show", "--json"))["ground_effect"]
    assert effect["id"] == ground and effect["rule"] == said[0].split("(")[1].split(")")[0]


def test_weather_roll_prints_its_dice_once(game: Run) -> None:
    out = game("weather", "roll", "--dice", "9,3").output
    assert out == (
        "wind from 3\n"
        "  dice: 9 physical (d10, wind direction (again on 9+)); "
        "3 physical (d10, wind direction (again on 9+))\n"
    )
