"""The turn sequence: phases from the chart, boundary procedures through the registry."""

from __future__ import annotations

import pytest

from tabletop.data.chart_files import load_charts
from tabletop.rules import sequence
from tests.conftest import Run, as_json, goto_phase


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
    out = as_json(game("turn", "next", "--yes", "--json"))
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
    game("turn", "next", "--yes")
    game("phase", "next")  # artillery, turn 2
    game("barrage", "US-5", "--at", "27,21", "--dice", "5")
    status = as_json(game("status", "--json"))
    assert [t["kind"] for t in status["templates"]] == ["burst"]
    g3 = next(s for s in status["stands"] if s["id"] == "G-3")
    assert g3["markers"] == ["suppressed"]
    out = as_json(game("turn", "next", "--yes", "--json"))
    assert out["phase"] == "command"
    cleared = as_json(game("phase", "next", "--json"))["happened"]
    assert any(h["what"] == "template" for h in cleared)
    assert any(h["what"] == "suppression" and h["stand"] == "G-3" for h in cleared)
    assert as_json(game("status", "--json"))["templates"] == []


def test_every_turn_chart_step_has_one_procedure_and_every_procedure_a_step() -> None:
    import tabletop.game.turns  # noqa: F401  (registers the rule areas' steps)
    from tabletop.data.chart_files import load_charts

    charts = load_charts()
    in_chart = [p.id for p in charts.steps_at("start-turn")]
    assert in_chart == [
        "clear-turn-markers",
        "flails-stop",
        "fires-out",
        "variable-wind",
        "smoke-generators",
        "mist-and-fog",
        "precipitation",
    ]
    steps = [e.id for e in charts._tables["turn"].values() if e.at is not None]
    assert sorted(steps) == sorted(sequence.registered_steps())
    registered = sequence.registered_steps()
    assert sequence.hooks("end-phase", charts) == [
        registered[s]
        for s in (
            "depletion-dice",
            "limited-rounds",
            "landing-wave-results",
            "mech-brigade-pulse",
            "typhoon-heavy-suppression",
        )
    ]


def test_turn_chart_steps_are_not_phases() -> None:
    phases = [p.id for p in load_charts().phases]
    assert phases == ["command", "artillery", "movement", "opportunity-fire", "fire", "morale"]


def test_a_step_at_an_unknown_boundary_is_a_chart_problem(tmp_path) -> None:
    from tabletop.core.errors import ChartError

    (tmp_path / "turn.yaml").write_text(
        "entries:\n  - {id: resupply, at: end-of-lunch}\n", encoding="utf-8"
    )
    with pytest.raises(ChartError) as caught:
        load_charts((tmp_path,))
    assert [p for p in caught.value.problems if "end-of-lunch" in p] == [
        "turn.yaml: entry 'resupply': 'at' 'end-of-lunch' is not a boundary of the turn "
        "(accepted: start-turn, end-turn, end-phase, start-phase:command, end-phase:command, "
        "start-phase:artillery, end-phase:artillery, start-phase:movement, end-phase:movement, "
        "start-phase:opportunity-fire, end-phase:opportunity-fire, start-phase:fire, "
        "end-phase:fire, start-phase:morale, end-phase:morale)"
    ]


def test_phase_next_is_undone_exactly(game: Run) -> None:
    before = as_json(game("status", "--json"))
    game("turn", "next", "--yes")
    game("undo", "--yes")
    assert as_json(game("status", "--json")) == before


# --- the phase guard (issue 20 item 4) -----------------------------------------------------------


def test_turn_next_outside_the_last_phase_is_refused_without_yes(game: Run) -> None:
    from tests.conftest import file_digest

    before = file_digest(game.game)  # type: ignore[attr-defined]
    out = game("turn", "next", code=3).output
    assert out == (
        "Error: turn next from the movement phase of turn 1 ends it and passes over the "
        "opportunity-fire, fire, morale phases (each phase's boundary procedures still run); "
        "give --yes to do so, or 'tabletop phase next' to take them one at a time (turn "
        "sequence, turn chart)\n"
    )
    assert file_digest(game.game) == before  # type: ignore[attr-defined]


def test_turn_next_with_yes_names_the_phases_it_passed_over(game: Run) -> None:
    out = as_json(game("turn", "next", "--yes", "--json"))
    assert out["skipped"] == ["opportunity-fire", "fire", "morale"]
    assert (out["turn"], out["phase"]) == (2, "command")
    text = game("turn", "next", "--yes").output
    assert (
        text.splitlines()[1]
        == "  passed over: artillery, movement, opportunity-fire, fire, morale phases"
    )


def test_turn_next_in_the_last_phase_needs_no_yes(game: Run) -> None:
    goto_phase(game, "morale")
    out = as_json(game("turn", "next", "--json"))
    assert (out["turn"], out["phase"], out["skipped"]) == (2, "command", [])


def test_turn_next_asks_at_a_terminal(game: Run, monkeypatch) -> None:
    monkeypatch.setattr("tabletop.cli.commands.turn.can_ask", lambda: True)
    no = game("turn", "next", input="n\n")
    assert no.output.splitlines()[0] == (
        "turn next from the movement phase of turn 1 ends it and passes over the "
        "opportunity-fire, fire, morale phases (each phase's boundary procedures still "
        "run)."
    )
    assert (
        no.output.splitlines()[2]
        == "Nothing done; 'tabletop phase next' takes one phase at a time."
    )
    assert as_json(game("status", "--json"))["phase"] == "movement"
    yes = game("turn", "next", input="y\n")
    assert yes.output.splitlines()[1:3] == [
        "Finish the turn? [y/N]: y",
        "Turn 2, command phase",
    ]


def test_phase_next_says_what_runs_at_the_boundary(game: Run) -> None:
    game("phase", "next")  # opportunity fire
    game("fire", "G-4", "US-4", "--dice", "1,5")
    out = as_json(game("phase", "next", "--dice", "7", "--json"))
    assert out["runs"] == ["end of the opportunity-fire phase: 1 depletion die to roll (CD 1.2)"]
    game("phase", "next")  # morale
    end = as_json(game("phase", "next", "--json"))  # end of turn 1
    assert end["runs"] == ["end of turn 1: resupply: no stand has depleted ammunition (CD 1.4)"]


def test_the_morale_phase_is_reached_and_lists_its_due_tests(game: Run) -> None:
    game("weather", "set", "--light", "night-moonlit")
    game("marker", "G-1", "--add", "pinned")
    goto_phase(game, "fire")
    text = game("phase", "next").output
    assert text.splitlines()[1:] == [
        "  at the boundary:",
        "    end of the fire phase: no depletion dice pending (CD 1.2)",
        "    start of the morale phase: 1 morale test due (CD 9.1.3, 9.1.4)",
        "  morale test due: G-1: pinned at night: no recovery by itself (CD 9.1.4); passes on 4 "
        "or less (level 6; night -2 (CD 9.1.3))",
        '  night orders: orders reach 3"; no rally orders (CD 9.1.5)',
    ]
