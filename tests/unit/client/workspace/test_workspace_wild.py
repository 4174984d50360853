"""Real agents in the wild, without Textual: exits acp-tui caused, errors that say why, late
chunks, sessions that keep talking after they were closed, and sessions listed locally."""

from __future__ import annotations

import os
import signal
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.agent.agent_client import AgentClient
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.errors import AgentExited
from acp_tui.client.session.entries import MessageEntry, NoticeEntry
from acp_tui.client.session.transcript import Transcript
from acp_tui.client.workspace.events import Notice
from acp_tui.config.paths import Paths
from acp_tui.demo_agent.auth import AUTH_METHOD_ID
from acp_tui.demo_agent.faults import AFTER_CLOSE_UPDATES, ERROR_DATA, LATE_CHUNK_TEXT
from acp_tui.demo_agent.script import LATER_TEXT
from acp_tui.store.transcripts import RecordedTurnEnd, RecordedUser
from tests.unit.client.agent.agent_helpers import (
    WAIT,
    agent_text,
    demo_client,
    demo_spec,
    make_project,
)
from tests.unit.client.workspace.workspace_helpers import Scripted, workspace


async def list_until_cut(client: AgentClient, caught: list[AgentExited], done: anyio.Event) -> None:
    try:
        await client.list_sessions()
    except AgentExited as exc:
        caught.append(exc)
    done.set()


def when_sent(client: AgentClient, method: str) -> anyio.Event:
    """Set once the client has sent a request of ``method``."""
    sent = anyio.Event()

    def tracer(direction: str, message: Any) -> None:
        if direction == "send" and isinstance(message, dict) and message.get("method") == method:
            sent.set()

    client.connection.tracer = tracer
    return sent


@pytest.mark.parametrize(
    "deliberate",
    [True, pytest.param(False, marks=pytest.mark.real_agent)],  # killed: it takes a signal
    ids=["stopped", "killed"],
)
async def test_a_call_cut_short_says_whether_acp_tui_ended_the_agent(
    tmp_path: Path, deliberate: bool
) -> None:
    project = make_project(tmp_path)
    caught: list[AgentExited] = []
    done = anyio.Event()
    flags = ("--fault", "slow-list")
    with anyio.fail_after(WAIT):
        async with (
            anyio.create_task_group() as tg,
            demo_client(tmp_path / "demo", project, *flags) as client,
        ):
            sent = when_sent(client, "session/list")
            tg.start_soon(list_until_cut, client, caught, done)
            await sent.wait()
            if not deliberate:
                os.kill(client.process.pid, signal.SIGKILL)
                await done.wait()
    assert len(caught) == 1
    assert caught[0].deliberate is deliberate


async def test_a_failed_prompt_tells_the_reason_in_the_transcript(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project, "--fault", "error-data"))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        ws.prompts.submit(slot, "hello")
        await watch.until(lambda: bool(notices(slot.transcript)))
        assert notices(slot.transcript) == [
            f"The prompt failed: Internal error (code -32603) — {ERROR_DATA}"
        ]


PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])


def spec(tmp_path: Path, project: Path, protocol: int, *flags: str) -> LaunchSpec:
    """The demo agent speaking ``protocol`` (offered and served)."""
    launch = demo_spec(tmp_path / "demo", project, "--protocol", str(protocol), *flags)
    return replace(launch, protocol_version=protocol)


def notices(transcript: Transcript) -> list[str]:
    return [e.text for e in transcript.entries if isinstance(e, NoticeEntry)]


# -- late chunks -------------------------------------------------------------------------------


def shape(transcript: Transcript) -> list[tuple[str, str]]:
    return [(e.role, e.text) for e in transcript.entries if isinstance(e, MessageEntry)]


@PROTOCOLS
async def test_a_late_chunk_is_a_message_of_its_own_live_and_in_the_local_copy(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    """v1: a chunk without an id after the answer; v2: one with the id of the last reply after
    ``state_update idle``. Either starts a new block, live and when the copy is replayed."""
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec(tmp_path, project, protocol, "--fault", "late-chunk"))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        ws.prompts.submit(slot, "first")
        await watch.until(lambda: LATE_CHUNK_TEXT in agent_text(slot.transcript))
        ws.prompts.submit(slot, "second")
        await watch.until(lambda: agent_text(slot.transcript).count(LATE_CHUNK_TEXT) == 2)
        live = shape(slot.transcript)
        assert slot.session is not None
        session_id = slot.session.session_id
        replayed = Transcript(session_id)
        agent.history.replay_into(session_id, replayed)
    reply = ("agent", "You said:\n\n> first\n")
    late = ("agent", LATE_CHUNK_TEXT)
    assert live[:3] == [("user", "first"), reply, late]
    assert [role for role, _ in live] == ["user", "agent", "agent"] * 2
    assert shape(replayed) == live


