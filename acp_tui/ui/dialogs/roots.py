"""Provides RootsDialog: the extra workspace roots of a new session, chosen and checked.

Roots are browsed in a directory tree or typed (Tab completes), then kept in an ordered list the
user reorders and trims; recent roots of the project are offered. Every entry is shown in its
absolute form, the only form ever sent, and each refused entry says why (``validate_roots``).

When the agent does not advertise ``additionalDirectories`` the dialog only explains that and
offers two ways out, so roots are never dropped silently: go on without them, or cancel.
The dialog writes nothing; the caller opens the session and records the roots it used.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DirectoryTree, Label, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.client.tools.root_choice import absolute_form, validate_roots
from acp_tui.ui.plain_text import sanitize
from acp_tui.ui.widgets.root_list import RootList
from acp_tui.ui.widgets.root_tree import PathInput, RootTree

HELP = (
    "Tab completes, Enter adds (with nothing typed: opens the session). Tree: Enter copies a "
    "folder above, a adds it, Backspace goes up. List: Ctrl+↑/↓ move, Delete removes."
)


@dataclass(frozen=True, slots=True)
class RootsResult:
    """What the user chose: the extra roots in order (absolute), or to go on without them."""

    roots: tuple[Path, ...]
    proceed_without: bool = False
    """True when the agent cannot take extra roots and the user chose to go on without them."""


class RootsDialog(ModalScreen[RootsResult | None]):
    """Choose the extra roots of a new session; None when cancelled."""

    DEFAULT_CSS = """
    RootsDialog {
        align: center middle;
        #roots-box {
            width: 95%;
            max-width: 140;
            height: 95%;
            max-height: 48;
            border: thick $primary;
            background: $panel;
            padding: 0 1;
        }
        &.-unsupported #roots-box {
            max-width: 90;
            height: auto;
            max-height: 95%;
            border: thick $error;
            padding: 1 2;
        }
        &.-unsupported .roots-title { margin-bottom: 1; }
        .roots-title { text-style: bold; }
        .roots-muted { color: $text-muted; height: auto; }
        #roots-reason { color: $text-error; text-style: bold; margin-bottom: 1; height: auto; }
        #roots-entry { height: auto; margin-top: 1; }
        #roots-path { width: 1fr; }
        #roots-add { margin-left: 1; min-width: 8; }
        #roots-message { height: auto; color: $text-muted; }
        #roots-message.-error { color: $text-error; }
        #roots-body { height: 1fr; min-height: 8; margin-top: 1; }
        #roots-tree { width: 1fr; height: 1fr; border: round $border; }
        #roots-side { width: 1fr; height: 1fr; margin-left: 1; }
        #roots-list { height: auto; min-height: 2; max-height: 8; }
        #roots-recent { height: 1fr; min-height: 2; }
        #roots-list-buttons { height: auto; }
        #roots-list-buttons Button { min-width: 8; margin-right: 1; }
        #roots-notes { height: auto; color: $text-warning; }
        #roots-buttons { dock: bottom; height: auto; padding-top: 1; align-horizontal: right; }
        #roots-cwd { text-wrap: nowrap; text-overflow: ellipsis; }
        #roots-buttons Button { margin-left: 2; min-width: 10; }
    }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("g", "go_without", "Go on without extra roots", show=False),
        Binding("c", "quick_cancel", "Cancel", show=False),
    ]

    def __init__(
        self,
        cwd: Path,
        roots: Sequence[Path] = (),
        recent: Sequence[Path] = (),
        *,
        supported: bool,
        reason: str | None = None,
        browse_from: Path | None = None,
    ) -> None:
        super().__init__(classes="" if supported else "-unsupported")
        self.cwd = Path(os.path.abspath(cwd))
        self.initial = tuple(roots)
        self.recent = tuple(recent)
        self.supported = supported
        self.reason = reason
        self.browse_from = browse_from or self.cwd.parent

    # -- layout ----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The buttons are compact (one line each) and docked at the bottom; the rest scrolls
        # when even that does not fit. The box never takes the focus itself.
        box = VerticalScroll(id="roots-box")
        box.can_focus = False
        with box:
            if self.supported:
                yield from self.compose_chooser()
            else:
                yield from self.compose_unsupported()

    def compose_unsupported(self) -> ComposeResult:
        yield Static("Extra workspace roots cannot be used", classes="roots-title")
        reason = self.reason or "This agent does not support additional workspace roots"
        yield Static(Text(sanitize(reason) + "."), id="roots-reason")
        if self.initial:
            listed = "\n".join(f"  {sanitize(str(root))}" for root in self.initial)
            yield Static(Text(f"These roots would not be sent:\n{listed}"), classes="roots-muted")
        yield Static(
            Text(f"The session would see only its working directory, {sanitize(str(self.cwd))}."),
            classes="roots-muted",
        )
        with Horizontal(id="roots-buttons"):
            # Cancel comes first, so it has the focus: Enter never drops roots by reflex.
            yield Button("Cancel", id="roots-cancel", variant="primary", compact=True)
            yield Button(
                "Go on without extra roots", id="roots-without", variant="warning", compact=True
            )

    def compose_chooser(self) -> ComposeResult:
        yield Static("Extra workspace roots for the new session", classes="roots-title")
        yield Static(
            Text(f"Working directory (always the first root): {sanitize(str(self.cwd))}"),
            classes="roots-muted",
            id="roots-cwd",
        )
        with Horizontal(id="roots-entry"):
            yield PathInput(
                self.cwd, placeholder="a folder: /abs, relative or ~/…", id="roots-path"
            )
            yield Button("Add", id="roots-add", compact=True)
        yield Static(Text(HELP), classes="roots-muted")
        message = Static(id="roots-message")
        message.display = False  # until there is something to say
        yield message
        with Horizontal(id="roots-body"):
            yield RootTree(self.browse_from, id="roots-tree")
            with Vertical(id="roots-side"):
                yield Label("Roots, in order")
                shown = [str(absolute_form(str(root), self.cwd) or root) for root in self.initial]
                yield RootList(shown, id="roots-list")
                with Horizontal(id="roots-list-buttons"):
                    yield Button("Up", id="roots-up", compact=True)
                    yield Button("Down", id="roots-down", compact=True)
                    yield Button("Remove", id="roots-remove", compact=True)
                yield Label("Recent roots of this project")
                yield OptionList(id="roots-recent")
        yield Static(id="roots-notes")
        with Horizontal(id="roots-buttons"):
            yield Button("Cancel", id="roots-cancel", compact=True)
            yield Button("Open session", id="roots-ok", variant="primary", compact=True)

    def on_mount(self) -> None:
        if self.supported:
            self.recheck()

    # -- state -----------------------------------------------------------------------------------

    @property
    def entries(self) -> tuple[str, ...]:
        """The entries of the list, in order, as shown (absolute)."""
        return self.query_one(RootList).entries

    def show_message(self, text: str, *, error: bool = False) -> None:
        message = self.query_one("#roots-message", Static)
        message.update(Text(sanitize(text)))
        message.set_class(error, "-error")
        message.display = bool(text)

    def recheck(self) -> None:
        """Validate the list: mark refused entries, show the notes, refresh the recent list."""
        entries = self.entries
        check = validate_roots(entries, self.cwd)
        self.query_one(RootList).show_problems({p.index: p.reason for p in check.problems})
        notes = self.query_one("#roots-notes", Static)
        notes.update(Text("\n".join(f"Note: {sanitize(note)}" for note in check.notes)))
        notes.display = bool(check.notes)
        recent = self.query_one("#roots-recent", OptionList)
        recent.clear_options()
        offered = [r for r in self.recent if str(r) not in entries and r != self.cwd]
        for root in offered:
            missing = "" if os.path.isdir(root) else "  (missing)"
            recent.add_option(Option(Text(sanitize(str(root)) + missing), id=str(root)))
        if not offered:
            recent.add_option(Option(Text("None yet."), disabled=True))

    def add_entry(self, raw: str) -> bool:
        """Add what the user typed or picked, in its absolute form, unless it is refused."""
        raw = raw.strip()
        if not raw:
            self.show_message(
                "Not added: an empty path names no folder. Type one (Tab completes it), or "
                "press Enter with nothing typed to open the session.",
                error=True,
            )
            return False
        entries = self.entries
        check = validate_roots([*entries, raw], self.cwd)
        reason = check.problem_at(len(entries))
        path = absolute_form(raw, self.cwd)
        if reason is not None or path is None:
            shown = str(path) if path is not None else raw
            self.show_message(f"Not added: {shown}: {reason or 'cannot be used'}", error=True)
            return False
        self.query_one(RootList).add(str(path))
        self.show_message(f"Added {path}.")
        return True

    # -- events ----------------------------------------------------------------------------------

    @on(PathInput.Submitted, "#roots-path")
    def enter_in_path(self) -> None:
        """Enter adds what is typed; with nothing typed it opens the session (no extra roots
        to add, or all added already: the dialog needs no trip to its button)."""
        if self.query_one(PathInput).value == "":
            self.confirm()
        else:
            self.add_typed()

    @on(Button.Pressed, "#roots-add")
    def add_typed(self) -> None:
        path_input = self.query_one(PathInput)
        if self.add_entry(path_input.value):
            path_input.value = ""

    @on(PathInput.Completed)
    def show_candidates(self, event: PathInput.Completed) -> None:
        self.show_message(event.shown.describe(), error=not event.shown.names)

    @on(DirectoryTree.DirectorySelected, "#roots-tree")
    def copy_from_tree(self, event: DirectoryTree.DirectorySelected) -> None:
        self.query_one(PathInput).value = str(event.path)

    @on(RootTree.AddRequested)
    def add_from_tree(self, event: RootTree.AddRequested) -> None:
        self.add_entry(str(event.path))

    @on(OptionList.OptionSelected, "#roots-recent")
    def add_recent(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.add_entry(event.option.id)

    @on(RootList.Changed)
    def entries_changed(self) -> None:
        self.recheck()

    @on(Button.Pressed, "#roots-up")
    def move_up(self) -> None:
        self.query_one(RootList).move_highlighted(-1)

    @on(Button.Pressed, "#roots-down")
    def move_down(self) -> None:
        self.query_one(RootList).move_highlighted(1)

    @on(Button.Pressed, "#roots-remove")
    def remove_highlighted(self) -> None:
        self.query_one(RootList).remove_highlighted()

    @on(Button.Pressed, "#roots-ok")
    def confirm(self) -> None:
        check = validate_roots(self.entries, self.cwd)
        if not check.ok:
            self.recheck()
            count = len(check.problems)
            self.show_message(
                f"{count} {'entry is' if count == 1 else 'entries are'} refused (marked ✗): "
                "remove or fix them first.",
                error=True,
            )
            return
        self.dismiss(RootsResult(check.accepted))

    # -- actions ---------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The single-key answers exist only in the two-button (unsupported) form."""
        if action in ("go_without", "quick_cancel"):
            return not self.supported
        return True

    def action_quick_cancel(self) -> None:
        self.action_cancel()

    @on(Button.Pressed, "#roots-without")
    def action_go_without(self) -> None:
        if not self.supported:
            self.dismiss(RootsResult((), proceed_without=True))

    @on(Button.Pressed, "#roots-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
