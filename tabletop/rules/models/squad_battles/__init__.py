"""The "squad-battles" model: Squad Battles' fire, combat results, morale, command and
scoring on the tabletop (seed 000). A hex is 40 m, about 0.87 inch (chart ``scale``).

Fire resolves one firing unit against one target stand: the nominal fire value (lethality x
strength x effectiveness) through every modifier to a combat value, then casualties (or a
vehicle kill), effectiveness loss and the target's morale state. In table mode the target's
state (``men``, ``effectiveness``, ``state``, ``ground``, ``immobile``) lives on the stand
under ``models["squad-battles"]`` and is read back by the next fire; the firer's recorded
``effectiveness``, ``state`` and ``men`` count too; a team starts with the scenario's
``strength:`` men when it gives one (else its profile's). Every other procedure (command tests,
rally, mines, objectives, scoring, assault...) is in ``procedures()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, ClassVar

from tabletop.core.dice import DiceLike
from tabletop.rules.context import RulesContext
from tabletop.rules.models import Model, Outcome, Procedure, Shot
from tabletop.rules.models.squad_battles.fire import fire_opts, shooting
from tabletop.rules.models.squad_battles.opts import describe, parse
from tabletop.rules.models.squad_battles.procedures import build
from tabletop.rules.models.squad_battles.resolve import odds, resolve
from tabletop.rules.models.squad_battles.table import situation
from tabletop.rules.models.squad_battles.tables import CHART, SCHEMAS, Profile, Tables
from tabletop.state.document import StandRow

# The rule that sets each fact table fire leaves on the target stand (``status``/``show``).
FACT_RULES = {
    "men": "SB Combat Results: Combat Losses and Vehicle Kills",
    "killed": "SB Combat Results: Combat Losses and Vehicle Kills",
    "effectiveness": "SB Combat Results: Effectiveness Losses",
    "state": "SB Combat Results: Pinned, Disrupted, and Demoralized",
    "ground": "SB Combat Results: Pinned, Disrupted, and Demoralized",
    "immobile": "SB Firing: HE Immobilization",
}

NEAR = "_near"  # table mode: stands near the target, measured by situation_from_table


class SquadBattles(Model):
    name: ClassVar[str] = "squad-battles"
    chart: ClassVar[str] = CHART
    fire_limit_rule: ClassVar[str] = (
        "SB Unit displays: a weapon fires a set number of times a turn; on the table, one "
        "fire action a phase (our reading)"
    )
    dice_order: ClassVar[str] = (
        "fire: casualties (d100 where between the low and high values, then a d100 to round "
        "the fraction up, a second one on the boundary face), then effectiveness loss (the same "
        "two), then the target's morale check (d6); a vehicle target: kill then effectiveness. "
        "assault: the hard vehicle check (d6) when one defends; the defenders' casualties, the "
        "attackers', then each side's effectiveness loss (two d100 each, as in fire); each "
        "casualty placed among the side's stands by a die of the strength still standing "
        "(defenders first); a d100 for a vehicle whose share is under a kill; the retreat "
        "test's two d6"
    )
    options: ClassVar[Mapping[str, str]] = describe(fire_opts(None))

    # The tables and procedures last built, with the charts they were built from: the odds
    # run a procedure thousands of times, each with a fresh model on the same charts.
    _built: ClassVar[tuple[Any, Tables, Mapping[str, Procedure]] | None] = None

    def _build(self) -> tuple[Tables, Mapping[str, Procedure]]:
        last = SquadBattles._built
        if last is None or last[0] is not self.charts:
            tables = Tables(self.charts.model_tables(self.chart, SCHEMAS))
            last = SquadBattles._built = (self.charts, tables, build(tables))
        return last[1], last[2]

    @cached_property
    def tables(self) -> Tables:
        return self._build()[0]

    @property
    def inches_per_unit(self) -> float:
        return float(self.tables.scale.inches_per_hex)

    @property
    def unit_name(self) -> str:
        return "hex"

    def profiles(self) -> Mapping[str, Profile]:
        return self.tables.profiles

    @cached_property
    def _fire_opts(self) -> list[Any]:
        return fire_opts(self.tables)

    def _shooting(self, shot: Shot) -> tuple[Any, list[dict[str, Any]]]:
        given = dict(shot.options)
        near = given.pop(NEAR, None) or []
        o = parse(self._fire_opts, given)
        return shooting(self.tables, shot, o), near

    def fire(self, shot: Shot, dice: DiceLike) -> Outcome:
        sh, near = self._shooting(shot)
        outcome = resolve(self.tables, sh, dice)
        if shot.shooter_stand:
            outcome.lines.insert(
                0,
                f"{shot.shooter_stand} ({sh.shooter.label}) fires "
                f"{sh.weapon.label} at {shot.target_stand} ({sh.target.label}), "
                f"{sh.hexes} hexes",
            )
        _blast_notes(sh, near, outcome)
        if outcome.target_state:  # beside each fact for the stand, the rule that set it
            for key in [k for k in outcome.target_state if k in FACT_RULES]:
                outcome.target_state.setdefault(f"{key}_rule", FACT_RULES[key])
        return outcome

    def odds(self, shot: Shot) -> dict[str, Any]:
        sh, _ = self._shooting(shot)
        return odds(self.tables, sh)

    def situation_from_table(
        self, ctx: RulesContext, shooter: StandRow, target: StandRow, sight: Any
    ) -> dict[str, Any]:
        return situation(ctx, self.tables, self.name, shooter, target, sight)

    def procedures(self) -> Mapping[str, Procedure]:
        return self._build()[1]


def _blast_notes(sh: Any, near: list[dict[str, Any]], outcome: Outcome) -> None:
    """Table mode: name the other stands in the target hex and under the explosion, each to
    be resolved by its own fire with the offset shown (SB Explosion Radius and Length)."""
    w = sh.weapon
    hit = []
    for n in near:
        if n.get("along") and n["along"] <= w.explosion_length:
            hit.append({**n, "offset": n["along"], "along": True})
        elif n["hexes"] <= w.explosion_radius:
            hit.append({"stand": n["stand"], "hexes": n["hexes"], "offset": n["hexes"]})
    if not hit:
        return
    outcome.data["under_blast"] = hit
    for h in hit:
        how = (
            "--set offset={} --set along=true".format(h["offset"])
            if h.get("along")
            else (f"--set offset={h['offset']}" if h["offset"] else "(same hex: full effect)")
        )
        outcome.lines.append(
            f"also affected: {h['stand']} at {h['offset']} hexes: fire at it "
            f"with {how} [SB Firing: Explosion Radius and Length]"
        )
