"""Command Decision procedures at phase and turn boundaries (registered with the sequence)."""

from __future__ import annotations

from tabletop.core.words import count
from tabletop.data.chart_params import AmmoParams, BarrageParams
from tabletop.rules.cd import ammo, engineering, minefields, tasks  # noqa: F401  (completions)
from tabletop.rules.cd.minefields import resolve_attacks
from tabletop.rules.cd.sighting import distance_between, end_for_stand
from tabletop.rules.cd.smokegen import each_turn
from tabletop.rules.cd.structures import fires_out
from tabletop.rules.context import RulesContext
from tabletop.rules.sequence import Happened, step
from tabletop.state.document import StandRow, out_of_play


def _says_depletion(ctx: RulesContext) -> str | None:
    if not ctx.charts.phase(ctx.state.phase).depletion_rolls:
        return None
    n = len(ctx.state.rows.get("pending", {}).get("depletion", []))
    if not n:
        return "no depletion dice pending (CD 1.2)"
    return f"{n} depletion {'die' if n == 1 else 'dice'} to roll (CD 1.2)"


def _says_limited(ctx: RulesContext) -> str | None:
    firing = sum(
        1
        for s in ctx.state.stands()
        for a in s["ammo"].values()
        for k in ("limited", "smoke", "illum")
        if a.get(k) == "firing"
    )
    return f"limited rounds fired this phase are spent ({firing}) (CD 1.3)" if firing else None


def _says_resupply(ctx: RulesContext) -> str | None:
    wanting = [
        s["id"]
        for s in ctx.state.stands()
        if not out_of_play(s) and ammo.needs_resupply(s, ctx.charts)
    ]
    radius = ctx.charts.params(AmmoParams).resupply_radius
    if not wanting:
        return "resupply: no stand has depleted ammunition (CD 1.4)"
    return (
        f'resupply of {", ".join(wanting)} if within {radius:g}" of a supply point of '
        "their own formations, not in the turn they depleted (CD 1.4)"
    )


def _says_clear(ctx: RulesContext) -> str | None:
    if ctx.state.templates() or any("suppressed" in s["markers"] for s in ctx.state.stands()):
        return "last turn's templates, smoke and suppression are removed (CD core, reference card)"
    return None


def _says_smoke(ctx: RulesContext) -> str | None:
    if any(k.startswith("screen:") for k in ctx.state.rows):
        return "smoke screens grow downwind or thin from the upwind end (CD 5.3)"
    return None


def _says_tasks(ctx: RulesContext) -> str | None:
    active = [t for t in tasks.tasks(ctx.state) if t["status"] == "active"]
    if not active:
        return None
    verbs = "works a turn or completes" if len(active) == 1 else "work a turn or complete"
    return f"{count(len(active), 'engineering task')} {verbs} (CD 2-5, 9.1.7)"


@step("depletion-dice", says=_says_depletion)
def depletion_dice(ctx: RulesContext) -> list[Happened]:
    """CD 1.2: depletion dice are rolled at the end of the fire phase, after all else."""
    if not ctx.charts.phase(ctx.state.phase).depletion_rolls:
        return []
    return ammo.roll_pending_depletion(ctx.state, ctx.dice, ctx.charts)


@step("limited-rounds", says=_says_limited)
def limited_rounds(ctx: RulesContext) -> list[Happened]:
    """CD 1.3: limited-issue rounds are gone after the phase they were fired in."""
    return ammo.spend_limited_rounds(ctx.state)


@step("resupply", says=_says_resupply)
def resupply(ctx: RulesContext) -> list[Happened]:
    """CD 1.4: resupply at the end of the turn within reach of a supply point."""

    state = ctx.state

    def distance(a: StandRow, b: StandRow) -> float | None:
        if a["x"] is None or b["x"] is None:
            return None
        return distance_between(
            end_for_stand(state, a["id"]), end_for_stand(state, b["id"]), ctx.scenario.measure
        )

    return ammo.resupply_end_of_turn(state, ctx.scenario, ctx.charts, distance)


@step("clear-turn-markers")
def clear_turn_markers(ctx: RulesContext) -> list[Happened]:
    """Forced-back markers mark last turn's results; they go as a new turn starts, except
    where the stand has not yet fallen back ('move STAND --fall-back'): that stays due."""
    out = []
    for stand in ctx.state.stands():
        if "forced-back" in stand["markers"] and stand.get("forced_back") is not None:
            out.append(
                {
                    "what": "marker",
                    "stand": stand["id"],
                    "result": f"forced-back kept: {stand['id']} has still to fall back",
                }
            )
            continue
        if "forced-back" in stand["markers"]:
            stand["markers"].remove("forced-back")
            out.append({"what": "marker", "stand": stand["id"], "result": "forced-back cleared"})
    return out


@step("clear-last-turn", says=_says_clear)
def clear_last_turn(ctx: RulesContext) -> list[Happened]:
    """SPEC 2: the artillery phase first removes last turn's templates and suppression."""
    state = ctx.state
    lifetime = ctx.charts.params(BarrageParams).template_lifetime_turns
    out: list[Happened] = []
    for template in state.templates():
        if template.get("lifetime") == "turn" and state.turn - int(template["turn"]) >= lifetime:
            state.remove_template(template["id"])
            out.append(
                {"what": "template", "result": f"{template['id']} ({template['kind']}) removed"}
            )
    for stand in state.stands():
        if "suppressed" in stand["markers"]:
            stand["markers"].remove("suppressed")
            if out_of_play(stand):
                continue  # a stand eliminated since is not 'suppression removed'
            out.append(
                {"what": "suppression", "stand": stand["id"], "result": "suppression removed"}
            )
    return out


@step("engineering-tasks", says=_says_tasks)
def engineering_tasks(ctx: RulesContext) -> list[Happened]:
    """Engineering tasks work a turn, are interrupted, or complete (CD 2, 3.3.1, 4)."""

    return tasks.advance(ctx)


@step("fires-out")
def fires(ctx: RulesContext) -> list[Happened]:
    """Burning buildings may go out (CD 6.2.2)."""

    return fires_out(ctx)


@step("smoke-generators", says=_says_smoke)
def smoke_generators(ctx: RulesContext) -> list[Happened]:
    """Smoke screens grow or thin (CD 5.3)."""

    return each_turn(ctx)


@step("flails-stop")
def flails_stop(ctx: RulesContext) -> list[Happened]:
    """A flail tank may fire again once its clearing turn is over (CD 3.3.2)."""
    for stand in ctx.state.stands():
        if "flailing" in stand["markers"]:
            stand["markers"].remove("flailing")
    return []


@step("mine-attacks")
def mine_attacks(ctx: RulesContext) -> list[Happened]:
    """Real minefields attack the stands that moved into them (CD 3.2)."""

    return resolve_attacks(ctx)
