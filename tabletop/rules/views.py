"""What one side may know, and what only the referee knows: one answer for every reader.

A view is ``referee`` (everything) or a side. A side knows:

- its own stands, in full;
- the enemy stands that any of its stands spots now, by the same spotting procedure as
  ``measure`` and ``fire`` (CD spotting by distance and cover; night, twilight, mist, fog,
  rain and snow limits, muzzle flashes, searchlights and sound, CD 9.1.2, 9.2, 9.3, 9.4, 10.2.1,
  10.3.1): where they are, what they are and how they stand, not their ammunition, quality
  or formation;
- the enemy stands it spotted before and has lost sight of, as markers where and when they
  were last seen (derived from the log: see ``last_seen``);
- every minefield template on the table, both sides' (they lie in plain view), but whether
  an enemy template is real or a dummy only once it is revealed (CD 3, 3.2);
- the terrain, except pieces the scenario marks ``referee_only`` (a snow-covered lake kept
  on the referee's map, a patch of weaker ice, CD 11.3);
- the log, with the enemy's secrets taken out (``event_for_view``).

Rules code only: no click, no printing, no SQLite. The game layer hands in the past states
for ``last_seen`` and the events for ``event_for_view``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import field
from typing import Any

from tabletop.core.errors import UnknownStand
from tabletop.core.frozen import frozen_dataclass, mutable_dataclass
from tabletop.core.sides import REFEREE, resolve_view
from tabletop.core.words import count, possessive
from tabletop.data.board import is_placed, smoke_blockers
from tabletop.rules.cd.hidden import fields, view_of
from tabletop.rules.cd.sighting import (
    End,
    light_now,
    look_clear,
    seeing_at,
    spotting_reach,
    spotting_row,
    spotting_world,
)
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, State, centre, in_play, unknown_stand_message
from tabletop.table import sight_pairs

# What a side learns of an enemy stand it spots: what it looks like and where it is.
SEEN_KEYS = ("id", "side", "kind", "x", "y", "facing", "width", "depth", "status", "markers")
HIDDEN = "[hidden]"

# Enemy acts a side sees happen on the table: fire and its results, templates laid, damage
# done. Everything else the enemy does (moves, engineering, supply, referee overrides) stays
# behind the referee's screen; the side sees only where enemy stands are now.
PUBLIC_ENEMY_COMMANDS = frozenset(
    {
        "fire",
        "barrage",
        "assault",
        "model-fire",
        "minefield-place",
        "minefield-cross",
        "structure-damage",
        "searchlight",
    }
)
# Table-wide events: the weather and the turn's boundaries belong to both sides.
TABLE_COMMANDS = frozenset({"new", "phase-next", "turn-next", "weather-set", "weather-roll"})
# Inputs that are the acting side's secret even when the act itself is seen (CD 3).
SECRET_INPUTS = frozenset({"dummy", "real"})
ACTOR_KEYS = ("shooter", "stand", "by", "engineer", "stands", "attackers", "workers")


@frozen_dataclass
class Spotted:
    """An enemy stand a side spots now, and the first of its stands that spots it."""

    id: str
    by: str
    range: float


@frozen_dataclass
class LastSeen:
    """Where and when a side last saw an enemy stand it cannot see now."""

    id: str
    side: str
    kind: str
    x: float
    y: float
    turn: int
    phase: str
    # Set when the stand has left the table since (eliminated, lost): a stand taken off the
    # table the side has seen is news to both sides. None while it may still be there.
    gone: str | None = None

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@mutable_dataclass
class Knowledge:
    """What ``view`` knows of the game now."""

    view: str
    sides: dict[str, str]  # stand id -> side, for every stand of the game
    spotted: dict[str, Spotted] = field(default_factory=dict)
    last_seen: dict[str, LastSeen] = field(default_factory=dict)
    hidden_terrain: frozenset[str] = frozenset()

    @property
    def is_referee(self) -> bool:
        return self.view == REFEREE

    def is_own(self, stand_id: str) -> bool:
        return self.is_referee or self.sides.get(stand_id) == self.view

    def knows_stand(self, stand_id: str) -> bool:
        """Whether this view may see the stand as it is now."""
        return self.is_own(stand_id) or stand_id in self.spotted

    def knows_of(self, stand_id: str) -> bool:
        """Whether this view may know the stand exists (seen now or before)."""
        return self.knows_stand(stand_id) or stand_id in self.last_seen

    @property
    def secrets(self) -> frozenset[str]:
        """Ids this view must never read: enemy stands never seen, referee-only terrain."""
        if self.is_referee:
            return frozenset()
        unseen = {s for s in self.sides if not self.knows_of(s)}
        return frozenset(unseen | set(self.hidden_terrain))


# --- spotting -----------------------------------------------------------------------------


def _end(stand: StandRow) -> End:
    return End(stand["id"], *centre(stand), stand)


def _on_table(state: State) -> list[StandRow]:
    return [s for s in state.stands() if is_placed(s) and in_play(s)]


class SightMemo:
    """What ``spotted_by`` has worked out pair by pair, kept for the next state it is asked
    about on the same table (the walk back through the log for last-seen markers).

    A line of sight depends only on its two ends and the smoke on the table; a look's
    verdict, and a target's spotting reach, only on what ``sighting.spotting_row`` gives of
    its stands and what ``sighting.spotting_world`` names (conditions, terrain state,
    lights and noise). Most of a game's states differ from the next in one or two stands,
    so most pairs are answered from here. Kept in memory only, for one table: a memo handed
    a context on another table is not used.
    """

    def __init__(self, table: Any = None) -> None:
        self.table = table
        self.lines: dict[tuple[str, tuple[float, float], tuple[float, float]], bool] = {}
        self.looks: dict[tuple[str, str, str], tuple[bool, float]] = {}
        self.reaches: dict[tuple[str, str], float | None] = {}


def spotted_by(
    ctx: RulesContext,
    side: str,
    among: Iterable[str] | None = None,
    memo: SightMemo | None = None,
) -> dict[str, Spotted]:
    """Enemy stands spotted now by any stand of ``side`` (in the table's stand order).

    The same verdicts as ``sight`` between every pair, for less: only the side's stands
    within an enemy's spotting reach (``sighting.spotting_reach``) may spot it; their lines
    of sight come first, those not in ``memo`` traced together (``sight_pairs`` agrees
    exactly with the single line trace); the rest of the spotting procedure
    (``sighting.look_clear``, as ``sight`` after its line) then runs only for pairs that see
    each other, nearest spotter first, and stops at the first that spots. ``memo`` keeps
    what was worked out for the next state asked about.
    """

    if memo is None or memo.table is not ctx.table:
        memo = SightMemo(ctx.table)
    wanted = None if among is None else set(among)
    # Only the side's stands and the enemies asked about: the pairs among the others are
    # never read (last_seen asks about fewer and fewer enemies as it goes back).
    stands = [
        s for s in _on_table(ctx.state) if s["side"] == side or wanted is None or s["id"] in wanted
    ]
    own = [i for i, s in enumerate(stands) if s["side"] == side]
    enemies = [i for i, s in enumerate(stands) if s["side"] != side]
    if not own or not enemies:
        return {}
    points = [centre(s) for s in stands]
    light = light_now(ctx)
    world = spotting_world(ctx, light)
    rows: dict[int, str] = {}
    seeing: dict[int, Any] = {}

    def row(n: int) -> str:
        if n not in rows:
            rows[n] = spotting_row(stands[n], ctx.state)
        return rows[n]

    def at(e: int) -> Any:
        if e not in seeing:
            seeing[e] = seeing_at(ctx, _end(stands[e]), *light)
        return seeing[e]

    # The lookers that could spot each enemy at all: past its reach (``spotting_reach``)
    # no line need be traced and no look taken.
    radius = _radii(stands, ctx.scenario.measure)
    candidates: dict[int, list[int]] = {}
    for e in enemies:
        aim = (world, row(e))
        if aim not in memo.reaches:
            memo.reaches[aim] = spotting_reach(ctx, _end(stands[e]), light, at(e))
        reach = memo.reaches[aim]
        if reach is None:
            candidates[e] = own
            continue
        (xe, ye), near = points[e], radius[e] + FLOOR_MARGIN
        # _range_floor(points, radius, i, e) <= reach, written out: it runs for every pair.
        candidates[e] = [
            i
            for i in own
            if math.hypot(xe - points[i][0], ye - points[i][1]) - radius[i] - near <= reach
        ]
    smoke = smoke_blockers(ctx.state.templates())
    smoke_key = json.dumps(smoke)
    lines = memo.lines
    missing = list(
        dict.fromkeys(
            (points[i], points[e])
            for e in enemies
            for i in candidates[e]
            if (smoke_key, points[i], points[e]) not in lines
        )
    )
    if missing:
        clear = sight_pairs(ctx.table, [a for a, _ in missing], [b for _, b in missing], smoke)
        for (a, b), los in zip(missing, clear, strict=True):
            lines[smoke_key, a, b] = bool(los)
    found: dict[str, Spotted] = {}
    for e in enemies:
        target = stands[e]
        lookers = sorted(
            (i for i in candidates[e] if lines[smoke_key, points[i], points[e]]),
            key=lambda i: (points[i][0] - points[e][0]) ** 2 + (points[i][1] - points[e][1]) ** 2,
        )
        for i in lookers:
            key = (world, row(i), row(e))
            look = memo.looks.get(key)
            if look is None:
                result = look_clear(ctx, _end(stands[i]), _end(target), light, at(e))
                look = memo.looks[key] = (bool(result.spotted), result.range)
            if look[0]:
                found[target["id"]] = Spotted(target["id"], stands[i]["id"], round(look[1], 3))
                break
    return found


# A margin on the range's lower bound, far above floating-point error and far below anything
# on a table: a pair is passed over only when it is surely out of reach.
FLOOR_MARGIN = 1e-6


def _radii(stands: list[StandRow], measure: str) -> list[float]:
    """How far each stand's base reaches from its centre, as ranges are measured: the
    half-diagonal edge to edge, nothing centre to centre."""
    if measure == "centre":
        return [0.0] * len(stands)
    return [math.hypot(float(s["width"]), float(s["depth"])) / 2 for s in stands]


def _range_floor(points: list[tuple[float, float]], radius: list[float], i: int, e: int) -> float:
    """A lower bound on ``sighting.distance_between`` of stands ``i`` and ``e``: the
    distance of their centres less how far each base reaches (``_radii``; no point of a
    base lies farther from its centre), less a margin."""
    (xi, yi), (xe, ye) = points[i], points[e]
    return math.hypot(xe - xi, ye - yi) - radius[i] - (radius[e] + FLOOR_MARGIN)


def visible_enemies(ctx: RulesContext, side: str) -> list[Spotted]:
    """The enemy stands ``side`` spots now, for ``targets`` and the readers."""
    return list(spotted_by(ctx, side).values())


# --- last seen ----------------------------------------------------------------------------


OPPORTUNITY_FIRE = "opportunity-fire"


def _sight_key(state: State) -> str:
    """What spotting depends on: stands, templates, terrain state, conditions, turn, and
    whether the phase is the opportunity fire phase."""
    rows = state.rows
    keep = {
        k: v
        for k, v in rows.items()
        if k.startswith(("stand:", "template:", "terrain:")) or k == "conditions"
    }
    # Of the phase, spotting reads only whether it is the opportunity fire phase (last
    # turn's muzzle flashes, CD 9.1.2): the other phases of a turn in which nothing moved
    # or fired look the same.
    phase = state.phase if state.phase == OPPORTUNITY_FIRE else None
    return json.dumps([keep, state.turn, phase], sort_keys=True, default=str)


def last_seen(
    ctx: RulesContext,
    side: str,
    past: Iterable[State],
    now_spotted: Iterable[str],
    memo: SightMemo | None = None,
) -> dict[str, LastSeen]:
    """Enemy stands ``side`` cannot see now, where and when it last saw them.

    Derived from the log rather than kept in the state: ``past`` is the game's states after
    each action still in force, newest first (the game rebuilds them from the log's
    before-images). The first state in which the side spotted a stand gives its marker.
    Nothing is written, so reading a view never changes the game file, and undoing a move
    also undoes what it let the enemy see. The pairs are answered through ``memo`` (one
    for the whole walk, when not given): a state differing from the next in a few stands
    costs only the pairs those stands are in.
    """
    memo = memo if memo is not None else SightMemo(ctx.table)
    enemy = {
        s["id"] for s in ctx.state.stands() if s["side"] != side and s["id"] not in set(now_spotted)
    }
    found: dict[str, LastSeen] = {}
    seen_keys: set[str] = set()
    for state in past:
        unresolved = enemy - set(found)
        if not unresolved:
            break
        key = _sight_key(state)
        if key in seen_keys:
            continue
        seen_keys.add(key)
        then = RulesContext(state, ctx.dice, ctx.scenario, ctx.charts, _table=ctx.table)
        for stand_id in spotted_by(then, side, unresolved, memo):
            row = state.stand(stand_id)
            now = ctx.state.stand(stand_id)
            found[stand_id] = LastSeen(
                stand_id,
                row["side"],
                row["kind"],
                *centre(row),
                state.turn,
                state.phase,
                None if in_play(now) else str(now["status"]),
            )
    return {k: found[k] for k in sorted(found)}


# --- the view -----------------------------------------------------------------------------


def hidden_terrain(ctx: RulesContext) -> frozenset[str]:
    return frozenset(p.id for p in ctx.scenario.terrain if p.referee_only)


def knowledge(ctx: RulesContext, view: str, past: Iterable[State] | None = None) -> Knowledge:
    """What ``view`` knows now; ``past`` (newest first) gives last-seen markers."""
    sides = {s["id"]: s["side"] for s in ctx.state.stands()}
    if view == REFEREE:
        return Knowledge(view, sides)
    memo = SightMemo(ctx.table)
    spotted = spotted_by(ctx, view, memo=memo)
    seen = last_seen(ctx, view, past, spotted, memo) if past is not None else {}
    return Knowledge(view, sides, spotted, seen, hidden_terrain(ctx))


def view_context(ctx: RulesContext, view: str) -> RulesContext:
    """A read-only context whose table holds only the terrain this view knows.

    A side's sight lines are traced over the table as its players see it, so a hidden piece
    can neither be named as a crossing nor betray itself by blocking the line.
    """
    if view == REFEREE:
        return ctx
    known = tuple(p for p in ctx.scenario.terrain if not p.referee_only)
    if len(known) == len(ctx.scenario.terrain):
        return ctx
    scenario = dataclasses.replace(ctx.scenario, terrain=known)
    return RulesContext(ctx.state, ctx.dice, scenario, ctx.charts)


def stand_for_view(stand: StandRow, known: Knowledge) -> Mapping[str, Any] | None:
    """The stand's row as the view may read it: all of it, what is seen of it, or nothing."""
    if known.is_own(stand["id"]):
        return stand
    if stand["id"] in known.spotted:
        row: Mapping[str, Any] = stand
        return {k: row[k] for k in SEEN_KEYS if k in row}
    return None


def stand_in_view(state: State, known: Knowledge, stand_id: str) -> Mapping[str, Any]:
    """The stand ``stand_id`` as the view may read it (``stand_for_view``).

    A stand the view may not see now is answered exactly as a stand that does not exist,
    and the stands suggested are only those the view knows of: the error gives nothing away.
    """
    if known.is_referee:
        return state.stand(stand_id)
    if state.has_stand(stand_id):
        shown = stand_for_view(state.stand(stand_id), known)
        if shown is not None:
            return shown
    ids = [s for s in state.stand_ids() if known.knows_of(s)]
    raise UnknownStand(unknown_stand_message(stand_id, ids))


def stands_for_view(state: State, known: Knowledge) -> list[Mapping[str, Any]]:
    out = []
    for stand in state.stands():
        shown = stand_for_view(stand, known)
        if shown is not None:
            out.append(shown)
    return out


def state_for_view(state: State, known: Knowledge) -> State:
    """A copy of the state holding only the stands the view may see, as it sees them."""
    if known.is_referee:
        return state
    rows = {k: v for k, v in state.rows.items() if not k.startswith("stand:")}
    shown = stands_for_view(state, known)
    rows["meta"] = {**state.meta, "stand_order": [s["id"] for s in shown]}
    copy = State(rows)
    for stand in shown:
        # What the view cannot see of an enemy (ammunition, history) reads as nothing.
        copy.rows["stand:" + stand["id"]] = {"weapons": [], "ammo": {}, **stand}
    return copy


def templates_for_view(state: State, known: Knowledge) -> list[dict[str, Any]]:
    """The templates on the table as a view sees them: the referee's own (``hidden``,
    ``referee_only``) left out, and the maker's name only when the view knows that stand."""
    if known.is_referee:
        return state.templates()
    out = []
    for t in state.templates():
        if t.get("referee_only") or t.get("hidden"):
            continue
        by = t.get("by")
        if isinstance(by, str) and by in known.sides and not known.knows_of(by):
            t = {**t, "by": None}
        out.append(t)
    return out


def minefields_for_view(state: State, view: str) -> list[dict[str, Any]]:
    """Every template on the table; ``real`` is None where the view may not know (CD 3)."""
    return [view_of(f, view) for f in fields(state)]


def terrain_changes_for_view(
    rows: list[dict[str, Any]], known: Knowledge, scenario: Any = None
) -> list[dict[str, Any]]:
    """Changed terrain as a view sees it: referee-only pieces out; charges on a bridge
    (wired, or to recheck after a failed demolition) are the holder's secret (CD 2.4.1)."""
    if known.is_referee:
        return rows
    owners = {} if scenario is None else {p.id: p.owner for p in scenario.terrain}
    out = []
    for r in rows:
        if r["id"] in known.hidden_terrain:
            continue
        if owners.get(r["id"]) != known.view:
            r = {**r, **({"recheck": False} if "recheck" in r else {})}
            r.pop("wired", None)
            if r.get("state") == "intact" and not r.get("gaps"):
                continue  # listed only for its charges
        out.append(r)
    return out


# --- the log ------------------------------------------------------------------------------


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)
    elif value is not None:
        yield str(value)