async def test_a_turn_the_agent_starts_itself_is_recorded_with_its_end(
    tmp_path: Path, acp_home: Paths
) -> None:
    """v2 lets an agent start a turn nobody prompted: its end goes into the local copy as a
    prompted turn's does, so a replay of the copy ends it where the live view did."""
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec(tmp_path, project, 2))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        ws.prompts.submit(slot, "later")
        await watch.until(
            lambda: LATER_TEXT in agent_text(slot.transcript) and slot.transcript.state == "idle"
        )
        ws.prompts.submit(slot, "again")
        await watch.until(lambda: "> again" in agent_text(slot.transcript) and not slot.busy)
        live = shape(slot.transcript)
        assert slot.session is not None
        session_id = slot.session.session_id
        assert agent.key is not None
        ws.cache.flush(agent.key, session_id)
        events = list(ws.cache.events(agent.key, session_id))
        replayed = Transcript(session_id)
        agent.history.replay_into(session_id, replayed)
    assert [role for role, _ in live] == ["user", "agent", "user", "agent"]
    assert live[1] == ("agent", LATER_TEXT)  # "later" alone: the prompted turn says nothing
    # The reply comes in chunks, recorded as one update or several (as they were read): its
    # first words mark where the turn of its own starts.
    own = next(i for i, e in enumerate(events) if LATER_TEXT[:20] in str(getattr(e, "update", "")))
    ends = [i for i, e in enumerate(events) if isinstance(e, RecordedTurnEnd)]
    assert len(ends) == 3  # two prompts and the turn of its own
    assert (
        own
        < ends[1]
        < next(i for i, e in enumerate(events) if isinstance(e, RecordedUser) and i > own)
    )
    assert shape(replayed) == live


# -- an agent that exits during the login ------------------------------------------------------


@PROTOCOLS
@pytest.mark.real_agent  # the exit code and stderr of a process
async def test_an_agent_that_exits_during_the_login_is_said_and_nothing_hangs(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    project = make_project(tmp_path)
    interaction = Scripted(auth=AUTH_METHOD_ID)
    async with workspace(acp_home, project, interaction) as (ws, watch):
        launch = spec(tmp_path, project, protocol, "--require-auth", "--fault", "login-exits")
        agent = ws.agent_for(launch)
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "agent_down")
        assert interaction.asked == ["auth"]
        said = "\n".join(notices(slot.transcript))
        assert "exited with code 3" in said
        assert "the login crashed" in said  # what the agent said on stderr
        internal = [n.text for n in watch.of(Notice) if "Internal error" in n.text]
        assert internal == []  # the exit is said as an exit, not as a crash of acp-tui
        assert not agent.alive
        assert agent.login_cancel is None
        ws.prompts.submit(slot, "still there?")  # queued for the restart, not lost, nothing raised
        assert [p.text for p in slot.queue] == ["still there?"]


# -- a session that keeps talking after it was closed ------------------------------------------


def counting(client: AgentClient, session_id: str, count: int) -> anyio.Event:
    """Set once ``count`` session/update notifications for ``session_id`` were received."""
    seen = [0]
    done = anyio.Event()

    def tracer(direction: str, message: Any) -> None:
        params = message.get("params") if isinstance(message, dict) else None
        if (
            direction == "recv"
            and isinstance(params, dict)
            and params.get("sessionId") == session_id
        ):
            seen[0] += 1
            if seen[0] >= count:
                done.set()

    client.connection.tracer = tracer
    return done


@PROTOCOLS
async def test_updates_for_a_closed_session_are_dropped_quietly(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    """100 session/update after session/close: no error, nothing kept, shown or recorded."""
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(spec(tmp_path, project, protocol, "--fault", "updates-after-close"))
        closing, kept = ws.open_new(agent), ws.open_new(agent)
        await watch.until(lambda: closing.state == kept.state == "ready")
        for slot in (closing, kept):
            ws.prompts.submit(slot, "hello")
        await watch.until(
            lambda: all(s.transcript.state == "idle" and not s.busy for s in (closing, kept))
        )
        client = agent.client
        assert client is not None
        assert closing.session is not None
        assert kept.session is not None
        closed_id, kept_id = closing.session.session_id, kept.session.session_id
        shown = {s.id: len(s.transcript.entries) for s in (closing, kept)}
        recorded = {sid: len(list(ws.cache.events(agent.key, sid))) for sid in (closed_id, kept_id)}
        arrived = counting(client, closed_id, AFTER_CLOSE_UPDATES)
        await ws.close_slot(closing)
        with anyio.fail_after(WAIT):
            await arrived.wait()
        await client.list_sessions()  # a round trip: every notification before it was handled
        assert closed_id not in client.early_updates  # nothing kept for it
        assert closed_id not in client.sessions
        assert {s.id: len(s.transcript.entries) for s in (closing, kept)} == shown
        assert {
            sid: len(list(ws.cache.events(agent.key, sid))) for sid in (closed_id, kept_id)
        } == recorded
        assert "Update 1 for" not in agent_text(kept.transcript)
        assert not [n for n in watch.of(Notice) if n.level == "error"]
        assert agent.alive
