"""The after-action report: the battle from the event log, turn by turn.

``build_report`` reads the log (leaving out undone commands and the undos themselves) and
the game's present state, and returns a ``Report``: the narrative of each turn (fire and
its results, losses, ammunition depleted and spent, engineering, weather), totals per side,
and how the dice ran. ``markdown`` and ``html`` write it out; both are built from the same
list of blocks, so the two formats always say the same thing.
"""

from __future__ import annotations

import html as html_lib
from collections.abc import Callable, Iterable
from dataclasses import field
from typing import Any

from tabletop.core.frozen import mutable_dataclass
from tabletop.core.words import count, inputs_text, possessive
from tabletop.render.dicestats import summarise

# Commands whose work is engineering in the broad sense (CD 2-6), whatever their sub-command.
ENGINEERING_PREFIXES = ("engineer", "minefield", "structure", "airborne", "amphibious")
WEATHER_WHATS = ("variable wind", "mist and fog", "rain", "snow", "weather")
QUIET_WHATS = ("phase", "turn")
# Who fired, in a side's report, when the side never saw the firer (its log leaves it out).
UNSEEN = "a stand not seen"  # boundaries themselves: the narrative is already grouped

# What the report totals: the event key, its label, and the label for a count of one
# (a turn's summary says "1 shot", "2 shots").
TOTAL_KEYS = (
    ("shots", "shots", "shot"),
    ("hits", "hits scored", "hit scored"),
    ("eliminated", "stands lost", "stand lost"),
    ("forced back", "forced back", "forced back"),
    ("suppressed", "suppressed", "suppressed"),
    ("depletion checks", "depletion dice", "depletion die"),
    ("depleted", "weapons depleted", "weapon depleted"),
    ("spent", "limited rounds spent", "limited round spent"),
    ("resupplied", "resupplied", "resupplied"),
    ("engineering", "engineering", "engineering"),
)


@mutable_dataclass
class Entry:
    seq: int
    turn: int
    phase: str
    command: str
    text: str
    kind: str  # fire, barrage, boundary, move, weather, engineering, other

    def as_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "turn": self.turn,
            "phase": self.phase,
            "command": self.command,
            "kind": self.kind,
            "text": self.text,
        }


@mutable_dataclass
class Report:
    name: str
    scenario: str
    seed: int | None  # None in a side's view: the seed would give away generated rolls
    events: int
    undone: int
    sides: list[str]
    entries: list[Entry] = field(default_factory=list)
    totals: dict[str, dict[str, int]] = field(default_factory=dict)
    by_turn: dict[int, dict[str, int]] = field(default_factory=dict)
    losses_now: dict[str, list[str]] = field(default_factory=dict)
    dice: dict[str, Any] = field(default_factory=dict)
    turn: int = 0
    phase: str = ""
    view: str = "referee"

    def turns(self) -> list[int]:
        return sorted({e.turn for e in self.entries})

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "view": self.view,
            "scenario": self.scenario,
            "seed": self.seed,
            "events": self.events,
            "undone": self.undone,
            "now": {"turn": self.turn, "phase": self.phase},
            "turns": [
                {
                    "turn": t,
                    "summary": self.by_turn.get(t, {}),
                    "entries": [e.as_json() for e in self.entries if e.turn == t],
                }
                for t in self.turns()
            ],
            "totals": self.totals,
            "eliminated_now": self.losses_now,
            "dice": {
                **{k: v for k, v in self.dice.items() if k != "by_die"},
                "by_die": [s.as_json() for s in self.dice.get("by_die", [])],
            },
        }


# --- reading the log ------------------------------------------------------------------------


class _Tally:
    def __init__(self, sides: list[str], side_of: dict[str, str]):
        self.side_of = side_of
        self.totals = {side: {key: 0 for key, _, _ in TOTAL_KEYS} for side in sides}
        self.by_turn: dict[int, dict[str, int]] = {}

    def add(
        self, turn: int, stand: str | None, key: str, amount: int = 1, side: str | None = None
    ) -> None:
        """Count ``amount`` for the side of ``stand`` (or ``side`` when no stand acted).

        Nothing is counted for a side that is not known (a battery a side never saw, taken
        out of its log): each turn's summary adds up to the totals by side."""
        if amount == 0:
            return
        side = self.side_of.get(stand or "") or (side if side in self.totals else None)
        if side is None:
            return
        self.totals.setdefault(side, {k: 0 for k, _, _ in TOTAL_KEYS})
        self.totals[side][key] = self.totals[side].get(key, 0) + amount
        row = self.by_turn.setdefault(turn, {})
        row[key] = row.get(key, 0) + amount


