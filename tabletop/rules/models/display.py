"""A stand's alternative-model state for ``status`` and ``show``: read from the stand's row
alone (``stand["models"][model]``), so status needs neither charts nor scenario.

Each record holds the model's own facts (suppression, state, men or vehicles left, guns out,
immobilised, morale state, aggression factor...) and, beside a fact, ``<fact>_rule``: the rule
that last set it. ``fire`` is the stand's last fire under the model (turn, phase, target and
how many pulses in a row at that target).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.core.words import count

# Facts shown first, in this order; any other key of a record follows in its own order.
FIRST = ("suppression", "state", "morale_state", "effectiveness", "men", "left", "killed")
HIDDEN = frozenset({"turn", "phase", "fire", "rule"})


def stand_models(stand: Mapping[str, Any]) -> dict[str, Any]:
    """``{model: {"facts": {...}, "rules": {fact: rule}, "last_fire": {...} | None}}``."""
    out: dict[str, Any] = {}
    for model, record in sorted((stand.get("models") or {}).items()):
        if not isinstance(record, dict) or not record:
            continue
        facts = {
            k: v
            for k, v in record.items()
            if k not in HIDDEN and not k.endswith("_rule") and v is not None
        }
        ordered = {k: facts[k] for k in FIRST if k in facts}
        ordered.update({k: v for k, v in facts.items() if k not in ordered})
        rules = {k[: -len("_rule")]: v for k, v in record.items() if k.endswith("_rule") and v}
        if record.get("rule"):
            rules.setdefault("record", record["rule"])
        out[model] = {"facts": ordered, "rules": rules, "last_fire": record.get("fire")}
    return out


def stand_model_lines(stand: Mapping[str, Any]) -> list[str]:
    """One line a model: its facts, each with the rule that set it, then its last fire."""
    return model_lines(stand_models(stand))


def model_lines(models: dict[str, Any]) -> list[str]:
    """The lines of ``stand_models``' result (status renders them from its JSON)."""
    lines = []
    for model, info in models.items():
        parts = []
        for key, value in info["facts"].items():
            text = f"{key.replace('_', ' ')} {_value(value)}"
            if key in info["rules"]:
                text += f" [{info['rules'][key]}]"
            parts.append(text)
        fire = info["last_fire"]
        if fire:
            shots = fire.get("shots")
            parts.append(
                f"last fired turn {fire.get('turn')} {fire.get('phase')} at {fire.get('target')}"
                + (f", {count(fire['streak'], 'pulse')} in a row" if fire.get("streak") else "")
                + (f", {count(shots, 'shot')}" if shots is not None else "")
            )
        if "record" in info["rules"]:
            parts.append(f"set by {info['rules']['record']}")
        if parts:
            lines.append(f"{model}: " + "; ".join(parts))
    return lines


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value(v)}" for k, v in value.items())
    return str(value)
