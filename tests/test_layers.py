"""The code's floors (SPEC, architecture): every import points down, none goes round in a circle.

The checker reads every module of ``tabletop/`` with ``ast`` and takes every import it
finds, at module level and inside functions (a function-level import is still a
dependency, only a later one), plus the dynamic ones: a string constant naming one of our
modules (``"tabletop.rules.cd.fire:fire_action"``, what the action and model registries and
``importlib.import_module`` load). From that graph it reports three kinds of violation:

- ``cycle``: modules that import each other, directly or round a longer loop;
- ``upward``: an import from a lower floor into a higher one. Floors, bottom to top:
  core < table < data < state < rules < game < render < setup < serve < cli. Inside
  ``rules``: the top modules (``rules/*.py``) < ``rules/cd`` < ``rules/models``;
- ``store``: the game file's store used outside ``state/`` and ``game/``: importing
  ``tabletop.state.store`` or ``sqlite3``, or reading a game object's ``.store``.

Separately, every import outside ``cli/``, ``render/`` and ``serve/`` is at module level: a
function-level import there would hide a dependency (or a cycle) until the function runs.
Only the commands, the pictures and the pages put imports inside functions, to keep heavy libraries
off the start-up path (``tabletop --help`` loads neither shapely nor numpy).

Today's violations are listed, each with why, in ``KNOWN_VIOLATIONS``. The test fails on a
violation not in the list, and on a listed one that is gone (delete its line: the list only
shrinks).
"""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tabletop"

# Bottom to top. A module belongs to the floor of the longest prefix that names one.
FLOORS: tuple[str, ...] = (
    "core",
    "table",
    "data",
    "state",
    "rules.context",  # what every procedure is handed
    "rules.sequence",  # the turn's phases and the registry of boundary steps
    "rules.cd",  # Command Decision's areas (sighting and movement among them)
    "rules",  # the other top modules of rules/: what a side knows (views), over CD's sighting
    "rules.models",  # the alternative models
    "game",
    "render",
    "setup",  # scenario authoring
    "serve",  # the players' live pages
    "cli",
)
# The game file's store (our module, named inside the package, and the library) and the
# floors that may use it.
STORE_MODULES = ("state.store", "sqlite3")
STORE_ALLOWED = ("state", "game")

# Violations allowed for now, each with why, while it is worked off; the test fails while a
# fixed one is still listed. None today (issue 17 worked the last of them off): keep it so.
KNOWN_VIOLATIONS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, dotted
    target: str  # the imported module, dotted
    line: int
    dynamic: bool = False  # named in a string, loaded with importlib


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name."""
    return {module_name(root, p): p for p in sorted(root.rglob("*.py"))}


def _absolute(source: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = source.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """The nodes the checks look at (imports, strings, ``.store``), from one walk."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return tuple(
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        or (isinstance(node, ast.Constant) and isinstance(node.value, str))
        or (isinstance(node, ast.Attribute) and node.attr == "store")
    )


def imports_of(name: str, path: Path, known: Iterable[str]) -> Iterator[Import]:
    """Every import in one module: statements anywhere in it, and module names in strings."""
    known = set(known)
    root = name.split(".")[0]
    is_package = path.name == "__init__.py"
    for node in nodes(path):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(name, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, is_package, node)
            for alias in node.names:
                # ``from pkg import mod`` imports the module pkg.mod; ``from mod import f``
                # imports mod.
                sub = f"{base}.{alias.name}"
                yield Import(name, sub if sub in known else base, node.lineno)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith(f"{root}.")
        ):
            target = node.value.partition(":")[0]
            if target in known:
                yield Import(name, target, node.lineno, dynamic=True)


def reads_the_store(path: Path) -> bool:
    """Whether a module reaches the store through a game object (``game.store.events()``)."""
    return any(isinstance(n, ast.Attribute) for n in nodes(path))


