"""Provides Transcript: one session's conversation, built from `session/update` in arrival order.

Pure Python, no wire JSON for the UI to touch. Shaped after the v2 concepts so both protocol
versions feed it: messages keyed by ``messageId`` (chunks append), tool calls upserted by
``toolCallId`` and created on first sight, the plan replaced whole, and an explicit turn state
(idle / running / requires_action). The entries themselves are in
`acp_tui.client.session.entries`.

Each entry carries a ``revision`` that grows whenever it changes, and every change is reported to
listeners as a :class:`Change`, so a view re-renders only the entries that changed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from acp_tui.client.listeners import Listeners
from acp_tui.client.session.entries import (
    STOP_NOTICES,
    AgentNotice,
    Change,
    Level,
    MessageEntry,
    NoticeEntry,
    PlanEntryBlock,
    PlanItem,
    Role,
    ToolCallEntry,
    TranscriptEntry,
    Usage,
    agent_notice,
)
from acp_tui.client.session.figures import LONG_TURN, duration
from acp_tui.client.session.notices import Notices
from acp_tui.client.tools.terminals import AgentTerminal
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.held import not_kept
from acp_tui.protocol.session_config import SessionConfigOption, SessionModeState
from acp_tui.protocol.tools import TerminalToolCallContent, ToolCallContent
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
    SessionUpdate,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)

TurnState = Literal["idle", "running", "requires_action"]
Listener = Callable[[Change], None]


class Transcript:
    """The conversation of one session plus its live state."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.entries: list[TranscriptEntry] = []
        self.title: str | None = None
        self.updated_at: str | None = None
        self.commands: list[AvailableCommand] = []
        self.commands_not_kept = 0  # beyond those kept (acp_tui.protocol.held)
        self.modes: SessionModeState | None = None
        self.config_options: list[SessionConfigOption] = []
        self.usage: Usage | None = None
        self.state: TurnState = "idle"
        self.stop_reason: str | None = None
        self.turn_started: float | None = None  # time.monotonic() of the running turn
        self.unknown_updates = 0
        self.last_notice: AgentNotice | None = None
        """The latest ``notice`` update (announced as a ``meta`` change ``notice``)."""
        self.notices = Notices(self.entries, self._append, self._updated)  # bounded per turn
        self._messages: dict[tuple[Role, str], int] = {}
        self._tool_calls: dict[str, int] = {}
        self._plan_index: int | None = None
        self._terminals: dict[str, set[int]] = {}
        self.agent_terminals: dict[str, AgentTerminal] = {}
        """The agent-owned terminals (ACP v2) by id; client terminals live in the session."""
        self._echo_index: int | None = None
        self.user_messages = 0
        self._dropped: dict[str, int] = {}
        """Each kind of skipped update said, with ``user_messages`` then (once in a turn)."""
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
        if isinstance(entry, MessageEntry) and entry.role == "user":
            self.user_messages += 1
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
            self.set_plan(update.entries, not_kept(update, "entries"))
        elif isinstance(update, AvailableCommandsUpdate):
            self.commands = list(update.available_commands)
            self.commands_not_kept = not_kept(update, "availableCommands")
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
            self.usage = Usage.of(update)
            self._emit(Change("meta", what="usage"))
        elif getattr(update, "session_update", None) == "notice" and self._agent_notice(update):
            pass
        else:
            self.unknown_updates += 1
            self.notices.unknown_update(str(getattr(update, "session_update", "?")))

    def _agent_notice(self, update: SessionUpdate) -> bool:
        """Announce a ``notice`` update; False (an unknown update then) when it is malformed."""
        notice = agent_notice(update)
        if notice is None:
            return False
        self.last_notice = notice
        self.notices.agent_notice(notice)
        self._emit(Change("meta", what="notice"))
        return True

    def _chunk(self, role: Role, message_id: str | None, block: ContentBlock) -> None:
        if role == "user" and self._echo_index is not None:
            # Some agents echo the prompt we already show: the echo replaces our copy.
            index = self._echo_index
            self._echo_index = None
            echoed = self.entries[index]
            assert isinstance(echoed, MessageEntry)
            echoed.set_blocks([block])
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
        index = self._append(MessageEntry.of(role, message_id, [block]))
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
            entry = MessageEntry.of(role, message_id, blocks or ())
            self._messages[(role, message_id)] = self._append(entry)
            return None
        existing = self.entries[index]
        assert isinstance(existing, MessageEntry)
        before = list(existing.blocks)
        existing.message_id = message_id
        if blocks is not None:
            existing.set_blocks(blocks)
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
            entry.fill(update)
            index = self._append(entry)
            self._tool_calls[update.tool_call_id] = index
            self._track_terminals(entry, index)
            return
        existing = self.entries[index]
        assert isinstance(existing, ToolCallEntry)
        existing.fill(update)
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

    def set_plan(self, entries: Sequence[PlanEntry], not_kept: int = 0) -> None:
        views: list[PlanItem] = list(entries)
        if self._plan_index is not None:
            plan = self.entries[self._plan_index]
            assert isinstance(plan, PlanEntryBlock)
            plan.entries, plan.not_kept = views, not_kept
            plan.touch()
            self._updated(self._plan_index)
        else:
            self._plan_index = self._append(PlanEntryBlock(entries=views, not_kept=not_kept))

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

    def add_notice(self, text: str, level: Level = "info", *, hint: bool = False) -> None:
        """Say something that is not a message; ``hint``: about the app, left out of exports."""
        self._append(NoticeEntry(text=text, level=level, hint=hint))

    def note_dropped(self, what: str) -> None:
        """The agent sent ``what``, which was skipped: said quietly, once per kind per turn."""
        if self._dropped.get(what) != self.user_messages:
            self._dropped[what] = self.user_messages
            self._append(NoticeEntry(text=f"The agent sent {what}: skipped.", quiet=True))

    # -- turns -------------------------------------------------------------------------------

    def add_user_message(
        self, blocks: Sequence[ContentBlock], message_id: str | None = None
    ) -> None:
        """Show what the user sent (v1 agents do not echo the prompt during a live turn)."""
        index = self._append(MessageEntry.of("user", message_id, blocks))
        if message_id is not None:
            self._messages[("user", message_id)] = index
        self._echo_index = index

    def begin_turn(self) -> None:
        self._plan_index = None
        self.notices.new_turn()
        self.stop_reason = None
        self.turn_started = time.monotonic()
        self.set_state("running")

    def end_turn(self, stop_reason: str | None) -> None:
        self.stop_reason = stop_reason
        self.seal()
        if stop_reason not in (None, "end_turn"):
            self.add_notice(STOP_NOTICES.get(stop_reason, f"The turn ended: {stop_reason}"))
        took = time.monotonic() - (self.turn_started or time.monotonic())
        self.turn_started = None
        if took >= LONG_TURN:  # the time stays on the turn (a hint: not exported)
            self.add_notice(f"Worked for {duration(took)}", hint=True)
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
