"""Rule charts: the bundled files, overlays, validation, and `tabletop charts`."""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.cli import cli
from tabletop.core.errors import ChartError
from tabletop.data.chart_files import load_charts, load_raw
from tabletop.data.charts import (
    CHART_SCHEMAS,
    Charts,
    Quality,
    Weapon,
    entry_as_dict,
    overlay,
    weight_number,
)
from tabletop.data.resources import charts_dir

WEAPON_KEYS = (
    "id, rule, default, note, name, calibre_mm, rof, ranges, to_hit, to_hit_afv, burst, he, "
    "indirect, indirect_only, ap_only, limited, rocket, smoke, illum, aa, flame"
)
KNOWN_FILES = ", ".join(sorted(f"{name}.yaml" for name in CHART_SCHEMAS))
RANGES = "ranges: {close: 5, medium: 10, long: 20}"
TO_HIT = "to_hit: {close: 6, medium: 4, long: 2}"
GOOD = f"calibre_mm: 50, {RANGES}, {TO_HIT}"


def unlisted(message: str) -> str:
    """A message with its list of accepted names cut to '...': the lists grow with the program."""
    return re.sub(r"\((accepted|known): [^)]*\)", r"(\1: ...)", message)


def house(tmp_path: Path, files: dict[str, str], name: str = "house") -> Path:
    """An overlay folder ``name`` under tmp_path holding ``files``."""
    folder = tmp_path / name
    folder.mkdir()
    for file_name, text in files.items():
        (folder / file_name).write_text(text, encoding="utf-8")
    return folder


def problems_of(*folders: Path) -> list[str]:
    with pytest.raises(ChartError) as info:
        load_charts(folders)
    return info.value.problems


# --- the bundled charts -------------------------------------------------------------------------


def test_bundled_charts_load(charts: Charts) -> None:
    for name in CHART_SCHEMAS:
        assert charts.table(name), name
    assert charts.weapons["pak-36"].calibre_mm == 37
    assert charts.stand_kinds["tank"].is_vehicle


@pytest.mark.parametrize("name", list(CHART_SCHEMAS))
def test_every_chart_has_a_file(name: str) -> None:
    assert (charts_dir() / f"{name}.yaml").is_file()


def test_every_chart_file_has_a_schema() -> None:
    # The loader reads only the charts it has a schema for; any other file would be ignored.
    # formations.yaml is no rule chart: 'scenario stands --unit' reads it (setup/formations).
    found = {p.stem for p in charts_dir().glob("*.yaml")} - {"formations"}
    assert found <= set(CHART_SCHEMAS)


@pytest.mark.parametrize("name", list(CHART_SCHEMAS))
def test_every_entry_names_its_rule(charts: Charts, name: str) -> None:
    for entry_id, entry in charts.table(name).items():
        assert isinstance(entry, CHART_SCHEMAS[name])
        assert entry.id == entry_id
        assert entry.rule.strip(), f"{name}.yaml: {entry_id} has an empty rule"


@pytest.mark.parametrize("name", list(CHART_SCHEMAS))
def test_every_entry_gives_its_rule_in_the_file(name: str) -> None:
    # Not filled in by a default: each entry in the file says which rule it implements.
    data = yaml.safe_load((charts_dir() / f"{name}.yaml").read_text(encoding="utf-8"))
    for entry in data["entries"]:
        assert isinstance(entry.get("rule"), str) and entry["rule"].strip(), entry.get("id")


def test_the_stand_and_terrain_kinds_the_spec_needs(charts: Charts) -> None:
    # SPEC 6: kinds the charts must know at least.
    stand_kinds = (
        "infantry engineer cavalry towed-gun tank armoured-car halftrack tracked wheeled truck "
        "supply command earthmover recovery"
    )
    terrain_kinds = (
        "open woods forest orchard swamp bua-strong bua-flimsy rubble road-hard road-dirt "
        "road-paved river stream lake hill wire ditch crater av-obstacle abatis bridge"
    )
    assert set(stand_kinds.split()) <= set(charts.stand_kinds)
    assert set(terrain_kinds.split()) <= set(charts.terrain)


