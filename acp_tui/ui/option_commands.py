"""Provides choose_option: ``/model`` and ``/mode``, the options bar's pickers from the prompt.

Without an argument the picker opens (the options bar's, focused and expanded); with one, the
choice it names is set as a pick in the bar would set it: by its value or its name, whole
(any case), else the one choice whose name or value contains it. Several or none: said, with
the choices. The model is the config option of category ``model``; the mode is the one of
category ``mode``, else the agent's legacy modes (the protocol's rule, as in the bar).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Select

from acp_tui.client.session.modes import mode_config
from acp_tui.protocol.session_config import SessionConfigSelect
from acp_tui.ui.plain_text import NAME_LIMIT, sanitize
from acp_tui.ui.widgets.session_options import MODE_KEY, config_key, pickers_for

if TYPE_CHECKING:
    from acp_tui.client.session.transcript import Transcript
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.ui.app_state import AppState

__all__ = ["choose_option", "matching", "option_for"]

SHOWN = 8
"""How many choices a message lists."""


def option_for(transcript: Transcript, category: str) -> tuple[str, str | None] | None:
    """The picker's key and the config option's id (None: legacy modes) for ``category``."""
    if category == "mode":
        mode = mode_config(transcript)
        if mode is not None:
            return config_key(mode.id), mode.id
        return (MODE_KEY, None) if transcript.modes is not None else None
    for option in transcript.config_options:
        if isinstance(option, SessionConfigSelect) and option.category == category:
            return config_key(option.id), option.id
    return None


def matching(choices: tuple[tuple[str, str], ...], wanted: str) -> list[tuple[str, str]]:
    """The ``(name, value)`` choices ``wanted`` names: the whole name or value first."""
    needle = wanted.casefold()
    whole = [c for c in choices if needle in (c[0].casefold(), c[1].casefold())]
    if whole:
        return whole[:1]
    return [c for c in choices if needle in c[0].casefold() or needle in c[1].casefold()]


def choose_option(
    app: AppState, ws: Workspace, slot: SessionSlot, category: str, argument: str
) -> None:
    """``/model [NAME]`` or ``/mode [NAME]`` in ``slot``'s tab (see the module docstring)."""
    transcript = slot.transcript
    found = option_for(transcript, category)
    picker = None
    if found is not None:
        picker = next((p for p in pickers_for(transcript) if p.key == found[0]), None)
    agent = sanitize(slot.agent.display_name, NAME_LIMIT)
    if found is None or picker is None or not picker.choices:
        app.notify(f"{agent} offers no {category} to choose in this session.", markup=False)
        return
    key, config_id = found
    if not argument:
        open_picker(app, slot, key)
        return
    chosen = matching(picker.choices, argument)
    if len(chosen) == 1:
        name, value = chosen[0]
        ws.prompts.set_option(slot, config_id, value)
        app.notify(f"{category.capitalize()}: {sanitize(name, NAME_LIMIT)}", markup=False)
        return
    listed = chosen or list(picker.choices)
    names = ", ".join(sanitize(name, NAME_LIMIT) for name, _ in listed[:SHOWN])
    more = " …" if len(listed) > SHOWN else ""
    if not chosen and picker.left_out:  # past the cap on one option: not kept, not choosable
        more += f" (and {picker.left_out:,} more from the agent, not kept)"
    why = "matches several" if chosen else f"names no {category}"
    app.notify(
        f"{sanitize(argument, NAME_LIMIT)} {why}: {names}{more}", severity="warning", markup=False
    )


def open_picker(app: AppState, slot: SessionSlot, key: str) -> None:
    """Focus the tab's picker and open its list."""
    pane = app.chat_screen.pane_of(slot)
    bar = pane.session_options if pane is not None else None
    selects = bar.query(Select).results(Select) if bar is not None else iter(())
    select = next((s for s in selects if s.name == key), None)
    if select is None:
        app.notify("The options bar is still loading.", severity="warning")
        return
    select.focus()
    select.expanded = True
