"""A big first build runs in a child process: the same index as a build in the app's thread,
the app's own writes served meanwhile, progress relayed; a child that cannot start changes
nothing but where the build runs."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from acp_tui.store.library import Library, LibraryStatus
from acp_tui.store.library import worker as worker_module
from acp_tui.store.library.build_child import ChildBuild
from acp_tui.store.library.catchup import Step
from acp_tui.store.library.schema import database_path
from acp_tui.store.transcripts import TranscriptCache
from tests.unit.library.helpers import AGENT, texts, turn


def record(data: Path, sessions: int) -> None:
    cache = TranscriptCache(data / "transcripts")
    for n in range(sessions):
        sid = f"s-{n:03}"
        cache.note_session(AGENT, sid, cwd="/w", title=f"session {n}")
        for t in range(5):
            turn(cache, sid, f"question {t} of session {n}", f"answer {t} about the lighthouse {n}")
    cache.close()


def index_rows(data: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(database_path(data / "library")) as conn:
        return conn.execute(
            "SELECT s.session_id, m.line, m.turn, m.kind, b.body FROM messages m "
            "JOIN bodies b ON b.id = m.id JOIN sessions s ON s.id = m.session "
            "ORDER BY s.session_id, m.line"
        ).fetchall()


def build(data: Path) -> list[LibraryStatus]:
    seen: list[LibraryStatus] = []
    library = Library.under(data, on_status=seen.append)
    library.start()
    try:
        assert library.wait_built(60)
        assert len(texts(library, "lighthouse", limit=100)) == 40
        assert library.row(AGENT, "s-007") is not None
    finally:
        library.close()
    return seen


def test_a_big_build_runs_in_a_child_and_makes_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    record(here, 40)
    record(there, 40)
    build(here)
    started: list[ChildBuild] = []
    real_start = ChildBuild.start.__func__  # type: ignore[attr-defined]

    def start(
        cls: type[ChildBuild], db: Path, root: Path, only: object = None
    ) -> ChildBuild | None:
        child = real_start(cls, db, root, *([only] if only is not None else []))
        started.append(child)
        return child

    monkeypatch.setattr(worker_module, "CHILD_BYTES", 1)
    monkeypatch.setattr(ChildBuild, "start", classmethod(start))
    seen = build(there)
    assert len(started) == 1
    assert started[0].process.returncode == 0
    assert started[0].error is None
    assert index_rows(there) == index_rows(here)
    assert any(s.state == "building" and s.sessions_total == 40 for s in seen)


def test_a_child_that_cannot_start_leaves_the_build_to_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(tmp_path, 10)
    monkeypatch.setattr(worker_module, "CHILD_BYTES", 1)
    monkeypatch.setattr(ChildBuild, "start", classmethod(lambda cls, db, root, only=None: None))
    library = Library.under(tmp_path)
    library.start()
    try:
        assert library.wait_built(60)
        assert len(texts(library, "lighthouse", limit=100)) == 10
    finally:
        library.close()


def test_closing_the_library_stops_the_child_and_the_app_catches_up_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(tmp_path, 40)
    started: list[ChildBuild] = []
    real_start = ChildBuild.start.__func__  # type: ignore[attr-defined]

    def start(
        cls: type[ChildBuild], db: Path, root: Path, only: object = None
    ) -> ChildBuild | None:
        child = real_start(cls, db, root, *([only] if only is not None else []))
        started.append(child)
        return child

    monkeypatch.setattr(worker_module, "CHILD_BYTES", 1)
    monkeypatch.setattr(ChildBuild, "start", classmethod(start))
    library = Library.under(tmp_path)
    library.start()
    while not started:
        library.worker.opened.wait(0.01)
    library.close()
    assert started[0].process.returncode is not None  # not left running
    build(tmp_path)  # the next start finishes what is left


def test_a_long_copy_rewritten_whole_is_indexed_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(tmp_path, 3)
    started: list[ChildBuild] = []
    real_start = ChildBuild.start.__func__  # type: ignore[attr-defined]

    def start(
        cls: type[ChildBuild], db: Path, root: Path, only: object = None
    ) -> ChildBuild | None:
        child = real_start(cls, db, root, *([only] if only is not None else []))
        started.append(child)
        return child

    monkeypatch.setattr(ChildBuild, "start", classmethod(start))
    library = Library.under(tmp_path)
    library.start()
    try:
        assert library.wait_built(60)
        assert not started  # a small build stays in the app's thread
        monkeypatch.setattr(worker_module, "ASIDE_BYTES", 1, raising=False)
        cache = TranscriptCache(tmp_path / "transcripts")
        path = cache.transcript_path(AGENT, "s-001")
        cache.close()
        replaced = path.with_suffix(".new")  # the agent's replay replaces the copy
        replaced.write_text(
            '{"t":"user","blocks":[{"type":"text","text":"a replayed barnacle"}]}\n'
        )
        replaced.replace(path)
        library.touched(AGENT, "s-001", soon=True)
        assert library.sync(60)
        assert len(started) == 1
        assert texts(library, "barnacle") == ["a replayed barnacle"]
        assert len(texts(library, "lighthouse", limit=100)) == 2  # its old text is gone
    finally:
        library.close()


def test_a_copy_rewritten_while_it_is_written_is_indexed_by_a_child_not_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's replay rewrites a long copy for seconds: parsing it in the app's thread took
    the GIL from the event loop in turns all along. It waits until the writing pauses, and a
    child process indexes it (only it)."""
    record(tmp_path, 3)
    started: list[tuple[ChildBuild, object]] = []
    real_start = ChildBuild.start.__func__  # type: ignore[attr-defined]

    def start(
        cls: type[ChildBuild], db: Path, root: Path, only: object = None
    ) -> ChildBuild | None:
        child = real_start(cls, db, root, *([only] if only is not None else []))
        started.append((child, only))
        return child

    here: list[Path] = []
    real_step = worker_module.catch_up_step

    def step(conn: sqlite3.Connection, session: int, path: Path) -> Step:
        done = real_step(conn, session, path)
        if done.read:
            here.append(path)  # what this thread parsed
        return done

    monkeypatch.setattr(ChildBuild, "start", classmethod(start))
    library = Library.under(tmp_path)
    library.start()
    try:
        assert library.wait_built(60)
        monkeypatch.setattr(worker_module, "ASIDE_BYTES", 1, raising=False)
        monkeypatch.setattr(worker_module, "DEBOUNCE", 0.05)
        monkeypatch.setattr(worker_module, "catch_up_step", step)
        cache = TranscriptCache(tmp_path / "transcripts")
        path = cache.transcript_path(AGENT, "s-001")
        cache.close()
        line = '{"t":"user","blocks":[{"type":"text","text":"replayed barnacle %d"}]}\n'
        path.unlink()  # the copy is reset, then the replay writes it line by line
        for n in range(6):
            with path.open("a") as copy:
                copy.write(line % n)
            library.touched(AGENT, "s-001")
            time.sleep(0.03)
        wanted = [f"replayed barnacle {n}" for n in range(6)]

        def bodies() -> list[object]:
            return [row[-1] for row in index_rows(tmp_path) if row[0] == "s-001"]

        for _ in range(600):
            if bodies() == wanted:
                break
            time.sleep(0.05)
        assert bodies() == wanted
        assert len(texts(library, "lighthouse", limit=100)) == 2  # its old text is gone
        assert path not in here  # never parsed in the app's process
        assert started
        for child, only in started:
            # (its rows are committed a moment before it exits)
            assert child.process.wait(60) == 0
            assert [where for _, where in only] == [path]  # type: ignore[attr-defined]
    finally:
        library.close()


