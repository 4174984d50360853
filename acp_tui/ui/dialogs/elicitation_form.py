"""Provides ElicitationFormDialog: the agent asks for a few values; the user fills in a form.

One row per field of the agent's ``requestedSchema`` (`acp_tui.ui.widgets.form_fields`), its
defaults filled in, required fields marked ``*``. Nothing is sent until every field checks out:
Submit (or Ctrl+S) checks the whole form and shows each problem under its field, a field is
checked again when the focus leaves it (and an error goes as soon as it is fixed). Decline says
no, Esc cancels. Tab moves between fields, Enter in a text field goes to the next one; the form
scrolls when it is longer than the screen.
"""

from __future__ import annotations

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

    def action_submit(self) -> None:
        """Send the form if every field checks out; else show what is wrong, and send nothing."""
        if not self.accepting or self.answered:
            return
        rows = self.rows()
        content, errors = self.form.answer({row.field.name: row.value for row in rows})
        for row in rows:
            row.show_error(errors.get(row.field.name))
        problem = self.query_one("#elicit-problem", Static)
        if errors:
            fields = len([name for name in errors if name])
            text = errors.get("") or f"{fields} field{'s' if fields != 1 else ''} to fix first."
            problem.update(Content(text))
            problem.remove_class("-none")
            first = next((row for row in rows if row.error), None)
            if first is not None:
                first.control.focus()
                first.scroll_visible()
            return
        problem.add_class("-none")
        self.answer(Answer("accept", content))

    @on(Button.Pressed, "#elicit-submit")
    def submit_pressed(self) -> None:
        self.action_submit()

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
                row.check()
                return
