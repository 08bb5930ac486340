"""The domain errors. The CLI turns them into exit codes; nothing else does.

- ``BadInput`` and its children: the user's input cannot be used (exit 2).
- ``RulesRefusal``: the input is well formed but the rules forbid the action (exit 3).
- ``GameBusy``: another process holds the game file (exit 1).
"""

from __future__ import annotations


class TabletopError(ValueError):
    """Base of every error a user can cause.

    The message is one line. ``details`` are further lines the CLI prints under it, for
    errors that must list several findings at once (every problem in a scenario file).
    """

    exit_code = 2
    details: tuple[str, ...] = ()


class BadInput(TabletopError):
    """Malformed or impossible input: exit 2."""


class UnknownStand(BadInput):
    """A stand id that is not in the game."""


class ChartError(BadInput):
    """One or more problems in the chart files; ``problems`` lists every one."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        head = (
            problems[0] if len(problems) == 1 else f"{len(problems)} chart problems: {problems[0]}"
        )
        self.details = tuple(problems[1:])
        super().__init__(head)


class ScenarioError(BadInput):
    """One or more problems in a scenario file; ``problems`` lists every one."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        head = (
            problems[0]
            if len(problems) == 1
            else f"{len(problems)} scenario problems: {problems[0]}"
        )
        self.details = tuple(problems[1:])
        super().__init__(head)


class DiceError(BadInput):
    """A physical die value that does not fit, or physical dice left unused."""


class NoGame(BadInput):
    """No game file where one is needed."""


class RulesRefusal(TabletopError):
    """The rules forbid this action; the message names the rule."""

    exit_code = 3


class GameBusy(TabletopError):
    """The game file is locked by another command for longer than we wait."""

    exit_code = 1


class ReplayDivergence(TabletopError):
    """Replaying the log did not reproduce the stored state."""

    exit_code = 1
