"""Hostile input to every command: no traceback, one line naming the problem, game unchanged.

The sweep walks ``tabletop.cli.cli`` to its leaf commands, so a new command is fuzzed as soon
as it exists. Each command gets a baseline command line built from its parameters' types;
then each parameter in turn gets hostile values for its type (NaN, infinities, negative and
huge numbers, empty and blank strings, unknown ids, unicode, very long strings, option-like
words), and ``--game`` points at folders, junk and damaged files. Every case must end with
exit 0 (the input was fine after all), 2 (bad input) or 3 (the rules refuse); an error is one
line on stderr that names the value or the parameter; a refused command leaves the game file
as it was (``file_digest``). Malformed scenarios and chart overlays are fed through the
commands that read them.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.cli import cli
from tabletop.data.charts import Charts
from tabletop.state.store import SCHEMA_VERSION
from tests.conftest import file_digest, is_error_report
from tests.test_reliability import child_env, parse_once

# --- the commands --------------------------------------------------------------------------


def leaf_commands() -> list[tuple[str, click.Command]]:
    """Every runnable command as ("phase next", command), found by walking the groups."""
    found: list[tuple[str, click.Command]] = []

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            ctx = click.Context(command, info_name=path[-1] if path else "tabletop")
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None, (path, name)
                walk(sub, [*path, name])
        else:
            found.append((" ".join(path), command))

    walk(cli, [])
    return found


COMMANDS = leaf_commands()
# Commands left out of the value sweep, and why (they are covered elsewhere).
SLOW = {
    "demo": "plays a whole scripted turn per run; its --keep path is fuzzed below",
    # A good line serves until Ctrl-C; test_serve.py gives it hostile ports and games.
    "serve": "runs until stopped",
}

# Known-good values for arguments, by parameter name; anything else gets one by its type.
GOOD_BY_NAME = {
    "shooter": "G-4",
    "target": "US-4",
    "stand": "G-1",
    "a": "G-1",
    "b": "US-1",
    "dice_spec": "2d10",
    "scenario": "crossroads",
    "chart": "weapons",
    "entry": "rifle",
    "at": "27,21",
}
# Where a command's good command line works: the base game's phase, and good values for
# that command's parameters. A command not listed gets values by its parameters' types; when
# that line is refused, its hostile cases are still checked, but not for naming the value.
SETUP: dict[str, tuple[str, dict[str, str]]] = {
    "fire": ("opportunity-fire", {}),
    "barrage": ("artillery", {"shooter": "US-5"}),
    "odds barrage": ("artillery", {"shooter": "US-5"}),
    "resupply": ("movement", {"stand": "G-4", "source": "G-S"}),
    "model show": ("movement", {"name": "typhoon"}),
    "model run": ("movement", {"name": "typhoon", "procedure": "skill-check"}),
    "mire": ("movement", {"stand": "US-3"}),
    "unmire": ("movement", {"stand": "US-3"}),
}
# Options a command needs to run at all, beyond its required parameters.
EXTRA = {"model run": ["--set", "skill=5"]}
# Command lines that work without a game (quick mode), for the chart overlay checks.
QUICK = {
    "fire": ["fire", "--weapon", "pak-36", "--range", "14", "--target-kind", "infantry"],
    "odds fire": ["odds", "fire", "--weapon", "pak-36", "--range", "14", "--target-kind", "tank"],
}


def phase_of(path: str) -> str:
    return SETUP.get(path, ("movement", {}))[0]


def good_value(param: click.Parameter, path: str = "") -> str:
    own = SETUP.get(path, ("", {}))[1]
    if param.name in own:
        return own[param.name]
    if param.name in GOOD_BY_NAME:
        return GOOD_BY_NAME[param.name]
    kind = param.type
    if isinstance(kind, click.Choice):
        return str(kind.choices[0])
    if isinstance(kind, click.IntRange | click.FloatRange):
        low = kind.min if kind.min is not None else 1
        return str(max(low, 1) if kind.max is None or kind.max >= 1 else low)
    if isinstance(kind, click.types.IntParamType | click.types.FloatParamType):
        return "10"
    by_type = {"INCHES": "10", "DEGREES": "90", "X,Y": "27,21", "STAND": "G-1"}
    return by_type.get(kind.name.upper(), "x")


def spell(param: click.Parameter, value: str) -> list[str]:
    """``param`` set to ``value`` on a command line."""
    if isinstance(param, click.Argument):
        return [value] * max(param.nargs, 1)
    assert isinstance(param, click.Option)
    return [param.opts[0], *([value] * max(param.nargs, 1))]


def baseline(command: click.Command, path: str = "") -> list[str]:
    """The required parameters with good values (the ones a command cannot run without)."""
    argv: list[str] = []
    for param in command.params:
        if param.name in ("game", "as_json"):
            continue
        if isinstance(param, click.Argument) or param.required:
            argv += spell(param, good_value(param, path))
    return argv + EXTRA.get(path, [])


def with_value(
    command: click.Command, param: click.Parameter, value: str, path: str = ""
) -> list[str]:
    """The baseline with ``param`` set to ``value``: options go after the arguments."""
    argv: list[str] = []
    for p in command.params:
        if p.name in ("game", "as_json"):
            continue
        if p is param:
            argv += spell(p, value) if isinstance(p, click.Argument) else []
        elif isinstance(p, click.Argument) or p.required:
            argv += spell(p, good_value(p, path))
    if isinstance(param, click.Option):
        argv += spell(param, value)
    extra = EXTRA.get(path, [])
    return argv + (extra if not extra or extra[0] not in spellings(param) else [])


# --- hostile values, by what a parameter expects -------------------------------------------

LONG = "W" * 5000
NUMBERS = ["nan", "inf", "-inf", "-1", "1e308", "9" * 40, "0x10", "١٢", "", LONG]
WORDS = ["", " ", "G-99", "Ünïcødé ✓", LONG, "--json", "-"]
SNEAKY = ["'; DROP TABLE events; --", "../../etc/passwd", "%s%n{0}", "nan", "inf", "-1"]


def hostile(param: click.Parameter) -> list[str]:
    kind = param.type
    name = kind.name.upper()
    if isinstance(kind, click.Choice):
        return ["", "NONE", "Ünïcødé", LONG]
    if name in ("INCHES", "DEGREES") or isinstance(
        kind, click.IntRange | click.FloatRange | click.types.IntParamType
    ):
        return NUMBERS
    if name == "X,Y":
        return ["nan,1", "1,inf", "-1,-1", "1e999,1", "1", "1,2,3", "", "١,٢"]
    if name == "VALUES":  # --dice
        return ["0", "11", "-1", "1.5", "1,,2", "nan", "١", "1," * 3000, ""]
    if name in ("NAME[=VALUE]", "KEY=VALUE"):
        return ["=", "cover=nan", "cover=99", "x=1e999", "a b=1", LONG]
    if isinstance(kind, click.Path):
        return []  # paths: see the --game and --charts cases below
    return [*WORDS, *SNEAKY]


@dataclass(frozen=True)
class Case:
    command: str
    argv: tuple[str, ...]
    value: str
    hint: tuple[str, ...]  # words that would name the problem: the parameter's spellings
    control: tuple[str, ...] | None = None  # the same line with a good value instead

    def __str__(self) -> str:
        shown = [a if len(a) < 40 else f"{a[:12]}...({len(a)} chars)" for a in self.argv]
        return f"tabletop {' '.join(shown)}"


def cases_for(path: str, command: click.Command, param: click.Parameter, value: str) -> Case:
    """``param`` set to ``value``; the control is the line without it (or with a good value,
    when the command cannot do without it)."""
    words = tuple(path.split())
    needed = isinstance(param, click.Argument) or param.required
    control = with_value(command, param, good_value(param, path), path) if needed else None
    return Case(
        path,
        (*words, *with_value(command, param, value, path)),
        value,
        spellings(param),
        (*words, *(control if control is not None else baseline(command, path))),
    )


def value_cases() -> list[Case]:
    cases: list[Case] = []
    for path, command in COMMANDS:
        if path in SLOW:
            continue
        for param in command.params:
            if param.name in ("game", "as_json", "help"):
                continue
            if isinstance(param, click.Option) and param.is_flag:
                continue
            cases += [cases_for(path, command, param, v) for v in hostile(param)]
        # Words that are not part of the command at all.
        good = (*path.split(), *baseline(command, path))
        cases += [Case(path, (*good, extra), extra, (), good) for extra in ("--bogus", "surplus")]
    return cases


def spellings(param: click.Parameter) -> tuple[str, ...]:
    found = {param.name or "", param.human_readable_name, param.make_metavar(_CTX)}
    if isinstance(param, click.Option):
        found |= set(param.opts)
    return tuple(sorted(w for w in found if w))


_CTX = click.Context(cli)
VALUE_CASES = value_cases()
USES_GAME = {path for path, c in COMMANDS if any(p.name == "game" for p in c.params)}


# --- running a case --------------------------------------------------------------------------


def play(path: Path, *commands: tuple[str, ...]) -> None:
    for args in commands:
        result = CliRunner().invoke(cli, [*args, "--game", str(path)])
        assert result.exit_code == 0, (args, result.output)


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Crossroads games (seed 1, a roll to undo) in the phases the sweep needs."""
    folder = tmp_path_factory.mktemp("fuzz")
    walk = folder / "walk.sqlite"
    wanted = {phase_of(path) for path, _ in COMMANDS}
    made: dict[str, Path] = {}
    with parse_less():
        play(walk, ("new", "crossroads", "--seed", "1"), ("roll", "d6"))
        for _ in range(12):
            phase = json.loads(invoke(("status", "--json"), walk).stdout)["phase"]
            if phase in wanted and phase not in made:
                made[phase] = folder / f"{phase}.sqlite"
                copy_game(walk, made[phase])
            if set(made) == wanted:
                break
            play(walk, ("phase", "next"))
    assert set(made) == wanted
    for path in made.values():  # one file each (no write-ahead log), copied by its bytes
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.close()
    return made


