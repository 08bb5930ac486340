"""Lake and river ice (CD 11.3) and searchlights (CD 9.2.2).

Ice bears stands up to its class (0-VI, as bridge weight classes; class 0 only boats and
amphibians). A stand placed on ice too thin for it breaks through: personnel take a hit and go
back to where they came from; vehicles and towed weapons are lost. A snow-covered lake is a
``referee_only`` piece: the referee is told when a stand ends its move on it.
"""

from __future__ import annotations

import math
from typing import Any

from shapely import Point

from tabletop.core.errors import RulesRefusal
from tabletop.data.chart_params import WeatherParams
from tabletop.data.charts import WEIGHT_LEVELS, weight_number
from tabletop.rules.cd.conditions import weight_class_of
from tabletop.rules.cd.structures import automatic_hit
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, in_play, position
from tabletop.table import beam

ICE_ORDER = ("0", *WEIGHT_LEVELS)


WATER = ("river", "stream", "lake")


def ice_class(piece: Any) -> str | None:
    """A frozen water piece's class; a hidden patch (``referee_only`` water with its own
    ``weight_class``) may be a class up or down from the ice around it (CD 11.3)."""
    if piece.ice is not None:
        return str(piece.ice)
    if piece.referee_only and piece.kind in WATER and piece.weight_class is not None:
        return str(piece.weight_class)
    return None


def ice_under(ctx: RulesContext, x: float, y: float) -> list[Any]:
    """The ice under a point: a hidden patch there stands for the ice around it."""
    found = [
        p
        for p in ctx.scenario.terrain
        if ice_class(p) is not None and ctx.table.geometry(p.id).covers(_point(x, y))
    ]
    patches = [p for p in found if p.ice is None]
    return patches or found


def _point(x: float, y: float) -> Any:
    return Point(x, y)


def needs(ctx: RulesContext, stand: StandRow) -> str:
    """The ice class a stand needs: personnel a charted class, others their weight class."""

    kind = ctx.charts.stand_kinds[stand["kind"]]
    if kind.category == "personnel":
        return ctx.charts.params(WeatherParams).personnel_ice_class
    return weight_class_of(ctx, stand) or "I"


def check_ice(
    ctx: RulesContext, stand: StandRow, came_from: tuple[float, float] | None
) -> list[str]:
    """After a stand is placed: break through thin ice (CD 11.3); note hidden lakes."""

    notes: list[str] = []
    for piece in ice_under(ctx, *position(stand)):
        need = needs(ctx, stand)
        cls = str(ice_class(piece))
        bears = ICE_ORDER.index(cls)
        if piece.referee_only:
            notes.append(referee_note(ctx, stand, piece, cls))
        if bears >= weight_number(need):
            continue
        kind = ctx.charts.stand_kinds[stand["kind"]]
        if kind.category == "personnel":
            effect = automatic_hit(ctx, stand)
            if came_from is not None and in_play(stand):
                stand["x"], stand["y"] = came_from
            notes.append(
                f"{stand['id']} breaks through {piece.id} (class {cls} ice, needs "
                f"{need}): takes a hit ({effect}) and goes back (CD 11.3)"
            )
        else:
            stand["status"] = "eliminated"
            notes.append(
                f"{stand['id']} breaks through {piece.id} (class {cls} ice, "
                f"needs {need}) and is lost (CD 11.3)"
            )
    return notes


def referee_note(ctx: RulesContext, stand: StandRow, piece: Any, cls: str) -> str:
    """What the referee is told when a stand ends on hidden ice (CD 11.3). Only snow hides a
    whole lake; on a bare table the hidden thing is a patch of different ice."""
    if ctx.state.conditions["ground"] in ("snow", "snow-deep") and piece.ice is not None:
        return (
            f"referee: {stand['id']} ends its move on {piece.id}, a snow-covered frozen lake; "
            "tell its player if it is a stationary personnel stand or a patrol (CD 11.3)"
        )
    return (
        f"referee: {stand['id']} ends its move on {piece.id}, a hidden patch of class {cls} "
        "ice that looks like the ice around it (CD 11.3)"
    )


def searchlight_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A searchlight beam 2" wide and 40" long, stopped by what blocks sight (CD 9.2.2)."""

    state = ctx.state
    stand = state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    template_id = f"searchlight-{stand['id']}"
    if inputs.get("off"):
        if state.rows.get("template:" + template_id) is None:
            raise RulesRefusal(f"{stand['id']} has no searchlight on")
        state.remove_template(template_id)
        stand["markers"] = [m for m in stand["markers"] if m != "searchlight"]
        return {"verdict": f"{stand['id']} puts out its searchlight"}
    if stand["x"] is None:
        raise RulesRefusal(f"{stand['id']} is not placed on the table")
    width = ctx.charts.params(WeatherParams).searchlight_width
    length = ctx.charts.params(WeatherParams).searchlight_length
    # CD 9.2.2: the beam follows sight, so fog, rain, snow and dust shorten it like any
    # other sight line (CD 10.2.1, 10.3.1); darkness does not (it is what the light is for).
    weather = effects({**state.conditions, "light": "day"}, ctx.charts)
    cut_by = None
    if weather.visibility is not None and weather.visibility < length:
        length, cut_by = weather.visibility, "; ".join(weather.because[1:])
    shape = beam(*position(stand), float(inputs["bearing"]), width, length, ctx.table)
    state.remove_template(template_id)
    if shape.is_empty:
        raise RulesRefusal(
            f"{stand['id']}'s beam is blocked at once on bearing {inputs['bearing']:g}"
        )
    state.add_template(
        {
            "id": template_id,
            "kind": "searchlight",
            "by": stand["id"],
            "turn": state.turn,
            "lifetime": "light",
            "illuminates": True,
            "origin": [stand["x"], stand["y"]],
            "bearing": float(inputs["bearing"]),
            "polygon": [list(p) for p in shape.exterior.coords],
        }
    )
    if "searchlight" not in stand["markers"]:
        stand["markers"].append("searchlight")
    reach = max(math.dist(position(stand), p) for p in shape.exterior.coords)
    return {
        "verdict": f"{stand['id']} lights a beam on bearing {inputs['bearing']:g} for "
        f'{min(reach, length):.1f}"'
        + (f" (no farther than visibility: {cut_by})" if cut_by else "")
        + "; enemy stands in sight of it spot the light (CD 9.2.2)",
        "template": template_id,
    }
