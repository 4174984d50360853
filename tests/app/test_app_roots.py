"""Extra roots at the app level: the startup gate, Ctrl+N, and an agent refusing roots."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button

from acp_tui.protocol.jsonrpc import ErrorCode, RpcError
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.roots import RootsDialog
from tests.app.helpers import wait_for, wait_for_screen


def extra_root(tmp_path: Path) -> Path:
    root = tmp_path / "shared-lib"
    root.mkdir()
    return root


async def press_button(pilot: Pilot[int], app: AcpApp, button_id: str) -> None:
    await wait_for(
        pilot, lambda: isinstance(app.screen, RootsDialog) and bool(app.screen.query(button_id))
    )
    app.screen.query_one(button_id, Button).press()


async def test_agent_without_extra_roots_asks_and_can_go_on_without(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app("--capabilities", "list,load,resume", additional=(extra_root(tmp_path),))
    async with app.run_test(size=(120, 40)) as pilot:
        await press_button(pilot, app, "#roots-without")
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        assert app.session.additional_directories == ()


async def test_cancelling_leaves_the_app_up_without_a_session(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app("--capabilities", "list,load,resume", additional=(extra_root(tmp_path),))
    async with app.run_test(size=(120, 40)) as pilot:
        await press_button(pilot, app, "#roots-cancel")
        await wait_for(pilot, lambda: "no session" in app.chat.agent_status)
        assert app.session is None
        assert app.agent_alive
        assert app.workspace is not None
        assert app.slot is not None
        # kept, and the session tried again
        queued = app.workspace.prompts.submit(app.slot, "hello")
        assert queued is not None
        assert [p.text for p in app.slot.queue] == ["hello"]
        await wait_for_screen(pilot, RootsDialog)


async def test_supported_roots_are_sent_and_remembered(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    root = extra_root(tmp_path)
    app = make_app(additional=(root,))
    sent: list[dict[str, Any]] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert app.session is not None
        assert app.session.additional_directories == (root,)
        assert app.client is not None
        app.client.connection.tracer = lambda d, m: sent.append(m) if d == "send" else None
        first = app.session
        await pilot.press("ctrl+n")
        await press_button(pilot, app, "#roots-ok")
        await wait_for(pilot, lambda: app.session is not first)
    [new] = [m for m in sent if m.get("method") == "session/new"]
    assert new["params"]["additionalDirectories"] == [str(root)]


async def test_an_agent_refusing_the_roots_is_named_with_its_message(
    make_app: Callable[..., AcpApp], tmp_path: Path
) -> None:
    app = make_app()
    root = extra_root(tmp_path)
    said: list[str] = []
    app.notify = lambda message, **kw: said.append(message)  # type: ignore[method-assign,assignment]
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        client = app.client
        assert client is not None

        async def refuse(cwd: Path, roots: Any = ()) -> Any:
            raise RpcError(ErrorCode.INVALID_PARAMS, "roots outside the sandbox")

        client.new_session = refuse  # type: ignore[method-assign]
        before = app.session
        assert app.workspace is not None
        assert app.slot is not None
        app.workspace.open_new(app.slot.agent, app.launch.cwd, (root,))
        await wait_for(pilot, lambda: any("refused the extra roots" in m for m in said))
        await wait_for(pilot, lambda: len(app.workspace.slots) == 1)  # type: ignore[union-attr]
        assert app.session is before
        assert any("refused the extra roots: roots outside the sandbox" in m for m in said)
