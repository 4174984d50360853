"""The config file read again while the Workspace runs: the settings and MCP servers take
effect at once, a changed agent command only when the agent is restarted, and a broken file
changes nothing."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.client.agent.launch import LaunchSpec, resolve_launch
from acp_tui.client.agent.mcp import enabled_mcp_servers
from acp_tui.client.workspace.config_reload import reconfigured
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, McpServerConfig, Settings
from tests.unit.client.agent.agent_helpers import agent_text, demo_spec, make_project
from tests.unit.client.workspace.workspace_helpers import Scripted, workspace

SECRET = "s3cr3t-token"


def demo_table(data: Path, **env: str) -> str:
    args = ", ".join(f'"{a}"' for a in ["-m", "acp_tui.demo_agent", "--data-dir", str(data)])
    lines = [f'command = "{sys.executable}"', f"args = [{args}]"]
    if env:
        lines.append("env = { " + ", ".join(f'{k} = "{v}"' for k, v in env.items()) + " }")
    return "\n".join(lines)


def write_config(paths: Paths, text: str) -> None:
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(text, encoding="utf-8")


MCP_FILES = f'[mcp_servers.files]\ncommand = "{sys.executable}"\nall_agents = true\n'


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
async def test_a_removed_mcp_server_is_not_sent_to_the_sessions_opened_after_the_reload(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    project = make_project(tmp_path)
    write_config(acp_home, MCP_FILES)
    files = McpServerConfig(command=sys.executable, all_agents=True)
    settings = Settings(mcp_servers={"files": files})
    spec = replace(
        demo_spec(tmp_path / "demo", project, "--protocol", str(protocol)),
        settings=settings,
        mcp_servers=enabled_mcp_servers(settings, None),
        protocol_version=protocol,
    )
    async with workspace(acp_home, project) as (ws, watch):
        ws.open_launch(spec)
        first = ws.slots[0]
        await watch.until(lambda: first.state == "ready")
        ws.prompts.submit(first, "mcp")
        await watch.until(lambda: "MCP servers:\n\n- files" in agent_text(first.transcript))

        write_config(acp_home, "")
        report = ws.config.reload()
        assert report.mcp_servers == ("removed files",)
        assert report.restart == ()
        second = ws.open_new(first.agent)
        await watch.until(lambda: second.state == "ready")
        ws.prompts.submit(second, "mcp")
        await watch.until(lambda: "MCP servers" in agent_text(second.transcript))
        assert "given no MCP servers" in agent_text(second.transcript)


async def test_a_broken_config_keeps_the_running_one_and_names_the_file_and_key(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    write_config(acp_home, 'terminal = "sometimes"\n' + MCP_FILES)
    async with workspace(acp_home, project) as (ws, _watch):
        settings = Settings(terminal="allow")
        ws.open_launch(replace(demo_spec(tmp_path / "demo", project), settings=settings))
        agent = ws.slots[0].agent
        before = agent.launch
        report = ws.config.reload()
        assert ws.config.settings is settings
        assert agent.launch is before
    [problem] = report.problems
    assert problem.startswith(f"{acp_home.config_file}: terminal: ")
    lines = report.lines()
    assert lines[0].startswith("The config file cannot be used; the running config is kept")
    assert lines[1] == problem


async def test_a_stricter_terminal_setting_applies_to_the_running_agent_at_once(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    asked = Scripted()
    async with workspace(acp_home, project, asked) as (ws, watch):
        spec = demo_spec(tmp_path / "demo", project)
        ws.open_launch(replace(spec, settings=Settings(terminal="allow")))
        slot = ws.slots[0]
        await watch.until(lambda: slot.state == "ready")
        write_config(acp_home, 'terminal = "deny"\n')
        report = ws.config.reload()
        assert report.settings == ('terminal "allow" → "deny"',)
        ws.prompts.submit(slot, "terminal")
        await watch.until(lambda: "Refused to run 'printf'" in agent_text(slot.transcript))
        assert await ws.shell.run_now(slot, "echo hi") is None
    assert asked.asked == []


async def test_a_changed_agent_takes_its_new_command_only_when_restarted(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    write_config(acp_home, "[agents.helper]\n" + demo_table(tmp_path / "d", TOKEN="one"))
    async with workspace(acp_home, project) as (ws, watch):
        loaded = ws.config.reload()
        assert loaded.agents == ("added helper",)
        launch = resolve_launch(
            cwd=project,
            agent_name="helper",
            command=None,
            settings=ws.config.settings,
            paths=acp_home,
            protocol=None,
        )
        ws.open_launch(launch)
        slot = ws.slots[0]
        agent = slot.agent
        await watch.until(lambda: slot.state == "ready")
        write_config(
            acp_home,
            '[agents.helper]\ntitle = "Helper"\n' + demo_table(tmp_path / "d", TOKEN=SECRET),
        )
        report = ws.config.reload()
        assert report.agents == ("changed helper (env, title)",)
        assert report.restart == ("Helper",)
        assert SECRET not in "\n".join(report.lines())
        assert agent.display_name == "Helper"  # at once
        assert agent.launch.command.env == {"TOKEN": "one"}  # until the restart
        assert agent.connections == 1
        ws.restart(agent)
        await watch.until(lambda: agent.connections == 2 and slot.state == "ready")
        assert agent.launch.command.env == {"TOKEN": SECRET}
        assert agent.next_launch is None


def configured(settings: Settings, name: str, protocol: int | None = None) -> LaunchSpec:
    return resolve_launch(
        cwd=Path("/p"),
        agent_name=name,
        command=None,
        settings=settings,
        paths=Paths.under(Path("/h")),
        protocol=protocol,
    )


def test_a_protocol_from_the_command_line_stays_unless_the_table_changes_it() -> None:
    old = Settings(agents={"a": AgentConfig(command="agent")})
    launch = configured(old, "a", protocol=2)
    args = Settings(agents={"a": AgentConfig(command="agent", args=["--acp"])})
    _, later = reconfigured(launch, old, args)
    assert later is not None
    assert (later.command.argv, later.protocol_version) == (("agent", "--acp"), 2)
    v1 = Settings(agents={"a": AgentConfig(command="agent", protocol=1)})
    v2 = Settings(agents={"a": AgentConfig(command="agent", protocol=2)})
    _, later = reconfigured(configured(v1, "a"), v1, v2)
    assert later is not None
    assert later.protocol_version == 2


def test_a_removed_table_and_a_command_agent_keep_their_command_and_take_the_rest() -> None:
    files = McpServerConfig(command="files-server", all_agents=True)
    old = Settings(agents={"a": AgentConfig(command="agent")})
    new = Settings(mcp_servers={"files": files}, terminal="deny")
    now, later = reconfigured(configured(old, "a"), old, new)
    assert later is None
    assert now.command.argv == ("agent",)
    assert [s.name for s in now.mcp_servers] == ["files"]
    assert now.settings.terminal == "deny"
    command = resolve_launch(
        cwd=Path("/p"),
        agent_name=None,
        command=["a"],
        settings=new,
        paths=Paths.under(Path("/h")),
        protocol=None,
    )
    assert command.config_name is None
    now, later = reconfigured(command, new, old)
    assert (now.mcp_servers, later) == ((), None)
