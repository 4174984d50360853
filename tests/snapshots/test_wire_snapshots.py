"""SVG snapshot of the wire inspector, on a fixed log (times and ids pinned)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.client.agent.wire_log import WireLog
from acp_tui.ui.wire_inspector import WireInspector

SIZE = (110, 34)


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def fixed_log() -> WireLog:
    now = [100.0]
    log = WireLog("demo", clock=lambda: now[0], wall_clock=lambda: 1_800_000_000 - 100.0 + now[0])
    messages: list[tuple[str, Any]] = [
        ("send", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": 1, "clientInfo": {"name": "acp-tui"}}}),
        ("recv", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}),
        ("send", {"jsonrpc": "2.0", "id": 2, "method": "session/new",
                  "params": {"cwd": "/p", "mcpServers": [{"name": "db", "command": "/bin/db",
                             "args": [], "env": [{"name": "TOKEN", "value": "hunter2"}]}]}}),
        ("recv", {"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s-1"}}),
        ("send", {"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
                  "params": {"sessionId": "s-1", "prompt": [{"type": "text", "text": "hi"}]}}),
        ("recv", {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s-1",
                  "update": {"sessionUpdate": "agent_message_chunk",
                             "content": {"type": "text", "text": "Hello!"}}}}),
        ("recv", {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}),
    ]  # fmt: skip
    for n, (direction, message) in enumerate(messages):
        now[0] = 100 + n * 0.0125
        log.tap(direction, json.dumps(message, separators=(",", ":")).encode())
    return log


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("the chat")

    def on_mount(self) -> None:
        self.push_screen(WireInspector(fixed_log(), "demo"))


def test_wire_inspector_with_a_request_selected(snap_compare: Callable[..., bool]) -> None:
    async def run(pilot: Pilot[None]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, WireInspector)
        await pilot.pause()
        screen.table.move_cursor(row=2)  # session/new: its env value masked
        await pilot.pause(0.1)

    assert snap_compare(Host(), terminal_size=SIZE, run_before=run)
