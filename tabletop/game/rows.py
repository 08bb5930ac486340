"""Light reads of a game file: the state rows, the game row and the log, straight from the
store, with the file closed again at once, for commands and completions that need neither the
scenario, the charts nor the table's geometry (``status``, the referee's ``show`` and ``log``,
shell completion, the session noticing another writer). Importing this module loads no shapely
or numpy.
"""

from __future__ import annotations

from contextlib import closing

from tabletop.state.store import EventRow, GameFile, GameRow, Store


def read_rows(path: GameFile) -> tuple[dict[str, str], GameRow]:
    """Every state row and the game row."""
    with closing(Store.open(path)) as store:
        return store.rows(), store.game()


def read_events(
    path: GameFile, *, stand: str | None = None, last: int | None = None
) -> list[EventRow]:
    """The log in order (only events involving ``stand``; only the ``last`` N), as logged."""
    with closing(Store.open(path)) as store:
        return store.events(stand=stand, last=last)


def read_row(path: GameFile, key: str) -> str | None:
    """One state row (``meta``, ``stand:G-1``), or None."""
    with closing(Store.open(path)) as store:
        return store.row(key)


def read_row_and_game(path: GameFile, key: str) -> tuple[str | None, GameRow]:
    with closing(Store.open(path)) as store:
        return store.row(key), store.game()


def read_if_changed(path: GameFile, head: str | None) -> tuple[str, dict[str, str] | None]:
    """The log's head (the last event's hash) and, when it is not ``head``, the state rows:
    how a warm session notices another process writing the same game."""
    with closing(Store.open(path)) as store:
        now = store.last_hash()
        return now, (None if now == head else store.rows())


def read_head(path: GameFile) -> tuple[int, str]:
    """The log's last event, its number and hash, read without writing anything: how
    ``tabletop serve`` notices a command logged in any process."""
    with closing(Store.open_read_only(path)) as store:
        return store.next_seq() - 1, store.last_hash()
