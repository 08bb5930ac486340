"""Rule charts (``charts/*.yaml``, read from disk by ``chart_files``) as frozen dataclasses.

Every chart file is a list of ``entries``, each with an ``id`` and the ``rule`` it
implements; entries that are our defaults (numbers the seeds assume but do not print) say
``default: true``. A referee overlays their own numbers with ``--charts DIR`` (or
``charts:`` in the scenario): an overlay file of the same name changes the fields it gives
of an entry with the same id, and adds new entries.

Charts are validated as a whole: ``ChartError.problems`` lists every problem with file,
entry and field. A game keeps the raw charts it started with (``raw``), so replaying it
later gives the same result even if the files on disk change.
"""

# No ``from __future__ import annotations``: the dataclasses' hints are then objects, which
# opening a game resolves without compiling each one from text (docs/performance.md).
import dataclasses
import importlib
import typing
from collections.abc import Iterator, Mapping, MutableMapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TypeVar

from tabletop.core.errors import ChartError
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.spelling import did_you_mean
from tabletop.core.units import within
from tabletop.data.entries import Entry as Entry
from tabletop.data.entries import Level as Level
from tabletop.data.schema import Context, PathT, bounded, build, build_trusted

if TYPE_CHECKING:
    # At run time these are loaded on first use (CHART_SCHEMAS, ``__getattr__`` below).
    from tabletop.data.entries.airborne import AirborneRow as AirborneRow
    from tabletop.data.entries.amphibious import AmphibiousRow as AmphibiousRow
    from tabletop.data.entries.fire import Cover, Modifier
    from tabletop.data.entries.ground import GroundEffect as GroundEffect
    from tabletop.data.entries.ground import Miring as Miring
    from tabletop.data.entries.ground import Preset as Preset
    from tabletop.data.entries.ground import WindChange as WindChange
    from tabletop.data.entries.movement import Allowance as Allowance
    from tabletop.data.entries.stands import Quality as Quality
    from tabletop.data.entries.stands import StandKind as StandKind
    from tabletop.data.entries.turn import Phase
    from tabletop.data.entries.works import ObstacleWork as ObstacleWork
    from tabletop.data.entries.works import PregameWork as PregameWork

Raw = dict[str, list[dict[str, Any]]]

# The edition of the bundled charts' structure. Raise it when a release adds chart files or
# entries that the code needs; games started under an older edition then take the new
# entries from the bundled charts (their own numbers still stand).
CHARTS_FORMAT = 7  # 7: small arms against armour and once a turn (ammo chart, issue 28)

WEIGHT_LEVELS: tuple[str, ...] = ("I", "II", "III", "IV", "V", "VI")


def weight_number(level: str | None) -> int:
    """Weight class I-VI as 1-6 (0 for none)."""
    return WEIGHT_LEVELS.index(level) + 1 if level in WEIGHT_LEVELS else 0


# --- weapons -------------------------------------------------------------------------------


@frozen_dataclass(kw_only=True)
class Bands:
    """A weapon's close, medium and long range, in inches."""

    close: float = bounded(min=0)
    medium: float = bounded(min=0)
    long: float = bounded(min=0)


@frozen_dataclass(kw_only=True)
class ToHit:
    """The number a weapon needs on a D10 to hit, at close, medium and long range."""

    close: int = bounded(min=0, max=10)
    medium: int = bounded(min=0, max=10)
    long: int = bounded(min=0, max=10)


BAND_NAMES: tuple[str, ...] = ("close", "medium", "long")