def _pattern(words: Iterable[str]) -> re.Pattern[str] | None:
    words = sorted(set(words), key=len, reverse=True)
    if not words:
        return None
    return re.compile(
        r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w-])", re.IGNORECASE
    )


def mentions(value: Any, words: Iterable[str]) -> bool:
    """Whether any string in ``value`` (keys included) names one of ``words`` as a word."""
    pattern = _pattern(words)
    return pattern is not None and any(pattern.search(s) for s in _strings(value))


def _actor_side(command: str, inputs: Any, result: Any, sides: dict[str, str]) -> str | None:
    for source in (inputs, result):
        if not isinstance(source, Mapping):
            continue
        for key in ACTOR_KEYS:
            value = source.get(key)
            if isinstance(value, list) and value and isinstance(value[0], str):
                value = value[0]
            if isinstance(value, str) and value in sides:
                return sides[value]
        side = source.get("side")
        if isinstance(side, str) and side in set(sides.values()):
            return side
    return None


@frozen_dataclass
class EventView:
    """An event as a view may read it."""

    seq: int
    turn: int
    phase: str
    command: str
    inputs: dict[str, Any]
    rolls: list[dict[str, Any]]
    result: Any
    undoes: int | None = None
    kind: str = "action"


def _about_enemy(item: Any, known: Knowledge) -> bool:
    stand = item.get("stand") if isinstance(item, Mapping) else None
    return isinstance(stand, str) and not known.is_own(stand)