@pytest.fixture
def base_game(bases: dict[str, Path]) -> Path:
    return bases["movement"]


def copy_game(source: Path, target: Path) -> None:
    """A copy of a game (as committed, wherever its pages are) to a fresh file."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    if not Path(f"{source}-wal").exists():
        shutil.copyfile(source, target)
        return
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


@pytest.fixture(scope="module")
def fast_games() -> Iterator[None]:
    with parse_less():
        yield


@contextlib.contextmanager
def parse_less() -> Iterator[None]:
    """Parse a game's scenario and the bundled charts once, not at every command."""
    from tabletop.data import chart_files

    original = chart_files.load_charts
    bundled = original()

    def load(overlays: tuple[Path, ...] = ()) -> Charts:
        return bundled if not overlays else original(overlays)

    chart_files.load_charts = load  # commands import it by name when they run
    try:
        with parse_once():
            yield
    finally:
        chart_files.load_charts = original


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    crash: BaseException | None


def invoke(argv: tuple[str, ...] | list[str], game: Path | None) -> Outcome:
    args = [*argv, *(["--game", str(game)] if game is not None else [])]
    result = CliRunner().invoke(cli, args, env={"TABLETOP_GAME": None, "NO_COLOR": "1"})
    crash = result.exception
    if isinstance(crash, SystemExit):
        crash = None
    return Outcome(result.exit_code, result.stdout, result.stderr, crash)


