"""tabletop model list|show|run: the alternative resolution models and their procedures."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    SETTING,
    STAND,
    charts_option,
    command,
    dice_inputs,
    dice_option,
    emit_json,
    game_option,
    headline,
    json_option,
    model_completer,
    odds_option,
    procedure_completer,
)  # fmt: skip


@click.group("model")
def cli() -> None:
    """Alternative resolution models from other wargames.

    Mech Brigade, Typhoon of Steel, Squad Battles and more.

    Fire with a model through 'tabletop fire --model NAME'; run a model's other
    procedures (sighting, suppression, victory...) here. The seeds' own names are
    aliases: typhoon-of-steel (tos), mb, sb, play-by-mail (pbm).

    Dice order ('--dice' values are used in it; 'model show NAME' has the detail):
    mech-brigade fire: a d100 for one more kill (a second on the boundary face).
    typhoon table fire: rate of fire (skill d10, first-shot d100), then each shot's
    skill d10, hit d100 and damage dice. squad-battles fire: casualties (two d100),
    effectiveness (two d100), morale d6. squad-battles assault: hard vehicle d6,
    casualties and effectiveness (d100s), a die for each casualty shared among the
    stands, a d100 for a vehicle's kill, the retreat test's two d6. aggression
    assault: each stand's fire d100 in the order named, then retreat tests (d100),
    most damaged first.

    \b
    Example:
      tabletop model list
      tabletop model show mech-brigade
      tabletop model run mech-brigade sighting --set silhouette=3 --set cover=true
    """


@cli.command("list")
@charts_option
@json_option
@command
def list_models(charts_dirs: tuple[Path, ...], as_json: bool) -> None:
    """The models this program knows, with their scale.

    \b
    Example:
      tabletop model list
    """
    from tabletop.cli.core import load_charts
    from tabletop.rules.models import MODELS, find_model

    charts = load_charts(tuple(charts_dirs))
    rows = []
    for name in MODELS:
        model = find_model(name, charts)
        rows.append({"model": name, "scale": model.scale(), "procedures": list(model.procedures())})
    if as_json:
        emit_json({"models": rows})
        return
    for row in rows:
        procs = f"; procedures: {', '.join(row['procedures'])}" if row["procedures"] else ""
        click.echo(f"{row['model']}: {row['scale']}{procs}")


@cli.command("show")
@click.argument("name", shell_complete=model_completer())
@charts_option
@json_option
@command
def show_model(name: str, charts_dirs: tuple[Path, ...], as_json: bool) -> None:
    """Model NAME's fire options, procedures and profiles.

    For cd (Command Decision, the default), its scale and where its fire and
    procedures are: the program's own commands.

    \b
    Example:
      tabletop model show typhoon
    """
    from tabletop.cli.core import load_charts
    from tabletop.rules.models import find_model
    from tabletop.rules.models.bindings import stand_procedures

    model = find_model(name, load_charts(tuple(charts_dirs)))
    if model.own_commands:
        show_own_commands(model, as_json)
        return
    data: dict[str, Any] = {
        "model": model.name,
        "chart": model.chart_path,
        "inches_per_unit": model.inches_per_unit,
        "fire_options": dict(model.options),
        "procedures": {
            k: {"description": p.description, "options": dict(p.options), "rule": p.rule}
            for k, p in model.procedures().items()
        },
        "profiles": sorted(model.profiles()),
        "dice_order": model.dice_order,
        "stand_procedures": stand_procedures(model.name),
    }
    if as_json:
        emit_json(data)
        return
    click.echo(
        headline(
            f'{model.name}: 1 {model.unit_name} = {model.inches_per_unit:g}" ({data["chart"]})'
        )
    )
    if model.dice_order:
        click.echo(f"dice order: {model.dice_order}")
    click.echo("fire options (--set KEY=VALUE):")
    for key, text in data["fire_options"].items():
        click.echo(f"  {key}: {text}")
    for proc, info in data["procedures"].items():
        click.echo(
            f"procedure {proc}: {info['description']}"
            + (f" [{info['rule']}]" if info["rule"] else "")
        )
        if proc in data["stand_procedures"]:
            keys = ", ".join(data["stand_procedures"][proc])
            click.echo(f"  acts on stands: STAND arguments or --set for {keys}")
        for key, text in info["options"].items():
            click.echo(f"  {key}: {text}")
    if data["profiles"]:
        click.echo("profiles: " + ", ".join(data["profiles"]))


def show_own_commands(model: Any, as_json: bool) -> None:
    """Command Decision's fire and procedures are the program's own commands, not
    ``--set`` options and ``model run`` procedures: it shows where they are."""
    data: dict[str, Any] = {
        "model": model.name,
        "chart": model.chart_path,
        "scale": model.scale(),
        "inches_per_unit": model.inches_per_unit,
        "fire_options": dict(model.options),
        "procedures": dict(model.procedures()),
        "profiles": sorted(model.profiles()),
        "commands": [f"tabletop {c}" for c in model.commands],
    }
    if as_json:
        emit_json(data)
        return
    click.echo(headline(f"{model.name}: {model.description}: {data['scale']} ({data['chart']})"))
    click.echo(
        "fire: " + ", ".join(f"'{c}'" for c in data["commands"]) + " with their own options "
        "(--weapon, --mod, --cover...), not --set"
    )
    click.echo(
        "procedures: the program's own commands (weather, engineer, minefield, airborne, "
        "amphibious, ...; see 'tabletop --help'), not 'tabletop model run'"
    )


@cli.command("run")
@odds_option
@click.argument("name", shell_complete=model_completer(include_cd=False))
@click.argument("procedure", shell_complete=procedure_completer)
@click.argument("stands", nargs=-1, type=STAND)
@click.option(
    "--set",
    "settings",
    type=SETTING,
    multiple=True,
    help="An option of the procedure, KEY=VALUE (repeatable).",
)
@dice_option
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=None, help="Without a game: seed the dice."
)
@charts_option
@game_option
@json_option
@command
def run_model(
    name: str,
    procedure: str,
    stands: tuple[str, ...],
    settings: tuple[Any, ...],
    dice: Any,
    seed: int | None,
    charts_dirs: tuple[Path, ...],
    game: str,
    as_json: bool,
) -> None:
    """Run PROCEDURE of model NAME; in a game its dice are logged.

    In a game, name STANDS (or --set unit=STAND, assaulter=, target=, hq=) for the
    procedures that act on units: the stand's profile and record are read in, and
    the result is recorded on it. A squad-battles assault takes the stands of both
    hexes: the first stand's side attacks, the other side's stands defend (or --set
    attacker=ID,ID --set defender=ID,ID). The procedure's dice are rolled in the order its
    working lists them ('tabletop model show NAME' gives each model's dice order).

    \b
    Example:
      tabletop model run mech-brigade smoke-decay --set level=3 --dice 4
      tabletop model run typhoon rally US-TK US-HQ --dice 40,4
      tabletop model run aggression retreat-test G-1 --dice 50
      tabletop model run squad-battles assault US-SQ US-LT G-SQ G-TRK
    """

    from tabletop.cli.core import load_charts

    options = dict(settings)
    if os.path.exists(game):
        from tabletop.cli.core import open_game

        inputs: dict[str, Any] = {"model": name, "procedure": procedure, "options": options}
        if stands:
            inputs["stands"] = list(stands)
        out = open_game(game).execute("model-run", inputs, **dice_inputs(dice))
        result = {"event": out.seq, **out.result, "rolls": [r.as_dict() for r in out.rolls]}
    else:
        from tabletop.core.dice import Dice
        from tabletop.core.errors import BadInput
        from tabletop.rules.models import find_alternative
        from tabletop.rules.models.engine import run_procedure

        charts = load_charts(tuple(charts_dirs))
        if stands:
            raise BadInput(
                f"{' '.join(stands)}: stands need a game (--game PATH, or 'tabletop new' "
                "first); without one give profile ids with --set"
            )
        inputs = dice_inputs(dice)
        d = Dice(
            seed if seed is not None else int.from_bytes(os.urandom(6), "big"),
            physical=inputs["physical"],
            rest=inputs["rest"],
            ask=inputs["ask"],
        )
        model = find_alternative(name, charts)
        result = {
            "event": None,
            "model": model.name,
            "procedure": procedure,
            **run_procedure(model, procedure, options, d),
            "rolls": [r.as_dict() for r in d.rolls],
        }
        d.finish()
    if as_json:
        emit_json(result)
        return
    click.echo(headline(str(result.get("verdict", f"{name} {procedure}"))))
    for line in result.get("lines", []):
        click.echo(f"  {line}")
    if result.get("rolls"):
        rolls = ", ".join(f"{r['value']} ({r['purpose']})" for r in result["rolls"])
        click.echo(f"  dice: {rolls}")
