"""Provides Transcript: one session's conversation, built from `session/update` in arrival order.

Pure Python, no wire JSON for the UI to touch. Shaped after the v2 concepts so both protocol
versions feed it: messages keyed by ``messageId`` (chunks append), tool calls upserted by
``toolCallId`` and created on first sight, the plan replaced whole, and an explicit turn state
(idle / running / requires_action).

Each entry carries a ``revision`` that grows whenever it changes, and every change is reported to
listeners as a :class:`Change`, so a view re-renders only the entries that changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import unquote

from acp_tui.client.listeners import Listeners
from acp_tui.client.safe_text import sanitize
from acp_tui.client.tools.terminals import AgentTerminal
from acp_tui.protocol.content import (
    AudioContent,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from acp_tui.protocol.session_config import SessionConfigOption, SessionModeState
from acp_tui.protocol.tools import TerminalToolCallContent, ToolCallContent, ToolCallLocation
from acp_tui.protocol.updates import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AvailableCommand,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    PlanEntry,
    PlanUpdate,
    SessionInfoUpdate,
    SessionNotice,
    SessionUpdate,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)

Role = Literal["user", "agent", "thought"]
TurnState = Literal["idle", "running", "requires_action"]
ChangeKind = Literal["appended", "updated", "state", "meta"]


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
    name = unquote(block.uri.rsplit("/", 1)[-1]) if block.uri else ""
    label = " ".join(part for part in ("image", sanitize(name, 60)) if part)
    return f"[{label} · {sanitize(block.mime_type, 40)} · {format_size(size)}]"


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

    def append(self, block: ContentBlock) -> None:
        self.blocks.append(block)
        self.parts.append(block_text(block))
        self._text = None
        self.touch()

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
    raw_input: Any = None
    raw_output: Any = None
    name: str | None = None
    """The programmatic name of the tool (UNSTABLE ``name``), when the agent sends one."""


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


@dataclass(eq=False, slots=True)
class NoticeEntry(Entry):
    """Something the user should know that is not a message: a stop reason, an unknown update."""

    text: str = ""
    level: Literal["info", "warning", "error"] = "info"
    hint: bool = False
    """A hint about the app (a key to press), not part of the conversation: never exported."""


TranscriptEntry = MessageEntry | ToolCallEntry | PlanEntryBlock | NoticeEntry


@dataclass(frozen=True, slots=True)
class AgentNotice:
    """A ``notice`` update: shown in passing (a toast), never kept in the transcript."""

    title: str
    description: str | None
    level: Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Change:
    """What changed: an entry (by index) or session state such as title, modes or usage."""

    kind: ChangeKind
    index: int | None = None
    what: str = ""


@dataclass(slots=True)
class Usage:
    used: int
    size: int
    cost_amount: float | None = None
    cost_currency: str | None = None


Listener = Callable[[Change], None]


class Transcript:
    """The conversation of one session plus its live state."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.entries: list[TranscriptEntry] = []
        self.title: str | None = None
        self.updated_at: str | None = None
        self.commands: list[AvailableCommand] = []
        self.modes: SessionModeState | None = None
        self.config_options: list[SessionConfigOption] = []
        self.usage: Usage | None = None
        self.state: TurnState = "idle"
        self.stop_reason: str | None = None
        self.unknown_updates = 0
        self.last_notice: AgentNotice | None = None
        """The latest ``notice`` update (announced as a ``meta`` change ``notice``)."""
        self._messages: dict[tuple[Role, str], int] = {}
        self._tool_calls: dict[str, int] = {}
        self._plan_index: int | None = None
        self._terminals: dict[str, set[int]] = {}
        self.agent_terminals: dict[str, AgentTerminal] = {}
        """The agent-owned terminals (ACP v2) by id; client terminals live in the session."""
        self._echo_index: int | None = None
        self._sealed = 0
        """Entries before this index take no more chunks: the turn that wrote them ended."""
        self._listeners: Listeners[[Change]] = Listeners("transcript listener")

    # -- listeners ---------------------------------------------------------------------------

    def subscribe(self, listener: Listener, *, first: bool = False) -> Callable[[], None]:
        """Call ``listener`` on every change; returns a function that unsubscribes.

        A listener that raises is logged; the others, and the transcript, carry on."""
        return self._listeners.subscribe(listener, first=first)

    def _emit(self, change: Change) -> None:
        self._listeners.emit(change)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[TranscriptEntry]:
        return iter(self.entries)

    def _append(self, entry: TranscriptEntry) -> int:
        entry.touch()
        self.entries.append(entry)
        index = len(self.entries) - 1
        self._emit(Change("appended", index))
        return index

    def _updated(self, index: int) -> None:
        self._emit(Change("updated", index))

    # -- applying updates --------------------------------------------------------------------

    def apply(self, update: SessionUpdate) -> None:
        """Apply one `session/update` (in arrival order)."""
        if isinstance(update, UserMessageChunk):
            self._chunk("user", update.message_id, update.content)
        elif isinstance(update, AgentMessageChunk):
            self._chunk("agent", update.message_id, update.content)
        elif isinstance(update, AgentThoughtChunk):
            self._chunk("thought", update.message_id, update.content)
        elif isinstance(update, ToolCallStart | ToolCallProgress):
            self._tool_call(update)
        elif isinstance(update, PlanUpdate):
            self.set_plan(update.entries)
        elif isinstance(update, AvailableCommandsUpdate):
            self.commands = list(update.available_commands)
            self._emit(Change("meta", what="commands"))
        elif isinstance(update, CurrentModeUpdate):
            if self.modes is not None:
                self.modes = self.modes.model_copy(
                    update={"current_mode_id": update.current_mode_id}
                )
            self._emit(Change("meta", what="modes"))
        elif isinstance(update, ConfigOptionUpdate):
            self.set_config_options(update.config_options)
        elif isinstance(update, SessionInfoUpdate):
            self.apply_info(update)
        elif isinstance(update, UsageUpdate):
            cost = update.cost
            self.usage = Usage(
                update.used,
                update.size,
                cost.amount if cost else None,
                cost.currency if cost else None,
            )
            self._emit(Change("meta", what="usage"))
        elif getattr(update, "session_update", None) == "notice" and self._agent_notice(update):
            pass
        else:
            self.unknown_updates += 1
            kind = getattr(update, "session_update", "?")
            self.add_notice(f"The agent sent an update this client does not know: {kind}")

    def _agent_notice(self, update: SessionUpdate) -> bool:
        """Announce a ``notice`` update; False (an unknown update then) when it is malformed."""
        from pydantic import ValidationError

        try:
            notice = SessionNotice.model_validate(update.to_wire())
        except ValidationError:
            return False
        level: Literal["info", "warning", "error"] = "info"
        if notice.severity in ("warning", "error"):
            level = "warning" if notice.severity == "warning" else "error"
        description = sanitize(notice.description, 500) if notice.description else None
        self.last_notice = AgentNotice(sanitize(notice.title, 200), description, level)
        self._emit(Change("meta", what="notice"))
        return True

    def _chunk(self, role: Role, message_id: str | None, block: ContentBlock) -> None:
        if role == "user" and self._echo_index is not None:
            # Some agents echo the prompt we already show: the echo replaces our copy.
            index = self._echo_index
            self._echo_index = None
            echoed = self.entries[index]
            assert isinstance(echoed, MessageEntry)
            echoed.blocks, echoed.parts, echoed._text = [block], [block_text(block)], None
            echoed.message_id = message_id
            if message_id is not None:
                self._messages[(role, message_id)] = index
            echoed.touch()
            self._updated(index)
            return
        if role != "user":
            self._echo_index = None
        # A chunk after the end of the turn starts a new message, whatever its id says: agents
        # send a late word (an error, a cancelled reply's tail) that is not part of the reply.
        if message_id is not None:
            known = self._messages.get((role, message_id))
            if known is not None and known >= self._sealed:
                entry = self.entries[known]
                assert isinstance(entry, MessageEntry)
                entry.append(block)
                self._updated(known)
                return
        elif len(self.entries) > self._sealed:
            # Without ids, contiguous chunks of the same role form one message.
            last = self.entries[-1]
            if isinstance(last, MessageEntry) and last.role == role and last.message_id is None:
                last.append(block)
                self._updated(len(self.entries) - 1)
                return
        entry = MessageEntry(role=role, message_id=message_id)
        entry.blocks.append(block)
        entry.parts.append(block_text(block))
        index = self._append(entry)
        if message_id is not None:
            self._messages[(role, message_id)] = index

    def replace_message(
        self, role: Role, message_id: str, blocks: Sequence[ContentBlock] | None
    ) -> list[ContentBlock] | None:
        """A whole message (v2): replaces the one with ``message_id``, or adds it.

        ``blocks`` None leaves the content unchanged (a new message starts empty); a user message
        replaces the prompt this client showed, like an echo does. Returns the blocks the message
        had before, or None when it is new.
        """
        index = self._messages.get((role, message_id))
        if index is None and role == "user" and self._echo_index is not None:
            index = self._echo_index
            self._messages[(role, message_id)] = index
        if role != "user" or index is not None:
            self._echo_index = None
        if index is None:
            entry = MessageEntry(role=role, message_id=message_id)
            for block in blocks or ():
                entry.blocks.append(block)
                entry.parts.append(block_text(block))
            self._messages[(role, message_id)] = self._append(entry)
            return None
        existing = self.entries[index]
        assert isinstance(existing, MessageEntry)
        before = list(existing.blocks)
        existing.message_id = message_id
        if blocks is not None:
            existing.blocks = list(blocks)
            existing.parts = [block_text(b) for b in blocks]
            existing._text = None
        existing.touch()
        self._updated(index)
        return before

    def append_tool_content(
        self, tool_call_id: str, items: Sequence[ToolCallContent]
    ) -> ToolCallEntry:
        """More content for a tool call (v2 ``tool_call_content_chunk``); created on first sight."""
        index = self._tool_calls.get(tool_call_id)
        if index is None:
            entry = ToolCallEntry(tool_call_id=tool_call_id, content=list(items))
            index = self._append(entry)
            self._tool_calls[tool_call_id] = index
        else:
            found = self.entries[index]
            assert isinstance(found, ToolCallEntry)
            entry = found
            entry.content.extend(items)
            entry.touch()
            self._updated(index)
        self._track_terminals(entry, index)
        return entry

    def _tool_call(self, update: ToolCallStart | ToolCallProgress) -> None:
        index = self._tool_calls.get(update.tool_call_id)
        if index is None:
            entry = ToolCallEntry(tool_call_id=update.tool_call_id)
            self._fill_tool_call(entry, update)
            index = self._append(entry)
            self._tool_calls[update.tool_call_id] = index
            self._track_terminals(entry, index)
            return
        existing = self.entries[index]
        assert isinstance(existing, ToolCallEntry)
        self._fill_tool_call(existing, update)
        existing.touch()
        self._track_terminals(existing, index)
        self._updated(index)

    def _track_terminals(self, entry: ToolCallEntry, index: int) -> None:
        for item in entry.content:
            if isinstance(item, TerminalToolCallContent):
                self._terminals.setdefault(item.terminal_id, set()).add(index)

    def terminal_changed(self, terminal_id: str) -> None:
        """A terminal printed more or ended: the tool calls showing it need a redraw."""
        for index in sorted(self._terminals.get(terminal_id, ())):
            self.entries[index].touch()
            self._updated(index)

    def agent_terminal_output(self, terminal_id: str, data: bytes, *, replace: bool) -> None:
        """An agent-owned terminal's output: more of it, or (``replace``) all of it."""
        terminal = self.agent_terminals.setdefault(terminal_id, AgentTerminal())
        terminal.add(data, replace=replace)
        self.terminal_changed(terminal_id)

    def agent_terminal_exit(
        self, terminal_id: str, exited: bool, exit_code: int | None, signal: str | None
    ) -> None:
        """An agent-owned terminal ended (or, ``exited`` False, runs again)."""
        terminal = self.agent_terminals.setdefault(terminal_id, AgentTerminal())
        terminal.set_exit(exited, exit_code, signal)
        self.terminal_changed(terminal_id)

    @staticmethod
    def _fill_tool_call(entry: ToolCallEntry, update: ToolCallStart | ToolCallProgress) -> None:
        fields = update.model_fields_set
        if update.title is not None and ("title" in fields or isinstance(update, ToolCallStart)):
            entry.title = update.title
        if update.kind is not None:
            entry.kind = update.kind
        if update.status is not None:
            entry.status = update.status
        if "content" in fields and update.content is not None:
            entry.content = list(update.content)
        if "locations" in fields and update.locations is not None:
            entry.locations = list(update.locations)
        if "raw_input" in fields:
            entry.raw_input = update.raw_input
        if "raw_output" in fields:
            entry.raw_output = update.raw_output
        if "name" in fields:  # null clears it (patch semantics)
            name = update.name
            entry.name = sanitize(name, 80) if isinstance(name, str) and name else None

    def set_plan(self, entries: Sequence[PlanEntry]) -> None:
        views: list[PlanItem] = list(entries)
        if self._plan_index is not None:
            plan = self.entries[self._plan_index]
            assert isinstance(plan, PlanEntryBlock)
            plan.entries = views
            plan.touch()
            self._updated(self._plan_index)
        else:
            self._plan_index = self._append(PlanEntryBlock(entries=views))

    def set_config_options(self, options: Sequence[SessionConfigOption]) -> None:
        self.config_options = list(options)
        self._emit(Change("meta", what="config_options"))

    def set_modes(self, modes: SessionModeState | None) -> None:
        self.modes = modes
        self._emit(Change("meta", what="modes"))

    def apply_info(self, update: SessionInfoUpdate) -> None:
        """Title and updatedAt: omitted leaves them, null clears them, a value replaces them."""
        fields = update.model_fields_set
        if "title" in fields:
            self.title = update.title
        if "updated_at" in fields:
            self.updated_at = update.updated_at
        self._emit(Change("meta", what="title"))

    def adopt_state(self, other: Transcript) -> None:
        """Take the live state ``other`` received (commands, modes, options, usage, title):
        a session reopened into this transcript keeps its entries but not stale state."""
        if other.commands:
            self.commands = list(other.commands)
            self._emit(Change("meta", what="commands"))
        if other.modes is not None:
            self.set_modes(other.modes)
        if other.config_options:
            self.set_config_options(other.config_options)
        if other.usage is not None:
            self.usage = other.usage
            self._emit(Change("meta", what="usage"))
        if other.title is not None:
            self.title = other.title
            self._emit(Change("meta", what="title"))

    def add_notice(
        self, text: str, level: Literal["info", "warning", "error"] = "info", *, hint: bool = False
    ) -> None:
        """Say something that is not a message; ``hint``: about the app, left out of exports."""
        self._append(NoticeEntry(text=text, level=level, hint=hint))

    # -- turns -------------------------------------------------------------------------------

    def add_user_message(
        self, blocks: Sequence[ContentBlock], message_id: str | None = None
    ) -> None:
        """Show what the user sent (v1 agents do not echo the prompt during a live turn)."""
        entry = MessageEntry(role="user", message_id=message_id)
        for block in blocks:
            entry.blocks.append(block)
            entry.parts.append(block_text(block))
        index = self._append(entry)
        if message_id is not None:
            self._messages[("user", message_id)] = index
        self._echo_index = index

    def begin_turn(self) -> None:
        self._plan_index = None
        self.stop_reason = None
        self.set_state("running")

    def end_turn(self, stop_reason: str | None) -> None:
        self.stop_reason = stop_reason
        self.seal()
        if stop_reason not in (None, "end_turn"):
            self.add_notice(_STOP_NOTICES.get(stop_reason, f"The turn ended: {stop_reason}"))
        self.set_state("idle")

    def seal(self) -> None:
        """A turn ended: the messages so far are complete, and a chunk arriving from now on
        starts a new one (even one without an id, or with the id of a finished message)."""
        self._sealed = len(self.entries)

    def set_state(self, state: TurnState) -> None:
        if state != self.state:
            self.state = state
            self._emit(Change("state", what=state))

    def tool_call(self, tool_call_id: str) -> ToolCallEntry | None:
        index = self._tool_calls.get(tool_call_id)
        if index is None:
            return None
        entry = self.entries[index]
        return entry if isinstance(entry, ToolCallEntry) else None


_STOP_NOTICES = {
    "cancelled": "Cancelled.",
    "max_tokens": "The agent stopped: it reached its token limit.",
    "max_turn_requests": "The agent stopped: it reached its limit of requests for one turn.",
    "refusal": "The agent refused to continue.",
}