def problems_with(case: Case, out: Outcome, changed: bool, named: bool = True) -> list[str]:
    """What is wrong with how ``case`` ended (nothing, for a well-behaved command).

    ``named``: also require the message to name the value or the parameter (when the same
    command line with a good value works, so the value is what went wrong).
    """
    found = []
    if out.crash is not None:
        found.append(f"raised {type(out.crash).__name__}: {out.crash}")
    elif out.code not in (0, 2, 3):
        found.append(f"exit {out.code}: {out.stderr.strip()[:300]}")
    elif out.code != 0:
        lines = out.stderr.splitlines()
        # One 'Error:' line; an error that shows its working (a refused move's costs, every
        # problem in a file) indents it below.
        details = all(line.startswith("  ") for line in lines[1:])
        if not lines or not lines[0].startswith("Error: ") or not details:
            found.append(f"not one 'Error:' line: {out.stderr[:300]!r}")
        elif named and not names_the_problem(lines[0], case):
            found.append(f"message names neither value nor parameter: {lines[0][:300]}")
        if changed:
            found.append("a refused command changed the game file")
    if "Traceback" in out.stdout + out.stderr:
        found.append("a traceback reached the user")
    return found


# click's own words when a value that looks like an option lands where an argument was wanted
PARSER_WORDS = ("No such option", "Missing argument", "requires an argument", "unexpected extra")


