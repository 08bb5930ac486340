"""tabletop play: an interactive session on one game, the same commands without the prefix."""

from __future__ import annotations

import itertools
import os
import shlex
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click

from tabletop.cli.core import DEFAULT_GAME, command
from tabletop.core.words import count

# Words the session itself understands; everything else is a tabletop command.
QUIT = ("quit", "exit")
HELP = "Type a command as after 'tabletop' (fire G-1 US-1, phase next, undo --dry-run ...); "
HELP += "'view SIDE' or 'view referee' changes the view; 'quit' ends."
# serve runs until Ctrl-C: it belongs in a terminal of its own, beside the session.
NOT_INSIDE = ("play", "completion", "serve")


@click.command("play")
@click.option(
    "--game",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="TABLETOP_GAME",
    default=DEFAULT_GAME,
    show_default=True,
    help="The game file (or set TABLETOP_GAME).",
)
@click.option("--view", default="referee", help="referee, or a side's name, for reading commands.")
@click.option(
    "--echo",
    is_flag=True,
    help="Commands read from a pipe: print each one, after the prompt, before its answer.",
)
@command
def cli(game: str, view: str, echo: bool) -> None:
    """An interactive session on one game: type commands without 'tabletop'.

    Completion of commands, stand ids and weapons (Tab), history (up arrow), and a
    prompt showing the turn, phase and view. One warm process, so a command answers
    at once; each command changes and logs the game exactly as it would from the
    shell. When another process changes the game, the session says so and reloads.

    When standard input is not a terminal, one command is read from each line (for
    scripts and tests; '#' starts a comment, as in a shell): a command that fails says
    which line it was, the session goes on, and at the end names every line that
    failed. The exit status is then that of the last command that failed, or 0.

    \b
    Example:
      tabletop play
      printf 'status\\nroll d10\\n' | tabletop play --game battle.sqlite
      tabletop play --game battle.sqlite --echo < turn-3.txt
    """
    session = Session(game, view)
    if not os.path.isfile(game):
        raise click.BadParameter(
            f"{game!r} is not a game: start one with 'tabletop new SCENARIO'",
            param_hint="'--game'",
        )
    if sys.stdin.isatty() and sys.stdout.isatty():
        code = session.interactive()
    else:
        code = session.run_lines(sys.stdin, echo=echo)
    sys.exit(code)


class Session:
    """One game, one warm process: runs lines as tabletop commands."""

    def __init__(self, game: str, view: str = "referee"):
        self.game = game
        self.view = view
        self.head: str | None = None
        self.turn: int | None = None
        self.phase: str | None = None
        self.stands: list[str] = []
        self.weapons: list[str] = []
        self.last_failure = 0
        self.scripted = False  # lines read from a pipe: each line is a command

    # --- the game as the prompt and completion see it ----------------------------------------

    def refresh(self) -> bool:
        """Read the game's head; True when it changed since the session last looked."""
        import json

        from tabletop.game.rows import read_if_changed

        head, rows = read_if_changed(self.game, self.head)
        if rows is None:
            return False
        meta = json.loads(rows.get("meta") or "{}")
        self.turn, self.phase = meta.get("turn"), meta.get("phase")
        self.stands = list(meta.get("stand_order") or [])
        weapons: set[str] = set()
        for sid in self.stands:
            raw = rows.get(f"stand:{sid}")
            if raw:
                weapons.update(json.loads(raw).get("weapons") or [])
        self.weapons = sorted(weapons)
        changed = self.head is not None
        self.head = head
        return changed

    def prompt(self) -> str:
        return f"turn {self.turn} {self.phase} [{self.view}]> "

    # --- running one line --------------------------------------------------------------------

    def run_line(self, line: str) -> int | None:
        """Run one line; its exit status, or None to end the session."""
        code = self._run(line)
        if code:
            self.last_failure = code
        return code

    def _run(self, line: str) -> int | None:
        line = line.strip()
        if not line or line.startswith("#"):
            return 0
        try:
            words = shlex.split(line, comments=True)
        except ValueError as exc:
            click.echo(f"Error: {line!r}: {exc}", err=True)
            return 2
        if words[0] == "tabletop":
            words = words[1:]
        if not words:
            return 0
        if words[0] in QUIT:
            return None
        if words[0] == "help" and len(words) == 1:
            click.echo(HELP)
            words = ["--help"]
        if words[0] == "view":
            if len(words) != 2:
                click.echo("Error: give one view: 'view referee' or 'view SIDE'", err=True)
                return 2
            self.view = words[1]
            return 0
        if words[0] in NOT_INSIDE:
            click.echo(f"Error: {words[0]!r} is not run inside 'tabletop play'", err=True)
            return 2
        if self.scripted and asks_for_dice(words):
            # The next lines are commands, not dice: they must not be read as answers.
            click.echo(
                "Error: --dice ask reads each die from the terminal, but this session reads "
                "its commands from a pipe: give the dice on the line, like --dice 3,4 "
                "(or 3,+ to let the program roll the rest)",
                err=True,
            )
            return 2
        return dispatch(self.with_view(words), self.game)

    def with_view(self, words: list[str]) -> list[str]:
        """Add ``--view`` to a reading command that takes one, when the session has a view."""
        if self.view == "referee" or "--view" in words:
            return words
        if takes_option(words, "--view"):
            return [*words, "--view", self.view]
        return words

    def run_lines(self, lines: Iterable[str], echo: bool = False) -> int:
        """Scripted: every line, in order, until the input ends or a 'quit'.

        A failed command's error names its line and the command; the lines that failed
        are listed again at the end, so a long script's refusals are not lost in its output.
        ``echo`` prints each command after the prompt, as a transcript of the session.
        """
        self.scripted = True
        self.refresh()
        failed: list[tuple[int, int]] = []
        commands = 0
        for number, line in enumerate(lines, start=1):
            if self.refresh():
                click.echo(
                    f"(the game was changed by another process: reloaded; now turn {self.turn}, "
                    f"{self.phase} phase)",
                    err=True,
                )
            text = line.strip()
            if text and not text.startswith("#"):
                commands += 1
                if echo:
                    click.echo(self.prompt() + text)
            code = self.run_numbered(number, text)
            if code is None:
                break
            if code:
                failed.append((number, code))
            sys.stdout.flush()
            self.refresh_after_own()
        if failed:
            where = ", ".join(f"line {n} (exit {c})" for n, c in failed)
            click.echo(
                f"play: {len(failed)} of {count(commands, 'command')} failed: {where}", err=True
            )
        return self.last_failure

    def run_numbered(self, number: int, line: str) -> int | None:
        """Run line ``number`` of a script; an error it prints is prefixed with the line
        number and the command, so the referee finds the line to mend."""
        import contextlib
        import io

        caught = io.StringIO()
        with contextlib.redirect_stderr(caught):
            code = self.run_line(line)
        said = caught.getvalue()
        if code:
            where = f"line {number} ({line.split(' #', 1)[0].strip()})"
            lines = said.splitlines(keepends=True)
            first = next((n for n, text in enumerate(lines) if text.startswith("Error: ")), None)
            if first is None:
                lines.insert(0, f"Error: {where}: exit status {code}\n")
            else:
                lines[first] = f"Error: {where}: " + lines[first].removeprefix("Error: ")
            said = "".join(lines)
        if said:
            sys.stderr.write(said)
            sys.stderr.flush()
        return code

    def interactive(self) -> int:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        folder, name = os.path.split(self.game)
        history = os.path.join(folder, f".{name}.history")
        ps: PromptSession[str] = PromptSession(
            history=FileHistory(history), completer=make_completer(self)
        )
        self.refresh()
        click.echo(f"tabletop play: {self.game}. {HELP}")
        while True:
            if self.refresh():
                click.echo(
                    f"(the game was changed by another process: reloaded; now turn {self.turn}, "
                    f"{self.phase} phase)"
                )
            try:
                line = ps.prompt(self.prompt())
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if self.run_line(line) is None:
                break
            self.refresh_after_own()
        return 0

    def refresh_after_own(self) -> None:
        """Our own command changed the game: take in the change without a notice."""
        self.head = None
        self.refresh()


