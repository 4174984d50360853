"""SessionLister: paging, client-side filters, dedupe, stale pages, errors, search, titles."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.history.session_list import SessionLister
from acp_tui.client.history.session_text import (
    display_title,
    distinct_prefix,
    parse_roots,
    relative_time,
)
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.methods import ListSessionsResponse, SessionInfo

A = Path("/work/a")
B = Path("/work/b")


def info(
    sid: str, cwd: Path = A, dirs: Sequence[str] | None = None, title: str | None = None
) -> SessionInfo:
    return SessionInfo(
        session_id=sid,
        cwd=str(cwd),
        additional_directories=None if dirs is None else list(dirs),
        title=title if title is not None else f"title {sid}",
    )


class FakeClient:
    """Serves pages by cursor; records every call."""

    def __init__(
        self,
        pages: dict[str | None, tuple[list[SessionInfo], str | None]],
        *,
        fail: dict[str | None, Exception] | None = None,
        null: bool = False,
    ) -> None:
        self.pages = pages
        self.fail = fail or {}
        self.null = null
        self.calls: list[dict[str, Any]] = []
        self.before_answer: Callable[[], None] | None = None

    async def list_sessions(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> Any:
        self.calls.append({"cwd": cwd, "cursor": cursor, "dirs": additional_directories})
        await anyio.lowlevel.checkpoint()
        if self.before_answer is not None:
            self.before_answer()
        if cursor in self.fail:
            raise self.fail[cursor]
        if self.null:
            return None
        sessions, following = self.pages[cursor]
        return ListSessionsResponse(sessions=sessions, next_cursor=following)


def ids(lister: SessionLister) -> list[str]:
    return [i.session_id for i in lister.visible()]


async def test_pages_follow_the_cursor_until_the_last_page() -> None:
    client = FakeClient(
        {None: ([info("s1"), info("s2")], "c1"), "c1": ([info("s3")], "c2"), "c2": ([], None)}
    )
    lister = SessionLister(cwd=A)
    assert await lister.load_more(client) == 2
    assert lister.next_cursor == "c1"
    assert not lister.exhausted
    assert await lister.load_more(client) == 1
    assert await lister.load_more(client) == 0
    assert lister.exhausted
    assert await lister.load_more(client) == 0  # nothing more is asked once exhausted
    assert [c["cursor"] for c in client.calls] == [None, "c1", "c2"]
    assert all(c["cwd"] == A for c in client.calls)
    assert ids(lister) == ["s1", "s2", "s3"]


async def test_everything_in_one_page_without_a_cursor() -> None:
    client = FakeClient({None: ([info(f"s{i}") for i in range(50)], None)})
    lister = SessionLister(cwd=A)
    assert await lister.load_more(client) == 50
    assert lister.exhausted
    assert not lister.can_load_more
    assert len(client.calls) == 1


async def test_duplicate_ids_across_pages_are_kept_once() -> None:
    client = FakeClient(
        {None: ([info("s1"), info("s2")], "c1"), "c1": ([info("s2"), info("s3")], None)}
    )
    lister = SessionLister(cwd=A)
    await lister.load_more(client)
    assert await lister.load_more(client) == 1
    assert ids(lister) == ["s1", "s2", "s3"]


async def test_a_repeated_cursor_does_not_loop_forever() -> None:
    client = FakeClient({None: ([info("s1")], "c1"), "c1": ([info("s2")], "c1")})
    lister = SessionLister(cwd=A)
    for _ in range(10):
        await lister.load_more(client)
    assert lister.exhausted
    assert len(client.calls) == 2

    # A cycle through an older cursor ends the paging as well.
    cycle = FakeClient({None: ([info("s1")], "c1"), "c1": ([info("s2")], "c2"), "c2": ([], "c1")})
    lister = SessionLister(cwd=A)
    for _ in range(10):
        await lister.load_more(cycle)
    assert lister.exhausted
    assert len(cycle.calls) == 3


async def test_filters_the_agent_ignores_are_applied_client_side() -> None:
    everything = [
        info("here", A, []),
        info("elsewhere", B, []),
        info("roots", A, ["/x", "/y"]),
        info("reversed", A, ["/y", "/x"]),
        info("no-field", A, None),
    ]
    client = FakeClient({None: (everything, None)})
    lister = SessionLister(cwd=A)
    await lister.load_more(client)
    assert ids(lister) == ["here", "roots", "reversed", "no-field"]

    lister.set_filters(additional_directories=[Path("/x"), Path("/y")])
    await lister.load_more(client)
    assert ids(lister) == ["roots"]
    assert client.calls[-1]["dirs"] == (Path("/x"), Path("/y"))

    lister.set_filters(additional_directories=())
    await lister.load_more(client)
    assert ids(lister) == ["here", "no-field"]  # an absent field is no extra roots

    lister.set_filters(cwd=None, additional_directories=None)
    await lister.load_more(client)
    assert len(ids(lister)) == 5
    assert client.calls[-1]["cwd"] is None


async def test_a_page_for_an_older_filter_is_dropped() -> None:
    client = FakeClient({None: ([info("old-a", A), info("b1", B)], "c1"), "c1": ([], None)})
    lister = SessionLister(cwd=A)
    # The filter changes while the first page is in flight.
    client.before_answer = lambda: lister.set_filters(cwd=B)
    generation = lister.generation
    assert await lister.load_more(client) == 0
    assert lister.generation == generation + 1
    assert lister.rows == {}
    assert lister.next_cursor is None
    assert not lister.loading
    client.before_answer = None
    assert await lister.load_more(client) == 1
    assert ids(lister) == ["b1"]
    assert client.calls[-1]["cwd"] == B


async def test_a_stale_error_is_dropped_too() -> None:
    client = FakeClient({None: ([info("s1")], None)}, fail={None: AgentError("boom")})
    lister = SessionLister(cwd=A)
    client.before_answer = lambda: lister.set_filters(cwd=B)
    await lister.load_more(client)
    assert lister.error is None


async def test_an_error_page_keeps_the_rows_and_exposes_the_error() -> None:
    client = FakeClient(
        {None: ([info("s1"), info("s2")], "c1"), "c1": ([info("s3")], None)},
        fail={"c1": AgentError("the agent fell over")},
    )
    lister = SessionLister(cwd=A)
    await lister.load_more(client)
    assert await lister.load_more(client) == 0
    assert lister.error == "the agent fell over"
    assert not lister.cursor_expired
    assert ids(lister) == ["s1", "s2"]
    assert not lister.can_load_more  # no retry loop until the user asks
    lister.retry()
    del client.fail["c1"]
    assert await lister.load_more(client) == 1
    assert ids(lister) == ["s1", "s2", "s3"]


async def test_an_invalid_cursor_offers_a_reload_from_the_first_page() -> None:
    client = FakeClient(
        {None: ([info("s1")], "c1")}, fail={"c1": RpcError.invalid_params("invalid cursor")}
    )
    lister = SessionLister(cwd=A)
    await lister.load_more(client)
    await lister.load_more(client)
    assert lister.error is not None
    assert "invalid cursor" in lister.error
    assert lister.cursor_expired
    lister.retry()
    assert lister.rows == {}
    assert lister.error is None
    assert lister.next_cursor is None
    await lister.load_more(client)
    assert client.calls[-1]["cursor"] is None


def exited(*, deliberate: bool) -> AgentExited:
    error = AgentExited(0, context="during session/list")
    error.deliberate = deliberate
    return error


async def test_an_exit_acp_tui_caused_is_no_error_and_the_rows_wait_for_the_agent() -> None:
    client = FakeClient({None: ([info("s1")], "c1")}, fail={"c1": exited(deliberate=True)})
    lister = SessionLister(cwd=A)
    await lister.load_more(client)
    assert await lister.load_more(client) == 0
    assert lister.error is None
    assert lister.waiting
    assert not lister.loading
    assert not lister.can_load_more  # not from a client that is gone
    lister.restart()  # the agent is back: listed afresh
    assert not lister.waiting
    assert lister.can_load_more


async def test_an_agent_that_exits_by_itself_is_an_error() -> None:
    client = FakeClient({}, fail={None: exited(deliberate=False)})
    lister = SessionLister(cwd=A)
    await lister.load_more(client)
    assert lister.error == "agent exited with code 0 during session/list"
    assert not lister.waiting


async def test_a_null_result_is_an_error_not_a_crash() -> None:
    lister = SessionLister(cwd=A)
    await lister.load_more(FakeClient({}, null=True))
    assert lister.error is not None
    assert "null" in lister.error


async def test_text_search_is_local() -> None:
    client = FakeClient(
        {
            None: (
                [info("s1", title="Fix the parser"), info("s2", title="Write docs"), info("abc")],
                None,
            )
        }
    )
    lister = SessionLister(cwd=A)
    await lister.load_more(client)
    lister.text = "PARSER"
    assert ids(lister) == ["s1"]
    lister.text = "abc"  # the id matches too
    assert ids(lister) == ["abc"]
    lister.text = ""
    assert len(ids(lister)) == 3
    assert len(client.calls) == 1


async def test_remove_add_first_and_title_updates() -> None:
    client = FakeClient({None: ([info("s1"), info("s2"), info("s3")], None)})
    lister = SessionLister(cwd=A)
    await lister.load_more(client)
    assert lister.remove(["s2", "nope"]) == 1
    assert ids(lister) == ["s1", "s3"]
    assert lister.update_title("s3", "Renamed", "2026-01-01T00:00:00Z")
    assert lister.rows["s3"].title == "Renamed"
    assert lister.rows["s3"].updated_at == "2026-01-01T00:00:00Z"
    assert lister.update_title("s3", updated_at="2026-02-01T00:00:00Z")
    assert lister.rows["s3"].title == "Renamed"
    assert lister.update_title("s3", None)
    assert display_title(lister.rows["s3"]) == "s3 (untitled)"
    assert not lister.update_title("unknown", "x")
    assert lister.add_first(info("fork"))
    assert not lister.add_first(info("other-dir", B))
    assert ids(lister) == ["fork", "s1", "s3"]


def test_show_local_filters_and_never_pages() -> None:
    lister = SessionLister(cwd=A)
    lister.show_local([info("mine"), info("other", B)])
    assert lister.local
    assert not lister.can_load_more
    assert ids(lister) == ["mine"]


def test_display_title_fallback() -> None:
    assert display_title(info("0123456789abcdef", title="  ")) == "01234567 (untitled)"
    assert display_title(info("x", title="Hello")) == "Hello"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "—"),
        ("", "—"),
        ("2026-03-01T12:00:00Z", "just now"),
        ("2026-03-01T11:55:00Z", "5 min ago"),
        ("2026-03-01T11:55:00", "5 min ago"),  # no timezone: local time (UTC here)
        ("2026-03-01T13:55:00+02:00", "5 min ago"),
        ("2026-03-01T09:00:00.123Z", "3 h ago"),
        ("2026-02-28T12:00:00Z", "yesterday"),
        ("2026-02-20T12:00:00Z", "9 days ago"),
        ("2025-01-02T00:00:00Z", "2025-01-02"),
        ("2026-03-01T12:10:00Z", "just now"),  # a clock ahead of ours
        ("last tuesday", "last tuesday"),
    ],
)
@pytest.mark.usefixtures("local_zone")  # UTC: a time without a zone is local time
def test_relative_time(value: str | None, expected: str) -> None:
    now = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
    assert relative_time(value, now) == expected


def test_parse_roots() -> None:
    assert parse_roots("") is None
    assert parse_roots("  none ") == ()
    assert parse_roots("/a, /b\n/a\n") == (Path("/a"), Path("/b"))
    with pytest.raises(ValueError, match="absolute"):
        parse_roots("/a, relative/b")


def test_id_prefixes_are_as_long_as_it_takes_to_tell_them_apart() -> None:
    assert distinct_prefix([]) == 8
    assert distinct_prefix(["3f2a9c1b-aaaa", "77aa0b12-bbbb"]) == 8
    dated = ["2026-11-23-1304-demo-a1", "2026-11-23-1304-demo-b2", "2026-11-22-0900-x"]
    assert distinct_prefix(dated) == len("2026-11-23-1304-demo-a")
    assert distinct_prefix(["same", "same"]) == 8  # one session listed twice
    assert distinct_prefix(["ab", "abc"]) == 8


class RawClient(FakeClient):
    """Also serves the page as raw JSON, as AgentClient does for the session browser."""

    def __init__(self, raw: Any) -> None:
        super().__init__({})
        self.raw = raw

    async def list_sessions_raw(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> Any:
        self.calls.append({"cwd": cwd, "cursor": cursor, "dirs": additional_directories})
        await anyio.lowlevel.checkpoint()
        if self.before_answer is not None:
            self.before_answer()
        return self.raw


def raw_row(n: int, cwd: Path = A) -> dict[str, Any]:
    return {"sessionId": f"s{n}", "cwd": str(cwd), "title": f"title {n}"}


async def test_a_huge_page_shows_its_first_piece_then_merges_the_rest() -> None:
    from acp_tui.client.history.session_list import FIRST_PIECE

    count = FIRST_PIECE + 5000
    rows: list[Any] = [raw_row(n) for n in range(count)]
    rows[FIRST_PIECE + 10] = raw_row(FIRST_PIECE + 10, B)  # another directory: filtered out
    rows[FIRST_PIECE + 20] = {"sessionId": 7}  # invalid: skipped, not the whole page
    rows.append(raw_row(3))  # listed twice: kept once
    lister = SessionLister(cwd=A)
    seen: list[tuple[int, bool]] = []
    added = await lister.load_more(
        RawClient({"sessions": rows, "nextCursor": "c1"}),
        on_rows=lambda: seen.append((len(lister.rows), lister.loading)),
    )
    assert seen == [(FIRST_PIECE, True)]  # shown while the rest was still being converted
    assert added == count - 2
    assert ids(lister)[:3] == ["s0", "s1", "s2"]
    assert len(lister.rows) == count - 2
    assert not lister.loading
    assert lister.next_cursor == "c1"


async def test_a_huge_page_is_dropped_when_the_filters_change_while_it_is_merged() -> None:
    from acp_tui.client.history.session_list import FIRST_PIECE

    lister = SessionLister(cwd=A)
    rows = [raw_row(n) for n in range(FIRST_PIECE * 10)]
    added = await lister.load_more(
        RawClient({"sessions": rows}), on_rows=lambda: lister.set_filters(cwd=B)
    )
    assert added == 0
    assert lister.rows == {}


@pytest.mark.parametrize("raw", ["not a page", [1, 2]])
async def test_a_raw_page_that_does_not_fit_the_protocol_is_an_error(raw: Any) -> None:
    lister = SessionLister(cwd=A)
    assert await lister.load_more(RawClient(raw)) == 0
    assert lister.error is not None
    assert "does not fit the protocol" in lister.error
    assert not lister.loading
