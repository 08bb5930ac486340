"""The chart files read from disk: the bundled ``charts/`` folder and a referee's overlay
folders (``--charts DIR``, a scenario's ``charts:``), parsed from YAML and merged into the raw
entry lists ``Charts`` validates.

A new game, the ``charts`` command and every command given ``--charts`` read them; a command
over a stored game rebuilds its charts from the copy kept in the game file instead, so it
imports neither this module nor PyYAML.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from tabletop.core.errors import BadInput, ChartError
from tabletop.core.spelling import did_you_mean
from tabletop.data import compiled
from tabletop.data.charts import (
    CHART_SCHEMAS,
    Charts,
    Origin,
    Origins,
    Raw,
    entry_id,
    overlay_with_origins,
)
from tabletop.data.resources import charts_dir
from tabletop.data.schema import Context, PathT
from tabletop.data.yaml_text import read_yaml_file


def load_charts(overlays: tuple[Path, ...] = ()) -> Charts:
    """The bundled charts with the overlay folders applied in order, validated.

    Problems reading the files and problems in their values are reported together. Charts
    that loaded and checked before from the very same files (compared by their bytes) come
    from their compiled copy (``data/compiled.py``) without YAML or checks."""
    known, ident = compiled.known_charts(overlays)
    if known is not None:
        return known
    problems: list[str] = []
    raw, origins = read_charts(overlays, problems)
    try:
        charts = Charts(raw, origins)
    except ChartError as exc:
        raise ChartError(problems + exc.problems) from None
    if problems:
        raise ChartError(problems)
    if ident is not None:
        compiled.keep(ident, raw)
    return charts


# Parsed chart folders, newest last: (folder, required, chart names, every YAML file's
# name and contents) -> the pickled result of reading it. YAML parsing is most of the cost
# of loading charts (a fresh game, ``new``, every command with ``--charts``), and a process
# (the test suite, a long-running caller) reads the same folder again and again. Keyed by
# contents, so an edited, added or removed chart file is read afresh.
_PARSED: dict[tuple[object, ...], bytes] = {}
_PARSED_MAX = 8


def _folder_key(folder: Path, required: bool) -> tuple[object, ...] | None:
    contents = compiled.folder_files(folder)
    if contents is None:
        return None  # unreadable: read it the slow way, which reports the problem
    return (str(folder.resolve()), required, tuple(CHART_SCHEMAS), contents)


def read_raw(
    folder: Path,
    problems: list[str],
    *,
    required: bool,
    origins: dict[str, list[Origin]] | None = None,
) -> Raw:
    """Read every known chart file in ``folder`` into plain entry lists.

    ``origins``, when given, receives for each chart where each of its entries was read.
    A folder read before with the same files is not parsed again (a fresh copy is returned).
    """
    key = _folder_key(folder, required)
    cached = _PARSED.get(key) if key is not None else None
    if cached is None:
        found: dict[str, list[Origin]] = {}
        met: list[str] = []
        raw = _parsed_folder(folder, key, met, required=required, origins=found)
        cached = pickle.dumps((raw, met, found), protocol=pickle.HIGHEST_PROTOCOL)
        if key is not None:
            if len(_PARSED) >= _PARSED_MAX:
                del _PARSED[next(iter(_PARSED))]  # the oldest
            _PARSED[key] = cached
    fresh: tuple[Raw, list[str], dict[str, list[Origin]]] = pickle.loads(cached)
    problems.extend(fresh[1])
    if origins is not None:
        origins.update(fresh[2])
    return fresh[0]


def _parsed_folder(
    folder: Path,
    key: tuple[object, ...] | None,
    problems: list[str],
    *,
    required: bool,
    origins: dict[str, list[Origin]],
) -> Raw:
    """``_read_raw`` of one folder, from its compiled copy when its files were parsed before
    (by any process: the copy is kept on disk under the hash of their bytes)."""
    ident = None
    if key is not None:
        contents: Any = key[3]
        ident = compiled.key(f"folder:{folder.name}:{required}", contents)
        known = compiled.load(ident)
        if isinstance(known, tuple) and len(known) == 3:
            raw, met, found = known
            problems.extend(met)
            for name, given in found.items():
                origins[name] = [Origin(*o) for o in given]
            return dict(raw)
    met = []
    raw = _read_raw(folder, met, required=required, origins=origins)
    problems.extend(met)
    if ident is not None:
        plain = {n: [(o.file, o.position, o.lines, o.hint) for o in g] for n, g in origins.items()}
        compiled.keep(ident, (raw, met, plain))
    return raw


def _read_raw(
    folder: Path,
    problems: list[str],
    *,
    required: bool,
    origins: dict[str, list[Origin]],
) -> Raw:
    raw: Raw = {}
    files = [(name, folder / f"{name}.yaml") for name in CHART_SCHEMAS]
    # Alternative models keep their charts in models/<chart>.yaml (SPEC 5).
    files += [(f"models/{p.stem}", p) for p in sorted((folder / "models").glob("*.yaml"))]
    for name, path in files:
        shown = f"{folder.name}/{name}.yaml"
        if not path.is_file():
            if required:
                problems.append(f"{shown}: missing chart file")
            continue
        try:
            data, ctx = read_yaml_file(path, shown)
        except BadInput as exc:  # unreadable or malformed YAML
            problems.append(str(exc))
            continue
        problems.extend(ctx.problems)  # keys given twice
        if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
            problems.append(f"{shown}: expected a mapping with an 'entries' list")
            continue
        extra = set(data) - {"entries"}
        if extra:
            keys = "key" if len(extra) == 1 else "keys"
            problems.append(
                f"{shown}: unknown top-level {keys} {sorted(map(str, extra))} (accepted: entries)"
            )
        entries: list[Any] = []
        kept: list[Origin] = []
        first: dict[str, Origin] = {}
        for entry, origin in zip(
            data["entries"], _entry_origins(shown, len(data["entries"]), ctx), strict=True
        ):
            ident = entry_id(entry)
            if ident is not None and ident in first:
                # Caught here, as an overlay would silently merge a second entry into the first.
                where = Context(shown, origin.lines, label=f"entry {ident!r}")
                where.error(
                    ("id",),
                    f"duplicate id {ident!r}: each entry needs its own id "
                    f"(the first is at line {first[ident].lines.get(())})",
                )
                problems.extend(where.problems)
                continue
            if ident is not None:
                first[ident] = origin
            entries.append(entry)
            kept.append(origin)
        raw[name] = entries
        origins[name] = kept
    if not required:
        known = {f"{n}.yaml" for n in CHART_SCHEMAS}
        for path in sorted(folder.glob("*.yaml")):
            if path.name not in known:
                close = did_you_mean(path.name, known)
                problems.append(
                    f"{folder.name}/{path.name}: not a chart this program knows "
                    f"(known: {', '.join(sorted(known))}){close}"
                )
    return raw


def _entry_origins(shown: str, count: int, ctx: Context) -> list[Origin]:
    lines: list[dict[PathT, int]] = [{} for _ in range(count)]
    for path, line in ctx.lines.items():
        if len(path) >= 2 and path[0] == "entries" and isinstance(path[1], int):
            lines[path[1]][path[2:]] = line
    return [Origin(shown, i + 1, lines[i]) for i in range(count)]


def read_charts(overlays: tuple[Path, ...], problems: list[str]) -> tuple[Raw, Origins]:
    """The bundled charts with the overlay folders applied in order, and where each entry
    came from. Problems reading the files are appended to ``problems``."""
    found: dict[str, list[Origin]] = {}
    raw = read_raw(charts_dir(), problems, required=True, origins=found)
    origins: Origins = {name: dict(enumerate(given)) for name, given in found.items()}
    for folder in overlays:
        if not folder.is_dir():
            problems.append(f"--charts {str(folder)!r}: not a folder")
            continue
        found = {}
        extra = read_raw(folder, problems, required=False, origins=found)
        raw = overlay_with_origins(raw, extra, origins, found)
    return raw, origins


def load_raw(overlays: tuple[Path, ...] = ()) -> Raw:
    """The bundled charts with the overlay folders applied in order."""
    problems: list[str] = []
    raw, _ = read_charts(overlays, problems)
    if problems:
        raise ChartError(problems)
    return raw
