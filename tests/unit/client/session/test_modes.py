"""Which picker is the session's mode, and the mode after the current one (Shift+Tab)."""

from __future__ import annotations

from acp_tui.client.session.modes import mode_picker
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.session_config import SessionConfigSelect, SessionModeState

MODES = SessionModeState.from_wire(
    {
        "currentModeId": "ask",
        "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}],
    }
)


def select(category: str | None, *values: str) -> SessionConfigSelect:
    return SessionConfigSelect.from_wire(
        {
            "id": category or "other",
            "name": "Pick",
            "type": "select",
            "category": category,
            "currentValue": values[0],
            "options": [
                {"group": "g", "name": "G", "options": [{"value": v, "name": v.upper()}]}
                for v in values
            ],
        }
    )


def test_the_older_modes_step_round() -> None:
    transcript = Transcript("s")
    transcript.set_modes(MODES)
    picker = mode_picker(transcript)
    assert picker is not None
    assert picker.config_id is None
    assert picker.after("ask") == "code"
    assert picker.after("code") == "ask"
    assert picker.after("gone") == "ask"
    assert picker.name_of("code") == "Code"


def test_a_mode_config_option_wins_over_the_older_modes_groups_flattened() -> None:
    transcript = Transcript("s")
    transcript.set_modes(MODES)
    transcript.set_config_options([select("model", "a", "b"), select("mode", "x", "y", "z")])
    picker = mode_picker(transcript)
    assert picker is not None
    assert (picker.config_id, picker.values, picker.current) == ("mode", ("x", "y", "z"), "x")
    assert picker.name_of("z") == "Z"


def test_nothing_to_step_through() -> None:
    transcript = Transcript("s")
    assert mode_picker(transcript) is None
    transcript.set_config_options([select("mode", "only")])
    assert mode_picker(transcript) is None
