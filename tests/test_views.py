"""What each side may know (SPEC 1, 8; issue 19): every reader, text and JSON alike.

One game, set up once and only read by most tests: Crossroads with a referee-only lake (a
snow-covered lake on the referee's map, CD 11.3), two German minefields (one real, one a
dummy) and one American, all laid before the game (CD 3.1.1); then G-2 leaves the open
ground where US-4 saw it for the village, out of every American stand's sight. At day, in
clear weather, the Americans spot G-1, G-4 and G-5 in the open; G-3 in the village and the
supply stand G-S behind it they have never seen; G-2 they saw at the start (10,24).
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tabletop.cli import cli
from tabletop.data.resources import scenarios_dir
from tabletop.game.engine import Game
from tabletop.rules.views import Knowledge, LastSeen, Spotted, event_for_view, events_for_view
from tests.conftest import Run, as_json, file_digest

HIDDEN_LAKE = (
    "  - {id: weak-ice-7, kind: lake, polygon: [[1, 30], [5, 30], [5, 35], [1, 35]],"
    ' ice: "I", referee_only: true}\n'
)
NEVER_SEEN = ("G-3", "G-S")  # in the village and behind it: no American has seen them
G2_NOW = ("22,21", "22.0, 21.0", '"x": 22.0')  # where G-2 went, out of sight
SECRETS = (*NEVER_SEEN, *G2_NOW, "weak-ice-7", "dummy")


def invoke(game: Path, *args: str, code: int = 0, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(
        cli, [*args, "--game", str(game)], env={"TABLETOP_VIEW": None, **(env or {})}
    )
    assert result.exit_code == code, (args, result.output)
    assert "Traceback" not in result.output
    return result


def hidden_table(folder: Path) -> Path:
    """Crossroads with a referee-only lake, a real and a dummy German minefield and a US one,
    and G-2 moved out of American sight by the referee (shared with test_serve)."""
    text = (scenarios_dir() / "crossroads.yaml").read_text(encoding="utf-8")
    text = text.replace("sides:\n", HIDDEN_LAKE + "sides:\n", 1)
    scenario = folder / "hidden.yaml"
    scenario.write_text(text, encoding="utf-8")
    game = folder / "game.sqlite"
    invoke(game, "new", str(scenario), "--seed", "1")
    for args in (
        ("30", "11", "--side", "Germany"),
        ("33", "11", "--side", "Germany", "--dummy"),
        ("20", "30", "--side", "USA"),
    ):
        invoke(game, "minefield", "place", *args, "--pregame")
    invoke(game, "place", "G-2", "22", "21")
    return game


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hidden_table(tmp_path_factory.mktemp("views"))


def read(game: Path, *args: str, code: int = 0) -> str:
    return invoke(game, *args, code=code).output


def ids_and_texts(svg: str) -> tuple[set[str], set[str]]:
    """An SVG map's element ids and texts: exact values, without the drawing's coordinates."""
    elements = list(ET.fromstring(svg).iter())
    return {e.get("id", "") for e in elements}, {e.text or "" for e in elements}


def assert_hidden(text: str) -> None:
    # USA's own field is logged in full, with its "dummy": false: that is USA's to know.
    text = text.replace('"dummy": false', "")
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} leaked:\n{text}"


# Each reading command as USA reads it, in text and in JSON (map: the whole SVG).
READERS = [
    ["status"],
    ["status", "--json"],
    ["show", "US-1"],
    ["show", "US-1", "--json"],
    ["show", "G-1"],
    ["show", "G-1", "--json"],
    ["measure", "US-1", "G-1"],
    ["measure", "US-1", "G-1", "--json"],
    ["measure", "--all"],
    ["measure", "--all", "--json"],
    ["map", "--out", "-"],
    ["map", "--json", "--out", "-"],
    ["report"],
    ["report", "--json"],
    ["log"],
    ["log", "--json"],
    ["minefield", "list"],
    ["minefield", "list", "--json"],
    ["structure", "list"],
    ["structure", "list", "--json"],
]


@pytest.mark.parametrize("args", READERS, ids=[" ".join(a) for a in READERS])
def test_a_side_reads_nothing_it_may_not_know(table: Path, args: list[str]) -> None:
    assert_hidden(read(table, *args, "--view", "USA"))


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["status", "--json"],
        ["show", "G-1"],
        ["measure", "--all"],
        ["map", "--out", "-"],
        ["measure", "US-1", "G-1", "--json"],
    ],
)
def test_a_spotted_enemy_appears(table: Path, args: list[str]) -> None:
    text = read(table, *args, "--view", "USA")
    assert "G-1" in text


@pytest.mark.parametrize("args", [["status"], ["map", "--out", "-"], ["log"], ["status", "--json"]])
def test_the_referee_sees_what_the_side_does_not(table: Path, args: list[str]) -> None:
    """The checks above can fail: the referee's own view holds every secret they look for."""
    text = read(table, *args)
    assert all(stand in text for stand in NEVER_SEEN) or args == ["log"]
    if args[0] == "map":
        ids, texts = ids_and_texts(text)
        assert "terrain-weak-ice-7" in ids and "minefield (dummy), hidden" in texts
    if args == ["log"]:
        assert text.splitlines()[4] == "#5 turn 1 movement: place stand=G-2 x=22 y=21" and (
            text.splitlines()[2]
            == (
                "#3 turn 1 movement: minefield-place at=33,11 dummy pregame "
                "side=Germany -> minefield mf-2 placed for Germany"
            )
        )


