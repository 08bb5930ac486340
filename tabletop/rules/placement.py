"""Recording where stands are, and plain logged rolls for anything the rules leave open."""

from __future__ import annotations

import math
import re
from typing import Any

from tabletop.core.dice import explain_no_roll
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.state.document import in_play, out_of_play

DICE_SPEC = re.compile(r"^\s*([0-9]*)\s*[dD]\s*([0-9]+)\s*$")
MAX_PURPOSE = 200
MAX_DICE = 100


def place(ctx: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Put a stand at (x, y) with a facing; refuse positions off the table or on another base."""
    state, scenario = ctx.state, ctx.scenario
    stand = state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    x, y = float(inputs["x"]), float(inputs["y"])
    facing = stand["facing"] if inputs.get("facing") is None else float(inputs["facing"]) % 360
    width, depth = scenario.table.width, scenario.table.depth
    if not (0 <= x <= width and 0 <= y <= depth):
        raise BadInput(f"({x:g}, {y:g}) is off the {width:g} x {depth:g} table")
    if out_of_play(stand):
        raise RulesRefusal(f"{stand['id']} is {stand['status']} and cannot be placed")
    from tabletop.data.board import base_of, overlapping

    moved_from = None if stand["x"] is None else (stand["x"], stand["y"])
    if moved_from is not None:
        turned = abs((facing - float(stand["facing"]) + 180) % 360 - 180) > 1e-9
        if turned or math.dist(moved_from, (x, y)) > 1e-9:
            refuse_if_mired(stand)
    candidate = {**stand, "x": x, "y": y, "facing": facing}
    others = [
        s for s in state.stands() if s["id"] != stand["id"] and s["x"] is not None and in_play(s)
    ]
    tolerance = float(ctx.charts.param("table", "base-overlap-tolerance"))
    clash = overlapping(base_of(candidate), [base_of(s) for s in others], tolerance)
    if clash:
        raise RulesRefusal(
            f"{stand['id']} at ({x:g}, {y:g}) would overlap {', '.join(clash)}: bases may touch "
            "but not overlap"
        )
    stand.update(x=x, y=y, facing=facing)
    moved = moved_from is not None and math.dist(moved_from, (x, y)) > 1e-9
    if moved:
        stand["moved_turn"] = state.turn
        # Foxholes and entrenchments stay where they were dug (CD 5.1.1).
        stand["markers"] = [m for m in stand["markers"] if m not in ("foxholes", "entrenched")]
    terrain = [p.id for p in ctx.table.pieces_at(x, y)]
    for piece_id in terrain:
        row = state.rows.get("terrain:" + piece_id)
        if row is not None and row["state"] == "burning":
            raise RulesRefusal(f"{piece_id} is burning: no stand may enter it (CD 6.2.2)")
    from tabletop.rules.cd.ice import check_ice

    notes = check_ice(ctx, stand, moved_from) if moved or moved_from is None else []
    explain_no_roll(
        ctx.dice, f"{stand['id']} is not on ice that can break (placing rolls only for CD 11.3)"
    )
    if stand.get("landed_turn") == state.turn and moved:
        raise RulesRefusal(f"{stand['id']} landed this turn and may not move (CD 7.2.2, 7.3.2)")
    if stand.get("disembarked_turn") == state.turn and moved:
        raise RulesRefusal(
            f"{stand['id']} came ashore this turn and ends its move beside its "
            "landing craft (CD 8.1.1)"
        )
    if stand.get("aboard"):
        raise RulesRefusal(
            f"{stand['id']} is aboard {stand['aboard']}: unload it first (CD 2.1, 8.1)"
        )
    if (stand.get("amphib") or {}).get("stage") == "wading" and moved:
        raise RulesRefusal(
            f"{stand['id']} is wading ashore: move it with 'tabletop amphibious "
            f"wade {stand['id']}' (CD 8.1.4)"
        )
    return {
        "stand": stand["id"],
        "x": stand["x"],
        "y": stand["y"],
        "facing": facing,
        "moved": round(math.dist(moved_from, (x, y)), 3) if moved_from else None,
        "terrain": [t for t in terrain if not ctx.scenario.piece(t).referee_only],
        "notes": notes,
    }


def parse_dice_spec(text: str) -> tuple[int, int]:
    match = DICE_SPEC.match(text)
    if not match:
        raise BadInput(f"{text!r} is not a dice expression (write it like 3d10 or d6)")
    count = int(match.group(1) or 1)
    sides = int(match.group(2))
    if not 1 <= count <= MAX_DICE:
        raise BadInput(f"{text!r}: roll 1 to {MAX_DICE} dice at a time")
    if not 2 <= sides <= 1000:
        raise BadInput(f"{text!r}: a die has 2 to 1000 sides")
    return count, sides


def plain_roll(ctx: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    count, sides = parse_dice_spec(inputs["dice"])
    purpose = inputs.get("purpose") or "referee roll"
    if len(purpose) > MAX_PURPOSE:
        raise BadInput(
            f"--for: say what the roll is for in at most {MAX_PURPOSE} characters "
            f"(got {len(purpose)})"
        )
    values = [
        ctx.dice.roll(sides, f"{purpose} ({i} of {count})" if count > 1 else purpose)
        for i in range(1, count + 1)
    ]
    return {"dice": f"{count}d{sides}", "purpose": purpose, "values": values, "total": sum(values)}


MARKERS = ("pinned", "suppressed", "forced-back", "burning", "foxholes", "entrenched")


def marker_action(ctx: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """The referee puts or takes markers the program does not decide itself (morale results,
    a vehicle left burning, works dug in play)."""
    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    add, remove = list(inputs.get("add") or []), list(inputs.get("remove") or [])
    for marker in add + remove:
        if marker not in MARKERS:
            raise BadInput(f"marker {marker!r}: accepted: {', '.join(MARKERS)}")
    if not add and not remove:
        raise BadInput("give --add MARKER or --remove MARKER")
    for marker in add:
        if marker not in stand["markers"]:
            stand["markers"].append(marker)
    stand["markers"] = [m for m in stand["markers"] if m not in remove]
    return {
        "verdict": f"{stand['id']}: {', '.join(stand['markers']) or 'no markers'}",
        "stand": stand["id"],
        "markers": list(stand["markers"]),
    }


def refuse_if_mired(stand: dict[str, Any]) -> None:
    """A mired vehicle may not move or change facing until it is unmired (CD 11.1.4)."""
    if "mired" in stand["markers"]:
        raise RulesRefusal(
            f"{stand['id']} is mired: it may not move or change facing until unmired "
            f"(CD 11.1.4); free it with 'tabletop unmire {stand['id']}'"
        )