def build_report(
    game: Any,
    progress: Callable[[int], None] | None = None,
    view: str = "referee",
    known: Any = None,
) -> Report:
    """The report of ``game`` (an open ``Game``) as ``view`` may read it; ``progress(n)``
    after each n events read.

    A side's report is built from its own log (``Game.events_for``): its acts, the table's
    events, the enemy's acts done in plain view; its losses, and the enemy's among the
    stands it has seen.
    """
    from tabletop.game.engine import undone_actions

    state = game.state()
    info = game.info
    sides = game.loaded.scenario.side_names()
    side_of = {s["id"]: s["side"] for s in state.stands()}
    if view == "referee":
        events: list[Any] = game.events()
    else:
        known = known if known is not None else game.knowledge(view)
        events = game.events_for(known)
    undone = undone_actions(events)  # what undo took back and redo did not put back
    report = Report(
        name=info.name,
        scenario=info.scenario_source,
        seed=info.seed if view == "referee" else None,
        events=len(events),
        undone=len(undone),
        sides=sides,
        turn=state.turn,
        phase=state.phase,
        view=view,
    )
    tally = _Tally(sides, side_of)
    rolls: list[dict[str, Any]] = []
    for done, ev in enumerate(events, start=1):
        if progress is not None:
            progress(done)
        if ev.kind == "undo" or ev.seq in undone:
            continue
        rolls.extend(ev.rolls)
        report.entries.extend(_entries(ev, tally))
    report.totals = tally.totals
    report.by_turn = tally.by_turn
    report.losses_now = {
        side: [
            s["id"]
            for s in state.stands()
            if s["side"] == side
            and s["status"] == "eliminated"
            and (known is None or known.knows_of(s["id"]))
        ]
        for side in sides
    }
    report.dice = summarise(rolls)
    return report


def _entries(ev: Any, tally: _Tally) -> list[Entry]:
    result = ev.result if isinstance(ev.result, dict) else {}
    inputs = ev.inputs if isinstance(ev.inputs, dict) else {}

    def entry(text: str, kind: str) -> Entry:
        return Entry(ev.seq, ev.turn, ev.phase, ev.command, text, kind)

    if ev.command == "new":
        stands = f", {result['stands']} stands" if result.get("stands") is not None else ""
        return [entry(f"the game begins: {result.get('name')}{stands}", "other")]
    if ev.command == "fire":
        return [entry(_fire(result, ev.turn, tally), "fire")]
    if ev.command == "barrage":
        return [entry(_barrage(result, ev.turn, tally), "barrage")]
    if ev.command == "model-fire":
        return [entry(_model_fire(inputs, result, ev.turn, tally), "fire")]
    if ev.command == "assault":
        return [entry(_assault(result, ev.turn, tally), "fire")]
    if ev.command == "place":
        moved = result.get("moved")
        far = f' ({moved:g}")' if isinstance(moved, int | float) and moved else ""
        return [entry(f"{result.get('stand')} to {_xy(result)}{far}", "move")]
    if ev.command in ("phase-next", "turn-next"):
        return [entry(text, kind) for text, kind in _boundary(result, ev.turn, tally)]
    if ev.command == "batch":
        # Each item is one stand's act, reported as that command alone would be.
        name = str(inputs.get("command") or result.get("command"))
        items = [i for i in result.get("items") or [] if isinstance(i, dict)]
        one = [
            _entries(_item(ev, name, i, item), tally)
            for i, item in zip(inputs.get("items") or [{}] * len(items), items, strict=False)
        ]
        return [e for entries in one for e in entries]
    if ev.command == "resupply":
        if result.get("restored"):
            tally.add(ev.turn, result.get("stand"), "resupplied")
        return [entry(_generic(ev.command, inputs, result), "other")]
    if ev.command == "roll" and "values" in result:
        values = " ".join(str(v) for v in result["values"])
        why = result.get("purpose") or "referee roll"
        return [
            entry(
                f"{why}: {result.get('dice')} rolled {values} (total {result.get('total')})",
                "other",
            )
        ]
    if ev.command.startswith("weather"):
        return [entry(str(result.get("verdict") or ev.command), "weather")]
    if ev.command.startswith(ENGINEERING_PREFIXES):
        # minefields placed and pregame works name a side, not a stand
        side = inputs.get("side") or result.get("side")
        tally.add(ev.turn, _actor(inputs, result), "engineering", side=side)
        return [entry(_generic(ev.command, inputs, result), "engineering")]
    return [entry(_generic(ev.command, inputs, result), "other")]


