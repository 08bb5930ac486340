"""Scenario files read and checked: YAML to a validated ``LoadedScenario`` (SPEC 6).

``parse_scenario(text, source, ...)`` returns a validated ``LoadedScenario`` or raises
``ScenarioError`` listing every problem with ``file:line: path: message``. Checks that need
the charts (stand kinds, terrain kinds, weapons, qualities, phases) use the charts the game
will play with, including the scenario's own ``weapons`` and ``charts`` overlay. When some
items are malformed, the checks across the file still run on the rest, so one run reports
every problem. The model itself (the dataclasses) is ``scenario``.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import yaml
from shapely import Polygon, is_valid_reason

from tabletop.core.errors import BadInput, ChartError, ScenarioError
from tabletop.core.spelling import did_you_mean
from tabletop.data.chart_files import load_raw, read_charts
from tabletop.data.charts import Charts, Raw, Weapon, check_weapon, entry_id, overlay
from tabletop.data.scenario import (
    KNOWN_MODELS,
    Formation,
    LoadedScenario,
    ProfileLookup,
    Scenario,
    Side,
    StandSpec,
    TerrainPiece,
    rebuild_scenario,
)
from tabletop.data.schema import Context, PathT, build
from tabletop.data.yaml_text import load_yaml


def parse_scenario(
    text: str,
    source: str,
    *,
    base_dir: Path | None = None,
    extra_overlays: tuple[Path, ...] = (),
    charts_raw: Raw | None = None,
    profiles: ProfileLookup | None = None,
) -> LoadedScenario:
    """Validate scenario text; return it with the charts the game will use.

    ``charts_raw`` (from a game file) replaces chart loading from disk, so a stored game
    rebuilds exactly as it began (a game's own copy is rebuilt without these checks by
    ``scenario.rebuild_scenario``). ``profiles`` looks up each alternative model's profile
    ids, so a stand's ``profiles:`` are checked; without it only the model names are.
    """
    data, ctx = load_yaml(text, source)
    if not isinstance(data, dict):
        raise ScenarioError([_not_a_mapping(data, ctx)])
    _prefill_weapon_rules(data)
    scenario = build(Scenario, data, ctx)
    if scenario is None:
        # Check the valid parts across the file too, so one run reports every problem.
        scenario = _salvage(data, ctx)
        if scenario is None:
            raise ScenarioError(ctx.problems)
    charts, bad_weapons = _charts_for(scenario, ctx, base_dir, extra_overlays, charts_raw)
    # References to an item left out for its own problem are not reported again.
    skip = (_raw_ids(data) - _built_ids(scenario)) | bad_weapons
    _cross_check(scenario, charts, ctx, skip, profiles)
    if ctx.problems:
        raise ScenarioError(ctx.problems)
    return LoadedScenario(scenario, charts, text, source, data)


def rebuild_from_text(text: str, source: str, charts_raw: Raw) -> LoadedScenario:
    """A game stored before it kept its scenario as JSON: its text parsed again, unchecked
    (it was checked when the game began)."""
    return rebuild_scenario(text, source, charts_raw, scenario_data(text))


def check_older_game(
    text: str, source: str, stored_raw: Raw, profiles: ProfileLookup | None
) -> LoadedScenario:
    """A game begun under an earlier chart edition: its own chart numbers stand, entries
    added since come from the bundled charts, and the whole is checked again (the two were
    never checked together)."""
    return parse_scenario(
        text, source, charts_raw=overlay(load_raw(), stored_raw), profiles=profiles
    )


def scenario_data(text: str) -> dict[str, Any]:
    """The scenario's YAML as data, weapon rules filled in (as the game stores it)."""

    data: dict[str, Any] = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    _prefill_weapon_rules(data)
    return data


def read_scenario(
    path: Path, extra_overlays: tuple[Path, ...] = (), profiles: ProfileLookup | None = None
) -> LoadedScenario:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInput(f"scenario {str(path)!r}: no such file") from None
    except UnicodeDecodeError:
        raise BadInput(f"scenario {str(path)!r}: not UTF-8 text (save it as UTF-8)") from None
    except OSError as exc:
        raise BadInput(
            f"scenario {str(path)!r}: cannot be read ({exc.__class__.__name__})"
        ) from None
    return parse_scenario(
        text, path.name, base_dir=path.parent, extra_overlays=extra_overlays, profiles=profiles
    )


def _not_a_mapping(data: Any, ctx: Context) -> str:
    accepted = "a mapping of keys (format, name, table, sides, ...)"
    if data is None:
        return f"{ctx.source}: the file is empty; a scenario is {accepted}"
    line = ctx.line_of(())
    where = f"{ctx.source}:{line}" if line is not None else ctx.source
    what = "a list" if isinstance(data, list) else repr(data)
    return f"{where}: a scenario is {accepted}, not {what}"


