"""A scenario file edited in place, kept the person's own (SPEC 3, "Scenario edits").

The file is read with ruamel.yaml's round-trip loader and written back with the same
indentation, so its comments, key order, quoting and layout stay as they were; a new entry
is written in the style of its neighbours (one ``{flow: mapping}`` a line, as the bundled
scenarios, or a block mapping). Blank lines and comments that follow a list and belong to
what comes after it (a section heading for the sides) stay after the new entry.

Every edit is checked exactly as ``tabletop new`` checks a scenario
(``data.scenario_loader.parse_scenario``) before anything is written, and the file is
replaced in one step (a new file renamed over it), so a refused edit, or one cut short,
leaves the file byte for byte as it was. A refusal names the entry the edit would have
added as the person gave it (``roster.csv row 4 (US-7)``, ``the new piece woods-3``), the
problem and the nearest valid word.
"""

from __future__ import annotations

import difflib
import io
import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark, YAMLError
from ruamel.yaml.tokens import CommentToken

from tabletop.core.errors import BadInput, ScenarioError
from tabletop.core.frozen import mutable_dataclass
from tabletop.core.spelling import did_you_mean
from tabletop.data.scenario import LoadedScenario, ProfileLookup
from tabletop.data.scenario_loader import parse_scenario
from tabletop.data.schema import PathT, format_path


@dataclass(frozen=True)
class Checks:
    """What an edit is checked against, as ``tabletop new`` would check the file: the chart
    folders given with ``--charts`` and the alternative models' profile ids."""

    overlays: tuple[Path, ...] = ()
    profiles: ProfileLookup | None = None


# Where a new top-level list goes when the file has none yet: before the first of these.
_TOP_ORDER = ("format", "name", "table", "measure", "model", "turn", "conditions", "charts")


