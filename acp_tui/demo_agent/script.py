"""Provides the keyword-driven, deterministic prompt turn of the demo agent.

The words of the prompt (case-insensitive, whole words) pick what the reply contains; several
combine, always in the order of ``KEYWORDS_HELP``. A prompt without any keyword is echoed back.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from typing import Any

import anyio

from acp_tui.demo_agent import asking, extras, tools
from acp_tui.demo_agent.turn import TurnContext, new_id

log = logging.getLogger(__name__)

KEYWORDS_HELP = """\
prompt keywords (case-insensitive whole words; several combine, in this order):
  think             agent_thought_chunk(s)
  plan              a 3-entry plan, updated as the turn progresses
  stream N          N agent_message_chunks of ~20 bytes, no delays (benchmarks)
  markdown, code    a markdown reply with a heading, a list and a python block
  diff, edit        an edit tool call: pending, in_progress, completed with diffs
  permission        session/request_permission with allow/reject once/always
  permission-none   session/request_permission offering no options at all
  permission-flood N [cancel K]
                    N concurrent session/request_permission requests, then the answers
                    in the order they came; with cancel K, request K is withdrawn
                    ($/cancel_request) once request 1 is answered
  ask               elicitation/create: a form with every kind of field, tied to a tool
                    call; the reply shows the answer
  ask-url [never|SECONDS] [URL]
                    elicitation/create in URL mode; elicitation/complete after SECONDS
                    (default 10), or never: then the answer alone ends it
  ask-flood N [cancel K]
                    N concurrent form elicitations, then the answers in the order they
                    came; with cancel K, question K is withdrawn once question 1 is answered
  ask-bad           elicitations a client must refuse (unknown session, unknown mode...)
  ask-slow          a form whose text field has a pattern made to backtrack for minutes
                    on its default (a hostile agent's way to freeze a client)
  read [PATH]       fs/read_text_file of PATH or <cwd>/README.md
  write             fs/write_text_file of <cwd>/demo-output.txt
  terminal, run [NAME=VALUE]...
                    terminal/create + wait_for_exit + output + release (v2: runs it
                    itself, shown with terminal_update + terminal_output_chunk); each
                    NAME=VALUE is set in the command's env
  slow              a slow reply, 50 ms between all chunks (for cancel tests)
  malformed         write a non-JSON line to stdout, then carry on
  huge              one 20 MB agent_message_chunk
  crash             stream a little, then exit with code 3 mid-turn
  hang              never finish until session/cancel
  usage             a usage_update with cost
  mcp               list the MCP servers the client gave this session
  image             reply with an image block (a 1x1 PNG)
  notice            three notice updates (info, warning, error), not recorded
  title [TEXT]      a session_info_update with a new title
  later             v2: once the turn has ended, a turn of the agent's own (running,
                    a message, idle)
  /help             this list
