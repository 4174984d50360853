"""Provides the demo agent's keywords for the newer parts of ACP: MCP servers, images, notices.

``mcp`` lists the MCP servers the client gave the session (secrets left out), ``image`` replies
with an image block, ``notice`` sends one UNSTABLE ``notice`` update of each severity (live
events: never recorded in the history), and images in the prompt are described. A prompt
without keywords is echoed, with the text of the resources it embeds (a client's context).
"""

from __future__ import annotations

import base64
from typing import Any

from acp_tui.demo_agent.turn import TurnContext, new_id

IMAGE_PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360f8cf000000030101005b3a5a2f0000000049454e44ae426082"
    )
).decode("ascii")
"""A 1x1 PNG, sent by the ``image`` keyword."""

NOTICES: list[dict[str, Any]] = [
    {"severity": "info", "title": "Indexing finished", "description": "1,204 files indexed."},
    {"severity": "warning", "title": "Rate limit close", "description": "80% of the hour used."},
    {"severity": "error", "title": "Search service unreachable"},
]


async def mcp(ctx: TurnContext) -> None:
    if not ctx.mcp_servers:
        await ctx.say("This session was given no MCP servers.")
        return
    listed = "\n".join(f"- {server}" for server in ctx.mcp_servers)
    await ctx.say(f"This session was given these MCP servers:\n\n{listed}\n")


async def image(ctx: TurnContext) -> None:
    await ctx.say("Here is an image:")
    content = {"type": "image", "mimeType": "image/png", "data": IMAGE_PNG}
    message_id = new_id("msg")
    await ctx.emit(
        {"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": content}
    )


async def notices(ctx: TurnContext) -> None:
    for notice in NOTICES:
        await ctx.emit_live({"sessionUpdate": "notice", **notice})
    await ctx.say("I sent three notices: info, warning and error.")


async def describe_images(ctx: TurnContext, blocks: list[dict[str, Any]]) -> None:
    """Say what images the prompt carried (type and decoded size)."""
    for block in blocks:
        if block.get("type") != "image":
            continue
        data = block.get("data")
        try:
            size = len(base64.b64decode(data, validate=True)) if isinstance(data, str) else 0
        except ValueError:
            await ctx.say("I got an image whose data is not valid base64.")
            continue
        await ctx.say(f"I got an image: {block.get('mimeType')}, {size} bytes.")


async def echo(ctx: TurnContext, text: str, blocks: list[dict[str, Any]]) -> None:
    """Say the prompt's text back, and the text of each resource embedded in it."""
    attached = [
        block["resource"]
        for block in blocks
        if block.get("type") == "resource"
        and isinstance(block.get("resource"), dict)
        and isinstance(block["resource"].get("text"), str)
    ]
    if not text.strip() and not attached:
        await ctx.say(f"You sent {len(blocks)} content block(s) without any text.")
        return
    parts = [f"You said:\n\n{_quoted(text)}\n"] if text.strip() else []
    for resource in attached:
        parts.append(f"You attached {resource.get('uri')}:\n\n{_quoted(resource['text'])}\n")
    await ctx.say("\n".join(parts))


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" for line in text.splitlines())
