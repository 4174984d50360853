"""History is never lost: a bad line skips itself, a bad index starts afresh, a full disk is
said (and recording resumes once space returns)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.session.entries import NoticeEntry
from acp_tui.client.session.transcript import Transcript
from acp_tui.config.paths import Paths
from acp_tui.store.transcripts import TranscriptCache
from tests.unit.client.agent.agent_helpers import agent_text, demo_spec, make_project
from tests.unit.client.workspace.workspace_helpers import workspace

AGENT = '["agent"]'
SID = "sess-1"
DEEP = b"[" * 200_000 + b"]" * 200_000


def chunk(value: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": value}}


def replayed_text(cache: TranscriptCache) -> str:
    transcript = Transcript(SID)
    cache.replay_into(AGENT, SID, transcript.apply, transcript.add_user_message)
    return "".join(e.text for e in transcript.entries if hasattr(e, "role"))


@pytest.mark.parametrize(
    "bad",
    [
        DEEP,
        b'{"t": "update", "update": ' + DEEP + b"}",
        b"{not json at all",
        b'{"t": "update", "update": {"sessionUpdate": "agent_message_chunk", "content": '
        + b'{"type": "text", "text": "x"}, "_meta": '
        + b'{"a": ' * 5000
        + b"1"
        + b"}" * 5000
        + b"}}",
    ],
    ids=["deep-array", "deep-update", "not-json", "deep-meta"],
)
def test_one_bad_line_skips_only_that_line(tmp_path: Path, bad: bytes) -> None:
    cache = TranscriptCache(tmp_path)
    cache.record_update(AGENT, SID, chunk("before "))
    with cache.transcript_path(AGENT, SID).open("ab") as handle:
        handle.write(bad + b"\n")
    later = TranscriptCache(tmp_path)
    later.record_update(AGENT, SID, chunk("after"))
    assert replayed_text(later).startswith("before ")
    assert replayed_text(later).endswith("after")


@pytest.mark.parametrize(
    "index",
    [DEEP, b'{"sessions": [' + DEEP + b"]}", b"\xff{"],
    ids=["deep", "deep-entry", "not-utf8"],
)
def test_a_corrupt_or_deeply_nested_index_starts_afresh(
    tmp_path: Path, index: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    cache = TranscriptCache(tmp_path)
    cache.note_session(AGENT, SID, cwd="/p")
    cache.index_path(AGENT).write_bytes(index)
    assert cache.sessions(AGENT) == []
    cache.note_session(AGENT, "new", cwd="/p", title="fresh")
    assert [s.title for s in cache.sessions(AGENT)] == ["fresh"]
    assert "corrupt session index" in caplog.text


class FullDisk:
    """Replaces the cache's file handles: writes fail with ENOSPC while ``full``, after
    writing part of the line (as a real full disk may)."""

    def __init__(self, cache: TranscriptCache, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full = False
        real = cache._handle

        def handle(path: Path) -> Any:
            opened = real(path)
            if not self.full:
                return opened
            disk = self

            class Torn:
                def __getattr__(self, name: str) -> Any:
                    return getattr(opened, name)

                def write(self, data: bytes) -> int:
                    if disk.full:
                        opened.write(data[: len(data) // 2])
                        opened.flush()
                        raise OSError(errno.ENOSPC, "No space left on device")
                    return int(opened.write(data))

            return Torn()

        monkeypatch.setattr(cache, "_handle", handle)


def test_a_full_disk_is_told_once_and_recording_resumes_when_space_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = TranscriptCache(tmp_path)
    told: list[str | None] = []
    cache.on_trouble = told.append
    disk = FullDisk(cache, monkeypatch)
    cache.record_update(AGENT, SID, chunk("one "))
    disk.full = True
    cache.record_update(AGENT, SID, chunk("lost "))
    cache.record_update(AGENT, SID, chunk("lost too "))
    assert told == ["No space left on device"]
    assert cache.failing == "No space left on device"
    disk.full = False
    cache.record_update(AGENT, SID, chunk("two"))
    assert told == ["No space left on device", None]
    assert cache.failing is None
    assert replayed_text(cache) == "one two"  # the torn lines skipped, the next one whole


async def test_the_workspace_says_in_the_transcript_that_recording_stopped_and_resumed(
    tmp_path: Path, acp_home: Paths, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path)
    async with workspace(acp_home, project) as (ws, watch):
        disk = FullDisk(ws.cache, monkeypatch)
        agent = ws.agent_for(demo_spec(tmp_path / "demo", project))
        slot = ws.open_new(agent)
        await watch.until(lambda: slot.state == "ready")
        disk.full = True
        ws.prompts.submit(slot, "hello")
        await watch.until(lambda: not slot.busy and "hello" in agent_text(slot.transcript))
        notices = [e.text for e in slot.transcript.entries if isinstance(e, NoticeEntry)]
        assert any(
            "Recording the local history stopped: No space left on device" in n for n in notices
        )
        disk.full = False
        ws.prompts.submit(slot, "again")
        await watch.until(lambda: not slot.busy and "again" in agent_text(slot.transcript))
        notices = [e.text for e in slot.transcript.entries if isinstance(e, NoticeEntry)]
        assert "Recording the local history works again." in notices
