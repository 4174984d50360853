"""Provides the turn steps that ask the user through the client (`elicitation/create`).

``ask`` sends a form with every kind of field, tied to a tool call; ``ask-url`` sends the user to
a URL and says it is done after a while (``elicitation/complete``) or waits for the answer;
``ask-flood`` sends many forms at once and reports the answers in the order they came;
``ask-bad`` sends the elicitations a client must refuse and reports how it did. Each step
reports the client's answer in the reply and lets the turn go on.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from acp_tui.demo_agent.turn import TurnContext, new_id
from acp_tui.protocol.jsonrpc import RpcError

ASK_MESSAGE = "Before I set up the project, tell me a little about it."
ASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Project name",
            "description": "What the project is called.",
            "minLength": 2,
            "maxLength": 40,
            "default": "demo",
        },
        "email": {"type": "string", "title": "Maintainer email", "format": "email"},
        "homepage": {"type": "string", "title": "Homepage", "format": "uri"},
        "release": {"type": "string", "title": "First release", "format": "date"},
        "kickoff": {"type": "string", "title": "Kick-off meeting", "format": "date-time"},
        "ticket": {
            "type": "string",
            "title": "Tracking ticket",
            "description": "Like ABC-123.",
            "pattern": "^[A-Z]+-[0-9]+$",
        },
        "coverage": {
            "type": "number",
            "title": "Coverage goal",
            "minimum": 0,
            "maximum": 1,
            "default": 0.8,
        },
        "retries": {"type": "integer", "title": "Retries", "minimum": 0, "maximum": 10},
        "ci": {"type": "boolean", "title": "Set up CI", "default": True},
        "license": {"type": "string", "title": "License", "enum": ["MIT", "Apache-2.0", "GPL-3.0"]},
        "style": {
            "type": "string",
            "title": "Code style",
            "oneOf": [
                {"const": "ruff", "title": "Ruff format"},
                {"const": "black", "title": "Black"},
                {"const": "none", "title": "Leave it alone"},
            ],
            "default": "ruff",
        },
        "platforms": {
            "type": "array",
            "title": "Platforms",
            "items": {"type": "string", "enum": ["linux", "macos", "windows"]},
            "minItems": 1,
            "default": ["linux"],
        },
        "reviewers": {
            "type": "array",
            "title": "Reviewers",
            "description": "Two at most.",
            "items": {
                "anyOf": [
                    {"const": "ana", "title": "Ana"},
                    {"const": "bo", "title": "Bo"},
                    {"const": "cy", "title": "Cy"},
                ]
            },
            "maxItems": 2,
        },
    },
    "required": ["name", "email", "license", "platforms"],
}
"""The ``ask`` form: a field of every kind the schema has."""

URL = "https://agentclientprotocol.com/protocol/v1/elicitation"
URL_MESSAGE = "Open this page to connect the demo agent to your account."
URL_COMPLETE_AFTER = 10.0
"""Seconds after which ``ask-url`` says it is done, unless told otherwise."""
MAX_ASK_FLOOD = 1000

FLOOD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean", "title": "OK?", "default": True}},
}


PAST = {"accept": "accepted", "decline": "declined", "cancel": "cancelled"}


def describe(answer: Any) -> str:
    """The client's answer in a few words (anything unrecognised said as it is)."""
    action = answer.get("action") if isinstance(answer, dict) else None
    if action == "accept":
        content = answer.get("content")
        shown = json.dumps(content, indent=2, ensure_ascii=False) if content else "nothing"
        return f"accepted with:\n\n```json\n{shown}\n```\n"
    if action in PAST:
        return f"{PAST[action]}."
    return f"answered something I do not understand: {answer!r}"


SLOW_PATTERN = "^(a|aa)+$"
"""Backtracks for about a minute (Python's ``re``) on ``SLOW_DEFAULT``, which it never matches."""
SLOW_DEFAULT = "a" * 40 + "!"
SLOW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {
            "type": "string",
            "title": "Code",
            "pattern": SLOW_PATTERN,
            "default": SLOW_DEFAULT,
        }
    },
}
"""The ``ask-slow`` form: a pattern a client must not let freeze it."""


async def ask(ctx: TurnContext, schema: dict[str, Any] = ASK_SCHEMA) -> str | None:
    """A form with every kind of field (or ``schema``'s), tied to a tool call; the answer goes
    in the reply."""
    call_id = await ctx.tool_call("Ask about the project", "other")
    if not ctx.client.elicitation_form:
        await ctx.tool_update(call_id, status="failed")
        await ctx.say("I wanted to ask you, but the client did not advertise `elicitation.form`.")
        return None
    params = {
        "sessionId": ctx.session_id,
        "toolCallId": call_id,
        "mode": "form",
        "message": ASK_MESSAGE,
        "requestedSchema": schema,
    }
    try:
        answer = await ctx.request("elicitation/create", params)
    except RpcError as exc:
        await ctx.tool_update(call_id, status="failed")
        await ctx.say(f"The question failed: {exc.message} (code {exc.code})")
        return None
    accepted = isinstance(answer, dict) and answer.get("action") == "accept"
    await ctx.tool_update(call_id, status="completed" if accepted else "failed")
    await ctx.say(f"You {describe(answer)}")
    return None


