"""Amphibious lift (CD 8.3): lift points per stand and per wave (CD 8.3.1), using them on the
approach, and the points lost with craft (CD 8.3.2).
"""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import RulesRefusal
from tabletop.core.sides import resolve_side
from tabletop.core.words import count
from tabletop.data.chart_params import AmphibiousParams
from tabletop.data.charts import weight_number
from tabletop.rules.cd.amphibious.common import cargo_of
from tabletop.rules.cd.conditions import weight_class_of
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, State

LIFT = "lift:"


def lift_points(ctx: RulesContext, stand: StandRow) -> int:
    """One for a personnel stand, the weight class for a vehicle or towed gun (CD 8.3.1)."""

    kind = ctx.charts.stand_kinds[stand["kind"]]
    if kind.category == "personnel":
        return ctx.charts.params(AmphibiousParams).lift_personnel
    return max(weight_number(weight_class_of(ctx, stand)), 1)


# --- lift (CD 8.3) -----------------------------------------------------------------------------


def lift_row(state: State, side: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = state.rows.get(LIFT + side)
    return found


def wave_capacity(row: dict[str, Any], wave: int) -> int:
    """What a wave can carry: its parity's points less what earlier waves of that parity
    lost with craft sunk on the way in (CD 8.3.2)."""
    pool = int(row["odd" if wave % 2 else "even"])
    lost = sum(int(n) for w, n in row["lost"].items() if int(w) < wave and int(w) % 2 == wave % 2)
    return max(pool - lost, 0)


def available_lift(row: dict[str, Any], wave: int) -> int:
    """What more the wave can take: its capacity less what it already carries."""
    return wave_capacity(row, wave) - int(row["used"].get(str(wave), 0))


def _use_lift(
    ctx: RulesContext, side: str, wave: int, crafts: list[tuple[StandRow, Any]]
) -> dict[str, Any] | None:
    row = lift_row(ctx.state, side)
    if row is None:
        return None
    need = sum(lift_points(ctx, ctx.state.stand(c)) for craft, _ in crafts
               for c in cargo_of(ctx, craft))  # fmt: skip
    have = available_lift(row, wave)
    if need > have:
        raise RulesRefusal(
            f"wave {wave} needs {count(need, 'lift point')} but {side} has {have} left for "
            f"{'odd' if wave % 2 else 'even'} waves (CD 8.3.1, 8.3.2)"
        )
    row["used"][str(wave)] = int(row["used"].get(str(wave), 0)) + need
    # Lift is not a pool spent wave by wave: each wave's craft come back for the next wave
    # of the same parity. "left" is what more this wave can still take.
    return {"needed": need, "left": have - need, "pool": "odd" if wave % 2 else "even",
            "wave": wave, "capacity": wave_capacity(row, wave)}  # fmt: skip


def lift_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    side = inputs["side"]
    side = resolve_side(side, ctx.scenario.side_names())
    row = lift_row(ctx.state, side) or {"lost": {}, "used": {}}
    row.update(odd=int(inputs["odd"]), even=int(inputs["even"]))
    ctx.state.rows[LIFT + side] = row
    return {"verdict": f"{side}: {row['odd']} lift points for odd waves, {row['even']} for "
            "even waves (CD 8.3.2)", **lift_status(ctx.state, side)}  # fmt: skip


def lift_status(state: State, side: str) -> dict[str, Any]:
    """A side's lift points: the two totals, what was lost and used by wave, and for each
    parity what its next wave (this turn's or later) can carry (CD 8.3.2)."""
    row = lift_row(state, side)
    if row is None:
        return {"side": side, "tracked": False}
    waves = {}
    for parity, rest in (("odd", 1), ("even", 0)):
        wave = max(int(state.turn), 1)
        if wave % 2 != rest:
            wave += 1
        lost = {int(w): int(n) for w, n in row["lost"].items() if int(w) % 2 == rest}
        loading = None
        if int(row["used"].get(str(wave), 0)):
            # This turn's wave of that parity is already loaded: the next one follows it.
            loading = {"wave": wave, "carries": wave_capacity(row, wave),
                       "aboard": int(row["used"][str(wave)]),
                       "more": available_lift(row, wave)}  # fmt: skip
            wave += 2
        waves[parity] = {
            "points": int(row[parity]),
            "lost": sum(lost.values()),
            "lost_by_wave": {str(w): lost[w] for w in sorted(lost)},
            "loading": loading,
            "next_wave": wave,
            "carries": wave_capacity(row, wave),
        }
    return {"side": side, "tracked": True, "odd": row["odd"], "even": row["even"],
            "lost": row["lost"], "used": row["used"], "waves": waves}  # fmt: skip


def describe_lift(status: dict[str, Any]) -> list[str]:
    """Lines for a person: per parity, the points, the losses and the next wave's load."""
    lines = []
    for parity, w in status["waves"].items():
        lost = (
            f"{w['lost']} lost ("
            + ", ".join(f"wave {k}: {n}" for k, n in w["lost_by_wave"].items())
            + ")"
            if w["lost"]
            else "none lost"
        )
        now = w["loading"]
        load = (
            f"wave {now['wave']} carries {now['aboard']} of {now['carries']} "
            f"(room for {now['more']} more); "
            if now
            else ""
        )
        lines.append(
            f"{parity} waves: {w['points']} points, {lost}; {load}wave {w['next_wave']} "
            f"can carry {w['carries']}"
        )
    return lines


def _lose_lift(ctx: RulesContext, craft: StandRow, cargo: list[str]) -> int:
    row = lift_row(ctx.state, craft["side"])
    points = sum(lift_points(ctx, ctx.state.stand(c)) for c in cargo)
    if row is None or not points:
        return points
    wave = str(craft["amphib"]["wave"])
    row["lost"][wave] = int(row["lost"].get(wave, 0)) + points
    return points
