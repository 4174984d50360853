"""Provides UpdateInbox: the `session/update` notifications of one agent connection, applied in
arrival order to the sessions they name.

Text chunks of one message are held back and applied as one, and of a run of updates each of
which replaces the one before (plans, commands...) only the last is applied and recorded
(`acp_tui.client.agent.coalesce`): what is held takes effect when anything else arrives, at the
end of each block read and before a reply or a request (``apply_held``, the drain);
an update in a big line is parsed in a worker thread (:func:`off_loop_if_big`) so the app does
not freeze. Updates for a session not registered yet are kept for a while (an agent may send
some right after its `session/new` answer, before the awaiting call registers the session);
those for a session let go are dropped. A v2 ``state_update`` ends the prompt waiting for it
(its `TurnWaiter`), or a turn the agent started by itself. Listeners see every update after
its session's transcript has it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from pydantic import ValidationError

from acp_tui.client.agent import preencoded
from acp_tui.client.agent.coalesce import ChunkRun, LatestRun, text_chunk
from acp_tui.client.agent.dialects import Dialect
from acp_tui.client.agent.dialects.events import (
    AgentTerminalChanged,
    Event,
    MessageReplaced,
    ToolContentAppended,
    TurnStateChanged,
    UpdateDropped,
    apply_event,
)
from acp_tui.client.agent.dropped import malformed, skipped_entries
from acp_tui.client.listeners import Listeners
from acp_tui.client.session.live_session import LiveSession
from acp_tui.protocol.big import quiet_gc
from acp_tui.protocol.connection import BIG_LINE, describe_validation_error, line_bytes
from acp_tui.protocol.held import hold_meta, hold_update
from acp_tui.protocol.updates import SessionUpdate, update_classes

__all__ = [
    "EARLY_SESSIONS",
    "EARLY_UPDATES",
    "TurnWaiter",
    "UpdateInbox",
    "off_loop_if_big",
    "quietly",
    "warm_up_updates",
]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

EARLY_SESSIONS = 8
EARLY_UPDATES = 256
"""Bounds of the updates kept for sessions not registered yet (see ``early_updates``)."""


async def off_loop_if_big(parse: Callable[[Any], _T], params: Any) -> _T:
    """``parse(params)``, in a worker thread when the message came in a big line (200,000 plan
    entries take seconds to validate: the app must not freeze meanwhile)."""
    if line_bytes.get() > BIG_LINE:
        return await anyio.to_thread.run_sync(quietly, parse, params)
    return parse(params)


def quietly(parse: Callable[[Any], _T], params: Any) -> _T:
    """``parse(params)`` with the collector paused (see ``acp_tui.protocol.big.quiet_gc``)."""
    with quiet_gc():
        return parse(params)


def warm_up_updates(dialect: Dialect) -> None:
    """Build the validators and serializers of session updates (call it in a worker thread).

    The models build their schemas on first use (``defer_build``): 20 to 60 ms for the
    notification, a few more for each kind of update the recorder encodes, which would
    otherwise stall the event loop at the first updates of the first reply or replay.
    """
    sample = {
        "sessionId": "warm-up",
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "warm-up",
            "content": {"type": "text", "text": ""},
        },
    }
    try:
        dialect.parse_update(sample)
    except ValidationError:  # only a warm-up: the real updates will say
        log.debug("warming the update models up failed", exc_info=True)
    for kind in update_classes():
        kind.model_rebuild()


@dataclass(eq=False)
class TurnWaiter:
    """A v2 prompt waiting for its session's ``idle`` state."""

    done: anyio.Event = field(default_factory=anyio.Event)
    stop_reason: str | None = None


