"""Provides the Rich renderables for transcript entries and message pieces (no widgets here).

Agent text is never interpreted as markup or terminal escapes: control characters are made
visible by :func:`sanitize` and text is built with ``Text(...)``, never ``from_markup``.
Colours come from the transcript view's component classes, which the theme styles.

Messages are cut by `acp_tui.ui.transcript.pieces.BlockScanner` into bounded pieces, which
:func:`render_piece` and :func:`render_plain_piece` render one at a time.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text

from acp_tui.client.session.changes import ChangesContent
from acp_tui.client.session.diff import unified_diff
from acp_tui.client.session.entries import (
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    ToolCallEntry,
    TranscriptEntry,
)
from acp_tui.client.tools.terminals import TerminalOutput
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.tools import (
    ContentToolCallContent,
    DiffToolCallContent,
    TerminalToolCallContent,
)
from acp_tui.ui.plain_text import LABEL_LIMIT, LIST_LIMIT, TEXT_LIMIT, more_text, sanitize
from acp_tui.ui.transcript.pieces import Piece


class Styles(NamedTuple):
    """Rich styles for each part of the transcript, read from the theme by the view."""

    user: Style = Style(bold=True)
    user_text: Style = Style()
    thought: Style = Style(dim=True, italic=True)
    tool: Style = Style(bold=True)
    tool_meta: Style = Style(dim=True)
    diff_add: Style = Style(color="green")
    diff_remove: Style = Style(color="red")
    diff_hunk: Style = Style(color="cyan")
    notice: Style = Style(dim=True, italic=True)
    warning: Style = Style(color="yellow")
    error: Style = Style(color="red", bold=True)
    inline_code: Style = Style(bold=True, color="cyan")
    """Markdown's `inline code` (Rich's own "on black" is harsh on a light theme)."""
    code_theme: str = "monokai"


STATUS_ICONS = {
    "pending": "○",
    "in_progress": "◐",
    "completed": "●",
    "failed": "✗",
    "cancelled": "⊘",
}
PLAN_ICONS = {"pending": "☐", "in_progress": "◐", "completed": "☑"}

TerminalLookup = Callable[[str], TerminalOutput | None]


@dataclass(frozen=True, slots=True)
class RenderOptions:
    styles: Styles
    show_thoughts: bool = True
    terminal: TerminalLookup | None = None


def render_entry(entry: TranscriptEntry, options: RenderOptions) -> RenderableType:
    """The renderable for one transcript entry."""
    if isinstance(entry, MessageEntry):
        return _render_message(entry, options)
    if isinstance(entry, ToolCallEntry):
        return _render_tool_call(entry, options)
    if isinstance(entry, PlanEntryBlock):
        return _render_plan(entry, options.styles)
    return _render_notice(entry, options.styles)


def _render_message(entry: MessageEntry, options: RenderOptions) -> RenderableType:
    styles = options.styles
    text = sanitize(entry.text)
    if entry.role == "user":
        line = Text("❯ ", style=styles.user)
        line.append(text, style=styles.user_text)
        return line
    if entry.role == "thought":
        if not options.show_thoughts:
            return Text("💭 (thought hidden)", style=styles.thought)
        return Padding(Text(text, style=styles.thought), (0, 0, 0, 2))
    from rich.markdown import Markdown  # deferred: not needed for the first frame

    return Markdown(text, code_theme=styles.code_theme, hyperlinks=False)


def _render_tool_call(entry: ToolCallEntry, options: RenderOptions) -> RenderableType:
    styles = options.styles
    icon = STATUS_ICONS.get(entry.status, "?")
    header = Text(f"{icon} ", style=styles.tool)
    header.append(sanitize(entry.title, TEXT_LIMIT), style=styles.tool)
    meta = f"{entry.kind} · {entry.status.replace('_', ' ')}"
    if entry.name:  # the tool's programmatic name, already sanitized by the transcript
        meta = f"{entry.name} · {meta}"
    header.append(f"  {meta}", style=styles.tool_meta)
    parts: list[RenderableType] = [header]
    for location in entry.locations[:LIST_LIMIT]:
        where = sanitize(location.path, LABEL_LIMIT) + (
            f":{location.line}" if location.line else ""
        )
        parts.append(Text(f"  {where}", style=styles.tool_meta))
    hidden_locations = max(0, len(entry.locations) - LIST_LIMIT) + entry.locations_not_kept
    if hidden_locations:
        hidden = more_text(hidden_locations, "locations")
        parts.append(Text(f"  {hidden}", style=styles.tool_meta))
    for item in entry.content[:LIST_LIMIT]:
        if isinstance(item, DiffToolCallContent):
            parts.append(render_diff(item.path, item.old_text, item.new_text, styles))
        elif isinstance(item, TerminalToolCallContent):
            parts.append(_render_terminal(item.terminal_id, options))
        elif isinstance(item, ChangesContent):
            parts.append(render_changes(item, styles))
        elif isinstance(item, ContentToolCallContent):
            block = item.content
            body = (
                block.text if isinstance(block, TextContent) else f"[{getattr(block, 'type', '?')}]"
            )
            parts.append(Padding(Text(sanitize(clip_lines(body))), (0, 0, 0, 2)))
        else:
            kind = getattr(item, "type", "?")
            parts.append(Text(f"  [tool output of kind {kind!r} not shown]", style=styles.notice))
    if len(entry.content) > LIST_LIMIT:
        hidden = more_text(len(entry.content) - LIST_LIMIT, "pieces of tool output")
        parts.append(Text(f"  {hidden}", style=styles.tool_meta))
    return Group(*parts)


MAX_TOOL_LINES = 400
MAX_TOOL_CHARS = 64_000
MAX_DIFF_INPUT = 400_000


def clip_lines(text: str, lines: int = MAX_TOOL_LINES, chars: int = MAX_TOOL_CHARS) -> str:
    """At most ``lines`` lines and ``chars`` characters of ``text``, saying what was left out."""
    head = text[:chars]
    kept = head.split("\n", lines)
    if len(kept) > lines:
        head = "\n".join(kept[:lines])
    if len(head) == len(text):
        return text
    rest = text.count("\n", len(head)) + 1
    return f"{head}\n… ({rest} more lines, {len(text) - len(head)} more characters not shown)"


def render_changes(item: ChangesContent, styles: Styles) -> Text:
    """A v2 diff: one line per changed file, then its git patch coloured as a diff."""
    text = Text()
    for change in item.changes:
        where = f"{change.old_path} → {change.path}" if change.old_path else change.path
        text.append(f"  {change.operation}: {sanitize(str(where))}\n", style=styles.tool_meta)
    if item.patch is not None:
        text.append_text(colour_patch(item.patch.text, styles))
    text.rstrip()
    return text


def colour_patch(patch: str, styles: Styles) -> Text:
    """A unified diff or git patch, coloured line by line and clipped like any tool output."""
    text = Text()
    for count, line in enumerate(patch.splitlines()):
        if count >= MAX_TOOL_LINES:
            text.append("  … (diff clipped)\n", style=styles.tool_meta)
            break
        style = Style()
        if line.startswith("+") and not line.startswith("+++"):
            style = styles.diff_add
        elif line.startswith("-") and not line.startswith("---"):
            style = styles.diff_remove
        elif line.startswith("@@"):
            style = styles.diff_hunk
        text.append("  " + sanitize(line) + "\n", style=style)
    return text


def render_diff(path: str, old: str | None, new: str, styles: Styles) -> Text:
    """A coloured unified diff; a ``None`` old text means a new file.

    Big inputs are not diffed (difflib is quadratic at worst) and long diffs are clipped, so a
    tool call with a huge file never stalls the view.
    """
    label = "new file" if old is None else "edit"
    if len(old or "") + len(new) > MAX_DIFF_INPUT:
        summary = f"  {label}: {sanitize(path)} (too large to show: {len(new)} characters)"
        return Text(summary, style=styles.tool_meta)
    text = Text(f"  {label}: {sanitize(path)}\n", style=styles.tool_meta)
    text.append_text(colour_patch(unified_diff(path, old, new), styles))
    text.rstrip()
    return text


def _render_terminal(terminal_id: str, options: RenderOptions) -> RenderableType:
    styles = options.styles
    output = options.terminal(terminal_id) if options.terminal else None
    if output is None:
        return Text(f"  terminal {terminal_id}: no output yet", style=styles.tool_meta)
    body = Text()
    if output.truncated:
        body.append("  … (earlier output truncated)\n", style=styles.tool_meta)
    for line in output.output.splitlines()[-200:]:
        body.append("  │ " + sanitize(line) + "\n")
    if output.exited:
        how = (
            f"exit code {output.exit_code}" if output.signal is None else f"signal {output.signal}"
        )
        body.append(f"  └ {how}", style=styles.tool_meta)
    else:
        body.append("  └ running…", style=styles.tool_meta)
    return body


def _render_plan(entry: PlanEntryBlock, styles: Styles) -> RenderableType:
    text = Text("Plan\n", style=styles.tool)
    for item in entry.entries[:LIST_LIMIT]:
        icon = PLAN_ICONS.get(item.status, "?")
        content = sanitize(item.content, TEXT_LIMIT)
        text.append(f"  {icon} {content}", style=_plan_style(item.status, styles))
        if item.priority == "high":
            text.append("  (high)", style=styles.tool_meta)
        text.append("\n")
    hidden_entries = max(0, len(entry.entries) - LIST_LIMIT) + entry.not_kept
    if hidden_entries:
        hidden = more_text(hidden_entries, "plan entries")
        text.append(f"  {hidden}", style=styles.tool_meta)
    text.rstrip()
    return text


def _plan_style(status: str, styles: Styles) -> Style:
    return styles.tool_meta if status == "completed" else Style()


def _render_notice(entry: NoticeEntry, styles: Styles) -> RenderableType:
    style = {"info": styles.notice, "warning": styles.warning, "error": styles.error}[entry.level]
    if entry.quiet:
        style = styles.tool_meta  # in passing: an update the agent sent was skipped
    return Text(sanitize(entry.text), style=style)


def render_json(value: Any) -> str:
    """Raw tool input/output as compact text, for the details view."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)[:4000]
    except (TypeError, ValueError):
        return repr(value)[:4000]


