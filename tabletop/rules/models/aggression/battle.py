"""Close combat between stands in contact: ``tabletop assault`` (seed 003, "AGG <topic>").

A battle is fought in rounds. In each round every unit fires at one enemy chosen by target
priority (ambushers first fire a free shot); the damage lands at the end of the round. Then
the retreat section: the sides are checked in order of damage received, each unit in order
of its own damage; a unit that fails its test retreats one hex along the first allowed
bearing (a loss for each step away from its own), or surrenders or fights on when no bearing
is allowed. Pursuers follow and push the retreating unit a further hex. The battle ends when
one side has left; the victor takes a share of the discarded equipment.

The stand's record under ``stand["models"]["aggression"]`` keeps ``strength``, ``af``,
``retreat_bearing``, ``pursue``, ``target``, ``works`` (with where it was dug), ``surplus``,
``equipment`` (captured), ``fought_turn``, ``retreated_turn`` and ``assaulted`` (the turn,
phase and count of the assaults it started: one a phase, AGG Combat default).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Iterator
from dataclasses import field, replace
from functools import cached_property
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import mutable_dataclass
from tabletop.core.odds import no_dice
from tabletop.core.units import within
from tabletop.core.words import count
from tabletop.data.board import base_of
from tabletop.rules.cd.ammo_state import weapon_status
from tabletop.rules.context import RulesContext
from tabletop.rules.models.aggression import rules
from tabletop.rules.models.aggression.chart import UNIT_TYPES, AggressionChart, Profile
from tabletop.rules.models.aggression.ground import Ground, near_route
from tabletop.rules.models.aggression.orders import Orders, parse_orders
from tabletop.state.document import StandRow, centre, position
from tabletop.table import distance
from tabletop.table.measure import heading

MODEL = "aggression"
_NOBODY_LEFT: tuple[Any, ...] = ((), (), (), ())
_NO_ONE: frozenset[str] = frozenset()
_NO_DICE = no_dice()

# One shooter's aim in a round (``Battle._aiming``): who fires, whether it is a free ambush
# shot, the target's priority stage, whom it fires at, the shot's working and its die's
# purpose.
Aim = tuple[str, bool, str, str, rules.ShotWorking, str]


@mutable_dataclass
class Fighter:
    id: str
    side: str
    attacker: bool
    row: StandRow
    record: dict[str, Any]
    profile: Profile
    training: str
    moving: bool
    af: int
    strength: int
    start_strength: int
    retreat_bearing: float
    bearing_from: str
    works: str | None = None
    fits: bool = True
    admin: bool = False
    ambusher: bool = False
    joined: bool = False
    disengage: bool = False
    present: bool = True
    gone: str | None = None
    notes: list[str] = field(default_factory=list)
    # Whether it is a leader (its profile's type), asked at every turn of a round.
    leader: bool = field(init=False)
    silent: bool = field(init=False)
    # Whether ``row`` (and ``record`` in it) is this fighter's own to change, or still the
    # row of the battle it was copied from (``Battle.copy``, ``Battle._own``).
    owns_row: bool = field(default=True, init=False)
    # What ``Battle.position`` reads of the row and record (``Battle._placing``), kept until
    # they change (``Battle._own`` forgets it): most rounds move no stand, and the odds key
    # every position a round reaches.
    placing: tuple[Any, ...] | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.leader = self.profile.type == "leader"
        # Never fires in a round (``Battle._round``): a leader, or a unit without firepower.
        self.silent = self.leader or self.profile.firepower == 0

    @property
    def engages_as(self) -> str:
        return "anti-tank" if self.profile.anti_tank else self.profile.type

    @cached_property
    def enemy(self) -> rules.Enemy:
        return rules.Enemy(self.id, self.profile.type, self.leader)


def assault(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """The ``assault`` action: validate, fight the rounds, write the stands back."""
    before = _records_before(ctx, inputs)
    battle = Battle.open(ctx, inputs)
    battle.fight()
    for f in battle.fighters:
        if f.attacker:  # the limit checked in ``Battle.open`` (AGG Combat, default)
            count = _assaults_this_phase(ctx, f.record) + 1
            turn, phase = ctx.state.turn, ctx.state.phase
            f.record["assaulted"] = {"turn": turn, "phase": phase, "count": count}
            f.record["assaulted_rule"] = ONCE_RULE
    out = battle.result()
    for f in battle.fighters:  # beside each fact the assault set, the rule that set it
        old = before.get(f.id) or {}
        for key, value in list(f.record.items()):
            if key.endswith("_rule") or key == "assaulted" or old.get(key) == value:
                continue
            f.record[f"{key}_rule"] = f"{FACT_RULES.get(key, 'AGG Combat')}: assault"
    return out


class Battle:
    def __init__(
        self, ctx: RulesContext, chart: AggressionChart, fighters: list[Fighter], limit: int
    ):
        self.ctx = ctx
        # The dice of the rounds: the game's; the odds give each copy its own (``stage``).
        self.dice = ctx.dice
        self.turn = ctx.state.turn
        self.chart = chart
        self.fighters = fighters
        self.by_id = {f.id: f for f in fighters}
        self.limit = limit
        self.sides = list(dict.fromkeys(f.side for f in fighters))
        # Who attacked and who defended, as the result lists them (``outcome``).
        self.attackers = [f.id for f in fighters if f.attacker]
        self.defenders = [f.id for f in fighters if not f.attacker]
        # Each side's units still in the fight (``_gone`` takes them out).
        self.here = {side: 0 for side in self.sides}
        for f in fighters:
            self.here[f.side] += f.present
        # A side has no unit left in the fight (``_gone`` keeps it): asked several times a
        # round, and of every position the odds reach.
        self.side_gone = 0 in self.here.values()
        # Rounds fought, and the working of each (``rounds``, its tests' ``chances``) when
        # the battle tells it.
        self.fought = 0
        self.rounds: list[dict[str, Any]] = []
        self.chances: dict[str, list[int]] = {}
        self.retreated: list[dict[str, Any]] = []
        self.disengaged: list[dict[str, Any]] = []
        self.surrendered: list[str] = []
        self.eliminated: list[str] = []
        self.lines: list[str] = []
        # Whether the battle tells what happens: its words (``lines``) and each round's
        # working (``rounds``, ``chances``). Its odds want only how it ends (``outcome``).
        self.telling = True
        self.admin_firing: dict[str, list[str]] = {}
        # Answers of the table's geometry (``_forbidden``) and of the retreat chart
        # (``_test``), shared with copies: the odds meet the same question on many branches.
        self._ground_seen: dict[Any, list[str]] = {}
        # By the fields of the ``RetreatTest`` and of the ``ShotSituation`` (with who fires
        # at whom): a tuple is quicker to make and to hash than the frozen class.
        self._chance_seen: dict[tuple[Any, ...], rules.Chance] = {}
        self._shot_seen: dict[tuple[Any, ...], rules.ShotWorking] = {}
        self._spoils_seen: dict[tuple[int, int], rules.Spoils] = {}
        self._ways_seen: dict[tuple[Any, ...], Any] = {}
        self._targets_seen: dict[tuple[Any, ...], rules.TargetChoice] = {}
        self._pursuit_seen: dict[tuple[Any, ...], tuple[bool, str]] = {}
        self._order_seen: dict[tuple[int | None, ...], list[tuple[str, list[str]]]] = {}
        # The aims of the round to be played from this position, shared by its copies
        # (``copy`` makes the box, the first copy to play the round fills it): the odds play
        # one position's round a dozen times over, by different dice, and who fires at whom
        # with what chance is the same every time unless a die chose it (``_aiming``).
        self._aims_box: list[list[Aim]] | None = None
        # A leader left alone retreats (``_leaders_alone``): nothing to ask without one.
        self.has_leaders = any(f.leader for f in fighters)
        # Orders given with the command (``_check_lists``): whether a road column fights
        # (only then is a round's fire limited, ``_admin_allowed``), whether a unit is to
        # disengage, and each unit's friends that joined the fight (``_test``).
        self.road_column = False
        self.disengaging = False
        self.joined_friends = {f.id: 0 for f in fighters}
        # How far a unit retreats, and a pursued one falls back (AGG Retreats, AGG Pursuit).
        params, per_hex = chart.params, chart.scale.inches_per_hex
        self.retreat_inches = params.retreat_hexes * per_hex
        self.pursued_inches = params.pursued_hexes * per_hex
        # The bearings a retreat may take (AGG Retreat directions), and the factor a unit
        # that retreats goes to (AGG Aggression factors).
        self.directions = params.directions
        self.af_after_retreat = params.af_after_retreat
        for f in fighters:
            _ = f.enemy  # made once, before the odds' copies share the fighter's fields
            # Its fields in a plain table of its own. CPython keeps an instance's fields in
            # a table whose keys its class's instances share; ``copy`` copies such a table as
            # one of the same kind, and the interpreter reads the fields of those by its slow,
            # general path: about 8% of the odds' instructions went to that (measured with
            # callgrind; the odds read the copies' fields a few hundred thousand times).
            f.__dict__ = dict(f.__dict__)

    # --- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, ctx: RulesContext, inputs: dict[str, Any]) -> Battle:
        model_name = inputs.get("model") or MODEL
        if model_name != MODEL:
            raise BadInput(
                f"--model {model_name!r}: close combat is resolved by the {MODEL} model only"
            )
        attackers = _ids(inputs.get("attackers"), "ATTACKER")
        defenders = _ids(inputs.get("defenders"), "--against DEFENDER")
        everyone = attackers + defenders
        twice = sorted({s for s in everyone if everyone.count(s) > 1})
        if twice:
            raise BadInput(f"{twice[0]} is listed twice: name each stand once, on one side")
        state = ctx.state
        rows = {s: state.stand(s) for s in everyone}
        _check_sides(rows, attackers, defenders)
        chart = AggressionChart.of(ctx.charts)
        for sid in everyone:
            profile_id(ctx, chart, rows[sid], parse_profile_orders(inputs, sid))
        for sid, row in rows.items():
            if row["status"] == "eliminated":
                raise RulesRefusal(f"{sid} is eliminated and cannot fight (AGG Combat)")
            if row["x"] is None:
                raise BadInput(
                    f"{sid} has no position on the table: place it with "
                    f"'tabletop place {sid} X Y' (close combat needs bases in contact)"
                )
        _check_contact(ctx, chart, rows, attackers, defenders)
        limit = _rounds(inputs.get("rounds"), chart)
        orders = parse_orders(dict(inputs.get("options") or {}), everyone)
        fighters = [_fighter(ctx, chart, rows[s], s in attackers, orders, rows) for s in everyone]
        battle = cls(ctx, chart, fighters, limit)
        battle._check_lists(orders)
        battle._check_orders(orders)
        for f in fighters:
            if f.attacker and not chart.factor(f.af).initiates:
                raise RulesRefusal(
                    f"{f.id} is on AF {f.af} and never starts a fight (AGG Aggression "
                    "factors); order a factor of 2 or more with --set af."
                    f"{f.id}=N, or leave it out of the attack"
                )
            if (
                f.attacker
                and _assaults_this_phase(ctx, f.record) >= chart.params.assaults_per_phase
            ):
                most = chart.params.assaults_per_phase
                raise RulesRefusal(
                    f"{f.id} has already assaulted this {ctx.state.phase} phase of turn "
                    f"{ctx.state.turn}: a stand starts at most {most} assault"
                    f"{'s' if most != 1 else ''} a phase ({ONCE_RULE}); fight more rounds "
                    "with --rounds, or defend when the enemy attacks"
                )
        ctx.involve(*everyone)
        return battle

    def _check_lists(self, orders: Orders) -> None:
        for name in ("admin", "joined", "disengage"):
            for sid in orders.listed(name):
                setattr(self.by_id[sid], "admin" if name == "admin" else name, True)
        self.road_column = any(f.admin for f in self.fighters)
        self.disengaging = any(f.disengage for f in self.fighters)
        self.joined_friends = {
            f.id: sum(g.joined and g.side == f.side and g is not f for g in self.fighters)
            for f in self.fighters
        }
        admin_victims = any(f.admin for f in self.fighters if f.attacker)
        for sid in orders.listed("ambush"):
            f = self.by_id[sid]
            if f.attacker:
                raise BadInput(
                    f"--set ambush: {sid} is an attacker; ambushers are stationary defenders "
                    "(AGG Ambush)"
                )
            found = rules.ambush(
                self.chart,
                stationary=not f.moving,
                enemy_type="",
                af_by_type={},
                default_af=f.af,
                admin_victim=admin_victims,
                on_route=near_route(self.ctx, f.row) if admin_victims else True,
            )
            f.ambusher = found.free_shots > 0

    def _check_orders(self, orders: Orders) -> None:
        """Orders given with this command that the rules or the battle do not allow."""
        for f in self.fighters:
            given = orders.of(f.id)
            if "pursue" in given:
                rules.check_pursuit_order(
                    self.chart, f.id, f.af, moving=f.moving, admin=f.admin, wanted=given["pursue"]
                )
            foes = [g.id for g in self.fighters if g.side != f.side]
            for target in given.get("target") or []:
                if target not in UNIT_TYPES and target not in foes:
                    raise BadInput(
                        f"--set target.{f.id}: {target!r} is neither a unit type "
                        f"({', '.join(UNIT_TYPES)}) nor an enemy in this assault "
                        f"({', '.join(foes)})"
                    )

    # --- the rounds ------------------------------------------------------------------------

    def fight(self) -> None:
        self.introduce()
        while not self.ended():
            self.next_round()

    def introduce(self) -> None:
        for f in self.fighters:
            self.lines.append(
                f"{f.id}: AF {f.af} {'moving' if f.moving else 'stationary'} "
                f"({self._meaning(f)}), {f.training}, strength {f.strength}, retreats "
                f"toward {f.retreat_bearing:.0f} ({f.bearing_from})"
                + (f"; {'; '.join(f.notes)}" if f.notes else "")
            )

    def ended(self) -> bool:
        """One side has left, or the rounds asked for are fought."""
        return self._ends(self.fought)

    def _ends(self, fought: int) -> bool:
        """``ended`` once ``fought`` rounds are fought."""
        return fought > 0 and (self.side_gone or fought >= self.limit)

    def next_round(self) -> None:
        self._round(self.fought + 1)

    def position(self, fought: int | None = None) -> Hashable:
        """Everything the rounds still to come and the odds' outcome (``odds_outcome``)
        depend on, between rounds; battles with the same position are merged by the odds
        (``AssaultStages``), so it holds no more than that. While the fight goes on: the
        rounds fought, and for each fighter what a round changes (strength, factor, whether
        and how it left, where its stand is); who retreated (and who pursued it),
        disengaged, surrendered or was destroyed, not in which round nor by which bearing;
        the road column's units free to fire. Once it is over, only what the outcome shows:
        who is left on the field, each stand's fate and losses. Never the rolls made, nor
        the words said about them. As if ``fought`` rounds had been fought, when given
        (``continued_key``; ``ended`` as of that many)."""
        if fought is None:
            fought = self.fought
        left = self._left()
        if self._ends(fought):
            fates = []
            for f in self.fighters:  # a loop, not a comprehension: a call less an end
                fates.append((f.strength, f.present, f.gone))
            return ("over", tuple(fates), left)
        return (fought, *self._going_on(left))

    def _left(self) -> tuple[Any, ...]:
        if not (self.retreated or self.disengaged or self.surrendered or self.eliminated):
            return _NOBODY_LEFT
        return (
            _leaving(self.retreated),
            _leaving(self.disengaged),
            tuple(sorted(self.surrendered)) if self.surrendered else (),
            tuple(sorted(self.eliminated)) if self.eliminated else (),
        )

    def _going_on(self, left: tuple[Any, ...]) -> tuple[Any, ...]:
        """``position`` while the fight goes on, but for the rounds fought."""
        fighters = []
        for f in self.fighters:  # a loop, not a comprehension: a call less a position
            fighters.append((f.strength, f.af, f.present, f.gone, f.placing or self._placing(f)))
        firing: tuple[Any, ...] = ()
        if self.admin_firing:  # only a road column's (``_admin_allowed``)
            firing = tuple(sorted((k, tuple(v)) for k, v in self.admin_firing.items()))
        return (tuple(fighters), left, firing)

    @staticmethod
    def _placing(f: Fighter) -> tuple[Any, ...]:
        """Where ``f``'s stand is and how it stands, as ``position`` tells it: kept on the
        fighter until its row changes (``_own``)."""
        row = f.row
        f.placing = placing = (
            row["x"],
            row["y"],
            row["status"],
            tuple(row["markers"]),
            row.get("moved_turn"),
            f.record.get("retreated_turn"),
        )
        return placing

    def stage_key(self) -> Hashable | None:
        """What the next round depends on when that is not its number: ``position`` without
        the rounds fought, battles of the same key playing their next round alike by the
        same rolls (the odds enumerate it once, ``continued``). None for the first round
        (ambushers fire a free shot) and while a road column fights (one more of it may fire
        each round, AGG Admin movement)."""
        if not self.fought or self.road_column:
            return None
        return self._going_on(self._left())

    def continued(self, origin: Battle, start: Battle) -> Battle:
        """This battle, which fought its last round from ``origin``, as if it had fought it
        from ``start`` (of the same ``stage_key``) by the same rolls: ``start``'s history
        (its rounds fought, who left before) with what the round added after it, the round
        renumbered. A battle that ended is itself: its ``position`` is its outcome, whenever
        it came (``by_stages`` merges ends of different rounds too). The odds' battles only,
        which tell neither words nor each round's working (``telling``)."""
        assert not self.telling, "only a battle that tells nothing is carried over"
        if self.ended():
            return self
        new = self.copy()
        new._aims_box = None  # its round is numbered as from ``start``: its aims its own
        number = new.fought = start.fought + 1
        new.retreated = [
            *start.retreated,
            *_renumbered(self.retreated[len(origin.retreated) :], number),
        ]
        new.disengaged = [
            *start.disengaged,
            *_renumbered(self.disengaged[len(origin.disengaged) :], number),
        ]
        new.surrendered = [*start.surrendered, *self.surrendered[len(origin.surrendered) :]]
        new.eliminated = [*start.eliminated, *self.eliminated[len(origin.eliminated) :]]
        return new

    def continued_key(self, key: Hashable, start: Battle) -> Hashable:
        """``continued(origin, start).position()`` without making that battle (``key`` is
        this battle's ``position``): its fighters and who left are this battle's (the
        same stage key), only its rounds fought are ``start``'s and one."""
        if self.ended():
            return key
        number = start.fought + 1
        if number >= self.limit:  # the round carried over is the last: an end
            return self.position(number)
        return (number, *key[1:])  # type: ignore[index]

    def copy(self) -> Battle:
        """A copy to play the next round on, sharing what a round never changes: the game's
        context (its state as the battle opened, the charts, the scenario and the table's
        geometry), the rounds already recorded and the answers kept. Of a fighter's row a
        round changes only its own fields, its markers and its aggression record's fields
        (``_put``, ``_gone``, ``_retreat``; the end of the battle too, ``result``), so those
        are copied, one level deep, when the copy first changes them (``_own``): most rounds
        move no stand. The copy's fighters stand in their own rows (``_ground`` reads them,
        not the state's). Who left and who is still here are shared too, made anew by the
        round that changes them; every other list or map a round adds to is copied."""
        if self._aims_box is None:
            self._aims_box = []
        # Each object's fields copied whole (``dict.copy`` copies a table at once, where
        # ``update`` would put the fields in one by one).
        fighters = []
        by_id = {}
        for f in self.fighters:
            g = object.__new__(Fighter)
            g.__dict__ = f.__dict__.copy()
            g.owns_row = False
            fighters.append(g)
            by_id[g.id] = g
        new = object.__new__(Battle)
        new.__dict__ = self.__dict__.copy()
        new.fighters = fighters
        new.by_id = by_id
        if self.telling:  # else never added to (``telling``)
            new.rounds = self.rounds[:]
            new.chances = {k: v[:] for k, v in self.chances.items()}
            new.lines = self.lines[:]
        # Who left and how (``retreated``, ``disengaged``, ``surrendered``, ``eliminated``)
        # and who is still here (``here``) are shared: a round that changes them makes them
        # anew (``_gone``, ``_retreat``), and most rounds do not.
        if self.road_column:  # else never added to (``_admin_allowed``)
            new.admin_firing = {k: v[:] for k, v in self.admin_firing.items()}
        return new

    @staticmethod
    def _own(f: Fighter) -> None:
        """``f``'s row and record made its own before they change (``copy``), and what
        ``position`` read of them forgotten (``_placing``)."""
        f.placing = None
        if not f.owns_row:
            f.row = row = _row_copy(f.row)
            f.record = row["models"][MODEL]
            f.owns_row = True

    def _meaning(self, f: Fighter) -> str:
        factor = self.chart.factor(f.af)
        return factor.moving if f.moving else factor.stationary

    def _present(self, side: str | None = None) -> list[Fighter]:
        if side is None:
            return [f for f in self.fighters if f.present]
        return [f for f in self.fighters if f.present and f.side == side]

    def _round(self, number: int) -> None:
        telling = self.telling
        self.fought = number
        shots: list[dict[str, Any]] = []
        record: dict[str, Any] | None = None
        if telling:
            self.lines.append(f"Round {number}:")
            record = {"round": number, "shots": shots, "tests": []}
            self.rounds.append(record)
        at_start = []
        for f in self.fighters:
            if f.present:
                f.start_strength = f.strength
                at_start.append(f)
        # Only a unit that leaves in this round is pursued (``_pursue``).
        left_before = len(self.retreated) + len(self.disengaged)
        damage: dict[str, int] = {}
        hits: dict[str, list[int]] = {}
        fired_at: dict[str, set[str]] = {}
        # Aimed as an earlier copy of this position did, or aimed now (``_aims_box``).
        box, self._aims_box = self._aims_box, None
        aims = box[0] if box else self._aiming(number, at_start, box)
        for shooter, free, stage, target, working, purpose in aims:
            shot = rules.take_shot(working, self.dice, purpose)
            if telling:
                self._tell_shot(shooter, free, stage, target, shot, shots)
            done = shot.damage
            fired_at.setdefault(target, set()).add(shooter)
            if done:
                damage[target] = damage.get(target, 0) + done
                hits.setdefault(target, []).append(done)
        if damage:
            self._apply_damage(damage, hits)
        if record is not None:
            record["damage"] = {f.id: damage.get(f.id, 0) for f in at_start}
        self._retreat_section(number, damage, record)
        self._disengage(number, record)
        if fired_at and len(self.retreated) + len(self.disengaged) > left_before:
            self._pursue(number, fired_at, record)
        if record is not None:
            record["strength"] = {f.id: f.strength for f in at_start}

    def _admin_allowed(self, number: int, present: list[Fighter]) -> set[str] | frozenset[str]:
        """AGG Admin movement: who of each side's road column may fire, chosen at random and
        kept for the turn, one more each round."""
        allowed: set[str] = set()
        if not any(f.admin for f in present):
            return allowed
        for side in self.sides:
            column = [f.id for f in present if f.side == side and f.admin]
            if not column:
                continue
            chosen = [c for c in self.admin_firing.setdefault(side, []) if c in column]
            room = rules.admin_firers_allowed(self.chart, number, len(column))
            while len(chosen) < room:
                left = [c for c in column if c not in chosen]
                pick = left[0]
                if len(left) > 1:
                    pick = left[
                        self.dice.roll(
                            len(left), f"{side} column unit free to fire, of {', '.join(left)}"
                        )
                        - 1
                    ]
                chosen.append(pick)
            self.admin_firing[side] = chosen
            allowed.update(chosen)
        return allowed

    def _aiming(
        self, number: int, at_start: list[Fighter], box: list[list[Aim]] | None
    ) -> Iterator[Aim]:
        """Who fires in round ``number`` and at whom (AGG Target priority; ambushers' free
        shots first, AGG Ambush; a road column's units free to fire, AGG Admin movement),
        each aim given as it is chosen: a target chosen by a die is chosen after the shots
        before it, as the rolls come in that order. The aims are kept in ``box`` for the
        other copies of this position when no die chose any of them."""
        telling = self.telling
        engaged: dict[str, dict[str, int]] = {side: {} for side in self.sides}
        shooters: list[tuple[Fighter, bool]] = []
        if number == 1:
            shooters += [(f, True) for f in at_start if f.ambusher]
        allowed = self._admin_allowed(number, at_start) if self.road_column else _NO_ONE
        for f in at_start:
            if f.silent:
                continue
            if f.admin and f.id not in allowed:
                if telling:
                    self.lines.append(f"  {f.id} cannot return fire yet (AGG Admin movement)")
                continue
            shooters.append((f, False))
        made: list[Aim] = []
        by_die = self.road_column  # who of the column may fire is rolled
        for f, free in shooters:
            aim, rolled = self._aim(f, at_start, engaged[f.side], free, number)
            by_die = by_die or rolled
            if aim is not None:
                made.append(aim)
                yield aim
        if box is not None and not by_die:
            box.append(made)

    def _aim(
        self, f: Fighter, present: list[Fighter], engaged: dict[str, int], free: bool, number: int
    ) -> tuple[Aim | None, bool]:
        """``f``'s aim of the round (none without a target), and whether a die chose it."""
        side = f.side
        # The same choice comes again round after round (and on the odds' many branches),
        # unless it was made by a die.
        chosen = (f.id, *[g.id for g in present if g.side != side], None, *engaged.items())
        choice = self._targets_seen.get(chosen)
        if choice is None:
            enemies = [g.enemy for g in present if g.side != side]
            choice = rules.choose_target(
                self.chart,
                f.engages_as,
                enemies,
                engaged,
                tuple(f.record.get("target") or ()),
                self.dice,
                f.id,
            )
            if choice.roll is None:
                self._targets_seen[chosen] = choice
        rolled = choice.roll is not None
        if choice.target is None:
            return None, rolled
        target = self.by_id[choice.target.id]
        engaged[target.id] = engaged.get(target.id, 0) + 1
        # The same shot comes again round after round (and on the odds' many branches).
        asked = (
            f.id,
            target.id,
            f.start_strength,
            target.works,
            target.fits,
            target.admin,
            f.admin,
        )
        working = self._shot_seen.get(asked)
        if working is None:
            situation = rules.ShotSituation(*asked[2:])
            working = self._shot_seen[asked] = rules.shot_working(
                self.chart, f.profile, target.profile, situation
            )
        purpose = f"round {number} {f.id} {_fires(free)} at {target.id}"
        return (f.id, free, choice.stage, target.id, working, purpose), rolled

    def _tell_shot(
        self,
        shooter: str,
        free: bool,
        stage: str,
        target: str,
        shot: rules.Shot,
        shots: list[dict[str, Any]],
    ) -> None:
        """A shot aimed (``_aim``) and taken, in words and as the result shows it."""
        self.lines.append(
            f"  {shooter} {_fires(free)} at {target} ({stage} target): " + "; ".join(shot.lines)
        )
        shots.append(
            {
                "shooter": shooter,
                "target": target,
                "stage": stage,
                "free": free,
                "chance": shot.chance,
                "roll": shot.roll,
                "hit": shot.hit,
                "damage": shot.damage,
            }
        )

    def _apply_damage(self, damage: dict[str, int], hits: dict[str, list[int]]) -> None:
        for sid, total in damage.items():
            f = self.by_id[sid]
            if f.leader:
                # AGG Target priority: one hit of leader-kill points kills a leader.
                if any(rules.leader_killed(self.chart, h) for h in hits[sid]):
                    f.strength = 0
            else:
                f.strength = max(0, f.strength - total)
            if f.strength == 0:
                self._gone(f, "eliminated")
                if self.telling:
                    self.lines.append(f"  {sid} is destroyed")

    def _gone(self, f: Fighter, how: str) -> None:
        if f.present:
            here = self.here = dict(self.here)  # its own, not its copies' (``copy``)
            here[f.side] -= 1
            if not here[f.side]:
                self.side_gone = True
        f.present = False
        f.gone = how
        if how in ("eliminated", "surrendered"):
            self._own(f)
            f.row["status"] = "eliminated"
            if how == "surrendered":  # lists made anew, not added to (``copy``)
                self.surrendered = [*self.surrendered, f.id]
            else:
                self.eliminated = [*self.eliminated, f.id]
            if how == "surrendered" and "surrendered" not in f.row["markers"]:
                f.row["markers"].append("surrendered")

    # --- retreats ----------------------------------------------------------------------------

    def _retreat_section(
        self, number: int, damage: dict[str, int], record: dict[str, Any] | None
    ) -> None:
        if self.side_gone:
            return
        if self.has_leaders:
            for side in self.sides:
                self._leaders_alone(side, number)
            if self.side_gone:
                return
        # Who is tested, with the damage each took (none for a leader or one gone): the
        # order of the tests is the same whenever that is (kept, as the odds meet it again
        # on many branches).
        tested = []
        for f in self.fighters:  # a loop, not a comprehension: a call less a round
            tested.append(damage.get(f.id, 0) if f.present and not f.leader else None)
        asked = tuple(tested)
        checks = self._order_seen.get(asked)
        if checks is None:
            by_side: dict[str, dict[str, int]] = {side: {} for side in self.sides}
            for f in self.fighters:
                if f.present and not f.leader:
                    by_side[f.side][f.id] = damage.get(f.id, 0)
            checks = self._order_seen[asked] = rules.check_order(by_side)
        tests = None if record is None else record["tests"]
        for side, order in checks:
            for sid in order:
                f = self.by_id[sid]
                if f.present:
                    test = self._test(f, number, damage.get(sid, 0))
                    if tests is not None:
                        tests.append(test)
            if self.has_leaders:
                self._leaders_alone(side, number)
            if self.side_gone:
                break

    def _test(self, f: Fighter, number: int, lost: int) -> dict[str, Any]:
        friends_gone = 0
        for r in self.retreated:
            if self.by_id[r["stand"]].side == f.side:
                friends_gone += 1
        friends_joined = self.joined_friends[f.id]
        asked = (f.af, f.training, f.start_strength, lost, friends_gone, friends_joined)
        chance = self._chance_seen.get(asked)
        if chance is None:
            chance = self._chance_seen[asked] = rules.retreat_chance(
                self.chart, rules.RetreatTest(*asked)
            )
        fails, roll = rules.percent_test(
            self.dice, chance.chance, f"round {number} retreat test {f.id} (<= {chance.chance})"
        )
        if not self.telling:
            if fails:
                self._retreat(f, number, "retreat")
            return {}
        self.chances.setdefault(f.id, []).append(chance.chance)
        self.lines.append(
            f"  {f.id} retreat chance {chance.chance}% ({'; '.join(chance.lines)}): "
            f"{rules.roll_text(roll)}, {'retreats' if fails else 'stands'}"
        )
        test = {"stand": f.id, "chance": chance.chance, "roll": roll, "retreats": fails}
        if fails:
            test["outcome"] = self._retreat(f, number, "retreat")
        return test

    def _leaders_alone(self, side: str, number: int) -> None:
        """AGG Retreat chance: a leader left with no combat unit of its side retreats too."""
        here = self._present(side)
        if here and all(f.leader for f in here):
            for f in here:
                if self.telling:
                    self.lines.append(f"  {f.id} is left alone: the leader retreats")
                self._retreat(f, number, "retreat")

    def _forbidden(self, f: Fighter, bearing_deg: float, inches: float) -> list[str]:
        """Why ``f`` may not move ``inches`` along ``bearing_deg`` (``Ground.forbidden``),
        kept by everything it depends on: the same move from the same place among the same
        stands is the same answer (the odds meet it on many branches). Only the fighters move
        or leave the table in a battle: the other stands stay where they were throughout."""
        key = (f.id, bearing_deg, inches, *self._placed(f))
        found = self._ground_seen.get(key)
        if found is None:
            found = self._ground_seen[key] = self._ground(f).forbidden(bearing_deg, inches)
        return list(found)

    def _placed(self, f: Fighter) -> tuple[tuple[Any, ...], tuple[str, ...]]:
        """What the ground's answers for ``f`` depend on besides the move asked: where each
        fighter is and whether it is still on the table, and the enemies ``f`` fights."""
        placed = []
        fought = []
        for g in self.fighters:  # a loop, not two comprehensions: two calls less a retreat
            row = g.row
            placed.append((row["x"], row["y"], row["status"]))
            if g.present and g.side != f.side:
                fought.append(g.id)
        return tuple(placed), tuple(fought)

    def _ground(self, f: Fighter) -> Any:
        # The fighters as they stand now (a copy's stand in rows of its own, ``copy``).
        mine = {g.id: g.row for g in self.fighters}
        stands = [mine.get(s["id"], s) for s in self.ctx.state.stands()]
        placed = [s for s in stands if s["x"] is not None and s["status"] != "eliminated"]
        return Ground(
            self.ctx,
            f.row,
            fought=[g.row for g in self._present() if g.side != f.side],
            enemies=[s for s in placed if s["side"] != f.side],
            friends=[s for s in placed if s["side"] == f.side],
            sector=180.0 / self.directions,
        )

    def _way_out(
        self, f: Fighter, inches: float, bearing_at: Callable[[int], float]
    ) -> tuple[rules.DirectionChoice, list[dict[str, Any]], dict[str, Any], tuple[float, float]]:
        """The first bearing ``f`` may retreat along (``rules.choose_direction``) and the
        bearings tried, as the result shows them, with the retreat as the result shows it
        and where it ends (when there is a way out); kept like ``_forbidden``'s answers, by
        everything they depend on (never changed: a battle's result only shows them)."""
        key = (f.id, f.retreat_bearing, inches, *self._placed(f))
        found = self._ways_seen.get(key)
        if found is None:
            choice = rules.choose_direction(
                self.chart, lambda offset: self._forbidden(f, bearing_at(offset), inches)
            )
            tried = [
                {
                    "bearing": round(bearing_at(t.offset), 1),
                    "steps": t.steps,
                    "reasons": t.reasons,
                }
                for t in choice.tried
            ]
            shown: dict[str, Any] = {}
            start = end = position(f.row)
            if choice.offset is not None:
                to = bearing_at(choice.offset)
                end = _destination(f.row, to, inches)
                shown = {
                    "set_bearing": round(f.retreat_bearing, 1),
                    "bearing": round(to, 1),
                    "steps": choice.steps,
                    "loss": choice.loss,
                    "from": [round(start[0], 3), round(start[1], 3)],
                    "to": [round(end[0], 3), round(end[1], 3)],
                    "tried": tried,
                }
            found = self._ways_seen[key] = (choice, tried, shown, end)
        return found

    def _retreat(self, f: Fighter, number: int, how: str) -> str:
        """Move a unit out of the battle along the first allowed bearing, or, when none is
        allowed, test it for surrender (a disengaging unit just stays). What it did, in
        words for the round's record (none when the battle does not tell it)."""
        step = 360.0 / self.directions
        inches = self.retreat_inches

        def bearing_at(offset: int) -> float:
            return (f.retreat_bearing + offset * step) % 360.0

        choice, tried, shown, end = self._way_out(f, inches, bearing_at)
        if self.telling:
            for t in choice.tried:
                if t.reasons:
                    self.lines.append(f"    not {bearing_at(t.offset):.0f}: {'; '.join(t.reasons)}")
        if choice.offset is None:
            if how == "disengage":
                if self.telling:
                    self.lines.append(f"    {f.id} finds no way out and stays in the fight")
                return "no way out"
            return self._surrender(f, number, tried)
        to = bearing_at(choice.offset)
        self._put(f, end)  # ``_move`` along ``to``, worked out in ``_way_out``
        f.strength = max(0, f.strength - choice.loss)
        entry = {"stand": f.id, "round": number, **shown, "pursued_by": []}
        if self.telling:
            self.lines.append(
                f"    {f.id} {'disengages' if how == 'disengage' else 'retreats'} toward "
                f"{to:.0f}: {count(choice.steps, 'step')} from its own {f.retreat_bearing:.0f}, "
                f"{count(choice.loss, 'extra casualty', 'extra casualties')} "
                "(AGG Retreat directions), to "
                f"{round(centre(f.row)[0], 2):g},{round(centre(f.row)[1], 2):g}"
            )
        if how == "disengage":
            self.disengaged = [*self.disengaged, entry]  # made anew (``copy``)
            self._gone(f, "disengaged")
        else:
            self.retreated = [*self.retreated, entry]  # made anew (``copy``)
            self._gone(f, "retreated")
            # AGG Aggression factors: a unit that retreats goes to AF 1.
            f.af = self.af_after_retreat
            self._own(f)
            f.record["retreated_turn"] = self.turn
        if f.strength == 0:
            self._gone(f, "eliminated")
            if self.telling:
                self.lines.append(f"    {f.id} is destroyed getting away")
        if not self.telling:
            return ""
        return f"{'disengaged' if how == 'disengage' else 'retreated'} toward {to:.0f}"

    def _surrender(self, f: Fighter, number: int, tried: list[dict[str, Any]]) -> str:
        chance = rules.surrender_chance(self.chart, f.training, f.af, f.moving)
        gives_up, roll = rules.percent_test(
            self.dice, chance.chance, f"round {number} surrender {f.id} (<= {chance.chance})"
        )
        if self.telling:
            self.lines.append(
                f"    {f.id} has no way out: surrender chance {chance.chance}% "
                f"({'; '.join(chance.lines)}), {rules.roll_text(roll)}: "
                f"{'surrenders' if gives_up else 'fights on'} (AGG Surrender)"
            )
        if gives_up:
            self._gone(f, "surrendered")
            return "surrendered"
        return "fights on"

    def _move(self, f: Fighter, bearing_deg: float, inches: float) -> None:
        self._put(f, _destination(f.row, bearing_deg, inches))

    def _put(self, f: Fighter, at: tuple[float, float]) -> None:
        self._own(f)
        row = f.row
        row["x"], row["y"] = at
        row["moved_turn"] = self.turn

    def _disengage(self, number: int, record: dict[str, Any] | None) -> None:
        """AGG Disengage: acted on in the retreat section, after the tests; the unit keeps its
        factor and its surplus equipment."""
        if not self.disengaging:
            return
        for f in self._present():
            if f.disengage and not self.side_gone:
                if self.telling:
                    self.lines.append(f"  {f.id} disengages")
                outcome = self._retreat(f, number, "disengage")
                if record is not None:
                    record.setdefault("disengage", []).append({"stand": f.id, "outcome": outcome})

    def _pursue(
        self, number: int, fired_at: dict[str, set[str]], record: dict[str, Any] | None
    ) -> None:
        """AGG Pursuit: enemies that fired at a retreating unit and pursue follow it one hex,
        and it falls back one more; both then leave the battle."""
        inches = self.pursued_inches
        for entry in [*self.retreated, *self.disengaged]:
            if entry["round"] != number:
                continue
            f = self.by_id[entry["stand"]]
            followers = []
            shooters = fired_at.get(f.id) or ()
            for g in self.fighters:  # in the order the battle lists them
                if g.id not in shooters or not g.present:
                    continue
                asked = (g.af, g.moving, g.record.get("pursue"), g.admin)
                found = self._pursuit_seen.get(asked)
                if found is None:
                    found = self._pursuit_seen[asked] = rules.pursues(
                        self.chart, g.af, moving=g.moving, choice=asked[2], admin=g.admin
                    )
                yes, why = found
                if yes:
                    followers.append(g)
                    if self.telling:
                        self.lines.append(f"  {g.id} pursues {f.id}: {why}")
            if not followers:
                continue
            entry["pursued_by"] = [g.id for g in followers]
            bearing_deg = entry["bearing"]
            if f.gone != "eliminated":
                blocked = self._forbidden(f, bearing_deg, inches)
                blocked = [r for r in blocked if not r.startswith("toward ")]
                if blocked:
                    if self.telling:
                        self.lines.append(
                            f"    {f.id} cannot fall back further: {'; '.join(blocked)}"
                        )
                else:
                    self._move(f, bearing_deg, inches)
                    entry["to"] = [round(position(f.row)[0], 3), round(position(f.row)[1], 3)]
                    if self.telling:
                        self.lines.append(f"    {f.id} falls back a further hex")
            for g in followers:
                blocked = [
                    r
                    for r in self._forbidden(g, bearing_deg, inches)
                    if not r.startswith("toward ")
                ]
                if blocked:
                    if self.telling:
                        self.lines.append(f"    {g.id} cannot follow: {'; '.join(blocked)}")
                else:
                    self._move(g, bearing_deg, inches)
                self._gone(g, "pursuing")
            if record is not None:
                record.setdefault("pursuit", []).append(
                    {"stand": f.id, "pursued_by": [g.id for g in followers]}
                )

    # --- the end -----------------------------------------------------------------------------

    def _holding(self, side: str) -> list[Fighter]:
        """Units of a side still on the field (``_on_field``)."""
        return [f for f in self.fighters if f.side == side and _on_field(f)]

    def _victor(self) -> str | None:
        """The one side still on the field (``_on_field``), if only one is."""
        victor = None
        for f in self.fighters:  # a loop, not a comprehension: the odds end 1,257 battles
            if _on_field(f):
                if victor is not None and f.side != victor:
                    return None
                victor = f.side
        return victor

    def _spoils(self, victor: str) -> dict[str, Any]:
        casualties = 0
        surplus = 0
        for f in self.fighters:
            casualties += f.record["strength_at_battle"] - f.strength
            if f.gone == "surrendered":
                casualties += f.strength
            if f.side != victor and f.gone in ("retreated", "surrendered", "eliminated"):
                surplus += int(f.record.get("surplus") or 0)
                f.record["surplus"] = 0
        # The odds end a thousand battles or more, with a few dozen different spoils.
        found = self._spoils_seen.get((casualties, surplus))
        if found is None:
            found = self._spoils_seen[casualties, surplus] = rules.spoils(
                self.chart, casualties, surplus, victors=1
            )
        taker = self._holding(victor)[0]
        taker.record["equipment"] = int(taker.record.get("equipment") or 0) + found.captured
        if self.telling:
            self.lines += [f"Spoils: {line}" for line in found.lines]
        if found.captured:
            goes = "goes" if found.captured == 1 else "go"
            if self.telling:
                self.lines.append(f"Spoils: {count(found.captured, 'unit')} {goes} to {taker.id}")
        return {
            "casualties": casualties,
            "surplus": surplus,
            "discarded": float(found.discarded),
            "captured": found.captured,
            "to": taker.id,
        }

    def outcome(self) -> dict[str, Any]:
        """How the battle ended, as its ``result`` tells it: who attacked and who defended,
        who left the fight and how, who holds the field and what each stand lost. All its
        odds read of a battle (``odds_outcome``): they end a thousand battles or more, and
        need not share out the spoils of each nor write its records."""
        losses = {}
        for f in self.fighters:  # a loop, not a comprehension: a call less an end
            losses[f.id] = int(f.record["strength_at_battle"]) - f.strength
        return {
            "attackers": [*self.attackers],
            "defenders": [*self.defenders],
            "retreated": self.retreated,
            "surrendered": self.surrendered,
            "eliminated": self.eliminated,
            "disengaged": self.disengaged,
            "victor": self._victor(),
            "losses": losses,
        }

    def result(self) -> dict[str, Any]:
        for f in self.fighters:  # the spoils and the records the battle leaves (``_own``)
            self._own(f)
        told = self.outcome()
        victor = told["victor"]
        spoils = self._spoils(victor) if victor is not None else None
        turn = self.ctx.state.turn
        for f in self.fighters:
            f.record["strength"] = f.strength
            f.record["af"] = f.af
            f.record["fought_turn"] = turn
            f.record.pop("strength_at_battle", None)
        count = self.fought
        return {
            "verdict": self._verdict(victor, count),
            "model": MODEL,
            "attackers": told["attackers"],
            "defenders": told["defenders"],
            "rounds": count,
            "retreat_chance": self.chances,
            "retreated": self.retreated,
            "surrendered": self.surrendered,
            "eliminated": self.eliminated,
            "disengaged": self.disengaged,
            "victor": victor,
            "spoils": spoils,
            "strength": {f.id: f.strength for f in self.fighters},
            "losses": told["losses"],
            "factors": {
                f.id: {
                    "af": f.af,
                    "moving": f.moving,
                    "training": f.training,
                    "retreat_bearing": round(f.retreat_bearing, 1),
                }
                for f in self.fighters
            },
            "combat": self.rounds,
            "lines": self.lines,
        }

    def _verdict(self, victor: str | None, count: int) -> str:
        parts = []
        for label, ids in (
            ("retreated", [r["stand"] for r in self.retreated]),
            ("surrendered", self.surrendered),
            ("destroyed", [s for s in self.eliminated if s not in self.surrendered]),
            ("disengaged", [r["stand"] for r in self.disengaged]),
        ):
            if ids:
                parts.append(f"{', '.join(ids)} {label}")
        rounds_text = f"{count} round{'s' if count != 1 else ''}"
        head = (
            f"{victor} holds the field after {rounds_text}"
            if victor is not None
            else f"Still fighting after {rounds_text}"
        )
        return head + (": " + "; ".join(parts) if parts else "")


