"""The Workspace against the demo agent as a real subprocess, without Textual."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.process.command import AgentCommand
from acp_tui.client.session.entries import NoticeEntry
from acp_tui.client.session.transcript import Transcript
from acp_tui.client.workspace.events import DraftsReturned, SessionsChanged
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.config.paths import Paths
from acp_tui.protocol.methods import SessionInfo
from acp_tui.store.transcripts import RecordedUser
from tests.unit.client.agent.agent_helpers import agent_text, demo_spec, make_project, messages
from tests.unit.client.workspace.workspace_helpers import Scripted, workspace


def users(slot: SessionSlot) -> list[str]:
    return [m.text for m in messages(slot.transcript, "user")]


def idle(slot: SessionSlot) -> bool:
    return slot.state == "ready" and not slot.busy and not slot.queue


async def test_a_new_slot_opens_and_its_prompt_is_answered_and_recorded(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        assert ws.current is slot
        assert slot.state == "starting"
        await watch.until(lambda: slot.state == "ready")
        assert slot.session is not None
        ws.prompts.submit(slot, "hello there")
        assert slot.busy
        await watch.until(lambda: idle(slot) and "hello there" in agent_text(slot.transcript))
        session_id = slot.session.session_id
        recorded = list(ws.cache.events(agent.key, session_id))
        assert RecordedUser([{"type": "text", "text": "hello there"}]) in recorded
        assert [s.session_id for s in ws.cache.sessions(agent.key)] == [session_id]
    assert agent.state == "stopped"


async def test_prompts_typed_while_the_agent_starts_are_queued_editable_and_sent_in_order(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        first = ws.prompts.submit(slot, "first")
        second = ws.prompts.submit(slot, "second")
        third = ws.prompts.submit(slot, "third")
        assert first is not None
        assert second is not None
        assert third is not None
        assert ws.prompts.submit(slot, "   \n ") is None  # only whitespace: nothing to send
        assert [p.text for p in slot.queue] == ["first", "second", "third"]
        assert slot.queue_reason() == "sent once the agent has started"
        assert ws.prompts.remove_queued(slot, second.id) is second
        assert ws.prompts.edit_queued(slot, third.id, "third, edited")
        await watch.until(lambda: idle(slot) and len(users(slot)) == 2)
        assert users(slot) == ["first", "third, edited"]
        assert ws.prompts.remove_queued(slot, first.id) is None  # sent: no longer removable


async def test_a_prompt_sent_during_a_turn_waits_for_its_end(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        ws.prompts.submit(slot, "slow")
        ws.prompts.submit(slot, "afterwards")
        assert [p.text for p in slot.queue] == ["afterwards"]
        assert slot.queue_reason() == "sent when the current turn ends"
        await watch.until(lambda: idle(slot) and len(users(slot)) == 2)
        assert users(slot) == ["slow", "afterwards"]


async def test_a_cancelled_turn_pauses_the_queue_and_an_edit_keeps_its_place(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        ws.prompts.submit(slot, "hang")
        first = ws.prompts.submit(slot, "first")
        second = ws.prompts.submit(slot, "second")
        assert first is not None
        assert second is not None
        await watch.until(lambda: slot.session is not None and slot.session.prompt_pending)
        ws.prompts.cancel_turn(slot)
        assert slot.queue.paused
        assert slot.queue_reason().startswith("paused")
        await watch.until(lambda: not slot.busy)
        ws.prompts.drain(slot)  # as a turn's end, or a session shown, would
        assert not slot.busy
        assert [p.text for p in slot.queue] == ["first", "second"]

        # Taken into the editor: it stays first and holds the queue, even once resumed...
        assert ws.prompts.hold_for_edit(slot, first.id) is first
        ws.prompts.resume(slot)
        assert not slot.busy
        assert slot.queue_reason() == "waiting for the message you are editing"
        # ...until the edit is sent: in its place, before "second".
        assert ws.prompts.edit_queued(slot, first.id, "first, edited")
        await watch.until(lambda: idle(slot) and len(users(slot)) == 3)
        assert users(slot) == ["hang", "first, edited", "second"]


async def test_a_background_slot_is_marked_when_its_turn_ends(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        first = ws.open_new(agent)
        second = ws.open_new(agent)
        assert ws.current is second
        await watch.until(lambda: first.state == second.state == "ready")
        assert first.session_id != second.session_id
        ws.prompts.submit(first, "in the background")
        await watch.until(lambda: first.attention == "finished")
        assert second.attention is None
        ws.board.focus(first)
        assert first.attention is None


@pytest.mark.real_agent  # the process exits, then a restart starts another
async def test_a_crash_keeps_the_queue_and_restart_reopens_the_session_and_sends_it(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        session_id = slot.session_id
        ws.prompts.submit(slot, "crash")
        await watch.until(lambda: slot.state == "agent_down")
        assert agent.state == "exited"
        assert "code 3" in (agent.error or "")
        ws.prompts.submit(slot, "after the restart")
        assert [p.text for p in slot.queue] == ["after the restart"]
        assert "the agent has stopped" in slot.queue_reason()
        ws.restart(agent)
        await watch.until(lambda: idle(slot) and "after the restart" in agent_text(slot.transcript))
        assert slot.session_id == session_id
        assert agent.connections == 2


async def test_a_listed_session_opens_once_and_a_deleted_one_returns_its_queue(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        ws.prompts.submit(slot, "remember this")
        await watch.until(lambda: idle(slot))
        assert slot.session_id is not None
        info = SessionInfo(session_id=slot.session_id, cwd=str(project))
        assert ws.open_listed(agent, info, replay=True) is slot  # live already: focused

        assert await ws.sessions.close_listed(agent, info)
        assert slot.state == "closed"
        reopened = ws.open_listed(agent, info, replay=True)
        assert reopened is not slot
        await watch.until(lambda: reopened.state == "ready")
        assert "remember this" in users(reopened)

        ws.prompts.submit(reopened, "slow")
        ws.prompts.submit(reopened, "never sent")
        assert await ws.sessions.delete_listed(agent, [info]) == []
        returned = watch.of(DraftsReturned)
        assert [e.texts for e in returned] == [("never sent",)]
        assert reopened.state == "closed"
        assert reopened.queue == []
        reason = ws.sessions.why_unavailable(agent, "close", info)
        assert reason == "only sessions open in acp-tui can be closed"


async def test_closing_tabs_stops_unused_agents_and_the_last_tab_is_replaced(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        one = ws.agent_for(demo_spec(tmp_path / "one", project))
        two = ws.agent_for(demo_spec(tmp_path / "two", project))
        assert one is not two
        first = ws.open_new(one)
        second = ws.open_new(two)
        await watch.until(lambda: first.state == second.state == "ready")
        await ws.close_slot(second)
        await watch.until(lambda: two.state == "stopped")
        assert ws.slots == [first]
        assert ws.current is first
        await ws.close_slot(first)
        assert len(ws.slots) == 1
        replacement = ws.slots[0]
        assert replacement is not first
        assert replacement.agent is one
        await watch.until(lambda: replacement.state == "ready")
        assert one.state == "ready"


async def test_a_failing_listener_or_view_does_not_stop_the_recording(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project, Scripted()) as (ws, watch):
        ws.subscribe(lambda event: 1 / 0)
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        slot.transcript.subscribe(lambda change: 1 / 0)
        ws.prompts.submit(slot, "think plan diff please")
        await watch.until(lambda: idle(slot) and len(users(slot)) == 1)
        assert slot.session_id is not None
        recorded = list(ws.cache.events(agent.key, slot.session_id))
        assert len(recorded) > 10
        assert ws.board.events.failures > 0


async def test_a_background_permission_question_waits_for_its_tab(
    tmp_path: Path, acp_home: Paths
) -> None:
    """It marks its tab and is asked once the user is there; the shown tab is never blocked."""
    project = make_project(tmp_path)
    asked = Scripted()
    async with workspace(acp_home, project, asked) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        background = ws.open_new(agent)
        shown = ws.open_new(agent)
        await watch.until(lambda: background.state == shown.state == "ready")
        ws.prompts.submit(background, "permission")
        await watch.until(lambda: background.attention == "permission")
        assert asked.asked == []
        ws.prompts.submit(shown, "permission")  # the tab in front is asked at once
        await watch.until(lambda: idle(shown))
        assert asked.asked == ["permission"]
        assert background.busy
        ws.board.focus(background)
        await watch.until(lambda: idle(background))
        assert asked.asked == ["permission", "permission"]
        assert background.attention is None


async def test_an_agent_dying_under_a_background_tab_leaves_the_others_going(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        doomed_agent = ws.agent_for(demo_spec(tmp_path / "one", project))
        other_agent = ws.agent_for(demo_spec(tmp_path / "two", project))
        doomed = ws.open_new(doomed_agent)
        other = ws.open_new(other_agent)
        await watch.until(lambda: doomed.state == other.state == "ready")
        ws.prompts.submit(doomed, "crash")
        await watch.until(lambda: doomed.state == "agent_down")
        assert doomed.attention == "failed"
        assert other.state == "ready"
        ws.prompts.submit(other, "still here")
        await watch.until(lambda: idle(other) and "still here" in agent_text(other.transcript))


async def test_an_unused_new_session_leaves_nothing_in_the_local_list(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        unused = ws.open_new(agent)
        used = ws.open_new(agent)
        await watch.until(lambda: unused.state == used.state == "ready")
        assert unused.session is not None
        assert used.session is not None
        # Both are listed at once, for a browser showing this agent.
        added = [e.added.session_id for e in watch.of(SessionsChanged) if e.added is not None]
        assert sorted(added) == sorted([unused.session.session_id, used.session.session_id])
        assert ws.cache.sessions(agent.key) == []  # nothing indexed before a prompt
        ws.prompts.submit(used, "keep me")
        await watch.until(lambda: idle(used) and "keep me" in users(used))
        kept = used.session.session_id
    # After the run, only the session that was used is in acp-tui's own list.
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        assert [s.session_id for s in ws.cache.sessions(agent.key)] == [kept]


@pytest.mark.parametrize(
    ("capabilities", "how"),
    [("list,load,resume,fork", "replayed"), ("list,resume,fork", "local copy")],
    ids=["agent-loads", "local-copy"],
)
async def test_a_fork_shows_the_history_it_starts_from(
    tmp_path: Path, acp_home: Paths, capabilities: str, how: str
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        spec = demo_spec(tmp_path / "demo", project, "--capabilities", capabilities)
        agent = ws.agent_for(spec)
        parent = ws.open_new(agent)
        await watch.until(lambda: parent.state == "ready")
        ws.prompts.submit(parent, "the parent's words")
        await watch.until(lambda: idle(parent) and "the parent's words" in users(parent))
        assert parent.session is not None
        info = SessionInfo(session_id=parent.session.session_id, cwd=str(project))
        fork = ws.fork(agent, info)
        await watch.until(lambda: fork.state == "ready")
        assert fork.session is not None
        assert fork.session.session_id != parent.session.session_id
        assert users(fork) == ["the parent's words"]
        notices = [e.text for e in fork.transcript.entries if isinstance(e, NoticeEntry)]
        assert any("Forked from" in n and how in n for n in notices), notices
        ws.prompts.submit(fork, "the fork's words")
        await watch.until(lambda: idle(fork) and "the fork's words" in users(fork))
        fork_id = fork.session.session_id
        # The fork's own record starts with the parent's history: reopening it shows both.
        again = Transcript(fork_id)
        agent.history.replay_into(fork_id, again)
        both = ["the parent's words", "the fork's words"]
        assert [m.text for m in messages(again, "user")] == both


@pytest.mark.parametrize(
    ("argv", "said", "fix"),
    [
        (["no-such-agent-command-xyz"], "not found on PATH", "acp-tui agents list"),
        ([sys.executable, "-c", "pass"], "before answering initialize", "--acp"),
    ],
    ids=["not-found", "exits-at-start"],
)
async def test_a_start_up_failure_is_said_in_the_transcript_with_the_fix_to_try(
    tmp_path: Path, acp_home: Paths, argv: list[str], said: str, fix: str
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(LaunchSpec(command=AgentCommand(argv, cwd=project), cwd=project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "agent_down")
        notices = [e.text for e in slot.transcript.entries if isinstance(e, NoticeEntry)]
        assert any(said in n for n in notices), notices
        assert any(fix in n and "Ctrl+R tries again" in n for n in notices), notices
