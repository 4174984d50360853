"""Toasts never flood the screen: a few at a time, the rest counted in one (and literal text)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from acp_tui.ui.toasts import PlainToasts
from tests.app.helpers import wait_for


class Host(PlainToasts):
    def compose(self) -> ComposeResult:
        yield Static("chat")


def messages(app: PlainToasts) -> list[str]:
    return [n.message for n in app._notifications]


async def test_a_flood_of_notices_shows_a_few_and_counts_the_rest() -> None:
    app = Host()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert app.toast_limit() == 2  # a third of 24 rows, four rows a toast
        for n in range(2000):
            app.notify(f"notice {n}", severity="warning", timeout=0.3)
        await pilot.pause()
        assert messages(app) == ["notice 0", "notice 1"]
        assert len(app.screen.query("Toast")) <= 2
        await wait_for(pilot, lambda: any("more notices" in m for m in messages(app)), seconds=10)
        (summary,) = [n for n in app._notifications if "more notices" in n.message]
        assert summary.message == "1,998 more notices came meanwhile (not shown)."
        assert summary.severity == "warning"
        assert len(app._notifications) <= 2


async def test_toasts_take_at_most_a_third_of_the_screen() -> None:
    app = Host()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        for n in range(10):
            app.notify(f"notice {n}\nwith a second line", timeout=30)
        await pilot.pause()
        await pilot.pause()
        toasts = app.screen.query("Toast")
        assert toasts
        top = min(toast.region.y for toast in toasts)
        assert 24 - top <= 24 // 3 + 2  # the rows from the highest toast down (margin below)