def event_for_view(
    ev: Any, known: Knowledge, undone_command: str | None = None
) -> EventView | None:
    """``ev`` (a logged event) as ``known.view`` may read it, or None when it is a secret.

    The referee reads every event as logged. A side reads:
    - its own acts in full;
    - the table's events (the start, weather, phase and turn boundaries), less what the
      boundary did to enemy stands (their depletion dice, resupply, engineering);
    - the enemy acts that happen in plain view (fire, barrages, assaults, minefield
      templates laid and crossed, damage), less the enemy's secret inputs (real or dummy,
      CD 3);
    - an undo when it would have read the act undone.
    Nothing kept may name a referee-only piece of terrain or an enemy stand never seen: such
    mentions are taken out of the event (``_redact``), not the event out of the log, so a
    side keeps every act of its own and sees the shells of a battery it never saw land. A
    batch is read item by item: the side's own items only (``_batch_for_view``).
    """
    inputs = ev.inputs if isinstance(ev.inputs, dict) else {}
    result = ev.result
    rolls = list(ev.rolls)
    if known.is_referee:
        return EventView(
            ev.seq, ev.turn, ev.phase, ev.command, inputs, rolls, result, ev.undoes, ev.kind
        )
    if ev.command in ("undo", "redo"):
        if undone_command is None:
            return None
        # A redo points at the undo it reverses; the act it puts back is what the side reads.
        act = ev.result.get("redid") if ev.command == "redo" else ev.undoes
        return EventView(
            ev.seq,
            ev.turn,
            ev.phase,
            ev.command,
            {},
            [],
            {"redid" if ev.command == "redo" else "undid": act, "command": undone_command},
            ev.undoes,
            ev.kind,
        )
    if ev.command == "new":
        # The dice seed would let a player work out every generated roll, the enemy's too.
        name = result.get("name") if isinstance(result, dict) else None
        inputs, result = {"scenario": inputs.get("scenario")}, {"name": name}
    sides = known.sides
    if ev.command == "batch":
        own_batch = _batch_for_view(inputs, result, known)
        if own_batch is None:
            return None
        inputs, result = own_batch
    actor = known.view if ev.command == "batch" else _actor_side(ev.command, inputs, result, sides)
    if ev.command in TABLE_COMMANDS and actor is None:
        if isinstance(result, dict) and isinstance(result.get("happened"), list):
            result = {
                **result,
                "happened": [h for h in result["happened"] if not _about_enemy(h, known)],
            }
        rolls = [r for r in rolls if not _enemy_roll(r, known)]
    elif actor == known.view:
        pass
    elif ev.command in PUBLIC_ENEMY_COMMANDS:
        # The enemy's act, or the referee's (a bomb on a village): done in plain view.
        inputs = {k: v for k, v in inputs.items() if k not in SECRET_INPUTS}
        if ev.command == "minefield-place":
            # The template is seen going down; what it is stays the layer's (CD 3).
            result = _template_laid(inputs, result)
            rolls = []
        rolls = [r for r in rolls if not _enemy_roll(r, known, depletion_only=True)]
    else:
        return None
    pattern = _pattern(known.secrets)
    if pattern is not None and any(pattern.search(s) for s in _strings([inputs, rolls, result])):
        # Kept, with what the side may not know taken out: an unseen enemy among its own
        # move's opportunity-fire candidates, the unseen battery whose shells it saw land.
        inputs, rolls, result = (
            _redact(inputs, pattern),
            [_redact_roll(r, pattern) for r in rolls],
            _redact(result, pattern),
        )
    return EventView(
        ev.seq, ev.turn, ev.phase, ev.command, inputs, rolls, result, ev.undoes, ev.kind
    )


