"""tabletop odds fire|barrage: exact probabilities, without rolling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.commands.barrage import barrage_inputs, barrage_options
from tabletop.cli.commands.fire import fire_inputs, fire_options
from tabletop.cli.core import (
    ODDS_KEY,
    charts_option,
    command,
    echo_odds,
    emit_json,
    game_option,
    json_option,
)


class OddsGroup(click.Group):
    """``odds fire`` and ``odds barrage`` are its own; any other rolling command is the
    command itself run as with ``--odds`` (``tabletop odds mire G-5``)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name in ("odds", "play"):
            return found
        root = ctx.find_root().command
        if not isinstance(root, click.Group):
            return None
        command = root.get_command(ctx, cmd_name)
        rolls = any("--odds" in getattr(p, "opts", ()) for p in getattr(command, "params", ()))
        if command is not None and not isinstance(command, click.Group) and not rolls:
            if ctx.resilient_parsing:
                return None
            # 'odds status' ran status: a command that rolls nothing has no odds to give.
            raise click.UsageError(
                f"{cmd_name!r} gives no odds: 'odds' takes a command that rolls (fire, "
                "barrage, mire, assault, weather roll, ...); a move's risks are in "
                "'move --check'",
                ctx=ctx,
            )
        return command

    def invoke(self, ctx: click.Context) -> Any:
        ctx.meta[ODDS_KEY] = True
        return super().invoke(ctx)


@click.group("odds", cls=OddsGroup)
def cli() -> None:
    """Exact odds of an action's outcomes, without rolling.

    Worked out from the same procedure the action rolls with: every face of every
    die it asks for is tried. Exact fractions in JSON, percentages in text.

    Nothing is rolled or logged. 'odds fire' and 'odds barrage' may be asked in any
    phase ('fire --odds' and 'barrage --odds' give the same odds for the shot typed
    now, refused as it would be); any other rolling command (mire, unmire, minefield
    cross, engineer demolish, structure damage, weather roll, airborne drop, assault,
    model run ...) is answered as if typed now, the same as giving it --odds. Every
    command's odds read the same way: a line for each thing that can happen (an
    assault opens with who holds the field), then the expected values.

    \b
    Example:
      tabletop odds fire G-4 US-4
      tabletop odds barrage US-5 --at 27,21
      tabletop odds mire G-5
      tabletop odds engineer demolish bridge-1 --by G-E1
    """


@cli.command("fire")
@fire_options
@charts_option
@game_option
@json_option
@command
def odds_fire(
    shooter: str | None,
    target: str | None,
    weapon: str | None,
    ammo: str,
    range_: float | None,
    cover: str | None,
    mods: tuple[Any, ...],
    spotted: bool,
    target_kind: str | None,
    quality: str | None,
    shooter_kind: str | None,
    model: str | None,
    shooter_profile: str | None,
    target_profile: str | None,
    count: int | None,
    range_squares: float | None,
    smoke: int | None,
    settings: tuple[Any, ...],
    charts_dirs: tuple[Path, ...],
    game: str,
    as_json: bool,
) -> None:
    """Odds of SHOOTER's fire at TARGET: hits, effects, depletion.

    Takes the same arguments as 'tabletop fire'; nothing is rolled or logged.

    \b
    Example:
      tabletop odds fire G-4 US-4
      tabletop odds fire --weapon kwk-20 --range 8 --target-kind infantry
    """
    from tabletop.cli.commands.fire import (
        ModelRequest,
        cd_given,
        own_commands,
        refuse_charts_in_a_game,
    )
    from tabletop.rules.models import find_model

    refuse_charts_in_a_game(charts_dirs, shooter)
    request = ModelRequest(
        model,
        shooter,
        target,
        shooter_profile,
        target_profile,
        count,
        range_,
        range_squares,
        smoke,
        settings,
    )
    chosen = request.model_name(game)
    request.refuse_unused(
        chosen, cd_given(weapon, ammo, cover, mods, spotted, target_kind, quality, shooter_kind)
    )
    if not own_commands(chosen):
        model_odds(request, chosen, charts_dirs, game, as_json)
        return
    # Command Decision's adapter (rules/models/cd.py) delegates to rules.cd.quick,
    # rules.cd.direct and rules.cd.odds.
    cd: Any
    if shooter is None or target is None:
        from tabletop.cli.core import load_charts

        cd = find_model(chosen, load_charts(tuple(charts_dirs)))
        plan = cd.quick_plan(weapon, range_, target_kind, quality, shooter_kind, cover, ammo, mods)
    else:
        from tabletop.cli.core import open_game

        ctx = open_game(game).context()
        cd = find_model(chosen, ctx.charts)
        from tabletop.rules.cd.direct import prepare

        inputs = fire_inputs(shooter, target, weapon, ammo, range_, cover, mods, spotted)
        plan = prepare(ctx, inputs, any_phase=True, look_ahead=True).plan
    show(plan.working(), cd.plan_odds(plan), as_json)


@cli.command("barrage")
@barrage_options
@game_option
@json_option
@command
def odds_barrage(
    shooter: str,
    at: tuple[float, float],
    weapon: str | None,
    ammo: str,
    hni: bool,
    mods: tuple[Any, ...],
    game: str,
    as_json: bool,
) -> None:
    """Odds for each stand under SHOOTER's template at X,Y.

    And the odds of ammunition depletion.

    \b
    Example:
      tabletop odds barrage US-5 --at 22,27
    """
    from tabletop.cli.core import open_game
    from tabletop.rules.cd.barrage import prepare
    from tabletop.rules.cd.odds import template_odds

    ctx = open_game(game).context()
    b = prepare(ctx, barrage_inputs(shooter, at, weapon, ammo, hni, mods), any_phase=True)
    odds = template_odds(b, ctx.charts)
    show(
        {
            "weapon": b.weapon.id,
            "at": list(b.point),
            "under_template": [s for s, _ in b.under],
            "warnings": b.warnings,
        },
        odds,
        as_json,
    )


def model_odds(
    request: Any, name: str, charts_dirs: tuple[Path, ...], game: str, as_json: bool
) -> None:
    from tabletop.cli.commands.fire import model_shot
    from tabletop.cli.core import load_charts
    from tabletop.rules.models import find_alternative

    if request.quick():
        model = find_alternative(name, load_charts(tuple(charts_dirs)))
        shot = model_shot(request, model)
    else:
        from tabletop.cli.core import open_game
        from tabletop.rules.models.engine import shot_from_table

        ctx = open_game(game).context()
        model = find_alternative(name, ctx.charts)
        shot, _ = shot_from_table(ctx, model, request.table_inputs(name), any_phase=True)
    show(
        {"weapon": f"{name}: {shot.shooter} at {shot.target}", "model": name},
        model.odds(shot),
        as_json,
    )


def show(working: dict[str, Any], odds: dict[str, Any], as_json: bool) -> None:
    from tabletop.rules.cd.odds import as_json as floats
    from tabletop.rules.cd.odds import exact

    if as_json:
        emit_json({**working, **floats(odds), "exact": exact(odds)})
        return
    from tabletop.cli.odds_text import from_fire

    echo_odds(from_fire(working, odds))