@mutable_dataclass
class ScenarioFile:
    """One scenario file open for editing: its text as read, and its round-trip data."""

    path: Path
    original: str
    data: CommentedMap
    yaml: YAML
    as_read: str  # the data as read, written back by ruamel (before any edit)
    checks: Checks = field(default_factory=Checks)
    newline: str = "\n"
    # What each added entry is, for a refusal: its path in the file -> how the person gave it.
    origins: dict[PathT, str] = field(default_factory=dict)
    remaining: list[str] = field(default_factory=list)  # problems a removal left

    @property
    def name(self) -> str:
        return self.path.name

    # --- reading ------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, checks: Checks | None = None) -> ScenarioFile:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise BadInput(
                f"scenario {str(path)!r}: no such file (start one with 'tabletop scenario new')"
            ) from None
        except OSError as exc:
            raise BadInput(f"scenario {str(path)!r}: cannot be read ({exc.strerror})") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput(f"scenario {str(path)!r}: not UTF-8 text (save it as UTF-8)") from None
        newline = "\r\n" if "\r\n" in text else "\n"
        text = text.replace("\r\n", "\n")
        yaml = YAML()
        yaml.width = 1_000_000  # never fold a long line the person wrote on one
        yaml.preserve_quotes = True
        try:
            yaml.indent(mapping=_mapping_indent(text), **_sequence_indent(text))
            data = yaml.load(text)
        except YAMLError:
            # The loader's own report names the line and what is wrong.
            parse_scenario(text, path.name, base_dir=path.parent)
            raise BadInput(f"{path.name}: not valid YAML") from None
        if not isinstance(data, CommentedMap):
            parse_scenario(text, path.name, base_dir=path.parent)
            raise BadInput(f"{path.name}: a scenario is a mapping of keys") from None
        return cls(path, text, data, yaml, _dump(yaml, data), checks or Checks(), newline)

    def check(self) -> LoadedScenario:
        """The file as it is, checked as ``new`` checks it."""
        return self._parse(self.original)

    def _parse(self, text: str) -> LoadedScenario:
        return parse_scenario(
            text,
            self.name,
            base_dir=self.path.parent,
            extra_overlays=self.checks.overlays,
            profiles=self.checks.profiles,
        )

    def ids(self) -> dict[str, str]:
        """Every id in the file (terrain pieces, formations, stands) -> what it is."""
        found: dict[str, str] = {}
        for piece in _items(self.data.get("terrain")):
            found.setdefault(str(piece.get("id")), "terrain piece")
        for side in _items(self.data.get("sides")):
            for form in _items(side.get("formations")):
                found.setdefault(str(form.get("id")), "formation")
            for stand in _items(side.get("stands")):
                found.setdefault(str(stand.get("id")), "stand")
        return found

    def next_id(self, stem: str) -> str:
        """The first free ``stem-N`` (``woods-3`` when woods-1 and woods-2 are taken)."""
        taken = {ident.casefold() for ident in self.ids()}
        n = 1
        while f"{stem}-{n}".casefold() in taken:
            n += 1
        return f"{stem}-{n}"

    def line_of(self, ident: str) -> int | None:
        """The line (from 1) of the entry with this id."""
        for seq, index in self._entries():
            if str(seq[index].get("id")) == ident:
                try:
                    return int(seq.lc.item(index)[0]) + 1
                except (KeyError, IndexError, TypeError):
                    return None  # added by this edit: not in the file yet
        return None

    def _entries(self) -> Iterator[tuple[CommentedSeq, int]]:
        lists = [self.data.get("terrain")]
        for side in _items(self.data.get("sides")):
            lists += [side.get("formations"), side.get("stands")]
        for seq in lists:
            if isinstance(seq, CommentedSeq):
                for index, item in enumerate(seq):
                    if isinstance(item, CommentedMap):
                        yield seq, index

    def refuse_taken(self, ident: str, what: str) -> None:
        """Refuse an id the file already uses, in any case: commands find stands whatever
        the case of their ids (SPEC 3), so A-1 and a-1 could not be told apart."""
        folded = {known.casefold(): known for known in self.ids()}
        same = folded.get(ident.casefold())
        if same is not None:
            line = self.line_of(same)
            where = f"{self.name}:{line}" if line is not None else "given earlier in this edit"
            raise BadInput(
                f"{what}: the id {same!r} is already a {self.ids()[same]}'s ({where}); "
                "give another id"
            )

    def side_index(self, side: str, where: str) -> int:
        names = [str(s.get("name")) for s in _items(self.data.get("sides"))]
        if side in names:
            return names.index(side)
        folded = [n.casefold() for n in names]
        if side.casefold() in folded:
            return folded.index(side.casefold())
        known = ", ".join(names) if names else "none yet: give them to 'scenario new --side'"
        raise BadInput(
            f"{where}: {side!r} is not a side of {self.name} (its sides: {known})"
            f"{did_you_mean(side, names)}"
        )

    def side_name(self, index: int) -> str:
        return str(self.data["sides"][index]["name"])

    # --- editing ------------------------------------------------------------------------

    def add_terrain(self, entry: Mapping[str, Any], origin: str) -> None:
        seq = self._top_list("terrain")
        self._append(seq, entry, ("terrain",), origin)

    def replace_terrain(self, ident: str, entry: Mapping[str, Any], origin: str) -> None:
        seq = self._top_list("terrain")
        for index, item in enumerate(seq):
            if isinstance(item, CommentedMap) and str(item.get("id")) == ident:
                new = self._styled(entry, flow=item.fa.flow_style())
                seq[index] = new
                self.origins[("terrain", index)] = origin
                return
        raise KeyError(ident)

    def add_formation(self, side: int, entry: Mapping[str, Any], origin: str) -> None:
        seq = self._side_list(side, "formations")
        self._append(seq, entry, ("sides", side, "formations"), origin)

    def add_stand(self, side: int, entry: Mapping[str, Any], origin: str) -> None:
        seq = self._side_list(side, "stands")
        self._append(seq, entry, ("sides", side, "stands"), origin)

    def remove(self, ident: str) -> str:
        """Take out the terrain piece, stand or formation with this id; say which it was.

        A formation is taken out only when nothing belongs to it (no stand, no formation
        below it): the scenario checks would refuse the orphans anyway, this says why."""
        for seq, index in self._entries():
            item = seq[index]
            if str(item.get("id")) != ident:
                continue
            what = self.ids()[ident]
            if what == "formation":
                users = self._members(ident)
                if users:
                    shown = ", ".join(users[:6]) + (", ..." if len(users) > 6 else "")
                    raise BadInput(
                        f"formation {ident!r} still has {len(users)} under it ({shown}): "
                        "remove those first"
                    )
            _keep_following_comment(seq, index)
            del seq[index]
            return what
        taken = self.ids()
        raise BadInput(
            f"{self.name}: no terrain piece, formation or stand {ident!r}"
            f"{did_you_mean(ident, taken)}"
        )

    def _members(self, formation: str) -> list[str]:
        out = []
        for side in _items(self.data.get("sides")):
            out += [
                str(f.get("id"))
                for f in _items(side.get("formations"))
                if f.get("parent") == formation
            ]
            out += [
                str(s.get("id"))
                for s in _items(side.get("stands"))
                if s.get("formation") == formation
            ]
        return out

    def _top_list(self, key: str) -> CommentedSeq:
        seq = self.data.get(key)
        if isinstance(seq, CommentedSeq):
            return seq
        if seq is not None:
            raise BadInput(f"{self.name}: '{key}' is not a list; make it one, or '{key}: []'")
        seq = CommentedSeq()
        keys = list(self.data)
        position = len(keys)
        for i, existing in enumerate(keys):
            if existing not in _TOP_ORDER:
                position = i
                break
        self.data.insert(position, key, seq)
        return seq

    def _side_list(self, side: int, key: str) -> CommentedSeq:
        holder = self.data["sides"][side]
        seq = holder.get(key)
        if isinstance(seq, CommentedSeq):
            return seq
        if seq is not None:
            raise BadInput(f"{self.name}: side {self.side_name(side)!r}: '{key}' is not a list")
        seq = CommentedSeq()
        # Formations before stands, as SPEC 6 writes them.
        if key == "formations" and "stands" in holder:
            holder.insert(list(holder).index("stands"), key, seq)
        else:
            holder[key] = seq
        return seq

    def _append(
        self, seq: CommentedSeq, entry: Mapping[str, Any], path: PathT, origin: str
    ) -> None:
        if not seq and seq.fa.flow_style():
            seq.fa.set_block_style()  # 'terrain: []' grows into a list, an entry a line
        flow = self._flow_style(seq)
        index = len(seq)
        tail = _take_following_comment(seq)
        seq.append(self._styled(entry, flow))
        if tail:
            _attach_after(seq, index, tail)
        self.origins[(*path, index)] = origin

    def _flow_style(self, seq: CommentedSeq) -> bool:
        """Whether a new entry of this list is written on one line, ``{id: ..., ...}``: as its
        last entry is, else as the file's other entries are, else so (as SPEC 6 writes)."""
        for item in reversed(seq):
            if isinstance(item, CommentedMap):
                return bool(item.fa.flow_style())
        for other, index in self._entries():
            return bool(other[index].fa.flow_style())
        return True

    def _styled(self, entry: Mapping[str, Any], flow: bool) -> CommentedMap:
        out = CommentedMap()
        for key, value in entry.items():
            out[key] = _styled_value(value)
        if flow:
            out.fa.set_flow_style()
        else:
            out.fa.set_block_style()
        return out

    # --- writing ------------------------------------------------------------------------

    def text(self) -> str:
        """The edited file: ruamel's writing of the changed lines, the person's own bytes for
        every line the edit left alone.

        ruamel keeps comments and order but writes some things its own way (the spaces
        inside a ``{flow: mapping}``); so the document as read is written too, and where
        its writing and the edited one's agree line for line, the original line is kept.
        """
        edited = _dump(self.yaml, self.data)
        original = self.original.splitlines(keepends=True)
        before = self.as_read.splitlines(keepends=True)
        if len(original) != len(before):
            return edited  # ruamel folded or split lines: its writing throughout
        after = edited.splitlines(keepends=True)
        out: list[str] = []
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            out += original[i1:i2] if tag == "equal" else after[j1:j2]
        return "".join(out)

    def save(self, *, fewer_problems: bool = False) -> LoadedScenario | None:
        """Check the edited file as ``new`` would and write it in one step; refuse it, with
        the file untouched, when the check fails.

        ``fewer_problems``: a removal from a file that has problems already is written when
        it leaves fewer of them (taking out a bad piece is how a file is mended); then None
        comes back and ``remaining`` holds the problems left."""
        text = self.text()
        try:
            loaded = self._parse(text)
        except ScenarioError as exc:
            before = self._problems_before()
            if fewer_problems and before and len(exc.problems) < len(before):
                write_atomically(self.path, text.replace("\n", self.newline))
                self.remaining = list(exc.problems)
                return None
            raise self._refusal(exc.problems, before) from None
        write_atomically(self.path, text.replace("\n", self.newline))
        return loaded

    def _problems_before(self) -> list[str]:
        try:
            self.check()
        except ScenarioError as exc:
            return exc.problems
        return []

    def _refusal(self, problems: list[str], before: list[str]) -> ScenarioError:
        if before:
            lines = [
                f"{self.name} has problems already, so it was not changed; mend them first "
                f"(tabletop scenario check {self.name}): {before[0]}",
                *before[1:],
            ]
        else:
            shown = [self._as_given(p) for p in problems]
            count = "" if len(shown) == 1 else f" ({len(shown)} problems)"
            lines = [f"{self.name} not changed{count}: {shown[0]}", *shown[1:]]
        error = ScenarioError(lines)
        error.args = (lines[0],)
        return error

    def _as_given(self, problem: str) -> str:
        """A problem in an added entry told as the person gave the entry (its CSV row, its
        shape): that entry is not in the file, so a line of the file would not find it."""
        match = re.match(rf"{re.escape(self.name)}(?::\d+)?: (\S+): (.*)$", problem)
        if match is None:
            return problem
        where, message = match.groups()
        for path, origin in self.origins.items():
            prefix = format_path(path)
            if where == prefix or where.startswith((f"{prefix}.", f"{prefix}[")):
                rest = where[len(prefix) :].lstrip(".")
                return f"{origin}: {rest}: {message}" if rest else f"{origin}: {message}"
        return problem


