"""Reliability: kills mid-command, two commands at once, a tampered log, physical dice.

The kill test runs ``tabletop`` commands in real processes against a game file and SIGKILLs
them at moments drawn from a fixed seed: during start-up, at any moment, or while the process
holds the game's write lock (seen from outside: a ``BEGIN IMMEDIATE`` of our own is refused).
A quarter of the processes are started as ``python -m tabletop``; the rest are forked from a
server that has already imported the program (the same ``cli.main``, without the quarter
second of imports, so many more kills fit in the time). After each command it checks what a
referee relies on: the game opens, its hash chain holds, the stored state is the state after
the last event, replay reproduces it, every command that reported success is in the log, and
a command that did not finish left no trace. ``scripts/soak.py`` runs the same loop longer.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest

from tabletop.game.engine import Game
from tabletop.state.hashes import event_hash
from tabletop.state.store import BUSY_ENV, SCHEMA_VERSION, Store
from tests.conftest import Run, as_json, file_digest, goto_phase, is_error_report

ROOT = Path(__file__).resolve().parents[1]

# --- the kill loop -------------------------------------------------------------------------

KILL_SEED = 20240611
KILL_STEPS = 250  # commands started (and perhaps killed) per test run, over all workers
WORKERS = 2  # game files killed in parallel, one loop each
SPAWNED = 1 / 4  # share of commands started as `python -m tabletop`; the rest are forked
NEW_GAME_AFTER = 30  # events; then `new --force` starts over, keeping replay checks short
ADVANCE = 0.5  # chance of a command run to its end (in this process) after each kill
IN_PROCESS = threading.Lock()

TABLE = (48.0, 36.0)  # crossroads
# Kill moments: (mode, weight). "start": within 5 ms of the start; "anytime": uniform over a
# command's whole life; "locked": after the process is seen holding the write lock (within
# its transaction, at its commit, or just after).
MODES = (("start", 2), ("anytime", 2), ("locked", 6))


@dataclass
class Step:
    index: int
    argv: list[str]
    mode: str
    delay: float  # seconds after the start, or after the lock was seen ("locked")
    via: str = "spawn"  # "spawn", "fork", or "here" (run to its end in the test process)
    outcome: str = "?"

    def __str__(self) -> str:
        return (
            f"#{self.index} {' '.join(self.argv)!r} via {self.via}, kill {self.mode}"
            f"+{self.delay * 1000:.1f}ms -> {self.outcome}"
        )


class Child(Protocol):
    """What the kill plan needs of a process: ``subprocess.Popen`` or a forked child."""

    returncode: int | None

    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def send_signal(self, sig: int) -> None: ...


def carry_out(child: Child, game: Path, mode: str, delay: float) -> int:
    """Kill ``child`` as the step's plan says (unless it ends first); its exit status."""
    if mode == "locked":
        if holds_the_lock(child, game):
            time.sleep(delay)
            child.send_signal(signal.SIGKILL)
    elif mode != "none":
        try:
            child.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
    return child.wait()


def holds_the_lock(child: Child, game: Path) -> bool:
    """Poll until ``child`` holds the game's write lock; False if it ended first."""
    probe = sqlite3.connect(game, timeout=0, isolation_level=None)
    try:
        while child.poll() is None:
            try:
                probe.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    return child.poll() is None
                raise
            probe.execute("ROLLBACK")
            time.sleep(0.001)
        return False
    finally:
        probe.close()