def test_status_lists_own_spotted_and_last_seen(table: Path) -> None:
    data = json.loads(read(table, "status", "--view", "USA", "--json"))
    stands = {s["id"]: s for s in data["stands"]}
    assert sorted(stands) == ["G-1", "G-4", "G-5", "US-1", "US-2", "US-3", "US-4", "US-5", "US-S"]
    assert {s: stands[s]["spotted_by"] for s in ("G-1", "G-4", "G-5")} == {
        "G-1": "US-1",
        "G-4": "US-4",
        "G-5": "US-5",
    }
    # The enemy's ammunition is not the other side's to know (CD 1).
    assert stands["G-4"]["ammo"] == {} and stands["US-4"]["ammo"] == {
        "us-75mm-m2": "ok",
        "us-37mm-m6": "ok",
    }
    assert data["last_seen"] == [
        {
            "id": "G-2",
            "side": "Germany",
            "kind": "infantry",
            "x": 10.0,
            "y": 24.0,
            "turn": 1,
            "phase": "movement",
            "gone": None,
        }
    ]


def test_status_text_names_the_view_and_the_last_seen(table: Path) -> None:
    text = read(table, "status", "--view", "usa")
    assert (
        text.splitlines()[14]
        == "USA's view: enemy spotted now: G-1 (by US-1), G-4 (by US-4), G-5 (by US-5)"
    )
    assert text.splitlines()[15] == "  last seen: G-2 (infantry) at 10,24 in turn 1, movement phase"


def test_status_side_alone_shows_that_sides_view(table: Path) -> None:
    assert_hidden(read(table, "status", "--side", "USA"))


def test_both_sides_see_every_minefield_template(table: Path) -> None:
    """CD 3: the templates lie on the table; real or dummy is the layer's secret."""
    usa = json.loads(read(table, "minefield", "list", "--view", "USA", "--json"))["minefields"]
    assert [(f["id"], f["side"], f["x"], f["y"], f["real"]) for f in usa] == [
        ("mf-1", "Germany", 30.0, 11.0, None),
        ("mf-2", "Germany", 33.0, 11.0, None),
        ("mf-3", "USA", 20.0, 30.0, True),
    ]
    germany = json.loads(read(table, "minefield", "list", "--view", "Germany", "--json"))
    assert [f["real"] for f in germany["minefields"]] == [True, False, None]
    text = read(table, "minefield", "list", "--view", "USA")
    assert text.splitlines()[1] == "mf-2: Germany (not known if real) at 33,11"