def graph(root: Path) -> tuple[dict[str, set[str]], list[Import]]:
    """Module -> the package's modules it imports, and every import (outside ones too).

    The graph, which cycles are looked for in, leaves out the loads named in strings: a
    registry (``game/actions.py``, ``rules/models/__init__.py``, ``rules/sequence.py``)
    loads its entries when one is called, after every module involved has finished
    loading, and naming them is its job. They still count for floors and the store.
    """
    found = modules(root)
    edges: dict[str, set[str]] = {m: set() for m in found}
    every: list[Import] = []
    for name, path in found.items():
        for imp in imports_of(name, path, found):
            every.append(imp)
            if imp.dynamic or imp.target not in found or imp.target == name:
                continue
            edges[name].add(imp.target)
            # Importing a.b.c runs the packages a.b and a first, unless the importer is
            # itself inside them (then they are already running).
            parts = imp.target.split(".")
            for i in range(1, len(parts)):
                parent = ".".join(parts[:i])
                if parent in found and not (name == parent or name.startswith(f"{parent}.")):
                    edges[name].add(parent)
    return edges, every


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a long chain cannot reach the recursion limit.
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def floor_of(module: str, floors: tuple[str, ...]) -> int | None:
    """The floor's position (0 lowest), or None for the package root and its entry points."""
    inner = module.split(".", 1)[1] if "." in module else ""
    best: tuple[int, int] | None = None
    for position, floor in enumerate(floors):
        if inner == floor or inner.startswith(f"{floor}."):
            length = len(floor.split("."))
            if best is None or length > best[0]:
                best = (length, position)
    return None if best is None else best[1]


def violations(
    root: Path,
    floors: tuple[str, ...] = FLOORS,
    store_modules: tuple[str, ...] = STORE_MODULES,
    store_allowed: tuple[str, ...] = STORE_ALLOWED,
) -> set[str]:
    """Every violation in the package under ``root``, as the lines KNOWN_VIOLATIONS holds."""
    edges, every = graph(root)
    prefix = f"{root.name}."

    def short(module: str) -> str:
        return module.removeprefix(prefix)

    out = {f"cycle: {', '.join(short(m) for m in group)}" for group in cycles(edges)}
    for imp in every:
        if imp.target in edges:
            low, high = floor_of(imp.source, floors), floor_of(imp.target, floors)
            if low is not None and high is not None and high > low:
                out.add(
                    f"upward: {short(imp.source)} -> {short(imp.target)} "
                    f"({floors[low]} < {floors[high]})"
                )
        target = short(imp.target)
        if any(target == s or target.startswith(f"{s}.") for s in store_modules):
            where = floor_of(imp.source, floors)
            allowed = {floors.index(f) for f in store_allowed}
            if where is None or where not in allowed:
                out.add(f"store: {short(imp.source)} imports {short(imp.target)}")
    allowed = {floors.index(f) for f in store_allowed}
    for name, path in modules(root).items():
        where = floor_of(name, floors)
        if (where is None or where not in allowed) and reads_the_store(path):
            out.add(f"store: {short(name)} reads a game's .store")
    return out


def differences(found: set[str], known: frozenset[str]) -> list[str]:
    """What is wrong with the list: violations not in it, and listed ones that are gone."""
    new = sorted(found - known)
    gone = sorted(known - found)
    message = []
    if new:
        message.append("new violations (make the import point down or break the cycle):")
        message += [f"  {line}" for line in new]
    if gone:
        message.append("fixed, so delete these lines from KNOWN_VIOLATIONS:")
        message += [f"  {line}" for line in gone]
    return message


# The floors where an import may sit inside a function (start-up time, see above).
LAZY_IMPORTS_ALLOWED = ("cli", "render", "serve")


def function_level_imports(root: Path) -> list[str]:
    """``module:line`` of each import inside a function, outside the floors allowed them."""
    found = []
    for name, path in modules(root).items():
        if name.partition(".")[2].split(".")[0] in LAZY_IMPORTS_ALLOWED:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found += [
                    f"{name}:{inner.lineno}"
                    for inner in ast.walk(node)
                    if isinstance(inner, (ast.Import, ast.ImportFrom))
                ]
    return sorted(set(found))


def test_imports_are_at_module_level_outside_the_commands_and_pictures() -> None:
    assert function_level_imports(PACKAGE) == []


def test_checker_finds_a_function_level_import_in_the_rules(tmp_path: Path) -> None:
    root = fake_package(
        tmp_path,
        {
            "rules/fire.py": "def f():\n    from pkg.core import dice\n    return dice\n",
            "cli/main.py": "def g():\n    import shapely\n    return shapely\n",
        },
    )
    assert function_level_imports(root) == ["pkg.rules.fire:2"]


def test_floors_and_cycles_only_known_violations() -> None:
    print("Known layer violations (issue 17), still to fix:")
    for line in sorted(KNOWN_VIOLATIONS):
        print(f"  {line}")
    message = differences(violations(PACKAGE), KNOWN_VIOLATIONS)
    assert not message, "\n".join(message)


