"""Provides SessionCalls: the typed, capability-gated session methods of AgentClient.

Lifecycle rules kept here, in one place:

* ``additionalDirectories`` is sent only when the agent advertises it; asking for extra roots
  of an agent that cannot take them raises :class:`Unsupported` (nothing is dropped silently);
* load, resume and fork always state the complete list of extra roots (explicit-list
  semantics; omitted would mean none);
* restoring a session is one operation, :meth:`SessionCalls.reattach`, with or without replay;
* prompts carry only content kinds the agent advertised.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from anyio.abc import TaskGroup

from acp_tui.client.capabilities import Action, Capabilities
from acp_tui.client.errors import Unsupported
from acp_tui.client.session import LiveSession
from acp_tui.client.transcript import Transcript
from acp_tui.protocol.base import WireModel
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.methods import (
    AuthenticateRequest,
    AuthenticateResponse,
    CancelNotification,
    CloseSessionRequest,
    CloseSessionResponse,
    DeleteSessionRequest,
    DeleteSessionResponse,
    ForkSessionRequest,
    ForkSessionResponse,
    ListSessionsRequest,
    ListSessionsResponse,
    LoadSessionRequest,
    LoadSessionResponse,
    LogoutRequest,
    LogoutResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    ResumeSessionRequest,
    ResumeSessionResponse,
    SessionInfo,
    SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse,
    SetSessionModeRequest,
    SetSessionModeResponse,
)
from acp_tui.protocol.updates import SessionUpdate

_R = TypeVar("_R", bound=WireModel)

Reattach = Literal["load", "resume"]


class SessionCalls:
    """Mixin of AgentClient: everything a user can do with sessions."""

    capabilities: Capabilities
    sessions: dict[str, LiveSession]
    early_updates: dict[str, list[SessionUpdate]]
    task_group: TaskGroup | None

    if TYPE_CHECKING:  # provided by AgentClient

        async def request(self, method: str, params: WireModel | None, result: type[_R]) -> _R: ...

        async def notify(self, method: str, params: WireModel) -> None: ...

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

    def live(self, session_id: str) -> LiveSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise KeyError(f"session {session_id} is not open in this client")
        return session

    # -- auth ------------------------------------------------------------------------------------

    async def authenticate(self, method_id: str) -> None:
        await self.request(
            "authenticate", AuthenticateRequest(method_id=method_id), AuthenticateResponse
        )

    async def logout(self) -> None:
        if not self.capabilities.can_logout:
            raise Unsupported(f"{self.capabilities.display_name} does not support logout")
        await self.request("logout", LogoutRequest(), LogoutResponse)

    # -- lifecycle -------------------------------------------------------------------------------

    async def new_session(
        self, cwd: Path, additional_directories: Sequence[Path] = ()
    ) -> LiveSession:
        extra = self._extra_roots(additional_directories, explicit=False)
        params = NewSessionRequest(cwd=str(cwd))
        if extra is not None:
            params.additional_directories = extra
        result = await self.request("session/new", params, NewSessionResponse)
        session = LiveSession(
            result.session_id, cwd, tuple(additional_directories), self.task_group
        )
        self._adopt(session, result.modes, result.config_options)
        return session

    def _adopt(self, session: LiveSession, modes: object, options: object) -> None:
        from acp_tui.protocol.session_config import SessionModeState

        self.sessions[session.session_id] = session
        if isinstance(modes, SessionModeState):
            session.transcript.set_modes(modes)
        if isinstance(options, list):
            session.transcript.set_config_options(options)
        # Updates that arrived right after the reply, before the session was registered.
        for update in self.early_updates.pop(session.session_id, ()):
            session.transcript.apply(update)

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
        # Registered before the call so that replayed updates land in its transcript.
        self.sessions[session_id] = session
        try:
            if how == "load":
                params: WireModel = LoadSessionRequest(session_id=session_id, cwd=str(cwd))
                result: WireModel = await self._send_restore(
                    "session/load", params, extra, LoadSessionResponse
                )
            else:
                params = ResumeSessionRequest(session_id=session_id, cwd=str(cwd), mcp_servers=[])
                result = await self._send_restore(
                    "session/resume", params, extra, ResumeSessionResponse
                )
        except BaseException:
            if previous is not None:
                self.sessions[session_id] = previous
            else:
                self.sessions.pop(session_id, None)
            raise
        if previous is not None and previous is not session:
            await previous.aclose()
        self._adopt(
            session, getattr(result, "modes", None), getattr(result, "config_options", None)
        )
        return session

    async def _send_restore(
        self, method: str, params: WireModel, extra: list[str] | None, result: type[_R]
    ) -> _R:
        if extra is not None:
            params.additional_directories = extra  # type: ignore[attr-defined]
        return await self.request(method, params, result)

    async def load_session(
        self, session_id: str, cwd: Path, additional_directories: Sequence[Path] = ()
    ) -> LiveSession:
        """`session/load`: the agent replays the history before this returns."""
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
        """Restore a session (v1: load for replay, resume without); returns how it was done."""
        how = self.reattach_method(replay)
        session = await self._restore(how, session_id, cwd, additional_directories)
        return session, how

    async def fork_session(
        self, session_id: str, cwd: Path, additional_directories: Sequence[Path] = ()
    ) -> LiveSession:
        self.require("fork")
        extra = self._extra_roots(additional_directories, explicit=True)
        params = ForkSessionRequest(session_id=session_id, cwd=str(cwd), mcp_servers=[])
        if extra is not None:
            params.additional_directories = extra
        result = await self.request("session/fork", params, ForkSessionResponse)
        session = LiveSession(
            result.session_id, cwd, tuple(additional_directories), self.task_group
        )
        self._adopt(session, result.modes, result.config_options)
        return session

    async def list_sessions(
        self,
        *,
        cwd: Path | None = None,
        cursor: str | None = None,
        additional_directories: Sequence[Path] | None = None,
    ) -> ListSessionsResponse:
        """One page of `session/list`. Filters the agent cannot take are not sent."""
        self.require("list")
        params = ListSessionsRequest()
        if cwd is not None:
            params.cwd = str(cwd)
        if cursor is not None:
            params.cursor = cursor
        if additional_directories is not None and self.capabilities.additional_directories:
            params.additional_directories = [str(d) for d in additional_directories]
        return await self.request("session/list", params, ListSessionsResponse)

    async def close_session(self, session_id: str) -> None:
        self.require("close")
        await self.request(
            "session/close", CloseSessionRequest(session_id=session_id), CloseSessionResponse
        )
        session = self.sessions.pop(session_id, None)
        if session is not None:
            await session.aclose()

    async def delete_session(self, session_id: str) -> None:
        self.require("delete")
        await self.request(
            "session/delete", DeleteSessionRequest(session_id=session_id), DeleteSessionResponse
        )
        session = self.sessions.pop(session_id, None)
        if session is not None:
            session.transcript.add_notice("This session was deleted.", "warning")
            await session.aclose()

    # -- inside a session ------------------------------------------------------------------------

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        session = self.live(session_id)
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
        if isinstance(value, bool):
            params = SetSessionConfigOptionRequest.boolean(session_id, config_id, value)
        else:
            params = SetSessionConfigOptionRequest.select(session_id, config_id, value)
        result = await self.request(
            "session/set_config_option", params, SetSessionConfigOptionResponse
        )
        session.transcript.set_config_options(result.config_options)

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
        stop_reason: str | None = None
        try:
            result = await self.request(
                "session/prompt",
                PromptRequest(session_id=session_id, prompt=list(blocks)),
                PromptResponse,
            )
            stop_reason = result.stop_reason
        finally:
            session.prompt_finished(stop_reason)
        return stop_reason

    async def cancel(self, session_id: str) -> None:
        """`session/cancel`, and every pending permission request is answered `cancelled`."""
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
