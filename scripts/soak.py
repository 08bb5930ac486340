"""A longer kill-and-check soak than the test suite's: many more commands killed at random.

    python scripts/soak.py                     # 2000 commands over 2 game files
    python scripts/soak.py --steps 20000 --workers 4 --seed 7 --keep soak-out

Runs the loop of ``tests/test_reliability.py``: commands in real processes (started with
``python -m tabletop``, or forked from a server that has imported it), each SIGKILLed at a
moment drawn from the seed (at start-up, at any moment, or while holding the game's write
lock), and after every one the game must open, verify, replay and hold exactly the commands
that finished. Prints what was tried and what held; exits 1 on the first broken game, naming
the step and its kill timing (every step is written beside the game file).
"""

from __future__ import annotations

import argparse
import collections
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_reliability import KILL_SEED, kill_many  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="commands started (default 2000)")
    parser.add_argument("--workers", type=int, default=2, help="game files at once (default 2)")
    parser.add_argument("--seed", type=int, default=KILL_SEED, help="seed of the kill timings")
    parser.add_argument(
        "--spawn-only", action="store_true", help="start every command as python -m tabletop"
    )
    parser.add_argument("--keep", type=Path, default=None, help="keep the game files here")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tabletop-soak-"))
    started = time.monotonic()
    try:
        loops = kill_many(folder, args.steps, args.workers, args.seed, forks=not args.spawn_only)
    except AssertionError as exc:
        print(f"BROKEN after {time.monotonic() - started:.0f} s:\n{exc}", file=sys.stderr)
        print(f"game files kept in {folder}", file=sys.stderr)
        return 1
    steps = [step for loop in loops for step in loop.history]
    outcomes = collections.Counter(step.outcome for step in steps)
    by_how = collections.Counter(
        f"{step.via} {step.mode}" for step in steps if step.outcome.startswith("killed")
    )
    by_command = collections.Counter(
        step.argv[0] for step in steps if step.outcome.startswith("killed")
    )
    print(f"{len(steps)} commands in {time.monotonic() - started:.0f} s, seed {args.seed}")
    print("outcomes:", ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print("kills by how:", ", ".join(f"{k} {v}" for k, v in sorted(by_how.items())))
    print("kills by command:", ", ".join(f"{k} {v}" for k, v in sorted(by_command.items())))
    print("every game opened, verified and replayed after every command; nothing lost")
    if args.keep is not None:
        shutil.copytree(folder, args.keep, dirs_exist_ok=True)
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
