"""A logged event as the log shows it in JSON (``log --json``, the players' pages)."""

from __future__ import annotations

from typing import Any


def event_json(ev: Any, physical_only: bool = False) -> dict[str, Any]:
    """One logged event as ``log --json`` gives it (with ``physical_only``, only its
    rolls from physical dice). ``ev`` is an event as stored or as a side may read it
    (``rules.views.EventView``)."""
    rolls = [r for r in ev.rolls if r["source"] == "physical"] if physical_only else ev.rolls
    out = {
        "seq": ev.seq,
        "turn": ev.turn,
        "phase": ev.phase,
        "command": ev.command,
        "inputs": ev.inputs,
        "rolls": rolls,
        "result": ev.result,
    }
    if ev.undoes is not None:
        out["undoes"] = ev.undoes
    return out
