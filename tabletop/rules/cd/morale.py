"""Morale tests: which fall due, with the modifiers in force, and the results recorded.

The CD core morale rules are not in the seeds; the levels and results are our defaults in
the morale chart. The seeds give the night rules: every morale level two lower (CD 9.1.3), a
pinned stand that never recovers by itself and tests in every morale phase (CD 9.1.4), and
orders that reach 3" with no rally orders (CD 9.1.5).

Tests fall due from two places: entries other rules leave on a stand (``morale_due``: a
list of ``{"rule", "why", "turn"}``), and, at night, every pinned stand not yet tested in
this turn's morale phase. The referee rolls and records each result.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.units import within
from tabletop.data.chart_params import MoraleParams, WeatherParams
from tabletop.rules.cd.ammo import supply_distance
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.rules.sequence import Happened, step
from tabletop.state.document import StandRow, out_of_play

NIGHT_PIN_RULE = "CD 9.1.4"


@frozen_dataclass
class MoraleModifier:
    name: str
    value: int
    rule: str


@frozen_dataclass
class DueTest:
    stand: str
    number: int  # 1-based among the stand's due tests
    rule: str
    why: str
    turn: int
    night_pin: bool
    level: int
    modifiers: tuple[MoraleModifier, ...]
    needs: int  # pass on the morale die at or under this

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["modifiers"] = [asdict(m) for m in self.modifiers]
        return out

    def text(self) -> str:
        mods = ", ".join(f"{m.name} {m.value:+d} ({m.rule})" for m in self.modifiers)
        return (
            f"{self.why} ({self.rule}); passes on {self.needs} or less "
            f"(level {self.level}{'; ' + mods if mods else ''})"
        )


def is_night(ctx: RulesContext) -> bool:
    return effects(ctx.state.conditions, ctx.charts).night


def results(ctx: RulesContext) -> tuple[str, ...]:
    return tuple(ctx.charts.params(MoraleParams).results.split(","))


def morale_level(ctx: RulesContext, stand: StandRow) -> int:
    """The stand's morale level by its quality (morale chart, our default)."""
    quality = stand.get("quality") or "none"
    table = ctx.charts.table("morale")
    key = f"level-{quality}" if f"level-{quality}" in table else "level-none"
    return int(table[key].value)


def modifiers_in_force(ctx: RulesContext) -> tuple[MoraleModifier, ...]:
    """CD 9.1.3: every morale level is two lower in a night turn."""
    if not is_night(ctx):
        return ()
    value = ctx.charts.params(WeatherParams).night_morale
    return (MoraleModifier("night", value, "CD 9.1.3"),)


def orders_in_force(ctx: RulesContext) -> dict[str, Any]:
    """The orders radius and whether rally orders may be given now (CD 9.1.5)."""
    night = is_night(ctx)
    params = ctx.charts.params(WeatherParams)
    radius = params.orders_radius_night if night else params.orders_radius_day
    return {"radius": radius, "rally": not night, "rule": "CD 9.1.5"}


def _tests_of(ctx: RulesContext, stand: StandRow) -> list[tuple[str, str, int, bool]]:
    """(rule, why, turn, night pin) for each test due on one stand, in order."""
    out = [
        (
            str(d.get("rule", "CD core")),
            str(d.get("why", "morale test")),
            int(d.get("turn", 0)),
            False,
        )
        for d in stand.get("morale_due") or []
    ]
    pinned_at_night = (
        "pinned" in stand["markers"]
        and ctx.charts.params(MoraleParams).night_pins_test
        and is_night(ctx)
        and stand.get("morale_pin_tested") != ctx.state.turn
    )
    if pinned_at_night and not any(rule == NIGHT_PIN_RULE for rule, *_ in out):
        out.append((NIGHT_PIN_RULE, "pinned at night: no recovery by itself", ctx.state.turn, True))
    return out


def due_tests(ctx: RulesContext, stand_id: str | None = None) -> list[DueTest]:
    """Every morale test due now (for one stand, or all), with the modifiers in force."""
    mods = modifiers_in_force(ctx)
    shift = sum(m.value for m in mods)
    out: list[DueTest] = []
    for stand in ctx.state.stands():
        if out_of_play(stand) or (stand_id is not None and stand["id"] != stand_id):
            continue
        level = morale_level(ctx, stand)
        for n, (rule, why, turn, night_pin) in enumerate(_tests_of(ctx, stand), start=1):
            out.append(
                DueTest(stand["id"], n, rule, why, turn, night_pin, level, mods, level + shift)
            )
    return out


def _says_due(ctx: RulesContext) -> str | None:
    n = len(due_tests(ctx))
    if not n:
        return "no morale tests due (CD 9.1.3, 9.1.4)"
    return f"{n} morale test{'s' if n != 1 else ''} due (CD 9.1.3, 9.1.4)"