# Keys whose value says which stand an entry (a list's item) is about.
ENTRY_KEYS = ("stand", "id", "target", "shooter", "by")


def _redact(value: Any, pattern: re.Pattern[str]) -> Any:
    """``value`` with every mention of a secret taken out: an entry about a secret stand
    (a mapping naming it under ``ENTRY_KEYS``, or the bare id in a list) is dropped, a key
    naming one goes with its value, and so does each clause of a sentence that names one
    (a placeholder would still tell the side that something is there); a sentence left
    with no clause goes whole."""
    if isinstance(value, str):
        kept = [part for part in value.split("; ") if not pattern.search(part)]
        return "; ".join(kept) if kept else _GONE
    if isinstance(value, Mapping):
        out = {k: _redact(v, pattern) for k, v in value.items() if not pattern.search(str(k))}
        return {k: v for k, v in out.items() if v is not _GONE}
    if isinstance(value, list | tuple):
        kept = [_redact(v, pattern) for v in value if not _secret_entry(v, pattern)]
        return [v for v in kept if v is not _GONE]
    return value


_GONE = object()  # what is left of a sentence every clause of which named a secret

UNSEEN_ROLL = "a roll about a stand not seen"


def _redact_roll(roll: Any, pattern: re.Pattern[str]) -> Any:
    """A die the side saw thrown keeps its face; a purpose that names a secret (the unseen
    stand its own barrage hit, and that stand's quality) is said without it."""
    if isinstance(roll, Mapping) and pattern.search(str(roll.get("purpose", ""))):
        return {**_redact(roll, pattern), "purpose": UNSEEN_ROLL}
    return _redact(roll, pattern)