def _item(ev: Any, command: str, inputs: Any, result: Any) -> Any:
    """One item of a batch, read as an event of its own command (same seq, turn, phase)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        seq=ev.seq, turn=ev.turn, phase=ev.phase, command=command, inputs=inputs, result=result
    )


def _fire(result: dict[str, Any], turn: int, tally: _Tally) -> str:
    shooter, target = result.get("shooter"), result.get("target")
    tally.add(turn, shooter, "shots")
    hits = int(result.get("hits") or 0)
    tally.add(turn, shooter, "hits", hits)
    for effect in result.get("effects") or []:
        if effect in ("eliminated", "forced back", "suppressed"):
            tally.add(turn, target, effect)
    text = f"{shooter or UNSEEN} fires at {target}: {result.get('verdict', '')}"
    spent = _spent_notes(result)
    return text + (f"; {spent}" if spent else "")


def _barrage(result: dict[str, Any], turn: int, tally: _Tally) -> str:
    shooter = result.get("shooter")
    tally.add(turn, shooter, "shots")
    hits = result.get("hits") or {}
    tally.add(turn, shooter, "hits", sum(int(n) for n in hits.values()))
    effects = result.get("effects") or {}
    for stand, effect in effects.items():
        if effect in ("eliminated", "forced back", "suppressed"):
            tally.add(turn, stand, effect)
    verdict = result.get("verdict")
    if verdict:
        text = f"{shooter or UNSEEN}: {verdict}"
    else:
        # A side's own barrage whose fall it does not see: its view keeps where it was aimed,
        # not what it did (rules.views), and the line says so rather than end in nothing.
        at: list[float] = result.get("at") or []
        aim = f" at {at[0]:g},{at[1]:g}" if len(at) == 2 else ""
        text = f"{shooter or UNSEEN} fires a barrage{aim}: what it did is not seen"
    if effects:
        text += " (" + ", ".join(f"{s} {e}" for s, e in effects.items()) + ")"
    spent = _spent_notes(result)
    return text + (f"; {spent}" if spent else "")


def _model_fire(inputs: dict[str, Any], result: dict[str, Any], turn: int, tally: _Tally) -> str:
    """Fire resolved by an alternative model: the stands are the inputs' (the result names
    the models' profiles); each model reports its hits in its own words."""
    shooter, target = inputs.get("shooter"), inputs.get("target")
    tally.add(turn, shooter, "shots")
    hits = result.get("hits", result.get("killed"))
    if hits is None:
        hits = 1 if result.get("hit") else 0
    tally.add(turn, shooter, "hits", int(hits) if isinstance(hits, int | float) else 0)
    if result.get("target_eliminated"):
        tally.add(turn, target, "eliminated")
    model = result.get("model") or inputs.get("model")
    return f"{shooter} fires at {target} ({model}): {result.get('verdict', '')}"


def _assault(result: dict[str, Any], turn: int, tally: _Tally) -> str:
    """Close combat (the aggression model): shots and hits each round, then who retreated
    (forced back), surrendered or was destroyed (lost)."""
    for combat_round in result.get("combat") or []:
        for shot in combat_round.get("shots") or []:
            tally.add(turn, shot.get("shooter"), "shots")
            if shot.get("hit"):
                tally.add(turn, shot.get("shooter"), "hits")
    for retreat in result.get("retreated") or []:
        tally.add(turn, retreat.get("stand"), "forced back")
    for key in ("surrendered", "eliminated"):
        for stand in result.get(key) or []:
            tally.add(turn, stand if isinstance(stand, str) else stand.get("stand"), "eliminated")
    attackers = ", ".join(result.get("attackers") or [])
    defenders = ", ".join(result.get("defenders") or [])
    return f"{attackers} assault {defenders}: {result.get('verdict', '')}"


def _spent_notes(result: dict[str, Any]) -> str:
    notes = [str(n) for n in result.get("ammunition") or [] if "spent" in str(n)]
    return "; ".join(notes)


