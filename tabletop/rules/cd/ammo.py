"""Ammunition depletion and supply, Command Decision section 1.

Per stand, per weapon (CD 1.4: a vehicle with several large guns tracks each one) the state
holds ``state`` (``ok`` or ``depleted``) and, where they apply, the counters of the
fixed-quantity rounds: flamethrower ``uses_left`` (CD 1.3.1), rocket ``resupplies_left``
(CD 1.3.3), and the limited-issue rounds ``limited``/``smoke``/``illum`` (CD 1.3, 1.3.2,
9.2.1: ``available``, ``firing`` during the phase they are fired in, then ``spent``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.units import within
from tabletop.core.words import count, with_article
from tabletop.data.chart_params import AmmoParams
from tabletop.rules.cd.depletion import (
    adjust_rule,
    depletes_by_roll,
    depletion_threshold,
    is_small_arms,
    roll_depletion,
)
from tabletop.rules.cd.sighting import distance_between, end_for_stand
from tabletop.rules.context import RulesContext
from tabletop.state.document import AmmoRow, StandRow, State, in_play, out_of_play

if TYPE_CHECKING:  # status reads ammunition without loading the charts
    from tabletop.core.dice import DiceLike
    from tabletop.data.charts import Charts, StandKind, Weapon

AMMO_KINDS = ("standard", "limited", "smoke", "illum")


# The limited-issue rounds an ammunition row counts (CD 1.3, 1.3.2, 9.2.1).
LimitedRounds = Literal["limited", "smoke", "illum"]


def fresh_ammo(weapon: Weapon, charts: Charts) -> AmmoRow:
    ammo: AmmoRow = {"state": "ok", "depleted_turn": None}
    if weapon.flame is not None:
        params = charts.params(AmmoParams)
        ammo["uses_left"] = {
            "man-pack": params.flame_uses_man_pack,
            "vehicle": params.flame_uses_vehicle,
            "trailer": params.flame_uses_trailer,
        }[weapon.flame]
    if weapon.rocket:
        ammo["resupplies_left"] = charts.params(AmmoParams).rocket_resupplies
    if weapon.limited:
        ammo["limited"] = "available"
    if weapon.smoke and weapon.indirect:
        ammo["smoke"] = "available"
    if weapon.illum and weapon.indirect:
        ammo["illum"] = "available"
    return ammo


@frozen_dataclass
class Recovery:
    """How a refusal can be mended, for the message."""

    text: str


def check_can_fire(stand: StandRow, weapon: Weapon, ammo_kind: str, charts: Charts) -> None:
    """Refuse (exit 3, naming the rule) a weapon that has nothing to fire."""
    ammo = stand["ammo"][weapon.id]
    radius = charts.params(AmmoParams).resupply_radius
    who = f"{stand['id']} cannot fire its {weapon.id}"
    if ammo_kind not in AMMO_KINDS:
        raise BadInput(f"--ammo {ammo_kind!r}: accepted: {', '.join(AMMO_KINDS)}")
    if weapon.flame is not None and ammo.get("uses_left", 0) <= 0:
        raise RulesRefusal(
            f"{who}: flamethrower fuel used up (CD 1.3.1); flamethrowers are never refuelled"
        )
    if ammo["state"] == "depleted":
        if weapon.rocket and ammo.get("resupplies_left", 0) <= 0:
            raise RulesRefusal(
                f"{who}: rockets fired and already resupplied once (CD 1.3.3); no more this game"
            )
        raise RulesRefusal(
            f"{who}: ammunition depleted (CD 1.4); it resupplies at the end of a turn "
            f'within {radius:g}" of a supply point of its battalion, regiment, brigade or '
            "division, not in the turn it depleted"
        )
    if ammo_kind == "limited":
        _check_limited(who, weapon.limited, ammo.get("limited"), "limited-issue rounds", "CD 1.3")
    elif ammo_kind == "smoke":
        if not weapon.smoke:
            raise BadInput(f"{weapon.id} cannot fire smoke (weapons chart)")
        if weapon.indirect:
            _check_limited(who, True, ammo.get("smoke"), "smoke rounds", "CD 1.3.2")
    elif ammo_kind == "illum":
        if not weapon.illum:
            raise BadInput(f"{weapon.id} cannot fire illumination (weapons chart)")
        _check_limited(who, True, ammo.get("illum"), "illumination rounds", "CD 9.2.1")


def check_fires_left(state: State, stand: StandRow, weapon: Weapon, charts: Charts) -> None:
    """Refuse a weapon that has already fired its allowance this turn (CD core, default).

    Direct fire, opportunity fire, fire at descending paratroopers, AA fire and barrages all
    count; each weapon of a stand (each gun of a multi-gun vehicle) has its own allowance,
    but a stand's small arms share one when the ammo chart says so (small-arms-fire-once).
    """
    params = charts.params(AmmoParams)
    allowed = params.fires_per_turn
    times = "once" if allowed == 1 else f"{allowed} times"
    fired = stand["ammo"][weapon.id].get("fired")
    if fired and fired["turn"] == state.turn and fired["count"] >= allowed:
        raise RulesRefusal(
            f"{stand['id']} cannot fire its {weapon.id} again this turn: it fired in the "
            f"{fired['phase']} phase ({fired['by']}); each weapon fires {times} a turn, in one "
            "phase: opportunity fire, fire, or a barrage (CD core (default), ammo chart "
            "fires-per-turn)"
        )
    if not (params.small_arms_fire_once and is_small_arms(weapon, charts)):
        return
    for other in stand["weapons"]:
        found = charts.weapons.get(other)
        if other == weapon.id or found is None or not is_small_arms(found, charts):
            continue
        row = stand["ammo"].get(other)
        used = None if row is None else row.get("fired")
        if used and used["turn"] == state.turn and used["count"] >= allowed:
            raise RulesRefusal(
                f"{stand['id']} cannot fire its {weapon.id} this turn: its small arms fire "
                f"together, {times} a turn, and its {other} fired in the {used['phase']} "
                f"phase ({used['by']}) (CD core (default), ammo chart small-arms-fire-once)"
            )


def small_arms_note(stand: StandRow, weapon: Weapon, charts: Charts) -> str | None:
    """What the ammo chart chose for a stand with several small arms, said with its fire."""
    if not is_small_arms(weapon, charts):
        return None
    others = [
        w
        for w in stand["weapons"]
        if w != weapon.id and w in charts.weapons and is_small_arms(charts.weapons[w], charts)
    ]
    if not others:
        return None
    if charts.params(AmmoParams).small_arms_fire_once:
        return (
            f"{weapon.id} fires for all its small arms ({', '.join(others)} not again this "
            "turn: CD core (default), ammo chart small-arms-fire-once)"
        )
    return (
        f"each small arm fires on its own ({', '.join(others)} may fire too: CD core "
        "(default), ammo chart small-arms-fire-once)"
    )


def note_fired(state: State, stand: StandRow, weapon: Weapon, what: str) -> None:
    """Count a firing against the weapon's allowance for this turn."""
    ammo = stand["ammo"][weapon.id]
    fired = ammo.get("fired")
    count = fired["count"] + 1 if fired and fired["turn"] == state.turn else 1
    ammo["fired"] = {"turn": state.turn, "phase": state.phase, "by": what, "count": count}


