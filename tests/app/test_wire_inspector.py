"""The wire inspector (F12): the current agent's traffic, timings, filter, masking, huge lines."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, TextArea

from acp_tui.client.agent.wire_log import MASK
from acp_tui.client.session.entries import MessageEntry
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.ui.app import AcpApp
from acp_tui.ui.wire_inspector import UNMATCHED, WireInspector
from tests.app.helpers import wait_for, wait_for_screen


def rows(screen: WireInspector) -> list[list[str]]:
    table: DataTable[str] = screen.query_one("#wire-table", DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def last_text(slot: SessionSlot) -> str:
    entries = slot.transcript.entries
    return entries[-1].text if entries and isinstance(entries[-1], MessageEntry) else ""


def detail(screen: WireInspector) -> str:
    return screen.query_one("#wire-detail", TextArea).text


async def test_f12_shows_both_directions_with_methods_ids_and_response_times(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("f12")
        screen = await wait_for_screen(pilot, WireInspector)
        await wait_for(pilot, lambda: len(rows(screen)) >= 4)
        table = rows(screen)
        first, answer = table[0], table[1]
        assert first[2:6] == ["→", "request", "initialize", "1"]
        assert answer[2:6] == ["←", "response", "↳ initialize", "1"]
        assert float(answer[6]) >= 0  # the response time, on the reply...
        assert first[6] == answer[6]  # ...and on the request
        assert any(r[4] == "session/new" and r[2] == "→" for r in table)
        # Selecting a row shows that message, pretty-printed.
        screen.table.move_cursor(row=0)
        await wait_for(pilot, lambda: '"method": "initialize"' in detail(screen))
        assert json.loads(detail(screen))["params"]["clientInfo"]["name"] == "acp-tui"
        # Traffic after opening shows up live; the filter keeps one method (and its replies).
        screen.query_one("#wire-filter", Input).focus()
        await pilot.press(*"prompt")
        app.workspace.prompts.submit(app.slot, "stream 5")  # type: ignore[union-attr, arg-type]
        await wait_for(pilot, lambda: any(r[4] == "↳ session/prompt" for r in rows(screen)))
        assert {r[4] for r in rows(screen)} == {"session/prompt", "↳ session/prompt"}
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, WireInspector))


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
async def test_a_reply_to_no_request_is_named_as_such(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    """The agent answers session/new with its id as a string ("2" for 2): the inspector names
    that line a reply to no request, and its detail says why it was skipped."""
    app = make_app("--fault", "string-ids", protocol=protocol)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.slot is not None)
        await pilot.press("f12")
        screen = await wait_for_screen(pilot, WireInspector)
        await wait_for(pilot, lambda: any(r[3] == UNMATCHED for r in rows(screen)))
        [row] = [r for r in rows(screen) if r[3] == UNMATCHED]
        assert row[2] == "←"
        assert row[5] == "2"
        assert any(r[4] == "session/new" and r[5] == "2" for r in rows(screen))
        screen.table.move_cursor(row=int(row[0]) - 1)
        await wait_for(pilot, lambda: "A reply to no request, skipped" in detail(screen))
        assert 'the string "2"' in detail(screen)
        assert app.session is None  # session/new is still waiting for its answer


@pytest.mark.real_agent  # a 20 MB line through a real pipe
async def test_the_palette_opens_it_and_a_huge_line_is_cut_for_reading_and_copied_whole(
    make_app: Callable[..., AcpApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.workspace is not None
        assert app.slot is not None
        slot = app.slot
        app.workspace.prompts.submit(slot, "huge")
        await wait_for(pilot, lambda: len(last_text(slot)) > 20_000_000, seconds=60)
        await wait_for(pilot, lambda: slot.transcript.state == "idle", seconds=60)
        await pilot.press("ctrl+p")
        await pilot.press(*"Wire inspector")
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, WireInspector)
        await wait_for(pilot, lambda: any(r[7].endswith("MB") for r in rows(screen)), seconds=60)
        index = next(i for i, r in enumerate(rows(screen)) if r[7].endswith("MB"))
        assert rows(screen)[index][2:5] == ["←", "notification", "session/update"]
        screen.query_one("#wire-table", DataTable).move_cursor(row=index)
        await wait_for(pilot, lambda: "more characters" in detail(screen), seconds=60)
        assert len(detail(screen)) < 100_000
        await pilot.press("c")
        await wait_for(pilot, lambda: len(screen.copied) > 20 * 1024 * 1024, seconds=60)
        assert json.loads(screen.copied)["params"]["update"]["content"]["text"].startswith(
            "This is a huge reply line"
        )


async def test_secrets_are_masked_in_what_is_shown(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.slot is not None
        wire = app.slot.agent.wire
        server = {
            "name": "db",
            "command": "/bin/db",
            "args": [],
            "env": [{"name": "DB_PASSWORD", "value": "hunter2"}],
        }
        message = {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "session/new",
            "params": {"cwd": "/", "mcpServers": [server]},
        }
        wire.tap("send", json.dumps(message).encode())
        await pilot.press("f12")
        screen = await wait_for_screen(pilot, WireInspector)
        await wait_for(pilot, lambda: any(r[5] == "99" for r in rows(screen)))
        index = next(i for i, r in enumerate(rows(screen)) if r[5] == "99")
        screen.query_one("#wire-table", DataTable).move_cursor(row=index)
        await wait_for(pilot, lambda: "DB_PASSWORD" in detail(screen))
        assert "hunter2" not in detail(screen)
        assert MASK in detail(screen)
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(screen.copied))
        assert "hunter2" not in screen.copied


async def test_wire_log_writes_the_same_traffic_as_json_lines(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    path = tmp_path / "logs" / "wire.jsonl"
    app = AcpApp(replace(make_app().launch, wire_log=path))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.workspace is not None
        assert app.slot is not None
        slot = app.slot
        app.workspace.prompts.submit(slot, "stream 3")
        await wait_for(pilot, lambda: "Chunk     3" in last_text(slot))
        await wait_for(pilot, lambda: slot.transcript.state == "idle")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    methods = [(x["direction"], x["message"].get("method")) for x in lines]
    assert methods[0] == ("send", "initialize")
    assert ("send", "session/new") in methods
    assert ("send", "session/prompt") in methods
    assert ("recv", "session/update") in methods
    assert {x["agent"] for x in lines} == {"demo"}
    assert len(lines) == app.workspace.agents[next(iter(app.workspace.agents))].wire.seq
