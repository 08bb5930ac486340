"""The turn sequence: phases from the chart, boundary procedures through the registry."""

from __future__ import annotations

from tabletop.rules import sequence
from tests.conftest import Run, as_json


def test_phases_follow_the_turn_chart(game: Run, charts) -> None:
    order = [p.id for p in charts.phases]
    seen = []
    for _ in range(len(order)):
        out = as_json(game("phase", "next", "--json"))
        seen.append((out["turn"], out["phase"]))
    start = order.index("movement")
    expected = [(1, p) for p in order[start + 1 :]] + [(2, p) for p in order[: start + 1]]
    assert seen == expected


def test_turn_next_runs_to_the_first_phase_of_the_next_turn(game: Run, charts) -> None:
    out = as_json(game("turn", "next", "--json"))
    assert (out["turn"], out["phase"]) == (2, charts.phases[0].id)
    assert out["from"] == {"turn": 1, "phase": "movement"}
    assert {"what": "turn", "result": "turn 2 begins"} in out["happened"]


def test_happened_reports_the_boundary_procedures(game: Run) -> None:
    game("phase", "next")  # opportunity fire
    game("fire", "G-4", "US-4", "--dice", "1,5")
    out = as_json(game("phase", "next", "--dice", "7", "--json"))
    checks = [h for h in out["happened"] if h["what"] == "depletion check"]
    assert checks == [
        {
            "what": "depletion check",
            "stand": "G-4",
            "weapon": "pak-36",
            "rolls": [7],
            "result": "ammunition holds (rolled 7 > 3)",
        }
    ]


def test_artillery_phase_clears_last_turns_templates_and_suppression(game: Run) -> None:
    game("turn", "next")
    game("phase", "next")  # artillery, turn 2
    game("barrage", "US-5", "--at", "27,21", "--dice", "5")
    status = as_json(game("status", "--json"))
    assert [t["kind"] for t in status["templates"]] == ["burst"]
    g3 = next(s for s in status["stands"] if s["id"] == "G-3")
    assert g3["markers"] == ["suppressed"]
    out = as_json(game("turn", "next", "--json"))
    assert out["phase"] == "command"
    cleared = as_json(game("phase", "next", "--json"))["happened"]
    assert any(h["what"] == "template" for h in cleared)
    assert any(h["what"] == "suppression" and h["stand"] == "G-3" for h in cleared)
    assert as_json(game("status", "--json"))["templates"] == []


def test_registry_orders_hooks_and_new_modules_plug_in() -> None:
    calls: list[str] = []

    @sequence.on("end-phase:test-phase", order=20)
    def second(ctx):
        calls.append("second")
        return [{"what": "b", "result": "2"}]

    @sequence.on("end-phase:test-phase", order=10)
    def first(ctx):
        calls.append("first")
        return [{"what": "a", "result": "1"}]

    hooks = sequence.hooks("end-phase:test-phase")
    assert hooks[:2] == [first, second]
    sequence._HOOKS.pop("end-phase:test-phase")


def test_phase_next_is_undone_exactly(game: Run) -> None:
    before = as_json(game("status", "--json"))
    game("turn", "next")
    game("undo", "--yes")
    assert as_json(game("status", "--json")) == before
