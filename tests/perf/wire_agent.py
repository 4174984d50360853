"""A minimal, fast ACP v1 agent for the wire benchmarks (standard library only).

It answers ``initialize``, ``session/new``, ``session/load`` and ``session/prompt``; a prompt
streams a ~2 MB reply (the ``stream`` benchmark's text) in ``--chunks`` ``agent_message_chunk``
updates of one message, as fast as the pipe takes them. Every line is encoded before the turn
starts and written in 64 KiB blocks with blocking writes, so the agent costs next to nothing and
what is measured is the client. How long the writes blocked (the client not reading) goes to
``--stats FILE`` as JSON: ``blocked_s`` in all, ``max_block_ms`` the longest single write.

    python tests/perf/wire_agent.py --chunks 50000 --stats /tmp/stats.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from typing import Any

SECTION = """\
## Section {n}

Some prose with *emphasis*, `inline code` and a [link](https://example.com/{n}). It goes on
for a few lines, as replies do, so that paragraphs wrap at the view's width and need
reflowing when it changes. Here is a list:

- first point about item {n}
- second point, a little longer than the first one
- third point

```python
def handler_{n}(request: Request) -> Response:
    value = compute({n}) * 2
    return Response(status=200, body=str(value))
```

"""

BLOCK = 64 * 1024
SESSION = "wire-bench-session"


def reply_text(size: int) -> str:
    parts: list[str] = []
    length = n = 0
    while length < size:
        part = SECTION.format(n=n)
        parts.append(part)
        length += len(part)
        n += 1
    return "".join(parts)


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


class Agent:
    def __init__(self, chunks: int, size: int, stats: str | None) -> None:
        self.chunks = chunks
        self.size = size
        self.stats = stats
        self.blocked = 0.0
        self.max_block = 0.0
        self.written = 0

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        for start in range(0, len(view), BLOCK):
            block = view[start : start + BLOCK]
            began = time.perf_counter()
            while block:
                sent = os.write(1, block)
                block = block[sent:]
            took = time.perf_counter() - began
            self.blocked += took
            self.max_block = max(self.max_block, took)
        self.written += len(data)

    def stream_lines(self) -> bytes:
        text = reply_text(self.size)
        cuts = [len(text) * i // self.chunks for i in range(self.chunks + 1)]
        lines = (
            encode(
                {
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {
                        "sessionId": SESSION,
                        "update": {
                            "sessionUpdate": "agent_message_chunk",
                            "messageId": "bench-reply",
                            "content": {"type": "text", "text": text[a:b]},
                        },
                    },
                }
            )
            for a, b in itertools.pairwise(cuts)
        )
        return b"".join(lines)

    def answer(self, message: dict[str, Any]) -> None:
        method, msg_id = message.get("method"), message.get("id")
        if msg_id is None:
            return  # notifications ($/cancel_request...) need nothing here
        result: Any
        if method == "initialize":
            result = {
                "protocolVersion": 1,
                "agentCapabilities": {"loadSession": True},
                "authMethods": [],
                "agentInfo": {"name": "wire-bench", "version": "1"},
            }
        elif method == "session/new":
            result = {"sessionId": SESSION}
        elif method == "session/prompt":
            lines = self.stream_lines()
            self.blocked = self.max_block = 0.0
            self.write(lines)
            result = {"stopReason": "end_turn"}
            self.save_stats(len(lines))
        else:
            self.write(encode({"jsonrpc": "2.0", "id": msg_id, "error": {
                "code": -32601, "message": f"Method not found: {method}"}}))  # fmt: skip
            return
        self.write(encode({"jsonrpc": "2.0", "id": msg_id, "result": result}))

    def save_stats(self, size: int) -> None:
        if self.stats:
            figures = {
                "bytes": size,
                "blocked_s": round(self.blocked, 3),
                "max_block_ms": round(self.max_block * 1000, 1),
            }
            with open(self.stats, "w") as out:
                json.dump(figures, out)

    def run(self) -> None:
        for line in sys.stdin.buffer:
            if line.strip():
                self.answer(json.loads(line))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--size", type=int, default=2_000_000)
    parser.add_argument("--stats")
    args = parser.parse_args()
    Agent(args.chunks, args.size, args.stats).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
