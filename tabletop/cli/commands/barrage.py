"""tabletop barrage SHOOTER --at X,Y: indirect fire."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import click

from tabletop.cli.core import (
    MODIFIER,
    POINT,
    STAND,
    command,
    dice_inputs,
    dice_option,
    executed,
    game_option,
    headline,
    json_option,
    odds_as_asked,
    odds_option,
    open_game,
    weapon_completer,
)  # fmt: skip

if TYPE_CHECKING:
    from tabletop.rules.cd.barrage import BarrageResult

    class ShownBarrage(BarrageResult):
        """The barrage's result as the command shows it: with its event number."""

        event: int


def barrage_inputs(
    shooter: str,
    at: tuple[float, float],
    weapon: str | None,
    ammo: str,
    hni: bool,
    mods: tuple[Any, ...],
) -> dict[str, Any]:
    return {
        "shooter": shooter,
        "at": list(at),
        "weapon": weapon,
        "ammo": ammo,
        "hni": hni,
        "mods": [list(m) for m in mods],
    }


def barrage_options(f: Any) -> Any:
    for option in reversed(
        [
            click.argument("shooter", type=STAND),
            click.option(
                "--at", "at", type=POINT, required=True, help="Aiming point X,Y (inches)."
            ),
            click.option(
                "--weapon",
                default=None,
                shell_complete=weapon_completer(),
                help="Which indirect weapon (default: the first).",
            ),
            click.option(
                "--ammo",
                type=click.Choice(["he", "smoke", "illum"]),
                default="he",
                help="HE burst, smoke screen or illumination.",
            ),
            click.option(
                "--hni", is_flag=True, help="Harassing and interdiction fire (no to-hit)."
            ),
            click.option(
                "--mod",
                "mods",
                type=MODIFIER,
                multiple=True,
                help="A to-hit modifier for every stand under the template (repeatable).",
            ),
        ]
    ):
        f = option(f)
    return f


@click.command("barrage")
@odds_option
@barrage_options
@dice_option
@game_option
@json_option
@command
def cli(
    shooter: str,
    at: tuple[float, float],
    weapon: str | None,
    ammo: str,
    hni: bool,
    mods: tuple[Any, ...],
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """Indirect fire by SHOOTER at X,Y: the template and its rolls.

    Lays the template, finds every stand under it and rolls for each.

    --dice are taken in the order a referee throws them: one to-hit die per stand
    under the burst (in the order listed), then one effect die for each hit, in the
    same order; H&I takes one landing die. Over empty ground no die is rolled and
    the dice given are reported unused.

    HE suppresses every stand under the burst; when several stands roll, the first
    one's die is the marked depletion die. Smoke and illumination leave templates
    until the next turn's artillery phase.

    \b
    Example:
      tabletop barrage US-5 --at 22,27
      tabletop barrage US-5 --at 22,27 --ammo smoke
      tabletop barrage US-5 --at 30,30 --hni
    """
    g = open_game(game)
    inputs = barrage_inputs(shooter, at, weapon, ammo, hni, mods)

    def typed_now() -> None:
        from tabletop.rules.cd.barrage import prepare

        prepare(g.context(), inputs)

    if odds_as_asked("barrage", dice, typed_now):
        return
    out = g.execute("barrage", inputs, **dice_inputs(dice))
    r = cast("ShownBarrage | None", executed(out, as_json))
    if r is None:
        return
    click.echo(headline(r["verdict"]))
    for sid in r["under_template"]:
        if sid in r["rolls"]:
            mods_text = " ".join(f"{m['value']:+d} {m['name']}" for m in r["modifiers"][sid])
            click.echo(
                f"  {sid} ({share(r['fractions'][sid])} under): needs {r['to_hit'][sid]}"
                f"{' [' + mods_text + ']' if mods_text else ''}, rolled "
                f"{', '.join(map(str, r['rolls'][sid]))}: {r['effects'][sid]}"
            )
            now = r.get("now", {}).get(sid)
            if now is not None and now != r["effects"][sid]:
                click.echo(f"    {sid}: {now}")
        else:
            click.echo(f"  {sid} ({share(r['fractions'][sid])} under)")
    if r.get("marked_die"):
        click.echo(f"  marked depletion die: {r['marked_die']}'s (CD 1.1)")
    for note in r.get("ammunition", []):
        click.echo(f"  ammunition: {note}")
    warned(r.get("warnings", []))
    click.echo(f"  (event {r['event']})")


def share(fraction: float) -> str:
    """How much of a base lies under the template, in whole percent; a sliver is '<1%',
    never '0%' (the stand is under it), and not quite all is '>99%'."""
    if 0 < fraction < 0.01:
        return "<1%"
    if 0.99 < fraction < 1:
        return ">99%"
    return f"{fraction:.0%}"


def warned(warnings: list[str]) -> None:
    """Each warning on lines of a plain terminal's width."""
    import textwrap

    for warning in warnings:
        text = f"  warning: {warning}"
        click.echo(textwrap.fill(text, 80, subsequent_indent="    ", break_on_hyphens=False))