def _check_limited(who: str, has: bool, state: str | None, what: str, rule: str) -> None:
    if not has or state is None:
        raise BadInput(f"{who.split(' cannot')[0]} has no {what} for that weapon (weapons chart)")
    if state == "spent":
        raise RulesRefusal(
            f"{who}: its {what} were fired in an earlier phase ({rule}); resupply never "
            "restores limited-issue rounds"
        )


def record_firing(
    ctx_state: State,
    stand: StandRow,
    weapon: Weapon,
    kind: StandKind,
    ammo_kind: str,
    trigger_dice: int,
    charts: Charts,
    event_label: str,
    ones: int = 0,
) -> dict[str, Any]:
    """Book what firing uses up; queue depletion dice for the end of the phase (CD 1.2).

    Returns a description of the ammunition consequences for the command's output.
    """
    ammo = stand["ammo"][weapon.id]
    note_fired(ctx_state, stand, weapon, event_label)
    out: dict[str, Any] = {"checks": 0, "notes": []}
    if weapon.flame is not None:
        ammo["uses_left"] -= 1
        out["notes"].append(f"flamethrower: {count(ammo['uses_left'], 'use')} left (CD 1.3.1)")
        return out
    if ammo_kind in ("limited", "smoke", "illum"):
        # CD 1.3: limited rounds last one fire phase and never roll for depletion; smoke
        # (1.3.2) and illumination (9.2.1) are limited rounds of indirect fire.
        ammo[cast(LimitedRounds, ammo_kind)] = "firing"
        out["notes"].append(
            f"{ammo_kind} rounds in use this phase, then spent ({LIMITED_RULE[ammo_kind]})"
        )
        return out
    if weapon.rocket:
        # CD 1.3.3: rockets deplete by firing, no roll.
        ammo["state"] = "depleted"
        ammo["depleted_turn"] = ctx_state.turn
        out["notes"].append(
            "rockets fired: depleted (CD 1.3.3); "
            f"{count(ammo.get('resupplies_left', 0), 'resupply', 'resupplies')} left"
        )
        return out
    if trigger_dice and depletes_by_roll(weapon, charts):
        threshold = depletion_threshold(weapon, kind)
        for _ in range(trigger_dice):
            ctx_state.pending("depletion").append(
                {
                    "stand": stand["id"],
                    "weapon": weapon.id,
                    "threshold": threshold,
                    "turn": ctx_state.turn,
                    "phase": ctx_state.phase,
                    "source": event_label,
                }
            )
        out["checks"] = trigger_dice
        out["threshold"] = threshold
        out["notes"].append(
            f"{count(trigger_dice, 'depletion check')} at the end of the phase: depleted on "
            f"{threshold} or less (CD 1.2{adjust_rule(kind)})"
        )
    elif ones:
        out["notes"].append(
            f"a 1 was rolled but {weapon.id} is under "
            f"{charts.params(AmmoParams).min_calibre_mm:g} mm: never depletes (CD 1)"
        )
    return out


