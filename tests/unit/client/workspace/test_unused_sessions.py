"""A launch that sends nothing leaves no session behind: the Workspace deletes the sessions it
created and sent nothing in on the way out (where the agent can delete), and otherwise keeps
them marked unused, so that the browsers and ``--continue`` pass over them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.client.session.entries import NoticeEntry
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.client.workspace.workspace import NOTHING_TO_CONTINUE, Workspace
from acp_tui.config.paths import Paths
from acp_tui.config.settings import Settings
from acp_tui.demo_agent.store import SessionStore
from acp_tui.store.transcripts import TranscriptCache
from tests.unit.client.agent.agent_helpers import agent_text, demo_spec, make_project
from tests.unit.client.workspace.workspace_helpers import Scripted, workspace

NO_DELETE = ("--capabilities", "list,load,resume,close,fork,additionalDirectories")
"""The demo agent without `session/delete`."""


def agent_sessions(data_dir: Path) -> list[str]:
    """The ids of the sessions the demo agent keeps (what its session/list lists)."""
    store = SessionStore(data_dir)
    store.open()
    try:
        return [record.session_id for record in store.ascending()]
    finally:
        store.close()


def idle(slot: SessionSlot) -> bool:
    return slot.state == "ready" and not slot.busy and not slot.queue


def notices(slot: SessionSlot) -> list[str]:
    return [e.text for e in slot.transcript.entries if isinstance(e, NoticeEntry)]


def open_here(ws: Workspace, key: str) -> set[str]:
    """The sessions open in the Workspace's agent ``key``."""
    client = ws.agents[key].client
    assert client is not None
    return set(client.sessions)


async def test_a_launch_that_sends_nothing_leaves_no_session_with_the_agent(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        assert slot.session_id in open_here(ws, agent.key)
    assert agent_sessions(tmp_path / "demo") == []
    assert TranscriptCache(acp_home.data_dir / "transcripts").unused_sessions(agent.key) == set()


@pytest.mark.parametrize("prompt", ["hello there", "/plan a trip"], ids=["text", "agent-command"])
async def test_a_session_with_a_prompt_is_kept(
    tmp_path: Path, acp_home: Paths, prompt: str
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        ws.prompts.submit(slot, prompt)
        await watch.until(lambda: idle(slot) and bool(agent_text(slot.transcript)))
        kept = slot.session_id
    assert agent_sessions(tmp_path / "demo") == [kept]
    assert TranscriptCache(acp_home.data_dir / "transcripts").unused_sessions(agent.key) == set()


async def test_a_queued_prompt_or_a_commands_output_keeps_the_session(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    spec = replace(demo_spec(tmp_path / "demo", project), settings=Settings(terminal="allow"))
    async with workspace(acp_home, project, Scripted()) as (ws, watch):
        agent = ws.agent_for(spec)
        queued = ws.open_new(agent)
        prompt = ws.prompts.submit(queued, "still being edited")
        assert prompt is not None
        assert ws.prompts.hold_for_edit(queued, prompt.id) is prompt  # not sent: it waits
        shell = ws.open_new(agent)
        await watch.until(lambda: queued.state == "ready" and shell.state == "ready")
        ws.shell.run(shell, "echo some output")
        await watch.until(lambda: bool(shell.context))
        kept = {queued.session_id, shell.session_id}
        assert queued.queue  # nothing was sent in it
    assert set(agent_sessions(tmp_path / "demo")) == kept


async def test_only_sessions_created_here_are_deleted_never_a_loaded_or_forked_one(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    spec = demo_spec(tmp_path / "demo", project)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec)
        first = ws.open_new(agent)
        await watch.until(lambda: first.state == "ready")
        ws.prompts.submit(first, "the first words")
        await watch.until(lambda: idle(first) and bool(agent_text(first.transcript)))
        source = first.session_id
    assert source is not None
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec)
        empty = ws.open_new(agent)
        await watch.until(lambda: empty.state == "ready")
        listed = ws.sessions.local_session_infos(agent)
        info = next(i for i in listed if i.session_id == source)
        reopened = ws.open_listed(agent, info, replay=True)
        fork = ws.fork(agent, info)
        await watch.until(lambda: reopened.state == "ready" and fork.state == "ready")
        forked = fork.session_id
    assert set(agent_sessions(tmp_path / "demo")) == {source, forked}


async def test_without_delete_the_unused_session_is_passed_over_by_continue(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    spec = demo_spec(tmp_path / "demo", project, *NO_DELETE)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec)
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        empty = slot.session_id
        assert empty is not None
    assert agent_sessions(tmp_path / "demo") == [empty]  # the agent cannot delete it
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec)
        slot = await ws.open_continued(agent, project)
        await watch.until(lambda: slot.state == "ready")
        assert slot.session_id != empty
        assert any(NOTHING_TO_CONTINUE in text for text in notices(slot))
        assert ws.unused.hidden(agent.key, agent) == {empty}  # the new one is in its tab
        ws.prompts.submit(slot, "now something")
        await watch.until(lambda: idle(slot) and bool(agent_text(slot.transcript)))
        used = slot.session_id
        assert used not in ws.unused.hidden(agent.key)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec)
        slot = await ws.open_continued(agent, project)
        await watch.until(lambda: slot.state == "ready")
        assert slot.session_id == used


async def test_a_failed_delete_leaves_the_session_marked_unused(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project, "--fault", "error-data"))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        empty = slot.session_id
    assert agent_sessions(tmp_path / "demo") == [empty]  # session/delete failed
    cache = TranscriptCache(acp_home.data_dir / "transcripts")
    assert cache.unused_sessions(agent.key) == {empty}
