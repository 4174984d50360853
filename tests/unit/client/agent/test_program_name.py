"""What an agent started with ``-- COMMAND`` is called when it does not say its name."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.client.agent.launch import resolve_launch
from acp_tui.client.agent.program_name import program_name
from acp_tui.config.paths import Paths
from acp_tui.config.settings import Settings


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["/opt/bin/my-agent", "--acp"], "my-agent"),
        (["python3", "-m", "my_agent.acp", "--verbose"], "my_agent.acp"),
        (["/usr/bin/python3.12", "-u", "-W", "ignore", "-m", "agent"], "agent"),
        (["python", "-mfast_agent"], "fast_agent"),
        (["python3", "tools/acp_agent.py"], "acp_agent"),
        (["python3", "-c", "import agent; agent.main()"], "python3"),
        (["npx", "-y", "@agentclientprotocol/codex-acp"], "codex-acp"),
        (["npx", "--yes", "@zed-industries/claude-code-acp@0.5.1", "--x"], "claude-code-acp"),
        (["npx", "-p", "other", "gemini-acp"], "gemini-acp"),
        (["uvx", "fast-agent-mcp[all]==0.3", "acp"], "fast-agent-mcp"),
        (["uvx", "--from", "git+https://x/y", "kimi-cli", "acp"], "kimi-cli"),
        (["uv", "tool", "run", "kimi-cli", "acp"], "kimi-cli"),
        (["uv", "run", "python", "-m", "pkg.agent"], "pkg.agent"),
        (["uv", "run", "agent.py"], "agent"),
        (["pipx", "run", "fast-agent-mcp"], "fast-agent-mcp"),
        (["pnpm", "dlx", "@scope/the-agent"], "the-agent"),
        (["node", "/home/me/my-agent/dist/index.js"], "my-agent"),
        (["node", "--no-warnings", "agent.mjs"], "agent"),
        (["env", "FOO=1", "gemini", "--acp"], "gemini"),
        (["opencode", "acp"], "opencode"),
        ([], "agent"),
    ],
)
def test_the_program_names_the_agent(argv: list[str], name: str) -> None:
    assert program_name(argv) == name


def test_a_command_agent_is_called_by_its_program(acp_home: Paths, tmp_path: Path) -> None:
    spec = resolve_launch(
        cwd=tmp_path,
        agent_name=None,
        command=["python3", "-m", "my_agent", "--acp"],
        settings=Settings(),
        paths=acp_home,
        protocol=None,
    )
    assert spec.display_name == "my_agent"
    assert spec.command.name == "my_agent"
    assert spec.config_name is None