# --- phase and turn boundaries ---------------------------------------------------------------


def roll_pending_depletion(state: State, dice: DiceLike, charts: Charts) -> list[dict[str, Any]]:
    """End of a fire phase: roll every queued depletion die (CD 1.2)."""
    happened: list[dict[str, Any]] = []
    queue = state.pending("depletion")
    sides = charts.params(AmmoParams).depletion_die
    for check in list(queue):
        stand = state.stand(check["stand"])
        ammo = stand["ammo"][check["weapon"]]
        if ammo["state"] == "depleted" or out_of_play(stand):
            result = "already depleted" if ammo["state"] == "depleted" else "stand eliminated"
            happened.append(
                {
                    "what": "depletion check",
                    "stand": check["stand"],
                    "weapon": check["weapon"],
                    "rolls": [],
                    "result": f"not rolled: {result}",
                }
            )
            continue
        purpose = f"depletion {check['stand']} {check['weapon']} (<= {check['threshold']})"
        depleted = roll_depletion(check["threshold"], dice, sides, purpose)
        roll = _last_roll(dice)
        if depleted:
            ammo["state"] = "depleted"
            ammo["depleted_turn"] = state.turn
        happened.append(
            {
                "what": "depletion check",
                "stand": check["stand"],
                "weapon": check["weapon"],
                "rolls": [roll] if roll is not None else [],
                "result": (
                    f"depleted (rolled {roll} <= {check['threshold']}, CD 1.2)"
                    if depleted
                    else f"ammunition holds (rolled {roll} > {check['threshold']})"
                ),
            }
        )
    queue.clear()
    return happened


def _last_roll(dice: DiceLike) -> int | None:
    rolls = getattr(dice, "rolls", None)
    return int(rolls[-1].value) if rolls else None


# The rule that makes each kind of round a limited one.
LIMITED_RULE = {"limited": "CD 1.3", "smoke": "CD 1.3.2", "illum": "CD 9.2.1"}


def spend_limited_rounds(state: State) -> list[dict[str, Any]]:
    """End of a phase: limited rounds fired in it are gone (CD 1.3, 1.3.2, 9.2.1)."""
    happened = []
    for stand in state.stands():
        for weapon_id, ammo in stand["ammo"].items():
            for key in ("limited", "smoke", "illum"):
                if ammo.get(key) == "firing":
                    ammo[key] = "spent"
                    happened.append(
                        {
                            "what": "limited ammunition",
                            "stand": stand["id"],
                            "weapon": weapon_id,
                            "result": f"{key} rounds spent ({LIMITED_RULE[key]})",
                        }
                    )
    return happened


def supply_points_for(
    state: State, stand: StandRow, scenario: Any, charts: Charts
) -> list[StandRow]:
    """Supply points of the stand's own battalion, regiment, brigade or division (CD 1.4)."""
    levels = set(charts.params(AmmoParams).resupply_levels.split(","))
    formations = scenario.formation_index()
    serving: set[str] = set()
    current = stand.get("formation")
    while current is not None and current in formations:
        if formations[current].kind in levels:
            serving.add(current)
        current = formations[current].parent
    return [
        s
        for s in state.stands()
        if s["id"] != stand["id"]
        and s["side"] == stand["side"]
        and in_play(s)
        and charts.stand_kinds[s["kind"]].supply
        and s.get("formation") in serving
    ]


