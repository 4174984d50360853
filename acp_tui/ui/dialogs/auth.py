"""Provides AuthDialog: the agent needs a login; the user picks one of its methods.

It appears when the agent asks, often right after the user sent a prompt and while they type
the next one, so like the agent's other questions it takes no answer until the keyboard has been
quiet for a moment (`AskingScreen`), and no button has the focus: the Enter that ends a prompt
never picks a login. Everything in it comes from the agent (its name, its reason, the methods),
so all of it is literal text (``safe_content``), never markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static

from acp_tui.client.agent.auth_methods import AuthMethodInfo
from acp_tui.ui.dialogs.asking import AskingScreen
from acp_tui.ui.plain_text import LABEL_LIMIT, NAME_LIMIT, TEXT_LIMIT, safe_content, sanitize


class AuthDialog(AskingScreen[AuthMethodInfo | None]):
    """Returns the chosen method, or None when the user cancels."""

    DEFAULT_CSS = """
    AuthDialog {
        align: center middle;
        #auth-box {
            width: 80%;
            max-width: 90;
            height: auto;
            max-height: 90%;
            border: thick $primary;
            background: $panel;
            padding: 1 2;
        }
        #auth-title { text-style: bold; margin-bottom: 1; }
        .auth-description { color: $text-muted; margin-bottom: 1; }
        Button { width: 100%; }
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, agent_name: str, methods: Sequence[AuthMethodInfo], reason: str) -> None:
        super().__init__()
        self.agent_name = agent_name
        self.methods = list(methods)
        self.reason = reason

    def compose(self) -> ComposeResult:
        box = VerticalScroll(id="auth-box")  # scrolls on a small terminal
        box.can_focus = False
        with box:
            name = sanitize(self.agent_name, NAME_LIMIT)
            yield Static(Content(f"{name} needs you to log in"), id="auth-title")
            yield Static(safe_content(self.reason, limit=TEXT_LIMIT), classes="auth-description")
            for index, method in enumerate(self.methods):
                label = sanitize(method.name, LABEL_LIMIT)
                if method.terminal:
                    label += "  (runs in this terminal)"
                elif method.env_var and method.env_vars:
                    label += f"  (sets {sanitize(method.variables, LABEL_LIMIT)})"
                elif method.unknown_type is not None:
                    kind = sanitize(method.unknown_type, NAME_LIMIT)
                    label += f"  (a login of type {kind!r}: acp-tui cannot run it)"
                yield Button(Content(label), name=str(index), disabled=True)
                if method.description:
                    description = safe_content(method.description, limit=TEXT_LIMIT)
                    yield Static(description, classes="auth-description")
                if method.env_var and method.env_vars:
                    reads = sanitize(method.variables, TEXT_LIMIT)
                    said = f"{name} reads {reads} from its environment: the value is used when "
                    said += "set there or in the agent's env, else asked for."
                    yield Static(Content(said), classes="auth-description")
            yield self.quiet_note()

    def button_enabled(self, button: Button) -> bool:
        return self.methods[int(button.name or 0)].usable

    @on(Button.Pressed)
    def choose(self, event: Button.Pressed) -> None:
        self.answer(self.methods[int(event.button.name or 0)])

    def action_cancel(self) -> None:
        self.answer(None)
