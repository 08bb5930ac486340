"""Record what every view reads of some games, to compare two versions of the view code.

    python scripts/same_views.py games DIR                # play the games once, into DIR
    python scripts/same_views.py dump DIR before.json [GAME.sqlite ...]   # old code
    python scripts/same_views.py dump DIR after.json [GAME.sqlite ...]    # new code
    python scripts/same_views.py compare before.json after.json

``games`` plays every whole-game script of tests/games (as written, and again with the night
falling after the first line: ``weather set --light night-moonlit``) and starts each bundled
scenario fresh by day and at night, keeping the game files in DIR, with each script's
transcript. ``dump`` copies every game of DIR (and any GAME.sqlite named) and records, for
the referee's view and every side's, the text and JSON of ``status``, ``log``, ``map`` (the
SVG, and its JSON) and ``handout`` (every file it writes), with each transcript replayed
through ``play`` on a fresh game. A game file is never changed by a read: ``dump`` checks
that each copy is byte-identical afterwards. ``compare`` lists every output that differs.
"""

from __future__ import annotations

import hashlib
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
HERE = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((HERE / "tests" / "games").glob("*.txt"))
SCENARIOS = ("crossroads", "large")
NIGHT = "weather set --light night-moonlit"


def run(args: list[str], stdin: str | None = None) -> dict[str, Any]:
    result = RUNNER.invoke(cli, args, input=stdin)
    return {"exit": result.exit_code, "output": result.output}


def script_parts(path: Path, night: bool) -> tuple[list[str], str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    new = next(line.split(":", 1)[1].split() for line in lines if line.startswith("# new:"))
    body = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if night:
        body.insert(0, NIGHT)
    return new, "\n".join(body) + "\n"


def games(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for path in SCRIPTS:
        for night in (False, True):
            name = f"{path.stem}-{'night' if night else 'day'}"
            game = folder / f"{name}.sqlite"
            new, body = script_parts(path, night)
            run(["new", *new, "--game", str(game), "--force"])
            played = run(["play", "--echo", "--game", str(game)], body)
            (folder / f"{name}.play.json").write_text(json.dumps(played, indent=1))
    for scenario in SCENARIOS:
        for light in ("day", "night-moonlit"):
            game = folder / f"{scenario}-fresh-{light}.sqlite"
            run(["new", scenario, "--seed", "3", "--game", str(game), "--force"])
            run(["weather", "set", "--light", light, "--game", str(game)])
    print(f"games written to {folder}")


def views(game: Path) -> list[str]:
    state = json.loads(run(["status", "--json", "--game", str(game)])["output"])
    return ["referee", *sorted({s["side"] for s in state["stands"]})]


def dump_game(out: dict[str, Any], game: Path, tmp: Path) -> None:
    copy = tmp / game.name
    shutil.copyfile(game, copy)
    before = copy.read_bytes()
    for view in views(copy):
        tag = f"[{game.stem} {view}] "
        for args in (["status"], ["log"], ["map", "--out", "-"]):
            for extra in ([], ["--json"]):
                full = [*args, "--view", view, *extra, "--game", str(copy)]
                out[tag + " ".join([*args, *extra])] = run(full)
        svg = tmp / "map.svg"
        got = run(["map", "--out", str(svg), "--view", view, "--json", "--game", str(copy)])
        got["output"] = got["output"].replace(str(tmp), "TMP")
        got["file"] = svg.read_text(encoding="utf-8") if svg.exists() else None
        out[tag + "map --out FILE --json"] = got
        if view != "referee":
            folder = tmp / "handout"
            shutil.rmtree(folder, ignore_errors=True)
            got = run(["handout", view, "--out", str(folder), "--game", str(copy)])
            got["output"] = got["output"].replace(str(tmp), "TMP")
            files = sorted(folder.iterdir()) if folder.exists() else []
            got["files"] = {
                f.name: (
                    hashlib.sha256(f.read_bytes()).hexdigest()
                    if f.suffix == ".png"
                    else f.read_text(encoding="utf-8").replace(str(tmp), "TMP")
                )
                for f in files
            }
            out[tag + "handout"] = got
    out[f"[{game.stem}] file unchanged by reading"] = copy.read_bytes() == before


def replay_scripts(out: dict[str, Any], tmp: Path) -> None:
    for path in SCRIPTS:
        for night in (False, True):
            name = f"{path.stem}-{'night' if night else 'day'}"
            game = tmp / f"play-{name}.sqlite"
            new, body = script_parts(path, night)
            run(["new", *new, "--game", str(game), "--force"])
            played = run(["play", "--echo", "--game", str(game)], body)
            played["output"] = played["output"].replace(str(tmp), "TMP")
            out[f"[{name}] play"] = played


def dump(folder: Path, path: Path, extra: list[Path]) -> None:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for game in [*sorted(folder.glob("*.sqlite")), *extra]:
            dump_game(out, game, tmp)
        replay_scripts(out, tmp)
    path.write_text(json.dumps(out, indent=1, sort_keys=True))
    print(f"{len(out)} outputs written to {path}")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    differ = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    for key in differ:
        print(f"differs: {key}")
    unchanged = [k for k, v in b.items() if k.endswith("file unchanged by reading")]
    changed = [k for k in unchanged if b[k] is not True]
    for key in changed:
        print(f"written by a read: {key}")
    print(f"{len(a)} outputs before, {len(b)} after, {len(differ)} differ")
    return 1 if differ or changed else 0


def main(argv: list[str]) -> int:
    os.environ.pop("TABLETOP_VIEW", None)
    if len(argv) == 2 and argv[0] == "games":
        games(Path(argv[1]))
        return 0
    if len(argv) >= 3 and argv[0] == "dump":
        dump(Path(argv[1]), Path(argv[2]), [Path(p) for p in argv[3:]])
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
