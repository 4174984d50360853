"""Text chunks of one message are joined before they are parsed, without changing the order."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import anyio
import pytest

from acp_tui.client.agent.agent_client import AgentClient
from acp_tui.client.agent.coalesce import text_chunk
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.process.command import AgentCommand
from acp_tui.client.session.entries import MessageEntry, ToolCallEntry
from acp_tui.client.session.live_session import LiveSession
from acp_tui.protocol.updates import SessionUpdate
from tests.unit.client.agent.agent_helpers import wait_until
from tests.unit.rpc_helpers import RawPeer, dispose_peers, line

SID = "s-1"


@pytest.fixture(autouse=True)
def _close_peer_streams() -> Iterator[None]:
    yield
    dispose_peers()


def chunk(text: str, message_id: str | None = "m1", kind: str = "agent_message_chunk") -> Any:
    update: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if message_id is not None:
        update["messageId"] = message_id
    return {"sessionId": SID, "update": update}


def note(params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


def tool_call(call_id: str) -> Any:
    update = {"sessionUpdate": "tool_call", "toolCallId": call_id, "title": "Read"}
    return {"sessionId": SID, "update": update}


@pytest.mark.parametrize(
    ("params", "plain"),
    [
        (chunk("hi"), True),
        (chunk("hi", None), True),
        (chunk("hi", kind="agent_thought_chunk"), True),
        (chunk("hi", kind="user_message_chunk"), True),
        ({"sessionId": SID, "update": {**chunk("x")["update"], "messageId": None}}, True),
        ({**chunk("hi"), "_meta": {"a": 1}}, False),
        ({"sessionId": SID, "update": {**chunk("x")["update"], "_meta": {}}}, False),
        ({"sessionId": SID, "update": {**chunk("x")["update"], "messageId": 7}}, False),
        (
            {
                "sessionId": SID,
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "x", "annotations": {}},
                },
            },
            False,
        ),
        (
            {
                "sessionId": SID,
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "image", "data": "", "mimeType": "image/png"},
                },
            },
            False,
        ),
        ({"sessionId": 1, "update": chunk("x")["update"]}, False),
        (tool_call("t"), False),
        ([chunk("x")], False),
        (None, False),
    ],
)
def test_only_plain_text_chunks_are_held_back(params: Any, plain: bool) -> None:
    assert (text_chunk(params) is not None) is plain


@asynccontextmanager
async def wired(tmp_path: Path) -> AsyncIterator[tuple[AgentClient, RawPeer, list[Any]]]:
    """An AgentClient on a raw peer, with a live session ``SID`` and a listener's log."""
    peer = RawPeer()
    conn = peer.connection()
    process = SimpleNamespace(stdout=conn._receive, stdin=conn._send_stream)
    launch = LaunchSpec(command=AgentCommand(["agent"], cwd=tmp_path, name="x"), cwd=tmp_path)
    client = AgentClient(launch, cast(Any, process))
    client.sessions[SID] = LiveSession(SID, tmp_path)
    seen: list[Any] = []

    def listener(session_id: str, update: SessionUpdate) -> None:
        seen.append((update.session_update, update.model_dump(by_alias=True, exclude_unset=True)))

    client.subscribe(listener)
    async with anyio.create_task_group() as tg:
        tg.start_soon(client.connection.run)
        yield client, peer, seen
        tg.cancel_scope.cancel()


async def test_consecutive_chunks_reach_listeners_joined_and_in_order(tmp_path: Path) -> None:
    async with wired(tmp_path) as (client, peer, seen):
        await exchange(client, peer)
    check_joined(client, seen)


async def exchange(client: AgentClient, peer: RawPeer) -> None:
    block = [chunk(f"a{i} ") for i in range(100)]
    block += [tool_call("t1")]
    block += [chunk(f"b{i} ") for i in range(50)]
    block += [chunk(f"think{i} ", "th", "agent_thought_chunk") for i in range(10)]
    block += [chunk("c0 "), chunk("d0 ", "m2")]
    block += [{"sessionId": SID, "update": {"sessionUpdate": "brand_new_kind", "x": 1}}]
    block += [{**chunk("meta "), "_meta": {"k": 1}}, chunk("last")]
    request = client.connection.request("ping")
    async with anyio.create_task_group() as tg:

        async def ask() -> None:
            await request

        tg.start_soon(ask)
        sent = await peer.read()
        # The answer comes in the same block: every update before it must be applied first.
        await peer.send_raw(
            b"".join(line(note(p)) for p in block)
            + line({"jsonrpc": "2.0", "id": sent["id"], "result": {}})
        )


def check_joined(client: AgentClient, seen: list[Any]) -> None:
    kinds = [kind for kind, _ in seen]
    assert kinds == [
        "agent_message_chunk",
        "tool_call",
        "agent_message_chunk",
        "agent_thought_chunk",
        "agent_message_chunk",
        "agent_message_chunk",
        "brand_new_kind",
        "agent_message_chunk",
        "agent_message_chunk",
    ]
    texts = [wire["content"]["text"] for kind, wire in seen if "content" in wire]
    assert texts[0] == "".join(f"a{i} " for i in range(100))
    assert texts[1] == "".join(f"b{i} " for i in range(50))
    assert texts[2] == "".join(f"think{i} " for i in range(10))
    assert texts[3:] == ["c0 ", "d0 ", "meta ", "last"]
    entries = client.sessions[SID].transcript.entries
    first = entries[0]
    assert isinstance(first, MessageEntry)
    assert first.text.startswith("a0 a1 ")
    assert "b49 c0 meta last" in first.text
    assert isinstance(entries[1], ToolCallEntry)
    assert client.sessions[SID].transcript.unknown_updates == 1


async def test_chunks_split_across_reads_are_all_applied_by_the_end_of_each_read(
    tmp_path: Path,
) -> None:
    async with wired(tmp_path) as (client, peer, seen):
        await split_reads(client, peer, seen)


async def split_reads(client: AgentClient, peer: RawPeer, seen: list[Any]) -> None:
    data = b"".join(line(note(chunk(f"w{i} "))) for i in range(20))
    await peer.send_raw(data[:1000])
    await peer.send_raw(data[1000:])
    transcript = client.sessions[SID].transcript

    def complete() -> bool:
        first = transcript.entries[0] if transcript.entries else None
        return isinstance(first, MessageEntry) and first.text.endswith("w19 ")

    await wait_until(complete, transcript)
    entry = transcript.entries[0]
    assert isinstance(entry, MessageEntry)
    assert entry.text == "".join(f"w{i} " for i in range(20))
    assert 1 <= len(seen) <= 3  # one per read that held a whole line, not one per chunk
