"""Speed and memory of the commands a referee types, as ratios to a baseline in the same run.

    python benchmarks/run.py            # the full run (a few minutes: it builds a long log)
    python benchmarks/run.py --tiny     # a quick smoke run with small sizes

Machines are noisy, so every figure is a median of repeated runs and the targets compare
ratios against baselines measured in the same run (``python -c "import click"`` and the
import floor of the geometry libraries). Peak memory is each process's maximum resident set.
Prints a table and writes JSON (``--out``, default benchmarks/results.json).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PY = sys.executable
TABLETOP = [PY, "-m", "tabletop"]
# Measure as a user runs it: with the package's bytecode compiled (pip does this on install;
# an editable install writes it on first use), so drop a setting that forbids writing it.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_process(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall time (s) and peak RSS (KiB) of one process."""
    wall, peak, _ = run_process_cpu(argv, env)
    return wall, peak


def run_process_cpu(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, int, float]:
    """Wall time (s), peak RSS (KiB) and CPU time (user + system, s) of one process.

    CPU time hardly changes when other processes load the machine; wall time does.
    """
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env or ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): {err.strip()}")
    return elapsed, int(usage.ru_maxrss), usage.ru_utime + usage.ru_stime


GAMES = Path(__file__).resolve().parent.parent / "tests" / "games"
VIEW_ROW = "status --view SIDE, large after four turns"


def play_game(path: Path, script: Path) -> None:
    """A fresh game played through a whole-game script (tests/games), as ``tabletop play``
    reads it; the script's expected refusals make ``play`` exit non-zero, so that is not
    checked here (tests/games/test_games.py checks the game)."""
    new = next(
        line.split(":", 1)[1].split()
        for line in script.read_text(encoding="utf-8").splitlines()
        if line.startswith("# new:")
    )
    run_process([*TABLETOP, "new", *new, "--game", str(path)])
    with script.open(encoding="utf-8") as stdin:
        subprocess.run(
            [*TABLETOP, "play", "--game", str(path)],
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=ENV,
            check=False,
        )


WARM = True  # run each command once, untimed, before timing it (not in a --tiny smoke run)


def median_run(argv: list[str], repeat: int) -> dict[str, float]:
    times, peaks, cpus = [], [], []
    if WARM:
        run_process(argv)  # warm the file cache
    for _ in range(repeat):
        t, m, c = run_process_cpu(argv)
        times.append(t)
        peaks.append(m)
        cpus.append(c)
    return {
        "seconds": statistics.median(times),
        "peak_kib": max(peaks),
        "cpu_seconds": statistics.median(cpus),
    }


def interleaved_runs(
    commands: dict[str, list[str]], repeat: int, env: dict[str, str] | None = None
) -> dict[str, dict[str, float]]:
    """``median_run`` for several commands run in turn, one run of each per round, so a
    change in the machine's load falls on all of them alike (their ratios are the targets)."""
    runs: dict[str, list[tuple[float, int, float]]] = {name: [] for name in commands}
    if WARM:
        for argv in commands.values():
            run_process(argv, env)  # warm the file cache
    for _ in range(repeat):
        for name, argv in commands.items():
            runs[name].append(run_process_cpu(argv, env))
    return {
        name: {
            "seconds": statistics.median(r[0] for r in rows),
            "peak_kib": max(r[1] for r in rows),
            "cpu_seconds": statistics.median(r[2] for r in rows),
        }
        for name, rows in runs.items()
    }


def part(name: str, *args: str) -> tuple[dict[str, Any], int]:
    """Run one in-process measurement in its own process: (its JSON result, peak KiB).

    The parent stays light (it imports no tabletop or shapely), so each child's peak
    memory is its own: a forked child starts from its parent's footprint.
    """
    out = subprocess.run(
        [PY, __file__, "--part", name, *args],
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
    )
    result = json.loads(out.stdout)
    return result, int(result.pop("peak_kib"))


def build_long_game(path: Path, events: int) -> None:
    """A game whose log holds ``events`` events (logged rolls, then a real fire)."""
    from tabletop.data.resources import bundled_scenario
    from tabletop.data.scenario_loader import read_scenario
    from tabletop.game.engine import Game

    game = Game.create(path, read_scenario(bundled_scenario("crossroads")), 1, force=True)
    for _ in range(events - 1):
        game.execute("roll", {"dice": "d10", "purpose": "benchmark"})
    game.close()


