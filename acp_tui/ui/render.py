"""Provides the Rich renderables for transcript entries (no widgets here).

Agent text is never interpreted as markup or terminal escapes: control characters are made
visible by :func:`sanitize` and text is built with ``Text(...)``, never ``from_markup``.
Colours come from the transcript view's component classes, which the theme styles.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.padding import Padding
from rich.style import Style
from rich.text import Text

from acp_tui.client.terminals import TerminalOutput
from acp_tui.client.transcript import (
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    ToolCallEntry,
    TranscriptEntry,
)
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.tools import (
    ContentToolCallContent,
    DiffToolCallContent,
    TerminalToolCallContent,
)

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures" block
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def sanitize(text: str) -> str:
    """Make control characters (escape sequences included) visible instead of live."""
    return _CONTROL.sub(_visible, text)


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
    return Markdown(text, code_theme=styles.code_theme, hyperlinks=False)


def _render_tool_call(entry: ToolCallEntry, options: RenderOptions) -> RenderableType:
    styles = options.styles
    icon = STATUS_ICONS.get(entry.status, "?")
    header = Text(f"{icon} ", style=styles.tool)
    header.append(sanitize(entry.title), style=styles.tool)
    header.append(f"  {entry.kind} · {entry.status.replace('_', ' ')}", style=styles.tool_meta)
    parts: list[RenderableType] = [header]
    for location in entry.locations:
        where = sanitize(location.path) + (f":{location.line}" if location.line else "")
        parts.append(Text(f"  {where}", style=styles.tool_meta))
    for item in entry.content:
        if isinstance(item, DiffToolCallContent):
            parts.append(render_diff(item.path, item.old_text, item.new_text, styles))
        elif isinstance(item, TerminalToolCallContent):
            parts.append(_render_terminal(item.terminal_id, options))
        elif isinstance(item, ContentToolCallContent):
            block = item.content
            body = (
                block.text if isinstance(block, TextContent) else f"[{getattr(block, 'type', '?')}]"
            )
            parts.append(Padding(Text(sanitize(body)), (0, 0, 0, 2)))
        else:
            kind = getattr(item, "type", "?")
            parts.append(Text(f"  [tool output of kind {kind!r} not shown]", style=styles.notice))
    return Group(*parts)


def render_diff(path: str, old: str | None, new: str, styles: Styles) -> Text:
    """A coloured unified diff; a ``None`` old text means a new file."""
    label = "new file" if old is None else "edit"
    lines = difflib.unified_diff(
        (old or "").splitlines(),
        new.splitlines(),
        fromfile="/dev/null" if old is None else path,
        tofile=path,
        lineterm="",
    )
    text = Text(f"  {label}: {sanitize(path)}\n", style=styles.tool_meta)
    for line in lines:
        style = Style()
        if line.startswith("+") and not line.startswith("+++"):
            style = styles.diff_add
        elif line.startswith("-") and not line.startswith("---"):
            style = styles.diff_remove
        elif line.startswith("@@"):
            style = styles.diff_hunk
        text.append("  " + sanitize(line) + "\n", style=style)
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
    for item in entry.entries:
        icon = PLAN_ICONS.get(item.status, "?")
        text.append(f"  {icon} {sanitize(item.content)}", style=_plan_style(item.status, styles))
        if item.priority == "high":
            text.append("  (high)", style=styles.tool_meta)
        text.append("\n")
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
