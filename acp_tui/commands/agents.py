"""Provides `acp-tui agents list|add|remove|search|upgrade`: the configured agents, no UI.

`add` and `remove` edit the config file atomically (keeping its comments and layout), and refuse
to touch a file that does not load cleanly, so the user's text is never replaced by defaults.
`search`, `add --from-registry` and `upgrade` use the ACP agent registry (see
`acp_tui.commands.agent_registry`). Exit status: 0 on success, 2 on usage errors (including
unknown or reserved names), 1 when the config file has problems or cannot be written, or the
registry or a download fails; errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from dataclasses import replace

from acp_tui.client.agent.launch import DEMO_AGENT_NAME
from acp_tui.commands import agent_registry
from acp_tui.commands.usage import (
    Parser,
    UsageError,
    exit_status,
    report_usage_error,
    split_agent_command,
    tell,
)
from acp_tui.config.edit import ConfigEditError, edit_settings
from acp_tui.config.paths import get_paths
from acp_tui.config.settings import AgentConfig, Settings, load_settings
from acp_tui.registry.entries import KINDS
from acp_tui.registry.install import remove_installed

__all__ = ["agents_command"]

PROG = "acp-tui agents"
_ADD_OPTIONS = (
    "[--protocol {1,2}] [--env KEY=VALUE]... [--add-dir DIR]... [--title TITLE] [--default] "
    "[--replace]"
)
ADD_USAGE = (
    f"{PROG} add NAME {_ADD_OPTIONS} -- COMMAND ARGS...\n"
    f"       {PROG} add [NAME] --from-registry ID [--distribution {{npx,uvx,binary}}] [--yes] "
    f"{_ADD_OPTIONS}"
)

_EPILOG = """\
examples:
  acp-tui agents add my-agent -- my-agent --acp --verbose
  acp-tui agents add claude --default --env LOG=debug -- npx @agentclientprotocol/claude-agent-acp
  acp-tui agents remove my-agent
  acp-tui agents search gemini
  acp-tui agents add --from-registry gemini
  acp-tui agents upgrade --dry-run

