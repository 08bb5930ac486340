"""tabletop charts list|show|check: the rule charts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import charts_option, command, emit_json, fit_columns, json_option
from tabletop.core.spelling import did_you_mean


@click.group("charts")
def cli() -> None:
    """Inspect and check the rule charts.

    Every number the rules use lives in a chart entry citing its rule.

    \b
    Example:
      tabletop charts list
      tabletop charts show weapons pak-36
      tabletop charts check --charts my-house-rules/
    """


@cli.command("list")
@charts_option
@json_option
@command
def list_charts(charts_dirs: tuple[Path, ...], as_json: bool) -> None:
    """Each chart with its number of entries and how many are our defaults.

    \b
    Example:
      tabletop charts list
    """
    from tabletop.data.chart_files import load_charts
    from tabletop.data.charts import CHART_SCHEMAS

    charts = load_charts(tuple(charts_dirs))
    rows = []
    for name in CHART_SCHEMAS:
        table = charts.table(name)
        defaults = sum(1 for e in table.values() if e.default)
        rows.append({"chart": name, "entries": len(table), "defaults": defaults})
    if as_json:
        emit_json({"charts": rows})
        return
    from tabulate import tabulate

    click.echo(
        tabulate(
            [[r["chart"], r["entries"], r["defaults"]] for r in rows],
            headers=["chart", "entries", "default (replace with your book)"],
        )
    )


@cli.command("show")
@click.argument("chart")
@click.argument("entry", required=False)
@charts_option
@json_option
@command
def show_chart(chart: str, entry: str | None, charts_dirs: tuple[Path, ...], as_json: bool) -> None:
    """Show a CHART's entries, or one ENTRY of it in full.

    \b
    Example:
      tabletop charts show quality
      tabletop charts show weapons pak-40
    """
    from tabletop.core.errors import BadInput
    from tabletop.data.chart_files import load_charts
    from tabletop.data.charts import CHART_SCHEMAS, entry_as_dict

    if chart not in CHART_SCHEMAS:
        raise BadInput(f"unknown chart {chart!r} (charts: {', '.join(CHART_SCHEMAS)})")
    table = load_charts(tuple(charts_dirs)).table(chart)
    if entry is not None:
        if entry not in table:
            hint = did_you_mean(entry, table)
            raise BadInput(f"no entry {entry!r} in chart {chart!r}{hint}")
        data = entry_as_dict(table[entry])
        if as_json:
            emit_json(data)
        else:
            for key, value in data.items():
                click.echo(f"{key}: {_plain(value)}")
        return
    entries = [entry_as_dict(e) for e in table.values()]
    if as_json:
        emit_json({"chart": chart, "entries": entries})
        return
    keys: list[str] = []
    for e in entries:
        keys.extend(k for k in e if k not in keys and k not in ("note",))
    # The numbers first and the citations last, as many columns as fit 80 columns; one
    # entry in full (or --json) shows the rest.
    last = ("name", "default", "rule")
    keys = [k for k in keys if k not in last] + [k for k in last if k in keys]
    rows = [[_plain(e.get(k, "")) for k in keys] for e in entries]
    text, left_out = fit_columns(rows, keys)
    click.echo(text)
    if left_out:
        import textwrap

        note = f"(also {', '.join(left_out)}: see 'tabletop charts show {chart} ENTRY', or --json)"
        click.echo("\n".join(textwrap.wrap(note, 80, break_on_hyphens=False)))


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k}={_plain(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ",".join(_plain(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@cli.command("check")
@charts_option
@json_option
@command
def check_charts(charts_dirs: tuple[Path, ...], as_json: bool) -> None:
    """Validate the bundled charts and any overlays; list every problem.

    \b
    Example:
      tabletop charts check --charts house-rules/
    """
    from tabletop.core.errors import ChartError
    from tabletop.data.chart_files import load_charts

    try:
        charts = load_charts(tuple(charts_dirs))
        check_models(charts)
    except ChartError as exc:
        if as_json:
            emit_json({"ok": False, "problems": exc.problems})
        else:
            for problem in exc.problems:
                click.echo(problem, err=True)
        raise SystemExit(2) from None
    count = sum(len(entries) for entries in charts.raw.values())
    if as_json:
        emit_json({"ok": True, "problems": [], "entries": count})
    else:
        click.echo(f"charts OK: {count} entries")


def check_models(charts: Any) -> None:
    """Validate every alternative model's chart (each model loads its own tables)."""
    from tabletop.core.errors import ChartError
    from tabletop.rules.models import MODELS, find_model

    problems: list[str] = []
    for name in MODELS:
        try:
            model = find_model(name, charts)
            model.profiles()
            _ = model.inches_per_unit
        except ChartError as exc:
            problems.extend(exc.problems)
        except (ImportError, AttributeError):
            continue  # a model still being written; its own tests cover it
    if problems:
        raise ChartError(problems)
