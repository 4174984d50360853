"""Provides Opening, the part of the Workspace that opens a slot's session and keeps it shown.

A slot opens by its intent: `session/new` (extra roots are never dropped silently: the user
decides), a listed session restored with or without its history (`acp_tui.client.history.restore`),
or a fork. After an agent restart the slot's session is reopened instead. A login the agent asks for
on the way is handled by ``authenticated``; a terminal login restarts the agent and the slot opens
again once it is back. Failures stay in the slot's transcript, with a Notice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from acp_tui.client.agent.waits import SETUP_CALLS, Waiting
from acp_tui.client.errors import AgentError, AgentExited, LoginRestart
from acp_tui.client.history.forking import fork_with_history
from acp_tui.client.history.preview import DIFFERS_NOTICE, agrees
from acp_tui.client.history.restore import reattach, reopen
from acp_tui.client.history.session_text import display_title
from acp_tui.client.session.entries import Change
from acp_tui.client.session.live_session import LiveSession
from acp_tui.client.workspace.events import (
    ActionProgress,
    Notice,
    SessionsChanged,
    SessionShown,
    SlotRemoved,
    TurnChanged,
)
from acp_tui.client.workspace.slots import OpenExisting, OpenFork, OpenNew, SessionSlot
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError
from acp_tui.protocol.methods import SessionInfo
from acp_tui.store.recent_roots import recent_roots_for_project
from acp_tui.store.sessions import utc_now_iso

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.board import Board
    from acp_tui.client.workspace.interaction import Interaction
    from acp_tui.client.workspace.login import Authenticated
    from acp_tui.config.paths import Paths

__all__ = ["Forked", "Opening", "describe"]

log = logging.getLogger(__name__)

Forked = Callable[["AgentRuntime", str, str], object]
"""Told a fork's session and its title: None when the title could not be kept."""

PREVIEW_WAIT = 0.5
"""How long a restore waits, at most, for the tab to show the end of the local copy before it
asks the agent: the agent's replay floods the loop, and would hold that first frame back."""


