"""Setting, rolling and changing light, weather, wind and ground; miring (CD 9, 10, 11)."""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.dice import explain_no_roll, roll_again_above, roll_in_bands
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.units import within
from tabletop.core.words import possessive
from tabletop.data.board import base_of
from tabletop.data.chart_params import EngineeringParams, TableParams, WeatherParams
from tabletop.rules.cd import ground
from tabletop.rules.context import RulesContext
from tabletop.rules.sequence import Happened, step
from tabletop.state.document import StandRow, centre, in_play, out_of_play, position
from tabletop.table import distance, overlapping

FORCES = ("light", "moderate", "high")
FOG_SCALE = ("clear", "mist", "fog")
PRECIPITATION = ("light", "steady", "heavy")
SETTABLE = (
    "light",
    "weather",
    "dusty",
    "ground",
    "variable_wind",
    "fog_returns",
    "precipitation_changes",
)


def weather_changes(cond: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    """What setting ``inputs`` would change in the conditions (empty: nothing would)."""
    given = {k: v for k, v in inputs.items() if v is not None}
    if not given:
        raise BadInput(
            "nothing to change: give at least one of --light, --weather, --wind-from, "
            "--wind-force, --dusty/--no-dusty, --ground"
        )
    now = snapshot(cond)
    return {k: v for k, v in given.items() if k in now and now[k] != v}


def weather_set_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    cond = ctx.state.conditions
    if not weather_changes(cond, inputs):
        raise BadInput("conditions unchanged: they are already as given")
    before = snapshot(cond)
    for key in SETTABLE:
        if inputs.get(key) is not None:
            cond[key] = inputs[key]
    if inputs.get("wind_from") is not None:
        cond["wind"]["from"] = int(inputs["wind_from"])
    if inputs.get("wind_force") is not None:
        cond["wind"]["force"] = inputs["wind_force"]
    changed = {k: v for k, v in snapshot(cond).items() if before.get(k) != v}
    return {
        "verdict": "conditions now " + describe_conditions(changed),
        "changed": changed,
        "conditions": snapshot(cond),
    }


# How each setting reads to a referee: (when true, when false) for the switches.
SWITCH_WORDS = {
    "variable_wind": ("variable wind (CD 10.1.3)", "steady wind"),
    "fog_returns": ("mist may return (CD 10.2.3)", "no returning mist"),
    "precipitation_changes": ("variable rain or snow (CD 10.3.3)", "steady rain or snow"),
    "dusty": ("dusty ground", "no dust"),
}


def describe_condition(key: str, value: Any) -> str:
    """One setting in a referee's words (never a Python name or bool)."""
    if key in SWITCH_WORDS:
        return SWITCH_WORDS[key][0 if value else 1]
    if key == "wind_from":
        return f"wind from {value}"
    if key == "wind_force":
        return f"{value} wind"
    return f"{key.replace('_', ' ')} {value}"


def describe_conditions(values: dict[str, Any]) -> str:
    return ", ".join(describe_condition(k, v) for k, v in values.items() if v is not None)


def snapshot(cond: dict[str, Any]) -> dict[str, Any]:
    flat = {k: v for k, v in cond.items() if k != "wind"}
    flat["wind_from"] = cond["wind"]["from"]
    flat["wind_force"] = cond["wind"]["force"]
    return flat


def roll_wind_direction(ctx: RulesContext) -> tuple[int, list[int]]:
    """CD 10.1.1: a D10 on the wind direction chart, rolling again on 9 or 10."""
    above = ctx.charts.params(WeatherParams).wind_reroll_above
    rolls = roll_again_above(ctx.dice, 10, above, f"wind direction (again on {above + 1}+)")
    return rolls[-1], rolls


def _roll_on(ctx: RulesContext, table: tuple[tuple[int, str], ...], purpose: str) -> str:
    """A d10 on a preset's table: the faces matter only by the row they fall in."""
    return _pick(table, roll_in_bands(ctx.dice, 10, purpose, (up_to for up_to, _ in table)))


def _pick(table: tuple[tuple[int, str], ...], roll: int) -> str:
    for up_to, value in table:
        if roll <= up_to:
            return value
    return table[-1][1]


def weather_roll_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    cond = ctx.state.conditions
    before = snapshot(cond)
    preset_id = inputs.get("preset")
    if preset_id is not None:
        presets = ctx.charts.table("presets")
        if preset_id not in presets:
            raise BadInput(f"--preset {preset_id!r}: known presets: {', '.join(presets)}")
        preset = presets[preset_id]
        cond["weather"] = _roll_on(ctx, preset.weather, f"{preset_id}: weather")
        cond["ground"] = _roll_on(ctx, preset.ground, f"{preset_id}: ground")
        cond["wind"]["force"] = _roll_on(ctx, preset.wind, f"{preset_id}: wind force")
        dust = roll_in_bands(ctx.dice, 10, f"{preset_id}: dust", (preset.dusty_up_to,))
        cond["dusty"] = dust <= preset.dusty_up_to
    direction, _ = roll_wind_direction(ctx)
    cond["wind"]["from"] = direction
    after = snapshot(cond)
    changed = {k: v for k, v in after.items() if before.get(k) != v}
    return {
        "verdict": f"wind from {direction}"
        + (
            f"; {preset_id}: {cond['weather']}, ground "
            f"{cond['ground']}, {cond['wind']['force']} wind"
            f"{', dusty' if cond['dusty'] else ''}"
            if preset_id
            else ""
        ),
        "preset": preset_id,
        "changed": changed,
        "conditions": after,
    }


# --- at the start of each turn ---------------------------------------------------------------


def _says_wind(ctx: RulesContext) -> str | None:
    if not ctx.state.conditions.get("variable_wind"):
        return None
    return "variable wind: a die for a change of direction and force (CD 10.1.3)"


def _says_fog(ctx: RulesContext) -> str | None:
    cond = ctx.state.conditions
    if cond["weather"] in ("mist", "fog") or (
        cond["weather"] == "clear" and cond.get("fog_returns")
    ):
        return "mist and fog: a die to see whether it thins or thickens (CD 10.2.3)"
    return None


def _says_rain(ctx: RulesContext) -> str | None:
    cond = ctx.state.conditions
    kind = cond["weather"].partition("-")[0]
    if cond.get("precipitation_changes") and kind in ("rain", "snow"):
        return f"{kind}: a die to see whether it lightens or grows heavier (CD 10.3.3)"
    return None


@step("variable-wind", says=_says_wind)
def variable_wind(ctx: RulesContext) -> list[Happened]:
    """CD 10.1.3: when the scenario asks, the wind may shift each turn."""
    cond = ctx.state.conditions
    if not cond.get("variable_wind"):
        return []
    rows = sorted(ctx.charts.table("wind").values(), key=lambda r: r.up_to)
    roll = roll_in_bands(ctx.dice, 10, "variable wind", (r.up_to for r in rows))
    row = next(r for r in rows if roll <= r.up_to)
    wind = cond["wind"]
    old = dict(wind)
    wind["from"] = (int(wind["from"]) - 1 + row.turn) % 8 + 1
    index = min(max(FORCES.index(wind["force"]) + row.force, 0), len(FORCES) - 1)
    wind["force"] = FORCES[index]
    text = (
        "no change"
        if wind == old
        else f"from {old['from']} {old['force']} to from {wind['from']} {wind['force']}"
    )
    return [{"what": "variable wind", "rolls": [roll], "result": f"{text} ({row.rule})"}]


@step("mist-and-fog", says=_says_fog)
def mist_and_fog(ctx: RulesContext) -> list[Happened]:
    """CD 10.2.3: in mist or fog, a roll each turn to see whether it changes, and how."""
    cond = ctx.state.conditions
    weather = cond["weather"]
    returning = weather == "clear" and cond.get("fog_returns")
    if weather not in ("mist", "fog") and not returning:
        return []
    change_on = ctx.charts.params(WeatherParams).fog_change_up_to
    roll = roll_in_bands(
        ctx.dice, 10, f"mist and fog: changes on {change_on} or less", (change_on,)
    )
    if roll > change_on:
        return [{"what": "mist and fog", "rolls": [roll], "result": f"{weather} holds"}]
    thin_on = ctx.charts.params(WeatherParams).fog_thins_up_to
    effect = roll_in_bands(
        ctx.dice, 10, f"mist and fog: thins on {thin_on} or less, else thickens", (thin_on,)
    )
    step = -1 if effect <= thin_on else 1
    new = FOG_SCALE[min(max(FOG_SCALE.index(weather) + step, 0), 2)]
    cond["weather"] = new
    return [
        {
            "what": "mist and fog",
            "rolls": [roll, effect],
            "result": f"{weather} becomes {new} (CD 10.2.3)"
            if new != weather
            else f"{weather} holds (CD 10.2.3)",
        }
    ]


@step("precipitation", says=_says_rain)
def precipitation(ctx: RulesContext) -> list[Happened]:
    """CD 10.3.3: variable rain or snow when the scenario asks for it."""
    cond = ctx.state.conditions
    kind, _, level = cond["weather"].partition("-")
    if not cond.get("precipitation_changes") or kind not in ("rain", "snow"):
        return []
    change_on = ctx.charts.params(WeatherParams).precipitation_change_up_to
    roll = roll_in_bands(ctx.dice, 10, f"{kind}: changes on {change_on} or less", (change_on,))
    if roll > change_on:
        return [{"what": kind, "rolls": [roll], "result": f"{cond['weather']} holds"}]
    lighter_on = ctx.charts.params(WeatherParams).precipitation_lightens_up_to
    effect = roll_in_bands(
        ctx.dice, 10, f"{kind}: lightens on {lighter_on} or less, else heavier", (lighter_on,)
    )
    index = PRECIPITATION.index(level) + (-1 if effect <= lighter_on else 1)
    new = "clear" if index < 0 else f"{kind}-{PRECIPITATION[min(index, 2)]}"
    old, cond["weather"] = cond["weather"], new
    return [{"what": kind, "rolls": [roll, effect], "result": f"{old} becomes {new} (CD 10.3.3)"}]


# --- miring ----------------------------------------------------------------------------------


def weight_class_of(ctx: RulesContext, stand: StandRow) -> str | None:
    try:
        spec = ctx.scenario.stand_spec(stand["id"])
        own = spec.weight_class
    except KeyError:
        own = None
    return own or ctx.charts.stand_kinds[stand["kind"]].weight_class


def where_is(ctx: RulesContext, stand: StandRow, given: str | None) -> str:
    if given is not None:
        return given
    if stand["x"] is None:
        return "open"
    kinds = {p.kind for p in ctx.table.pieces_at(*position(stand))}
    if kinds & {"road-hard", "road-paved", "bridge"}:
        return "hard-road"
    if "road-dirt" in kinds:
        return "dirt-road"
    return "open"


def _check_movement_phase(ctx: RulesContext, what: str, rule: str) -> None:
    phase = ctx.charts.phase(ctx.state.phase)
    if "movement" not in phase.allows:
        raise RulesRefusal(
            f"{what} only in the movement phase, not the {phase.id} phase ({rule}); "
            "advance with 'tabletop phase next'"
        )


WHERE_WORDS = {
    "open": "in the open",
    "dirt-road": "on a dirt road",
    "hard-road": "on a hard road",
}


def mire_check_basis(ctx: RulesContext, stand: StandRow, given: str | None) -> tuple[str, str, str]:
    """Where and on what ground the miring check is made, and what says so (CD 11.1.4).

    A move recorded by ``move`` (``last_move``) gives the worst ground it crossed: what
    counts is the ground crossed, not only where the move ended (the seed's armoured car that
    detours through deep mud and ends on a hard road still rolls). Without one, the check is
    made from where the stand stands, or where the referee says it moved (``--where``).
    """
    last = stand.get("last_move")
    if last is not None and given is None:
        return str(last["where"]), str(last["ground"]), "its move this turn"
    basis = "where it stands" if given is None else f"moving {WHERE_WORDS.get(given, given)}"
    return where_is(ctx, stand, given), ctx.state.conditions["ground"], basis


def _check_once_per_move(ctx: RulesContext, stand: StandRow) -> None:
    """CD 11.1.4: one miring roll at the end of the movement phase, for a vehicle that moved."""
    turn = ctx.state.turn
    last = stand.get("last_move")
    moved = stand.get("moved_turn")
    if last is not None:
        if last.get("turn") != turn or (moved is not None and moved != turn):
            raise RulesRefusal(
                f"{stand['id']} has not moved this turn: only a vehicle that moved checks for "
                "miring (CD 11.1.4)"
            )
        if last.get("mire_checked"):
            raise RulesRefusal(
                f"{stand['id']} has already checked for miring after this move: one roll "
                "per move (CD 11.1.4)"
            )
    elif moved is not None and moved != turn:
        raise RulesRefusal(
            f"{stand['id']} has not moved this turn (last in turn {moved}): only a vehicle "
            "that moved checks for miring (CD 11.1.4)"
        )
    if stand.get("mire_checked_turn") == turn and last is None:
        raise RulesRefusal(
            f"{stand['id']} has already checked for miring this turn: one roll per move (CD 11.1.4)"
        )


def mire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    kind = ctx.charts.stand_kinds[stand["kind"]]
    if out_of_play(stand):
        raise RulesRefusal(f"{stand['id']} is eliminated")
    if "mired" in stand["markers"]:
        raise RulesRefusal(f"{stand['id']} is already mired: unmire it first (CD 11.1.4, 11.1.5)")
    where, ground_id, basis = mire_check_basis(ctx, stand, inputs.get("where"))
    number, why = ground.mire_number(kind, where, ground_id, ctx.charts)
    if not number:
        # CD 11.1.4: nothing to roll is the rules' answer, not a mistake in the command.
        explain_no_roll(ctx.dice, f"{stand['id']} cannot mire here: {why}")
        raise RulesRefusal(f"{stand['id']} cannot mire ({basis}): {why}; no roll is made")
    _check_movement_phase(ctx, "miring is checked", "CD 11.1.4")
    _check_once_per_move(ctx, stand)
    mired = ground.roll_mire(number, ctx.dice, stand["id"])
    rolls = [r.value for r in getattr(ctx.dice, "rolls", [])][-1:]
    last = stand.get("last_move")
    if last is not None:
        last["mire_checked"] = True
    else:
        stand["mire_checked_turn"] = ctx.state.turn
    placed_at = None
    if mired:
        stand["markers"].append("mired")
        across = inputs.get("across")
        if across:
            (x1, y1), (x2, y2) = across
            # CD 11.1.4: a vehicle that crossed mud and mires stops halfway across it.
            stand["x"], stand["y"] = (x1 + x2) / 2, (y1 + y2) / 2
            placed_at = [stand["x"], stand["y"]]
    return {
        "verdict": f"{stand['id']} is {'mired' if mired else 'not mired'}",
        "stand": stand["id"],
        "mired": mired,
        "where": where,
        "ground": ground_id,
        "basis": basis,
        "number": number,
        "because": why,
        "rolls": rolls,
        "placed_at": placed_at,
    }


def check_in_contact(ctx: RulesContext, helper: StandRow, stand: StandRow) -> None:
    """CD 11.1.5: the helper pushes or tows the mired vehicle, so it must be a friendly
    vehicle in contact with it (the charted 'adjacent' distance, bases nearly touching)."""
    if helper["side"] != stand["side"]:
        raise RulesRefusal(
            f"{helper['id']} cannot help {stand['id']}: it is {possessive(helper['side'])}, not "
            f"{possessive(stand['side'])}; only a friendly vehicle pushes or tows (CD 11.1.5)"
        )
    if helper["x"] is None or stand["x"] is None:
        return  # not on the table: the referee vouches for contact, as in quick mode

    gap = float(distance(base_of(helper), base_of(stand), "edge"))
    reach = ctx.charts.params(EngineeringParams).adjacent
    if not within(gap, reach):
        raise RulesRefusal(
            f'{helper["id"]} is {gap:.1f}" from {stand["id"]}: it must be in contact '
            f'(within {reach:g}") to push or tow it (CD 11.1.5); move it up first'
        )


def _inch_for_assist(
    ctx: RulesContext, stand: StandRow, helper: StandRow, how: str
) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Where both stands end after the inch of CD 11.1.5, or None off the table's positions.

    Towing, the helper goes ahead and draws the mired vehicle after it, so both move an inch
    from the mired vehicle towards the helper; pushing, the helper shoves from behind, so
    both move an inch from the helper through the mired vehicle. Refused when that inch is
    blocked: off the table, or onto another base.
    """
    if helper["x"] is None or stand["x"] is None:
        return None
    sx, sy, hx, hy = *centre(stand), *centre(helper)
    dx, dy = (hx - sx, hy - sy) if how == "tow" else (sx - hx, sy - hy)
    length = math.hypot(dx, dy)
    if length < 1e-9:
        raise RulesRefusal(f"{helper['id']} and {stand['id']} stand on one spot: no way to tow")
    step = ctx.charts.params(EngineeringParams).unmire_distance
    ux, uy = dx / length * step, dy / length * step
    new_stand = (round(sx + ux, 6), round(sy + uy, 6))
    new_helper = (round(hx + ux, 6), round(hy + uy, 6))
    width, depth = ctx.scenario.table.width, ctx.scenario.table.depth

    moved: list[dict[str, Any]] = [
        {**stand, "x": new_stand[0], "y": new_stand[1]},
        {**helper, "x": new_helper[0], "y": new_helper[1]},
    ]
    verb = "towing" if how == "tow" else "pushing"
    for m in moved:
        if not (0 <= m["x"] <= width and 0 <= m["y"] <= depth):
            raise RulesRefusal(
                f"{verb} {stand['id']} the inch CD 11.1.5 needs would take {m['id']} off the "
                f"table (to {m['x']:g},{m['y']:g})"
                + ("; try --push" if how == "tow" else "; try towing")
            )
    others = [
        s
        for s in ctx.state.stands()
        if s["id"] not in (stand["id"], helper["id"]) and s["x"] is not None and in_play(s)
    ]
    tolerance = ctx.charts.params(TableParams).base_overlap_tolerance
    for m in moved:
        clash = overlapping(base_of(m), [base_of(o) for o in others], tolerance)
        if clash:
            raise RulesRefusal(
                f"{verb} {stand['id']} the inch CD 11.1.5 needs is blocked: {m['id']} would "
                f"overlap {', '.join(clash)}"
            )
    return new_stand, new_helper


def unmire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    state, charts = ctx.state, ctx.charts
    stand = state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    if "mired" not in stand["markers"]:
        raise RulesRefusal(f"{stand['id']} is not mired: nothing to free (CD 11.1.5)")
    _check_movement_phase(ctx, "a mired vehicle is freed", "CD 11.1.5")
    kind = charts.stand_kinds[stand["kind"]]
    where, ground_id, _ = mire_check_basis(ctx, stand, inputs.get("where"))
    number, _ = ground.mire_number(kind, where, ground_id, charts)
    assist_id = inputs.get("assist")
    if assist_id:
        helper = state.stand(assist_id)
        if helper["id"] == stand["id"]:
            raise BadInput(
                f"--assist {assist_id!r}: a vehicle cannot tow itself; leave out --assist "
                "to try unmiring it by itself"
            )
        ctx.involve(helper["id"])
        helper_kind = charts.stand_kinds[helper["kind"]]
        if out_of_play(helper):
            raise RulesRefusal(f"{helper['id']} cannot help: it is eliminated")
        check_in_contact(ctx, helper, stand)
        if "mired" in helper["markers"]:
            raise RulesRefusal(f"{helper['id']} cannot help: it is mired itself (CD 11.1.5)")
        if not ground.can_assist(
            helper_kind, weight_class_of(ctx, helper), weight_class_of(ctx, stand)
        ):
            raise RulesRefusal(
                f"{helper['id']} cannot tow {stand['id']}: it must be a vehicle of equal or "
                f"greater weight class (CD 11.1.5)"
            )
        how = str(inputs.get("how") or "tow")
        if how not in ("tow", "push"):
            raise BadInput(f"--how {how!r}: accepted: tow, push")
        ends = _inch_for_assist(ctx, stand, helper, how)
        # CD 11.1.5: the helper pushes or tows through the mud, and may mire itself.
        helper_number, _ = ground.mire_number(helper_kind, where, ground_id, charts)
        helper_mired = ground.roll_mire(helper_number, ctx.dice, helper["id"])
        moved = None
        if helper_mired:
            helper["markers"].append("mired")
        else:
            stand["markers"].remove("mired")
            stand["unmired_turn"] = state.turn
            if ends is not None:
                (stand["x"], stand["y"]), (helper["x"], helper["y"]) = ends
                helper["moved_turn"] = state.turn
                moved = {stand["id"]: list(ends[0]), helper["id"]: list(ends[1])}
        verb = "tows" if how == "tow" else "pushes"
        return {
            "verdict": (
                f"{helper['id']} mires too; {stand['id']} stays mired"
                if helper_mired
                else f"{helper['id']} {verb} {stand['id']} free"
                + (" an inch (CD 11.1.5)" if moved else " (CD 11.1.5)")
                + f"; {stand['id']} moves on only next turn"
            ),
            "stand": stand["id"],
            "mired": helper_mired,
            "assist": helper["id"],
            "how": how,
            "moved_to": moved,
            "rolls": [r.value for r in getattr(ctx.dice, "rolls", [])],
        }
    if stand.get("unmire_tried_turn") == state.turn:
        raise RulesRefusal(
            f"{stand['id']} already tried to unmire itself this turn: one attempt a turn "
            "(CD 11.1.5); try again next turn, or have a vehicle tow it (--assist)"
        )
    stand["unmire_tried_turn"] = state.turn
    free = ground.roll_unmire(number, ctx.dice, stand["id"])
    moved_to = None
    if free:
        stand["markers"].remove("mired")
        stand["unmired_turn"] = state.turn
        if stand["x"] is not None:
            # CD 11.1.5: freed, it moves one inch the way it was ordered (its facing).
            rad = math.radians(stand["facing"])
            step = charts.params(EngineeringParams).unmire_distance
            x, y = position(stand)
            stand["x"] = round(x + step * math.sin(rad), 6)
            stand["y"] = round(y + step * math.cos(rad), 6)
            moved_to = [stand["x"], stand["y"]]
    return {
        "verdict": f"{stand['id']} {'unmires itself' if free else 'stays mired'} "
        f"(needs more than {2 * number}; hasty advance order, CD 11.1.5)"
        + (f"; {stand['id']} moves on only next turn" if free else "; one attempt a turn"),
        "stand": stand["id"],
        "mired": not free,
        "number": number,
        "rolls": [r.value for r in getattr(ctx.dice, "rolls", [])],
        "moved_to": moved_to,
    }
