"""Writes demo-agent data for the benchmarks directly in the agent's on-disk format (fast).

The format is the one of ``acp_tui.demo_agent.store``: ``index.json`` (a snapshot of every
session's metadata), ``index.journal`` (left out: nothing to replay) and
``history/<sessionId>.jsonl`` (the ``session/update`` objects of a session, one a line).

    python tests/perf/gen_demo_data.py DATA_DIR CWD --sessions 10000
    python tests/perf/gen_demo_data.py DATA_DIR CWD --turns 1000

Each history turn is what a real turn of a coding agent sends: the user's message, about 1 KB of
markdown in 20-byte ``agent_message_chunk`` pieces (one ``messageId`` a turn), and a tool call
with a diff (``tool_call``, then ``tool_call_update`` completed with the diff as its content).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from acp_tui.demo_agent.store import (
    HISTORY_DIR,
    INDEX_FILE,
    INDEX_VERSION,
    SessionRecord,
    format_timestamp,
)

TOPICS = (
    "parser", "lighthouse", "docs", "cache", "login", "migrations", "tests", "ci pipeline",
    "theme", "scrolling", "export", "shortcuts", "config", "telemetry", "startup", "memory",
    "tokenizer", "search", "sync", "backups",
)  # fmt: skip
VERBS = ("fix the", "refactor the", "document the", "speed up the", "review the", "add")

REPLY = """\
## Step {n}

I looked at `module_{n}.py` and found the *cause*: the loop re-reads the file on every
iteration. Here is what changes:

- read the file **once**, before the loop
- keep the parsed rows in a list
- see [the notes](https://example.com/{n}) for the details

```python
def load_{n}(path: Path) -> list[Row]:
    text = path.read_text()
    return [parse(line) for line in text.splitlines()]
```

The tests pass; the run is about {n} ms faster on the sample data. Next I will look at the
remaining callers and make sure none of them depends on the old behaviour of re-reading.

| caller | reads before | reads after |
|--------|-------------:|------------:|
| `report_{n}` | 40 | 1 |
| `export_{n}` | 12 | 1 |

> Note: the cache is per process, so a long-running server keeps it warm between
> requests; a command-line run pays for one read, which is what we want here.

Shall I go on with the callers, or first add a benchmark for the loader of module {n}?
Either is quick; both are small.
"""

OLD = "\n".join(f"line {i} of the original file" for i in range(12))


def session_id(n: int) -> str:
    return f"demo-{n:032x}"


def title_of(n: int) -> str:
    return f"{VERBS[n % len(VERBS)]} {TOPICS[n % len(TOPICS)]} #{n}"


def record(n: int, cwd: str, updated_ms: int, prompts: int = 1) -> SessionRecord:
    stamp = format_timestamp(updated_ms)
    return SessionRecord(
        session_id=session_id(n),
        cwd=cwd,
        title=title_of(n),
        created_at=stamp,
        updated_at=stamp,
        config={"model": "demo-fast"},
        prompts=prompts,
    )


def write_index(data_dir: Path, records: list[SessionRecord]) -> None:
    """The snapshot the store loads at startup (no journal: nothing to replay or compact)."""
    (data_dir / HISTORY_DIR).mkdir(parents=True, exist_ok=True)
    payload = {"version": INDEX_VERSION, "sessions": [r.to_json() for r in records]}
    (data_dir / INDEX_FILE).write_text(json.dumps(payload, ensure_ascii=False))


def write_sessions(data_dir: Path, cwd: Path, count: int) -> list[str]:
    """``count`` sessions in ``cwd``, one a minute back from now (newest first in the list)."""
    now = int(time.time() * 1000)
    records = [record(n, str(cwd), now - (count - n) * 60_000) for n in range(count)]
    write_index(data_dir, records)
    return [r.session_id for r in records]


def turn_updates(n: int, cwd: str, chunk: int = 20) -> list[dict[str, Any]]:
    """The updates of turn ``n``: user message, ~1 KB reply in ``chunk``-byte pieces, a diff."""
    updates: list[dict[str, Any]] = [
        {
            "sessionUpdate": "user_message_chunk",
            "messageId": f"user-{n:012x}",
            "content": {"type": "text", "text": f"Please {title_of(n)} (turn {n})."},
        }
    ]
    reply = REPLY.format(n=n)
    message_id = f"msg-{n:012x}"
    updates.extend(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": message_id,
            "content": {"type": "text", "text": reply[i : i + chunk]},
        }
        for i in range(0, len(reply), chunk)
    )
    path = f"{cwd}/src/module_{n}.py"
    call_id = f"call-{n:012x}"
    new = OLD.replace("line 3 of", f"line three (turn {n}) of").replace("line 9", "line nine")
    updates.append(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": call_id,
            "title": f"Edit module_{n}.py",
            "kind": "edit",
            "status": "pending",
            "locations": [{"path": path}],
            "rawInput": {"path": path},
        }
    )
    updates.append(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "status": "completed",
            "content": [{"type": "diff", "path": path, "oldText": OLD, "newText": new}],
        }
    )
    return updates


def write_history(data_dir: Path, cwd: Path, turns: int, *, sessions: int = 1) -> str:
    """An index of ``sessions`` sessions whose newest has a ``turns``-turn history; its id."""
    now = int(time.time() * 1000)
    records = [record(n, str(cwd), now - (sessions - n) * 60_000) for n in range(sessions)]
    newest = records[-1]
    newest.prompts = turns
    write_index(data_dir, records)
    dump = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    with (data_dir / HISTORY_DIR / f"{newest.session_id}.jsonl").open("w") as fh:
        for n in range(turns):
            fh.write("".join(dump(u) + "\n" for u in turn_updates(n, str(cwd))))
    return newest.session_id


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("cwd", type=Path)
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--turns", type=int, default=0)
    args = parser.parse_args()
    data_dir, cwd = args.data_dir.absolute(), args.cwd.absolute()
    if args.turns:
        print(write_history(data_dir, cwd, args.turns, sessions=args.sessions))
    else:
        write_sessions(data_dir, cwd, args.sessions)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