def _prefill_weapon_rules(data: dict[str, Any]) -> None:
    weapons = data.get("weapons")
    if isinstance(weapons, list):
        for w in weapons:
            if isinstance(w, dict) and "rule" not in w:
                w["rule"] = "scenario weapon"


def _salvage(data: dict[str, Any], ctx: Context) -> Scenario | None:
    """The scenario without the list items that have problems (terrain pieces, sides,
    formations, stands), for the checks across the file; None when what is left cannot be
    checked (a bad format, name, table, charts or weapons, or an unknown top-level key)."""
    quiet = Context(ctx.source)
    aliases: dict[PathT, PathT] = {}

    def keep(items: Any, cls: Any, path: PathT) -> Any:
        if not isinstance(items, list):
            return items
        kept: list[Any] = []
        for i, item in enumerate(items):
            if build(cls, item, quiet) is not None:
                if len(kept) != i:
                    aliases[(*path, len(kept))] = (*path, i)
                kept.append(item)
        return kept

    clean = dict(data)
    clean["terrain"] = keep(data.get("terrain", []), TerrainPiece, ("terrain",))
    sides = data.get("sides", [])
    if isinstance(sides, list):
        trimmed = []
        for s, side in enumerate(sides):
            if isinstance(side, dict):
                side = dict(side)
                for key, cls in (("formations", Formation), ("stands", StandSpec)):
                    if key in side:
                        side[key] = keep(side[key], cls, ("sides", s, key))
            trimmed.append(side)
        clean["sides"] = keep(trimmed, Side, ("sides",))
    hints = typing.get_type_hints(Scenario)
    for key in ("measure", "model", "turn", "conditions"):
        if key in clean and build(hints[key], clean[key], quiet) is None:
            del clean[key]  # checked again with its default
    scenario = build(Scenario, clean, quiet)
    if scenario is not None:
        ctx.aliases.update(aliases)
    return scenario


def _raw_ids(data: dict[str, Any]) -> set[str]:
    """The ids of formations and scenario weapons as written, valid or not."""

    def ids(items: Any) -> set[str]:
        if not isinstance(items, list):
            return set()
        return {ident for ident in map(entry_id, items) if ident is not None}

    found = ids(data.get("weapons"))
    sides = data.get("sides")
    for side in sides if isinstance(sides, list) else []:
        if isinstance(side, dict):
            found |= ids(side.get("formations"))
    return found


def _built_ids(sc: Scenario) -> set[str]:
    return set(sc.formation_index()) | {str(entry_id(w)) for w in sc.weapons}


def _charts_for(
    scenario: Scenario,
    ctx: Context,
    base_dir: Path | None,
    extra_overlays: tuple[Path, ...],
    charts_raw: Raw | None,
) -> tuple[Charts, set[str]]:
    """The charts the game plays with, and the ids of scenario weapons that have problems.

    Raises ``ScenarioError`` with every problem so far when the charts cannot be built: the
    checks across the file need them.
    """

    problems: list[str] = []
    bad_weapons: set[str] = set()
    origins = None
    if charts_raw is None:
        overlays: list[Path] = []
        if scenario.charts is not None:
            folder = Path(scenario.charts)
            if not folder.is_absolute() and base_dir is not None:
                folder = base_dir / folder
            if folder.is_dir():
                overlays.append(folder)
            else:
                ctx.error(
                    ("charts",),
                    f"{scenario.charts!r} is not a folder (looked for {str(folder)!r}; "
                    "give a folder of chart files, relative to the scenario file)",
                )
                raise ScenarioError(ctx.problems)
        overlays.extend(extra_overlays)
        charts_raw, origins = read_charts(tuple(overlays), problems)
        if scenario.weapons:
            good, bad_weapons = _scenario_weapons(scenario, charts_raw, ctx)
            charts_raw = overlay(charts_raw, {"weapons": good})
    try:
        charts = Charts(charts_raw, origins)
    except ChartError as exc:
        problems.extend(exc.problems)
    if problems:
        raise ScenarioError([*ctx.problems, *(f"{ctx.source}: charts: {p}" for p in problems)])
    return charts, bad_weapons


