"""Mech Brigade (seed 002) as an alternative fire model: ``--model mech-brigade``.

A square is 200 yards, 4" on the table; a pulse is 30 seconds (MB 1.4, 5.10). Fire follows
MB 7.3-7.6 (``fire.py``); the other procedures are in ``procedures.py``; every number is in
``charts/models/mech_brigade.yaml``.

Our readings where the seed is silent or inconsistent (each is also noted where it is used):

- Ranges are whole squares: the measured range is rounded to the nearest square.
- The kill number is an expected number of kills: its whole part dies outright, and its
  fraction, to a hundredth of a percent, is the chance of one more on percentile dice (a
  d100, and a second d100 for the hundredths when the first lands on the boundary face;
  no roll when the chance is 0% or 100%, or the unit is already destroyed). This is how
  MB 7.3's example reads its kill numbers: 0.4538 is a 45.38% chance of a kill.
- The accuracy range term is 90 x (MR - R) / MR, as the worked example computes it,
  floored at the printed maximum-range value of 1.
- ``suppression`` in the JSON is the target's level after the fire (cumulative within a
  pulse, capped at 50 or 200), kept in whole points.

Table mode (``table.py``): ``situation_from_table`` reads the target's cover from the
terrain under it, MB 8.0's line of sight over the squares between the stands (direct fire
without one is refused; the woods and towns it passes through give the blocking points),
the smoke the line of fire crosses, whether the target moved this turn (it then moves at its
SP rating), which armour faces the firer, and the target's own record
(``stand["models"]["mech-brigade"]``): its suppression from earlier fire in the same turn
and phase, and the vehicles or men it has left (at first the scenario's ``strength:``, else
the chart's default for its kind of unit). Every weapon the firer has left fires unless
``--count`` says fewer. ``fire`` stores the new suppression, the kills so far and what is
left there; a unit with nothing left is eliminated.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cached_property
from typing import Any, ClassVar

from tabletop.core.dice import DiceLike
from tabletop.core.errors import RulesRefusal
from tabletop.rules.context import RulesContext
from tabletop.rules.models import Model, Outcome, Procedure, Shot
from tabletop.rules.models.chance import roll_chance, shown
from tabletop.rules.models.mech_brigade.data import TABLE_KEY, Profile, Tables
from tabletop.rules.models.mech_brigade.fire import FIRE_OPTIONS, Attack, Situation, resolve
from tabletop.rules.models.mech_brigade.formulas import kill_chance, killed_distribution, num
from tabletop.rules.models.mech_brigade.procedures import procedures
from tabletop.rules.models.mech_brigade.table import situation, strength
from tabletop.state.document import StandRow


class MechBrigade(Model):
    name: ClassVar[str] = "mech-brigade"
    chart: ClassVar[str] = "mech_brigade"
    options: ClassVar[Mapping[str, str]] = FIRE_OPTIONS
    fire_limit_rule: ClassVar[str] = "MB 7.0: each pulse a unit selects a target and fires"
    dice_order: ClassVar[str] = (
        "fire: one d100 for the chance of one more kill, and a second d100 for its "
        "hundredths only when the first lands on the boundary face (MB 7.3, our reading)"
    )

    @cached_property
    def tables(self) -> Tables:
        return Tables(self.charts)

    @property
    def inches_per_unit(self) -> float:
        return float(self.tables.scale.inches)

    def profiles(self) -> Mapping[str, Profile]:
        return self.tables.profiles

    def procedures(self) -> Mapping[str, Procedure]:
        return procedures(self.tables)

    # --- fire ------------------------------------------------------------------------------

    def _resolve(self, shot: Shot) -> tuple[Attack, dict[str, Any]]:
        options = dict(shot.options)
        table = options.pop(TABLE_KEY, None) or {}
        attack = resolve(
            self.tables, shot.shooter, shot.target, shot.range_inches, shot.count, options
        )
        if table.get("sight"):
            sight = table["sight"]
            if table.get("blocked_by") and attack.situation.los:
                sight += " (the referee's --set los=true fires anyway)"
            attack.lines.insert(1, sight)
        if not attack.situation.los and attack.mode != "indirect":
            # MB 8.0: direct fire needs a line of sight; a bombardment does not (MB 7.5).
            why = (table.get("blocked_by") or ["--set los=false"])[0]
            shooter = shot.shooter_stand or attack.shooter.id
            target = shot.target_stand or attack.target.id
            raise RulesRefusal(
                f"{shooter} has no line of sight to {target} (MB 8.0): {why}; only a "
                "bombardment (--set indirect=true) fires without one"
            )
        return attack, table

    def streak_options(self, streak: int) -> dict[str, Any]:
        # MB 7.3: accuracy grows with the pulses the unit has fired at this target.
        return {"pulses": streak}

    def fire(self, shot: Shot, dice: DiceLike) -> Outcome:
        a, table = self._resolve(shot)
        certain, chance = kill_chance(a.kills)
        strength = a.situation.strength
        killed = certain
        if strength is not None and certain >= strength:
            killed = strength
            a.note(f"killed: {certain} certain, all {strength} left [MB 7.3]")
        elif chance:
            extra, rolls = roll_chance(dice, chance, "kill roll: one more kill")
            killed += int(extra)
            dice_text = " then ".join(f"d100 {r}" for r in rolls)
            a.note(
                f"killed: {certain} certain + {shown(chance)} chance of one more; {dice_text}: "
                f"{killed} [MB 7.3, our reading]"
            )
        else:
            a.note(f"killed: {killed} (no chance of another to roll for) [MB 7.3]")
        return Outcome(
            verdict=self._verdict(a, killed),
            data=self._data(a, killed),
            lines=a.lines,
            target_state=self._target_state(a, killed, table),
            eliminated=strength is not None and killed >= strength,
        )

    def _verdict(self, a: Attack, killed: int) -> str:
        who = a.target.id
        if not a.target.is_vehicle:
            who += " man" if killed == 1 else " men"
        return (
            f"{killed} {who} killed ({num(a.kills, 2)} expected), "
            f"suppression {a.suppression}: {a.count} {a.shooter.id} ({a.mode}) at "
            f"{a.range} squares"
        )

    def _data(self, a: Attack, killed: int) -> dict[str, Any]:
        _, chance = kill_chance(a.kills)
        return {
            "accuracy": float(a.accuracy),
            "apf": None if a.apf is None else float(a.apf),
            "kills": float(a.kills),
            "killed": killed,
            "suppression": a.suppression,
            "suppression_added": float(a.added),
            "extra_kill_chance": float(chance),
            "weapon": a.weapon.id,
            "mode": a.mode,
            "weapons_firing": a.weapons,
            "armour": None if a.armour is None else float(a.armour),
            "defence": None if a.defence is None else float(a.defence),
            "range_squares": a.range,
            "range_inches": float(a.measured * Fraction(str(self.tables.scale.inches))),
            "shooter": a.shooter.id,
            "target": a.target.id,
        }

    def _target_state(self, a: Attack, killed: int, table: dict[str, Any]) -> dict[str, Any]:
        state: dict[str, Any] = {
            "suppression": a.suppression,
            "suppression_rule": "MB 7.6: added by fire",
            "pinned": a.suppression > self.tables.whole("pinned-above"),
            "pinned_rule": "MB 7.7: over 50 the unit is pinned and does not move",
            "turn": table.get("turn"),
            "phase": table.get("phase"),
            "killed": int(table.get("killed") or 0) + killed,
        }
        if a.situation.strength is not None:
            state["left"] = max(0, a.situation.strength - killed)
        return state

    def odds(self, shot: Shot) -> dict[str, Any]:
        a, _ = self._resolve(shot)
        dist = killed_distribution(a.kills, a.situation.strength)
        return {
            "outcomes": {f"{n} killed": p for n, p in sorted(dist.items())},
            "expected": {
                "kills": a.kills,
                "killed": sum((n * p for n, p in dist.items()), Fraction(0)),
                "accuracy": a.accuracy,
                "suppression": Fraction(a.suppression),
            },
        }

    # --- the table -------------------------------------------------------------------------

    def fire_kind(self, options: Mapping[str, Any]) -> tuple[str, str]:
        if options.get("indirect") is True:
            # MB 7.5: a bombardment is artillery fire, in the turn's indirect-fire phase.
            return "indirect-fire", "a bombardment (indirect fire)"
        return super().fire_kind(options)

    def table_count(self, ctx: RulesContext, stand: StandRow) -> int:
        # MB 7.3 (5), 7.4: every weapon the unit has left fires, one per vehicle or man.
        return strength(self, ctx, stand)

    def situation_from_table(
        self, ctx: RulesContext, shooter: StandRow, target: StandRow, sight: Any
    ) -> dict[str, Any]:
        return situation(self, ctx, shooter, target, sight)

    def check_options(self, options: Mapping[str, Any]) -> None:
        super().check_options(options)
        # Validate values too, so a bad one is refused before anything is rolled.

        Situation.read(self.tables, options)