def test_a_rewrite_is_indexed_here_when_no_child_can_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(tmp_path, 3)
    monkeypatch.setattr(ChildBuild, "start", classmethod(lambda cls, db, root, only=None: None))
    library = Library.under(tmp_path)
    library.start()
    try:
        assert library.wait_built(60)
        monkeypatch.setattr(worker_module, "ASIDE_BYTES", 1, raising=False)
        cache = TranscriptCache(tmp_path / "transcripts")
        path = cache.transcript_path(AGENT, "s-001")
        cache.close()
        path.write_text('{"t":"user","blocks":[{"type":"text","text":"a replayed barnacle"}]}\n')
        library.touched(AGENT, "s-001")
        assert library.sync(60)
        assert texts(library, "barnacle") == ["a replayed barnacle"]
    finally:
        library.close()


def test_a_reply_recorded_live_is_indexed_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long reply streamed live is appended to the copy indexed: past its cap its chunks
    cost next to nothing, and a child process (0.1 s of CPU to start) would cost more."""
    record(tmp_path, 3)
    started: list[object] = []
    monkeypatch.setattr(
        ChildBuild, "start", classmethod(lambda cls, db, root, only=None: started.append(only))
    )
    library = Library.under(tmp_path)
    library.start()
    cache = TranscriptCache(tmp_path / "transcripts", library=library)
    try:
        assert library.wait_built(60)
        monkeypatch.setattr(worker_module, "ASIDE_BYTES", 1, raising=False)
        turn(cache, "s-001", "one more question", "a streamed barnacle")  # appended
        cache.note_session(AGENT, "s-new", cwd="/w", title="new")
        turn(cache, "s-new", "a first question", "a first barnacle")  # a new copy
        assert library.sync(60)
        assert sorted(texts(library, "barnacle")) == ["a first barnacle", "a streamed barnacle"]
        assert started == []
    finally:
        cache.close()
        library.close()
