"""Provides reload_config: the config file read again (Ctrl+R, Ctrl+N, ``/reload``), and said.

The Workspace applies what concerns the agents (`acp_tui.client.workspace.config_reload`);
here the app applies what concerns the screen (the theme, whether thoughts show) and says what
happened. A file that cannot be used is always said, with each problem's file and key, and the
running config stays. ``/reload`` also says what changed, or that nothing did, in the tab's
transcript, where it stays; Ctrl+R and Ctrl+N say it in passing, only when something changed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.client.workspace.config_reload import ReloadReport
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.config.settings import Settings
    from acp_tui.ui.app_state import AppState

__all__ = ["reload_config"]


def reload_config(
    app: AppState, ws: Workspace, slot: SessionSlot | None = None, *, asked: bool = False
) -> ReloadReport:
    """Read the config file again and apply it; ``asked`` (``/reload``): the report goes to
    ``slot``'s transcript even when nothing changed."""
    before = ws.config.settings
    report = ws.config.reload()
    text = "\n".join(report.lines())
    if report.problems:
        app.notify(text, title="Config file problems", severity="warning", timeout=30, markup=False)
    else:
        apply_to_screen(app, before, ws.config.settings)
        if report.changed and not asked:
            app.notify(text, title="Config read again", timeout=15, markup=False)
    if asked and slot is not None:
        slot.transcript.add_notice(text, "warning" if report.problems else "info", hint=True)
    return report


def apply_to_screen(app: AppState, before: Settings, after: Settings) -> None:
    """What the screen shows by the settings: the theme, and the thoughts (a changed
    ``show_thoughts`` applies to every tab; Ctrl+T still toggles them)."""
    launch = replace(app.launch, settings=after)
    app.launch = app.chat_screen.launch = launch  # the settings of the tabs opened from now on
    for pane in app.chat_screen.panes.values():
        pane.launch = launch
    if after.theme != before.theme:
        if after.theme in app.available_themes:
            app.saved_theme = after.theme  # it is in the file already
            app.theme = after.theme
        else:
            app.notify(
                f"No theme named {after.theme!r}: the theme stays {app.theme}.",
                severity="warning",
                markup=False,
            )
    if after.show_thoughts != before.show_thoughts:
        for pane in app.chat_screen.panes.values():
            view = pane.transcript_view
            if view is not None:
                view.show_thoughts = after.show_thoughts
