"""The move-cost query for a stand in a game: what an inch costs it, and why.

Where the stand stands, the answer is the refereed move's own (``movement.Pricer``): the
terrain under it, roads and bridges by their state, water and its ice (CD 2, 2.4.1, 11.3),
the piece's own ground and deep mud beside a flood (CD 10.3.4, 11.1), the weather. Asked of
a terrain kind (``--terrain``) or a road (``--road``) it prices that kind through the same
``ground.move_cost``, on the ground that counts where the stand is.
"""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import BadInput
from tabletop.core.spelling import did_you_mean
from tabletop.rules.cd.ground import move_cost
from tabletop.rules.cd.movement import Pricer, ice_verdict
from tabletop.rules.context import RulesContext
from tabletop.state.document import position

MIRED = "{id} is mired: it may not move until unmired (CD 11.1.4, 11.1.5)"


def move_cost_for(
    ctx: RulesContext, stand_id: str, terrain: str | None, road: str | None
) -> dict[str, Any]:
    stand = ctx.state.stand(stand_id)
    ctx.involve(stand["id"])
    charts = ctx.charts
    if terrain is not None and terrain not in charts.terrain:
        hint = did_you_mean(terrain, charts.terrain)
        raise BadInput(f"--terrain {terrain!r}: unknown terrain kind{hint}")
    if stand["x"] is None and terrain is None and road is None:
        raise BadInput(f"{stand['id']} is not placed: give --terrain (one of the terrain kinds)")
    pricer = Pricer(ctx, stand)
    here = None if stand["x"] is None else pricer.price_point(*position(stand))
    if terrain is None and road is None and here is not None:
        seg, _ = here
        multiplier, because = seg.multiplier, list(seg.because)
        # The kind the players see there (a hidden lake looks like the ground around it).
        shown = seg.kind
        if seg.hidden:
            shown = "open" if seg.terrain == "open" else ctx.scenario.piece(seg.terrain).kind
        piece = None if seg.terrain == "open" else seg.terrain
        if seg.ice is not None and multiplier is not None:
            # What 'move' says of the ice where it steps on it, as it says it (CD 11.3).
            _, what = ice_verdict(seg, stand["id"], pricer.ice_need)
            because.append(("referee: " if seg.hidden else "") + what + " (CD 11.3)")
        road_kind = None
    else:
        # A kind asked about: priced by the same procedure, on the ground that counts here.
        ground_id = ctx.state.conditions["ground"] if here is None else here[0].ground
        kind = charts.stand_kinds[stand["kind"]]
        shown = terrain or "open"
        piece = None
        cost = move_cost(
            kind,
            shown,
            {**ctx.state.conditions, "ground": ground_id},
            charts,
            road=road,
            ski=pricer.ski,
        )
        if here is not None:
            # Why the ground there is not the table's: a piece's own, a flood's margin.
            local = [b for b in here[0].because if "own ground" in b or "flooding" in b]
            cost.because[1:1] = local
        because, road_kind = cost.because, road
        multiplier = cost.multiplier
        if multiplier is not None:
            multiplier = pricer.along_road(multiplier, road, because)
    mired = "mired" in stand["markers"]
    if mired:
        multiplier = None
        because.insert(0, MIRED.format(id=stand["id"]))
    return {
        "stand": stand["id"],
        "terrain": shown,
        "piece": piece,
        "road": road_kind,
        "multiplier": None if multiplier is None else round(multiplier, 4),
        "because": because,
        "mired": mired,
    }
