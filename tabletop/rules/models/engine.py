"""Model fire on the table: profiles from the scenario, range and sight from the geometry."""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.spelling import did_you_mean
from tabletop.core.words import possessive
from tabletop.rules.cd.sighting import end_for_stand, sight
from tabletop.rules.cd.stands import check_phase
from tabletop.rules.context import RulesContext
from tabletop.rules.models import Model, Shot, find_alternative
from tabletop.rules.models.bindings import bind
from tabletop.rules.models.stands import apply
from tabletop.state.document import StandRow, out_of_play


def missing_profiles(ctx: RulesContext, model: Model, stand_ids: list[str]) -> list[str]:
    return [s for s in stand_ids if model.name not in ctx.scenario.stand_spec(s).profiles]


def require_profiles(ctx: RulesContext, model: Model, stand_ids: list[str]) -> None:
    missing = missing_profiles(ctx, model, stand_ids)
    if missing:
        raise BadInput(
            f"stands without a profile for the {model.name} model: {', '.join(missing)}; give each "
            f"'profiles: {{{model.name}: ID}}' in the scenario, with IDs from "
            f"charts/models/{model.chart}.yaml"
        )
    known = model.profiles()
    for s in stand_ids:
        profile = ctx.scenario.stand_spec(s).profiles[model.name]
        if known and profile not in known:
            raise BadInput(
                f"{s}'s {model.name} profile {profile!r} is not in charts/models/{model.chart}.yaml"
            )


def check_shot(
    ctx: RulesContext, model: Model, inputs: dict[str, Any], *, any_phase: bool = False
) -> None:
    """What every model's table-mode fire must pass before its own rules are read, as CD's
    direct fire checks it (``tabletop.rules.cd.direct.prepare``): the model fires at all, a
    stand does not fire at itself, the phase allows fire (the game's turn sequence holds
    whatever the model; ``any_phase`` lets ``odds`` look ahead), both stands are in play and
    on opposite sides."""

    model.check_can_fire()
    state = ctx.state
    shooter, target = state.stand(inputs["shooter"]), state.stand(inputs["target"])
    if shooter["id"] == target["id"]:
        raise BadInput(f"{shooter['id']} cannot fire at itself")
    if not any_phase:
        action, what = model.fire_kind(inputs.get("options") or {})
        check_phase(ctx, action, what)
    for stand, role in ((shooter, "fire"), (target, "be fired at")):
        if out_of_play(stand):
            raise RulesRefusal(f"{stand['id']} is {stand['status']} and cannot {role}")
    if shooter["side"] == target["side"]:
        raise RulesRefusal(
            f"{shooter['id']} and {target['id']} are both {possessive(shooter['side'])}"
        )
    if not any_phase:
        check_not_fired(ctx, model, shooter)


def fire_record(model: Model, stand: StandRow) -> dict[str, Any]:
    """The stand's last fire under ``model``: turn, phase, target, streak (pulses in a row at
    that target) and shots; empty when it has not fired under the model."""
    record = (stand.get("models") or {}).get(model.name) or {}
    return dict(record.get("fire") or {})


def check_not_fired(ctx: RulesContext, model: Model, shooter: StandRow) -> None:
    """One fire action a stand a phase (each phase is one of the model's pulses): the model's
    rate of fire decides how many shots that action holds, never a second action."""
    last = fire_record(model, shooter)
    if last.get("turn") == ctx.state.turn and last.get("phase") == ctx.state.phase:
        shots = last.get("shots")
        what = f" ({shots} shot{'s' if shots != 1 else ''})" if shots is not None else ""
        raise RulesRefusal(
            f"{shooter['id']} has already fired this {ctx.state.phase} phase of turn "
            f"{ctx.state.turn} under {model.name}, at {last.get('target')}{what}: one fire "
            f"action a pulse ({model.fire_limit_rule}); it fires again next phase"
        )


def streak(ctx: RulesContext, model: Model, shooter: StandRow, target_id: str) -> int:
    """Pulses in a row the stand fires at ``target_id``, this one included: its last fire was
    at the same target in this turn or the last one (our reading of a pulse's continuity on a
    table of phases; another target, or a whole turn without firing, starts again at 1)."""
    last = fire_record(model, shooter)
    if last.get("target") == target_id and int(last.get("turn") or -9) >= ctx.state.turn - 1:
        return int(last.get("streak") or 1) + 1
    return 1


def shot_from_table(
    ctx: RulesContext, model: Model, inputs: dict[str, Any], *, any_phase: bool = False
) -> tuple[Shot, Any]:
    check_shot(ctx, model, inputs, any_phase=any_phase)
    state = ctx.state
    shooter, target = state.stand(inputs["shooter"]), state.stand(inputs["target"])
    require_profiles(ctx, model, [shooter["id"], target["id"]])
    seen = None
    distance = table_range(model, inputs)
    placed = shooter["x"] is not None and target["x"] is not None
    if distance is None and not placed:
        raise BadInput(
            "place both stands on the table, or give the measured range with --range "
            "(or --range-squares)"
        )
    if placed:
        # The table still decides cover, smoke and the target's record when the referee gives
        # the range they measured.
        seen = sight(ctx, end_for_stand(state, shooter["id"]), end_for_stand(state, target["id"]))
        if distance is None:
            distance = seen.range
    options = dict(model.situation_from_table(ctx, shooter, target, seen)) if seen else {}
    options.update(inputs.get("options") or {})
    model.check_options(inputs.get("options") or {})
    options = {**model.streak_options(streak(ctx, model, shooter, target["id"])), **options}
    spec = ctx.scenario.stand_spec
    shot = Shot(
        shooter=spec(shooter["id"]).profiles[model.name],
        target=spec(target["id"]).profiles[model.name],
        range_inches=float(distance or 0.0),
        count=table_count(ctx, model, shooter, inputs.get("count")),
        options=options,
        shooter_stand=shooter["id"],
        target_stand=target["id"],
    )
    return shot, seen


