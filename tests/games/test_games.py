"""Whole games, played through 'tabletop play' from a script and checked end to end.

Each ``*.txt`` beside this file is one game (see README.md): a line ``# new: ARGS`` starts
it (``tabletop new ARGS``); every other line is what a referee types in ``tabletop play``. A
command line may end with ``# refused: N`` (the command must fail with exit status N); the
lines ``#> TEXT`` that follow a command say what its answer must hold, ``#! TEXT`` what it
must not.

Each game is played once, by one test, which then checks everything on the finished game and
reports every problem it found at once:

- the answer of every command is as the script says, and no command failed that the script
  expects to pass (nor passed that it expects to fail);
- ``replay`` rebuilds the same game from the scenario and the log;
- every side's log holds every event of its own (its stands' acts, batches included) and the
  table's events;
- no side's view (status, log, map, report, handout) names an enemy stand the side never
  saw, or a piece of referee-only terrain;
- the report's totals (the referee's and each side's) equal the counts of the results in the
  log the report was built from.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tabletop.cli import cli

HERE = Path(__file__).resolve().parent
GAMES = sorted(p.stem for p in HERE.glob("*.txt"))

NEW = re.compile(r"^#\s*new:\s*(.+)$")
REFUSED = re.compile(r"#\s*refused:\s*(\d+)\s*$")
FAILED_LINE = re.compile(r"^Error: line (\d+) \(")
SUMMARY = re.compile(r"^play: \d+ of \d+ commands? failed: (.+)$")


# --- the script ---------------------------------------------------------------------------


@dataclass
class Line:
    """One command of the script, with what its answer must and must not hold."""

    number: int
    text: str
    refused: int | None = None
    holds: list[str] = field(default_factory=list)
    lacks: list[str] = field(default_factory=list)
    answer: str = ""


@dataclass
class Script:
    name: str
    new: list[str]
    text: str
    lines: list[Line]


def read_script(name: str) -> Script:
    text = (HERE / f"{name}.txt").read_text(encoding="utf-8")
    new: list[str] = []
    lines: list[Line] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if match := NEW.match(line):
            new = ["new", *shlex.split(match.group(1))]
        elif line.startswith("#>"):
            lines[-1].holds.append(line[2:].strip())
        elif line.startswith("#!"):
            lines[-1].lacks.append(line[2:].strip())
        elif not line.startswith("#"):
            refused = REFUSED.search(line)
            lines.append(Line(number, line, int(refused.group(1)) if refused else None))
    assert new, f"{name}.txt: no '# new: SCENARIO --seed N' line"
    return Script(name, new, text, lines)


# --- playing it ---------------------------------------------------------------------------


@dataclass
class Played:
    script: Script
    game: Path
    result: Result
    failed: dict[int, int]  # line number -> exit status, from the session's closing summary


def invoke(game: Path, *args: str, code: int | None = 0, input: str | None = None) -> Result:
    result = CliRunner().invoke(cli, [*args, "--game", str(game)], input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert "Traceback" not in result.output, result.output
    if code is not None:
        assert result.exit_code == code, (args, result.output)
    return result


def play(script: Script, folder: Path) -> Played:
    game = folder / f"{script.name}.sqlite"
    invoke(game, *script.new)
    result = invoke(game, "play", "--echo", code=None, input=script.text)
    failed: dict[int, int] = {}
    for line in result.stderr.splitlines():
        if summary := SUMMARY.match(line):
            for part in summary.group(1).split(", "):
                n, code = re.fullmatch(r"line (\d+) \(exit (\d+)\)", part).groups()  # type: ignore[union-attr]
                failed[int(n)] = int(code)
    _answers(script, result)
    return Played(script, game, result, failed)


def _answers(script: Script, result: Result) -> None:
    """Each line's answer: its stdout after its echo, and the error naming its line."""
    out = result.stdout.splitlines()
    starts = []
    at = 0
    for line in script.lines:
        while at < len(out) and not out[at].endswith("]> " + line.text):
            at += 1
        assert at < len(out), f"line {line.number} ({line.text}) was never run:\n{result.output}"
        starts.append(at)
        at += 1
    for line, start, end in zip(script.lines, starts, [*starts[1:], len(out)], strict=True):
        line.answer = "\n".join(out[start + 1 : end])
    errors: dict[int, list[str]] = {}
    failing = None  # the line whose error the indented lines that follow it belong to
    for err in result.stderr.splitlines():
        if match := FAILED_LINE.match(err):
            failing = int(match.group(1))
            errors.setdefault(failing, []).append(err)
        elif failing is not None and err.startswith(" "):
            errors[failing].append(err)  # e.g. a refused move's costs, piece by piece
        else:
            failing = None
    for line in script.lines:
        line.answer += "".join("\n" + e for e in errors.get(line.number, []))


