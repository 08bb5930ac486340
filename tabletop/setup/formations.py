"""Whole formations from templates (SPEC 3, ``scenario stands --unit``; charts/formations.yaml).

A template is one formation tree (a company, a platoon, a company of platoons) with its
stands and its supply point, written with local ids. Deploying it under a prefix P names
the top formation P, a formation below it P/ID and each stand P-ID, and sets the stands
down in line abreast: the fighting stands side by side across the facing, ``GAP`` apart
and centred on the point given, the supply stands in a second line behind them. Without a
point the stands are added off the table, to arrive later.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tabletop.core.errors import BadInput, ScenarioError
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.spelling import did_you_mean
from tabletop.data.resources import charts_dir
from tabletop.data.schema import Context, build
from tabletop.data.yaml_text import read_yaml_file
from tabletop.setup.shapes import Point, number

# Between neighbouring bases in the line, and between the line and the supply stands
# behind it (house default: a platoon's frontage at 50 yards to the inch).
GAP = 1.0

FILE_NAME = "formations.yaml"


@frozen_dataclass(kw_only=True)
class TemplateFormation:
    """A formation of the template; the top one (no parent) takes the prefix for its id."""

    id: str
    kind: Literal["division", "brigade", "regiment", "battalion", "company", "platoon"]
    parent: str | None = None


@frozen_dataclass(kw_only=True)
class TemplateStand:
    """A stand of the template; ``formation`` is a local formation id (None: the top)."""

    id: str
    kind: str
    weapons: tuple[str, ...] = ()
    formation: str | None = None
    quality: str | None = None


@frozen_dataclass(kw_only=True)
class Template:
    """One formation template, citing the establishment it follows."""

    id: str
    name: str
    source: str
    default: bool = False
    note: str = ""
    quality: str = "regular"
    formations: tuple[TemplateFormation, ...]
    stands: tuple[TemplateStand, ...]


@frozen_dataclass(kw_only=True)
class _TemplateFile:
    entries: tuple[Template, ...]


def load_templates(extra: Path | None = None) -> dict[str, Template]:
    """The bundled templates, and a referee's own file's over them (same id replaces)."""
    templates = _read(charts_dir() / FILE_NAME, f"charts/{FILE_NAME}")
    if extra is not None:
        templates.update(_read(extra, extra.name))
    return templates


def _read(path: Path, shown: str) -> dict[str, Template]:
    data, ctx = read_yaml_file(path, shown)
    built = build(_TemplateFile, data, ctx)
    if built is None or ctx.problems:
        raise ScenarioError(ctx.problems or [f"{shown}: expected a mapping with 'entries'"])
    out: dict[str, Template] = {}
    for i, template in enumerate(built.entries):
        _check(template, ctx, i)
        if template.id in out:
            ctx.error(("entries", i, "id"), f"duplicate template id {template.id!r}")
        out[template.id] = template
    if ctx.problems:
        raise ScenarioError(ctx.problems)
    return out


def _check(template: Template, ctx: Context, i: int) -> None:
    local = [f.id for f in template.formations]
    tops = [f for f in template.formations if f.parent is None]
    if len(tops) != 1:
        ctx.error(
            ("entries", i, "formations"),
            "give exactly one top formation, with no parent (it takes the prefix for its id)",
        )
    for f_i, form in enumerate(template.formations):
        if form.parent is not None and form.parent not in local:
            ctx.error(("entries", i, "formations", f_i, "parent"), f"no formation {form.parent!r}")
    for s_i, stand in enumerate(template.stands):
        if stand.formation is not None and stand.formation not in local:
            ctx.error(
                ("entries", i, "stands", s_i, "formation"), f"no formation {stand.formation!r}"
            )


def find_template(templates: dict[str, Template], name: str) -> Template:
    if name in templates:
        return templates[name]
    raise BadInput(
        f"--unit {name!r}: no such formation template (templates: "
        f"{', '.join(sorted(templates))}){did_you_mean(name, templates)}"
    )


@dataclass(frozen=True)
class Deployment:
    """A template deployed: the formation and stand entries, in the file's order."""

    formations: list[dict[str, object]]
    stands: list[dict[str, object]]


def _formation_ids(template: Template, prefix: str) -> dict[str | None, str]:
    """Local formation id -> the scenario's: the top is the prefix, the others PREFIX/ID;
    None (a stand that names none) is the top."""
    ids: dict[str | None, str] = {}
    for form in template.formations:
        ids[form.id] = prefix if form.parent is None else f"{prefix}/{form.id}"
        if form.parent is None:
            ids[None] = prefix
    return ids


def deploy(
    template: Template,
    prefix: str,
    *,
    at: Point | None,
    facing: float,
    quality: str | None,
    parent: str | None,
    extent: Callable[[str], tuple[float, float]],
    is_supply: Callable[[str], bool],
) -> Deployment:
    """The template's entries under ``prefix``, in line abreast at ``at`` facing ``facing``
    (or off the table). ``extent`` gives a stand kind's base (width, depth)."""
    ids = _formation_ids(template, prefix)
    formations: list[dict[str, object]] = []
    for form in template.formations:
        up = parent if form.parent is None else ids[form.parent]
        formations.append({"id": ids[form.id], "kind": form.kind, "parent": up})
    stands: list[dict[str, object]] = []
    for stand in template.stands:
        entry: dict[str, object] = {
            "id": f"{prefix}-{stand.id}",
            "kind": stand.kind,
            "quality": quality or stand.quality or template.quality,
            "formation": ids[stand.formation],
        }
        if stand.weapons:
            entry["weapons"] = list(stand.weapons)
        stands.append(entry)
    if at is not None:
        front = [s for s in stands if not is_supply(str(s["kind"]))]
        back = [s for s in stands if is_supply(str(s["kind"]))]
        depth_front = max((extent(str(s["kind"]))[1] for s in front), default=0.0)
        depth_back = max((extent(str(s["kind"]))[1] for s in back), default=0.0)
        _line(front, at, facing, 0.0, extent)
        behind = (depth_front + depth_back) / 2 + GAP if front else 0.0
        _line(back, at, facing, behind, extent)
    return Deployment(formations, stands)


def _line(
    stands: list[dict[str, object]],
    at: Point,
    facing: float,
    behind: float,
    extent: Callable[[str], tuple[float, float]],
) -> None:
    """Set ``stands`` side by side across ``facing``, centred ``behind`` inches to the rear
    of ``at``, left to right as the stands face."""
    if not stands:
        return
    widths = [extent(str(s["kind"]))[0] for s in stands]
    span = sum(widths) + GAP * (len(widths) - 1)
    a = math.radians(facing)
    ahead = (math.sin(a), math.cos(a))  # the facing, clockwise from north
    right = (math.cos(a), -math.sin(a))
    cx, cy = at[0] - ahead[0] * behind, at[1] - ahead[1] * behind
    offset = -span / 2
    for stand, width in zip(stands, widths, strict=True):
        along = offset + width / 2
        stand["at"] = [number(cx + right[0] * along), number(cy + right[1] * along)]
        stand["facing"] = number(facing % 360)
        offset += width + GAP
