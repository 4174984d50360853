"""Provides the Rich renderables for transcript entries, and BlockScanner (no widgets here).

Agent text is never interpreted as markup or terminal escapes: control characters are made
visible by :func:`sanitize` and text is built with ``Text(...)``, never ``from_markup``.
Colours come from the transcript view's component classes, which the theme styles.

Messages are cut by :class:`BlockScanner` into bounded units (markdown groups, pieces of code
fences, pieces of plain text) so that a view renders each unit once and re-renders only the
growing last one; no unit is ever larger than a few kilobytes, whatever the message's size.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text

from acp_tui.client.session.changes import ChangesContent
from acp_tui.client.session.diff import unified_diff
from acp_tui.client.session.transcript import (
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
    if len(entry.locations) > LIST_LIMIT:
        hidden = more_text(len(entry.locations) - LIST_LIMIT, "locations")
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
    if len(entry.entries) > LIST_LIMIT:
        hidden = more_text(len(entry.entries) - LIST_LIMIT, "plan entries")
        text.append(f"  {hidden}", style=styles.tool_meta)
    text.rstrip()
    return text


def _plan_style(status: str, styles: Styles) -> Style:
    return styles.tool_meta if status == "completed" else Style()


def _render_notice(entry: NoticeEntry, styles: Styles) -> RenderableType:
    style = {"info": styles.notice, "warning": styles.warning, "error": styles.error}[entry.level]
    return Text(sanitize(entry.text), style=style)


def render_json(value: Any) -> str:
    """Raw tool input/output as compact text, for the details view."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)[:4000]
    except (TypeError, ValueError):
        return repr(value)[:4000]


# -- messages cut into bounded pieces -------------------------------------------------------

PieceKind = Literal["md", "code", "plain"]

MD_LINES = 60
MD_CHARS = 6_000
GROUP_CHARS = 1_500
CODE_LINES = 40
CODE_CHARS = 2_400
PLAIN_LINES = 80
PLAIN_CHARS = 6_000
_FENCES = ("```", "~~~")


@dataclass(slots=True)
class Piece:
    """One bounded part of a message, as :class:`BlockScanner` cut it."""

    kind: PieceKind
    text: str
    glue: bool = False  # continues the previous piece: no blank line between them
    first: bool = True  # code: holds the opening fence; plain: starts the message
    last: bool = True  # code: holds the closing fence
    info: str = ""  # code: the lexer; md: an indented fence line to reopen (cut inside it)


def _marker(stripped: str) -> str:
    """The run of backticks or tildes that opens a fence."""
    return stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(marker) and stripped == stripped[0] * len(stripped)


def _cut(text: str, start: int, limit: int) -> int:
    """Where to cut one over-long line: after the last space before ``limit``, else at it."""
    space = text.rfind(" ", start, limit)
    return space + 1 if space > start else limit


