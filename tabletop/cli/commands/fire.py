"""tabletop fire SHOOTER TARGET: direct fire (or a quick calculator without a game)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    INCHES,
    MODIFIER,
    ODDS_KEY,
    SETTING,
    STAND,
    Amount,
    charts_option,
    command,
    dice_inputs,
    dice_option,
    dice_shown,
    emit_json,
    game_option,
    headline,
    json_option,
    model_completer,
    odds_as_asked,
    odds_option,
    profile_completer,
    weapon_completer,
)  # fmt: skip

COVERS = ("none", "light", "medium", "hard", "fortification")


AMMO = ("standard", "limited", "smoke", "illum")


def fire_options(f: Any) -> Any:
    """Options shared by ``fire`` and ``odds fire``."""
    for option in reversed(
        [
            click.argument("shooter", type=STAND, required=False),
            click.argument("target", type=STAND, required=False),
            click.option(
                "--weapon",
                default=None,
                shell_complete=weapon_completer(),
                help="Which of the shooter's weapons.",
            ),
            click.option(
                "--ammo",
                type=click.Choice(AMMO),
                default="standard",
                help="Round to fire (limited-issue, smoke, illumination).",
            ),
            click.option(
                "--range",
                "range_",
                type=INCHES,
                default=None,
                help="Measured range in inches (quick mode; else from the table).",
            ),
            click.option(
                "--cover",
                type=click.Choice(COVERS),
                default=None,
                help="Target's cover (default: from the terrain it stands in).",
            ),
            click.option(
                "--mod",
                "mods",
                type=MODIFIER,
                multiple=True,
                help="A to-hit modifier: a charted NAME, or NAME=VALUE (repeatable).",
            ),
            click.option(
                "--spotted",
                is_flag=True,
                help="The target is spotted by another stand (referee's call).",
            ),
            click.option(
                "--target-kind",
                default=None,
                help="Quick mode without stands: the target's stand kind.",
            ),
            click.option(
                "--quality",
                default=None,
                help="Quick mode: the target's quality (default regular).",
            ),
            click.option(
                "--shooter-kind",
                default=None,
                help="Quick mode: the shooter's stand kind (for depletion).",
            ),
            click.option(
                "--model",
                default=None,
                shell_complete=model_completer(),
                help="Resolution model: cd (default), mech-brigade, typhoon, "
                "squad-battles (or the scenario's model:).",
            ),
            click.option(
                "--shooter",
                "shooter_profile",
                default=None,
                shell_complete=profile_completer,
                help="Model quick mode: the firing unit's profile id.",
            ),
            click.option(
                "--target",
                "target_profile",
                default=None,
                shell_complete=profile_completer,
                help="Model quick mode: the target's profile id.",
            ),
            click.option(
                "--count",
                type=click.IntRange(1, 1000),
                default=None,
                help="Model fire: how many weapons or vehicles fire.",
            ),
            click.option(
                "--range-squares",
                type=Amount(0, 10_000, "squares"),
                default=None,
                help="Model fire: range in the model's squares or hexes.",
            ),
            click.option(
                "--smoke",
                type=click.IntRange(0, 10),
                default=None,
                help="Model fire: smoke level between the units.",
            ),
            click.option(
                "--set",
                "settings",
                type=SETTING,
                multiple=True,
                help="Model fire: a model option KEY=VALUE (repeatable).",
            ),
        ]
    ):
        f = option(f)
    return f


def fire_inputs(
    shooter: str | None,
    target: str | None,
    weapon: str | None,
    ammo: str,
    range_: float | None,
    cover: str | None,
    mods: tuple[Any, ...],
    spotted: bool,
) -> dict[str, Any]:
    return {
        "shooter": shooter,
        "target": target,
        "weapon": weapon,
        "ammo": ammo,
        "range": range_,
        "cover": cover,
        "mods": [list(m) for m in mods],
        "spotted": spotted,
    }


@click.command("fire")
@odds_option
@fire_options
@dice_option
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Quick mode without a game: seed the dice.",
)
@charts_option
@game_option
@json_option
@command
def cli(
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
    dice: Any,
    seed: int | None,
    charts_dirs: tuple[Path, ...],
    game: str,
    as_json: bool,
) -> None:
    """SHOOTER fires at TARGET: to-hit, dice, hits and effects.

    The working comes with the verdict: base number, modifiers, dice, hit effects
    and the ammunition used.

    In a game, range, sight, spotting and cover come from the table unless --range
    (and --cover) give what you measured. Without SHOOTER and TARGET it is a calculator.

    --dice are taken in the order a referee throws them: every to-hit die first,
    then one effect die for each hit, in the same order (depletion dice are rolled
    at the end of the phase). Under another model (--model, or the scenario's) the
    model's own dice order holds: 'tabletop model show NAME' gives it.

    \b
    Example:
      tabletop fire G-4 US-4
      tabletop fire G-1 US-1 --range 6 --mod descending --dice 3,7
      tabletop fire --weapon pak-36 --range 14 --target-kind infantry
    """
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
        chosen,
        cd_given(weapon, ammo, cover, mods, spotted, target_kind, quality, shooter_kind),
        seed=seed is not None,
    )
    if not own_commands(chosen):
        result = model_fire(request, chosen, dice, seed, charts_dirs, game)
        if as_json:
            emit_json(result)
        else:
            click.echo(render_model(result))
        return
    if shooter is None or target is None:
        if shooter is not None:
            from tabletop.core.errors import BadInput

            raise BadInput("give both SHOOTER and TARGET, or neither (quick mode)")
        if seed is not None and click.get_current_context().meta.get(ODDS_KEY):
            raise click.UsageError("--odds rolls nothing: leave out --dice and --seed")
        # Quick mode with --odds: the calculator's odds, as 'tabletop odds fire ...'.
        if odds_as_asked("fire", dice):
            return
        result = _quick_fire(
            chosen,
            weapon,
            range_,
            target_kind,
            quality,
            shooter_kind,
            cover,
            ammo,
            mods,
            dice,
            seed,
            charts_dirs,
        )
    else:
        g = request.game(game)
        inputs = fire_inputs(shooter, target, weapon, ammo, range_, cover, mods, spotted)

        def typed_now() -> None:
            from tabletop.rules.cd.direct import prepare

            prepare(g.context(), inputs)

        if odds_as_asked("fire", dice, typed_now):
            return
        out = g.execute("fire", inputs, **dice_inputs(dice))
        result = {
            "event": out.seq,
            **out.result,
            "physical": [r.source == "physical" for r in out.rolls],
        }
    if as_json:
        emit_json(result)
        return
    click.echo(render(result))


def _quick_fire(
    chosen: str,
    weapon: str | None,
    range_: float | None,
    target_kind: str | None,
    quality: str | None,
    shooter_kind: str | None,
    cover: str | None,
    ammo: str,
    mods: tuple[Any, ...],
    dice: Any,
    seed: int | None,
    charts_dirs: tuple[Path, ...],
) -> dict[str, Any]:
    from tabletop.cli.core import load_charts
    from tabletop.core.dice import Dice
    from tabletop.rules.models import find_model

    # Command Decision's adapter (rules/models/cd.py) delegates to rules.cd.quick.
    model: Any = find_model(chosen, load_charts(tuple(charts_dirs)))
    plan = model.quick_plan(weapon, range_, target_kind, quality, shooter_kind, cover, ammo, mods)
    inputs = dice_inputs(dice)
    d = Dice(
        seed if seed is not None else int.from_bytes(os.urandom(6), "big"),
        physical=inputs["physical"],
        rest=inputs["rest"],
        ask=inputs["ask"],
    )
    result = model.quick_fire(plan, d)
    d.finish()
    return {**result, "physical": [r.source == "physical" for r in d.rolls]}


def own_commands(name: str) -> bool:
    """Whether the registered model ``name`` fires with the program's own options (Command
    Decision's weapons chart), not a ``Shot`` of profiles; an unknown name is taken for an
    alternative model, whose lookup then says it is unsupported."""
    from tabletop.rules.models import model_class

    cls = model_class(name)
    return cls is not None and cls.own_commands


def refuse_charts_in_a_game(charts_dirs: tuple[Path, ...], shooter: str | None) -> None:
    if charts_dirs and shooter is not None:
        from tabletop.core.errors import BadInput

        raise BadInput(
            "--charts is for quick mode and for 'tabletop new': a game keeps the "
            "charts it began with"
        )


# Options that only mean something without SHOOTER and TARGET stands, and why.
QUICK_ONLY = {
    "--shooter": "in a game the stands' profiles come from the scenario ('profiles:')",
    "--target": "in a game the stands' profiles come from the scenario ('profiles:')",
    "--target-kind": "in a game the stands' kinds come from the scenario",
    "--quality": "in a game the target's quality comes from the scenario",
    "--shooter-kind": "in a game the stands' kinds come from the scenario",
    "--seed": "a game rolls with its own seed, set by 'tabletop new'",
}
# Options of Command Decision fire that no alternative model reads, and the other way round.
CD_ONLY = ("--weapon", "--ammo", "--cover", "--mod", "--spotted")
MODEL_ONLY = ("--shooter", "--target", "--count", "--range-squares", "--smoke", "--set")


def cd_given(
    weapon: str | None,
    ammo: str,
    cover: str | None,
    mods: tuple[Any, ...],
    spotted: bool,
    target_kind: str | None,
    quality: str | None,
    shooter_kind: str | None,
) -> dict[str, bool]:
    """Which of Command Decision's own options the command line gives."""
    return {
        "--weapon": weapon is not None,
        "--ammo": ammo != "standard",
        "--cover": cover is not None,
        "--mod": bool(mods),
        "--spotted": spotted,
        "--target-kind": target_kind is not None,
        "--quality": quality is not None,
        "--shooter-kind": shooter_kind is not None,
    }


class ModelRequest:
    """What the command line says about a model shot (table mode or quick mode)."""

    def __init__(
        self,
        model: str | None,
        shooter: str | None,
        target: str | None,
        shooter_profile: str | None,
        target_profile: str | None,
        count: int | None,
        range_: float | None,
        range_squares: float | None,
        smoke: int | None,
        settings: tuple[Any, ...],
    ):
        self.model = model
        self.shooter, self.target = shooter, target
        self.shooter_profile, self.target_profile = shooter_profile, target_profile
        self.count, self.range, self.range_squares = count, range_, range_squares
        self.options = dict(settings)
        self.settings, self.smoke = bool(settings), smoke
        if smoke is not None:
            self.options["smoke"] = smoke

    def model_name(self, game: str) -> str:
        """--model, else the game's scenario model (when stands are named), else cd."""
        from tabletop.rules.models import CD, canonical_name

        if self.model is not None:
            return canonical_name(self.model)
        if self.shooter is not None and os.path.exists(game):
            return str(self.game(game).loaded.scenario.model)
        return CD

    def game(self, path: str) -> Any:
        """The game, opened once for the whole command."""
        if getattr(self, "_game", None) is None:
            from tabletop.cli.core import open_game

            self._game = open_game(path)
        return self._game

    def quick(self) -> bool:
        return self.shooter is None and self.target is None

    def given(self) -> dict[str, bool]:
        """Which model options the command line gives."""
        return {
            "--shooter": self.shooter_profile is not None,
            "--target": self.target_profile is not None,
            "--count": self.count is not None,
            "--range-squares": self.range_squares is not None,
            "--smoke": self.smoke is not None,
            "--set": self.settings,
        }

    def refuse_unused(self, chosen: str, cd: dict[str, bool], *, seed: bool = False) -> None:
        """Refuse an option that would be silently ignored: a quick-mode option with SHOOTER
        and TARGET stands, a Command Decision option with another model, or a model option
        with Command Decision."""
        from tabletop.core.errors import BadInput

        given = {**cd, **self.given(), "--seed": seed}
        if not self.quick():
            for option, why in QUICK_ONLY.items():
                if given.get(option):
                    raise BadInput(f"{option} is for quick mode, without SHOOTER and TARGET: {why}")
        if own_commands(chosen):
            unused = [o for o in MODEL_ONLY if given.get(o)]
            if unused:
                raise BadInput(
                    f"{unused[0]} is for the alternative models: add --model NAME (see "
                    "'tabletop model list'); Command Decision fire does not read it"
                )
            return
        unused = [
            o for o in (*CD_ONLY, "--target-kind", "--quality", "--shooter-kind") if given.get(o)
        ]
        if unused:
            raise BadInput(
                f"{unused[0]} is for Command Decision fire, not the {chosen} model: give its "
                f"options with --set KEY=VALUE (see 'tabletop model show {chosen}')"
            )

    def table_inputs(self, name: str) -> dict[str, Any]:
        """The ``model-fire`` action's inputs for SHOOTER and TARGET stands of a game."""
        return {
            "model": name,
            "shooter": self.shooter,
            "target": self.target,
            "range": self.range,
            "range_squares": self.range_squares,
            "count": self.count,
            "options": self.options,
        }


def model_shot(request: ModelRequest, model: Any) -> Any:
    from tabletop.core.errors import BadInput
    from tabletop.rules.models import Shot

    missing = [
        n
        for n, v in (("--shooter", request.shooter_profile), ("--target", request.target_profile))
        if v is None
    ]
    if missing:
        raise BadInput(
            f"{model.name} quick mode needs {' and '.join(missing)} (profile ids "
            f"from charts/models/{model.chart}.yaml), or SHOOTER and TARGET stands"
        )
    if (request.range is None) == (request.range_squares is None):
        raise BadInput("give the range once: --range INCHES or --range-squares N")
    if request.range is not None:
        inches = request.range
    else:
        assert request.range_squares is not None
        inches = request.range_squares * model.inches_per_unit
    model.check_options(request.options)
    return Shot(
        str(request.shooter_profile),
        str(request.target_profile),
        inches,
        request.count or 1,
        request.options,
    )


def model_fire(
    request: ModelRequest,
    name: str,
    dice: Any,
    seed: int | None,
    charts_dirs: tuple[Path, ...],
    game: str,
) -> dict[str, Any]:
    from tabletop.cli.core import load_charts
    from tabletop.core.errors import BadInput
    from tabletop.rules.models import find_alternative

    if request.quick():
        from tabletop.core.dice import Dice

        model = find_alternative(name, load_charts(tuple(charts_dirs)))
        shot = model_shot(request, model)
        inputs = dice_inputs(dice)
        d = Dice(
            seed if seed is not None else int.from_bytes(os.urandom(6), "big"),
            physical=inputs["physical"],
            rest=inputs["rest"],
            ask=inputs["ask"],
        )
        outcome = model.fire(shot, d)
        d.finish()
        return {
            "event": None,
            "verdict": outcome.verdict,
            "model": model.name,
            **outcome.data,
            "lines": outcome.lines,
            "rolls": [r.as_dict() for r in d.rolls],
        }
    if request.shooter is None or request.target is None:
        raise BadInput("give both SHOOTER and TARGET, or neither (quick mode)")
    from tabletop.cli.core import open_game

    out = open_game(game).execute("model-fire", request.table_inputs(name), **dice_inputs(dice))
    return {"event": out.seq, **out.result, "rolls": [r.as_dict() for r in out.rolls]}


def render_model(r: dict[str, Any]) -> str:
    lines = [headline(r["verdict"]), *[f"  {line}" for line in r.get("lines", [])]]
    # In a game the dice come after the event, marked physical or generated, as for every
    # command; a quick calculation has no event, so it lists them here.
    if r.get("rolls") and not r.get("event"):
        lines.append(
            "  dice: "
            + ", ".join(
                f"{x['value']}{'*' if x['source'] == 'physical' else ''} ({x['purpose']})"
                for x in r["rolls"]
            )
        )
    if r.get("event"):
        lines.append(f"  (event {r['event']})")
    return "\n".join(lines)


def render(r: dict[str, Any]) -> str:
    lines = [headline(r["verdict"])]
    who = f"{r['shooter']} fires" if r.get("shooter") else "Fire"
    band = f" ({r['band']})" if r.get("band") else ""
    lines.append(
        f'{who} {r["weapon"]} at {r["target"]}: {r["range"]:.1f}"{band}, '
        f"ROF {r['rof']}, needs {r['to_hit']} or less"
    )
    row = "vs armour" if r["row"] == "to_hit_afv" else r["row"].replace("_", "-")
    lines.append(f"  base {r['base']} ({r['weapon']} {r['band']}, {row} row, weapons chart)")
    for m in r["modifiers"]:
        lines.append(f"  {m['value']:+d} {m['name']} [{m['rule']}]")
    lines.append(f"  = {r['to_hit']}; " + "; ".join(r.get("notes", [])))
    physical = r.get("physical") or []
    # The dice were thrown as a referee throws them: every to-hit die, then the effects.
    marks, effect_marks = iter(physical[: len(r["dice"])]), iter(physical[len(r["dice"]) :])
    parts = []
    for d in r["dice"]:
        star = "*" if next(marks, False) else ""
        text = f"{d['to_hit']}{star}"
        if d["hit"]:
            estar = "*" if next(effect_marks, False) else ""
            text += f" hit, effect {d['effect_roll']}{estar} {d['effect']}"
        else:
            text += " miss"
        parts.append(text)
    legend = "   (all generated)"
    if any(physical):
        legend = "   (* physical)" if all(physical) else "   (* physical, the rest generated)"
    lines.append("  dice: " + "; ".join(parts) + legend)
    dice_shown()
    if r.get("target_now"):
        lines.append(f"  {r['target']}: {r['target_now']}")
    for line in r.get("structures") or []:
        lines.append(f"  structure: {line}")
    for note in r.get("ammunition", []):
        lines.append(f"  ammunition: {note}")
    if r.get("event"):
        lines.append(f"  (event {r['event']})")
    return "\n".join(lines)
