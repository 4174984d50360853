"""Provides TerminalDialog: the agent wants to run a command (or the user's ``!`` command is
about to run, with ``terminal = "ask"``); the user allows it or not.

It shows the command, each argument, the working directory and the environment variables the
agent sets (and those dropped as unsafe), all as literal text (never markup), sanitised and
capped; only these details scroll, so a huge argument list or env cannot push the buttons off
the screen. "Allow for the session" covers this command line in this directory with this env
only (`Approval`). Like the permission dialog it may appear while the user types, so it takes
no answer until the keyboard has been quiet for a moment (`AskingScreen`), and no button has
the focus.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static

from acp_tui.client.tools.terminal_gate import TerminalAnswer, TerminalAsk
from acp_tui.ui.dialogs.question import AgentQuestion
from acp_tui.ui.plain_text import LABEL_LIMIT, TEXT_LIMIT, sanitize

ITEMS_SHOWN = 50
"""The most arguments (and variables) listed; the rest are counted."""

BUTTONS: dict[str, TerminalAnswer] = {"once": "once", "session": "session", "deny": "deny"}


class TerminalDialog(AgentQuestion["TerminalAnswer | None"]):
    """Returns "once", "session" or "deny" (None: dismissed, which denies too)."""

    DEFAULT_CSS = """
    TerminalDialog {
        align: center middle;
        & > VerticalScroll {
            width: 90%;
            max-width: 110;
            height: auto;
            max-height: 90%;
            border: thick $warning;
            background: $panel;
            padding: 1 2;
        }
        #terminal-title { dock: top; text-style: bold; margin-bottom: 1; height: auto; }
        #terminal-details { height: auto; }
        #terminal-answers { dock: bottom; height: auto; padding-top: 1; }
        #terminal-answers Button {
            width: 100%;
            text-align: left;
            content-align: left middle;
            padding: 0 1;
        }
    }
    """

    BINDINGS = [
        Binding("a", "allow_once", "Allow once"),
        Binding("s", "allow_session", "Allow for the session"),
        Binding("d,escape", "deny", "Deny"),
    ]

    FIRST_FOCUS = "#terminal-box"

    def __init__(self, ask: TerminalAsk) -> None:
        super().__init__()
        self.ask = ask

    def compose(self) -> ComposeResult:
        command = sanitize(self.ask.command, LABEL_LIMIT)
        # The title and the answers are docked: only the details scroll, so every answer is on
        # screen however long the env and however small the terminal.
        with VerticalScroll(id="terminal-box"):
            title = "Run your ! command?" if self.ask.origin == "user" else f"Run {command}?"
            yield Static(Text(title), id="terminal-title")
            yield Static(self.details(), id="terminal-details")
            with Vertical(id="terminal-answers"):
                # Content, not markup: "[a]" would be read as a style and vanish.
                yield Button(Content("[a] Allow once"), name="once", disabled=True, compact=True)
                yield Button(
                    Content("[s] Allow for the session (this directory and env only)"),
                    name="session",
                    disabled=True,
                    compact=True,
                )
                yield Button(
                    Content("[d] Deny"), name="deny", variant="error", disabled=True, compact=True
                )
                yield self.quiet_note()

    def details(self) -> RenderableType:
        """Everything the command runs with, each agent string plain and capped."""
        ask = self.ask
        if ask.origin == "user":  # typed as !LINE, run as SHELL -c LINE
            shell = sanitize(" ".join([ask.command, *ask.args[:-1]]), TEXT_LIMIT)
            line = sanitize(ask.args[-1] if ask.args else "", TEXT_LIMIT)
            parts: list[RenderableType] = [Text(f"your command: {line}"), Text(f"run by: {shell}")]
        else:
            parts = [Text(f"command: {sanitize(ask.command, TEXT_LIMIT)}")]
            parts += _listed("argument", ask.args)
        parts.append(Text(f"in: {sanitize(ask.cwd, TEXT_LIMIT)}"))
        parts += _listed("environment variable", [f"{k}={v}" for k, v in ask.env])
        if ask.dropped_env:
            shown = ask.dropped_env[:ITEMS_SHOWN]
            names = ", ".join(sanitize(name, LABEL_LIMIT) for name, _ in shown)
            more = len(ask.dropped_env) - ITEMS_SHOWN
            suffix = f" … {more} more" if more > 0 else ""
            parts.append(Text(f"not passed on (unsafe): {names}{suffix}", style="dim"))
        return Group(*parts)

    @on(Button.Pressed)
    def choose(self, event: Button.Pressed) -> None:
        answer = BUTTONS.get(event.button.name or "")
        if answer is not None:
            self.answer(answer)

    def action_allow_once(self) -> None:
        self.answer("once")

    def action_allow_session(self) -> None:
        self.answer("session")

    def refusal(self) -> TerminalAnswer | None:
        return "deny"

    def action_deny(self) -> None:
        self.answer("deny")


def _listed(what: str, items: Sequence[str]) -> list[RenderableType]:
    """``items`` sanitised, one per line (at most ``ITEMS_SHOWN``), then how many more."""
    if not items:
        return [Text(f"no {what}s", style="dim")]
    lines: list[RenderableType] = [
        Text(f"{what}: {sanitize(item, TEXT_LIMIT)}") for item in items[:ITEMS_SHOWN]
    ]
    if len(items) > ITEMS_SHOWN:
        lines.append(Text(f"… {len(items) - ITEMS_SHOWN} more {what}s", style="dim"))
    return lines