def needs_resupply(stand: StandRow, charts: Charts) -> list[str]:
    out = []
    for weapon_id, ammo in stand["ammo"].items():
        weapon = charts.weapons[weapon_id]
        if ammo["state"] != "depleted":
            continue
        if weapon.rocket and ammo.get("resupplies_left", 0) <= 0:
            continue
        out.append(weapon_id)
    return out


def resupply(stand: StandRow, turn: int | None, charts: Charts) -> tuple[list[str], list[str]]:
    """Restore depleted weapons (CD 1.4); returns (restored, refused-with-reason)."""
    restored: list[str] = []
    refused: list[str] = []
    for weapon_id in needs_resupply(stand, charts):
        ammo = stand["ammo"][weapon_id]
        weapon = charts.weapons[weapon_id]
        if ammo["depleted_turn"] == turn:
            refused.append(f"{weapon_id}: depleted this turn (CD 1.4)")
            continue
        ammo["state"] = "ok"
        ammo["depleted_turn"] = None
        if weapon.rocket:
            ammo["resupplies_left"] -= 1  # CD 1.3.3: rockets resupply once per game
        restored.append(weapon_id)
    return restored, refused


def resupply_end_of_turn(
    state: State, scenario: Any, charts: Charts, distance: Any
) -> list[dict[str, Any]]:
    """End of turn: stands within range of one of their supply points resupply (CD 1.4).

    ``distance(stand_a, stand_b)`` gives inches between bases, or None when either stand
    has no position on the table (then the referee resupplies by hand).
    """
    radius = charts.params(AmmoParams).resupply_radius
    happened: list[dict[str, Any]] = []
    for stand in state.stands():
        if out_of_play(stand) or not needs_resupply(stand, charts):
            continue
        points = supply_points_for(state, stand, scenario, charts)
        if not points:
            happened.append(
                {
                    "what": "resupply",
                    "stand": stand["id"],
                    "result": "no supply point of its own formations in play (CD 1.4)",
                    "restored": [],
                }
            )
            continue
        ranges = [(distance(stand, p), p["id"]) for p in points]
        measured = [(d, p) for d, p in ranges if d is not None]
        if not measured:
            happened.append(
                {
                    "what": "resupply",
                    "stand": stand["id"],
                    "result": "not placed on the table: resupply by hand with "
                    f"'tabletop resupply {stand['id']} --from SUPPLY'",
                    "restored": [],
                }
            )
            continue
        near, point = min(measured)
        if not within(near, radius):
            happened.append(
                {
                    "what": "resupply",
                    "stand": stand["id"],
                    "result": f'nearest supply point {point} is {near:.1f}" away '
                    f'(needs {radius:g}", CD 1.4)',
                    "restored": [],
                }
            )
            continue
        restored, refused = resupply(stand, state.turn, charts)
        parts = [f'resupplied {", ".join(restored)} from {point} ({near:.1f}")'] if restored else []
        parts += refused
        happened.append(
            {
                "what": "resupply",
                "stand": stand["id"],
                "result": "; ".join(parts),
                "restored": restored,
            }
        )
    return happened


def supply_distance(ctx: RulesContext, a: StandRow, b: StandRow) -> float | None:
    """Inches between two stands' bases, or None when either is not on the table."""
    if a["x"] is None or b["x"] is None:
        return None
    return distance_between(
        end_for_stand(ctx.state, a["id"]), end_for_stand(ctx.state, b["id"]), ctx.scenario.measure
    )


def nearest_supply(ctx: RulesContext, stand: StandRow) -> tuple[str, float | None] | None:
    """The supply point that would serve ``stand`` and how far it is (None: not measured).

    Measured points come first, nearest first; None when no supply point of its own
    battalion, regiment, brigade or division is in play (CD 1.4).
    """
    points = supply_points_for(ctx.state, stand, ctx.scenario, ctx.charts)
    if not points:
        return None
    ranges = [(supply_distance(ctx, stand, p), p["id"]) for p in points]
    measured = sorted((d, p) for d, p in ranges if d is not None)
    if measured:
        return measured[0][1], measured[0][0]
    return ranges[0][1], None


def _serving_text(ctx: RulesContext, stand: StandRow) -> str:
    near = nearest_supply(ctx, stand)
    if near is None:
        return "no supply point of its battalion, regiment, brigade or division is in play"
    point, gap = near
    if gap is None:
        return f"its supply point {point} would serve it"
    return f'its nearest supply point is {point}, {gap:.1f}" away'


