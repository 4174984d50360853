"""WireLog: a bounded ring of raw lines, decoded lazily, secrets masked, written as JSON lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.agent.wire_log import (
    HUGE,
    MASK,
    WireLog,
    WireLogFile,
    WireRecord,
    mask_secrets,
    response_times,
)


def raw(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


MCP_NEW = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "session/new",
    "params": {
        "cwd": "/p",
        "mcpServers": [
            {
                "name": "db",
                "command": "/bin/db",
                "args": ["--x"],
                "env": [{"name": "DB_PASSWORD", "value": "hunter2"}],
            },
            {
                "type": "http",
                "name": "web",
                "url": "https://mcp.example",
                "headers": [{"name": "Authorization", "value": "Bearer abc123"}],
            },
        ],
    },
}
AUTH_METHODS = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "protocolVersion": 1,
        "authMethods": [
            {
                "id": "login",
                "name": "Log in",
                "type": "terminal",
                "args": ["--login"],
                "env": {"SERVICE_KEY": "s3cr3t-env"},
            }
        ],
        "_meta": {"apiKey": "k-42", "accessToken": "t-42", "note": "kept"},
    },
}


@pytest.mark.parametrize(
    ("message", "names"),
    [
        (MCP_NEW, ["DB_PASSWORD", "Authorization", "https://mcp.example"]),
        (AUTH_METHODS, ["SERVICE_KEY", "kept", "--login"]),
    ],
)
def test_secret_values_are_masked_and_names_kept(message: Any, names: list[str]) -> None:
    masked = json.dumps(mask_secrets(message), ensure_ascii=False)
    for secret in ("hunter2", "Bearer abc123", "s3cr3t-env", "k-42", "t-42"):
        assert secret not in masked
    assert MASK in masked
    for kept in names:
        assert kept in masked
    assert message == json.loads(json.dumps(message))  # the original is untouched


NESTED_SECRETS = {
    "jsonrpc": "2.0",
    "id": 9,
    "result": {
        "credentials": {"user": "me", "pass": "hunter2"},
        "_meta": {"apiKey": 4242424242, "clientSecret": ["hunter2"]},
        "usage": {"inputTokens": 1234, "maxTokens": 5678},
        "mcp": {"url": "https://me:hunter2@mcp.example/sse?token=hunter2&room=7"},
    },
}


def test_secret_named_objects_and_numbers_and_url_credentials_are_masked() -> None:
    for text in (
        json.dumps(mask_secrets(NESTED_SECRETS)),
        WireRecord(1, 0.0, 0.0, "recv", raw(NESTED_SECRETS)).log_line("a").decode(),
        WireRecord(2, 0.0, 0.0, "recv", raw(NESTED_SECRETS)).full_text(),
    ):
        assert "hunter2" not in text
        assert "4242424242" not in text
        assert "1234" in text  # usage counts are not tokens
        assert "5678" in text
        assert "mcp.example/sse" in text
        assert "room=7" in text


def test_a_url_alone_is_enough_to_mask_the_line() -> None:
    message = {"jsonrpc": "2.0", "method": "x", "params": {"u": "https://me:hunter2@h.example"}}
    assert "hunter2" not in WireRecord(1, 0.0, 0.0, "send", raw(message)).log_line("a").decode()


@pytest.mark.parametrize("message", [MCP_NEW, AUTH_METHODS])
def test_what_is_shown_copied_and_logged_is_masked(message: Any) -> None:
    record = WireRecord(1, 0.0, 0.0, "send", raw(message))
    for text in (record.preview_text(), record.full_text(), record.log_line("a").decode()):
        assert "hunter2" not in text
        assert "s3cr3t-env" not in text
        assert MASK in text


def test_ring_is_bounded_in_records_and_bytes_and_keeps_the_newest() -> None:
    log = WireLog(max_records=3, max_bytes=1_000)
    for n in range(5):
        log.tap("recv", raw({"jsonrpc": "2.0", "method": f"m{n}"}))
    assert [r.method for r in log.records] == ["m2", "m3", "m4"]
    assert log.dropped == 2
    assert [r.seq for r in log.since(3)] == [4, 5]
    assert log.since(5) == []
    log.tap("recv", b"x" * 5_000)  # bigger than the cap alone: kept, the others go
    assert len(log.records) == 1
    assert log.bytes == 5_000


def test_kinds_methods_ids_and_response_times_both_ways() -> None:
    log = WireLog()
    log.tap("send", raw({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
    log.tap("recv", raw({"jsonrpc": "2.0", "id": 7, "method": "fs/read_text_file"}))
    log.tap("recv", raw({"jsonrpc": "2.0", "method": "session/update", "params": {}}))
    log.tap("send", raw({"jsonrpc": "2.0", "id": 7, "error": {"code": 1, "message": "no"}}))
    log.tap("recv", raw({"jsonrpc": "2.0", "id": "1", "result": {}}))  # "1" is not 1
    log.tap("recv", raw({"jsonrpc": "2.0", "id": 1, "result": {}}))
    log.tap("recv", b"not json")
    records = list(log.records)
    assert [(r.kind, r.method, r.id) for r in records] == [
        ("request", "initialize", 1),
        ("request", "fs/read_text_file", 7),
        ("notification", "session/update", None),
        ("error", "", 7),
        ("response", "", "1"),
        ("response", "", 1),
        ("invalid", "", None),
    ]
    times = response_times(records)
    assert set(times) == {1, 2, 4, 6}
    assert times[1] == times[6] >= 0
    assert times[2] == times[4] >= 0


def test_a_reply_to_no_request_is_marked_on_the_line_it_came_in() -> None:
    """The connection says so while it handles the line: the newest line received is marked
    (not a line the client wrote meanwhile), and the mark goes with the line."""
    log = WireLog(max_records=3)
    log.tap("send", raw({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {}}))
    log.tap("recv", raw({"jsonrpc": "2.0", "id": "2", "result": {}}))
    log.tap("send", raw({"jsonrpc": "2.0", "method": "session/cancel", "params": {}}))
    log.mark_unmatched("2")
    assert [r.unmatched for r in log.records] == [False, True, False]
    assert log.is_unmatched(2)
    log.tap("recv", raw({"jsonrpc": "2.0", "method": "x"}))
    log.tap("recv", raw({"jsonrpc": "2.0", "method": "y"}))
    assert not any(r.unmatched for r in log.records)  # the marked line was let go
    assert not log.is_unmatched(2)


def test_a_huge_line_is_summarised_from_its_ends_and_cut_for_reading() -> None:
    text = "y" * (HUGE * 3)
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"update": {"content": {"text": text}}},
    }
    record = WireRecord(1, 0.0, 0.0, "recv", raw(message))
    assert record.summary() == ("notification", "session/update", None)
    preview = record.preview_text()
    assert len(preview) < 10_000
    assert f"{len(text) - 2_000:,} more characters" in preview
    assert len(record.full_text()) > len(text)
    reply = WireRecord(2, 0.0, 0.0, "recv", raw({"jsonrpc": "2.0", "id": 4, "result": text}))
    assert reply.summary() == ("response", "", 4)


def test_each_line_is_in_the_file_as_soon_as_it_is_logged(tmp_path: Path) -> None:
    """``tail -f`` follows the file, and the last lines before a hang are in it."""
    path = tmp_path / "wire.jsonl"
    out = WireLogFile(path)
    log = WireLog("demo", file=out)
    for n in range(3):
        log.tap("send", raw({"jsonrpc": "2.0", "id": n, "method": "session/prompt"}))
        written = path.read_text().splitlines()  # read beside it, never closed nor flushed
        assert len(written) == n + 1
        assert json.loads(written[-1])["message"]["id"] == n
    out.close()


def test_the_log_file_gets_json_lines_masked(tmp_path: Path) -> None:
    path = tmp_path / "wire.jsonl"
    out = WireLogFile(path)
    log = WireLog("demo", file=out)
    log.tap("send", raw(MCP_NEW))
    log.tap("recv", raw({"jsonrpc": "2.0", "id": 3, "result": {"sessionId": "s"}}) + b"\r")
    log.tap("recv", b"{broken")
    out.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(x["agent"], x["direction"]) for x in lines] == [
        ("demo", "send"),
        ("demo", "recv"),
        ("demo", "recv"),
    ]
    assert lines[0]["message"]["params"]["mcpServers"][0]["env"][0]["value"] == MASK
    assert lines[1]["message"] == {"jsonrpc": "2.0", "id": 3, "result": {"sessionId": "s"}}
    assert lines[2]["raw"] == "{broken"
    assert "hunter2" not in path.read_text()
