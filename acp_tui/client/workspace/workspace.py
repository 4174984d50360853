"""Provides Workspace: the one UI-free owner of agents, sessions, prompt queues and recording.

A UI (the Textual app, or a headless command) enters ``async with Workspace(...) as ws``, asks
it to open slots (tabs), and subscribes once to its event stream
(`acp_tui.client.workspace.events`); it renders from the slots and their transcripts and answers
the questions the Workspace asks through an `Interaction` (permission, login, roots).

The Workspace keeps its life (enter, stop, close), the running agents (`AgentRuntime`, one per
distinct agent command, started on demand and stopped when no slot uses them) and the slots;
what they share is its `Board`. Everything else is done by its parts, by name:

* ``ws.login``: logging in when an agent asks, and out (`acp_tui.client.workspace.login`);
* ``ws.opening``: opening a slot's session by its intent, reopening it after a restart
  (`acp_tui.client.workspace.opening`; the restore policy is `acp_tui.client.history.restore`);
* ``ws.prompts``: the prompt queue and its turns (`acp_tui.client.workspace.prompt_queue`);
* ``ws.sessions``: what a session browser does to the listed sessions, gated with the reason
  (`acp_tui.client.workspace.listed_sessions`);
* ``ws.questions``: the agent's questions for the user, one at a time
  (`acp_tui.client.workspace.questions`);
* ``ws.notices``: the agents' notices, said in their session's tab, also those that come
  before the tab shows it (`acp_tui.client.workspace.notices`);
* ``ws.offers``: a new session beside another, once its extra roots are chosen
  (`acp_tui.client.workspace.roots_offer`);
* ``ws.shell``, the user's ``!`` commands; ``ws.config``, the settings read again on demand;
  ``ws.unused``, the sessions left empty (deleted on the way out, else not listed).

Every operation runs in the Workspace's task group and reports through events; none raises
into the UI. Errors become notices in the slot's transcript (they stay) and a Notice event.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

import anyio

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.agent.wire_log import WireLogFile
from acp_tui.client.errors import AgentError, what_to_try
from acp_tui.client.history import continuing
from acp_tui.client.history.recorder import agent_key_for
from acp_tui.client.workspace.agent_runtime import AgentRuntime, Connect, Hooks
from acp_tui.client.workspace.board import Board
from acp_tui.client.workspace.config_reload import ConfigReload
from acp_tui.client.workspace.events import Notice, WorkspaceEvent
from acp_tui.client.workspace.interaction import Headless, Interaction
from acp_tui.client.workspace.listed_sessions import ListedSessions
from acp_tui.client.workspace.local_titles import LocalTitles
from acp_tui.client.workspace.login import Login
from acp_tui.client.workspace.notices import Notices
from acp_tui.client.workspace.opening import Opening
from acp_tui.client.workspace.prompt_queue.sending import PromptQueue
from acp_tui.client.workspace.questions import Questions
from acp_tui.client.workspace.roots_offer import NewSessionOffers
from acp_tui.client.workspace.shell import ShellCommands
from acp_tui.client.workspace.slots import OpenExisting, OpenFork, OpenNew, SessionSlot
from acp_tui.client.workspace.unused_sessions import UnusedSessions
from acp_tui.config.paths import Paths, get_paths
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.methods import SessionInfo
from acp_tui.store.transcripts import TranscriptCache

__all__ = ["Workspace"]

log = logging.getLogger(__name__)

STOP_WITHIN = 15.0
"""How long leaving the Workspace waits for every agent to be gone (EOF, TERM, KILL)."""

NOTHING_TO_CONTINUE = "No earlier session in this folder to continue: this one is new."


class Workspace:
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
        self.agents: dict[str, AgentRuntime] = {}
        self.board = Board()
        """The slots, the current one and the event stream, shared by the parts."""
        self.login = Login(self.board, self.interaction)
        self.questions = Questions(self.board, self.interaction)
        self.notices = Notices(self.board)
        self.titles = LocalTitles(self.board, self.cache)
        self.opening = Opening(
            self.board, self.interaction, self.login.authenticated, self.paths, self.titles.forked
        )
        self.prompts = PromptQueue(self.board, self.login.authenticated, self.opening.open)
        self.sessions = ListedSessions(self.board, self.login.authenticated, self.opening.reload)
        self.unused = UnusedSessions(self.board, self.cache)
        self.shell = ShellCommands(self.board, self.questions.terminal_policy)
        self.config = ConfigReload(self.paths.config_file, lambda: list(self.agents.values()))
        self.offers = NewSessionOffers(
            self.board,
            self.paths,
            lambda: self.config.settings,
            self.agent_for,
            self.release,
            self.open_new,
        )
        self.hooks = Hooks(
            agent_changed=self.board.agent_changed,
            agent_up=self.agent_up,
            agent_down=self.agent_down,
            terminal_login=self.login.terminal_login,
            env_login=self.login.env_login,
            permission_handler=self.questions.permission_handler,
            elicitation_handler=self.questions.elicitation_handler,
            terminal_policy=self.questions.terminal_policy,
            question_gate=self.questions.gate,
        )
        """What every agent runtime reports to, and asks of, the Workspace and its parts."""
        self._closed = anyio.Event()
        self._next_id = 0
        self.cache.on_trouble = self.recording_trouble

    # -- life ------------------------------------------------------------------------------------

    async def __aenter__(self) -> Workspace:
        self.board.task_group = await anyio.create_task_group().__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        tg = self.board.task_group
        assert tg is not None
        with anyio.CancelScope(shield=True):
            await self.unused.discard(list(self.agents.values()))
            await self.stop_all()
        tg.cancel_scope.cancel()
        self.board.task_group = None
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
        """Receive every event (see `Board.subscribe`); returns the unsubscriber."""
        return self.board.subscribe(listener)

    @property
    def slots(self) -> list[SessionSlot]:
        """The tabs, in order."""
        return self.board.slots

    @property
    def current(self) -> SessionSlot | None:
        """The tab shown."""
        return self.board.current

    # -- agents ----------------------------------------------------------------------------------

    def agent_for(self, launch: LaunchSpec) -> AgentRuntime:
        """The runtime of this agent command, started now unless it already runs."""
        key = agent_key_for(launch)
        agent = self.agents.get(key)
        if agent is not None and not agent.stopping:
            return agent
        agent = AgentRuntime(
            launch,
            key,
            hooks=self.hooks,
            paths=self.paths,
            cache=self.cache,
            wire_file=self.wire_file,
        )
        self.agents[key] = agent
        self.board.spawn(lambda: agent.run(self.connect), f"agent {agent.display_name}")
        return agent

    def restart(self, agent: AgentRuntime) -> None:
        """Restart the agent; its slots are reopened (their queued prompts then go out)."""
        agent.restart()

    def release(self, agent: AgentRuntime) -> None:
        """Stop ``agent`` if no slot uses it (it was started for a session never opened)."""
        if not self.board.slots_of(agent):
            agent.stop()

    def agent_up(self, agent: AgentRuntime) -> None:
        """The agent (re)connected: the slots waiting for it open their sessions."""
        for slot in self.board.slots_of(agent):
            if slot.state in ("starting", "agent_down", "failed", "opening"):
                self.opening.open(slot)

    def agent_down(self, agent: AgentRuntime, error: BaseException | None) -> None:
        """The agent exited or was stopped: its slots say so, and why when it failed."""
        for slot in self.board.slots_of(agent):
            if slot.state == "closed":
                continue
            self.board.set_state(slot, "agent_down", agent.status)
            if error is not None and not agent.stopping:
                slot.transcript.add_notice(agent.error or str(error), "error")
                fix = what_to_try(error, str(agent.paths.log_dir))
                slot.transcript.add_notice(fix, "warning", hint=True)
                self.board.want_attention(slot, "failed")
        if error is not None and not agent.stopping and not self.board.slots_of(agent):
            self.board.emit(Notice(agent.error or str(error), "error"))

    def recording_trouble(self, trouble: str | None) -> None:
        """Recording the local history stopped (a full disk), or works again: said in every
        tab's transcript, where it stays."""
        text = "Recording the local history works again."
        if trouble is not None:
            text = (
                f"Recording the local history stopped: {trouble}. Every update tries again; "
                "what arrives meanwhile is missing from the local copy."
            )
        for slot in self.board.slots:
            slot.transcript.add_notice(text, "info" if trouble is None else "warning")
        self.board.emit(Notice(text, "info" if trouble is None else "warning"))

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
        self,
        agent: AgentRuntime,
        info: SessionInfo,
        *,
        replay: bool,
        focus: bool = True,
        at_line: int | None = None,
    ) -> SessionSlot:
        """Open a listed session in a new slot (``at_line``: a line of its local copy to show
        first); a session already live in a slot is focused."""
        showing = self.board.slot_showing(agent, info.session_id)
        if showing is not None:
            if focus:
                self.board.focus(showing)
            return showing
        return self._add_slot(agent, OpenExisting(info, replay, at_line), focus=focus)

    def fork(self, agent: AgentRuntime, info: SessionInfo, *, focus: bool = True) -> SessionSlot:
        """Fork a listed session (`session/fork`) into a new slot."""
        return self._add_slot(agent, OpenFork(info), focus=focus)

    async def open_continued(
        self, agent: AgentRuntime, project: Path, session_id: str | None = None
    ) -> SessionSlot:
        """Open the session a launch continues, with its history: ``session_id``, else the
        project's most recent one (``--continue``). With none to continue, or an agent that
        cannot start, a new session is opened instead (the failure shows there)."""
        try:
            await agent.wait_ready()
            caps = agent.capabilities
            sessions = self.sessions
            lister = sessions.listing(agent) if caps is not None and caps.can_list else None
            local = sessions.local_session_infos(agent)
            if session_id is not None:
                info = await continuing.session_by_id(lister, local, session_id, project)
            else:
                hidden = self.unused.hidden(agent.key)
                found = await continuing.last_of_project(lister, local, project, hidden)
                if found is None:
                    return self.open_new(agent, project, notice=NOTHING_TO_CONTINUE)
                info = found
        except Exception as exc:  # the agent failed to start, or its list failed: a new session
            log.info("could not find the session to continue: %s", exc)
            return self.open_new(agent, project)
        return self.open_listed(agent, info, replay=True)

    def open_launch(self, launch: LaunchSpec) -> None:
        """Open what the command line asked for (its settings in effect): the session it
        continues, else a new one."""
        self.config.settings = launch.settings
        agent = self.agent_for(launch)
        if launch.continue_last or launch.session_id:
            session_id = launch.session_id
            self.board.spawn(
                lambda: self.open_continued(agent, launch.cwd, session_id), "continuing a session"
            )
        else:
            self.open_new(agent, launch.cwd, launch.additional_directories)

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
        self.opening.preview(slot)  # the end of its local copy, shown while it opens
        self.board.add(slot, focus=focus)
        if agent.alive:
            self.opening.open(slot)
        return slot

    async def close_slot(self, slot: SessionSlot) -> None:
        """Close a tab: its session is closed where the agent can (`session/close`); an agent no
        slot uses any more is stopped. The last tab is replaced by a new session."""
        if slot not in self.board.slots:
            return
        agent = slot.agent
        if len(self.board.slots) == 1:
            self.open_new(agent, self.project if agent.launch.cwd == self.project else None)
        caps = agent.capabilities
        session = slot.session
        if session is not None and not session.closed and agent.client is not None:
            if caps is not None and caps.can_close:
                try:
                    await agent.client.close_session(session.session_id)
                except (AgentError, RpcError) as exc:
                    self.board.emit(Notice(f"Could not close the session: {exc}", "warning"))
            else:
                await agent.client.let_go(session.session_id)
        self.board.remove(slot)
        self.release(agent)
