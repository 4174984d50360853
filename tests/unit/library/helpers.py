"""Shared pieces of the history library's tests: a library beside a transcript cache, and the
recorded events they index."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from acp_tui.store.library import Library
from acp_tui.store.transcripts import TranscriptCache

AGENT = '["my-agent", "--acp"]'
OTHER = '["other-agent"]'


def chunk(text: str, message_id: str | None = None, kind: str = "agent_message_chunk") -> Any:
    update: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if message_id is not None:
        update["messageId"] = message_id
    return update


def prompt(text: str) -> list[Any]:
    return [{"type": "text", "text": text}]


def turn(cache: TranscriptCache, sid: str, asked: str, *replies: str, agent: str = AGENT) -> None:
    """Record one whole turn: the prompt, the reply's chunks, the end."""
    cache.record_user(agent, sid, prompt(asked))
    for reply in replies:
        cache.record_update(agent, sid, chunk(reply))
    cache.record_turn_end(agent, sid, "end_turn")


@contextmanager
def library_and_cache(
    data: Path, notices: list[str] | None = None
) -> Iterator[tuple[Library, TranscriptCache]]:
    """A started library over ``data`` and a cache feeding it; both closed afterwards."""
    library = Library.under(data, on_notice=notices.append if notices is not None else None)
    library.start()
    cache = TranscriptCache(data / "transcripts", library=library)
    try:
        yield library, cache
    finally:
        cache.close()
        library.close()


def texts(library: Library, query: str, **kwargs: Any) -> list[str]:
    return [hit.snippet.text for hit in library.search(query, **kwargs).hits]
