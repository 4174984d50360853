"""Provides PermissionDialog: the agent asks to run a tool; the user picks one of its options.

An answer needs the user's intent. The dialog may appear while the user is typing a prompt, so
it takes no answer at all (keys, clicks, Esc) until the keyboard has been quiet for a moment
(`AskingScreen`): its buttons are disabled until then, and it counts down and says how many keys
it dropped. The focus then goes to the preview, not to a button, so Enter (the end of a prompt)
never answers; the keys a/A/r/R and 1-9, a click, or Tab then Enter do. Everything the agent
sent is shown as literal text, never markup.

The options are one line each and, with the title, stay in place while the preview between
them scrolls: every option is on screen however long the diff, down to an 80x24 terminal.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.events import Key
from textual.widgets import Button, Static

from acp_tui.client.agent.dialects import PermissionRequestView
from acp_tui.protocol.client_methods import PermissionOption, RequestPermissionRequest
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.held import not_kept
from acp_tui.protocol.tools import ContentToolCallContent, DiffToolCallContent
from acp_tui.ui.dialogs.question import AgentQuestion, waiting_text
from acp_tui.ui.plain_text import LABEL_LIMIT, LIST_LIMIT, TEXT_LIMIT, more_text, sanitize
from acp_tui.ui.transcript.render import Styles, render_diff
from acp_tui.ui.transcript.view import TranscriptView

OPTIONS_SHOWN = 20
"""The most option buttons shown; an agent offering more has the rest counted (never
offered: a hundred thousand buttons would freeze the app)."""

# Single-key answers by option kind (Toad's convention): a/A allow, r/R reject.
KIND_KEYS = {"allow_once": "a", "allow_always": "A", "reject_once": "r", "reject_always": "R"}


class PermissionDialog(AgentQuestion[str | None]):
    """Returns the chosen optionId, or None when the user dismisses it (cancelled)."""

    DEFAULT_CSS = """
    PermissionDialog {
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
        #permission-title { dock: top; text-style: bold; margin-bottom: 1; height: auto; }
        #permission-preview { height: auto; }
        #permission-answers { dock: bottom; height: auto; padding-top: 1; }
        #permission-options { height: auto; }
        #permission-waiting { color: $text-muted; margin-top: 1; height: auto; }
        #permission-waiting.-none { display: none; }
        #permission-options Button {
            width: 100%;
            text-align: left;
            content-align: left middle;
            padding: 0 1;
        }
    }
    """

    BINDINGS = [Binding("escape", "dismiss_cancelled", "Cancel")]

    FIRST_FOCUS = "#permission-box"

    def __init__(self, request: RequestPermissionRequest, waiting: int = 0) -> None:
        super().__init__()
        self.request = request
        self.waiting = waiting
        """How many more requests wait behind this one."""
        self.keys: dict[str, str] = {}
        for number, option in enumerate(request.options[:9], start=1):
            self.keys[str(number)] = option.option_id
        for option in request.options[:OPTIONS_SHOWN]:
            key = KIND_KEYS.get(str(option.kind))
            if key and key not in self.keys:
                self.keys[key] = option.option_id

    def compose(self) -> ComposeResult:
        request, tool = self.request, self.request.tool_call
        question = request.title if isinstance(request, PermissionRequestView) else None
        title = sanitize(
            question or f"Allow? {tool.title or 'The agent wants to use a tool'}", TEXT_LIMIT
        )
        # The title and the answers are docked: only the preview scrolls, so every option is
        # on screen however long the preview and however small the terminal.
        with VerticalScroll(id="permission-box"):
            yield Static(Text(title), id="permission-title")
            yield Static(self._preview(), id="permission-preview")
            with Vertical(id="permission-answers"):
                with Vertical(id="permission-options"):
                    options = self.request.options
                    for option in options[:OPTIONS_SHOWN]:
                        yield Button(
                            self._label(option), name=option.option_id, disabled=True, compact=True
                        )
                    left_out = max(0, len(options) - OPTIONS_SHOWN)
                    left_out += not_kept(self.request, "options")
                    if left_out:
                        hidden = more_text(left_out, "options (not shown)")
                        yield Static(Content(hidden), id="permission-more")
                yield self.quiet_note()
                yield Static(id="permission-waiting")

    def on_mount(self) -> None:
        self.set_waiting(self.waiting)

    def set_waiting(self, waiting: int) -> None:
        """Show how many more questions (permissions, elicitations) wait behind this one."""
        self.waiting = waiting
        for note in self.query("#permission-waiting").results(Static):
            note.update(Content(waiting_text(waiting)))
            note.set_class(waiting == 0, "-none")

    def _label(self, option: PermissionOption) -> Content:
        """The option's name as literal text (never markup), after its answer keys."""
        keys = [k for k, v in self.keys.items() if v == option.option_id]
        name = sanitize(option.name, LABEL_LIMIT)
        return Content(f"[{'/'.join(keys)}] {name}" if keys else name)

    def _preview(self) -> RenderableType:
        request, tool = self.request, self.request.tool_call
        parts: list[RenderableType] = []
        if isinstance(request, PermissionRequestView):  # v2: a description, a command subject
            if request.description:
                parts.append(Text(sanitize(request.description, TEXT_LIMIT)))
            if request.subject_type == "command" and request.command:
                cwd = request.command_cwd
                where = f"  (in {sanitize(cwd, LABEL_LIMIT)})" if cwd else ""
                command = sanitize(request.command, TEXT_LIMIT)
                parts.append(Text(f"$ {command}{where}", style="bold"))
        if tool.kind:
            parts.append(Text(f"kind: {tool.kind}", style="dim"))
        locations = tool.locations or []
        for location in locations[:LIST_LIMIT]:
            parts.append(Text(sanitize(location.path, LABEL_LIMIT), style="dim"))
        left_out = max(0, len(locations) - LIST_LIMIT) + not_kept(tool, "locations")
        if left_out:
            parts.append(Text(more_text(left_out, "locations"), style="dim"))
        content = tool.content or []
        left_out = max(0, len(content) - LIST_LIMIT) + not_kept(tool, "content")
        if left_out:
            parts.append(Text(more_text(left_out, "pieces"), style="dim"))
        for item in content[:LIST_LIMIT]:
            if isinstance(item, DiffToolCallContent):
                parts.append(
                    render_diff(item.path, item.old_text, item.new_text, self.diff_styles())
                )
            elif isinstance(item, ContentToolCallContent) and isinstance(item.content, TextContent):
                parts.append(Text(sanitize(item.content.text, TEXT_LIMIT * 10)))
        return Group(*parts) if parts else Text("(no details given)", style="dim")

    def diff_styles(self) -> Styles:
        """The theme's diff colours, as the transcript shows them."""
        for screen in reversed(self.app.screen_stack):
            views = screen.query(TranscriptView)
            if views:
                styles: Styles = views.first(TranscriptView).painter.styles
                return styles
        return Styles()

    @on(Button.Pressed)
    def choose(self, event: Button.Pressed) -> None:
        self.answer(event.button.name)

    def on_key(self, event: Key) -> None:
        option_id = self.keys.get(event.character or "")
        if option_id is not None:
            event.stop()
            self.answer(option_id)

    def action_dismiss_cancelled(self) -> None:
        self.answer(None)

    def refusal(self) -> str | None:
        """The agent's "reject once" option (else "reject always"; else cancelled)."""
        for kind in ("reject_once", "reject_always"):
            for option in self.request.options:
                if option.kind == kind:
                    return option.option_id
        return None
