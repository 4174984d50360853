"""Provides the session browser's filter bar and action bar.

BrowserFilters: the text search (`BrowserSearch`), "All directories" (drops the cwd filter) and
the extra-roots filter. That filter is chosen in the roots dialog (:class:`RootsFilterDialog`,
the new-session dialog retitled as a filter): the list chosen there is the exact, ordered
``additionalDirectories`` filter, an empty list meaning "exactly no extra roots"; "Any extra
roots" (in the dialog, or the bar's "Any" button) drops the filter. ActionBar: one button per
action on the highlighted row, disabled with the reason as its tooltip and, below the buttons,
as a line the user can read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Label, Static

from acp_tui.protocol.methods import SessionInfo
from acp_tui.ui.dialogs.roots import RootsDialog, RootsResult
from acp_tui.ui.plain_text import LABEL_LIMIT, TEXT_LIMIT, safe_content, sanitize
from acp_tui.ui.widgets.root_list import RootList

ACTIONS: dict[str, str] = {
    "replay": "Replay",
    "resume": "Resume",
    "fork": "Fork",
    "close": "Close",
    "delete": "Delete",
}
"""The row actions, in button order, with their labels."""


Roots = tuple[Path, ...] | None
"""The extra-roots filter: exactly these roots in this order (``()``: none), or None: any."""

FILTER_HELP = "Lists the sessions with exactly these extra roots, in this order."


def roots_label(roots: Roots) -> str:
    """What the filter button says about the current extra-roots filter."""
    if roots is None:
        return "Extra roots: any  (e)"
    if not roots:
        return "Extra roots: exactly none  (e)"
    return f"Extra roots: exactly {len(roots)}  (e)"


def offered_roots(listed: Iterable[SessionInfo], recent: Iterable[Path] = ()) -> list[Path]:
    """The roots the dialog offers: those of the listed sessions, then ``recent``; each once."""
    seen: dict[Path, None] = {}
    for info in listed:
        for listed_root in info.additional_directories or []:
            seen.setdefault(Path(listed_root), None)
    for root in recent:
        seen.setdefault(root, None)
    return list(seen)


class RootsFilterDialog(RootsDialog):
    """The roots dialog as the browser's filter; ``chose_any`` tells "Any" from Cancel.

    Confirming gives the exact, ordered filter (an empty list: sessions without extra roots);
    "Any extra roots" and Cancel both dismiss with None, "Any" setting ``chose_any``.
    """

    def __init__(self, cwd: Path, roots: Sequence[Path] = (), recent: Sequence[Path] = ()) -> None:
        super().__init__(cwd, roots, recent, supported=True)
        self.chose_any = False

    def on_mount(self) -> None:
        # RootsDialog.on_mount runs too (Textual calls the handler of every class in the MRO).
        title = self.query_one(".roots-title", Static)
        title.update("Filter the sessions by their extra roots")
        self.query_one("#roots-box").mount(
            Static(Text(FILTER_HELP), id="roots-filter-help", classes="roots-muted"), after=title
        )
        self.query("#roots-side > Label").last(Label).update("Roots seen in the list, then recent")
        self.query_one("#roots-buttons").mount(
            Button("Any extra roots", id="roots-any", compact=True), before="#roots-cancel"
        )
        self.label_ok()

    @on(RootList.Changed)
    def label_ok(self) -> None:
        empty = not self.query_one(RootList).entries
        label = "Only sessions without extra roots" if empty else "Filter"
        self.query_one("#roots-ok", Button).label = label

    @on(Button.Pressed, "#roots-any")
    def choose_any(self) -> None:
        self.chose_any = True
        self.dismiss(None)


class BrowserFilters(Vertical):
    """Search, all-directories and extra-roots filters; posts Changed."""

    DEFAULT_CSS = """
    BrowserFilters {
        height: auto;
        Input { height: 1; border: none; padding: 0 1; background: $boost; }
        Input:focus { background: $surface-lighten-1; }
        #browser-search { padding: 0 1; }
        Checkbox { height: 1; border: none; padding: 0 1; background: transparent; }
        #browser-roots-bar { height: 1; }
        #browser-roots { width: 1fr; padding: 0 1; content-align: left middle; text-align: left; }
        #browser-roots-any { width: auto; min-width: 5; margin-left: 1; }
    }
    """

    @dataclass
    class Changed(Message):
        """One filter changed: ``what`` is "text" (a str), "all" (a bool) or "roots" (Roots)."""

        what: str
        value: str | bool | Roots

    @dataclass
    class RootsRequested(Message):
        """The user asked to choose the extra-roots filter (the panel opens the dialog)."""

    def __init__(self) -> None:
        super().__init__()
        self.roots: Roots = None
        """The extra-roots filter as last chosen."""

    def compose(self) -> ComposeResult:
        # Compact: a plain Input takes Input:focus's tall border, which hides the typed text.
        yield Input(placeholder="Search every session  (/)", id="browser-search", compact=True)
        yield Checkbox("All directories  (a)", id="browser-all", compact=True)
        with Horizontal(id="browser-roots-bar"):
            yield Button(roots_label(None), id="browser-roots", compact=True)
            yield Button("Any", id="browser-roots-any", compact=True, disabled=True)

    @on(Input.Changed, "#browser-search")
    def search_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed("text", event.value))

    @on(Button.Pressed, "#browser-roots")
    def roots_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.RootsRequested())

    @on(Button.Pressed, "#browser-roots-any")
    def any_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.set_roots(None)

    @on(Checkbox.Changed, "#browser-all")
    def all_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.post_message(self.Changed("all", event.value))

    def toggle_all(self) -> None:
        self.query_one("#browser-all", Checkbox).toggle()

    def choose_roots(self, cwd: Path, offered: Sequence[Path] = ()) -> RootsFilterDialog:
        """Open the roots dialog on the current filter; its answer becomes the filter."""
        dialog = RootsFilterDialog(cwd, self.roots or (), offered)

        def chosen(result: RootsResult | None) -> None:
            if result is not None:
                self.set_roots(result.roots)
            elif dialog.chose_any:
                self.set_roots(None)

        self.app.push_screen(dialog, callback=chosen)
        return dialog

    def set_roots(self, roots: Roots) -> None:
        """Set the extra-roots filter (None: any) and tell the panel."""
        self.roots = None if roots is None else tuple(roots)
        button = self.query_one("#browser-roots", Button)
        button.label = roots_label(self.roots)
        roots_text = "\n".join(str(r) for r in self.roots or ())
        button.tooltip = safe_content(roots_text) if roots_text else None
        self.query_one("#browser-roots-any", Button).disabled = self.roots is None
        self.post_message(self.Changed("roots", self.roots))


class ActionBar(Vertical):
    """The row actions as buttons; an unavailable one is disabled and says why."""

    DEFAULT_CSS = """
    ActionBar {
        height: auto;
        #browser-buttons { grid-size: 3; grid-gutter: 0 1; height: auto; grid-rows: 1; }
        Button { width: 1fr; min-width: 6; }
        #browser-reasons { height: auto; color: $text-muted; padding: 0 1; }
    }
    """

    @dataclass
    class Requested(Message):
        """A button was pressed: ``action`` is a key of ACTIONS."""

        action: str

    def __init__(self) -> None:
        super().__init__()
        self.reasons: dict[str, str | None] | None = None
        """The reasons shown (None: none set yet)."""

    def compose(self) -> ComposeResult:
        with Grid(id="browser-buttons"):
            for action, label in ACTIONS.items():
                yield Button(label, id=f"act-{action}", compact=True)
        yield Static("", id="browser-reasons")

    def set_reasons(self, reasons: Mapping[str, str | None]) -> None:
        """Enable each action, or disable it with its reason (tooltip and reasons line)."""
        shown = {action: reasons.get(action) for action in ACTIONS}
        if shown == self.reasons:  # each change restyles the buttons and lays the screen out
            return
        self.reasons = shown
        grouped: dict[str, list[str]] = {}
        for action, label in ACTIONS.items():
            reason = reasons.get(action)
            button = self.query_one(f"#act-{action}", Button)
            button.disabled = reason is not None
            button.tooltip = None if reason is None else safe_content(reason, limit=TEXT_LIMIT)
            if reason is not None:
                grouped.setdefault(reason, []).append(label)
        lines = [
            f"{', '.join(labels)}: {sanitize(why, LABEL_LIMIT)}" for why, labels in grouped.items()
        ]
        self.query_one("#browser-reasons", Static).update(Text("\n".join(lines)))

    @on(Button.Pressed)
    def button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("act-"):
            self.post_message(self.Requested(event.button.id.removeprefix("act-")))
