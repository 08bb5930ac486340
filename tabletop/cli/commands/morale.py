"""tabletop morale [STAND --result R]: the morale tests due, and their results."""

from __future__ import annotations

import click

from tabletop.cli.core import (
    STAND,
    command,
    emit_json,
    executed,
    game_option,
    json_option,
    open_game,
)  # fmt: skip

RESULTS = ("pass", "pinned", "forced-back", "rallied")


@click.command("morale")
@click.argument("stand", type=STAND, required=False)
@click.option(
    "--result",
    type=click.Choice(RESULTS),
    default=None,
    help="The result of the test the referee rolled.",
)
@click.option(
    "--test",
    "number",
    type=click.IntRange(1, 99),
    default=None,
    help="Which of the stand's due tests (as listed; default the first).",
)
@click.option("--why", default=None, help="Record a test the list does not show (its cause).")
@click.option(
    "--rally-by", type=STAND, default=None, help="The command stand giving a rally order."
)
@game_option
@json_option
@command
def cli(
    stand: str | None,
    result: str | None,
    number: int | None,
    why: str | None,
    rally_by: str | None,
    game: str,
    as_json: bool,
) -> None:
    """List the morale tests due, or record one's result.

    Without STAND: every test due now, with the rule that calls for it, the modifiers
    in force (night -2, CD 9.1.3) and the number to pass. At night a pinned stand tests
    in every morale phase and never recovers by itself (CD 9.1.4); orders reach 3" and
    no rally orders may be given (CD 9.1.5). The morale phase opens with this list.

    With STAND and --result: records the result of its (first, or --test N) due test in
    the morale phase. pass recovers a stand tested for its pin; rallied needs a rally
    order (--rally-by, a command stand within orders reach; never at night).

    \b
    Example:
      tabletop morale
      tabletop morale G-1 --result pass
      tabletop morale G-2 --result rallied --rally-by G-HQ
    """
    g = open_game(game)
    given = {"--test": number, "--why": why, "--rally-by": rally_by}
    if result is None:
        extra = [name for name, value in given.items() if value is not None]
        if extra:
            raise click.UsageError(
                f"{', '.join(extra)} given without --result: a result is recorded with "
                f"--result {'|'.join(RESULTS)}"
            )
        _list(g, stand, as_json)
        return
    if stand is None:
        raise click.UsageError(f"--result {result!r} needs the STAND tested")
    inputs = {
        "stand": stand,
        "result": result,
        "test": number,
        "why": why,
        "rally_by": rally_by,
    }
    out = g.execute("morale", inputs)
    r = executed(out, as_json)
    if r is None:
        return
    click.echo(r["verdict"])
    if r["changed"]:
        click.echo(f"  {'; '.join(r['changed'])}")
    for t in r["still_due"]:
        click.echo(f"  still due: {t['why']} ({t['rule']})")


def _list(g: object, stand: str | None, as_json: bool) -> None:
    from tabletop.rules.cd.morale import due_tests, orders_in_force

    ctx = g.context()  # type: ignore[attr-defined]
    state = ctx.state
    if stand is not None:
        stand = state.stand(stand)["id"]
    due = due_tests(ctx, stand)
    orders = orders_in_force(ctx)
    if as_json:
        emit_json(
            {
                "turn": state.turn,
                "phase": state.phase,
                "due": [t.as_dict() for t in due],
                "orders": orders,
            }
        )
        return
    where = "" if state.phase == "morale" else " (taken in the morale phase)"
    if not due:
        click.echo(f"No morale tests due{where}.")
    else:
        click.echo(f"{len(due)} morale test{'s' if len(due) != 1 else ''} due{where}:")
        for t in due:
            click.echo(f"  {t.stand} #{t.number}: {t.text()}")
    rally = "rally orders allowed" if orders["rally"] else "no rally orders"
    click.echo(f'Orders reach {orders["radius"]:g}"; {rally} ({orders["rule"]}).')