def names_the_problem(line: str, case: Case) -> bool:
    value = case.value
    shown = {value, repr(value), value.strip(), repr(value.strip()), value[:20], repr(value)[:20]}
    if any(s and s in line for s in shown):
        return True
    if value.startswith("-") and any(w in line for w in PARSER_WORDS):
        return True
    return any(h in line for h in case.hint)


def run_cases(cases: list[Case], bases: dict[str, Path], folder: Path) -> list[str]:
    """Run each case on a copy of its base game; what went wrong, one line per problem."""
    game = folder / "game.sqlite"
    fresh = folder / "fresh.sqlite"  # for `new`, which wants no game there
    failures: list[str] = []
    works: dict[tuple[str, ...], bool] = {}
    loaded: Path | None = None
    for case in cases:
        base = bases[phase_of(case.command)]
        if loaded != base:
            copy_game(base, game)
            loaded, before = base, file_digest(game)
        target: Path | None = game if case.command in USES_GAME else None
        if case.command == "new":
            target = fresh
        if case.control is not None and case.control not in works:
            works[case.control] = invoke(case.control, target).code == 0
            fresh.unlink(missing_ok=True)
            if file_digest(game) != before:
                copy_game(base, game)
        out = invoke(case.argv, target)
        after = file_digest(game)
        named = case.control is None or works[case.control]
        problems = problems_with(case, out, after != before, named)
        if case.command == "new" and out.code != 0 and fresh.exists():
            problems.append("a refused 'new' left a file behind")
        fresh.unlink(missing_ok=True)
        failures += [f"{case}: {problem}" for problem in problems]
        if after != before:  # the input was fine and the command did its work: start over
            copy_game(base, game)
    return failures


def test_the_sweep_reaches_every_command() -> None:
    swept = {case.command for case in VALUE_CASES}
    assert swept == {path for path, _ in COMMANDS} - set(SLOW)
    assert len(VALUE_CASES) > 500


@pytest.mark.parametrize("path", sorted({c.command for c in VALUE_CASES}))
def test_hostile_values_for_every_parameter(
    path: str, bases: dict[str, Path], tmp_path: Path, fast_games: None
) -> None:
    cases = [c for c in VALUE_CASES if c.command == path]
    failures = [f for f in run_cases(cases, bases, tmp_path) if not known(f)]
    assert not failures, f"{len(failures)} of {len(cases)} cases:\n" + "\n".join(failures)


# Failures found in other people's commands, reported to their owners: (start of the case
# line, start of the problem). Take an entry out when its command is fixed.
KNOWN: list[tuple[str, str]] = []


def known(failure: str) -> bool:
    return any(failure.startswith(case) and f": {problem}" in failure for case, problem in KNOWN)


# --- property: any text in any parameter ---------------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=40)
PARAMS = [
    (path, command, param)
    for path, command in COMMANDS
    if path not in SLOW
    for param in command.params
    if param.name not in ("game", "as_json", "help")
    and not (isinstance(param, click.Option) and param.is_flag)
    and not isinstance(param.type, click.Path)
]


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(PARAMS), TEXT)
def test_any_text_in_any_parameter(
    bases: dict[str, Path], tmp_path: Path, fast_games: None, target: Any, value: str
) -> None:
    path, command, param = target
    failures = run_cases([cases_for(path, command, param, value)], bases, tmp_path)
    assert not failures, failures


# --- --game pointing at the wrong thing ----------------------------------------------------


def wrong_games(folder: Path, base: Path) -> dict[str, Path]:
    """Files and folders that are not a usable game, by what they are."""
    made: dict[str, Path] = {}
    made["a folder"] = folder / "a-folder"
    made["a folder"].mkdir()
    made["a text file"] = folder / "notes.txt"
    made["a text file"].write_text("turn 3: G-1 routed\n")
    made["an empty file"] = folder / "empty.sqlite"
    made["an empty file"].write_bytes(b"")
    made["random bytes"] = folder / "random.sqlite"
    made["random bytes"].write_bytes(bytes(range(256)) * 64)
    whole = folder / "whole.sqlite"
    copy_game(base, whole)
    made["a truncated game"] = folder / "truncated.sqlite"
    made["a truncated game"].write_bytes(whole.read_bytes()[:8192])
    made["another program's database"] = folder / "other.db"
    conn = sqlite3.connect(made["another program's database"])
    conn.execute("CREATE TABLE things (x)")
    conn.commit()
    conn.close()
    made["a game from a newer tabletop"] = folder / "newer.sqlite"
    copy_game(base, made["a game from a newer tabletop"])
    conn = sqlite3.connect(made["a game from a newer tabletop"])
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    made["a file in a missing folder"] = folder / "no-such-folder" / "game.sqlite"
    return made


