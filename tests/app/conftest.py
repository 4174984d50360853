"""Fixtures for app tests: the app is built the way the CLI builds it, against the demo agent."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.process.command import AgentCommand
from acp_tui.client.workspace.agent_runtime import Connect
from acp_tui.ui.app import AcpApp
from tests.in_process import InProcessConnect


@pytest.fixture(autouse=True)
def app_connect(agent_connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every app of the test reaches the demo agent as ``agent_connect`` says (in-process
    unless the test is marked ``real_agent``)."""
    if isinstance(agent_connect, InProcessConnect):
        monkeypatch.setattr(AcpApp, "connect", agent_connect)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small project directory for the session's cwd."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Demo project\n\nHello from the README.\n")
    return root


@pytest.fixture
def make_app(tmp_path: Path, project: Path) -> Callable[..., AcpApp]:
    """Build an AcpApp on the bundled demo agent (extra agent flags may be given).

    ``protocol=2`` offers ACP v2 and starts the demo agent with ``--protocol 2``.
    """

    def build(*agent_args: str, additional: tuple[Path, ...] = (), protocol: int = 1) -> AcpApp:
        argv = [sys.executable, "-m", "acp_tui.demo_agent", "--data-dir", str(tmp_path / "demo")]
        if protocol >= 2:
            argv += ["--protocol", str(protocol)]
        launch = LaunchSpec(
            command=AgentCommand([*argv, *agent_args], cwd=project, name="demo"),
            cwd=project,
            additional_directories=additional,
            protocol_version=protocol,
            display_name="demo",
        )
        return AcpApp(launch)

    return build