def sight_rate(repeat: int) -> dict[str, float]:
    """All-pairs line of sight on the large scenario, in-process (the geometry alone)."""
    from tabletop.data.board import build_table, smoke_blockers
    from tabletop.data.resources import bundled_scenario
    from tabletop.data.scenario_loader import read_scenario
    from tabletop.game.opening import opening_state
    from tabletop.table import sight_matrix

    loaded = read_scenario(bundled_scenario("large"))
    table = build_table(loaded.scenario, loaded.charts)
    state = opening_state(loaded, 1)
    points = [(s["x"], s["y"]) for s in state.stands() if s["x"] is not None]
    smoke = smoke_blockers(state.templates())
    sight_matrix(table, points, smoke)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        sight_matrix(table, points, smoke)
        times.append(time.perf_counter() - start)
    best = statistics.median(times)
    n = len(points)
    return {
        "stands": n,
        "terrain": len(loaded.scenario.terrain),
        "seconds": best,
        "pairs_per_second": n * n / best,
    }


def odds_compute(repeat: int) -> dict[str, float]:
    """``odds fire`` compute for a ROF 10 weapon, in-process."""
    import dataclasses

    from tabletop.data.chart_files import load_charts
    from tabletop.rules.cd.fire import Firer, Target, plan_direct
    from tabletop.rules.cd.odds import fire_odds

    charts = load_charts()
    kind = charts.stand_kinds["infantry"]
    plan = plan_direct(
        charts.weapons["hmg-mg34"],
        Firer(None, charts.stand_kinds["infantry"]),
        Target("infantry", kind, "regular"),
        5.0,
        charts,
    )
    plan = dataclasses.replace(plan, rof=10)
    fire_odds(plan, charts)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fire_odds(plan, charts)
        times.append(time.perf_counter() - start)
    return {"rof": 10, "seconds": statistics.median(times)}


# A 10-waypoint move across the large table's north half: woods, hills, roads and open ground.
MOVE_STAND = "G-R-TG-1"
MOVE_PATH = [(50, 62), (44, 60), (38, 58), (30, 60), (24, 58), (18, 60), (12, 60), (8, 64),
             (4, 65), (8, 70), (20, 70)]  # fmt: skip


# A 10-waypoint move the tank can make (zigzags within its 12"), for the whole command.
MOVE_SHORT = [(54.5, 56.5), (55, 57), (55.2, 56.5), (55.5, 57), (55.8, 56.5), (56, 57),
              (56.2, 56.5), (56.5, 57), (56.8, 56.5), (57, 57)]  # fmt: skip


def _xy(point: tuple[float, float]) -> str:
    return f"{point[0]:g},{point[1]:g}"


def move_pricing(repeat: int) -> dict[str, float]:
    """Pricing a 10-waypoint path on the large scenario, in-process (``plan_move``)."""
    from tabletop.core.dice import Dice
    from tabletop.data.resources import bundled_scenario
    from tabletop.data.scenario_loader import read_scenario
    from tabletop.game.opening import opening_state
    from tabletop.rules.cd.movement import plan_move
    from tabletop.rules.context import RulesContext

    loaded = read_scenario(bundled_scenario("large"))
    ctx = RulesContext(opening_state(loaded, 1), Dice(1), loaded.scenario, loaded.charts)
    stand = ctx.state.stand(MOVE_STAND)
    points = [(stand["x"], stand["y"]), *MOVE_PATH]
    plan = plan_move(ctx, stand, points, None)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        plan_move(ctx, stand, points, None)
        times.append(time.perf_counter() - start)
    return {
        "waypoints": len(MOVE_PATH) - 1,
        "segments": len(plan.segments),
        "seconds": statistics.median(times),
    }


PLAY_LINES = [
    "show G-1-1-1",
    "measure G-1-1-1 US-1-1-1",
    "roll d10",
    "place G-1-1-1 12 30",
    "undo",
    "log --last 3",
]


PLAY_TARGETS = "targets G-R-TG-1"  # issue 32: a tank's targets, inside a warm session
# The table-side calculator (no game) and the tank whose targets are timed (issue 32).
QUICK_FIRE = ["fire", "--weapon", "pak-36", "--range", "14", "--target-kind", "infantry",
              "--quality", "veteran", "--seed", "1"]  # fmt: skip
