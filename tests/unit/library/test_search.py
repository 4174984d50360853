"""Search finds sessions by id, title, what was said and directory, one hit per session."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from acp_tui.store.library import Filters, SearchCancelled
from tests.unit.library.helpers import AGENT, OTHER, library_and_cache, turn


def test_hits_come_by_tier_one_per_session(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        cache.note_session(AGENT, "said-twice", cwd="/home/me/work", title="Boats")
        turn(cache, "said-twice", "the harbour", "the harbour again")
        cache.note_session(AGENT, "titled", cwd="/home/me/work", title="Harbour plans")
        cache.note_session(AGENT, "in-cwd", cwd="/home/me/harbour")
        assert library.sync(10)
        hits = library.search("harbour").hits
        assert [(hit.field, hit.row.session_id) for hit in hits] == [
            ("title", "titled"),
            ("text", "said-twice"),
            ("cwd", "in-cwd"),
        ]
        text = hits[1].snippet
        assert text.text == "the harbour again"  # the newest matching message
        assert [text.text[a:b] for a, b in text.spans] == ["harbour"]
        where = hits[2].snippet
        assert [where.text[a:b] for a, b in where.spans] == ["harbour"]


def test_ids_match_only_a_query_that_looks_like_an_id_prefix(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        cache.note_session(AGENT, "3f2a9c01-aaaa", cwd="/p", title="number 04")
        cache.note_session(AGENT, "number-04", cwd="/p", title="unrelated")
        assert library.sync(10)
        hits = library.search("3f2a9").hits
        assert [(hit.field, hit.snippet.text, hit.snippet.spans) for hit in hits] == [
            ("id", "3f2a9c01-aaaa", ((0, 5),))
        ]
        assert [hit.row.session_id for hit in library.search("number 04").hits] == ["3f2a9c01-aaaa"]


def test_search_honours_the_filters(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        for agent, sid, cwd in [(AGENT, "a", "/p"), (AGENT, "b", "/q"), (OTHER, "c", "/p")]:
            cache.note_session(agent, sid, cwd=cwd)
            turn(cache, sid, "common word", "reply", agent=agent)
        assert library.sync(10)

        def found(filters: Filters) -> set[str]:
            return {hit.row.session_id for hit in library.search("common", filters).hits}

        assert found(Filters()) == {"a", "b", "c"}
        assert found(Filters(cwd="/p")) == {"a", "c"}
        assert found(Filters(agents=(OTHER,))) == {"c"}
        assert found(Filters(agents=(AGENT,), cwd="/q")) == {"b"}


def test_more_hits_than_the_limit_say_so(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        for number in range(12):
            turn(cache, f"s{number}", "needle", f"reply {number}")
        assert library.sync(10)
        first = library.search("needle", limit=5)
        assert len(first.hits) == 5
        assert first.more
        everything = library.search("needle", limit=50)
        assert len(everything.hits) == 12
        assert not everything.more
        assert [hit.row.session_id for hit in everything.hits[:3]] == ["s11", "s10", "s9"]


def test_a_cancelled_search_stops(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        turn(cache, "s1", "needle", "reply")
        assert library.sync(10)
        cancel = threading.Event()
        cancel.set()
        with pytest.raises(SearchCancelled):
            library.search("needle", cancel=cancel)
        assert library.search("needle", cancel=threading.Event()).hits  # the reader is fine


def test_nothing_to_search_gives_nothing(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        turn(cache, "s1", "needle", "reply")
        assert library.sync(10)
        assert library.search("   ").hits == []
        assert library.search("***").hits == []
