"""The user's cache folder, where tabletop keeps what it worked out once and a later process
may load instead of working it out again: compiled charts (``data/compiled.py``) and the
compiled ``__init__`` of each frozen dataclass (``core/frozen.py``).

``$TABLETOP_CACHE``, else ``$XDG_CACHE_HOME/tabletop``, else ``~/.cache/tabletop``: not beside
the package, so a read-only install and a CI runner work alike. Everything kept there is an
optimisation only: a copy that is missing, unreadable or cannot be written is simply worked
out again. Text paths (``os.path``), not ``pathlib``: this runs as every command starts.
"""

from __future__ import annotations

import contextlib
import os

ENV = "TABLETOP_CACHE"


def cache_dir() -> str | None:
    """Where kept copies go, or None when no folder can be named."""
    given = os.environ.get(ENV)
    if given:
        return given
    base = os.environ.get("XDG_CACHE_HOME")
    if base:
        return os.path.join(base, "tabletop")
    home = os.path.expanduser("~")
    if home == "~":  # no home folder
        return None
    return os.path.join(home, ".cache", "tabletop")


def write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file of this process renamed into
    place, so two processes writing the same copy at once leave one whole copy. Raises
    ``OSError`` when the folder cannot be written."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