@step("morale-due", says=_says_due)
def list_due(ctx: RulesContext) -> list[Happened]:
    """The morale phase opens with every test due, and at night the orders limits."""
    out: list[Happened] = [
        {
            "what": "morale test due",
            "stand": t.stand,
            "rule": t.rule,
            "result": t.text(),
        }
        for t in due_tests(ctx)
    ]
    orders = orders_in_force(ctx)
    if not orders["rally"]:
        out.append(
            {
                "what": "night orders",
                "result": f'orders reach {orders["radius"]:g}"; no rally orders (CD 9.1.5)',
            }
        )
    return out


@step("morale-unrecorded")
def unrecorded(ctx: RulesContext) -> list[Happened]:
    """Tests left unrecorded as the morale phase ends are named, not dropped silently."""
    return [
        {
            "what": "morale test not recorded",
            "stand": t.stand,
            "rule": t.rule,
            "result": f"{t.why} ({t.rule}): no result recorded this morale phase",
        }
        for t in due_tests(ctx)
    ]


def _check_rally(ctx: RulesContext, stand: StandRow, by: str | None) -> str:
    """A rally order: by day from a command stand of its side within orders reach; never
    at night (CD 9.1.5)."""
    orders = orders_in_force(ctx)
    if not orders["rally"]:
        raise RulesRefusal(
            f"{stand['id']} cannot be rallied: no rally orders may be given in a night turn "
            "(CD 9.1.5); a pinned stand tests morale instead (CD 9.1.4)"
        )
    if by is None:
        raise BadInput("--result rallied needs --rally-by COMMAND_STAND (who gave the order)")
    chief = ctx.state.stand(by)
    ctx.involve(chief["id"])
    if not ctx.charts.stand_kinds[chief["kind"]].command:
        raise RulesRefusal(f"{chief['id']} is not a command stand: it cannot give orders")
    if chief["side"] != stand["side"] or out_of_play(chief):
        raise RulesRefusal(f"{chief['id']} cannot order {stand['id']}")
    if chief["x"] is not None and stand["x"] is not None:
        gap = supply_distance(ctx, chief, stand)
        if gap is not None and not within(gap, orders["radius"]):
            raise RulesRefusal(
                f'{stand["id"]} is {gap:.1f}" from {chief["id"]}: orders reach '
                f'{orders["radius"]:g}" (CD 9.1.5)'
            )
    return str(chief["id"])


def morale_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """Record the result of a morale test the referee rolled."""
    state = ctx.state
    stand = state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    result = str(inputs["result"])
    allowed = results(ctx)
    if result not in allowed:
        raise BadInput(f"--result {result!r}: accepted: {', '.join(allowed)}")
    phase = ctx.charts.phase(state.phase)
    if "morale" not in phase.allows:
        where = [p.id for p in ctx.charts.phases if "morale" in p.allows]
        raise RulesRefusal(
            f"morale tests are taken in the {' or '.join(where)} phase, not the {phase.id} "
            "phase (turn chart); advance with 'tabletop phase next'"
        )
    if out_of_play(stand):
        raise RulesRefusal(f"{stand['id']} is out of play: no morale test")
    rally_by = _check_rally(ctx, stand, inputs.get("rally_by")) if result == "rallied" else None
    due = due_tests(ctx, stand["id"])
    number = inputs.get("test")
    why = inputs.get("why")
    if why:
        test = None
    elif not due:
        raise RulesRefusal(
            f"no morale test is due for {stand['id']} now; give --why to record one the "
            "rules call for"
        )
    else:
        if number is not None and not 1 <= int(number) <= len(due):
            raise BadInput(f"--test {number}: {stand['id']} has tests 1 to {len(due)} due")
        test = due[int(number) - 1] if number is not None else due[0]
    markers = stand["markers"]
    changed: list[str] = []
    if result in ("pass", "rallied"):
        recovers = result == "rallied" or (test is not None and test.night_pin)
        if recovers and "pinned" in markers:
            markers.remove("pinned")
            changed.append("pinned removed")
    elif result in markers:
        pass
    else:
        markers.append(result)
        changed.append(f"{result} added")
    if test is not None:
        if test.night_pin:
            stand["morale_pin_tested"] = state.turn
        else:
            # The stand's recorded tests come first in its list, in their stored order.
            stored = stand.get("morale_due") or []
            stored.pop(test.number - 1)
            if not stored:
                stand.pop("morale_due", None)
    rule = test.rule if test is not None else "referee"
    reason = test.why if test is not None else str(why)
    return {
        "verdict": f"{stand['id']} morale test ({reason}, {rule}): {result}"
        + (f", rallied by {rally_by} (CD 9.1.5)" if rally_by else ""),
        "stand": stand["id"],
        "result": result,
        "test": test.as_dict() if test is not None else {"rule": rule, "why": reason},
        "rally_by": rally_by,
        "markers": list(markers),
        "changed": changed,
        "still_due": [t.as_dict() for t in due_tests(ctx, stand["id"])],
    }
