"""Provides the turn steps that use tool calls and the client's methods.

Each step returns ``None`` to let the turn go on, or a stop reason to end it. Errors from the
client (a refused read, a failed terminal) are reported in the reply, never raised: they are the
interesting cases a client author wants to see rendered.
"""

from __future__ import annotations

import base64
import contextlib
import os
from typing import Any

import anyio

from acp_tui.demo_agent.turn import TurnContext
from acp_tui.protocol.jsonrpc import ConnectionClosed, RpcError

HELLO_OLD = 'def greet():\n    print("Hello, world!")\n'
HELLO_NEW = 'def greet(name: str = "world") -> None:\n    print(f"Hello, {name}!")\n'
NOTES_NEW = "# Notes\n\n- Written by the acp-tui demo agent.\n"
CONFIG_OLD = '{\n  "debug": false\n}\n'
CONFIG_NEW = '{\n  "debug": true\n}\n'

PERMISSION_OPTIONS = [
    {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
    {"optionId": "reject-always", "name": "Never allow", "kind": "reject_always"},
]

TERMINAL_COMMAND = "printf"
TERMINAL_ARGS = ["%s\\n", "hello from the demo agent", "a second line"]


def _diff(path: str, old: str | None, new: str) -> dict[str, Any]:
    return {"type": "diff", "path": path, "oldText": old, "newText": new}


def _fence(text: str) -> str:
    fence = "~~~~" if "```" in text else "```"
    return f"{fence}\n{text.rstrip()}\n{fence}"


async def diff(ctx: TurnContext) -> str | None:
    hello = os.path.join(ctx.cwd, "hello.py")
    notes = os.path.join(ctx.cwd, "NOTES.md")
    title = "Edit hello.py and add NOTES.md"
    locations = [hello, notes]
    call_id = await ctx.tool_call(
        title, "edit", locations=locations, raw_input={"path": hello}, name="edit_files"
    )
    await ctx.pause()
    await ctx.tool_update(call_id, status="in_progress")
    await ctx.pause()
    await ctx.tool_update(
        call_id,
        status="completed",
        content=[_diff(hello, HELLO_OLD, HELLO_NEW), _diff(notes, None, NOTES_NEW)],
    )
    await ctx.say("I made `greet` take a name in `hello.py` and added a new `NOTES.md`.")
    return None


async def permission(
    ctx: TurnContext, options: list[dict[str, Any]] = PERMISSION_OPTIONS
) -> str | None:
    """Ask to edit config.json with ``options`` (``permission-none``: none at all, which a
    client must not show as a dialog without answers)."""
    path = os.path.join(ctx.cwd, "config.json")
    title = "Edit config.json"
    call_id = await ctx.tool_call(title, "edit", locations=[path], raw_input={"path": path})
    tool_call = {
        "toolCallId": call_id,
        "title": title,
        "kind": "edit",
        "status": "pending",
        "locations": [{"path": path}],
        "content": [_diff(path, CONFIG_OLD, CONFIG_NEW)],
    }
    try:
        answer = await ctx.request(
            "session/request_permission",
            {"sessionId": ctx.session_id, "toolCall": tool_call, "options": options},
        )
    except RpcError as exc:
        await ctx.tool_update(call_id, status="failed")
        await ctx.say(f"The permission request failed: {exc.message}")
        return None
    outcome = answer.get("outcome") if isinstance(answer, dict) else None
    kind = outcome.get("outcome") if isinstance(outcome, dict) else None
    if kind == "cancelled":
        await ctx.tool_update(call_id, status="failed")
        return "cancelled"
    chosen = None
    if kind == "selected" and isinstance(outcome, dict):
        option_id = outcome.get("optionId")
        chosen = next((o for o in PERMISSION_OPTIONS if o["optionId"] == option_id), None)
    if chosen is None:
        # Anything unrecognised is never taken as approval.
        await ctx.tool_update(call_id, status="failed")
        await ctx.say(f"I did not understand the permission answer {answer!r}, so I did nothing.")
        return None
    if chosen["kind"].startswith("allow"):
        await ctx.tool_update(
            call_id, status="completed", content=[_diff(path, CONFIG_OLD, CONFIG_NEW)]
        )
        verdict = "so I turned on debug in `config.json`"
    else:
        await ctx.tool_update(call_id, status="failed")
        verdict = "so I left `config.json` alone"
    await ctx.say(f"You chose **{chosen['name']}** (`{chosen['kind']}`), {verdict}.")
    return None


async def permission_flood(ctx: TurnContext, count: int, cancel: int | None) -> str | None:
    """``count`` permission requests at once; the reply lists the answers as they came.

    With ``cancel``, that request is withdrawn (``$/cancel_request``) as soon as request 1 is
    answered, while the client still has it queued.
    """
    call_id = await ctx.tool_call(f"Ask {count} questions at once", "other")
    answered: list[str] = []
    scopes: dict[int, anyio.CancelScope] = {}

    async def ask(number: int) -> None:
        tool_call = {"toolCallId": call_id, "title": f"Request {number} of {count}"}
        params = {"sessionId": ctx.session_id, "toolCall": tool_call, "options": PERMISSION_OPTIONS}
        with scopes.setdefault(number, anyio.CancelScope()) as scope:
            try:
                answer = await ctx.request("session/request_permission", params)
            except RpcError as exc:
                answered.append(f"{number}: error {exc.code}")
            else:
                outcome = answer.get("outcome") if isinstance(answer, dict) else None
                chosen = outcome.get("optionId") if isinstance(outcome, dict) else None
                answered.append(f"{number}: {chosen or 'cancelled'}")
            if number == 1 and cancel is not None and cancel in scopes:
                scopes[cancel].cancel()
        if scope.cancelled_caught:
            answered.append(f"{number}: withdrawn")

    async with anyio.create_task_group() as tg:
        for number in range(1, count + 1):
            scopes[number] = anyio.CancelScope()
            tg.start_soon(ask, number)
    await ctx.tool_update(call_id, status="completed")
    await ctx.say("Answers in the order they came: " + ", ".join(answered) + ".")
    return None


async def read(ctx: TurnContext, path: str | None) -> str | None:
    path = path or os.path.join(ctx.cwd, "README.md")
    title = f"Read {os.path.basename(path) or path}"
    call_id = await ctx.tool_call(title, "read", locations=[path])
    if not ctx.client.read_text_file:
        await ctx.tool_update(call_id, status="failed")
        await ctx.say(
            f"I wanted to read `{path}`, but the client did not advertise `fs.readTextFile`."
        )
        return None
    await ctx.tool_update(call_id, status="in_progress")
    try:
        result = await ctx.request("fs/read_text_file", {"sessionId": ctx.session_id, "path": path})
        content = result["content"]
        if not isinstance(content, str):
            raise TypeError("content is not a string")
    except (RpcError, KeyError, TypeError) as exc:
        message = exc.message if isinstance(exc, RpcError) else f"malformed reply ({exc})"
        await ctx.tool_update(call_id, status="failed")
        await ctx.say(f"The client could not read `{path}`: {message}")
        return None
    await ctx.tool_update(
        call_id,
        status="completed",
        content=[{"type": "content", "content": {"type": "text", "text": content[:4000]}}],
    )
    lines = content.splitlines()
    head = "\n".join(lines[:5])
    await ctx.say(f"`{path}` has {len(lines)} lines. It starts with:\n\n{_fence(head)}\n")
    return None


async def write(ctx: TurnContext) -> str | None:
    path = os.path.join(ctx.cwd, "demo-output.txt")
    content = f"Written by the acp-tui demo agent for session {ctx.session_id}.\n"
    call_id = await ctx.tool_call("Write demo-output.txt", "edit", locations=[path])
    if not ctx.client.write_text_file:
        await ctx.tool_update(call_id, status="failed")
        await ctx.say(
            f"I wanted to write `{path}`, but the client did not advertise `fs.writeTextFile`."
        )
        return None
    await ctx.tool_update(call_id, status="in_progress")
    try:
        await ctx.request(
            "fs/write_text_file", {"sessionId": ctx.session_id, "path": path, "content": content}
        )
    except RpcError as exc:
        await ctx.tool_update(call_id, status="failed")
        await ctx.say(f"The client could not write `{path}`: {exc.message}")
        return None
    await ctx.tool_update(call_id, status="completed", content=[_diff(path, None, content)])
    await ctx.say(f"I wrote `{path}`.")
    return None


async def terminal(ctx: TurnContext, env: tuple[tuple[str, str], ...] = ()) -> str | None:
    """Run the demo command in a client terminal, with ``env`` (the prompt's ``NAME=VALUE``
    words) set: how a client's approval of a command is tested against a changed env."""
    command: dict[str, Any] = {"command": TERMINAL_COMMAND, "args": TERMINAL_ARGS}
    if env:
        command["env"] = [{"name": name, "value": value} for name, value in env]
    call_id = await ctx.tool_call(f"Run {TERMINAL_COMMAND}", "execute", raw_input=command)
    if ctx.client.agent_terminals:
        await agent_owned_terminal(ctx, call_id, dict(env))
        return None
    if not ctx.client.terminal:
        await ctx.tool_update(call_id, status="failed")
        await ctx.say("I wanted to run a command, but the client did not advertise `terminal`.")
        return None
    terminal_id: str | None = None
    ids = {"sessionId": ctx.session_id}
    try:
        created = await ctx.request(
            "terminal/create", {**ids, **command, "cwd": ctx.cwd, "outputByteLimit": 65536}
        )
        terminal_id = created["terminalId"]
        if not isinstance(terminal_id, str):
            raise TypeError("terminalId is not a string")
        ids["terminalId"] = terminal_id
        await ctx.tool_update(
            call_id,
            status="in_progress",
            content=[{"type": "terminal", "terminalId": terminal_id}],
        )
        exit_status = await ctx.request("terminal/wait_for_exit", ids)
        output = await ctx.request("terminal/output", ids)
        text = output["output"]
        if not isinstance(text, str):
            raise TypeError("output is not a string")
    except (RpcError, KeyError, TypeError) as exc:
        message = exc.message if isinstance(exc, RpcError) else f"malformed reply ({exc})"
        await ctx.tool_update(call_id, status="failed")
        await ctx.say(f"Running `{TERMINAL_COMMAND}` failed: {message}")
        return None
    finally:
        if terminal_id is not None:
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(5),
                contextlib.suppress(RpcError, ConnectionClosed),
            ):
                await ctx.request("terminal/release", ids)
    code = exit_status.get("exitCode") if isinstance(exit_status, dict) else None
    signal = exit_status.get("signal") if isinstance(exit_status, dict) else None
    await ctx.tool_update(
        call_id,
        status="completed" if code == 0 else "failed",
        rawOutput={"exitCode": code, "signal": signal},
    )
    how = f"was killed by {signal}" if signal else f"exited with code {code}"
    await ctx.say(f"`{TERMINAL_COMMAND}` {how} and printed:\n\n{_fence(text)}\n")
    return None