def contents(path: Path) -> bytes | None:
    if path.is_dir():
        return b"<dir>" + "\n".join(sorted(p.name for p in path.iterdir())).encode()
    return path.read_bytes() if path.exists() else None


GAME_COMMANDS = [
    (path, command)
    for path, command in COMMANDS
    if any(p.name == "game" for p in command.params) and path not in SLOW
]


@pytest.mark.parametrize("path", [p for p, _ in GAME_COMMANDS])
def test_game_option_pointing_at_the_wrong_thing(
    path: str, bases: dict[str, Path], tmp_path: Path, fast_games: None
) -> None:
    command = dict(GAME_COMMANDS)[path]
    argv = (*path.split(), *baseline(command, path))
    # With a real game, does the line work? Then the message must name the wrong file.
    real = tmp_path / "real.sqlite"
    copy_game(bases[phase_of(path)], real)
    named = invoke(argv, real).code == 0
    failures = []
    for what, target in wrong_games(tmp_path, bases["movement"]).items():
        before = contents(target)
        out = invoke(argv, target)
        case = Case(path, (*argv, "--game", str(target)), str(target), ("--game",))
        problems = problems_with(case, out, changed=False, named=named)
        if out.code == 0 and target.parent.exists():  # some commands work with no game
            problems.append(f"exit 0 with {what}")
        if contents(target) != before:
            problems.append(f"{what} was changed")
        failures += [f"--game {what}: {case}: {p}" for p in problems]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("value", ["", " ", "-", "--json", "Ünïcødé/✓.sqlite", LONG])
