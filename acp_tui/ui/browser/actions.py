"""Provides SessionActions: what the session browser does, as an App mixin, and LocalHistory.

Opening (load / resume / resume + the client's own copy), forking, closing and deleting run in
workers with their progress in the browser's status line (a replay counts the updates as they
arrive, before `session/load` answers); errors are shown there and in a toast, and the browser's
rows stay as they were. Load, resume and fork always send the session's complete
extra roots (from its SessionInfo, ``[]`` when absent).

When the chat's own session is closed or deleted, its transcript says so and stays on screen; the
next prompt opens a new session (in the project's cwd) and is sent there.

The client's own history (for agents that can only resume, and for agents that cannot list) is
reached through :class:`LocalHistory`: by default the app's transcript cache (``app.transcripts``,
keyed by ``app.agent_key``); set ``app.local_history`` to inject another. Sessions opened here are
noted by ``app.recorder``, which is told before a `session/load` replays the whole history.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from textual import work
from textual.css.query import NoMatches

from acp_tui.client.errors import AgentError, AgentExited, Unsupported
from acp_tui.protocol.errors import ErrorCode, RpcError

if TYPE_CHECKING:
    # The protocol models and the client are imported where used: the app's module (and so
    # this one) is loaded before the first frame, they are not (see acp_tui.ui.chat).
    from acp_tui.client.agent import AgentClient
    from acp_tui.client.session import LiveSession
    from acp_tui.client.transcript import Transcript
    from acp_tui.protocol.methods import SessionInfo
    from acp_tui.protocol.updates import SessionUpdate
    from acp_tui.store.transcripts import TranscriptCache
    from acp_tui.ui.agent_host import AgentHost
    from acp_tui.ui.browser.panel import SessionBrowser

    _Base = AgentHost
else:
    _Base = object

log = logging.getLogger(__name__)

LOCAL_COPY_NOTICE = "History shown from acp-tui's local copy; the agent did not replay it."
GONE_NEXT = "Your next message starts a new session."
PROGRESS_EVERY = 256
"""While a session/load replays, the status line counts the updates: every this many (a
multiple of 16)..."""
PROGRESS_SECONDS = 0.1
"""...or, looking at the clock every 16 updates, once this long has passed since the last."""


class LocalHistory(Protocol):
    """The client's own record of the agent's sessions."""

    def sessions(self) -> list[SessionInfo]: ...

    def replay_into(self, session_id: str, transcript: Transcript) -> int:
        """Feed the recorded events to ``transcript``; returns how many there were."""
        ...

    def forget(self, session_id: str) -> None: ...


class CacheHistory:
    """LocalHistory over the transcript cache, for one agent."""

    def __init__(self, cache: TranscriptCache, agent_key: str) -> None:
        self.cache = cache
        self.agent_key = agent_key

    def sessions(self) -> list[SessionInfo]:
        from acp_tui.protocol.methods import SessionInfo

        return [
            SessionInfo(
                session_id=c.session_id,
                cwd=c.cwd,
                additional_directories=list(c.additional_directories),
                title=c.title,
                updated_at=c.updated_at,
            )
            for c in self.cache.sessions(self.agent_key)
        ]

    def replay_into(self, session_id: str, transcript: Transcript) -> int:
        return self.cache.replay_into(
            self.agent_key, session_id, transcript.apply, transcript.add_user_message
        )

    def forget(self, session_id: str) -> None:
        self.cache.forget(self.agent_key, session_id)


def describe(exc: BaseException) -> str:
    if isinstance(exc, RpcError) and exc.code == ErrorCode.RESOURCE_NOT_FOUND:
        return f"the agent does not know this session (it may have been deleted): {exc}"
    return str(exc)


class SessionActions(_Base):
    """Mixed into the App: the browser toggle and the actions on its rows."""

    local_history: LocalHistory | None = None
    """The client's own history of this agent's sessions (default: the transcript cache)."""
    _opening_new_session = False

    # -- the panel ------------------------------------------------------------------------------

    @property
    def browser(self) -> SessionBrowser:
        return self.chat.browser

    def action_toggle_browser(self) -> None:
        """Show the session browser, widen it, hide it."""
        if self.chat.views_ready.is_set():  # else it is a few frames from arriving
            self.browser.cycle()

    def session_opened(self, session: LiveSession) -> None:
        super().session_opened(session)
        with contextlib.suppress(NoMatches):
            self.browser.agent_ready()

    def history(self) -> LocalHistory:
        if self.local_history is None:
            self.local_history = CacheHistory(self.transcripts, self.agent_key)
        return self.local_history

    def local_session_infos(self) -> list[SessionInfo]:
        """This client's sessions with the agent: the open ones, then the recorded ones."""
        from acp_tui.protocol.methods import SessionInfo

        infos: dict[str, SessionInfo] = {}
        if self.client is not None:
            for live in reversed(list(self.client.sessions.values())):
                if not live.closed:
                    infos[live.session_id] = SessionInfo(
                        session_id=live.session_id,
                        cwd=str(live.cwd),
                        additional_directories=[str(d) for d in live.additional_directories],
                        title=live.title,
                        updated_at=live.transcript.updated_at,
                    )
        try:
            recorded = self.history().sessions()
        except Exception:
            log.warning("could not read the local session history", exc_info=True)
            recorded = []
        for info in recorded:
            infos.setdefault(info.session_id, info)
        return list(infos.values())

    # -- gating --------------------------------------------------------------------------------

    def why_unavailable(self, action: str, info: SessionInfo | None) -> str | None:
        """None when ``action`` can run on ``info``, else the reason to show."""
        client = self.client
        if client is None or not self.agent_alive:
            return "the agent is not running"
        caps = client.capabilities
        if info is None:
            return "select a session first"
        if action == "replay" and not caps.can_reattach:
            return f"{caps.display_name} does not support session/load or session/resume"
        reason = {
            "resume": caps.why_not("resume"),
            "fork": caps.why_not("fork"),
            "close": caps.why_not("close"),
            "delete": caps.why_not("delete"),
        }.get(action)
        if reason is not None:
            return reason
        if action in ("replay", "resume", "fork") and info.additional_directories:
            extra = caps.why_not("additional_directories")
            if extra is not None:
                return f"this session has extra roots and {extra}"
        if action == "close":
            live = client.sessions.get(info.session_id)
            if live is None or live.closed:
                return "only sessions open in acp-tui can be closed"
        return None

    def run_browser_action(
        self, action: str, info: SessionInfo, marked: Sequence[SessionInfo]
    ) -> None:
        if action in ("replay", "resume"):
            self.open_from_browser(info, replay=action == "replay")
        elif action == "fork":
            self.fork_from_browser(info)
        elif action == "close":
            self.close_from_browser(info)
        elif action == "delete":
            self.delete_from_browser(list(marked) or [info])

    def show_opened(self, session: LiveSession, label: str, *, created: bool = False) -> None:
        self.recorder.note(session, created=created)
        self.session = session
        self.session_opened(session)
        self.browser.set_status(f"Opened {label}")
        self.chat.query_one("#prompt").focus()

    def report_browser_error(self, what: str, exc: BaseException) -> None:
        message = f"{what}: {describe(exc)}"
        self.browser.set_status(message, "error")
        self.notify(message, severity="error", timeout=10)

    # -- open, fork ----------------------------------------------------------------------------

    @work(group="browser-open", exclusive=True, exit_on_error=False)
    async def open_from_browser(self, info: SessionInfo, replay: bool) -> None:
        """Replay (load, or resume + the local copy) or resume without replay, into the chat."""
        from acp_tui.client.session_list import display_title
        from acp_tui.protocol.updates import SessionInfoUpdate

        client = self.client
        if client is None:
            return
        label = display_title(info)
        cwd = Path(info.cwd)
        dirs = tuple(Path(d) for d in info.additional_directories or [])
        self.browser.set_status(f"{'Replaying' if replay else 'Resuming'} {label}…")
        try:
            if replay and client.capabilities.can_replay:  # v1 load, v2 resume+replayFrom
                self.recorder.begin_restore(info.session_id)
                try:
                    with self.replay_progress(client, info.session_id, label):
                        session = await client.load_session(info.session_id, cwd, dirs)
                except BaseException:
                    self.recorder.abort_restore(info.session_id)
                    raise
                self.recorder.finish_restore(session, replayed=True)
            elif replay:
                transcript = self.replay_local_copy(info.session_id)
                session = await client.resume_session(
                    info.session_id, cwd, dirs, transcript=transcript
                )
            else:
                session = await client.resume_session(info.session_id, cwd, dirs)
                session.transcript.add_notice(
                    "Resumed without replay (session/resume): earlier messages are not shown."
                )
        except AgentExited:
            return  # the agent worker reports the exit
        except Unsupported as exc:
            self.report_browser_error(f"Cannot open {label}", exc)
            return
        except (AgentError, RpcError) as exc:
            self.report_browser_error(f"Could not open {label}", exc)
            return
        if session.transcript.title is None and info.title:
            session.transcript.apply(SessionInfoUpdate(title=info.title))
        self.show_opened(session, label)

    @contextlib.contextmanager
    def replay_progress(self, client: AgentClient, session_id: str, label: str) -> Iterator[None]:
        """Meanwhile, count the session's replayed updates in the browser's status line."""
        browser = self.browser
        count = 0
        shown_at = time.monotonic()

        def replayed(replayed_id: str, update: SessionUpdate) -> None:
            nonlocal count, shown_at
            if replayed_id != session_id:
                return
            count += 1
            if count % 16:
                return  # tens of thousands may come: keep this cheap
            now = time.monotonic()
            if count % PROGRESS_EVERY == 0 or now - shown_at >= PROGRESS_SECONDS:
                shown_at = now
                browser.set_status(f"Replaying {label}… {count} updates")

        unsubscribe = client.subscribe(replayed)
        try:
            yield
        finally:
            unsubscribe()

    def replay_local_copy(self, session_id: str) -> Transcript:
        """A transcript holding the local copy (and a notice saying where it came from)."""
        from acp_tui.client.transcript import Transcript

        transcript = Transcript(session_id)
        try:
            count = self.history().replay_into(session_id, transcript)
        except Exception:
            log.warning("could not replay the local copy of %s", session_id, exc_info=True)
            transcript, count = Transcript(session_id), 0
        if count:
            transcript.add_notice(LOCAL_COPY_NOTICE)
        else:
            name = self.agent_display_name
            transcript.add_notice(
                f"{name} cannot replay this session (it supports session/resume only) and "
                "acp-tui has no local copy of it: the earlier history is not available.",
                "warning",
            )
        return transcript

    @work(group="browser-open", exclusive=True, exit_on_error=False)
    async def fork_from_browser(self, info: SessionInfo) -> None:
        from acp_tui.client.session_list import display_title

        client = self.client
        if client is None:
            return
        label = display_title(info)
        dirs = tuple(Path(d) for d in info.additional_directories or [])
        self.browser.set_status(f"Forking {label}…")
        try:
            session = await client.fork_session(info.session_id, Path(info.cwd), dirs)
        except AgentExited:
            return
        except (AgentError, RpcError) as exc:
            self.report_browser_error(f"Could not fork {label}", exc)
            return
        session.transcript.add_notice(f"Forked from {label}.")
        fork = info.model_copy(
            update={"session_id": session.session_id, "title": f"Fork of {label}"}
        )
        self.browser.session_added(fork)
        self.show_opened(session, f"the fork of {label}", created=True)

    # -- close, delete -----------------------------------------------------------------------

    @work(group="browser-close", exit_on_error=False)
    async def close_from_browser(self, info: SessionInfo) -> None:
        from acp_tui.client.session_list import display_title

        client = self.client
        if client is None:
            return
        label = display_title(info)
        live = client.sessions.get(info.session_id)
        try:
            await client.close_session(info.session_id)
        except AgentExited:
            return
        except (AgentError, RpcError) as exc:
            self.report_browser_error(f"Could not close {label}", exc)
            return
        if live is not None and live is self.session:
            live.transcript.add_notice(f"This session was closed (session/close). {GONE_NEXT}")
        self.browser.set_status(f"Closed {label}")
        self.browser.render_rows()

    @work(group="browser-delete", exclusive=True, exit_on_error=False)
    async def delete_from_browser(self, infos: list[SessionInfo]) -> None:
        """Confirm, then delete one by one with progress; each row goes as its delete succeeds."""
        from acp_tui.client.session_list import display_title
        from acp_tui.ui.dialogs.confirm import ConfirmDialog

        client = self.client
        if client is None or not infos:
            return
        what = "this session" if len(infos) == 1 else f"these {len(infos)} sessions"
        question = f"Delete {what} from {self.agent_display_name}?"
        if not await self.ask(ConfirmDialog(question, [display_title(i) for i in infos])):
            self.browser.set_status("Nothing was deleted.")
            return
        browser = self.browser
        total = len(infos)
        failures: list[str] = []
        for done, info in enumerate(infos):
            browser.set_status(f"Deleting {done + 1}/{total}…")
            browser.show_progress(done, total)
            chat = self.session
            was_chat = chat is not None and chat.session_id == info.session_id
            try:
                await client.delete_session(info.session_id)
            except AgentExited:
                browser.show_progress(None)
                return
            except (AgentError, RpcError) as exc:
                failures.append(f"{display_title(info)}: {describe(exc)}")
                continue
            with contextlib.suppress(Exception):
                self.history().forget(info.session_id)
            browser.session_removed([info.session_id])
            if was_chat and chat is not None:
                chat.transcript.add_notice(f"This session is gone: it was deleted. {GONE_NEXT}")
        browser.show_progress(None)
        deleted = total - len(failures)
        if failures:
            browser.set_status(
                f"Deleted {deleted} of {total}; failed: " + "; ".join(failures), "error"
            )
        else:
            browser.set_status(f"Deleted {deleted} session(s).")
        browser.render_rows()

    # -- after the chat's session is gone --------------------------------------------------------

    def start_new_session(self) -> None:
        """Open a new session for the chat (its session was closed or deleted)."""
        if not self._opening_new_session:
            self._opening_new_session = True
            self.open_new_session()

    @work(group="browser-new", exit_on_error=False)
    async def open_new_session(self) -> None:
        client = self.client
        try:
            if client is None:
                return
            session = await self.create_session(client, self.launch.cwd, self.extra_roots)
        except AgentExited:
            return
        except (AgentError, RpcError) as exc:
            self.report_failure("Could not open a new session", exc)
            return
        finally:
            self._opening_new_session = False
        if session is None:
            return
        self.session = session
        self.session_opened(session)
