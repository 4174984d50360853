"""A new session beside a tab (Ctrl+N), as the Workspace runs it: the agent is started, waited
for and stopped there; the UI only asks which agent and which roots."""

from __future__ import annotations

import sys
from pathlib import Path

from acp_tui.client.workspace.events import Notice
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings
from acp_tui.store.recent_roots import recent_roots_for_project
from tests.unit.client.agent.agent_helpers import demo_spec, make_project
from tests.unit.client.workspace.workspace_helpers import workspace


def demo_config(data_dir: Path, *, title: str) -> AgentConfig:
    args = ["-m", "acp_tui.demo_agent", "--data-dir", str(data_dir)]
    return AgentConfig(command=sys.executable, args=args, title=title)


async def test_a_new_session_on_the_tabs_agent_offers_the_recent_roots_and_opens_with_the_chosen(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    extra = make_project(tmp_path, "extra")
    recent_roots_for_project(project, acp_home).record([extra])
    async with workspace(acp_home, project) as (ws, watch):
        first = ws.open_new(ws.agent_for(demo_spec(tmp_path / "demo", project)))
        await watch.until(lambda: first.state == "ready")
        offer = await ws.offers.offer(first)
        assert offer is not None
        assert offer.agent is first.agent
        assert (offer.cwd, offer.roots, offer.recent) == (project, (), [extra])
        assert offer.supported
        ws.offers.open(offer, (extra,))
        await watch.until(lambda: len(ws.slots) == 2 and ws.slots[1].state == "ready")
        assert ws.slots[1].additional_directories == (extra,)
        assert ws.current is ws.slots[1]


async def test_another_agent_is_started_for_the_new_session_and_stopped_when_it_is_not_opened(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    settings = Settings(agents={"other": demo_config(tmp_path / "other", title="Other")})
    async with workspace(acp_home, project) as (ws, watch):
        first = ws.open_new(ws.agent_for(demo_spec(tmp_path / "demo", project)))
        await watch.until(lambda: first.state == "ready")
        offer = await ws.offers.offer(first, "other", settings)
        assert offer is not None
        assert offer.agent is not first.agent
        assert offer.agent.alive
        assert "Starting Other…" in [n.text for n in watch.of(Notice)]
        ws.offers.open(offer, None)
        await watch.until(lambda: offer.agent.state == "stopped")
        assert ws.slots == [first]


async def test_an_agent_that_cannot_start_is_said_and_stopped(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    broken = AgentConfig(command="no-such-agent-command-xyz", title="Broken")
    settings = Settings(agents={"broken": broken})
    async with workspace(acp_home, project) as (ws, watch):
        first = ws.open_new(ws.agent_for(demo_spec(tmp_path / "demo", project)))
        await watch.until(lambda: first.state == "ready")
        assert await ws.offers.offer(first, "broken", settings) is None
        assert await ws.offers.offer(first, "unknown", settings) is None
        errors = [n.text for n in watch.of(Notice) if n.level == "error"]
        assert any(e.startswith("Broken did not start: ") for e in errors), errors
        assert any(e.startswith("Cannot start unknown: ") for e in errors), errors
        others = [agent for agent in ws.agents.values() if agent is not first.agent]
        await watch.until(lambda: all(agent.state == "stopped" for agent in others))
        assert ws.slots == [first]


async def test_the_agent_started_for_a_new_session_follows_the_terminal_setting(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    other = demo_config(tmp_path / "other", title="Other")
    settings = Settings(agents={"other": other}, terminal="deny")
    async with workspace(acp_home, project) as (ws, watch):
        first = ws.open_new(ws.agent_for(demo_spec(tmp_path / "demo", project)))
        await watch.until(lambda: first.state == "ready")
        offer = await ws.offers.offer(first, "other", settings)
        assert offer is not None
        assert offer.agent.launch.settings.terminal == "deny"
        ws.offers.open(offer, None)
