"""Engineer smoke generators (CD 5.3).

A generator in place lays a 2" x 6" template downwind each turn it runs, the screen growing
to 36" (each template no longer than the wind allows, CD 10.1.2); it covers the generator
itself. Once it stops (by choice, pinned, or moved), two templates a turn go from the
upwind end.
"""

from __future__ import annotations

from typing import Any

from tabletop.errors import RulesRefusal
from tabletop.rules.cd.engineering import equipment, placed, require_fit
from tabletop.state.document import out_of_play

SCREEN = "screen:"


def template_length(ctx: Any) -> float:
    from tabletop.rules.cd.weather import effects

    length = float(ctx.charts.param("engineering", "smoke-generator-length"))
    cap = effects(ctx.state.conditions, ctx.charts).smoke_max_length
    return length if cap is None else min(length, cap)


def start_action(ctx: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    from tabletop.rules.cd.barrage import wind_bearing

    state = ctx.state
    stand = state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    if "smoke-generator" not in equipment(ctx, stand):
        raise RulesRefusal(f"{stand['id']} has no smoke generator (scenario equipment; CD 5.3)")
    placed(stand)
    key = SCREEN + stand["id"]
    screen = state.rows.get(key)
    if inputs.get("stop"):
        if screen is None or not screen["running"]:
            raise RulesRefusal(f"{stand['id']} is not generating smoke")
        screen["running"] = False
        return {
            "verdict": f"{stand['id']} stops its smoke: the screen thins from the upwind "
            "end, two templates a turn (CD 5.3)"
        }
    require_fit(ctx, stand, "CD 5.3", stationary=False, unsuppressed=False)
    if screen is not None and screen["running"]:
        raise RulesRefusal(f"{stand['id']} is already generating smoke")
    screen = {
        "stand": stand["id"],
        "x": stand["x"],
        "y": stand["y"],
        "running": True,
        "bearing": wind_bearing(state.conditions),
        "segments": 0,
        "removed": 0,
    }
    state.rows[key] = screen
    _lay(ctx, screen)
    return {
        "verdict": f"{stand['id']} starts a smoke screen downwind (CD 5.3)",
        "templates": screen["segments"],
    }


def _lay(ctx: Any, screen: dict[str, Any]) -> None:
    """Add a template at the downwind end, up to the screen's maximum length."""
    length = template_length(ctx)
    cap = float(ctx.charts.param("engineering", "smoke-generator-max"))
    if (screen["segments"] + 1) * length > cap + 1e-9:
        return
    _place(ctx, screen, screen["segments"], length)
    screen["segments"] += 1


def _place(ctx: Any, screen: dict[str, Any], index: int, length: float) -> None:
    import math

    from tabletop.table import strip

    rad = math.radians(screen["bearing"])
    x = screen["x"] + math.sin(rad) * length * index
    y = screen["y"] + math.cos(rad) * length * index
    width = float(ctx.charts.param("engineering", "smoke-generator-width"))
    # The first template starts half a length upwind so the generator sits inside its smoke.
    back = length / 2 if index == 0 else 0.0
    shape = strip(
        x - math.sin(rad) * back, y - math.cos(rad) * back, screen["bearing"], width, length + back
    )
    ctx.state.add_template(
        {
            "id": f"screen-{screen['stand']}-{index}",
            "kind": "smoke",
            "by": screen["stand"],
            "turn": ctx.state.turn,
            "lifetime": "screen",
            "blocks_sight": True,
            "polygon": [list(p) for p in shape.exterior.coords],
        }
    )


def each_turn(ctx: Any) -> list[dict[str, Any]]:
    """Start of turn: running screens grow; stopped ones thin from the upwind end."""
    state = ctx.state
    happened = []
    for key in sorted(k for k in state.rows if k.startswith(SCREEN)):
        screen = state.rows[key]
        stand = state.stand(screen["stand"])
        moved = (stand["x"], stand["y"]) != (screen["x"], screen["y"])
        if screen["running"] and ("pinned" in stand["markers"] or moved or out_of_play(stand)):
            screen["running"] = False
            why = "pinned" if "pinned" in stand["markers"] else "moved" if moved else "lost"
            happened.append(
                {
                    "what": "smoke generator",
                    "stand": stand["id"],
                    "result": f"stops: the generator was {why} (CD 5.3)",
                }
            )
        if screen["running"]:
            before = screen["segments"]
            _lay(ctx, screen)
            happened.append(
                {
                    "what": "smoke generator",
                    "stand": stand["id"],
                    "result": f"screen {screen['segments']} template(s) long"
                    + (" (full length)" if before == screen["segments"] else ""),
                }
            )
            continue
        drop = int(ctx.charts.param("engineering", "smoke-generator-dispersal"))
        for _ in range(drop):
            if screen["removed"] >= screen["segments"]:
                break
            state.remove_template(f"screen-{screen['stand']}-{screen['removed']}")
            screen["removed"] += 1
        left = screen["segments"] - screen["removed"]
        if left <= 0:
            del state.rows[key]
        happened.append(
            {
                "what": "smoke generator",
                "stand": stand["id"],
                "result": f"screen thins: {max(left, 0)} template(s) left (CD 5.3)",
            }
        )
    return happened
