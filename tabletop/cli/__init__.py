"""The ``tabletop`` command line: a thin layer over the library.

Each command group lives in its own module under ``tabletop.cli.commands`` (the file name is
the command name, with ``_`` for ``-``) and exposes ``cli``. Modules are imported only when
their command runs (or when ``--help`` lists them), and they import the rules inside their
functions, so start-up stays light.
"""

from __future__ import annotations

import click

from tabletop import __version__
from tabletop.cli.core import LazyGroup


@click.group(
    "tabletop",
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 80},
)
@click.version_option(__version__, prog_name="tabletop")
def cli() -> None:
    """Referee assistant for WWII miniatures battles (Command Decision).

    \b
    Example (a turn at the table):
      tabletop new crossroads        start (a bundled scenario, or a path)
      tabletop status                look; also show G-1, measure G-1 US-1
      tabletop fire G-1 US-1         act; also barrage US-5 --at 20,30
      tabletop phase next            advance; also turn next
    Add --dice 3,10,1 to use the dice you threw; --json for machines.

    The game lives in ./tabletop.sqlite unless --game or TABLETOP_GAME says otherwise.
    """


def main() -> None:
    cli(prog_name="tabletop")
