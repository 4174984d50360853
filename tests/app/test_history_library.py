"""The app feeds the history library: what is said in a chat is searchable moments later."""

from __future__ import annotations

from collections.abc import Callable

from acp_tui.client.history.recorder import agent_key_for
from acp_tui.store.library import Filters
from acp_tui.ui.app import AcpApp
from tests.app.helpers import wait_for


async def test_a_turn_is_indexed_as_it_is_recorded(make_app: Callable[..., AcpApp]) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.workspace is not None
        library = app.workspace.cache.library
        assert library is not None
        await pilot.press(*"remember the lighthouse", "enter")

        def indexed() -> bool:
            hits = library.search("you said").hits  # type: ignore[union-attr]
            return any(hit.kind == "reply" for hit in hits)

        await wait_for(pilot, indexed, seconds=30)
        hit = library.search("you said", Filters(cwd=str(app.launch.cwd))).hits[0]
        path = app.workspace.cache.transcript_path(hit.row.agent_key, hit.row.session_id)
        lines = path.read_text(encoding="utf-8").splitlines()
        first_reply = next(i for i, line in enumerate(lines) if "You said" in line)
        assert (hit.line, hit.turn) == (first_reply, 1)  # where the reply starts, in turn 1
        assert hit.row.title == "remember the lighthouse"
        assert hit.row.agent_key == agent_key_for(app.launch)
        assert hit.row.session_id == app.session.session_id  # type: ignore[union-attr]
    assert library.status.state == "closed"
    assert app.workspace.cache.library is None
