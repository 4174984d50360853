"""The user's ``!`` commands, as the Workspace runs them: confined like an agent's command,
gated by the ``terminal`` setting, shown as a terminal block and sent with the next prompt.

Against the demo agent as a real subprocess (it echoes the resources a prompt embeds).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.client.session.prompt_blocks import CommandOutput
from acp_tui.client.session.transcript import NoticeEntry
from acp_tui.client.tools.terminal_gate import TerminalMode
from acp_tui.client.workspace.events import QueueChanged
from acp_tui.client.workspace.prompt_queue.waiting import QueuedPrompt
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.client.workspace.workspace import Workspace
from acp_tui.config.paths import Paths
from acp_tui.config.settings import Settings
from tests.unit.client.agent.agent_helpers import (
    agent_text,
    demo_spec,
    make_project,
    of_type,
    tool_calls,
)
from tests.unit.client.workspace.workspace_helpers import Scripted, Watch, workspace

PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])


async def open_slot(
    ws: Workspace,
    watch: Watch,
    tmp_path: Path,
    project: Path,
    terminal: TerminalMode = "allow",
    protocol: int = 1,
) -> SessionSlot:
    spec = demo_spec(tmp_path / "demo", project, "--protocol", str(protocol))
    spec = replace(spec, settings=Settings(terminal=terminal), protocol_version=protocol)
    slot = ws.open_new(ws.agent_for(spec))
    await watch.until(lambda: slot.state == "ready")
    return slot


def notices(slot: SessionSlot) -> list[str]:
    return [entry.text for entry in of_type(slot.transcript, NoticeEntry)]


@PROTOCOLS
async def test_the_output_shows_as_a_terminal_block_and_goes_with_the_next_prompt(
    tmp_path: Path, acp_home: Paths, protocol: int
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        slot = await open_slot(ws, watch, tmp_path, project, protocol=protocol)
        item = await ws.shell.run_now(slot, "printf 'one\\n'; pwd; exit 3")
        assert item is not None
        assert item.output == f"one\n{project}\n"
        assert (item.exit_code, item.cwd, item.stopped) == (3, str(project), False)
        [block] = tool_calls(slot.transcript)
        assert block.title == "!printf 'one\\n'; pwd; exit 3"
        assert (block.name, block.status, block.kind) == ("your command", "failed", "execute")
        assert slot.session is not None
        [content] = block.content
        shown = slot.session.terminal_output(content.terminal_id)  # type: ignore[union-attr]
        assert shown is not None
        assert (shown.output, shown.exit_code) == (item.output, 3)
        assert slot.context == [item]
        assert any(isinstance(e, QueueChanged) for e in watch.events)

        ws.prompts.submit(slot, "what did it print")
        await watch.until(lambda: "You attached" in agent_text(slot.transcript) and not slot.busy)
        assert slot.context == []
        text = agent_text(slot.transcript)
        assert "You said:\n\n> what did it print" in text
        assert "You attached acp-tui://shell/1:" in text
        assert "> $ printf 'one\\n'; pwd; exit 3" in text
        assert "> one" in text
        assert "exit code 3" in text


async def test_a_directory_outside_the_roots_is_refused(tmp_path: Path, acp_home: Paths) -> None:
    project = make_project(tmp_path)
    outside = make_project(tmp_path, "elsewhere")
    async with workspace(acp_home, project) as (ws, watch):
        slot = await open_slot(ws, watch, tmp_path, project)
        assert await ws.shell.run_now(slot, "touch made-here", cwd=outside) is None
        assert not (outside / "made-here").exists()
        assert tool_calls(slot.transcript) == []
        assert slot.context == []
        [notice] = notices(slot)
        assert notice.startswith("Could not run !touch made-here: ")
        assert "outside" in notice or "not inside" in notice or "root" in notice, notice


async def test_the_environment_is_filtered_as_an_agents_is(tmp_path: Path, acp_home: Paths) -> None:
    project = make_project(tmp_path)
    asked = Scripted(terminal="once")
    async with workspace(acp_home, project, asked) as (ws, watch):
        slot = await open_slot(ws, watch, tmp_path, project, terminal="ask")
        env = {"GREETING": "hello", "LD_PRELOAD": "/tmp/evil.so", "BASH_ENV": "/tmp/evil.sh"}
        line = 'echo "[$GREETING] [$LD_PRELOAD] [$BASH_ENV]"'
        item = await ws.shell.run_now(slot, line, env=env)
    assert item is not None
    assert item.output == "[hello] [] []\n"
    [request] = asked.commands
    assert request.origin == "user"
    assert request.args == ("-c", line)
    assert request.env == (("GREETING", "hello"),)
    assert sorted(name for name, _ in request.dropped_env) == ["BASH_ENV", "LD_PRELOAD"]


async def test_deny_runs_nothing_and_asks_nothing(tmp_path: Path, acp_home: Paths) -> None:
    project = make_project(tmp_path)
    asked = Scripted()
    async with workspace(acp_home, project, asked) as (ws, watch):
        slot = await open_slot(ws, watch, tmp_path, project, terminal="deny")
        assert await ws.shell.run_now(slot, "touch ran") is None
    assert asked.asked == []
    assert not (project / "ran").exists()
    assert notices(slot) == ['Not run (the terminal setting is "deny"): !touch ran']


async def test_ask_asks_first_and_a_refusal_runs_nothing(tmp_path: Path, acp_home: Paths) -> None:
    project = make_project(tmp_path)
    asked = Scripted(terminal="deny")
    async with workspace(acp_home, project, asked) as (ws, watch):
        slot = await open_slot(ws, watch, tmp_path, project, terminal="ask")
        assert await ws.shell.run_now(slot, "touch ran") is None
    assert asked.asked == ["terminal"]
    assert not (project / "ran").exists()
    assert notices(slot) == ["Not run (you did not allow it): !touch ran"]


async def test_allowed_for_the_session_it_is_not_asked_again_and_the_agent_still_is(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    asked = Scripted(terminal="session")
    async with workspace(acp_home, project, asked) as (ws, watch):
        slot = await open_slot(ws, watch, tmp_path, project, terminal="ask")
        for _ in range(2):
            assert await ws.shell.run_now(slot, "echo hi") is not None
        assert asked.asked == ["terminal"]
        assert slot.session is not None
        [approval] = slot.session.allowed_commands
        assert approval.origin == "user"
        assert approval.args == ("-c", "echo hi")


async def test_esc_stops_a_running_command_and_what_it_printed_is_attached(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        slot = await open_slot(ws, watch, tmp_path, project)
        assert not ws.shell.cancel(slot)
        ws.shell.run(slot, "echo started; sleep 60")
        await watch.until(lambda: ws.shell.running(slot) and bool(tool_calls(slot.transcript)))
        session = slot.session
        assert session is not None
        [content] = tool_calls(slot.transcript)[0].content
        terminal_id = content.terminal_id  # type: ignore[union-attr]

        def printed() -> bool:
            out = session.terminal_output(terminal_id)
            return out is not None and "started" in out.output

        await watch.until(printed)
        assert ws.shell.cancel(slot)
        await watch.until(lambda: bool(slot.context))
        [item] = slot.context
        assert item.stopped
        assert item.output == "started\n"
        assert "stopped before it ended" in item.text()
        assert tool_calls(slot.transcript)[0].status == "failed"


async def test_output_taken_off_or_left_in_a_removed_prompt_waits_for_the_next(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        slot = await open_slot(ws, watch, tmp_path, project)
        first = await ws.shell.run_now(slot, "echo first")
        second = await ws.shell.run_now(slot, "echo second")
        assert slot.context == [first, second]
        assert ws.shell.remove_context(slot) is second
        assert slot.context == [first]
        slot.queue.sending = QueuedPrompt(0, "a turn that runs")  # the next one waits
        queued = ws.prompts.submit(slot, "later")
        assert queued is not None
        assert queued.context == (first,)
        assert slot.context == []
        ws.prompts.remove_queued(slot, queued.id)
        assert slot.context == [first]
        slot.queue.sending = None


async def test_without_a_session_or_a_command_nothing_runs(tmp_path: Path, acp_home: Paths) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        slot = await open_slot(ws, watch, tmp_path, project)
        assert await ws.shell.run_now(slot, "   ") is None
        assert notices(slot) == ["Type a command after !, as in !ls (ls in the session's folder)."]
        session, slot.session = slot.session, None
        assert await ws.shell.run_now(slot, "echo hi") is None
        assert notices(slot) == ["The session is not open yet: ! commands run once it is."]
        slot.session = session
        assert tool_calls(slot.transcript) == []


def test_the_attached_text_says_what_ran_where_and_how_it_ended() -> None:
    item = CommandOutput("acp-tui://shell/1", "make", "/p", "ok\n", 0, truncated=True)
    assert item.text() == (
        "$ make\n(run by the user in /p; exit code 0; only the end of its output is kept)\nok\n"
    )
    killed = replace(item, exit_code=None, signal="SIGKILL", truncated=False)
    assert "killed by SIGKILL" in killed.text()
