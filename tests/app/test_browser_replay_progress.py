"""Replaying a long session from the browser shows its progress while the history arrives."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tui.client.history.session_text import display_title
from acp_tui.ui.app import AcpApp
from tests.app.helpers import wait_for
from tests.app.test_browser import SIZE, browser, highlight, open_browser
from tests.perf.gen_demo_data import write_history

COUNT = re.compile(r"… (\d+) updates$")


@dataclass(frozen=True)
class Seen:
    """A status the browser showed, and the state of the replay at that moment."""

    text: str
    loaded: bool
    """The load had ended: the session was open in the chat."""
    entries: int
    """The replayed session's transcript entries so far."""


async def test_replay_counts_the_updates_before_the_load_ends(
    make_app: Callable[..., AcpApp], tmp_path: Path, project: Path
) -> None:
    session_id = write_history(tmp_path / "demo", project, 300)  # ~16,000 updates
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_browser(pilot, app)
        panel = browser(app)
        label = display_title(panel.lister.rows[session_id])
        seen: list[Seen] = []
        original = panel.set_status

        def spy(text: str, level: Any = "info") -> None:
            session = app.session
            live = app.client.sessions.get(session_id) if app.client is not None else None
            seen.append(
                Seen(
                    text,
                    loaded=session is not None and session.session_id == session_id,
                    entries=len(live.transcript.entries) if live is not None else 0,
                )
            )
            original(text, level)

        panel.set_status = spy  # type: ignore[method-assign]
        await highlight(pilot, app, session_id)
        await pilot.press("enter")
        # The replay of ~16,000 updates costs the app 1.8 s of CPU; with two suites beside it
        # (load 9-12 on 2 cores) it gets a fifth of a core or less, and took 13-16 s of wall
        # time: the default 15 s timed out there (2 runs of 5).
        await wait_for(pilot, lambda: any(s.text.startswith("Opened") for s in seen), seconds=60)
        session = app.session
        assert session is not None
        assert session.session_id == session_id
        assert len(session.transcript.entries) == 900  # message, reply, tool call a turn

    progress = [s for s in seen if COUNT.search(s.text)]
    assert len(progress) >= 2, seen[:5]
    assert all(s.text.startswith(f"Replaying {label}… ") for s in progress)
    assert not any(s.loaded for s in progress)  # every count was shown before the load ended
    counts = [int(m.group(1)) for s in progress if (m := COUNT.search(s.text))]
    assert counts == sorted(counts)
    assert counts[0] < counts[-1]
    entries = [s.entries for s in progress]
    assert entries == sorted(entries)
    assert entries[0] < entries[-1]  # the transcript grew meanwhile
    assert [s.text.startswith("Opened") for s in seen].index(True) == len(seen) - 1