Without a keyword the agent echoes the prompt and the text of the resources it embeds. Every
turn records the user message, sets the title on the first prompt and ends with a usage_update."""

KEYWORDS = frozenset(
    {
        "think", "plan", "stream", "markdown", "code", "diff", "edit", "permission", "read",
        "write", "terminal", "run", "slow", "malformed", "huge", "crash", "hang", "usage", "title",
        "ask",
        "mcp", "image", "notice", "later",
    }
)  # fmt: skip
FLOOD = "permission-flood"
MAX_FLOOD = 500
_FLOOD = re.compile(r"\bpermission-flood\s+(\d+)(?:\s+cancel\s+(\d+))?", re.IGNORECASE)
ASK_URL = "ask-url"
ASK_FLOOD = "ask-flood"
ASK_BAD = "ask-bad"
ASK_SLOW = "ask-slow"
PERMISSION_NONE = "permission-none"
_ASK_URL = re.compile(
    r"\bask-url\b(?:[ \t]+(never|\d+(?:\.\d+)?)\b)?(?:[ \t]+([a-z][a-z0-9+.-]*:\S*))?",
    re.IGNORECASE,
)
_ASK_FLOOD = re.compile(r"\bask-flood\s+(\d+)(?:\s+cancel\s+(\d+))?", re.IGNORECASE)
_ASK_BAD = re.compile(r"\bask-bad\b", re.IGNORECASE)
_ASK_SLOW = re.compile(r"\bask-slow\b", re.IGNORECASE)
_PERMISSION_NONE = re.compile(r"\bpermission-none\b", re.IGNORECASE)
_TERMINAL_ENV = re.compile(
    r"\b(?:terminal|run)((?:[ \t]+[A-Za-z_][A-Za-z0-9_]*=\S*)+)", re.IGNORECASE
)

COMMANDS: list[dict[str, Any]] = [
    {"name": "help", "description": "List the demo agent's keywords"},
    {"name": "plan", "description": "Make a plan and follow it", "input": {"hint": "what to plan"}},
    {"name": "diff", "description": "Propose an edit as a diff"},
    {"name": "terminal", "description": "Run a command in a client terminal"},
]

SLOW_DELAY = 0.05
SLOW_CHUNKS = 20
HUGE_BYTES = 20 * 1024 * 1024
MAX_STREAM = 1_000_000
TITLE_CHARS = 60
LATER_TEXT = "Back again, on my own: a turn nobody prompted."
"""What the agent says in the turn it starts by itself after a ``later`` prompt (v2)."""

MARKDOWN_REPLY = """\
## A markdown reply

Here is what the demo agent can format:

- **bold**, *italic* and `inline code`
- a [link](https://agentclientprotocol.com)
  - and a nested item

```python
def greet(name: str) -> str:
    return f"Hello, {name}!"
```
"""

PLAN_ENTRIES = [
    ("Understand the request", "high"),
    ("Do the work", "medium"),
    ("Report back", "low"),
]


@dataclass(frozen=True, slots=True)
class Keywords:
    """What a prompt asks for."""

    words: frozenset[str]
    stream_count: int = 10
    read_path: str | None = None
    title_text: str | None = None
    help: bool = False
    flood_count: int = 0
    flood_cancel: int | None = None
    url_complete_after: float | None = asking.URL_COMPLETE_AFTER
    url: str | None = None
    ask_flood_count: int = 0
    ask_flood_cancel: int | None = None
    terminal_env: tuple[tuple[str, str], ...] = ()

    def has(self, *names: str) -> bool:
        return any(name in self.words for name in names)


def prompt_text(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(b["text"] for b in blocks if b.get("type") == "text")


def _cut(text: str, match: re.Match[str] | None) -> str:
    """``text`` without the match: a compound keyword's words are not keywords of their own."""
    return text if match is None else text[: match.start()] + text[match.end() :]


def parse(text: str) -> Keywords:
    flood = _FLOOD.search(text)
    text = _cut(text, flood)
    ask_url = _ASK_URL.search(text)
    text = _cut(text, ask_url)
    ask_flood = _ASK_FLOOD.search(text)
    text = _cut(text, ask_flood)
    ask_bad = _ASK_BAD.search(text)
    text = _cut(text, ask_bad)
    ask_slow = _ASK_SLOW.search(text)
    text = _cut(text, ask_slow)
    permission_none = _PERMISSION_NONE.search(text)
    text = _cut(text, permission_none)
    terminal_env = _TERMINAL_ENV.search(text)
    if terminal_env is not None:  # the variables' words are no keywords; `terminal` stays
        text = text[: terminal_env.start(1)] + text[terminal_env.end(1) :]
    words = frozenset(re.findall(r"[a-z]+", text.lower())) & KEYWORDS
    for name, match in ((FLOOD, flood), (ASK_URL, ask_url), (ASK_FLOOD, ask_flood)):
        if match is not None:
            words |= {name}
    if ask_bad is not None:
        words |= {ASK_BAD}
    if ask_slow is not None:
        words |= {ASK_SLOW}
    if permission_none is not None:
        words |= {PERMISSION_NONE}
    after: float | None = asking.URL_COMPLETE_AFTER
    if ask_url is not None and ask_url.group(1):
        after = None if ask_url.group(1).lower() == "never" else float(ask_url.group(1))
    count = re.search(r"\bstream\s+(\d+)", text, re.IGNORECASE)
    path = re.search(r"\bread\s+(\S+)", text, re.IGNORECASE)
    title = re.search(r"\btitle\b[ \t:]*([^\n]*)", text, re.IGNORECASE)
    return Keywords(
        words=words,
        stream_count=min(int(count.group(1)), MAX_STREAM) if count else 10,
        read_path=path.group(1) if path and os.path.isabs(path.group(1)) else None,
        title_text=(title.group(1).strip()[:TITLE_CHARS] or None) if title else None,
        help=text.strip().lower().startswith("/help"),
        flood_count=min(int(flood.group(1)), MAX_FLOOD) if flood else 0,
        flood_cancel=int(flood.group(2)) if flood and flood.group(2) else None,
        url_complete_after=after,
        url=ask_url.group(2) if ask_url is not None and ask_url.group(2) else None,
        ask_flood_count=min(int(ask_flood.group(1)), asking.MAX_ASK_FLOOD) if ask_flood else 0,
        ask_flood_cancel=int(ask_flood.group(2)) if ask_flood and ask_flood.group(2) else None,
        terminal_env=_variables(terminal_env.group(1)) if terminal_env else (),
    )


def _variables(text: str) -> tuple[tuple[str, str], ...]:
    """The ``NAME=VALUE`` words of ``text``, in order."""
    return tuple((name, value) for name, _, value in (w.partition("=") for w in text.split()))


def derive_title(text: str) -> str:
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    line = " ".join(line.split())
    if not line:
        return "Untitled session"
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


# -- steps without tools ------------------------------------------------------------------


class PlanTracker:
    """The plan entries' statuses, advanced as the turn goes."""

    def __init__(self, ctx: TurnContext) -> None:
        self.ctx = ctx
        self.done = 0

    async def send(self) -> None:
        statuses = [
            "completed" if i < self.done else "in_progress" if i == self.done else "pending"
            for i in range(len(PLAN_ENTRIES))
        ]
        await self.ctx.plan([(c, p, s) for (c, p), s in zip(PLAN_ENTRIES, statuses, strict=True)])

    async def advance(self, to: int) -> None:
        self.done = to
        await self.send()
        await self.ctx.pause()


async def stream_chunks(ctx: TurnContext, count: int) -> None:
    pieces = (
        f"Chunk {i:>5} of text. " + ("\n\n" if i % 10 == 0 else "") for i in range(1, count + 1)
    )
    await ctx.stream(pieces)


async def crash(ctx: TurnContext) -> None:
    await ctx.stream(["Crashing ", "in three, ", "two, ", "one…"])
    await ctx.exit_now(3, "acp-tui demo agent: crashing on purpose (keyword 'crash')")


async def huge(ctx: TurnContext) -> None:
    line = "This is a huge reply line, repeated to make a 20 MB chunk.\n"
    text = (line * (HUGE_BYTES // len(line) + 1))[:HUGE_BYTES]
    await ctx.stream([text])


# -- the turn -----------------------------------------------------------------------------


async def record_user(ctx: TurnContext, blocks: list[dict[str, Any]]) -> None:
    message_id = new_id("user")
    for block in blocks:
        await ctx.emit(
            {"sessionUpdate": "user_message_chunk", "messageId": message_id, "content": block}
        )


async def run_turn(ctx: TurnContext, blocks: list[dict[str, Any]]) -> str:
    """Play one prompt turn; returns its stop reason."""
    text = prompt_text(blocks)
    kw = parse(text)
    log.info("turn in %s with keywords %s", ctx.session_id, sorted(kw.words))
    await record_user(ctx, blocks)
    ctx.record.prompts += 1
    first_title = derive_title(text) if ctx.record.title is None else None
    await ctx.session_info(title=first_title, touch=True)
    if kw.has("slow"):
        ctx.delay = max(ctx.delay, SLOW_DELAY)
    if ctx.verbose:
        noticed = ", ".join(sorted(kw.words)) or "none"
        await ctx.think(f"Verbose mode. Keywords I noticed: {noticed}.")
    stop = await _steps(ctx, kw, text, blocks)
    if stop is not None:
        return stop
    ctx.record.tokens += (len(text) + ctx.reply_chars) // 4 + 1
    ctx.store.put(ctx.record)
    await ctx.usage()
    return "end_turn"


async def _steps(
    ctx: TurnContext, kw: Keywords, text: str, blocks: list[dict[str, Any]]
) -> str | None:
    await extras.describe_images(ctx, blocks)
    if kw.help:
        await ctx.say(f"The demo agent answers to these words:\n\n```\n{KEYWORDS_HELP}\n```\n")
    if kw.has("think"):
        await ctx.think("Let me think about this. ")
        await ctx.think(f"The prompt asks for: {', '.join(sorted(kw.words))}. I'll go in order.")
    plan = PlanTracker(ctx) if kw.has("plan") else None
    if plan is not None:
        await plan.advance(0)
        await ctx.say("Here is my plan.")
        await plan.advance(1)
    if kw.has("stream"):
        await stream_chunks(ctx, kw.stream_count)
    if kw.has("markdown", "code"):
        await ctx.stream(MARKDOWN_REPLY.splitlines(keepends=True))
    for stop in await _tool_steps(ctx, kw):
        if stop is not None:
            return stop
    if kw.has("slow"):
        await ctx.stream(f"Taking it slowly, step {i} of {SLOW_CHUNKS}.\n" for i in range(1, 21))
    if kw.has("malformed"):
        await ctx.write_raw(b"this line is not JSON-RPC {oops\n")
        await ctx.say("I just wrote a line that is not JSON to stdout; a client should skip it.")
    if kw.has("huge"):
        await huge(ctx)
    if kw.has("crash"):
        await crash(ctx)
    if kw.has("hang"):
        await ctx.say("I will hang until you cancel this turn.")
        await anyio.sleep_forever()
    if kw.has("usage"):
        await ctx.say("Here is how much of the context this session uses.")
        await ctx.usage()
    if kw.has("mcp"):
        await extras.mcp(ctx)
    if kw.has("image"):
        await extras.image(ctx)
    if kw.has("notice"):
        await extras.notices(ctx)
    if kw.has("title"):
        await ctx.session_info(title=kw.title_text or f"{ctx.record.title} (renamed)")
    if plan is not None:
        await plan.advance(2)
    if not kw.words and not kw.help:
        await extras.echo(ctx, text, blocks)
    if plan is not None:
        await plan.advance(3)
        await ctx.say("All done.")
    return None


async def _tool_steps(ctx: TurnContext, kw: Keywords) -> list[str | None]:
    """The tool steps in order; stops at the first that ends the turn."""
    results: list[str | None] = []
    steps = [
        (("diff", "edit"), tools.diff),
        (("permission",), tools.permission),
        ((FLOOD,), lambda c: tools.permission_flood(c, kw.flood_count, kw.flood_cancel)),
        (("ask",), asking.ask),
        ((ASK_URL,), lambda c: asking.ask_url(c, kw.url_complete_after, kw.url)),
        ((ASK_FLOOD,), lambda c: asking.ask_flood(c, kw.ask_flood_count, kw.ask_flood_cancel)),
        ((ASK_BAD,), asking.ask_bad),
        ((ASK_SLOW,), asking.ask_slow),
        ((PERMISSION_NONE,), lambda c: tools.permission(c, [])),
        (("read",), lambda c: tools.read(c, kw.read_path)),
        (("write",), tools.write),
        (("terminal", "run"), lambda c: tools.terminal(c, kw.terminal_env)),
    ]
    for names, step in steps:
        if kw.has(*names):
            results.append(await step(ctx))
            if results[-1] is not None:
                break
    return results