def test_default_entries_say_so(charts: Charts) -> None:
    # SPEC 2: the numbers the seeds assume but do not print are marked as our defaults.
    for quality in charts.quality.values():
        assert quality.default


def test_charts_are_frozen(charts: Charts) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        charts.weapons["pak-36"].rof = 9  # type: ignore[misc]


def bands(quality: Quality) -> tuple[str, str, str]:
    """The hit effects bands of a quality as SPEC 2 writes them: '1-3', '4-6', '7+'."""

    def span(low: int, high: int) -> str:
        return str(low) if low == high else f"{low}-{high}"

    return (
        span(1, quality.no_effect_up_to),
        span(quality.no_effect_up_to + 1, quality.forced_back_up_to),
        f"{quality.forced_back_up_to + 1}+",
    )


@pytest.mark.parametrize(
    ("quality", "no_effect", "forced_back", "eliminated"),
    [
        ("green", "1", "2-5", "6+"),
        ("trained", "1-2", "3-6", "7+"),
        ("regular", "1-3", "4-6", "7+"),
        ("experienced", "1-4", "5-7", "8+"),
        ("veteran", "1-5", "6-7", "8+"),
        ("elite", "1-6", "7-8", "9+"),
    ],
)
def test_hit_effects_by_quality(
    charts: Charts, quality: str, no_effect: str, forced_back: str, eliminated: str
) -> None:
    assert bands(charts.quality[quality]) == (no_effect, forced_back, eliminated)


def test_quality_order_is_green_to_elite(charts: Charts) -> None:
    assert charts.quality_order() == [
        "green", "trained", "regular", "experienced", "veteran", "elite"
    ]  # fmt: skip


def test_veteran_forced_back_on_a_6(charts: Charts) -> None:
    # The seed's Bofors example: a veteran crew is forced back on a 6.
    veteran = charts.quality["veteran"]
    assert veteran.no_effect_up_to < 6 <= veteran.forced_back_up_to


@pytest.mark.parametrize(
    ("distance", "band"), [(0, "close"), (8, "close"), (8.01, "medium"), (30, "long"), (30.5, None)]
)
def test_weapon_band(charts: Charts, distance: float, band: str | None) -> None:
    assert charts.weapons["pak-36"].band(distance) == band


@pytest.mark.parametrize(("level", "number"), [("I", 1), ("IV", 4), ("VI", 6), (None, 0), ("X", 0)])
def test_weight_number(level: str | None, number: int) -> None:
    assert weight_number(level) == number


def test_entry_as_dict_leaves_out_unset_fields(charts: Charts) -> None:
    data = entry_as_dict(charts.weapons["pak-36"])
    assert data["ranges"] == {"close": 8.0, "medium": 16.0, "long": 30.0}
    assert data["limited"] is True
    assert "burst" not in data and "indirect" not in data


# --- overlays -------------------------------------------------------------------------------------


def test_overlay_changes_one_field_and_keeps_the_others(tmp_path: Path, charts: Charts) -> None:
    folder = house(tmp_path, {"weapons.yaml": "entries:\n  - {id: pak-36, rof: 3}\n"})
    changed = load_charts((folder,)).weapons["pak-36"]
    assert changed.rof == 3
    assert dataclasses.replace(changed, rof=1) == charts.weapons["pak-36"]


def test_overlay_adds_a_new_entry(tmp_path: Path, charts: Charts) -> None:
    folder = house(
        tmp_path,
        {"weapons.yaml": f"entries:\n  - {{id: pak-50, rule: house, rof: 2, {GOOD}}}\n"},
    )
    loaded = load_charts((folder,))
    assert loaded.weapons["pak-50"] == Weapon(
        id="pak-50",
        rule="house",
        rof=2,
        calibre_mm=50,
        ranges=loaded.weapons["pak-50"].ranges,
        to_hit=loaded.weapons["pak-50"].to_hit,
    )
    assert loaded.weapons["pak-50"].ranges.long == 20
    assert len(loaded.weapons) == len(charts.weapons) + 1


