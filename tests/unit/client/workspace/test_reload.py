"""A reload never breaks a live tab (issue 22, item 3): the agent replays the session in its
tab, and when it refuses (agentao: -32600 for a session already active) or replays nothing
(pydantic-acp: ``{}`` for a session it does not know, and its close deletes the session), the
tab keeps its live session and transcript, says why, and what was queued goes there."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.session.entries import NoticeEntry
from acp_tui.client.workspace.agent_runtime import AgentRuntime
from acp_tui.client.workspace.events import Notice
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.config.paths import Paths
from acp_tui.protocol.methods import SessionInfo
from tests.unit.client.agent.agent_helpers import demo_spec, make_project, messages
from tests.unit.client.workspace.workspace_helpers import Watch, workspace

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])


def spec_for(tmp_path: Path, project: Path, protocol: int, *flags: str) -> LaunchSpec:
    version = ("--protocol", "2") if protocol == 2 else ()
    spec = demo_spec(tmp_path / "demo", project, *flags, *version)
    return replace(spec, protocol_version=protocol)


def users(slot: SessionSlot) -> list[str]:
    return [m.text for m in messages(slot.transcript, "user")]


def sent(agent: AgentRuntime, method: str) -> list[object]:
    """The params of every request of ``method`` the client sent."""
    found = []
    for record in agent.wire.records:
        message = record.decoded()
        if (
            record.direction == "send"
            and isinstance(message, dict)
            and message.get("method") == method
            and "id" in message
        ):
            found.append(message.get("params"))
    return found


def loads(agent: AgentRuntime, protocol: int) -> list[object]:
    """The replays asked for: v1 `session/load`, v2 `session/resume` with ``replayFrom``."""
    if protocol == 1:
        return sent(agent, "session/load")
    return [p for p in sent(agent, "session/resume") if isinstance(p, dict) and p.get("replayFrom")]


def errors(slot: SessionSlot) -> list[str]:
    return [e.text for e in slot.transcript.entries if isinstance(e, NoticeEntry)]


async def prompted(watch: Watch, slot: SessionSlot, text: str) -> None:
    """Send ``text`` and wait for the end of its turn."""
    watch.ws.prompts.submit(slot, text)
    await watch.until(lambda: text in users(slot) and not slot.busy and not slot.queue)


@PROTOCOLS
@pytest.mark.parametrize("flags", [(), ("--fault", "close-deletes")], ids=["demo", "pydantic"])
async def test_a_reload_replays_the_session_in_its_tab_and_keeps_it_open(
    tmp_path: Path, acp_home: Paths, protocol: int, flags: tuple[str, ...]
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec_for(tmp_path, project, protocol, *flags))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        await prompted(watch, slot, "remember me")
        live_id = slot.session_id
        assert await ws.sessions.reload(slot) is True
        assert slot.state == "ready"
        assert slot.session_id == live_id
        assert users(slot) == ["remember me"]  # replayed by the agent, once
        assert not sent(agent, "session/close")  # never closed first: the agent may forget it
        await prompted(watch, slot, "still here")
        assert users(slot) == ["remember me", "still here"]
        assert not [n for n in watch.of(Notice) if n.level == "error"]


@PROTOCOLS
async def test_a_refused_reload_keeps_the_live_session_and_sends_the_queue_there(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(
            spec_for(tmp_path, project, protocol, "--fault", "load-refuses-active")
        )
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        await prompted(watch, slot, "remember me")
        live = slot.session
        results: list[bool] = []

        async def reload() -> None:
            results.append(await ws.sessions.reload(slot))

        async with anyio.create_task_group() as tg:
            tg.start_soon(reload)
            await watch.until(lambda: slot.state == "opening")
            ws.prompts.submit(slot, "sent meanwhile")  # queued while the reload runs
            assert [p.text for p in slot.queue] == ["sent meanwhile"]
        assert results == [False]
        await watch.until(lambda: not slot.busy and not slot.queue and len(users(slot)) == 2)
        assert slot.session is live
        assert users(slot) == ["remember me", "sent meanwhile"]
        assert "already active" in " ".join(errors(slot))
        assert any("The reload failed" in e for e in errors(slot))
        assert len(loads(agent, protocol)) == 1  # the queued prompt did not ask for another
        said = [n for n in watch.of(Notice) if n.level == "error"]
        assert said
        assert said[0].slot is slot
        assert "already active" in said[0].text


@PROTOCOLS
async def test_a_reload_answered_with_nothing_keeps_the_transcript(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec_for(tmp_path, project, protocol, "--fault", "load-empty"))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        await prompted(watch, slot, "remember me")
        live_id = slot.session_id
        assert await ws.sessions.reload(slot) is False
        assert slot.state == "ready"
        assert slot.session_id == live_id
        assert users(slot) == ["remember me"]
        assert any("replayed none of its history" in e for e in errors(slot))
        await prompted(watch, slot, "still here")
        assert users(slot) == ["remember me", "still here"]
        # The local copy was not replaced by the empty replay.
        assert ws.cache.sessions(agent.key)[0].first_prompt == "remember me"
        recorded = [e for e in ws.cache.events(agent.key, live_id) if "remember me" in str(e)]
        assert recorded


@PROTOCOLS
async def test_opening_a_session_the_agent_replays_nothing_of_shows_the_local_copy(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    """pydantic-acp after a restart: every session loads as ``{}``; the local copy stays."""
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec_for(tmp_path, project, protocol, "--fault", "load-empty"))
        first = ws.open_new(agent)
        await watch.until(lambda: first.state == "ready")
        await prompted(watch, first, "remember me")
        session_id = first.session_id
        assert session_id is not None
        await ws.close_slot(first)
        info = SessionInfo(session_id=session_id, cwd=str(project))
        slot = ws.open_listed(agent, info, replay=True)
        await watch.until(lambda: slot.state == "ready" and slot.session_id == session_id)
        assert users(slot) == ["remember me"]
        assert any("shown from acp-tui's local copy" in e for e in errors(slot))
        recorded = [e for e in ws.cache.events(agent.key, session_id) if "remember me" in str(e)]
        assert recorded
