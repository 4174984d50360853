"""Provides what every `acp-tui` command line shares: usage errors and the agent command.

Each command reports bad arguments the same way (one line on stderr, exit status 2), so its
parser raises `UsageError` instead of printing argparse's usage block. An agent is named with
``-a NAME`` or given after ``--`` as a command line; `split_agent_command` and
`check_agent_choice` take that apart the same way everywhere.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

__all__ = [
    "Parser",
    "UsageError",
    "check_agent_choice",
    "exit_status",
    "report_usage_error",
    "split_agent_command",
    "tell",
]


class UsageError(Exception):
    """Bad arguments; one line on stderr and exit status 2."""


def tell(text: str) -> None:
    """Say something the user should know, beside the command's output (stderr)."""
    print(f"acp-tui: {text}", file=sys.stderr)


def report_usage_error(prog: str, exc: UsageError) -> int:
    """Say what was wrong with the arguments, in one line on stderr; the exit status, 2."""
    print(f"{prog}: error: {exc} (see '{prog} --help')", file=sys.stderr)
    return 2


class Parser(argparse.ArgumentParser):
    """An argparse parser that raises `UsageError` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def split_agent_command(args: list[str]) -> tuple[list[str], list[str] | None]:
    """``args`` before the first ``--``, and the agent command after it (None without one)."""
    if "--" not in args:
        return args, None
    split = args.index("--")
    return args[:split], args[split + 1 :]


def check_agent_choice(agent: str | None, command: list[str] | None) -> None:
    """Refuse ``-a NAME`` together with ``-- COMMAND``, and a ``--`` with nothing after it."""
    if command is None:
        return
    if agent is not None:
        raise UsageError("use either -a NAME or -- COMMAND, not both")
    if not command:
        raise UsageError("expected an agent command after '--'")


def exit_status(exc: SystemExit) -> int:
    """The exit status argparse meant when it exited (``--help``, ``--version``)."""
    return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1


SIGPIPE_STATUS = 128 + 13
"""The exit status when the reader of our output went away (as if killed by SIGPIPE)."""


def is_broken_pipe(exc: BaseException) -> bool:
    """Whether ``exc`` (or the first error of a group) is our stdout's reader going away."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return isinstance(exc, BrokenPipeError)


def output_closed() -> int:
    """The reader of stdout went away (``… | head -1``): stop quietly, as Unix tools do.

    stdout is pointed at /dev/null so the interpreter's final flush does not complain again.
    """
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return SIGPIPE_STATUS