class Opening:
    """Opening, reopening and showing the sessions of slots (``ws.opening``).

    It receives the ``board``, the ``interaction`` (extra roots the agent cannot take are the
    user's decision), ``authenticated`` (a login the agent asks for on the way) and ``paths``
    (where the roots used are remembered).
    """

    def __init__(
        self,
        board: Board,
        interaction: Interaction,
        authenticated: Authenticated,
        paths: Paths,
        forked: Forked = lambda _agent, _session_id, _title: None,
    ) -> None:
        self.board = board
        self.interaction = interaction
        self.authenticated = authenticated
        self.paths = paths
        self.forked = forked
        """Keeps a fork's title ("Fork of …", `LocalTitles.forked`): after restarts too."""
        self._unwatch: dict[int, Callable[[], None]] = {}
        """The transcript subscription of each slot's session, by slot id."""
        self.previews_shown = False
        """A UI shows the slots, and says when it has shown a preview (`preview_shown`)."""
        self._previews: dict[int, anyio.Event] = {}
        board.on(SlotRemoved, self.forget)

    def preview(self, slot: SessionSlot) -> None:
        """A session reopened with its history shows the end of its local copy at once,
        while the agent replays it (see `acp_tui.client.history.preview`)."""
        intent = slot.intent
        if isinstance(intent, OpenExisting) and intent.replay and slot.session is None:
            slot.preview = slot.agent.history.preview(intent.info.session_id, intent.at_line)
            if slot.preview is not None:
                slot.placeholder = slot.preview.transcript

    def preview_shown(self, slot: SessionSlot) -> None:
        """The UI shows the slot's preview: its session may be asked for now."""
        if slot.session is None and slot in self.board.slots:
            self._previews.setdefault(slot.id, anyio.Event()).set()

    async def _preview_on_screen(self, slot: SessionSlot) -> None:
        if slot.preview is not None and self.previews_shown and slot.session is None:
            with anyio.move_on_after(PREVIEW_WAIT):
                await self._previews.setdefault(slot.id, anyio.Event()).wait()
        self._previews.pop(slot.id, None)

    def open(self, slot: SessionSlot) -> None:
        """Open the slot's session (again): by its intent, or the same one after a restart."""
        self.board.set_state(slot, "opening", "opening a session…")
        self.board.spawn(lambda: self._open(slot), f"opening slot {slot.id}")

    def waiting(self, slot: SessionSlot) -> Waiting | None:
        """The agent call the slot has waited for longest while its session opens (or its
        agent logs in), if one waits: the status line counts its seconds."""
        client = slot.agent.client
        if client is None or (slot.state != "opening" and slot.agent.login_cancel is None):
            return None
        return client.clock.longest(SETUP_CALLS)

    def cancel(self, slot: SessionSlot) -> bool:
        """Esc while the slot's session opens: stop waiting for the agent (the request is
        cancelled, and the tab says so); False when nothing waits."""
        client = slot.agent.client
        if client is None or slot.state != "opening":
            return False
        return client.clock.cancel(SETUP_CALLS)

    def forget(self, event: SlotRemoved) -> None:
        """A slot is gone: its session's changes are no longer followed."""
        unwatch = self._unwatch.pop(event.slot.id, None)
        if unwatch is not None:
            unwatch()
        self._previews.pop(event.slot.id, None)

    async def _open(self, slot: SessionSlot) -> None:
        agent = slot.agent
        client = agent.client
        if client is None:
            return
        old = slot.session
        try:
            if old is not None:  # the agent restarted under it
                session: LiveSession | None = await self.authenticated(
                    agent, lambda: reopen(client, agent.recorder, old)
                )
            else:
                await self._preview_on_screen(slot)
                session = await self.authenticated(agent, lambda: self._by_intent(slot, client))
        except LoginRestart:
            self.board.set_state(slot, "starting", agent.status)
            return
        except AgentExited:
            return  # the runtime reports the exit
        except (AgentError, RpcError) as exc:
            self._open_failed(slot, exc)
            return
        if slot not in self.board.slots:  # closed while it was opening
            if session is not None and agent.client is client:
                self.board.spawn(
                    lambda: self._close_quietly(client, session), "closing an unused slot"
                )
            return
        if session is None:  # the user kept the roots the agent cannot take, or it refused
            if not self._give_up(slot):
                self.board.set_state(slot, "failed", "no session open: Ctrl+N starts one")
            return
        slot.opened_from = None
        if isinstance(slot.intent, OpenNew) and slot.intent.notice and old is None:
            session.transcript.add_notice(slot.intent.notice)
        self._show(slot, session)

    async def _by_intent(self, slot: SessionSlot, client: AgentClient) -> LiveSession | None:
        agent, intent = slot.agent, slot.intent
        if isinstance(intent, OpenNew):
            return await self._create(slot, client, intent.cwd, intent.additional_directories)
        label = display_title(intent.info)
        if isinstance(intent, OpenFork):
            self.board.emit(ActionProgress(agent, f"Forking {label}…"))
            session = await fork_with_history(
                client,
                agent.recorder,
                agent.history,
                intent.info,
                slot.cwd,
                slot.additional_directories,
            )
            # The fork's own title, in its tab, status and row, also after --continue (the
            # agent may have given it the source's, or replayed the source's history with its
            # title): kept as a local title, which the agent's own later title replaces.
            title = f"Fork of {label}"
            if self.forked(agent, session.session_id, title) is None:
                session.transcript.title = title  # not kept: at least in this run
            fork = intent.info.model_copy(update={"session_id": session.session_id, "title": title})
            self.board.emit(SessionsChanged(agent, added=fork))
            self.board.emit(ActionProgress(agent, f"Opened the fork of {label}"))
            return session
        doing = "Replaying" if intent.replay else "Resuming"
        self.board.emit(ActionProgress(agent, f"{doing} {label}…"))

        def progress(count: int) -> None:
            self.board.emit(ActionProgress(agent, f"Replaying {label}… {count} updates"))

        session = await reattach(
            client,
            agent.recorder,
            agent.history,
            intent.info,
            replay=intent.replay,
            progress=progress,
        )
        self.board.emit(ActionProgress(agent, f"Opened {label}"))
        preview = slot.preview
        if preview is not None:
            slot.preview_agreed = agrees(preview.transcript, session.transcript)
            if not slot.preview_agreed:  # the agent's version wins, and the user is told
                text = DIFFERS_NOTICE.format(agent=client.capabilities.display_name)
                session.transcript.add_notice(text, "warning")
                self.board.emit(Notice(text, "warning", slot))
        return session

    async def _create(
        self, slot: SessionSlot, client: AgentClient, cwd: Path, roots: tuple[Path, ...]
    ) -> LiveSession | None:
        """`session/new` with extra roots, never dropping them silently (the user decides)."""
        agent = slot.agent
        caps = client.capabilities
        if roots and not caps.additional_directories:
            reason = caps.why_not("additional_directories") or ""
            if not await self.interaction.confirm_without_roots(agent, cwd, roots, reason):
                self.board.emit(
                    Notice(
                        "No session opened: the extra roots were not sent. "
                        "Ctrl+N starts a session.",
                        "warning",
                        slot,
                    )
                )
                return None
            roots = ()
            slot.additional_directories = ()
        try:
            session = await client.new_session(cwd, roots)
        except RpcError as exc:
            if not roots or exc.is_auth_required:
                raise
            text = f"{caps.display_name} refused the extra roots: {exc}"
            slot.transcript.add_notice(text, "error")
            self.board.emit(Notice(text, "error", slot))
            return None
        if roots:
            recent_roots_for_project(cwd, self.paths).record(roots)
        agent.recorder.note_new(session)
        # Listed at once (a browser showing this agent need not wait for a reload).
        new = SessionInfo(
            session_id=session.session_id,
            cwd=str(session.cwd),
            additional_directories=[str(d) for d in session.additional_directories],
            updated_at=utc_now_iso(),
        )
        self.board.emit(SessionsChanged(agent, added=new))
        return session

    async def reload(self, slot: SessionSlot) -> bool:
        """Have the agent replay the session open in ``slot`` there; True when it did.

        The tab keeps its session while the agent replays it (nothing is closed first: an
        agent may forget a closed session, as pydantic-acp does). When the agent refuses
        (agentao answers -32600 for a session already active) or replays none of it
        (pydantic-acp answers ``{}`` for a session it does not know), the tab keeps its live
        session and transcript and says the reload failed and why; what was queued meanwhile
        goes to that session.
        """
        agent, live = slot.agent, slot.session
        client = agent.client
        if live is None or client is None or not slot.live:
            return False
        info = SessionInfo(
            session_id=live.session_id,
            cwd=str(slot.cwd),
            additional_directories=[str(d) for d in slot.additional_directories],
            title=slot.title,
        )
        if slot.busy:
            self._reload_failed(slot, live, "a turn is running there; reload once it ends")
            return False
        label = display_title(info)
        self.board.set_state(slot, "opening", "reloading the session…")
        self.board.emit(ActionProgress(agent, f"Reloading {label}…"))

        def progress(count: int) -> None:
            self.board.emit(ActionProgress(agent, f"Reloading {label}… {count} updates"))

        try:
            session = await self.authenticated(
                agent,
                lambda: reattach(
                    client,
                    agent.recorder,
                    agent.history,
                    info,
                    replay=True,
                    progress=progress,
                    keep=live.transcript,
                ),
            )
        except LoginRestart:
            self.board.set_state(slot, "starting", agent.status)
            return False
        except AgentExited:
            return False  # the runtime reports the exit; the session reopens after a restart
        except (AgentError, RpcError) as exc:
            self._reload_failed(slot, live, describe(exc))
            return False
        session.allowed_commands |= live.allowed_commands
        if slot not in self.board.slots:
            return False
        if session.transcript is live.transcript:
            why = f"{client.capabilities.display_name} replayed none of its history"
            self._reload_failed(slot, session, why)
            return False
        slot.intent = OpenExisting(info, replay=True)
        self._show(slot, session)
        self.board.emit(ActionProgress(agent, f"Reloaded {label}"))
        return True

    def _reload_failed(self, slot: SessionSlot, session: LiveSession, why: str) -> None:
        """Say why the reload failed, in the tab (it stays) and in passing; the tab shows its
        live session again, and its queue goes there."""
        text = f"The reload failed: {why}. This tab keeps its session."
        session.transcript.add_notice(text, "error")
        self.board.emit(ActionProgress(slot.agent, text, "error"))
        self.board.emit(Notice(text, "error", slot))
        self._show(slot, session)

    def _open_failed(self, slot: SessionSlot, exc: BaseException) -> None:
        what = "Could not open a session"
        intent = slot.intent
        if not isinstance(intent, OpenNew):
            verb = "fork" if isinstance(intent, OpenFork) else "open"
            what = f"Could not {verb} {display_title(intent.info)}"
            self.board.emit(ActionProgress(slot.agent, f"{what}: {describe(exc)}", "error"))
        text = f"{what}: {describe(exc)}"
        self.board.emit(Notice(text, "error", slot))
        if self._give_up(slot):
            return
        if isinstance(intent, OpenExisting) and slot.opened_from is None and slot.session is None:
            # The launch's session (--session ID, --continue) cannot be opened: retrying the
            # same id leads nowhere, so the tab opens a new one, saying why.
            instead = "This is a new session in the same folder instead: Ctrl+B lists the others."
            slot.intent = OpenNew(slot.cwd, slot.additional_directories, f"{text}\n{instead}")
            self.open(slot)
            return
        slot.transcript.add_notice(text, "error")
        self.board.set_state(slot, "failed", what.lower())
        self.board.want_attention(slot, "failed")

    def _give_up(self, slot: SessionSlot) -> bool:
        """A tab opened from another one that could not open goes, and that one is shown
        again (the error was said); the first tab stays, saying what went wrong."""
        back = slot.opened_from
        if slot.session is not None or back is None or back not in self.board.slots:
            return False
        self.board.remove(slot)
        self.board.focus(back)
        return True

    def _show(self, slot: SessionSlot, session: LiveSession) -> None:
        slot.session = session
        slot.cwd, slot.additional_directories = session.cwd, session.additional_directories
        unwatch = self._unwatch.pop(slot.id, None)
        if unwatch is not None:
            unwatch()
        self._unwatch[slot.id] = session.transcript.subscribe(
            lambda change: self._transcript_changed(slot, change)
        )
        self.board.set_state(slot, "ready")
        self.board.emit(SessionShown(slot))  # the prompt queue drains on it

    def _transcript_changed(self, slot: SessionSlot, change: Change) -> None:
        """The turn's state of the session shown (its notices are `Notices`' own)."""
        if change.kind == "state":
            self.board.emit(TurnChanged(slot))

    async def _close_quietly(self, client: AgentClient, session: LiveSession) -> None:
        if client.capabilities.can_close:
            try:
                await client.close_session(session.session_id)
            except (AgentError, RpcError):
                log.debug("could not close an unused session", exc_info=True)


def describe(exc: BaseException) -> str:
    """An error as the user reads it (a session the agent does not know is said so)."""
    if isinstance(exc, RpcError) and exc.code == ErrorCode.RESOURCE_NOT_FOUND:
        return f"the agent does not know this session (it may have been deleted): {exc}"
    return str(exc)