def _boundary(result: dict[str, Any], turn: int, tally: _Tally) -> list[tuple[str, str]]:
    """What a boundary did. All of it stays with the turn the command was typed in, as the
    log has it (one event, one turn); what follows "turn N begins" (weather rolls, markers
    cleared) or "morale phase begins" (night orders) says so: it came at the start of what
    followed, not at the end of the phase the line is dated by."""
    out = []
    began = ""
    for item in result.get("happened") or []:
        if not isinstance(item, dict):
            continue
        what = str(item.get("what", ""))
        if what == "turn" or (what == "phase" and not began):
            # A turn's first phase begins with it: "turn 2 begins" says both.
            began = f"{item.get('result', '')}: "
        if what in QUIET_WHATS:
            continue
        stand = item.get("stand")
        text = str(item.get("result", ""))
        if what == "depletion check":
            if item.get("rolls"):
                tally.add(turn, stand, "depletion checks")
            if text.startswith("depleted"):
                tally.add(turn, stand, "depleted")
        elif what == "limited ammunition":
            tally.add(turn, stand, "spent")
        elif what == "resupply" and _restored(item, text):
            tally.add(turn, stand, "resupplied")
        elif what == "engineering":
            tally.add(turn, stand, "engineering")
        who = " ".join(str(p) for p in (stand, item.get("weapon")) if p)
        kind = "weather" if what in WEATHER_WHATS else "boundary"
        if what == "engineering":
            kind = "engineering"
        out.append((f"{began}{what}: {who + ': ' if who else ''}{text}", kind))
    return out


def _restored(item: dict[str, Any], text: str) -> bool:
    """Whether an end-of-turn resupply check restored anything (CD 1.4): a check that
    failed (too far, depleted this turn) is no resupply. Logs written before the check
    listed what it restored say so in words."""
    restored = item.get("restored")
    if restored is None:
        return text.startswith("resupplied")
    return bool(restored)


def _actor(inputs: dict[str, Any], result: dict[str, Any]) -> str | None:
    for source in (result, inputs):
        for key in ("by", "stand", "engineer", "shooter"):
            value = source.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list) and value and isinstance(value[0], str):
                return value[0]
    return None


def _generic(command: str, inputs: dict[str, Any], result: dict[str, Any]) -> str:
    verdict = result.get("verdict")
    if verdict:
        return f"{command}: {verdict}"
    shown = inputs_text(inputs, ", ")
    return command + (f" ({shown})" if shown else "")


def _xy(result: dict[str, Any]) -> str:
    x, y = result.get("x"), result.get("y")
    if isinstance(x, int | float) and isinstance(y, int | float):
        return f"{x:g},{y:g}"
    return "?"


# --- the document ---------------------------------------------------------------------------

Block = tuple[Any, ...]


def blocks(report: Report, map_ref: str | None) -> list[Block]:
    """The report as headings, paragraphs, lists and tables (format-neutral)."""
    out: list[Block] = [("h1", f"After-action report: {report.name}")]
    undone = f" ({report.undone} undone and left out)" if report.undone else ""
    if report.view == "referee":
        opening = (
            f"Scenario {report.scenario}, dice seed {report.seed}. {count(report.events, 'event')}"
        )
    else:
        opening = (
            f"{possessive(report.view)} view: what {report.view} may know. "
            f"Scenario {report.scenario}. "
            f"{count(report.events, 'event')}"
        )
    out.append(
        (
            "p",
            f"{opening} in the log{undone}. The game now stands at turn {report.turn}, "
            f"{report.phase} phase.",
        )
    )
    out.append(("h2", "Totals by side"))
    headers = ["", *report.sides]
    rows = [
        [label, *(str(report.totals.get(side, {}).get(key, 0)) for side in report.sides)]
        for key, label, _ in TOTAL_KEYS
    ]
    rows.append(
        ["eliminated now", *(", ".join(report.losses_now.get(s, [])) or "-" for s in report.sides)]
    )
    out.append(("table", headers, rows))
    out.append(("h2", "Turn by turn"))
    for turn in report.turns():
        out.append(("h3", f"Turn {turn}"))
        summary = _turn_summary(report.by_turn.get(turn, {}))
        if summary:
            out.append(("p", summary))
        out.append(("ul", _turn_lines([e for e in report.entries if e.turn == turn])))
    out.extend(_dice_blocks(report.dice))
    out.append(("h2", f"The table at turn {report.turn}, {report.phase} phase"))
    out.append(("map", map_ref))
    return out


def _turn_summary(row: dict[str, int]) -> str:
    parts = [
        f"{row[key]} {one if row[key] == 1 else label}"
        for key, label, one in TOTAL_KEYS
        if row.get(key)
    ]
    return ("In all: " + ", ".join(parts) + ".") if parts else ""


