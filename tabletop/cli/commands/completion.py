"""tabletop completion: the shell completion script (commands, stands, weapons, models)."""

from __future__ import annotations

import os

import click

from tabletop.cli.core import command, emit_json, json_option

SHELLS = ("bash", "zsh", "fish")
INSTALL = {
    "bash": 'eval "$(tabletop completion bash)"        # in ~/.bashrc',
    "zsh": 'eval "$(tabletop completion zsh)"         # in ~/.zshrc',
    "fish": "tabletop completion fish | source        # in ~/.config/fish/config.fish",
}


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS), required=False)
@json_option
@command
def cli(shell: str | None, as_json: bool) -> None:
    """Print the shell completion script for bash, zsh or fish.

    With it loaded, Tab completes command names, options, stand ids (from the
    game in --game, TABLETOP_GAME or ./tabletop.sqlite), weapon ids after
    --weapon (the firing stand's own weapons when it is already typed), model
    names after --model and in 'model show|run', a model's profiles after
    --shooter and --target, and its procedures in 'model run NAME'. SHELL
    defaults to the one in $SHELL.

    \b
    Example:
      eval "$(tabletop completion bash)"
      tabletop completion fish | source
    """
    from click.shell_completion import get_completion_class

    from tabletop.cli import cli as root

    chosen = shell or _login_shell()
    completion = get_completion_class(chosen)
    assert completion is not None  # every name in SHELLS is one click supports
    script = completion(root, {}, "tabletop", "_TABLETOP_COMPLETE").source()
    if as_json:
        emit_json({"shell": chosen, "install": INSTALL[chosen], "script": script})
        return
    click.echo(script)


def _login_shell() -> str:
    name = os.path.basename(os.environ.get("SHELL", ""))
    return name if name in SHELLS else "bash"
