"""Provides transcript_to_markdown and default_export_path: a transcript saved as Markdown.

No Textual or Rich here: the export is plain text built from the transcript model. Whatever
the agent sent, the document keeps its shape: code blocks use a fence longer than any run of
backticks in their content, fences the agent left open are closed, inline text is escaped and
control characters are made visible instead of live.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from acp_tui.client.safe_text import sanitize
from acp_tui.client.session.diff import unified_diff
from acp_tui.client.session.entries import (
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    ToolCallEntry,
    TranscriptEntry,
    Usage,
    block_text,
)
from acp_tui.client.session.transcript import Transcript
from acp_tui.client.tools.terminals import TerminalOutput
from acp_tui.config.atomic import write_atomic
from acp_tui.protocol.tools import (
    ContentToolCallContent,
    DiffToolCallContent,
    TerminalToolCallContent,
)

__all__ = ["default_export_path", "fence_for", "transcript_to_markdown", "write_export"]

_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~!])")
_BACKTICKS = re.compile("`+")
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def clean(text: str) -> str:
    """Control and bidi characters made visible (see ``sanitize``); CR LF becomes LF."""
    return sanitize(text)


def inline(text: str) -> str:
    """One line of literal text: whitespace collapsed, Markdown and HTML specials escaped."""
    return _INLINE_SPECIAL.sub(r"\\\1", " ".join(clean(text).split()))


def fence_for(text: str, char: str = "`") -> str:
    """A code fence longer than any run of backticks in ``text`` (at least three)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return char * max(3, longest + 1)


def code_block(text: str, info: str = "") -> str:
    body = clean(text).rstrip("\n")
    fence = fence_for(body)
    return f"{fence}{info}\n{body}\n{fence}"