def _secret_entry(value: Any, pattern: re.Pattern[str]) -> bool:
    if isinstance(value, str):
        return pattern.fullmatch(value) is not None
    if isinstance(value, Mapping):
        return any(
            isinstance(value.get(k), str) and pattern.fullmatch(value[k]) is not None
            for k in ENTRY_KEYS
        )
    return False


def _batch_for_view(
    inputs: dict[str, Any], result: Any, known: Knowledge
) -> tuple[dict[str, Any], Any] | None:
    """A batch (moves, placings) as a side reads it: its own items, or None when it has none.

    A batch is one event, but each item is one stand's act: a side reads its own items in
    full and none of the enemy's (they are moves behind the referee's screen)."""
    items = inputs.get("items")
    if not isinstance(items, list):
        return None
    own = [
        n
        for n, item in enumerate(items)
        if isinstance(item, Mapping) and known.sides.get(str(item.get("stand"))) == known.view
    ]
    if not own:
        return None
    shown_inputs = {**inputs, "items": [items[n] for n in own]}
    if not isinstance(result, dict) or len(own) == len(items):
        return shown_inputs, result
    name = str(result.get("command") or inputs.get("command"))
    shown = {**result, "count": len(own)}
    for key in ("items", "verdicts"):
        value = result.get(key)
        if isinstance(value, list) and len(value) == len(items):
            shown[key] = [value[n] for n in own]
    shown["verdict"] = f"{name}: {count(len(own), 'stand')} of {known.view}'s, all applied"
    return shown_inputs, shown


