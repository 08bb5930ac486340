"""tabletop airborne drop|glider|aa|fire|assemble: airborne operations (CD 7)."""

from __future__ import annotations

from typing import Any

import click

from tabletop.cli.core import (
    BEARING,
    MODIFIER,
    ODDS_KEY,
    POINT,
    STAND,
    command,
    dice_inputs,
    dice_option,
    echo_odds,
    emit_json,
    executed,
    fraction_text,
    game_option,
    headline,
    json_option,
    odds_option,
    open_game,
)  # fmt: skip
from tabletop.core.words import count


class Target(click.ParamType):
    """``STAND=X,Y``: where a glider aims."""

    name = "STAND=X,Y"

    def convert(self, value: Any, param: Any, ctx: Any) -> tuple[str, tuple[float, float]]:
        if isinstance(value, tuple):
            return value
        stand, sep, point = str(value).partition("=")
        if not sep or not stand.strip():
            self.fail(f"{value!r}: write STAND=X,Y, like G-1=24,12", param, ctx)
        return (stand.strip(), POINT.convert(point, param, ctx))


def aircraft_options(f: Any) -> Any:
    """Options shared by ``drop`` and ``glider``."""
    for option in reversed(
        [
            click.argument("stick"),
            click.option("--zone", type=POINT, required=True, help="The drop zone X,Y."),
            click.option(
                "--crew", default=None, help="Aircrew quality (default: each stand's aircrew:)."
            ),
            click.option(
                "--aa",
                "aa",
                type=STAND,
                multiple=True,
                help="An AA stand that fires (repeatable; default: every one that may).",
            ),
            click.option("--no-aa", is_flag=True, help="No AA fires at the aircraft."),
            click.option(
                "--overcast/--clear-night",
                default=None,
                help="Whether a moonlit night is overcast (default: overcast unless clear).",
            ),
        ]
    ):
        f = option(f)
    return f


@click.group("airborne")
def cli() -> None:
    """Airborne: parachute drops, glider landings, AA fire (CD 7).

    AA fire is at the aircraft carrying the troops.

    A STICK is a company's id, or stand ids like G-1,G-2: one company's parachute or
    glider stands. Drops and landings happen in the artillery and air phase.

    \b
    Example:
      tabletop airborne aa --zone 30,20 --side Germany
      tabletop airborne drop 3/FJR-6 --zone 30,20 --heading 90
      tabletop airborne glider 1/OBLI --zone 12,30 --heading 45
      tabletop airborne fire B-1 FJ-2
    """


