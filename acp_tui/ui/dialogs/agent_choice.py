"""Provides AgentChoiceDialog: which agent a new session (Ctrl+N) runs on.

Offered when more than one agent could take the session: the current tab's agent first, then the
configured ones and the bundled demo agent. Enter picks; Esc cancels.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.client.agent.launch import DEMO_AGENT_NAME
from acp_tui.config.settings import Settings
from acp_tui.ui.plain_text import NAME_LIMIT, sanitize

__all__ = ["CURRENT", "AgentChoiceDialog"]

CURRENT = ""
"""The answer that means the current tab's agent."""


class AgentChoiceDialog(ModalScreen[str | None]):
    """Returns a configured agent's name, ``CURRENT``, or None when cancelled."""

    DEFAULT_CSS = """
    AgentChoiceDialog {
        align: center middle;
        & > Vertical {
            width: 72; max-width: 95%; height: auto; max-height: 90%;
            border: thick $primary; background: $panel; padding: 0 1;
        }
        #agent-choice-title { text-style: bold; margin-bottom: 1; }
        #agent-choice { height: auto; max-height: 16; }
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: str, names: Sequence[str], settings: Settings) -> None:
        super().__init__()
        self.current = current
        self.names = [name for name in names if name != current]
        self.settings = settings

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("A new session with which agent?", id="agent-choice-title")
            options = [Option(self.label(self.current, current=True), id="current")]
            options += [Option(self.label(name), id=f"agent:{name}") for name in self.names]
            yield OptionList(*options, id="agent-choice")

    def label(self, name: str, *, current: bool = False) -> Content:
        config = self.settings.agents.get(name)
        if current:
            detail = "the current tab's agent"
        elif name == DEMO_AGENT_NAME or config is None:
            detail = "the bundled demo agent"
        else:
            title = f"{config.title}: " if config.title else ""
            detail = f"{title}{shlex.join([config.command, *config.args])}"
        return Content.assemble(
            (sanitize(name, NAME_LIMIT), "bold"), ("  " + sanitize(detail, NAME_LIMIT), "dim")
        )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id or ""
        self.dismiss(CURRENT if option_id == "current" else option_id.removeprefix("agent:"))

    def action_cancel(self) -> None:
        self.dismiss(None)