# --- helpers -------------------------------------------------------------------------------------


def _ids(value: Any, what: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    ids = [str(v).strip() for v in (value or []) for v in str(v).split(",") if str(v).strip()]
    if not ids:
        raise BadInput(f"name at least one {what} stand")
    return ids


def _check_sides(rows: dict[str, StandRow], attackers: list[str], defenders: list[str]) -> None:
    for group, label in ((attackers, "attackers"), (defenders, "defenders")):
        sides = sorted({rows[s]["side"] for s in group})
        if len(sides) > 1:
            raise BadInput(
                f"the {label} {', '.join(group)} belong to {' and '.join(sides)}: "
                f"list one side's stands as {label}"
            )
    mine, theirs = rows[attackers[0]]["side"], rows[defenders[0]]["side"]
    if mine == theirs:
        raise BadInput(
            f"{attackers[0]} and {defenders[0]} are both {mine}: assault stands of the other side"
        )


def _check_contact(
    ctx: RulesContext,
    chart: AggressionChart,
    rows: dict[str, StandRow],
    attackers: list[str],
    defenders: list[str],
) -> None:
    """AGG Combat: a fight needs the two sides in the same place, on the table bases in
    contact. Each stand must touch at least one stand of the other side."""

    limit = chart.params.contact
    bases = {s: base_of(r) for s, r in rows.items()}
    for group, others in ((attackers, defenders), (defenders, attackers)):
        for sid in group:
            gaps = {o: distance(bases[sid], bases[o]) for o in others}
            if not any(within(gap, limit) for gap in gaps.values()):
                nearest = min(gaps, key=lambda o: gaps[o])
                raise RulesRefusal(
                    f"{sid} is not in contact with {', '.join(others)} (nearest {nearest}, "
                    f'{gaps[nearest]:.2f}" away): close combat needs bases within '
                    f'{limit:g}" (AGG Combat); move it into contact first'
                )


ONCE_RULE = "AGG Combat: one assault a stand a phase, default"
# The rule behind each fact an assault leaves on a stand's record (``status``/``show``).
FACT_RULES = {
    "strength": "AGG Combat",
    "af": "AGG Aggression factors",
    "retreated_turn": "AGG Retreats",
    "retreat_bearing": "AGG Retreat directions",
    "equipment": "AGG Captured equipment",
    "surplus": "AGG Captured equipment",
    "works": "AGG Fortifications",
    "pursue": "AGG Pursuit",
    "target": "AGG Target priority",
}


def _records_before(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The stands' aggression records as the assault finds them (copies), by stand id."""
    out: dict[str, dict[str, Any]] = {}
    for key in ("attackers", "defenders"):
        value = inputs.get(key) or []
        for sid in [value] if isinstance(value, str) else value:
            for part in str(sid).split(","):
                for known in ctx.state.meta["stand_order"]:
                    if known.lower() == part.strip().lower():
                        row = ctx.state.stand(known)
                        out[known] = copy.deepcopy((row.get("models") or {}).get(MODEL) or {})
    return out


def _assaults_this_phase(ctx: RulesContext, record: dict[str, Any]) -> int:
    """Assaults the stand started in this phase of this turn (``assaulted`` on its record)."""
    done = record.get("assaulted") or {}
    if done.get("turn") == ctx.state.turn and done.get("phase") == ctx.state.phase:
        return int(done.get("count") or 0)
    return 0


def _rounds(value: Any, chart: AggressionChart) -> int:
    if value is None:
        return chart.params.max_rounds
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100:
        raise BadInput(f"--rounds {value!r}: give 1 to 100 rounds")
    return value


def _fighter(
    ctx: RulesContext,
    chart: AggressionChart,
    row: StandRow,
    attacker: bool,
    orders: Orders,
    rows: dict[str, StandRow],
) -> Fighter:
    """A stand as it enters the battle: its record, orders applied, factor in force."""
    state = ctx.state
    sid = row["id"]
    spec = ctx.scenario.stand_spec(sid)
    given = orders.of(sid)
    record = row.setdefault("models", {}).setdefault(MODEL, {})
    if "profile" in given:
        record["profile"] = given["profile"]
    profile = chart.profile(profile_id(ctx, chart, row, record.get("profile")))
    record.setdefault("strength", start_strength(profile, spec.strength))
    record.setdefault("af", spec.aggression or chart.params.default_af)
    record["strength_at_battle"] = record["strength"]
    moving = row.get("moved_turn") == state.turn
    notes: list[str] = []
    if "suppressed" in row.get("markers", []) and profile.firepower:
        # our reading: a stand suppressed under CD enters close combat with less fire
        percent = chart.params.suppressed_firepower_percent
        profile = replace(profile, firepower=profile.firepower * percent // 100)
        notes.append(f"suppressed: firepower {percent}% (AGG Combat, default)")
    if "af" in given:
        record["af"] = given["af"]
        notes.append(f"ordered to AF {given['af']}")
    if "retreat" in given:
        _order_retreat(sid, moving, record, state.turn)
        record["retreat_bearing"] = given["retreat"]
    for key in ("pursue", "target", "surplus"):
        if key in given:
            record[key] = given[key]
    if "works" in given:
        works = given["works"]
        if works["kind"] == "none":
            record.pop("works", None)
        else:
            size = works["size"] or (
                chart.params.fort_first_size if works["kind"] == "fortified" else 0
            )
            record["works"] = {"kind": works["kind"], "size": size, "at": [row["x"], row["y"]]}
    af = int(record["af"])
    if _ammo_short(row, state.turn):
        af = chart.params.af_without_ammo
        record["af"] = af
        notes.append(f"ammunition not resupplied: AF {af} (AGG Aggression factors)")
    works_kind, fits = _works(chart, row, record, rows)
    if works_kind and not fits:
        notes.append("does not fit whole in its fortification: unprotected (AGG Fortifications)")
    bearing_deg, source = _retreat_bearing(row, record, moving)
    training = profile.training or chart.training_for_quality(row["quality"])
    chart.training(training)
    strength = int(record["strength"])
    return Fighter(
        id=sid,
        side=row["side"],
        attacker=attacker,
        row=row,
        record=record,
        profile=profile,
        training=training,
        moving=moving,
        af=af,
        strength=strength,
        start_strength=strength,
        retreat_bearing=bearing_deg,
        bearing_from=source,
        works=works_kind,
        fits=fits,
        notes=notes,
    )


def _order_retreat(sid: str, moving: bool, record: dict[str, Any], turn: int) -> None:
    """AGG Retreat directions: moving resets the bearing to where the unit came from, and no
    order changes it while the enemy is present."""
    if moving:
        raise RulesRefusal(
            f"{sid} moved this turn: it retreats back the way it came, and an order cannot "
            "override that (AGG Retreat directions)"
        )
    if record.get("fought_turn") == turn:
        raise RulesRefusal(
            f"{sid} is already fighting this turn: its retreat direction cannot be changed with "
            "the enemy present (AGG Retreat directions)"
        )


def _retreat_bearing(row: StandRow, record: dict[str, Any], moving: bool) -> tuple[float, str]:
    rear = (float(row["facing"]) + 180.0) % 360.0
    if moving:
        return rear, "moved this turn: back the way it came, behind its facing"
    if record.get("retreat_bearing") is not None:
        return float(record["retreat_bearing"]) % 360.0, "its set bearing"
    return rear, "none set: behind its facing"


def _ammo_short(row: StandRow, turn: int) -> bool:
    """AGG Aggression factors: ammunition that could not be resupplied. In CD terms a weapon
    still depleted after an end of turn has passed (resupply comes at the end of a turn);
    weapons spent by design (flamethrowers, rockets) do not count."""

    for ammo in (row.get("ammo") or {}).values():
        if weapon_status(ammo) != "depleted":
            continue
        when = ammo.get("depleted_turn")
        if when is not None and int(when) < turn:
            return True
    return False


def _works(
    chart: AggressionChart,
    row: StandRow,
    record: dict[str, Any],
    rows: dict[str, StandRow],
) -> tuple[str | None, bool]:
    """The works protecting a stand: lost once it has moved off them (AGG Digging in); a
    fortification protects only a unit that fits in whole, after friends already in it."""
    works = record.get("works")
    if not works:
        return None, True
    if list(works.get("at") or []) != [row["x"], row["y"]]:
        record.pop("works", None)
        return None, True
    if works["kind"] != "fortified":
        return str(works["kind"]), True
    before = 0
    for other in rows.values():
        if other["id"] == row["id"]:
            break
        theirs = (other.get("models") or {}).get(MODEL, {})
        if other["side"] == row["side"] and (theirs.get("works") or {}).get("kind") == "fortified":
            before += int(theirs.get("strength") or 0)
    room = rules.fort_room(chart, int(works["size"]), before + int(record["strength"]))
    return "fortified", room.fits


def profile_id(ctx: RulesContext, chart: AggressionChart, row: StandRow, ordered: Any) -> str:
    """The stand's aggression profile: a ``profile.STAND`` order, else the one it fought with,
    else the scenario's ``profiles: {aggression: ID}``, else its CD kind's (chart 'kinds')."""
    sid = row["id"]
    record = (row.get("models") or {}).get(MODEL) or {}
    spec_profile = ctx.scenario.stand_spec(sid).profiles.get(MODEL)
    found = ordered or record.get("profile") or spec_profile or chart.kind_profile(row["kind"])
    if found is None:
        raise BadInput(
            f"{sid} ({row['kind']}) has no aggression profile: its kind has none in "
            f"charts/models/aggression.yaml (table 'kinds'); give it one with --set "
            f"profile.{sid}=ID or 'profiles: {{aggression: ID}}' in the scenario "
            f"(profiles: {', '.join(chart.profiles)})"
        )
    chart.profile(str(found))
    return str(found)


def parse_profile_orders(inputs: dict[str, Any], sid: str) -> str | None:
    value = (inputs.get("options") or {}).get(f"profile.{sid}")
    return None if value is None else str(value)


def start_strength(profile: Profile, given: int | None) -> int:
    """A stand's strength as it first fights: the scenario's ``strength`` (men; or vehicles,
    each worth the profile's men per vehicle), else the profile's."""
    if given is None:
        return int(profile.strength)
    if profile.vehicles:
        return max(1, round(given * profile.strength / profile.vehicles))
    return int(given)


def odds_outcome(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What tells one assault's outcome from another, for its odds: who holds the field, and
    for each stand how it left the fight (retreated, pursued, surrendered, destroyed,
    disengaged) and what it lost. The fields count each stand's fate (1 when it happened)
    and its losses, so the odds show their expected values (each fate's chance)."""
    fates: dict[str, str] = {}
    for entry in result["retreated"]:
        fates[entry["stand"]] = "retreated" + (
            f" (pursued by {', '.join(entry['pursued_by'])})" if entry["pursued_by"] else ""
        )
    for entry in result["disengaged"]:
        fates[entry["stand"]] = "disengaged"
    for sid in result["eliminated"]:
        fates[sid] = "destroyed"
    for sid in result["surrendered"]:
        fates[sid] = "surrendered"
    fields: dict[str, Any] = {}
    parts = []
    for sid in [*result["attackers"], *result["defenders"]]:
        fate = fates.get(sid, "stays")
        lost = result["losses"][sid]
        parts.append(f"{sid} {fate}, loses {lost}")
        fields[f"{sid} losses"] = lost
        for word in ("retreated", "pursued", "surrendered", "destroyed", "disengaged"):
            if word in fate:
                fields[f"{sid} {word}"] = 1
    victor = result["victor"]
    head = f"{victor} holds the field" if victor is not None else "still fighting"
    # Named first: who holds the field is what the referee asks (text odds open with it).
    return f"{head}: {'; '.join(parts)}", {
        "holds the field": victor or "nobody yet (still fighting)",
        **fields,
    }


def _destination(row: StandRow, bearing_deg: float, inches: float) -> tuple[float, float]:
    """Where a stand moved ``inches`` along ``bearing_deg`` stands (kept to a millionth of an
    inch, as stored)."""
    dx, dy = heading(bearing_deg)
    x, y = centre(row)
    return round(x + dx * inches, 6) + 0.0, round(y + dy * inches, 6) + 0.0


def _fires(free: bool) -> str:
    """How a shot is told: an ambusher's free shot (AGG Ambush), or a round's fire."""
    return "free ambush shot" if free else "fires"


def _on_field(f: Fighter) -> bool:
    """Whether ``f`` is still on the field: in the fight, or pursuing (it won it)."""
    return f.present or f.gone == "pursuing"


def _leaving(entries: list[dict[str, Any]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Who left the fight this way and who pursued each, by stand (``Battle.position``)."""
    if not entries:
        return ()
    if len(entries) == 1:  # the usual case: nothing to sort, and no comprehension to call
        (r,) = entries
        return ((r["stand"], tuple(r["pursued_by"])),)
    return tuple(sorted([(r["stand"], tuple(r["pursued_by"])) for r in entries]))


def _renumbered(entries: list[dict[str, Any]], number: int) -> list[dict[str, Any]]:
    return [{**e, "round": number} for e in entries]


def _row_copy(row: StandRow) -> StandRow:
    """A fighter's row for a copy of the battle: its fields, its markers, its models and its
    aggression record copied, everything deeper shared (a battle never changes it)."""
    new = row.copy()
    new["markers"] = list(row["markers"])
    models = new["models"] = dict(row["models"])
    models[MODEL] = dict(models[MODEL])
    return new


class AssaultStages:
    """The assault in stages, for its odds (``Game.odds``, ``core.odds.by_stages``): opened
    as the command opens it, then played one round at a time on copies, battles that reach
    the same position merged. The rounds are the command's own (``Battle.next_round``)."""

    @staticmethod
    def begin(ctx: RulesContext, inputs: dict[str, Any]) -> Battle:
        battle = Battle.open(ctx, inputs)
        battle.telling = False  # the odds show outcomes, never the words of a battle
        return battle

    @staticmethod
    def stage(battle: Battle, dice: DiceLike) -> None:
        battle.dice = dice
        battle._round(battle.fought + 1)  # ``next_round``, a call less a run
        # The position keeps no dice: the run's go as it ends, not with the thousands of
        # positions kept (each its script, its branches and its rolls).
        battle.dice = _NO_DICE

    # The battle's own methods, called on each position (no call in between: the odds make
    # thousands of copies and keys).
    over = staticmethod(Battle.ended)
    key = staticmethod(Battle.position)
    copy = staticmethod(Battle.copy)
    stage_key = staticmethod(Battle.stage_key)
    carried = staticmethod(Battle.continued)

    @staticmethod
    def carried_key(reached: Battle, key: Hashable, start: Battle) -> Hashable:
        return reached.continued_key(key, start)

    finish = staticmethod(Battle.outcome)
