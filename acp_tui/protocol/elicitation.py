"""Provides the ``requestedSchema`` of a form elicitation: a restricted JSON Schema, read leniently.

A form asks for an object whose properties are primitive fields (``ElicitationSchema`` in the
schema): strings (with ``format``, lengths, ``pattern``; with ``enum`` or ``oneOf`` a single
choice), numbers and integers (with bounds), booleans, and arrays of choices (a multiple choice,
``items.enum`` or ``items.anyOf``). The v2 draft's definitions are the same but for two
tolerances these models have anyway (empty choice lists are refused there, unknown string
formats allowed), so v2 uses them too.

Nothing here fails a request over one field: a property of an unknown or custom ``type``, or a
known one that does not fit its shape, becomes ``UnknownPropertySchema`` (raw fields kept); a
malformed title, description, default or bound is dropped (the schema marks most of them
``x-deserialize-default-on-error``); invalid choices and default items are skipped.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    Strict,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union

__all__ = [
    "BooleanPropertySchema",
    "ElicitationPropertySchema",
    "ElicitationSchema",
    "EnumOption",
    "IntegerPropertySchema",
    "MultiSelectItems",
    "MultiSelectPropertySchema",
    "NumberPropertySchema",
    "PropertySchema",
    "StringPropertySchema",
    "UnknownPropertySchema",
]

log = logging.getLogger(__name__)

KNOWN_FORMATS = ("email", "uri", "date", "date-time")
"""String formats of the schema; others are an annotation only (v2: "treat it as annotation")."""

StrictInt = Annotated[int, Strict()]
StrictNumber = Annotated[float, Strict()] | StrictInt
Count = Annotated[int, Strict(), Field(ge=0)]


class EnumOption(WireModel):
    """One titled choice: the ``const`` value sent, the ``title`` shown."""

    const: str
    title: str
    description: Lenient[str] = None


Choices = Annotated[SkipInvalid[EnumOption] | None, lenient_factory(lambda: None)]
Strings = Annotated[SkipInvalid[str] | None, lenient_factory(lambda: None)]


class _Property(TaggedModel):
    __wire_always__ = ("type",)
    title: Lenient[str] = None
    description: Lenient[str] = None


class StringPropertySchema(_Property):
    """A text field; with ``enum`` (plain values) or ``one_of`` (titled ones) a single choice."""

    type: Literal["string"] = "string"
    min_length: Lenient[Count] = None
    max_length: Lenient[Count] = None
    pattern: Lenient[str] = None
    format: Lenient[str] = None
    default: Lenient[str] = None
    enum: Strings = None
    one_of: Choices = None


class NumberPropertySchema(_Property):
    """A number field (floating point), bounds inclusive."""

    type: Literal["number"] = "number"
    minimum: Lenient[StrictNumber] = None
    maximum: Lenient[StrictNumber] = None
    default: Lenient[StrictNumber] = None


class IntegerPropertySchema(_Property):
    """A whole-number field, bounds inclusive."""

    type: Literal["integer"] = "integer"
    minimum: Lenient[StrictInt] = None
    maximum: Lenient[StrictInt] = None
    default: Lenient[StrictInt] = None


class BooleanPropertySchema(_Property):
    """A yes/no field."""

    type: Literal["boolean"] = "boolean"
    default: Lenient[Annotated[bool, Strict()]] = None


class MultiSelectItems(WireModel):
    """The choices of a multiple choice: ``{"type": "string", "enum": [...]}`` or
    ``{"anyOf": [EnumOption...]}`` (or an item type this client does not know)."""

    type: Lenient[str] = None
    enum: Strings = None
    any_of: Choices = None


class MultiSelectPropertySchema(_Property):
    """A multiple choice among ``items``, with optional bounds on how many."""

    type: Literal["array"] = "array"
    items: MultiSelectItems
    min_items: Lenient[Count] = None
    max_items: Lenient[Count] = None
    default: Strings = None


class UnknownPropertySchema(_Property):
    """A property of a type this client does not know (or one that did not fit its shape)."""

    type: str = UNKNOWN


ElicitationPropertySchema = Annotated[
    Annotated[StringPropertySchema, Tag("string")]
    | Annotated[NumberPropertySchema, Tag("number")]
    | Annotated[IntegerPropertySchema, Tag("integer")]
    | Annotated[BooleanPropertySchema, Tag("boolean")]
    | Annotated[MultiSelectPropertySchema, Tag("array")]
    | Annotated[UnknownPropertySchema, Tag(UNKNOWN)],
    open_union("type", {"string", "number", "integer", "boolean", "array"}),
]
"""One form field, discriminated on ``type``; unknown types become ``UnknownPropertySchema``."""

PropertySchema = (
    StringPropertySchema
    | NumberPropertySchema
    | IntegerPropertySchema
    | BooleanPropertySchema
    | MultiSelectPropertySchema
    | UnknownPropertySchema
)

_PROPERTY: TypeAdapter[Any] = TypeAdapter(ElicitationPropertySchema)


def _unknown(value: Any) -> UnknownPropertySchema:
    """A property that did not parse, kept as unknown with whatever title it has."""
    if not isinstance(value, dict):
        return UnknownPropertySchema(type=type(value).__name__)
    raw = dict(value)
    kind = raw.pop("type", None)
    unknown = UnknownPropertySchema.model_validate(raw)
    unknown.type = kind if isinstance(kind, str) else str(kind)
    return unknown


def _each_property(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """Parse every property on its own: one that does not fit is kept as unknown.

    (The parsed dict is returned as it is: validating it again would send an unknown property
    whose ``type`` is a known one back to the variant it did not fit.)"""
    if not isinstance(value, dict):
        log.debug("requestedSchema.properties is not an object: %r", value)
        return {}
    parsed: dict[str, Any] = {}
    for name, item in value.items():
        try:
            parsed[str(name)] = _PROPERTY.validate_python(item)
        except ValidationError as exc:
            log.debug("property %r kept as unknown (%s)", name, exc)
            parsed[str(name)] = _unknown(item)
    return parsed


class ElicitationSchema(WireModel):
    """The ``requestedSchema`` of a form: an object of primitive fields, some required."""

    type: Lenient[str] = "object"
    title: Lenient[str] = None
    description: Lenient[str] = None
    properties: Annotated[dict[str, Any], WrapValidator(_each_property)] = Field(
        default_factory=dict
    )
    """Field name -> its ``PropertySchema``, in the order the agent sent them."""
    required: Strings = None

    def fields(self) -> dict[str, PropertySchema]:
        """The properties, typed."""
        return dict(self.properties)
