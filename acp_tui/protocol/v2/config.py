"""Provides v2 session config options: ``configId`` (v1: ``id``), select groups by ``groupId``.

Session modes do not exist in v2: a mode is a config option with ``category: "mode"``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.session_config import SessionConfigSelectOption
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union

__all__ = [
    "ConfigOptionList",
    "SessionConfigBoolean",
    "SessionConfigOption",
    "SessionConfigSelect",
    "SessionConfigSelectGroup",
    "SessionConfigSelectOption",
    "UnknownSessionConfigOption",
]


class SessionConfigSelectGroup(WireModel):
    """A named group of select values."""

    group_id: str
    name: str
    options: Annotated[SkipInvalid[SessionConfigSelectOption], lenient_factory(list)] = Field(
        default_factory=list
    )


class _ConfigOptionFields(TaggedModel):
    config_id: str
    name: str
    description: Lenient[str] = None
    category: Lenient[str] = None


class SessionConfigSelect(_ConfigOptionFields):
    """A config option choosing one value among ``options`` (flat or grouped)."""

    __wire_always__ = ("type",)
    type: Literal["select"] = "select"
    current_value: str
    options: list[SessionConfigSelectOption] | list[SessionConfigSelectGroup]


class SessionConfigBoolean(_ConfigOptionFields):
    """An on/off config option (baseline in v2: no client capability gates it)."""

    __wire_always__ = ("type",)
    type: Literal["boolean"] = "boolean"
    current_value: bool


class UnknownSessionConfigOption(_ConfigOptionFields):
    """A config option of a type this client does not know: kept, ignored by the UI."""

    type: str | None = None
    current_value: Any = None


SessionConfigOption = Annotated[
    Annotated[SessionConfigSelect, Tag("select")]
    | Annotated[SessionConfigBoolean, Tag("boolean")]
    | Annotated[UnknownSessionConfigOption, Tag(UNKNOWN)],
    open_union("type", {"select", "boolean"}),
]
"""A v2 session config option discriminated on ``type``."""

ConfigOptionList = Annotated[SkipInvalid[SessionConfigOption], lenient_factory(list)]
"""A complete, ordered list of config options with invalid items dropped."""
