"""Fixtures for the snapshot tests: the apps reach the demo agent in the test's event loop."""

from __future__ import annotations

import pytest

from acp_tui.client.workspace.agent_runtime import Connect
from acp_tui.ui.app import AcpApp
from tests.in_process import InProcessConnect


@pytest.fixture(autouse=True)
def app_connect(agent_connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every app of the test reaches the demo agent as ``agent_connect`` says (in-process
    unless the test is marked ``real_agent``)."""
    if isinstance(agent_connect, InProcessConnect):
        monkeypatch.setattr(AcpApp, "connect", agent_connect)
