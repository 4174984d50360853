"""Provides the `acp-tui` command line: the chat (default) and headless subcommands.

Only the chat path imports Textual, and only once the arguments are known to be good, so
`--help`, `--version` and the subcommands stay fast and work without a terminal.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from acp_tui import __version__
from acp_tui.client.agent.launch import LaunchError, agent_choices, check_supported, resolve_launch
from acp_tui.client.log_file import LOG_NAME
from acp_tui.client.safe_text import sanitize
from acp_tui.commands.usage import (
    Parser,
    UsageError,
    check_agent_choice,
    exit_status,
    output_closed,
    report_usage_error,
    split_agent_command,
)
from acp_tui.config.paths import get_paths
from acp_tui.config.settings import (
    LoadedSettings,
    load_settings,
    settings_to_toml,
    without_secrets,
)
from acp_tui.registry.first_run import should_offer_registry

PROG = "acp-tui"
USAGE = (
    f"{PROG} [DIR] [-a NAME | -- COMMAND ARGS...] [--add-dir DIR]... [-c | --session ID] "
    "[--protocol {1,2}] [--wire-log FILE] "
    "[--version] [-h]"
)


_CHAT_EPILOG = """\
agent command:
  -- COMMAND ARGS...    start COMMAND as the agent instead; everything after
                        '--' is passed to it verbatim

Without -a or '--', {prog} starts the config file's default_agent, else the only configured
agent; with several configured it asks which one, and with none it starts the bundled demo
agent. '-a demo' always means the demo agent.

subcommands: {subcommands} (see '{prog} SUBCOMMAND --help').
To open a directory named like a subcommand, write ./NAME.

Warnings and errors are logged to {log}
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Run `acp-tui` with `argv` (default: `sys.argv[1:]`) and return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    subcommand = SUBCOMMANDS.get(args[0]) if args else None
    if subcommand is None:
        return _reporting_errors(PROG, lambda: _chat(args))
    from acp_tui.client.log_file import LogFile
    from acp_tui.commands.safe_output import safe_output

    # A headless command prints what others wrote: shown, never obeyed; its warnings go to
    # stderr and to the log file.
    with safe_output(), LogFile(get_paths().log_dir, to_stderr=True):
        return _reporting_errors(f"{PROG} {args[0]}", lambda: subcommand(args[1:]))


