"""Provides SessionCalls: the typed, capability-gated session methods of AgentClient.

Lifecycle rules kept here, in one place:

* ``additionalDirectories`` is sent only when the agent advertises it; asking for extra roots
  of an agent that cannot take them raises :class:`Unsupported` (nothing is dropped silently);
* load, resume and fork always state the complete list of extra roots (explicit-list
  semantics; omitted would mean none);
* restoring a session is one operation, :meth:`SessionCalls.reattach`, with or without replay
  (v1: `session/load` or `session/resume`; v2: `session/resume` with or without ``replayFrom``);
* new, load, resume and fork carry the configured MCP servers the agent can take, and the
  session's transcript names each server left out (`acp_tui.client.agent.mcp`);
* prompts carry only content kinds the agent advertised;
* a turn ends with the `session/prompt` answer (v1) or the session's ``idle`` state (v2).

How each protocol version spells a call is the business of ``self.dialect``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
from anyio.abc import TaskGroup

from acp_tui.client.agent.capabilities import Action, Capabilities
from acp_tui.client.agent.dialects import Call, Dialect, Reattach, Setup
from acp_tui.client.agent.dialects.events import Event, apply_event
from acp_tui.client.agent.mcp import McpProblem, McpServerSpec, mcp_for_session
from acp_tui.client.errors import AgentError, Unsupported
from acp_tui.client.session.live_session import LiveSession
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.base import WireModel
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.methods import (
    CancelNotification,
    CloseSessionRequest,
    CloseSessionResponse,
    DeleteSessionRequest,
    DeleteSessionResponse,
    ListSessionsRequest,
    ListSessionsResponse,
    PromptRequest,
    PromptResponse,
    SessionInfo,
    SetSessionModeRequest,
    SetSessionModeResponse,
)

_R = TypeVar("_R", bound=WireModel)

__all__ = ["Reattach", "SessionCalls", "TurnWaiter", "session_matches"]


GONE_SESSIONS = 256
"""At most this many ids of sessions the client let go are remembered (``AgentClient.gone``)."""


@dataclass(eq=False)
class TurnWaiter:
    """A v2 prompt waiting for its session's ``idle`` state."""

    done: anyio.Event = field(default_factory=anyio.Event)
    stop_reason: str | None = None


class SessionCalls:
    """Mixin of AgentClient: everything a user can do with sessions."""

    capabilities: Capabilities
    dialect: Dialect
    sessions: dict[str, LiveSession]
    early_updates: dict[str, list[Event]]
    gone: dict[str, None]
    task_group: TaskGroup | None
    exited: anyio.Event
    turns: dict[str, TurnWaiter]
    mcp_servers: Sequence[McpServerSpec]

    if TYPE_CHECKING:  # provided by AgentClient

        async def request(self, method: str, params: WireModel | None, result: type[_R]) -> _R: ...

        async def request_raw(self, method: str, params: WireModel | None) -> tuple[Any, int]: ...

        async def notify(self, method: str, params: WireModel) -> None: ...

        async def _exit_error(self, context: str) -> AgentError: ...

    # -- gating --------------------------------------------------------------------------------

    def require(self, action: Action) -> None:
        reason = self.capabilities.why_not(action)
        if reason is not None:
            raise Unsupported(reason)

    def _extra_roots(self, dirs: Sequence[Path], *, explicit: bool) -> list[str] | None:
        """The ``additionalDirectories`` value to send, or None to leave the field out."""
        if not self.capabilities.additional_directories:
            if dirs:
                self.require("additional_directories")
            return None
        if not dirs and not explicit:
            return None
        return [str(d) for d in dirs]

    def _with_mcp(self, call: Call) -> tuple[Call, list[McpProblem]]:
        """``call`` carrying the MCP servers the agent can take, and those left out."""
        if not self.mcp_servers:
            return call, []
        setup = mcp_for_session(self.mcp_servers, self.capabilities)
        method, params, result = call
        if setup.servers:
            params = type(params).from_wire({**params.to_wire(), "mcpServers": setup.servers})
        return (method, params, result), setup.problems

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
        extra = self._extra_roots(additional_directories, explicit=False)
        call, problems = self._with_mcp(self.dialect.new_session(str(cwd), extra))
        setup = self.dialect.setup(await self.request(*call))
        assert setup.session_id is not None
        session = LiveSession(setup.session_id, cwd, tuple(additional_directories), self.task_group)
        self._adopt(session, setup.modes, setup.config_options)
        self._tell_mcp(session, problems)
        return session

    def _adopt(self, session: LiveSession, modes: object, options: object) -> None:
        from acp_tui.protocol.session_config import SessionModeState

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
        extra = self._extra_roots(additional_directories, explicit=True)
        previous = self.sessions.get(session_id)
        session = LiveSession(session_id, cwd, tuple(additional_directories), self.task_group)
        if transcript is not None:
            session.transcript = transcript
        self.early_updates.pop(session_id, None)  # stale: from before this request
        self.gone.pop(session_id, None)  # opened again: its updates are wanted
        # Registered before the call so that replayed updates land in its transcript.
        self.sessions[session_id] = session
        try:
            call, problems = self._with_mcp(self.dialect.restore(how, session_id, str(cwd), extra))
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
        """Which method restores a session with or without replay on this agent.

        Without replay, resume is preferred and load is the fallback (its replay is then
        simply shown); with replay, load is preferred and resume is the fallback, where the
        caller replays from its own transcript cache and must say so.
        """
        caps = self.capabilities
        if self.dialect.version >= 2:
            # v2: one method, resume; replay is its replayFrom cursor.
            self.require("resume")
            return "load" if replay else "resume"
        if replay:
            if caps.can_load:
                return "load"
            self.require("resume")
            return "resume"
        if caps.can_resume:
            return "resume"
        self.require("load")
        return "load"

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
        extra = self._extra_roots(additional_directories, explicit=True)
        call, problems = self._with_mcp(self.dialect.fork(session_id, str(cwd), extra))
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
        params = self._list_params(cwd, cursor, additional_directories)
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
        params = self._list_params(cwd, cursor, additional_directories)
        raw, _ = await self.request_raw("session/list", params)
        return raw

    def _list_params(
        self, cwd: Path | None, cursor: str | None, additional_directories: Sequence[Path] | None
    ) -> ListSessionsRequest:
        self.require("list")
        params = ListSessionsRequest()
        if cwd is not None:
            params.cwd = str(cwd)
        if cursor is not None:
            params.cursor = cursor
        if additional_directories is not None and self.capabilities.additional_directories:
            params.additional_directories = [str(d) for d in additional_directories]
        return params

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
        allowed = self.capabilities.prompt_content_kinds
        refused = sorted({getattr(b, "type", "?") for b in blocks} - allowed)
        if refused:
            raise Unsupported(
                f"{self.capabilities.display_name} does not accept {', '.join(refused)} content"
            )
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
                raise await self._exit_error("during the prompt turn")
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


def session_matches(
    info: SessionInfo, *, cwd: Path | None, additional_directories: Sequence[Path] | None
) -> bool:
    """Client-side filter (agents may ignore filters): cwd exact, extra roots exact and ordered."""
    if cwd is not None and info.cwd != str(cwd):
        return False
    if additional_directories is not None:
        return list(info.additional_directories or []) == [str(d) for d in additional_directories]
    return True
