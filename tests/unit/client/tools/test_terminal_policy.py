"""The agent's commands run as the ``terminal`` setting says: asked, allowed or denied.

Against the demo agent as a real subprocess: its ``terminal`` prompt asks for
``printf '%s\\n' 'hello from the demo agent' 'a second line'`` in the session's cwd.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from acp_tui.client.tools.terminal_gate import Approval, TerminalAsk
from acp_tui.client.tools.terminal_spawn import EnvPolicy
from acp_tui.client.workspace.agent_runtime import AgentRuntime
from acp_tui.client.workspace.interaction import Headless
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.client.workspace.workspace import Workspace
from acp_tui.config.paths import Paths
from acp_tui.config.settings import Settings
from tests.unit.client.agent.agent_helpers import agent_text, demo_spec, make_project
from tests.unit.client.workspace.workspace_helpers import Scripted, Watch, workspace

RAN = "hello from the demo agent"
REFUSED = "Refused to run 'printf': the user did not allow it"


def idle(slot: SessionSlot) -> bool:
    return slot.state == "ready" and not slot.busy and not slot.queue


async def run_terminal_turns(
    ws: Workspace, watch: Watch, tmp_path: Path, project: Path, turns: int, **settings: object
) -> SessionSlot:
    spec = demo_spec(tmp_path / "demo", project)
    agent = ws.agent_for(replace(spec, settings=Settings(**settings)))  # type: ignore[arg-type]
    slot = ws.open_new(agent)
    await watch.until(lambda: slot.state == "ready")
    for _ in range(turns):
        ws.prompts.submit(slot, "terminal")
    await watch.until(lambda: idle(slot) and agent_text(slot.transcript).count("`printf`") == turns)
    return slot


async def test_ask_shows_the_command_and_a_denial_answers_the_agent_with_an_error(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    asked = Scripted(terminal="deny")
    async with workspace(acp_home, project, asked) as (ws, watch):
        slot = await run_terminal_turns(ws, watch, tmp_path, project, 1)
        text = agent_text(slot.transcript)
    assert asked.asked == ["terminal"]
    [request] = asked.commands
    assert request.command == "printf"
    assert request.args == ("%s\\n", RAN, "a second line")
    assert request.cwd == str(project)
    assert REFUSED in text
    assert RAN not in text


async def test_allow_once_asks_again_and_allow_for_the_session_does_not(
    tmp_path: Path, acp_home: Paths
) -> None:
    project = make_project(tmp_path)
    once = Scripted(terminal="once")
    async with workspace(acp_home, project, once) as (ws, watch):
        slot = await run_terminal_turns(ws, watch, tmp_path, project, 2)
        assert agent_text(slot.transcript).count(RAN) == 2
    assert once.asked == ["terminal", "terminal"]

    session = Scripted(terminal="session")
    async with workspace(acp_home, project, session) as (ws, watch):
        slot = await run_terminal_turns(ws, watch, tmp_path, project, 2)
        assert REFUSED not in agent_text(slot.transcript)
        assert slot.session is not None
        [approval] = slot.session.allowed_commands
        assert approval == Approval(
            "printf", ("%s\\n", RAN, "a second line"), str(project), frozenset()
        )
    assert session.asked == ["terminal"]


async def test_a_dismissed_question_denies(tmp_path: Path, acp_home: Paths) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project, Scripted(terminal=None)) as (ws, watch):
        slot = await run_terminal_turns(ws, watch, tmp_path, project, 1)
        assert REFUSED in agent_text(slot.transcript)


@pytest.mark.parametrize(("mode", "runs"), [("allow", True), ("deny", False)])
async def test_allow_and_deny_settings_do_not_ask(
    tmp_path: Path, acp_home: Paths, mode: str, runs: bool
) -> None:
    project = make_project(tmp_path)
    asked = Scripted(terminal="deny" if runs else "once")  # the opposite, were it asked
    async with workspace(acp_home, project, asked) as (ws, watch):
        slot = await run_terminal_turns(ws, watch, tmp_path, project, 1, terminal=mode)
        text = agent_text(slot.transcript)
    assert asked.asked == []
    assert (RAN in text) is runs
    assert (REFUSED in text) is not runs


async def test_headless_asks_nobody_and_so_runs_nothing(tmp_path: Path, acp_home: Paths) -> None:
    project = make_project(tmp_path)
    async with Workspace(paths=acp_home, interaction=Headless(), project=project) as ws:
        slot = await run_terminal_turns(ws, Watch(ws), tmp_path, project, 1)
        assert REFUSED in agent_text(slot.transcript)


def test_unsafe_env_is_dropped_unless_the_setting_allows_it(
    tmp_path: Path, acp_home: Paths
) -> None:
    env = {"LD_PRELOAD": "/tmp/evil.so", "PYTHONPATH": "/tmp", "LANG": "C"}
    default = TerminalAsk.build("make", [], "/p", env, EnvPolicy())
    assert default.env == (("LANG", "C"),)
    assert default.dropped_env == (("LD_PRELOAD", "/tmp/evil.so"), ("PYTHONPATH", "/tmp"))
    spec = demo_spec(tmp_path, tmp_path)
    agent = SimpleNamespace(
        launch=replace(spec, settings=Settings(terminal_env_allow=["LD_PRELOAD"]))
    )
    policy = Workspace(paths=acp_home).questions.terminal_policy(cast(AgentRuntime, agent))
    allowed = TerminalAsk.build("make", [], "/p", env, policy.env)
    assert allowed.env == (("LD_PRELOAD", "/tmp/evil.so"), ("LANG", "C"))
    assert allowed.dropped_env == (("PYTHONPATH", "/tmp"),)


async def test_an_approval_for_the_session_covers_exactly_the_command_cwd_and_env_approved(
    tmp_path: Path, acp_home: Paths
) -> None:
    """A hostile agent gets `git status` allowed for the session, then runs it again with
    ``HOME`` pointing at a ``.gitconfig`` it wrote (which makes git run any program), in
    another directory, or with a variable added, removed or changed: each is asked again."""
    project = make_project(tmp_path)
    other = make_project(tmp_path, "other")
    asked = Scripted(terminal="session")
    async with workspace(acp_home, project, asked) as (ws, watch):
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        live = slot.session
        assert live is not None
        approve = ws.questions.terminal_policy(agent).approve
        assert approve is not None

        async def runs(cwd: Path, env: dict[str, str]) -> bool:
            ask = TerminalAsk.build("git", ["status"], str(cwd), env, EnvPolicy())
            return await approve(live, ask)

        base = {"LANG": "C", "TERM": "dumb"}
        steps = [
            (project, base, True),  # asked: allowed for the session
            (project, {"TERM": "dumb", "LANG": "C"}, False),  # the same env in another order
            (project, {**base, "HOME": str(project / ".evil")}, True),  # a variable added
            (project, {**base, "HOME": str(project / ".evil2")}, True),  # its value changed
            (project, {"LANG": "C"}, True),  # a variable removed
            (project, {**base, "LANG": "fr_FR"}, True),  # a value changed
            (project, {**base, "LD_PRELOAD": "/tmp/x.so"}, True),  # even one that is dropped
            (other, base, True),  # another working directory
            (project, base, False),  # the first one again: still allowed
        ]
        for cwd, env, expect_asked in steps:
            before = len(asked.asked)
            assert await runs(cwd, env)
            assert (len(asked.asked) > before) is expect_asked, (cwd, env)
