"""The ``tabletop`` command line: a thin layer over the library.

Each command group lives in its own module under ``tabletop.cli.commands`` (the file name is
the command name, with ``_`` for ``-``) and exposes ``cli``. Modules are imported only when
their command runs (or when ``--help`` lists them), and they import the rules inside their
functions, so start-up stays light.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import MutableMapping
from typing import NoReturn

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


def main() -> NoReturn:
    """The ``tabletop`` console script: one command, then out at once.

    By the time ``cli`` returns the command is over: its game file is written and closed
    (``open_game`` closes it as the command's context ends) and its output printed. What
    remains is the interpreter tearing itself down, freeing numpy, shapely and every module
    object by object: about 20 ms, a tenth of a geometry command, for nothing the referee
    sees (docs/performance.md). So the output is flushed and the process leaves. Only the
    console script does this; the tests, and the interactive session's own commands, call
    ``cli`` itself.
    """
    _one_blas_thread(os.environ)
    # Starting up makes objects by the hundred thousand (numpy, shapely, our modules, the
    # game's rows) and hardly any garbage in cycles: the collector's default pass every 700
    # new objects ran 72 times in 'measure' to free about 500 objects, 8 ms of 150. A pass
    # every 100,000 keeps memory bounded all the same (about 10 MB more at the peak of a
    # long odds enumeration, which does make cycles) and gives the time back.
    gc.set_threshold(100_000)
    try:
        cli(prog_name="tabletop")
    except SystemExit as done:
        code = done.code
    else:
        code = 0
    if code is not None and not isinstance(code, int):
        # sys.exit("message"): the message on stderr and status 1, as Python does.
        if sys.stderr is not None:
            print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        # None when the process was started with that descriptor closed ('>&-').
        if stream is not None:
            # A reader that stopped listening ('| head') has nothing left to be told.
            with contextlib.suppress(OSError):
                stream.flush()
    os._exit(code or 0)


# Where OpenBLAS reads how many threads to start, in the order it reads them.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _one_blas_thread(environ: MutableMapping[str, str]) -> None:
    """Ask numpy's OpenBLAS for no pool of threads, unless the user chose a number.

    Loaded (by shapely), OpenBLAS starts a thread for each further core, and each spins on
    its core for a while, waiting for work that never comes: the geometry here is small
    arrays, no matrix algebra. On two cores that was 47 ms of CPU a command (``measure``:
    132 ms where 85 ms do the work) and 5 ms of wall time to start the threads, more on more
    cores (docs/performance.md). Read as the library loads, so set before any command runs.
    """
    if not any(environ.get(name) for name in BLAS_THREADS):
        environ["OPENBLAS_NUM_THREADS"] = "1"
