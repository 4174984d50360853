"""``env_var`` logins (issue 22, item 2): codex offers ``openai-api-key`` and ``codex-api-key``,
logins by an environment variable. The value is used when acp-tui's environment or the agent's
configured env has it (the agent only `authenticate`s), else asked for; the agent is then
started again with it and `authenticate`s with the method. The value is a secret: never in the
wire log or a log, and stored only where the user chooses."""

from __future__ import annotations

import logging
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.client.agent.launch import LaunchSpec, resolve_launch
from acp_tui.client.workspace.agent_runtime import AgentRuntime
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings, load_settings, save_settings
from acp_tui.demo_agent.auth import ENV_AUTH_METHOD_ID
from tests.unit.client.agent.agent_helpers import demo_spec, make_project, messages
from tests.unit.client.workspace.workspace_helpers import Scripted, workspace

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])

VAR = "ACP_TUI_TEST_DEMO_KEY"
SECRET = "sk-test-0123456789-never-shown"
FLAGS = ("--require-auth", "--auth-env", VAR)


def spec_for(tmp_path: Path, project: Path, protocol: int) -> LaunchSpec:
    version = ("--protocol", "2") if protocol == 2 else ()
    spec = demo_spec(tmp_path / "demo", project, *FLAGS, *version)
    return replace(spec, protocol_version=protocol)


def logins(agent: AgentRuntime) -> list[object]:
    """The methodId of every login request the client sent (`authenticate`, `auth/login`)."""
    found = []
    for record in agent.wire.records:
        message = record.decoded()
        if (
            record.direction == "send"
            and isinstance(message, dict)
            and message.get("method") in ("authenticate", "auth/login")
        ):
            params = message.get("params")
            found.append(params.get("methodId") if isinstance(params, dict) else None)
    return found


def wire_text(agent: AgentRuntime) -> str:
    return "\n".join(str(record.decoded()) for record in agent.wire.records)


@PROTOCOLS
async def test_an_env_var_login_asks_restarts_the_agent_with_the_value_and_authenticates(
    tmp_path: Path,
    acp_home: Paths,
    protocol: int,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.delenv(VAR, raising=False)
    caplog.set_level(logging.DEBUG)
    project = make_project(tmp_path)
    asking = Scripted(auth=ENV_AUTH_METHOD_ID, env_values={VAR: SECRET})
    async with workspace(acp_home, project, asking) as (ws, watch):
        agent = ws.agent_for(spec_for(tmp_path, project, protocol))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        assert asking.asked[:2] == ["auth", f"env {VAR}"]
        assert agent.connections == 2  # started again, with the value
        assert logins(agent) == [ENV_AUTH_METHOD_ID]
        ws.prompts.submit(slot, "hello")
        await watch.until(lambda: not slot.busy and len(messages(slot.transcript, "agent")) > 0)
        assert agent.login_env == {VAR: SECRET}
        # A secret: not on the wire, in the logs or in any file acp-tui wrote.
        assert SECRET not in wire_text(agent)
        assert SECRET not in caplog.text
        assert SECRET not in repr(agent.started_launch)
    for folder in (acp_home.config_dir, acp_home.data_dir, acp_home.state_dir, tmp_path):
        for path in folder.rglob("*"):
            if path.is_file():
                assert SECRET.encode() not in path.read_bytes(), path


@PROTOCOLS
async def test_an_env_var_login_uses_the_value_in_acp_tuis_environment(
    tmp_path: Path, acp_home: Paths, protocol: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VAR, SECRET)
    project = make_project(tmp_path)
    asking = Scripted(auth=ENV_AUTH_METHOD_ID)
    async with workspace(acp_home, project, asking) as (ws, watch):
        agent = ws.agent_for(spec_for(tmp_path, project, protocol))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        assert asking.asked == ["auth"]  # nothing to ask: the agent has it
        assert agent.connections == 1
        assert logins(agent) == [ENV_AUTH_METHOD_ID]


def configured(
    paths: Paths, data: Path, *flags: str, env: dict[str, str] | None = None
) -> Settings:
    args = ["-m", "acp_tui.demo_agent", "--data-dir", str(data), *flags]
    agent = AgentConfig(command=sys.executable, args=args, env=env or {})
    settings = Settings(agents={"myagent": agent})
    save_settings(settings, paths.config_file)
    return settings


def launch_of(settings: Settings, paths: Paths, project: Path) -> LaunchSpec:
    return resolve_launch(
        cwd=project,
        agent_name="myagent",
        command=None,
        settings=settings,
        paths=paths,
        protocol=None,
    )


async def test_an_env_var_login_uses_the_value_in_the_agents_configured_env(
    tmp_path: Path, acp_home: Paths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(VAR, raising=False)
    project = make_project(tmp_path)
    settings = configured(acp_home, tmp_path / "demo", *FLAGS, env={VAR: SECRET})
    asking = Scripted(auth=ENV_AUTH_METHOD_ID)
    async with workspace(acp_home, project, asking) as (ws, watch):
        agent = ws.agent_for(launch_of(settings, acp_home, project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        assert asking.asked == ["auth"]
        assert agent.connections == 1
        assert logins(agent) == [ENV_AUTH_METHOD_ID]


async def test_an_env_var_value_is_saved_in_the_config_only_when_the_user_chooses(
    tmp_path: Path, acp_home: Paths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(VAR, raising=False)
    project = make_project(tmp_path)
    settings = configured(acp_home, tmp_path / "demo", *FLAGS)
    asking = Scripted(auth=ENV_AUTH_METHOD_ID, env_values={VAR: SECRET}, save_env=True)
    async with workspace(acp_home, project, asking) as (ws, watch):
        agent = ws.agent_for(launch_of(settings, acp_home, project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        assert logins(agent) == [ENV_AUTH_METHOD_ID]
    saved = load_settings(acp_home.config_file).settings.agents["myagent"]
    assert saved.env == {VAR: SECRET}
    assert acp_home.config_file.stat().st_mode & 0o077 == 0  # readable by the user only
