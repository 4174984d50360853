"""Provides the choice of which agent to start, where, and with which protocol version."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from acp_tui.client.agent.mcp import McpServerSpec, enabled_mcp_servers
from acp_tui.client.agent.program_name import program_name
from acp_tui.client.process.command import AgentCommand
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings
from acp_tui.protocol.versions import SUPPORTED_PROTOCOLS

__all__ = [
    "DEMO_AGENT_NAME",
    "LaunchError",
    "LaunchSpec",
    "agent_choices",
    "demo_agent_command",
    "resolve_launch",
]

DEMO_AGENT_NAME = "demo"
"""The agent name that always means the bundled demo agent."""


class LaunchError(Exception):
    """The command line or the config does not say which agent to start; the message says why."""


@dataclass(frozen=True)
class LaunchSpec:
    """Everything needed to start one agent session."""

    command: AgentCommand
    """The agent process to spawn; its cwd is the session cwd."""
    cwd: Path
    """The session's working directory, absolute."""
    additional_directories: tuple[Path, ...] = ()
    """Further session roots, absolute."""
    protocol_version: int = 1
    """The ACP protocol version to offer in `initialize`."""
    is_demo: bool = False
    """Whether this is the bundled demo agent."""
    display_name: str = ""
    """The agent's name for the UI until it says its own."""
    title: str | None = None
    """The config's ``title`` for the agent: shown instead of the name the agent gives."""
    config_name: str | None = None
    """The agent's name in the config (``[agents.NAME]``); None for the demo agent and for a
    ``-- COMMAND`` agent, which have no table: a reloaded config applies that table to it, and
    a login's value can be saved in it."""
    settings: Settings = field(default_factory=Settings, hash=False)
    """The settings in effect (theme, show_thoughts...), for the UI."""
    warnings: tuple[str, ...] = ()
    """Problems found while loading the settings, for the UI to show once it is up."""
    offer_registry: bool = False
    """Offer the "Add an agent" dialog once the session is open (a first run, nothing set up)."""
    continue_last: bool = False
    """Open the project's most recent session instead of a new one (``--continue``)."""
    session_id: str | None = None
    """Open this session instead of a new one (``--session ID``)."""
    wire_log: Path | None = None
    """Where to write every agent's JSON-RPC traffic as JSON lines (``--wire-log``)."""
    mcp_servers: tuple[McpServerSpec, ...] = ()
    """The MCP servers given to this agent's sessions (those it can take)."""


def demo_agent_command(paths: Paths, protocol: int = 1) -> AgentCommand:
    """The bundled demo agent, run with this interpreter and keeping its data under `paths`.

    With ``protocol`` 2 it is started with ``--protocol 2`` so that it can speak the v2 draft.
    """
    argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(paths.demo_agent_dir)]
    if protocol >= 2:
        argv += ["--protocol", str(protocol)]
    return AgentCommand(argv=argv, name=DEMO_AGENT_NAME)


def resolve_launch(
    *,
    cwd: Path,
    agent_name: str | None,
    command: list[str] | None,
    settings: Settings,
    paths: Paths,
    protocol: int | None,
) -> LaunchSpec:
    """Decide which agent to start.

    Precedence: an explicit `command` (from `-- COMMAND ARGS`), then `agent_name` (from `-a`),
    then `settings.default_agent`, then the only configured agent, then the demo agent. The name
    "demo" always means the bundled demo agent. The protocol is `protocol` if given, else the
    agent's configured one, else 1. The spec carries `settings`: they decide what the agent
    may do (its commands: the ``terminal`` setting). Raises `LaunchError` when the choice is
    impossible.
    """
    if protocol is not None and protocol not in (1, 2):
        raise LaunchError(f"unknown protocol version {protocol}; ACP has versions 1 and 2")
    spec = _resolve(
        cwd=cwd,
        agent_name=agent_name,
        command=command,
        settings=settings,
        paths=paths,
        protocol=protocol,
    )
    return replace(spec, settings=settings)


