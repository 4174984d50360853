"""Provides `acp-tui mcp list|add|remove`: the MCP servers acp-tui gives agents, no UI.

Like `acp-tui agents`, `add` and `remove` edit the config file under its lock, atomically and
keeping its comments, and refuse to touch a file that does not load cleanly. The values of
``env`` and ``headers`` are secrets: `list` shows their names only. Exit status: 0 on success,
2 on usage errors, 1 when the config file has problems or cannot be written.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from dataclasses import replace

from acp_tui.client.agent.mcp import resolve_command
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
from acp_tui.config.secrets import mask_url
from acp_tui.config.settings import McpServerConfig, Settings, check_http_url, load_settings

__all__ = ["mcp_command"]

PROG = "acp-tui mcp"

_EPILOG = """\
examples:
  acp-tui mcp add files --all-agents -- npx -y @modelcontextprotocol/server-filesystem ~/src
  acp-tui mcp add github --agent claude --env GITHUB_TOKEN=... -- github-mcp-server stdio
  acp-tui mcp add linear --url https://mcp.linear.app/mcp --header "Authorization: Bearer ..."
  acp-tui mcp list
  acp-tui mcp remove files

A server is given to the agents named with --agent (their mcp_servers list) or, with
--all-agents, to every agent, when a session starts; only in the transports the agent
accepts (stdio always; http and sse when it says so). Values of --env and --header are
never shown or logged.
"""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def mcp_command(args: list[str]) -> int:
    """Run ``acp-tui mcp ARGS`` and return the exit status."""
    args, command = split_agent_command(args)
    try:
        options = _parser().parse_args(args)
        if options.action == "add":
            return _add(options, command)
        if command is not None:
            raise UsageError("'--' and a command are only used with 'add'")
        if options.action == "list":
            return _list()
        return _remove(options.name)
    except UsageError as exc:
        return report_usage_error(PROG, exc)
    except ConfigEditError as exc:
        for line in exc.lines:
            print(f"{PROG}: error: {line}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted; nothing was changed", file=sys.stderr)
        return 130
    except SystemExit as exc:  # --help
        return exit_status(exc)


def _parser() -> Parser:
    parser = Parser(
        prog=PROG,
        description="List, add and remove the MCP servers acp-tui gives agents.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="show the configured MCP servers and who gets them")
    add = actions.add_parser(
        "add",
        usage=f"{PROG} add NAME [options] -- COMMAND ARGS...\n"
        f"       {PROG} add NAME --url URL [--sse] [--header 'NAME: VALUE']... [options]",
        help="add a server: NAME, then '--' and its command (stdio), or --url (http, sse)",
        description="Add [mcp_servers.NAME] to the config file: a stdio server started by "
        "the agent (everything after '--', stored exactly as given) or an http/sse server "
        "at --url.",
    )
    add.add_argument("name", metavar="NAME", help="the server's name, as agents will see it")
    add.add_argument("--url", help="an http or sse server at this http(s):// URL")
    add.add_argument("--sse", action="store_true", help="with --url: the server speaks SSE")
    add.add_argument(
        "--header",
        metavar="'NAME: VALUE'",
        action="append",
        default=[],
        help="with --url: an HTTP header sent to the server (repeatable)",
    )
    add.add_argument(
        "--env",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="for a command: an environment variable for the server (repeatable)",
    )
    add.add_argument(
        "--agent",
        metavar="AGENT",
        action="append",
        default=[],
        dest="agents",
        help="give the server to this configured agent (repeatable)",
    )
    add.add_argument("--all-agents", action="store_true", help="give the server to every agent")
    add.add_argument("--replace", action="store_true", help="replace a server of the same name")
    remove = actions.add_parser(
        "remove", help="remove a server from the config file (and from every agent's list)"
    )
    remove.add_argument("name", metavar="NAME")
    return parser


def _list() -> int:
    loaded = load_settings(get_paths().config_file)
    for problem in loaded.problems:
        print(f"acp-tui: warning: {problem}", file=sys.stderr)
    if loaded.problems:
        print("acp-tui: warning: showing the defaults until this is fixed", file=sys.stderr)
    settings = loaded.settings
    if not settings.mcp_servers:
        print("no MCP servers configured (add one with 'acp-tui mcp add')")
        return 0
    for name, server in settings.mcp_servers.items():
        users = _users(settings, name)
        where = (
            shlex.join([server.command or "", *server.args])
            if server.transport == "stdio"
            else mask_url(server.url or "")
        )
        secrets = [*server.env, *server.headers]
        hidden = f"; {', '.join(secrets)} set (values hidden)" if secrets else ""
        print(f"{name} ({server.transport}, {users}): {where}{hidden}")
    return 0


def _users(settings: Settings, name: str) -> str:
    if settings.mcp_servers[name].all_agents:
        return "all agents"
    agents = sorted(a for a, config in settings.agents.items() if name in config.mcp_servers)
    return f"agents: {', '.join(agents)}" if agents else "no agent yet"


def _pairs(items: list[str], pattern: re.Pattern[str], sep: str, what: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(sep)
        key = key.strip()
        if not found or not pattern.fullmatch(key):
            raise UsageError(f"{what} {key or item!r}: expected {what.lstrip('-').upper()}")
        pairs[key] = value.strip() if sep == ":" else value
    return pairs


def _server(options: argparse.Namespace, command: list[str] | None) -> McpServerConfig:
    env = _pairs(options.env, _ENV_KEY, "=", "--env")
    headers = _pairs(options.header, _HEADER, ":", "--header")
    if options.url is not None:
        if command is not None or env:
            raise UsageError("use either --url or '-- COMMAND' (with --env), not both")
        try:
            check_http_url(options.url)
        except ValueError as exc:
            raise UsageError(f"--url: {exc}") from None
        return McpServerConfig(
            type="sse" if options.sse else "http",
            url=options.url,
            headers=headers,
            all_agents=options.all_agents,
        )
    if options.sse or headers:
        raise UsageError("--sse and --header are only used with --url")
    if not command or not command[0]:
        raise UsageError("expected '-- COMMAND ARGS...' or --url URL")
    return McpServerConfig(
        command=command[0], args=command[1:], env=env, all_agents=options.all_agents
    )


def _add(options: argparse.Namespace, command: list[str] | None) -> int:
    name: str = options.name
    if not _NAME.fullmatch(name):
        raise UsageError(
            f"invalid server name {name!r}: use letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    server = _server(options, command)
    config_file = get_paths().config_file

    def add(settings: Settings) -> Settings:
        if name in settings.mcp_servers and not options.replace:
            raise UsageError(f"an MCP server named {name!r} already exists; add --replace")
        unknown = [a for a in options.agents if a not in settings.agents]
        if unknown:
            known = ", ".join(sorted(settings.agents)) or "none"
            raise UsageError(
                f"no agent named {unknown[0]!r} in {config_file} (configured: {known})"
            )
        agents = dict(settings.agents)
        for agent in options.agents:
            if name not in agents[agent].mcp_servers:
                listed = [*agents[agent].mcp_servers, name]
                agents[agent] = replace(agents[agent], mcp_servers=listed)
        servers = {**settings.mcp_servers, name: server}
        return replace(settings, mcp_servers=servers, agents=agents)

    edit_settings(config_file, add, tell=tell)
    print(f"added MCP server {name!r} to {config_file}")
    if server.command is not None and resolve_command(server.command) is None:
        print(
            f"{PROG}: warning: {server.command!r} is not on PATH (or not executable); sessions "
            "start without this server until it is",
            file=sys.stderr,
        )
    if not options.agents and not options.all_agents:
        print("no agent gets it yet: add --agent AGENT or --all-agents (or edit the config)")
    return 0


def _remove(name: str) -> int:
    config_file = get_paths().config_file

    def remove(settings: Settings) -> Settings:
        if name not in settings.mcp_servers:
            known = ", ".join(sorted(settings.mcp_servers)) or "none"
            raise UsageError(f"no MCP server named {name!r} in {config_file} (configured: {known})")
        servers = {k: v for k, v in settings.mcp_servers.items() if k != name}
        agents = {
            key: replace(agent, mcp_servers=[s for s in agent.mcp_servers if s != name])
            if name in agent.mcp_servers
            else agent
            for key, agent in settings.agents.items()
        }
        return replace(settings, mcp_servers=servers, agents=agents)

    edit_settings(config_file, remove, tell=tell)
    print(f"removed MCP server {name!r} from {config_file}")
    return 0
