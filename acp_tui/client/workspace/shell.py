"""Provides ShellCommands, the part of the Workspace that runs the user's ``!`` commands.

``!make test`` in the prompt runs ``make test`` in the session's working directory, as Claude
Code's bash mode and Toad's shell do, and its output goes with the next prompt as context. It
runs exactly as an agent's command would (`acp_tui.client.tools.terminals`): in the session's
terminal manager, in a directory opened inside the session's roots, with the environment
filter, in its own process group whose whole tree is ended with it, and only as the
``terminal`` setting says ("ask" asks first with the command dialog, "allow" runs it, "deny"
does not). The command line goes to the user's shell (``$SHELL -c``, else ``/bin/sh``): the
user typed it, pipes and globs included.

Its output is a terminal block in the transcript (a tool call holding the terminal, marked as
the user's), kept in the transcript's display-only terminals once it ended so that it shows
however many terminals come after it. The last `OUTPUT_LIMIT` bytes are kept: the end is where
errors and results are. It then waits in the slot (``slot.context``) for the next prompt,
which takes it (`acp_tui.client.workspace.prompt_queue`); a `QueueChanged` says so.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from acp_tui.client.session.prompt_blocks import CommandOutput
from acp_tui.client.tools.terminal_gate import TerminalAsk, TerminalPolicy
from acp_tui.client.workspace.events import Level, QueueChanged
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.tools import TerminalToolCallContent
from acp_tui.protocol.updates import ToolCallProgress, ToolCallStart

if TYPE_CHECKING:
    from acp_tui.client.session.live_session import LiveSession
    from acp_tui.client.workspace.agent_runtime import AgentRuntime
    from acp_tui.client.workspace.board import Board
    from acp_tui.client.workspace.slots import SessionSlot

__all__ = ["OUTPUT_LIMIT", "TIME_LIMIT", "ShellCommands", "user_shell"]

OUTPUT_LIMIT = 30_000
"""How many bytes of a ``!`` command's output are kept, shown and attached (the last ones):
about 8,000 tokens, enough for a test run's failures without flooding the agent's context."""

TIME_LIMIT = 600.0
"""Seconds a ``!`` command may run before it is stopped (Esc stops it sooner)."""

TOOL_NAME = "your command"
"""Shown beside the block's kind: the user ran it, not the agent."""


def user_shell(environ: Mapping[str, str] | None = None) -> str:
    """The user's shell (``$SHELL``) when it is an absolute path to a program, else /bin/sh."""
    shell = (os.environ if environ is None else environ).get("SHELL", "")
    if os.path.isabs(shell) and os.access(shell, os.X_OK):
        return shell
    return "/bin/sh"


