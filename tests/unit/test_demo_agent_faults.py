"""The demo agent's ``--fault`` switches, on the wire: each misbehaves as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.demo_agent.faults import (
    AFTER_CLOSE_UPDATES,
    ERROR_DATA,
    ERROR_DETAILS,
    LATE_CHUNK_TEXT,
    SLOW_LIST_SECONDS,
)
from acp_tui.demo_agent.options import FAULTS
from acp_tui.protocol.errors import ErrorCode
from tests.unit.test_demo_agent import agent, expect_error, kind, text_of


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "demo-data"


def test_help_documents_every_fault() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "acp_tui.demo_agent", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    faults = out[out.index("faults (--fault FAULT):") :]
    for fault in FAULTS:
        assert f"\n  {fault} " in faults


@pytest.mark.parametrize(
    ("fault", "data"), [("error-data", ERROR_DATA), ("error-details", ERROR_DETAILS)]
)
async def test_error_faults_put_the_reason_in_data(
    data_dir: Path, fault: str, data: object
) -> None:
    async with agent(data_dir, "--fault", fault) as client:
        sid = await client.new()
        prompt = [{"type": "text", "text": "hi"}]
        params = {"sessionId": sid, "prompt": prompt}
        for method, args in [
            ("session/prompt", params),
            ("session/list", {}),
            ("session/delete", {"sessionId": sid}),
        ]:
            error = await expect_error(client, ErrorCode.INTERNAL_ERROR, method, args)
            assert (error.message, error.data) == ("Internal error", data)


async def test_slow_list_answers_late(data_dir: Path) -> None:
    async with agent(data_dir, "--fault", "slow-list") as client:
        started = anyio.current_time()
        await client.call("session/list", {})
        assert anyio.current_time() - started >= SLOW_LIST_SECONDS * 0.9


async def test_late_chunk_follows_the_answer_without_message_ids(data_dir: Path) -> None:
    async with agent(data_dir, "--fault", "late-chunk") as client:
        sid = await client.new()
        assert await client.prompt(sid, "hello") == "end_turn"
        before = len(client.of(sid))
        assert LATE_CHUNK_TEXT not in text_of(client.of(sid))
        await client.wait_for(lambda: LATE_CHUNK_TEXT in text_of(client.of(sid)))
        assert len(client.of(sid)) == before + 1
        assert not any("messageId" in u for u in client.of(sid))


async def test_no_titles_sends_no_session_info(data_dir: Path) -> None:
    async with agent(data_dir, "--fault", "no-titles") as client:
        sid = await client.new()
        assert await client.prompt(sid, "title A new name") == "end_turn"
        assert "session_info_update" not in {kind(u) for u in client.of(sid)}


async def test_updates_after_close(data_dir: Path) -> None:
    async with agent(data_dir, "--fault", "updates-after-close") as client:
        sid = await client.new()
        before = len(client.of(sid))
        assert await client.call("session/close", {"sessionId": sid}) == {}
        await client.wait_for(lambda: len(client.of(sid)) == before + AFTER_CLOSE_UPDATES)
        assert text_of(client.of(sid)[before:]).count("for the closed session") == 100
