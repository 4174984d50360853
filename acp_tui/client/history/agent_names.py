"""Provides which configured agent each recorded agent key is, by name.

Recorded sessions are filed under a hash of the agent key (the agent's argv, see
``agent_key_for``), which names no agent. The configured agents' keys are worked out here the
way the chat starts them, so the history library can say ``claude`` rather than a hash, and
``--agent NAME`` can select an agent's sessions. An agent whose command changed since is a
different key: its old sessions keep the name the library remembered for them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from acp_tui.client.agent.launch import DEMO_AGENT_NAME, LaunchError, LaunchSpec, resolve_launch
from acp_tui.client.history.recorder import agent_key_for
from acp_tui.config.paths import Paths
from acp_tui.config.settings import Settings

__all__ = ["agent_key_of", "configured_agent_keys", "configured_launches"]


def agent_key_of(name: str, settings: Settings, paths: Paths, cwd: Path) -> str:
    """The agent key of the configured agent ``name``; raises LaunchError for an unknown one."""
    launch = resolve_launch(
        cwd=cwd, agent_name=name, command=None, settings=settings, paths=paths, protocol=None
    )
    return agent_key_for(launch)


def configured_agent_keys(settings: Settings, paths: Paths, cwd: Path) -> dict[str, str]:
    """Every configured agent's key (the demo agent's too, in both protocol versions) to its
    name."""
    keys: dict[str, str] = {}
    for name in [*settings.agents, DEMO_AGENT_NAME]:
        for protocol in (None, 2) if name == DEMO_AGENT_NAME else (None,):
            try:
                launch = resolve_launch(
                    cwd=cwd,
                    agent_name=name,
                    command=None,
                    settings=settings,
                    paths=paths,
                    protocol=protocol,
                )
            except LaunchError:
                continue
            keys.setdefault(agent_key_for(launch), name)
    return keys


def configured_launches(settings: Settings, paths: Paths, cwd: Path) -> dict[str, LaunchSpec]:
    """Every configured agent by name, as the chat would start it (the demo agent when none is
    configured); an agent that cannot be resolved is left out."""
    launches: dict[str, LaunchSpec] = {}
    for name in list(settings.agents) or [DEMO_AGENT_NAME]:
        try:
            launch = resolve_launch(
                cwd=cwd,
                agent_name=name,
                command=None,
                settings=settings,
                paths=paths,
                protocol=None,
            )
        except LaunchError:
            continue
        launches[name] = replace(launch, settings=settings)
    return launches