# --- the checks ---------------------------------------------------------------------------


def check_answers(played: Played) -> list[str]:
    problems = []
    for line in played.script.lines:
        where = f"line {line.number} ({line.text})"
        got = played.failed.get(line.number)
        if got != line.refused:
            expected = "pass" if line.refused is None else f"be refused with {line.refused}"
            problems.append(f"{where}: expected to {expected}, exit {got or 0}: {line.answer}")
        for text in line.holds:
            if text not in line.answer:
                problems.append(f"{where}: answer lacks {text!r}:\n{line.answer}")
        for text in line.lacks:
            if text in line.answer:
                problems.append(f"{where}: answer holds {text!r}:\n{line.answer}")
    return problems


def check_replay(played: Played) -> list[str]:
    result = invoke(played.game, "replay", code=None)
    if result.exit_code != 0 or "reproduces the stored state" not in result.output:
        return [f"replay: exit {result.exit_code}: {result.output}"]
    return []


ACTOR_KEYS = ("stand", "shooter", "by", "engineer", "attackers", "workers", "stands")
TABLE = ("new", "phase-next", "turn-next", "weather-set", "weather-roll")


def actor_sides(event: dict[str, Any], side_of: dict[str, str], sides: list[str]) -> set[str]:
    """The sides whose act ``event`` is (worked out here, not by the program's views)."""
    inputs = event["inputs"] if isinstance(event["inputs"], dict) else {}
    if event["command"] in TABLE:
        return set(sides)
    named: list[Any] = [inputs.get(k) for k in ACTOR_KEYS]
    named += [i.get("stand") for i in inputs.get("items") or [] if isinstance(i, dict)]
    ids = [n for v in named for n in (v if isinstance(v, list) else [v]) if isinstance(n, str)]
    found = {side_of[i] for i in ids if i in side_of}
    if not found and inputs.get("side") in sides:
        found = {inputs["side"]}
    return found


def log(played: Played, view: str) -> list[dict[str, Any]]:
    data = json.loads(invoke(played.game, "log", "--view", view, "--json").output)
    return list(data["events"])


def check_own_events(played: Played, status: dict[str, Any]) -> list[str]:
    side_of = {s["id"]: s["side"] for s in status["stands"]}
    sides = sorted(set(side_of.values()))
    referee = log(played, "referee")
    problems = []
    for side in sides:
        seen = {e["seq"] for e in log(played, side)}
        for event in referee:
            if event["command"] in ("undo", "redo"):
                continue
            if side in actor_sides(event, side_of, sides) and event["seq"] not in seen:
                problems.append(
                    f"{side}'s log lacks its own event {event['seq']} ({event['command']}: "
                    f"{event['inputs']})"
                )
    return problems


def secrets(played: Played, side: str) -> set[str]:
    """What ``side`` may not read: enemy stands it never saw, referee-only terrain."""
    from tabletop.game.engine import Game

    game = Game.open(played.game)
    try:
        return set(game.knowledge(side).secrets)
    finally:
        game.close()


def names(text: str, words: set[str]) -> list[str]:
    return sorted(
        w for w in words if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text, re.IGNORECASE)
    )


def check_views(played: Played, sides: list[str], folder: Path) -> list[str]:
    problems = []
    for side in sides:
        hidden = secrets(played, side)
        seen = {
            "status": invoke(played.game, "status", "--view", side, "--json").output,
            "log": invoke(played.game, "log", "--view", side).output,
            "log --json": invoke(played.game, "log", "--view", side, "--json").output,
            "map": invoke(played.game, "map", "--view", side, "--out", "-").output,
            "report --json": invoke(played.game, "report", "--view", side, "--json").output,
        }
        out = folder / f"handout-{side}"
        invoke(played.game, "handout", side, "--out", str(out))
        for path in sorted(out.iterdir()):
            if path.suffix != ".png":
                seen[f"handout {path.name}"] = path.read_text(encoding="utf-8")
        for what, text in seen.items():
            if named := names(text, hidden):
                problems.append(f"{side}'s {what} names {', '.join(named)}")
    return problems


# What the log's results say, counted here the way a referee would tally them by hand.
EFFECTS = ("eliminated", "forced back", "suppressed")