def table_range(model: Model, inputs: dict[str, Any]) -> float | None:
    """The range the referee measured, in inches: ``--range``, or ``--range-squares`` through
    the model's scale; None when the table is to measure it."""
    inches, squares = inputs.get("range"), inputs.get("range_squares")
    if inches is not None and squares is not None:
        raise BadInput("give the range once: --range INCHES or --range-squares N")
    if squares is not None:
        return float(squares) * model.inches_per_unit
    return None if inches is None else float(inches)


def table_count(ctx: RulesContext, model: Model, shooter: StandRow, given: int | None) -> int:
    """How many fire: ``--count``, else what the firing stand has left (for models that
    count it), else one."""
    left = model.table_count(ctx, shooter)
    if given is None:
        return 1 if left is None else left
    if left is not None and given > left:
        raise BadInput(
            f"--count {given}: {shooter['id']} has {left} left to fire (its {model.name} strength)"
        )
    return int(given)


def model_fire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    model = find_alternative(inputs["model"], ctx.charts)
    shot, _ = shot_from_table(ctx, model, inputs)
    ctx.involve(shot.shooter_stand or "", shot.target_stand or "")
    shooter = ctx.state.stand(inputs["shooter"])
    target = ctx.state.stand(inputs["target"])
    run = streak(ctx, model, shooter, target["id"])
    outcome = model.fire_on_table(shot, ctx.dice, run, inputs.get("count") is not None)
    if outcome.target_state:
        target.setdefault("models", {}).setdefault(model.name, {}).update(outcome.target_state)
    if outcome.eliminated:
        target["status"] = "eliminated"
    shots = outcome.data.get("shots_fired")
    shooter.setdefault("models", {}).setdefault(model.name, {})["fire"] = {
        "turn": ctx.state.turn,
        "phase": ctx.state.phase,
        "target": target["id"],
        "streak": run,
        "shots": shots,
        "rule": model.fire_limit_rule,
    }
    if shots != 0:
        shooter["fired"] = {
            "turn": ctx.state.turn,
            "phase": ctx.state.phase,
            "model": model.name,
            "x": shooter["x"],
            "y": shooter["y"],
        }
    target["fired_at"] = ctx.state.turn
    return {
        "verdict": outcome.verdict,
        "model": model.name,
        **outcome.data,
        "target_eliminated": bool(outcome.eliminated),
        "streak": run,
        "lines": outcome.lines,
    }


def run_procedure(model: Model, name: str, options: dict[str, Any], dice: Any) -> dict[str, Any]:
    procedures = model.procedures()
    if name not in procedures:
        known = ", ".join(procedures) or "none"
        raise BadInput(
            f"the {model.name} model has no procedure {name!r} (procedures: {known})"
            f"{did_you_mean(name, procedures)}"
        )
    procedure = procedures[name]
    unknown = sorted(set(options) - set(procedure.options))
    if unknown:
        accepted = ", ".join(procedure.options) or "none"
        raise BadInput(
            f"--set {unknown[0]!r}: not an option of {model.name} {name} (accepted: {accepted})"
            f"{did_you_mean(unknown[0], procedure.options)}"
        )
    return procedure.run(options, dice)


def model_run_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A model procedure run inside a game, so its dice are logged and replayed. Stands given
    (``STAND`` arguments, or ``--set unit=STAND``) are read in and the result recorded on
    them (``tabletop.rules.models.stands``)."""

    model = find_alternative(inputs["model"], ctx.charts)
    name = inputs["procedure"]
    procedures = model.procedures()
    if name not in procedures:
        run_procedure(model, name, {}, ctx.dice)  # the unknown-procedure message
    procedure = procedures[name]
    options, bound = bind(
        ctx,
        model,
        name,
        procedure.options,
        dict(inputs.get("options") or {}),
        list(inputs.get("stands") or []),
    )
    result = run_procedure(model, name, options, ctx.dice)
    changed = apply(
        ctx, model, f"{procedure.rule}: {name}" if procedure.rule else name, bound, result
    )
    out = {"model": model.name, "procedure": name, **result}
    if bound:
        out["stands"] = {s["id"]: changed.get(s["id"], {}) for _, s in bound}
        out.setdefault("lines", [])
        for sid, changes in out["stands"].items():
            text = ", ".join(f"{k} {v}" for k, v in changes.items()) or "nothing to record"
            out["lines"] = [*out["lines"], f"{sid}: {text} [{procedure.rule or name}]"]
    return out
