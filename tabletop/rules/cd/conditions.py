"""Setting, rolling and changing light, weather, wind and ground; miring (CD 9, 10, 11)."""

from __future__ import annotations

from typing import Any

from tabletop.core.dice import roll_again_above, roll_in_bands
from tabletop.core.errors import BadInput
from tabletop.data.chart_params import WeatherParams
from tabletop.rules.context import RulesContext
from tabletop.rules.sequence import Happened, step
from tabletop.state.document import StandRow, position

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