TARGETS_STAND = "G-R-TG-1"


def play_commands(path: Path, repeat: int) -> dict[str, Any]:
    """Median time of a typical command inside one warm 'tabletop play' session."""
    import contextlib
    import io

    from tabletop.cli.commands.play import Session, timed

    session = Session(path)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        timed(session, [*PLAY_LINES, PLAY_TARGETS])  # warm: every command module imported once
        times: list[float] = []
        for _ in range(repeat):
            times.extend(timed(session, PLAY_LINES))
        # In CPU time, as its floor is compared: a loaded machine stretches wall time.
        targets = []
        for _ in range(repeat):
            start = time.process_time()
            session.run_line(PLAY_TARGETS)
            targets.append(time.process_time() - start)
    return {
        "seconds": statistics.median(times),
        "commands": len(times),
        "targets_cpu_seconds": statistics.median(targets),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiny", action="store_true", help="small sizes (smoke test)")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results.json")
    parser.add_argument("--part", default=None, help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part is not None:
        return inner(args.part, args.rest)
    repeat = args.repeat or (2 if args.tiny else 9)
    events = 60 if args.tiny else 10_000
    global WARM
    WARM = not args.tiny
    import tabletop

    subprocess.run(
        [PY, "-m", "compileall", "-q", str(Path(tabletop.__file__).parent)], check=True, env=ENV
    )
    work = Path(tempfile.mkdtemp(prefix="tabletop-bench-"))
    results: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
        },
        "repeat": repeat,
        "long_log_events": events,
    }
    try:
        fresh, long, large = work / "fresh.sqlite", work / "long.sqlite", work / "large.sqlite"
        run_process([*TABLETOP, "new", "crossroads", "--seed", "1", "--game", str(fresh)])
        run_process([*TABLETOP, "new", "large", "--seed", "1", "--game", str(large)])
        part("long-game", str(long), str(events))
        # measure and move --check against their import floor, interleaved: the targets are
        # their ratios (each run in turn, so a change in the machine's load falls on all alike)
        floor_and_measure = interleaved_runs(
            {
                "import click, shapely, yaml": [PY, "-c", "import click, shapely, yaml"],
                "measure (large)": [
                    *TABLETOP,
                    "measure",
                    "G-1-1-1",
                    "US-1-1-1",
                    "--game",
                    str(large),
                ],
                "move --check (large)": [
                    *TABLETOP,
                    "move",
                    MOVE_STAND,
                    _xy(MOVE_SHORT[-1]),
                    "--check",
                    "--game",
                    str(large),
                    *(a for p in MOVE_SHORT[:-1] for a in ("--via", _xy(p))),
                ],
            },
            repeat,
            # One BLAS thread for the floor too: the console script asks OpenBLAS for no pool
            # (``cli._one_blas_thread``), and a bare import would start one (a thread for each
            # further core, spinning), so the ratios compare the same work.
            {**ENV, "OPENBLAS_NUM_THREADS": "1"},
        )
        # The commands a referee repeats all evening (issue 32), interleaved with both floors:
        # their targets are ratios to these floors, or to each other (the two maps).
        assault = work / "assault.sqlite"
        shutil.copy(fresh, assault)
        run_process([*TABLETOP, "place", "US-1", "18", "26.2", "--game", str(assault)])
        # A side's view of a game four turns long (the large scenario played through
        # tests/games/large.txt): its last-seen markers look back over every state of the log.
        four = work / "four-turns.sqlite"
        play_game(four, GAMES / "large.txt")
        evening = interleaved_runs(
            {
                "import click": [PY, "-c", "import click"],
                "import click, shapely": [PY, "-c", "import click, shapely"],
                "status (large)": [*TABLETOP, "status", "--game", str(large)],
                VIEW_ROW: [*TABLETOP, "status", "--view", "Allies", "--game", str(four)],
                "fire, quick mode": [*TABLETOP, *QUICK_FIRE],
                "targets (large)": [*TABLETOP, "targets", TARGETS_STAND, "--game", str(large)],
                "map --out svg (large)": [
                    *TABLETOP,
                    "map",
                    "--out",
                    str(work / "map.svg"),
                    "--game",
                    str(large),
                ],
                "map --out png (large)": [
                    *TABLETOP,
                    "map",
                    "--out",
                    str(work / "map.png"),
                    "--game",
                    str(large),
                ],
                "assault --odds, one on one": [
                    *TABLETOP,
                    "assault",
                    "US-1",
                    "--against",
                    "G-1",
                    "--odds",
                    "--game",
                    str(assault),
                ],
            },
            repeat,
            # One BLAS thread: numpy's idle pool spinning on the other core would count as
            # CPU time of every geometry command and its floor (docs/performance.md).
            {**ENV, "OPENBLAS_NUM_THREADS": "1"},
        )
        m = {
            "import click": evening["import click"],
            "import click, shapely": evening["import click, shapely"],
            "import click, shapely, yaml": floor_and_measure["import click, shapely, yaml"],
            "tabletop --help": median_run([*TABLETOP, "--help"], repeat),
            "status (fresh)": median_run([*TABLETOP, "status", "--game", str(fresh)], repeat),
            "status (long log)": median_run([*TABLETOP, "status", "--game", str(long)], repeat),
            "measure (large)": floor_and_measure["measure (large)"],
            "measure --all (large)": median_run(
                [*TABLETOP, "measure", "--all", "--json", "--game", str(large)], repeat
            ),
            "odds fire (fresh)": median_run(
                [*TABLETOP, "odds", "fire", "G-4", "US-4", "--game", str(fresh)], repeat
            ),
            "map --out png (large)": evening["map --out png (large)"],
            "map --out svg (large)": evening["map --out svg (large)"],
            "status (large)": evening["status (large)"],
            VIEW_ROW: evening[VIEW_ROW],
            "fire, quick mode": evening["fire, quick mode"],
            "targets (large)": evening["targets (large)"],
            "assault --odds, one on one": evening["assault --odds, one on one"],
            "move --check (large)": floor_and_measure["move --check (large)"],
        }
        for label, path in (("fresh", fresh), ("long log", long)):
            # fire changes the game: each repeat fires on a copy
            times, peaks = [], []
            for i in range(repeat + 1):
                copy = work / f"copy-{i}.sqlite"
                shutil.copy(path, copy)
                run_process([*TABLETOP, "phase", "next", "--game", str(copy)])
                t, p = run_process([*TABLETOP, "fire", "G-4", "US-4", "--game", str(copy)])
                if i:
                    times.append(t)
                    peaks.append(p)
            m[f"fire ({label})"] = {"seconds": statistics.median(times), "peak_kib": max(peaks)}
        results["commands"] = m
        results["sight"], peak = part("sight", str(repeat))
        results["sight"]["peak_kib"] = peak
        results["odds"], peak = part("odds", str(repeat))
        results["odds"]["peak_kib"] = peak
        results["move"], peak = part("move", str(repeat))
        results["move"]["peak_kib"] = peak
        results["play"], peak = part("play", str(large), str(repeat))
        results["play"]["peak_kib"] = peak
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def cpu(name: str) -> float:
        return float(m[name]["cpu_seconds"])

    click_s = m["import click"]["seconds"]
    floor_s = m["import click, shapely, yaml"]["seconds"]
    targets = [
        ("tabletop --help / import click", m["tabletop --help"]["seconds"] / click_s, 1.5),
        ("status / import click", m["status (fresh)"]["seconds"] / click_s, 2.0),
        ("measure / import floor", m["measure (large)"]["seconds"] / floor_s, 1.3),
        ("all-pairs sight (s)", results["sight"]["seconds"], 0.5),
        (
            "fire long / fire fresh",
            m["fire (long log)"]["seconds"] / m["fire (fresh)"]["seconds"],
            1.15,
        ),
        (
            "status long / status fresh",
            m["status (long log)"]["seconds"] / m["status (fresh)"]["seconds"],
            1.15,
        ),
        ("odds fire ROF 10 compute (s)", results["odds"]["seconds"], 0.05),
        # Seconds of CPU: the one absolute limit on a whole command, and a loaded machine's
        # wall time drifts with the load (docs/performance.md).
        ("map --out png, large (s)", m["map --out png (large)"]["cpu_seconds"], 0.5),
        ("move / import floor", m["move --check (large)"]["seconds"] / floor_s, 1.3),
        ("move 10-waypoint pricing (s)", results["move"]["seconds"], 0.02),
        ("command inside play, large (s)", results["play"]["seconds"], 0.03),
        # issue 32: the commands a referee repeats all evening, in CPU time against floors
        # run in turn with them (wall time on a shared machine drifts with the load).
        ("status (large) / import click, CPU", cpu("status (large)") / cpu("import click"), 1.5),
        ("quick fire / import click, CPU", cpu("fire, quick mode") / cpu("import click"), 2.0),
        (
            "targets / import click, shapely, CPU",
            cpu("targets (large)") / cpu("import click, shapely"),
            1.3,
        ),
        (
            "targets inside play / import click, CPU",
            results["play"]["targets_cpu_seconds"] / cpu("import click"),
            0.5,
        ),
        (
            "map svg / map png, CPU",
            cpu("map --out svg (large)") / cpu("map --out png (large)"),
            1.0,
        ),
        (
            "assault --odds 1:1 / import click, shapely, CPU",
            cpu("assault --odds, one on one") / cpu("import click, shapely"),
            2.0,
        ),
        # A side's view looks back over the whole log; seconds of CPU for the whole command.
        ("status --view, four turns (s CPU)", cpu(VIEW_ROW), 0.5),
    ]
    results["targets"] = [
        {"measure": name, "value": round(v, 4), "target": t, "met": v <= t}
        for name, v, t in targets
    ]
    # The same two ratios in CPU time: on a busy machine the wall-time ones drift with the
    # load, these hardly move.
    floor_cpu = m["import click, shapely, yaml"]["cpu_seconds"]
    results["cpu_ratios"] = {
        "measure / import floor": round(m["measure (large)"]["cpu_seconds"] / floor_cpu, 4),
        "tabletop --help / import click": round(
            m["tabletop --help"]["cpu_seconds"] / m["import click"]["cpu_seconds"], 4
        ),
    }
    print(f"{'command':32} {'median s':>9} {'CPU s':>9} {'peak MiB':>9}")
    for name, row in m.items():
        cpu = f"{row['cpu_seconds']:9.3f}" if "cpu_seconds" in row else f"{'':9}"
        print(f"{name:32} {row['seconds']:9.3f} {cpu} {row['peak_kib'] / 1024:9.1f}")
    s = results["sight"]
    print(
        f"\nall-pairs sight: {s['stands']} stands x {s['terrain']} terrain pieces in "
        f"{s['seconds'] * 1000:.1f} ms ({s['pairs_per_second']:,.0f} pairs/s), "
        f"peak {s['peak_kib'] / 1024:.1f} MiB"
    )
    o = results["odds"]
    print(
        f"odds fire, ROF 10: {o['seconds'] * 1000:.1f} ms of compute, "
        f"peak {o['peak_kib'] / 1024:.1f} MiB\n"
    )
    print(
        f"inside 'tabletop play' (large scenario): median {results['play']['seconds'] * 1000:.1f}"
        f" ms over {results['play']['commands']} commands; 'targets' "
        f"{results['play']['targets_cpu_seconds'] * 1000:.1f} ms of CPU\n"
    )
    print(f"{'target':34} {'value':>8} {'limit':>7}  met")
    for row in results["targets"]:
        print(
            f"{row['measure']:34} {row['value']:8.3f} {row['target']:7.2f}  "
            f"{'yes' if row['met'] else 'NO'}"
        )
    for name, value in results["cpu_ratios"].items():
        print(f"{name + ' (CPU)':34} {value:8.3f}")
    args.out.write_text(json.dumps(results, indent=2))
    print(f"\nwritten {args.out}")
    return 0


def inner(name: str, rest: list[str]) -> int:
    import resource

    if name == "long-game":
        build_long_game(Path(rest[0]), int(rest[1]))
        result: dict[str, Any] = {}
    elif name == "sight":
        result = sight_rate(int(rest[0]))
    elif name == "move":
        result = move_pricing(int(rest[0]))
    elif name == "play":
        result = play_commands(Path(rest[0]), int(rest[1]))
    else:
        result = odds_compute(int(rest[0]))
    result["peak_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
