"""Provides the MCP servers given to an agent's sessions: chosen, resolved, gated, on the wire.

`enabled_mcp_servers` picks the `[mcp_servers.NAME]` tables an agent uses (those it names, and
those marked ``all_agents``). `mcp_for_session` turns them into the protocol version's
``mcpServers`` list for `session/new`, `session/load`, `session/resume` and `session/fork`:

* a stdio server's command is resolved to an absolute path (the schema requires one); a command
  that cannot be found leaves the server out with an error naming it;
* a transport the agent did not advertise (v1 ``mcpCapabilities.http`` / ``sse``, v2
  ``session.mcp.stdio`` / ``http``; v1 agents always take stdio, v2 has no SSE) leaves the server
  out with a warning naming it. Nothing is dropped silently.

The values of ``env`` and ``headers`` are secrets: they go on the wire and nowhere else (never
into a log, a notice or a ``repr``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from acp_tui.config.settings import McpServerConfig, Settings

if TYPE_CHECKING:  # the launch spec, on the way to the first frame, imports this module
    from acp_tui.client.agent.capabilities import Capabilities

__all__ = [
    "McpProblem",
    "McpServerSpec",
    "McpSetup",
    "enabled_mcp_servers",
    "mcp_for_session",
    "resolve_command",
]

Transport = Literal["stdio", "http", "sse"]


@dataclass(frozen=True, slots=True)
class McpServerSpec:
    """One MCP server as configured; ``env`` and ``headers`` are hidden from ``repr``."""

    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, name: str, config: McpServerConfig) -> McpServerSpec:
        return cls(
            name=name,
            transport=config.transport,
            command=config.command,
            args=tuple(config.args),
            env=tuple(config.env.items()),
            url=config.url,
            headers=tuple(config.headers.items()),
        )


@dataclass(frozen=True, slots=True)
class McpProblem:
    """Why a server was left out of a session: shown in its transcript."""

    server: str
    text: str
    level: Literal["warning", "error"] = "warning"


@dataclass(frozen=True, slots=True)
class McpSetup:
    """The ``mcpServers`` to send (wire dicts of the protocol version) and what was left out."""

    servers: list[dict[str, Any]]
    problems: list[McpProblem]


def enabled_mcp_servers(settings: Settings, agent_name: str | None) -> tuple[McpServerSpec, ...]:
    """The servers for ``agent_name``'s sessions: those marked ``all_agents`` (in the config's
    order), then the ones the agent's table names. ``agent_name`` None: a `-- COMMAND` agent."""
    names = [name for name, config in settings.mcp_servers.items() if config.all_agents]
    agent = settings.agents.get(agent_name) if agent_name is not None else None
    if agent is not None:
        names += [name for name in agent.mcp_servers if name not in names]
    return tuple(
        McpServerSpec.of(name, settings.mcp_servers[name])
        for name in names
        if name in settings.mcp_servers
    )


def resolve_command(command: str, search_path: str | None = None) -> str | None:
    """``command`` as an absolute path to an executable: a path (``~`` expanded) or a name
    found on PATH; None when there is no such executable."""
    expanded = os.path.expanduser(command)
    if os.sep in expanded or (os.altsep and os.altsep in expanded):
        path = os.path.abspath(expanded)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    found = shutil.which(expanded, path=search_path)
    return os.path.abspath(found) if found is not None else None


def _pairs(items: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": key, "value": value} for key, value in items]


def _accepts(caps: Capabilities, transport: Transport) -> bool:
    if transport == "stdio":
        return caps.mcp_stdio
    if transport == "http":
        return caps.mcp_http
    return caps.mcp_sse


def mcp_for_session(
    servers: Sequence[McpServerSpec],
    caps: Capabilities,
    *,
    environ: Mapping[str, str] | None = None,
) -> McpSetup:
    """The ``mcpServers`` value for ``caps.protocol_version`` and the servers left out."""
    v2 = caps.protocol_version >= 2
    wire: list[dict[str, Any]] = []
    problems: list[McpProblem] = []
    path = (environ if environ is not None else os.environ).get("PATH")
    for server in servers:
        if not _accepts(caps, server.transport):
            problems.append(
                McpProblem(
                    server.name,
                    f"MCP server {server.name!r} was not given to {caps.display_name}: "
                    f"it does not accept {server.transport} MCP servers",
                )
            )
            continue
        if server.transport == "stdio":
            command = resolve_command(server.command or "", path) if server.command else None
            if command is None:
                problems.append(
                    McpProblem(
                        server.name,
                        f"MCP server {server.name!r} was left out: its command "
                        f"{server.command!r} was not found (not on PATH, or not executable)",
                        "error",
                    )
                )
                continue
            entry: dict[str, Any] = {
                "name": server.name,
                "command": command,
                "args": list(server.args),
                "env": _pairs(server.env),
            }
            wire.append({"type": "stdio", **entry} if v2 else entry)
            continue
        wire.append(
            {
                "type": server.transport,
                "name": server.name,
                "url": server.url,
                "headers": _pairs(server.headers),
            }
        )
    return McpSetup(wire, problems)
