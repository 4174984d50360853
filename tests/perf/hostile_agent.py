"""A scripted hostile ACP agent for the ``hostile`` benchmark (run as a script, stdlib only).

    hostile_agent.py [--sessions N] [--scale F]

It speaks just enough ACP v1 (``initialize``, ``session/new``, ``session/list``,
``session/prompt``, ``session/cancel``) and answers each prompt by its text, one size case
each, then ends the turn:

* ``permission-title``: ``session/request_permission`` whose tool call title is 10 MB;
* ``permission-options``: ``session/request_permission`` with 100,000 options;
* ``plan``: a plan of 200,000 entries;
* ``commands``: 200,000 available commands;
* ``locations``: a tool call with 200,000 locations;
* ``session-title``: a ``session_info_update`` whose title is 20 MB;
* ``line``: a 50 MB line (a small message chunk padded with 50 MB of ``_meta``);
* ``utf8``: a message chunk with invalid UTF-8 bytes inside its text.

Floods: ``KIND-flood`` sends ``FLOOD`` (10,000) messages of one kind as fast as the pipe takes
them, then ends the turn (a question flood: once every question is answered, whatever the
answer):

* ``notice-flood``: ``notice`` updates (severities in turn);
* ``permission-flood``: ``session/request_permission`` requests, all at once;
* ``ask-flood``: ``elicitation/create`` forms, all at once;
* ``terminal-flood``: ``terminal/create`` requests (each a command the client asks about);
* ``tool-flood``: one tool call, then updates of it (title, status, content);
* ``plan-flood``: plans of 20 entries, one more done each time;
* ``commands-flood``: available-commands updates of 20 commands;
* ``info-flood``: ``session_info_update`` titles;
* ``config-flood``: ``config_option_update`` (a select and a switch);
* ``mode-flood``: ``current_mode_update`` between the session's two modes;
* ``usage-flood``: ``usage_update``;
* ``unknown-flood``: updates of a kind no client knows;
* ``chunk-flood``: message and thought chunks in turn (nothing to join together).

``session/list`` answers all ``--sessions`` sessions (default 100,000) in one page. ``--scale``
multiplies every size (for a quick run).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

OUT = sys.stdout.buffer
MB = 1_000_000
FLOOD = 10_000
QUESTIONS = ("permission-flood", "ask-flood", "terminal-flood")
MODES = {
    "currentModeId": "ask",
    "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}],
}


def config_options(n: int) -> list[dict[str, Any]]:
    """The session's config options, the select's value and the switch turned by ``n``."""
    values = [{"value": f"v{i}", "name": f"Value {i}"} for i in range(5)]
    return [
        {
            "id": "effort",
            "name": "Effort",
            "type": "select",
            "category": "model_config",
            "currentValue": f"v{n % 5}",
            "options": values,
        },
        {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": n % 2 == 0},
    ]


def send(message: dict[str, Any]) -> None:
    OUT.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    OUT.flush()


def update(session_id: str, body: dict[str, Any]) -> None:
    params = {"sessionId": session_id, "update": body}
    send({"jsonrpc": "2.0", "method": "session/update", "params": params})


class Agent:
    def __init__(self, sessions: int, scale: float) -> None:
        self.sessions = sessions
        self.scale = scale
        self.next_id = 0
        self.waiting: dict[int, tuple[int, str]] = {}
        """Our permission request id -> (the prompt's id, the session)."""
        self.flood: dict[int, Any] = {}
        """A question flood's requests not answered yet (their ids), -> the prompt's id."""
        self.unanswered: dict[Any, int] = {}
        """A question flood's prompt id -> how many of its questions wait for an answer."""

    def n(self, size: int) -> int:
        return max(1, int(size * self.scale))

    def answer(self, msg_id: Any, result: Any) -> None:
        send({"jsonrpc": "2.0", "id": msg_id, "result": result})

    def end_turn(self, prompt_id: Any) -> None:
        self.answer(prompt_id, {"stopReason": "end_turn"})

    def handle(self, msg: dict[str, Any]) -> None:
        method, params, msg_id = msg.get("method"), msg.get("params") or {}, msg.get("id")
        if method is None:  # a reply: to a permission request, or to a flood's question
            if msg_id in self.flood:
                prompt_id = self.flood.pop(msg_id)
                self.unanswered[prompt_id] -= 1
                if not self.unanswered[prompt_id]:
                    del self.unanswered[prompt_id]
                    self.end_turn(prompt_id)
                return
            prompt = self.waiting.pop(msg_id, None)
            if prompt is not None:
                self.end_turn(prompt[0])
            return
        if method == "initialize":
            caps = {"loadSession": False, "sessionCapabilities": {"list": {}}}
            self.answer(msg_id, {"protocolVersion": 1, "agentCapabilities": caps})
        elif method == "session/new":
            self.answer(
                msg_id,
                {"sessionId": "hostile-1", "modes": MODES, "configOptions": config_options(0)},
            )
        elif method == "session/list":
            cwd = params.get("cwd") or "/"
            rows = [
                {
                    "sessionId": f"s{i}",
                    "cwd": cwd,
                    "title": f"session {i}",
                    "updatedAt": "2026-01-01T00:00:00Z",
                }
                for i in range(self.sessions)
            ]
            self.answer(msg_id, {"sessions": rows})
        elif method == "session/prompt":
            self.prompt(msg_id, params)
        elif msg_id is not None:
            err = {"code": -32601, "message": f"Method not found: {method}"}
            send({"jsonrpc": "2.0", "id": msg_id, "error": err})

    def ask(
        self, prompt_id: Any, session_id: str, tool: dict[str, Any], options: list[Any]
    ) -> None:
        self.next_id += 1
        self.waiting[self.next_id] = (prompt_id, session_id)
        params = {"sessionId": session_id, "toolCall": tool, "options": options}
        send(
            {
                "jsonrpc": "2.0",
                "id": self.next_id,
                "method": "session/request_permission",
                "params": params,
            }
        )

    def prompt(self, msg_id: Any, params: dict[str, Any]) -> None:
        sid = params.get("sessionId", "hostile-1")
        blocks = params.get("prompt") or [{}]
        case = str(blocks[0].get("text", "")).strip()
        allow = {"optionId": "allow", "name": "Allow", "kind": "allow_once"}
        reject = {"optionId": "reject", "name": "Reject", "kind": "reject_once"}
        if case.endswith("-flood"):
            self.send_flood(msg_id, sid, case)
            return
        if case == "permission-title":
            tool = {"toolCallId": "t1", "title": "T" * self.n(10 * MB)}
            self.ask(msg_id, sid, tool, [allow, reject])
            return
        if case == "permission-options":
            options = [
                {"optionId": f"o{i}", "name": f"option {i}", "kind": "allow_once"}
                for i in range(self.n(100_000))
            ]
            self.ask(msg_id, sid, {"toolCallId": "t2", "title": "Pick one"}, options)
            return
        if case == "plan":
            entries = [
                {"content": f"step {i}", "priority": "medium", "status": "pending"}
                for i in range(self.n(200_000))
            ]
            update(sid, {"sessionUpdate": "plan", "entries": entries})
        elif case == "commands":
            commands = [
                {"name": f"cmd{i}", "description": f"command {i}"} for i in range(self.n(200_000))
            ]
            update(
                sid, {"sessionUpdate": "available_commands_update", "availableCommands": commands}
            )
        elif case == "locations":
            locations = [{"path": f"/tmp/file{i}.py"} for i in range(self.n(200_000))]
            tool = {
                "sessionUpdate": "tool_call",
                "toolCallId": "t3",
                "title": "Read many files",
                "kind": "read",
                "status": "completed",
                "locations": locations,
            }
            update(sid, tool)
        elif case == "session-title":
            update(sid, {"sessionUpdate": "session_info_update", "title": "S" * self.n(20 * MB)})
        elif case == "line":
            chunk = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "padded line done. "},
                "_meta": {"pad": "p" * self.n(50 * MB)},
            }
            update(sid, chunk)
        elif case == "utf8":
            body = {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": sid,
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "bad @@ bytes"},
                    },
                },
            }
            raw = json.dumps(body).encode().replace(b"@@", b"\xff\xfe")
            OUT.write(raw + b"\n")
            OUT.flush()
        else:
            update(
                sid,
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": f"unknown case {case!r}"},
                },
            )
        self.end_turn(msg_id)

    def send_flood(self, prompt_id: Any, sid: str, case: str) -> None:
        """``FLOOD`` messages of one kind (see the module's docstring), then the turn's end
        (a question flood's: once all are answered)."""
        count = self.n(FLOOD)
        if case in QUESTIONS:
            self.unanswered[prompt_id] = count
            for i in range(count):
                self.next_id += 1
                self.flood[self.next_id] = prompt_id
                method, params = question(case, sid, i, count)
                send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
            return
        if case == "tool-flood":
            start = {"sessionUpdate": "tool_call", "toolCallId": "flood", "title": "Flooding"}
            update(sid, {**start, "kind": "execute", "status": "in_progress"})
        for i in range(count):
            body = flood_update(case, i)
            if body is None:
                text = f"unknown flood {case!r}"
                body = {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": text},
                }
                update(sid, body)
                break
            update(sid, body)
        self.end_turn(prompt_id)


