"""Provides DialogInteraction: the Workspace's questions answered with the app's dialogs.

Permission, elicitation (a form or a URL), running an agent's command, login method and "go on
without the extra roots?" are modal dialogs, shown over the tab the Workspace made current for
the question (`acp_tui.client.workspace.questions` decides when and where one is asked); a
terminal login suspends the app and runs the agent's own command on the real terminal. Dialogs
are imported when shown (they need the protocol models, which the first frame does not).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from textual.app import App
from textual.screen import ModalScreen, Screen

if TYPE_CHECKING:
    from acp_tui.client.agent.auth_methods import AuthMethodInfo, EnvVarSpec
    from acp_tui.client.session.elicitation import Answer, Elicitation
    from acp_tui.client.session.question_queue import PermissionQueue
    from acp_tui.client.tools.terminal_gate import TerminalAnswer, TerminalAsk
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.env_login import EnvAnswer
    from acp_tui.client.workspace.interaction import TerminalRun
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.protocol.client_methods import RequestPermissionOutcome, RequestPermissionRequest
    from acp_tui.ui.dialogs.question import AgentQuestion

__all__ = ["DialogInteraction", "TerminalLoginUnavailable", "TerminalRunner", "ask", "withdraw"]

R = TypeVar("R")

TerminalRunner = Callable[[list[str], dict[str, str], Path], Awaitable["TerminalRun | int"]]
"""Runs a command on the real terminal; returns how it ended (or just its exit code)."""


async def ask(app: App[int], dialog: ModalScreen[R]) -> R | None:
    """Show ``dialog`` and wait for its answer, from any task (not only workers).

    Cancelled meanwhile (the agent withdrew its question), the dialog is withdrawn.
    """
    answered = asyncio.Event()
    answers: list[R | None] = []

    def done(answer: R | None) -> None:
        answers.append(answer)
        answered.set()

    app.push_screen(dialog, callback=done)
    try:
        await answered.wait()
    finally:
        if not answered.is_set() and dialog.is_attached:
            withdraw(app, dialog)
    return answers[0] if answers else None


def withdraw(app: App[int], dialog: ModalScreen[R], result: R | None = None) -> None:
    """Close a dialog nobody waits for any more (or answered for the user, with ``result``):
    now if it is on top, else once it is.

    (Dismissing a covered dialog would close the screen above it, e.g. the palette.)
    """
    if dialog is app.screen:
        dialog.dismiss(result)
        return

    def uncovered(screen: Screen[object]) -> None:
        if screen is dialog:
            app.screen_change_signal.unsubscribe(dialog)
            dialog.dismiss(result)

    app.screen_change_signal.subscribe(dialog, uncovered)


class TerminalLoginUnavailable(Exception):
    """A terminal login cannot run here (the app is in a web browser); the message says why."""


class DialogInteraction:
    """The Workspace's Interaction, for the Textual app."""

    def __init__(
        self,
        app: App[int],
        *,
        cancel_turn: Callable[[SessionSlot], None],
        run_interactive: TerminalRunner | None = None,
    ) -> None:
        self.app = app
        self.cancel_turn = cancel_turn
        self.run_interactive: TerminalRunner = run_interactive or self.run_in_terminal
        """How a terminal login runs (tests give another)."""
        self.permissions: PermissionQueue | None = None
        """The Workspace's queue of permission requests (for the dialog's waiting count)."""
        self.refuse_all: Callable[[AgentRuntime], None] | None = None
        """Refuses every question of an agent (the dialogs' "refuse all" key)."""

    def _offer_refuse_all(self, dialog: AgentQuestion[R], agent: AgentRuntime) -> None:
        refuse_all = self.refuse_all
        if refuse_all is not None:
            dialog.on_refuse_all = lambda: refuse_all(agent)

    async def ask_permission(
        self, slot: SessionSlot, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        """Show the permission dialog over the asking session's tab; Esc there cancels the
        turn (and so answers `cancelled`)."""
        from acp_tui.protocol.client_methods import (
            CancelledPermissionOutcome,
            SelectedPermissionOutcome,
        )
        from acp_tui.ui.dialogs.permission import PermissionDialog

        queue = self.permissions
        dialog = PermissionDialog(request, waiting=queue.waiting if queue is not None else 0)
        self._offer_refuse_all(dialog, slot.agent)
        unsubscribe = (
            queue.subscribe(lambda: dialog.set_waiting(queue.waiting))
            if queue is not None
            else None
        )
        try:
            option_id = await ask(self.app, dialog)
        finally:
            if unsubscribe is not None:
                unsubscribe()
        if option_id is None:
            self.cancel_turn(slot)
            return CancelledPermissionOutcome()
        return SelectedPermissionOutcome(option_id=option_id)

    async def ask_elicitation(
        self, agent: AgentRuntime, slot: SessionSlot | None, elicitation: Elicitation
    ) -> Answer:
        """Show the form or URL dialog (over the asking session's tab, or over any tab for a
        question asked before any session). A URL dialog closes, answered accept, when the
        agent says the question is done (`elicitation/complete`)."""
        import anyio

        from acp_tui.client.session.elicitation import ACCEPTED, CANCELLED
        from acp_tui.ui.dialogs.elicitation_form import ElicitationFormDialog
        from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlDialog

        queue = self.permissions
        waiting = queue.waiting if queue is not None else 0
        url = elicitation.mode == "url"
        dialog = (ElicitationUrlDialog if url else ElicitationFormDialog)(
            elicitation, agent.display_name, waiting
        )
        self._offer_refuse_all(dialog, agent)
        unsubscribe = (
            queue.subscribe(lambda: dialog.set_waiting(queue.waiting))
            if queue is not None
            else None
        )

        async def close_when_done() -> None:
            await elicitation.completed.wait()
            if isinstance(dialog, ElicitationUrlDialog) and dialog.complete():
                withdraw(self.app, dialog, ACCEPTED)

        try:
            async with anyio.create_task_group() as tg:
                if url:
                    tg.start_soon(close_when_done)
                answer = await ask(self.app, dialog)
                tg.cancel_scope.cancel()
        finally:
            if unsubscribe is not None:
                unsubscribe()
        return answer if answer is not None else CANCELLED

    async def confirm_terminal(
        self, slot: SessionSlot, request: TerminalAsk
    ) -> TerminalAnswer | None:
        """Ask whether the agent may run a command, over the asking session's tab."""
        from acp_tui.ui.dialogs.terminal import TerminalDialog

        dialog = TerminalDialog(request)
        self._offer_refuse_all(dialog, slot.agent)
        return await ask(self.app, dialog)

    async def choose_auth_method(
        self, agent: AgentRuntime, methods: tuple[AuthMethodInfo, ...], reason: str
    ) -> AuthMethodInfo | None:
        from acp_tui.ui.dialogs.auth import AuthDialog

        return await ask(self.app, AuthDialog(agent.display_name, methods, reason))

    async def ask_env_vars(
        self, agent: AgentRuntime, method: AuthMethodInfo, missing: tuple[EnvVarSpec, ...]
    ) -> EnvAnswer | None:
        """Ask for an ``env_var`` login's missing values (masked when secret)."""
        from acp_tui.client.workspace.env_login import can_save, where_known
        from acp_tui.ui.dialogs.env_login import EnvLoginDialog

        asked = {var.name for var in missing}
        known = [
            (var.name, where)
            for var in method.env_vars
            if var.name not in asked and (where := where_known(agent, var.name)) is not None
        ]
        config_name = agent.launch.config_name if can_save(agent) else None
        dialog = EnvLoginDialog(
            agent.display_name, method, missing, known=known, config_name=config_name
        )
        return await ask(self.app, dialog)

    async def confirm_without_roots(
        self, agent: AgentRuntime, cwd: Path, roots: tuple[Path, ...], reason: str
    ) -> bool:
        from acp_tui.ui.dialogs.roots import RootsDialog

        answer = await ask(self.app, RootsDialog(cwd, roots, supported=False, reason=reason))
        return answer is not None and answer.proceed_without

    async def run_terminal_login(
        self, argv: list[str], env: dict[str, str], cwd: Path
    ) -> TerminalRun:
        from acp_tui.client.workspace.interaction import TerminalRun

        result = await self.run_interactive(argv, env, cwd)
        return result if isinstance(result, TerminalRun) else TerminalRun(result)

    async def run_in_terminal(self, argv: list[str], env: dict[str, str], cwd: Path) -> TerminalRun:
        """Suspend the app and run ``argv`` on the real terminal; its exit and last output.

        Cancelled meanwhile (the app quits: SIGTERM, a hang-up), the command is ended rather
        than waited for, and the terminal given back before the app goes. In a web browser
        (`acp-tui serve`) there is no terminal to give: the login is refused with the reason.
        """
        if self.app.is_web:
            raise TerminalLoginUnavailable(
                "a terminal login needs a terminal, and this acp-tui runs in a web browser: "
                "log in once with acp-tui in a terminal on the server, then restart the agent "
                "here (Ctrl+R)"
            )
        import threading

        import anyio

        from acp_tui.client.workspace.interaction import TerminalRun
        from acp_tui.ui.suspend import on_the_terminal
        from acp_tui.ui.terminal_run import STOP_GRACE, Stop, run_in_pty

        stop = Stop()
        finished = threading.Event()

        def run() -> tuple[int, str]:
            try:
                return run_in_pty(argv, env, cwd, stop)
            finally:
                finished.set()

        try:
            with on_the_terminal(self.app):
                try:
                    code, output = await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
                except BaseException:
                    stop.set()
                    with anyio.CancelScope(shield=True):
                        await anyio.to_thread.run_sync(finished.wait, STOP_GRACE + 2)
                    raise
        finally:
            if finished.is_set():
                stop.close()
        return TerminalRun(code, output)
