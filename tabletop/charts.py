"""Rule charts: ``charts/*.yaml`` loaded into frozen dataclasses.

Every chart file is a list of ``entries``, each with an ``id`` and the ``rule`` it
implements; entries that are our defaults (numbers the seeds assume but do not print) say
``default: true``. A referee overlays their own numbers with ``--charts DIR`` (or
``charts:`` in the scenario): an overlay file of the same name changes the fields it gives
of an entry with the same id, and adds new entries.

Charts are validated as a whole: ``ChartError.problems`` lists every problem with file,
entry and field. A game keeps the raw charts it started with (``raw``), so replaying it
later gives the same result even if the files on disk change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from tabletop.errors import ChartError
from tabletop.schema import Context, bounded, build, read_yaml_file

Raw = dict[str, list[dict[str, Any]]]

Level = Literal["I", "II", "III", "IV", "V", "VI"]
WEIGHT_LEVELS: tuple[str, ...] = ("I", "II", "III", "IV", "V", "VI")


def weight_number(level: str | None) -> int:
    """Weight class I-VI as 1-6 (0 for none)."""
    return WEIGHT_LEVELS.index(level) + 1 if level in WEIGHT_LEVELS else 0


@dataclass(frozen=True, kw_only=True)
class Entry:
    id: str
    rule: str
    default: bool = False
    note: str | None = None


# --- weapons -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Bands:
    close: float = bounded(min=0)
    medium: float = bounded(min=0)
    long: float = bounded(min=0)


@dataclass(frozen=True, kw_only=True)
class ToHit:
    close: int = bounded(min=0, max=10)
    medium: int = bounded(min=0, max=10)
    long: int = bounded(min=0, max=10)


BAND_NAMES: tuple[str, ...] = ("close", "medium", "long")


@dataclass(frozen=True, kw_only=True)
class Weapon(Entry):
    name: str | None = None
    calibre_mm: float | None = bounded(None, min=0)
    rof: int = bounded(min=1, max=40)
    ranges: Bands
    to_hit: ToHit
    to_hit_afv: ToHit | None = None
    burst: float | None = bounded(None, min=0.1, max=24)
    he: int | None = bounded(None, min=0, max=10)
    indirect: bool = False
    limited: bool = False
    rocket: bool = False
    smoke: bool = False
    illum: bool = False
    aa: bool = False
    flame: Literal["man-pack", "vehicle", "trailer"] | None = None

    def band(self, distance: float) -> str | None:
        """The range band a distance falls in, or None beyond long range."""
        for name in BAND_NAMES:
            if distance <= getattr(self.ranges, name):
                return name
        return None

    @property
    def calibre_cm(self) -> int:
        # CD 1.2: calibre compared in whole centimetres, rounded down.
        return int((self.calibre_mm or 0) // 10)


def _check_weapon(w: Weapon, ctx: Context, path: tuple[str | int, ...]) -> None:
    r = w.ranges
    if not r.close <= r.medium <= r.long:
        ctx.error((*path, "ranges"), "range bands must not decrease (close <= medium <= long)")
    if (w.indirect or w.burst is not None) and (w.burst is None or w.he is None):
        ctx.error(path, "an indirect-fire weapon needs both 'burst' and 'he'")
    if w.calibre_mm is None and w.flame is None:
        ctx.error(path, "missing 'calibre_mm' (needed to decide ammunition depletion, CD 1.2)")


# --- stands and quality ----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class StandKind(Entry):
    category: Literal["personnel", "vehicle", "gun"]
    mobility: Literal["foot", "mounted", "towed", "wheeled", "halftrack", "tracked", "static"]
    armoured: bool = False
    soft: bool = False
    weak_afv: bool = False
    width: float = bounded(min=0.1, max=12)
    depth: float = bounded(min=0.1, max=12)
    weight_class: Level | None = None
    depletion_adjust_cm: int = bounded(0, min=-5, max=5)
    supply: bool = False
    engineer: bool = False
    earthmover: bool = False
    recovery: bool = False
    command: bool = False

    @property
    def is_vehicle(self) -> bool:
        return self.category == "vehicle"


@dataclass(frozen=True, kw_only=True)
class Quality(Entry):
    rank: int = bounded(min=0, max=9)
    no_effect_up_to: int = bounded(min=0, max=10)
    forced_back_up_to: int = bounded(min=0, max=10)
    night_as: str | None = None


# --- terrain ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Move:
    foot: float | None = bounded(min=0)
    wheeled: float | None = bounded(min=0)
    tracked: float | None = bounded(min=0)


@dataclass(frozen=True, kw_only=True)
class TerrainKind(Entry):
    shape: Literal["area", "line", "either"]
    blocks: bool = False
    ground: bool = False
    height: float = bounded(0.0, min=0, max=20)
    see_into: float = bounded(0.0, min=0, max=48)
    cover: Literal["none", "light", "medium", "hard"] = "none"
    water: Literal["none", "shallow", "deep"] = "none"
    move: Move | None = None
    road: Literal["hard", "dirt", "paved"] | None = None


# --- fire ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Cover(Entry):
    """To-hit modifiers for the target's cover (direct fire and indirect fire)."""

    direct: int = bounded(min=-10, max=10)
    indirect: int = bounded(min=-10, max=10)


