"""Provides local_preview: the last screen of a session, from acp-tui's local copy, at once.

Reopening a session with its history waits for the agent to replay all of it, which takes
seconds for a long one. Meanwhile the tab shows the last turns of the local copy (read from the
end of the file: as fast for ten thousand turns as for ten), and the prompt takes keys (they
are queued until the session is open). A search hit's message is brought in too when it is not
too far from the end: the preview then starts at the turn holding it, and says which entry
that is, so the view can be scrolled there before the agent's replay ends.

When the replay ends, `agrees` tells whether it ends with what the preview showed (see
`acp_tui.client.session.agreement`): the view then keeps its place; otherwise the agent's
version is shown, and the user is told (`DIFFERS_NOTICE`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp_tui.client.session.agreement import matched_end
from acp_tui.client.session.transcript import Transcript

if TYPE_CHECKING:
    from acp_tui.store.transcripts import TranscriptCache

__all__ = ["DIFFERS_NOTICE", "PREVIEW_BYTES", "PREVIEW_TURNS", "Preview", "agrees", "local_preview"]

PREVIEW_TURNS = 12
"""Turns read from the end of the local copy: more than a screen shows."""
PREVIEW_BYTES = 2_000_000
"""At most this much of the end of the local copy is read (fewer turns when they are longer),
or to reach a search hit's message: it is parsed while the tab opens."""
DIFFERS_NOTICE = (
    "{agent} replayed this session differently from acp-tui's local copy, which was shown "
    "while it replayed: the agent's version is shown (and kept as the local copy)."
)


@dataclass(frozen=True, slots=True)
class Preview:
    """The end of a session's local copy, as a transcript."""

    transcript: Transcript
    found: int | None = None
    """The entry where the line asked for (a search hit's) is, when the preview holds it."""
    complete: bool = False
    """The preview is the whole local copy."""


def local_preview(
    cache: TranscriptCache,
    agent_key: str,
    session_id: str,
    *,
    from_line: int | None = None,
    turns: int = PREVIEW_TURNS,
) -> Preview | None:
    """The last ``turns`` turns of the session's local copy (from the turn of line
    ``from_line`` on, when that is not too far from the end); None without a local copy."""
    from acp_tui.store.transcripts import feed_event

    tail = cache.tail(
        agent_key,
        session_id,
        turns=turns,
        max_bytes=PREVIEW_BYTES,
        from_line=from_line,
        numbered=False,
    )
    if tail is None or not tail.events:
        return None
    transcript = Transcript(session_id)
    found: int | None = None
    for number, event in tail.events:
        feed_event(event, transcript.apply, transcript.add_user_message, transcript.seal)
        if found is None and from_line is not None and number >= from_line and transcript.entries:
            found = len(transcript.entries) - 1
    if not transcript.entries:
        return None
    return Preview(transcript, found, tail.complete)


def agrees(preview: Transcript, replayed: Transcript) -> bool:
    """Whether the replayed transcript ends with the conversation the preview showed."""
    return matched_end(preview.entries, replayed.entries) is not None
