"""No agent string is ever interpreted: one table of hostile strings, fed to every surface.

The demo agent's ``--hostile NAME`` replaces every string a client shows with
``HOSTILE_TEXTS[NAME]`` (markup with ``@click`` actions, unbalanced markup, OSC 52 and OSC 0, CSI
and C1 escapes, a bidi override, NUL, a lone surrogate, a very long string). For each one the app
must not crash (``[/]`` is a MarkupError if parsed), run no action (a click on the text must not
quit, take a screenshot or answer a permission request), send no raw control character to the
screen, and show the literal text with its controls made visible.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, OptionList, Static

from acp_tui.client.agent.wire_log import WireRecord
from acp_tui.client.errors import AgentError
from acp_tui.client.safe_text import one_line, sanitize
from acp_tui.client.workspace.events import Notice
from acp_tui.demo_agent.hostile import HOSTILE_TEXTS
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.methods import SessionInfo
from acp_tui.ui.app import AcpApp
from acp_tui.ui.browser.rows import row_content
from acp_tui.ui.dialogs.auth import AuthDialog
from acp_tui.ui.dialogs.elicitation import ElicitationDialog
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormDialog
from acp_tui.ui.dialogs.permission import PermissionDialog
from acp_tui.ui.dialogs.roots import RootsDialog
from acp_tui.ui.toasts import PlainToasts
from acp_tui.ui.widgets.completion import CompletionList
from acp_tui.ui.widgets.form_fields import FieldRow
from acp_tui.ui.wire_inspector import WireInspector
from tests.app.helpers import wait_for, wait_for_screen

NAMES = sorted(HOSTILE_TEXTS)
HOSTILE = pytest.mark.parametrize("name", NAMES)

RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What must never reach the screen: control characters, bidi controls, lone surrogates."""


def screen_text(app: App[Any]) -> str:
    """The text of every cell on the screen (dialogs and what is behind them), line by line."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    lines = update.strips  # type: ignore[attr-defined]
    return "\n".join(
        "".join(segment.text for strip in line for segment in strip if not segment.control)
        for line in lines
    )


def region_text(app: App[Any], widget: Widget) -> str:
    """The lines of the screen that ``widget`` covers (the whole width)."""
    region = widget.region
    return "\n".join(screen_text(app).splitlines()[region.y : region.bottom])


def marker(text: str, length: int = 16) -> str:
    """The start of ``text`` as it must appear on the screen (its controls made visible)."""
    return sanitize(text)[:length].strip()


def assert_shown_safely(app: App[Any], text: str, length: int = 16) -> None:
    shown = screen_text(app)
    raw = RAW.search(shown)
    assert raw is None, f"{raw.group()!r} reached the screen" if raw else ""
    assert marker(text, length) in shown


def plain(value: object) -> str:
    """The text of a label, prompt or widget content, however it is held."""
    if isinstance(value, Content | Text):
        return value.plain
    if isinstance(value, Static):
        return plain(value.content)
    return str(value)


def labels(widgets: Iterable[Widget]) -> list[str]:
    return [plain(w.label) for w in widgets if isinstance(w, Button)]


@pytest.fixture
def screenshots(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Every screenshot the app was asked to take (none may be)."""
    taken: list[tuple[Any, ...]] = []

    def record(self: App[Any], *args: Any, **kwargs: Any) -> None:
        taken.append(args)

    monkeypatch.setattr(App, "deliver_screenshot", record)
    return taken