def agent_choices(
    agent_name: str | None, command: list[str] | None, settings: Settings
) -> list[str]:
    """The agents to offer the user when nothing decides which one to start, else `[]`.

    Nothing decides when there is no `-- COMMAND`, no `-a NAME`, no `default_agent` and more
    than one configured agent. The choices are the configured names, sorted, then "demo".
    Without a choice `resolve_launch` would start the demo agent, so a caller that cannot ask
    may simply go ahead.
    """
    if command is not None or agent_name is not None or settings.default_agent is not None:
        return []
    names = sorted(name for name in settings.agents if name != DEMO_AGENT_NAME)
    if len(settings.agents) < 2:
        return []
    return [*names, DEMO_AGENT_NAME]


def check_supported(spec: LaunchSpec) -> None:
    """Refuse, before anything starts, a protocol version this client cannot speak yet."""
    if spec.protocol_version not in SUPPORTED_PROTOCOLS:
        raise LaunchError(
            f"ACP protocol version {spec.protocol_version} is not supported by this acp-tui "
            f"(supported: {', '.join(map(str, SUPPORTED_PROTOCOLS))})"
        )


def _resolve(
    *,
    cwd: Path,
    agent_name: str | None,
    command: list[str] | None,
    settings: Settings,
    paths: Paths,
    protocol: int | None,
) -> LaunchSpec:
    cwd = Path(os.path.abspath(cwd))

    if command is not None:
        if not command:
            raise LaunchError("no agent command given after '--'")
        program = program_name(command)
        return LaunchSpec(
            command=AgentCommand(argv=list(command), cwd=cwd, name=program),
            cwd=cwd,
            protocol_version=protocol or 1,
            display_name=program,
            mcp_servers=enabled_mcp_servers(settings, None),
        )

    if agent_name is not None:
        name = agent_name
        if name != DEMO_AGENT_NAME and name not in settings.agents:
            raise LaunchError(f"no agent named {name!r}; {_known_names(settings)}")
    elif settings.default_agent is not None:
        name = settings.default_agent
        if name != DEMO_AGENT_NAME and name not in settings.agents:
            raise LaunchError(
                f"default_agent {name!r} in the config file is not configured; "
                f"{_known_names(settings)}"
            )
    elif len(settings.agents) == 1:
        (name,) = settings.agents
    else:
        name = DEMO_AGENT_NAME

    if name == DEMO_AGENT_NAME:
        demo = demo_agent_command(paths, protocol or 1)
        return LaunchSpec(
            command=AgentCommand(argv=demo.argv, env=demo.env, cwd=cwd, name=demo.name),
            cwd=cwd,
            protocol_version=protocol or 1,
            is_demo=True,
            display_name="Demo agent",
            mcp_servers=enabled_mcp_servers(settings, None),
        )
    spec = _configured(name, settings.agents[name], cwd=cwd, protocol=protocol)
    return replace(spec, mcp_servers=enabled_mcp_servers(settings, name))


def _configured(name: str, config: AgentConfig, *, cwd: Path, protocol: int | None) -> LaunchSpec:
    program = os.path.expanduser(config.command)
    return LaunchSpec(
        command=AgentCommand(
            argv=[program, *config.args], env=dict(config.env), cwd=cwd, name=name
        ),
        cwd=cwd,
        additional_directories=_roots(config.additional_directories, cwd),
        protocol_version=protocol or config.protocol,
        display_name=config.title or name,
        title=config.title,
        config_name=name,
    )


def _roots(directories: Sequence[str], cwd: Path) -> tuple[Path, ...]:
    """Absolute, de-duplicated extra roots; relative entries are relative to `cwd`."""
    roots: list[Path] = []
    for entry in directories:
        root = Path(os.path.abspath(cwd / os.path.expanduser(entry)))
        if root != cwd and root not in roots:
            roots.append(root)
    return tuple(roots)


def _known_names(settings: Settings) -> str:
    names = sorted(n for n in settings.agents if n != DEMO_AGENT_NAME)
    listed = ", ".join([*names, DEMO_AGENT_NAME])
    return f"known agents: {listed}"