async def agent_owned_terminal(ctx: TurnContext, call_id: str, env: dict[str, str]) -> None:
    """ACP v2: run the command here and show it as an agent-owned terminal, line by line."""
    terminal_id = f"term_{call_id}"
    argv = [TERMINAL_COMMAND, *TERMINAL_ARGS]
    shown = " ".join(argv)
    await ctx.tool_update(
        call_id, status="in_progress", content=[{"type": "terminal", "terminalId": terminal_id}]
    )
    await ctx.emit(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": terminal_id,
            "command": shown,
            "cwd": ctx.cwd,
        }
    )
    try:
        result = await anyio.run_process(argv, cwd=ctx.cwd, env={**os.environ, **env}, check=False)
    except OSError as exc:
        await ctx.tool_update(call_id, status="failed")
        await ctx.say(f"Running `{TERMINAL_COMMAND}` failed: {exc}")
        return
    for line in result.stdout.splitlines(keepends=True):
        data = base64.b64encode(line).decode("ascii")
        await ctx.emit(
            {"sessionUpdate": "terminal_output_chunk", "terminalId": terminal_id, "data": data}
        )
        await ctx.pause()
    code = result.returncode
    exit_status = {"exitCode": code, "signal": None}
    await ctx.emit(
        {"sessionUpdate": "terminal_update", "terminalId": terminal_id, "exitStatus": exit_status}
    )
    await ctx.tool_update(
        call_id, status="completed" if code == 0 else "failed", rawOutput=exit_status
    )
    text = result.stdout.decode("utf-8", "replace")
    await ctx.say(f"`{TERMINAL_COMMAND}` exited with code {code} and printed:\n\n{_fence(text)}\n")
