"""Chart files compiled once: what reading a set of YAML files gave, kept on disk under the
hash of those files' bytes, so a later process loads it in about a millisecond instead of
parsing the YAML again (150 to 250 ms for the bundled charts).

The key is a SHA-256 of every file's name and bytes, of the Python version and of the
chart-reading code itself (each source file's size and modification time), so an edited,
added or removed chart file, or a new version of the program, is never answered from a
stale copy: it is simply read again. The copies live in the user's cache folder
(``$TABLETOP_CACHE``, else ``$XDG_CACHE_HOME/tabletop``, else ``~/.cache/tabletop``), not
beside the package, so a read-only install and a CI runner work alike; when that folder
cannot be written nothing is kept and every process reads the YAML, as before.

The copies are ``marshal`` data (plain dicts, lists, text and numbers: no code, no
classes), written to a temporary file and renamed into place, so two processes writing the
same key at once leave one whole copy. A copy that cannot be read is ignored and replaced.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tabletop.core import cache as core_cache
from tabletop.data.charts import Charts
from tabletop.data.resources import charts_dir

ENV = core_cache.ENV
KEEP = 16  # compiled copies kept; the oldest go when a new one is written
_CODE = Path(__file__).resolve().parent  # tabletop/data: the code that reads and checks charts


def cache_dir() -> Path | None:
    """Where compiled copies are kept (``core/cache.py``), or None when no folder can be
    named."""
    folder = core_cache.cache_dir()
    return None if folder is None else Path(folder)


def _code_stamp() -> bytes:
    """The chart-reading code as it is now: what a copy was compiled with."""
    parts = [f"{sys.version_info[:2]}", str(marshal.version)]
    for path in sorted(_CODE.rglob("*.py")):
        st = path.stat()
        parts.append(f"{path.relative_to(_CODE)}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts).encode()


def key(kind: str, files: Iterable[tuple[str, bytes]]) -> str:
    """The key of a compiled copy: what is compiled (``kind``) and every file it is read from,
    each as a name and its bytes, in the order they are read."""
    h = hashlib.sha256(kind.encode() + b"\0" + _code_stamp())
    for name, data in files:
        h.update(b"\0%d:%s\0" % (len(data), name.encode()))
        h.update(data)
    return h.hexdigest()[:40]


def load(ident: str) -> Any:
    """The compiled copy kept under ``ident``, or None (none kept, or unreadable)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        data = (folder / f"charts-{ident}.marshal").read_bytes()
        return marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return None


def keep(ident: str, value: Any) -> None:
    """Keep ``value`` under ``ident``; silently nothing when the cache cannot be written."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        core_cache.write_atomically(str(folder / f"charts-{ident}.marshal"), marshal.dumps(value))
        _prune(folder)
    except (OSError, ValueError):
        return  # read-only or full: the YAML is read each time, as without a cache


def _prune(folder: Path) -> None:
    copies = sorted(folder.glob("charts-*.marshal"), key=lambda p: p.stat().st_mtime_ns)
    for old in copies[:-KEEP]:
        old.unlink(missing_ok=True)


def known_charts(overlays: tuple[Path, ...]) -> tuple[Charts | None, str | None]:
    """The charts of the bundled folder with ``overlays``, from their compiled copy when
    the same files loaded and checked before (a game's trusted rebuild: no YAML, no checks),
    else None; and the key to keep them under once they have (None: a file is unreadable)."""
    files = chart_files(overlays)
    if files is None:
        return None, None
    ident = key("charts", files)
    raw = load(ident)
    return (Charts(raw, trusted=True) if isinstance(raw, dict) else None), ident


def chart_files(overlays: tuple[Path, ...]) -> list[tuple[str, bytes]] | None:
    """Every chart file of the bundled folder and the overlays, named by its folder's place
    and its own name, with its bytes; None when one cannot be read."""
    files: list[tuple[str, bytes]] = []
    for index, folder in enumerate((charts_dir(), *overlays)):
        found = folder_files(folder)
        if found is None:
            return None
        files += [(f"{index}/{name}", data) for name, data in found]
    return files


def folder_files(folder: Path) -> tuple[tuple[str, bytes], ...] | None:
    """Every chart file of one folder (``*.yaml`` and ``models/*.yaml``), by name, with its
    bytes; None when the folder cannot be read."""
    if not folder.is_dir():
        return None
    try:
        paths = sorted([*folder.glob("*.yaml"), *folder.glob("models/*.yaml")])
        return tuple((str(p.relative_to(folder)), p.read_bytes()) for p in paths)
    except OSError:
        return None