def _scenario_weapons(
    scenario: Scenario, raw: Raw, ctx: Context
) -> tuple[list[dict[str, Any]], set[str]]:
    """Check the scenario's own weapons here, so their problems carry the scenario's lines.

    An entry with the id of a chart weapon changes the fields it gives (as an overlay does).
    """
    charted = {entry_id(e): e for e in raw.get("weapons", []) if entry_id(e) is not None}
    good: list[dict[str, Any]] = []
    bad: set[str] = set()
    seen: set[str] = set()
    for i, given in enumerate(scenario.weapons):
        path: PathT = ("weapons", i)
        weapon_id = entry_id(given) or f"weapon {i + 1}"
        before = len(ctx.problems)
        if weapon_id in seen:
            ctx.error((*path, "id"), f"duplicate weapon id {weapon_id!r}")
        seen.add(weapon_id)
        entry = build(Weapon, {**charted.get(entry_id(given), {}), **given}, ctx, path)
        if entry is not None:
            check_weapon(entry, ctx, path)
        if len(ctx.problems) == before:
            good.append(dict(given))
        else:
            bad.add(weapon_id)
    return good, bad


def _known(ctx: Context, path: PathT, value: str, known: Any, what: str) -> bool:
    if value in known:
        return True
    names = sorted(known)
    hint = did_you_mean(value, names)
    shown = ", ".join(names) if len(names) <= 30 else ", ".join(names[:30]) + ", ..."
    ctx.error(path, f"unknown {what} {value!r} (known: {shown}){hint}")
    return False


def _cross_check(
    sc: Scenario, charts: Charts, ctx: Context, skip: set[str], lookup: ProfileLookup | None
) -> None:
    _check_ids(sc, ctx)
    if sc.model not in KNOWN_MODELS:
        _known(ctx, ("model",), sc.model, KNOWN_MODELS, "model")
    _known(ctx, ("turn", "phase"), sc.turn.phase, [p.id for p in charts.phases], "phase")
    for i, piece in enumerate(sc.terrain):
        _check_piece(sc, charts, ctx, i, piece)
    formations = sc.formation_index()
    profiles: dict[str, Any] = {}  # each model's profile ids, read once
    for s, side in enumerate(sc.sides):
        own = {f.id for f in side.formations}
        for f_i, form in enumerate(side.formations):
            if form.parent is not None and form.parent not in own | skip:
                ctx.error(
                    ("sides", s, "formations", f_i, "parent"),
                    f"parent {form.parent!r} is not a formation of side {side.name!r} "
                    f"(its formations: {', '.join(sorted(own))}; or null for the top)",
                )
        _check_cycles(side, s, ctx)
        for t, stand in enumerate(side.stands):
            path: PathT = ("sides", s, "stands", t)
            _known(ctx, (*path, "kind"), stand.kind, charts.stand_kinds, "stand kind")
            _known(ctx, (*path, "quality"), stand.quality, charts.quality, "quality")
            for w_i, weapon in enumerate(stand.weapons):
                if weapon not in skip:
                    _known(ctx, (*path, "weapons", w_i), weapon, charts.weapons, "weapon")
            for w_i, weapon in enumerate(stand.weapons):
                if weapon in stand.weapons[:w_i]:
                    ctx.error(
                        (*path, "weapons", w_i),
                        f"{weapon!r} is listed twice; list each weapon once",
                    )
            if stand.craft is not None:
                crafts = [k for k, r in charts.table("amphibious").items() if r.table == "craft"]
                if stand.craft in charts.weapons and stand.craft not in crafts:
                    ctx.error(
                        (*path, "craft"),
                        f"{stand.craft!r} is a warship's weapon, not a landing craft: give "
                        f"the ship 'weapons: [{stand.craft}]' for naval fire (CD 8.4)",
                    )
                else:
                    _known(ctx, (*path, "craft"), stand.craft, crafts, "landing craft type")
            _check_profiles(stand, charts, ctx, path, profiles, lookup)
            if stand.formation is not None and stand.formation not in own | skip:
                if stand.formation in formations:
                    ctx.error(
                        (*path, "formation"),
                        f"formation {stand.formation!r} belongs to another side "
                        f"(formations of {side.name!r}: {', '.join(sorted(own))})",
                    )
                else:
                    _known(ctx, (*path, "formation"), stand.formation, own, "formation")
            if stand.at is not None:
                x, y = stand.at
                if not (0 <= x <= sc.table.width and 0 <= y <= sc.table.depth):
                    ctx.error(
                        (*path, "at"),
                        f"({x:g}, {y:g}) is off the {sc.table.width:g} x {sc.table.depth:g} table",
                    )


