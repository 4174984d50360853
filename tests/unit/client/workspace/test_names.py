"""Names (issue 22, item 8): an agent that sends no ``agentInfo`` is called what the user
started it by, and a tab takes its session's title from `session/list` when the agent sends
no `session_info_update`."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.client.agent.launch import resolve_launch
from acp_tui.client.workspace.events import SessionInfoChanged
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings, save_settings
from acp_tui.demo_agent.script import derive_title
from acp_tui.protocol.methods import SessionInfo
from tests.unit.client.agent.agent_helpers import agent_text, demo_spec, make_project
from tests.unit.client.workspace.workspace_helpers import workspace

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])

DEMO = ["-m", "acp_tui.demo_agent"]


def demo_args(data: Path, *flags: str) -> list[str]:
    return [*DEMO, "--data-dir", str(data), *flags]


def configured(paths: Paths, data: Path, *flags: str, title: str | None = None) -> Settings:
    """A config with the demo agent as ``myagent`` (started with ``flags``), saved and loaded."""
    agent = AgentConfig(command=sys.executable, args=demo_args(data, *flags), title=title)
    settings = Settings(agents={"myagent": agent})
    save_settings(settings, paths.config_file)
    return settings


async def test_an_agent_without_agent_info_is_called_by_its_config_name(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    flags = ("--fault", "no-agent-info", "--capabilities", "list")
    settings = configured(acp_home, tmp_path / "demo", *flags)
    launch = resolve_launch(
        cwd=project,
        agent_name="myagent",
        command=None,
        settings=settings,
        paths=acp_home,
        protocol=None,
    )
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(launch)
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        assert agent.display_name == "myagent"
        caps = agent.capabilities
        assert caps is not None
        assert not caps.agent_info
        assert caps.display_name == "myagent"
        info = SessionInfo(session_id="x", cwd=str(project))
        reason = ws.sessions.why_unavailable(agent, "delete", info)
        assert reason == "myagent does not support session/delete"


async def test_a_command_without_agent_info_is_called_by_its_program(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    command = [sys.executable, *demo_args(tmp_path / "demo", "--fault", "no-agent-info")]
    launch = resolve_launch(
        cwd=project,
        agent_name=None,
        command=command,
        settings=Settings(),
        paths=acp_home,
        protocol=None,
    )
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(launch)
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        assert agent.display_name == "acp_tui.demo_agent"
        assert agent.wire.agent == "acp_tui.demo_agent"


async def test_an_agent_that_names_itself_keeps_its_name(tmp_path: Path, acp_home: Paths) -> None:
    project = make_project(tmp_path)
    settings = configured(acp_home, tmp_path / "demo")
    launch = resolve_launch(
        cwd=project,
        agent_name="myagent",
        command=None,
        settings=settings,
        paths=acp_home,
        protocol=None,
    )
    async with workspace(acp_home, project) as (ws, _watch):
        agent = ws.agent_for(launch)
        await agent.wait_ready()
        assert agent.display_name == "acp-tui demo agent"


def test_headless_messages_name_the_configured_agent(tmp_path: Path, acp_home: Paths) -> None:
    configured(acp_home, tmp_path / "demo", "--fault", "no-agent-info", "--capabilities", "list")
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", "sessions", "delete", "x", "--yes", "-a", "myagent"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.strip() == "acp-tui: myagent does not support session/delete"


@PROTOCOLS
async def test_a_tab_takes_its_title_from_the_session_list(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    project = make_project(tmp_path)
    version = ("--protocol", "2") if protocol == 2 else ()
    spec = demo_spec(tmp_path / "demo", project, "--fault", "no-titles", *version)
    spec = replace(spec, protocol_version=protocol)
    prompt = "Fix the parser bug that drops the last token of every line in the lexer module"
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec)
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        ws.prompts.submit(slot, prompt)
        await watch.until(lambda: not slot.busy and "Fix the parser" in agent_text(slot.transcript))
        title = derive_title(prompt)
        await watch.until(lambda: slot.title == title)
        changed = watch.of(SessionInfoChanged)
        assert [(e.session_id, e.title) for e in changed] == [(slot.session_id, title)]
        assert [s.title for s in ws.cache.sessions(agent.key)] == [title]
