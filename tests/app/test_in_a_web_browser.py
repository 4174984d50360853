"""The app in a web browser (`acp-tui serve`): what needs a real terminal says so.

Under Textual's web driver ``app.is_web`` is true: a link is opened by the page (in the user's
browser, not one on the server), and a terminal login, which would suspend the app to give the
terminal away, is refused with the reason in the transcript instead of failing obscurely. The
page itself is tested in a real browser in ``tests/browser``.
"""

from __future__ import annotations

import webbrowser
from collections.abc import Callable

import pytest

from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.elicitation import ElicitationDialog
from acp_tui.ui.dialogs.elicitation_url import ElicitationUrlDialog
from tests.app.helpers import wait_for, wait_for_screen
from tests.app.test_app_auth_restart import choose_auth
from tests.app.test_app_smoke import screen_text


@pytest.fixture(autouse=True)
def in_a_web_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app believes it runs under the web driver, and no browser of this machine opens."""
    monkeypatch.setattr(AcpApp, "is_web", property(lambda self: True))

    def no_local_browser(*args: object, **kwargs: object) -> webbrowser.BaseBrowser:
        raise AssertionError("a browser on the server was asked for")

    monkeypatch.setattr(webbrowser, "get", no_local_browser)
    monkeypatch.setattr(ElicitationDialog, "QUIET", 0.0)


async def test_a_link_is_opened_by_the_page_in_a_new_tab(
    make_app: Callable[..., AcpApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    opened: list[tuple[str, bool]] = []
    monkeypatch.setattr(app, "open_url", lambda url, new_tab=True: opened.append((url, new_tab)))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"ask-url never https://example.com/done", "enter")
        dialog = await wait_for_screen(pilot, ElicitationUrlDialog)
        await wait_for(pilot, lambda: dialog.accepting)
        await pilot.press("o")
        await wait_for(pilot, lambda: bool(opened))
        assert opened == [("https://example.com/done", True)]


async def test_a_terminal_login_is_refused_with_the_reason(
    make_app: Callable[..., AcpApp],
) -> None:
    """No suspend under the web driver: the user reads why, and the app carries on."""
    app = make_app("--require-auth", "--auth-on", "session/prompt")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"hello", "enter")
        await choose_auth(pilot, app, "Log in from the terminal")

        def said() -> str:
            return " ".join(screen_text(app).split())  # the transcript wraps long lines

        await wait_for(pilot, lambda: "this acp-tui runs in a web browser" in said())
        assert "Could not run the login Log in from the terminal" in said()
        assert app.is_running
