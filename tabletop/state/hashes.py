"""The hashes of a game's log: of the state after each event, of each event chained to the
one before it, and of the scenario and charts a game began with. Apart from the store, so a
command that only reads a game (``status``, ``targets``) does not load ``hashlib`` (and the
OpenSSL library under it); the engine, which writes and checks the log, imports them from
here."""

from __future__ import annotations

import hashlib
from typing import Any

from tabletop.state.store import EVENT_FIELDS, canonical


def state_hash(rows: dict[str, str]) -> str:
    digest = hashlib.sha256()
    for key in sorted(rows):
        digest.update(key.encode())
        digest.update(b"\t")
        digest.update(rows[key].encode())
        digest.update(b"\n")
    return digest.hexdigest()


def event_hash(prev_hash: str, event: dict[str, Any]) -> str:
    body = canonical({k: event[k] for k in EVENT_FIELDS})
    return hashlib.sha256((prev_hash + body).encode()).hexdigest()


def text_hash(text: str) -> str:
    """The SHA-256 of a text (a scenario's, the charts' JSON), as the first event records it."""
    return hashlib.sha256(text.encode()).hexdigest()
