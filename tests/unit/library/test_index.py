"""The library indexes what the cache records: built from the transcripts, kept up to date as
they grow, and never a word twice."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from acp_tui.store.library import Library, LibraryStatus
from acp_tui.store.library.schema import database_path
from acp_tui.store.library.text import MESSAGE_CHARS
from acp_tui.store.transcripts import TranscriptCache
from tests.unit.library.helpers import AGENT, chunk, library_and_cache, prompt, texts, turn


def message_rows(data: Path) -> int:
    with sqlite3.connect(database_path(data / "library")) as conn:
        return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])


def test_new_turns_are_indexed_as_they_are_recorded(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        cache.note_session(AGENT, "s1", cwd="/p")
        turn(cache, "s1", "where is the lighthouse", "On the rock.")
        assert library.sync(10)
        assert texts(library, "lighthouse") == ["where is the lighthouse"]
        turn(cache, "s1", "and the keeper?", "The keeper sleeps.")
        assert library.sync(10)
        assert texts(library, "sleeps") == ["The keeper sleeps."]
        assert message_rows(tmp_path) == 4


def test_a_streaming_reply_is_searchable_while_it_streams_in_one_row(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        cache.record_user(AGENT, "s1", prompt("go"))
        for word in ("alpha ", "beta "):
            cache.record_update(AGENT, "s1", chunk(word, "m1"))
        assert library.sync(10)
        assert texts(library, "beta") == ["alpha beta"]
        cache.record_update(AGENT, "s1", chunk("gamma", "m1"))
        assert library.sync(10)
        assert texts(library, "alpha") == ["alpha beta gamma"]
        assert message_rows(tmp_path) == 2  # the prompt, and the reply once
        cache.record_turn_end(AGENT, "s1", "end_turn")
        assert library.sync(10)
        assert message_rows(tmp_path) == 2


def test_a_hit_says_which_message_matched(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        turn(cache, "s1", "first question", "first answer")
        turn(cache, "s1", "second question", "the needle is here")
        cache.record_update(AGENT, "s1", chunk("hmm", kind="agent_thought_chunk"))
        assert library.sync(10)
        hit = library.search("needle").hits[0]
        events = list(cache.events(AGENT, "s1"))
        assert (hit.line, hit.turn, hit.kind) == (4, 2, "reply")
        assert events[4].update["content"]["text"] == "the needle is here"  # type: ignore[union-attr]
        assert library.search("hmm").hits[0].kind == "thought"


def test_a_replay_that_replaces_the_copy_replaces_its_text(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        turn(cache, "s1", "old words", "old reply")
        assert library.sync(10)
        cache.begin_aside(AGENT, "s1")
        cache.record_update(AGENT, "s1", chunk("new words", kind="user_message_chunk"))
        cache.record_update(AGENT, "s1", chunk("new reply"))
        cache.end_aside(AGENT, "s1", replaced=True)
        assert library.sync(10)
        assert texts(library, "old") == []
        assert texts(library, "new") == ["new reply"]
        assert library.search("words").hits[0].kind == "prompt"


def test_a_reset_or_forgotten_session_leaves_the_index(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        cache.note_session(AGENT, "s1", cwd="/p")
        cache.note_session(AGENT, "s2", cwd="/p")
        turn(cache, "s1", "reset me", "gone soon")
        turn(cache, "s2", "forget me", "gone too")
        assert library.sync(10)
        cache.reset(AGENT, "s1")
        cache.forget(AGENT, "s2")
        assert library.sync(10)
        assert texts(library, "gone") == []
        assert [row.session_id for row in library.rows().rows] == ["s1"]
        assert message_rows(tmp_path) == 0


def test_the_index_is_built_from_transcripts_recorded_without_it(tmp_path: Path) -> None:
    cache = TranscriptCache(tmp_path / "transcripts")
    for number in range(30):
        sid = f"s{number:02}"
        cache.note_session(AGENT, sid, cwd=f"/p{number % 3}", title=f"Session number {number:02}")
        turn(cache, sid, f"prompt {number}", f"answer number {number}")
    cache.close()
    statuses = []
    library = Library.under(tmp_path, on_status=statuses.append)
    library.start()
    try:
        assert library.wait_built(30)
        assert library.sync(10)
        assert library.status.state == "ready"
        assert any(status.state == "building" for status in statuses)
        assert texts(library, '"number 04"') == ["Session number 04"]
        assert len(library.rows(limit=100).rows) == 30
        page = library.rows(library_filters(cwd="/p1"), limit=4)
        assert [row.cwd for row in page.rows] == ["/p1"] * 4
        assert page.next is not None
        rest = library.rows(library_filters(cwd="/p1"), limit=100, after=page.next)
        assert len(rest.rows) == 6
        assert rest.next is None
    finally:
        library.close()


def library_filters(**kwargs: object) -> object:
    from acp_tui.store.library import Filters

    return Filters(**kwargs)  # type: ignore[arg-type]


def test_a_missing_index_is_rebuilt_and_keeps_local_titles(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        cache.note_session(AGENT, "s1", cwd="/p", title="The agent's title")
        turn(cache, "s1", "hello", "world")
        library.set_local_title(AGENT, "s1", "  My   own\ntitle ").result(10)
        assert library.row(AGENT, "s1").title == "My own title"  # type: ignore[union-attr]
    for leftover in (tmp_path / "library").glob("index-*"):
        leftover.unlink()
    with library_and_cache(tmp_path) as (library, _cache):
        assert library.wait_built(10)
        assert library.sync(10)
        row = library.row(AGENT, "s1")
        assert row is not None
        assert (row.title, row.agent_title) == ("My own title", "The agent's title")
        assert texts(library, "world") == ["world"]
        library.set_local_title(AGENT, "s1", None).result(10)
        assert library.row(AGENT, "s1").title == "The agent's title"  # type: ignore[union-attr]


def test_hostile_text_is_indexed_within_caps_and_comes_back_literally(tmp_path: Path) -> None:
    hostile = "[bold red]markup[/] \x1b]52;c;cGFzdGU=\x07 \u202eevil"
    with library_and_cache(tmp_path) as (library, cache):
        cache.note_session(AGENT, "s1", cwd="/p", title=hostile)
        cache.record_user(AGENT, "s1", prompt("show " + hostile))
        cache.record_update(AGENT, "s1", chunk("huge " + "y " * 5_000_000 + "unreached"))
        cache.record_update(AGENT, "s1", chunk(" capped: the message is full"))
        cache.record_turn_end(AGENT, "s1", "end_turn")
        turn(cache, "s1", "after the flood", "still indexed")
        assert library.sync(60)
        title = library.search("markup").hits[0].snippet.text
        assert title.startswith("[bold red]markup[/] ␛]52;c;cGFzdGU=␇ ")
        assert "\x1b" not in title
        assert "\u202e" not in title
        assert texts(library, "unreached") == texts(library, "capped") == []
        assert texts(library, "flood") == ["after the flood"]
        with sqlite3.connect(database_path(tmp_path / "library")) as conn:
            longest = conn.execute("SELECT max(length(body)) FROM bodies").fetchone()[0]
            total = conn.execute("SELECT sum(length(body)) FROM bodies").fetchone()[0]
        assert longest <= 4000
        assert total <= MESSAGE_CHARS + 500


def test_a_line_still_being_written_waits_for_its_end(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        cache.note_session(AGENT, "s1", cwd="/p")
        turn(cache, "s1", "first", "complete line")
        path = cache.transcript_path(AGENT, "s1")
        line = json.dumps({"t": "update", "update": chunk("torn words")})
        with path.open("ab") as handle:
            handle.write(line[:30].encode())
        library.touched(AGENT, "s1", soon=True)
        assert library.sync(10)
        assert texts(library, "torn") == []
        with path.open("ab") as handle:
            handle.write(line[30:].encode() + b"\n")
        library.touched(AGENT, "s1", soon=True)
        assert library.sync(10)
        assert texts(library, "torn") == ["torn words"]


def test_chunks_past_a_messages_cap_are_skipped_and_what_follows_is_indexed(
    tmp_path: Path,
) -> None:
    """Past its cap a streaming message's chunks add nothing (they are not even parsed), but a
    chunk of another message, of another kind, or that only quotes the keys, is not one."""
    from acp_tui.store.library.text import MESSAGE_CHARS

    with library_and_cache(tmp_path) as (library, cache):
        cache.record_user(AGENT, "s1", prompt("start"))
        words = "filler " * 1000
        for _ in range(MESSAGE_CHARS // len(words) + 2):
            cache.record_update(AGENT, "s1", chunk(words, "m1"))
        cache.record_update(AGENT, "s1", chunk("capped harbour", "m1"))  # adds nothing
        quoting = 'says "sessionUpdate":"agent_message_chunk","messageId":"m1" of the quay'
        cache.record_update(AGENT, "s1", chunk(quoting, "m4"))  # another message
        thought = chunk("a thought of the lighthouse", "m4", "agent_thought_chunk")
        cache.record_update(AGENT, "s1", thought)
        cache.record_update(AGENT, "s1", chunk("another reply about the keel", "m2"))
        cache.record_update(AGENT, "s1", chunk('odd \\" id with the anchor', 'm"3'))
        cache.record_turn_end(AGENT, "s1", "end_turn")
        assert library.sync(30)
        assert texts(library, "harbour") == []
        (quay,) = texts(library, "quay")
        assert quay.endswith("of the quay")  # indexed: its quoted keys fool nothing
        assert library.search("lighthouse").hits[0].kind == "thought"
        keel = library.search("keel").hits[0]
        lines = list(cache.events(AGENT, "s1"))
        assert keel.line == len(lines) - 3
        assert texts(library, "anchor") == ['odd \\" id with the anchor']


def test_the_status_says_how_far_the_library_is() -> None:
    assert LibraryStatus().describe() == "opening the history library…"
    assert LibraryStatus("building").describe() == "opening the history library…"
    building = LibraryStatus("building", 3, 8, 250, 1000)
    assert building.describe() == "indexing the local history: 3 of 8 sessions (25%)…"
    stopped = LibraryStatus("stopped", trouble="disk full")
    assert stopped.describe() == "the history library cannot be used: disk full"
    assert LibraryStatus("ready").describe() == ""
    assert LibraryStatus("closed").describe() == ""