@frozen_dataclass(kw_only=True)
class Weapon(Entry):
    """A weapon of ``weapons.yaml``: its rate of fire, ranges and numbers to hit, and what
    else its fire does (burst, HE, indirect fire)."""

    name: str | None = None
    calibre_mm: float | None = bounded(None, min=0)
    rof: int = bounded(min=1, max=40)
    ranges: Bands
    to_hit: ToHit
    to_hit_afv: ToHit | None = None
    burst: float | None = bounded(None, min=0.1, max=24)
    he: int | None = bounded(None, min=0, max=10)
    indirect: bool = False
    # Fires only indirect (mortars, salvo rocket launchers): no direct fire (use barrage).
    indirect_only: bool = False
    # Has no HE round on the data chart: its soft-target row is AP fire, which does nothing
    # to assault boats and rubber rafts (CD 2.1, 8.2.1).
    ap_only: bool = False
    limited: bool = False
    rocket: bool = False
    smoke: bool = False
    illum: bool = False
    aa: bool = False
    flame: Literal["man-pack", "vehicle", "trailer"] | None = None

    def band(self, distance: float) -> str | None:
        """The range band a distance falls in, or None beyond long range."""
        for name in BAND_NAMES:
            if within(distance, getattr(self.ranges, name)):
                return name
        return None

    @property
    def calibre_cm(self) -> int:
        # CD 1.2: calibre compared in whole centimetres, rounded down.
        return int((self.calibre_mm or 0) // 10)


def check_weapon(w: Weapon, ctx: Context, path: PathT = ()) -> None:
    """Checks across a weapon's fields (each problem names the field to change)."""
    r = w.ranges
    if not r.close <= r.medium <= r.long:
        ctx.error(
            (*path, "ranges"),
            f"range bands must not decrease (close <= medium <= long), got close {r.close:g}, "
            f"medium {r.medium:g}, long {r.long:g}",
        )
    # SPEC 6: anything that fires a template needs its diameter and its HE number.
    if w.indirect or w.burst is not None or w.he is not None:
        what = "an indirect-fire weapon" if w.indirect else "a weapon firing an HE template"
        if w.burst is None:
            ctx.error(
                (*path, "burst"), f"missing: {what} needs 'burst' (template diameter, inches)"
            )
        if w.he is None:
            ctx.error((*path, "he"), f"missing: {what} needs 'he' (its HE number, 0-10)")
    if w.indirect_only and not w.indirect:
        ctx.error((*path, "indirect_only"), "indirect_only needs indirect: true as well")
    if w.calibre_mm is None and w.flame is None:
        ctx.error(
            (*path, "calibre_mm"),
            "missing: needed to decide ammunition depletion (CD 1.2); flamethrowers give 'flame'",
        )


# --- terrain ---------------------------------------------------------------------------------


@frozen_dataclass(kw_only=True)
class Move:
    """What a terrain kind leaves of each kind of movement, or None where that kind cannot
    enter it."""

    foot: float | None = bounded(min=0)
    wheeled: float | None = bounded(min=0)
    tracked: float | None = bounded(min=0)


@frozen_dataclass(kw_only=True)
class TerrainKind(Entry):
    """A kind of terrain of ``terrain.yaml``: its shape, what it does to sight (blocks, height,
    how far one sees into it), the cover it gives, water, movement and roads."""

    shape: Literal["area", "line", "either"]
    blocks: bool = False
    ground: bool = False
    height: float = bounded(0.0, min=0, max=20)
    see_into: float = bounded(0.0, min=0, max=48)
    cover: Literal["none", "light", "medium", "hard", "fortification"] = "none"
    water: Literal["none", "shallow", "deep"] = "none"
    move: Move | None = None
    road: Literal["hard", "dirt", "paved"] | None = None


# --- fire ------------------------------------------------------------------------------------


@frozen_dataclass(kw_only=True)
class Param(Entry):
    """One named number (or switch) a rule reads, with its unit."""

    value: float | bool | str
    unit: str | None = None


@frozen_dataclass(kw_only=True)
class Condition(Entry):
    """Visibility and movement under one light or weather condition (CD 9, 10)."""

    group: Literal["light", "weather"]
    visibility: float | None = bounded(None, min=0)
    spotting_factor: float | None = bounded(None, min=0, max=1)
    spotting_fixed: float | None = bounded(None, min=0)
    contact_up_to: float | None = bounded(None, min=0)
    vehicle_move: float = bounded(1.0, min=0, max=1)
    personnel_move: float = bounded(1.0, min=0, max=1)
    turn_minutes: int | None = bounded(None, min=1)
    severity: int = bounded(0, min=0, max=10)


@frozen_dataclass(kw_only=True)
class Spotting(Entry):
    """Daylight spotting distance by the target's cover (deterministic, no roll)."""

    stationary: float | None = bounded(None, min=0)
    moving: float | None = bounded(None, min=0)
    firing: float | None = bounded(None, min=0)


class _Schemas(MutableMapping[str, type[Entry]]):
    """Chart name -> its entry class. A class given as ``"module:Class"`` (in
    ``tabletop.data.entries``) is imported when first asked for, as the action and model
    registries load theirs: ``measure`` builds six tables and should not define the classes
    of twenty (docs/performance.md)."""

    def __init__(self, schemas: dict[str, "type[Entry] | str"]):
        self._schemas = schemas
        # Class name -> "module:Class", for those named by text.
        self.lazy = {s.partition(":")[2]: s for s in schemas.values() if isinstance(s, str)}

    def __getitem__(self, name: str) -> type[Entry]:
        schema = self._schemas[name]
        if isinstance(schema, str):
            schema = self._schemas[name] = _import(schema)
        return schema

    def __setitem__(self, name: str, schema: type[Entry]) -> None:
        self._schemas[name] = schema

    def __delitem__(self, name: str) -> None:
        del self._schemas[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._schemas)

    def __len__(self) -> int:
        return len(self._schemas)


CHART_SCHEMAS = _Schemas(
    {
        "weapons": Weapon,
        "stand_kinds": "tabletop.data.entries.stands:StandKind",
        "quality": "tabletop.data.entries.stands:Quality",
        "terrain": TerrainKind,
        "cover": "tabletop.data.entries.fire:Cover",
        "modifiers": "tabletop.data.entries.fire:Modifier",
        "turn": "tabletop.data.entries.turn:Phase",
        "ammo": Param,
        "barrage": Param,
        "table": Param,
        "conditions": Condition,
        "spotting": Spotting,
        "weather": Param,
        "ground": "tabletop.data.entries.ground:GroundEffect",
        "miring": "tabletop.data.entries.ground:Miring",
        "wind": "tabletop.data.entries.ground:WindChange",
        "presets": "tabletop.data.entries.ground:Preset",
        "engineering": Param,
        "obstacles": "tabletop.data.entries.works:ObstacleWork",
        "works": "tabletop.data.entries.works:PregameWork",
        "mines": Param,
        "structures": Param,
        "airborne": "tabletop.data.entries.airborne:AirborneRow",
        "amphibious": "tabletop.data.entries.amphibious:AmphibiousRow",
        "morale": Param,
        "movement": "tabletop.data.entries.movement:Allowance",
    }
)


def __getattr__(name: str) -> Any:
    """``charts.Phase`` and the other classes kept in ``tabletop.data.entries``, loaded on
    first use (PEP 562), so this module's names stay what they were."""
    target = CHART_SCHEMAS.lazy.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _import(target)


def _import(target: str) -> type[Entry]:
    module, _, name = target.partition(":")
    schema: type[Entry] = getattr(importlib.import_module(module), name)
    return schema


# --- loading ---------------------------------------------------------------------------------


@frozen_dataclass
class Origin:
    """Where a chart entry was last given, so a problem names that file, line and entry."""

    file: str
    position: int  # 1-based, in that file: names an entry that has no usable id
    lines: dict[PathT, int] = dataclasses.field(default_factory=dict)
    # An overlay entry whose id is new but close to a bundled one is probably a typo.
    hint: str | None = None


Origins = dict[str, dict[int, Origin]]  # chart name -> index in the merged entry list -> origin


def entry_id(entry: Any) -> str | None:
    """The id a raw entry is matched by (ids are text; a whole number counts as its text)."""
    value = entry.get("id") if isinstance(entry, dict) else None
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    # A model chart holds several tables; an id need only be unique within its table.
    table = entry.get("table") if isinstance(entry, dict) else None
    return f"{table}/{value}" if isinstance(table, str) else value


def overlay(base: Raw, extra: Raw) -> Raw:
    """Entries of ``extra`` change the fields they give of base entries with the same id."""
    return overlay_with_origins(base, extra, {}, {})


def overlay_with_origins(
    base: Raw, extra: Raw, origins: Origins, extra_origins: dict[str, list[Origin]]
) -> Raw:
    """``overlay``, recording in ``origins`` where each changed or added entry was given
    (``extra_origins``: the overlay's own entries, in order), so a problem names its file."""
    merged: Raw = {name: [dict(e) for e in entries] for name, entries in base.items()}
    for name, entries in extra.items():
        target = merged.setdefault(name, [])
        # Ids may be anything in a broken file (a list cannot even be a dict key).
        index: dict[str, int] = {}
        for i, e in enumerate(target):
            known = entry_id(e)
            if known is not None:
                index[known] = i
        given = extra_origins.get(name, [])
        for position, entry in enumerate(entries):
            origin = given[position] if position < len(given) else None
            ident = entry_id(entry)
            if ident is not None and ident in index:
                at = index[ident]
                target[at] = {**target[at], **entry}
            else:
                at = len(target)
                target.append(entry)
                close = did_you_mean(ident, index) if ident is not None else ""
                if origin is not None and close:
                    origin = dataclasses.replace(
                        origin, hint=f"{ident!r} is a new entry, not a change{close}"
                    )
            if origin is not None:
                origins.setdefault(name, {})[at] = origin
    return merged


class _LazyTables(dict[str, dict[str, Any]]):
    """Chart tables built from trusted raw data on first use."""

    def __init__(self, raw: Raw):
        super().__init__()
        self._raw = raw

    def __missing__(self, name: str) -> dict[str, Any]:
        schema = CHART_SCHEMAS[name]
        table: dict[str, Any] = {}
        for data in self._raw.get(name, []):
            entry = build_trusted(schema, data)
            table[entry.id] = entry
        self[name] = table
        return table


class ParamSet(Protocol):
    """One chart's parameters as a typed frozen dataclass (``tabletop.data.chart_params``)."""

    CHART: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Any]]


