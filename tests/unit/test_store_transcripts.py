"""TranscriptCache: recorded sessions replay into a real Transcript; the index stays correct."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.session.entries import (
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    ToolCallEntry,
    TranscriptEntry,
)
from acp_tui.client.session.transcript import Transcript
from acp_tui.config.paths import Paths
from acp_tui.protocol.content import ContentBlock, TextContent
from acp_tui.protocol.timestamps import parse_timestamp
from acp_tui.protocol.updates import SessionNotification, SessionUpdate
from acp_tui.store import sessions as sessions_module
from acp_tui.store.sessions import PROMPT_TITLE_CHARS, prompt_title
from acp_tui.store.transcripts import (
    RecordedTurnEnd,
    RecordedUpdate,
    RecordedUser,
    TranscriptCache,
)

AGENT = '["python", "-m", "acp_tui.demo_agent"]'
SID = "sess-1"


def text(value: str, message_id: str | None = None, kind: str = "agent_message_chunk") -> dict:
    wire: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": value}}
    if message_id is not None:
        wire["messageId"] = message_id
    return wire


def parse(wire: dict[str, Any]) -> SessionUpdate:
    return SessionNotification.from_wire({"sessionId": SID, "update": wire}).update


def turn(n: int) -> list[dict[str, Any]]:
    """One turn of every kind of update; ids are unique per turn."""
    return [
        text("Thinking ", kind="agent_thought_chunk"),
        text("hard.", kind="agent_thought_chunk"),
        {
            "sessionUpdate": "plan",
            "entries": [{"content": "Read", "priority": "high", "status": "pending"}],
        },
        {"sessionUpdate": "tool_call", "toolCallId": f"t{n}", "title": "Edit a.py", "kind": "edit"},
        text("Hello ", f"m{n}"),
        {"sessionUpdate": "tool_call_update", "toolCallId": f"t{n}", "status": "completed"},
        text("world", f"m{n}"),
        {
            "sessionUpdate": "plan",
            "entries": [{"content": "Read", "priority": "high", "status": "completed"}],
        },
        {"sessionUpdate": "session_info_update", "title": "Greeting"},
        {"sessionUpdate": "future_kind", "x": 1},
    ]


def summary(entries: Sequence[TranscriptEntry]) -> list[tuple[Any, ...]]:
    """What a user sees of each entry: its kind and its text."""
    out: list[tuple[Any, ...]] = []
    for entry in entries:
        if isinstance(entry, MessageEntry):
            out.append(("message", entry.role, entry.text))
        elif isinstance(entry, ToolCallEntry):
            out.append(("tool", entry.tool_call_id, entry.title, entry.status))
        elif isinstance(entry, PlanEntryBlock):
            out.append(("plan", [(e.content, e.status) for e in entry.entries]))
        elif isinstance(entry, NoticeEntry):
            out.append(("notice", entry.text))
    return out


def replay(cache: TranscriptCache, session_id: str = SID) -> tuple[Transcript, int]:
    transcript = Transcript(session_id)
    count = cache.replay_into(AGENT, session_id, transcript.apply, transcript.add_user_message)
    return transcript, count


@pytest.fixture
def cache(tmp_path: Path) -> TranscriptCache:
    return TranscriptCache(tmp_path / "transcripts")


def test_default_root_is_under_the_data_dir(acp_home: Paths) -> None:
    assert TranscriptCache().root == acp_home.data_dir / "transcripts"


def test_round_trip_replays_the_same_conversation(cache: TranscriptCache) -> None:
    live = Transcript(SID)
    prompts: list[list[ContentBlock]] = [
        [TextContent(text="Say hello")],
        [TextContent(text="Again"), TextContent(text=" please")],
    ]
    for n, prompt in enumerate(prompts):
        live.add_user_message(prompt)
        cache.record_user(AGENT, SID, [block.to_wire() for block in prompt])
        for wire in turn(n):
            live.apply(parse(wire))
            cache.record_update(AGENT, SID, wire)

    replayed, count = replay(cache)

    assert count == len(prompts) * (1 + len(turn(0)))
    assert summary(replayed.entries) == summary(live.entries)
    assert ("message", "user", "Again please") in summary(replayed.entries)
    assert ("message", "agent", "Hello world") in summary(replayed.entries)
    assert replayed.title == "Greeting"
    assert replayed.unknown_updates == 2


def test_events_are_lazy_and_in_order(cache: TranscriptCache) -> None:
    cache.record_user(AGENT, SID, [{"type": "text", "text": "hi"}])
    cache.record_update(AGENT, SID, text("a"))
    cache.record_update(AGENT, SID, text("b"))
    events = cache.events(AGENT, SID)
    assert next(events) == RecordedUser([{"type": "text", "text": "hi"}])
    assert [e for e in events] == [RecordedUpdate(text("a")), RecordedUpdate(text("b"))]


def test_the_end_of_a_turn_is_recorded_and_splits_the_replay_as_it_did_live(
    cache: TranscriptCache,
) -> None:
    live = Transcript(SID)
    for event in ("user", "a", "b", "end", "late", "end", "user", "c"):
        if event == "user":
            live.add_user_message([TextContent(text="hi")])
            cache.record_user(AGENT, SID, [{"type": "text", "text": "hi"}])
        elif event == "end":
            live.end_turn("end_turn")
            cache.record_turn_end(AGENT, SID, "end_turn")
        else:
            live.apply(parse(text(event)))
            cache.record_update(AGENT, SID, text(event))
    assert RecordedTurnEnd("end_turn") in list(cache.events(AGENT, SID))
    replayed = Transcript(SID)
    count = cache.replay_into(AGENT, SID, replayed.apply, replayed.add_user_message, replayed.seal)
    assert count == 6  # the ends of turns are not counted
    assert summary(replayed.entries) == summary(live.entries)
    assert [e[2] for e in summary(replayed.entries)] == ["hi", "ab", "late", "hi", "c"]
    glued, _ = replay(cache)  # a reader that ignores the ends still reads the rest
    assert [e[2] for e in summary(glued.entries)] == ["hi", "ablate", "hi", "c"]


def test_an_end_of_turn_line_with_a_strange_stop_reason_is_read_leniently(
    cache: TranscriptCache,
) -> None:
    path = cache.transcript_path(AGENT, SID)
    path.parent.mkdir(parents=True)
    path.write_text('{"t":"end","stopReason":7}\n{"t":"end"}\n{"t":"unknown"}\n')
    assert list(cache.events(AGENT, SID)) == [RecordedTurnEnd(None), RecordedTurnEnd(None)]


def test_each_event_is_one_json_line_on_disk(cache: TranscriptCache) -> None:
    cache.record_update(AGENT, SID, text("a"))
    cache.record_user(AGENT, SID, [{"type": "text", "text": "hi"}])
    lines = cache.transcript_path(AGENT, SID).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        {"t": "update", "update": text("a")},
        {"t": "user", "blocks": [{"type": "text", "text": "hi"}]},
    ]


def test_a_torn_last_line_is_skipped_and_the_next_write_starts_clean(
    tmp_path: Path, cache: TranscriptCache
) -> None:
    cache.record_update(AGENT, SID, text("kept"))
    path = cache.transcript_path(AGENT, SID)
    with path.open("ab") as handle:
        handle.write(b'{"t": "update", "update": {"sessionUpd')  # a crash mid-write

    transcript, count = replay(cache)
    assert count == 1
    assert summary(transcript.entries) == [("message", "agent", "kept")]

    # A new process (a new cache) appends after the torn line, not onto it.
    later = TranscriptCache(tmp_path / "transcripts")
    later.record_update(AGENT, SID, text(" and more"))
    transcript, count = replay(later)
    assert count == 2
    assert summary(transcript.entries) == [("message", "agent", "kept and more")]


def test_invalid_events_are_skipped(cache: TranscriptCache) -> None:
    path = cache.transcript_path(AGENT, SID)
    path.parent.mkdir(parents=True)
    lines = [
        "not json",
        json.dumps([1, 2]),
        json.dumps({"t": "other"}),
        json.dumps({"t": "update", "update": {"sessionUpdate": "agent_message_chunk"}}),
        json.dumps({"t": "user", "blocks": [{"no": "type"}]}),
        json.dumps({"t": "update", "update": text("ok")}),
        "",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    transcript, count = replay(cache)
    assert count == 1
    assert summary(transcript.entries) == [("message", "agent", "ok")]


@pytest.mark.parametrize(
    "hostile",
    ["../../etc/passwd", "/etc/passwd", "..", ".", "", "a/b\\c", "nul\x00byte", "x" * 5000],
)
def test_hostile_session_ids_stay_inside_the_root(
    tmp_path: Path, cache: TranscriptCache, hostile: str
) -> None:
    cache.record_update(AGENT, hostile, text("hi"))
    cache.note_session(AGENT, hostile, cwd="/p")
    path = cache.transcript_path(AGENT, hostile)
    assert path.parent == cache.agent_dir(AGENT)
    assert path.resolve().is_relative_to(cache.root.resolve())
    assert cache.has(AGENT, hostile)
    assert [s.session_id for s in cache.sessions(AGENT)] == [hostile]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert all(p.is_relative_to(cache.root) for p in written)
    transcript, _ = replay(cache, hostile)
    assert summary(transcript.entries) == [("message", "agent", "hi")]


def test_agents_are_kept_apart(cache: TranscriptCache) -> None:
    cache.record_update(AGENT, SID, text("one"))
    cache.note_session(AGENT, SID, cwd="/p")
    assert not cache.has("other agent", SID)
    assert cache.sessions("other agent") == []


@pytest.mark.usefixtures("local_zone")  # UTC: a time without a zone is local time
def test_index_is_newest_first_and_tolerates_missing_timezones(cache: TranscriptCache) -> None:
    cache.note_session(AGENT, "old", cwd="/p", updated_at="2024-01-01T00:00:00Z")
    cache.note_session(AGENT, "naive", cwd="/p", updated_at="2024-06-01T12:00:00")
    cache.note_session(AGENT, "offset", cwd="/p", updated_at="2024-06-01T13:00:00+02:00")
    cache.note_session(AGENT, "garbage", cwd="/p", updated_at="yesterday")
    cache.note_session(AGENT, "now", cwd="/q", additional_directories=[Path("/r"), "/s"])
    listed = cache.sessions(AGENT)
    # 13:00+02:00 is 11:00 UTC, before the naive 12:00 (local time, here UTC).
    assert [s.session_id for s in listed] == ["now", "naive", "offset", "old", "garbage"]
    now = listed[0]
    assert (now.cwd, now.additional_directories) == ("/q", ("/r", "/s"))
    assert parse_timestamp(now.updated_at) is not None
    assert now.created_by_client is False


def test_index_file_shape(cache: TranscriptCache) -> None:
    cache.note_session(
        AGENT, SID, cwd="/p", title="T", updated_at="2024-01-01T00:00:00Z", created=True
    )
    document = json.loads(cache.index_path(AGENT).read_text(encoding="utf-8"))
    assert document["version"] == 1
    assert document["agent"] == AGENT
    assert document["sessions"] == [
        {
            "sessionId": SID,
            "cwd": "/p",
            "additionalDirectories": [],
            "title": "T",
            "updatedAt": "2024-01-01T00:00:00Z",
            "createdByClient": True,
        }
    ]


def test_titles_and_times_update(cache: TranscriptCache) -> None:
    cache.note_session(AGENT, SID, cwd="/p", title="First", created=True)
    assert cache.update_info(AGENT, SID, title="Second")
    assert cache.session(AGENT, SID).title == "Second"  # type: ignore[union-attr]
    # Noting again (the app reopened it) keeps the title, the creator and moves the time.
    cache.note_session(AGENT, SID, cwd="/p2", updated_at="2030-01-01T00:00:00Z")
    noted = cache.session(AGENT, SID)
    assert noted is not None
    assert (noted.title, noted.cwd, noted.created_by_client) == ("Second", "/p2", True)
    assert cache.update_info(AGENT, SID, updated_at="2031-01-01T00:00:00Z")
    assert cache.update_info(AGENT, SID, title=None)  # null clears
    final = cache.session(AGENT, SID)
    assert final is not None
    assert (final.title, final.updated_at) == (None, "2031-01-01T00:00:00Z")
    assert not cache.update_info(AGENT, "unknown", title="x")
    assert cache.session(AGENT, "unknown") is None


def test_chunks_do_not_rewrite_the_index(cache: TranscriptCache) -> None:
    cache.note_session(AGENT, SID, cwd="/p")
    index = cache.index_path(AGENT)
    before = index.stat().st_mtime_ns, index.stat().st_ino
    for i in range(50):
        cache.record_update(AGENT, SID, text(str(i)))
    assert (index.stat().st_mtime_ns, index.stat().st_ino) == before


def test_a_prompt_marks_the_session_used(cache: TranscriptCache) -> None:
    cache.note_session(AGENT, SID, cwd="/p", updated_at="2020-01-01T00:00:00Z")
    cache.record_user(AGENT, SID, [{"type": "text", "text": "hi"}])
    noted = cache.session(AGENT, SID)
    assert noted is not None
    assert noted.updated_at != "2020-01-01T00:00:00Z"


def test_forget_removes_the_entry_and_the_events(cache: TranscriptCache) -> None:
    cache.note_session(AGENT, SID, cwd="/p")
    cache.note_session(AGENT, "other", cwd="/p")
    cache.record_update(AGENT, SID, text("x"))
    cache.forget(AGENT, SID)
    assert not cache.has(AGENT, SID)
    assert not cache.transcript_path(AGENT, SID).exists()
    assert [s.session_id for s in cache.sessions(AGENT)] == ["other"]
    cache.forget(AGENT, SID)  # again: nothing to do, no error
    cache.forget("never seen", "nothing")


def test_reset_drops_recorded_events(cache: TranscriptCache) -> None:
    cache.record_update(AGENT, SID, text("x"))
    cache.reset(AGENT, SID)
    assert not cache.has(AGENT, SID)
    cache.record_update(AGENT, SID, text("y"))
    assert summary(replay(cache)[0].entries) == [("message", "agent", "y")]


def test_a_corrupt_index_reads_as_empty_and_is_rebuilt(cache: TranscriptCache) -> None:
    cache.note_session(AGENT, SID, cwd="/p")
    cache.index_path(AGENT).write_text("{not json", encoding="utf-8")
    assert cache.sessions(AGENT) == []
    cache.note_session(AGENT, "new", cwd="/p")
    assert [s.session_id for s in cache.sessions(AGENT)] == ["new"]


def test_unknown_index_fields_survive_a_rewrite(cache: TranscriptCache) -> None:
    cache.note_session(AGENT, SID, cwd="/p")
    path = cache.index_path(AGENT)
    document = json.loads(path.read_text(encoding="utf-8"))
    document["sessions"][0]["pinned"] = True
    document["sessions"].append({"sessionId": 3})  # unusable: dropped
    path.write_text(json.dumps(document), encoding="utf-8")
    cache.update_info(AGENT, SID, title="T")
    rewritten = json.loads(path.read_text(encoding="utf-8"))["sessions"]
    assert len(rewritten) == 1
    assert rewritten[0]["pinned"] is True
    assert rewritten[0]["title"] == "T"


def test_the_index_is_bounded(cache: TranscriptCache, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions_module, "INDEX_LIMIT", 2)
    for day in (1, 2, 3):
        sid = f"s{day}"
        cache.record_update(AGENT, sid, text("x"))
        cache.note_session(AGENT, sid, cwd="/p", updated_at=f"2024-01-0{day}T00:00:00Z")
    assert [s.session_id for s in cache.sessions(AGENT)] == ["s3", "s2"]
    assert not cache.has(AGENT, "s1")
    assert cache.has(AGENT, "s2")


def test_disk_errors_never_reach_the_caller(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    cache = TranscriptCache(blocker / "transcripts")  # cannot be a directory
    with caplog.at_level(logging.DEBUG, logger="acp_tui.store"):
        for _ in range(3):
            cache.record_update(AGENT, SID, text("x"))
            cache.record_user(AGENT, SID, [{"type": "text", "text": "hi"}])
            cache.note_session(AGENT, SID, cwd="/p")
            cache.update_info(AGENT, SID, title="t")
            cache.reset(AGENT, SID)
            cache.forget(AGENT, SID)
    assert cache.failures >= 9
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert "transcript cache" in warnings[0].getMessage()
    assert not cache.has(AGENT, SID)
    assert cache.sessions(AGENT) == []
    assert list(cache.events(AGENT, SID)) == []
    assert replay(cache)[1] == 0


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions"
)
def test_a_read_only_directory_is_tolerated(tmp_path: Path) -> None:
    root = tmp_path / "transcripts"
    cache = TranscriptCache(root)
    cache.record_update(AGENT, SID, text("before"))
    cache.note_session(AGENT, SID, cwd="/p")
    agent_dir = cache.agent_dir(AGENT)
    agent_dir.chmod(0o500)
    cache.transcript_path(AGENT, SID).chmod(0o400)
    try:
        cache.record_update(AGENT, SID, text(" after"))
        cache.note_session(AGENT, "new", cwd="/p")
        assert cache.failures == 2
        assert summary(replay(cache)[0].entries) == [("message", "agent", "before")]
    finally:
        agent_dir.chmod(0o700)


def test_a_restore_recorded_aside_replaces_or_appends_only_when_it_ends(tmp_path: Path) -> None:
    cache = TranscriptCache(tmp_path / "cache")
    cache.record_user(AGENT, SID, [{"type": "text", "text": "kept"}])
    before = list(cache.events(AGENT, SID))

    cache.begin_aside(AGENT, SID)  # a replay that fails half-way: the copy is untouched
    cache.record_user(AGENT, SID, [{"type": "text", "text": "partial"}])
    assert list(cache.events(AGENT, SID)) == before
    cache.discard_aside(AGENT, SID)
    assert list(cache.events(AGENT, SID)) == before

    cache.begin_aside(AGENT, SID)  # a resume that did not replay: what came is appended
    cache.record_user(AGENT, SID, [{"type": "text", "text": "after resume"}])
    cache.end_aside(AGENT, SID, replaced=False)
    texts = [e.blocks[0]["text"] for e in cache.events(AGENT, SID) if isinstance(e, RecordedUser)]
    assert texts == ["kept", "after resume"]

    cache.begin_aside(AGENT, SID)  # a whole replay: it replaces the copy
    cache.record_user(AGENT, SID, [{"type": "text", "text": "replayed"}])
    cache.end_aside(AGENT, SID, replaced=True)
    texts = [e.blocks[0]["text"] for e in cache.events(AGENT, SID) if isinstance(e, RecordedUser)]
    assert texts == ["replayed"]
    cache.record_user(AGENT, SID, [{"type": "text", "text": "next"}])
    texts = [e.blocks[0]["text"] for e in cache.events(AGENT, SID) if isinstance(e, RecordedUser)]
    assert texts == ["replayed", "next"]
    assert [p.name for p in cache.agent_dir(AGENT).iterdir() if p.suffix == ".restore"] == []


def test_the_first_prompt_is_kept_once_as_the_title_of_an_untitled_session(
    cache: TranscriptCache,
) -> None:
    cache.note_session(AGENT, SID, cwd="/p", created=True)
    cache.record_user(AGENT, SID, [{"type": "image", "data": "", "mimeType": "image/png"}])
    assert cache.session(AGENT, SID).first_prompt is None  # type: ignore[union-attr]
    first = "\n  Fix   the login\ttest  \nthen the rest"
    cache.record_user(AGENT, SID, [{"type": "text", "text": first}])
    cache.record_user(AGENT, SID, [{"type": "text", "text": "something else"}])
    cached = cache.session(AGENT, SID)
    assert cached is not None
    assert cached.first_prompt == "Fix the login test"
    assert cached.shown_title == "Fix the login test"
    cache.update_info(AGENT, SID, title="The agent's title")
    assert cache.session(AGENT, SID).shown_title == "The agent's title"  # type: ignore[union-attr]
    assert cache.session(AGENT, SID).first_prompt == "Fix the login test"  # type: ignore[union-attr]


def test_a_long_first_prompt_is_cut() -> None:
    title = prompt_title([{"type": "text", "text": "word " * 100}])
    assert title is not None
    assert len(title) == PROMPT_TITLE_CHARS
    assert title.endswith("…")