def render_piece(piece: Piece, styles: Styles) -> RenderableType:
    """The renderable of a markdown or code piece."""
    # Deferred imports: markdown-it and pygments are not needed for the first frame.
    from rich.markdown import Markdown
    from rich.syntax import Syntax

    if piece.kind == "code":
        padding = (1 if piece.first else 0, 1, 1 if piece.last else 0, 1)
        code = sanitize(piece.text).rstrip("\n")
        return Syntax(code, piece.info, theme=styles.code_theme, word_wrap=True, padding=padding)
    text = f"{piece.info}\n{piece.text}" if piece.info else piece.text
    return Markdown(sanitize(text), code_theme=styles.code_theme, hyperlinks=False)


def render_plain_piece(piece: Piece, role: str, styles: Styles) -> RenderableType:
    """A piece of a user message, a thought or a reply shown as plain text (no Markdown in
    it, or the ``markdown`` setting says "never"): literal text, line breaks kept."""
    body = sanitize(piece.text).rstrip("\n")
    if role == "agent":  # padded to the width, as a Markdown paragraph is
        return Padding(Text(body), (0, 0, 0, 0))
    if role == "user":
        if piece.first:
            line = Text("❯ ", style=styles.user)
            line.append(body, style=styles.user_text)
            return line
        return Padding(Text(body, style=styles.user_text), (0, 0, 0, 2))
    return Padding(Text(body, style=styles.thought), (0, 0, 0, 2))


