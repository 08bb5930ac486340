"""A roster exported from a spreadsheet, read into stand entries (SPEC 3, ``scenario stands
--csv``).

One stand a row under a header row naming the columns ``id, side, kind, quality, weapons,
formation, x, y, facing`` in any order (``id``, ``side`` and ``kind`` are needed, the others
may be left out or left empty). Weapons are separated by spaces or ``;``; a stand with no
``x`` and ``y`` waits off the table. Spreadsheets save CSV with a byte-order mark, with
``;`` between the cells (where the comma is the decimal mark) or with tabs: all are read.
A row is named as the spreadsheet numbers it, the header being row 1.

Only the form of the cells is checked here (a number where a number belongs); whether the
kind, quality, weapons and formation exist is for the scenario checks, which the refusal
then tells against the row.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop.core.errors import BadInput
from tabletop.core.spelling import did_you_mean
from tabletop.setup.shapes import number

COLUMNS = ("id", "side", "kind", "quality", "weapons", "formation", "x", "y", "facing")
REQUIRED = ("id", "side", "kind")


@dataclass(frozen=True)
class RosterRow:
    """One stand of the roster: the spreadsheet's row number, its side, its entry."""

    row: int
    side: str
    entry: dict[str, Any]

    def origin(self, source: str) -> str:
        return f"{source} row {self.row} ({self.entry['id']})"


def read_roster(path: Path) -> list[RosterRow]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise BadInput(f"roster {str(path)!r}: no such file") from None
    except UnicodeDecodeError:
        raise BadInput(
            f"roster {str(path)!r}: not UTF-8 text (save it from the spreadsheet as 'CSV UTF-8')"
        ) from None
    except OSError as exc:
        raise BadInput(f"roster {str(path)!r}: cannot be read ({exc.strerror})") from None
    return parse_roster(text, path.name)


def _delimiter(header: str) -> str:
    counts = {d: header.count(d) for d in (",", ";", "\t")}
    return max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","


def parse_roster(text: str, source: str) -> list[RosterRow]:
    text = text.removeprefix("\ufeff")  # a spreadsheet's byte-order mark
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        raise BadInput(
            f"{source}: empty; give a header row ({', '.join(COLUMNS)}) and a row a stand"
        )
    reader = csv.reader(io.StringIO(text), delimiter=_delimiter(lines[0]))
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise BadInput(f"{source} row {reader.line_num}: not readable as CSV ({exc})") from None
    header = [cell.strip().lower() for cell in rows[0]]
    columns = _columns(header, source)
    out: list[RosterRow] = []
    for number_, cells in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in cells):
            continue  # a blank row between groups
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header) :]):
            raise BadInput(
                f"{source} row {number_}: {len(cells)} cells under {len(header)} columns "
                "(a weapon list with commas in it needs quotes, or ';' between the weapons)"
            )
        values = {name: cells[i].strip() if i < len(cells) else "" for name, i in columns.items()}
        out.append(_row(values, number_, source))
    if not out:
        raise BadInput(f"{source}: no stands under the header row")
    return out


def _columns(header: list[str], source: str) -> dict[str, int]:
    columns: dict[str, int] = {}
    for i, name in enumerate(header):
        if not name:
            continue
        if name not in COLUMNS:
            raise BadInput(
                f"{source} row 1: unknown column {name!r} (columns: {', '.join(COLUMNS)})"
                f"{did_you_mean(name, COLUMNS)}"
            )
        if name in columns:
            raise BadInput(f"{source} row 1: the column {name!r} is given twice")
        columns[name] = i
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise BadInput(
            f"{source} row 1: no {', '.join(repr(m) for m in missing)} column "
            f"(the header names the columns: {', '.join(COLUMNS)})"
        )
    return columns


def _number(values: dict[str, str], key: str, row: int, source: str) -> float | None:
    text = values.get(key, "")
    if not text:
        return None
    try:
        value = float(text.rstrip('"'))
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise BadInput(f"{source} row {row}: {key} {text!r} is not a number of inches")
    return value


def _row(values: dict[str, str], row: int, source: str) -> RosterRow:
    for key in REQUIRED:
        if not values[key]:
            raise BadInput(f"{source} row {row}: the {key} is empty")
    entry: dict[str, Any] = {"id": values["id"], "kind": values["kind"]}
    if values.get("quality"):
        entry["quality"] = values["quality"].lower()
    if values.get("formation"):
        entry["formation"] = values["formation"]
    weapons = values.get("weapons", "").replace(";", " ").replace(",", " ").split()
    if weapons:
        entry["weapons"] = weapons
    x, y = _number(values, "x", row, source), _number(values, "y", row, source)
    if (x is None) != (y is None):
        raise BadInput(
            f"{source} row {row}: give both x and y (on the table) or neither (off the table)"
        )
    if x is not None and y is not None:
        entry["at"] = [number(x), number(y)]
    facing = _number(values, "facing", row, source)
    if facing is not None:
        entry["facing"] = number(facing % 360)
    return RosterRow(row, values["side"], entry)
