"""Provides SessionCalls: the typed, capability-gated session methods of AgentClient.

What each call may send is decided by the rules in `acp_tui.client.agent.rules`, before
anything is sent; how each protocol version spells it is the business of ``self.dialect``.
Here: the calls themselves, and what they do to the client's sessions. Restoring a session is
one operation, :meth:`SessionCalls.reattach`, with or without replay; a turn ends with the
`session/prompt` answer (v1) or the session's ``idle`` state (v2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from acp_tui.client.agent import rules
from acp_tui.client.agent.capabilities import Action, Capabilities
from acp_tui.client.agent.dialects import Dialect, Reattach, Setup
from acp_tui.client.agent.dialects.events import Event, apply_event
from acp_tui.client.agent.inbox import TurnWaiter
from acp_tui.client.agent.mcp import McpProblem, McpServerSpec
from acp_tui.client.agent.wire import AgentWire
from acp_tui.client.errors import Unsupported
from acp_tui.client.session.live_session import LiveSession
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.methods import (
    CancelNotification,
    CloseSessionRequest,
    CloseSessionResponse,
    DeleteSessionRequest,
    DeleteSessionResponse,
    ListSessionsResponse,
    PromptRequest,
    PromptResponse,
    SetSessionModeRequest,
    SetSessionModeResponse,
)

__all__ = ["Reattach", "SessionCalls"]


GONE_SESSIONS = 256
"""At most this many ids of sessions the client let go are remembered (``AgentClient.gone``)."""


class SessionCalls(AgentWire):
    """Everything a user can do with sessions, over the wire; `AgentClient` serves the agent's
    requests on top of it and sets what it declares here."""

    capabilities: Capabilities
    dialect: Dialect
    sessions: dict[str, LiveSession]
    early_updates: dict[str, list[Event]]
    gone: dict[str, None]
    task_group: TaskGroup | None
    turns: dict[str, TurnWaiter]
    mcp_servers: Sequence[McpServerSpec]
    settle_updates: Callable[[], None]
    """Apply the updates the inbox holds back (see ``UpdateInbox.apply_held``)."""

    # -- gating --------------------------------------------------------------------------------

    def require(self, action: Action) -> None:
        rules.require(self.capabilities, action)

    @staticmethod
    def _tell_mcp(session: LiveSession, problems: list[McpProblem]) -> None:
        for problem in problems:
            session.transcript.add_notice(problem.text, problem.level)

    def live(self, session_id: str) -> LiveSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise KeyError(f"session {session_id} is not open in this client")
        return session

    # -- auth ------------------------------------------------------------------------------------

    async def authenticate(self, method_id: str) -> None:
        """`authenticate` (v1) or `auth/login` (v2) with an agent-type auth method."""
        await self.request(*self.dialect.login(method_id))

    async def logout(self) -> None:
        if not self.capabilities.can_logout:
            raise Unsupported(f"{self.capabilities.display_name} does not support logout")
        await self.request(*self.dialect.logout())

    # -- lifecycle -------------------------------------------------------------------------------

    async def new_session(
        self, cwd: Path, additional_directories: Sequence[Path] = ()
    ) -> LiveSession:
        extra = rules.extra_roots(self.capabilities, additional_directories, explicit=False)
        call, problems = rules.with_mcp(
            self.dialect.new_session(str(cwd), extra), self.mcp_servers, self.capabilities
        )
        setup = self.dialect.setup(await self.request(*call))
        assert setup.session_id is not None
        session = LiveSession(setup.session_id, cwd, tuple(additional_directories), self.task_group)
        self._adopt(session, setup.modes, setup.config_options)
        self._tell_mcp(session, problems)
        return session

    def _adopt(self, session: LiveSession, modes: object, options: object) -> None:
        from acp_tui.protocol.session_config import SessionModeState

        # What arrived before takes effect before: kept as early updates, applied below.
        self.settle_updates()
        self.sessions[session.session_id] = session
        if isinstance(modes, SessionModeState):
            session.transcript.set_modes(modes)
        if isinstance(options, list):
            session.transcript.set_config_options(options)
        # Updates that arrived right after the reply, before the session was registered.
        for event in self.early_updates.pop(session.session_id, ()):
            apply_event(session.transcript, event)

    async def _restore(
        self,
        how: Reattach,
        session_id: str,
        cwd: Path,
        additional_directories: Sequence[Path],
        transcript: Transcript | None = None,
    ) -> LiveSession:
        extra = rules.extra_roots(self.capabilities, additional_directories, explicit=True)
        previous = self.sessions.get(session_id)
        session = LiveSession(session_id, cwd, tuple(additional_directories), self.task_group)
        if transcript is not None:
            session.transcript = transcript
        self.settle_updates()  # what arrived before this request goes where it went before
        self.early_updates.pop(session_id, None)  # stale: from before this request
        self.gone.pop(session_id, None)  # opened again: its updates are wanted
        # Registered before the call so that replayed updates land in its transcript.
        self.sessions[session_id] = session
        try:
            call, problems = rules.with_mcp(
                self.dialect.restore(how, session_id, str(cwd), extra),
                self.mcp_servers,
                self.capabilities,
            )
            setup: Setup = self.dialect.setup(await self.request(*call))
        except BaseException:
            if previous is not None:
                self.sessions[session_id] = previous
            else:
                self.sessions.pop(session_id, None)
            raise
        if previous is not None and previous is not session:
            await previous.aclose()
        self._adopt(session, setup.modes, setup.config_options)
        self._tell_mcp(session, problems)
        return session

    async def load_session(
        self, session_id: str, cwd: Path, additional_directories: Sequence[Path] = ()
    ) -> LiveSession:
        """The agent replays the history before this returns: v1 `session/load`, v2
        `session/resume` with ``replayFrom: {"type": "start"}`` (v2 has no `session/load`)."""
        if self.dialect.version >= 2:
            self.require("resume")
        else:
            self.require("load")
        return await self._restore("load", session_id, cwd, additional_directories)

    async def resume_session(
        self,
        session_id: str,
        cwd: Path,
        additional_directories: Sequence[Path] = (),
        *,
        transcript: Transcript | None = None,
    ) -> LiveSession:
        """`session/resume`: reopen without replay, optionally into a transcript we kept."""
        self.require("resume")
        return await self._restore("resume", session_id, cwd, additional_directories, transcript)

    def reattach_method(self, replay: bool) -> Reattach:
        """Which method restores a session with or without replay on this agent (see
        `rules.reattach_method`)."""
        return rules.reattach_method(self.capabilities, self.dialect.version, replay)

    async def reattach(
        self, session_id: str, cwd: Path, additional_directories: Sequence[Path], *, replay: bool
    ) -> tuple[LiveSession, Reattach]:
        """Restore a session; returns how: ``load`` when the agent replayed the history (v1
        `session/load`, v2 `session/resume` with ``replayFrom``), ``resume`` when it did not."""
        how = self.reattach_method(replay)
        session = await self._restore(how, session_id, cwd, additional_directories)
        return session, how

    async def fork_session(
        self, session_id: str, cwd: Path, additional_directories: Sequence[Path] = ()
    ) -> LiveSession:
        self.require("fork")
        extra = rules.extra_roots(self.capabilities, additional_directories, explicit=True)
        call, problems = rules.with_mcp(
            self.dialect.fork(session_id, str(cwd), extra), self.mcp_servers, self.capabilities
        )
        setup = self.dialect.setup(await self.request(*call))
        assert setup.session_id is not None
        session = LiveSession(setup.session_id, cwd, tuple(additional_directories), self.task_group)
        self._adopt(session, setup.modes, setup.config_options)
        self._tell_mcp(session, problems)
        return session

    async def list_sessions(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> ListSessionsResponse:
        """One page of `session/list`. Filters the agent cannot take are not sent."""
        params = rules.list_params(self.capabilities, cwd, cursor, additional_directories)
        return await self.request("session/list", params, ListSessionsResponse)

    async def list_sessions_raw(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> Any:
        """One page of `session/list`, not validated yet: the session browser validates a
        page of 100,000 sessions a piece at a time, showing the first rows meanwhile."""
        params = rules.list_params(self.capabilities, cwd, cursor, additional_directories)
        raw, _ = await self.request_raw("session/list", params)
        return raw

    async def close_session(self, session_id: str) -> None:
        self.require("close")
        await self.request(
            "session/close", CloseSessionRequest(session_id=session_id), CloseSessionResponse
        )
        await self.let_go(session_id)

    async def delete_session(self, session_id: str) -> None:
        self.require("delete")
        await self.request(
            "session/delete", DeleteSessionRequest(session_id=session_id), DeleteSessionResponse
        )
        await self.let_go(session_id)

    async def let_go(self, session_id: str) -> None:
        """Stop showing a session here (after `session/close`, or locally where the agent
        cannot close): its terminals stop, and what the agent still sends for it is dropped."""
        self.gone.pop(session_id, None)
        self.gone[session_id] = None
        while len(self.gone) > GONE_SESSIONS:
            del self.gone[next(iter(self.gone))]
        self.early_updates.pop(session_id, None)
        session = self.sessions.pop(session_id, None)
        if session is not None:
            await session.aclose()

    # -- inside a session ------------------------------------------------------------------------

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        """`session/set_mode` (v1 only: v2 modes are config options of category ``mode``)."""
        session = self.live(session_id)
        if self.dialect.version >= 2:
            raise Unsupported("ACP v2 has no session modes; use the mode config option")
        await self.request(
            "session/set_mode",
            SetSessionModeRequest(session_id=session_id, mode_id=mode_id),
            SetSessionModeResponse,
        )
        modes = session.transcript.modes
        if modes is not None:
            session.transcript.set_modes(modes.model_copy(update={"current_mode_id": mode_id}))

    async def set_config_option(self, session_id: str, config_id: str, value: str | bool) -> None:
        session = self.live(session_id)
        result = await self.request(*self.dialect.set_config_option(session_id, config_id, value))
        session.transcript.set_config_options(self.dialect.config_options(result))

    async def prompt(self, session_id: str, blocks: Sequence[ContentBlock]) -> str:
        """Run one turn; returns the stop reason. The user's message is shown first."""
        session = self.live(session_id)
        rules.require_content(self.capabilities, blocks)
        session.transcript.add_user_message(blocks)
        session.prompt_started()
        params = PromptRequest(session_id=session_id, prompt=list(blocks))
        stop_reason: str | None = None
        try:
            if self.dialect.version >= 2:
                stop_reason = await self._v2_turn(session_id, params)
            else:
                result = await self.request("session/prompt", params, PromptResponse)
                stop_reason = result.stop_reason
        finally:
            session.prompt_finished(stop_reason)
        return stop_reason

    async def _v2_turn(self, session_id: str, params: PromptRequest) -> str:
        """v2: `session/prompt` answers ``{}`` (accepted); the turn ends with ``idle``."""
        waiter = self.turns[session_id] = TurnWaiter()
        try:
            await self.request("session/prompt", params, self.dialect.prompt_result())
            async with anyio.create_task_group() as tg:

                async def agent_gone() -> None:
                    await self.exited.wait()
                    tg.cancel_scope.cancel()

                tg.start_soon(agent_gone)
                await waiter.done.wait()
                tg.cancel_scope.cancel()
            if not waiter.done.is_set():
                raise await self.exit_error("during the prompt turn")
        finally:
            if self.turns.get(session_id) is waiter:
                del self.turns[session_id]
        return waiter.stop_reason or "end_turn"

    async def cancel(self, session_id: str) -> None:
        """`session/cancel`, and every pending permission request is answered `cancelled`.

        v2 confirms the cancellation with ``idle`` and ``stopReason: "cancelled"``.
        """
        session = self.live(session_id)
        session.cancel_pending_permissions()
        await self.notify("session/cancel", CancelNotification(session_id=session_id))