def test_a_sides_map_draws_enemy_templates_as_unknown(table: Path) -> None:
    svg = read(table, "map", "--out", "-", "--view", "USA")
    ids, texts = ids_and_texts(svg)
    assert {"minefield-mf-1", "minefield-mf-2", "minefield-mf-3"} <= ids
    assert "minefield (real), hidden" in texts  # USA's own field, in the legend
    assert "minefield (dummy)" not in svg
    assert "last-seen-G-2" in ids and "G-2? t1" in texts


def test_show_answers_a_hidden_stand_as_it_answers_no_stand(table: Path) -> None:
    hidden = read(table, "show", "G-3", "--view", "USA", code=2)
    nothing = read(table, "show", "G-9", "--view", "USA", code=2)
    assert hidden.replace("G-3", "?") == nothing.replace("G-9", "?")
    assert "G-S" not in hidden and "27" not in hidden


def test_show_an_enemy_last_seen(table: Path) -> None:
    data = json.loads(read(table, "show", "G-2", "--view", "USA", "--json"))
    assert data == {
        "id": "G-2",
        "last_seen": {
            "id": "G-2",
            "side": "Germany",
            "kind": "infantry",
            "x": 10.0,
            "y": 24.0,
            "turn": 1,
            "phase": "movement",
            "gone": None,
        },
    }


def test_show_a_spotted_enemy_without_its_secrets(table: Path) -> None:
    data = json.loads(read(table, "show", "G-4", "--view", "USA", "--json"))
    assert data["spotted_by"] == "US-4" and (data["x"], data["y"]) == (34.0, 24.0)
    assert not {"ammo", "quality", "formation"} & set(data)


def test_measure_to_a_hidden_stand_is_an_unknown_stand(table: Path) -> None:
    out = read(table, "measure", "US-1", "G-3", "--view", "USA", code=2)
    assert out == (
        "Error: unknown stand 'G-3' (stands: G-1, G-4, G-5, US-1, US-2, US-3, US-4, "
        "US-5, US-S); did you mean 'G-5'?\n"
    )


def test_map_refuses_a_hidden_stand_for_sight_or_bands(table: Path) -> None:
    out = read(table, "map", "--out", "-", "--view", "USA", "--los", "US-1", "G-3", code=2)
    assert out == (
        "Error: unknown stand 'G-3' (stands: G-1, G-2, G-4, G-5, US-1, US-2, US-3, "
        "US-4, US-5, US-S); did you mean 'G-5'?\n"
    )
    out = read(table, "map", "--out", "-", "--view", "USA", "--range-bands", "G-1", code=2)
    assert out == "Error: --range-bands 'G-1': only a side's own stands' weapons are known\n"


def test_a_sides_log_keeps_the_table_and_own_acts(table: Path) -> None:
    events = json.loads(read(table, "log", "--view", "USA", "--json"))["events"]
    assert [(e["seq"], e["command"]) for e in events] == [
        (1, "new"),
        (2, "minefield-place"),
        (3, "minefield-place"),
        (4, "minefield-place"),
    ]
    assert events[0]["inputs"] == {"scenario": events[0]["inputs"]["scenario"]}  # no seed
    assert events[2]["result"] == {
        "id": "mf-2",
        "verdict": "Germany lays minefield template mf-2 at 33,11 (CD 3)",
    }
    assert "dummy" not in events[2]["inputs"]
    assert events[3]["inputs"]["dummy"] is False  # USA's own act, in full


def test_a_sides_report_has_no_seed(table: Path) -> None:
    data = json.loads(read(table, "report", "--view", "USA", "--json"))
    assert (data["view"], data["seed"], data["events"]) == ("USA", None, 4)
    assert json.loads(read(table, "report", "--json"))["seed"] == 1


