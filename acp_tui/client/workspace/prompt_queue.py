"""Provides Prompting, the Workspace's prompt queue, turns, cancel and session options.

Enter never loses a message: `submit` sends it at once when its slot is ready and no turn runs,
and otherwise queues it, visibly, with the reason it waits; queued prompts stay editable and
removable until they are sent, one turn each, in order, as soon as the session opens or the
turn ends. A slot whose session was closed or deleted opens a new one for it. When a slot's
session goes away under its queue, the queued text goes back to the user as a draft.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.client.errors import AgentError, AgentExited, LoginRestart
from acp_tui.client.session.prompt_blocks import build_prompt_blocks
from acp_tui.client.tools.mentions import resolve_mentions
from acp_tui.client.workspace.slots import (
    DraftsReturned,
    Notice,
    QueuedPrompt,
    SessionSlot,
    SlotChanged,
)
from acp_tui.protocol.jsonrpc import RpcError

if TYPE_CHECKING:
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.slots import Attention, SlotState, WorkspaceEvent

__all__ = ["Prompting"]

log = logging.getLogger(__name__)


class Prompting:
    """Mixin of Workspace: what the user sends, and the turns it starts."""

    _next_prompt = 0

    if TYPE_CHECKING:  # provided by Workspace

        def emit(self, event: WorkspaceEvent) -> None: ...

        def spawn(self, work: Callable[[], Awaitable[object]], name: str) -> None: ...

        async def authenticated(
            self, agent: AgentRuntime, call: Callable[[], Awaitable[str]]
        ) -> str: ...

        def _start_opening(self, slot: SessionSlot) -> None: ...

        def _want_attention(self, slot: SessionSlot, why: Attention) -> None: ...

        def _set_state(self, slot: SessionSlot, state: SlotState, status: str = "") -> None: ...

    def submit(
        self, slot: SessionSlot, text: str, attachments: tuple[Path, ...] = ()
    ) -> QueuedPrompt | None:
        """Send ``text`` now or as soon as it can go; None when there is nothing to send."""
        if not text.strip():
            return None
        self._next_prompt += 1
        prompt = QueuedPrompt(self._next_prompt, text, attachments)
        slot.queue.append(prompt)
        if slot.state in ("closed", "failed") and slot.agent.alive:
            self._start_opening(slot)  # a (new) session for it, in the same slot
        self.emit(SlotChanged(slot, "queue"))
        self.drain(slot)
        return prompt

    def edit_queued(self, slot: SessionSlot, prompt_id: int, text: str) -> bool:
        """Change a prompt that has not been sent yet; False when it is gone (sent)."""
        for prompt in slot.queue:
            if prompt.id == prompt_id:
                prompt.text = text
                prompt.attachments = ()
                prompt.recorded_in = None  # what is sent now is recorded
                self.emit(SlotChanged(slot, "queue"))
                return True
        return False

    def remove_queued(self, slot: SessionSlot, prompt_id: int) -> QueuedPrompt | None:
        """Take a prompt out of the queue (not sent); returns it, or None when already sent."""
        for prompt in slot.queue:
            if prompt.id == prompt_id:
                slot.queue.remove(prompt)
                self.emit(SlotChanged(slot, "queue"))
                return prompt
        return None

    def return_queue(self, slot: SessionSlot, why: str) -> None:
        """The queue cannot be sent where it was meant to: give it back as a draft."""
        if not slot.queue:
            return
        texts = tuple(prompt.text for prompt in slot.queue)
        slot.queue.clear()
        self.emit(SlotChanged(slot, "queue"))
        self.emit(DraftsReturned(slot, texts))
        self.emit(
            Notice(
                f"{len(texts)} queued message(s) were not sent ({why}); they are back in the "
                "prompt.",
                "warning",
                slot,
            )
        )

    def drain(self, slot: SessionSlot) -> None:
        """Send the next queued prompt if the slot can take it now."""
        if slot.sending is not None or not slot.queue or not slot.live:
            if slot.queue:
                self.emit(SlotChanged(slot, "queue"))
            return
        prompt = slot.queue.pop(0)
        slot.sending = prompt
        self.emit(SlotChanged(slot, "queue"))
        self.spawn(lambda: self._turn(slot, prompt), f"prompt in slot {slot.id}")

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
                self._set_state(slot, "starting", agent.status)
                return
            except (AgentError, RpcError) as exc:
                self._prompt_failed(slot, exc)
            else:
                self._want_attention(slot, "finished")
            finally:
                # The transcript took the end of the turn: a replay of the copy must too.
                if turned:
                    agent.recorder.record_turn_end(session.session_id, stop)
        finally:
            slot.sending = None
            self.drain(slot)

    def _prompt_failed(self, slot: SessionSlot, exc: BaseException) -> None:
        slot.transcript.add_notice(f"The prompt failed: {exc}", "error")
        self._want_attention(slot, "failed")

    def cancel_turn(self, slot: SessionSlot) -> None:
        """Cancel the running turn (`session/cancel`); pending permission questions are
        answered `cancelled`."""
        client, session = slot.agent.client, slot.session
        if client is None or session is None or not session.prompt_pending:
            return

        async def cancel() -> None:
            try:
                await client.cancel(session.session_id)
            except AgentError as exc:
                session.transcript.add_notice(f"Could not cancel: {exc}", "error")

        self.spawn(cancel, f"cancel in slot {slot.id}")

    def set_option(self, slot: SessionSlot, config_id: str | None, value: str | bool) -> None:
        """`session/set_config_option` (or `session/set_mode` when ``config_id`` is None)."""
        client, session = slot.agent.client, slot.session
        if client is None or session is None:
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

        self.spawn(apply, f"setting an option in slot {slot.id}")