def asks_for_dice(words: list[str]) -> bool:
    """``--dice ask`` (or ``--dice 3,ask``, ``--dice=ask``) among a command's words."""
    values = [b for a, b in itertools.pairwise(words) if a == "--dice"]
    values += [w.split("=", 1)[1] for w in words if w.startswith("--dice=")]
    return any(v.split(",")[-1].strip() == "ask" for v in values)


def dispatch(words: list[str], game: str) -> int:
    """Run ``tabletop WORDS`` in this process against ``game``; its exit status.

    The same click commands as from the shell, so the game changes and the log records
    exactly what a shell command would. Exit statuses and error lines are the shell's."""
    from tabletop.cli import cli as root

    before = os.environ.get("TABLETOP_GAME")
    os.environ["TABLETOP_GAME"] = str(game)
    try:
        root.main(args=words, prog_name="tabletop", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        if before is None:
            os.environ.pop("TABLETOP_GAME", None)
        else:
            os.environ["TABLETOP_GAME"] = before
    return 0


def command_for(words: list[str]) -> tuple[Any, click.Context, Any]:
    """The command (or group) the leading WORDS name, walking into groups, with the root."""
    from tabletop.cli import cli as root

    ctx = click.Context(root)
    found: Any = root
    for word in words:
        if not isinstance(found, click.Group):
            break
        nxt = found.get_command(ctx, word)
        if nxt is None:
            break
        found = nxt
    return found, ctx, root


def takes_option(words: list[str], option: str) -> bool:
    """Whether the command WORDS names (a group's subcommand too) has ``option``."""
    found, _, _ = command_for(words)
    return isinstance(found, click.Command) and any(
        option in p.opts for p in found.params if isinstance(p, click.Option)
    )


def candidates(session: Session, done: list[str]) -> list[str]:
    """What may follow the words ``done``: commands and subcommands, then stand ids and
    the command's options, or the game's weapons after ``--weapon``."""
    found, ctx, root = command_for(done)
    if isinstance(found, click.Group):
        names = [n for n in found.list_commands(ctx) if n not in NOT_INSIDE]
        return [*names, "quit", "view"] if found is root else names
    if done and done[-1] == "--weapon":
        return session.weapons
    options = [o for p in found.params if isinstance(p, click.Option) for o in p.opts]
    return [*session.stands, *options]


def make_completer(session: Session) -> Any:
    from prompt_toolkit.completion import Completer, Completion

    class Words(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterator[Completion]:
            text = document.text_before_cursor
            words = text.split()
            current = "" if text.endswith(" ") or not words else words[-1]
            done = words if text.endswith(" ") else words[:-1]
            for word in candidates(session, done):
                if word.lower().startswith(current.lower()) and word != current:
                    yield Completion(word, start_position=-len(current))

    return Words()


def timed(session: Session, lines: list[str]) -> list[float]:
    """Seconds each line takes inside a warm session (for the benchmark)."""
    out = []
    for line in lines:
        start = time.perf_counter()
        session.run_line(line)
        out.append(time.perf_counter() - start)
    return out
