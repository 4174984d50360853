"""Provides EnvLoginDialog: the values an ``env_var`` login needs (codex's API key).

It says which variables the agent reads and where to get them, and asks for the ones that are
not set, a secret one in a masked input (never shown, never logged). The values are used for
this run (the agent is started again with them); "Save in the config" also writes them into the
agent's ``env`` in the config file, and is offered only for an agent that has a table there.
Enter in the last input logs in; Esc cancels. What comes from the agent (its name, the method,
the labels, the link) is literal text (``safe_content``), never markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Static

from acp_tui.client.agent.auth_methods import AuthMethodInfo, EnvVarSpec
from acp_tui.client.workspace.env_login import EnvAnswer
from acp_tui.ui.plain_text import LABEL_LIMIT, NAME_LIMIT, TEXT_LIMIT, safe_content, sanitize

__all__ = ["EnvLoginDialog"]


class EnvLoginDialog(ModalScreen[EnvAnswer | None]):
    """Returns the values typed (and whether to save them), or None when cancelled."""

    DEFAULT_CSS = """
    EnvLoginDialog {
        align: center middle;
        #env-box {
            width: 80%;
            max-width: 90;
            height: auto;
            max-height: 90%;
            border: thick $primary;
            background: $panel;
            padding: 1 2;
        }
        #env-title { text-style: bold; margin-bottom: 1; }
        .env-note { color: $text-muted; margin-bottom: 1; }
        .env-label { margin-top: 1; }
        #env-error { color: $error; height: auto; }
        #env-buttons { height: auto; margin-top: 1; align-horizontal: right; }
        #env-buttons Button { margin-left: 2; }
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        agent_name: str,
        method: AuthMethodInfo,
        missing: Sequence[EnvVarSpec],
        *,
        known: Sequence[tuple[str, str]] = (),
        config_name: str | None = None,
    ) -> None:
        super().__init__()
        self.agent_name = agent_name
        self.method = method
        self.missing = list(missing)
        self.known = list(known)
        """(variable, where its value comes from) of those already set."""
        self.config_name = config_name

    def compose(self) -> ComposeResult:
        box = VerticalScroll(id="env-box")
        box.can_focus = False
        with box:
            name = sanitize(self.agent_name, NAME_LIMIT)
            method = sanitize(self.method.name, LABEL_LIMIT)
            yield Static(Content(f"{name}: {method}"), id="env-title")
            reads = sanitize(self.method.variables, TEXT_LIMIT)
            note = f"{name} reads {reads} from its environment. acp-tui starts it again with "
            note += "the values given here, then logs in."
            yield Static(Content(note), classes="env-note")
            if self.method.description:
                yield Static(
                    safe_content(self.method.description, limit=TEXT_LIMIT), classes="env-note"
                )
            if self.method.link:
                link = sanitize(self.method.link, TEXT_LIMIT)
                yield Static(Content(f"Get one at {link}"), classes="env-note")
            for known, where in self.known:
                said = f"{sanitize(known, NAME_LIMIT)} is set ({where})."
                yield Static(Content(said), classes="env-note")
            for index, var in enumerate(self.missing):
                label = sanitize(var.name, NAME_LIMIT)
                if var.label:
                    label += f" ({sanitize(var.label, LABEL_LIMIT)})"
                if var.optional:
                    label += ", optional"
                yield Static(Content(label), classes="env-label")
                yield Input(password=var.secret, id=f"env-{index}", placeholder=var.name)
            if self.config_name is not None:
                where = sanitize(self.config_name, NAME_LIMIT)
                yield Checkbox(
                    Content(f"Save in the config ([agents.{where}] env, readable by you only)"),
                    False,
                    id="env-save",
                )
            else:
                yield Static(Content("Used for this run only."), classes="env-note")
            yield Static("", id="env-error")
            with Horizontal(id="env-buttons"):
                yield Button("Cancel", id="env-cancel")
                yield Button("Log in", id="env-ok", variant="primary")

    def on_mount(self) -> None:
        if self.missing:
            self.query_one("#env-0", Input).focus()

    def values(self) -> dict[str, str]:
        return {
            var.name: self.query_one(f"#env-{index}", Input).value.strip()
            for index, var in enumerate(self.missing)
        }

    @on(Input.Submitted)
    def next_or_submit(self, event: Input.Submitted) -> None:
        index = int((event.input.id or "env-0").removeprefix("env-"))
        if index + 1 < len(self.missing):
            self.query_one(f"#env-{index + 1}", Input).focus()
        else:
            self.submit()

    @on(Button.Pressed, "#env-ok")
    def submit(self) -> None:
        values = self.values()
        empty = [v.name for v in self.missing if not v.optional and not values[v.name]]
        if empty:
            self.query_one("#env-error", Static).update(
                Content(f"{sanitize(' and '.join(empty), TEXT_LIMIT)}: a value is needed.")
            )
            return
        save = self.config_name is not None and self.query_one("#env-save", Checkbox).value
        self.dismiss(EnvAnswer({k: v for k, v in values.items() if v}, save=save))

    @on(Button.Pressed, "#env-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
