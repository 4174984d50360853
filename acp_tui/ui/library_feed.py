"""Provides history_library: the history library for the app, fed by the Workspace's recording.

It opens after the first frame, from a thread (importing SQLite is not free), and builds or
catches up on a thread of its own (``acp_tui.store.library``), so neither delays a frame or a
key. From then on the transcript cache tells it of every recorded line, and new turns are
indexed as they are recorded. Its notices (a damaged index moved aside, a full disk) become
toasts, once each. The browser and the search that read it come with the Workspace's new shape.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from acp_tui.client.agent.launch import LaunchSpec
    from acp_tui.config.paths import Paths
    from acp_tui.store.library import Library
    from acp_tui.store.transcripts import TranscriptCache

__all__ = ["history_library"]

log = logging.getLogger(__name__)


@asynccontextmanager
async def history_library(
    app: App[Any], cache: TranscriptCache, paths: Paths, launch: LaunchSpec
) -> AsyncIterator[Library]:
    """The library, started and fed by ``cache`` for the block (enter it before the Workspace,
    so that it sees everything recorded, and it closes after)."""
    loop = asyncio.get_running_loop()

    def notice(text: str) -> None:  # on the library's thread
        def show() -> None:
            app.notify(text, title="History", severity="warning", timeout=15, markup=False)

        try:
            loop.call_soon_threadsafe(show)
        except RuntimeError:  # the app has gone
            log.debug("a history notice after the app closed: %s", text)

    def start() -> Library:
        from acp_tui.client.history.agent_names import configured_agent_keys
        from acp_tui.store.library import Library

        library = Library.under(paths.data_dir, on_notice=notice)
        library.start()
        library.name_agents(configured_agent_keys(launch.settings, paths, launch.cwd))
        return library

    library = await asyncio.to_thread(start)
    cache.library = library
    try:
        yield library
    finally:
        cache.library = None
        await asyncio.shield(asyncio.to_thread(library.close))