async def click_label(pilot: Pilot[Any], widget: Widget) -> None:
    """Click in the middle of ``widget``'s first line: where a centred label's text is."""
    await pilot.click(widget, offset=(widget.size.width // 2, 0))


# -- live: the demo agent sends the hostile strings --------------------------------------------


@HOSTILE
async def test_hostile_agent_strings_are_shown_literally_on_every_surface(
    make_app: Callable[..., AcpApp],
    name: str,
    screenshots: list[tuple[Any, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = HOSTILE_TEXTS[name]
    visible = sanitize(text)[:40]  # long names are clipped, never shorter than this
    app = make_app("--hostile", name, "--require-auth", "--capabilities", "list,load,resume")
    monkeypatch.setattr(PermissionDialog, "QUIET", 0.0)
    monkeypatch.setattr(AuthDialog, "QUIET", 0.0)
    async with app.run_test(size=(200, 60), tooltips=True, notifications=True) as pilot:
        # The auth dialog: the agent's name, its error message, the methods' names.
        auth = await wait_for_screen(pilot, AuthDialog)
        assert_shown_safely(app, text)
        assert all(visible in label for label in labels(auth.query(Button)))
        await click_label(pilot, auth.query(Button).first())
        await wait_for(pilot, lambda: app.session is not None)
        assert app.is_running

        # The status line: the agent's title first.
        status = app.chat.query_one("#status", Static)
        assert plain(status).startswith(visible)
        await pilot.click(status, offset=(2, 0))
        assert_shown_safely(app, text)

        # Slash commands: names, descriptions and hints.
        await pilot.press("/")
        completion = app.chat.query_one(CompletionList)
        await wait_for(pilot, lambda: completion.is_open and completion.option_count > 1)
        prompts = [plain(completion.get_option_at_index(i).prompt) for i in range(2)]
        assert all(visible in prompt for prompt in prompts)
        assert_shown_safely(app, text)
        await pilot.press("escape", "backspace")

        # A turn: tool call titles and locations, a plan, the permission dialog's options.
        assert app.client is not None
        sent: list[dict[str, Any]] = []
        app.client.connection.tracer = lambda d, m: sent.append(m) if d == "send" else None
        await pilot.press(*"plan diff permission", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        await wait_for(pilot, lambda: dialog.accepting)
        assert_shown_safely(app, text)
        buttons = {b.name: b for b in dialog.query(Button)}
        assert all(visible in label for label in labels(buttons.values()))
        await click_label(pilot, buttons["reject-once"])
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        answers = [m["result"]["outcome"] for m in sent if "outcome" in m.get("result", {})]
        assert answers == [{"outcome": "selected", "optionId": "reject-once"}]
        assert_shown_safely(app, text)

        # Extra roots in the status line (an agent lists a session's roots): any file name.
        assert app.session is not None
        name = text.replace("/", "|").replace("\x00", "")
        assert app.slot is not None
        app.slot.additional_directories = (Path("/x") / name,)
        app.chat.current_pane.refresh_status()
        assert sanitize(name)[:40] in plain(status)
        assert_shown_safely(app, name)

        # The session title (status line and browser rows), and the browser's reasons, which
        # name the agent (it cannot close, delete or fork here).
        await pilot.press("ctrl+b", "ctrl+b")
        assert app.chat.browser is not None
        rows = app.chat.browser.rows
        await wait_for(pilot, lambda: rows.option_count > 1)
        assert visible in plain(rows.get_option_at_index(0).prompt)
        assert visible in plain(app.chat.query_one("#browser-reasons", Static))
        await pilot.hover("#act-fork")
        tooltip = app.screen.query_one("#textual-tooltip")
        await wait_for(pilot, lambda: tooltip.display)
        assert visible in plain(tooltip)
        assert_shown_safely(app, text)

        # Toasts: an agent's error, and the app's own report of a failure.
        assert app.workspace is not None
        app.workspace.board.emit(Notice(f"Could not fork: {RpcError(-32603, text)}", "error"))
        app.workspace.board.emit(
            Notice(f"Could not talk to the agent: {AgentError(text)}", "error")
        )
        await wait_for(pilot, lambda: len(app.screen.query("Toast")) == 2)
        await pilot.pause()
        toasts = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert all(visible in toast for toast in toasts)
        assert_shown_safely(app, text)

        assert app.is_running
        assert app.return_code is None
        assert not screenshots


@HOSTILE
async def test_hostile_methods_ids_and_lines_are_shown_literally_in_the_wire_inspector(
    make_app: Callable[..., AcpApp], name: str, screenshots: list[tuple[Any, ...]]
) -> None:
    """F12 shows the agent's own strings: its name in the title, the method and id of its
    messages in the table, a line that is not JSON and every message in the detail pane. None is
    markup (``[/]`` would end the app), none sends a control character to the terminal."""
    text = HOSTILE_TEXTS[name]
    app = make_app("--hostile", name)
    async with app.run_test(size=(200, 60)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("f12")
        screen = await wait_for_screen(pilot, WireInspector)
        table = screen.table

        def hostile_rows() -> list[tuple[int, WireRecord]]:
            """The rows of the hostile notification, request, our reply and the broken line."""
            records = [screen.by_seq[int(key.value or 0)] for key in table.rows]
            return [
                (i, r)
                for i, r in enumerate(records)
                if text in (r.method, r.id) or r.kind == "invalid"
            ]

        await wait_for(pilot, lambda: len(hostile_rows()) == 4)
        await pilot.pause()
        assert_shown_safely(app, text)
        # The title; the methods and ids: notification, request, our reply (↳ method, id).
        title, cells = (region_text(app, w) for w in (screen.query_one("#wire-title"), table))
        assert marker(text) in title
        assert cells.count(marker(text)) >= 5
        # Each of their messages in the detail pane.
        for index, record in hostile_rows():
            table.move_cursor(row=index)
            await wait_for(pilot, lambda record=record: screen.selected is record)
            await pilot.pause()
            assert_shown_safely(app, text)
        assert app.is_running
        assert app.return_code is None
        assert not screenshots


@HOSTILE
async def test_hostile_form_strings_and_defaults_are_shown_literally(
    make_app: Callable[..., AcpApp],
    name: str,
    screenshots: list[tuple[Any, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A form from the hostile agent: titles, descriptions, enum labels and a text field's
    default (which the text field holds, to be sent) are literal, their controls visible."""
    text = HOSTILE_TEXTS[name]
    monkeypatch.setattr(ElicitationDialog, "QUIET", 0.0)
    app = make_app("--hostile", name)
    async with app.run_test(size=(200, 60)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press(*"ask", "enter")
        dialog = await wait_for_screen(pilot, ElicitationFormDialog)
        await wait_for(pilot, lambda: dialog.accepting and bool(dialog.query(FieldRow)))
        await pilot.pause()
        assert_shown_safely(app, text)
        rows = {row.field.name: row for row in dialog.query(FieldRow)}
        assert rows["name"].value == one_line(text)  # the default, as shown and sent
        # The enum values are their own labels: open the drop-down.
        rows["license"].control.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: rows["license"].control.has_class("-expanded"))
        await pilot.pause()
        assert_shown_safely(app, text)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: app.session is not None and not app.session.prompt_pending)
        assert app.is_running
        assert app.return_code is None
        assert not screenshots


# -- direct: paths in the roots dialog and the session rows ------------------------------------


class Host(App[None]):
    """Shows one widget, so that what reaches the screen can be read."""

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


@HOSTILE
async def test_hostile_paths_in_the_roots_dialog_are_shown_literally(
    name: str, tmp_path: Path, screenshots: list[tuple[Any, ...]]
) -> None:
    text = HOSTILE_TEXTS[name].replace("/", "|")[:200]  # one path component, of a sane length
    cwd = tmp_path / text
    app = Host(Static("behind the dialog"))
    async with app.run_test(size=(200, 60)) as pilot:
        roots, recent = (tmp_path / text / "extra",), (tmp_path / text,)
        app.push_screen(RootsDialog(cwd, roots, recent, supported=True))
        await wait_for_screen(pilot, RootsDialog)
        await pilot.pause()
        assert_shown_safely(app, text, length=12)
        app.pop_screen()
        # An agent that cannot take extra roots: the reason names it.
        app.push_screen(RootsDialog(cwd, roots, supported=False, reason=HOSTILE_TEXTS[name]))
        await wait_for_screen(pilot, RootsDialog)
        await pilot.pause()
        assert_shown_safely(app, HOSTILE_TEXTS[name])
        assert app.is_running
        assert not screenshots


@HOSTILE
async def test_hostile_session_rows_are_shown_literally(
    name: str, screenshots: list[tuple[Any, ...]]
) -> None:
    text = HOSTILE_TEXTS[name]
    info = SessionInfo(
        session_id="s1", cwd=text, title=text, additional_directories=[text], updated_at=None
    )
    rows = OptionList(row_content(info, marked=False, tags=["chat"]))
    app = Host(rows)
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.pause()
        assert_shown_safely(app, text)
        assert plain(rows.get_option_at_index(0).prompt).count(sanitize(text)[:40]) >= 3
        await pilot.click(rows, offset=(4, 0))
        assert app.is_running
        assert not screenshots


class ToastHost(PlainToasts):
    BINDINGS = [Binding("ctrl+q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Static("the app")


async def test_no_toast_is_markup_even_when_asked_for() -> None:
    app = ToastHost()
    async with app.run_test(notifications=True) as pilot:
        app.query_one(Static).notify("[b]x[/b] [/]", title="[@click=app.quit]t[/]", markup=True)
        app.action_help_quit()  # Textual's own hint is markup: ours is plain
        await wait_for(pilot, lambda: len(app.screen.query("Toast")) == 2)
        shown = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert shown == [
            "[@click=app.quit]t[/]\n[b]x[/b] [/]",
            "Do you want to quit?\nPress ctrl+q to quit the app",
        ]
