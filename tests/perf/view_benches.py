"""Benchmarks of TranscriptView in a headless app: a streamed reply, and a long transcript."""

from __future__ import annotations

import asyncio
import gc
import itertools
import time
from typing import Any

from textual.app import App, ComposeResult

from acp_tui.client.session.entries import MessageEntry
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.updates import SessionNotification, SessionUpdate
from acp_tui.ui.transcript.render import warmed_up
from acp_tui.ui.transcript.view import TranscriptView

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


def update(wire: dict[str, Any]) -> SessionUpdate:
    return SessionNotification.from_wire({"sessionId": "bench", "update": wire}).update


def agent_chunk(text: str, message_id: str = "m") -> SessionUpdate:
    content = {"type": "text", "text": text}
    return update(
        {"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": content}
    )


class TimedView(TranscriptView):
    """Records when each flush ends."""

    def __init__(self) -> None:
        super().__init__()
        self.flush_ends: list[float] = []
        self.longest_flush = 0.0

    def flush(self) -> None:
        started = time.perf_counter()
        super().flush()
        ended = time.perf_counter()
        self.flush_ends.append(ended)
        self.longest_flush = max(self.longest_flush, ended - started)


class ViewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TimedView()


async def stream(chunks: int = 50_000, size: int = 2_000_000, batch: int = 100) -> dict[str, Any]:
    """A ~2 MB reply in 50,000 chunks, applied in batches as fast as the loop allows."""
    text = ""
    n = 0
    while len(text) < size:
        text += SECTION.format(n=n)
        n += 1
    cuts = [len(text) * i // chunks for i in range(chunks + 1)]
    updates = [agent_chunk(text[a:b]) for a, b in itertools.pairwise(cuts)]
    # The prepared updates are the benchmark's own: keep them out of the collector's way (a
    # real connection parses each as it arrives). The transcript's growth stays counted.
    gc.freeze()
    app = ViewApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(TimedView)
        transcript = Transcript("bench")
        view.show(transcript)
        # As in the app, where the agent starts meanwhile: the view warms its renderers up in
        # a thread after the first frame, before the first reply.
        while not warmed_up.is_set():
            await pilot.pause(0.01)
        from loop_ticker import Ticker

        ticker = Ticker()

        pauses: list[float] = []
        gc_started = [0.0]

        def on_gc(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                gc_started[0] = time.perf_counter()
            else:
                pauses.append(time.perf_counter() - gc_started[0])

        gc.callbacks.append(on_gc)
        tick = asyncio.create_task(ticker.run())
        await asyncio.sleep(0.02)
        started = time.perf_counter()
        for i in range(0, len(updates), batch):
            for item in updates[i : i + batch]:
                transcript.apply(item)
            await asyncio.sleep(0)
        last_chunk = time.perf_counter()
        entry = transcript.entries[0]
        assert isinstance(entry, MessageEntry)
        while not (view.settled and view.is_current(0)):  # noqa: ASYNC110 (polls the view)
            await asyncio.sleep(0.001)
        rendered = next(t for t in view.flush_ends if t >= last_chunk)
        ticker.running = False
        await tick
        gc.callbacks.remove(on_gc)
        gc.unfreeze()
        tail = view.visible_lines()
        assert any(line.strip() for line in tail), "nothing visible at the end"
    return {
        "bench": "stream",
        "chunks": len(updates),
        "bytes": len(entry.text.encode()),
        "stream_s": round(last_chunk - started, 3),
        "max_stall_ms": round(ticker.max_gap * 1000, 1),
        "final_render_lag_ms": round((rendered - last_chunk) * 1000, 1),
        "longest_flush_ms": round(view.longest_flush * 1000, 1),
        "flushes": view.flushes,
        "gc_max_ms": round(max(pauses, default=0.0) * 1000, 1),
    }


def mixed_transcript(blocks: int) -> Transcript:
    """``blocks`` entries: user prompts, markdown replies, tool calls with diffs, plans, notices."""
    transcript = Transcript("bench")
    for n in range(blocks // 5):
        transcript.apply(
            update(
                {
                    "sessionUpdate": "user_message_chunk",
                    "messageId": f"u{n}",
                    "content": {"type": "text", "text": f"Please do task {n}"},
                }
            )
        )
        transcript.apply(agent_chunk(SECTION.format(n=n) * 2, f"a{n}"))
        old = "\n".join(f"line {i}" for i in range(40))
        new = old.replace("line 7", f"line seven {n}").replace("line 30", "line thirty")
        transcript.apply(update({
            "sessionUpdate": "tool_call", "toolCallId": f"t{n}", "title": f"Edit file_{n}.py",
            "kind": "edit", "status": "completed",
            "locations": [{"path": f"/src/file_{n}.py", "line": 7}],
            "content": [{"type": "diff", "path": f"/src/file_{n}.py",
                         "oldText": old, "newText": new}],
        }))  # fmt: skip
        transcript.apply(update({"sessionUpdate": "plan", "entries": [
            {"content": f"step {i}", "priority": "medium", "status": "completed"} for i in range(3)
        ]}))  # fmt: skip
        transcript.add_notice(f"Turn {n} ended.")
    return transcript


async def transcript(sizes: tuple[int, int] = (100, 1000)) -> dict[str, Any]:
    """Time from show() to the first complete flush, and to render every line, for N blocks."""
    result: dict[str, Any] = {"bench": "transcript"}
    for blocks in sizes:
        model = mixed_transcript(blocks)
        app = ViewApp()
        async with app.run_test(size=(120, 40)) as pilot:
            view = app.query_one(TimedView)
            await pilot.pause()
            started = time.perf_counter()
            view.show(model)
            while not view.settled:  # noqa: ASYNC110 (polls the view)
                await asyncio.sleep(0)
            result[f"blocks_{blocks}_s"] = round(time.perf_counter() - started, 4)
            started = time.perf_counter()
            lines = len(view.plain_lines())
            result[f"full_render_{blocks}_s"] = round(time.perf_counter() - started, 4)
            result[f"lines_{blocks}"] = lines
    small, large = sizes
    result["ratio"] = round(result[f"blocks_{large}_s"] / result[f"blocks_{small}_s"], 2)
    result["full_render_ratio"] = round(
        result[f"full_render_{large}_s"] / result[f"full_render_{small}_s"], 2
    )
    result.update(await find(turns=1000))
    return result


async def find(turns: int) -> dict[str, Any]:
    """Ctrl+F on a ``turns``-turn transcript (5 blocks a turn): each keystroke of a query
    (count every match, jump to the first, render it), then stepping through the matches."""
    model = mixed_transcript(turns * 5)
    app = ViewApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(TimedView)
        await pilot.pause()
        view.show(model)
        while not view.settled:  # noqa: ASYNC110 (polls the view)
            await asyncio.sleep(0)
        view.jump(0)
        keystrokes: list[float] = []
        query = "handler_99"  # in every reply at first, then in a few
        for end in range(1, len(query) + 1):
            started = time.perf_counter()
            total, _ = view.find(query[:end])
            keystrokes.append(time.perf_counter() - started)
            await pilot.pause()
        first_total = view.find("handler")[0]
        steps: list[float] = []
        for _ in range(50):
            started = time.perf_counter()
            view.find_step(1)
            steps.append(time.perf_counter() - started)
            await pilot.pause()
    return {
        "find_turns": turns,
        "find_keystroke_max_ms": round(max(keystrokes) * 1000, 1),
        "find_keystroke_first_ms": round(keystrokes[0] * 1000, 1),
        "find_matches": first_total,
        "find_final_matches": total,
        "find_next_max_ms": round(max(steps) * 1000, 1),
    }