def test_handout_writes_the_sides_folder(table: Path, tmp_path: Path) -> None:
    out = tmp_path / "usa"
    data = json.loads(read(table, "handout", "usa", "--out", str(out), "--json"))
    names = ["map.svg", "map.png", "status.txt", "status.json", "report.md"]
    assert data["side"] == "USA" and data["files"] == [str(out / n) for n in names]
    for name in names:
        if name.endswith(".png"):
            assert (out / name).read_bytes().startswith(b"\x89PNG")
            continue
        text = (out / name).read_text(encoding="utf-8")
        assert_hidden(text)
    status = (out / "status.txt").read_text(encoding="utf-8").splitlines()
    assert status[5] == "G-1      Germany  infantry      18,27  ok        -"
    assert (
        "![The table at the end of the report](map.svg)"
        in (out / "report.md").read_text(encoding="utf-8").splitlines()
    )


def test_handout_refuses_the_referee_and_unknown_sides(table: Path, tmp_path: Path) -> None:
    out = read(table, "handout", "referee", "--out", str(tmp_path / "x"), code=2)
    assert out == "Error: SIDE 'referee': not a side of this game (accepted: Germany, USA)\n"
    assert not (tmp_path / "x").exists()


def test_reading_never_changes_the_game(table: Path, tmp_path: Path) -> None:
    before = file_digest(table)
    for args in READERS:
        read(table, *args, "--view", "Germany")
    read(table, "handout", "Germany", "--out", str(tmp_path / "g"))
    assert file_digest(table) == before


# --- the game's default view ----------------------------------------------------------------


