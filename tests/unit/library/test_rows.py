"""The merged rows: every agent's listed and recorded sessions, newest first, filtered exactly."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from acp_tui.store.library import Filters, agent_label
from acp_tui.store.library.sources import LIBRARY_FILE
from acp_tui.store.names import agent_dir_name
from tests.unit.library.helpers import AGENT, OTHER, library_and_cache, turn


@dataclass(frozen=True)
class Info:
    """What a page of ``session/list`` gives (the fields of ``SessionInfo`` the library reads)."""

    session_id: str
    cwd: str = "/p"
    additional_directories: list[str] | None = None
    title: str | None = None
    updated_at: str | None = None


def at(day: int) -> str:
    return f"2026-01-{day:02}T10:00:00Z"


def test_pages_from_every_agent_merge_newest_first_with_their_agent(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, _cache):
        first = [Info("a1", updated_at=at(3)), Info("a2", updated_at=at(1))]
        assert library.record_page(AGENT, first, agent_name="mine").result(10) == 2
        assert library.record_page(OTHER, [Info("b1", updated_at=at(2))]).result(10) == 1
        again = [Info("a1", updated_at=at(4), title="Renamed"), Info("a3")]
        assert library.record_page(AGENT, again).result(10) == 1  # only a3 is new
        rows = library.rows().rows
        assert [(r.session_id, r.agent_name) for r in rows] == [
            ("a1", "mine"),
            ("b1", None),
            ("a2", "mine"),
            ("a3", "mine"),  # no updatedAt: last
        ]
        assert rows[0].title == "Renamed"
        assert rows[0].listed_at is not None
        assert rows[0].agent_listed_at is not None
        assert not rows[0].has_local_copy
        assert agent_label(rows[1].agent_key) == "other-agent"


def test_filters_are_exact_and_extra_roots_are_ordered(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, _cache):
        page = [
            Info("plain", cwd="/p"),
            Info("ab", cwd="/p", additional_directories=["/a", "/b"]),
            Info("ba", cwd="/p", additional_directories=["/b", "/a"]),
            Info("deeper", cwd="/p/sub"),
        ]
        library.record_page(AGENT, page).result(10)
        library.record_page(OTHER, [Info("theirs", cwd="/p")]).result(10)

        def ids(**kwargs: object) -> set[str]:
            return {row.session_id for row in library.rows(Filters(**kwargs)).rows}  # type: ignore[arg-type]

        assert ids(cwd="/p") == {"plain", "ab", "ba", "theirs"}
        assert ids(cwd="/p", additional_directories=("/a", "/b")) == {"ab"}
        assert ids(additional_directories=()) == {"plain", "deeper", "theirs"}
        assert ids(agents=(OTHER,)) == {"theirs"}
        assert ids(agents=()) == set()


def test_a_complete_listing_drops_what_the_agent_no_longer_has(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        cache.note_session(AGENT, "recorded", cwd="/p")
        turn(cache, "recorded", "hello", "there")
        old = time.time() - 100
        page = [Info("kept"), Info("deleted"), Info("recorded"), Info("elsewhere", cwd="/q")]
        library.record_page(AGENT, page, listed_at=old).result(10)
        started = time.time()
        library.record_page(AGENT, [Info("kept")], listed_at=started).result(10)
        assert library.finish_listing(AGENT, started, cwd="/p").result(10) == 2
        rows = {row.session_id: row for row in library.rows().rows}
        assert set(rows) == {"kept", "recorded", "elsewhere"}  # /q was not listed this time
        assert rows["recorded"].listed_at is None
        assert rows["recorded"].in_local_index


def test_a_listed_session_with_a_local_copy_gets_its_text_indexed(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        turn(cache, "s1", "recorded before", "anyone listed it")
        library.forget(AGENT, "s1").result(10)  # as if the index never knew it
        assert library.search("anyone").hits == []
        library.record_page(AGENT, [Info("s1", title="Listed")]).result(10)
        assert library.sync(10)
        assert [hit.row.title for hit in library.search("anyone").hits] == ["Listed"]


def test_local_titles_win_and_are_kept_beside_the_transcripts(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, _cache):
        library.record_page(AGENT, [Info("s1", title="Agent title")], agent_name="mine")
        library.set_local_title(AGENT, "s1", "Mine").result(10)
        library.name_agents({AGENT: "claude"}).result(10)
        row = library.row(AGENT, "s1")
        assert row is not None
        assert (row.title, row.agent_title, row.agent_name) == ("Mine", "Agent title", "claude")
        record = json.loads(
            (tmp_path / "transcripts" / agent_dir_name(AGENT) / LIBRARY_FILE).read_text()
        )
        assert record["titles"] == {"s1": "Mine"}
        assert record["name"] == "claude"
        assert record["agent"] == AGENT
        library.forget(AGENT, "s1").result(10)
        assert library.row(AGENT, "s1") is None
        record = json.loads(
            (tmp_path / "transcripts" / agent_dir_name(AGENT) / LIBRARY_FILE).read_text()
        )
        assert record["titles"] == {}


@pytest.mark.parametrize(
    ("key", "label"),
    [
        ('["npx", "-y", "@agentclientprotocol/claude-agent-acp"]', "claude-agent-acp"),
        ('["python", "-m", "acp_tui.demo_agent", "--data-dir", "/x"]', "demo"),
        ('["/usr/local/bin/opencode", "acp"]', "opencode"),
        ('["uvx", "fast-agent-acp@1.2"]', "fast-agent-acp"),
        ("not json", "not json"),
    ],
)
def test_an_agent_known_only_by_its_key_gets_a_readable_label(key: str, label: str) -> None:
    assert agent_label(key) == label
