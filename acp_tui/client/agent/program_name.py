"""Provides program_name: what to call an agent started with ``-- COMMAND ARGS...``.

An agent that does not say its name (no ``agentInfo``) is called by the command that started
it. The program alone is often no name at all: ``python3 -m my_agent``, ``npx -y
@scope/codex-acp``, ``uvx fast-agent-mcp``, ``node dist/index.js`` would all be called by their
interpreter or launcher. So the interpreter's module or script, and the launcher's package,
name the agent instead; anything else is the program's file name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath

__all__ = ["program_name"]

_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*(?:w)?", re.IGNORECASE)
_SCRIPT_RUNNERS = frozenset({"node", "nodejs", "bun", "deno", "ruby", "perl", "tsx", "ts-node"})
_PACKAGE_RUNNERS = frozenset({"npx", "bunx", "pnpx", "uvx"})
_GENERIC_SCRIPTS = frozenset({"index", "main", "cli", "__main__", "run", "start", "server"})
"""Script names that say nothing of the agent: the folder holding the script names it."""
_VALUED_OPTIONS = frozenset(
    {"-p", "--package", "-c", "--call", "--from", "--with", "--python", "--node-options"}
)
"""Options of launchers and interpreters that take the next argument as their value."""


def _stem(argument: str) -> str:
    path = PurePath(argument)
    name = path.name or argument
    for suffix in (".exe", ".cmd", ".bat"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _operands(args: Sequence[str]) -> list[str]:
    """The arguments that are not options (nor the values of options known to take one)."""
    operands: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _VALUED_OPTIONS:
            skip = True
        elif not arg.startswith("-") or arg == "-":
            operands.append(arg)
    return operands


def _package(spec: str) -> str:
    """A package as its runner names it, without scope, version or extras: ``@scope/x@1.2``
    is ``x``, ``fast-agent-mcp[all]==0.3`` is ``fast-agent-mcp``."""
    name = spec[1:] if spec.startswith("@") else spec
    name = name.split("@", 1)[0]
    name = name.rsplit("/", 1)[-1]
    return re.split(r"[\[=<>!~ ]", name, maxsplit=1)[0] or spec


def _script(argument: str) -> str:
    """A script file as a name: its stem, or its folder's name when the stem is generic."""
    path = PurePath(argument)
    stem = path.stem or argument
    if stem.lower() in _GENERIC_SCRIPTS:
        parent = path.parent.name
        if parent in ("dist", "bin", "build", "lib", "src", "out") and path.parent.parent.name:
            parent = path.parent.parent.name
        if parent:
            return parent
    return stem


def _python(args: Sequence[str]) -> str | None:
    """``-m MODULE``'s module, or the script's name; None for ``-c`` (nothing names it)."""
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in ("-W", "-X"):
            skip = True
        elif arg == "-m" and index + 1 < len(args):
            return args[index + 1]
        elif arg.startswith("-m") and len(arg) > 2 and not arg.startswith("--"):
            return arg[2:]
        elif arg == "-c":
            return None
        elif not arg.startswith("-"):
            return _script(arg)
    return None


def program_name(argv: Sequence[str]) -> str:
    """The name of the agent ``argv`` starts, for the user: see the module's docstring.

    ``python3 -m my_agent`` is ``my_agent``, ``npx -y @scope/codex-acp`` is ``codex-acp``,
    ``node dist/index.js`` in ``my-agent/`` is ``my-agent``, ``/opt/bin/my-agent --acp`` is
    ``my-agent``; an empty command is "agent".
    """
    args = list(argv)
    if args and _stem(args[0]) == "env":  # env [-i] NAME=VALUE... COMMAND
        args = args[1:]
        while args and (args[0].startswith("-") or "=" in args[0]):
            args = args[1:]
    if not args:
        return "agent"
    program = _stem(args[0])
    rest = args[1:]
    named: str | None = None
    lower = program.lower()
    if _PYTHON.fullmatch(lower):
        named = _python(rest)
    elif lower in _SCRIPT_RUNNERS:
        operands = _operands(rest)
        if lower == "deno" and operands[:1] == ["run"]:
            operands = operands[1:]
        named = _script(operands[0]) if operands else None
    elif lower in _PACKAGE_RUNNERS:
        operands = _operands(rest)
        named = _package(operands[0]) if operands else None
    elif lower in ("pnpm", "yarn", "pipx", "uv", "npm"):
        operands = _operands(rest)
        if operands[:2] == ["tool", "run"]:
            operands = ["run", *operands[2:]]
        if operands[:1] in (["dlx"], ["run"], ["exec"]) and len(operands) > 1:
            runner = operands[1]
            if runner.endswith((".py", ".js", ".mjs", ".ts")):
                return _script(runner)
            named = program_name([runner, *rest[rest.index(runner) + 1 :]])
            if named == _stem(runner) and "/" not in runner:
                named = _package(runner)
    return named or program
