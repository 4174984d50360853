"""Notices are never lost (issue 22, item 6): one that arrives right behind the answer to
`session/new`, `session/load` or `session/resume`, before the tab shows the session, is said
like one that arrives mid-turn."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.workspace.events import Notice
from acp_tui.config.paths import Paths
from acp_tui.demo_agent.extras import NOTICES
from acp_tui.demo_agent.faults import NOTICE_AFTER_OPEN
from acp_tui.demo_agent.store import SessionStore
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.methods import SessionInfo
from tests.unit.client.agent.agent_helpers import demo_spec, make_project
from tests.unit.client.agent.test_client_v2 import demo
from tests.unit.client.workspace.workspace_helpers import workspace

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])

# A real process: through its pipe the notice comes in the same read as the answer, before the
# call that waited for the answer goes on (the race of the bug). The in-process agent's memory
# pipes hand them over one at a time, and the notice was said even without the fix.
pytestmark = pytest.mark.real_agent

SAID = f"{NOTICE_AFTER_OPEN['title']}\n{NOTICE_AFTER_OPEN['description']}"


def spec_for(tmp_path: Path, project: Path, protocol: int, *flags: str) -> LaunchSpec:
    version = ("--protocol", "2") if protocol == 2 else ()
    spec = demo_spec(tmp_path / "demo", project, *flags, *version)
    return replace(spec, protocol_version=protocol)


@PROTOCOLS
async def test_a_notice_right_after_session_new_is_said_in_its_tab(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec_for(tmp_path, project, protocol, "--fault", "notice-after-open"))
        slot = ws.open_new(agent)
        await watch.until(lambda: any(n.text == SAID for n in watch.of(Notice)))
        (notice,) = [n for n in watch.of(Notice) if n.text == SAID]
        assert (notice.level, notice.slot) == ("warning", slot)
        assert slot.state == "ready"
        # Mid-turn notices are said as before, once each.
        ws.prompts.submit(slot, "notice")
        titles = [n["title"] for n in NOTICES]
        await watch.until(lambda: all(any(t in n.text for n in watch.of(Notice)) for t in titles))
        said = [n.text for n in watch.of(Notice) if n.slot is slot]
        assert len(said) == 1 + len(NOTICES)


@PROTOCOLS
@pytest.mark.parametrize("replay", [True, False], ids=["load", "resume"])
async def test_a_notice_right_after_a_restore_is_said_in_its_tab(
    tmp_path: Path, acp_home: Paths, protocol: int, replay: bool
) -> None:
    project = make_project(tmp_path)
    async with demo(protocol, tmp_path / "demo", project) as client:
        session = await client.new_session(project)
        await client.prompt(session.session_id, [TextContent(text="hello")])
        session_id = session.session_id
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec_for(tmp_path, project, protocol, "--fault", "notice-after-open"))
        await agent.wait_ready()
        info = SessionInfo(session_id=session_id, cwd=str(project))
        slot = ws.open_listed(agent, info, replay=replay)
        await watch.until(lambda: any(n.text == SAID for n in watch.of(Notice)))
        (notice,) = [n for n in watch.of(Notice) if n.text == SAID]
        assert notice.slot is slot
        assert slot.session_id == session_id


@PROTOCOLS
async def test_notices_in_a_replay_are_the_past_and_not_said_again(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    project = make_project(tmp_path)
    async with demo(protocol, tmp_path / "demo", project) as client:
        session = await client.new_session(project)
        await client.prompt(session.session_id, [TextContent(text="hello")])
        session_id = session.session_id
    store = SessionStore(tmp_path / "demo")
    store.open()
    try:  # an agent that keeps its notices in the history it replays
        store.append_history(session_id, {"sessionUpdate": "notice", "title": "From the past"})
    finally:
        store.close()
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec_for(tmp_path, project, protocol, "--fault", "notice-after-open"))
        await agent.wait_ready()
        info = SessionInfo(session_id=session_id, cwd=str(project))
        slot = ws.open_listed(agent, info, replay=True)
        await watch.until(lambda: any(n.text == SAID for n in watch.of(Notice)))
        assert slot.state == "ready"
        assert not [n for n in watch.of(Notice) if "From the past" in n.text]
