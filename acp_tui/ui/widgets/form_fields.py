"""Provides FieldRow: one field of an elicitation form, with its label, input and error.

The input follows the field's kind (`acp_tui.client.session.forms`): a text line for text, numbers
and fields of an unknown type, a checkbox for yes/no, a drop-down for a single choice, a list of
checkboxes for a multiple choice. Everything shown comes from the agent, so it is sanitised and
literal (never markup): titles, descriptions, choice labels, hints, errors, the placeholder, and
a text field's default, which `acp_tui.client.session.forms` makes visible as it will be sent (a
note under the field says so when that changed the agent's default). The row checks its own
value (`check`) and shows the error under it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Select, SelectionList, Static
from textual.widgets.selection_list import Selection

from acp_tui.client.session.forms import FormField, Raw
from acp_tui.ui.plain_text import LABEL_LIMIT, TEXT_LIMIT, safe_content, sanitize

__all__ = ["DEFAULT_NOTE", "FieldRow"]

DEFAULT_NOTE = (
    "The agent's default had control characters (or line ends): they are shown as symbols, "
    "and it is sent as shown unless you edit it."
)
"""Under a text field whose default is not the agent's exactly (`FormField.default_changed`)."""


class FieldRow(Vertical):
    """One form field: title (``*`` when required), description, input, hint and error."""

    DEFAULT_CSS = """
    FieldRow {
        height: auto;
        margin-bottom: 1;
        & > .field-title { text-style: bold; }
        & > .field-description, & > .field-hint { color: $text-muted; }
        & > .field-note { color: $text-warning; }
        & > .field-error { color: $text-error; }
        & > .field-error.-none { display: none; }
        & > Input, & > Select { width: 100%; }
        & > SelectionList { height: auto; max-height: 8; }
    }
    """

    def __init__(self, field: FormField) -> None:
        super().__init__(classes=f"-{field.kind}")
        self.field = field
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        field = self.field
        title = sanitize(field.title, LABEL_LIMIT) + (" *" if field.required else "")
        if field.kind != "boolean":
            yield Static(Content(title), classes="field-title")
        if field.description:
            yield Static(
                safe_content(field.description, limit=TEXT_LIMIT), classes="field-description"
            )
        yield self._input(title)
        if field.choices_not_kept:  # past the cap on one field (acp_tui.protocol.held)
            count = field.choices_not_kept
            what = "1 more choice" if count == 1 else f"{count:,} more choices"
            yield Static(Content(f"… {what} from the agent (not kept)"), classes="field-hint")
        if field.default_changed:
            yield Static(Content(DEFAULT_NOTE), classes="field-note")
        if field.hint:
            yield Static(safe_content(field.hint, limit=TEXT_LIMIT), classes="field-hint")
        yield Static(classes="field-error -none")

    def _input(self, title: str) -> Widget:
        field = self.field
        if field.kind == "boolean":
            return Checkbox(Content(title), value=bool(field.default), compact=True)
        if field.kind == "choice":
            options = [(Content(sanitize(c.title, LABEL_LIMIT)), c.value) for c in field.choices]
            chosen = field.default if isinstance(field.default, str) else Select.NULL
            return Select(
                options,
                prompt="Choose one",
                allow_blank=not (field.required and chosen is not Select.NULL),
                value=chosen,
                compact=True,
            )
        if field.kind == "multi":
            selected = set(field.default) if isinstance(field.default, tuple) else set()
            return SelectionList[str](
                *(
                    Selection(Content(sanitize(c.title, LABEL_LIMIT)), c.value, c.value in selected)
                    for c in field.choices
                ),
                compact=True,
            )
        kinds = {"number": "number", "integer": "integer"}
        return Input(
            value=field.default if isinstance(field.default, str) else "",
            placeholder=sanitize(field.placeholder, LABEL_LIMIT),
            type=kinds.get(field.kind, "text"),  # type: ignore[arg-type]
            valid_empty=True,
            compact=True,
        )

    @property
    def control(self) -> Widget:
        """The widget the user answers with."""
        return self.query_one("Input, Checkbox, Select, SelectionList")

    @property
    def value(self) -> Raw:
        """What the user entered, as `Form.answer` takes it."""
        control = self.control
        if isinstance(control, Checkbox):
            return control.value
        if isinstance(control, Select):
            return None if control.is_blank() else str(control.value)
        if isinstance(control, SelectionList):
            return tuple(str(v) for v in control.selected)
        assert isinstance(control, Input)
        return control.value

    def show_error(self, error: str | None) -> None:
        self.error = error
        note = self.query_one(".field-error", Static)
        note.update(Content(f"✗ {sanitize(error, TEXT_LIMIT)}" if error else ""))
        note.set_class(error is None, "-none")
