"""A fork is titled "Fork of …" as a local title acp-tui gives it: kept across restarts, it gives
way to a title the agent later gives the fork itself, but never replaces the user's own."""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.config.paths import Paths
from acp_tui.protocol.methods import SessionInfo
from acp_tui.store.transcripts import TranscriptCache
from tests.unit.client.agent.agent_helpers import agent_text, demo_spec, make_project
from tests.unit.client.workspace.workspace_helpers import workspace


def idle(slot: SessionSlot) -> bool:
    return slot.state == "ready" and not slot.busy and not slot.queue


async def test_a_forks_title_gives_way_to_the_agents_own_never_to_the_users(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        parent = ws.open_new(agent)
        await watch.until(lambda: parent.state == "ready")
        ws.prompts.submit(parent, "the parent's words")
        await watch.until(lambda: idle(parent) and bool(agent_text(parent.transcript)))
        assert parent.session_id is not None
        info = SessionInfo(session_id=parent.session_id, cwd=str(project), title=parent.title)
        fork = ws.fork(agent, info)
        await watch.until(lambda: fork.state == "ready")
        assert fork.session is not None
        title = "Fork of the parent's words"
        assert fork.title == title
        assert fork.session.title == "the parent's words"  # the agent replayed the parent's
        assert ws.titles.of(agent)[fork.session.session_id] == title  # kept for --continue

        ws.prompts.submit(fork, "more words")
        await watch.until(lambda: idle(fork) and "more words" in agent_text(fork.transcript))
        assert fork.title == title  # the agent gave it no title of its own

        ws.prompts.submit(fork, "title Fresh name")
        await watch.until(lambda: fork.title == "Fresh name")
        assert fork.session.session_id not in ws.titles.of(agent)

        renamed = ws.fork(agent, info)
        await watch.until(lambda: renamed.state == "ready")
        assert renamed.session_id is not None
        ws.titles.rename(agent, renamed.session_id, "Mine")
        ws.prompts.submit(renamed, "title Another name")
        await watch.until(lambda: idle(renamed) and renamed.transcript.title == "Another name")
        assert renamed.title == "Mine"
        kept = {fork.session.session_id: None, renamed.session_id: "Mine"}
    titles = TranscriptCache(acp_home.data_dir / "transcripts").local_titles(agent.key)
    assert {sid: titles.get(sid) for sid in kept} == kept
