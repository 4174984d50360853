"""Provides the entries of a transcript (messages, tool calls, the plan, notices) and the text
of content blocks; also Usage and AgentNotice, which a transcript holds or passes on besides.

Plain data: `acp_tui.client.session.transcript.Transcript` builds and changes the entries from
`session/update` notifications; views and exports read them. Each entry's ``revision`` grows
on every change (:meth:`Entry.touch`), so a view re-renders only the entries that changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import unquote

from acp_tui.client.safe_text import sanitize
from acp_tui.protocol.content import (
    AudioContent,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from acp_tui.protocol.held import not_kept
from acp_tui.protocol.tools import ToolCallContent, ToolCallLocation
from acp_tui.protocol.updates import (
    SessionNotice,
    SessionUpdate,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)

Role = Literal["user", "agent", "thought"]
Level = Literal["info", "warning", "error"]


def block_text(block: ContentBlock) -> str:
    """A readable text form of any content block (non-text blocks become a short label)."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ResourceLink):
        return f"[{block.name}]({block.uri})"
    if isinstance(block, EmbeddedResource):
        res = block.resource
        if isinstance(res, TextResourceContents):
            return f"[{res.uri}]"
        return f"[binary resource {res.uri}]"
    if isinstance(block, ImageContent):
        return image_label(block)
    if isinstance(block, AudioContent):
        return f"[audio {block.mime_type}]"
    return f"[unsupported content: {getattr(block, 'type', '?')}]"


def format_size(count: int) -> str:
    """A byte count for people: ``512 B``, ``1.5 KB``, ``2.0 MB``."""
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def image_label(block: ImageContent) -> str:
    """The placeholder an image is shown as: its name (for a file), type and decoded size."""
    data = block.data
    size = max(len(data) * 3 // 4 - data[-2:].count("="), 0) if data else 0
    left_out = not_kept(block, "data")  # too big to keep (acp_tui.protocol.held)
    name = unquote(block.uri.rsplit("/", 1)[-1]) if block.uri else ""
    label = " ".join(part for part in ("image", sanitize(name, 60)) if part)
    size_text = f"{format_size(left_out)}, not kept" if left_out else format_size(size)
    return f"[{label} · {sanitize(block.mime_type, 40)} · {size_text}]"


ChangeKind = Literal["appended", "updated", "state", "meta"]


@dataclass(frozen=True, slots=True)
class Change:
    """What changed in a transcript: an entry (by index) or session state such as title, modes
    or usage."""

    kind: ChangeKind
    index: int | None = None
    what: str = ""


@dataclass(eq=False, slots=True)
class Entry:
    """Base of transcript entries; ``revision`` grows on every change."""

    revision: int = field(default=0, init=False)

    def touch(self) -> None:
        self.revision += 1


@dataclass(eq=False, slots=True)
class MessageEntry(Entry):
    """A user message, an agent message or a thought, assembled from chunks."""

    role: Role = "agent"
    message_id: str | None = None
    parts: list[str] = field(default_factory=list)
    blocks: list[ContentBlock] = field(default_factory=list)
    _text: str | None = field(default=None, repr=False)

    @classmethod
    def of(cls, role: Role, message_id: str | None, blocks: Sequence[ContentBlock]) -> MessageEntry:
        """A new message holding ``blocks`` (revision 0: the transcript touches it)."""
        entry = cls(role=role, message_id=message_id)
        for block in blocks:
            entry.blocks.append(block)
            entry.parts.append(entry._part(block))
        return entry

    def append(self, block: ContentBlock) -> None:
        self.blocks.append(block)
        self.parts.append(self._part(block))
        self._text = None
        self.touch()

    def set_blocks(self, blocks: Sequence[ContentBlock]) -> None:
        """Replace the whole content (not touched: the caller says what else changed)."""
        self.blocks, self.parts = [], []
        for block in blocks:
            self.blocks.append(block)
            self.parts.append(self._part(block))
        self._text = None

    def _part(self, block: ContentBlock) -> str:
        """The block's text; a label (an attachment, an image) is set apart from the text
        before it by a space, where text chunks are joined as they come."""
        text = block_text(block)
        if isinstance(block, TextContent) or not self.parts or self.parts[-1][-1:].isspace():
            return text
        return " " + text

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self.parts)
        return self._text