class BlockScanner:
    """Cuts a growing message into bounded pieces, at the same places however it streams in.

    Markdown is cut at blank lines outside code fences once a group holds ``GROUP_CHARS``
    characters, around fences that start in column 0 (rendered as code pieces), and, for one
    giant paragraph or fence, every few dozen lines or kilobytes. Plain text is cut by lines.
    Only whole lines decide a cut, so a piece once returned is final. The scanner keeps the
    unconsumed text only; :meth:`compact` drops what was consumed.
    """

    def __init__(self, markdown: bool) -> None:
        self.markdown = markdown
        self.buffer = ""
        self.start = 0
        self.glue = False
        self.code: tuple[str, str] | None = None  # (marker, lexer) inside a column-0 fence
        self.code_first = True
        self.reopen = ""  # the indented fence line the current markdown piece starts inside

    def feed(self, text: str) -> None:
        self.buffer += text

    def compact(self) -> None:
        if self.start:
            self.buffer = self.buffer[self.start :]
            self.start = 0

    @property
    def pending(self) -> int:
        """Characters not yet returned as complete pieces."""
        return len(self.buffer) - self.start

    def next_piece(self) -> Piece | None:
        """The next complete piece, or None when what is left may still grow."""
        if not self.markdown:
            return self._plain()
        if self.code is not None:
            return self._code()
        return self._markdown()

    def tail(self) -> Piece | None:
        """What is left, as a provisional piece (the still-growing end of the message)."""
        text = self.buffer[self.start :]
        if self.code is not None:
            if not text and not self.code_first:
                return None
            return Piece("code", text, self.glue, self.code_first, True, self.code[1])
        if not text:
            return None
        if not self.markdown:
            return Piece("plain", text, self.glue, not self.glue)
        return Piece("md", text, self.glue, info=self.reopen)

    def _whole_lines(self, max_lines: int, max_chars: int) -> int | None:
        """The end of the longest run of whole lines within the caps, if a cut is due."""
        buf, start = self.buffer, self.start
        limit = start + max_chars
        end, lines = start, 0
        while lines < max_lines:
            newline = buf.find("\n", end, limit)
            if newline < 0:
                break
            end, lines = newline + 1, lines + 1
        if lines >= max_lines or (len(buf) >= limit and end > start):
            return end
        if len(buf) > limit:
            return _cut(buf, start, limit)
        return None

    def _take(self, kind: PieceKind, end: int, *, next_glue: bool, **fields: Any) -> Piece:
        piece = Piece(kind, self.buffer[self.start : end], self.glue, **fields)
        self.start, self.glue = end, next_glue
        return piece

    def _plain(self) -> Piece | None:
        end = self._whole_lines(PLAIN_LINES, PLAIN_CHARS)
        if end is None:
            return None
        return self._take("plain", end, next_glue=True, first=not self.glue)

    def _code(self) -> Piece | None:
        assert self.code is not None
        marker, lexer = self.code
        buf, start = self.buffer, self.start
        position, limit = start, start + CODE_CHARS
        for _ in range(CODE_LINES):
            newline = buf.find("\n", position, limit)
            if newline < 0:
                break
            if _closes(buf[position:newline], marker):
                piece = Piece("code", buf[start:position], self.glue, self.code_first, True, lexer)
                self.start, self.glue, self.code = newline + 1, False, None
                return piece
            position = newline + 1
        end = self._whole_lines(CODE_LINES, CODE_CHARS)
        if end is None:
            return None
        first, self.code_first = self.code_first, False
        return self._take("code", end, next_glue=True, first=first, last=False, info=lexer)

    def _markdown(self) -> Piece | None:
        buf, start = self.buffer, self.start
        opened = self.reopen.lstrip()
        fence = _marker(opened) if opened else None
        position, limit, lines = start, start + MD_CHARS, 0
        while lines < MD_LINES:
            newline = buf.find("\n", position, limit)
            if newline < 0:
                break
            line = buf[position:newline]
            stripped = line.lstrip()
            if fence is None and line.startswith(_FENCES):
                if position > start:
                    return self._markdown_piece(position, "")
                marker = _marker(line)
                self.code = (marker, line[len(marker) :].strip().partition(" ")[0] or "text")
                self.code_first, self.start = True, newline + 1
                return self._code()
            if fence is None and stripped.startswith(_FENCES):
                fence, opened = _marker(stripped), line
            elif fence is None and not stripped and newline + 1 - start >= GROUP_CHARS:
                return self._markdown_piece(newline + 1, "", glue=False)
            elif fence is not None and _closes(line, fence):
                fence = None
            position, lines = newline + 1, lines + 1
        if lines >= MD_LINES or (len(buf) >= limit and position > start):
            return self._markdown_piece(position, opened if fence else "")
        if len(buf) > limit:
            return self._markdown_piece(_cut(buf, start, limit), opened if fence else "")
        return None

    def _markdown_piece(self, end: int, reopen: str, *, glue: bool = True) -> Piece:
        piece = self._take("md", end, next_glue=glue, info=self.reopen)
        self.reopen = reopen
        if not reopen and end < len(self.buffer) and self.buffer.startswith(_FENCES, end):
            self.glue = False
        return piece


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
    """A piece of a user message or a thought: literal text, never markdown."""
    body = sanitize(piece.text).rstrip("\n")
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

    try:
        console = Console(file=io.StringIO(), width=80, color_system="truecolor")
        sample = "# *Warm* up\n\n- a `b` [c](d)\n\n```python\ndef f(x):\n    return x\n```\n"
        console.print(render_piece(Piece("md", sample), Styles()))
        for theme in ("monokai", "default"):
            code = Piece("code", "def f(x: int) -> str:\n    return 'x'\n", info="python")
            console.print(render_piece(code, Styles(code_theme=theme)))
    finally:
        warmed_up.set()
