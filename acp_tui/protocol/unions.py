"""Provides helpers for open tagged unions, always-serialised tag fields and lenient factories.

* ``TaggedModel``: a ``WireModel`` whose ``__wire_always__`` fields (discriminators such as
  ``type`` or ``sessionUpdate``, and required-on-the-wire lists with defaults) are always
  serialised by ``to_wire()`` even when the Python caller relied on their defaults.
* ``open_union(key, known)``: a pydantic ``Discriminator`` that routes values whose tag is one of
  ``known`` to the variant tagged with that value and everything else to the variant tagged
  ``UNKNOWN`` (so unknown kinds are kept instead of failing the message).
* ``lenient_factory(factory)``: like ``base.lenient(default)`` but builds a fresh default on each
  error (for mutable defaults such as lists or sub-models).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from typing import Any, ClassVar

from pydantic import (
    Discriminator,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)

from acp_tui.protocol.base import WireModel

log = logging.getLogger(__name__)

UNKNOWN = "__unknown__"
"""The tag of the fallback variant of an open union."""


class TaggedModel(WireModel):
    """A wire model whose ``__wire_always__`` fields are always serialised by ``to_wire()``."""

    __wire_always__: ClassVar[tuple[str, ...]] = ()

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        if self.__wire_always__:
            self.__pydantic_fields_set__.update(self.__wire_always__)


def _tag_getter(wire_key: str, attribute: str, known: frozenset[str]) -> Callable[[Any], str]:
    def tag_of(value: Any) -> str:
        if isinstance(value, dict):
            tag = value.get(wire_key, value.get(attribute))
        else:
            tag = getattr(value, attribute, None)
        return tag if isinstance(tag, str) and tag in known else UNKNOWN

    return tag_of


def open_union(
    wire_key: str, known: Collection[str], attribute: str | None = None
) -> Discriminator:
    """A discriminator on ``wire_key`` (Python ``attribute``) with an ``UNKNOWN`` fallback tag."""
    return Discriminator(_tag_getter(wire_key, attribute or wire_key, frozenset(known)))


def lenient_factory(factory: Callable[[], Any]) -> WrapValidator:
    """Annotated marker: on a validation error, use a fresh ``factory()`` value instead."""

    def validate(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        try:
            return handler(value)
        except ValidationError as exc:
            log.debug("lenient field %s: %r replaced by default (%s)", info.field_name, value, exc)
            return factory()

    return WrapValidator(validate)
