"""Which model procedures act on stands, what each reads from a stand and what it records
(``tabletop.rules.models.stands`` runs them). Keys are the procedures' own option names;
``hq``, ``viewer`` and ``unit`` where a procedure has no such option name a stand only (it
gives the distance, or the facts of the stand the result is recorded on).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.words import count, possessive
from tabletop.rules.cd.sighting import distance_between, end_for_stand, sight
from tabletop.rules.context import RulesContext
from tabletop.rules.models import Model
from tabletop.rules.models.aggression.battle import profile_id, start_strength
from tabletop.rules.models.aggression.chart import AggressionChart
from tabletop.rules.models.mech_brigade.formulas import half_up
from tabletop.rules.models.mech_brigade.table import line_of_fire, square_terrain
from tabletop.rules.models.squad_battles.assault import assault_value, unit_strength
from tabletop.rules.models.squad_battles.fire import hexes_for
from tabletop.rules.models.squad_battles.results import apply_effectiveness, morale_value
from tabletop.rules.models.stands import (
    STATUS,
    Reader,
    Stand,
    StandUse,
    Writer,
    check_may_act,
    find_stand,
    profile_of,
    record,
    squares_between,
)
from tabletop.state.document import centre

GroupReader = Callable[[RulesContext, Model, list[Stand], dict[str, list[Stand]]], dict[str, Any]]


@frozen_dataclass
class GroupUse(StandUse):
    """Several stands under one key (a side of an assault: one hex's stack), read together by
    ``read_group`` (the stands of the key, and every key's stands); each is written back by
    ``write``. Named by STAND arguments, split by side (the first stand's side takes the
    first key, the other side's stands the second), or ``--set KEY=ID,ID``."""

    read_group: GroupReader | None = None


def need_profile(ctx: RulesContext, model: Model, stand: Stand) -> str:
    found = profile_of(ctx, model, stand)
    if found is None:
        raise BadInput(
            f"{stand['id']} has no profile for the {model.name} model: give it "
            f"'profiles: {{{model.name}: ID}}' in the scenario (IDs in "
            f"charts/models/{model.chart}.yaml)"
        )
    return found


def moving(ctx: RulesContext, stand: Stand) -> bool:
    return bool(stand.get("moved_turn") == ctx.state.turn)


# --- Typhoon of Steel ---------------------------------------------------------------------------

TOS_TARGET_STATES = (
    "positioned",
    "dug-in",
    "cautious",
    "full",
    "pinned",
    "buttoned",
    "retreating",
    "routed",
)
TOS_HQ_STATES = ("dug-in", "positioned", "cautious", "full", "pinned", "buttoned", "loaded")
TOS_NO_ASSAULT = {
    s: "ToS II.A Unit states: it moves to cover or its own edge, our reading"
    for s in ("retreating", "routed")
} | {"heavily-suppressed": "ToS II.A Heavy suppression: it cannot move or fire"}


TOS_NO_ORDERS = {
    s: "ToS II.A Unit states: a retreating or routed unit gives and receives no orders"
    for s in ("retreating", "routed")
}


def tos_unit(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Stand]
) -> dict[str, Any]:
    mine = record(model, stand)
    return {
        "unit": need_profile(ctx, model, stand),
        "points": int(mine.get("suppression") or 0),
        "immobilized": mine.get("immobilized") or None,
        "dug_in": True if mine.get("state") == "dug-in" else None,
    }


def tos_men(ctx: RulesContext, model: Model, stand: Stand) -> int | None:
    mine = record(model, stand)
    if mine.get("men") is not None:
        return int(mine["men"])
    return ctx.scenario.stand_spec(stand["id"]).strength


def tos_state(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"state": result["state"]}
    if result.get("pulses") is not None:
        out["heavy_pulses"] = result["pulses"]
    return out


def tos_suppression(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"suppression": result["points"], "state": result["state"]}


def tos_rally_hq(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Stand]
) -> dict[str, Any]:
    state = record(model, stand).get("state") or "positioned"
    out: dict[str, Any] = {"hq": need_profile(ctx, model, stand)}
    if state == "good":
        state = "positioned"
    if state in (*TOS_HQ_STATES, "retreating", "routed"):
        out["hq_state"] = state
    if "unit" in found:
        out["distance"] = squares_between(model, stand, found["unit"])
    return out


def tos_rally(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"suppression": result["points"]} if result.get("rallied") else {}


def tos_command_hq(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    """ToS V Command control radius: the distance to the HQ, and the HQ's own command rating
    (a radio link is Rnd(1) x that rating >= 2)."""
    profile = model.t.units.get(profile_of(ctx, model, stand) or "")  # type: ignore[attr-defined]
    out: dict[str, Any] = {"cr": getattr(profile, "command", None)}
    if "unit" in found:
        out["distance"] = squares_between(model, stand, found["unit"])
    return out


def tos_in_command(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"in_command": result["in_command"]}


def tos_assaulter(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    mine = record(model, stand)
    return {
        "assaulter": need_profile(ctx, model, stand),
        "men": tos_men(ctx, model, stand),
        "suppression": int(mine.get("suppression") or 0),
    }


def tos_assault_target(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    if "assaulter" in found:
        squares = squares_between(model, found["assaulter"], stand)
        reach = float(model.t.p("adjacent-within"))  # type: ignore[attr-defined]
        if squares is not None and squares > reach:
            raise RulesRefusal(
                f"{found['assaulter']['id']} is {squares:g} squares from {stand['id']}: an "
                f"assault reaches its own square or the next (within {reach:g}; ToS II.B.3 "
                "Introduction to combat)"
            )
    mine = record(model, stand)
    state = mine.get("state")
    return {
        "target": need_profile(ctx, model, stand),
        "target_state": state if state in TOS_TARGET_STATES else None,
        "target_men": tos_men(ctx, model, stand),
    }


def tos_assaulted(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    if result.get("result") == "destroyed":
        return {"state": "destroyed", STATUS: "eliminated"}
    if result.get("result") == "immobilized":
        return {"immobilized": True}
    return {}


def tos_assaulting(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"last_assault": result.get("result")}
    if result.get("result") == "routed":  # ToS II.B.3: a squad failing its morale check routs
        out["state"] = "routed"
    return out


def tos_orders_hq(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    """ToS II.B.1: the HQ's command rating (its profile) and the orders it holds (its record)."""
    profile = model.t.units.get(need_profile(ctx, model, stand))  # type: ignore[attr-defined]
    return {
        "cr": getattr(profile, "command", None),
        "orders": int(record(model, stand).get("orders") or 0),
    }


def tos_superior_orders(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    return {"superior_orders": int(record(model, stand).get("orders") or 0)}


def tos_orders(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"orders": result["orders"]}


# --- Mech Brigade ---------------------------------------------------------------------------------


def mb_suppression(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    return {"suppression": int(record(model, stand).get("suppression") or 0)}


def mb_level(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    """MB 7.6: the stand's recorded level, and whether it is a vehicle (at most 50)."""
    profile = model.tables.profiles.get(need_profile(ctx, model, stand))  # type: ignore[attr-defined]
    return {
        "level": int(record(model, stand).get("suppression") or 0),
        "vehicle": True if getattr(profile, "is_vehicle", False) else None,
    }


def mb_suppressed(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"suppression": result["suppression"], "pinned": result["pinned"]}


def mb_searches(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"searches": result["searches"]}


def mb_hq_distance(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    if "unit" not in found:
        return {}
    squares = squares_between(model, stand, found["unit"])
    return {} if squares is None else {"distance": round(squares)}


def mb_linked(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"linked": result["linked"]}


def mb_sighted(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    tables = model.tables  # type: ignore[attr-defined]
    out: dict[str, Any] = {"target": need_profile(ctx, model, stand)}
    out["moving"] = moving(ctx, stand) or None
    if stand.get("x") is not None:
        cover = square_terrain(tables, ctx, *centre(stand))
        out["cover"] = None if cover == "clear" else cover
    if "viewer" in found:
        squares = squares_between(model, found["viewer"], stand)
        out["range"] = None if squares is None else round(squares)
    return out


def mb_spotted(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {} if result.get("spotted") is None else {"spotted": result["spotted"]}


def mb_line(ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]) -> dict[str, Any]:
    """MB 8.0 traced over the table's squares from this stand to the ``target`` stand."""
    if "target" not in found or stand.get("x") is None or found["target"].get("x") is None:
        return {}

    target = found["target"]
    seen = sight(ctx, end_for_stand(ctx.state, stand["id"]), end_for_stand(ctx.state, target["id"]))
    line = line_of_fire(model.tables, ctx, stand, target, seen)  # type: ignore[attr-defined]

    letters = {"woods": "w", "broken": "b", "town": "t", "entrenchment": "e"}
    path = ",".join(f"{lvl}{letters.get(kind, '')}" for lvl, kind in line["path"])

    return {
        "viewer": half_up(Fraction(float(seen.level_a))),
        "target": half_up(Fraction(float(seen.level_b))),
        "path": path or None,
    }


def mb_line_target(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    return {}


def mb_los(ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]) -> dict[str, Any]:
    return {"line_of_sight": "clear" if result["los"] else "blocked"}


def mb_smoke(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"smoke": result["level"]}


def nothing(ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]) -> dict[str, Any]:
    return {}


# --- Squad Battles -------------------------------------------------------------------------------

# Our reading of CD quality as SB's quality letter, for a stand whose profile has none.
SB_QUALITY = {
    "elite": "A+",
    "veteran": "A",
    "experienced": "B",
    "regular": "C",
    "trained": "D",
    "green": "E",
}


def sb_unit(ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]) -> dict[str, Any]:
    tables = model.tables  # type: ignore[attr-defined]
    profile = tables.profiles.get(need_profile(ctx, model, stand))
    mine = record(model, stand)
    quality = getattr(profile, "quality", None) or SB_QUALITY.get(str(stand.get("quality")))
    return {
        "quality": quality,
        "effectiveness": mine.get("effectiveness"),
        "state": mine.get("state"),
        "ground": mine.get("ground"),
        "vehicle": True if getattr(profile, "kind", None) == "vehicle" else None,
    }


def sb_state(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    out = {"state": result["state"]}
    if "ground" in result:
        out["ground"] = result["ground"]
    return out


def sb_rally(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"state": result["state"]} if result.get("rallied") else {}


def sb_command(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"command_test": "passed" if result["passed"] else "failed"}


def sb_effectiveness(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"effectiveness": result["effectiveness"]}


def sb_morale(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"morale": result["morale"]}


def sb_hexes(model: Model, a: Stand, b: Stand) -> int | None:
    """Whole hexes between two stands, centre to centre (our reading: rounded half up)."""
    hexes = squares_between(model, a, b)
    return None if hexes is None else math.floor(hexes + 0.5)


def sb_need_leader(ctx: RulesContext, model: Model, stand: Stand, role: str) -> None:
    profile = model.tables.profiles.get(need_profile(ctx, model, stand))  # type: ignore[attr-defined]
    if getattr(profile, "kind", None) != "leader":
        raise BadInput(
            f"{stand['id']} is not a leader (its squad-battles profile is "
            f"{need_profile(ctx, model, stand)}): name a leader stand as the {role}"
        )


SB_NO_ASSAULT = {s: "SB Assaulting: Attacking Restrictions" for s in ("pinned", "demoralized")}


def sb_superior(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    """SB Command Test: the superior's quality, and his distance to the leader tested."""
    sb_need_leader(ctx, model, stand, "superior")
    out = {"superior": sb_unit(ctx, model, stand, found)["quality"]}
    if "unit" in found:
        out["distance"] = sb_hexes(model, found["unit"], stand)
    return out


def sb_leader(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    """SB Recovery Test: the leader's quality, his command test this turn if he took one
    (else it is rolled), and his distance to the unit."""
    sb_need_leader(ctx, model, stand, "leader")
    mine = record(model, stand)
    out: dict[str, Any] = {"quality": sb_unit(ctx, model, stand, found)["quality"]}
    taken = mine.get("command_test_turn") == ctx.state.turn
    if taken and mine.get("command_test") in ("passed", "failed"):
        out["leader_passed"] = mine["command_test"] == "passed"
    if "unit" in found:
        out["distance"] = sb_hexes(model, found["unit"], stand)
    return out


def sb_in_state(state: str, test: str, rule: str) -> Reader:
    """A reader refusing a stand that is not in ``state`` (the recovery test is for it)."""

    def read(
        ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
    ) -> dict[str, Any]:
        now = record(model, stand).get("state") or "normal"
        if now != state:
            raise RulesRefusal(
                f"{stand['id']} is {now}, not {state}: the {test} is for {state} units ({rule})"
            )
        return {}

    return read


def sb_test_taken(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {**sb_command(ctx, model, stand, result), "command_test_turn": ctx.state.turn}


# SB Assaulting on stands: the attacking stands against the defending stands (each side one
# hex's stack: leaders, teams and vehicles together). Our reading where the manual works with
# whole hexes: bases cannot share a hex on the table, so each stand must be within a hex of
# a stand of the other side; a leader is a unit of its side (assault value, a share of the
# losses, the morale bonus); the morale states (pinned, demoralized) are a team's.


def sb_men(ctx: RulesContext, model: Model, stand: Stand) -> int | None:
    """A team's men now: its record, else the scenario's strength, else its profile's."""
    profile = model.tables.profiles.get(need_profile(ctx, model, stand))  # type: ignore[attr-defined]
    if getattr(profile, "kind", None) != "team":
        return None
    mine = record(model, stand)
    if mine.get("men") is not None:
        return int(mine["men"])
    spec = ctx.scenario.stand_spec(stand["id"]).strength
    return int(spec) if spec is not None else getattr(profile, "men", None)


def sb_assault_unit(ctx: RulesContext, model: Model, stand: Stand, role: str) -> dict[str, Any]:
    """SB Assault Values and Assault Morale of one stand: its unit for sharing losses, its
    assault value as attacker or defender, its morale."""
    tables = model.tables  # type: ignore[attr-defined]
    pid = need_profile(ctx, model, stand)
    profile = tables.profiles[pid]
    kind = str(profile.kind)
    if kind not in ("team", "leader", "vehicle"):
        raise BadInput(
            f"{stand['id']} is a {kind} ({pid}) under squad-battles: an assault takes teams, "
            "leaders and vehicles (a weapon fights with the unit carrying it)"
        )
    facts = sb_unit(ctx, model, stand, {})
    state = str(facts["state"] or "normal")
    men = sb_men(ctx, model, stand)
    immobile = bool(record(model, stand).get("immobile"))
    value = assault_value(
        tables,
        {
            "unit": None,
            "profile": pid,
            "strength": men,
            "armour": None,
            "weapon_assault": 0,
            "passengers": 0,
            "disrupted": state == "disrupted",
            "role": role,
            "slope": "level",
            "state": state if state in ("pinned", "demoralized") else "normal",
            "immobile": immobile,
        },
    )["assault_value"]
    effectiveness = Fraction(str(facts["effectiveness"] or 100))
    morale, _ = morale_value(tables, str(facts["quality"]), effectiveness, state)
    armour = Fraction(str(profile.armour or 0)) if kind == "vehicle" else None
    return {
        "id": stand["id"],
        "kind": kind,
        "strength": unit_strength(tables, kind, armour if kind == "vehicle" else men),
        "armour": armour,
        "value": Fraction(str(value)),
        "morale": morale,
        "demoralized": state == "demoralized",
    }


def sb_in_contact(ctx: RulesContext, model: Model, mine: list[Stand], theirs: list[Stand]) -> None:
    """SB Assaulting: only between adjacent hexes. Each stand must be within a hex of a stand
    of the other side, measured as fire measures it (the scenario's edge or centre range)."""
    for group, others in ((mine, theirs), (theirs, mine)):
        for stand in group:
            gaps: dict[str, int] = {}
            for other in others:
                if stand.get("x") is None or other.get("x") is None:
                    continue
                ends = (
                    end_for_stand(ctx.state, other["id"]),
                    end_for_stand(ctx.state, stand["id"]),
                )
                # Only the range matters here (measured as fire measures it), not the sight
                # line: an assault's odds run this check once per enumerated run.
                reach = distance_between(*ends, ctx.scenario.measure)
                gaps[other["id"]] = hexes_for(reach, model.inches_per_unit)
            if gaps and min(gaps.values()) > 1:
                nearest = min(gaps, key=lambda k: gaps[k])
                a, d = (stand["id"], nearest) if group is mine else (nearest, stand["id"])
                raise RulesRefusal(
                    f"{a} is {gaps[nearest]} hexes from {d}: an assault is only between "
                    "adjacent hexes (SB Assaulting)"
                )


def sb_assault_side(role: str) -> GroupReader:
    """SB Assault Values and Assault Morale for one side's stands taken together."""

    def read(
        ctx: RulesContext, model: Model, mine: list[Stand], groups: dict[str, list[Stand]]
    ) -> dict[str, Any]:
        tables = model.tables  # type: ignore[attr-defined]
        units = [sb_assault_unit(ctx, model, s, role) for s in mine]
        # SB Assault Morale: the highest of the teams and vehicles not demoralized; a leader
        # rating higher adds one (SB Leader Morale Modification)
        counted = [u["morale"] for u in units if u["kind"] != "leader" and not u["demoralized"]]
        leaders = [u["morale"] for u in units if u["kind"] == "leader"]
        armours = [u["armour"] for u in units if u["armour"] is not None]
        given = [{k: u[k] for k in ("id", "kind", "strength", "armour", "value")} for u in units]
        total = sum((u["value"] for u in units), Fraction(0))
        if role == "attacker":
            fighting = [u["morale"] for u in units if u["kind"] != "leader"] or leaders
            return {
                "attack": total,
                "attacker_morale": max(counted, default=0),
                "attacker_leader": max(leaders, default=None),
                "attacker_min_morale": min(fighting, default=0),
                "attacker_armour": max(armours, default=None),
                "attacker_units": given,
            }
        sb_in_contact(ctx, model, groups.get("attacker") or [], mine)
        clear = not any(
            piece.kind in tables.by_table["terrain"]
            for s in mine
            if s.get("x") is not None
            for piece in ctx.table.pieces_at(*centre(s))
        )
        hard = any(a >= tables.param("hard-vehicle-armour") for a in armours)
        return {
            "defend": total,
            "defender_morale": max(counted, default=0),
            "defender_leader": max(leaders, default=None),
            "hard_vehicle": hard or None,
            "clear": clear or None,
            "defender_units": given,
        }

    return read


def sb_assaulted(role: str) -> Writer:
    """SB Assault Resolution on one stand: its share of the losses (men, a leader or a vehicle
    killed), the side's effectiveness loss, and the states the result gives a team."""

    def write(
        ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        men = sb_men(ctx, model, stand)
        if result.get("result") == "X":  # SB Hard Vehicle Morale Check: no effect
            if role == "attacker" and men is not None:
                out["state"] = "pinned"
            return out
        mine = next((u for u in result.get(f"{role}_units") or [] if u["id"] == stand["id"]), None)
        losses = int(mine["losses"]) if mine else int(result[f"{role}_losses"])
        killed = bool(mine and mine["killed"])
        if men is not None:
            out["men"] = max(0, men - losses)
            killed = killed or out["men"] == 0
        if killed and mine and mine.get("vehicle_loss") is not None:
            out["vehicle_loss"] = mine["vehicle_loss"]  # SB Combat Losses and Vehicle Kills
        if killed:
            out["killed"] = True
            out[STATUS] = "eliminated"
        before = Fraction(str(record(model, stand).get("effectiveness") or 100))
        loss = int(result[f"{role}_effectiveness_loss"])
        out["effectiveness"] = int(apply_effectiveness(model.tables, before, loss))  # type: ignore[attr-defined]
        if role == "defender" and result.get("surrendered"):
            out["surrendered"] = True
            if men is not None:
                out["state"] = "demoralized"
            out[STATUS] = "eliminated"
        elif men is None or killed:
            return out  # the morale states are a team's
        elif role == "defender" and result.get("retreat"):
            out["state"] = "demoralized"  # SB Assaulting: Retreating (the referee moves it)
        elif role == "attacker" and result.get("attackers_pinned"):
            # SB Assault Resolution: attacking infantry not demoralized is pinned
            out["state"] = "pinned"
        return out

    return write


# --- aggression (play-by-mail) -------------------------------------------------------------------


def agg_unit(
    ctx: RulesContext, model: Model, stand: Stand, found: dict[str, Any]
) -> dict[str, Any]:
    chart = AggressionChart.of(ctx.charts)
    mine = record(model, stand)
    spec = ctx.scenario.stand_spec(stand["id"])
    profile = chart.profile(profile_id(ctx, chart, stand, None))
    start = start_strength(profile, spec.strength)
    strength = int(mine.get("strength") or start)
    return {
        "af": int(mine.get("af") or spec.aggression or chart.params.default_af),
        "training": profile.training or chart.training_for_quality(str(stand.get("quality"))),
        "strength": strength,
        "casualties": max(0, start - strength) or None,
        "moving": moving(ctx, stand) or None,
    }


def agg_retreat(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    if not result.get("retreated"):
        return {}

    af = AggressionChart.of(ctx.charts).params.af_after_retreat
    return {"af": af, "retreated_turn": ctx.state.turn}


def agg_surrender(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    if not result.get("surrendered"):
        return {}
    if "surrendered" not in stand["markers"]:
        stand["markers"].append("surrendered")
    return {"surrendered": True, STATUS: "eliminated"}


def agg_pursuit(
    ctx: RulesContext, model: Model, stand: Stand, result: dict[str, Any]
) -> dict[str, Any]:
    return {"pursue": result["pursues"]}


USES: dict[tuple[str, str], tuple[StandUse, ...]] = {
    ("typhoon", "state"): (StandUse("unit", tos_unit, tos_state),),
    ("typhoon", "suppression"): (StandUse("unit", tos_unit, tos_suppression),),
    ("typhoon", "rally"): (
        StandUse("unit", tos_unit, tos_rally),
        StandUse("hq", tos_rally_hq),
    ),
    ("typhoon", "command-control"): (
        StandUse("unit", lambda c, m, s, f: {"unit": need_profile(c, m, s)}, tos_in_command),
        StandUse("hq", tos_command_hq),
    ),
    ("typhoon", "orders"): (
        StandUse("hq", tos_orders_hq, tos_orders, TOS_NO_ORDERS),
        StandUse("superior", tos_superior_orders),
    ),
    ("typhoon", "assault"): (
        StandUse("assaulter", tos_assaulter, tos_assaulting, TOS_NO_ASSAULT),
        StandUse("target", tos_assault_target, tos_assaulted),
    ),
    ("mech-brigade", "suppression"): (StandUse("unit", mb_level, mb_suppressed),),
    ("mech-brigade", "search"): (StandUse("unit", mb_suppression, mb_searches),),
    ("mech-brigade", "command-link"): (
        StandUse("unit", nothing, mb_linked),
        StandUse("hq", mb_hq_distance),
    ),
    ("mech-brigade", "sighting"): (
        StandUse("target", mb_sighted, mb_spotted),
        StandUse("viewer", nothing),
    ),
    ("mech-brigade", "line-of-sight"): (
        StandUse("viewer", mb_line, mb_los),
        StandUse("target", mb_line_target),
    ),
    ("mech-brigade", "smoke-place"): (StandUse("unit", nothing, mb_smoke),),
    ("squad-battles", "morale"): (StandUse("unit", sb_unit, sb_morale),),
    ("squad-battles", "morale-check"): (StandUse("unit", sb_unit, sb_state),),
    ("squad-battles", "command-test"): (
        StandUse("unit", sb_unit, sb_test_taken),
        StandUse("superior", sb_superior),
    ),
    ("squad-battles", "recovery"): (
        StandUse(
            "unit", sb_in_state("disrupted", "recovery test", "SB Command: Recovery Test"), sb_state
        ),
        StandUse("leader", sb_leader),
    ),
    ("squad-battles", "pinned-recovery"): (
        StandUse(
            "unit",
            sb_in_state("pinned", "automatic recovery", "SB Command: Pinned Recovery"),
            sb_state,
        ),
    ),
    ("squad-battles", "demoralized-recovery"): (
        StandUse(
            "unit",
            sb_in_state("demoralized", "recovery", "SB Command: Demoralized Recovery"),
            sb_state,
        ),
    ),
    ("squad-battles", "rally"): (StandUse("unit", sb_unit, sb_rally),),
    ("squad-battles", "effectiveness"): (StandUse("unit", sb_unit, sb_effectiveness),),
    ("squad-battles", "assault"): (
        GroupUse(
            "attacker",
            nothing,
            sb_assaulted("attacker"),
            SB_NO_ASSAULT,
            read_group=sb_assault_side("attacker"),
        ),
        GroupUse(
            "defender", nothing, sb_assaulted("defender"), read_group=sb_assault_side("defender")
        ),
    ),
    ("aggression", "retreat-test"): (StandUse("unit", agg_unit, agg_retreat, needs_profile=False),),
    ("aggression", "surrender"): (StandUse("unit", agg_unit, agg_surrender, needs_profile=False),),
    ("aggression", "pursuit"): (StandUse("unit", agg_unit, agg_pursuit, needs_profile=False),),
}


def uses_of(model: str, procedure: str) -> tuple[StandUse, ...]:
    return USES.get((model, procedure), ())


def stand_procedures(model: str) -> dict[str, tuple[str, ...]]:
    """The procedures of ``model`` that act on stands, with the stand keys of each."""
    return {p: tuple(u.key for u in uses) for (m, p), uses in USES.items() if m == model}


def bind(
    ctx: RulesContext,
    model: Model,
    procedure: str,
    accepted: Mapping[str, str],
    options: dict[str, Any],
    stands: list[str],
) -> tuple[dict[str, Any], list[tuple[StandUse, Stand]]]:
    """The procedure's options with every stand read in, and the stands bound to it."""
    uses = uses_of(model.name, procedure)
    if uses and all(isinstance(u, GroupUse) for u in uses):
        return bind_groups(ctx, model, procedure, uses, accepted, options, stands)
    if stands and not uses:
        raise BadInput(
            f"{model.name} {procedure} does not act on stands: give its options with --set "
            "KEY=VALUE (see 'tabletop model show')"
        )
    if len(stands) > len(uses):
        keys = ", ".join(u.key for u in uses)
        raise BadInput(
            f"{model.name} {procedure} takes {count(len(uses), 'stand')} ({keys}); got "
            f"{len(stands)}: {' '.join(stands)}"
        )
    given = dict(options)
    for use, sid in zip(uses, stands, strict=False):
        if use.key in given:
            raise BadInput(f"{sid}: {use.key} is given twice (a stand and --set {use.key}=)")
        if find_stand(ctx, sid) is None:
            ctx.state.stand(sid)  # the unknown-stand message, with the nearest ids
        given[use.key] = sid
    found: dict[str, Stand] = {}
    for use in uses:
        stand = find_stand(ctx, given.get(use.key))
        if stand is not None:
            found[use.key] = stand
    bound: list[tuple[StandUse, Stand]] = []
    out = {k: v for k, v in given.items() if k not in found}
    referee = set(out)  # what the referee gave with --set wins over what a stand says
    for use in uses:
        stand = found.get(use.key)
        if stand is None:
            continue
        check_may_act(model, procedure, use, stand)
        if use.needs_profile and profile_of(ctx, model, stand) is None:
            raise BadInput(
                f"{stand['id']} has no profile for the {model.name} model: give it "
                f"'profiles: {{{model.name}: ID}}' in the scenario (IDs in "
                f"charts/models/{model.chart}.yaml)"
            )
        read = use.read(ctx, model, stand, found)
        for key, value in read.items():
            if key in accepted and key not in referee and value is not None:
                out[key] = value
        bound.append((use, stand))
    return out, bound


def _listed(value: Any) -> list[str]:
    return [p.strip() for p in str(value).split(",") if p.strip()]


def bind_groups(
    ctx: RulesContext,
    model: Model,
    procedure: str,
    uses: tuple[StandUse, ...],
    accepted: Mapping[str, str],
    options: dict[str, Any],
    stands: list[str],
) -> tuple[dict[str, Any], list[tuple[StandUse, Stand]]]:
    """``bind`` for procedures taking groups of stands (``GroupUse``): the stands of each
    side found, checked and read together."""
    out = dict(options)
    named: dict[str, list[str]] = {u.key: _listed(out.pop(u.key)) for u in uses if u.key in out}
    keys = ", ".join(f"--set {u.key}=ID,ID" for u in uses)
    if named and stands:
        raise BadInput(
            f"{' '.join(stands)}: name the stands either as arguments or with {keys}, not both"
        )
    found: dict[str, list[Stand]] = {u.key: [] for u in uses}
    seen: set[str] = set()
    first_side: str | None = None
    order = [(None, sid) for sid in stands] + [(k, sid) for k, ids in named.items() for sid in ids]
    for key, sid in order:
        stand = find_stand(ctx, sid)
        if stand is None:
            ctx.state.stand(sid)  # the unknown-stand message, with the nearest ids
            raise BadInput(f"unknown stand {sid!r}")
        if stand["id"] in seen:
            raise BadInput(f"{stand['id']} is named twice: name each stand once, on one side")
        seen.add(stand["id"])
        if key is None:  # a STAND argument: the first stand's side, or the other side
            first_side = first_side or stand["side"]
            key = uses[0].key if stand["side"] == first_side else uses[1].key
        found[key].append(stand)
    if any(found.values()):
        for use in uses:
            if not found[use.key]:
                raise BadInput(
                    f"{model.name} {procedure} needs {use.key} stands too: name the stands of "
                    f"both sides as arguments (the first stand's side is the {uses[0].key}), or "
                    f"use {keys}"
                )
        side = found[uses[0].key][0]["side"]
        for use in uses:
            for stand in found[use.key]:
                if (stand["side"] == side) != (use is uses[0]):
                    raise BadInput(
                        f"{stand['id']} is on {possessive(stand['side'])} side: the {uses[0].key} "
                        f"stands are one side's ({side}), the {uses[1].key} stands the other's"
                    )
    referee = set(out)  # what the referee gave with --set wins over what the stands say
    bound: list[tuple[StandUse, Stand]] = []
    for use in uses:
        for stand in found[use.key]:
            check_may_act(model, procedure, use, stand)
            if use.needs_profile and profile_of(ctx, model, stand) is None:
                need_profile(ctx, model, stand)
            bound.append((use, stand))
    for use in uses:
        reader = getattr(use, "read_group", None)
        if not found[use.key] or reader is None:
            continue
        for key, value in reader(ctx, model, found[use.key], found).items():
            if key in accepted and key not in referee and value is not None:
                out[key] = value
    return out, bound
