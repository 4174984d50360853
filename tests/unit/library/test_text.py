"""What the library takes from each recorded event: kinds, messages, plain bounded text."""

from __future__ import annotations

import json

import pytest

from acp_tui.store.library.segments import SEGMENT_CHARS, OpenMessage, Segmenter
from acp_tui.store.library.text import (
    APPEND,
    MESSAGE_CHARS,
    PROMPT,
    REPLY,
    SEAL,
    SKIP,
    THOUGHT,
    TOOL,
    WHOLE,
    partial_event,
    piece_of,
    plain,
)
from tests.unit.library.helpers import chunk, prompt


def test_each_event_kind_gives_its_piece() -> None:
    assert piece_of({"t": "user", "blocks": prompt("hi")}) == (WHOLE, PROMPT, None, "hi")
    assert piece_of({"t": "update", "update": chunk("a", "m1")}) == (APPEND, REPLY, "m1", "a")
    thought = chunk("hmm", kind="agent_thought_chunk")
    assert piece_of({"t": "update", "update": thought}) == (APPEND, THOUGHT, None, "hmm")
    assert piece_of({"t": "end", "stopReason": "end_turn"})[0] == SEAL
    idle = {"sessionUpdate": "state_update", "state": "idle"}
    assert piece_of({"t": "update", "update": idle})[0] == SEAL
    plan = {"sessionUpdate": "plan", "entries": [{"content": "secret plan"}]}
    assert piece_of({"t": "update", "update": plan})[0] == SKIP
    assert piece_of(["not", "an", "event"])[0] == SKIP


def test_tool_calls_give_their_title_and_text_output_but_no_images() -> None:
    call = {
        "sessionUpdate": "tool_call",
        "toolCallId": "t1",
        "title": "Run the tests",
        "content": [
            {"type": "content", "content": {"type": "text", "text": "3 passed"}},
            {"type": "diff", "path": "src/app.py", "newText": "print()"},
            {"type": "content", "content": {"type": "image", "data": "AAAA", "mimeType": "x"}},
            {"type": "terminal", "terminalId": "term-1"},
        ],
    }
    action, kind, key, text = piece_of({"t": "update", "update": call})
    assert (action, kind, key) == (WHOLE, TOOL, "t1")
    assert text.split("\n") == ["Run the tests", "3 passed", "src/app.py"]


def test_prompts_keep_the_names_of_attached_files_not_their_bytes() -> None:
    blocks = [
        {"type": "text", "text": "look at"},
        {"type": "resource_link", "name": "main.py", "uri": "file:///p/main.py"},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
    ]
    assert piece_of({"t": "user", "blocks": blocks})[3] == "look at\nmain.py"


def test_plain_text_shows_escapes_and_controls_one_character_each() -> None:
    hostile = "a\x1b[31mred\x07\x9b\u202eevil\ud800\ue000b\r\n\tok"
    cleaned = plain(hostile)
    assert len(cleaned) == len(hostile)
    assert "\x1b" not in cleaned
    assert "\u202e" not in cleaned
    assert "\ue000" not in cleaned
    assert cleaned.startswith("a␛[31mred␇")
    assert cleaned.endswith("\n\tok")
    cleaned.encode("utf-8")  # no lone surrogate left


def test_a_line_too_long_to_parse_gives_the_start_of_its_text() -> None:
    text = 'he said "hi" \\ ' + "é" * 2_000_000
    line = json.dumps({"t": "update", "update": chunk(text, "m9")}).encode()
    action, kind, key, found = partial_event(line[:1_000_000], line[-1000:])
    assert (action, kind, key) == (APPEND, REPLY, "m9")
    assert found.startswith('he said "hi" \\ éé')
    assert 0 < len(found) <= MESSAGE_CHARS


@pytest.mark.parametrize("cut", [b"\\", b"\\u00", b"\\\\", b"\\ud83d"])
def test_a_long_line_cut_inside_an_escape_still_decodes(cut: bytes) -> None:
    line = b'{"t":"user","blocks":[{"type":"text","text":"abc' + cut
    action, kind, _, text = partial_event(line)
    assert (action, kind) == (WHOLE, PROMPT)
    assert text.startswith("abc")


def test_unknown_long_lines_add_nothing() -> None:
    assert partial_event(b'{"t":"whatever","x":"' + b"y" * 100)[0] == SKIP


def rows_of(pieces: list[tuple[int, int, str | None, str]]) -> list[tuple[int, int, int, str]]:
    segmenter = Segmenter()
    for line, piece in enumerate(pieces):
        segmenter.feed(line, piece)
    opened = segmenter.finish()
    assert opened is None or not opened.parts
    return segmenter.rows


