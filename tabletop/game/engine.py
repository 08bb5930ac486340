"""A game: its file, its scenario and charts, and how commands change it.

``Game.execute`` runs one action as one transaction: load the state, run the procedure with
the game's dice, write the changed rows, append the event (inputs, every roll, the result,
the before-image for undo, the state hash, the previous event's hash). ``undo`` appends an
event that puts an action's before-image back; ``redo`` appends one that puts the undo's
before-image back (while nothing new was logged). ``replay`` rebuilds the game from the
scenario and the log and reports the first event whose state differs.
"""

from __future__ import annotations

import importlib
import json
import marshal
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

from tabletop.core.dice import GENERATED, PHYSICAL, REFUSE, Dice, Roll
from tabletop.core.errors import BadInput, RulesRefusal, TabletopError
from tabletop.core.frozen import mutable_dataclass
from tabletop.core.odds import (
    TooManyBranches,
    by_stages,
    distribution,
    no_dice,
    repeated,
)
from tabletop.core.sides import REFEREE
from tabletop.core.words import count, without_faces
from tabletop.data.charts import CHARTS_FORMAT
from tabletop.data.scenario import LoadedScenario
from tabletop.game.actions import odds_outcome, odds_repeats, odds_stages, procedure
from tabletop.game.reading import scenario_loader, stored_scenario
from tabletop.rules.context import ActionResult, RulesContext
from tabletop.rules.models import profile_lookup
from tabletop.state.document import State, diff
from tabletop.state.hashes import event_hash, state_hash, text_hash
from tabletop.state.store import EventRow, GameFile, GameRow, Store, canonical

if TYPE_CHECKING:
    from tabletop.rules.views import EventView, Knowledge

# The opening state's builder (``game/opening.py``), named here and imported when a game is
# made or replayed: it brings the rule areas that set a table up (terrain, ammunition,
# minefields and the engineering behind them), which every other command leaves unloaded
# (docs/performance.md).
OPENING = "tabletop.game.opening:opening_state"


# What each side knows and may read of the log (``rules.views``, with the sighting rules it
# asks), named here and imported when a command asks for a view: an action and its odds
# never do (docs/performance.md).
VIEWS = "tabletop.rules.views"


def _views() -> Any:
    return importlib.import_module(VIEWS)


def opening_state(loaded: LoadedScenario, seed: int) -> State:
    """The state a new game of ``loaded`` starts from (``game.opening``)."""
    module, _, name = OPENING.partition(":")
    build: Callable[[LoadedScenario, int], State] = getattr(importlib.import_module(module), name)
    return build(loaded, seed)


# What a side knows, per game file, log head and view (see ``Game.knowledge``): the newest
# few, for the reading commands of one warm process. ``ctx`` and ``state`` given to
# ``knowledge`` are always the game's present ones, so the head names the answer.
_KNOWN: dict[tuple[str, str, str], Knowledge] = {}
KNOWN_KEPT = 8

# Runs of a procedure the generic odds may make before refusing (each on a fresh state, each
# ending in one outcome, the table's geometry built once): about a second or two of work.
# A procedure worked out in stages (an assault's rounds) runs one stage at a time on a copy,
# about a fifth of the work of a whole run: two rifle platoons against a company over the
# chart's six rounds make about 30,000 of them (some 10 s of CPU on a busy machine).
ODDS_LIMIT = 10_000
ODDS_STAGE_LIMIT = 32_000


@mutable_dataclass
class Outcome:
    seq: int
    command: str
    turn: int
    phase: str
    result: ActionResult
    rolls: list[Roll] = field(default_factory=list)


