"""Provides ElicitationUrlDialog: the agent asks the user to do something at a URL.

The URL is agent text: it is shown sanitised, as plain text, with the host it leads to on a line
of its own, read as browsers read it (`check_link`: ``https://evil.example\\@bank.example/``
leads to evil.example; a non-ASCII host also in the form the browser uses), so that the user
sees where it goes before going. Nothing is opened without the user's key press: ``o`` opens it
in the browser (only an http or https URL that reads as where it leads; any other is shown with
the reason it cannot be opened, a disguised one in the warning colour), ``c`` copies it (not a
disguised one). The dialog then waits for the agent's
`elicitation/complete`, which closes it (answered accept); Done answers accept without waiting
(the agent may want the answer first), ``d`` declines, Esc cancels.
"""

from __future__ import annotations

import asyncio
import webbrowser
from functools import cached_property

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from acp_tui.client.session.browser_url import LinkCheck, check_link
from acp_tui.client.session.elicitation import ACCEPTED
from acp_tui.ui.dialogs.elicitation import ElicitationDialog
from acp_tui.ui.plain_text import TEXT_LIMIT, sanitize

__all__ = ["ElicitationUrlDialog", "open_in_browser"]


async def open_in_browser(app: App[int], url: str) -> str | None:
    """Open ``url`` in the user's browser; returns why it could not be, or None.

    A browser that runs in the terminal (lynx, w3m...) gets the terminal, the app suspended
    meanwhile; any other is started in the background. In a web browser (`acp-tui serve`),
    the page opens it in a new tab: "your browser" is that one, not one on the server.
    """
    if app.is_web:
        app.open_url(url, new_tab=True)
        return None
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return "no web browser was found"
    try:
        if type(browser) is webbrowser.GenericBrowser:  # a console browser: it needs the terminal
            from acp_tui.ui.suspend import on_the_terminal

            with on_the_terminal(app):
                opened = await asyncio.to_thread(browser.open, url)
        else:
            opened = await asyncio.to_thread(browser.open, url)
    except Exception as exc:  # a browser that fails must not take the app with it
        return f"the browser could not be started ({exc})"
    return None if opened else "the browser could not be started"


class ElicitationUrlDialog(ElicitationDialog):
    """Returns accept (done), decline or cancel (None: withdrawn)."""

    DEFAULT_CSS = """
    ElicitationUrlDialog {
        .elicit-host { text-style: bold; }
        .elicit-host.-disguised { color: $text-error; }
        .elicit-url { color: $text-accent; margin-bottom: 1; }
        .elicit-problem { color: $text-warning; }
        .elicit-status { color: $text-success; }
        .elicit-status.-none, .elicit-problem.-none { display: none; }
    }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("o", "open_url", "Open"),
        Binding("c", "copy_url", "Copy"),
        Binding("d", "decline", "Decline"),
    ]

    visited = False
    """Whether the user opened or copied the URL (Done is possible from then on)."""

    @property
    def url(self) -> str:
        return self.elicitation.request.url or ""

    @cached_property
    def link(self) -> LinkCheck:
        """Where the URL leads, and whether it may be opened or copied (read once: a hostile
        URL may be long)."""
        return check_link(self.url)

    @property
    def problem(self) -> str | None:
        """Why the URL is not opened, or None."""
        return self.link.problem

    def compose(self) -> ComposeResult:
        link = self.link
        host, problem = link.host, link.problem
        with Vertical():
            yield self.title_text("asks you to open a link")
            yield self.scope_text()
            yield self.message_text()
            yield Static(
                Content(f"Host: {sanitize(host, TEXT_LIMIT)}" if host else "Host: (none)"),
                classes="elicit-host" + (" -disguised" if link.disguised else ""),
            )
            yield Static(Content(sanitize(self.url, TEXT_LIMIT)), classes="elicit-url")
            yield Static(
                Content(
                    f"This link cannot be opened from here: {sanitize(problem, TEXT_LIMIT)}."
                    if problem
                    else ""
                ),
                classes="elicit-problem" + ("" if problem else " -none"),
            )
            yield Static(classes="elicit-status -none")
            with Vertical(classes="elicit-answers"):
                with Horizontal(classes="elicit-buttons"):
                    yield Button(
                        Content("[o] Open"),
                        id="elicit-open",
                        variant="primary",
                        disabled=True,
                        compact=True,
                    )
                    yield Button(Content("[c] Copy"), id="elicit-copy", disabled=True, compact=True)
                    yield Button(Content("Done"), id="elicit-done", disabled=True, compact=True)
                    yield Button(
                        Content("[d] Decline"), id="elicit-decline", disabled=True, compact=True
                    )
                    yield Button(Content("Cancel"), id="elicit-cancel", disabled=True, compact=True)
                yield Static(
                    Content("Waiting for the agent to say it is done · Esc: cancel"),
                    classes="elicit-keys",
                )
                yield from self.notes()

    def button_enabled(self, button: Button) -> bool:
        if button.id == "elicit-open":
            return self.problem is None
        if button.id == "elicit-copy":
            return not self.link.disguised
        if button.id == "elicit-done":
            return self.visited
        return True

    def _visit(self, status: str) -> None:
        self.visited = True
        self.query_one("#elicit-done", Button).disabled = False
        note = self.query_one(".elicit-status", Static)
        note.update(Content(status))
        note.remove_class("-none")

    # -- answers -----------------------------------------------------------------------------

    def action_open_url(self) -> None:
        if not self.accepting or self.answered or self.problem is not None:
            return
        self.open_url()

    @work(exclusive=True, group="open-url")
    async def open_url(self) -> None:
        failed = await open_in_browser(self.app, self.url)
        if failed is not None:
            self.notify(f"The link was not opened: {failed}.", severity="warning")
            return
        self._visit("Opened in your browser. Done when you have finished there.")

    def action_copy_url(self) -> None:
        if not self.accepting or self.answered:
            return
        if self.link.disguised:
            self.notify("This link leads elsewhere than it reads: not copied.", severity="warning")
            return
        self.app.copy_to_clipboard(self.url)
        self._visit("Copied. Done when you have finished with it.")

    def complete(self) -> bool:
        """The agent says it is done (`elicitation/complete`): True if the dialog is to close
        with accept (it was not answered yet)."""
        if self.answered:
            return False
        self.answered = True
        return True

    @on(Button.Pressed, "#elicit-open")
    def open_pressed(self) -> None:
        self.action_open_url()

    @on(Button.Pressed, "#elicit-copy")
    def copy_pressed(self) -> None:
        self.action_copy_url()

    @on(Button.Pressed, "#elicit-done")
    def done_pressed(self) -> None:
        self.answer(ACCEPTED)

    @on(Button.Pressed, "#elicit-decline")
    def decline_pressed(self) -> None:
        self.action_decline()

    @on(Button.Pressed, "#elicit-cancel")
    def cancel_pressed(self) -> None:
        self.action_cancel()