def tally(events: list[dict[str, Any]], side_of: dict[str, str]) -> dict[str, Counter[str]]:
    undone = {e["undoes"] for e in events if e.get("undoes")}
    redone = {e["result"].get("redid") for e in events if e["command"] == "redo"}
    count: dict[str, Counter[str]] = {}

    def add(stand: Any, key: str, n: int = 1) -> None:
        if n and isinstance(stand, str) and stand in side_of:
            count.setdefault(side_of[stand], Counter())[key] += n

    for event in events:
        if event["command"] in ("undo", "redo") or (
            event["seq"] in undone and event["seq"] not in redone
        ):
            continue
        result = event["result"] if isinstance(event["result"], dict) else {}
        if event["command"] == "fire":
            add(result.get("shooter"), "shots")
            add(result.get("shooter"), "hits", int(result.get("hits") or 0))
            for effect in result.get("effects") or []:
                add(result.get("target"), effect) if effect in EFFECTS else None
        elif event["command"] == "barrage":
            add(result.get("shooter"), "shots")
            add(result.get("shooter"), "hits", sum((result.get("hits") or {}).values()))
            for stand, effect in (result.get("effects") or {}).items():
                add(stand, effect) if effect in EFFECTS else None
        elif event["command"] == "assault":
            for combat in result.get("combat") or []:
                for shot in combat.get("shots") or []:
                    add(shot.get("shooter"), "shots")
                    add(shot.get("shooter"), "hits", 1 if shot.get("hit") else 0)
            for retreat in result.get("retreated") or []:
                add(retreat.get("stand"), "forced back")
            for stand in [*(result.get("surrendered") or []), *(result.get("eliminated") or [])]:
                add(stand if isinstance(stand, str) else stand.get("stand"), "eliminated")
        elif event["command"] == "resupply":
            add(result.get("stand"), "resupplied", 1 if result.get("restored") else 0)
        for item in result.get("happened") or []:
            what = item.get("what")
            if what == "resupply":
                add(item.get("stand"), "resupplied", 1 if item.get("restored") else 0)
            elif what == "depletion check":
                add(item.get("stand"), "depletion checks", 1 if item.get("rolls") else 0)
                depleted = str(item.get("result", "")).startswith("depleted")
                add(item.get("stand"), "depleted", 1 if depleted else 0)
    return count


COUNTED = ("shots", "hits", *EFFECTS, "depletion checks", "depleted", "resupplied")


def check_report(played: Played, sides: list[str], side_of: dict[str, str]) -> list[str]:
    problems = []
    for view in ["referee", *sides]:
        report = json.loads(invoke(played.game, "report", "--view", view, "--json").output)
        counted = tally(log(played, view), side_of)
        for side in sides:
            totals = report["totals"].get(side, {})
            for key in COUNTED:
                want = counted.get(side, Counter())[key]
                if totals.get(key, 0) != want:
                    problems.append(
                        f"{view}'s report: {side} {key} {totals.get(key, 0)}, the log says {want}"
                    )
        turns_of: dict[int, set[int]] = {}
        for turn in report["turns"]:
            for entry in turn["entries"]:
                if isinstance(entry, dict):
                    turns_of.setdefault(entry["seq"], set()).add(turn["turn"])
        for seq, turns in sorted(turns_of.items()):
            if len(turns) > 1:
                problems.append(f"{view}'s report: event {seq} is split between turns {turns}")
        for key in COUNTED:
            by_turn = sum(t["summary"].get(key, 0) for t in report["turns"])
            by_side = sum(report["totals"].get(s, {}).get(key, 0) for s in sides)
            if by_turn != by_side:
                problems.append(f"{view}'s report: {key} {by_turn} turn by turn, {by_side} by side")
    return problems


@pytest.mark.parametrize("name", GAMES)
def test_whole_game(name: str, tmp_path: Path) -> None:
    """Play the game, then check all of it (see the module's docstring)."""
    played = play(read_script(name), tmp_path)
    status = json.loads(invoke(played.game, "status", "--json").output)
    side_of = {s["id"]: s["side"] for s in status["stands"]}
    sides = sorted(set(side_of.values()))
    problems = [
        *check_answers(played),
        *check_replay(played),
        *check_own_events(played, status),
        *check_views(played, sides, tmp_path),
        *check_report(played, sides, side_of),
    ]
    assert problems == [], "\n".join(problems)


def test_every_bundled_scenario_has_a_game_of_four_turns() -> None:
    from tabletop.data.resources import scenarios_dir

    played = {read_script(n).new[1]: read_script(n).text.count("turn next") for n in GAMES}
    bundled = {p.stem for p in scenarios_dir().glob("*.yaml")}
    assert {"crossroads", "large", "roer"} <= bundled
    assert set(played) == bundled, "each bundled scenario has a game here, and only those"
    assert all(turns >= 4 for turns in played.values()), played
