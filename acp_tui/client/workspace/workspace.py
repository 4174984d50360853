"""Provides Workspace: the one UI-free owner of agents, sessions, prompt queues and recording.

A UI (the Textual app, or a headless command) enters ``async with Workspace(...) as ws``, asks
it to open slots (tabs), submits prompts, runs session actions, and subscribes once to its
event stream (`acp_tui.client.workspace.slots`); it renders from the slots and their transcripts and
answers the questions the Workspace asks through an `Interaction` (permission, login, roots).

What lives here and nowhere else:

* the running agents (`AgentRuntime`, one per distinct agent command), started on demand and
  stopped when no slot uses them; every agent process is stopped when the Workspace exits;
* the slots and the current one; a session is live in at most one slot;
* the restore policy (`acp_tui.client.history.restore`), the recording of every live session and the
  gating of every action with its reason (`acp_tui.client.workspace.gating`);
* the prompt queue: Enter never loses a message. It is sent at once when its slot is ready and
  idle, else queued and sent in order when the session opens or the turn ends
  (`acp_tui.client.workspace.prompt_queue`).

Every operation runs in the Workspace's task group and reports through events; none raises
into the UI. Errors become notices in the slot's transcript (they stay) and a Notice event.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import TypeVar

import anyio
from anyio.abc import TaskGroup

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.agent.wire_log import WireLogFile
from acp_tui.client.errors import AgentError, LoginRestart, what_to_try
from acp_tui.client.history.recorder import agent_key_for
from acp_tui.client.listeners import Listeners
from acp_tui.client.session.live_session import refuse_permission
from acp_tui.client.session.question_queue import PermissionQueue
from acp_tui.client.workspace.agent_runtime import AgentRuntime, Connect
from acp_tui.client.workspace.interaction import Headless, Interaction
from acp_tui.client.workspace.listed_sessions import ListedSessions
from acp_tui.client.workspace.login import Login
from acp_tui.client.workspace.opening import Opening
from acp_tui.client.workspace.prompt_queue import Prompting
from acp_tui.client.workspace.questions import Questions
from acp_tui.client.workspace.slots import (
    AgentChanged,
    Attention,
    CurrentChanged,
    Notice,
    OpenExisting,
    OpenFork,
    OpenNew,
    SessionSlot,
    SlotAdded,
    SlotChanged,
    SlotRemoved,
    SlotState,
    WorkspaceEvent,
)
from acp_tui.config.paths import Paths, get_paths
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.methods import SessionInfo
from acp_tui.store.transcripts import TranscriptCache

__all__ = ["Headless", "Interaction", "LoginRestart", "Workspace"]

log = logging.getLogger(__name__)

T = TypeVar("T")

STOP_WITHIN = 15.0
"""How long leaving the Workspace waits for every agent to be gone (EOF, TERM, KILL)."""


class Workspace(Login, Prompting, Opening, ListedSessions, Questions):
    """Agents, slots, queues and recording for one UI (or headless command)."""

    def __init__(
        self,
        *,
        paths: Paths | None = None,
        interaction: Interaction | None = None,
        connect: Connect = connect,
        cache: TranscriptCache | None = None,
        project: Path | None = None,
        wire_log: Path | None = None,
    ) -> None:
        self.paths = paths or get_paths()
        self.wire_file = WireLogFile(wire_log) if wire_log is not None else None
        """Where every agent's traffic is written as JSON lines (``--wire-log``), if anywhere."""
        self.interaction: Interaction = interaction or Headless()
        self.connect = connect
        self.cache = cache or TranscriptCache(self.paths.data_dir / "transcripts")
        self.project = project or Path.cwd()
        """The directory acp-tui was started for (the default cwd of new sessions)."""
        self.events: Listeners[[WorkspaceEvent]] = Listeners("workspace listener")
        self.agents: dict[str, AgentRuntime] = {}
        self.slots: list[SessionSlot] = []
        self.current: SessionSlot | None = None
        self._tg: TaskGroup | None = None
        self._closed = anyio.Event()
        self._focus_changed = anyio.Event()
        self._next_id = 0
        self._unwatch: dict[int, Callable[[], None]] = {}
        self.permissions = PermissionQueue(refuse_permission)
        """Every agent's questions (permissions, elicitations, commands), asked one at a time,
        in order."""
        self.cache.on_trouble = self.recording_trouble

    # -- life ------------------------------------------------------------------------------------

    async def __aenter__(self) -> Workspace:
        self._tg = await anyio.create_task_group().__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        tg = self._tg
        assert tg is not None
        with anyio.CancelScope(shield=True):
            await self.stop_all()
        tg.cancel_scope.cancel()
        self._tg = None
        try:
            result = await tg.__aexit__(exc_type, exc, tb)
        finally:
            self.cache.close()
            if self.wire_file is not None:
                self.wire_file.close()
        return result

    async def stop_all(self, within: float = STOP_WITHIN) -> None:
        """Stop every agent (gracefully) and wait for them, boundedly."""
        for agent in self.agents.values():
            agent.stop()
        with anyio.move_on_after(within):
            for agent in list(self.agents.values()):
                while agent.state != "stopped":
                    await agent.wait_ready_or_stopped()

    def close(self) -> None:
        """Ask whoever waits in `wait_closed` to leave (the UI is quitting)."""
        self._closed.set()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    def subscribe(self, listener: Callable[[WorkspaceEvent], object]) -> Callable[[], None]:
        """Receive every event; returns the unsubscriber. A listener that raises is logged."""
        return self.events.subscribe(listener)

    def emit(self, event: WorkspaceEvent) -> None:
        self.events.emit(event)

    def spawn(self, work: Callable[[], Awaitable[object]], name: str) -> None:
        """Run ``work`` in the Workspace; an unexpected error is reported, never raised."""
        tg = self._tg
        if tg is None:
            raise RuntimeError("the Workspace is not running (use `async with`)")

        async def guarded() -> None:
            try:
                await work()
            except Exception as exc:
                log.exception("workspace task %s failed", name)
                self.emit(Notice(f"Internal error in {name}: {exc}", "error"))

        tg.start_soon(guarded, name=name)

    # -- agents ----------------------------------------------------------------------------------

    def agent_for(self, launch: LaunchSpec) -> AgentRuntime:
        """The runtime of this agent command, started now unless it already runs."""
        key = agent_key_for(launch)
        agent = self.agents.get(key)
        if agent is not None and not agent.stopping:
            return agent
        agent = AgentRuntime(
            launch, key, hooks=self, paths=self.paths, cache=self.cache, wire_file=self.wire_file
        )
        self.agents[key] = agent
        self.spawn(lambda: agent.run(self.connect), f"agent {agent.display_name}")
        return agent

    def restart(self, agent: AgentRuntime) -> None:
        """Restart the agent; its slots are reopened (their queued prompts then go out)."""
        agent.restart()

    def slots_of(self, agent: AgentRuntime) -> list[SessionSlot]:
        return [slot for slot in self.slots if slot.agent is agent]

    # Hooks for AgentRuntime.

    def agent_changed(self, agent: AgentRuntime) -> None:
        for slot in self.slots_of(agent):
            if slot.state in ("starting", "agent_down", "failed") and agent.state != "ready":
                slot.status = agent.status
                self.emit(SlotChanged(slot, "status"))
        self.emit(AgentChanged(agent))

    def agent_up(self, agent: AgentRuntime) -> None:
        for slot in self.slots_of(agent):
            if slot.state in ("starting", "agent_down", "failed", "opening"):
                self._start_opening(slot)

    def agent_down(self, agent: AgentRuntime, error: BaseException | None) -> None:
        for slot in self.slots_of(agent):
            if slot.state == "closed":
                continue
            slot.sending = None
            self._set_state(slot, "agent_down", agent.status)
            if error is not None and not agent.stopping:
                slot.transcript.add_notice(agent.error or str(error), "error")
                fix = what_to_try(error, str(agent.paths.log_dir))
                slot.transcript.add_notice(fix, "warning", hint=True)
                self._want_attention(slot, "failed")
        if error is not None and not agent.stopping and not self.slots_of(agent):
            self.emit(Notice(agent.error or str(error), "error"))

    def recording_trouble(self, trouble: str | None) -> None:
        """Recording the local history stopped (a full disk), or works again: said in every
        tab's transcript, where it stays."""
        text = "Recording the local history works again."
        if trouble is not None:
            text = (
                f"Recording the local history stopped: {trouble}. Every update tries again; "
                "what arrives meanwhile is missing from the local copy."
            )
        for slot in self.slots:
            slot.transcript.add_notice(text, "info" if trouble is None else "warning")
        self.emit(Notice(text, "info" if trouble is None else "warning"))

    def _tell_agent(self, agent: AgentRuntime, text: str, level: str = "info") -> None:
        slots = self.slots_of(agent)
        for slot in slots:
            slot.transcript.add_notice(text, "error" if level == "error" else "info")
        self.emit(Notice(text, "error" if level == "error" else "info"))

    # -- slots -----------------------------------------------------------------------------------

    def open_new(
        self,
        agent: AgentRuntime,
        cwd: Path | None = None,
        additional_directories: tuple[Path, ...] = (),
        *,
        focus: bool = True,
        notice: str | None = None,
    ) -> SessionSlot:
        """A new slot with a new session (`session/new` once the agent is up); ``notice`` is
        said in it once open."""
        cwd = cwd or agent.launch.cwd
        return self._add_slot(agent, OpenNew(cwd, additional_directories, notice), focus=focus)

    def open_listed(
        self, agent: AgentRuntime, info: SessionInfo, *, replay: bool, focus: bool = True
    ) -> SessionSlot:
        """Open a listed session in a new slot; a session already live in a slot is focused."""
        showing = self.slot_showing(agent, info.session_id)
        if showing is not None:
            if focus:
                self.focus(showing)
            return showing
        return self._add_slot(agent, OpenExisting(info, replay), focus=focus)

    def fork(self, agent: AgentRuntime, info: SessionInfo, *, focus: bool = True) -> SessionSlot:
        """Fork a listed session (`session/fork`) into a new slot."""
        return self._add_slot(agent, OpenFork(info), focus=focus)

    def _add_slot(
        self, agent: AgentRuntime, intent: OpenNew | OpenExisting | OpenFork, *, focus: bool
    ) -> SessionSlot:
        self._next_id += 1
        if isinstance(intent, OpenNew):
            cwd, dirs = intent.cwd, intent.additional_directories
        else:
            cwd = Path(intent.info.cwd)
            dirs = tuple(Path(d) for d in intent.info.additional_directories or [])
        slot = SessionSlot(self._next_id, agent, intent, cwd, dirs, status=agent.status)
        slot.opened_from = self.current
        self.slots.append(slot)
        self.emit(SlotAdded(slot))
        if focus or self.current is None:
            self.focus(slot)
        if agent.alive:
            self._start_opening(slot)
        return slot

    def slot_showing(self, agent: AgentRuntime, session_id: str) -> SessionSlot | None:
        for slot in self.slots:
            if slot.agent is agent and slot.session_id == session_id and slot.state != "closed":
                return slot
        return None

    def focus(self, slot: SessionSlot | None) -> None:
        if slot is self.current:
            return
        self.current = slot
        self._focus_changed.set()
        self._focus_changed = anyio.Event()
        if slot is not None and slot.attention is not None:
            self.clear_attention(slot)
        self.emit(CurrentChanged(slot))

    def focus_step(self, step: int) -> None:
        """Focus the next (1) or previous (-1) slot, wrapping around."""
        if not self.slots:
            return
        index = self.slots.index(self.current) if self.current in self.slots else 0
        self.focus(self.slots[(index + step) % len(self.slots)])

    def clear_attention(self, slot: SessionSlot) -> None:
        if slot.attention is not None:
            slot.attention = None
            self.emit(SlotChanged(slot, "attention"))

    def _want_attention(self, slot: SessionSlot, why: Attention) -> None:
        if slot is not self.current and slot.attention != "permission":
            slot.attention = why
            self.emit(SlotChanged(slot, "attention"))

    def _set_state(self, slot: SessionSlot, state: SlotState, status: str = "") -> None:
        slot.state = state
        slot.status = status
        self.emit(SlotChanged(slot, "state"))

    async def close_slot(self, slot: SessionSlot) -> None:
        """Close a tab: its session is closed where the agent can (`session/close`); an agent no
        slot uses any more is stopped. The last tab is replaced by a new session."""
        if slot not in self.slots:
            return
        agent = slot.agent
        if len(self.slots) == 1:
            self.open_new(agent, self.project if agent.launch.cwd == self.project else None)
        caps = agent.capabilities
        session = slot.session
        if session is not None and not session.closed and agent.client is not None:
            if caps is not None and caps.can_close:
                try:
                    await agent.client.close_session(session.session_id)
                except (AgentError, RpcError) as exc:
                    self.emit(Notice(f"Could not close the session: {exc}", "warning"))
            else:
                await agent.client.let_go(session.session_id)
        self._remove_slot(slot)
        if not self.slots_of(agent):
            agent.stop()

    def _remove_slot(self, slot: SessionSlot) -> None:
        index = self.slots.index(slot)
        self.slots.remove(slot)
        unwatch = self._unwatch.pop(slot.id, None)
        if unwatch is not None:
            unwatch()
        if self.current is slot:
            neighbour = self.slots[min(index, len(self.slots) - 1)] if self.slots else None
            self.focus(neighbour)
        self.emit(SlotRemoved(slot))