def test_overlays_apply_in_order(tmp_path: Path) -> None:
    first = house(
        tmp_path, {"weapons.yaml": "entries:\n  - {id: pak-36, rof: 3, he: 2, burst: 1}\n"}
    )
    second = house(tmp_path, {"weapons.yaml": "entries:\n  - {id: pak-36, rof: 4}\n"}, "second")
    pak = load_charts((first, second)).weapons["pak-36"]
    assert (pak.rof, pak.he, pak.burst) == (4, 2, 1)


def test_overlay_function_does_not_change_its_inputs() -> None:
    base = load_raw()
    before = copy.deepcopy(base)
    merged = overlay(base, {"weapons": [{"id": "pak-36", "rof": 3}]})
    assert base == before
    assert next(e for e in merged["weapons"] if e["id"] == "pak-36")["rof"] == 3


def test_overlay_with_an_unknown_chart_file(tmp_path: Path) -> None:
    folder = house(tmp_path, {"weapon.yaml": "entries: []\n"})
    assert problems_of(folder) == [
        f"house/weapon.yaml: not a chart this program knows (known: {KNOWN_FILES}); "
        "did you mean 'weapons.yaml'?"
    ]


def test_overlay_with_a_bad_value(tmp_path: Path) -> None:
    folder = house(tmp_path, {"weapons.yaml": "entries:\n  - id: pak-36\n    rof: two\n"})
    assert problems_of(folder) == [
        "house/weapons.yaml:3: entry 'pak-36': rof: expected a whole number, got 'two'"
    ]


def test_overlay_entry_with_a_mistyped_id(tmp_path: Path) -> None:
    folder = house(tmp_path, {"weapons.yaml": "entries:\n  - {id: pak36, rof: 3}\n"})
    assert problems_of(folder) == [
        "house/weapons.yaml:2: entry 'pak36': missing required key 'rule'",
        "house/weapons.yaml:2: entry 'pak36': missing required key 'ranges'",
        "house/weapons.yaml:2: entry 'pak36': missing required key 'to_hit'",
        "house/weapons.yaml:2: entry 'pak36': 'pak36' is a new entry, not a change; "
        "did you mean 'pak-36'?",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "entries: [\n",
            "house/weapons.yaml:2: not valid YAML: did not find expected node content",
        ),
        ("- {id: pak-36}\n", "house/weapons.yaml: expected a mapping with an 'entries' list"),
        (
            "entries: {id: pak-36}\n",
            "house/weapons.yaml: expected a mapping with an 'entries' list",
        ),
        ("", "house/weapons.yaml: expected a mapping with an 'entries' list"),
        (
            "entries: []\nentires: []\n",
            "house/weapons.yaml: unknown top-level key ['entires'] (accepted: entries)",
        ),
        (
            "entries:\n  - pak-36\n",
            "house/weapons.yaml:2: entry 1: expected a mapping, got 'pak-36'",
        ),
        (
            "entries:\n  - {id: [pak-36], rof: 2}\n",
            "house/weapons.yaml:2: entry 1: id: expected text, got ['pak-36']",
        ),
    ],
)
def test_overlay_file_shape_problems(tmp_path: Path, text: str, expected: str) -> None:
    folder = house(tmp_path, {"weapons.yaml": text})
    assert problems_of(folder)[0].startswith(expected)


def test_overlay_key_given_twice(tmp_path: Path) -> None:
    folder = house(tmp_path, {"weapons.yaml": "entries:\n  - id: pak-36\n    rof: 2\n    rof: 3\n"})
    assert problems_of(folder) == [
        "house/weapons.yaml:4: entries[0].rof: key 'rof' is given twice (first on line 3); "
        "give each key once"
    ]


