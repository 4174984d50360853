"""Provides Form: the fields of a form elicitation, and the check of what the user answered.

The agent's ``requestedSchema`` (`acp_tui.protocol.elicitation`) becomes one `FormField` per
property, in the agent's order: a text, number or whole-number field (typed as text), a yes/no
field, a single choice, a multiple choice, or a field of a type this client does not know (typed
as text and sent as text). `Form.answer` turns what the widgets hold into the ``content`` of an
accept, or says what is wrong with each field: nothing that breaks the schema is ever sent (a
required field left empty, a value out of its bounds, a text that does not fit its format or
pattern). UI-free and small on purpose: no JSON Schema library, only the restricted subset
elicitations use.

What is omitted: an optional text or choice left empty, an optional multiple choice with nothing
chosen. A yes/no field always has a value and is always sent.

A text field's default is what is sent if the user does not edit it, so it is shown exactly as it
will be sent: the agent's default with its control and bidi characters, tabs and line ends made
visible (`one_line`), never the raw characters (they would reach the terminal: an OSC 52 sets
the clipboard as soon as the form shows). When that changed the agent's default, the field says
so (`FormField.default_changed`): the user sees the value that will go, and may edit it. Sending
the agent's raw default instead would send something other than what is shown.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from acp_tui.client.safe_text import one_line
from acp_tui.client.session.form_patterns import pattern_problem, pattern_usable
from acp_tui.protocol.elicitation import (
    BooleanPropertySchema,
    ElicitationSchema,
    IntegerPropertySchema,
    MultiSelectPropertySchema,
    NumberPropertySchema,
    PropertySchema,
    StringPropertySchema,
    UnknownPropertySchema,
)
from acp_tui.protocol.held import not_kept
from acp_tui.protocol.unions import UNKNOWN

__all__ = ["MAX_FIELDS", "Choice", "FieldKind", "Form", "FormField", "Raw", "Value"]

log = logging.getLogger(__name__)

FieldKind = Literal["text", "number", "integer", "boolean", "choice", "multi", "unknown"]

Raw = str | bool | Sequence[str] | None
"""What a widget holds: text, a checkbox, the chosen value (None: none), the chosen values."""
Value = str | int | float | bool | list[str]
"""A value of the ``content`` sent (the schema's ``ElicitationContentValue``)."""

MAX_FIELDS = 100
"""The most fields a form shows; an agent asking for more gets the first ones."""
INT64 = (-(2**63), 2**63 - 1)

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:\S+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")

FORMAT_HINTS = {
    "email": "an email address",
    "uri": "a URI, such as https://example.com",
    "date": "a date, YYYY-MM-DD",
    "date-time": "a date and time, such as 2026-07-24T12:00:00Z",
}
PLACEHOLDERS = {
    "email": "name@example.com",
    "uri": "https://…",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDTHH:MM:SSZ",
}


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice: the value sent and the title shown."""

    value: str
    title: str
    description: str | None = None


def _bound(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(value)


def _between(low: float | None, high: float | None, unit: str = "") -> str:
    """``low to high unit``, ``at least low unit`` or ``at most high unit``."""
    last = high if high is not None else low
    unit = f" {unit}{'' if last == 1 else 's'}" if unit else ""
    if low is not None and high is not None:
        return f"{_bound(low)} to {_bound(high)}{unit}"
    if low is not None:
        return f"at least {_bound(low)}{unit}"
    return f"at most {_bound(high or 0)}{unit}"


@dataclass(frozen=True, slots=True)
class FormField:
    """One field of a form: what to show, what it starts with, and how to check it."""

    name: str
    kind: FieldKind
    schema: PropertySchema
    required: bool = False
    choices: tuple[Choice, ...] = ()
    default: Raw = None
    """What the widget starts with (text for the typed fields), and is sent if not edited."""
    default_changed: bool = False
    """The agent's text default had characters that cannot be shown as they are: ``default`` is
    it with them made visible (symbols such as ␛), and that is what is sent if not edited."""
    choices_not_kept: int = 0
    """Choices the agent offered past the cap on one field (`acp_tui.protocol.held`): not
    kept, counted under the list."""

    @property
    def title(self) -> str:
        return self.schema.title or self.name

    @property
    def description(self) -> str | None:
        return self.schema.description

    @property
    def type_name(self) -> str:
        """The ``type`` the agent gave (for a field of an unknown type)."""
        kind = self.schema.type
        return "none" if kind == UNKNOWN else kind

    @property
    def format(self) -> str | None:
        schema = self.schema
        return schema.format if isinstance(schema, StringPropertySchema) else None

    @property
    def placeholder(self) -> str:
        return PLACEHOLDERS.get(self.format or "", "")

    @property
    def hint(self) -> str:
        """What the field takes, in words (its format, lengths, bounds)."""
        schema, parts = self.schema, []
        if isinstance(schema, StringPropertySchema) and self.kind == "text":
            if schema.format in FORMAT_HINTS:
                parts.append(FORMAT_HINTS[schema.format])
            if schema.min_length is not None or schema.max_length is not None:
                parts.append(_between(schema.min_length, schema.max_length, "character"))
            if schema.pattern is not None:
                usable = pattern_usable(schema.pattern)
                parts.append(f"pattern {schema.pattern}" if usable else "(its pattern is ignored)")
        elif isinstance(schema, NumberPropertySchema | IntegerPropertySchema):
            parts.append("a whole number" if self.kind == "integer" else "a number")
            if schema.minimum is not None or schema.maximum is not None:
                parts.append(_between(schema.minimum, schema.maximum))
        elif isinstance(schema, MultiSelectPropertySchema):
            if schema.min_items is not None or schema.max_items is not None:
                parts.append("choose " + _between(schema.min_items, schema.max_items))
        elif self.kind == "unknown":
            parts.append(f"type {self.type_name!r} is unknown to acp-tui: sent as text")
        return ", ".join(parts)

    # -- the check ---------------------------------------------------------------------------

    def check(self, raw: Raw) -> tuple[Value | None, str | None]:
        """``(value, error)``: the value to send (None: leave it out) or why it cannot be."""
        if self.kind == "boolean":
            return (raw if isinstance(raw, bool) else bool(self.default)), None
        if self.kind == "choice":
            return self._check_choice(raw)
        if self.kind == "multi":
            return self._check_multi(raw)
        text = raw if isinstance(raw, str) else ""
        if text == "":
            return None, "required" if self.required else None
        if self.kind == "number":
            return self._check_number(text)
        if self.kind == "integer":
            return self._check_integer(text)
        if self.kind == "text":
            return self._check_text(text)
        return text, None

    def _check_text(self, text: str) -> tuple[Value | None, str | None]:
        schema = self.schema
        assert isinstance(schema, StringPropertySchema)
        if schema.min_length is not None and len(text) < schema.min_length:
            return None, _between(schema.min_length, None, "character")
        if schema.max_length is not None and len(text) > schema.max_length:
            return None, _between(None, schema.max_length, "character")
        problem = _format_problem(schema.format, text)
        if problem is not None:
            return None, problem
        problem = pattern_problem(schema.pattern, text) if schema.pattern is not None else None
        return (None, problem) if problem is not None else (text, None)

    def _check_number(self, text: str) -> tuple[Value | None, str | None]:
        text = text.strip()
        if _INTEGER.fullmatch(text):
            return self._in_bounds(int(text))
        if not _NUMBER.fullmatch(text):
            return None, "not a number"
        value = float(text)
        if not math.isfinite(value):
            return None, "too large"
        return self._in_bounds(value)

    def _check_integer(self, text: str) -> tuple[Value | None, str | None]:
        text = text.strip()
        if not _INTEGER.fullmatch(text):
            return None, "not a whole number"
        value = int(text)
        if not INT64[0] <= value <= INT64[1]:
            return None, "too large"
        return self._in_bounds(value)

    def _in_bounds(self, value: float) -> tuple[Value | None, str | None]:
        schema = self.schema
        assert isinstance(schema, NumberPropertySchema | IntegerPropertySchema)
        if schema.minimum is not None and value < schema.minimum:
            return None, f"at least {_bound(schema.minimum)}"
        if schema.maximum is not None and value > schema.maximum:
            return None, f"at most {_bound(schema.maximum)}"
        return value, None

    def _check_choice(self, raw: Raw) -> tuple[Value | None, str | None]:
        if not isinstance(raw, str) or raw == "":
            return None, "choose one" if self.required else None
        if raw not in {c.value for c in self.choices}:
            return None, "not one of the choices"
        return raw, None

    def _check_multi(self, raw: Raw) -> tuple[Value | None, str | None]:
        schema = self.schema
        assert isinstance(schema, MultiSelectPropertySchema)
        chosen = set() if raw is None or isinstance(raw, str | bool) else set(raw)
        values = [c.value for c in self.choices if c.value in chosen]
        if len(values) != len(chosen):
            return None, "not one of the choices"
        if not values:
            return None, "choose at least one" if self.required else None
        if schema.min_items is not None and len(values) < schema.min_items:
            return None, f"choose at least {schema.min_items}"
        if schema.max_items is not None and len(values) > schema.max_items:
            return None, f"choose at most {schema.max_items}"
        return values, None


def _format_problem(kind: str | None, text: str) -> str | None:
    """Why ``text`` is not of the string format ``kind`` (unknown formats: no check)."""
    if kind == "email" and not _EMAIL.fullmatch(text):
        return "not an email address"
    if kind == "uri" and not _URI.fullmatch(text):
        return "not a URI (a scheme, then a colon, such as https://example.com)"
    if kind == "date":
        try:
            if not _DATE.fullmatch(text):
                raise ValueError(text)
            date.fromisoformat(text)
        except ValueError:
            return "not a date (YYYY-MM-DD)"
    if kind == "date-time":
        try:
            if not _DATE_TIME.fullmatch(text):
                raise ValueError(text)
            datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
        except ValueError:
            return "not a date and time (such as 2026-07-24T12:00:00Z)"
    return None


# -- building a form ---------------------------------------------------------------------------


def _choices(schema: PropertySchema) -> tuple[Choice, ...]:
    if isinstance(schema, StringPropertySchema):
        if schema.one_of:
            return tuple(Choice(o.const, o.title, o.description) for o in schema.one_of)
        return tuple(Choice(v, v) for v in schema.enum or ())
    if isinstance(schema, MultiSelectPropertySchema):
        items = schema.items
        if items.any_of:
            return tuple(Choice(o.const, o.title, o.description) for o in items.any_of)
        return tuple(Choice(v, v) for v in items.enum or ())
    return ()


def _number_text(value: float | None) -> str:
    if value is None:
        return ""
    return _bound(value)


def _choices_not_kept(schema: PropertySchema) -> int:
    holder = schema.items if isinstance(schema, MultiSelectPropertySchema) else schema
    return sum(not_kept(holder, key) for key in ("enum", "oneOf", "anyOf"))


def form_field(name: str, schema: PropertySchema, required: bool) -> FormField:
    """The field of one property (a multiple choice without choices is a field of unknown type)."""
    choices = _choices(schema)
    values = {c.value for c in choices}
    left_out = _choices_not_kept(schema)
    if isinstance(schema, StringPropertySchema):
        if choices or schema.enum is not None or schema.one_of is not None:
            default = schema.default if schema.default in values else None
            return FormField(
                name, "choice", schema, required, choices, default, choices_not_kept=left_out
            )
        given = schema.default or ""
        shown = one_line(given)
        return FormField(
            name, "text", schema, required, default=shown, default_changed=shown != given
        )
    if isinstance(schema, IntegerPropertySchema):
        return FormField(name, "integer", schema, required, default=_number_text(schema.default))
    if isinstance(schema, NumberPropertySchema):
        return FormField(name, "number", schema, required, default=_number_text(schema.default))
    if isinstance(schema, BooleanPropertySchema):
        return FormField(name, "boolean", schema, required, default=bool(schema.default))
    if isinstance(schema, MultiSelectPropertySchema) and choices:
        chosen = tuple(v for v in schema.default or () if v in values)
        return FormField(
            name, "multi", schema, required, choices, chosen, choices_not_kept=left_out
        )
    unknown = schema
    if not isinstance(unknown, UnknownPropertySchema):
        unknown = UnknownPropertySchema(
            type=unknown.type, title=unknown.title, description=unknown.description
        )
    return FormField(name, "unknown", unknown, required, default="")


@dataclass(frozen=True, slots=True)
class Form:
    """The fields of one form elicitation, and what it could not show."""

    fields: tuple[FormField, ...]
    title: str | None = None
    description: str | None = None
    hidden: int = 0
    """How many fields beyond `MAX_FIELDS` are not shown."""
    hidden_required: tuple[str, ...] = field(default=())
    """Required fields among the hidden ones: the form cannot be accepted."""

    @classmethod
    def of(cls, schema: ElicitationSchema) -> Form:
        required = set(schema.required or ())
        properties = list(schema.fields().items())
        shown, rest = properties[:MAX_FIELDS], properties[MAX_FIELDS:]
        hidden_required = [n for n, _ in rest if n in required]
        left_out = not_kept(schema, "properties")  # fields not even kept (protocol.held)
        if left_out:
            known = {n for n, _ in properties}
            hidden_required += sorted(n for n in required if n not in known)
        return cls(
            fields=tuple(form_field(n, s, n in required) for n, s in shown),
            title=schema.title,
            description=schema.description,
            hidden=len(rest) + left_out,
            hidden_required=tuple(hidden_required),
        )

    def defaults(self) -> dict[str, Raw]:
        return {f.name: f.default for f in self.fields}

    def answer(self, raw: Mapping[str, Raw]) -> tuple[dict[str, Value], dict[str, str]]:
        """``(content, errors)``: the content to accept with, and the problems by field name
        (``""``: the form's own). Send the content only when there are no errors."""
        content: dict[str, Value] = {}
        errors: dict[str, str] = {}
        for item in self.fields:
            value, error = item.check(raw.get(item.name, item.default))
            if error is not None:
                errors[item.name] = error
            elif value is not None:
                content[item.name] = value
        if self.hidden_required:
            errors[""] = (
                f"{len(self.hidden_required)} required fields are beyond the {MAX_FIELDS} shown: "
                "this form cannot be sent from here"
            )
        return content, errors