class ShellCommands:
    """The user's ``!`` commands (``ws.shell``).

    It receives the ``board`` and ``terminal_policy`` (`Questions.terminal_policy`: the env
    filter, and the approval that follows the ``terminal`` setting and asks the user).
    """

    def __init__(
        self, board: Board, terminal_policy: Callable[[AgentRuntime], TerminalPolicy]
    ) -> None:
        self.board = board
        self.terminal_policy = terminal_policy
        self._count = 0
        self._running: dict[int, set[anyio.CancelScope]] = {}
        """The waits of the commands running in each slot (by slot id): Esc cancels them."""

    def run(self, slot: SessionSlot, line: str) -> None:
        """Run ``line`` in the slot's session (in the Workspace; reported in its transcript)."""
        self.board.spawn(lambda: self.run_now(slot, line), f"! command in slot {slot.id}")

    def running(self, slot: SessionSlot) -> bool:
        return bool(self._running.get(slot.id))

    def cancel(self, slot: SessionSlot) -> bool:
        """Stop the ``!`` commands running in the slot; False when none runs."""
        scopes = self._running.get(slot.id)
        for scope in scopes or ():
            scope.cancel()
        return bool(scopes)

    def remove_context(self, slot: SessionSlot, index: int = -1) -> CommandOutput | None:
        """Take one output off the next prompt (the last by default); None when there is none."""
        try:
            item = slot.context.pop(index)
        except IndexError:
            return None
        self.board.emit(QueueChanged(slot))
        return item

    async def run_now(
        self,
        slot: SessionSlot,
        line: str,
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandOutput | None:
        """Run ``line`` and attach its output to the slot's next prompt; None when it did not
        run (said in the transcript). ``cwd`` (default: the session's) must be inside the
        roots; ``env`` is filtered as an agent's is."""
        command = line.strip()
        session = slot.session
        if not command:
            self._tell(slot, "Type a command after !, as in !ls (ls in the session's folder).")
            return None
        if session is None or session.closed:
            self._tell(slot, "The session is not open yet: ! commands run once it is.")
            return None
        policy = self.terminal_policy(slot.agent)
        shell = user_shell()
        args = ("-c", command)
        where = str(cwd if cwd is not None else session.cwd)
        variables = dict(env or {})
        ask = TerminalAsk.build(shell, args, where, variables, policy.env, origin="user")
        if slot.agent.launch.settings.terminal == "deny":
            self._tell(slot, f'Not run (the terminal setting is "deny"): !{command}', "warning")
            return None
        if policy.approve is not None and not await policy.approve(session, ask):
            self._tell(slot, f"Not run (you did not allow it): !{command}", "warning")
            return None
        try:
            terms = await session.terminals()
            terms.env_policy = policy.env
            terminal_id = await terms.create(shell, args, variables, where, OUTPUT_LIMIT)
        except RpcError as exc:  # outside the roots, missing, not a directory...
            self._tell(slot, f"Could not run !{command}: {exc.message}", "error")
            return None
        self._count += 1
        call_id = f"acp-tui-shell-{self._count}"
        session.transcript.apply(
            ToolCallStart(
                tool_call_id=call_id,
                title=f"!{command}",
                kind="execute",
                status="in_progress",
                content=[TerminalToolCallContent(terminal_id=terminal_id)],
                name=TOOL_NAME,
            )
        )
        stopped = await self._wait(slot, terms.wait_for_exit(terminal_id))
        with contextlib.suppress(RpcError):  # the session closed meanwhile: already released
            await terms.release(terminal_id)  # what it left running in the background ends too
        output = terms.snapshot(terminal_id)
        if output is None:
            return None
        self._keep(session, terminal_id, output.output, output.exit_code, output.signal)
        ok = output.exit_code == 0 and not stopped
        done = ToolCallProgress(tool_call_id=call_id, status="completed" if ok else "failed")
        session.transcript.apply(done)
        item = CommandOutput(
            uri=f"acp-tui://shell/{self._count}",
            command=command,
            cwd=where,
            output=output.output,
            exit_code=output.exit_code,
            signal=output.signal,
            truncated=output.truncated,
            stopped=stopped,
        )
        slot.context.append(item)
        self.board.emit(QueueChanged(slot))
        return item

    async def _wait(self, slot: SessionSlot, done: Awaitable[object]) -> bool:
        """Wait for the command to end; True when it was stopped (Esc, or out of time)."""
        with anyio.CancelScope(deadline=anyio.current_time() + TIME_LIMIT) as scope:
            self._running.setdefault(slot.id, set()).add(scope)
            try:
                await done
            finally:
                scopes = self._running.get(slot.id, set())
                scopes.discard(scope)
                if not scopes:
                    self._running.pop(slot.id, None)
        return scope.cancelled_caught

    @staticmethod
    def _keep(
        session: LiveSession, terminal_id: str, text: str, code: int | None, sig: str | None
    ) -> None:
        """Keep the final output in the transcript's display-only terminals: the session's
        terminal manager forgets released terminals after a while."""
        transcript = session.transcript
        transcript.agent_terminal_output(terminal_id, text.encode("utf-8"), replace=True)
        transcript.agent_terminal_exit(terminal_id, True, code, sig)

    @staticmethod
    def _tell(slot: SessionSlot, text: str, level: Level = "info") -> None:
        """Say it where the user typed the command: in the slot's transcript, where it stays."""
        slot.transcript.add_notice(text, level)
