"""Provides session modes and session config options (select, boolean, unknown types)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, lenient_factory, open_union


class SessionMode(WireModel):
    """A mode the agent can operate in (deprecated in favour of config options)."""

    id: str
    name: str
    description: Lenient[str] = None


class SessionModeState(WireModel):
    """The current mode and the modes available in a session."""

    current_mode_id: str
    available_modes: Annotated[SkipInvalid[SessionMode], lenient_factory(list)] = Field(
        default_factory=list
    )


SessionConfigOptionCategory = str
"""``mode``, ``model``, ``model_config``, ``thought_level`` or any other (``_custom``) string."""


class SessionConfigSelectOption(WireModel):
    """One value of a select config option."""

    value: str
    name: str
    description: Lenient[str] = None


class SessionConfigSelectGroup(WireModel):
    """A named group of select values."""

    group: str
    name: str
    options: Annotated[SkipInvalid[SessionConfigSelectOption], lenient_factory(list)] = Field(
        default_factory=list
    )


class _ConfigOptionFields(TaggedModel):
    id: str
    name: str
    description: Lenient[str] = None
    category: Lenient[SessionConfigOptionCategory] = None


class SessionConfigSelect(_ConfigOptionFields):
    """A config option choosing one value among ``options`` (flat or grouped)."""

    __wire_always__ = ("type",)
    type: Literal["select"] = "select"
    current_value: str
    options: list[SessionConfigSelectOption] | list[SessionConfigSelectGroup]

    def flat_options(self) -> list[SessionConfigSelectOption]:
        """Every selectable value, groups flattened in order."""
        flat: list[SessionConfigSelectOption] = []
        for item in self.options:
            if isinstance(item, SessionConfigSelectGroup):
                flat.extend(item.options)
            else:
                flat.append(item)
        return flat


class SessionConfigBoolean(_ConfigOptionFields):
    """An on/off config option (only sent to clients advertising the capability)."""

    __wire_always__ = ("type",)
    type: Literal["boolean"] = "boolean"
    current_value: bool


class UnknownSessionConfigOption(_ConfigOptionFields):
    """A config option of a type this client does not know: kept, but to be ignored by the UI."""

    type: str | None = None
    current_value: Any = None


KNOWN_CONFIG_OPTION_TYPES = frozenset({"select", "boolean"})

SessionConfigOption = Annotated[
    Annotated[SessionConfigSelect, Tag("select")]
    | Annotated[SessionConfigBoolean, Tag("boolean")]
    | Annotated[UnknownSessionConfigOption, Tag(UNKNOWN)],
    open_union("type", KNOWN_CONFIG_OPTION_TYPES),
]
"""A session config option discriminated on ``type``; unknown types are kept as
``UnknownSessionConfigOption``."""

ConfigOptionList = Annotated[SkipInvalid[SessionConfigOption], lenient_factory(list)]
"""A complete, ordered list of config options with invalid items dropped."""
