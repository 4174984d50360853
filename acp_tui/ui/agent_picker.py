"""Provides AgentPicker: a small app, run before the chat, to choose among configured agents.

The CLI runs it when several agents are configured and neither `-a NAME` nor `default_agent`
says which to start. It returns the chosen name, or None when the user leaves (Esc or q).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.client.agent.launch import DEMO_AGENT_NAME
from acp_tui.config.paths import Paths, get_paths
from acp_tui.config.settings import Settings
from acp_tui.ui.themes import install_themes

__all__ = ["AgentPicker", "pick_agent"]


class AgentPicker(App[str | None]):
    """Choose the agent to start; Enter picks, Esc or q leaves without starting anything."""

    TITLE = "acp-tui"
    CSS = """
    AgentPicker {
        align: center middle;
        background: $background;

        #picker-title {
            width: 64;
            padding: 0 1;
            color: $text;
            text-style: bold;
        }

        #picker-hint {
            width: 64;
            padding: 0 1;
            color: $text-muted;
        }

        #agents {
            width: 64;
            height: auto;
            max-height: 20;
            border: round $primary;
            background: $panel;
        }
    }
    """
    BINDINGS = [
        Binding("escape", "leave", "Quit"),
        Binding("q", "leave", "Quit", show=False),
    ]

    def __init__(
        self, names: Sequence[str], settings: Settings, *, paths: Paths | None = None
    ) -> None:
        super().__init__()
        self.names = list(names)
        self.settings = settings
        install_themes(self, settings.theme, paths or get_paths())

    def compose(self) -> ComposeResult:
        yield Static("Which agent should acp-tui start?", id="picker-title")
        yield Static(
            "Set default_agent in the config file, or use -a NAME, to skip this.",
            id="picker-hint",
        )
        yield OptionList(*(self.option(name) for name in self.names), id="agents")
        yield Footer()

    def option(self, name: str) -> Option:
        label = Text(name, style="bold")
        config = self.settings.agents.get(name)
        if name == DEMO_AGENT_NAME or config is None:
            label.append("  the bundled demo agent", style="dim")
        else:
            title = f"{config.title}: " if config.title else ""
            label.append(f"  {title}{shlex.join([config.command, *config.args])}", style="dim")
        return Option(label, id=name)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.exit(event.option.id)

    def action_leave(self) -> None:
        self.exit(None)


def pick_agent(names: Sequence[str], settings: Settings) -> str | None:
    """Show the picker and return the chosen agent's name, or None when the user left."""
    return AgentPicker(names, settings).run()