def _reporting_errors(prog: str, run: Callable[[], int]) -> int:
    """``run()``'s exit status, with the errors every command reports the same way."""
    try:
        return run()
    except UsageError as exc:
        return report_usage_error(prog, exc)
    except LaunchError as exc:
        print(f"{PROG}: error: {sanitize(str(exc))}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # argparse's --help and --version
        return exit_status(exc)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `acp-tui agents list | head -1`
        return output_closed()


def _chat_parser() -> Parser:
    parser = Parser(
        prog=PROG,
        usage=USAGE,
        description="A terminal client for the Agent Client Protocol (ACP).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_CHAT_EPILOG.format(
            prog=PROG,
            subcommands=", ".join(sorted(SUBCOMMANDS)),
            log=sanitize(str(get_paths().log_dir / LOG_NAME)),
        ),
    )
    parser.add_argument(
        "dir", nargs="?", metavar="DIR", help="the session's working directory (default: .)"
    )
    parser.add_argument("-a", "--agent", metavar="NAME", help="the configured agent to start")
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        help="the ACP protocol version to speak (2 is the draft, opt-in; default: 1)",
    )
    parser.add_argument(
        "--add-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="an extra workspace root for the session, after the configured ones (repeatable; "
        "relative to DIR; sent only to agents that support additional directories)",
    )
    again = parser.add_mutually_exclusive_group()
    again.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="reopen the most recent session of DIR, with its history, instead of a new one",
    )
    again.add_argument(
        "--session",
        metavar="ID",
        help="reopen the session ID, with its history (see: sessions list)",
    )
    parser.add_argument(
        "--wire-log",
        metavar="FILE",
        help="append every agent's JSON-RPC traffic to FILE as JSON lines (secrets masked)",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def _wire_log(raw: str | None) -> Path | None:
    """The ``--wire-log`` file, absolute; refused (a usage error) when it cannot be written."""
    if raw is None:
        return None
    path = Path(os.path.abspath(os.path.expanduser(raw)))
    if path.is_dir():
        raise UsageError(f"--wire-log {raw}: is a directory")
    try:
        with path.open("ab"):
            pass
    except OSError as exc:
        raise UsageError(f"--wire-log {raw}: cannot be written: {exc.strerror or exc}") from None
    return path


def _chat(args: list[str]) -> int:
    args, command = split_agent_command(args)
    options = _chat_parser().parse_args(args)
    check_agent_choice(options.agent, command)
    cwd = _session_dir(options.dir)
    extra_roots = _extra_roots(options.add_dir, cwd)
    if extra_roots is None:
        return 2
    wire_log = _wire_log(options.wire_log)
    paths = get_paths()
    loaded = _load_and_warn(paths.config_file)
    agent_name: str | None = options.agent
    choices = agent_choices(agent_name, command, loaded.settings)
    if choices:
        from acp_tui.ui.agent_picker import pick_agent  # Textual is imported only here

        agent_name = pick_agent(choices, loaded.settings)
        if agent_name is None:
            return 0
    launch = resolve_launch(
        cwd=cwd,
        agent_name=agent_name,
        command=command,
        settings=loaded.settings,
        paths=paths,
        protocol=options.protocol,
    )
    roots = tuple(dict.fromkeys([*launch.additional_directories, *extra_roots]))
    launch = replace(
        launch,
        settings=loaded.settings,
        warnings=tuple(loaded.problems),
        additional_directories=roots,
        continue_last=options.continue_last,
        session_id=options.session,
        offer_registry=agent_name is None
        and command is None
        and not loaded.problems
        and should_offer_registry(loaded.settings, paths),
        wire_log=wire_log,
    )
    check_supported(launch)

    from acp_tui.ui.startup import pause_collection

    pause_collection()  # until the chat's first frame is out (the app resumes it)
    from acp_tui.ui.app import run_app  # Textual is imported only here

    return run_app(launch)


def _extra_roots(entries: list[str], cwd: Path) -> tuple[Path, ...] | None:
    """The ``--add-dir`` roots in absolute form; None (each refusal printed) if any is refused."""
    if not entries:
        return ()
    from acp_tui.client.tools.root_choice import validate_roots

    check = validate_roots(entries, cwd)
    for problem in check.problems:
        print(f"{PROG}: error: --add-dir {problem.entry!r}: {problem.reason}", file=sys.stderr)
    return check.accepted if check.ok else None


def _session_dir(raw: str | None) -> Path:
    if raw is None:
        return Path.cwd()
    path = Path(os.path.expanduser(raw))
    if not path.exists():
        raise UsageError(f"{raw}: no such directory")
    if not path.is_dir():
        raise UsageError(f"{raw}: not a directory")
    return Path(os.path.abspath(path))


def _load_and_warn(config_file: Path) -> LoadedSettings:
    """Load the settings, printing each problem as a warning; bad settings never stop us."""
    loaded = load_settings(config_file)
    for problem in loaded.problems:
        print(f"{PROG}: warning: {sanitize(problem)}", file=sys.stderr)
    if loaded.problems:
        print(f"{PROG}: warning: using default settings until this is fixed", file=sys.stderr)
    return loaded


def _config(args: list[str]) -> int:
    parser = Parser(prog=f"{PROG} config", description="Inspect the configuration file.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("path", help="print the path of the config file")
    actions.add_parser("show", help="print the settings in effect as TOML (problems on stderr)")
    options = parser.parse_args(args)
    config_file = get_paths().config_file
    if options.action == "path":
        print(config_file)
        return 0
    loaded = _load_and_warn(config_file)
    print(settings_to_toml(without_secrets(loaded.settings)), end="")
    return 0


def _lazy(module: str, name: str) -> Callable[[list[str]], int]:
    """A subcommand imported only when it runs, so the chat starts without loading it."""

    def run(args: list[str]) -> int:
        command: Callable[[list[str]], int] = getattr(importlib.import_module(module), name)
        return command(args)

    run.__name__ = name
    return run


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "config": _config,
    "agents": _lazy("acp_tui.commands.agents", "agents_command"),
    "mcp": _lazy("acp_tui.commands.mcp", "mcp_command"),
    "sessions": _lazy("acp_tui.commands.sessions", "sessions_command"),
    "search": _lazy("acp_tui.commands.search", "search_command"),
    "serve": _lazy("acp_tui.commands.serve", "serve_command"),
}
"""Headless subcommands by name: `acp-tui NAME ARGS...` runs `SUBCOMMANDS[NAME](ARGS)`."""
