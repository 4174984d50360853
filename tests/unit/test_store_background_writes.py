"""A big recorded line is written off the event loop, and the lines after it keep their order."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from acp_tui.store.background import BIG_WRITE
from acp_tui.store.transcripts import RecordedTurnEnd, RecordedUpdate, TranscriptCache

AGENT, SID = '["agent"]', "s-1"


def chunk(text: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}


async def test_a_big_line_goes_to_the_writer_thread_and_the_next_lines_follow_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = TranscriptCache(tmp_path / "transcripts")
    release = threading.Event()
    written_in: list[tuple[str, bool]] = []
    real = TranscriptCache._write_now

    def write_now(self: TranscriptCache, path: Path, line: Any, *, flush: bool) -> Any:
        big = not isinstance(line, bytes)
        if big:
            release.wait(10)  # the big write is still going on while the loop records more
        written_in.append(("big" if big else "small", threading.current_thread().name))
        return real(self, path, line, flush=flush)

    monkeypatch.setattr(TranscriptCache, "_write_now", write_now)
    padded = {**chunk("big"), "_meta": {"pad": "p" * BIG_WRITE}}
    cache.record_update_json(AGENT, SID, json.dumps(padded))
    cache.record_update(AGENT, SID, chunk("after"))
    cache.record_turn_end(AGENT, SID, "end_turn")
    release.set()  # the loop went on: nothing above waited for the big write
    events = await asyncio.to_thread(lambda: list(cache.events(AGENT, SID)))
    assert events == [
        RecordedUpdate(padded),
        RecordedUpdate(chunk("after")),
        RecordedTurnEnd("end_turn"),
    ]
    main = threading.current_thread().name
    assert [kind for kind, _ in written_in] == ["big", "small", "small"]
    assert all(thread != main for _, thread in written_in)
    cache.record_update(AGENT, SID, chunk("later"))  # the queue is empty: written right away
    assert written_in[-1] == ("small", main)
    cache.close()


async def test_a_failed_background_write_is_reported_on_the_event_loop(tmp_path: Path) -> None:
    blocker = tmp_path / "transcripts"
    blocker.write_text("a file where the directory should be")
    cache = TranscriptCache(blocker)
    told: list[tuple[str | None, str]] = []
    got = asyncio.Event()

    def trouble(reason: str | None) -> None:
        told.append((reason, threading.current_thread().name))
        got.set()

    cache.on_trouble = trouble
    cache.record_update_json(AGENT, SID, json.dumps({**chunk("x"), "pad": "p" * BIG_WRITE}))
    await asyncio.wait_for(got.wait(), 10)
    assert told[0][0]
    assert told[0][1] == threading.current_thread().name
    assert cache.failing is not None


def test_without_an_event_loop_a_big_line_is_written_at_once(tmp_path: Path) -> None:
    cache = TranscriptCache(tmp_path / "transcripts")
    padded = {**chunk("big"), "_meta": {"pad": "p" * BIG_WRITE}}
    cache.record_update_json(AGENT, SID, json.dumps(padded))
    assert cache._background._thread is None  # no writer thread: nothing to report back to
    assert list(cache.events(AGENT, SID)) == [RecordedUpdate(padded)]


async def test_closing_the_cache_ends_the_writer_thread_after_its_writes(tmp_path: Path) -> None:
    """A writer thread left waiting keeps its last report, and the app behind it, alive."""
    cache = TranscriptCache(tmp_path / "transcripts")
    padded = {**chunk("big"), "_meta": {"pad": "p" * BIG_WRITE}}
    cache.record_update_json(AGENT, SID, json.dumps(padded))
    cache.flush_soon(AGENT, SID)
    thread = cache._background._thread
    assert thread is not None
    assert thread.is_alive()
    cache.close()
    assert not thread.is_alive()
    assert list(cache.events(AGENT, SID)) == [RecordedUpdate(padded)]  # written before it ended
    cache.record_update_json(AGENT, SID, json.dumps(padded))  # a write after: a new thread
    assert cache._background._thread is not None
    cache.close()
    assert cache._background._thread is None
    assert list(cache.events(AGENT, SID)) == [RecordedUpdate(padded)] * 2


class SeenFeed:
    """The history library's side of the cache: what each touch would find in the file."""

    def __init__(self, cache: TranscriptCache) -> None:
        self.cache = cache
        self.seen: list[bytes] = []

    def touched(self, agent_key: str, session_id: str, *, soon: bool = False) -> None:
        path = self.cache.transcript_path(agent_key, session_id)
        self.seen.append(path.read_bytes() if path.exists() else b"")

    def noted(self, agent_key: str, session: Any) -> None:
        pass

    def forgotten(self, agent_key: str, session_id: str) -> None:
        pass

    def set_local_title(self, agent_key: str, session_id: str, title: str | None) -> None:
        pass


async def test_lines_the_writer_thread_writes_late_are_indexed_after_they_reach_the_file(
    tmp_path: Path,
) -> None:
    """A reply's lines flushed by a writer thread that is slow to run (a loaded machine): the
    turn's end tells the library before they are in the file, so it is told again after."""
    cache = TranscriptCache(tmp_path / "transcripts")
    feed = SeenFeed(cache)
    cache.library = feed
    release = threading.Event()
    assert cache._background.submit(lambda: release.wait(10), lambda _: None)  # a slow thread
    cache.record_update(AGENT, SID, chunk("the reply"), flush=False)
    cache.flush_soon(AGENT, SID)
    cache.record_turn_end(AGENT, SID, "end_turn")
    assert b"the reply" not in feed.seen[-1]  # told at the turn's end, before the lines
    release.set()
    await asyncio.to_thread(cache._background.settle)
    for _ in range(10):  # the writer's reports run on this loop
        await asyncio.sleep(0)
    assert b"the reply" in feed.seen[-1]
    assert b'"end"' in feed.seen[-1]
    cache.close()