@dataclass(frozen=True, kw_only=True)
class Modifier(Entry):
    """A named to-hit modifier; the procedure decides when it applies, the chart its value."""

    label: str
    value: int = bounded(min=-10, max=10)
    fire: Literal["direct", "indirect", "both"] = "both"


@dataclass(frozen=True, kw_only=True)
class Phase(Entry):
    label: str
    allows: tuple[str, ...] = ()
    depletion_rolls: bool = False


@dataclass(frozen=True, kw_only=True)
class Param(Entry):
    value: float | bool | str
    unit: str | None = None


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
class Spotting(Entry):
    """Daylight spotting distance by the target's cover (deterministic, no roll)."""

    stationary: float | None = bounded(None, min=0)
    moving: float | None = bounded(None, min=0)
    firing: float | None = bounded(None, min=0)


CHART_SCHEMAS: dict[str, type[Entry]] = {
    "weapons": Weapon,
    "stand_kinds": StandKind,
    "quality": Quality,
    "terrain": TerrainKind,
    "cover": Cover,
    "modifiers": Modifier,
    "turn": Phase,
    "ammo": Param,
    "barrage": Param,
    "table": Param,
    "conditions": Condition,
    "spotting": Spotting,
}


# --- loading ---------------------------------------------------------------------------------


def read_raw(folder: Path, problems: list[str], *, required: bool) -> Raw:
    """Read every known chart file in ``folder`` into plain entry lists."""
    raw: Raw = {}
    for name in CHART_SCHEMAS:
        path = folder / f"{name}.yaml"
        if not path.is_file():
            if required:
                problems.append(f"charts/{name}.yaml: missing chart file")
            continue
        try:
            data, ctx = read_yaml_file(path, f"{folder.name}/{path.name}")
        except ChartError as exc:
            problems.extend(exc.problems)
            continue
        except Exception as exc:  # BadInput for unreadable or malformed YAML
            problems.append(str(exc))
            continue
        if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
            problems.append(f"{folder.name}/{path.name}: expected a mapping with an 'entries' list")
            continue
        extra = set(data) - {"entries"}
        if extra:
            problems.append(
                f"{folder.name}/{path.name}: unknown top-level key(s) {sorted(extra)} "
                "(accepted: entries)"
            )
        raw[name] = list(data["entries"])
    if not required:
        known = {f"{n}.yaml" for n in CHART_SCHEMAS}
        for path in sorted(folder.glob("*.yaml")):
            if path.name not in known:
                problems.append(
                    f"{folder.name}/{path.name}: not a chart this program knows "
                    f"(known: {', '.join(sorted(known))})"
                )
    return raw


def overlay(base: Raw, extra: Raw) -> Raw:
    """Entries of ``extra`` change the fields they give of base entries with the same id."""
    merged: Raw = {name: [dict(e) for e in entries] for name, entries in base.items()}
    for name, entries in extra.items():
        target = merged.setdefault(name, [])
        index = {e.get("id"): i for i, e in enumerate(target) if isinstance(e, dict)}
        for entry in entries:
            if isinstance(entry, dict) and entry.get("id") in index:
                target[index[entry["id"]]] = {**target[index[entry["id"]]], **entry}
            else:
                target.append(entry)
    return merged


