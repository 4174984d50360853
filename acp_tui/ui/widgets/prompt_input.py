"""Provides PromptInput: the multi-line prompt editor with history, `/` commands and `@` files.

Enter sends (or, while the completion list is open, accepts the highlighted choice); Shift+Enter
and Ctrl+J insert a newline. Up on the first line and down on the last one walk the project's
prompt history, and going past the newest entry gives back the draft. ``/`` at the start of the
prompt completes the agent's commands; ``@`` completes files under the session's roots, listed by
a thread worker. ``@path`` mentions are turned into attachments when the prompt is sent (see
`acp_tui.client.session.prompt_blocks`); a pasted path to an image file becomes such a mention.

PageUp/PageDown and Ctrl+Home/End are the transcript's (the pane's keys) unless the draft is
taller than the editor: then they move in the draft, where paging is useful; a draft that fits
has nothing to page through, and the transcript is what the user wants to move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.actions import SkipAction
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import TextArea

from acp_tui.client.tools.mentions import (
    display_path,
    list_files,
    mention_for,
    pasted_image_path,
    resolve_mentions,
)
from acp_tui.store.history import HistoryBrowser, PromptHistory
from acp_tui.ui.plain_text import NAME_LIMIT, safe_content
from acp_tui.ui.slash import commands_not_kept
from acp_tui.ui.widgets.completion import (
    Choice,
    CompletionList,
    Context,
    Location,
    command_choices,
    command_hint,
    completion_context,
    file_choices,
)
from acp_tui.ui.widgets.pane_views import PLACEHOLDER

if TYPE_CHECKING:
    from acp_tui.client.session.entries import Change
    from acp_tui.client.session.live_session import LiveSession


class PromptInput(TextArea):
    """Where the user writes; Enter sends, Shift+Enter or Ctrl+J inserts a newline."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: tall $border-blurred;
        border-subtitle-color: $text-muted;
        &:focus { border: tall $border; }
    }
    """

    BINDINGS = [
        # Handled in `_on_key`, in order with the typed characters; listed for the key panel
        # (not the footer: the placeholder says it, and 80 columns are few).
        Binding("enter", "submit", "Send", show=False),
        Binding("shift+enter,ctrl+j", "newline", "New line", show=False),
        Binding("tab", "accept_completion", "Complete", show=False),
        Binding("escape", "close_completion", "Close the list", show=False),
        Binding("ctrl+home", "cursor_draft_edge(False)", "Start", show=False),
        Binding("ctrl+end", "cursor_draft_edge(True)", "End", show=False),
        Binding("ctrl+g", "edit_in_editor", "Edit in $EDITOR", show=False),
    ]

    @dataclass
    class Submitted(Message):
        """The user sent the text in the editor, with the files its ``@`` mentions name."""

        prompt_input: PromptInput
        text: str
        attachments: tuple[Path, ...] = ()

    class TakeOffAttachment(Message):
        """Backspace in the empty prompt: take the last attachment off the next message."""

    @dataclass
    class FilesListed(Message):
        """The background walk of the session's roots finished."""

        files: list[str]

    def __init__(self, *, history: PromptHistory | None = None, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder=PLACEHOLDER,
        )
        self.prompt_history = history
        self.browser = HistoryBrowser()
        self.session: LiveSession | None = None
        self.after_ctrl_x = False
        """Whether the last key was Ctrl+X (Ctrl+E next opens the editor, as in bash)."""
        self.completion_list = CompletionList(self)
        self.completing: Context | None = None
        self.dismissed_at: Location | None = None
        self.session_files: list[str] | None = None
        self.stop_watching_commands: Callable[[], None] | None = None

    def on_mount(self) -> None:
        # The list goes just above the editor, in its container, so it never covers the text;
        # it opens only for a session's commands and files, so it comes after the first frame.
        if isinstance(self.parent, Widget):
            self.call_after_refresh(self.parent.mount, self.completion_list, before=self)

    def on_unmount(self) -> None:
        if self.stop_watching_commands is not None:
            self.stop_watching_commands()

    def set_session(self, session: LiveSession) -> None:
        """Complete commands and files, and resolve mentions, for ``session``."""
        if self.stop_watching_commands is not None:
            self.stop_watching_commands()
        self.session = session
        self.session_files = None
        self.stop_watching_commands = session.transcript.subscribe(self.commands_changed)
        self.update_completion()

    # -- sending -------------------------------------------------------------------------------

    ORDERED_KEYS = {"enter": "submit", "shift+enter": "newline", "ctrl+j": "newline"}
    """Keys acted on where the characters are inserted. A priority (App-level) binding runs
    before the characters queued ahead of it reach the editor: fast typing then sent a prompt
    cut short (`ch` of `check 130`) and glued the rest to the next one."""

    async def _on_key(self, event: events.Key) -> None:
        after_ctrl_x, self.after_ctrl_x = self.after_ctrl_x, event.key == "ctrl+x"
        if event.key == "ctrl+x" or (event.key == "ctrl+e" and after_ctrl_x):
            # Here, in order with the keys around them (a binding would act later): Ctrl+X
            # cuts as one edit, and Ctrl+E right after it (bash's Ctrl+X Ctrl+E) undoes that
            # cut and opens the editor.
            event.stop()
            event.prevent_default()
            if event.key == "ctrl+x":
                self.history.checkpoint()
                self.action_cut()
                self.history.checkpoint()
            else:
                self.undo()
                self.action_edit_in_editor()
            return
        action = self.ORDERED_KEYS.get(event.key)
        if action is None:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        if action == "submit":
            self.action_submit()
        else:
            self.action_newline()

    def action_submit(self) -> None:
        choice = self.completion_list.chosen() if self.completion_list.is_open else None
        if choice is not None:
            self.accept(choice)
            return
        text = self.text
        if not text.strip():
            return
        if self.prompt_history is not None:
            self.prompt_history.append(text)
        self.browser.reset()
        attachments: tuple[Path, ...] = ()
        if self.session is not None:
            attachments = tuple(resolve_mentions(text, self.session.roots, self.session.cwd))
        # Taken and cleared in one step: keys already queued land in the empty editor, never
        # between the text that was sent and a later clear.
        self.clear()
        self.post_message(self.Submitted(self, text, attachments))

    @work(exclusive=True, group="editor")
    async def action_edit_in_editor(self) -> None:
        """Ctrl+G: the draft in ``$VISUAL``/``$EDITOR``, taken back as one undoable edit."""
        from acp_tui.ui.external_editor import edit_in_editor

        cwd = self.session.cwd if self.session is not None else Path.cwd()
        edited = await edit_in_editor(self.app, self.text, cwd)
        if edited.text is None:
            self.notify(f"The draft is kept: {edited.problem}.", severity="warning")
            return
        self.history.checkpoint()
        self.replace(edited.text, self.document.start, self.document.end)
        self.history.checkpoint()
        self.move_cursor(self.document.end)

    def clear_draft(self) -> None:
        """Empty the prompt (Ctrl+C) as one edit of its own: Ctrl+Z brings the text back."""
        self.history.checkpoint()
        self.clear()
        self.history.checkpoint()

    @on(events.Paste)
    def paste_image_as_mention(self, event: events.Paste) -> None:
        """A pasted path to an image file (what a terminal pastes for a dropped file) becomes
        an ``@`` mention, so it is attached when sent; the roots are checked then, as always."""
        cwd = self.session.cwd if self.session is not None else Path.cwd()
        path = pasted_image_path(event.text, cwd)
        if path is None or self.read_only:
            return  # TextArea pastes the text as it is
        event.prevent_default()
        result = self.replace(f"@{mention_for(display_path(path, cwd))} ", *self.selection)
        self.move_cursor(result.end_location)

    def action_newline(self) -> None:
        self.insert("\n")

    def action_delete_left(self) -> None:
        if not self.text:  # nothing to delete: the attachments above are next (chips do that)
            self.post_message(self.TakeOffAttachment())
            return
        super().action_delete_left()

    # -- history and list navigation -----------------------------------------------------------

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.completion_list.is_open:
            self.completion_list.move(-1)
            return
        on_edge = self.navigator.is_first_wrapped_line(self.cursor_location)
        if select or not on_edge or not self.recall(older=True):
            super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if not select and self.completion_list.is_open:
            self.completion_list.move(1)
            return
        on_edge = self.navigator.is_last_wrapped_line(self.cursor_location)
        if select or not on_edge or not self.recall(older=False):
            super().action_cursor_down(select)

    @property
    def overflows(self) -> bool:
        """Whether the draft is taller than the editor (it scrolls)."""
        return self.max_scroll_y > 0

    def action_cursor_page_up(self) -> None:
        if not self.overflows:
            raise SkipAction()  # the pane pages the transcript
        super().action_cursor_page_up()

    def action_cursor_page_down(self) -> None:
        if not self.overflows:
            raise SkipAction()
        super().action_cursor_page_down()

    def action_cursor_draft_edge(self, end: bool) -> None:
        if not self.overflows:
            raise SkipAction()  # the pane goes to the transcript's top or end
        self.move_cursor(self.document.end if end else (0, 0))

    def recall(self, *, older: bool) -> bool:
        """Show the previous (or next) prompt of the history; False when there is none."""
        entries = self.prompt_history.entries() if self.prompt_history is not None else []
        text = self.browser.older(entries, self.text) if older else self.browser.newer(entries)
        if text is None:
            return False
        self.replace(text, (0, 0), self.document.end, maintain_selection_offset=False)
        if older or not self.browser.browsing:
            self.move_cursor(self.document.end)
        else:
            self.move_cursor((0, len(self.document.get_line(0))))
        return True

    # -- completion ----------------------------------------------------------------------------

    def action_accept_completion(self) -> None:
        if not self.completion_list.is_open:
            raise SkipAction()
        choice = self.completion_list.chosen()
        if choice is not None:
            self.accept(choice)

    def action_close_completion(self) -> None:
        if not self.completion_list.is_open or self.completing is None:
            raise SkipAction()
        self.dismissed_at = self.completing.start
        self.close_completion()

    def accept(self, choice: Choice) -> None:
        """Replace the token being completed with the choice."""
        if self.completing is not None:
            end = self.cursor_location
            self.replace(choice.insert, self.completing.start, end, maintain_selection_offset=False)
        self.close_completion()

    def close_completion(self) -> None:
        self.completing = None
        self.completion_list.close()

    @on(TextArea.Changed)
    def track_edit(self, event: TextArea.Changed) -> None:
        if event.text_area is not self:
            return
        event.stop()  # no one above listens: bubbling it cost six more dispatches per key
        self.browser.edited(self.text)
        commands = self.session.transcript.commands if self.session is not None else []
        hint = command_hint(self.text, commands)
        self.border_subtitle = safe_content(hint, limit=NAME_LIMIT) if hint else None
        self.update_completion()

    @on(TextArea.SelectionChanged)
    def track_cursor(self, event: TextArea.SelectionChanged) -> None:
        if event.text_area is self:
            event.stop()  # as `track_edit`
            self.update_completion()

    def commands_changed(self, change: Change) -> None:
        if change.kind == "meta" and change.what == "commands" and self.completing is not None:
            self.update_completion()

    def update_completion(self) -> None:
        """Open, refresh or close the list for the token at the cursor."""
        session = self.session
        context: Context | None = None
        if session is not None and not self.browser.browsing and self.selection.is_empty:
            row, column = self.cursor_location
            context = completion_context(self.document.get_line(row), row, column)
        if context is None:
            self.dismissed_at = None
        if session is None or context is None or context.start == self.dismissed_at:
            self.close_completion()
            return
        previous, self.completing = self.completing, context
        more = None
        if context.kind == "command":
            commands = session.transcript.commands
            choices = command_choices(commands, context.query)
            empty = "no matching command"
            left_out = session.transcript.commands_not_kept
            if left_out and not context.query.startswith("/"):  # (not //: acp-tui's only)
                more = commands_not_kept(left_out)
        else:
            if previous is None or previous.kind != "file" or previous.start != context.start:
                self.session_files = None
                roots = [Path(root) for root in session.roots.roots]
                self.list_session_files(roots, session.cwd)
            files = self.session_files
            choices = file_choices(files or [], context.query)
            empty = "listing files…" if files is None else "no matching file"
        self.completion_list.show_choices(choices, empty, more)

    @work(thread=True, exclusive=True, group="prompt-files", exit_on_error=False)
    def list_session_files(self, roots: list[Path], cwd: Path) -> None:
        """List the files under the roots off the UI thread; the result comes as a message."""
        self.post_message(self.FilesListed(list_files(roots, cwd)))

    @on(FilesListed)
    def show_files(self, event: FilesListed) -> None:
        self.session_files = event.files
        if self.completing is not None and self.completing.kind == "file":
            self.update_completion()

    @on(CompletionList.Chosen)
    def accept_click(self, event: CompletionList.Chosen) -> None:
        self.accept(event.choice)
        self.focus()