def code_span(text: str) -> str:
    """Inline code that survives backticks in ``text``."""
    body = " ".join(clean(text).split())
    ticks = "`" * (max((len(run) for run in _BACKTICKS.findall(body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def close_open_fences(markdown: str) -> str:
    """Close a code fence the text left open, so it cannot swallow the rest of the document."""
    open_fence: str | None = None
    for line in markdown.split("\n"):
        match = _FENCE_LINE.match(line)
        if match is None:
            continue
        marker, rest = match.groups()
        if open_fence is None:
            if not (marker[0] == "`" and "`" in rest):
                open_fence = marker
        elif marker[0] == open_fence[0] and len(marker) >= len(open_fence) and not rest.strip():
            open_fence = None
    if open_fence is not None:
        return markdown.rstrip("\n") + "\n" + open_fence
    return markdown


def _message(entry: MessageEntry) -> str:
    text = clean(entry.text).strip("\n")
    if entry.role == "user":
        quoted = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
        return f"**You:**\n\n{quoted}"
    body = close_open_fences(text)
    if entry.role == "thought":
        body = re.sub(r"(?i)</details", "&lt;/details", body)
        return f"<details>\n<summary>Thought</summary>\n\n{body}\n\n</details>"
    return f"**Agent:**\n\n{body}"


def _diff(path: str, old: str | None, new: str) -> str:
    label = "New file" if old is None else "Edit"
    return f"{label}: {code_span(path)}\n\n" + code_block(unified_diff(path, old, new), "diff")


TerminalLookup = Callable[[str], TerminalOutput | None]
"""What a terminal printed, by id (None when it is not known any more)."""


def _terminal(terminal_id: str, lookup: TerminalLookup | None) -> str:
    shown = lookup(terminal_id) if lookup is not None else None
    if shown is None:
        return f"*Terminal {code_span(terminal_id)}: its output is no longer available.*"
    parts = []
    if shown.truncated:
        parts.append("*(the start of the output was cut)*")
    parts.append(code_block(shown.output or "", "text") if shown.output else "*(no output)*")
    if shown.exited:
        how = f"signal {shown.signal}" if shown.signal else f"exit code {shown.exit_code}"
        parts.append(f"*Exited with {how}.*")
    return "\n\n".join(parts)


def _tool_call(entry: ToolCallEntry, terminals: TerminalLookup | None = None) -> str:
    status = entry.status.replace("_", " ")
    parts = [f"### Tool: {inline(entry.title)} ({inline(entry.kind)}, {inline(status)})"]
    if entry.locations:
        parts.append(
            "\n".join(
                f"- {code_span(loc.path + (f':{loc.line}' if loc.line else ''))}"
                for loc in entry.locations
            )
        )
    for item in entry.content:
        if isinstance(item, DiffToolCallContent):
            parts.append(_diff(item.path, item.old_text, item.new_text))
        elif isinstance(item, TerminalToolCallContent):
            parts.append(_terminal(item.terminal_id, terminals))
        elif isinstance(item, ContentToolCallContent):
            parts.append(code_block(block_text(item.content), "text"))
        else:
            parts.append(f"*Tool output of type {code_span(str(item.type))} not exported.*")
    return "\n\n".join(parts)


def _plan(entry: PlanEntryBlock) -> str:
    lines = ["### Plan"]
    items = []
    for item in entry.entries:
        box = "x" if item.status == "completed" else " "
        extra = " *(in progress)*" if item.status == "in_progress" else ""
        if item.priority == "high":
            extra += " *(high priority)*"
        items.append(f"- [{box}] {inline(item.content)}{extra}")
    lines.append("\n".join(items) if items else "*(empty plan)*")
    return "\n\n".join(lines)


def _notice(entry: NoticeEntry) -> str:
    if entry.hint:
        return ""  # about the app (a key to press), not the conversation
    prefix = {"info": "", "warning": "Warning: ", "error": "Error: "}[entry.level]
    text = inline(prefix + entry.text)
    return f"*{text}*" if text else ""


def entry_to_markdown(entry: TranscriptEntry, terminals: TerminalLookup | None = None) -> str:
    """The Markdown of one transcript entry (no trailing newline; empty for an app hint)."""
    if isinstance(entry, MessageEntry):
        return _message(entry)
    if isinstance(entry, ToolCallEntry):
        return _tool_call(entry, terminals)
    if isinstance(entry, PlanEntryBlock):
        return _plan(entry)
    return _notice(entry)


def _usage(usage: Usage) -> str:
    text = f"{usage.used:,} of {usage.size:,} context tokens"
    if usage.cost_amount is not None:
        text += f", cost {usage.cost_amount:g} {usage.cost_currency or ''}".rstrip()
    return text


def transcript_to_markdown(
    transcript: Transcript,
    *,
    title: str | None = None,
    agent: str | None = None,
    cwd: str | None = None,
    exported_at: datetime | None = None,
    terminals: TerminalLookup | None = None,
) -> str:
    """The whole transcript as one Markdown document, ending with a newline; ``terminals``
    gives the output of the terminals its tool calls show."""
    heading = title or transcript.title or "ACP session"
    when = (exported_at or datetime.now().astimezone()).isoformat(timespec="seconds")
    meta = []
    if agent:
        meta.append(f"- **Agent:** {inline(agent)}")
    if cwd:
        meta.append(f"- **Working directory:** {code_span(cwd)}")
    meta.append(f"- **Session:** {code_span(transcript.session_id)}")
    meta.append(f"- **Exported at:** {when}")
    if transcript.usage is not None:
        meta.append(f"- **Usage:** {_usage(transcript.usage)}")
    blocks = [f"# {inline(heading)}", "\n".join(meta)]
    body = [text for entry in transcript.entries if (text := entry_to_markdown(entry, terminals))]
    blocks.extend(body if body else ["*(no messages)*"])
    return "\n\n".join(blocks) + "\n"


def slugify(text: str, limit: int = 60) -> str:
    """Lower-case ASCII words joined by dashes ('' when nothing usable is left)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:limit].rstrip("-")


def default_export_path(folder: Path, title: str | None, session_id: str) -> Path:
    """``folder/acp-transcript-<slug>.md``, with -2, -3... added rather than overwrite a file.

    The app offers acp-tui's own exports folder (the user's project is not written to unless
    they choose it in the dialog)."""
    slug = slugify(title or "") or slugify(session_id) or "session"
    stem = f"acp-transcript-{slug}"
    candidate = folder / f"{stem}.md"
    number = 2
    while candidate.exists():
        candidate = folder / f"{stem}-{number}.md"
        number += 1
    return candidate


def write_export(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file beside it, then a rename.

    An existing file is replaced whole or left untouched (OSError is the caller's to report).
    """
    write_atomic(path, text.encode("utf-8"))
