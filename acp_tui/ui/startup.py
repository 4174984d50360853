"""Provides what the first frame defers, in one place: the core's import and the stand-ins.

The first frame shows the status line, a stand-in of the prompt and the footer; the prompt
itself (the editor and its completion) replaces it just after the frame, and the keys typed
before that are given to it then. The transcript view, the options bar, the session browser
and the Workspace need the protocol models, which take longer to import than Textual itself,
so:

* the command line calls `pause_collection` (startup allocates mostly long-lived objects, and
  collecting among them is wasted work);
* widgets that are not there yet are `StandIn`\\ s, styled like the empty views;
* after the first frame `Startup.load` imports the core in a thread, resumes the collector
  (freezing what startup made), and every stand-in is replaced by its view.

Nothing else in the UI knows about this: the chat builds its panes from `Startup.core` once it
is loaded, and with stand-ins before.
"""

from __future__ import annotations

import asyncio
import gc
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.widgets import Static

from acp_tui.ui.memory import settle_memory, tune_collector

if TYPE_CHECKING:
    from acp_tui.client.workspace.agent_runtime import Connect
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.ui.browser.panel import SessionBrowser
    from acp_tui.ui.transcript.view import TranscriptView
    from acp_tui.ui.widgets.session_options import SessionOptions
    from acp_tui.ui.widgets.session_tabs import SessionTabs

__all__ = ["Core", "StandIn", "Startup", "pause_collection"]


@dataclass(frozen=True, slots=True)
class Core:
    """The classes that arrive after the first frame."""

    workspace: type[Workspace]
    connect: Connect
    """How the Workspace reaches an agent: it starts the agent's process."""
    transcript_view: type[TranscriptView]
    session_options: type[SessionOptions]
    session_browser: type[SessionBrowser]
    session_tabs: type[SessionTabs]


def _import_core() -> Core:
    """Import the core (in a worker thread)."""
    from acp_tui.client.agent.agent_client import connect
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.ui.browser.panel import SessionBrowser
    from acp_tui.ui.transcript.view import TranscriptView
    from acp_tui.ui.widgets.session_options import SessionOptions
    from acp_tui.ui.widgets.session_tabs import SessionTabs

    return Core(Workspace, connect, TranscriptView, SessionOptions, SessionBrowser, SessionTabs)


def pause_collection() -> None:
    """Hold the cyclic collector off while the app starts (until `Startup.load` is done)."""
    gc.disable()


class Startup:
    """Loads the core once, after the first frame; ``ready`` is set when it is in."""

    def __init__(self) -> None:
        self.core: Core | None = None
        self.ready = asyncio.Event()

    async def load(self) -> Core:
        """Import the core in a thread (typing goes on meanwhile); idempotent."""
        if self.core is None:
            self.core = await asyncio.to_thread(_import_core)
        return self.core

    def done(self) -> None:
        """Startup is over: freeze what it made and let the collector run again."""
        if not self.ready.is_set():
            settle_memory()
            tune_collector()
            gc.enable()
            self.ready.set()


class StandIn(Static):
    """Holds the place of a view that is not imported yet, looking like it does empty."""

    DEFAULT_CSS = """
    StandIn.-transcript { height: 1fr; background: $surface; }
    StandIn.-options { height: 1; background: $panel; }
    StandIn.-tabs { display: none; }
    StandIn.-find { display: none; }
    StandIn.-queue { display: none; }
    StandIn.-context { display: none; }
    StandIn.-prompt {
        height: 3;
        border: tall $border;
        padding: 0 1;
        background: $surface;
        color: $text 40%;
    }
    """

    def __init__(self, kind: str, text: str = "") -> None:
        super().__init__(text, classes=f"stand-in -{kind}", markup=False)
        self.kind = kind


async def replace_stand_in(stand_in: StandIn, view: Widget) -> None:
    """Put ``view`` where ``stand_in`` is."""
    parent = stand_in.parent
    assert isinstance(parent, Widget)
    await parent.mount(view, before=stand_in)
    await stand_in.remove()