def test_overlay_folder_missing(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    assert problems_of(missing) == [f"--charts {str(missing)!r}: not a folder"]


def test_overlay_changing_night_as_to_an_unknown_quality(tmp_path: Path) -> None:
    folder = house(tmp_path, {"quality.yaml": "entries:\n  - {id: elite, night_as: veteren}\n"})
    assert problems_of(folder) == [
        "house/quality.yaml:2: entry 'elite': night_as: unknown quality 'veteren' (known: "
        "elite, experienced, green, regular, trained, veteran); did you mean 'veteran'?"
    ]


def test_overlay_with_hit_effect_bands_crossing(tmp_path: Path) -> None:
    folder = house(tmp_path, {"quality.yaml": "entries:\n  - {id: green, no_effect_up_to: 7}\n"})
    assert problems_of(folder) == [
        "house/quality.yaml:2: entry 'green': no_effect_up_to: 7 must not exceed "
        "forced_back_up_to (5)"
    ]


@pytest.mark.parametrize("entry_id", ["pak-50", "pak-36"])
def test_overlay_with_a_duplicate_id(tmp_path: Path, entry_id: str) -> None:
    # Reported whether the id is new or a bundled one (which would otherwise merge twice).
    entry = f"{{id: {entry_id}, rule: house, rof: 1, {GOOD}}}"
    folder = house(tmp_path, {"weapons.yaml": f"entries:\n  - {entry}\n  - {entry}\n"})
    assert problems_of(folder) == [
        f"house/weapons.yaml:3: entry {entry_id!r}: id: duplicate id {entry_id!r}: each entry "
        "needs its own id (the first is at line 2)"
    ]


BROKEN_WEAPONS = f"""\
entries:
  - {{id: w-rof, rule: house, rof: 0, {GOOD}}}
  - {{id: w-key, rule: house, rof: 1, rnage: 3, {GOOD}}}
  - {{id: w-bands, rule: house, rof: 1, calibre_mm: 50, {RANGES.replace("5", "15")}, {TO_HIT}}}
  - {{id: w-indirect, rule: house, rof: 1, indirect: true, he: 3, {GOOD}}}
  - {{id: w-to-hit, rule: house, rof: 1, calibre_mm: 50, {RANGES}, {TO_HIT.replace("6", "11")}}}
  - {{id: w-template, rule: house, rof: 1, burst: 2, {GOOD}}}
  - {{id: w-calibre, rule: house, rof: 1, {RANGES}, {TO_HIT}}}
  - {{id: pak-36, flame: backpack}}
"""

BROKEN_WEAPON_PROBLEMS = [
    # pak-36 changes a bundled entry, so it is checked in the bundled chart's order.
    "house/weapons.yaml:9: entry 'pak-36': flame: 'backpack' is not accepted (accepted: "
    "man-pack, vehicle, trailer); did you mean 'man-pack'?",
    "house/weapons.yaml:2: entry 'w-rof': rof: 0 is too small (at least 1)",
    f"house/weapons.yaml:3: entry 'w-key': rnage: unknown key 'rnage' (accepted: {WEAPON_KEYS}); "
    "did you mean 'ranges'?",
    "house/weapons.yaml:4: entry 'w-bands': ranges: range bands must not decrease "
    "(close <= medium <= long), got close 15, medium 10, long 20",
    "house/weapons.yaml:5: entry 'w-indirect': burst: missing: an indirect-fire weapon needs "
    "'burst' (template diameter, inches)",
    "house/weapons.yaml:6: entry 'w-to-hit': to_hit.close: 11 is too large (at most 10)",
    "house/weapons.yaml:7: entry 'w-template': he: missing: a weapon firing an HE template "
    "needs 'he' (its HE number, 0-10)",
    "house/weapons.yaml:8: entry 'w-calibre': calibre_mm: missing: needed to decide ammunition "
    "depletion (CD 1.2); flamethrowers give 'flame'",
]


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    folder = house(tmp_path, {"weapons.yaml": BROKEN_WEAPONS})
    assert problems_of(folder) == BROKEN_WEAPON_PROBLEMS


def test_indirect_only_needs_indirect(tmp_path: Path) -> None:
    text = (
        "entries:\n"
        "  - {id: lobber, rule: house, calibre_mm: 50, rof: 1, indirect_only: true,\n"
        "     ranges: {close: 5, medium: 10, long: 20}, to_hit: {close: 3, medium: 3, long: 3}}\n"
    )
    (problem,) = problems_of(house(tmp_path, {"weapons.yaml": text}))
    assert problem == (
        "house/weapons.yaml:2: entry 'lobber': indirect_only: indirect_only needs "
        "indirect: true as well"
    )


def test_file_problems_and_value_problems_are_reported_together(tmp_path: Path) -> None:
    folder = house(tmp_path, {"weapons.yaml": BROKEN_WEAPONS, "weapon.yaml": "entries: []\n"})
    problems = problems_of(folder)
    assert unlisted(problems[0]) == (
        "house/weapon.yaml: not a chart this program knows (known: ...); "
        "did you mean 'weapons.yaml'?"
    )
    assert problems[1:] == BROKEN_WEAPON_PROBLEMS
    with pytest.raises(ChartError, match=r"^9 chart problems: house/weapon\.yaml: "):
        load_charts((folder,))


def test_stored_charts_name_the_chart_when_there_is_no_file() -> None:
    # A game's stored charts have no files: the chart's name stands in.
    raw = load_raw()
    raw["weapons"].append({"id": "w-x", "rule": "stored", "rof": 0})
    with pytest.raises(ChartError) as info:
        Charts(raw)
    assert info.value.problems[0] == "weapons.yaml: entry 'w-x': rof: 0 is too small (at least 1)"


def test_a_missing_bundled_entry_list_is_reported() -> None:
    raw = load_raw()
    raw["turn"] = []
    with pytest.raises(ChartError, match=r"^turn\.yaml: the turn needs at least one phase$"):
        Charts(raw)


LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
GARBAGE = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["id", "close", "rof", "rule"]) | st.text(max_size=5), inner, max_size=4
        )
    ),
    max_leaves=15,
)