@pytest.fixture
def own_copy(table: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.sqlite"
    shutil.copy(table, copy)
    return copy


def test_view_set_makes_a_side_the_default(own_copy: Path) -> None:
    out = invoke(own_copy, "view", "set", "usa").output
    assert out == "reading commands now show USA's view by default (event 6)\n"
    assert_hidden(read(own_copy, "status"))
    assert_hidden(read(own_copy, "map", "--out", "-"))
    assert (
        read(own_copy, "status", "--view", "referee").splitlines()[7]
        == "G-3      Germany  infantry      27,21  ok        rifle"
    )
    assert read(own_copy, "view", "show") == "USA's view (the game's setting)\n"
    # The player's terminal setting wins over the game's.
    env = invoke(own_copy, "status", "--json", env={"TABLETOP_VIEW": "Germany"}).output
    data = json.loads(env)
    assert data["view"] == "Germany"
    assert [s["id"] for s in data["stands"]] == [
        *("G-1", "G-2", "G-3", "G-4", "G-5", "G-S"),
        *("US-1", "US-2", "US-4", "US-5", "US-S"),  # US-3 is not seen from Germany's side
    ]


def test_tabletop_view_env_sets_the_default(table: Path) -> None:
    text = invoke(table, "log", env={"TABLETOP_VIEW": "USA"}).output
    assert_hidden(text)
    out = invoke(table, "status", env={"TABLETOP_VIEW": "Mars"}, code=2).output
    assert (
        out == "Error: --view 'Mars': not a view of this game (accepted: referee, Germany, USA)\n"
    )


# --- the log, event by event (tabletop.rules.views.event_for_view) ----------------------------

SIDES = {"G-1": "Germany", "G-3": "Germany", "US-1": "USA", "US-4": "USA"}


def usa(spotted: tuple[str, ...] = ("G-1",)) -> Knowledge:
    return Knowledge(
        "USA",
        SIDES,
        spotted={s: Spotted(s, "US-1", 10.0) for s in spotted},
        last_seen={},
        hidden_terrain=frozenset({"weak-ice-7"}),
    )


def event(command: str, inputs: dict[str, Any], result: Any, rolls: Any = (), **kw: Any) -> Any:
    return SimpleNamespace(
        seq=kw.get("seq", 5),
        turn=1,
        phase="fire",
        command=command,
        inputs=inputs,
        rolls=list(rolls),
        result=result,
        undoes=kw.get("undoes"),
        kind=kw.get("kind", "action"),
    )


def roll(value: int, purpose: str) -> dict[str, Any]:
    return {"die": 10, "value": value, "purpose": purpose, "source": "generated"}


def test_enemy_fire_at_a_side_is_seen_with_its_dice() -> None:
    fired = event(
        "fire",
        {"shooter": "G-1", "target": "US-1"},
        {"shooter": "G-1", "target": "US-1", "verdict": "1 hit"},
        [roll(3, "to-hit G-1 rifle")],
    )
    shown = event_for_view(fired, usa())
    assert shown is not None and shown.rolls == [roll(3, "to-hit G-1 rifle")]


def test_enemy_fire_from_a_stand_never_seen_is_seen_landing_without_the_shooter() -> None:
    fired = event(
        "barrage",
        {"shooter": "G-3", "at": [3.0, 4.0]},
        {"shooter": "G-3", "verdict": "mortar-81 burst at 3,4: hits on US-1 (suppressed)"},
        [roll(2, "to-hit, mortar-81 at US-1, needs 4 or less")],
    )
    shown = event_for_view(fired, usa())
    assert shown is not None
    assert shown.inputs == {"at": [3.0, 4.0]}
    assert shown.result == {"verdict": "mortar-81 burst at 3,4: hits on US-1 (suppressed)"}
    assert shown.rolls == [roll(2, "to-hit, mortar-81 at US-1, needs 4 or less")]


def test_enemy_moves_are_left_out_even_when_spotted_now() -> None:
    """The log would give away where the stand was while unseen."""
    moved = event("place", {"stand": "G-1", "x": 3.0, "y": 4.0}, {"stand": "G-1"})
    assert event_for_view(moved, usa()) is None


def test_a_boundary_keeps_own_and_table_news_and_drops_the_enemys() -> None:
    boundary = event(
        "phase-next",
        {},
        {
            "happened": [
                {"what": "depletion check", "stand": "G-1", "result": "depleted"},
                {"what": "depletion check", "stand": "US-4", "result": "ok"},
                {"what": "turn", "result": "turn 2 begins"},
            ]
        },
        [roll(1, "depletion G-1 rifle"), roll(7, "depletion US-4 us-37mm-m6")],
    )
    shown = event_for_view(boundary, usa())
    assert shown is not None
    assert shown.result["happened"] == [
        {"what": "depletion check", "stand": "US-4", "result": "ok"},
        {"what": "turn", "result": "turn 2 begins"},
    ]
    assert shown.rolls == [roll(7, "depletion US-4 us-37mm-m6")]


def test_an_enemy_event_naming_referee_only_terrain_is_kept_without_it() -> None:
    fired = event("fire", {"shooter": "G-1", "target": "US-1"}, {"verdict": "from weak-ice-7"})
    shown = event_for_view(fired, usa())
    assert shown is not None and shown.result == {}


def test_an_own_event_naming_referee_only_terrain_is_kept_without_it() -> None:
    own = event(
        "place",
        {"stand": "US-1"},
        {"stand": "US-1", "verdict": "US-1 to 3,4; ends on weak-ice-7", "on": ["weak-ice-7"]},
    )
    shown = event_for_view(own, usa())
    assert shown is not None
    assert shown.result == {"stand": "US-1", "verdict": "US-1 to 3,4", "on": []}
    alone = event("place", {"stand": "US-1"}, {"stand": "US-1", "verdict": "on weak-ice-7"})
    shown = event_for_view(alone, usa())
    assert shown is not None and shown.result == {"stand": "US-1"}


def test_an_own_move_keeps_its_event_without_the_unseen_enemy_that_could_fire_on_it() -> None:
    # G-3 is not seen by USA: the move stays in USA's log, G-3 goes out of it.
    result = {
        "stand": "US-1",
        "verdict": 'US-1 moves 4.00" to 18.00,10.00 for 4.00" of its 6"',
        "opportunity": [
            {"point": [18.0, 9.0], "range": 21.26, "stand": "G-3"},
            {"point": [18.0, 10.0], "range": 23.31, "stand": "G-1"},
        ],
    }
    moved = event("move", {"stand": "US-1", "to": [18.0, 10.0]}, result)
    shown = event_for_view(moved, usa())
    assert shown is not None
    assert shown.result == {
        "stand": "US-1",
        "verdict": 'US-1 moves 4.00" to 18.00,10.00 for 4.00" of its 6"',
        "opportunity": [{"point": [18.0, 10.0], "range": 23.31, "stand": "G-1"}],
    }


def test_a_batch_is_read_item_by_item_each_side_its_own() -> None:
    items = [{"stand": "US-1", "to": [1.0, 2.0]}, {"stand": "G-1", "to": [3.0, 4.0]}]
    results = [{"stand": "US-1", "verdict": "US-1 moves"}, {"stand": "G-1", "verdict": "G-1 moves"}]
    batch = event(
        "batch",
        {"command": "move", "items": items},
        {
            "command": "move",
            "count": 2,
            "items": results,
            "verdicts": ["US-1 moves", "G-1 moves"],
            "verdict": "move: 2 stands, all applied",
        },
    )
    shown = event_for_view(batch, usa())
    assert shown is not None
    assert shown.inputs == {"command": "move", "items": [items[0]]}
    assert shown.result == {
        "command": "move",
        "count": 1,
        "items": [results[0]],
        "verdicts": ["US-1 moves"],
        "verdict": "move: 1 stand of USA's, all applied",
    }
    only_enemy = event("batch", {"command": "move", "items": [items[1]]}, {"items": [results[1]]})
    assert event_for_view(only_enemy, usa()) is None


def test_an_undo_of_a_hidden_act_is_hidden_too() -> None:
    moved = event("place", {"stand": "G-1"}, {"stand": "G-1"}, seq=4)
    undo = event("undo", {}, {"undid": 4, "command": "place"}, seq=5, undoes=4, kind="undo")
    assert events_for_view([moved, undo], usa()) == []
    mine = event("place", {"stand": "US-1"}, {"stand": "US-1"}, seq=4)
    shown = events_for_view([mine, undo], usa())
    assert [e.command for e in shown] == ["place", "undo"]


def test_the_referee_reads_every_event_whole() -> None:
    moved = event("place", {"stand": "G-3", "x": 3.0}, {"verdict": "on weak-ice-7"})
    shown = event_for_view(moved, Knowledge("referee", SIDES))
    assert shown is not None and shown.inputs == {"stand": "G-3", "x": 3.0}


def test_last_seen_reads_the_log_back_to_the_first_sight(table: Path) -> None:
    game = Game.open(table)
    try:
        known = game.knowledge("USA")
    finally:
        game.close()
    assert known.last_seen == {
        "G-2": LastSeen("G-2", "Germany", "infantry", 10.0, 24.0, 1, "movement")
    }
    assert sorted(known.spotted) == ["G-1", "G-4", "G-5"]
    assert known.secrets == frozenset({"G-3", "G-S", "weak-ice-7"})


def test_an_enemy_eliminated_is_gone_and_its_ammunition_stays_private(own_copy: Path) -> None:
    """US-4's 75 mm eliminates the spotted G-4 (a natural 1 hits; 9 eliminates a regular
    gun crew); its depletion die at the end of the fire phase is USA's own (CD 1.2)."""
    invoke(own_copy, "phase", "next")
    invoke(own_copy, "phase", "next")
    invoke(own_copy, "fire", "US-4", "G-4", "--weapon", "us-75mm-m2", "--dice", "1,9")
    germany = json.loads(read(own_copy, "status", "--view", "Germany", "--json"))
    assert germany["pending"] == {}
    assert json.loads(read(own_copy, "status", "--view", "USA", "--json"))["pending"] == {
        "depletion": 1
    }
    invoke(own_copy, "phase", "next", "--dice", "3")
    usa = json.loads(read(own_copy, "status", "--view", "USA", "--json"))
    g4 = next(m for m in usa["last_seen"] if m["id"] == "G-4")
    assert (g4["x"], g4["y"], g4["turn"], g4["phase"], g4["gone"]) == (
        34.0,
        24.0,
        1,
        "fire",
        "eliminated",
    )
    log = read(own_copy, "log", "--view", "Germany")
    assert log.splitlines()[7] == (
        "#8 turn 1 fire: fire ammo=standard shooter=US-4 target=G-4 weapon=us-75mm-m2 "
        "-> 1 hit: us-75mm-m2 on G-4 (eliminated)"
    )  # fire is seen
    assert "depletion US-4" not in log and "depleted" not in log  # the die is USA's
    assert (
        read(own_copy, "log", "--view", "USA").splitlines()[9]
        == "    dice: 3* (depletion US-4 us-75mm-m2 (<= 6))"
    )


def test_a_template_keeps_its_makers_name_only_when_the_side_knows_the_maker() -> None:
    from tabletop.rules.views import templates_for_view
    from tabletop.state.document import State

    square = [[1, 1], [2, 1], [2, 2], [1, 2]]
    state = State(
        {
            "template:smoke-1": {"id": "smoke-1", "kind": "smoke", "by": "G-3", "serial": 1},
            "template:burst-2": {"id": "burst-2", "kind": "burst", "by": "G-1", "serial": 2},
            "template:lake": {"id": "lake", "kind": "x", "referee_only": True, "serial": 3},
        }
    )
    for t in state.templates():
        t["polygon"] = square
    shown = templates_for_view(state, usa())
    assert [(t["id"], t["by"]) for t in shown] == [("smoke-1", None), ("burst-2", "G-1")]
    assert len(templates_for_view(state, Knowledge("referee", SIDES))) == 3


def test_night_hides_what_day_showed_and_a_searchlight_gives_itself_away(own_copy: Path) -> None:
    """CD 9.1.2: at night visibility is 4" and every stand here is farther apart, so USA
    spots nothing and keeps only markers from the day; CD 9.2.2: a searchlight is spotted
    by any enemy with a line of sight to it."""
    invoke(own_copy, "weather", "set", "--light", "night-moonlit")
    usa = json.loads(read(own_copy, "status", "--view", "USA", "--json"))
    assert [s["id"] for s in usa["stands"] if s["side"] == "Germany"] == []
    assert [(m["id"], m["x"], m["y"]) for m in usa["last_seen"]] == [
        ("G-1", 18.0, 27.0),
        ("G-2", 10.0, 24.0),
        ("G-4", 34.0, 24.0),
        ("G-5", 40.0, 20.0),
    ]
    assert_hidden(read(own_copy, "map", "--out", "-", "--view", "USA"))
    invoke(own_copy, "searchlight", "US-4", "--bearing", "0")
    germany = json.loads(read(own_copy, "status", "--view", "Germany", "--json"))
    seen = {s["id"]: s.get("spotted_by") for s in germany["stands"] if s["side"] == "USA"}
    assert seen == {"US-4": "G-4"}


def test_damage_done_in_plain_view_is_seen_by_both_sides() -> None:
    bomb = event(
        "structure-damage",
        {"target": "village-1", "cause": "bomb", "by": None},
        {"verdict": "village-1 damaged"},
        [roll(1, "bomb on village-1")],
    )
    shown = event_for_view(bomb, usa())
    assert shown is not None and shown.result == {"verdict": "village-1 damaged"}


def test_targets_under_a_sides_view_answers_only_for_its_own_stands(game: Run) -> None:
    # What an enemy stand sees is not the side's to know (SPEC 3, views).
    out = game("targets", "G-3", "--view", "USA", code=2).output
    assert out == (
        "Error: 'G-3' is not one of USA's stands (under the USA view, targets answers for "
        "them: US-1, US-2, US-3, US-4, US-5, US-S)\n"
    )
    own = as_json(game("targets", "us-4", "--view", "USA", "--json"))
    assert own == as_json(game("targets", "US-4", "--json"))


def test_past_states_differing_only_in_a_quiet_phase_are_looked_at_once() -> None:
    """Spotting reads the phase only for last turn's muzzle flashes (CD 9.1.2), in the
    opportunity fire phase: the other phases of one turn share one look."""
    from tabletop.rules.views import _sight_key
    from tabletop.state.document import State

    def state(phase: str, turn: int = 2) -> State:
        return State({"meta": {"turn": turn, "phase": phase}, "conditions": {"light": "day"}})

    assert _sight_key(state("command")) == _sight_key(state("morale"))
    assert _sight_key(state("command")) != _sight_key(state("opportunity-fire"))
    assert _sight_key(state("command")) != _sight_key(state("command", turn=3))


def test_a_sides_knowledge_is_worked_out_once_while_the_game_is_unchanged(
    game: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tabletop.rules.views as views

    calls: list[str] = []
    real = views.knowledge

    def counted(ctx: Any, view: str, past: Any = None) -> Any:
        calls.append(view)
        return real(ctx, view, past)

    monkeypatch.setattr(views, "knowledge", counted)
    game("status", "--view", "USA")
    game("log", "--view", "USA")
    game("status", "--view", "Germany")
    assert calls == ["USA", "Germany"]
    game("move", "US-1", "18,8")
    game("status", "--view", "USA")
    assert calls == ["USA", "Germany", "USA"]


def test_a_sides_handout_keeps_its_batch_moves_and_its_moves_seen_by_an_unseen_enemy(
    tmp_path: Path,
) -> None:
    # Both were left out of USA's log and handout: the batch (no stand named at its top
    # level), and US-4's move, whose opportunity-fire list named G-3, which USA never saw
    # (stationary at the village's edge, 11.99" off: spotted within 10" by day). G-3 carries
    # an anti-tank gun here: its rifle alone may not fire at a tank (ammo chart).
    text = (scenarios_dir() / "crossroads.yaml").read_text(encoding="utf-8")
    text = text.replace("at: [27, 21], facing: 180", "at: [27, 20.1], facing: 180", 1)
    text = text.replace(
        "weapons: [rifle], at: [27, 20.1]", "weapons: [rifle, pak-36], at: [27, 20.1]"
    )
    scenario = tmp_path / "edge.yaml"
    scenario.write_text(text, encoding="utf-8")
    game = tmp_path / "game.sqlite"
    invoke(game, "new", str(scenario), "--seed", "1")
    invoke(game, "move", "US-1", "19.5,11.5", "--and", "US-2 12,8")
    moved = json.loads(read(game, "move", "US-4", "30,8", "--json"))
    assert [(o["stand"], o["range"]) for o in moved["opportunity"]] == [
        ("G-3", 11.99),
        ("G-4", 15.95),
        ("G-5", 14.53),
    ]
    log = json.loads(read(game, "log", "--view", "USA", "--json"))["events"]
    assert [(e["seq"], e["command"]) for e in log] == [(1, "new"), (2, "batch"), (3, "move")]
    assert log[2]["result"]["opportunity"] == [
        {"stand": "G-4", "range": 15.95, "point": [30.0, 8.0]},
        {"stand": "G-5", "range": 14.53, "point": [30.0, 8.0]},
    ]
    invoke(game, "handout", "USA", "--out", str(tmp_path / "usa"))
    report = (tmp_path / "usa" / "report.md").read_text(encoding="utf-8")
    turn = report.split("### Turn 1\n\n", 1)[1].split("\n\n## The dice", 1)[0]
    assert turn.splitlines() == [
        "- movement, event 1: the game begins: Crossroads",
        '- movement, event 2: move: US-1 moves 5.70" to 19.50,11.50 for 5.70" of its 6"',
        '- movement, event 2: move: US-2 moves 3.16" to 12.00,8.00 for 3.16" of its 6"',
        '- movement, event 3: move: US-4 moves 2.00" to 30.00,8.00 for 2.00" of its 12"',
    ]
    assert "G-3" not in report