def _check_profiles(
    stand: StandSpec,
    charts: Charts,
    ctx: Context,
    path: PathT,
    known: dict[str, Any],
    lookup: ProfileLookup | None,
) -> None:
    """Each ``profiles:`` entry names an alternative model and one of its chart's profiles,
    so a typo is caught when the game starts, not at the first shot."""
    for name, profile in stand.profiles.items():
        where = (*path, "profiles", name)
        if name not in known:
            if lookup is None:
                known[name] = {} if name in KNOWN_MODELS and name != "cd" else None
            else:
                known[name] = lookup(name, charts)
        if known[name] is None:
            models = [m for m in KNOWN_MODELS if m != "cd"]
            ctx.error(
                where,
                f"{name!r} is not an alternative model with profiles (models: "
                f"{', '.join(models)}){did_you_mean(name, models)}",
            )
        elif known[name]:
            _known(ctx, where, profile, known[name], f"{name} profile")


def _check_ids(sc: Scenario, ctx: Context) -> None:
    seen: dict[str, str] = {}

    def note(path: PathT, ident: str, what: str) -> None:
        if ident in seen:
            ctx.error(path, f"duplicate id {ident!r} (already used by a {seen[ident]})")
        else:
            seen[ident] = what

    for i, piece in enumerate(sc.terrain):
        note(("terrain", i, "id"), piece.id, "terrain piece")
    for s, side in enumerate(sc.sides):
        for f, form in enumerate(side.formations):
            note(("sides", s, "formations", f, "id"), form.id, "formation")
        for t, stand in enumerate(side.stands):
            note(("sides", s, "stands", t, "id"), stand.id, "stand")
    names: set[str] = set()
    for s, side in enumerate(sc.sides):
        if side.name in names:
            ctx.error(("sides", s, "name"), f"{side.name!r} is the name of another side too")
        names.add(side.name)
        if side.name == "referee":
            ctx.error(("sides", s, "name"), "'referee' is reserved for the referee's view")


def _check_cycles(side: Side, s: int, ctx: Context) -> None:
    parents = {f.id: f.parent for f in side.formations}
    for f_i, form in enumerate(side.formations):
        chain = [form.id]
        up = form.parent
        while up is not None and up in parents and up not in chain:
            chain.append(up)
            up = parents[up]
        # Only the formations on the loop are wrong; one below it just inherits the loop.
        if up == form.id:
            ctx.error(
                ("sides", s, "formations", f_i, "parent"),
                f"formation {form.id!r} is its own ancestor ({' -> '.join([*chain, form.id])}); "
                "the top formation has parent null",
            )


def _check_piece(sc: Scenario, charts: Charts, ctx: Context, i: int, piece: TerrainPiece) -> None:
    path: PathT = ("terrain", i)
    if not _known(ctx, (*path, "kind"), piece.kind, charts.terrain, "terrain kind"):
        return
    kind = charts.terrain[piece.kind]
    if piece.polygon is not None and piece.line is not None:
        ctx.error(path, "give either 'polygon' (an area) or 'line' (with a 'width'), not both")
        return
    if piece.polygon is None and piece.line is None:
        ctx.error(path, "missing its shape: give 'polygon' (an area) or 'line' (with a 'width')")
        return
    if piece.polygon is not None:
        if kind.shape == "line":
            ctx.error((*path, "polygon"), f"a {piece.kind} is drawn as a 'line' with a 'width'")
            return
        if len(piece.polygon) < 3:
            ctx.error(
                (*path, "polygon"),
                f"a polygon needs at least 3 corners, got {len(piece.polygon)}",
            )
            return

        shape = Polygon(piece.polygon)
        if not shape.is_valid:
            ctx.error((*path, "polygon"), f"not a valid polygon: {is_valid_reason(shape)}")
        elif shape.area <= 0:
            ctx.error((*path, "polygon"), "the polygon has no area")
        points = piece.polygon
    else:
        assert piece.line is not None
        if kind.shape == "area":
            ctx.error((*path, "line"), f"a {piece.kind} is drawn as a 'polygon'")
            return
        if len(piece.line) < 2:
            ctx.error((*path, "line"), f"a line needs at least 2 points, got {len(piece.line)}")
            return
        if piece.width is None:
            ctx.error(path, "a line needs a 'width' (inches)")
        points = piece.line
    for p_i, (x, y) in enumerate(points):
        if not (-0.01 <= x <= sc.table.width + 0.01 and -0.01 <= y <= sc.table.depth + 0.01):
            key = "polygon" if piece.polygon is not None else "line"
            ctx.error(
                (*path, key, p_i),
                f"point ({x:g}, {y:g}) is off the {sc.table.width:g} x {sc.table.depth:g} table",
            )
            break
    if piece.height is not None and not (kind.ground or kind.blocks):
        ctx.error((*path, "height"), f"a {piece.kind} has no height (it never blocks sight)")