class Game:
    def __init__(self, store: Store):
        self.store = store
        # Told of each action executed (the CLI shows its dice after the command's output).
        self.on_outcome: Callable[[Outcome], None] | None = None

    # --- opening ----------------------------------------------------------------------------

    @classmethod
    def open(cls, path: GameFile) -> Game:
        return cls(Store.open(path))

    @classmethod
    def open_read_only(cls, path: GameFile) -> Game:
        """The game for reading only, every read one snapshot until ``close``, however other
        commands write meanwhile (``tabletop serve``): nothing done through it can change
        the file."""
        return cls(Store.open_read_only(path))

    @classmethod
    def create(cls, path: GameFile, loaded: LoadedScenario, seed: int, *, force: bool) -> Game:
        state = opening_state(loaded, seed)
        rows = state.canonical()
        charts_json = canonical(loaded.charts.raw)
        # Event 1 records digests of the scenario and charts the game keeps, so 'verify' can
        # tell when the stored copies were edited (they sit outside the hash chain).
        first = {
            "kind": "action",
            "command": "new",
            "turn": state.turn,
            "phase": state.phase,
            "inputs": {
                "scenario": loaded.source,
                "sha256": text_hash(loaded.text),
                "seed": seed,
                "sha256_charts": text_hash(charts_json),
            },
            "rolls": [],
            "result": {"name": loaded.scenario.name, "stands": len(state.stand_ids())},
            "undo": {},
            "undoes": None,
            "state_hash": state_hash(rows),
        }
        row = GameRow(
            name=loaded.scenario.name,
            scenario_source=loaded.source,
            scenario_text=loaded.text,
            charts_json=charts_json,
            seed=seed,
            charts_format=CHARTS_FORMAT,
            scenario_json=None if loaded.data is None else canonical(loaded.data),
        )
        return cls(Store.create(path, row, rows, first, force=force, hash_event=event_hash))

    def close(self) -> None:
        self.store.close()

    @cached_property
    def info(self) -> GameRow:
        return self.store.game()

    @cached_property
    def loaded(self) -> LoadedScenario:
        """The scenario and charts the game was started with (as stored in the file)."""
        return stored_scenario(self.info)

    def state(self) -> State:
        return State.from_db(self.store.rows())

    def context(self, state: State | None = None, dice: Any = None) -> RulesContext:
        """A read-only context over the current state (for measure, odds, status)."""
        loaded = self.loaded
        return RulesContext(
            state or self.state(), dice or Dice(self.info.seed), loaded.scenario, loaded.charts
        )

    # --- reading ------------------------------------------------------------------------------

    def events(self, *, stand: str | None = None, last: int | None = None) -> list[EventRow]:
        """The log in order (only events involving ``stand``; only the ``last`` N)."""
        return self.store.events(stand=stand, last=last)

    def past_states(self) -> Iterator[State]:
        """The states after each action still in force, newest first, back to the opening.

        Rebuilt from the log's before-images; consecutive states that differ in nothing a
        side's sight depends on (stands, templates, terrain, conditions, turn, phase) are
        given once.
        """
        rows = self.store.rows()
        events = self.store.events()
        undone = {ev.undoes for ev in events if ev.kind == "undo"}
        last_key: tuple[Any, ...] | None = None

        def key() -> tuple[Any, ...]:
            meta = json.loads(rows["meta"])
            seen = sorted(
                (k, v)
                for k, v in rows.items()
                if k.startswith(("stand:", "template:", "terrain:")) or k == "conditions"
            )
            return (meta.get("turn"), meta.get("phase"), tuple(seen))

        for ev in reversed(events):
            if ev.kind != "undo" and ev.seq not in undone:
                now = key()
                if now != last_key:
                    last_key = now
                    yield State.from_db(rows)
            for k, value in ev.undo.items():
                if value is None:
                    rows.pop(k, None)
                else:
                    rows[k] = value

    def knowledge(
        self, view: str, ctx: RulesContext | None = None, state: State | None = None
    ) -> Knowledge:
        """What ``view`` (``referee`` or a side) knows now, last-seen markers included.

        The referee's needs neither the scenario nor the charts, so it costs nothing."""
        if view == REFEREE:
            now = state or (ctx.state if ctx is not None else self.state())
            mine: Knowledge = _views().Knowledge(view, {s["id"]: s["side"] for s in now.stands()})
            return mine
        # A side's knowledge looks at every past state for its last-seen markers; a warm
        # process (play, serve, a handout after a status) asking again about the same game,
        # unchanged since (the log's head is the same), is given the same answer.
        key = (os.path.realpath(self.store.path), self.store.last_hash(), view)
        known = _KNOWN.get(key)
        if known is None:
            known = _views().knowledge(ctx or self.context(state), view, self.past_states())
            while len(_KNOWN) >= KNOWN_KEPT:
                _KNOWN.pop(next(iter(_KNOWN)))
            _KNOWN[key] = known
        return known

    def origin(self) -> str:
        """The hash of the game's first event: which game this file holds (a new game
        started over it has another)."""
        first = self.store.event(1)
        return "" if first is None else first.hash

    def head(self) -> tuple[int, str]:
        """The log's last event: its number and its hash."""
        return self.store.next_seq() - 1, self.store.last_hash()

    def event_count(self) -> int:
        """How many events the log holds (undos and redos included)."""
        return self.store.next_seq() - 1

    def events_for(self, known: Knowledge) -> list[EventView]:
        """The whole log as ``known.view`` may read it."""
        events: list[EventView] = _views().events_for_view(self.store.events(), known)
        return events

    # --- changing -----------------------------------------------------------------------------

    def execute(
        self,
        command: str,
        inputs: dict[str, Any],
        *,
        physical: list[int] | None = None,
        ask: Callable[[int, str], int | None] | None = None,
        rest: str = REFUSE,
    ) -> Outcome:
        run = procedure(command)
        loaded = self.loaded
        with self.store.transaction():
            before = self.store.rows()
            state = State.from_db(before)
            when = (state.turn, state.phase)  # the log dates an event by when it was issued
            dice = Dice(
                self.info.seed,
                int(state.meta["rng_counter"]),
                list(physical or []),
                ask=ask,
                rest=rest,
            )
            ctx = RulesContext(state, dice, loaded.scenario, loaded.charts)
            # With too few --dice the procedure runs to the end on generated dice, so the
            # refusal can name every die it needs; nothing is written before it.
            result = run(ctx, inputs)
            dice.finish()
            if dice.unused:
                result = {
                    **result,
                    "unused_dice": {"values": dice.unused, "why": "; ".join(dice.fewer_because)},
                }
            state.meta["rng_counter"] = dice.counter
            after = state.canonical()
            writes, undo = diff(before, after)
            self.store.write_rows(writes)
            rolls = [r.as_dict() for r in dice.rolls]
            event = {
                "kind": "action",
                "command": command,
                "turn": when[0],
                "phase": when[1],
                "inputs": inputs,
                "rolls": rolls,
                "result": result,
                "undo": undo,
                "undoes": None,
                "state_hash": state_hash(after),
            }
            seq = self.store.next_seq()
            self.store.append_event(event, subjects=sorted(ctx.subjects), hash_event=event_hash)
        outcome = Outcome(seq, command, state.turn, state.phase, result, list(dice.rolls))
        if self.on_outcome is not None:
            self.on_outcome(outcome)
        return outcome

    def odds(self, command: str, inputs: dict[str, Any], limit: int = ODDS_LIMIT) -> OddsReport:
        """The exact distribution of what ``command`` would do now, by running its registered
        procedure over every face of every die it asks for (``tabletop.core.odds``: one face
        per band where only bands matter), each run on a fresh copy of the state; a command
        in stages (``actions.ODDS_STAGES``: an assault's rounds) one stage at a time, equal
        positions merged; one made of a step repeated (``actions.ODDS_REPEATS``: NdX) by
        convolving the step's distribution. Nothing is written or logged; a command the
        rules refuse now is refused the same way."""

        run = procedure(command)
        tell = odds_outcome(command) or outcome_of
        loaded = self.loaded
        rows = self.store.rows()
        results: dict[str, dict[str, Any]] = {}
        # The table's geometry depends on the scenario only: built once, not for every run.
        table: Any = None

        # The state read once; each run gets a deep copy (``marshal`` is many times quicker
        # than reading the rows' JSON again). Made for a plain distribution only (below).
        frozen = b""

        def one(dice: Any) -> str:
            nonlocal table
            ctx = RulesContext(State(marshal.loads(frozen)), dice, loaded.scenario, loaded.charts)
            ctx._table = table
            try:
                key, shown = tell(run(ctx, inputs))
            finally:
                table = ctx._table
            results.setdefault(key, shown)
            return key

        def staged(stages: Any) -> dict[str, Fraction]:
            ctx = RulesContext(State.from_db(rows), no_dice(), loaded.scenario, loaded.charts)
            first = stages.begin(ctx, inputs)
            dist: dict[str, Fraction] = {}

            def told(position: Any) -> tuple[str, dict[str, Any]]:
                # Each end told as it is first reached (``by_stages``), its position let go.
                return tell(stages.finish(position))

            for (key, shown), p in by_stages(
                first,
                stages.stage,
                stages.over,
                stages.key,
                stages.copy,
                limit * ODDS_STAGE_LIMIT // ODDS_LIMIT,
                stages if hasattr(stages, "stage_key") else None,
                finish=told,
            ):
                results.setdefault(key, shown)
                before = dist.get(key)
                dist[key] = p if before is None else before + p
            return dist

        def repeats(plan: Any) -> dict[str, Fraction]:
            ctx = RulesContext(State.from_db(rows), no_dice(), loaded.scenario, loaded.charts)
            found = plan(ctx, inputs)
            dist: dict[str, Fraction] = {}
            for state, p in repeated(found, limit).items():
                key, shown = tell(found.finish(state))
                results.setdefault(key, shown)
                dist[key] = dist.get(key, Fraction(0)) + p
            return dist

        stages = odds_stages(command)
        plan = odds_repeats(command)
        try:
            if plan is not None:
                dist = repeats(plan)
            elif stages is not None:
                dist = staged(stages)
            else:
                frozen = marshal.dumps(State.from_db(rows).rows)
                dist = distribution(one, limit)
        except TooManyBranches as exc:
            raise BadInput(
                f"the odds of {command} cannot be worked out exactly here: its dice branch "
                f"more than {exc.limit} ways (many dice, or a re-roll that may repeat); ask "
                + (
                    "for fewer rounds (--rounds N) or fewer stands"
                    if stages is not None
                    else "for a smaller case (fewer stands or dice)"
                )
            ) from None
        # Sorted and summed over one common denominator, in whole numbers: an assault has
        # a thousand outcomes or more, and fractions compare and add far slower.
        common = math.lcm(*(p.denominator for p in dist.values()))
        scaled = {key: p.numerator * (common // p.denominator) for key, p in dist.items()}
        ordered = sorted(dist.items(), key=lambda kv: (-scaled[kv[0]], kv[0]))
        totals: dict[str, int] = {}
        for key, _ in ordered:
            for name, value in results[key].items():
                if isinstance(value, bool):
                    value = int(value)
                if isinstance(value, int):
                    totals[name] = totals.get(name, 0) + scaled[key] * value
        expected = {name: Fraction(total, common) for name, total in totals.items()}
        return OddsReport(command, dict(ordered), expected, results)

    def undo_plan(self, to: int | None = None) -> UndoPlan:
        """What ``undo`` (or ``undo --to N``) would take back, without changing anything.

        Actions are taken back newest first. ``to`` keeps event N and everything before it.
        The plan says whether the game would go back into an earlier turn.
        """
        done, _ = undo_stacks(self._log_outline())
        last = self.store.next_seq() - 1
        if to is not None and not 1 <= to <= last:
            raise BadInput(f"--to {to}: the log holds events 1 to {last}")
        if not done:
            raise RulesRefusal(
                "nothing to undo: every command since 'new' has already been undone"
                if last > 1
                else "nothing to undo: the log holds only the start of the game"
            )
        seqs = [done[-1]] if to is None else [s for s in reversed(done) if s > to]
        if not seqs:
            assert to is not None
            raise RulesRefusal(
                f"nothing to undo after event {to}: the last command still in force is #{done[-1]}"
                if done[-1] <= to
                else f"nothing to undo after event {to}"
            )
        targets = [ev for ev in (self.store.event(s) for s in seqs) if ev is not None]
        rows = self.store.rows()
        now = State.from_db(rows)
        for ev in targets:
            _put_back(rows, ev.undo)
        then = State.from_db(rows)
        return UndoPlan(targets, (now.turn, now.phase), (then.turn, then.phase))

    def undo(self, to: int | None = None, *, cross_turns: bool = False) -> UndoDone:
        """Take back the last action (or every action after event ``to``), each logged as
        its own undo event; refused when it would go back into an earlier turn unless
        ``cross_turns``."""
        with self.store.transaction():
            plan = self.undo_plan(to)
            if plan.crosses_turn and not cross_turns:
                raise RulesRefusal(
                    f"undo would take the game back from turn {plan.now[0]} to turn "
                    f"{plan.then[0]} ({plan.names()}): add --yes to go back across the turn"
                )
            seqs: list[int] = []
            for target in plan.targets:
                seqs.append(self._append_reversal(target, "undo", {"undid": target.seq}))
        after = self.state()
        return UndoDone(seqs, plan.targets, after.turn, after.phase)

    def redo_plan(self, every: bool = False) -> list[tuple[EventRow, EventRow]]:
        """The (undone action, its undo event) pairs ``redo`` would put back, in order."""
        _, redoable = undo_stacks(self._log_outline())
        if not redoable:
            raise RulesRefusal(self._nothing_to_redo())
        pairs = list(reversed(redoable)) if every else [redoable[-1]]
        out = []
        for action, undo_seq in pairs:
            a, u = self.store.event(action), self.store.event(undo_seq)
            if a is not None and u is not None:
                out.append((a, u))
        return out

    def redo(self, every: bool = False) -> UndoDone:
        """Put back the last undone action (or all of them) while nothing new was logged.

        A redo is logged as the reversal of the undo event: it restores the state the undo
        took away (the action's own after-state, its dice generator included)."""
        with self.store.transaction():
            pairs = self.redo_plan(every)
            seqs: list[int] = []
            for action, undo_event in pairs:
                if state_hash(self.store.rows()) != undo_event.state_hash:
                    raise RulesRefusal(
                        f"cannot redo #{action.seq}: the game is no longer as undo "
                        f"#{undo_event.seq} left it"
                    )
                seqs.append(
                    self._append_reversal(
                        undo_event, "redo", {"redid": action.seq, "command": action.command}
                    )
                )
        after = self.state()
        return UndoDone(seqs, [a for a, _ in pairs], after.turn, after.phase)

    def _append_reversal(self, target: EventRow, command: str, result: dict[str, Any]) -> int:
        """Append an event (kind 'undo') that puts ``target``'s before-image back."""
        before = self.store.rows()
        after = dict(before)
        _put_back(after, target.undo)
        writes, undo = diff(before, after)
        self.store.write_rows(writes)
        state = State.from_db(after)
        result = {**result, "command": result.get("command", target.command)}
        event = {
            "kind": "undo",
            "command": command,
            "turn": state.turn,
            "phase": state.phase,
            "inputs": {},
            "rolls": [],
            "result": result,
            "undo": undo,
            "undoes": target.seq,
            "state_hash": state_hash(after),
        }
        seq = self.store.next_seq()
        subjects = [
            r[0]
            for r in self.store.conn.execute(
                "SELECT stand FROM event_subjects WHERE seq = ?", (target.seq,)
            )
        ]
        self.store.append_event(event, subjects=subjects, hash_event=event_hash)
        return seq

    def _log_outline(self) -> list[tuple[int, str, str, int | None]]:
        return [
            (int(r[0]), str(r[1]), str(r[2]), r[3])
            for r in self.store.conn.execute(
                "SELECT seq, kind, command, undoes FROM events ORDER BY seq"
            )
        ]

    def _nothing_to_redo(self) -> str:
        outline = self._log_outline()
        undos = [row for row in outline if row[1] == "undo" and row[2] == "undo"]
        if not undos:
            return "nothing to redo: no command has been undone"
        later = [row for row in outline if row[1] == "action" and row[0] > undos[-1][0]]
        if later:
            return (
                f"nothing to redo: #{later[0][0]} ({later[0][2]}) was logged after the last "
                f"undo, so what was undone stays undone"
            )
        return "nothing to redo: every undone command has been redone"

    # --- checking -----------------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        """Walk the hash chain; name the first event that does not fit."""
        prev = "0" * 64
        expected_seq = 1
        count = 0
        for ev in self.store.events():
            count += 1
            if ev.seq != expected_seq:
                # Name the missing seq: it is the first event that is not as recorded.
                return VerifyReport(False, count, expected_seq, f"event {expected_seq} is missing")
            if ev.prev_hash != prev:
                return VerifyReport(
                    False,
                    count,
                    ev.seq,
                    f"event {ev.seq} does not follow event {ev.seq - 1} (removed or reordered)",
                )
            if event_hash(prev, ev.hashed_fields()) != ev.hash:
                return VerifyReport(False, count, ev.seq, f"event {ev.seq} was edited")
            prev = ev.hash
            expected_seq += 1
        if count == 0:
            return VerifyReport(False, 0, None, "the log is empty")
        origin = self._origin_problem()
        if origin is not None:
            return VerifyReport(False, count, 1, origin)
        current = state_hash(self.store.rows())
        last = self.store.events(last=1)[0]
        if current != last.state_hash:
            return VerifyReport(
                False,
                count,
                last.seq,
                f"the stored state does not match the state after event {last.seq}",
            )
        return VerifyReport(True, count, None, "hash chain intact", head=prev)

    def _origin_problem(self) -> str | None:
        """The scenario, charts and seed kept in the file must be those event 1 recorded."""
        first = self.store.event(1)
        if first is None or first.command != "new" or not isinstance(first.inputs, dict):
            return "event 1 is not the start of a game ('new')"
        row, recorded = self.info, first.inputs
        kept = {
            "sha256": (text_hash(row.scenario_text), "scenario"),
            "sha256_charts": (text_hash(row.charts_json), "charts"),
            "seed": (row.seed, "dice seed"),
        }
        for key, (value, what) in kept.items():
            # Games started before a digest was recorded have no entry to compare with.
            if key in recorded and recorded[key] != value:
                return f"the game's {what} is not the one recorded when it began (event 1)"
        # The parsed copy commands use must be the recorded scenario's own.
        if row.scenario_json is not None and json.loads(row.scenario_json) != json.loads(
            canonical(scenario_loader().scenario_data(row.scenario_text))
        ):
            return "the game's parsed scenario does not match its recorded text"
        return None

    def replay(self, progress: Callable[[int, int], None] | None = None) -> ReplayReport:
        row = self.info
        # Replay checks everything again, the stored scenario and charts included.
        loaded: LoadedScenario = scenario_loader().parse_scenario(
            row.scenario_text,
            row.scenario_source,
            charts_raw=self.loaded.charts.raw,
            profiles=profile_lookup,
        )
        state = opening_state(loaded, row.seed)
        events = self.store.events()
        by_seq = {ev.seq: ev for ev in events}
        if not events or events[0].command != "new":
            return ReplayReport(False, 0, 1, "the log does not start with 'new'")
        from_log = state_hash(state.canonical()) != events[0].state_hash
        if from_log:
            # This program builds another opening state than the one that started the game
            # (a later version added rows or keys): take the game's own from its log.
            recorded = self._opening_from_log(events)
            if recorded is None:
                return ReplayReport(
                    False, 1, 1, "the scenario no longer builds the opening state recorded at 'new'"
                )
            state = State.from_db(recorded)
        for done, ev in enumerate(events[1:], start=2):
            if progress is not None:
                progress(done, len(events))
            if ev.kind == "undo":
                # An undo puts its action's before-image back; a redo puts back the
                # before-image of the undo it reverses (the action's after-state).
                target = by_seq.get(ev.undoes or -1)
                if target is None:
                    return ReplayReport(False, done, ev.seq, f"undo of a missing event {ev.undoes}")
                if (ev.command == "redo") != (target.kind == "undo"):
                    what = f"{ev.command} of event {target.seq} ({target.command})"
                    return ReplayReport(False, done, ev.seq, what)
                rows = state.canonical()
                _put_back(rows, target.undo)
                state = State.from_db(rows)
            else:
                problem = self._replay_action(ev, loaded, state, row.seed)
                if problem is not None:
                    return ReplayReport(False, done, ev.seq, problem)
            if state_hash(state.canonical()) != ev.state_hash:
                return ReplayReport(
                    False,
                    done,
                    ev.seq,
                    f"state after event {ev.seq} ({ev.command}) differs from the recorded state"
                    f"{_first_difference(state.canonical(), self._state_at(ev))}",
                )
        stored = self.store.rows()
        if state.canonical() != stored:
            last = events[-1]
            return ReplayReport(
                False,
                len(events),
                last.seq,
                f"the stored state is not the state after event {last.seq} ({last.command})"
                f"{_first_difference(state.canonical(), stored)}",
            )
        message = "replay reproduces the stored state"
        if from_log:
            message += " (from the opening state in the log: this version builds it differently)"
        return ReplayReport(True, len(events), None, message)

    def _opening_from_log(self, events: list[EventRow]) -> dict[str, str] | None:
        """The state recorded at 'new': the stored state with each event's before-image put
        back, newest first; None when that does not give the state event 1 recorded."""
        rows = self.store.rows()
        for ev in reversed(events[1:]):
            _put_back(rows, ev.undo)
        return rows if state_hash(rows) == events[0].state_hash else None

    def _replay_action(
        self, ev: EventRow, loaded: LoadedScenario, state: State, seed: int
    ) -> str | None:
        dice = ReplayDice(seed, int(state.meta["rng_counter"]), ev.rolls)
        ctx = RulesContext(state, dice, loaded.scenario, loaded.charts)
        try:
            procedure(ev.command)(ctx, ev.inputs)
        except ReplayMismatch as exc:
            return f"event {ev.seq} ({ev.command}): {exc}"
        except TabletopError as exc:
            return f"event {ev.seq} ({ev.command}) is refused on replay: {exc}"
        if dice.left:
            more = count(dice.left, "more roll")
            return f"event {ev.seq} ({ev.command}) recorded {more} than replay used"
        state.meta["rng_counter"] = dice.counter
        # The state (checked by hash after each event) and the dice must match; the result's
        # wording may change between versions of the program without changing the game.
        return None

    def _state_at(self, ev: EventRow) -> dict[str, str] | None:
        # Only the final state is stored; a mid-log divergence can name the event, not the row.
        return self.store.rows() if ev.seq == self.store.next_seq() - 1 else None


# The result fields that tell one outcome from another, in the order shown; a result with
# none of them is told by its verdict.
OUTCOME_FIELDS = (
    "result",
    "outcome",
    "mired",
    "damaged",
    "landed",
    "hits",
    "effects",
    "losses",
    "lost",
    "eliminated",
    "attacks",
    "state",
    "status",
)


def outcome_of(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The outcome a result stands for: a readable key and the fields it was made from."""
    fields = {k: result[k] for k in OUTCOME_FIELDS if k in result and result[k] is not None}
    happened = result.get("happened")
    if not fields and isinstance(happened, list):
        # A phase boundary: what each of its rolls did (minefield attacks, depletion, ...),
        # each item by what it was about and what came of it, not by the face that told it.
        rolled = [h for h in happened if isinstance(h, dict) and h.get("rolls")]
        told: dict[str, Any] = {}
        for h in rolled:
            label = " ".join(str(h[k]) for k in ("stand", "weapon", "what") if h.get(k))
            n = 2
            while label in told:  # the same stand's second die of the same kind
                label = f"{label.rsplit(' #', 1)[0]} #{n}"
                n += 1
            told[label] = without_faces(str(h.get("result")))
        return "; ".join(f"{k}: {v}" for k, v in told.items()) or "nothing rolled", told
    if not fields:
        verdict = str(result.get("verdict", "done"))
        return verdict, {}
    parts = []
    for k, v in fields.items():
        shown = v if isinstance(v, str | int | float | bool) else canonical(v)
        parts.append(f"{k} {str(shown).lower() if isinstance(v, bool) else shown}")
    return ", ".join(parts), fields


@mutable_dataclass
class OddsReport:
    """Each outcome's exact probability (most likely first), the expected value of each
    whole-number field, and the fields each outcome was told by."""

    command: str
    outcomes: dict[str, Fraction]
    expected: dict[str, Fraction]
    fields: dict[str, dict[str, Any]]


@mutable_dataclass
class UndoPlan:
    """The actions an undo would take back (newest first), and the turn and phase now
    and after."""

    targets: list[EventRow]
    now: tuple[int, str]
    then: tuple[int, str]

    @property
    def crosses_turn(self) -> bool:
        return self.then[0] != self.now[0]

    def names(self) -> str:
        return ", ".join(f"#{ev.seq} {ev.command}" for ev in self.targets)


@mutable_dataclass
class UndoDone:
    """The undo (or redo) events logged, the actions they took back (or put back), and
    the turn and phase the game is now in."""

    events: list[int]
    actions: list[EventRow]
    turn: int
    phase: str


def undo_stacks(
    outline: list[tuple[int, str, str, int | None]],
) -> tuple[list[int], list[tuple[int, int]]]:
    """From the log's (seq, kind, command, undoes): the actions in force (oldest first),
    and the undone actions that may be redone with their undo events (last undone last).

    A new action empties the redo stack: once something new was logged, what was undone
    stays undone."""
    done: list[int] = []
    redoable: list[tuple[int, int]] = []
    for seq, kind, command, undoes in outline:
        if seq == 1:
            continue
        if kind == "action":
            done.append(seq)
            redoable.clear()
        elif command == "redo":
            for i in range(len(redoable) - 1, -1, -1):
                if redoable[i][1] == undoes:
                    done.append(redoable.pop(i)[0])
                    break
        elif undoes in done:
            done.remove(undoes)
            redoable.append((undoes, seq))
    return done, redoable


def undone_actions(events: list[EventRow]) -> set[int]:
    """The actions the log's undos (and redos) leave taken back."""
    outline = [(ev.seq, ev.kind, ev.command, ev.undoes) for ev in events]
    done, _ = undo_stacks(outline)
    in_force = set(done)
    return {ev.seq for ev in events if ev.kind == "action" and ev.seq > 1} - in_force


def _put_back(rows: dict[str, str], image: dict[str, str | None]) -> None:
    for key, value in image.items():
        if value is None:
            rows.pop(key, None)
        else:
            rows[key] = value


@mutable_dataclass
class VerifyReport:
    ok: bool
    events: int
    first_bad: int | None
    message: str
    # The last event's hash when the log is intact. The chain has no secret key: a log cut
    # short, or rewritten and hashed again, is caught only against a head noted earlier.
    head: str | None = None


@mutable_dataclass
class ReplayReport:
    ok: bool
    events: int
    first_divergence: int | None
    message: str


class ReplayMismatch(TabletopError):
    pass


class ReplayDice(Dice):
    """Dice that give back a recorded event's rolls, regenerating the generated ones."""

    def __init__(self, seed: int, counter: int, recorded: list[dict[str, Any]]):
        super().__init__(seed, counter)
        self._recorded = list(recorded)

    @property
    def left(self) -> int:
        return len(self._recorded)

    def roll(self, sides: int, purpose: str) -> int:
        if not self._recorded:
            raise ReplayMismatch(f"replay needs a roll the log does not have ({purpose})")
        if self._recorded[0]["purpose"] != purpose:
            # Logged by a version that took the dice in another order (fire took each
            # to-hit die's effect die straight after it): take the die logged for this
            # purpose. The state check after the event still proves the outcome.
            for i, logged in enumerate(self._recorded):
                if logged["purpose"] == purpose and logged["die"] == sides:
                    want = self._recorded.pop(i)
                    source = str(want["source"])
                    if source == GENERATED:
                        self.counter += 1
                    return self._record(sides, int(want["value"]), purpose, source)
        want = self._recorded.pop(0)
        if want["die"] != sides:
            raise ReplayMismatch(f"the log has a d{want['die']} where replay rolls a d{sides}")
        if want["source"] == PHYSICAL:
            return self._record(sides, int(want["value"]), purpose, PHYSICAL)
        value = self._generate(sides)
        if value != want["value"]:
            raise ReplayMismatch(
                f"the generator gives {value} where the log has {want['value']} ({purpose})"
            )
        return self._record(sides, value, purpose, GENERATED)


def _first_difference(replayed: dict[str, str], stored: dict[str, str] | None) -> str:
    if stored is None:
        return ""
    for key in sorted(set(replayed) | set(stored)):
        if replayed.get(key) != stored.get(key):
            return f": row {key!r} differs"
    return ""