class UpdateInbox:
    """Applies the updates to ``sessions`` (the client's live sessions, by id), parsed in
    ``dialect``; ends the v2 prompts waiting in ``turns``."""

    def __init__(
        self, sessions: dict[str, LiveSession], turns: dict[str, TurnWaiter], dialect: Dialect
    ) -> None:
        self.sessions = sessions
        self.turns = turns
        self.dialect = dialect
        """How updates are spelled (the client sets the negotiated one at ``initialize``)."""
        self._held = ChunkRun()
        """Text chunks of one message held back to be applied as one (see ``coalesce``)."""
        self._latest = LatestRun()
        """The last of a run of updates each replacing the one before (see ``coalesce``)."""
        self.early_updates: dict[str, list[Event]] = {}
        """Updates for a session id not registered yet: an agent may send some (commands) right
        after its `session/new` reply, before the awaiting call has registered the session."""
        self.gone: dict[str, None] = {}
        """Sessions the client closed or let go (oldest first): whatever the agent still sends
        for them is dropped, neither kept as early updates nor shown anywhere."""
        self.updates: Listeners[[str, SessionUpdate]] = Listeners("session update listener")
        """Every update of every session, after the session's transcript has it."""
        self.own_turn_ends: Listeners[[str, str | None]] = Listeners("turn end listener")
        """A turn the agent started by itself (v2) ended: session id, stop reason. The end of
        a prompted turn is the prompt's answer instead."""
        self.drained: Listeners[[]] = Listeners("drain listener")
        """The updates read so far took effect (the end of each block read, and before a reply
        or a request): what was recorded of them may be flushed."""

    def take_now(self, method: str, params: Any) -> bool:
        """A notification of a line that is not big, in the read loop's step: a
        `session/update` is handled here (no coroutine per line); True when it was."""
        if method != "session/update":
            return False
        chunk = text_chunk(params)
        if chunk is not None:
            key, text = chunk
            self._apply_latest()
            if not self._held.add(key, text, params):
                self._apply_chunks()
                self._held.add(key, text, params)
            return True
        self._apply_chunks()
        self._apply_update(params)
        return True

    async def receive(self, params: Any) -> None:
        """A `session/update` the connection handed over as a coroutine: one in a big line is
        parsed in a worker thread while the loop keeps going."""
        if line_bytes.get() <= BIG_LINE:
            self.take_now("session/update", params)
            return
        self.apply_held()
        try:
            session_id, events = await off_loop_if_big(self._parse_update, params)
        except ValidationError as exc:
            self._skip(params, exc)
            return
        self._apply_events(session_id, events)

    def apply_held(self) -> None:
        """Apply the text chunks held back, joined (the connection calls this when the
        notifications read so far must take effect), and tell the ``drained`` listeners."""
        self._apply_run()
        self.drained.emit()

    def _apply_run(self) -> None:
        """Apply what is held back: the text chunks joined, or the last update of a run each
        of which replaced the one before (one of the two at most). Not a drain: the recorder
        flushes once per block read, not once per update."""
        self._apply_chunks()
        self._apply_latest()

    def _apply_chunks(self) -> None:
        params = self._held.take()
        if params is not None:
            self._apply_update(params)

    def _apply_latest(self) -> None:
        latest = self._latest.take()
        if latest is not None:
            self._apply_events(latest[0], [latest[1]])

    def _apply_update(self, params: Any) -> None:
        try:
            session_id, events = self._parse_update(params)
        except ValidationError as exc:
            self._apply_latest()
            self._skip(params, exc)
            return
        if self._latest.supersedes(events):
            if not self._latest.add(session_id, events[0]):
                self._apply_latest()
                self._latest.add(session_id, events[0])
            return
        self._apply_latest()
        self._apply_events(session_id, events)

    def _skip(self, params: Any, exc: ValidationError) -> None:
        """A malformed update: logged, and said quietly in its session's transcript."""
        log.warning("skipping a malformed session/update: %s", describe_validation_error(exc))
        dropped = malformed(params, exc)
        if dropped is not None:
            self._apply_events(dropped[0], [dropped[1]])

    def _apply_events(self, session_id: str, events: list[Event]) -> None:
        for event in events:
            session = self.sessions.get(session_id)
            if isinstance(event, TurnStateChanged):
                if session is not None:
                    self._turn_state(session, event)
                continue
            updates: list[SessionUpdate] = []
            if session is not None:
                updates = apply_event(session.transcript, event)
            elif session_id in self.gone:
                log.debug("dropping an update for %s, a session let go", session_id)
                return
            else:
                self._keep_early(session_id, event)
                neutral = (
                    MessageReplaced | ToolContentAppended | AgentTerminalChanged | UpdateDropped
                )
                if not isinstance(event, neutral):
                    updates = [event]
            for update in updates:
                self.updates.emit(session_id, update)
            preencoded.drop((event, *updates))

    def _parse_update(self, params: Any) -> tuple[str, list[Event]]:
        """Parse a ``session/update``; in a worker thread (a big line), also encode its updates
        for the recorder there. Its long lists are capped first (`acp_tui.protocol.held`)."""
        if isinstance(params, dict):
            hold_meta(params)
            hold_update(params.get("update"))
        session_id, parsed = self.dialect.parse_update(params)
        events = list(parsed)
        skipped = skipped_entries(params, events)
        if skipped is not None:
            events.append(skipped)
        if line_bytes.get() > BIG_LINE:
            preencoded.encode_all(events)
        return session_id, events

    def _turn_state(self, session: LiveSession, event: TurnStateChanged) -> None:
        """A v2 ``state_update``: idle ends the prompt waiting for it (or a background turn)."""
        transcript = session.transcript
        if event.state == "idle":
            # Popped: an ``idle`` after this one (the agent may start a turn of its own at once,
            # before the prompt's caller resumes) ends that turn, not the prompt's again.
            waiter = self.turns.pop(session.session_id, None)
            if waiter is not None:
                waiter.stop_reason = event.stop_reason
                waiter.done.set()
            elif transcript.state != "idle":
                transcript.end_turn(event.stop_reason)
                self.own_turn_ends.emit(session.session_id, event.stop_reason)
        elif event.state == "running":
            transcript.set_state("running")
        elif event.state == "requires_action":
            transcript.set_state("requires_action")
        else:
            log.debug("ignoring unknown turn state %r", event.state)

    def _keep_early(self, session_id: str, update: Event) -> None:
        early = self.early_updates.get(session_id)
        if early is None:
            if len(self.early_updates) >= EARLY_SESSIONS:
                del self.early_updates[next(iter(self.early_updates))]
            early = self.early_updates[session_id] = []
        if len(early) < EARLY_UPDATES:
            early.append(update)