def _dump(yaml: YAML, data: Any) -> str:
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    return buffer.getvalue()


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one step: a file beside it, then renamed over it, so a
    reader never sees half a file and a failure leaves the old one whole."""
    folder = path.parent
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _items(value: Any) -> list[Any]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _styled_value(value: Any) -> Any:
    """Lists (points, weapons) written on one line, ``[[10, 12], [20, 12]]``."""
    if isinstance(value, list | tuple):
        seq = CommentedSeq([_styled_value(v) for v in value])
        seq.fa.set_flow_style()
        return seq
    return value


def _sequence_indent(text: str) -> dict[str, int]:
    """How the file indents a list under its key: the dash's offset from the key, and the
    entry's from the key (``  - {id: ...}`` under ``terrain:`` is offset 2, sequence 4)."""
    key_column = 0
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        column = len(line) - len(stripped)
        if stripped.startswith("- "):
            after = len(stripped) - len(stripped[1:].lstrip(" ")) + column
            if stripped[1:].lstrip(" ").startswith("#"):
                continue
            return {"sequence": after - key_column, "offset": column - key_column}
        if stripped.split("#", 1)[0].rstrip().endswith(":"):
            key_column = column
    return {"sequence": 2, "offset": 0}


def _mapping_indent(text: str) -> int:
    """How far the file indents a mapping inside a mapping (2 unless it shows otherwise)."""
    previous: tuple[int, str] | None = None
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        nested = (
            previous is not None
            and previous[1].endswith(":")
            and not previous[1].startswith("-")
            and not stripped.startswith("-")
            and indent > previous[0]
        )
        if nested and previous is not None:
            return indent - previous[0]
        previous = (indent, stripped.split("#", 1)[0].rstrip())
    return 2


