"""The docs: generated from the program and checked against it, so they cannot go stale.

``docs/generate.py`` runs the tutorial's commands (and the JSON examples, and every
``--help``) for real; these tests run it again and compare with the files in ``docs/``.
When a test here fails because output or help changed on purpose, run
``python docs/generate.py`` and commit what it writes.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import click
import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REGENERATE = "out of date: run python docs/generate.py and commit the result"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_generate"] = module
    spec.loader.exec_module(module)
    return module


generate = _load_generator()
COMMANDS: list[tuple[str, click.Command]] = generate.all_commands()


@pytest.fixture(scope="module")
def rendered() -> dict[str, Any]:
    """Every generated doc, made afresh from the program (once for this module)."""
    return generate.render_all()


@pytest.mark.parametrize(
    "name", ["tutorial.md", "setup.md", "cli.md", "json.md", "scenario.md", "charts.md"]
)
def test_generated_docs_are_current(rendered: dict[str, Any], name: str) -> None:
    on_disk = (DOCS / name).read_text(encoding="utf-8")
    assert rendered[name] == on_disk, f"docs/{name} is {REGENERATE}"


def test_the_tutorial_runs_from_new_to_the_end_of_turn_2(rendered: dict[str, Any]) -> None:
    text = rendered["tutorial.md"]
    assert "$ tabletop new crossroads --seed 1" in text.splitlines()
    assert "Turn 3, command phase" in text.splitlines()  # turn 2 ended
    assert "/tmp" not in text and "tabletop-docs-" not in text  # no temporary paths
    assert "tutorial-map.svg" in rendered and (DOCS / "tutorial-map.svg").exists()


def test_the_setup_guide_builds_a_ten_piece_table_and_moves_on_it(
    rendered: dict[str, Any],
) -> None:
    text = rendered["setup.md"]
    lines = text.splitlines()
    assert lines.count("$ tabletop new field.yaml --seed 1") == 1
    assert (
        "field.yaml: valid. 'Hill 112': a 72\" x 48\" table, 10 terrain pieces, 2 sides, "
        "16 stands (1 off the table)." in lines
    )
    assert any(line.startswith('A-1 moves 5.00" to 28.20,9.00') for line in lines)
    # Only the deliberate slip is refused.
    assert text.count("(exit status 2)") == 1
    assert "/tmp" not in text and "tabletop-docs-" not in text
    assert (DOCS / "setup-map.svg").exists()


def test_every_command_has_a_reference_entry() -> None:
    reference = (DOCS / "cli.md").read_text(encoding="utf-8")
    missing = [path for path, _ in COMMANDS if f"\n## {path}\n" not in reference]
    assert not missing, f"docs/cli.md lacks {', '.join(missing)}: {REGENERATE}"


# Commands that need a table the bundled scenarios do not have (parachute sticks, landing
# craft, engineers beside a damaged bridge, aggression profiles) to show their JSON; their
# keys are in SPEC 7. Remove an entry when docs/generate.py gains an example for it.
NO_JSON_EXAMPLE_YET = {
    "tabletop structure fire",  # no bundled scenario has a gun of 150 mm or more (CD 6.1.2)
    "tabletop airborne assemble",
    "tabletop airborne drop",
    "tabletop airborne fire",
    "tabletop airborne glider",
    "tabletop amphibious approach",
    "tabletop amphibious hit",
    "tabletop amphibious into-water",
    "tabletop amphibious land",
    "tabletop amphibious naval-fire",
    "tabletop amphibious speed",
    "tabletop amphibious unload",
    "tabletop amphibious wade",
    "tabletop assault",
    "tabletop engineer boat",
    "tabletop engineer bridge-set",
    "tabletop engineer cancel",
    "tabletop engineer clear",
    "tabletop engineer demolish",
    "tabletop engineer launch",
    "tabletop engineer recheck",
    "tabletop engineer repair",
    "tabletop engineer smoke",
    "tabletop minefield clear",
    # Needs a drawing in the session's folder, which the JSON sessions do not lay; its keys
    # are in SPEC 7 and tests/test_setup.py checks them (the roer table rebuilt).
    "tabletop scenario import-svg",
    "tabletop serve",  # runs until Ctrl-C; docs/serve.md shows its first line
}


def test_every_json_command_has_an_example() -> None:
    leaves = [p for p, c in COMMANDS if not isinstance(c, click.Group) and generate.has_json(c)]
    missing = sorted(set(leaves) - generate.json_example_paths() - NO_JSON_EXAMPLE_YET)
    assert not missing, (
        f"no --json example for {', '.join(missing)}: add a line to JSON_SESSIONS in "
        "docs/generate.py, then run it"
    )
    stale = sorted(NO_JSON_EXAMPLE_YET & generate.json_example_paths())
    assert not stale, f"remove {', '.join(stale)} from NO_JSON_EXAMPLE_YET: it has an example"


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS])
def test_help_reads_well_at_80_columns(path: str) -> None:
    result = CliRunner().invoke(
        generate.ROOT_CLI, [*path.split()[1:], "--help"], env=generate.ENV, prog_name="tabletop"
    )
    assert result.exit_code == 0, result.output
    long = [line for line in result.output.splitlines() if len(line) > 80]
    assert not long, f"{path} --help has lines over 80 columns: {long}"
    if "\nCommands:\n" in result.output:
        listing = result.output.split("\nCommands:\n", 1)[1].splitlines()
        cut = [line.strip() for line in listing if line.rstrip().endswith("...")]
        assert not cut, (
            f"{path} --help cuts these summaries short (keep a command's first sentence "
            f"under about 60 characters): {cut}"
        )


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS])
def test_every_command_has_help_arguments_and_an_example(path: str) -> None:
    """A summary, each argument explained (named in the help), each option described,
    and an example."""
    command = dict(COMMANDS)[path]
    text = command.help or ""
    assert command.get_short_help_str(limit=200).strip(), f"{path} has no summary"
    assert "Example" in text, f"{path} has no example in its help"
    for param in command.params:
        if isinstance(param, click.Argument):
            name = param.metavar or (param.name or "").upper()
            assert name in text, f"{path}: its help does not say what {name} is"
        elif isinstance(param, click.Option) and not ({"--help", "--version"} & set(param.opts)):
            assert param.help, f"{path} {param.opts[0]} has no help text"


def test_weather_words_are_all_listed() -> None:
    from tabletop.data.scenario import GROUNDS, LIGHTS, WEATHERS

    result = CliRunner().invoke(generate.ROOT_CLI, ["weather", "set", "--help"], env=generate.ENV)
    for word in (*LIGHTS, *WEATHERS, *GROUNDS):
        assert word in result.output, f"'weather set --help' does not list {word!r}"


def test_the_scenario_reference_lists_every_key() -> None:
    import dataclasses

    from tabletop.data import scenario

    text = (DOCS / "scenario.md").read_text(encoding="utf-8")
    for cls in (scenario.Scenario, scenario.TerrainPiece, scenario.StandSpec):
        for f in dataclasses.fields(cls):
            key = f.metadata.get("key", f.name)
            assert f"| `{key}` |" in text, f"docs/scenario.md lacks {key!r}: {REGENERATE}"
