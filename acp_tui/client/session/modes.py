"""Provides mode_config and mode_picker: which of a session's pickers is its mode, and its values.

The protocol's rule: a select config option of category ``mode`` is the session's mode, and
replaces the older ``modes`` (`session/set_mode`) when both are present. The options bar shows
that picker; Shift+Tab steps through its values (`acp_tui.client.workspace.prompt_queue`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp_tui.protocol.session_config import SessionConfigSelect

if TYPE_CHECKING:
    from acp_tui.client.session.transcript import Transcript

__all__ = ["ModePicker", "mode_config", "mode_picker"]


@dataclass(frozen=True, slots=True)
class ModePicker:
    """A session's modes: their values and names in the agent's order, and the current one."""

    config_id: str | None
    """The config option that holds the mode (None: the older ``modes``)."""
    values: tuple[str, ...]
    names: tuple[str, ...]
    current: str

    def after(self, value: str) -> str:
        """The mode after ``value``, wrapping around (the first one after an unknown value)."""
        if value not in self.values:
            return self.values[0]
        return self.values[(self.values.index(value) + 1) % len(self.values)]

    def name_of(self, value: str) -> str:
        return self.names[self.values.index(value)] if value in self.values else value


def mode_config(transcript: Transcript) -> SessionConfigSelect | None:
    """The select option of category "mode", which replaces the older modes when present."""
    for option in transcript.config_options:
        if isinstance(option, SessionConfigSelect) and option.category == "mode":
            return option
    return None


def mode_picker(transcript: Transcript) -> ModePicker | None:
    """The session's modes (None when it has fewer than two: nothing to step through)."""
    option = mode_config(transcript)
    if option is not None:
        flat = option.flat_options()
        values = tuple(o.value for o in flat)
        names = tuple(o.name for o in flat)
        picker = ModePicker(option.id, values, names, option.current_value)
    elif transcript.modes is not None:
        modes = transcript.modes.available_modes
        values = tuple(m.id for m in modes)
        names = tuple(m.name for m in modes)
        picker = ModePicker(None, values, names, transcript.modes.current_mode_id)
    else:
        return None
    return picker if len(picker.values) > 1 else None
