"""Loading charts: parsed folders cached per process, and typed chart parameters."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.core.errors import ChartError
from tabletop.data import chart_params, compiled
from tabletop.data.chart_files import load_charts, read_raw
from tabletop.data.charts import CHART_SCHEMAS, Charts, Param

# --- the cache of parsed chart folders ---------------------------------------------------


def house(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "house"
    folder.mkdir(exist_ok=True)
    (folder / "weapons.yaml").write_text(text)
    return folder


def test_a_cached_folder_hands_out_fresh_copies(tmp_path: Path) -> None:
    folder = house(tmp_path, "entries:\n  - {id: rifle, rof: 3}\n")
    first = read_raw(folder, [], required=False)
    first["weapons"][0]["rof"] = 99
    assert read_raw(folder, [], required=False) == {"weapons": [{"id": "rifle", "rof": 3}]}


def test_an_edited_chart_file_is_read_again(tmp_path: Path) -> None:
    folder = house(tmp_path, "entries:\n  - {id: rifle, rof: 3}\n")
    read_raw(folder, [], required=False)
    house(tmp_path, "entries:\n  - {id: rifle, rof: 4}\n")
    assert read_raw(folder, [], required=False) == {"weapons": [{"id": "rifle", "rof": 4}]}


def test_problems_are_reported_on_every_read_not_only_the_first(tmp_path: Path) -> None:
    folder = house(tmp_path, "entries: {id: rifle}\n")
    for _ in range(2):
        problems: list[str] = []
        read_raw(folder, problems, required=False)
        assert problems == ["house/weapons.yaml: expected a mapping with an 'entries' list"]


def test_a_chart_file_added_to_the_folder_is_picked_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = house(tmp_path, "entries: []\n")
    assert read_raw(folder, [], required=False) == {"weapons": []}
    # Another chart the program learns about (as charts/movement.yaml will be).
    monkeypatch.setitem(CHART_SCHEMAS, "movement", Param)
    (folder / "movement.yaml").write_text("entries:\n  - {id: a, value: 1, rule: x}\n")
    assert read_raw(folder, [], required=False) == {
        "weapons": [],
        "movement": [{"id": "a", "value": 1, "rule": "x"}],
    }


def test_the_bundled_charts_load_the_same_from_the_cache(charts: Charts) -> None:
    assert load_charts().raw == charts.raw


# --- compiled copies on disk (data/compiled.py) ---------------------------------------------


def copies(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("charts-*.marshal"))


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(compiled.ENV, str(folder))
    return folder


def test_charts_loaded_once_come_back_from_their_compiled_copy(cache: Path) -> None:
    assert compiled.known_charts(())[0] is None
    first = load_charts()
    assert compiled.known_charts(())[0] is not None
    again = load_charts()
    assert isinstance(again._tables, dict) and not again._origins  # trusted: no YAML, no checks
    assert again.raw == first.raw
    assert again.weapons["pak-36"] == first.weapons["pak-36"]
    assert again.quality_order() == first.quality_order()


def test_an_edited_overlay_is_never_answered_from_a_stale_copy(tmp_path: Path, cache: Path) -> None:
    folder = house(tmp_path, "entries:\n  - {id: rifle, rof: 3}\n")
    assert load_charts((folder,)).weapons["rifle"].rof == 3
    house(tmp_path, "entries:\n  - {id: rifle, rof: 4}\n")
    assert load_charts((folder,)).weapons["rifle"].rof == 4
    house(tmp_path, "entries:\n  - {id: rifle, rof: 3}\n")
    assert load_charts((folder,)).weapons["rifle"].rof == 3  # the first copy again


def test_an_overlay_that_fails_its_checks_is_not_kept(tmp_path: Path, cache: Path) -> None:
    folder = house(tmp_path, "entries:\n  - {id: rifle, rof: many}\n")
    for _ in range(2):
        with pytest.raises(ChartError):
            load_charts((folder,))
    assert compiled.known_charts((folder,))[0] is None


def test_a_missing_overlay_folder_is_refused_even_after_an_empty_one_loaded(
    tmp_path: Path, cache: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    load_charts((empty,))
    with pytest.raises(ChartError, match="not a folder"):
        load_charts((tmp_path / "nowhere",))


def test_charts_load_when_the_cache_cannot_be_written(tmp_path: Path, cache: Path) -> None:
    cache.parent.mkdir(exist_ok=True)
    cache.write_text("a file, not a folder")
    assert load_charts().weapons["pak-36"].rof == 1
    assert load_charts().weapons["pak-36"].rof == 1


def test_a_damaged_copy_is_read_again_and_replaced(cache: Path) -> None:
    load_charts()
    for name in copies(cache):
        (cache / name).write_bytes(b"\x00garbage")
    assert load_charts().weapons["pak-36"].rof == 1
    assert load_charts()._origins == {}  # the replaced copy serves again


def test_old_copies_are_pruned(tmp_path: Path, cache: Path) -> None:
    for rof in range(compiled.KEEP + 3):
        folder = house(tmp_path, f"entries:\n  - {{id: rifle, rof: {rof + 1}}}\n")
        load_charts((folder,))
    assert len(copies(cache)) == compiled.KEEP


def test_the_calculator_imports_neither_yaml_nor_the_geometry(cache: Path) -> None:
    """Quick-mode fire, once the charts are compiled: no PyYAML, no shapely, no numpy."""
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from tabletop.cli import cli\n"
        "args = ['fire', '--weapon', 'pak-36', '--range', '14', '--target-kind', 'infantry',"
        " '--seed', '1']\n"
        "result = CliRunner().invoke(cli, args)\n"
        "assert result.exit_code == 0, result.output\n"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'yaml', 'shapely', 'numpy'})))\n"
    )
    env = {**os.environ, compiled.ENV: str(cache)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
        ).stdout.strip()
        for _ in range(2)
    ]
    assert runs == ["yaml", ""]  # the first run compiles the charts


# --- typed parameters ----------------------------------------------------------------------


def test_every_parameter_chart_entry_has_a_typed_field(charts: Charts) -> None:
    for cls in chart_params.ALL:
        fields = {f.name.replace("_", "-") for f in dataclasses.fields(cls)}
        assert fields == set(charts.table(cls.CHART)), cls.__name__


def test_typed_parameters_carry_the_chart_values(charts: Charts) -> None:
    table = charts.params(chart_params.TableParams)
    assert table == chart_params.TableParams(
        inches_per_yard=0.02, turn_minutes=30, base_overlap_tolerance=0.0, forced_back_fraction=0.5
    )
    assert charts.params(chart_params.TableParams) is table  # built once
    assert charts.params(chart_params.AmmoParams).depletion_die == 10  # CD 1.2
    assert charts.params(chart_params.BarrageParams).he_suppresses is True


def test_an_overlay_with_the_wrong_kind_of_value_is_a_chart_error(tmp_path: Path) -> None:
    folder = tmp_path / "house"
    folder.mkdir()
    (folder / "engineering.yaml").write_text(
        "entries:\n"
        "  - {id: adjacent, value: far, rule: x}\n"
        "  - {id: vlb-turns, value: 1.5, rule: x}\n"
    )
    with pytest.raises(ChartError) as caught:
        load_charts((folder,)).params(chart_params.EngineeringParams)
    assert caught.value.problems == [
        "engineering.yaml: entry 'vlb-turns': value must be a whole number, got 1.5",
        "engineering.yaml: entry 'adjacent': value must be a number, got 'far'",
    ]


def test_every_param_row_of_a_mixed_chart_has_a_typed_field(charts: Charts) -> None:
    for cls in chart_params.ROWS:
        fields = {f.name.replace("_", "-") for f in dataclasses.fields(cls)}
        rows = {k for k, row in charts.table(cls.CHART).items() if row.table == "param"}
        assert fields == rows, cls.__name__


def test_typed_parameters_of_the_mixed_charts_carry_their_param_rows(charts: Charts) -> None:
    airborne = charts.params(chart_params.AirborneParams)
    assert airborne.marked_down_above == 5  # CD 7.2.2: above 5 on a d10, marked side down
    assert airborne.deviation_plus_factor == 0.5  # CD 7.3.3
    assert airborne.glider_aa_hits == "direct"  # CD 7.3.1 (default)
    amphibious = charts.params(chart_params.AmphibiousParams)
    assert amphibious.response_suppressed == -2  # artillery response (SPEC 2)
    assert amphibious.bombard_weapon == "light-cruiser"  # CD 8.4.1 (default)
    assert charts.params(chart_params.MoraleParams).night_pins_test is True  # CD 9.1.4


def test_an_overlay_with_a_word_for_a_param_row_number_is_a_chart_error(tmp_path: Path) -> None:
    folder = tmp_path / "house"
    folder.mkdir()
    (folder / "airborne.yaml").write_text(
        "entries:\n  - {id: abort-hits, table: param, value: many, rule: x}\n"
    )
    charts = load_charts((folder,))
    with pytest.raises(ChartError) as caught:
        charts.params(chart_params.AirborneParams)
    assert caught.value.problems == [
        "airborne.yaml: entry 'abort-hits': value must be a whole number, got 'many'"
    ]


def test_a_word_for_an_aggression_model_number_is_a_chart_error(charts: Charts) -> None:
    from tabletop.rules.models.aggression.chart import SCHEMAS, AggressionChart

    tables = dict(charts.model_tables("aggression", SCHEMAS))
    params = dict(tables["params"])
    params["max-rounds"] = dataclasses.replace(params["max-rounds"], value="many")
    chart = AggressionChart({**tables, "params": params})
    with pytest.raises(ChartError) as caught:
        _ = chart.params
    assert caught.value.problems == [
        "models/aggression.yaml: entry 'max-rounds': value must be a whole number, got 'many'"
    ]
    assert AggressionChart.of(charts).params.max_rounds == 6  # AGG Combat (our default)
