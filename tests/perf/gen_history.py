"""Writes a year of recorded sessions, as acp-tui records them, for the ``history`` benchmark.

``generate(root, sessions, turns, agents)`` fills a transcript cache root (``<data>/transcripts``)
with ``sessions`` sessions spread over ``agents`` agents and a year, each of ``turns`` turns: a
prompt (one sentence), the agent's echo of it, a reply in three chunks (four to six sentences),
a tool call with output every tenth turn, and the end of the turn. Text is drawn from a Zipf
vocabulary of 8,000 made-up words (so some words are everywhere and most are rare), with a few
planted words and phrases the benchmark searches for. Files are written directly (no pydantic,
no JSON encoder), so 10,000 sessions of 100 turns take about a minute.
"""

from __future__ import annotations

import itertools
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from acp_tui.store.names import agent_dir_name, transcript_name

SYLLABLES = [a + b for a in "bcdfghjklmnprstvwz" for b in ("a", "e", "i", "o", "u", "ai", "ou")]
PLANTED = {"lighthouse": 400, "keeper": 150, "zephyr": 40_000}
"""Planted words and one sentence in how many gets one (the phrase "lighthouse keeper" also
appears, in one sentence in 1,000)."""


def agent_keys(agents: int) -> list[str]:
    return [json.dumps([f"agent-{n}", "--acp"]) for n in range(agents)]


def vocabulary(rng: random.Random, size: int = 8000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.choice((1, 2, 2, 3, 3, 4)))))
    return sorted(words, key=lambda w: (len(w), w))


def sentences(rng: random.Random, words: list[str], count: int = 30_000) -> list[str]:
    weights = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(words))))
    pool = []
    for number in range(count):
        chosen = rng.choices(words, cum_weights=weights, k=rng.randint(6, 16))
        for planted, every in PLANTED.items():
            if number % every == every - 1:
                chosen.insert(rng.randrange(len(chosen)), planted)
        if number % 1000 == 999:
            chosen[1:1] = ["lighthouse", "keeper"]
        pool.append(" ".join(chosen).capitalize() + ".")
    return pool


def _event(update: dict[str, Any]) -> str:
    return '{"t":"update","update":' + json.dumps(update, separators=(",", ":")) + "}"


def session_lines(rng: random.Random, pool: list[str], turns: int, sid: str) -> list[str]:
    """The JSONL lines of one session (the text needs no escaping: words and full stops)."""
    lines = []
    for number in range(turns):
        asked = rng.choice(pool)
        lines.append(f'{{"t":"user","blocks":[{{"type":"text","text":"{asked}"}}]}}')
        lines.append(
            '{"t":"update","update":{"sessionUpdate":"user_message_chunk","messageId":'
            f'"u-{sid}-{number}","content":{{"type":"text","text":"{asked}"}}}}}}'
        )
        for part in range(3):
            said = " ".join(rng.choice(pool) for _ in range(rng.randint(1, 2)))
            lines.append(
                '{"t":"update","update":{"sessionUpdate":"agent_message_chunk","messageId":'
                f'"m-{sid}-{number}","content":{{"type":"text","text":"{said} "}}}}}}'
            )
            del part
        if number % 10 == 9:
            output = rng.choice(pool)
            block = {"type": "text", "text": output}
            call = {
                "sessionUpdate": "tool_call",
                "toolCallId": f"t-{number}",
                "title": f"Run tests in src/module_{number}.py",
                "kind": "execute",
                "status": "completed",
                "content": [{"type": "content", "content": block}],
            }
            lines.append(_event(call))
        lines.append('{"t":"end","stopReason":"end_turn"}')
    return lines


def generate(
    root: Path, sessions: int = 10_000, turns: int = 100, agents: int = 5, seed: int = 25
) -> dict[str, Any]:
    """Write the sessions under ``root`` (a transcript cache root); what was written."""
    rng = random.Random(seed)
    pool = sentences(rng, vocabulary(rng))
    keys = agent_keys(agents)
    start = datetime(2025, 11, 1, tzinfo=UTC)
    indexes: dict[str, list[dict[str, Any]]] = {key: [] for key in keys}
    written = 0
    for number in range(sessions):
        key = keys[number % agents]
        sid = f"sess-{number:05}-{rng.getrandbits(32):08x}"
        when = start + timedelta(seconds=number * 365 * 86400 // sessions)
        title = f"Session number {number % 100:02}: " + " ".join(rng.choice(pool).split()[:3])
        folder = root / agent_dir_name(key)
        folder.mkdir(parents=True, exist_ok=True)
        data = "\n".join(session_lines(rng, pool, turns, sid)) + "\n"
        (folder / f"{transcript_name(sid)}.jsonl").write_text(data)
        written += len(data)
        indexes[key].append(
            {
                "sessionId": sid,
                "cwd": f"/home/me/src/project-{number % 40}",
                "additionalDirectories": [],
                "title": title.rstrip("."),
                "updatedAt": when.isoformat().replace("+00:00", "Z"),
                "createdByClient": True,
            }
        )
    for key, entries in indexes.items():
        document = {"version": 1, "agent": key, "sessions": entries}
        (root / agent_dir_name(key) / "index.json").write_text(json.dumps(document))
    return {"sessions": sessions, "turns": turns, "agents": agents, "bytes": written}


def long_session(path: Path, turns: int, seed: int = 7) -> int:
    """One session of ``turns`` turns at ``path``; its size in bytes."""
    rng = random.Random(seed)
    pool = sentences(rng, vocabulary(rng), count=2000)
    data = "\n".join(session_lines(rng, pool, turns, "long")) + "\n"
    path.write_text(data)
    return len(data)