The agent named 'demo' is the bundled demo agent; it is always available and cannot be changed.
"""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def agents_command(args: list[str]) -> int:
    """Run ``acp-tui agents ARGS`` and return the exit status."""
    args, command = split_agent_command(args)
    try:
        options = _parser().parse_args(args)
        if options.action == "list":
            _reject_command(command)
            return _list()
        if options.action == "add":
            return _add(options, command)
        _reject_command(command)
        if options.action == "search":
            return agent_registry.search(options.text)
        if options.action == "upgrade":
            return agent_registry.upgrade(options.names, dry_run=options.dry_run, yes=options.yes)
        return _remove(options.name)
    except UsageError as exc:
        return report_usage_error(PROG, exc)
    except ConfigEditError as exc:
        for line in exc.lines:
            print(f"{PROG}: error: {line}", file=sys.stderr)
        return 1
    except agent_registry.RegistryCommandError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted; nothing was changed", file=sys.stderr)
        return 130
    except SystemExit as exc:  # --help
        return exit_status(exc)


def _parser() -> Parser:
    parser = Parser(
        prog=PROG,
        description="List, add and remove the agents in the config file, and add them from "
        "the ACP agent registry.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="show the configured agents and the built-in demo agent")
    add = actions.add_parser(
        "add",
        usage=ADD_USAGE,
        help="add an agent: NAME, then '--' and the command that starts it; or --from-registry",
        description="Add [agents.NAME] to the config file. Everything after '--' is the "
        "command and its arguments, stored exactly as given (no shell splitting). With "
        "--from-registry ID the command comes from the ACP agent registry instead: it is shown "
        "first and written once you confirm (a binary is downloaded into acp-tui's data "
        "directory first).",
    )
    add.add_argument(
        "name",
        metavar="NAME",
        nargs="?",
        help="the name used with 'acp-tui -a NAME' (with --from-registry, default: the ID)",
    )
    add.add_argument(
        "--from-registry", metavar="ID", help="add the registry's agent ID (see 'search')"
    )
    add.add_argument(
        "--distribution",
        choices=KINDS,
        help="with --from-registry: how to run it (default: the first of npx, uvx, binary "
        "that can run here, preferring one whose launcher is on PATH)",
    )
    add.add_argument(
        "--yes", action="store_true", help="with --from-registry: add it without asking"
    )
    add.add_argument(
        "--protocol", type=int, choices=(1, 2), default=1, help="the ACP version (default: 1)"
    )
    add.add_argument(
        "--env",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="an environment variable for the agent (repeatable)",
    )
    add.add_argument(
        "--add-dir",
        metavar="DIR",
        action="append",
        default=[],
        dest="add_dirs",
        help="an extra directory every session may use (repeatable)",
    )
    add.add_argument("--title", help="the name shown in the UI (default: NAME)")
    add.add_argument("--default", action="store_true", help="also make it the default_agent")
    add.add_argument("--replace", action="store_true", help="replace an agent of the same name")
    remove = actions.add_parser("remove", help="remove an agent from the config file")
    remove.add_argument("name", metavar="NAME")
    search = actions.add_parser(
        "search",
        help="list the agents of the ACP agent registry (matching TEXT)",
        description="List the agents of the ACP agent registry (registry_url in the config "
        "file) whose id, name or description contains TEXT: their version, how they run "
        "(npx, uvx, binary) and whether that launcher is on PATH. Offline, the last copy "
        "fetched is used, and its age is shown.",
    )
    search.add_argument("text", metavar="TEXT", nargs="?", help="the text to look for")
    upgrade = actions.add_parser(
        "upgrade",
        help="move agents added from the registry to the registry's newer version",
        description="For each agent added with --from-registry (or each NAME), compare its "
        "recorded version with the registry's and write the newer one, keeping your title, "
        "protocol, extra directories and env.",
    )
    upgrade.add_argument("names", metavar="NAME", nargs="*", help="only these agents")
    upgrade.add_argument("--dry-run", action="store_true", help="only show what would change")
    upgrade.add_argument("--yes", action="store_true", help="upgrade without asking")
    return parser


def _reject_command(command: list[str] | None) -> None:
    if command is not None:
        raise UsageError("'--' and a command are only used with 'add'")


def _list() -> int:
    config_file = get_paths().config_file
    loaded = load_settings(config_file)
    for problem in loaded.problems:
        print(f"acp-tui: warning: {problem}", file=sys.stderr)
    if loaded.problems:
        print("acp-tui: warning: showing the defaults until this is fixed", file=sys.stderr)
    settings = loaded.settings
    for name in sorted(n for n in settings.agents if n != DEMO_AGENT_NAME):
        config = settings.agents[name]
        marks = ["default"] if settings.default_agent == name else []
        if config.protocol != 1:
            marks.append(f"ACP v{config.protocol}")
        if config.registry_id:
            marks.append(f"registry {config.registry_id} {config.registry_version or '?'}")
        label = f"{name} ({', '.join(marks)})" if marks else name
        print(f"{label}: {shlex.join([config.command, *config.args])}")
    demo = "built in, default" if settings.default_agent == DEMO_AGENT_NAME else "built in"
    print(f"{DEMO_AGENT_NAME} ({demo}): the bundled demo agent")
    return 0


def _add(options: argparse.Namespace, command: list[str] | None) -> int:
    env: dict[str, str] = {}
    for item in options.env:
        key, sep, value = item.partition("=")
        if not sep or not _ENV_KEY.fullmatch(key):
            raise UsageError(f"--env {item!r}: expected KEY=VALUE")
        env[key] = value
    if options.from_registry is not None:
        if command is not None:
            raise UsageError("use either --from-registry ID or -- COMMAND, not both")
        _check_name(options.name or options.from_registry)
        return agent_registry.add_from_registry(options, env)
    if options.distribution is not None or options.yes:
        raise UsageError("--distribution and --yes are only used with --from-registry")
    name: str | None = options.name
    if name is None:
        raise UsageError("the following arguments are required: NAME")
    _check_name(name)
    if command is None:
        raise UsageError("expected '-- COMMAND ARGS...' after the options")
    if not command or not command[0]:
        raise UsageError("expected an agent command after '--'")
    agent = AgentConfig(
        command=command[0],
        args=command[1:],
        env=env,
        protocol=options.protocol,
        additional_directories=options.add_dirs,
        title=options.title,
    )
    config_file = get_paths().config_file

    def add(settings: Settings) -> Settings:
        if name in settings.agents and not options.replace:
            raise UsageError(f"an agent named {name!r} already exists; add --replace to replace it")
        agents = {**settings.agents, name: agent}
        default_agent = name if options.default else settings.default_agent
        return replace(settings, agents=agents, default_agent=default_agent)

    edit_settings(config_file, add, tell=tell)
    print(f"added {name!r} to {config_file}")
    return 0


def _remove(name: str) -> int:
    if name == DEMO_AGENT_NAME:
        raise UsageError("the demo agent is built in and cannot be removed")
    paths = get_paths()
    config_file = paths.config_file
    was_default = False
    removed: AgentConfig | None = None

    def remove(settings: Settings) -> Settings:
        nonlocal was_default, removed
        if name not in settings.agents:
            known = ", ".join(sorted(settings.agents)) or "none"
            raise UsageError(f"no agent named {name!r} in {config_file} (configured: {known})")
        agents = {key: value for key, value in settings.agents.items() if key != name}
        removed = settings.agents[name]
        was_default = settings.default_agent == name
        default_agent = None if was_default else settings.default_agent
        return replace(settings, agents=agents, default_agent=default_agent)

    edit_settings(config_file, remove, tell=tell)
    print(f"removed {name!r} from {config_file}")
    if removed is not None and removed.registry_distribution == "binary":
        remove_installed(paths, name)
        print("and its downloaded files")
    if was_default:
        print("it was the default_agent, which is now unset")
    return 0


def _check_name(name: str) -> None:
    if name == DEMO_AGENT_NAME:
        raise UsageError("'demo' is the bundled demo agent's name; choose another")
    if not _NAME.fullmatch(name):
        raise UsageError(
            f"invalid agent name {name!r}: use letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