@functools.cache
def bundled_raw() -> dict[str, list[dict[str, object]]]:
    return load_raw()  # overlay() and Charts() leave their inputs alone


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(list(CHART_SCHEMAS)),
    st.booleans(),
    st.lists(
        st.dictionaries(
            st.sampled_from(["id", "rule", "rof", "ranges", "to_hit", "rank", "value"])
            | st.text(max_size=5),
            GARBAGE,
            max_size=6,
        )
        | GARBAGE,
        max_size=4,
    ),
)
def test_garbage_overlays_raise_only_chart_errors(
    name: str, change_first: bool, entries: list[object]
) -> None:
    base = bundled_raw()
    if change_first and entries and isinstance(entries[0], dict):
        # Garbage fields over a bundled entry, not only as new entries.
        entries[0] = {**entries[0], "id": base[name][0]["id"]}
    try:
        Charts(overlay(base, {name: entries}))  # type: ignore[dict-item]
    except ChartError as exc:
        assert exc.problems
        assert all(isinstance(p, str) and "\n" not in p for p in exc.problems)


# --- the command line ---------------------------------------------------------------------------


@pytest.fixture
def charts_cli(runner: CliRunner):
    def invoke(*args: str, code: int = 0):
        result = runner.invoke(cli, ["charts", *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        assert "Traceback" not in result.output
        return result

    return invoke


def test_cli_charts_list(charts_cli, charts: Charts) -> None:
    lines = charts_cli("list").output.splitlines()
    assert lines[0].split()[:2] == ["chart", "entries"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert list(rows) == list(CHART_SCHEMAS)
    assert rows["weapons"][0] == str(len(charts.weapons))
    assert rows["quality"] == ["6", "6"]


def test_cli_charts_list_json(charts_cli, charts: Charts) -> None:
    data = json.loads(charts_cli("list", "--json").output)
    counts = {row["chart"]: row["entries"] for row in data["charts"]}
    assert counts == {name: len(charts.table(name)) for name in CHART_SCHEMAS}


def test_cli_charts_show_entry(charts_cli) -> None:
    lines = charts_cli("show", "weapons", "pak-36").output.splitlines()
    assert lines[0] == "id: pak-36"
    assert "rof: 1" in lines
    assert "ranges: close=8.0 medium=16.0 long=30.0" in lines
    assert "limited: yes" in lines


def test_cli_charts_show_entry_json(charts_cli) -> None:
    data = json.loads(charts_cli("show", "weapons", "pak-36", "--json").output)
    assert data["id"] == "pak-36"
    assert data["rule"] == "CD data charts (default)"
    assert (data["calibre_mm"], data["rof"], data["limited"]) == (37, 1, True)
    assert data["to_hit"] == {"close": 5, "medium": 4, "long": 2}


def test_cli_charts_show_whole_chart(charts_cli) -> None:
    output = charts_cli("show", "quality").output
    lines = output.splitlines()
    assert lines[0] == "id             rank    no_effect_up_to    forced_back_up_to  night_as"
    assert lines[6] == "veteran           4                  5                    7  experienced"
    data = json.loads(charts_cli("show", "quality", "--json").output)
    assert [e["id"] for e in data["entries"]][:2] == ["green", "trained"]


def test_cli_charts_show_with_overlay(charts_cli, tmp_path: Path) -> None:
    folder = house(tmp_path, {"weapons.yaml": "entries:\n  - {id: pak-36, rof: 3}\n"})
    data = json.loads(
        charts_cli("show", "weapons", "pak-36", "--json", "--charts", str(folder)).output
    )
    assert data["rof"] == 3


def test_cli_charts_show_unknown_chart(charts_cli) -> None:
    result = charts_cli("show", "nosuch", code=2)
    assert result.output == f"Error: unknown chart 'nosuch' (charts: {', '.join(CHART_SCHEMAS)})\n"


def test_cli_charts_show_unknown_entry(charts_cli) -> None:
    result = charts_cli("show", "weapons", "pak36", code=2)
    assert result.output == "Error: no entry 'pak36' in chart 'weapons'; did you mean 'pak-36'?\n"


def test_cli_charts_check_ok(charts_cli, charts: Charts) -> None:
    total = sum(len(entries) for entries in charts.raw.values())  # model charts included
    assert charts_cli("check").output == f"charts OK: {total} entries\n"
    data = json.loads(charts_cli("check", "--json").output)
    assert data == {"ok": True, "problems": [], "entries": total}


def test_cli_charts_check_prints_every_problem(charts_cli, tmp_path: Path) -> None:
    folder = house(tmp_path, {"weapons.yaml": BROKEN_WEAPONS})
    result = charts_cli("check", "--charts", str(folder), code=2)
    assert result.stderr.splitlines() == BROKEN_WEAPON_PROBLEMS
    data = json.loads(charts_cli("check", "--charts", str(folder), "--json", code=2).output)
    assert data == {"ok": False, "problems": BROKEN_WEAPON_PROBLEMS}


def test_cli_charts_with_a_broken_overlay_lists_every_problem(charts_cli, tmp_path: Path) -> None:
    folder = house(tmp_path, {"weapons.yaml": BROKEN_WEAPONS})
    result = charts_cli("show", "weapons", "--charts", str(folder), code=2)
    first, *rest = BROKEN_WEAPON_PROBLEMS
    assert result.output == "".join(
        [f"Error: 8 chart problems: {first}\n", *(f"  {p}\n" for p in rest)]
    )


def test_no_rule_a_referee_reads_cites_the_programs_spec() -> None:
    """A chart's rule is read aloud with the verdict: it names the rules (or the publisher's
    reference card), never this program's own specification."""
    from tabletop.data.resources import charts_dir

    cited = [
        f"{path.name}: {line.strip()[:60]}"
        for path in sorted(charts_dir().rglob("*.yaml"))
        for line in path.read_text().splitlines()
        if "SPEC" in line and "rule" in line and not line.lstrip().startswith("#")
    ]
    assert cited == []


def test_no_message_cites_the_programs_spec() -> None:
    """What the program says (a string that is not a docstring) cites the rules, never
    SPEC: a referee has the rulebook, not this program's specification."""
    import ast

    root = Path(__file__).parent.parent / "tabletop"
    cited = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and re.search(r"\bSPEC \d", node.value)
            ):
                cited.append(f"{path.relative_to(root)}:{node.lineno}")
    assert cited == []
