"""Shared CLI machinery: lazy command loading, options, parameter types, output, errors."""

from __future__ import annotations

import functools
import importlib
import os
import sys
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tabletop.core.errors import TabletopError
from tabletop.core.words import fraction_text

if TYPE_CHECKING:
    from pathlib import Path

# Modules used only inside functions are imported there: ``tabletop --help`` loads this
# module and should cost little more than click itself.

F = TypeVar("F", bound=Callable[..., Any])

COMMANDS_PACKAGE = "tabletop.cli.commands"
DEFAULT_GAME = "tabletop.sqlite"


class DomainError(click.ClickException):
    """A domain error shown as one line with its own exit code."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click declares it per class


class LazyGroup(click.Group):
    """Finds command modules by file name; imports a module only when it is needed."""

    def __init__(self, *args: Any, package: str = COMMANDS_PACKAGE, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.package = package

    def _modules(self) -> dict[str, str]:
        module = importlib.import_module(self.package)
        folder = os.path.dirname(module.__file__ or "")
        names = [f[:-3] for f in os.listdir(folder) if f.endswith(".py") and not f.startswith("_")]
        return {name.replace("_", "-"): f"{self.package}.{name}" for name in names}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self._modules(), *self.commands})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the commands from their modules' first lines, importing none of them.

        ``tabletop --help`` is the first thing a newcomer types: it should be as quick as
        click itself. Each module's docstring starts ``tabletop NAME ...: what it does.``
        """
        rows = [(name, self._summary(name)) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _summary(self, name: str) -> str:
        if name in self.commands:
            return self.commands[name].get_short_help_str(80)
        package = importlib.import_module(self.package)
        path = os.path.join(os.path.dirname(package.__file__ or ""), f"{name.replace('-', '_')}.py")
        try:
            with open(path, encoding="utf-8") as source:
                first = source.readline()
        except OSError:
            return ""
        text = first.strip().strip('"').strip()
        summary = text.split(": ", 1)[1] if ": " in text else text
        summary = summary.rstrip(".")
        return summary[:1].upper() + summary[1:]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        target = self._modules().get(cmd_name)
        if target is None:
            return None
        command = importlib.import_module(target).cli
        assert isinstance(command, click.Command)
        return command

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        """Like click's, but every error is one line: ``Error: ... (see '... --help')``."""
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        try:
            result = super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(1)
        except click.UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError" and exc.ctx is not None:
                # 'tabletop' or 'tabletop weather' alone: the help itself, as click shows
                # it (click 8.2 and later raise it as a usage error), not folded into a line.
                click.echo(exc.ctx.get_help(), err=True)
                sys.exit(exc.exit_code)
            where = exc.ctx.command_path if exc.ctx is not None else self._path(args, kwargs)
            name_argument(exc)
            click.echo(f"Error: {one_line(exc.format_message())} (see '{where} --help')", err=True)
            sys.exit(exc.exit_code)
        except DomainError as exc:
            # The first line is the message; a domain error's details follow, indented.
            click.echo(f"Error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"Error: {one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        sys.exit(result if isinstance(result, int) else 0)

    def _path(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
        """The command a usage error without a context belongs to (click's parser says
        "Option '--to' requires an argument." with none): ``tabletop undo``."""
        argv = list(args[0] if args else kwargs.get("args") or sys.argv[1:])
        path = [kwargs.get("prog_name") or "tabletop"]
        group: click.Command = self
        for arg in argv:
            if not isinstance(group, click.Group) or arg.startswith("-"):
                break
            try:
                sub = group.get_command(click.Context(group), arg)
            except Exception:  # a broken command module is not this message's concern
                sub = None
            if sub is None:
                break
            path.append(arg)
            group = sub
        return " ".join(path)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TabletopError as exc:
            raise domain_error(exc) from None
        except OSError as exc:
            # A path the system refuses (too long, not a folder, no permission): bad input.
            if isinstance(exc, BrokenPipeError) or exc.strerror is None:
                raise
            where = f"{str(exc.filename)!r}: " if exc.filename is not None else ""
            raise DomainError(one_line(f"{where}{exc.strerror}"), 2) from None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            # The commands are found lazily, so click has none to suggest from: 'mov' ->
            # "Did you mean 'move'?", as a subgroup says for its own commands.
            import difflib

            name = args[0] if args else ""
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3)
            if not close or not exc.message.startswith("No such command"):
                raise
            hint = " or ".join(repr(c) for c in close)
            raise click.UsageError(
                f"No such command {name!r}. Did you mean {hint}?", ctx=ctx
            ) from None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # A shell can pass bytes that are not UTF-8; Python keeps them as lone surrogates,
        # which the log cannot store or hash. Refuse them here, for every command.
        for arg in args:
            if any("\ud800" <= ch <= "\udfff" for ch in arg):
                raise click.UsageError(
                    f"{arg!r} is not UTF-8 text (the \\udcXX are bytes that are not): retype it",
                    ctx=ctx,
                )
        return super().parse_args(ctx, args)


class SignedCommand(click.Command):
    """A command whose arguments may be negative numbers (``-1 5``, ``-5,3``): those reach
    the command, to be reported as off the table, while a misspelt option (``--chek``)
    is still refused as one, with click's suggestion."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        settings = kwargs.setdefault("context_settings", {})
        settings["ignore_unknown_options"] = True
        super().__init__(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if ctx.resilient_parsing:  # shell completion: never refuse a half-typed line
            return super().parse_args(ctx, args)
        options = {
            name: not (param.is_flag or param.count)
            for param in self.get_params(ctx)
            if isinstance(param, click.Option)
            for name in (*param.opts, *param.secondary_opts)
        }
        takes_value = False
        for arg in args:
            if arg == "--":
                break
            if takes_value:
                takes_value = False
                continue
            name = arg.split("=", 1)[0]
            if name in options:
                takes_value = options[name] and "=" not in arg
                continue
            if arg.startswith("-") and len(arg) > 1 and not _signed_number(arg):
                import difflib

                close = difflib.get_close_matches(
                    name, [o for o in options if o not in ("-h", "--help")], n=1
                )
                raise click.NoSuchOption(name, possibilities=close, ctx=ctx)
        return super().parse_args(ctx, args)


def _signed_number(text: str) -> bool:
    """``-5``, ``-0.5``, ``-5,3`` or ``-5,-3``: numbers, not options."""
    try:
        for part in text.split(","):
            float(part)
    except ValueError:
        return False
    return True


def _isfinite(number: float) -> bool:
    return number == number and number not in (float("inf"), float("-inf"))


def name_argument(exc: click.UsageError) -> None:
    """click's wording made plain: an optional argument is X, not '[X]'; a range is
    "give a whole number from 1 to 8", not "the range 1<=x<=8"."""
    if not isinstance(exc, click.BadParameter):
        return
    if isinstance(exc.param, click.Argument):
        exc.param_hint = exc.param_hint or f"'{exc.param.human_readable_name}'"
    exc.message = plain_range(exc.message)  # type: ignore[misc]  # Final in click


def plain_range(message: str) -> str:
    """``0 is not in the range 1<=x<=8.`` -> ``0 is out of range: give a whole number from 1
    to 8``; ``'x' is not a valid integer range.`` -> ``'x' is not a whole number``."""
    import re

    kind = "a whole number"
    bad = re.fullmatch(r"(.+) is not a valid (integer|float) range\.", message)
    if bad:
        return f"{bad[1]} is not {kind if bad[2] == 'integer' else 'a number'}"
    found = re.fullmatch(r"(.+) is not in the range (.+)\.", message)
    if not found:
        return message
    value, span = found[1], found[2]
    if "." in value or "." in span:
        kind = "a number"
    both = re.fullmatch(r"(-?[\d.]+)(<=?)x(<=?)(-?[\d.]+)", span)
    low = re.fullmatch(r"x(>=?)(-?[\d.]+)", span)
    high = re.fullmatch(r"x(<=?)(-?[\d.]+)", span)
    if both and both[2] == both[3] == "<=":
        return f"{value} is out of range: give {kind} from {both[1]} to {both[4]}"
    if low:
        least = "at least" if low[1] == ">=" else "above"
        return f"{value} is out of range: give {kind}, {least} {low[2]}"
    if high:
        most = "at most" if high[1] == "<=" else "below"
        return f"{value} is out of range: give {kind}, {most} {high[2]}"
    return message


def one_line(text: str) -> str:
    return " ".join(text.split())


def domain_error(exc: TabletopError) -> DomainError:
    """The CLI error for ``exc``: its one-line message, then its details indented below."""
    lines = [one_line(str(exc)), *(f"  {one_line(d)}" for d in exc.details)]
    return DomainError("\n".join(lines), exc.exit_code)


# --- parameter types -------------------------------------------------------------------------


class Inches(click.ParamType):
    """A finite distance in inches, from 0 to a sane maximum."""

    name = "INCHES"

    def __init__(self, maximum: float = 1000.0, allow_negative: bool = False):
        self.maximum = maximum
        self.allow_negative = allow_negative

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(str(value).strip().rstrip('"'))
            except ValueError:
                self.fail(f"{value!r} is not a number of inches", param, ctx)
        if not _isfinite(number):
            self.fail(f"{value!r} is not a finite number of inches", param, ctx)
        if number < 0 and not self.allow_negative:
            self.fail(f"{value!r} is negative: distances are 0 or more inches", param, ctx)
        if abs(number) > self.maximum:
            self.fail(f"{value!r} is more than {self.maximum:g} inches", param, ctx)
        return number + 0.0  # -0.0 becomes 0.0, which is not logged or shown as "-0"


class Amount(click.ParamType):
    """A finite number from ``minimum`` to ``maximum``, in ``unit``.

    ``click.FloatRange`` lets ``nan`` through (no comparison with it is true) and accepts
    ``inf`` when a bound is open; this refuses both, with the range in the message.
    """

    name = "NUMBER"

    def __init__(self, minimum: float, maximum: float, unit: str = ""):
        self.minimum = minimum
        self.maximum = maximum
        self.unit = unit

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float) and _isfinite(value):
            number = value
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a number", param, ctx)
        unit = f" {self.unit}" if self.unit else ""
        if not _isfinite(number) or not self.minimum <= number <= self.maximum:
            self.fail(
                f"{value!r} is not a number from {self.minimum:g} to {self.maximum:g}{unit}",
                param,
                ctx,
            )
        return number + 0.0


class Bearing(click.ParamType):
    name = "DEGREES"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a bearing in degrees (0-360)", param, ctx)
        if not _isfinite(number) or not 0 <= number <= 360:
            self.fail(f"{value!r} is not a bearing in degrees (0-360)", param, ctx)
        return number % 360


class Point(click.ParamType):
    """``X,Y`` in inches."""

    name = "X,Y"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[float, float]:
        if isinstance(value, tuple):
            return value
        parts = str(value).replace(" ", "").split(",")
        if len(parts) != 2:
            self.fail(f"{value!r} is not a point: write X,Y in inches, like 24,12.5", param, ctx)
        coords = []
        for part in parts:
            try:
                number = float(part)
            except ValueError:
                self.fail(f"{value!r} is not a point: {part!r} is not a number", param, ctx)
            if not _isfinite(number) or abs(number) > 10_000:
                self.fail(f"{value!r} is not a point on a table", param, ctx)
            coords.append(number)
        return (coords[0], coords[1])


class DiceValues(click.ParamType):
    """``3,10,1``: the physical dice the referee threw, in order; ``3,1,+`` to let the
    program roll the rest; ``ask`` (or ``3,ask``) to be asked for each die."""

    name = "VALUES"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from tabletop.core.dice import DiceGiven, parse_dice_given
        from tabletop.core.errors import DiceError

        if isinstance(value, list | DiceGiven):
            return value
        try:
            return parse_dice_given(str(value))
        except DiceError as exc:
            self.fail(str(exc).removeprefix("--dice "), param, ctx)


class StandId(click.ParamType):
    name = "STAND"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value).strip()
        if not text or len(text) > 64 or any(ch.isspace() or not ch.isprintable() for ch in text):
            self.fail(f"{value!r} is not a stand id", param, ctx)
        return text

    def shell_complete(
        self, ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[Any]:
        from click.shell_completion import CompletionItem

        try:
            ids = _stand_ids_for_completion(ctx)
        except Exception:
            return []
        return [CompletionItem(i) for i in ids if i.startswith(incomplete)]


def _game_for_completion(ctx: click.Context) -> str:
    """The game a command line being completed names: its ``--game`` as typed so far, else
    ``TABLETOP_GAME``, else the default."""
    return str(ctx.params.get("game") or os.environ.get("TABLETOP_GAME") or DEFAULT_GAME)


def _stand_ids_for_completion(ctx: click.Context) -> list[str]:
    import json

    from tabletop.game.rows import read_row

    raw = read_row(_game_for_completion(ctx), "meta")
    return list(json.loads(raw)["stand_order"]) if raw else []


def weapon_completer(stand_param: str = "shooter") -> Callable[..., list[Any]]:
    """Shell completion for ``--weapon``: the stand already typed for ``stand_param`` offers
    its own weapons; otherwise every weapon the game's charts know (the bundled charts
    without a game). Never fails: what cannot be worked out offers nothing."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from click.shell_completion import CompletionItem

        # With ``--weapon`` last on the line click's resilient parse stops at it, before the
        # positional arguments are assigned: they are still in ``ctx.args``.
        stand = ctx.params.get(stand_param) or (ctx.args[0] if ctx.args else None)
        try:
            ids = _weapon_ids_for_completion(ctx, stand)
        except Exception:
            return []
        return [CompletionItem(i) for i in ids if i.startswith(incomplete)]

    return complete


def load_charts(overlays: tuple[Path, ...] = ()) -> Any:
    """The bundled charts with ``overlays`` (``data.chart_files.load_charts``), without
    importing the YAML reader when the same files were compiled before (``data/compiled.py``:
    the calculator's charts load in a few milliseconds)."""
    from tabletop.data.compiled import known_charts

    charts, _ = known_charts(overlays)
    if charts is None:
        from tabletop.data.chart_files import load_charts as read_and_check

        charts = read_and_check(overlays)
    return charts


def _weapon_ids_for_completion(ctx: click.Context, stand: str | None) -> list[str]:
    import json

    from tabletop.game.rows import read_row_and_game

    path = _game_for_completion(ctx)
    if not os.path.isfile(path):
        return sorted(load_charts().weapons)
    raw, info = read_row_and_game(path, f"stand:{stand}" if stand else "meta")
    if stand and raw:
        return list(json.loads(raw)["weapons"])
    weapons = json.loads(info.charts_json).get("weapons", [])
    if isinstance(weapons, dict):
        weapons = weapons.get("entries", [])
    return sorted(str(w["id"]) for w in weapons)


def model_completer(include_cd: bool = True) -> Callable[..., list[Any]]:
    """Shell completion for a model name: ``fire --model``, ``model show``, ``model run``
    (where ``cd``, the default, has no procedures and is left out)."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from click.shell_completion import CompletionItem

        from tabletop.rules.models import CD, model_names

        names = [n for n in model_names() if include_cd or n != CD]
        return [CompletionItem(n) for n in names if n.startswith(incomplete)]

    return complete


def profile_completer(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion for ``--shooter`` / ``--target`` profiles: those of the model given
    with ``--model`` (else the game's scenario model), from the game's charts (the bundled
    charts without a game). Never fails: what cannot be worked out offers nothing."""
    from click.shell_completion import CompletionItem

    try:
        ids = _profile_ids_for_completion(ctx)
    except Exception:
        return []
    return [CompletionItem(i) for i in ids if i.startswith(incomplete)]


def procedure_completer(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion for ``model run NAME PROCEDURE``: NAME's procedures."""
    from click.shell_completion import CompletionItem

    try:
        model = _model_for_completion(ctx, str(ctx.params.get("name") or ""))
        names = list(model.procedures()) if model is not None else []
    except Exception:
        return []
    return [CompletionItem(n) for n in names if n.startswith(incomplete)]


def _profile_ids_for_completion(ctx: click.Context) -> list[str]:
    model = _model_for_completion(ctx, ctx.params.get("model"))
    return sorted(model.profiles()) if model is not None else []


def _model_for_completion(ctx: click.Context, name: str | None) -> Any:
    """The model ``name`` (else the game's scenario model) on the game's charts, or None."""
    from tabletop.rules.models import MODELS, find_model

    path = _game_for_completion(ctx)
    if os.path.isfile(path):
        from tabletop.game.engine import Game

        game = Game.open(path)
        try:
            loaded = game.loaded
            name = name or str(loaded.scenario.model)
            return find_model(name, loaded.charts) if name in MODELS else None
        finally:
            game.close()
    if name not in MODELS:
        return None

    return find_model(str(name), load_charts())


class Modifier(click.ParamType):
    """``NAME`` (a charted modifier) or ``NAME=VALUE`` (an ad-hoc one)."""

    name = "NAME[=VALUE]"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[str, int | None]:
        if isinstance(value, tuple):
            return value
        name, sep, number = str(value).partition("=")
        name = name.strip()
        if not name or any(ch.isspace() for ch in name):
            self.fail(
                f"{value!r}: give a modifier as NAME or NAME=VALUE, like cover=-2", param, ctx
            )
        if not sep:
            return (name, None)
        try:
            amount = int(number)
        except ValueError:
            self.fail(f"{value!r}: the value must be a whole number like -2 or +1", param, ctx)
        if abs(amount) > 10:
            self.fail(f"{value!r}: a to-hit modifier is between -10 and +10", param, ctx)
        return (name, amount)


class Setting(click.ParamType):
    """``KEY=VALUE`` for a model option; numbers and true/false are read as such."""

    name = "KEY=VALUE"

    def convert(self, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
        if isinstance(value, tuple):
            return value
        key, sep, text = str(value).partition("=")
        if not sep or not key.strip():
            self.fail(f"{value!r}: write KEY=VALUE, like cover=woods", param, ctx)
        return (key.strip(), parse_value(text.strip()))


def parse_value(text: str) -> Any:
    """A model option's value: true/false and numbers as such, anything else as written."""
    import math

    if text.lower() in ("true", "yes"):
        return True
    if text.lower() in ("false", "no"):
        return False
    for cast in (int, float):
        try:
            number = cast(text)
        except ValueError:
            continue
        if isinstance(number, float) and not math.isfinite(number):
            return text
        return number
    return text


SETTING = Setting()


INCHES = Inches()
POINT = Point()


class Coordinate(click.ParamType):
    """An X (or a whole ``X,Y``) where a position is given as ``X Y``; see `xy_arguments`."""

    name = "X"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float | tuple[float, float]:
        if isinstance(value, str) and "," in value:
            return POINT.convert(value, param, ctx)
        return Inches(10_000, allow_negative=True).convert(value, param, ctx)


def xy_arguments(f: F | None = None, *, required: bool = True) -> Any:
    """Arguments X Y in inches, also accepted as one ``X,Y`` like the options' points.

    The command receives ``x`` and ``y`` as floats (both None when not ``required`` and
    not given).
    """

    def join(ctx: click.Context, param: click.Parameter, y: float | None) -> float | None:
        x = ctx.params.get("x")
        if isinstance(x, tuple):
            if y is not None:
                raise click.UsageError(f"give the position as X Y or as X,Y, not both ({y:g})")
            ctx.params["x"] = x[0]
            return x[1]
        if y is None and (required or x is not None):
            raise click.UsageError("missing Y: give the position as X Y (or X,Y) in inches")
        return y

    def decorate(g: F) -> F:
        g = click.argument(
            "y",
            required=False,
            metavar="Y",
            type=Inches(10_000, allow_negative=True),
            callback=join,
        )(g)
        return click.argument("x", type=Coordinate(), required=required)(g)

    return decorate if f is None else decorate(f)


def batch_options(f: F) -> F:
    """``--and "ARGS"`` (repeatable) and ``--file FILE``: more items for one batched command,
    each written as that command's own arguments (one a line in the file; # comments)."""
    f = click.option(
        "--file",
        "batch_file",
        # A path, read when the items are built: an open file would leak when another
        # parameter is refused before the command runs.
        type=click.Path(exists=True, dir_okay=False, readable=True),
        default=None,
        help="A file of more items, one a line, written as this command's arguments.",
    )(f)
    return click.option(
        "--and",
        "batch_more",
        multiple=True,
        metavar='"ARGS"',
        help="One more item, written as this command's arguments (repeatable).",
    )(f)


def batch_items(
    command_: click.Command,
    more: tuple[str, ...],
    file: Any,
    to_inputs: Callable[[dict[str, Any]], dict[str, Any]],
) -> list[dict[str, Any]]:
    """Each ``--and`` value, then each line of ``--file``, parsed by the command's own
    parser and turned into its action's inputs by ``to_inputs``; a bad item is bad input
    naming it."""
    import shlex

    sources = [(f"--and {text!r}", text) for text in more]
    if file is not None:
        try:
            with open(file, encoding="utf-8") as lines:
                text = lines.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise click.BadParameter(f"cannot read {file!r}: {exc}", param_hint="--file") from None
        lines_ = text.splitlines()
        sources += [(f"{file} line {n}", line) for n, line in enumerate(lines_, start=1)]
    items = []
    for where, text in sources:
        try:
            words = shlex.split(text, comments=True)
        except ValueError as exc:
            raise click.UsageError(f"{where}: {exc}") from None
        if not words:
            continue
        if any(w in ("--and", "--file", "--game", "--dice") for w in words):
            raise click.UsageError(f"{where}: give --and, --file, --game and --dice once, outside")
        try:
            sub = command_.make_context(command_.name, words)
            items.append(to_inputs(sub.params))
        except click.UsageError as exc:
            name_argument(exc)
            raise click.UsageError(f"{where}: {one_line(exc.format_message())}") from None
    return items


BEARING = Bearing()
STAND = StandId()
MODIFIER = Modifier()


# --- shared options --------------------------------------------------------------------------


def _path_type() -> type:
    from pathlib import Path

    return Path


def game_option(f: F) -> F:
    # The game file as text (``state.store.GameFile``): a command that only reads a game
    # then loads no ``pathlib``.
    return click.option(
        "--game",
        type=click.Path(dir_okay=False),
        callback=lambda ctx, param, value: None if value is None else tidy_path(value),
        envvar="TABLETOP_GAME",
        default=DEFAULT_GAME,
        show_default=True,
        help="The game file (or set TABLETOP_GAME).",
    )(f)


def tidy_path(path: str) -> str:
    """``path`` spelt as ``pathlib`` spells it (``./games//a.sqlite/`` as ``games/a.sqlite``):
    how messages have always named the game file, now that it stays text (POSIX paths; a
    Windows path is kept as given)."""
    if os.sep != "/":
        return path
    if path.startswith("//") and not path.startswith("///"):
        lead = "//"  # two leading slashes mean something of their own to POSIX: kept
    elif path.startswith("/"):
        lead = "/"
    else:
        lead = ""
    return lead + "/".join(p for p in path.split("/") if p not in ("", ".")) or "."


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")(f)


VIEW_HELP = (
    "referee (everything) or a side's name (only what that side may know). "
    "Default: TABLETOP_VIEW, else the game's 'tabletop view set', else referee."
)


def view_option(f: F) -> F:
    """``--view referee|SIDE`` for a reading command (SPEC 3); see ``chosen_view``."""
    return click.option(
        "--view",
        default=None,
        envvar="TABLETOP_VIEW",
        metavar="VIEW",
        shell_complete=lambda ctx, param, incomplete: view_completions(ctx, incomplete),
        help=VIEW_HELP,
    )(f)


def chosen_view(view: str | None, state: Any, sides: Any = None) -> str:
    """The view a reading command shows: ``--view`` (or TABLETOP_VIEW), else the game's
    own setting, else the referee's; matched case-insensitively against the game's sides."""
    from tabletop.core.sides import resolve_view

    if sides is None:
        sides = list(dict.fromkeys(s["side"] for s in state.stands()))
    if view is None:
        setting = state.rows.get("settings", {}).get("view")
        if setting is not None:
            return resolve_view(setting, sides, option="game setting view")
    return resolve_view(view, sides)


def view_completions(ctx: click.Context, incomplete: str) -> list[Any]:
    """``referee`` and the sides of the game (read from its stands)."""
    import json

    from click.shell_completion import CompletionItem

    from tabletop.game.rows import read_rows

    names = ["referee"]
    try:
        for key, value in read_rows(_game_for_completion(ctx))[0].items():
            if key.startswith("stand:"):
                side = json.loads(value).get("side")
                if side and side not in names:
                    names.append(side)
    except Exception:
        pass  # completion never fails: without a game it offers the referee's view
    return [CompletionItem(n) for n in names if n.lower().startswith(incomplete.lower())]


def dice_option(f: F) -> F:
    return click.option(
        "--dice",
        type=DiceValues(),
        default=None,
        help="The dice you threw, in the order the command takes them (e.g. 3,10,1); too few "
        "is refused, naming each die; end with ,+ to let the program roll the rest, or give "
        "'ask' to be asked for each die.",
    )(f)


def charts_option(f: F) -> F:
    return _charts_click_option()(f)


def checked_charts_option(f: F) -> F:
    """``--charts`` read as soon as it is parsed, for commands whose other inputs (a file to
    edit) would otherwise be judged first: a malformed overlay is the first thing said."""
    return _charts_click_option(is_eager=True, callback=_overlays_checked)(f)


def _charts_click_option(**extra: Any) -> Callable[[F], F]:
    return click.option(
        "--charts",
        "charts_dirs",
        type=click.Path(file_okay=False, path_type=_path_type()),
        multiple=True,
        help="A folder of chart files overlaying the bundled charts (repeatable).",
        **extra,
    )


def _overlays_checked(
    ctx: click.Context, param: click.Parameter, value: tuple[Path, ...]
) -> tuple[Path, ...]:
    if value:
        from tabletop.data.chart_files import load_charts

        load_charts(tuple(value))
    return value


def open_game(path: str) -> Any:
    from tabletop.game.engine import Game

    game = Game.open(path)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        # Close the file as the command ends, not whenever the garbage collector gets to it:
        # an idle connection left open keeps SQLite from recovering the log of a killed
        # writer, so what other commands see would depend on when it is collected.
        ctx.call_on_close(game.close)
        # Every text output ends with each die the command rolled, marked physical or
        # generated (SPEC 7), unless the command showed them so itself.
        game.on_outcome = lambda out: ctx.meta.__setitem__(OUTCOME_KEY, out)
        ctx.call_on_close(functools.partial(_dice_trailer, ctx))
        if ctx.meta.get(ODDS_KEY):
            game.execute = functools.partial(_odds_instead, game, ctx)  # type: ignore[assignment]
            ctx.meta[ODDS_GAME_KEY] = True
    return game


ODDS_KEY = "tabletop.core.odds"
ODDS_GAME_KEY = "tabletop.core.odds-in-a-game"


def odds_option(f: F) -> F:
    """``--odds``: instead of rolling, the exact odds of the command's outcomes, worked out
    by running its own procedure over every face of its dice; nothing rolled or logged.
    (``tabletop odds CMD ...`` sets the same.)"""

    def mark(ctx: click.Context, param: click.Parameter, value: bool) -> None:
        if value:
            ctx.meta[ODDS_KEY] = True

    return click.option(
        "--odds",
        is_flag=True,
        expose_value=False,
        callback=mark,
        help="Show the exact odds of the outcomes instead; nothing is rolled or logged.",
    )(f)


def _odds_instead(
    game: Any,
    ctx: click.Context,
    command: str,
    inputs: dict[str, Any],
    *,
    physical: list[int] | None = None,
    **_: Any,
) -> None:
    """Stands in for ``Game.execute`` under ``--odds``: print the odds, end the command."""
    if physical:
        raise click.UsageError("--odds rolls nothing: leave out --dice", ctx=ctx)
    report = game.odds(command, inputs)
    if ctx.params.get("as_json"):
        emit_json(
            {
                "command": command,
                "outcomes": {k: fraction_text(p) for k, p in report.outcomes.items()},
                "expected": {k: fraction_text(v) for k, v in report.expected.items()},
                "percent": {k: round(float(p) * 100, 3) for k, p in report.outcomes.items()},
            }
        )
    else:
        from tabletop.cli.odds_text import from_report

        echo_odds(from_report(report))
    ctx.exit(0)


def odds_as_asked(name: str, dice: Any, check: Callable[[], Any] | None = None) -> bool:
    """Under ``--odds``, run ``tabletop odds NAME`` with this command's own arguments, so
    ``fire --odds`` and ``odds fire`` give the same odds in the same words; ``check`` first
    refuses what the command typed now would refuse (its phase, a weapon fired this turn),
    which ``odds NAME`` asked in advance does not. False when no odds were asked."""
    here = click.get_current_context()
    if not here.meta.get(ODDS_KEY):
        return False
    if dice is not None:
        raise click.UsageError("--odds rolls nothing: leave out --dice", ctx=here)
    if check is not None:
        check()
    # Found by name (the odds group builds on the commands' options: no import back).
    root = here.find_root().command
    group = root.get_command(here, "odds") if isinstance(root, click.Group) else None
    found = group.get_command(here, name) if isinstance(group, click.Group) else None
    assert found is not None
    names = {p.name for p in found.params}
    here.invoke(found, **{k: v for k, v in here.params.items() if k in names})
    return True


def echo_odds(summary: Any) -> None:
    """Every command's odds, read the same way (``cli.odds_text``)."""
    from tabletop.cli.odds_text import lines

    text = lines(summary)
    click.echo(headline(text[0]))
    for line in text[1:]:
        click.echo(line)


OUTCOME_KEY = "tabletop.outcome"
DICE_SHOWN_KEY = "tabletop.core.dice-shown"


def dice_shown() -> None:
    """The command printed every die itself, marked physical or generated."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta[DICE_SHOWN_KEY] = True


def _dice_trailer(ctx: click.Context) -> None:
    out = ctx.meta.pop(OUTCOME_KEY, None)
    if out is None or ctx.params.get("as_json") or ctx.meta.get(DICE_SHOWN_KEY):
        return
    for line in dice_lines(out.rolls, out.result):
        click.echo(line)


def dice_lines(rolls: list[Any], result: Any) -> list[str]:
    """``dice: 3 physical (purpose), 7 generated (purpose)``, and any dice left unused."""
    lines = []
    if rolls:
        parts = []
        for r in rolls:
            d = r if isinstance(r, dict) else r.as_dict()
            parts.append(f"{d['value']} {d['source']} (d{d['die']}, {d['purpose']})")
        lines.append("  dice: " + "; ".join(parts))
    unused = result.get("unused_dice") if isinstance(result, dict) else None
    if unused:
        values = ", ".join(str(v) for v in unused["values"])
        lines.append(f"  dice not used: {values} ({unused['why']})")
    return lines


def dice_inputs(dice: Any) -> dict[str, Any]:
    """Physical values, the prompt callback and what to do when the values run out, for
    ``Game.execute`` (and ``Dice``).

    SPEC 7: the ``--dice`` values come first; too few is refused naming each die the command
    needs, unless the list ends with ``+`` (the generator rolls the rest) or ``ask`` (the
    referee is asked for each remaining die, answers read from a pipe when stdin is not a
    terminal).
    """
    from tabletop.core.dice import ASK, GENERATE, REFUSE, DiceGiven

    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.meta.get(ODDS_KEY) and not ctx.meta.get(ODDS_GAME_KEY):
        # A calculator without a game would roll: --odds works on a game's command.
        raise click.UsageError(
            f"--odds works out {ctx.command_path.removeprefix('tabletop ')!r} in a game: "
            "start one with 'tabletop new SCENARIO' (without a game, only quick fire has "
            "odds: 'tabletop fire --weapon ... --odds')",
            ctx=ctx,
        )
    if dice is None:
        return {"physical": [], "ask": None, "rest": GENERATE}
    if dice == "ask":
        dice = DiceGiven((), ASK)
    if not isinstance(dice, DiceGiven):
        dice = DiceGiven(tuple(dice), REFUSE)
    ask = DiePrompt() if dice.rest == ASK else None
    return {"physical": list(dice.values), "ask": ask, "rest": dice.rest}


class DiePrompt:
    """Asks the referee for each die of one command, until the input ends."""

    def __init__(self) -> None:
        self.ended = False

    def __call__(self, sides: int, purpose: str) -> int | None:
        if self.ended:
            return None
        try:
            answer: int | None = click.prompt(
                f"d{sides} for {purpose} (blank: let the program roll)",
                default="",
                show_default=False,
                err=True,
                value_proc=functools.partial(_die_answer, sides),
            )
        except click.Abort as exc:
            # End of input (not Ctrl-C): piped answers ran out, so the generator rolls the rest.
            if not isinstance(exc.__context__, EOFError):
                raise
            click.echo(err=True)
            self.ended = True
            return None
        return answer


def _die_answer(sides: int, text: str) -> int | None:
    """A typed die value, or None for blank; a bad answer is asked again, not fatal."""
    text = text.strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= sides):
        raise click.BadParameter(f"{text!r} is not a d{sides} value: give 1 to {sides}, or blank")
    return int(text)


# --- output ----------------------------------------------------------------------------------


def emit_json(data: Any) -> None:
    import json

    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=_json_default))


def _json_default(value: Any) -> Any:
    from fractions import Fraction

    if isinstance(value, Fraction):
        return float(value)
    if isinstance(value, tuple | set):
        return list(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def use_colour() -> bool:
    return "NO_COLOR" not in os.environ and sys.stdout.isatty()


def style(text: str, **kwargs: Any) -> str:
    return click.style(text, **kwargs) if use_colour() else text


def headline(text: str) -> str:
    return style(text, bold=True)


TABLE_WIDTH = 80  # columns: a plain terminal, and a printed page


def fit_table(rows: list[list[Any]], headers: list[str], width: int = TABLE_WIDTH) -> str:
    """A plain tabulate table that fits ``width`` columns: the widest columns are wrapped
    onto more lines between words (never below a readable 8 characters, nor below the
    column's longest word: a weapon id or a status is never cut) until the rows fit."""
    cells = [["" if c is None else str(c) for c in row] for row in rows]
    # tabulate pads a header by two (its MIN_PADDING), so a column is at least that wide.
    widths = [
        max([len(h) + 2, *(len(line) for r in cells for line in r[i].splitlines() or [""])])
        for i, h in enumerate(headers)
    ]
    floors = [
        max([8, len(h) + 2, *(len(word) for r in cells for word in r[i].split())])
        for i, h in enumerate(headers)
    ]
    gaps = 2 * (len(headers) - 1)
    while sum(widths) + gaps > width:
        narrower = [i for i in range(len(widths)) if widths[i] > floors[i]]
        if not narrower:
            break  # as narrow as it may go: let the line run long rather than cut a word
        widest = max(narrower, key=lambda i: widths[i])
        widths[widest] -= 1
    wrapped = [
        [
            "\n".join(_fill(line, widths[i]) for line in cell.splitlines() or [""])
            for i, cell in enumerate(row)
        ]
        for row in cells
    ]
    if (
        wrapped
        and all(h.isascii() and h.isprintable() for h in headers)
        and all(_plain(c) for row in wrapped for c in row)
    ):
        return plain_table(wrapped, headers, [None] * len(headers))
    from tabulate import tabulate

    return tabulate(wrapped, headers=headers, disable_numparse=True)


def _fill(line: str, width: int) -> str:
    """``line`` wrapped to ``width`` between words, as ``textwrap.fill`` wraps it. A line that
    fits and that ``fill`` would leave as it is (printable, no space at either end) is
    returned at once: most cells of a status table, where calling ``fill`` for each of some
    800 cells was a tenth of the command."""
    if len(line) <= width and line.isprintable() and line[:1] != " " and line[-1:] != " ":
        return line
    return textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False)


def _plain(text: str) -> bool:
    """Printable ASCII and line breaks only: where a character is a column wide."""
    return text.isascii() and (text.isprintable() or text.replace("\n", "").isprintable())


def plain_table(cells: list[list[str]], headers: list[str], limits: list[int | None]) -> str:
    """What ``tabulate(cells, headers, maxcolwidths=limits, disable_numparse=True)`` prints
    (its plain format), byte for byte, for cells of printable ASCII, without importing
    tabulate and wcwidth (a quarter of ``status``): left-aligned columns two spaces apart,
    each as wide as its widest line or its header and two, a cell wrapped to its column's
    limit as tabulate wraps it, lines right-stripped. tests/test_cli.py compares the two.
    """
    wrapped = [
        [
            c if limit is None else "\n".join(_TabulateWrap(limit).wrap(c))
            for c, limit in zip(row, limits, strict=True)
        ]
        for row in cells
    ]
    # tabulate strips each cell, then (when any cell has a line break) lays out each row as
    # many lines as its tallest cell, which for a row of empty cells is none at all.
    multiline = any("\n" in c for row in [headers, *wrapped] for c in row)
    split = [[c.strip().splitlines() if multiline else [c.strip()] for c in row] for row in wrapped]
    widths = [
        max([len(h) + 2, *(len(line) for row in split for line in row[i])])
        for i, h in enumerate(headers)
    ]
    out = [
        "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    for row in split:
        for n in range(max(len(lines) for lines in row)):
            out.append(
                "  ".join(
                    (lines[n] if n < len(lines) else "").ljust(w)
                    for lines, w in zip(row, widths, strict=True)
                ).rstrip()
            )
    return "\n".join(out)


class _TabulateWrap(textwrap.TextWrapper):
    """textwrap as tabulate wraps a cell: a word longer than the column is cut at the column's
    width, never at a hyphen (tabulate's own ``_handle_long_word``)."""

    def _handle_long_word(
        self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int
    ) -> None:
        space_left = 1 if width < 1 else width - cur_len
        if self.break_long_words:
            chunk = reversed_chunks[-1]
            cur_line.append(chunk[:space_left])
            reversed_chunks[-1] = chunk[space_left:]
        elif not cur_line:
            cur_line.append(reversed_chunks.pop())


def fit_columns(
    rows: list[list[Any]], headers: list[str], width: int = TABLE_WIDTH
) -> tuple[str, list[str]]:
    """A table of the columns that fit ``width``, taken in the order given (the first one
    always), and the headers of the columns left out, for a chart too wide to show whole."""
    from tabulate import tabulate

    cells = [["" if c is None else str(c) for c in row] for row in rows]
    kept: list[int] = []
    used = 0
    for i, h in enumerate(headers):
        need = max([len(h) + 2, *(len(r[i]) for r in cells)]) + (2 if kept else 0)
        if not kept or used + need <= width:
            kept.append(i)
            used += need
    text = tabulate([[r[i] for i in kept] for r in cells], headers=[headers[i] for i in kept])
    return text, [h for i, h in enumerate(headers) if i not in kept]


def executed(out: Any, as_json: bool) -> dict[str, Any] | None:
    """A state-changing command's result with its event number; under ``--json`` it is
    printed as the one JSON object and None comes back, so the caller stops there."""
    result = {"event": out.seq, **out.result}
    if as_json:
        if out.rolls:
            result["dice_rolled"] = [r.as_dict() for r in out.rolls]
        emit_json(result)
        return None
    return result


def rolls_text(rolls: list[Any]) -> str:
    """``7 (to-hit 1 of 2), 3* (...)``; physical rolls are starred."""
    from tabletop.render.events import rolls_text as text

    dice_shown()
    return text(rolls)


def command(f: F) -> F:
    """Mark a command function; converts domain errors raised outside the group's invoke."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except TabletopError as exc:
            raise domain_error(exc) from None

    return wrapper  # type: ignore[return-value]