class ForkedChild:
    """A child of the fork server, with the parts of ``Popen`` the kill plan uses."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None and self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        end = time.monotonic() + (timeout or 0)
        while self.poll() is None:
            if time.monotonic() >= end:
                raise subprocess.TimeoutExpired("tabletop", timeout or 0)
            time.sleep(0.0005)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        # Not reaped yet (only we reap it), so the pid is still this child's.
        if self.poll() is None:
            os.kill(self.pid, sig)


def serve() -> None:
    """The fork server's loop: a JSON request per stdin line, a JSON status per stdout line.

    Run as ``python -c "from tests.test_reliability import serve; serve()"``. Each request is
    one command for a forked child, its kill plan, and files for its output.
    """

    for line in sys.stdin:
        req = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _run_forked(req)
        code = carry_out(ForkedChild(pid), Path(req["game"]), req["mode"], req["delay"])
        print(json.dumps({"code": code}), flush=True)


def _run_forked(req: dict[str, Any]) -> None:
    """In the forked child: the command line's stdio, then ``tabletop ARGV``; never returns."""
    code = 1
    try:
        for fd, name, flags in (
            (0, os.devnull, os.O_RDONLY),
            (1, req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
            (2, req["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        ):
            opened = os.open(name, flags, 0o644)
            os.dup2(opened, fd)
            os.close(opened)
        sys.stdin = open(os.devnull)  # noqa: SIM115  (the parent's buffered lines stay there)
        from tabletop.cli import cli

        cli.main(args=req["argv"], prog_name="tabletop")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


class ForkServer:
    def __init__(self, folder: Path, env: dict[str, str]):
        self.folder = folder
        server_env = {
            **env,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
            "OPENBLAS_NUM_THREADS": "1",  # no thread pools in a process that forks
            "OMP_NUM_THREADS": "1",
        }
        self.errors = (folder / "fork-server.err").open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from tests.test_reliability import serve; serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            env=server_env,
            text=True,
            cwd=ROOT,
        )

    def run(self, argv: list[str], game: Path, mode: str, delay: float) -> tuple[int, str, str]:
        out, err = self.folder / "child.out", self.folder / "child.err"
        req = {"argv": argv, "game": str(game), "mode": mode, "delay": delay}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({**req, "out": str(out), "err": str(err)}) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            self.errors.flush()
            raise AssertionError(
                f"fork server died: {(self.folder / 'fork-server.err').read_text()}"
            )
        return int(json.loads(reply)["code"]), out.read_text(), err.read_text()

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.close()  # the server's loop ends with its input
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.errors.close()


@dataclass
class KillLoop:
    """One game file, commands started one after another, each maybe killed."""

    path: Path
    seed: int
    env: dict[str, str]
    server: ForkServer | None = None
    history: list[Step] = field(default_factory=list)
    committed: list[tuple[int, str]] = field(default_factory=list)  # (seq, command) expected
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)  # every choice and kill moment comes from here

    # --- choosing a command ------------------------------------------------------------------

    def choose(self) -> list[str]:
        store = Store.open(self.path)
        try:
            meta = json.loads(store.row("meta") or "{}")
            stands = [json.loads(v) for k, v in store.rows().items() if k.startswith("stand:")]
        finally:
            store.close()
        rng, phase = self.rng, meta.get("phase")
        alive = [s for s in stands if s["status"] != "eliminated" and s["weapons"]]
        roll = rng.random()
        if len(self.committed) >= NEW_GAME_AFTER or roll < 0.01:
            return ["new", "crossroads", "--seed", str(rng.randrange(1000)), "--force"]
        if phase in ("opportunity-fire", "fire") and roll < 0.45 and alive:
            shooter = rng.choice(alive)
            others = [s for s in alive if s["side"] != shooter["side"]] or alive
            target = rng.choice(others)
            argv = ["fire", shooter["id"], target["id"], "--range", f"{rng.uniform(1, 30):.1f}"]
            return [*argv, "--dice", "1,+"] if rng.random() < 0.2 else argv
        if phase == "artillery" and roll < 0.45:
            x, y = rng.uniform(5, 43), rng.uniform(5, 31)
            return ["barrage", "US-5", "--at", f"{x:.1f},{y:.1f}"]
        pick = rng.choices(
            ["place", "roll", "phase", "turn", "undo"], weights=[4, 3, 5, 1, 2], k=1
        )[0]
        if pick == "place":
            stand = rng.choice(stands)["id"]
            x, y = rng.uniform(1, TABLE[0] - 1), rng.uniform(1, TABLE[1] - 1)
            return ["place", stand, f"{x:.2f}", f"{y:.2f}", "--facing", str(rng.randrange(360))]
        if pick == "roll":
            count, sides = rng.randint(1, 4), rng.choice([6, 10, 100])
            argv = ["roll", f"{count}d{sides}", "--for", f"step {len(self.history)}"]
            if rng.random() < 0.3:
                argv += ["--dice", ",".join(str(rng.randint(1, sides)) for _ in range(count))]
            return argv
        return {"phase": ["phase", "next"], "turn": ["turn", "next", "--yes"], "undo": ["undo"]}[
            pick
        ]

    # --- one step: start, maybe kill, classify, check ----------------------------------------

    def step(self) -> Step:
        """Start a command in a process and kill it at a moment drawn from the seed."""
        argv = self.choose()
        mode = self.rng.choices([m for m, _ in MODES], weights=[w for _, w in MODES], k=1)[0]
        if argv[0] == "new" and mode == "locked":
            # The lock probe would hold the file that `new --force` renames a new one over.
            mode = "anytime"
        delay = {
            "start": self.rng.uniform(0, 0.005),
            "anytime": self.rng.uniform(0, 0.6),
            "locked": self.rng.choice([self.rng.uniform(0, 0.002), self.rng.uniform(0, 0.04)]),
        }[mode]
        via = "spawn" if self.server is None or self.rng.random() < SPAWNED else "fork"
        return self.run(Step(len(self.history), argv, mode, delay, via), self.launch)

    def advance(self) -> Step:
        """Run a command to its end in this process: the game moves on between kills."""
        return self.run(Step(len(self.history), self.choose(), "none", 0.0, "here"), self.invoke)

    def run(self, step: Step, how: Any) -> Step:
        self.history.append(step)
        before, events_before = file_digest(self.path), list(self.committed)
        code, out, err = how(step)
        self.classify(step, code, out, err, before, events_before)
        kind = step.outcome.split(":")[0]
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.check(step)
        return step

    def launch(self, step: Step) -> tuple[int, str, str]:
        argv = [*step.argv, "--game", str(self.path), "--json"]
        if step.via == "fork":
            assert self.server is not None
            return self.server.run(argv, self.path, step.mode, step.delay)
        cmd = [sys.executable, "-m", "tabletop", *argv]
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            text=True,
        )
        try:
            out_err: list[str] = []
            reader = threading.Thread(target=lambda: out_err.extend(proc.communicate()))
            reader.start()  # drain the pipes while the plan waits and kills
            code = carry_out(proc, self.path, step.mode, step.delay)
            reader.join(timeout=60)
        finally:
            if proc.poll() is None:  # only if the test itself failed mid-step
                proc.kill()
                proc.wait()
        return code, *out_err  # type: ignore[return-value]

    def invoke(self, step: Step) -> tuple[int, str, str]:
        from click.testing import CliRunner

        from tabletop.cli import cli

        with IN_PROCESS:  # CliRunner swaps sys.stdout: one invocation at a time
            result = CliRunner().invoke(
                cli, [*step.argv, "--game", str(self.path), "--json"], env={BUSY_ENV: None}
            )
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(f"{step}: {result.exception!r}") from result.exception
        return result.exit_code, result.stdout, result.stderr

    def classify(
        self,
        step: Step,
        code: int,
        out: str,
        err: str,
        before: bytes,
        events_before: list[tuple[int, str]],
    ) -> None:
        action = _action_name(step.argv)
        events = _log(self.path)
        grew = (
            events[len(events_before) :] if events[: len(events_before)] == events_before else None
        )
        if step.argv[0] == "new" and events and events[0][1] == "new" and len(events) == 1:
            fresh = _new_seed(self.path) == int(step.argv[3]) and events != events_before
        else:
            fresh = False
        assert "Traceback" not in err, f"{step}: {err}"
        if code == 0:
            step.outcome = "done"
            if step.argv[0] == "new":
                assert fresh or events == [(1, "new")], f"{step}: {events}"
                self.committed = [(1, "new")]
                return
            reported = json.loads(out)["event"]
            assert grew == [(reported, action)], f"{step}: reported event {reported}, log {events}"
            self.committed = events
        elif code in (2, 3):
            step.outcome = f"refused:{code}"
            assert is_error_report(err), f"{step}: {err!r}"
            assert file_digest(self.path) == before, f"{step}: a refused command changed the file"
        elif code == -signal.SIGKILL:
            if step.argv[0] == "new":
                step.outcome = "killed:new-in-place" if fresh else "killed:old-kept"
                if fresh:
                    self.committed = [(1, "new")]
                else:
                    assert file_digest(self.path) == before, f"{step}: old game changed"
                return
            if grew == []:
                step.outcome = "killed:before-commit"
                assert file_digest(self.path) == before, f"{step}: half-applied"
            else:
                step.outcome = "killed:after-commit"
                assert grew is not None and len(grew) == 1 and grew[0][1] == action, (
                    f"{step}: log {events}, expected {events_before} + one {action}"
                )
                self.committed = events
        else:
            raise AssertionError(f"{step}: exit {code}: {err.strip()}")

    def check(self, step: Step) -> None:
        """The game opens, verifies, replays, and its log is exactly the committed events."""
        game = Game.open(self.path)
        try:
            quick = game.store.conn.execute("PRAGMA quick_check").fetchone()[0]
            assert quick == "ok", f"{step}: {quick}"
            assert _log_of(game.store) == self.committed, f"{step}: log differs from committed"
            report = game.verify()
            assert report.ok, f"{step}: verify: {report.message}"
            replayed = game.replay()
            assert replayed.ok, f"{step}: replay: {replayed.message}"
        finally:
            game.close()

    def report(self, last: int = 25) -> str:
        tail = "\n".join(str(s) for s in self.history[-last:])
        return f"{self.path} (seed {self.seed}); last steps:\n{tail}"


def _action_name(argv: list[str]) -> str:
    return {"phase": "phase-next", "turn": "turn-next"}.get(argv[0], argv[0])


def _log_of(store: Store) -> list[tuple[int, str]]:
    return [(int(s), str(c)) for s, c in store.conn.execute("SELECT seq, command FROM events")]


def _log(path: Path) -> list[tuple[int, str]]:
    conn = sqlite3.connect(path)
    try:
        return [(int(s), str(c)) for s, c in conn.execute("SELECT seq, command FROM events")]
    finally:
        conn.close()


def _new_seed(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT seed FROM game").fetchone()[0])
    finally:
        conn.close()


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TABLETOP_GAME", BUSY_ENV)}
    env["NO_COLOR"] = "1"
    return env


def start_loop(path: Path, seed: int, *, forks: bool = True) -> KillLoop:
    subprocess.run(
        [sys.executable, "-m", "tabletop", "new", "crossroads", "--seed", "1", "--game", str(path)],
        check=True,
        capture_output=True,
        env=child_env(),
    )
    server = None
    if forks:
        folder = path.with_name(path.stem + "-fork")
        folder.mkdir(exist_ok=True)
        server = ForkServer(folder, child_env())
    loop = KillLoop(path, seed, child_env(), server)
    loop.committed = [(1, "new")]
    return loop


def run_loop(loop: KillLoop, steps: int) -> KillLoop:
    try:
        for _ in range(steps):
            loop.step()
            while loop.rng.random() < ADVANCE:
                loop.advance()
    except AssertionError as exc:
        every = loop.path.with_suffix(".steps.txt")
        every.write_text("\n".join(str(s) for s in loop.history) + "\n")
        raise AssertionError(f"{exc}\n{loop.report()}\n(every step: {every})") from None
    return loop


@contextlib.contextmanager
def parse_once() -> Iterator[None]:
    """Parse each game's scenario and charts once in this process, not at every open.

    Parsing is most of the cost of a check or of a command run here. ``Game.loaded`` is kept
    per game row (scenario text, charts, seed), so a file that changes them is parsed again;
    replay's own full parse is kept per scenario text and the very charts object it was given.
    """
    from tabletop.data import scenario_loader

    parse = Game.loaded.func  # type: ignore[attr-defined]
    full_parse = scenario_loader.parse_scenario
    rows: dict[Any, Any] = {}
    texts: dict[Any, Any] = {}

    def loaded(self: Game) -> Any:
        if self.info not in rows:
            rows[self.info] = parse(self)
        return rows[self.info]

    def parse_scenario(text: str, source: str, **kwargs: Any) -> Any:
        raw = kwargs.get("charts_raw")
        key = (text, source, id(raw), tuple(sorted((k, id(v)) for k, v in kwargs.items())))
        if key not in texts:
            texts[key] = (full_parse(text, source, **kwargs), raw)  # raw kept: its id stays
        return texts[key][0]

    original = Game.__dict__["loaded"]
    Game.loaded = property(loaded)  # type: ignore[assignment,method-assign]
    scenario_loader.parse_scenario = parse_scenario  # the engine's replay looks it up there
    try:
        yield
    finally:
        Game.loaded = original  # type: ignore[method-assign]
        scenario_loader.parse_scenario = full_parse


def kill_many(
    folder: Path, steps: int, workers: int, seed: int, *, forks: bool = True
) -> list[KillLoop]:
    """``steps`` commands killed over ``workers`` game files at once, each a loop of its own."""
    loops = [start_loop(folder / f"kill-{w}.sqlite", seed + w, forks=forks) for w in range(workers)]
    share = [steps // workers + (1 if w < steps % workers else 0) for w in range(workers)]
    try:
        with parse_once(), ThreadPoolExecutor(workers) as pool:
            return list(pool.map(run_loop, loops, share))
    finally:
        for loop in loops:
            if loop.server is not None:
                loop.server.close()


def summary(loops: list[KillLoop]) -> dict[str, int]:
    total: dict[str, int] = {}
    for loop in loops:
        for outcome, n in loop.counts.items():
            total[outcome] = total.get(outcome, 0) + n
    return total


def test_killed_commands_never_lose_or_corrupt_the_game(tmp_path: Path) -> None:
    loops = kill_many(tmp_path, KILL_STEPS, WORKERS, KILL_SEED)
    steps = [step for loop in loops for step in loop.history]
    kinds = {step.outcome for step in steps}
    # The loop must really have killed inside transactions, not only at start-up; the checks
    # ran after every one of these (a failure names the step and the kill timings). How many
    # of the moments drawn fall within a command's life depends on how quick the commands
    # are and how busy the machine is (105 to 150 of 250 seen): a third is the floor.
    assert sum(s.outcome.startswith("killed") for s in steps) >= KILL_STEPS // 3, summary(loops)
    assert {"killed:before-commit", "killed:after-commit", "done"} <= kinds, summary(loops)
    assert {s.via for s in steps if s.outcome.startswith("killed")} == {"spawn", "fork"}


# --- replacing a game: `new --force` --------------------------------------------------------


def _kill_after_a_command(path: Path) -> None:
    """Leave a committed command only in the write-ahead log, as a killed process does."""
    script = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from tabletop.game.engine import Game\n"
        "g = Game.open(Path(sys.argv[1]))\n"
        "g.execute('roll', {'dice': '2d10', 'purpose': 'kept'})\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], env=child_env())
    assert done.returncode == -signal.SIGKILL
    assert path.with_name(path.name + "-wal").stat().st_size > 0


def test_new_force_interrupted_before_the_rename_keeps_the_old_game(
    game: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by this suite: `new --force` removed the old game's -wal before renaming the new
    # file in, so a crash in between lost every commit still in the log.
    path = game.game  # type: ignore[attr-defined]
    _kill_after_a_command(path)
    before = file_digest(path)

    def crash(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    from tabletop.data.resources import bundled_scenario
    from tabletop.data.scenario_loader import read_scenario

    with pytest.raises(KeyboardInterrupt):
        Game.create(path, read_scenario(bundled_scenario("crossroads"), ()), 2, force=True)
    monkeypatch.undo()
    assert file_digest(path) == before
    assert [c for _, c in _log(path)] == ["new", "roll"]
    assert not list(path.parent.glob(".game.sqlite.new-*"))  # no temporary file left behind
    assert Game.open(path).verify().ok


def test_new_force_replaces_a_game_left_by_a_killed_command(game: Run) -> None:
    path = game.game  # type: ignore[attr-defined]
    _kill_after_a_command(path)
    game("new", "crossroads", "--seed", "9", "--force")
    assert _log(path) == [(1, "new")]
    assert _new_seed(path) == 9
    game("log", "--verify")
    game("replay")


def open_connections() -> int:
    count = 0
    for obj in gc.get_objects():
        if isinstance(obj, sqlite3.Connection):
            try:
                obj.total_changes  # noqa: B018  (raises once the connection is closed)
            except sqlite3.ProgrammingError:
                continue
            count += 1
    return count


@pytest.mark.parametrize(
    "args",
    [
        ("roll", "d6"),
        ("log", "--verify"),
        ("undo",),
        ("replay",),
        ("status",),
    ],
)
def test_a_command_closes_the_game_file_as_it_ends(game: Run, args: tuple[str, ...]) -> None:
    """Not when the garbage collector gets to it: a connection left open stops SQLite from
    recovering what a killed writer committed, so other commands' view would depend on it."""
    game("roll", "d10")
    gc.collect()
    before = open_connections()
    game(*args)
    assert open_connections() == before


# --- two commands at once -------------------------------------------------------------------


def tabletop(path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tabletop", *args, "--game", str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env or child_env(),
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=120)
    assert "Traceback" not in err, err
    return proc.returncode, out, err


@contextlib.contextmanager
def write_lock(path: Path) -> Iterator[sqlite3.Connection]:
    """Hold the game's write lock, as a long command would."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def test_concurrent_writers_serialise_and_keep_every_event(game: Run) -> None:
    """Several processes queue on one lock; each event lands once, in each writer's order."""
    path = game.game  # type: ignore[attr-defined]
    writers, rounds = 3, 2
    with write_lock(path):  # all of them start while the file is held: they must queue
        procs = [
            tabletop(path, "roll", "d10", "--for", f"writer {w} round 0") for w in range(writers)
        ]
        readers = [tabletop(path, "status", "--json") for _ in range(2)]
        time.sleep(1.0)
    results = [finish(p) for p in procs + readers]
    assert all(code == 0 for code, _, _ in results), results
    # Then rounds in which the writers race each other with no help.
    for r in range(1, rounds):
        procs = [
            tabletop(path, "roll", "d10", "--for", f"writer {w} round {r}") for w in range(writers)
        ]
        procs.append(tabletop(path, "log", "--verify"))
        assert all(finish(p)[0] == 0 for p in procs)
    store = Store.open(path)
    try:
        events = store.events()
    finally:
        store.close()
    purposes = [e.inputs["purpose"] for e in events[1:]]
    assert sorted(purposes) == sorted(
        f"writer {w} round {r}" for w in range(writers) for r in range(rounds)
    )
    for w in range(writers):
        mine = [p for p in purposes if p.startswith(f"writer {w} ")]
        assert mine == [f"writer {w} round {r}" for r in range(rounds)]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    game("log", "--verify")
    game("replay")


def test_concurrent_undos_each_undo_a_different_command(game: Run) -> None:
    path = game.game  # type: ignore[attr-defined]
    for n in range(4):
        game("roll", "d6", "--for", f"roll {n}")
    with write_lock(path):
        procs = [tabletop(path, "undo", "--json") for _ in range(2)]
        time.sleep(1.0)
    undone = sorted(json.loads(finish(p)[1])["undid"] for p in procs)
    assert undone == [4, 5]  # the two latest rolls, not the same one twice
    game("replay")


def test_two_stands_placed_on_one_spot_at_once_one_is_refused(game: Run) -> None:
    path = game.game  # type: ignore[attr-defined]
    before = as_json(game("status", "--json"))
    with write_lock(path):
        procs = [tabletop(path, "place", stand, "30", "30") for stand in ("G-1", "G-2")]
        time.sleep(1.0)
    codes = sorted(finish(p)[0] for p in procs)
    assert codes == [0, 3]  # the second sees the first's stand there (overlap: exit 3)
    after = {s["id"]: (s["x"], s["y"]) for s in as_json(game("status", "--json"))["stands"]}
    moved = [i for i in ("G-1", "G-2") if after[i] == (30, 30)]
    assert len(moved) == 1, (before, after)
    game("replay")


BUSY_WRITERS = [
    ("roll", "d6"),
    ("place", "G-1", "12", "30"),
    ("phase", "next"),
    ("turn", "next", "--yes"),
    ("undo",),
    ("new", "crossroads", "--force"),
]
READERS_WHILE_LOCKED = [
    ("status",),
    ("show", "G-1"),
    ("measure", "G-1", "US-1"),
    ("log",),
    ("log", "--verify"),
    ("replay",),
]


@pytest.mark.parametrize("args", BUSY_WRITERS, ids=" ".join)
def test_a_command_that_cannot_get_the_lock_says_the_game_is_busy(
    game: Run, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    path = game.game  # type: ignore[attr-defined]
    game("roll", "d10")  # something to undo
    monkeypatch.setenv(BUSY_ENV, "0.2")
    before = file_digest(path)
    with write_lock(path):
        result = game(*args, code=1)
    assert result.output == (
        f"Error: the game {str(path)!r} is busy: another tabletop command held it for more "
        "than 0.2 s; try again\n"
    )
    assert file_digest(path) == before
    monkeypatch.delenv(BUSY_ENV)
    game(*args)  # and it works once the lock is free


@pytest.mark.parametrize("args", READERS_WHILE_LOCKED, ids=" ".join)
def test_reading_commands_work_while_another_command_writes(
    game: Run, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    monkeypatch.setenv(BUSY_ENV, "0.2")
    with write_lock(game.game):  # type: ignore[attr-defined]
        game(*args)


def test_a_real_process_waits_for_the_lock_or_gives_up(game: Run) -> None:
    path = game.game  # type: ignore[attr-defined]
    impatient = {**child_env(), BUSY_ENV: "0.3"}
    with write_lock(path):
        gives_up = tabletop(path, "roll", "d6", env=impatient)
        waits = tabletop(path, "roll", "d6", "--json")  # the default wait, 5 s
        code, _, err = finish(gives_up)
        time.sleep(0.5)
    assert code == 1
    assert err == (
        f"Error: the game '{path}' is busy: another tabletop command held it for more than "
        "0.3 s; try again\n"
    )
    code, out, _ = finish(waits)
    assert code == 0
    assert json.loads(out)["event"] == 2


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf", "1e9", "0x10"])
def test_a_bad_busy_wait_setting_is_named(
    game: Run, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(BUSY_ENV, value)
    result = game("status", code=2)
    assert result.output.startswith(f"Error: {BUSY_ENV}={value!r} is not a wait in seconds")
    assert result.output.count("\n") == 1


def test_an_upgrade_by_two_processes_at_once_runs_once(tmp_path: Path) -> None:
    from tests.test_upgrade import fixture_copy

    path = fixture_copy(1, tmp_path)
    procs = [tabletop(path, "status", "--json") for _ in range(3)]
    assert all(finish(p)[0] == 0 for p in procs)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()
    assert Game.open(path).verify().ok


# --- log integrity: what test_state.py does not already tamper with ------------------------

PLAYED = [
    ("place", "G-1", "12", "30"),  # 2
    ("roll", "3d10", "--dice", "2,9,+"),  # 3: two physical rolls, one generated
    ("phase", "next"),  # 4: opportunity fire
    ("fire", "G-4", "US-4", "--range", "10", "--dice", "1,4"),  # 5: a hit; may deplete
    ("roll", "d6"),  # 6
    ("undo",),  # 7: undoes 6
    ("phase", "next"),  # 8: the depletion die
]


@pytest.fixture(scope="module")
def played_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from click.testing import CliRunner

    from tabletop.cli import cli

    path = tmp_path_factory.mktemp("played") / "game.sqlite"
    for args in [("new", "crossroads", "--seed", "1"), *PLAYED]:
        result = CliRunner().invoke(cli, [*args, "--game", str(path)])
        assert result.exit_code == 0, (args, result.output)
    return path


@pytest.fixture
def played(run: Run, played_file: Path) -> Run:
    source, target = sqlite3.connect(played_file), sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    return run


def tamper(run: Run, statement: str, *args: Any) -> None:
    conn = sqlite3.connect(run.game)  # type: ignore[attr-defined]
    try:
        with conn:
            conn.execute(statement, args)
    finally:
        conn.close()


def verified(run: Run) -> Any:
    game = Game.open(run.game)  # type: ignore[attr-defined]
    try:
        return game.verify()
    finally:
        game.close()


# A changed value for every hashed column of an event (seq is tested by reordering).
EDITS: dict[str, Any] = {
    "kind": "undo",
    "command": "roll",
    "turn": 9,
    "phase": "morale",
    "inputs": '{"dice":"9d10"}',
    "rolls": '[{"die":10,"purpose":"to-hit","source":"physical","value":1}]',
    "result": '{"total":99}',
    "undo": '{"meta":null}',
    "undoes": 2,
    "state_hash": "f" * 64,
}


def test_every_hashed_column_has_an_edit_case() -> None:
    from tabletop.state.store import EVENT_FIELDS

    assert set(EDITS) == set(EVENT_FIELDS) - {"seq"}


@pytest.mark.parametrize("seq", [1, 5, 8])
@pytest.mark.parametrize("column", sorted(EDITS))
def test_an_edit_to_any_hashed_column_names_the_event(played: Run, column: str, seq: int) -> None:
    tamper(played, f"UPDATE events SET {column} = ? WHERE seq = ?", EDITS[column], seq)
    report = verified(played)
    assert (report.ok, report.first_bad, report.message) == (False, seq, f"event {seq} was edited")


@pytest.mark.parametrize(
    ("statement", "first_bad", "message"),
    [
        ("UPDATE events SET hash = ? WHERE seq = 5", 5, "event 5 was edited"),
        ("UPDATE events SET prev_hash = ? WHERE seq = 5", 5, "event 5 does not follow event 4"),
        ("DELETE FROM events WHERE seq = 1 AND ? != ''", 1, "event 1 is missing"),
        ("DELETE FROM events WHERE ? != ''", None, "the log is empty"),
    ],
)
def test_chain_damage_is_named(
    played: Run, statement: str, first_bad: int | None, message: str
) -> None:
    tamper(played, statement, "0" * 64)
    report = verified(played)
    assert (report.ok, report.first_bad) == (False, first_bad)
    assert report.message.startswith(message)
    result = played("log", "--verify", code=1)
    assert result.output.startswith("TAMPERED: ")


def test_an_event_slipped_into_the_middle_is_found(played: Run) -> None:
    # Events 4.. move up one; a copy of event 3, correctly chained to it, becomes event 4.
    tamper(played, "UPDATE events SET seq = -seq WHERE seq >= 4 AND ? = 1", 1)
    tamper(played, "UPDATE events SET seq = 1 - seq WHERE seq < 0 AND ? = 1", 1)
    store = Store.open(played.game)  # type: ignore[attr-defined]
    try:
        third = store.event(3)
        assert third is not None
        forged = {**third.hashed_fields(), "seq": 4}
        digest = event_hash(third.hash, forged)
    finally:
        store.close()
    tamper(
        played,
        "INSERT INTO events SELECT 4, kind, command, turn, phase, inputs, rolls, result, undo,"
        " undoes, state_hash, hash, ? FROM events WHERE seq = 3",
        digest,
    )
    report = verified(played)
    assert (report.ok, report.first_bad) == (False, 5)
    assert report.message == "event 5 does not follow event 4 (removed or reordered)"


@pytest.mark.parametrize(
    ("column", "change", "what"),
    [
        ("scenario_text", ("[35, 9], [42, 8]", "[35, 9], [44, 8]"), "scenario"),  # hill moved
        ("charts_json", ('"rof":1', '"rof":3'), "charts"),
        ("seed", None, "dice seed"),
    ],
)
def test_an_edited_scenario_charts_or_seed_is_found(
    played: Run, column: str, change: tuple[str, str] | None, what: str
) -> None:
    """The game row sits outside the chain; event 1 records its digests."""
    if change is None:
        tamper(played, "UPDATE game SET seed = seed + ?", 1)
    else:
        tamper(played, f"UPDATE game SET {column} = replace({column}, ?, ?)", *change)
    report = verified(played)
    assert (report.ok, report.first_bad) == (False, 1)
    assert report.message == f"the game's {what} is not the one recorded when it began (event 1)"
    assert played("log", "--verify", code=1).output.startswith("TAMPERED: the game's")


def test_a_game_edited_to_look_new_fails_verification_at_event_1(played: Run) -> None:
    tamper(played, "UPDATE events SET command = 'roll' WHERE seq = 1 AND ? = 1", 1)
    report = verified(played)
    assert not report.ok
    assert report.first_bad == 1
    assert report.message == "event 1 was edited"


def test_the_limits_a_clean_cut_needs_a_noted_head(played: Run) -> None:
    """What the chain cannot see: the last event removed and the state put back to match.

    The chain has no secret key, so a log cut short with the state restored (or an event
    rewritten and every later hash recomputed) is consistent. Replay still catches rewritten
    generated dice; a cut or a forged physical roll is caught only against the last event's
    hash noted earlier (``VerifyReport.head``).
    """
    noted = verified(played).head
    store = Store.open(played.game)  # type: ignore[attr-defined]
    try:
        last = store.events(last=1)[0]
        with store.transaction():
            store.write_rows(last.undo)
            store.conn.execute("DELETE FROM events WHERE seq = ?", (last.seq,))
    finally:
        store.close()
    report = verified(played)
    assert report.ok  # undetectable from the file alone...
    assert report.head != noted  # ...but not against the noted head
    played("replay")


def test_a_rehashed_forgery_of_a_generated_roll_passes_the_chain_but_not_replay(
    played: Run,
) -> None:
    store = Store.open(played.game)  # type: ignore[attr-defined]
    try:
        events = store.events()
        with store.transaction():
            prev = events[1].hash
            for ev in events[2:]:
                fields = ev.hashed_fields()
                if ev.seq == 3:  # the generated third die of "roll 3d10"
                    rolls = [dict(r) for r in ev.rolls]
                    rolls[2]["value"] = rolls[2]["value"] % 10 + 1
                    fields["rolls"] = rolls
                digest = event_hash(prev, fields)
                store.conn.execute(
                    "UPDATE events SET rolls = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                    (json.dumps(fields["rolls"]), prev, digest, ev.seq),
                )
                prev = digest
    finally:
        store.close()
    assert verified(played).ok
    result = played("replay", code=1)
    assert result.output == (
        "DIVERGED at event 3: event 3 (roll): the generator gives 2 where the log has "
        "3 (referee roll (3 of 3))\n"
    )


# --- honest dice: --dice values are used once each, in order -------------------------------


def meta_of(run: Run) -> dict[str, Any]:
    store = Store.open(run.game)  # type: ignore[attr-defined]
    try:
        return dict(json.loads(store.row("meta") or "{}"))
    finally:
        store.close()


def test_roll_uses_the_dice_given_in_order(game: Run) -> None:
    data = as_json(game("roll", "6d10", "--dice", "3,1,4,1,5,9", "--json"))
    assert [(r["value"], r["source"]) for r in data["rolls"]] == [
        (v, "physical") for v in (3, 1, 4, 1, 5, 9)
    ]
    assert [r["purpose"] for r in data["rolls"]] == [
        f"referee roll ({i} of 6)" for i in range(1, 7)
    ]
    assert meta_of(game)["rng_counter"] == 0  # physical dice do not move the generator


# Multi-roll commands, each from the phase it needs: (phase, args).
MULTI_ROLL = [
    ("opportunity-fire", ("fire", "G-4", "US-4", "--range", "4")),
    ("opportunity-fire", ("fire", "US-4", "G-4", "--weapon", "us-75mm-m2", "--range", "6")),
    ("artillery", ("barrage", "US-5", "--at", "27,21")),
    ("movement", ("turn", "next", "--yes")),
]


@pytest.mark.parametrize(
    ("phase", "args"), [pytest.param(*m, id=" ".join(m[1])) for m in MULTI_ROLL]
)
def test_physical_dice_are_used_exactly_once_and_in_order(
    game: Run, phase: str, args: tuple[str, ...]
) -> None:
    """The same command with the dice typed in: every value used once, in the order given."""
    goto_phase(game, phase)
    if args[0] == "turn":  # something for the end of the turn to roll: two depletion dice
        goto_phase(game, "opportunity-fire")
        game("fire", "G-4", "US-4", "--range", "10", "--dice", "1,4")
        game("fire", "US-4", "G-4", "--weapon", "us-75mm-m2", "--range", "10", "--dice", "1,4")
    counter = meta_of(game)["rng_counter"]
    game(*args)
    rolls = last_rolls(game)
    assert len(rolls) >= 2, rolls  # a multi-roll command
    game("undo", "--yes")
    values = [r["value"] for r in rolls]
    given = ",".join(map(str, values))
    game(*args, "--dice", given)
    again = last_rolls(game)
    assert [(r["die"], r["value"], r["purpose"]) for r in again] == [
        (r["die"], r["value"], r["purpose"]) for r in rolls
    ]
    assert {r["source"] for r in again} == {"physical"}
    assert meta_of(game)["rng_counter"] == counter  # not one generated roll
    logged = as_json(game("log", "--last", "1", "--physical", "--json"))["events"][0]
    assert [r["value"] for r in logged["rolls"]] == values
    game("undo", "--yes")
    # One value too many is refused, naming the one left over; the game is unchanged.
    before = file_digest(game.game)  # type: ignore[attr-defined]
    extra = game(*args, "--dice", f"{given},7", code=2)
    assert extra.output == "Error: --dice gave 3 values but the command needed 2: unused 7\n"
    assert file_digest(game.game) == before  # type: ignore[attr-defined]
    # One value too few is refused; ending the list with + lets the generator roll the rest.
    game(*args, "--dice", ",".join(map(str, values[:-1])), code=2)
    game(*args, "--dice", ",".join(map(str, values[:-1])) + ",+")
    short, typed = last_rolls(game), len(values) - 1
    assert [(r["value"], r["source"]) for r in short[:typed]] == [
        (v, "physical") for v in values[:typed]
    ]
    assert len(short) > typed
    assert {r["source"] for r in short[typed:]} == {"generated"}
    game("replay")


def last_rolls(run: Run) -> list[dict[str, Any]]:
    """Every roll of the last event, in the order rolled, as the log records them."""
    return list(as_json(run("log", "--last", "1", "--json"))["events"][0]["rolls"])


def test_the_log_shows_which_rolls_were_physical(played: Run) -> None:
    events = as_json(played("log", "--physical", "--json"))["events"]
    physical = {e["seq"]: [(r["value"], r["purpose"]) for r in e["rolls"]] for e in events}
    assert physical[3] == [(2, "referee roll (1 of 3)"), (9, "referee roll (2 of 3)")]
    assert [v for v, _ in physical[5]] == [1, 4]
    assert all(not rolls for seq, rolls in physical.items() if seq not in (3, 5))
    text = played("log").output
    assert text.splitlines()[3] == (
        "    dice: 2* (referee roll (1 of 3)), 9* (referee roll (2 of 3)), 2 (referee "
        "roll (3 of 3))"
    )
    every = as_json(played("log", "--json"))["events"]
    sources = [r["source"] for e in every for r in e["rolls"]]
    assert sources.count("physical") == 4 and "generated" in sources
