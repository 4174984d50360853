"""matched_end: whether a replayed transcript ends with what the local copy's preview showed."""

from __future__ import annotations

from acp_tui.client.session.agreement import matched_end
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.updates import AgentMessageChunk, ToolCallStart


def conversation(turns: range, *, notice: bool = False, last: str = "done") -> Transcript:
    transcript = Transcript("s")
    if notice:
        transcript.add_notice("shown from the local copy")
    for n in turns:
        transcript.add_user_message([TextContent(text=f"prompt {n}")])
        text = last if n == turns[-1] else f"reply {n}"
        chunk = AgentMessageChunk(content=TextContent(text=text), message_id=f"m{n}")
        transcript.apply(chunk)
        transcript.apply(ToolCallStart(tool_call_id=f"t{n}", title=f"Edit {n}", status="completed"))
        transcript.seal()
    return transcript


def test_a_replay_ending_with_the_preview_maps_each_entry_to_its_place() -> None:
    preview = conversation(range(7, 10), notice=True)
    replayed = conversation(range(10))
    replayed.add_notice("a notice of the client's own at the end")
    places = matched_end(preview.entries, replayed.entries)
    assert places is not None
    offset = 7 * 3 - 1  # the preview's notice is not in the replay
    assert all(places[i] == i + offset for i in range(1, len(preview.entries)))
    assert places[0] == places[1]  # the notice: the place of the next entry


def test_a_different_entry_anywhere_in_the_preview_is_a_difference() -> None:
    replayed = conversation(range(10))
    assert matched_end(conversation(range(7, 10), last="other").entries, replayed.entries) is None
    assert matched_end(conversation(range(9, 11)).entries, replayed.entries) is None
    assert matched_end(conversation(range(10)).entries, conversation(range(3, 10)).entries) is None


def test_only_the_entries_from_since_on_are_compared() -> None:
    replayed = conversation(range(10))
    preview = conversation(range(0, 10))
    preview.entries[0] = conversation(range(1), last="changed").entries[1]
    assert matched_end(preview.entries, replayed.entries) is None
    places = matched_end(preview.entries, replayed.entries, since=3)
    assert places is not None
    assert set(places) == set(range(3, len(preview.entries)))