def test_chunks_join_their_message_as_the_live_transcript_joins_them() -> None:
    rows = rows_of(
        [
            (WHOLE, PROMPT, None, "question"),
            (APPEND, REPLY, None, "one "),
            (APPEND, REPLY, None, "two"),
            (APPEND, THOUGHT, None, "thinking"),
            (APPEND, REPLY, "m2", "three"),
            (APPEND, REPLY, "m2", " four"),
            (SEAL, 0, None, ""),
            (APPEND, REPLY, "m2", "late"),  # after the end of the turn: a message of its own
            (SEAL, 0, None, ""),
        ]
    )
    assert rows == [
        (0, 1, PROMPT, "question"),
        (1, 1, REPLY, "one two"),
        (3, 1, THOUGHT, "thinking"),
        (4, 1, REPLY, "three four"),
        (7, 1, REPLY, "late"),
    ]


def test_replayed_prompts_count_turns_like_typed_ones() -> None:
    rows = rows_of(
        [
            (APPEND, PROMPT, None, "first"),
            (APPEND, REPLY, None, "answer"),
            (APPEND, PROMPT, None, "second"),
            (SEAL, 0, None, ""),
        ]
    )
    assert [(turn, text) for _, turn, _, text in rows] == [
        (1, "first"),
        (1, "answer"),
        (2, "second"),
    ]


def test_a_long_message_is_stored_in_bounded_segments_cut_at_spaces() -> None:
    words = [f"word{n}" for n in range(SEGMENT_CHARS)]
    segmenter = Segmenter()
    for number, word in enumerate(words):
        segmenter.feed(number, (APPEND, REPLY, None, word + " "))
    segmenter.feed(len(words), (SEAL, 0, None, ""))
    rows = segmenter.rows
    assert len(rows) > 2
    assert all(len(text) <= SEGMENT_CHARS for *_, text in rows)
    assert all(line == 0 for line, *_ in rows)
    assert " ".join("".join(text for *_, text in rows).split()) == " ".join(words)


def test_a_message_is_indexed_up_to_its_cap() -> None:
    segmenter = Segmenter()
    for number in range(40):
        segmenter.feed(number, (APPEND, REPLY, None, "x " * 10_000))
    segmenter.feed(40, (SEAL, 0, None, ""))
    assert sum(len(text) for *_, text in segmenter.rows) == MESSAGE_CHARS


def test_the_open_message_survives_a_round_trip_and_its_stored_row_is_replaced() -> None:
    first = Segmenter()
    first.feed(0, (APPEND, REPLY, "m", "streaming "))
    opened = first.finish()
    assert opened is not None
    assert first.rows == []
    opened.row = 41  # what the caller stored it as
    restored = OpenMessage.from_json(opened.to_json())
    second = Segmenter(first.turn, restored)
    second.feed(1, (APPEND, REPLY, "m", "on"))
    second.feed(2, (SEAL, 0, None, ""))
    assert second.stale == [41]
    assert second.rows == [(0, 0, REPLY, "streaming on")]


def test_an_open_message_closed_without_more_text_keeps_its_stored_row() -> None:
    kept = OpenMessage(REPLY, None, 3, 1, ["done"], 4, 4, row=7)
    segmenter = Segmenter(1, kept)
    segmenter.feed(4, (SEAL, 0, None, ""))
    assert segmenter.rows == []
    assert segmenter.stale == []


@pytest.mark.parametrize("raw", [None, "", "{", '{"kind": 1}', "[]"])
def test_an_unreadable_open_message_is_none(raw: str | None) -> None:
    assert OpenMessage.from_json(raw) is None


def test_the_agents_echo_of_a_sent_prompt_is_neither_a_turn_nor_new_text() -> None:
    rows = rows_of(
        [
            (WHOLE, PROMPT, None, "hello"),
            (APPEND, PROMPT, "user-1", "hello"),  # the echo (v1 chunks)
            (WHOLE, PROMPT, "user-1", "hello"),  # or a whole message (v2)
            (APPEND, REPLY, "m1", "hi"),
            (SEAL, 0, None, ""),
            (APPEND, PROMPT, None, "a replayed prompt"),
            (SEAL, 0, None, ""),
        ]
    )
    assert rows == [
        (0, 1, PROMPT, "hello"),
        (3, 1, REPLY, "hi"),
        (5, 2, PROMPT, "a replayed prompt"),
    ]