def question(case: str, sid: str, i: int, count: int) -> tuple[str, dict[str, Any]]:
    """The method and params of a question flood's ``i``-th request."""
    if case == "permission-flood":
        tool = {"toolCallId": f"q{i}", "title": f"Request {i + 1} of {count}"}
        options = [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ]
        return "session/request_permission", {
            "sessionId": sid,
            "toolCall": tool,
            "options": options,
        }
    if case == "ask-flood":
        schema = {
            "type": "object",
            "properties": {"note": {"type": "string", "title": "Note"}},
        }
        params = {
            "sessionId": sid,
            "mode": "form",
            "message": f"Question {i + 1} of {count}",
            "requestedSchema": schema,
        }
        return "elicitation/create", params
    return "terminal/create", {"sessionId": sid, "command": "echo", "args": [f"flood {i + 1}"]}


def flood_update(case: str, i: int) -> dict[str, Any] | None:
    """The ``i``-th update of an update flood (None: no such flood)."""
    if case == "notice-flood":
        severity = ("info", "warning", "error")[i % 3]
        return {
            "sessionUpdate": "notice",
            "severity": severity,
            "title": f"Notice {i + 1}",
            "description": f"Something happened ({i + 1}).",
        }
    if case == "tool-flood":
        text = {"type": "text", "text": f"step {i + 1}"}
        return {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "flood",
            "title": f"Flooding, step {i + 1}",
            "content": [{"type": "content", "content": text}],
        }
    if case == "plan-flood":
        entries = [
            {
                "content": f"step {n + 1}",
                "priority": "medium",
                "status": "completed" if n < i % 21 else "pending",
            }
            for n in range(20)
        ]
        return {"sessionUpdate": "plan", "entries": entries}
    if case == "commands-flood":
        commands = [
            {"name": f"cmd{n}", "description": f"command {n}, version {i}"} for n in range(20)
        ]
        return {"sessionUpdate": "available_commands_update", "availableCommands": commands}
    if case == "info-flood":
        return {
            "sessionUpdate": "session_info_update",
            "title": f"Title {i + 1}",
            "updatedAt": "2026-01-01T00:00:00Z",
        }
    if case == "config-flood":
        return {"sessionUpdate": "config_option_update", "configOptions": config_options(i + 1)}
    if case == "mode-flood":
        return {"sessionUpdate": "current_mode_update", "currentModeId": ("code", "ask")[i % 2]}
    if case == "usage-flood":
        return {"sessionUpdate": "usage_update", "used": i, "size": 200_000}
    if case == "unknown-flood":
        return {"sessionUpdate": "_hostile_flood", "n": i}
    if case == "chunk-flood":
        kind = ("agent_message_chunk", "agent_thought_chunk")[i % 2]
        return {"sessionUpdate": kind, "content": {"type": "text", "text": f"{i} "}}
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    agent = Agent(args.sessions, args.scale)
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict):
            agent.handle(msg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
