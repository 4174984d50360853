"""Provides PromptQueue, the part of the Workspace that sends what the user types: the queue,
the turns, cancel and session options.

Enter never loses a message: `submit` sends it at once when its slot is ready and no turn runs,
and otherwise queues it (`acp_tui.client.workspace.prompt_queue.waiting`), visibly, with the
reason it waits; queued prompts stay editable and removable until they are sent, one turn each,
in order, as soon as the session is shown or the turn ends. Cancelling a turn pauses the prompts
queued behind it until the user resumes them or edits one (which keeps its place). A slot
whose session was closed or deleted opens a new one for it. When a slot's session goes away
under its queue, the queued text goes back to the user as a draft.

The queue follows the board rather than being called: it drains when a session is shown
(`SessionShown`), and when a slot is closed or its agent is down (`SlotStateChanged`) the turn
it was sending is over and, for a closed one, the queue goes back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.client.errors import AgentError, AgentExited, LoginRestart
from acp_tui.client.session.modes import mode_picker
from acp_tui.client.session.prompt_blocks import build_prompt_blocks, context_block
from acp_tui.client.tools.mentions import resolve_mentions
from acp_tui.client.workspace.events import (
    DraftsReturned,
    Notice,
    QueueChanged,
    SessionShown,
    SlotStateChanged,
)
from acp_tui.client.workspace.prompt_queue.waiting import QueuedPrompt
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.protocol.jsonrpc import RpcError

if TYPE_CHECKING:
    from acp_tui.client.workspace.board import Board
    from acp_tui.client.workspace.login import Authenticated

__all__ = ["PromptQueue"]

log = logging.getLogger(__name__)


class PromptQueue:
    """What the user sends, and the turns it starts (``ws.prompts``).

    It receives the ``board``, ``authenticated`` (a prompt may need a login first) and
    ``reopen`` (`Opening.open`: a slot whose session is gone opens a new one for the prompt).
    """

    def __init__(
        self, board: Board, authenticated: Authenticated, reopen: Callable[[SessionSlot], None]
    ) -> None:
        self.board = board
        self.authenticated = authenticated
        self.reopen = reopen
        self._next_prompt = 0
        self._modes_asked: dict[int, str] = {}
        """The mode last asked for in each slot (by id), until the agent has answered."""
        board.on(SessionShown, self.session_shown)
        board.on(SlotStateChanged, self.slot_state_changed)

    def session_shown(self, event: SessionShown) -> None:
        """A session is open in the slot: what waited for it goes out."""
        self.drain(event.slot)

    def slot_state_changed(self, event: SlotStateChanged) -> None:
        """No turn runs in a slot whose agent is down or whose session is gone; the prompts
        queued for a session that is gone go back to the user."""
        slot = event.slot
        if slot.state in ("agent_down", "closed"):
            slot.queue.sending = None
        if slot.state == "closed":
            self.return_queue(slot, "its session is gone")

    def submit(
        self, slot: SessionSlot, text: str, attachments: tuple[Path, ...] = ()
    ) -> QueuedPrompt | None:
        """Send ``text`` now or as soon as it can go, with the ``!`` output waiting in the slot;
        None when there is nothing to send."""
        if not text.strip():
            return None
        self._next_prompt += 1
        prompt = QueuedPrompt(self._next_prompt, text, attachments, tuple(slot.context))
        slot.context.clear()
        slot.queue.append(prompt)
        if slot.state in ("closed", "failed") and slot.agent.alive:
            self.reopen(slot)  # a (new) session for it, in the same slot
        self.board.emit(QueueChanged(slot))
        self.drain(slot)
        return prompt

    def edit_queued(self, slot: SessionSlot, prompt_id: int, text: str) -> bool:
        """Change a prompt that has not been sent yet, in its place; False when it is gone
        (sent or removed). An edit being made is done: the user sent it, which also confirms a
        paused queue, and the queue goes on."""
        for prompt in slot.queue:
            if prompt.id == prompt_id:
                prompt.text = text
                prompt.attachments = ()
                prompt.recorded_in = None  # what is sent now is recorded
                if prompt.editing:
                    prompt.editing = slot.queue.paused = False
                self.board.emit(QueueChanged(slot))
                self.drain(slot)
                return True
        return False

    def hold_for_edit(self, slot: SessionSlot, prompt_id: int) -> QueuedPrompt | None:
        """The user takes a queued prompt into the editor: it stays in its place, and it and
        what follows wait until `edit_queued` (or `remove_queued`); None when it is gone."""
        for prompt in slot.queue:
            if prompt.id == prompt_id:
                prompt.editing = True
                self.board.emit(QueueChanged(slot))
                return prompt
        return None

    def resume(self, slot: SessionSlot) -> None:
        """The user confirms the paused queue (Enter on it): it goes on, edits under way
        aside (an edited prompt goes once the edit is sent)."""
        slot.queue.paused = False
        self.board.emit(QueueChanged(slot))
        self.drain(slot)

    def remove_queued(self, slot: SessionSlot, prompt_id: int) -> QueuedPrompt | None:
        """Take a prompt out of the queue (not sent); returns it, or None when already sent."""
        for prompt in slot.queue:
            if prompt.id == prompt_id:
                slot.queue.remove(prompt)
                slot.context[:0] = prompt.context  # waits for the next prompt instead
                self.board.emit(QueueChanged(slot))
                self.drain(slot)  # it may have held the others
                return prompt
        return None

    def return_queue(self, slot: SessionSlot, why: str) -> None:
        """The queue cannot be sent where it was meant to: give it back as a draft."""
        if not slot.queue:
            return
        texts = tuple(prompt.text for prompt in slot.queue)
        slot.context[:0] = [item for prompt in slot.queue for item in prompt.context]
        slot.queue.clear()
        self.board.emit(QueueChanged(slot))
        self.board.emit(DraftsReturned(slot, texts))
        self.board.emit(
            Notice(
                f"{len(texts)} queued message(s) were not sent ({why}); they are back in the "
                "prompt.",
                "warning",
                slot,
            )
        )

    def drain(self, slot: SessionSlot) -> None:
        """Send the next queued prompt if the slot can take it now."""
        if slot.queue.sending is not None or slot.queue.held or not slot.queue or not slot.live:
            if slot.queue:
                self.board.emit(QueueChanged(slot))
            return
        prompt = slot.queue.pop(0)
        slot.queue.sending = prompt
        self.board.emit(QueueChanged(slot))
        self.board.spawn(lambda: self._turn(slot, prompt), f"prompt in slot {slot.id}")

    async def _turn(self, slot: SessionSlot, prompt: QueuedPrompt) -> None:
        agent, session = slot.agent, slot.session
        client = agent.client
        try:
            if client is None or session is None:
                slot.queue.insert(0, prompt)
                return
            attachments = prompt.attachments or tuple(
                resolve_mentions(prompt.text, session.roots, session.cwd)
            )
            blocks = build_prompt_blocks(
                prompt.text,
                attachments,
                embedded_context=client.capabilities.prompt_embedded_context,
                image=client.capabilities.prompt_image,
            )
            embedded = client.capabilities.prompt_embedded_context
            blocks += [context_block(item, embedded_context=embedded) for item in prompt.context]
            if prompt.recorded_in != session.session_id:
                agent.recorder.record_prompt(session.session_id, blocks)
                prompt.recorded_in = session.session_id
            slot.prompted = True
            stop: str | None = None
            turned = True
            try:
                stop = await self.authenticated(
                    agent, lambda: client.prompt(session.session_id, blocks)
                )
            except AgentExited:
                return  # the runtime reports the exit; the prompt reached the agent
            except LoginRestart:
                session.transcript.add_notice(
                    "Log in from the terminal; your message is sent again after it.",
                    "warning",
                    hint=True,
                )
                slot.queue.insert(0, prompt)
                turned = False  # no turn took place: it is sent (not recorded) again
                # Not ready until the agent is back (logged in) and the session reopened: the
                # queue waits for that instead of meeting the old connection's refusal again.
                self.board.set_state(slot, "starting", agent.status)
                return
            except (AgentError, RpcError) as exc:
                self._prompt_failed(slot, exc)
            else:
                self.board.want_attention(slot, "finished")
            finally:
                # The transcript took the end of the turn: a replay of the copy must too.
                if turned:
                    agent.recorder.record_turn_end(session.session_id, stop)
        finally:
            slot.queue.sending = None
            self.drain(slot)

    def _prompt_failed(self, slot: SessionSlot, exc: BaseException) -> None:
        slot.transcript.add_notice(f"The prompt failed: {exc}", "error")
        self.board.want_attention(slot, "failed")

    def cancel_turn(self, slot: SessionSlot) -> None:
        """Cancel the running turn (`session/cancel`); pending permission questions are
        answered `cancelled`. The prompts queued behind it are paused: the user stopped the
        agent, and what they queued earlier goes only once they say so (`resume`)."""
        client, session = slot.agent.client, slot.session
        if client is None or session is None or not session.prompt_pending:
            return
        if slot.queue and not slot.queue.paused:
            slot.queue.paused = True
            self.board.emit(QueueChanged(slot))

        async def cancel() -> None:
            try:
                await client.cancel(session.session_id)
            except AgentError as exc:
                session.transcript.add_notice(f"Could not cancel: {exc}", "error")

        self.board.spawn(cancel, f"cancel in slot {slot.id}")

    def cycle_mode(self, slot: SessionSlot) -> str | None:
        """Ask for the session's next mode (Shift+Tab); returns its name, or None when the
        session has no modes to step through.

        A press before the agent has answered the last one steps on from the mode asked for,
        not from the one the session still shows: three quick presses go three modes on.
        """
        session = slot.session
        picker = mode_picker(session.transcript) if session is not None else None
        if picker is None:
            return None
        value = picker.after(self._modes_asked.get(slot.id, picker.current))
        self._modes_asked[slot.id] = value

        def answered() -> None:
            if self._modes_asked.get(slot.id) == value:
                del self._modes_asked[slot.id]

        self.set_option(slot, picker.config_id, value, answered=answered)
        return picker.name_of(value)

    def set_option(
        self,
        slot: SessionSlot,
        config_id: str | None,
        value: str | bool,
        *,
        answered: Callable[[], None] | None = None,
    ) -> None:
        """`session/set_config_option` (or `session/set_mode` when ``config_id`` is None);
        ``answered`` is called once the agent has answered (or failed to)."""
        client, session = slot.agent.client, slot.session
        if client is None or session is None:
            if answered is not None:
                answered()
            return

        async def apply() -> None:
            try:
                if config_id is None:
                    await client.set_mode(session.session_id, str(value))
                else:
                    await client.set_config_option(session.session_id, config_id, value)
            except (AgentError, RpcError) as exc:
                session.transcript.add_notice(f"Could not change the setting: {exc}", "error")
                # Put the pickers back to what the session really has.
                session.transcript.set_config_options(list(session.transcript.config_options))
            finally:
                if answered is not None:
                    answered()

        self.board.spawn(apply, f"setting an option in slot {slot.id}")
