"""The packets between the serve server and its apps, and the page's messages, checked."""

from __future__ import annotations

import asyncio
import json

import pytest

from acp_tui.serve.page_session import openable_url
from acp_tui.serve.wire import (
    MAX_PACKET,
    PRELUDE,
    BrowserMessage,
    ProtocolError,
    browser_message,
    data_packet,
    meta_packet,
    read_packet,
    read_prelude,
)


def stream(data: bytes) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return reader


def test_packets_are_a_type_a_big_endian_length_and_the_payload() -> None:
    assert data_packet(b"ab") == b"D\x00\x00\x00\x02ab"
    meta = meta_packet({"type": "quit"})
    assert meta[:1] == b"M"
    assert int.from_bytes(meta[1:5], "big") == len(meta) - 5
    assert json.loads(meta[5:]) == {"type": "quit"}


async def test_the_prelude_comes_after_what_the_app_printed_first() -> None:
    assert await read_prelude(stream(b"a warning\n" + PRELUDE + b"D"))
    assert not await read_prelude(stream(b"Traceback (most recent call last):\n"))
    assert not await read_prelude(stream(b"line\n" * 100 + PRELUDE))


async def test_packets_are_read_in_order_until_the_output_ends() -> None:
    reader = stream(data_packet(b"screen") + meta_packet({"type": "exit"}))
    assert await read_packet(reader) == (b"D", b"screen")
    kind, payload = await read_packet(reader) or (b"", b"")
    assert (kind, json.loads(payload)) == (b"M", {"type": "exit"})
    assert await read_packet(reader) is None


async def test_a_second_app_in_the_same_process_starts_with_a_new_prelude() -> None:
    """The agent picker, then the chat: both are Textual apps under the web driver."""
    reader = stream(meta_packet({"type": "exit"}) + PRELUDE + data_packet(b"chat"))
    assert (await read_packet(reader) or (b"",))[0] == b"M"
    assert await read_packet(reader) == (b"D", b"chat")


async def test_a_cut_packet_is_the_end_of_the_output() -> None:
    assert await read_packet(stream(data_packet(b"screen")[:-2])) is None


@pytest.mark.parametrize(
    "garbage",
    [
        b"X\x00\x00\x00\x01a",
        b"D" + (MAX_PACKET + 1).to_bytes(4, "big"),
        b"_not the prelude\n",
    ],
)
async def test_output_that_is_not_packets_is_a_protocol_error(garbage: bytes) -> None:
    with pytest.raises(ProtocolError):
        await read_packet(stream(garbage))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('["stdin", "hello\\r"]', BrowserMessage("stdin", text="hello\r")),
        ('["resize", {"width": 120, "height": 40}]', BrowserMessage("resize", "", 120, 40)),
        ('["resize", {"width": 99999, "height": 0}]', BrowserMessage("resize", "", 1000, 1)),
        ('["ping", "1700000000000"]', BrowserMessage("ping", text="1700000000000")),
        ('["focus"]', BrowserMessage("focus")),
        ('["blur"]', BrowserMessage("blur")),
    ],
)
def test_the_pages_messages(raw: str, message: BrowserMessage) -> None:
    assert browser_message(raw) == message


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        "{}",
        "[]",
        "[1, 2]",
        '["stdin"]',
        '["stdin", 5]',
        '["resize", {"width": "80", "height": 24}]',
        '["resize", {"width": true, "height": 24}]',
        '["resize", [80, 24]]',
        '["ping", "' + "x" * 100 + '"]',
        '["quit"]',  # only the server may end an app
        '["deliver_chunk_request", {}]',
    ],
)
def test_malformed_or_unknown_messages_from_the_page_are_dropped(raw: str) -> None:
    assert browser_message(raw) is None


@pytest.mark.parametrize(
    "url", ["https://example.com/page", "http://127.0.0.1:9000/x?y=1", "HTTPS://EXAMPLE.COM"]
)
def test_the_page_is_given_http_links_to_open(url: str) -> None:
    assert openable_url({"type": "open_url", "url": url, "new_tab": False}) == url


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.location)",  # would run in the page, beside its token
        "JavaScript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "https://example.com/a b",
        "https://example.com/\x00",
        "https://example.com/" + "x" * 9000,
        None,
        42,
    ],
)
def test_no_other_link_reaches_the_page(url: object) -> None:
    assert openable_url({"type": "open_url", "url": url}) is None