def test_game_option_with_odd_names(
    value: str, base_game: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative name lands here
    for argv in (("status",), ("roll", "d6"), ("new", "crossroads")):
        out = invoke([*argv, "--game", value], None)
        case = Case(argv[0], (*argv, "--game", value), value, ("--game", "'.'"))
        assert not problems_with(case, out, changed=False), (case, out)


def test_arguments_that_are_not_utf8_are_refused_in_one_line(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 (a shell can pass them) must not reach the log."""
    game = tmp_path / "game.sqlite"
    env = child_env()
    subprocess.run(
        [sys.executable, "-m", "tabletop", "new", "crossroads", "--game", str(game)],
        check=True,
        capture_output=True,
        env=env,
    )
    before = file_digest(game)
    for argv in (
        [b"roll", b"d6", b"--for", b"\xff\xfe"],
        [b"show", b"G-\xff"],
        [b"roll", b"\xff"],
        [b"fire", b"G-4", b"US-4", b"--weapon", b"\xc3"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "tabletop", *argv, b"--game", str(game).encode()],
            capture_output=True,
            env=env,
        )
        err = done.stderr.decode("utf-8", "replace")
        assert done.returncode == 2, (argv, err)
        assert is_error_report(err), (argv, err)
        assert "Traceback" not in err
        assert file_digest(game) == before


# --- malformed scenarios through `tabletop new` --------------------------------------------

CROSSROADS = (Path(__file__).parents[1] / "scenarios" / "crossroads.yaml").read_text()


def broken(old: str, new: str) -> str:
    assert old in CROSSROADS, old
    return CROSSROADS.replace(old, new, 1)


BAD_SCENARIOS = {
    "broken YAML": ("name: [unclosed\n", "not valid YAML"),
    "a tab in the indentation": (broken("  - name: Germany", "\t- name: Germany"), "YAML"),
    "not a mapping": ("- just\n- a list\n", "mapping"),
    "unknown key": (broken("name: Crossroads", "name: Crossroads\nsurprise: 1"), "surprise"),
    "wrong type": (broken("width: 48", "width: wide"), "table.width"),
    "NaN size": (broken("width: 48", "width: .nan"), "finite"),
    "negative size": (broken("width: 48", "width: -48"), "table.width"),
    "huge number": (broken("depth: 36", "depth: 1e400"), "table.depth"),
    "self-intersecting polygon": (
        broken(
            "polygon: [[37, 25], [43, 25], [43, 30], [37, 30]]",
            "polygon: [[37, 25], [43, 30], [43, 25], [37, 30]]",
        ),
        "not a valid polygon",
    ),
    "stand off the table": (broken("at: [18, 27]", "at: [118, 27]"), "off the"),
    "dangling formation parent": (broken("parent: II/86}", "parent: II/99}"), "II/99"),
    "duplicate id": (broken("id: US-2", "id: US-1"), "duplicate"),
    "unknown weapon": (broken("weapons: [pak-36]", "weapons: [pak-99]"), "pak-99"),
    "not UTF-8": ("name: \udcff\n", "not UTF-8 text"),
    "binary junk": ("\x00\x01\x02" * 100, "not valid YAML"),
    "an alias bomb": (
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
            for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        "aliases",
    ),
}


@pytest.mark.parametrize("what", sorted(BAD_SCENARIOS))
def test_new_with_a_malformed_scenario(what: str, tmp_path: Path, base_game: Path) -> None:
    text, says = BAD_SCENARIOS[what]
    scenario = tmp_path / "battle.yaml"
    scenario.write_bytes(text.encode("utf-8", "surrogateescape"))
    game = tmp_path / "game.sqlite"
    out = invoke(("new", str(scenario)), game)
    assert out.crash is None and out.code == 2, (out.code, out.stderr, out.crash)
    line = out.stderr.splitlines()[0]
    assert is_error_report(out.stderr), out.stderr
    assert "battle.yaml" in line and says in line, line
    assert not game.exists()
    # Over an existing game, even with --force, a bad scenario changes nothing.
    copy_game(base_game, game)
    before = file_digest(game)
    out = invoke(("new", str(scenario), "--force"), game)
    assert out.code == 2 and file_digest(game) == before


LINES = CROSSROADS.splitlines(keepends=True)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_new_with_a_mutated_scenario(tmp_path: Path, data: st.DataObject) -> None:
    """Lines dropped, doubled or with one token swapped for junk: 0 or 2, never a traceback."""
    lines = list(LINES)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["drop", "double", "swap"]))
        if how == "drop":
            del lines[i]
        elif how == "double":
            lines.insert(i, lines[i])
        else:
            tokens = lines[i].split(" ")
            j = data.draw(st.integers(0, len(tokens) - 1))
            tokens[j] = data.draw(st.sampled_from(["-1", ".nan", "[", "{}", "~", "1e999", "é"]))
            lines[i] = " ".join(tokens)
    scenario = tmp_path / "mutant.yaml"
    scenario.write_text("".join(lines))
    game = tmp_path / "game.sqlite"
    game.unlink(missing_ok=True)
    out = invoke(("new", str(scenario)), game)
    assert out.crash is None, out.crash
    assert out.code in (0, 2), out.stderr
    if out.code == 2:
        assert is_error_report(out.stderr) and "mutant.yaml" in out.stderr, out.stderr
        assert not game.exists()


# --- malformed chart overlays through every command that takes --charts -------------------

BAD_CHARTS = {
    "broken YAML": ("weapons.yaml", "entries: [unclosed\n", "weapons.yaml"),
    "unknown chart file": ("tanks.yaml", "entries: []\n", "tanks.yaml"),
    "wrong type": ("weapons.yaml", "entries:\n  - {id: rifle, rof: many}\n", "rof"),
    "NaN": ("weapons.yaml", "entries:\n  - {id: rifle, rof: .nan}\n", "rof"),
    "negative": ("weapons.yaml", "entries:\n  - {id: rifle, rof: -2}\n", "rof"),
    "huge": ("weapons.yaml", "entries:\n  - {id: rifle, rof: 1e400}\n", "rof"),
    "not a mapping": ("weapons.yaml", "- 1\n- 2\n", "weapons.yaml"),
    "binary junk": ("weapons.yaml", "\x00\xff" * 50, "weapons.yaml"),
    "not UTF-8": ("weapons.yaml", "\udcff\n", "weapons.yaml"),
}
CHARTS_COMMANDS = [
    (path, command)
    for path, command in COMMANDS
    if any(p.name == "charts_dirs" for p in command.params)
]


def chart_folder(folder: Path, what: str) -> Path:
    name, text, _ = BAD_CHARTS[what]
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    return folder


def check_refused_for_charts(path: str, out: Outcome, says: str, game: Path) -> list[str]:
    line = out.stderr.strip()
    found = []
    if out.crash is not None or out.code != 2:
        found.append(f"{path}: exit {out.code} {out.crash!r} {line[:200]}")
    elif out.stderr.count("\n") != 1 or says not in line:
        found.append(f"{path}: {out.stderr[:300]!r} does not say {says!r}")
    if game.exists():
        found.append(f"{path}: made a game with broken charts")
    return found


@pytest.mark.parametrize("what", sorted(BAD_CHARTS))
def test_a_malformed_chart_overlay_is_named(what: str, tmp_path: Path) -> None:
    folder = chart_folder(tmp_path / "my-charts", what)
    game = tmp_path / "game.sqlite"
    says = BAD_CHARTS[what][2]
    failures = []
    for path in ("charts check", "new"):
        argv = (*path.split(), *(["crossroads"] if path == "new" else []), "--charts", str(folder))
        out = invoke(argv, game if path == "new" else None)
        failures += check_refused_for_charts(path, out, says, game)
    assert not failures, "\n".join(failures)


def test_every_command_with_charts_refuses_a_malformed_overlay(tmp_path: Path) -> None:
    folder = chart_folder(tmp_path / "my-charts", "wrong type")
    says = BAD_CHARTS["wrong type"][2]
    game = tmp_path / "game.sqlite"
    failures = []
    for path, command in CHARTS_COMMANDS:
        argv = (*charts_line(path, command), "--charts", str(folder))
        out = invoke(argv, game if path in USES_GAME else None)
        failures += check_refused_for_charts(path, out, says, game)
    assert CHARTS_COMMANDS and not failures, "\n".join(failures)


def charts_line(path: str, command: click.Command) -> tuple[str, ...]:
    """A line that reads the charts: quick mode where a game would bring its own charts."""
    return tuple(QUICK.get(path) or (*path.split(), *baseline(command, path)))


@pytest.mark.parametrize("value", ["no-such-folder", "notes.txt"])
def test_charts_option_pointing_at_the_wrong_thing(value: str, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    target = str(tmp_path / value)
    failures = []
    for path, command in CHARTS_COMMANDS:
        argv = (*charts_line(path, command), "--charts", target)
        out = invoke(argv, tmp_path / "game.sqlite" if path in USES_GAME else None)
        case = Case(path, argv, target, ("--charts",))
        if path == "charts check" and not out.stderr.startswith("Error: "):
            out.stderr = "Error: " + out.stderr  # a checker: its report is the problem
        failures += [f"{case}: {p}" for p in problems_with(case, out, changed=False)]
        if out.code == 0:
            failures.append(f"{case}: accepted")
    assert not failures, "\n".join(failures)


def test_demo_keep_pointing_at_the_wrong_thing(tmp_path: Path, base_game: Path) -> None:
    existing = tmp_path / "mine.sqlite"
    shutil.copyfile(base_game, existing)
    before = existing.read_bytes()
    for target in (tmp_path, existing, tmp_path / "missing" / "x.sqlite"):
        out = invoke(("demo", "--keep", str(target)), None)
        case = Case("demo", ("demo", "--keep", str(target)), str(target), ("--keep",))
        assert out.code == 2, (target, out.stderr)
        assert not problems_with(case, out, changed=False), out.stderr
    assert existing.read_bytes() == before


def test_json_output_stays_one_object_for_hostile_but_valid_text(
    base_game: Path, tmp_path: Path, fast_games: None
) -> None:
    game = tmp_path / "game.sqlite"
    copy_game(base_game, game)
    fits = LONG[:200]  # the longest purpose a roll takes
    for purpose in ("Ünïcødé ✓", '"}{"', "\\u0000", "line\nbreak", fits):
        out = invoke(("roll", "d6", "--for", purpose, "--json"), game)
        assert out.code == 0, out.stderr
        assert json.loads(out.stdout)["purpose"] == purpose
    too_long = invoke(("roll", "d6", "--for", LONG, "--json"), game)
    assert (
        too_long.code == 2
        and too_long.stderr
        == "Error: --for: say what the roll is for in at most 200 characters (got 5000)\n"
    )
    out = invoke(("log", "--json"), game)
    assert [e["result"]["purpose"] for e in json.loads(out.stdout)["events"][-5:]] == [
        "Ünïcødé ✓",
        '"}{"',
        "\\u0000",
        "line\nbreak",
        fits,
    ]
    assert invoke(("log", "--verify"), game).code == 0
    assert invoke(("replay",), game).code == 0