def render_thought_header(preview: str, expanded: bool, styles: Styles) -> Text:
    """The one line that stands for a thought; clicking it expands or collapses the thought."""
    if expanded:
        return Text("💭 thought — click to collapse", style=styles.thought, no_wrap=True)
    words = " ".join(sanitize(preview, LABEL_LIMIT).split())
    text = Text("💭 thought — click to expand", style=styles.thought, no_wrap=True)
    if words:
        text.append(f": {words}", style=styles.tool_meta)
    text.overflow = "ellipsis"
    return text


warmed_up = threading.Event()
_warm_up_lock = threading.Lock()


def warm_up_in_background() -> None:
    """Load markdown-it and pygments (and compile a lexer) in a thread, once per process.

    They cost ~100 ms on first use; paid in a thread after the first frame, that is never a
    stall of the event loop when the first reply streams in.
    """
    with _warm_up_lock:
        if getattr(warm_up_in_background, "started", False):
            return
        warm_up_in_background.started = True  # type: ignore[attr-defined]
    threading.Thread(target=_warm_up, name="acp-tui-warm-up", daemon=True).start()


def _warm_up() -> None:
    from rich.console import Console

    from acp_tui.store.transcripts import warm_up_replay

    warm_up_replay()  # a session reopened shows its local copy's end at once

    try:
        console = Console(file=io.StringIO(), width=80, color_system="truecolor")
        sample = "# *Warm* up\n\n- a `b` [c](d)\n\n```python\ndef f(x):\n    return x\n```\n"
        console.print(render_piece(Piece("md", sample), Styles()))
        for theme in ("monokai", "default"):
            code = Piece("code", "def f(x: int) -> str:\n    return 'x'\n", info="python")
            console.print(render_piece(code, Styles(code_theme=theme)))
    finally:
        warmed_up.set()
