"""Provides ConfigReload (``ws.config``): the config file read again while acp-tui runs.

Ctrl+R, Ctrl+N and ``/reload`` read it again, so that an edit takes effect without quitting.
What changed takes effect as soon as it can, and never behind the user's back:

* the settings (``terminal``, ``terminal_env_allow``...) at once, for every running agent;
* the MCP servers for every session opened from now on (``session/new``, ``load``, ``resume``,
  ``fork``): a removed server is no longer sent, an added one is; sessions already open keep
  what they were given until they are opened again;
* an agent's title at once; its command, arguments, env or protocol only when it is restarted
  (Ctrl+R, which reads the config first): a running agent is never restarted by a reload, and
  the report names the agents that would need it.

A file that cannot be used (bad TOML, a wrong type, an unknown key) changes nothing: the running
config stays, and the report carries the loader's problems, each naming the file and the key.
The report names what changed (settings with their old and new values, agents and MCP servers
by name, with the fields that changed), never a value of ``env`` or ``headers``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.client.agent.mcp import enabled_mcp_servers
from acp_tui.client.process.command import AgentCommand
from acp_tui.config.settings import Settings, load_settings

if TYPE_CHECKING:
    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.client.workspace.agent_runtime import AgentRuntime

__all__ = ["ConfigReload", "ReloadReport", "reconfigured"]

RESTART_FIELDS = ("command", "args", "env", "protocol")
"""What a running agent takes only when it starts again."""


@dataclass(frozen=True, slots=True)
class ReloadReport:
    """What a reload found: the file's problems (nothing was applied), or what changed."""

    path: Path
    problems: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()
    """``name: old → new`` for each top-level setting that changed."""
    agents: tuple[str, ...] = ()
    """``added NAME``, ``removed NAME``, ``changed NAME (fields)``."""
    mcp_servers: tuple[str, ...] = ()
    restart: tuple[str, ...] = ()
    """The running agents that take their new command, env or protocol only when restarted."""

    @property
    def changed(self) -> bool:
        return bool(self.settings or self.agents or self.mcp_servers)

    def lines(self) -> list[str]:
        """The report in words, one line each."""
        if self.problems:
            return [
                f"The config file cannot be used; the running config is kept: {self.path}",
                *self.problems,
            ]
        if not self.changed:
            return [f"The config is unchanged: {self.path}"]
        lines = [f"Config read again: {self.path}"]
        if self.settings:
            lines.append("Settings: " + "; ".join(self.settings) + ".")
        if self.agents:
            lines.append("Agents: " + "; ".join(self.agents) + ".")
        if self.mcp_servers:
            lines.append(
                "MCP servers: " + "; ".join(self.mcp_servers) + ". Sessions opened from now on "
                "get the new list; open ones keep theirs until they are opened again."
            )
        if self.restart:
            lines.append(
                "Restart to use the new command, env or protocol (Ctrl+R in its tab): "
                + ", ".join(self.restart)
                + "."
            )
        return lines


class ConfigReload:
    """The settings in effect, and reading them again (``ws.config``).

    It receives the config file's ``path`` and ``agents``, which lists the running agents.
    """

    def __init__(
        self,
        path: Path,
        agents: Callable[[], Iterable[AgentRuntime]],
        settings: Settings | None = None,
    ) -> None:
        self.path = path
        self.agents = agents
        self.settings = settings or Settings()
        """The settings in effect: the launch's, then each reload's that could be used."""

    def reload(self) -> ReloadReport:
        """Read the file again and apply what changed (see the module docstring)."""
        loaded = load_settings(self.path)
        if loaded.problems:
            return ReloadReport(self.path, problems=tuple(loaded.problems))
        old, new = self.settings, loaded.settings
        self.settings = new
        restart: list[str] = []
        for agent in self.agents():
            if agent.stopping:
                continue
            now, later = reconfigured(agent.launch, old, new)
            agent.reconfigure(now, later)
            if later is not None:
                restart.append(agent.display_name)
        return ReloadReport(
            self.path,
            settings=tuple(_setting_changes(old, new)),
            agents=tuple(_table_changes(old.agents, new.agents)),
            mcp_servers=tuple(_table_changes(old.mcp_servers, new.mcp_servers)),
            restart=tuple(restart),
        )


def reconfigured(
    launch: LaunchSpec, old: Settings, new: Settings
) -> tuple[LaunchSpec, LaunchSpec | None]:
    """A running agent's launch under the ``new`` settings: what takes effect now, and what
    to start it with at its next restart (None: as now).

    Only an agent started from a ``[agents.NAME]`` table follows its table; the demo agent and
    a ``-- COMMAND`` agent take the settings and the MCP servers given to every agent.
    """
    name = launch.config_name
    now = replace(launch, settings=new, mcp_servers=enabled_mcp_servers(new, name))
    before = old.agents.get(name) if name is not None else None
    after = new.agents.get(name) if name is not None else None
    if name is None or after is None or after == before:
        return now, None  # a removed table: the agent goes on as it was started
    if before is None or before.title != after.title:
        now = replace(now, title=after.title, display_name=after.title or name)
    if before is not None and all(
        getattr(before, field) == getattr(after, field) for field in RESTART_FIELDS
    ):
        return now, None
    protocol = launch.protocol_version  # a --protocol given on the command line stays...
    if before is None or before.protocol != after.protocol:
        protocol = after.protocol  # ...unless the table changes it
    command = AgentCommand(
        argv=[os.path.expanduser(after.command), *after.args],
        env=dict(after.env),
        cwd=launch.command.cwd,
        name=name,
    )
    return now, replace(now, command=command, protocol_version=protocol)


def _shown(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return "[" + ", ".join(_shown(item) for item in value) + "]"
    return str(value)


def _setting_changes(old: Settings, new: Settings) -> list[str]:
    changes = []
    for field in fields(Settings):
        if field.name in ("agents", "mcp_servers"):
            continue
        before, after = getattr(old, field.name), getattr(new, field.name)
        if before != after:
            changes.append(f"{field.name} {_shown(before)} → {_shown(after)}")
    return changes


def _table_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """``added``, ``removed`` and ``changed`` tables by name; changed ones with the names of
    the fields that changed (values stay out: some are secrets)."""
    changes = [f"added {name}" for name in new if name not in old]
    changes += [f"removed {name}" for name in old if name not in new]
    for name, after in new.items():
        before = old.get(name)
        if before is None or before == after:
            continue
        names = [f.name for f in fields(after) if getattr(before, f.name) != getattr(after, f.name)]
        changes.append(f"changed {name} ({', '.join(names)})")
    return changes
