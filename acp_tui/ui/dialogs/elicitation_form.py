"""Provides ElicitationFormDialog: the agent asks for a few values; the user fills in a form.

One row per field of the agent's ``requestedSchema`` (`acp_tui.ui.widgets.form_fields`), its
defaults filled in, required fields marked ``*``. Nothing is sent until every field checks out:
Submit (or Ctrl+S) checks the whole form and shows each problem under its field, a field is
checked again when the focus leaves it (and an error goes as soon as it is fixed, the count of
fields to fix with it). Decline says no, Esc cancels. Tab moves between fields, Enter in a text
field goes to the next one; the form scrolls when it is longer than the screen.

The checks run in a thread: the agent writes the patterns, and one made to backtrack for long
must not hold the app (each is also bounded in time, see `acp_tui.client.session.forms`).
"""

from __future__ import annotations

import asyncio

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static

from acp_tui.client.session.elicitation import Answer
from acp_tui.client.session.forms import Form
from acp_tui.ui.dialogs.elicitation import ElicitationDialog
from acp_tui.ui.plain_text import TEXT_LIMIT, safe_content
from acp_tui.ui.widgets.form_fields import FieldRow

__all__ = ["ElicitationFormDialog"]


class ElicitationFormDialog(ElicitationDialog):
    """Returns accept with the form's content, decline or cancel (None: withdrawn)."""

    DEFAULT_CSS = """
    ElicitationFormDialog {
        #elicit-body { height: auto; max-height: 100%; }
        #elicit-problem { color: $text-error; }
        #elicit-problem.-none { display: none; }
    }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "submit", "Submit", priority=True),
    ]

    FIRST_FOCUS = "#elicit-body"

    @property
    def form(self) -> Form:
        form = self.elicitation.form
        return form if form is not None else Form(())

    def compose(self) -> ComposeResult:
        form = self.form
        with Vertical():
            yield self.title_text()
            with Vertical(classes="elicit-answers"):
                yield Static(id="elicit-problem", classes="-none")
                with Horizontal(classes="elicit-buttons"):
                    yield Button(
                        "Submit", id="elicit-submit", variant="primary", disabled=True, compact=True
                    )
                    yield Button("Decline", id="elicit-decline", disabled=True, compact=True)
                    yield Button("Cancel", id="elicit-cancel", disabled=True, compact=True)
                yield Static(
                    Content("Tab: next field · Ctrl+S: submit · Esc: cancel"), classes="elicit-keys"
                )
                yield from self.notes()
            with VerticalScroll(id="elicit-body"):
                yield self.scope_text()
                yield self.message_text()
                if form.title:
                    yield Static(safe_content(form.title, limit=TEXT_LIMIT), classes="elicit-title")
                if form.description:
                    yield Static(
                        safe_content(form.description, limit=TEXT_LIMIT), classes="elicit-scope"
                    )
                for field in form.fields:
                    yield FieldRow(field)
                if form.hidden:
                    yield Static(
                        Content(f"{form.hidden} more fields are not shown."), classes="elicit-scope"
                    )

    # -- answers ---------------------------------------------------------------------------

    def rows(self) -> list[FieldRow]:
        return list(self.query(FieldRow))

    async def action_submit(self) -> None:
        """Send the form if every field checks out; else show what is wrong, and send nothing."""
        if not self.accepting or self.answered or self.checking:
            return
        rows = self.rows()
        values = {row.field.name: row.value for row in rows}
        self.checking = True
        try:
            content, errors = await asyncio.to_thread(self.form.answer, values)
        finally:
            self.checking = False
        if self.answered or not self.is_attached:
            return
        for row in rows:
            row.show_error(errors.get(row.field.name))
        if errors:
            self.show_problem(errors.get(""))
            first = next((row for row in rows if row.error), None)
            if first is not None:
                first.control.focus()
                first.scroll_visible()
            return
        self.show_problem(None)
        self.answer(Answer("accept", content))

    checking = False
    """Whether a Submit's check runs (a second Submit meanwhile does nothing)."""

    def show_problem(self, form_error: str | None) -> None:
        """Under the form: its own error, else how many fields are still to fix (or nothing)."""
        problem = self.query_one("#elicit-problem", Static)
        fields = sum(1 for row in self.rows() if row.error)
        text = form_error or (
            f"{fields} field{'s' if fields != 1 else ''} to fix first." if fields else ""
        )
        problem.update(Content(text))
        problem.set_class(not text, "-none")

    @on(Button.Pressed, "#elicit-submit")
    async def submit_pressed(self) -> None:
        await self.action_submit()

    @on(Button.Pressed, "#elicit-decline")
    def decline_pressed(self) -> None:
        self.action_decline()

    @on(Button.Pressed, "#elicit-cancel")
    def cancel_pressed(self) -> None:
        self.action_cancel()

    # -- checking as the user goes ---------------------------------------------------------

    @on(Input.Submitted)
    def next_field(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    @on(Input.Blurred)
    def check_left_field(self, event: Input.Blurred) -> None:
        self._recheck(event.input, always=bool(event.value))

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    @on(SelectionList.SelectedChanged)
    def check_changed_field(self, event: object) -> None:
        control = getattr(event, "control", None)
        if control is not None:
            self._recheck(control, always=False)

    def _recheck(self, control: object, *, always: bool) -> None:
        """Check the row of ``control``: always, or only to clear an error shown."""
        for row in self.rows():
            if row.control is control and (always or row.error is not None):
                self.run_worker(
                    self._check_row(row), group=f"check-{row.field.name}", exclusive=True
                )
                return

    async def _check_row(self, row: FieldRow) -> None:
        value = row.value
        _checked, error = await asyncio.to_thread(row.field.check, value)
        if row.is_attached and row.value == value:  # not typed over meanwhile
            row.show_error(error)
            if not self.query_one("#elicit-problem", Static).has_class("-none"):
                self.show_problem(None)  # the count follows the fields fixed
