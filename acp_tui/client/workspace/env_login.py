"""Provides what an ``env_var`` login needs: the values already known, the ones to ask for,
and saving them where the user chose.

An ``env_var`` method (codex's ``openai-api-key``: ``OPENAI_API_KEY``) names the environment
variables the agent reads. A value set in acp-tui's environment, in the agent's configured
``env`` or given earlier in this run is used as it is: the agent was started with it, so it is
only asked to `authenticate`. Any other is asked for; the agent is then started again with it.
The values are secrets: they go into the agent's environment only, never into a log, the wire
log (`authenticate` carries the method's id) or a file, unless the user asks to save them in
the agent's ``env`` in the config (made private, 0600, by the write).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from acp_tui.config.edit import edit_settings

if TYPE_CHECKING:
    from acp_tui.client.agent.auth_methods import AuthMethodInfo, EnvVarSpec
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.config.settings import Settings

__all__ = ["EnvAnswer", "known_values", "missing_vars", "save_in_config", "where_known"]


@dataclass(frozen=True, slots=True)
class EnvAnswer:
    """What the user gave for an ``env_var`` login: the values (never shown: no repr) and
    whether to save them in the agent's ``env`` in the config."""

    values: dict[str, str] = field(repr=False)
    save: bool = False


def known_values(agent: AgentRuntime, method: AuthMethodInfo) -> dict[str, str]:
    """The values of the method's variables the agent is started with: given in this run,
    configured for the agent, or in acp-tui's own environment (the first that has one)."""
    sources = (agent.login_env, agent.launch.command.env, os.environ)
    found: dict[str, str] = {}
    for var in method.env_vars:
        value = next((s[var.name] for s in sources if s.get(var.name)), None)
        if value is not None:
            found[var.name] = value
    return found


def where_known(agent: AgentRuntime, name: str) -> str | None:
    """Where the value of ``name`` comes from, in words; None when it is not set."""
    if agent.login_env.get(name):
        return "given in this run"
    if agent.launch.command.env.get(name):
        return "in the agent's env in the config"
    if os.environ.get(name):
        return "in acp-tui's environment"
    return None


def missing_vars(agent: AgentRuntime, method: AuthMethodInfo) -> tuple[EnvVarSpec, ...]:
    """The variables to ask for: all that have no value, when a required one is among them
    (optional ones alone are not worth a question); none otherwise."""
    known = known_values(agent, method)
    missing = tuple(var for var in method.env_vars if var.name not in known)
    if not any(not var.optional for var in missing):
        return ()
    return missing


def can_save(agent: AgentRuntime) -> bool:
    """Whether the agent has a table in the config to save values in (not the demo agent,
    nor one given as ``-- COMMAND``)."""
    return agent.launch.config_name is not None


def save_in_config(agent: AgentRuntime, values: dict[str, str]) -> str | None:
    """Add ``values`` to the agent's ``env`` in the config file; returns what the user should
    know of the write (the file made private). Raises `ConfigEditError`."""
    name = agent.launch.config_name
    if name is None:
        return None
    told: list[str] = []

    def change(settings: Settings) -> Settings:
        config = settings.agents.get(name)
        if config is None:
            return settings
        agents = dict(settings.agents)
        agents[name] = replace(config, env={**config.env, **values})
        return replace(settings, agents=agents)

    edit_settings(agent.paths.config_file, change, tell=told.append)
    return told[0] if told else None