# --- comments after a list ---------------------------------------------------------------
#
# ruamel keeps the blank lines and comments that follow a block with its deepest last item:
# a "# The forces" heading above 'sides:' belongs, in its eyes, to the last terrain piece.
# Appending after that piece would put the heading above the new piece; so the part that
# belongs to what follows (from the first blank line, or the first comment less indented
# than the list's dashes) moves to the new last item.


def _last_comment(node: Any) -> tuple[list[Any], int] | None:
    if isinstance(node, CommentedMap) and node:
        key = list(node)[-1]
        slots = node.ca.items.get(key)
        if slots and len(slots) > 2 and slots[2] is not None:
            return slots, 2
        return _last_comment(node[key])
    if isinstance(node, CommentedSeq) and node:
        index = len(node) - 1
        slots = node.ca.items.get(index)
        if slots and slots[0] is not None:
            return slots, 0
        return _last_comment(node[index])
    return None


def _dash_column(seq: CommentedSeq) -> int:
    try:
        return max(0, int(seq.lc.item(len(seq) - 1)[1]) - 2)
    except (AttributeError, KeyError, IndexError, TypeError):
        return 0


def _take_following_comment(seq: CommentedSeq) -> str:
    """Cut from the list's last item the lines after it that belong to what follows the
    list; return them (as a comment token's text, starting with the end of the line)."""
    found = _last_comment(seq)
    if found is None:
        return ""
    slots, slot = found
    token = slots[slot]
    lines = token.value.split("\n")
    column = _dash_column(seq)
    # lines[0] is the rest of the item's own line (an end-of-line comment, or nothing).
    for i, line in enumerate(lines[1:], start=1):
        stripped = line.lstrip(" ")
        if not stripped or (stripped.startswith("#") and len(line) - len(stripped) < column):
            token.value = "\n".join(lines[:i]) + "\n"
            return "\n" + "\n".join(lines[i:])
    return ""


