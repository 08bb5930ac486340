"""One summary of odds for every command that has them (``--odds``, ``tabletop odds ...``).

Whatever worked the odds out (fire's own ``fire_odds``, a barrage's template, the game's
enumeration of any rolling command, a drop or a landing part by part), the referee reads one
shape: a title, then each table of chances on a line (``hits: 0 30.0%, 1 70.0%``) or, when
its outcomes are long, one outcome a line, most likely first, a long tail summed; then the
expected values with their units and what the figures assume. ``--json`` keeps each
command's own keys; this module is text only.
"""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import field
from fractions import Fraction
from typing import Any

from tabletop.core.frozen import mutable_dataclass

WIDTH = 80  # a plain terminal, and a printed page
# A table is listed one outcome a line when on one line it would take more than this many
# lines, or when an outcome is longer than this.
INLINE_MOST = 2
INLINE_LONGEST = 28
# Listed one a line: at most this many, and past the first ten only those of at least one in
# a thousand; the rest are summed in one line.
LINES_MOST = 30
LINES_ALWAYS = 10
SMALL = Fraction(1, 1000)


def percent_text(p: Any) -> str:
    """A chance to a tenth of a percent; one that rounds to nothing but can happen is
    "<0.1%", not "0.0%"."""
    if 0 < float(p) < 0.0005:
        return "<0.1%"
    return f"{float(p) * 100:.1f}%"


@mutable_dataclass
class Table:
    """Chances of one thing, in the order the referee reads them."""

    label: str
    chances: dict[str, Fraction]
    depth: int = 0  # 1: a detail of the table above it