P = TypeVar("P", bound=ParamSet)


def build_params(cls: type[P], table: Mapping[str, Any]) -> P:
    """``cls`` from a chart of ``Param`` entries: each field is the entry whose id is the
    field's name with ``-`` for ``_``, of the field's type (int: a whole number)."""
    problems: list[str] = []
    values: dict[str, Any] = {}
    for name, kind in typing.get_type_hints(cls).items():
        if name == "CHART":
            continue
        ident = name.replace("_", "-")
        where = f"{cls.CHART}.yaml: entry {ident!r}"
        entry = table.get(ident)
        if entry is None:
            problems.append(f"{where}: missing (the program needs this parameter)")
            continue
        value = entry.value
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if kind in (bool, str) and isinstance(value, kind):
            values[name] = value
        elif kind is float and number:
            values[name] = float(value)
        elif kind is int and number and float(value).is_integer():
            values[name] = int(value)
        else:
            wanted = {bool: "true or false", str: "a word", float: "a number"}.get(
                kind, "a whole number"
            )
            problems.append(f"{where}: value must be {wanted}, got {value!r}")
    if problems:
        raise ChartError(problems)
    return cls(**values)


class Charts:
    """Validated charts, one mapping per chart file, entries keyed by id."""

    def __init__(self, raw: Raw, origins: Origins | None = None, *, trusted: bool = False):
        self.raw = raw
        self._model_tables: dict[str, dict[str, dict[str, Any]]] = {}
        self._params: dict[type, Any] = {}
        problems: list[str] = []
        self._tables: dict[str, dict[str, Any]] = {}
        self._origins: dict[tuple[str, str], Origin] = {}
        if trusted:
            # A game's own copy, validated when the game began: rebuild each table without
            # checks, and only when a command first reads it.
            self._tables = _LazyTables(raw)
            return
        for name, schema in CHART_SCHEMAS.items():
            self._tables[name] = self._build_table(
                name, schema, raw.get(name, []), (origins or {}).get(name, {}), problems
            )
        self._cross_check(problems)
        if problems:
            raise ChartError(problems)

    def table(self, name: str) -> Mapping[str, Any]:
        return self._tables[name]

    def model_tables(
        self, chart: str, schemas: Mapping[str, type[Entry]]
    ) -> dict[str, dict[str, Any]]:
        """An alternative model's chart (``models/<chart>.yaml``), validated with its own
        schemas: each entry names its ``table``. Built once per Charts."""
        key = f"models/{chart}"
        cached = self._model_tables.get(key)
        if cached is not None:
            return cached
        problems: list[str] = []
        tables: dict[str, dict[str, Any]] = {name: {} for name in schemas}
        for index, data in enumerate(self.raw.get(key, [])):
            ident = entry_id(data)
            where = f"entry {ident!r}" if ident is not None else f"entry {index + 1}"
            ctx = Context(f"{key}.yaml: {where}")
            table = data.get("table") if isinstance(data, dict) else None
            if not isinstance(table, str) or table not in schemas:
                ctx.error(
                    ("table",),
                    f"{table!r} is not a table of this chart (tables: {', '.join(schemas)})",
                )
                problems.extend(ctx.problems)
                continue
            fields = {k: v for k, v in data.items() if k != "table"}
            entry = build(schemas[table], fields, ctx)
            problems.extend(ctx.problems)
            if entry is not None:
                if entry.id in tables[table]:
                    problems.append(f"{key}.yaml: {where}: duplicate id in table {table!r}")
                tables[table][entry.id] = entry
        if key not in self.raw:
            problems.append(f"{key}.yaml: missing chart file")
        if problems:
            raise ChartError(problems)
        self._model_tables[key] = tables
        return tables

    def model_charts(self) -> list[str]:
        return sorted(k.split("/", 1)[1] for k in self.raw if k.startswith("models/"))

    @property
    def weapons(self) -> Mapping[str, Weapon]:
        return self._tables["weapons"]

    @property
    def stand_kinds(self) -> Mapping[str, "StandKind"]:
        return self._tables["stand_kinds"]

    @property
    def quality(self) -> Mapping[str, "Quality"]:
        return self._tables["quality"]

    @property
    def terrain(self) -> Mapping[str, TerrainKind]:
        return self._tables["terrain"]

    @property
    def cover(self) -> Mapping[str, "Cover"]:
        return self._tables["cover"]

    @property
    def modifiers(self) -> Mapping[str, "Modifier"]:
        return self._tables["modifiers"]

    @property
    def conditions(self) -> Mapping[str, Condition]:
        return self._tables["conditions"]

    @property
    def spotting(self) -> Mapping[str, Spotting]:
        return self._tables["spotting"]

    @cached_property
    def phases(self) -> tuple["Phase", ...]:
        """The turn's phases in order (the turn chart's entries without ``at``)."""
        return tuple(p for p in self._tables["turn"].values() if p.at is None)

    def steps_at(self, boundary: str) -> tuple["Phase", ...]:
        """The steps the turn chart runs at ``boundary``, in its order."""
        return tuple(p for p in self._tables["turn"].values() if p.at == boundary)

    def phase(self, phase_id: str) -> "Phase":
        phase: Phase = self._tables["turn"][phase_id]
        return phase

    def params(self, cls: type[P]) -> P:
        """One chart's parameters, typed: ``charts.params(EngineeringParams).adjacent``
        (classes in ``tabletop.data.chart_params``). Built and checked once per Charts."""
        built = self._params.get(cls)
        if built is None:
            table = self._tables[cls.CHART]
            if CHART_SCHEMAS[cls.CHART] is not Param:  # a chart of mixed rows (CD 7, 8)
                table = {k: e for k, e in table.items() if e.table == "param"}
            built = self._params[cls] = build_params(cls, table)
        result: P = built
        return result

    def modifier(self, key: str) -> "Modifier":
        modifier: Modifier = self._tables["modifiers"][key]
        return modifier

    def quality_order(self) -> list[str]:
        return [q.id for q in sorted(self.quality.values(), key=lambda q: q.rank)]

    def _context(self, name: str, ident: str) -> Context:
        origin = self._origins.get((name, ident))
        if origin is None:
            return Context(f"{name}.yaml", label=f"entry {ident!r}")
        return Context(origin.file, origin.lines, label=f"entry {ident!r}")

    def _cross_check(self, problems: list[str]) -> None:
        for q in self.quality.values():
            ctx = self._context("quality", q.id)
            if not q.no_effect_up_to <= q.forced_back_up_to:
                ctx.error(
                    ("no_effect_up_to",),
                    f"{q.no_effect_up_to} must not exceed forced_back_up_to "
                    f"({q.forced_back_up_to})",
                )
            if q.night_as is not None and q.night_as not in self.quality:
                ctx.error(
                    ("night_as",),
                    f"unknown quality {q.night_as!r} (known: {', '.join(sorted(self.quality))})"
                    f"{did_you_mean(q.night_as, self.quality)}",
                )
            problems.extend(ctx.problems)
        if not self.phases:
            problems.append("turn.yaml: the turn needs at least one phase")
        self._check_steps(problems)

    def _check_steps(self, problems: list[str]) -> None:
        """A step's ``at`` must name a boundary the turn has (turn chart)."""
        ids = [p.id for p in self.phases]
        known = ["start-turn", "end-turn", "end-phase"]
        known += [f"{edge}-phase:{p}" for p in ids for edge in ("start", "end")]
        for step in self._tables["turn"].values():
            if step.at is not None and step.at not in known:
                problems.append(
                    f"turn.yaml: entry {step.id!r}: 'at' {step.at!r} is not a boundary of the "
                    f"turn (accepted: {', '.join(known)})"
                )

    def _build_table(
        self,
        name: str,
        schema: type[Entry],
        entries: list[Any],
        origins: dict[int, Origin],
        problems: list[str],
    ) -> dict[str, Any]:
        table: dict[str, Any] = {}
        for index, data in enumerate(entries):
            origin = origins.get(index, Origin(f"{name}.yaml", index + 1))
            label = entry_id(data)
            where = f"entry {label!r}" if label is not None else f"entry {origin.position}"
            ctx = Context(origin.file, origin.lines, label=where)
            entry = build(schema, data, ctx)
            if isinstance(entry, Weapon):
                check_weapon(entry, ctx)
            if ctx.problems:
                problems.extend(ctx.problems)
                if origin.hint:
                    ctx.problems.clear()
                    ctx.error((), origin.hint)
                    problems.extend(ctx.problems)
                continue
            assert entry is not None
            if entry.id in table:
                ctx.error(("id",), f"duplicate id {entry.id!r}: each entry needs its own id")
                problems.extend(ctx.problems)
                continue
            table[entry.id] = entry
            self._origins[(name, entry.id)] = origin
        return table


def entry_as_dict(entry: Entry) -> dict[str, Any]:
    """An entry as plain data, leaving out unset optional fields (for ``charts show``)."""

    def clean(value: Any) -> Any:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {
                k: clean(v)
                for k, v in dataclasses.asdict(value).items()
                if v is not None and v is not False and v != ()
            }
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if v is not None}
        return value

    return typing_cast_dict(clean(entry))


def typing_cast_dict(value: Any) -> dict[str, Any]:
    assert isinstance(value, dict)
    return value
