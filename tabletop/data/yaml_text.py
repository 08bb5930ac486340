"""Hand-written YAML read into plain data, with the line of every key and item.

Charts and scenarios are written by people: a problem is reported with its file and line, so
the parser records where each mapping key and sequence item stands, and a key given twice is
a problem (YAML would silently keep the last). The limits below keep a broken or hostile file
from crashing or stalling the parser. Only commands that read such files (a new game, the
charts, ``--charts`` overlays) import this module and PyYAML; a command over a stored game
rebuilds its scenario and charts from the game's JSON (``scenario.rebuild_scenario``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from tabletop.core.errors import BadInput
from tabletop.data.schema import Context, PathT

# Hand-written files nest a few levels and hold a few thousand values. The limits keep a
# broken or hostile file from crashing the parser (deep nesting overflows the C stack) or
# from taking forever (aliases of aliases expand exponentially).
MAX_DEPTH = 64
MAX_NODES = 200_000


def load_yaml(text: str, source: str) -> tuple[Any, Context]:
    """Parse YAML text, remembering the line of every mapping key and sequence item.

    A key given twice in one mapping is recorded as a problem in the returned context (YAML
    would keep the last silently).
    """

    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    ctx = Context(source)
    try:
        _check_depth(yaml.parse(text, Loader=loader_cls), source)
        loader = loader_cls(text)
        try:
            node = loader.get_single_node()
            if node is not None:
                _collect_lines(node, ctx)  # before constructing: merge keys change the nodes
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "nesting depth" in problem:
            # libyaml (PyYAML >= 6.0.2 with the C loader) has its own limit, deeper than ours,
            # and its scanner reads a run of brackets ahead of the events _check_depth counts,
            # so it refuses first: give the file's author our limit and reason, not libyaml's.
            raise BadInput(f"{source}{line}: {_too_deep()}") from None
        raise BadInput(f"{source}{line}: not valid YAML: {problem}") from None
    return data, ctx


def _too_deep() -> str:
    return f"nested more than {MAX_DEPTH} levels deep (a chart or scenario needs only a few)"


def _check_depth(events: Iterable[Any], source: str) -> None:
    depth = 0
    for event in events:
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                where = f"{source}:{mark.line + 1}" if mark is not None else source
                raise BadInput(f"{where}: {_too_deep()}")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _collect_lines(root: Any, ctx: Context) -> None:
    stack: list[tuple[Any, PathT]] = [(root, ())]
    for count in itertools.count():
        if not stack:
            return
        if count > MAX_NODES:
            raise BadInput(
                f"{ctx.source}: more than {MAX_NODES} values once its aliases (*name) are "
                "expanded; write the values out, or use fewer aliases of aliases"
            )
        node, path = stack.pop()
        if len(path) > MAX_DEPTH:  # an alias inside its own anchor nests without end
            raise BadInput(
                f"{ctx.source}:{node.start_mark.line + 1}: nested more than {MAX_DEPTH} levels "
                "deep through an alias (*name) that refers to itself"
            )
        ctx.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key_node, value_node in node.value:
                key = key_node.value
                if not isinstance(key, str):
                    continue  # a list or mapping as a key: constructing the data refuses it
                line = key_node.start_mark.line + 1
                ctx.lines[(*path, key)] = line
                if key in first:
                    ctx.error(
                        (*path, key),
                        f"key {key!r} is given twice (first on line {first[key]}); "
                        "give each key once",
                    )
                first.setdefault(key, line)
                stack.append((value_node, (*path, key)))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, (*path, i)) for i, item in enumerate(node.value))


def read_yaml_file(path: Path, shown_as: str | None = None) -> tuple[Any, Context]:
    name = shown_as or path.name
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInput(f"{name!r}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{name!r}: cannot be read ({exc.__class__.__name__})") from None
    return load_yaml(text, name)
