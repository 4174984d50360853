"""Provides ListWaiting: the browser's line saying how long `session/list` has waited.

It shows only while the listed agent has not answered a page for a second or more, counts the
seconds, and says that Esc stops waiting (`cancel`: the request is cancelled with
``$/cancel_request``, and the page's error row says so, with Enter to retry).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Static

from acp_tui.client.agent.waits import LIST_CALLS
from acp_tui.client.workspace.agent_runtime import AgentRuntime

__all__ = ["ListWaiting"]


class ListWaiting(Static):
    """How long the browser's page has waited; ``agent`` gives the listed agent."""

    DEFAULT_CSS = """
    ListWaiting { height: auto; padding: 0 1; color: $accent; display: none; }
    ListWaiting.-shown { display: block; }
    """

    def __init__(self, agent: Callable[[], AgentRuntime | None]) -> None:
        super().__init__("", id="browser-waiting")
        self.agent = agent
        self.text = ""

    def on_mount(self) -> None:
        self.set_interval(1.0, self.count)

    def count(self) -> None:
        """Say (again) how long the page has waited, or nothing once it came."""
        agent = self.agent()
        client = agent.client if agent is not None else None
        waiting = client.clock.longest(LIST_CALLS) if client is not None else None
        text = ""
        if waiting is not None and waiting.seconds() >= 1:
            text = f"{waiting.method}: waited {waiting.seconds()} s (Esc cancels)"
        if text != self.text:
            self.text = text
            self.update(text)
            self.set_class(bool(text), "-shown")

    def cancel(self) -> bool:
        """Esc: stop waiting for the page shown waiting; False when none is."""
        agent = self.agent()
        client = agent.client if agent is not None else None
        if not self.text or client is None or not client.clock.cancel(LIST_CALLS):
            return False
        self.count()
        return True
