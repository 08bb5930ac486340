"""tabletop fire SHOOTER TARGET: direct fire (or a quick calculator without a game)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import (
    INCHES, MODIFIER, STAND, charts_option, command, dice_inputs, dice_option, emit_json,
    game_option, headline, json_option,
)  # fmt: skip

COVERS = ("none", "light", "medium", "hard", "fortification")
AMMO = ("standard", "limited", "smoke", "illum")


def fire_options(f: Any) -> Any:
    """Options shared by ``fire`` and ``odds fire``."""
    for option in reversed(
        [
            click.argument("shooter", type=STAND, required=False),
            click.argument("target", type=STAND, required=False),
            click.option("--weapon", default=None, help="Which of the shooter's weapons."),
            click.option("--ammo", type=click.Choice(AMMO), default="standard",
                         help="Round to fire (limited-issue, smoke, illumination)."),
            click.option("--range", "range_", type=INCHES, default=None,
                         help="Measured range in inches (quick mode; else from the table)."),
            click.option("--cover", type=click.Choice(COVERS), default=None,
                         help="Target's cover (default: from the terrain it stands in)."),
            click.option("--mod", "mods", type=MODIFIER, multiple=True,
                         help="A to-hit modifier: a charted NAME, or NAME=VALUE (repeatable)."),
            click.option("--spotted", is_flag=True,
                         help="The target is spotted by another stand (referee's call)."),
            click.option("--target-kind", default=None,
                         help="Quick mode without stands: the target's stand kind."),
            click.option("--quality", default=None,
                         help="Quick mode: the target's quality (default regular)."),
            click.option("--shooter-kind", default=None,
                         help="Quick mode: the shooter's stand kind (for depletion)."),
        ]
    ):
        f = option(f)
    return f


def fire_inputs(shooter: str | None, target: str | None, weapon: str | None, ammo: str,
                range_: float | None, cover: str | None, mods: tuple[Any, ...],
                spotted: bool) -> dict[str, Any]:
    return {"shooter": shooter, "target": target, "weapon": weapon, "ammo": ammo,
            "range": range_, "cover": cover, "mods": [list(m) for m in mods],
            "spotted": spotted}


def quick_plan(weapon: str | None, range_: float | None, target_kind: str | None,
               quality: str | None, shooter_kind: str | None, cover: str | None, ammo: str,
               mods: tuple[Any, ...], charts: Any) -> Any:
    """A shot described entirely on the command line (no game, no stands)."""
    from tabletop.errors import BadInput
    from tabletop.rules.cd.fire import Firer, Target, plan_direct

    missing = [n for n, v in (("--weapon", weapon), ("--range", range_),
                              ("--target-kind", target_kind)) if v is None]
    if missing:
        raise BadInput(
            f"quick mode needs {', '.join(missing)} (or give SHOOTER and TARGET stands of a game)"
        )
    assert weapon is not None and target_kind is not None and range_ is not None
    _known(weapon, charts.weapons, "--weapon", "weapon")
    _known(target_kind, charts.stand_kinds, "--target-kind", "stand kind")
    if shooter_kind is not None:
        _known(shooter_kind, charts.stand_kinds, "--shooter-kind", "stand kind")
    quality = quality or "regular"
    _known(quality, charts.quality, "--quality", "quality")
    kind = charts.stand_kinds[target_kind]
    target = Target(label=target_kind, kind=kind, quality=quality, cover=cover or "none",
                    weight_class=kind.weight_class)
    firer = Firer(None, charts.stand_kinds.get(shooter_kind) if shooter_kind else None)
    return plan_direct(charts.weapons[weapon], firer, target, range_, charts, ammo=ammo,
                       requested=tuple(mods))


def _known(value: str, table: Any, option: str, what: str) -> None:
    import difflib

    from tabletop.errors import BadInput

    if value not in table:
        close = difflib.get_close_matches(value, list(table), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise BadInput(f"{option} {value!r}: unknown {what}{hint} (see 'tabletop charts show')")


@click.command("fire")
@fire_options
@dice_option
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
              help="Quick mode without a game: seed the dice.")
@charts_option
@game_option
@json_option
@command
def cli(shooter: str | None, target: str | None, weapon: str | None, ammo: str,
        range_: float | None, cover: str | None, mods: tuple[Any, ...], spotted: bool,
        target_kind: str | None, quality: str | None, shooter_kind: str | None, dice: Any,
        seed: int | None, charts_dirs: tuple[Path, ...], game: Path, as_json: bool) -> None:
    """SHOOTER fires at TARGET: to-hit number, dice, hits, hit effects, ammunition.

    In a game, range, sight, spotting and cover come from the table unless --range
    (and --cover) give what you measured. Without SHOOTER and TARGET it is a calculator.

    \b
    Example:
      tabletop fire G-4 US-4
      tabletop fire G-1 US-1 --range 6 --mod descending --dice 3,7
      tabletop fire --weapon pak-36 --range 14 --target-kind infantry --quality veteran
    """
    if shooter is None or target is None:
        if shooter is not None:
            from tabletop.errors import BadInput

            raise BadInput("give both SHOOTER and TARGET, or neither (quick mode)")
        result = _quick_fire(weapon, range_, target_kind, quality, shooter_kind, cover, ammo,
                             mods, dice, seed, charts_dirs)
    else:
        from tabletop.cli.core import open_game

        g = open_game(game)
        out = g.execute("fire", fire_inputs(shooter, target, weapon, ammo, range_, cover, mods,
                                            spotted), **dice_inputs(dice))
        result = {"event": out.seq, **out.result,
                  "physical": [r.source == "physical" for r in out.rolls]}
    if as_json:
        emit_json(result)
        return
    click.echo(render(result))


def _quick_fire(weapon: str | None, range_: float | None, target_kind: str | None,
                quality: str | None, shooter_kind: str | None, cover: str | None, ammo: str,
                mods: tuple[Any, ...], dice: Any, seed: int | None,
                charts_dirs: tuple[Path, ...]) -> dict[str, Any]:
    import os

    from tabletop.charts import Charts
    from tabletop.dice import Dice
    from tabletop.rules.cd.direct import roll_plan, verdict

    charts = Charts.load(tuple(charts_dirs))
    plan = quick_plan(weapon, range_, target_kind, quality, shooter_kind, cover, ammo, mods,
                      charts)
    inputs = dice_inputs(dice)
    d = Dice(seed if seed is not None else int.from_bytes(os.urandom(6), "big"),
             physical=inputs["physical"], ask=inputs["ask"])
    tally, dice_out = roll_plan(plan, d, int(charts.param("ammo", "trigger-face")))
    d.finish()
    notes = []
    if tally.triggers and plan.depletion == "roll":
        notes.append(f"{tally.triggers} depletion check(s) due at the end of the fire phase: "
                     f"depleted on {plan.depletion_threshold} or less (CD 1.2)")
    return {"event": None, "verdict": verdict(tally, plan, plan.target), **plan.working(),
            "rolls": [x["to_hit"] for x in dice_out], "dice": dice_out, "hits": tally.hits,
            "effects": [x["effect"] for x in dice_out if x["hit"]],
            "depletion_checks": tally.triggers if plan.depletion == "roll" else 0,
            "ammunition": notes,
            "physical": [r.source == "physical" for r in d.rolls]}


def render(r: dict[str, Any]) -> str:
    lines = [headline(r["verdict"])]
    who = f"{r['shooter']} fires" if r.get("shooter") else "Fire"
    band = f" ({r['band']})" if r.get("band") else ""
    lines.append(f"{who} {r['weapon']} at {r['target']}: {r['range']:.1f}\"{band}, "
                 f"ROF {r['rof']}, needs {r['to_hit']} or less")
    row = "vs armour" if r["row"] == "to_hit_afv" else r["row"].replace("_", "-")
    lines.append(f"  base {r['base']} ({r['weapon']} {r['band']}, {row} row, weapons chart)")
    for m in r["modifiers"]:
        lines.append(f"  {m['value']:+d} {m['name']} [{m['rule']}]")
    lines.append(f"  = {r['to_hit']}; " + "; ".join(r.get("notes", [])))
    physical = r.get("physical") or []
    marks = iter(physical)
    parts = []
    for d in r["dice"]:
        star = "*" if next(marks, False) else ""
        text = f"{d['to_hit']}{star}"
        if d["hit"]:
            estar = "*" if next(marks, False) else ""
            text += f" hit, effect {d['effect_roll']}{estar} {d['effect']}"
        else:
            text += " miss"
        parts.append(text)
    lines.append("  dice: " + "; ".join(parts) + ("   (* physical)" if any(physical) else ""))
    if r.get("target_now"):
        lines.append(f"  {r['target']}: {r['target_now']}")
    for note in r.get("ammunition", []):
        lines.append(f"  ammunition: {note}")
    if r.get("event"):
        lines.append(f"  (event {r['event']})")
    return "\n".join(lines)
