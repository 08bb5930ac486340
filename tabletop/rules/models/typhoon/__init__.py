"""Typhoon of Steel (seed 004) as an alternative fire model: ``--model typhoon``.

Scale and every number come from ``charts/models/typhoon.yaml``. ``fire`` resolves point
fire (skill check, ranged accuracy and shifts, hit; then hit location and penetration against
hard targets, or HE losses against soft ones); ``odds`` gives the same procedure's exact
outcome fractions; ``procedures`` holds the rest of the model (checks, rate of fire,
visibility, weather, scatter and delays, HE on a square, assault, suppression, states, rally,
command control, orders, victory).

Table mode reads and writes the target's record ``stand["models"]["typhoon"]``: ``men``,
``immobilized``, ``guns_out``, ``suppression`` and ``state``; the firer's record gives its
own suppression, state and men. An infantry unit starts with the scenario's ``strength:``
men when it gives one (else its profile's). ``--set`` values override what the table says.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from functools import cached_property, partial
from typing import Any, ClassVar

from tabletop.core import words
from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.odds import distribution
from tabletop.core.spelling import did_you_mean
from tabletop.rules.cd.sighting import target_cover
from tabletop.rules.context import RulesContext
from tabletop.rules.models import Model, Outcome, Procedure, Shot
from tabletop.rules.models.typhoon.catalog import PROCEDURES
from tabletop.rules.models.typhoon.combat import first_shot_rating, rate_of_fire
from tabletop.rules.models.typhoon.fire import Firing, resolve
from tabletop.rules.models.typhoon.odds import FireOdds, label
from tabletop.rules.models.typhoon.situation import MOVING, OPTIONS, TARGET_STATES, parse_situation
from tabletop.rules.models.typhoon.tables import Tables, Unit
from tabletop.state.document import StandRow, centre

NAME = "typhoon"


class Typhoon(Model):
    name: ClassVar[str] = NAME
    chart: ClassVar[str] = "typhoon"
    options: ClassVar[Mapping[str, str]] = OPTIONS
    fire_limit_rule: ClassVar[str] = (
        "ToS II.B.3 Rate of fire: the shots a unit fires in a pulse, 0, 1 or 2, all at once"
    )
    dice_order: ClassVar[str] = (
        "table fire: rate of fire first (skill d10, then first-shot d100); then for each "
        "shot a skill d10 and a hit d100, and on a hit the location, penetration and damage "
        "dice (hard targets) or the losses d100s (soft targets); quick fire starts at the "
        "shot's skill d10"
    )

    @cached_property
    def t(self) -> Tables:
        return Tables(self.charts)

    @property
    def inches_per_unit(self) -> float:
        return float(self.t.scale.inches_per_square)

    def profiles(self) -> Mapping[str, Unit]:
        return self.t.units

    def unit(self, ident: str, role: str) -> Unit:
        units = self.t.units
        if ident not in units:
            hint = did_you_mean(ident, units)
            raise BadInput(
                f"--{role} {ident!r}: not a typhoon profile in charts/models/typhoon.yaml{hint} "
                f"(profiles: {', '.join(sorted(units))})"
            )
        return units[ident]

    def firing(self, shot: Shot) -> Firing:
        shooter = self.unit(shot.shooter, "shooter")
        target = self.unit(shot.target, "target")
        sit = parse_situation(shot.options, shooter, target, self.t.weapons)
        weapon = self.t.weapons[shooter.weapons[sit.weapon].weapon]
        squares = self.to_units(shot.range_inches)
        return Firing(self.t, shooter, target, weapon, squares, sit)

    # --- fire -----------------------------------------------------------------------------

    def fire(self, shot: Shot, dice: DiceLike) -> Outcome:
        f = self.firing(shot)
        res = resolve(f, dice, shot.count)
        shots, status, state = res["shots"], res["status"], res["state"]
        hits = [s for s in shots if s["hit"]]
        first = hits[0] if hits else shots[0]
        killed = sum(s["men_killed"] for s in shots)
        worst = _worst(f, shots, status.destroyed)
        data: dict[str, Any] = {
            "shooter": shot.shooter,
            "target": shot.target,
            "weapon": f.weapon.id,
            "shell": f.sit.shell,
            "target_type": "hard" if f.target.is_hard else "soft",
            "range_squares": round(f.r, 3),
            "range_inches": round(shot.range_inches, 3),
            "ranged_accuracy": shots[0]["ranged_accuracy"],
            "shifts": shots[0]["shifts"],
            "modifiers": shots[0]["modifiers"],
            "silhouette": shots[0]["silhouette"],
            "accuracy": shots[0]["accuracy"],
            "needed": shots[0]["needed"],
            "hit": bool(hits),
            "hits": len(hits),
            "location": first["location"],
            "penetration_depth": first["penetration_depth"],
            "penetrated": any(s["penetrated"] for s in shots),
            "men_killed": killed,
            "destroyed": status.destroyed,
            "outcome": label(f.target.is_hard, worst, killed),
            "suppression": res["suppression"],
            "target_after": {
                **status.as_json(),
                "suppression": res["points"],
                "state": "destroyed" if status.destroyed else state.state,
            },
            "shots": [{k: v for k, v in s.items() if k != "lines"} for s in shots],
        }
        lines = [
            f"{shot.shooter} fires {f.weapon.id} ({f.sit.shell.upper()}) at {shot.target} "
            f'({data["target_type"]} target): {f.r:.2f} squares ({shot.range_inches:.2f}")',
        ]
        for s in shots:
            lines.extend(s["lines"])
        lines.extend(f"suppression {w}" for w in res["why"])
        lines.append(
            f"{shot.target} now: {res['points']} suppression points, {state.state} "
            f"({state.reason}) [{state.rule}]"
        )
        gone = status.destroyed or state.state == "abandoned"
        return Outcome(
            verdict=_verdict(data, shot.count),
            data=data,
            lines=lines,
            target_state={
                "men": status.men,
                "immobilized": status.immobilized,
                "guns_out": sorted(status.guns_out),
                **_damage_rules(f.target.is_hard, killed, status.immobilized, status.guns_out),
                "suppression": res["points"],
                "suppression_rule": "ToS V Suppression point table, fire",
                "state": "destroyed" if status.destroyed else state.state,
                "state_rule": "ToS V Effects of penetration" if status.destroyed else state.rule,
            },
            eliminated=gone,
        )

    def streak_options(self, streak: int) -> dict[str, Any]:
        # ToS V: firing at the same target as last pulse is one of the hard-target rows.
        return {"fired_last_pulse": streak > 1}

    def fire_on_table(self, shot: Shot, dice: DiceLike, streak: int, count_given: bool) -> Outcome:
        """ToS II.B.3: the rate of fire is checked before any shot; failing it on the first
        pulse at a target means no fire at all this pulse."""

        f = self.firing(shot)
        f.check_allowed()
        lost = 0
        if f.shooter.is_vehicle:
            lost = max(0, f.shooter.men - f.sit.firer_men)  # ToS II.B.3: crew lost
        shots, lines = rate_of_fire(
            self.t,
            dice,
            skill=f.shooter.skill,
            rating=first_shot_rating(f.shooter.first_shot, lost),
            size=f.weapon.size,
            pulse=streak,
            moving=f.sit.firer_state in MOVING,
        )
        if shots == 0:
            return Outcome(
                verdict=f"{shot.shooter_stand} does not fire this pulse: it failed its rate-of-"
                "fire checks (ToS II.B.3)",
                data={
                    "shooter": shot.shooter,
                    "target": shot.target,
                    "weapon": f.weapon.id,
                    "rate_of_fire": 0,
                    "shots_fired": 0,
                    "hit": False,
                    "hits": 0,
                    "destroyed": False,
                    "outcome": "no fire",
                },
                lines=lines,
            )
        count = min(shot.count, shots) if count_given else shots
        outcome = self.fire(replace(shot, count=count), dice)
        outcome.data["rate_of_fire"] = shots
        outcome.data["shots_fired"] = count
        outcome.lines[1:1] = lines
        return outcome

    def odds(self, shot: Shot) -> dict[str, Any]:
        f = self.firing(shot)
        f.check_allowed()
        if shot.shooter_stand is not None:
            result = self._table_odds(f, shot)
        else:
            result = FireOdds(f).action(shot.count)
        return {
            **result,
            "ranged_accuracy": round(f.hit_accuracy(False).ranged, 2),
            "accuracy": {
                "skill passed": round(f.hit_accuracy(False).value, 2),
                "skill failed": round(f.hit_accuracy(True).value, 2),
            },
        }

    def _table_odds(self, f: Firing, shot: Shot) -> dict[str, Any]:
        """Table fire's odds: the rate-of-fire checks first (ToS II.B.3), by the same
        procedure ``fire_on_table`` rolls, then the shots they allow."""

        lost = max(0, f.shooter.men - f.sit.firer_men) if f.shooter.is_vehicle else 0
        pulse = 2 if f.sit.fired_last_pulse else 1
        shots = distribution(
            lambda d: rate_of_fire(
                self.t,
                d,
                skill=f.shooter.skill,
                rating=first_shot_rating(f.shooter.first_shot, lost),
                size=f.weapon.size,
                pulse=pulse,
                moving=f.sit.firer_state in MOVING,
            )[0]
        )
        outcomes: dict[str, Fraction] = {}
        expected: dict[str, Fraction] = {}
        for n, p in sorted(shots.items()):
            if n == 0:
                outcomes["no fire"] = outcomes.get("no fire", Fraction(0)) + p
                continue
            part = FireOdds(f).action(n)
            for k, q in part["outcomes"].items():
                outcomes[k] = outcomes.get(k, Fraction(0)) + p * q
            for k, v in part["expected"].items():
                expected[k] = expected.get(k, Fraction(0)) + p * v
        expected["shots"] = sum((n * p for n, p in shots.items()), Fraction(0))
        return {"outcomes": outcomes, "expected": expected}

    # --- table mode -----------------------------------------------------------------------

    def situation_from_table(
        self, ctx: RulesContext, shooter: StandRow, target: StandRow, sight: Any
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        mine = (target.get("models") or {}).get(NAME) or {}
        for key, option in (
            ("immobilized", "target_immobilized"),
            ("guns_out", "target_guns_out"),
            ("suppression", "target_suppression"),
        ):
            if mine.get(key) is not None:
                out[option] = mine[key]
        theirs = (shooter.get("models") or {}).get(NAME) or {}
        if theirs.get("state") == "heavily-suppressed":
            raise RulesRefusal(
                f"{shooter['id']} is heavily suppressed and cannot fire (ToS II.A Heavy "
                "suppression)"
            )
        if theirs.get("suppression") is not None:
            out["firer_suppression"] = theirs["suppression"]
        for stand, record, option in ((target, mine, "target_men"), (shooter, theirs, "firer_men")):
            men = self._men(ctx, stand, record)
            if men is not None:
                out[option] = men
        turn = ctx.state.turn
        out["target_state"] = _table_state(mine.get("state"), target, turn, TARGET_STATES)
        out["firer_state"] = _table_state(
            theirs.get("state"), shooter, turn, ("pinned", "buttoned")
        )
        if target.get("x") is not None:
            cover, _ = target_cover(ctx, *centre(target))
            row = self.t.tables["cover"].get(f"cd-{cover}")
            out["cover"] = row.typhoon if row is not None else "none"
        if sight is not None:
            out.update(self._from_sight(ctx, target, sight, out))
        return out

    def _men(self, ctx: RulesContext, stand: StandRow, record: dict[str, Any]) -> int | None:
        """The men a stand has left: its record, else the scenario's ``strength`` for an
        infantry unit (a vehicle or gun is one, with its profile's crew), else None (the
        profile's men)."""
        if record.get("men") is not None:
            return int(record["men"])
        spec = ctx.scenario.stand_spec(stand["id"])
        unit = self.t.units.get(spec.profiles.get(NAME, ""))
        if spec.strength is None or unit is None or unit.kind != "infantry":
            return None
        if spec.strength > unit.men:
            raise BadInput(
                f"{stand['id']}'s strength {spec.strength} is more than the {unit.men} men of "
                f"a typhoon {unit.id} (charts/models/typhoon.yaml)"
            )
        return int(spec.strength)

    def _from_sight(
        self, ctx: RulesContext, target: StandRow, sight: Any, out: dict[str, Any]
    ) -> dict[str, Any]:
        found: dict[str, Any] = {}
        above = float(sight.level_a) - float(sight.level_b)
        found["levels_above"] = math.floor(above + 0.5)
        stationary = out.get("target_state") in ("positioned", "pinned", "buttoned")
        # ToS II.B.3: hull-down when higher than the firer, or positioned in cover.
        found["hull_down"] = above < 0 or (stationary and out.get("cover", "none") != "none")
        smoke = {t["id"] for t in ctx.state.templates() if t.get("blocks_sight")}
        found["smoke"] = sum(1 for b in sight.blocked_by if b in smoke)
        # The face struck: the firer's bearing seen from the target against its facing.
        back = (float(sight.bearing) + 180.0) % 360.0
        off = abs((back - float(target.get("facing") or 0.0) + 180.0) % 360.0 - 180.0)
        found["aspect"] = "front" if off <= self.t.p("front-arc-degrees") / 2 else "side"
        return found

    # --- other procedures -------------------------------------------------------------------

    def procedures(self) -> Mapping[str, Procedure]:
        t = self.t
        return {
            name: Procedure(desc, opts, partial(run, t), rule)
            for name, (desc, opts, run, rule) in PROCEDURES.items()
        }


def _table_state(stored: Any, stand: StandRow, turn: int, kept: tuple[str, ...]) -> str:
    if stored in kept:
        return str(stored)
    if stand.get("moved_turn") == turn:
        return "cautious"  # our default for a stand that moved this turn; --set to change
    return "positioned"


def _damage_rules(hard: bool, killed: int, immobilized: bool, guns_out: Any) -> dict[str, str]:
    """Beside the facts the shot changed on the target stand, the rule that changed them."""
    out = {}
    if killed:
        out["men_rule"] = "ToS V Effects of penetration" if hard else "ToS V Damage to soft targets"
    if immobilized:
        out["immobilized_rule"] = "ToS V Effects of penetration"
    if guns_out:
        out["guns_out_rule"] = "ToS V Effects of penetration"
    return out


def _worst(f: Firing, shots: list[dict[str, Any]], destroyed: bool) -> str:
    if destroyed:
        return "destroyed"
    if not any(s["hit"] for s in shots):
        return "missed"
    if not f.target.is_hard:
        return "hit"
    if any(s.get("compartment") for s in shots):
        return "crew hit"
    if any(s.get("immobilized") for s in shots):
        return "immobilized"
    return "no effect"


def _verdict(d: dict[str, Any], count: int) -> str:
    head = {
        "destroyed": "Destroyed",
        "missed": "Missed",
        "no effect": "No effect",
        "immobilized": "Immobilized",
        "crew hit": "Crew hit",
        "no losses": "Hit, no losses",
    }.get(d["outcome"], d["outcome"].capitalize())
    shots = (
        f"{words.count(d['hits'], 'hit')} in {words.count(count, 'shot')}"
        if count > 1
        else f"needed {d['needed']}"
    )
    where = f" on the {d['location'].replace('-', ' ')}" if d["location"] else ""
    return f"{head}: {d['shooter']} {d['weapon']} at {d['target']}{where}, {shots}"