def test_the_known_list_may_only_shrink() -> None:
    known = frozenset({"cycle: a, b", "store: c imports sqlite3"})
    assert differences({"cycle: a, b", "store: c imports sqlite3"}, known) == []
    assert differences({"cycle: a, b"}, known) == [
        "fixed, so delete these lines from KNOWN_VIOLATIONS:",
        "  store: c imports sqlite3",
    ]
    assert differences({"cycle: a, b", "store: c imports sqlite3", "cycle: d, e"}, known) == [
        "new violations (make the import point down or break the cycle):",
        "  cycle: d, e",
    ]


# --- the checker itself ------------------------------------------------------------------


def fake_package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package ``pkg`` under tmp_path with the floors core < data < cli."""
    root = tmp_path / "pkg"
    for rel, text in {"__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(root).parents:
            init = root / parent / "__init__.py"
            if not init.exists():
                init.write_text("")
        path.write_text(textwrap.dedent(text))
    return root


FAKE_FLOORS = ("core", "data", "state", "cli")


def fake_violations(tmp_path: Path, files: dict[str, str]) -> set[str]:
    return violations(fake_package(tmp_path, files), FAKE_FLOORS, STORE_MODULES, ("state",))


def test_checker_passes_imports_that_point_down(tmp_path: Path) -> None:
    files = {
        "core/units.py": "import math\n",
        "data/charts.py": "from pkg.core import units\nfrom ..core.units import math\n",
        "state/store.py": "import sqlite3\nfrom pkg.data.charts import units\n",
        "state/view.py": "from .store import sqlite3\n",
        "cli/main.py": "def run():\n    from pkg.state.view import sqlite3\n",
    }
    assert fake_violations(tmp_path, files) == set()


def test_checker_finds_a_planted_cycle_of_function_level_imports(tmp_path: Path) -> None:
    files = {
        "data/a.py": "def f():\n    from pkg.data import b\n",
        "data/b.py": "def g():\n    from . import c\n",
        "data/c.py": "import pkg.data.a\n",
    }
    assert fake_violations(tmp_path, files) == {"cycle: data.a, data.b, data.c"}


def test_checker_finds_a_cycle_through_a_package_init(tmp_path: Path) -> None:
    # Importing pkg.data.b runs pkg/data/__init__.py, which imports core.x back.
    files = {
        "data/__init__.py": "from pkg.core.x import X\n",
        "data/b.py": "",
        "core/x.py": "X = 1\ndef f():\n    import pkg.data.b\n",
    }
    found = fake_violations(tmp_path, files)
    assert found == {"cycle: core.x, data", "upward: core.x -> data.b (core < data)"}


def test_checker_finds_a_planted_upward_import(tmp_path: Path) -> None:
    files = {
        "core/units.py": "def f():\n    from pkg.cli.main import run\n",
        "cli/main.py": "def run(): pass\n",
    }
    assert fake_violations(tmp_path, files) == {"upward: core.units -> cli.main (core < cli)"}


def test_checker_finds_a_dynamic_import_named_in_a_string(tmp_path: Path) -> None:
    files = {
        "data/registry.py": 'ACTIONS = {"go": "pkg.cli.main:run"}\n',
        "cli/main.py": "def run(): pass\n",
    }
    assert fake_violations(tmp_path, files) == {"upward: data.registry -> cli.main (data < cli)"}


def test_checker_finds_the_store_outside_its_floors(tmp_path: Path) -> None:
    files = {
        "state/store.py": "import sqlite3\n",
        "cli/report.py": "def f():\n    import sqlite3\n    from pkg.state import store\n",
        "cli/log.py": "def f(game):\n    return game.store.events()\n",
    }
    assert fake_violations(tmp_path, files) == {
        "store: cli.report imports sqlite3",
        "store: cli.report imports state.store",
        "store: cli.log reads a game's .store",
    }


@pytest.mark.parametrize(
    ("module", "floor"),
    [
        ("tabletop.core.dice", "core"),
        ("tabletop.rules", "rules"),
        ("tabletop.rules.views", "rules"),
        ("tabletop.rules.sequence", "rules.sequence"),
        ("tabletop.rules.cd.sighting", "rules.cd"),
        ("tabletop.rules.cd.fire", "rules.cd"),
        ("tabletop.rules.models.typhoon.combat", "rules.models"),
        ("tabletop.cli.commands.fire", "cli"),
    ],
)
def test_each_module_sits_on_the_floor_of_its_folder(module: str, floor: str) -> None:
    position = floor_of(module, FLOORS)
    assert position is not None and FLOORS[position] == floor


def test_every_module_sits_on_a_floor() -> None:
    # The package root and its ``python -m`` entry point only.
    assert sorted(m for m in modules(PACKAGE) if floor_of(m, FLOORS) is None) == [
        "tabletop",
        "tabletop.__main__",
    ]