@cli.command("drop")
@odds_option
@aircraft_options
@click.option("--heading", type=BEARING, required=True, help="Flight path bearing (degrees).")
@click.option(
    "--bad-weather/--fair-weather",
    "bad_weather",
    default=None,
    help="Whether it is bad flying weather (default: from the weather).",
)
@dice_option
@game_option
@json_option
@command
def drop(
    stick: str,
    zone: tuple[float, float],
    crew: str | None,
    aa: tuple[str, ...],
    no_aa: bool,
    overcast: bool | None,
    heading: float,
    bad_weather: bool | None,
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """Drop STICK by parachute on the zone (CD 7.2).

    AA fire, drop heights, and where each stand lands.

    Each square drifts by a random amount that grows with its drop height; squares
    marked side down are suppressed, and take a hit in woods, forest, buildings or
    swamp; squares in deep water or off the table are lost. The stands are placed
    where they land and may not move this turn.

    With --odds: each square's exact outcome and the ground it comes down in, the AA
    included; squares are worked out one by one.

    \b
    Example:
      tabletop airborne drop 3/FJR-6 --zone 30,20 --heading 90
      tabletop airborne drop FJ-1,FJ-2 --zone 30,20 --heading 90 --no-aa
    """
    inputs = {
        "stick": stick,
        "zone": list(zone),
        "heading": heading,
        "crew": crew,
        "aa": list(aa),
        "no_aa": no_aa,
        "overcast": overcast,
        "bad_weather": bad_weather,
    }
    if odds_asked(dice):
        from tabletop.rules.cd.airborne.odds import drop_odds

        show_parts(drop_odds(open_game(game).context(), inputs), as_json)
        return
    out = open_game(game).execute("airborne-drop", inputs, **dice_inputs(dice))
    r = executed(out, as_json)
    if r is None:
        return
    click.echo(headline(r["verdict"]))
    _echo_aa(r["aa"])
    for sq in r["squares"]:
        head = f"  {sq['square']}: "
        if sq["outcome"] == "aborted":
            click.echo(head + sq["why"])
            continue
        working = " ".join(f"{w['value']:+g} {w['name']}" for w in sq["height_working"][1:])
        click.echo(
            head + f'from {sq["height"]:g}" ({sq["crew"]} {sq["height_working"][0]["value"]:g}'
            f'{" " + working if working else ""}), drifts {sq["drift"]["distance"]:.1f}" '
            f"toward {sq['drift']['bearing']:.0f} to {sq['at'][0]:.1f},{sq['at'][1]:.1f}, "
            f"marked {sq['marked']}: {_fate(sq)}"
        )
    for pair in r["overlaps"]:
        click.echo(f"  {pair[0]} and {pair[1]} overlap: nudge them apart with 'tabletop place'")
    _echo_orders(r)
    click.echo(f"  (event {r['event']})")


def odds_asked(dice: Any) -> bool:
    """Whether ``--odds`` (or ``tabletop odds ...``) asks for this command's odds; they
    roll nothing, so ``--dice`` is refused with them."""
    ctx = click.get_current_context()
    if not ctx.meta.get(ODDS_KEY):
        return False
    if dice is not None:
        raise click.UsageError("--odds rolls nothing: leave out --dice", ctx=ctx)
    return True


def show_parts(report: Any, as_json: bool) -> None:
    """Odds part by part (a ``PartsReport``): exact fractions in JSON, percentages in text."""
    if as_json:
        emit_json(parts_json(report))
        return
    from tabletop.cli.odds_text import from_parts

    echo_odds(from_parts(report))


def parts_json(report: Any) -> dict[str, Any]:
    """``outcomes`` {"PART: outcome": "a/b"} and ``expected`` as for every ``--odds``, then
    each part's own figures and what they assume."""
    flat = {f"{part.part}: {k}": p for part in report.parts for k, p in part.outcomes.items()}
    return {
        "command": report.command,
        "per": report.per,
        "outcomes": {k: fraction_text(p) for k, p in flat.items()},
        "expected": {k: fraction_text(v) for k, v in report.expected.items()},
        "percent": {k: round(float(p) * 100, 3) for k, p in flat.items()},
        "parts": [
            {
                "part": part.part,
                "stand": part.stand,
                "outcomes": {k: fraction_text(p) for k, p in part.outcomes.items()},
                "percent": {k: round(float(p) * 100, 3) for k, p in part.outcomes.items()},
                "where": {k: fraction_text(p) for k, p in part.where.items()},
            }
            for part in report.parts
        ],
        "assumes": report.assumes,
    }


def _echo_orders(r: dict[str, Any]) -> None:
    """The landed stands' order (CD 7.2.2, 7.3.2)."""
    if r.get("orders"):
        click.echo(
            f"  hasty advance order: {', '.join(sorted(r['orders']))} (may not move this turn;"
            " fire at -2, CD 7.2.2, 7.3.2)"
        )


def _fate(sq: dict[str, Any]) -> str:
    if sq["outcome"] == "lost":
        return str(sq["why"])
    if sq["outcome"] == "hit":
        return f"suppressed, and a hit for landing down in {sq['rough']}: {sq.get('effect')}"
    return str(sq["outcome"])


def _echo_aa(shots: list[dict[str, Any]]) -> None:
    for shot in shots:
        hits = ", ".join(
            f"{h['aircraft']} {h['effect']}" + (" (aborted)" if h["aborted"] else "")
            for h in shot["hits"]
        )
        click.echo(
            f"  AA {shot['stand']} ({shot['weapon']}): {count(shot['dice'], 'die', 'dice')} "
            f"needing {shot['to_hit']}, rolled {', '.join(map(str, shot['rolls'])) or '-'}"
            + (f": {hits}" if hits else ": no hits")
        )


@cli.command("glider")
@odds_option
@aircraft_options
@click.option(
    "--heading", type=BEARING, default=0.0, help="Landing direction (degrees; default 0)."
)
@click.option(
    "--at",
    "targets",
    type=Target(),
    multiple=True,
    help="Where a glider aims, STAND=X,Y (repeatable; default: laid out around the zone).",
)
@dice_option
@game_option
@json_option
@command
def glider(
    stick: str,
    zone: tuple[float, float],
    crew: str | None,
    aa: tuple[str, ...],
    no_aa: bool,
    overcast: bool | None,
    heading: float,
    targets: tuple[tuple[str, tuple[float, float]], ...],
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """Land STICK by glider on the zone (CD 7.3).

    AA fire, landing rolls, deviation and crashes.

    Each glider aims within 2" of the zone or of a glider of the stick already down
    there; it lands on its landing number or less (8 by day, 6 on a clear night, 4
    overcast or moonless, one less per AA hit, veterans +1, green -1). A 10 destroys it;
    other failures deviate, and a glider deviating onto woods, orchards, obstacles,
    structures, vehicles or gliders crashes.

    With --odds: each glider's exact outcome, as if the gliders before it came down
    where they aimed.

    \b
    Example:
      tabletop airborne glider 1/OBLI --zone 12,30 --heading 45
      tabletop airborne glider OB-1,OB-2 --zone 12,30 --at OB-1=12,30
    """
    inputs = {
        "stick": stick,
        "zone": list(zone),
        "heading": heading,
        "crew": crew,
        "aa": list(aa),
        "no_aa": no_aa,
        "overcast": overcast,
        "targets": {sid: list(point) for sid, point in targets},
    }
    if odds_asked(dice):
        from tabletop.rules.cd.airborne.odds import glider_odds

        show_parts(glider_odds(open_game(game).context(), inputs), as_json)
        return
    out = open_game(game).execute("airborne-glider", inputs, **dice_inputs(dice))
    r = executed(out, as_json)
    if r is None:
        return
    click.echo(headline(r["verdict"]))
    _echo_aa(r["aa"])
    for g in r["gliders"]:
        head = f"  {g['stand']}: "
        if g["outcome"] == "aborted":
            click.echo(head + g["why"])
            continue
        text = f"needs {g['landing_number']}, rolled {g['rolls'][0]}: "
        if "deviation" in g:
            d = g["deviation"]
            text += f'deviates {d["distance"]:g}" toward point {d["direction"]} '
        if g["outcome"] == "lost":
            text += g["why"]
        elif g["outcome"] == "crashed":
            crash = g["crash"]
            text += (
                f"crashes into {', '.join(g['crashed_into'])} at {g['at'][0]:.1f},{g['at'][1]:.1f}"
                f" ({', '.join(crash['effects'])}; second check {crash['second_check']})"
            )
            if crash.get("morale_due"):
                text += "; a morale test falls due (CD 7.3.4)"
        else:
            text += f"down at {g['at'][0]:.1f},{g['at'][1]:.1f}"
        click.echo(head + text)
    _echo_orders(r)
    click.echo(f"  (event {r['event']})")


@cli.command("aa")
@click.option("--zone", type=POINT, required=True, help="The drop zone X,Y.")
@click.option("--side", required=True, help="The side whose aircraft come in.")
@game_option
@json_option
@command
def aa(zone: tuple[float, float], side: str, game: str, as_json: bool) -> None:
    """Which enemy AA may fire at aircraft over a zone.

    With the dice each gun rolls (CD 7.2.2, 9.1.6).

    Nothing is rolled. Stationary AA within 24" of the zone fires half its ROF in
    dice, rounded up (one fewer at night without sound detection, searchlight or
    radar), hitting on 3 or less, +1 for veteran and elite crews, -1 for green and
    trained.

    \b
    Example:
      tabletop airborne aa --zone 30,20 --side Germany
    """
    from tabletop.rules.cd.airborne.aa import aa_preview

    r = aa_preview(open_game(game).context(), side, zone)
    if as_json:
        emit_json(r)
        return
    click.echo(headline(f"AA over {zone[0]:g},{zone[1]:g}: {len(r['firing'])} may fire"))
    for c in r["aa"]:
        state = "fires" if c["why_not"] is None else f"cannot: {c['why_not']}"
        click.echo(
            f"  {c['stand']} ({c['weapon']}): {count(c['dice'], 'die', 'dice')}, "
            f"hits on {c['to_hit']} "
            f"or less; {state}"
        )


@cli.command("fire")
@odds_option
@click.argument("shooter", type=STAND)
@click.argument("target", type=STAND)
@click.option("--weapon", default=None, help="Which of the shooter's weapons.")
@click.option(
    "--mod", "mods", type=MODIFIER, multiple=True, help="Another to-hit modifier (repeatable)."
)
@dice_option
@game_option
@json_option
@command
def fire(
    shooter: str,
    target: str,
    weapon: str | None,
    mods: tuple[Any, ...],
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """SHOOTER fires at TARGET as it comes down by parachute (CD 7.2.2).

    Only in the phase of the drop, by stationary stands within 24" of the drop zone;
    the range is measured to where the target lands, it has no cover, and the fire is
    at -2. Stands that wait fire normally with 'tabletop fire' once it is down.

    \b
    Example:
      tabletop airborne fire B-1 FJ-2
    """
    inputs = {
        "shooter": shooter,
        "target": target,
        "weapon": weapon,
        "mods": [list(m) for m in mods],
    }
    out = open_game(game).execute("airborne-fire", inputs, **dice_inputs(dice))
    r = executed(out, as_json)
    if r is None:
        return
    click.echo(headline(r["verdict"]))
    mods_text = ", ".join(f"{m['value']:+d} {m['name']}" for m in r["modifiers"])
    click.echo(
        f'  {r["weapon"]} at {r["range"]:.1f}" ({r["band"]}): {r["base"]}'
        f"{' ' + mods_text if mods_text else ''} = {r['to_hit']}; rolled "
        f"{', '.join(map(str, r['rolls']))}"
    )
    for note in r["ammunition"]:
        click.echo(f"  ammunition: {note}")
    click.echo(f"  (event {r['event']})")


@cli.command("assemble")
@click.argument("stand", type=STAND)
@game_option
@json_option
@command
def assemble(stand: str, game: str, as_json: bool) -> None:
    """STAND, a parachuted gun, has its crew and ammunition (CD 7.1).

    Clears the crew-apart and ammo-apart markers a drop leaves when the gun's squares
    fall apart; the referee moves the crew and ammunition to the gun first.

    \b
    Example:
      tabletop airborne assemble FJ-GUN
    """
    out = open_game(game).execute("airborne-assemble", {"stand": stand})
    if executed(out, as_json) is None:
        return
    click.echo(out.result["verdict"])
