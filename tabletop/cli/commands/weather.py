"""tabletop weather set|roll|show: light, weather, wind and ground, and their effects."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    command,
    dice_inputs,
    dice_option,
    emit_json,
    executed,
    game_option,
    headline,
    json_option,
    odds_option,
    open_game,
)  # fmt: skip

LIGHTS = ("day", "twilight", "night-moonlit", "night-dark", "artificial-moonlight")
WEATHERS = (
    "clear",
    "mist",
    "fog",
    "rain-light",
    "rain-steady",
    "rain-heavy",
    "snow-light",
    "snow-steady",
    "snow-heavy",
)
GROUNDS = ("dry", "mud-light", "mud-moderate", "mud-deep", "snow", "snow-deep", "ice")
FORCES = ("light", "moderate", "high")


@click.group("weather")
def cli() -> None:
    """Light, weather, wind, ground, and the effects in force.

    \b
    Example:
      tabletop weather show
      tabletop weather set --weather mist --wind-force moderate
      tabletop weather roll --preset central-europe-autumn
    """


@cli.command("set")
@click.option(
    "--light",
    type=click.Choice(LIGHTS),
    default=None,
    metavar="LIGHT",
    help="The light (words below).",
)
@click.option(
    "--weather",
    type=click.Choice(WEATHERS),
    default=None,
    metavar="WEATHER",
    help="The weather (words below).",
)
@click.option(
    "--wind-from",
    type=click.IntRange(1, 8),
    default=None,
    help="Where the wind blows from: 1 = N, 2 = NE, ... 8 = NW.",
)
@click.option(
    "--wind-force",
    type=click.Choice(FORCES),
    default=None,
    help="How hard it blows.",
)
@click.option("--dusty/--no-dusty", default=None, help="Dry, dusty ground.")
@click.option(
    "--ground",
    type=click.Choice(GROUNDS),
    default=None,
    metavar="GROUND",
    help="The ground (words below).",
)
@click.option(
    "--variable-wind/--steady-wind",
    default=None,
    help="Roll for wind changes each turn (CD 10.1.3).",
)
@click.option(
    "--fog-returns/--fog-gone",
    default=None,
    help="After mist clears, keep rolling to see if it returns (CD 10.2.3).",
)
@click.option(
    "--variable-precipitation/--steady-precipitation",
    "precipitation_changes",
    default=None,
    help="Roll for rain or snow changes each turn (CD 10.3.3).",
)
@game_option
@json_option
@command
def set_weather(
    light: str | None,
    weather: str | None,
    wind_from: int | None,
    wind_force: str | None,
    dusty: bool | None,
    ground: str | None,
    variable_wind: bool | None,
    fog_returns: bool | None,
    precipitation_changes: bool | None,
    game: str,
    as_json: bool,
) -> None:
    """Set conditions by the referee's word (the scenario's words).

    \b
    Words:
      --light    day, twilight, night-moonlit, night-dark, artificial-moonlight
      --weather  clear, mist, fog, rain-light, rain-steady, rain-heavy,
                 snow-light, snow-steady, snow-heavy
      --ground   dry, mud-light, mud-moderate, mud-deep, snow, snow-deep, ice

    \b
    Example:
      tabletop weather set --light night-moonlit --wind-from 7 --wind-force high
    """
    inputs = {
        "light": light,
        "weather": weather,
        "wind_from": wind_from,
        "wind_force": wind_force,
        "dusty": dusty,
        "ground": ground,
        "variable_wind": variable_wind,
        "fog_returns": fog_returns,
        "precipitation_changes": precipitation_changes,
    }
    from tabletop.rules.cd.conditions import describe_conditions, snapshot, weather_changes

    g = open_game(game)
    current = g.state().conditions
    if not weather_changes(current, inputs):
        # Already so: say so, and log nothing (an event would change nothing).
        if as_json:
            emit_json({"event": None, "changed": {}, "conditions": snapshot(current)})
            return
        given = describe_conditions(inputs)
        click.echo(f"conditions unchanged: already {given} (no event logged)")
        return
    out = g.execute("weather-set", inputs)
    if executed(out, as_json) is None:
        return
    click.echo(f"{out.result['verdict']} (event {out.seq})")


@cli.command("roll")
@odds_option
@click.option(
    "--preset",
    default=None,
    help="Roll a day's weather, ground and wind for a region and season "
    "(see 'tabletop charts show presets').",
)
@dice_option
@game_option
@json_option
@command
def roll_weather(preset: str | None, dice: Any, game: str, as_json: bool) -> None:
    """Roll the wind direction (CD 10.1.1) or a day from a preset.

    A preset rolls a whole day's conditions.

    \b
    Example:
      tabletop weather roll
      tabletop weather roll --preset eastern-europe-autumn --dice 7,4,2,9,3
    """
    out = open_game(game).execute("weather-roll", {"preset": preset}, **dice_inputs(dice))
    if as_json:
        emit_json({"event": out.seq, **out.result, "rolls": [r.as_dict() for r in out.rolls]})
        return
    # The dice follow as every command's do, once, marked physical or generated.
    click.echo(out.result["verdict"])


def show_data(conditions: dict[str, Any], charts: Any) -> dict[str, Any]:
    from tabletop.rules.cd.weather import effects, ground_effect

    now = effects(conditions, charts)
    return {
        "conditions": {**{k: v for k, v in conditions.items()}},
        "visibility": now.visibility,
        "spotting_factor": now.spotting_factor,
        "spotting_fixed": now.spotting_fixed,
        "contact_up_to": now.contact_up_to,
        "smoke_max_length": now.smoke_max_length,
        "movement": {"vehicle": now.vehicle_move, "personnel": now.personnel_move},
        "ground_effect": ground_effect(conditions["ground"], charts),
        "turn_minutes": now.turn_minutes,
        "night": now.night,
        "night_rules": now.night_rules,
        "sound_detection": "impossible: " + now.sound_deadened
        if now.sound_deadened
        else ("possible" if now.night else "night only"),
        "because": list(now.because),
    }


@cli.command("show")
@game_option
@json_option
@command
def show_weather(game: str, as_json: bool) -> None:
    """The conditions now and what they do.

    Visibility, spotting, smoke, movement and night effects.

    \b
    Example:
      tabletop weather show --json
    """
    g = open_game(game)
    data = show_data(g.state().conditions, g.loaded.charts)
    if as_json:
        emit_json(data)
        return
    from tabletop.rules.cd.compass import point_name

    c = data["conditions"]
    click.echo(
        headline(
            f"{c['light']}, {c['weather']}{', dusty' if c['dusty'] else ''}; wind from "
            f"{c['wind']['from']} ({point_name(c['wind']['from'])}) {c['wind']['force']}; "
            f"ground {c['ground']}"
        )
    )
    from tabletop.rules.cd.conditions import describe_condition

    rolling = [
        describe_condition(k, True)
        for k in ("variable_wind", "fog_returns", "precipitation_changes")
        if c.get(k)
    ]
    if rolling:
        click.echo(f"  rolled each turn: {', '.join(rolling)}")
    vis = "the whole table" if data["visibility"] is None else f'{data["visibility"]:g}"'
    click.echo(f"  visibility: {vis}")
    if data["spotting_fixed"] is not None:
        click.echo(
            f'  spotting: {data["spotting_fixed"]:g}" for every target; stands spotted '
            f'within {data["contact_up_to"]:g}" by day need contact'
        )
    elif data["spotting_factor"] is not None:
        click.echo(
            f"  spotting: daylight distances x{data['spotting_factor']:g}, rounded down "
            "(0 = contact)"
        )
    else:
        click.echo("  spotting: daylight distances")
    smoke = "no limit" if data["smoke_max_length"] is None else f'{data["smoke_max_length"]:g}"'
    click.echo(f"  smoke template length: {smoke}")
    m = data["movement"]
    click.echo(f"  base movement: vehicles x{m['vehicle']:g}, personnel x{m['personnel']:g}")
    ground = data["ground_effect"]
    import textwrap

    said = f"  ground {ground['id']} ({ground['rule']}): {ground['text']}"
    click.echo(textwrap.fill(said, 80, subsequent_indent="    ", break_on_hyphens=False))
    click.echo(f"  turn length: {data['turn_minutes']} minutes")
    click.echo(f"  sound detection: {data['sound_detection']}")
    night = data["night_rules"]
    if night:
        click.echo(f"  night quality: {night['quality']}")
        click.echo(f"  night morale: {night['morale']:+d} to every morale level (CD 9.1.3)")
        click.echo(f"  night pins: {night['pins']}")
        click.echo(
            f'  night orders: radius {night["orders_radius"]:g}"; no rally orders (CD 9.1.5)'
        )
        click.echo(f"  night aircraft: {night['aircraft']}")
        click.echo(
            f"  night AA: {night['aa_dice']:+d} die without sound detection, searchlight or "
            "radar (CD 9.1.6)"
        )
        click.echo(f"  night engineering: {night['engineering']}")
    for why in data["because"]:
        click.echo(f"  - {why}")
