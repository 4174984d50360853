"""Provides the parts of a chat pane below its status line and above its prompt, by kind.

Before the first frame the first pane holds a `StandIn` of each kind (`acp_tui.ui.startup`):
the transcript and the options bar need the core, and the find bar, the queue and the context
bar are hidden while empty. `new_view` makes the widget of a kind, for a stand-in or a new pane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

if TYPE_CHECKING:
    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.ui.startup import Core

__all__ = ["PANE_VIEWS", "PLACEHOLDER", "empty_hint", "new_view"]

PANE_VIEWS = ("transcript", "options", "find", "queue", "context")
"""The kinds, in their order in the pane."""

PLACEHOLDER = "Message the agent · Enter sends · Ctrl+J new line · / commands · @ files"
"""What the empty prompt says (its stand-in in the first frame too)."""


def empty_hint(launch: LaunchSpec) -> tuple[str, ...]:
    """What an empty chat suggests trying (with the demo agent, its keywords)."""
    hint = (
        "Nothing here yet. Type a message below and press Enter; / lists the commands, "
        "Ctrl+B your sessions, Ctrl+P everything else.",
    )
    if launch.is_demo or "acp_tui.demo_agent" in launch.command.argv:
        return (
            *hint,
            "This is the demo agent: try /help, or a message with a keyword in it: "
            "plan, markdown, diff, permission, terminal, ask, think.",
        )
    return hint


def new_view(kind: str, core: Core | None, launch: LaunchSpec) -> Widget:
    """The widget of ``kind`` (the transcript and the options bar need the core). The
    modules of the find bar, the queue and the context bar are imported here, after the
    first frame, which does without them."""
    from acp_tui.ui.widgets.context_bar import ContextBar
    from acp_tui.ui.widgets.find_bar import FindBar
    from acp_tui.ui.widgets.queue_view import QueueView

    if kind == "find":
        return FindBar(id="find")
    if kind == "queue":
        return QueueView(id="queue")
    if kind == "context":
        return ContextBar(id="context")
    assert core is not None
    if kind == "transcript":
        view = core.transcript_view(id="transcript")
        view.show_thoughts = launch.settings.show_thoughts
        view.lines.markdown = launch.settings.markdown
        view.empty_hint = empty_hint(launch)
        return view
    return core.session_options(id="session-options")
