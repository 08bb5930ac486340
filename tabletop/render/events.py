"""A logged event as the log shows it in JSON (``log --json``, the players' pages)."""

from __future__ import annotations

from typing import Any

from tabletop.core.words import inputs_text


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


def event_text(ev: dict[str, Any]) -> str:
    """An event (as ``event_json`` gives it) as ``log`` prints it: what was done and what
    came of it, then its dice on a line of their own."""
    verdict = ev["result"].get("verdict") if isinstance(ev["result"], dict) else None
    head = f"#{ev['seq']} turn {ev['turn']} {ev['phase']}: {ev['command']}"
    args = inputs_text(ev["inputs"])
    line = f"{head} {args}".rstrip()
    if verdict:
        line += f" -> {verdict}"
    elif "undoes" in ev and ev["command"] == "redo":
        line += f" -> redid #{ev['result'].get('redid')} ({ev['result'].get('command')})"
    elif "undoes" in ev:
        line += f" -> undid #{ev['undoes']} ({ev['result'].get('command')})"
    if ev["rolls"]:
        line += f"\n    dice: {rolls_text(ev['rolls'])}"
    return line


def rolls_text(rolls: list[Any]) -> str:
    """``7 (to-hit 1 of 2), 3* (...)``; physical rolls are starred."""
    out = []
    for r in rolls:
        d = r if isinstance(r, dict) else r.as_dict()
        star = "*" if d["source"] == "physical" else ""
        out.append(f"{d['value']}{star}" + (f" ({d['purpose']})" if d.get("purpose") else ""))
    return ", ".join(out)
