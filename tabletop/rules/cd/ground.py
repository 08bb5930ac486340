"""Movement costs under terrain, ground and weather; miring and unmiring (CD 10, 11).

How the multipliers combine: each is a factor on the inches a stand pays per inch moved.
The terrain's own cost (terrain chart, by how the stand moves) is multiplied by the ground
condition's (mud, snow, ice: "in addition to any other movement costs", CD 11.1.1), and by
the weather's: a base allowance halved or quartered (CD 10.2.2, 10.3.2) costs the same as
paying double or quadruple. Roads exempt a stand from the ground condition where the rules
say (hard roads in mud, plowed roads in snow); ski-mobile stands ignore snow (and ski
vehicles ice).
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import mutable_dataclass
from tabletop.data.chart_params import WeatherParams
from tabletop.data.charts import Charts, StandKind, weight_number
from tabletop.rules.cd.terrain_columns import TERRAIN_COLUMN
from tabletop.rules.cd.weather import effects
from tabletop.state.document import StandRow

if TYPE_CHECKING:
    from tabletop.rules.context import RulesContext

ROADS = ("hard", "dirt", "paved", "plowed", "unplowed")


@mutable_dataclass
class Cost:
    multiplier: float | None
    because: list[str] = field(default_factory=list)

    def times(self, factor: float, why: str) -> None:
        if self.multiplier is not None and factor != 1:
            self.multiplier *= factor
        self.because.append(why)


def is_vehicle(kind: StandKind) -> bool:
    return kind.category == "vehicle"


def move_cost(
    kind: StandKind,
    terrain_id: str,
    conditions: dict[str, Any],
    charts: Charts,
    *,
    road: str | None = None,
    ski: bool = False,
    near_flood: bool = False,
    surface: str | None = None,
) -> Cost:
    """What an inch of ``terrain_id`` costs ``kind`` now.

    ``road``: the stand moves along a road of that kind (road movement: the terrain's own
    cost is not paid). ``surface``: the made surface under it where that differs, for the
    ground condition alone: a hard road's obstacle strip is priced as the obstacle, yet it
    is still a hard surface that mud does not reach (CD 11.1, 4.3); so is a bridge's deck.
    """
    if road is not None and road not in ROADS:
        raise BadInput(f"--road {road!r}: accepted: {', '.join(ROADS)}")
    if kind.mobility == "static":
        return Cost(None, [f"a {kind.id} does not move"])
    if kind.mobility == "boat":
        return Cost(None, [f"a {kind.id} moves only on water ({kind.rule})"])
    column = TERRAIN_COLUMN[kind.mobility]
    terrain = charts.terrain[terrain_id]
    # A road asked about as a terrain kind ('move-cost --terrain road-hard') is its own
    # made surface: mud does not reach a hard road however the stand comes onto it (CD 11.1).
    surface = surface or terrain.road
    cost = Cost(1.0)
    if road is None:
        own = getattr(terrain.move, column) if terrain.move is not None else 1.0
        if own is None:
            return Cost(None, [f"{terrain_id} is impassable to {column} stands ({terrain.rule})"])
        cost.times(own, f"{terrain_id}: x{own:g} for {column} stands ({terrain.rule})")
    else:
        cost.because.append(f"on a {road} road: road movement")
    ground_id, why = ground_here(conditions["ground"], near_flood, charts)
    if why:
        cost.because.append(why)
    _ground(cost, kind, ground_id, charts, road or surface, ski)
    now = effects(conditions, charts)
    allowance = now.vehicle_move if is_vehicle(kind) else now.personnel_move
    if allowance != 1:
        cost.times(
            1 / allowance,
            f"weather: base allowance x{allowance:g}, so costs "
            f"x{1 / allowance:g} ({'; '.join(now.because[1:]) or 'CD 10'})",
        )
    return cost


def ground_here(ground_id: str, near_flood: bool, charts: Charts) -> tuple[str, str | None]:
    """The ground condition that counts at a spot, and why it differs from ``ground_id``.

    Within the charted margin of impassable flooding the ground is deep mud, unless it is
    worse already (CD 10.3.4): it costs as deep mud and mires as deep mud (CD 11.1.4).
    """
    if near_flood and ground_id in ("dry", "mud-light", "mud-moderate"):
        margin = charts.params(WeatherParams).flooded_mud_margin
        return "mud-deep", f'within {margin:g}" of impassable flooding: deep mud (CD 10.3.4)'
    return ground_id, None


def _ground(
    cost: Cost, kind: StandKind, ground_id: str, charts: Charts, road: str | None, ski: bool
) -> None:
    ground = charts.table("ground")[ground_id]
    vehicle = is_vehicle(kind)
    factor = ground.vehicle if vehicle else ground.personnel
    if factor == 1:
        return
    if road is not None and road in ground.road_exempt:
        cost.because.append(f"{ground_id}: no effect on a {road} road ({ground.rule})")
        return
    if ski and ground.ski:
        cost.because.append(f"{ground_id}: ski-mobile stand pays normal costs ({ground.rule})")
        return
    if vehicle and road in ("unplowed", "hard", "dirt", "paved") and ground.unplowed_road:
        cost.times(
            ground.unplowed_road,
            f"{ground_id}: x{ground.unplowed_road:g} on an unplowed road ({ground.rule})",
        )
        return
    who = "vehicles" if vehicle else "personnel"
    cost.times(factor, f"{ground_id}: x{factor:g} for {who} ({ground.rule})")


# --- miring ---------------------------------------------------------------------------------


def refuse_if_mired(stand: StandRow) -> None:
    """A mired vehicle may not move or change facing until it is unmired (CD 11.1.4)."""
    if "mired" in stand["markers"]:
        raise RulesRefusal(
            f"{stand['id']} is mired: it may not move or change facing until unmired "
            f"(CD 11.1.4); free it with 'tabletop unmire {stand['id']}'"
        )


def holds_still(ctx: RulesContext, stand: StandRow) -> None:
    """Refuse moving a stand that stays put for a task this movement phase: an engineer
    that lays a minefield lays it beside itself, stationary, as the phase ends (CD 3.1.2);
    one that rechecks a bridge's charges ends the phase on the bridge (CD 2.4.1). Every
    command that moves a stand asks this."""
    stays = stand.get("stays")
    if stays and (stays.get("turn"), stays.get("phase")) == (ctx.state.turn, ctx.state.phase):
        raise RulesRefusal(
            f"{stand['id']} {stays['why']} this movement phase and stays where it is until the "
            f"phase ends ({stays['rule']}); undo that first to move it"
        )


def stay_put(ctx: RulesContext, stand: StandRow, why: str, rule: str) -> None:
    """Mark ``stand`` as staying put for the rest of this movement phase (``holds_still``)."""
    stand["stays"] = {"turn": ctx.state.turn, "phase": ctx.state.phase, "why": why, "rule": rule}


def mire_number(kind: StandKind, where: str, ground_id: str, charts: Charts) -> tuple[int, str]:
    """The miring number (0 = no chance) and why (CD 11.1.4)."""
    if not is_vehicle(kind):
        raise RulesRefusal(f"only vehicles mire; {kind.id} stands do not (CD 11.1.4)")
    if kind.recovery:
        return 0, "recovery vehicles never mire (CD 11.1.4)"
    level = charts.table("ground")[ground_id].mires
    if level is None:
        return 0, f"no miring in {ground_id} (CD 11.1.4: moderate and deep mud only)"
    if where == "hard-road":
        return 0, "hard roads are safe from miring (CD 11.1)"
    wheeled = kind.mobility in ("wheeled", "halftrack")
    if where == "dirt-road" and kind.mobility == "halftrack":
        return 0, "halftracks never mire on dirt roads (CD 11.1.4)"
    row_id = (
        f"{'wheeled' if wheeled else 'tracked'}-{'dirt-road' if where == 'dirt-road' else 'open'}"
    )
    row = charts.table("miring").get(row_id)
    number = getattr(row, level) if row is not None else None
    if row is None or not number:
        return 0, f"no miring chance for {row_id.replace('-', ' ')} in {level} mud (CD 11.1.4)"
    why = f"{row_id.replace('-', ' ')} in {level} mud: mires on {number} or less ({row.rule})"
    return int(number), why


def roll_mire(number: int, dice: DiceLike, label: str) -> bool:
    return number > 0 and dice.roll(10, f"miring {label}: mired on {number} or less") <= number


def roll_unmire(number: int, dice: DiceLike, label: str) -> bool:
    """Self-unmiring: the roll must beat twice the miring number (CD 11.1.5)."""
    need = 2 * number
    return dice.roll(10, f"unmiring {label}: free on more than {need}") > need


def can_assist(helper: StandKind, helper_class: str | None, mired_class: str | None) -> bool:
    return is_vehicle(helper) and weight_number(helper_class) >= weight_number(mired_class)