async def ask_slow(ctx: TurnContext) -> str | None:
    """The ``ask`` question with `SLOW_SCHEMA`: a pattern made to backtrack on its default."""
    return await ask(ctx, SLOW_SCHEMA)


async def ask_url(ctx: TurnContext, complete_after: float | None, url: str | None) -> str | None:
    """Send the user to a URL; say it is done after ``complete_after`` seconds (None: never)."""
    call_id = await ctx.tool_call("Connect your account", "fetch")
    if not ctx.client.elicitation_url:
        await ctx.tool_update(call_id, status="failed")
        await ctx.say("I wanted to send you to a page, but the client did not advertise URLs.")
        return None
    elicitation_id = new_id("elicit")
    params = {
        "sessionId": ctx.session_id,
        "toolCallId": call_id,
        "mode": "url",
        "message": URL_MESSAGE,
        "elicitationId": elicitation_id,
        "url": url or URL,
    }
    async with anyio.create_task_group() as tg:
        if complete_after is not None:

            async def complete() -> None:
                await anyio.sleep(complete_after)
                await ctx.notify_client("elicitation/complete", {"elicitationId": elicitation_id})

            tg.start_soon(complete)
        try:
            answer = await ctx.request("elicitation/create", params)
        except RpcError as exc:
            answer = None
            await ctx.say(f"The question failed: {exc.message} (code {exc.code})")
        tg.cancel_scope.cancel()
    accepted = isinstance(answer, dict) and answer.get("action") == "accept"
    await ctx.tool_update(call_id, status="completed" if accepted else "failed")
    if accepted:
        await ctx.say("You are done at the page: thank you.")
    elif answer is not None:
        await ctx.say(f"You {describe(answer)}")
    return None


async def ask_flood(ctx: TurnContext, count: int, cancel: int | None) -> str | None:
    """``count`` forms at once; the reply lists the answers as they came.

    With ``cancel``, that question is withdrawn (``$/cancel_request``) as soon as question 1 is
    answered, while the client still has it queued.
    """
    call_id = await ctx.tool_call(f"Ask {count} questions at once", "other")
    answered: list[str] = []
    scopes: dict[int, anyio.CancelScope] = {}

    async def one(number: int) -> None:
        params = {
            "sessionId": ctx.session_id,
            "toolCallId": call_id,
            "mode": "form",
            "message": f"Question {number} of {count}",
            "requestedSchema": FLOOD_SCHEMA,
        }
        with scopes[number] as scope:
            try:
                answer = await ctx.request("elicitation/create", params)
            except RpcError as exc:
                answered.append(f"{number}: error {exc.code}")
            else:
                action = answer.get("action") if isinstance(answer, dict) else None
                answered.append(f"{number}: {action}")
            if number == 1 and cancel is not None and cancel in scopes:
                scopes[cancel].cancel()
        if scope.cancelled_caught:
            answered.append(f"{number}: withdrawn")

    async with anyio.create_task_group() as tg:
        for number in range(1, count + 1):
            scopes[number] = anyio.CancelScope()
            tg.start_soon(one, number)
    await ctx.tool_update(call_id, status="completed")
    await ctx.say("Answers in the order they came: " + ", ".join(answered) + ".")
    return None


async def ask_bad(ctx: TurnContext) -> str | None:
    """Elicitations a client must refuse; the reply says how each was answered."""
    form = {"mode": "form", "message": "A bad question", "requestedSchema": FLOOD_SCHEMA}
    cases: list[tuple[str, dict[str, Any]]] = [
        ("unknown session", {**form, "sessionId": "no-such-session"}),
        ("unknown mode", {**form, "mode": "_wizard", "sessionId": ctx.session_id}),
        ("form without a schema", {"mode": "form", "message": "?", "sessionId": ctx.session_id}),
        ("no scope", form),
        (
            "URL without an id",
            {"mode": "url", "message": "?", "url": URL, "sessionId": ctx.session_id},
        ),
    ]
    results = []
    for name, params in cases:
        try:
            answer = await ctx.request("elicitation/create", params)
        except RpcError as exc:
            results.append(f"{name}: error {exc.code}")
        else:
            action = answer.get("action") if isinstance(answer, dict) else answer
            results.append(f"{name}: {action}")
    await ctx.say("The client answered: " + "; ".join(results) + ".")
    return None