def resupply_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """The referee resupplies a stand by hand (CD 1.4).

    The rule resupplies a stand that ends a turn within 6" of a supply point of its own
    battalion, regiment, brigade or division, never in the turn it depleted; the end of the
    turn does this by itself for stands on the table. By hand it is accepted only in the
    last phase of the turn (the stand is ending the turn where it stands), from a supply
    point that serves it and, when both are placed, within reach. The referee may overrule
    every one of these limits with ``override``, and the log keeps that it was overruled.
    """
    state, charts = ctx.state, ctx.charts
    stand = state.stand(inputs["stand"])
    override = bool(inputs.get("override"))
    ctx.involve(stand["id"])
    source = inputs.get("source")
    point = state.stand(source) if source else None
    if point is not None:
        ctx.involve(point["id"])
        if not charts.stand_kinds[point["kind"]].supply:
            raise RulesRefusal(
                f"{point['id']} is {with_article(point['kind'])}, not a supply point (CD 1.4)"
            )
    if out_of_play(stand):
        raise RulesRefusal(f"{stand['id']} is out of play: nothing to resupply")
    if not needs_resupply(stand, charts):
        raise RulesRefusal(f"{stand['id']} has nothing resupply can restore (CD 1.4)")
    radius = charts.params(AmmoParams).resupply_radius
    gap: float | None = None
    if point is None and not override:
        near = nearest_supply(ctx, stand)
        if near is None:
            raise RulesRefusal(
                f"{stand['id']} cannot resupply: {_serving_text(ctx, stand)} (CD 1.4)"
            )
        point = state.stand(near[0])
        ctx.involve(point["id"])
    if not override:
        assert point is not None
        _check_resupply(ctx, stand, point, radius)
        gap = supply_distance(ctx, stand, point)
    elif point is not None:
        gap = supply_distance(ctx, stand, point)
    turn = state.turn
    # Overruled, the turn-of-depletion limit goes too: restore as if depleted earlier.
    restored, refused = resupply(stand, None if override else turn, charts)
    if not restored:
        raise RulesRefusal(f"{stand['id']} cannot resupply now: {'; '.join(refused)}")
    return {
        "verdict": f"{stand['id']} resupplied"
        + (f" from {point['id']}" if point is not None else "")
        + (" (referee override of CD 1.4)" if override else " (CD 1.4)"),
        "stand": stand["id"],
        "from": point["id"] if point is not None else None,
        "distance": None if gap is None else round(gap, 2),
        "override": override,
        "restored": restored,
        "refused": refused,
    }


def _check_resupply(ctx: RulesContext, stand: StandRow, point: StandRow, radius: float) -> None:
    """Refuse (exit 3, CD 1.4) a hand resupply the rules would not give."""
    state, charts = ctx.state, ctx.charts
    serving = [p["id"] for p in supply_points_for(state, stand, ctx.scenario, charts)]
    if point["id"] not in serving:
        raise RulesRefusal(
            f"{point['id']} does not supply {stand['id']}: a stand resupplies only from its own "
            "battalion, regiment, brigade or division (CD 1.4); " + _serving_text(ctx, stand)
        )
    last = charts.phases[-1].id
    if state.phase != last:
        raise RulesRefusal(
            f"{stand['id']} cannot resupply in the {state.phase} phase: a stand resupplies as "
            f'it ends a turn within {radius:g}" of a supply point (CD 1.4); '
            f"{_serving_text(ctx, stand)}. Stands on the table resupply by themselves at the "
            f"end of the turn; by hand only in the {last} phase (or --override)"
        )
    depleted_now = [
        w for w in needs_resupply(stand, charts) if stand["ammo"][w]["depleted_turn"] == state.turn
    ]
    if depleted_now and len(depleted_now) == len(needs_resupply(stand, charts)):
        raise RulesRefusal(
            f"{stand['id']} cannot resupply this turn: {', '.join(depleted_now)} depleted in "
            f"turn {state.turn}, and a stand never resupplies in the turn it depleted (CD 1.4); "
            f"it may at the end of the next turn ({_serving_text(ctx, stand)})"
        )
    gap = supply_distance(ctx, stand, point)
    if gap is not None and not within(gap, radius):
        raise RulesRefusal(
            f'{stand["id"]} is {gap:.1f}" from {point["id"]}: a stand resupplies only within '
            f'{radius:g}" of a supply point of its own formations (CD 1.4); '
            f"{_serving_text(ctx, stand)}"
        )
