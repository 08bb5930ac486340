"""The hashes of a game's log: of the state after each event, of each event chained to the
one before it, and of the scenario and charts a game began with. Apart from the store, so a
command that only reads a game (``status``, ``targets``) does not load them; the engine,
which writes and checks the log, imports them from here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tabletop.state.store import EVENT_FIELDS, canonical

if TYPE_CHECKING:
    from hashlib import sha256
else:
    try:
        # CPython's own SHA-256, which gives the same digests as ``hashlib.sha256``: that one
        # loads the OpenSSL library first (1 to 3 ms of every command that opens the engine,
        # an odds question too, which writes nothing).
        from _sha2 import sha256  # CPython 3.12 on
    except ImportError:
        try:
            from _sha256 import sha256  # CPython 3.11
        except ImportError:  # an interpreter without CPython's own modules
            from hashlib import sha256


def state_hash(rows: dict[str, str]) -> str:
    digest = sha256()
    for key in sorted(rows):
        digest.update(key.encode())
        digest.update(b"\t")
        digest.update(rows[key].encode())
        digest.update(b"\n")
    return digest.hexdigest()


def event_hash(prev_hash: str, event: dict[str, Any]) -> str:
    body = canonical({k: event[k] for k in EVENT_FIELDS})
    return sha256((prev_hash + body).encode()).hexdigest()


def text_hash(text: str) -> str:
    """The SHA-256 of a text (a scenario's, the charts' JSON), as the first event records it."""
    return sha256(text.encode()).hexdigest()