@mutable_dataclass
class Summary:
    """What a command's odds say, ready to be read aloud."""

    title: str
    tables: list[Table] = field(default_factory=list)
    # name -> (value, unit): "US-1 losses" -> (6.813, "men")
    expected: dict[str, tuple[Fraction, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # "assumes: ...", "warning: ..."
    lead: list[str] = field(default_factory=list)  # said before the tables


def lines(summary: Summary) -> list[str]:
    out = [f"Odds: {summary.title} (exact; nothing rolled or logged)"]
    for lead in summary.lead:
        out.extend(_wrapped(f"  {lead}"))
    for table in summary.tables:
        out.extend(_table_lines(table))
    if summary.expected:
        values = [
            f"{name} {float(value):.3f}" + (f" {unit}" if unit else "")
            for name, (value, unit) in summary.expected.items()
        ]
        out.extend(_joined("  expected: ", values, "    "))
    for note in summary.notes:
        out.extend(_wrapped(f"  {note}"))
    return out


def _wrapped(text: str, indent: str = "    ") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False) or [""]


def _joined(head: str, items: list[str], indent: str) -> list[str]:
    """``head`` then the items, comma after comma, a line broken only between items."""
    out = [head.rstrip() if not items else head + items[0]]
    for item in items[1:]:
        if len(out[-1]) + 2 + len(item) <= WIDTH:
            out[-1] += ", " + item
        else:
            out[-1] += ","
            out.append(indent + item)
    return out


def _table_lines(table: Table) -> list[str]:
    pad = "  " * (table.depth + 1)
    items = list(table.chances.items())
    if not items:
        return [f"{pad}{table.label}: none"]
    said = [f"{k} {percent_text(p)}" for k, p in items]
    if all(len(k) <= INLINE_LONGEST for k, _ in items):
        inline = _joined(f"{pad}{table.label}: ", said, pad + "  ")
        if len(inline) <= INLINE_MOST:
            return inline
    ranked = sorted(items, key=lambda kv: -kv[1])
    shown = [
        (k, p)
        for i, (k, p) in enumerate(ranked)
        if i < LINES_MOST and (i < LINES_ALWAYS or p >= SMALL)
    ]
    out = [f"{pad}{table.label}:"]
    for k, p in shown:
        out.extend(_wrapped(f"{pad}  {percent_text(p):>6}  {k}", pad + " " * 12))
    if len(shown) < len(ranked):
        rest = sum((p for _, p in ranked[len(shown) :]), Fraction(0))
        out.append(
            f"{pad}  {percent_text(rest):>6}  the {len(ranked) - len(shown)} other outcomes "
            "together (--json lists every one)"
        )
    return out


# --- from what each command works out ---------------------------------------------------------


def from_fire(working: dict[str, Any], odds: dict[str, Any]) -> Summary:
    """Fire's, a barrage's and a model's odds (``rules.cd.odds``, ``model.odds``)."""
    title = str(working["weapon"])
    if "target" in working:
        title += f" at {working['target']}, needs {working['to_hit']} or less, ROF {working['rof']}"
    if "at" in working:
        title += f" at {working['at'][0]:g},{working['at'][1]:g}"
    summary = Summary(title)
    for sid, s in odds.get("stands", {}).items():
        need = f" (needs {s['to_hit']})" if "to_hit" in s else ""
        summary.tables.append(Table(f"{sid}{need}", dict(s["outcomes"])))
    for key in ("outcomes", "hits", "ammunition"):
        if key in odds:
            # A barrage's own outcomes are its one depletion die's (CD 1.1).
            label = "ammunition" if key == "outcomes" and "stands" in odds else key
            summary.tables.append(Table(label, {str(k): v for k, v in odds[key].items()}))
    for k, v in (odds.get("expected") or {}).items():
        summary.expected[k.replace("_", " ")] = (v, "")
    summary.notes.extend(f"warning: {w}" for w in working.get("warnings", []))
    return summary


def from_parts(report: Any) -> Summary:
    """A drop's, a glider landing's or a landing's odds part by part (a ``PartsReport``)."""
    summary = Summary(f"{report.command}, {report.per} by {report.per}")
    for part in report.parts:
        summary.tables.append(Table(part.part, dict(part.outcomes)))
        if part.where:
            summary.tables.append(Table(report.where, dict(part.where), depth=1))
    if not report.parts:
        summary.lead.append("nothing here would be rolled")
    for k, v in report.expected.items():
        summary.expected[k] = (v, "")
    summary.notes.extend(f"assumes: {note}" for note in report.assumes)
    return summary


# Units of the expected values an outcome's fields count, by the field's last word.
UNITS = {"losses": "men"}


def from_report(report: Any) -> Summary:
    """Any rolling command's odds as the game works them out (an ``OddsReport``): its
    outcomes, and when they are made of several things (a stand's losses and fate, each
    depletion die at a phase's end), the chances of each thing on its own. An assault opens
    with who holds the field."""
    summary = Summary(report.command)
    outcomes: dict[str, Fraction] = report.outcomes
    fields: dict[str, dict[str, Any]] = report.fields
    names = list(dict.fromkeys(n for f in fields.values() for n in f))
    # Added up in whole numbers over one common denominator: an assault has a thousand
    # outcomes or more, and as many fractions added for each thing shown were slow.
    common = math.lcm(*(p.denominator for p in outcomes.values()))
    shares = [
        (fields.get(key, {}), p.numerator * (common // p.denominator))
        for key, p in outcomes.items()
    ]
    sums: dict[str, dict[str, int]] = {}
    for name in names:
        counts = sums[name] = {}
        # The same few values come again in every outcome (a stand's losses, its fate).
        words: dict[tuple[type, Any], str] = {}
        for told, n in shares:
            value = told.get(name)
            if value.__class__ in _PLAIN:
                seen = (value.__class__, value)
                word = words.get(seen)
                if word is None:
                    word = words[seen] = _word(value, name)
            else:
                word = _word(value, name)
            counts[word] = counts.get(word, 0) + n
    each = {name: {w: Fraction(n, common) for w, n in t.items()} for name, t in sums.items()}
    held = each.pop("holds the field", None)
    if held is not None:
        likeliest = dict(sorted(held.items(), key=lambda kv: -kv[1]))
        summary.tables.append(Table("holds the field", likeliest))
    # One thing told in words of its own (a minefield attack at a phase's end) reads as its
    # own table too; a yes-or-no (mired) or a plain result (destroyed) as the outcomes.
    alone = [n for n, t in each.items() if n not in ("result", "outcome")]
    worded = len(alone) == 1 and not all(_word_is_bool(k) for k in each[alone[0]])
    several = held is not None or len(each) > 1 or worded
    if not several:
        summary.tables.append(
            Table("outcomes", {_outcome_text(k, fields.get(k)): p for k, p in outcomes.items()})
        )
    else:
        # Made of several things: each on its own (the rule a result cites is in the
        # command's own output; here it would only part the same result in two).
        for name, table in each.items():
            unit = UNITS.get(name.rsplit(" ", 1)[-1])
            merged: dict[str, Fraction] = {}
            for k, v in table.items():
                word = _CITED.sub("", k)
                merged[word] = merged.get(word, Fraction(0)) + v
            if all(_order(k)[0] == 0 for k in merged):
                merged = _likeliest_amounts(merged)
            shown = {(f"{k} {unit}" if unit and k != "other" else k): v for k, v in merged.items()}
            summary.tables.append(Table(name, shown))
        if len(outcomes) > 1 and (held is not None or len(each) > 1):
            summary.notes.append(f"{len(outcomes)} outcomes in all (--json lists every one)")
    for k, v in report.expected.items():
        summary.expected[k.replace("_", " ")] = (v, UNITS.get(k.rsplit(" ", 1)[-1], ""))
    return summary


# Values told in words by their value alone (``from_report`` keeps each one's word).
_PLAIN = (int, str, bool, type(None), float)

# A rule cited at the end of a result: "depleted (CD 1.2)".
_CITED = re.compile(r"\s*\((?:CD|AGG|MB|ToS|SB)\b[^()]*\)$")


AMOUNTS_ALL = 12  # a quantity of at most this many values shows them all (2d6: eleven)
AMOUNTS_MOST = 5


def _likeliest_amounts(table: dict[str, Fraction]) -> dict[str, Fraction]:
    """A quantity's values in order of size; of many, the likeliest (``AMOUNTS_MOST``)
    and the rest as ``other``: ``0 45.4%, 12 49.6%, other 5.0%``."""
    if len(table) <= AMOUNTS_ALL:
        return dict(sorted(table.items(), key=lambda kv: _order(kv[0])))
    ranked = sorted(table.items(), key=lambda kv: -kv[1])
    kept = dict(sorted(ranked[:AMOUNTS_MOST], key=lambda kv: _order(kv[0])))
    rest = sum((p for _, p in ranked[AMOUNTS_MOST:]), Fraction(0))
    if rest:
        kept["other"] = rest
    return kept


def _word_is_bool(word: str) -> bool:
    return word in ("yes", "no")


def _order(word: str) -> tuple[int, float | str]:
    """Numbers in order of size, words as they come (stable sort keeps them)."""
    try:
        return (0, float(word))
    except ValueError:
        return (1, "")


def _word(value: Any, name: str) -> str:
    if value is None:
        return "no" if name.endswith(_FATES) else "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and name.endswith(_FATES):
        return "yes" if value else "no"
    return _outcome_word(value)


# Fields that count a fate (1 when it happened) rather than a quantity.
_FATES = ("retreated", "pursued", "surrendered", "destroyed", "disengaged")


def _outcome_text(key: str, fields: dict[str, Any] | None) -> str:
    """An outcome as a referee reads it: ``hits 1; effects eliminated``, ``not mired``
    (the JSON keeps the outcome's canonical key)."""
    if not fields:
        return key
    parts = []
    for name, value in fields.items():
        name = name.replace("_", " ")
        if isinstance(value, bool):
            parts.append(name if value else f"not {name}")
        elif name in ("result", "outcome") and isinstance(value, str):
            parts.append(value)  # "destroyed", not "result destroyed"
        elif isinstance(value, dict):
            each = ", ".join(f"{k} {_outcome_word(v)}" for k, v in value.items())
            parts.append(f"{name}: {each or 'none'}")
        elif isinstance(value, list | tuple):
            parts.append(f"{name} {', '.join(_outcome_word(v) for v in value) or 'none'}")
        else:
            parts.append(f"{name} {_outcome_word(value)}")
    return "; ".join(parts)


def _outcome_word(value: Any) -> str:
    from tabletop.core.words import input_value

    if isinstance(value, dict):
        return ", ".join(f"{k} {_outcome_word(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list | tuple):
        return ", ".join(_outcome_word(v) for v in value) or "none"
    return input_value(value)