@dataclass(eq=False, slots=True)
class ToolCallEntry(Entry):
    """A tool call, upserted by id; fields are replaced when an update sets them."""

    tool_call_id: str = ""
    title: str = "Tool call"
    kind: str = "other"
    status: str = "pending"
    content: list[ToolCallContent] = field(default_factory=list)
    locations: list[ToolCallLocation] = field(default_factory=list)
    locations_not_kept: int = 0
    """Locations beyond those kept (`acp_tui.protocol.held`): counted, not held."""
    content_not_kept: int = 0
    raw_input: Any = None
    raw_output: Any = None
    name: str | None = None
    """The programmatic name of the tool (UNSTABLE ``name``), when the agent sends one."""

    def fill(self, update: ToolCallStart | ToolCallProgress) -> None:
        """Take the fields ``update`` sets (not touched: the transcript does that)."""
        fields = update.model_fields_set
        if update.title is not None and ("title" in fields or isinstance(update, ToolCallStart)):
            self.title = update.title
        if update.kind is not None:
            self.kind = update.kind
        if update.status is not None:
            self.status = update.status
        if "content" in fields and update.content is not None:
            self.content = list(update.content)
            self.content_not_kept = not_kept(update, "content")
        if "locations" in fields and update.locations is not None:
            self.locations = list(update.locations)
            self.locations_not_kept = not_kept(update, "locations")
        if "raw_input" in fields:
            self.raw_input = update.raw_input
        if "raw_output" in fields:
            self.raw_output = update.raw_output
        if "name" in fields:  # null clears it (patch semantics)
            name = update.name
            self.name = sanitize(name, 80) if isinstance(name, str) and name else None


class PlanItem(Protocol):
    """One plan entry as the transcript shows it (a wire ``PlanEntry`` or a ``PlanEntryView``)."""

    @property
    def content(self) -> str: ...

    @property
    def priority(self) -> str: ...

    @property
    def status(self) -> str: ...


@dataclass(eq=False, slots=True)
class PlanEntryView:
    content: str
    priority: str
    status: str


@dataclass(eq=False, slots=True)
class PlanEntryBlock(Entry):
    """The agent's plan; each plan update replaces the entries whole.

    The entries are the wire models themselves: copying 200,000 of them into views would hold
    the event loop for seconds."""

    entries: Sequence[PlanItem] = field(default_factory=list)
    not_kept: int = 0
    """Entries beyond those kept (`acp_tui.protocol.held`): counted, not held."""


@dataclass(eq=False, slots=True)
class NoticeEntry(Entry):
    """Something the user should know that is not a message: a stop reason, an unknown update."""

    text: str = ""
    level: Level = "info"
    hint: bool = False
    """A hint about the app (a key to press), not part of the conversation: never exported."""
    quiet: bool = False
    """Said in passing (an update the agent sent that was skipped): shown muted."""


TranscriptEntry = MessageEntry | ToolCallEntry | PlanEntryBlock | NoticeEntry


@dataclass(frozen=True, slots=True)
class AgentNotice:
    """A ``notice`` update: shown in passing (a toast), and kept in the transcript and the log
    (a bounded share of a flood: `acp_tui.client.session.notices`)."""

    title: str
    description: str | None
    level: Level


@dataclass(slots=True)
class Usage:
    """The context window used (``used`` of ``size`` tokens) and the cost so far, if known."""

    used: int
    size: int
    cost_amount: float | None = None
    cost_currency: str | None = None

    @classmethod
    def of(cls, update: UsageUpdate) -> Usage:
        cost = update.cost
        amount, currency = (cost.amount, cost.currency) if cost else (None, None)
        return cls(update.used, update.size, amount, currency)


def agent_notice(update: SessionUpdate) -> AgentNotice | None:
    """A ``notice`` update as the notice to show; None when it is malformed.

    The transcript and the toasts read each notice: the last one read is kept, and read again
    for the same update it is not parsed twice (a notice flood parsed each one twice)."""
    global _last_notice
    last = _last_notice
    if last is not None and last[0] is update:
        return last[1]
    from pydantic import ValidationError

    try:
        parsed = SessionNotice.model_validate(update.to_wire())
    except ValidationError:
        notice = None
    else:
        level: Level = "info"
        if parsed.severity in ("warning", "error"):
            level = "warning" if parsed.severity == "warning" else "error"
        description = sanitize(parsed.description, 500) if parsed.description else None
        notice = AgentNotice(sanitize(parsed.title, 200), description, level)
    _last_notice = (update, notice)
    return notice


_last_notice: tuple[SessionUpdate, AgentNotice | None] | None = None


STOP_NOTICES = {
    "cancelled": "Cancelled.",
    "max_tokens": "The agent stopped: it reached its token limit.",
    "max_turn_requests": "The agent stopped: it reached its limit of requests for one turn.",
    "refusal": "The agent refused to continue.",
}
"""What the transcript says of a turn that ended for these reasons."""
