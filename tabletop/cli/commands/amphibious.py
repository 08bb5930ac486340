"""tabletop amphibious ...: landings from the sea and naval gunfire (CD 8)."""

from __future__ import annotations

import os
from typing import Any

import click

from tabletop.cli.commands.airborne import odds_asked, show_parts
from tabletop.cli.core import (
    POINT,
    STAND,
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
from tabletop.core.words import count

EFFECTS = ("no effect", "forced back", "eliminated")


@click.group("amphibious")
def cli() -> None:
    """Amphibious landings: waves, wading, craft, naval fire (CD 8).

    Landing waves, wading, hits on craft, lift points and naval gunfire.

    Craft are stands with 'craft:' (landing-craft, whaleboat, raft, amphibious, lvt) and
    'carries:' in the scenario. A wave makes its approach 6" off the beach one turn and
    lands the next; both happen in the movement phase.

    \b
    Example:
      tabletop amphibious approach LC-1 LC-2 --at 30,12 --scatter
      tabletop amphibious land LC-1 LC-2
      tabletop amphibious wade US-3 --by US-HQ
      tabletop amphibious naval-fire DD-1 --at 30,30 --observer US-FO
    """


def _finish(out: Any, as_json: bool) -> dict[str, Any] | None:
    r = executed(out, as_json)
    if r is None:
        return None
    click.echo(headline(r["verdict"]))
    return r


@cli.command("approach")
@odds_option
@click.argument("craft", type=STAND, nargs=-1)
@click.option("--at", "at", type=POINT, required=True, help="The beach point to land at X,Y.")
@click.option("--wave", type=click.IntRange(1, 100), default=None, help="Wave number.")
@click.option("--scatter", is_flag=True, help="Roll for each company's scatter (CD 8.1.3).")
@click.option(
    "--year", type=click.IntRange(1936, 1946), default=None, help="Set crews by year (8.2.3)."
)
@click.option(
    "--major/--minor",
    "major",
    default=None,
    help="Whether the side made a large amphibious effort (default: by its name).",
)
@dice_option
@game_option
@json_option
@command
def approach(
    craft: tuple[str, ...],
    at: tuple[float, float],
    wave: int | None,
    scatter: bool,
    year: int | None,
    major: bool | None,
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """Bring CRAFT (or --wave N) to the approach position (CD 8.1).

    The approach position is 6" off the beach.

    The craft are laid side by side along the shore, centred on the beach point
    nearest --at. With --scatter each company rolls: 5 or less lands 2 x D10 inches
    to the left (even) or right (odd). Lift points, when tracked, must cover what the
    wave carries (CD 8.3). With --scatter --odds: each company's exact scatter.

    \b
    Example:
      tabletop amphibious approach LC-1 LC-2 --at 30,12 --scatter
      tabletop amphibious approach --wave 2 --at 40,12 --year 1944
    """
    inputs = {"craft": list(craft), "at": list(at), "wave": wave, "scatter": scatter,
              "year": year, "major": major}  # fmt: skip
    if scatter and odds_asked(dice):
        from tabletop.rules.cd.amphibious.odds import scatter_odds

        show_parts(scatter_odds(open_game(game).context(), inputs), as_json)
        return
    out = open_game(game).execute("amphibious-approach", inputs, **dice_inputs(dice))
    r = _finish(out, as_json)
    if r is None:
        return
    for company, s in r["scatter"].items():
        way = f'{s["direction"]} {abs(s["inches"]):g}"' if s["scattered"] else "on target"
        click.echo(f"  {company}: scatter rolls {', '.join(map(str, s['rolls']))}: {way}")
    for c in r["craft"]:
        click.echo(
            f"  {c['craft']} ({c['type']}, {c['crew']} crew) at {c['approach'][0]:.1f},"
            f"{c['approach'][1]:.1f}, heading for {c['beach'][0]:.1f},{c['beach'][1]:.1f}"
            + (f", carrying {', '.join(c['cargo'])}" if c["cargo"] else "")
        )
    if r["lift"]:
        q = r["lift"]
        click.echo(
            f"  lift: wave {q['wave']} takes {q['needed']} of the {count(q['capacity'], 'point')} "
            f"{q['pool']} waves can carry now; room for {q['left']} more in this wave (CD 8.3)"
        )


@cli.command("land")
@odds_option
@click.argument("craft", type=STAND, nargs=-1, required=True)
@dice_option
@game_option
@json_option
@command
def land(craft: tuple[str, ...], dice: Any, game: str, as_json: bool) -> None:
    """Run CRAFT in to the beach (CD 8.1.1, 8.1.2).

    From the approach position.

    Landing craft that meet a submerged minefield or obstacle take a hit; those that
    beach put their stands ashore ahead of the bow. Amphibious vehicles drive onto the
    beach, meeting mines and obstacles as on land. With --odds: each craft's exact
    outcome.

    \b
    Example:
      tabletop amphibious land LC-1 LC-2 LVT-1
    """
    if odds_asked(dice):
        from tabletop.rules.cd.amphibious.odds import land_odds

        show_parts(land_odds(open_game(game).context(), {"craft": list(craft)}), as_json)
        return
    out = open_game(game).execute("amphibious-land", {"craft": list(craft)}, **dice_inputs(dice))
    r = _finish(out, as_json)
    if r is None:
        return
    for c in r["craft"]:
        hazards = "; ".join(f"{h['what']}: {h.get('effect', '')} {h['result']}".strip()
                            for h in c["hazards"])  # fmt: skip
        ashore = (
            f", {', '.join(c['disembarked'])} ashore on a hasty advance order (CD 8.1.1)"
            if c.get("disembarked")
            else ""
        )
        click.echo(f"  {c['craft']}: {c['stage']}{ashore}" + (f" ({hazards})" if hazards else ""))


@cli.command("unload")
@odds_option
@click.argument("craft", type=STAND)
@game_option
@json_option
@command
def unload(craft: str, game: str, as_json: bool) -> None:
    """Unload CRAFT's passengers on the beach (CD 8.1.2).

    CRAFT is an amphibious vehicle.

    \b
    Example:
      tabletop amphibious unload LVT-1
    """
    _finish(open_game(game).execute("amphibious-unload", {"craft": craft}), as_json)


@cli.command("wade")
@odds_option
@click.argument("stands", type=STAND, nargs=-1, required=True)
@click.option("--by", "by", type=STAND, default=None, help="A command stand ashore (hasty).")
@game_option
@json_option
@command
def wade(stands: tuple[str, ...], by: str | None, game: str, as_json: bool) -> None:
    """Wading STANDS move toward the beach (CD 8.1.4).

    3" when cautious, more if so ordered.

    Only a command stand ashore, within orders reach, may give wading troops a hasty
    advance order. Minefields on the way attack as usual.

    \b
    Example:
      tabletop amphibious wade US-3 US-4
      tabletop amphibious wade US-3 --by US-HQ
    """
    out = open_game(game).execute("amphibious-wade", {"stands": list(stands), "by": by})
    r = _finish(out, as_json)
    if r is None:
        return
    for s in r["stands"]:
        where = "ashore" if s["ashore"] else "still wading"
        if s.get("blocked_by"):
            where += f", stopped short of {s['blocked_by']}'s base"
        click.echo(f"  {s['stand']}: {s['moved']:.1f}\" to {s['at'][0]:.1f},{s['at'][1]:.1f}, "
                   f"{where}")  # fmt: skip


@cli.command("hit")
@odds_option
@click.argument("stand", type=STAND)
@click.option("--effect", type=click.Choice(EFFECTS), default=None, help="Default: roll it.")
@click.option(
    "--cause",
    type=click.Choice(["fire", "aircraft", "mine", "obstacle"]),
    default="fire",
    help="What hit it (for the log).",
)
@click.option("--moving", is_flag=True, help="Hit while running in to the beach.")
@dice_option
@game_option
@json_option
@command
def hit(
    stand: str,
    effect: str | None,
    cause: str,
    moving: bool,
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """A hit on STAND, a landing craft or amphibious vehicle (CD 8.2).

    And what the hit means now.

    Forced back while approaching: off the table until next turn; while running in:
    back to the approach position; after landing its troops: removed. Eliminated:
    vehicles aboard are lost, personnel take a hit and may have to wade.

    \b
    Example:
      tabletop amphibious hit LC-1 --cause aircraft
      tabletop amphibious hit LC-2 --effect eliminated --moving
    """
    inputs = {"stand": stand, "effect": effect, "cause": cause, "moving": moving}
    r = _finish(open_game(game).execute("amphibious-hit", inputs, **dice_inputs(dice)), as_json)
    if r is not None:
        for cid, fate in (r.get("cargo") or {}).items():
            click.echo(f"  {cid}: {fate}")


@cli.command("into-water")
@odds_option
@click.argument("stand", type=STAND)
@click.option("--at", "at", type=POINT, required=True, help="Where it ends in the water.")
@game_option
@json_option
@command
def into_water(stand: str, at: tuple[float, float], game: str, as_json: bool) -> None:
    """STAND is forced back into the water (CD 8.2.4).

    Personnel wade ashore again; a vehicle that cannot swim is eliminated.

    \b
    Example:
      tabletop amphibious into-water US-3 --at 30,10
    """
    inputs = {"stand": stand, "at": list(at)}
    _finish(open_game(game).execute("amphibious-into-water", inputs), as_json)


@cli.command("lift")
@odds_option
@click.option("--side", required=True, help="The landing side.")
@click.option("--odd", type=click.IntRange(0, 10_000), default=None, help="Odd-wave points.")
@click.option("--even", type=click.IntRange(0, 10_000), default=None, help="Even-wave points.")
@game_option
@json_option
@command
def lift(side: str, odd: int | None, even: int | None, game: str, as_json: bool) -> None:
    """Set or show a side's lift points (CD 8.3).

    Amphibious lift points, for odd and even waves.

    A personnel stand takes one point, a vehicle or towed gun its weight class. Points
    lost with craft sunk on the way in are lost to later waves of the same parity.

    \b
    Example:
      tabletop amphibious lift --side USA --odd 20 --even 18
      tabletop amphibious lift --side USA
    """
    g = open_game(game)
    if odd is None and even is None:
        from tabletop.core.sides import resolve_side
        from tabletop.rules.cd.amphibious.lift import describe_lift, lift_status

        side = resolve_side(side, g.loaded.scenario.side_names())
        r = lift_status(g.context().state, side)
        if as_json:
            emit_json(r)
        elif not r["tracked"]:
            click.echo(f"{side}: lift points are not tracked")
        else:
            click.echo(f"{side} lift points (CD 8.3):")
            for line in describe_lift(r):
                click.echo(f"  {line}")
        return
    if odd is None or even is None:
        from tabletop.core.errors import BadInput

        raise BadInput("give both --odd and --even to set the lift points")
    inputs = {"side": side, "odd": odd, "even": even}
    _finish(g.execute("amphibious-lift", inputs), as_json)


@cli.command("bombard")
@odds_option
@click.option("--side", required=True, help="The side whose ships bombard.")
@click.option(
    "--area", "area", type=POINT, multiple=True, required=True,
    help="Two opposite corners, or three or more corners of the target area (repeatable).",
)  # fmt: skip
@click.option(
    "--per-stand", "per_stand", type=click.IntRange(1, 10), default=None, help="D10 per stand."
)
@click.option("--year", type=click.IntRange(1936, 1946), default=None, help="Dice by year.")
@dice_option
@game_option
@json_option
@command
def bombard(
    side: str,
    area: tuple[tuple[float, float], ...],
    per_stand: int | None,
    year: int | None,
    dice: Any,
    game: str,
    as_json: bool,
) -> None:
    """The preliminary bombardment (CD 8.4.1).

    One to three D10 at each enemy stand in the area.

    Once, before the first turn is played. Each die is an HE attack with the usual
    cover and armour modifiers.

    \b
    Example:
      tabletop amphibious bombard --side USA --area 0,20 --area 60,40
    """
    if len(area) < 2:
        from tabletop.core.errors import BadInput

        raise BadInput("--area: give two opposite corners, or three or more corners")
    inputs = {"side": side, "area": [list(p) for p in area], "dice_per_stand": per_stand,
              "year": year}  # fmt: skip
    if odds_asked(dice):
        from tabletop.rules.cd.amphibious.odds import bombard_odds

        show_parts(bombard_odds(open_game(game).context(), inputs), as_json)
        return
    r = _finish(open_game(game).execute("amphibious-bombard", inputs, **dice_inputs(dice)),
                as_json)  # fmt: skip
    if r is not None:
        for sid, s in r["stands"].items():
            effects = ", ".join(f"{e} ({r})" for e, r in zip(s["effects"], s["effect_rolls"],
                                                              strict=True))  # fmt: skip
            click.echo(f"  {sid}: needs {s['to_hit']}, rolled {', '.join(map(str, s['rolls']))}"
                       f": {effects or 'no hits'}")  # fmt: skip


@cli.command("naval-fire")
@odds_option
@click.argument("ship", type=STAND)
@click.option("--at", "at", type=POINT, required=True, help="Aiming point X,Y.")
@click.option("--observer", type=STAND, required=True, help="Who calls it (or the ship).")
@dice_option
@game_option
@json_option
@command
def naval_fire(
    ship: str, at: tuple[float, float], observer: str, dice: Any, game: str, as_json: bool
) -> None:
    """Naval fire support from SHIP (CD 8.4.2, 8.4.3).

    A request, then indirect HE.

    A ship's naval FO calls it as a dedicated battery; JASCO stands call any ship as
    an artillery command stand; other command stands request as non-artillery stands.
    Destroyers and smaller may observe themselves targets seen from the beach.

    \b
    Example:
      tabletop amphibious naval-fire DD-1 --at 30,30 --observer US-FO
      tabletop amphibious naval-fire DD-1 --at 30,30 --observer DD-1
    """
    inputs = {"ship": ship, "at": list(at), "observer": observer}
    if odds_asked(dice):
        from tabletop.rules.cd.amphibious.odds import naval_fire_odds

        show_parts(naval_fire_odds(open_game(game).context(), inputs), as_json)
        return
    r = _finish(open_game(game).execute("amphibious-naval-fire", inputs, **dice_inputs(dice)),
                as_json)  # fmt: skip
    if r is None:
        return
    q = r["request"]
    if q["roll"] is not None:
        click.echo(f"  request by {q['observer']} ({q['as']}): needs {q['number']}, rolled "
                   f"{q['roll']}")  # fmt: skip
    if r["barrage"]:
        for sid, rolls in r["barrage"]["rolls"].items():
            click.echo(f"  {sid}: rolled {', '.join(map(str, rolls))}: "
                       f"{r['barrage']['effects'][sid]}")  # fmt: skip


@cli.command("ships")
@game_option
@json_option
@command
def ships(game: str, as_json: bool) -> None:
    """The warship ratings for naval fire support (CD 8.4.2).

    \b
    Example:
      tabletop amphibious ships
    """
    from tabletop.cli.core import load_charts
    from tabletop.rules.cd.amphibious.naval import ships as ratings

    # The ratings need no game: without one, the bundled charts answer.
    rows = ratings(open_game(game).loaded.charts if os.path.exists(game) else load_charts())
    if as_json:
        emit_json({"ships": rows})
        return
    for s in rows:
        own = ", observes itself" if s["self_observe"] else ""
        click.echo(f'{s["ship"]}: ROF {s["rof"]}, {s["burst"]:g}"({s["he"]})H{own}')


@cli.command("speed")
@click.argument("stand", type=STAND)
@click.option("--in", "water", default=None, help="sea, river or lake (default: where it is).")
@game_option
@json_option
@command
def speed(stand: str, water: str | None, game: str, as_json: bool) -> None:
    """How far STAND, an amphibious vehicle, moves in water (CD 8.1.2).

    \b
    Example:
      tabletop amphibious speed DUKW-1 --in sea
    """
    from tabletop.rules.cd.amphibious.landing import water_speed

    ctx = open_game(game).context()
    r = water_speed(ctx, ctx.state.stand(stand), water)
    if as_json:
        emit_json(r)
        return
    click.echo(f"{r['stand']}: x{r['multiplier']:g} ({r['because']})")
