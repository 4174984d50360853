"""`--continue` and `--session ID`: a launch reopens an earlier session with its history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from acp_tui.client.session.entries import MessageEntry, NoticeEntry
from acp_tui.ui.app import AcpApp
from tests.app.helpers import wait_for

SIZE = (120, 36)
PROTOCOLS = pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])


def texts(app: AcpApp, role: str) -> list[str]:
    if app.session is None:
        return []
    return [
        e.text
        for e in app.session.transcript.entries
        if isinstance(e, MessageEntry) and e.role == role
    ]


async def chat_once(app: AcpApp, words: str) -> str:
    """Send ``words`` in a fresh session; its id."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*words, "enter")
        await wait_for(pilot, lambda: bool(texts(app, "agent")) and not app.slot.busy)  # type: ignore[union-attr]
        assert app.session is not None
        return app.session.session_id


@PROTOCOLS
async def test_continue_reopens_the_projects_last_session_with_its_history(
    make_app: Callable[..., AcpApp], protocol: int
) -> None:
    await chat_once(make_app(protocol=protocol), "older words")
    last = await chat_once(make_app(protocol=protocol), "newer words")
    app = make_app(protocol=protocol)
    app = AcpApp(replace(app.launch, continue_last=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "newer words" in texts(app, "user"), seconds=20)
        assert app.session is not None
        assert app.session.session_id == last
        assert texts(app, "user") == ["newer words"]  # shown once
        assert app.workspace is not None
        assert len(app.workspace.slots) == 1


async def test_session_id_reopens_that_session(make_app: Callable[..., AcpApp]) -> None:
    first = await chat_once(make_app(), "the first one")
    await chat_once(make_app(), "the second one")
    base = make_app()
    app = AcpApp(replace(base.launch, session_id=first))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "the first one" in texts(app, "user"), seconds=20)
        assert app.session is not None
        assert app.session.session_id == first


async def test_continue_with_nothing_to_continue_starts_a_new_session_and_says_so(
    make_app: Callable[..., AcpApp],
) -> None:
    base = make_app()
    app = AcpApp(replace(base.launch, continue_last=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.slot is not None
        notices = [e.text for e in app.slot.transcript.entries if isinstance(e, NoticeEntry)]
        assert any("No earlier session in this folder" in n for n in notices)
