"""The library survives what happens to real machines: kill -9, damaged files, two acp-tui at
once, a full disk. None of it reaches the user as more than one notice."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acp_tui.store.library import Library
from acp_tui.store.library import schema as library_schema
from acp_tui.store.library import worker as library_worker
from acp_tui.store.library.schema import database_path
from acp_tui.store.transcripts import TranscriptCache
from tests.unit.library.helpers import AGENT, library_and_cache, texts, turn

CHILD = Path(__file__).with_name("child.py")


def record_many(data: Path, sessions: int, turns: int) -> None:
    """Write transcripts directly (fast), as acp-tui records them, with their index."""
    cache = TranscriptCache(data / "transcripts")
    for number in range(sessions):
        cache.note_session(AGENT, f"s{number}", cwd="/p")
    cache.close()
    folder = cache.agent_dir(AGENT)
    for number in range(sessions):
        lines = []
        for count in range(turns):
            lines.append(
                json.dumps({"t": "user", "blocks": [{"type": "text", "text": f"ask {count}"}]})
            )
            text = f"unique{number}x{count} " + "filler words here " * 10
            update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}}
            update["content"]["text"] = text  # type: ignore[index]
            lines.append(json.dumps({"t": "update", "update": update}))
            lines.append('{"t":"end","stopReason":"end_turn"}')
        path = cache.transcript_path(AGENT, f"s{number}")
        path.write_text("\n".join(lines) + "\n")
    assert folder.is_dir()


def count_rows(path: Path) -> int:
    """How many rows of text the library at ``path`` holds (0 while it is not there yet)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return 0
    try:
        return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def test_kill_9_while_building_leaves_a_database_that_opens_and_finishes(tmp_path: Path) -> None:
    sessions, turns = 300, 60
    record_many(tmp_path, sessions, turns)
    total = sessions * turns * 2
    child = subprocess.Popen(
        [sys.executable, str(CHILD), "build", str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "started"
        path = database_path(tmp_path / "library")
        deadline = time.monotonic() + 60
        while count_rows(path) < total // 10 and time.monotonic() < deadline:
            time.sleep(0.005)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    at_kill = count_rows(path)
    assert 0 < at_kill < total, "the build was not under way when it was killed"
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    notices: list[str] = []
    library = Library.under(tmp_path, on_notice=notices.append)
    library.start()
    try:
        assert library.wait_built(120)
        assert library.sync(60)
        assert notices == []
        assert count_rows(path) == total  # finished, and nothing indexed twice
        assert [hit.row.session_id for hit in library.search("unique7x59").hits] == ["s7"]
    finally:
        library.close()


def test_kill_9_while_recording_leaves_a_database_that_catches_up(tmp_path: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, str(CHILD), "record", str(tmp_path), "s1", "100000"],
        stdout=subprocess.PIPE,
    )
    path = database_path(tmp_path / "library")
    try:
        deadline = time.monotonic() + 60
        while count_rows(path) < 200 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    cache = TranscriptCache(tmp_path / "transcripts")
    prompts = sum(
        1 for event in cache.events(AGENT, "s1") if type(event).__name__ == "RecordedUser"
    )
    with library_and_cache(tmp_path) as (library, _cache):
        assert library.wait_built(60)
        assert library.sync(60)
        with sqlite3.connect(path) as conn:
            indexed = conn.execute("SELECT count(*) FROM messages WHERE kind = 0").fetchone()[0]
        assert indexed == prompts


@pytest.mark.parametrize(
    "content",
    [b"this is not a database at all\n" * 100, b"SQLite format 3\x00" + b"\xff" * 8000],
    ids=["text", "torn-header"],
)
def test_a_damaged_file_is_moved_aside_and_rebuilt_with_one_notice(
    tmp_path: Path, content: bytes
) -> None:
    cache = TranscriptCache(tmp_path / "transcripts")
    cache.note_session(AGENT, "s1", cwd="/p")
    turn(cache, "s1", "survives", "the damage")
    path = database_path(tmp_path / "library")
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    notices: list[str] = []
    with library_and_cache(tmp_path, notices) as (library, _cache):
        assert library.wait_built(30)
        assert library.sync(10)
        assert texts(library, "damage") == ["the damage"]
    assert len(notices) == 1
    assert "moved" in notices[0]
    assert path.with_name(path.name + ".damaged").read_bytes() == content


def test_another_programs_database_is_moved_aside(tmp_path: Path) -> None:
    path = database_path(tmp_path / "library")
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as foreign:
        foreign.execute("CREATE TABLE accounts(id INTEGER PRIMARY KEY, secret TEXT)")
    foreign.close()
    notices: list[str] = []
    with library_and_cache(tmp_path, notices) as (library, cache):
        turn(cache, "s1", "fresh", "start")
        assert library.wait_built(30)
        assert library.sync(10)
        assert texts(library, "fresh") == ["fresh"]
    assert len(notices) == 1
    assert "another program" in notices[0]
    with sqlite3.connect(path.with_name(path.name + ".damaged")) as kept:
        assert kept.execute("SELECT count(*) FROM accounts").fetchone()[0] == 0


def test_damage_found_while_running_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    notices: list[str] = []
    with library_and_cache(tmp_path, notices) as (library, cache):
        cache.note_session(AGENT, "s1", cwd="/p")
        turn(cache, "s1", "before", "the damage")
        assert library.sync(10)
        corrupt = sqlite3.DatabaseError("database disk image is malformed")
        corrupt.sqlite_errorcode = sqlite3.SQLITE_CORRUPT  # type: ignore[attr-defined]

        def damaged(conn: sqlite3.Connection) -> None:
            raise corrupt

        with pytest.raises(sqlite3.DatabaseError):
            library.worker.submit(damaged).result(10)
        assert library.sync(30)
        assert texts(library, "damage") == ["the damage"]
    assert len(notices) == 1
    assert "damaged" in notices[0]


def test_older_versions_are_removed(tmp_path: Path) -> None:
    folder = tmp_path / "library"
    folder.mkdir()
    (folder / "index-v0.db").write_bytes(b"old")
    (folder / "index-v0.db-wal").write_bytes(b"old")
    with library_and_cache(tmp_path) as (library, _cache):
        assert library.wait_built(10)
    assert sorted(p.name for p in folder.glob("index-v*")) == [
        name for name in sorted(p.name for p in folder.glob("index-v*")) if "v0" not in name
    ]
    assert not (folder / "index-v0.db").exists()


def test_two_processes_index_and_search_at_once_without_locked_errors(tmp_path: Path) -> None:
    children = [
        subprocess.Popen(
            [sys.executable, str(CHILD), "record", str(tmp_path), sid, "150"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for sid in ("left", "right")
    ]
    reports = []
    for child in children:
        out, _ = child.communicate(timeout=300)
        assert child.returncode == 0
        reports.append(json.loads(out.strip().splitlines()[-1]))
    for report in reports:
        assert report["errors"] == []
        assert report["notices"] == []
        assert not any("locked" in message for message in report["logged"])
        assert report["found"] == 1
    with library_and_cache(tmp_path) as (library, _cache):
        assert library.wait_built(60)
        assert library.sync(30)
        assert {hit.row.session_id for hit in library.search("answer 149").hits} == {
            "left",
            "right",
        }


def limited(pages: int) -> object:
    """``schema.connect`` with the writer's database capped at ``pages`` more pages."""
    original = library_schema.connect

    def connect(path: Path, *, reader: bool = False) -> sqlite3.Connection:
        conn = original(path, reader=reader)
        if not reader:
            used = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {max(used, 40) + pages}")
        return conn

    return connect


def test_a_full_disk_stops_indexing_with_one_notice_and_recording_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(library_schema, "connect", limited(30))
    monkeypatch.setattr(library_worker, "RETRY_AFTER", 0.2)
    notices: list[str] = []
    with library_and_cache(tmp_path, notices) as (library, cache):
        for number in range(40):
            turn(cache, "s1", f"question {number}", "many words " * 2000)
            library.sync(10)
        deadline = time.monotonic() + 10
        while library.status.state != "stopped" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert library.status.state == "stopped"
        assert library.status.trouble is not None
        assert "full" in library.status.trouble
        assert cache.failing is None  # recording goes on
        assert sum(1 for _ in cache.events(AGENT, "s1")) == 40 * 3
        time.sleep(0.6)  # a few retries, each failing again: still one notice
        assert len(notices) == 1
        assert "stopped" in notices[0]
        monkeypatch.setattr(library_schema, "connect", limited(100_000))
        deadline = time.monotonic() + 10
        while library.status.state != "ready" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert library.sync(30)
        assert len(library.search("question 39").hits) == 1
    assert len(notices) == 1


@pytest.mark.skipif(os.geteuid() != 0 if hasattr(os, "geteuid") else True, reason="needs root")
def test_a_really_full_disk_stops_indexing_with_one_notice(tmp_path: Path) -> None:
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(tiny)])
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        notices: list[str] = []
        library = Library(tiny / "library", tmp_path / "transcripts", on_notice=notices.append)
        library.start()
        cache = TranscriptCache(tmp_path / "transcripts", library=library)
        try:
            assert library.wait_built(10)
            assert library.status.state == "ready"
            for number in range(100):
                turn(cache, "s1", f"question {number}", f"other{number} words " * 3000)
                library.sync(10)
            assert library.status.state == "stopped"
            assert "full" in (library.status.trouble or "")
            assert len(notices) == 1
            assert "stopped" in notices[0]
            assert cache.failing is None
        finally:
            cache.close()
            library.close()
    finally:
        subprocess.run(["umount", "-l", str(tiny)], check=False)