DEPLETION_WORDS = ("depletion", "resupply", "supply")


def _enemy_roll(roll: Any, known: Knowledge, depletion_only: bool = False) -> bool:
    """A roll about the enemy's private business: its ammunition (CD 1), its own checks."""
    purpose = str(roll.get("purpose", "")) if isinstance(roll, Mapping) else ""
    enemy = [s for s in known.sides if not known.is_own(s)]
    if depletion_only:
        return any(w in purpose.lower() for w in DEPLETION_WORDS) and mentions(purpose, enemy)
    return mentions(purpose, enemy)


def _template_laid(inputs: dict[str, Any], result: Any) -> dict[str, Any]:
    ident = result.get("id") if isinstance(result, dict) else None
    at = inputs.get("at") or []
    where = f" at {at[0]:g},{at[1]:g}" if len(at) == 2 else ""
    side = inputs.get("side")
    return {"id": ident, "verdict": f"{side} lays minefield template {ident}{where} (CD 3)"}


def events_for_view(events: list[Any], known: Knowledge) -> list[EventView]:
    """The log as ``known.view`` may read it (see ``event_for_view``)."""
    by_seq = {ev.seq: ev for ev in events}
    out = []
    for ev in events:
        undone = None
        if ev.command in ("undo", "redo") and not known.is_referee:
            target = by_seq.get(ev.undoes)
            if ev.command == "redo" and target is not None:
                target = by_seq.get(target.undoes)  # the redo's undo, then the act undone
            if target is not None and event_for_view(target, known) is not None:
                undone = target.command
        shown = event_for_view(ev, known, undone)
        if shown is not None:
            out.append(shown)
    return out


# --- the game's own default view ----------------------------------------------------------

SETTINGS = "settings"


def view_set_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """Make ``inputs["view"]`` the view every reading command of this game shows by default.

    A player's copy of the game set to its side never shows the referee's view by accident;
    ``--view`` (or TABLETOP_VIEW) still chooses another for one command.
    """

    view = resolve_view(inputs["view"], ctx.scenario.side_names(), option="view")
    settings = ctx.state.rows.setdefault(SETTINGS, {})
    was = settings.get("view", REFEREE)
    if view == REFEREE:
        settings.pop("view", None)
    else:
        settings["view"] = view
    if not settings:
        ctx.state.rows.pop(SETTINGS, None)
    who = "the referee's view" if view == REFEREE else f"{possessive(view)} view"
    return {"view": view, "was": was, "verdict": f"reading commands now show {who} by default"}