def load_raw(overlays: tuple[Path, ...] = ()) -> Raw:
    """The bundled charts with the overlay folders applied in order."""
    from tabletop.resources import charts_dir

    problems: list[str] = []
    raw = read_raw(charts_dir(), problems, required=True)
    for folder in overlays:
        if not folder.is_dir():
            problems.append(f"--charts {str(folder)!r}: not a folder")
            continue
        raw = overlay(raw, read_raw(folder, problems, required=False))
    if problems:
        raise ChartError(problems)
    return raw


class Charts:
    """Validated charts, one mapping per chart file, entries keyed by id."""

    def __init__(self, raw: Raw):
        self.raw = raw
        problems: list[str] = []
        self._tables: dict[str, dict[str, Any]] = {}
        for name, schema in CHART_SCHEMAS.items():
            self._tables[name] = _build_table(name, schema, raw.get(name, []), problems)
        self._cross_check(problems)
        if problems:
            raise ChartError(problems)

    @classmethod
    def load(cls, overlays: tuple[Path, ...] = ()) -> Charts:
        return cls(load_raw(overlays))

    def table(self, name: str) -> Mapping[str, Any]:
        return self._tables[name]

    @property
    def weapons(self) -> Mapping[str, Weapon]:
        return self._tables["weapons"]

    @property
    def stand_kinds(self) -> Mapping[str, StandKind]:
        return self._tables["stand_kinds"]

    @property
    def quality(self) -> Mapping[str, Quality]:
        return self._tables["quality"]

    @property
    def terrain(self) -> Mapping[str, TerrainKind]:
        return self._tables["terrain"]

    @property
    def cover(self) -> Mapping[str, Cover]:
        return self._tables["cover"]

    @property
    def modifiers(self) -> Mapping[str, Modifier]:
        return self._tables["modifiers"]

    @property
    def conditions(self) -> Mapping[str, Condition]:
        return self._tables["conditions"]

    @property
    def spotting(self) -> Mapping[str, Spotting]:
        return self._tables["spotting"]

    @cached_property
    def phases(self) -> tuple[Phase, ...]:
        return tuple(self._tables["turn"].values())

    def phase(self, phase_id: str) -> Phase:
        return self._tables["turn"][phase_id]

    def param(self, chart: str, key: str) -> Any:
        return self._tables[chart][key].value

    def modifier(self, key: str) -> Modifier:
        return self._tables["modifiers"][key]

    def quality_order(self) -> list[str]:
        return [q.id for q in sorted(self.quality.values(), key=lambda q: q.rank)]

    def _cross_check(self, problems: list[str]) -> None:
        for q in self.quality.values():
            if not q.no_effect_up_to <= q.forced_back_up_to:
                problems.append(
                    f"quality.yaml: entry {q.id!r}: no_effect_up_to must not exceed "
                    "forced_back_up_to"
                )
            if q.night_as is not None and q.night_as not in self.quality:
                problems.append(
                    f"quality.yaml: entry {q.id!r}: field 'night_as': unknown quality "
                    f"{q.night_as!r}"
                )
        if not self.phases:
            problems.append("turn.yaml: the turn needs at least one phase")


def _build_table(
    name: str, schema: type[Entry], entries: list[Any], problems: list[str]
) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for index, data in enumerate(entries):
        label = data.get("id") if isinstance(data, dict) else None
        where = f"entry {label!r}" if isinstance(label, str) else f"entry {index + 1}"
        ctx = Context(f"{name}.yaml: {where}")
        entry = build(schema, data, ctx)
        if entry is not None and schema is Weapon:
            _check_weapon(entry, ctx, ())  # type: ignore[arg-type]
        if ctx.problems:
            problems.extend(p.replace(": : ", ": ") for p in ctx.problems)
            continue
        assert entry is not None
        if entry.id in table:
            problems.append(f"{name}.yaml: {where}: duplicate id {entry.id!r}")
            continue
        table[entry.id] = entry
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
