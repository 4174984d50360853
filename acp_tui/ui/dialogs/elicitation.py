"""Provides ElicitationDialog: what the form and URL dialogs of an agent's question share.

The dialog names the agent that asks and shows its message, then where the question comes from
(the tool call, or the client request it belongs to before any session). Like the permission
dialog it may appear while the user is typing: it takes no answer until the keyboard has been
quiet for a moment (`AskingScreen`: its buttons are disabled, its keys dropped and counted), and
no answer button has the focus. It returns an `Answer` (None: withdrawn, which counts as cancel)
and says how many more questions wait.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from acp_tui.client.session.elicitation import CANCELLED, DECLINED, Answer, Elicitation
from acp_tui.ui.dialogs.question import AgentQuestion, waiting_text
from acp_tui.ui.plain_text import LABEL_LIMIT, NAME_LIMIT, TEXT_LIMIT, safe_content, sanitize

__all__ = ["ElicitationDialog"]


class ElicitationDialog(AgentQuestion[Answer | None]):
    """The frame of a form or URL question; subclasses compose the body and the answers."""

    DEFAULT_CSS = """
    ElicitationDialog {
        align: center middle;
        & > Vertical {
            width: 90%;
            max-width: 100;
            height: auto;
            max-height: 90%;
            border: thick $accent;
            background: $panel;
            padding: 0 1;
        }
        .elicit-title { text-style: bold; }
        .elicit-scope { color: $text-muted; }
        .elicit-message { margin: 1 0; }
        .elicit-answers { height: auto; dock: bottom; padding-top: 1; }
        .elicit-buttons { height: auto; }
        .elicit-buttons Button { width: auto; min-width: 0; padding: 0 1; margin-right: 1; }
        .elicit-keys { color: $text-muted; }
        .elicit-waiting { color: $text-muted; }
        .elicit-waiting.-none { display: none; }
    }
    """

    def __init__(self, elicitation: Elicitation, agent_name: str, waiting: int = 0) -> None:
        super().__init__()
        self.elicitation = elicitation
        self.agent_name = agent_name
        self.waiting = waiting

    # -- pieces --------------------------------------------------------------------------------

    def title_text(self, asks: str = "asks") -> Static:
        name = sanitize(self.agent_name, NAME_LIMIT)
        return Static(Content(f"{name} {asks}"), classes="elicit-title")

    def scope_text(self) -> Static:
        """Where the question comes from: its tool call, or the request before any session."""
        elicitation = self.elicitation
        if elicitation.session_id is None:
            during = f" while acp-tui waits for {elicitation.during}" if elicitation.during else ""
            text = f"Asked before any session{during}."
        elif elicitation.tool_title:
            text = f"For the tool call “{sanitize(elicitation.tool_title, LABEL_LIMIT)}”."
        elif elicitation.request.tool_call_id:
            text = "For a tool call of this session."
        else:
            text = "For this session."
        return Static(Content(text), classes="elicit-scope")

    def message_text(self) -> Static:
        message = self.elicitation.message or "(no message)"
        return Static(safe_content(message, limit=TEXT_LIMIT), classes="elicit-message")

    def waiting_text(self) -> Static:
        return Static(classes="elicit-waiting")

    def notes(self) -> ComposeResult:
        """The notes under the answers: the quiet time, and how many more questions wait."""
        yield self.quiet_note()
        yield self.waiting_text()

    # -- life ----------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.set_waiting(self.waiting)

    def set_waiting(self, waiting: int) -> None:
        """Show how many more questions wait behind this one (kept until mounted)."""
        self.waiting = waiting
        for note in self.query(".elicit-waiting").results(Static):
            note.update(Content(waiting_text(waiting)))
            note.set_class(waiting == 0, "-none")

    def action_decline(self) -> None:
        self.answer(DECLINED)

    def refusal(self) -> Answer | None:
        return DECLINED

    def action_cancel(self) -> None:
        self.answer(CANCELLED)

    def frame(self) -> Vertical:
        """The dialog's box (subclasses compose inside it)."""
        return Vertical()
