"""Provides the base class and leniency helpers shared by every ACP wire model.

Wire models speak camelCase on the wire, keep `_meta` and unknown fields, and honour the
schema's leniency markers:

* ``x-deserialize-default-on-error``: a malformed value becomes the field's default instead of
  failing the whole message (``Lenient[T]`` for optional fields defaulting to ``None``, or
  ``lenient(default)`` for others);
* ``x-deserialize-skip-invalid-items``: invalid array items are dropped (``SkipInvalid[T]``).
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic.alias_generators import to_camel

log = logging.getLogger(__name__)

T = TypeVar("T")

JsonObject = dict[str, Any]


def _default_on_error(default: Any) -> WrapValidator:
    def validate(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        try:
            return handler(value)
        except ValidationError as exc:
            log.debug("lenient field %s: %r replaced by default (%s)", info.field_name, value, exc)
            return default

    return WrapValidator(validate)


def lenient(default: Any) -> WrapValidator:
    """Annotated marker: on a validation error, use ``default`` instead of failing the message."""
    return _default_on_error(default)


Lenient = Annotated[T | None, _default_on_error(None)]
"""An optional field whose malformed value becomes ``None`` (x-deserialize-default-on-error)."""


def _skip_invalid_items(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if not isinstance(value, list):
        return handler(value)
    try:  # the whole list in one call (most are valid): an item at a time cost 5 times more
        return handler(value)
    except ValidationError:
        pass
    kept: list[Any] = []
    for item in value:
        try:
            kept.extend(handler([item]))
        except ValidationError as exc:
            log.debug("skipping invalid item %r (%s)", item, exc)
    return kept


SkipInvalid = Annotated[list[T], WrapValidator(_skip_invalid_items)]
"""A list whose invalid items are dropped (x-deserialize-skip-invalid-items)."""


class WireModel(BaseModel):
    """Base of every wire model: camelCase aliases, `_meta` kept, unknown fields kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        extra="allow",
        serialize_by_alias=True,
        validate_by_name=True,
        validate_by_alias=True,
        # Schemas are built on first use, not at import: the app paints its first frame
        # before the agent's first message needs them.
        defer_build=True,
    )

    meta: Annotated[dict[str, Any] | None, _default_on_error(None)] = Field(
        default=None, alias="_meta"
    )

    def to_wire(self) -> JsonObject:
        """Serialise for the wire: aliases, only the fields that were set, explicit nulls kept."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    @classmethod
    def from_wire(cls: type[_M], data: Any) -> _M:
        """Parse a wire value; `null` counts as an empty object (a documented real-agent quirk)."""
        return cls.model_validate({} if data is None else data)


_M = TypeVar("_M", bound=WireModel)