def _keep_following_comment(seq: CommentedSeq, index: int) -> None:
    """Before an item is taken out, hand the lines after its own (blank lines, headings of
    what follows) to the item before it, so they are not lost with it."""
    slots = seq.ca.items.get(index)
    found = (slots, 0) if slots and slots[0] is not None else _last_comment(seq[index])
    if found is None or index == 0:
        return
    holder, slot = found
    following = holder[slot].value.partition("\n")[2]
    if not following:
        return
    previous = seq.ca.items.get(index - 1)
    before = (
        (previous, 0) if previous and previous[0] is not None else _last_comment(seq[index - 1])
    )
    if before is None:
        _attach_after(seq, index - 1, "\n" + following)
    else:
        keeper, at = before
        keeper[at].value = keeper[at].value.rstrip("\n") + "\n" + following


def _attach_after(seq: CommentedSeq, index: int, text: str) -> None:
    """Write ``text`` (from the end of the item's line on) after item ``index``: beside a
    one-line item, or after the last key of a block mapping."""
    token = CommentToken(text, CommentMark(0), None)
    item = seq[index]
    if isinstance(item, CommentedMap) and item and not item.fa.flow_style():
        item.ca.items[list(item)[-1]] = [None, None, token, None]
    else:
        seq.ca.items[index] = [token, None, None, None]
