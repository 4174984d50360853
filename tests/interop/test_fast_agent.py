"""Interop with a real third-party agent: fast-agent in passthrough mode (it echoes prompts).

Opt in with ``pytest -m interop``. fast-agent needs Python >= 3.12, so it usually lives in its
own virtualenv: point ``ACP_TUI_FAST_AGENT`` at its ``fast-agent`` executable, or put it on PATH
(``python3.13 -m venv fa && fa/bin/pip install fast-agent-mcp``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.agent.rules import session_matches
from acp_tui.client.process.command import AgentCommand
from acp_tui.client.session.entries import MessageEntry
from acp_tui.protocol.content import TextContent

pytestmark = pytest.mark.interop

FAST_AGENT = os.environ.get("ACP_TUI_FAST_AGENT") or shutil.which("fast-agent")


def launch_for(project: Path) -> LaunchSpec:
    if FAST_AGENT is None:
        pytest.skip("fast-agent not found: set ACP_TUI_FAST_AGENT or put it on PATH")
    argv = [FAST_AGENT, "--no-update-check", "acp", "--model", "passthrough"]
    return LaunchSpec(command=AgentCommand(argv, cwd=project, name="fast-agent"), cwd=project)


async def test_fast_agent_chat_list_load_resume(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    spec = launch_for(project)
    async with connect(spec, init_timeout=60) as client:
        caps = client.capabilities
        assert caps.agent_name == "fast-agent-acp"
        assert caps.can_list
        assert caps.can_load
        assert caps.can_resume
        assert not caps.can_delete
        assert caps.why_not("delete") == "fast-agent-acp does not support session/delete"
        session = await client.new_session(project)
        stop = await client.prompt(session.session_id, [TextContent(text="hello interop")])
        assert stop == "end_turn"
        replies = [e for e in session.transcript.entries if isinstance(e, MessageEntry)]
        assert [e.role for e in replies] == ["user", "agent"]
        assert "hello interop" in replies[1].text
        assert session.transcript.title == "hello interop"
        page = await client.list_sessions(cwd=project)
        listed = [
            i for i in page.sessions if session_matches(i, cwd=project, additional_directories=None)
        ]
        assert [i.session_id for i in listed] == [session.session_id]
        session_id = session.session_id

    async with connect(spec, init_timeout=60) as client:
        loaded = await client.load_session(session_id, project)
        texts = [e.text for e in loaded.transcript.entries if isinstance(e, MessageEntry)]
        assert any("hello interop" in t for t in texts), "load must replay before it returns"

    async with connect(spec, init_timeout=60) as client:
        resumed = await client.resume_session(session_id, project)
        stop = await client.prompt(resumed.session_id, [TextContent(text="again")])
        assert stop == "end_turn"
