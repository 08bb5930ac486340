"""Smoke test: the benchmark script runs end to end on tiny sizes and reports every figure.

It times nothing itself (tests must not time things); it checks the script still works
against the current commands and that its JSON holds each measurement the targets need.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "run.py"

COMMANDS = {
    "import click",
    "import click, shapely, yaml",
    "tabletop --help",
    "status (fresh)",
    "status (long log)",
    "measure (large)",
    "measure --all (large)",
    "odds fire (fresh)",
    "fire (fresh)",
    "fire (long log)",
    "map --out png (large)",
    "move --check (large)",
    "import click, shapely",
    "status (large)",
    "status --view SIDE, large after four turns",
    "fire, quick mode",
    "targets (large)",
    "map --out svg (large)",
    "assault --odds, one on one",
}


def test_benchmark_script_runs_on_tiny_sizes(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--tiny", "--repeat", "1", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    assert set(results["commands"]) == COMMANDS
    for row in results["commands"].values():
        assert row["seconds"] > 0 and row["peak_kib"] > 0
    sight = results["sight"]
    assert sight["stands"] >= 120 and sight["terrain"] >= 60
    assert sight["pairs_per_second"] > 0 and sight["peak_kib"] > 0
    assert results["odds"]["rof"] == 10 and results["odds"]["peak_kib"] > 0
    assert results["play"]["targets_cpu_seconds"] > 0
    assert [t["measure"] for t in results["targets"]] == [
        "tabletop --help / import click",
        "status / import click",
        "measure / import floor",
        "all-pairs sight (s)",
        "fire long / fire fresh",
        "status long / status fresh",
        "odds fire ROF 10 compute (s)",
        "map --out png, large (s)",
        "move / import floor",
        "move 10-waypoint pricing (s)",
        "command inside play, large (s)",
        "status (large) / import click, CPU",
        "quick fire / import click, CPU",
        "targets / import click, shapely, CPU",
        "targets inside play / import click, CPU",
        "map svg / map png, CPU",
        "assault --odds 1:1 / import click, shapely, CPU",
        "status --view, four turns (s CPU)",
    ]
    # the printed table names every target, met or not
    for target in results["targets"]:
        assert target["measure"] in done.stdout
