"""read_tail: the last turns of a recorded transcript, read from its end, with their line
numbers; or, for a search hit's line, from the turn that holds it."""

from __future__ import annotations

import json
from pathlib import Path

from acp_tui.store.recorded import RecordedUpdate, RecordedUser, parse_line
from acp_tui.store.tail import read_tail


def write_turns(path: Path, turns: int, *, echo: bool = False, filler: int = 0) -> list[bytes]:
    """A transcript of ``turns`` turns: a prompt (or the agent's echo of it), a reply in two
    chunks (``filler`` more characters each) and the end of the turn; its lines."""
    lines: list[bytes] = []
    for n in range(turns):
        if echo:
            update = {"sessionUpdate": "user_message_chunk", "messageId": f"u{n}"}
            update["content"] = {"type": "text", "text": f"prompt {n}"}
            lines.append(json.dumps({"t": "update", "update": update}).encode())
        else:
            lines.append(
                json.dumps(
                    {"t": "user", "blocks": [{"type": "text", "text": f"prompt {n}"}]}
                ).encode()
            )
        for part in range(2):
            text = f"reply {n}.{part} " + "x" * filler
            update = {"sessionUpdate": "agent_message_chunk", "messageId": f"m{n}"}
            update["content"] = {"type": "text", "text": text}
            lines.append(json.dumps({"t": "update", "update": update}).encode())
        lines.append(b'{"t":"end","stopReason":"end_turn"}')
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return lines


def prompts(events: list[object]) -> list[str]:
    found = []
    for event in events:
        if isinstance(event, RecordedUser):
            found.append(event.blocks[0]["text"])
        elif isinstance(event, RecordedUpdate) and event.update["sessionUpdate"].startswith("user"):
            found.append(event.update["content"]["text"])
    return found


def test_the_tail_is_the_last_turns_with_their_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = write_turns(path, 5000)
    tail = read_tail(path, turns=3)
    assert prompts([event for _, event in tail.events]) == [
        "prompt 4997",
        "prompt 4998",
        "prompt 4999",
    ]
    assert not tail.complete
    for number, event in tail.events:
        assert parse_line(lines[number]) == event


def test_a_short_transcript_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_turns(path, 2, echo=True)
    tail = read_tail(path, turns=3)
    assert tail.complete
    assert prompts([event for _, event in tail.events]) == ["prompt 0", "prompt 1"]
    assert tail.events[0][0] == 0


def test_a_line_asked_for_brings_its_whole_turn_and_all_after_it(tmp_path: Path) -> None:
    for echo in (False, True):
        path = tmp_path / f"s{echo}.jsonl"
        lines = write_turns(path, 3000, echo=echo)
        reply = 4 * 2000 + 2  # the second chunk of turn 2000's reply
        tail = read_tail(path, turns=3, from_line=reply)
        events = [event for _, event in tail.events]
        assert prompts(events) == [f"prompt {n}" for n in range(2000, 3000)]
        assert tail.events[0][0] == 4 * 2000
        for number, event in tail.events:
            assert parse_line(lines[number]) == event


def test_a_line_in_the_tail_or_too_far_from_the_end_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_turns(path, 1000, filler=2000)
    plain = read_tail(path, turns=3)
    assert read_tail(path, turns=3, from_line=4 * 999 + 1) == plain
    far = read_tail(path, turns=3, max_bytes=100_000, from_line=5)
    assert prompts([event for _, event in far.events]) == prompts([e for _, e in plain.events])
    assert read_tail(path, turns=3, from_line=10**9) == plain  # no such line