def _turn_lines(entries: list[Entry]) -> list[str]:
    """One line per event, moves gathered per phase so a busy movement phase stays short."""
    lines: list[str] = []
    moves: list[str] = []
    phase = None

    def flush() -> None:
        if moves:
            lines.append(f"{phase}: moved {', '.join(moves)}")
            moves.clear()

    for e in entries:
        if e.phase != phase:
            flush()
            phase = e.phase
        if e.kind == "move":
            moves.append(e.text)
            continue
        flush()
        when = f"end of {e.phase}" if e.command in ("phase-next", "turn-next") else e.phase
        lines.append(f"{when}, event {e.seq}: {e.text}")
    flush()
    return lines


def _dice_blocks(dice: dict[str, Any]) -> list[Block]:
    out: list[Block] = [("h2", "The dice")]
    total = dice.get("rolls", 0)
    if not total:
        out.append(("p", "No dice were rolled."))
        return out
    out.append(
        (
            "p",
            f"{count(total, 'die', 'dice')} rolled: {dice['physical']} physical (thrown at the "
            f"table and typed in) and {dice['generated']} generated. Low rolls favour the firer "
            "in CD (a hit is a roll at or under the to-hit number). The z-score is how many "
            "standard errors the mean lies from a fair die's; the chi-square compares the faces "
            "with an even spread once there are at least five rolls per face.",
        )
    )
    rows = []
    for s in dice["by_die"]:
        rows.append(
            [
                f"d{s.sides}",
                s.source,
                str(s.n),
                "-" if s.mean is None else f"{s.mean:.2f}",
                f"{s.expected:g}",
                "-" if s.z is None else f"{s.z:+.2f}",
                "-" if s.chi2 is None else f"{s.chi2:.1f} ({s.df} df, p {s.p_chi2:.2f})",
                s.verdict,
            ]
        )
    out.append(
        ("table", ["die", "rolls of", "n", "mean", "fair mean", "z", "chi-square", "verdict"], rows)
    )
    return out


# --- writing --------------------------------------------------------------------------------


def _md_escape(text: str) -> str:
    """Escape what Markdown would read as markup; "<=" and "->" stay as they are."""
    import re

    for ch in ("\\", "|", "*", "_", "[", "]"):
        text = text.replace(ch, "\\" + ch)
    return re.sub(r"<(?=[A-Za-z/!?])", r"\\<", text)


def markdown(report: Report, map_link: str | None) -> str:
    """Markdown; the map is an image link to ``map_link`` (an SVG written beside it)."""
    lines: list[str] = []
    for block in blocks(report, map_link):
        kind = block[0]
        if kind in ("h1", "h2", "h3"):
            lines += ["#" * int(kind[1]) + " " + _md_escape(block[1]), ""]
        elif kind == "p":
            lines += [_md_escape(block[1]), ""]
        elif kind == "ul":
            lines += [f"- {_md_escape(item)}" for item in block[1]] + [""]
        elif kind == "table":
            lines += [*_md_table(block[1], block[2]), ""]
        elif kind == "map":
            if block[1]:
                lines += [f"![The table at the end of the report]({block[1]})", ""]
            else:
                lines += ["(Write the report to a file with --out to include the map.)", ""]
    return "\n".join(lines).rstrip() + "\n"


def _md_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    def row(cells: Iterable[str]) -> str:
        return "| " + " | ".join(_md_escape(c) for c in cells) + " |"

    return [row(headers), "|" + "|".join("---" for _ in headers) + "|", *(row(r) for r in rows)]


STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: left; }
th { background: #f0eee4; }
li { margin: 0.15rem 0; }
figure { margin: 1rem 0; } figure svg { width: 100%; height: auto; }
"""


def html(report: Report, svg: str | None) -> str:
    """A self-contained HTML page; the map's SVG is embedded inline."""
    esc = html_lib.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(f'After-action report: {report.name}')}</title>",
        f"<style>{STYLE}</style></head><body>",
    ]
    for block in blocks(report, "inline" if svg else None):
        kind = block[0]
        if kind in ("h1", "h2", "h3", "p"):
            parts.append(f"<{kind}>{esc(block[1])}</{kind}>")
        elif kind == "ul":
            parts.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in block[1]) + "</ul>")
        elif kind == "table":
            head = "".join(f"<th>{esc(h)}</th>" for h in block[1])
            body = "".join(
                "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in block[2]
            )
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif kind == "map":
            if svg:
                parts.append(f"<figure>{_strip_prolog(svg)}</figure>")
            else:
                parts.append("<p>(No map.)</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _strip_prolog(svg: str) -> str:
    """An SVG document's root element, ready to sit inside HTML."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg
