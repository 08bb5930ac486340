"""Record what the commands a performance change touches print, to compare two versions.

    python scripts/same_outputs.py dump before.json        # with the old code on the path
    python scripts/same_outputs.py dump after.json         # with the new code
    python scripts/same_outputs.py compare before.json after.json

``dump`` plays the bundled scenarios in fresh games (fixed seeds) by day and at night, and
records the text and the JSON of every command below under every view (the referee's and
each side's): ``status``, ``targets`` of every stand on the table, ``measure`` and the
quick-mode calculator (``fire`` and ``odds fire``) over every weapon, and ``assault --odds``
of stand against stand. ``compare`` lists every command whose output (or exit status)
differs. Each command runs in process (click's runner): a whole dump takes a few minutes.

    python scripts/same_outputs.py dump-assault before.json   # close combat only (a minute)

``dump-assault`` fights the close-combat test ground (``tests/data/aggression.yaml``): the
odds (text and JSON) of one against one, two against one and the orders that change a
battle (ambush, road column, works, pursuit, disengage, surrender, joined, a leader alone),
each to the end and for one and two rounds, and the same assaults rolled on games made
with six seeds and with dice given, each on a fresh copy of the game, every result in full.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tabletop.cli import cli

RUNNER = CliRunner()
SCENARIOS = ("crossroads", "large")
LIGHTS = ("day", "night-moonlit")
QUICK_KINDS = ("infantry", "tank", "armoured-car", "towed-gun")
QUICK_RANGES = ("3", "9", "14", "27", "45")


def run(args: list[str]) -> dict[str, Any]:
    result = RUNNER.invoke(cli, args)
    return {"exit": result.exit_code, "output": result.output}


def record(out: dict[str, Any], args: list[str], game: Path | None = None) -> None:
    full = [*args, "--game", str(game)] if game is not None else args
    key = " ".join(args)
    out[key] = run(full)
    out[key + " --json"] = run([*full, "--json"])


def dump_game(out: dict[str, Any], scenario: str, light: str, folder: Path) -> None:
    game = folder / f"{scenario}-{light}.sqlite"
    run(["new", scenario, "--seed", "3", "--game", str(game), "--force"])
    run(["weather", "set", "--light", light, "--game", str(game)])
    state = json.loads(run(["status", "--json", "--game", str(game)])["output"])
    stands = [s for s in state["stands"] if s.get("at") is not None or s.get("x") is not None]
    sides = sorted({s["side"] for s in stands})
    for view in ("referee", *sides):
        tag = f"[{scenario} {light} {view}] "
        opts = ["--view", view]
        sub: dict[str, Any] = {}
        record(sub, ["status", *opts], game)
        for s in stands:
            if view == "referee" or s["side"] == view:
                record(sub, ["targets", s["id"], *opts], game)
        firsts = {side: [s["id"] for s in stands if s["side"] == side][:6] for side in sides}
        for a in firsts[sides[0]]:
            for b in firsts[sides[-1]]:
                record(sub, ["measure", a, b, *opts], game)
        out.update({tag + k: v for k, v in sub.items()})
    firsts = {side: [s["id"] for s in stands if s["side"] == side][:4] for side in sides}
    for a in firsts[sides[0]]:
        for b in firsts[sides[-1]]:
            record(out, ["assault", a, "--against", b, "--odds"], game)
            out[f"[{scenario} {light}] assault {a} {b}"] = out.pop(
                f"assault {a} --against {b} --odds"
            )
            out[f"[{scenario} {light}] assault {a} {b} --json"] = out.pop(
                f"assault {a} --against {b} --odds --json"
            )


AGGRESSION = Path(__file__).resolve().parent.parent / "tests" / "data" / "aggression.yaml"
ASSAULTS: tuple[tuple[str, ...], ...] = (
    ("US-2", "--against", "G-2"),
    ("US-2", "--against", "G-2", "--set", "pursue.US-2=true"),
    ("US-2", "--against", "G-2", "--set", "af.US-2=7"),
    ("US-2", "--against", "G-2", "--set", "works.G-2=entrenched"),
    ("US-2", "--against", "G-2", "--set", "disengage=G-2", "--set", "af.G-2=8"),
    ("US-2", "--against", "G-2", "--set", "af.G-2=3", "--set", "af.US-2=9"),
    ("US-A", "US-B", "--against", "VG", "--set", "retreat.VG=0"),
    ("US-A", "US-B", "--against", "VG", "--set", "joined=US-B"),
    ("US-3", "US-4", "--against", "G-3", "--set", "af.G-3=1", "--set", "retreat.G-3=0"),
    ("US-3", "US-4", "--against", "G-3", "--set", "af.US-3=8"),
    ("US-COL", "--against", "G-AMB", "--set", "ambush=G-AMB", "--set", "admin=US-COL"),
    ("US-COL", "--against", "G-AMB", "--set", "admin=US-COL"),
    ("US-5", "--against", "G-LDR"),
    ("US-L", "--against", "G-LAKE"),
)
ASSAULT_DICE = ("99,99,99,1,+", "1,99,99,99,+", "1,1,44,91,+", "50,51,37,38,+")


def dump_assaults(out: dict[str, Any], folder: Path) -> None:
    templates = [folder / f"aggression-{seed}.sqlite" for seed in range(1, 7)]
    for seed, template in enumerate(templates, 1):
        run(["new", str(AGGRESSION), "--seed", str(seed), "--game", str(template), "--force"])
    for args in ASSAULTS:
        for rounds in ((), ("--rounds", "1"), ("--rounds", "2")):
            record(out, ["assault", *args, *rounds, "--odds"], templates[0])
        rolled = [(t, []) for t in templates] + [
            (templates[0], ["--dice", d]) for d in ASSAULT_DICE
        ]
        for template, extra in rolled:
            for flag in ((), ("--json",)):
                game = folder / "rolled.sqlite"
                shutil.copy(template, game)
                key = " ".join(["assault", *args, *extra, *flag, f"[{template.stem}]"])
                out[key] = run(["assault", *args, *extra, *flag, "--game", str(game)])


def dump(path: Path) -> None:
    out: dict[str, Any] = {}
    weapons = json.loads(run(["charts", "show", "weapons", "--json"])["output"])
    ids = [w["id"] for w in weapons["entries"]] if isinstance(weapons, dict) else []
    for weapon in ids:
        for kind in QUICK_KINDS:
            for rng in QUICK_RANGES:
                args = ["--weapon", weapon, "--range", rng, "--target-kind", kind]
                record(out, ["fire", *args, "--seed", "5"])
                record(out, ["odds", "fire", *args])
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in SCENARIOS:
            for light in LIGHTS:
                dump_game(out, scenario, light, Path(tmp))
    path.write_text(json.dumps(out, indent=1, sort_keys=True))
    print(f"{len(out)} outputs written to {path}")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    differ = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    for key in differ:
        print(f"differs: {key}")
    print(f"{len(a)} outputs before, {len(b)} after, {len(differ)} differ")
    return 1 if differ else 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "dump":
        os.environ.pop("TABLETOP_VIEW", None)
        dump(Path(argv[1]))
        return 0
    if len(argv) == 2 and argv[0] == "dump-assault":
        os.environ.pop("TABLETOP_VIEW", None)
        out: dict[str, Any] = {}
        with tempfile.TemporaryDirectory() as tmp:
            dump_assaults(out, Path(tmp))
        Path(argv[1]).write_text(json.dumps(out, indent=1, sort_keys=True))
        print(f"{len(out)} outputs written to {argv[1]}")
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
