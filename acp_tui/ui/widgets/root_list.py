"""Provides RootList: an ordered list of paths that the user reorders and trims.

The list owns the entries (strings, in order). Ctrl+Up and Ctrl+Down move the highlighted
entry, Delete removes it; every change posts ``RootList.Changed`` so the owner can re-check
the entries and hand back a reason per refused one, shown under its path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.ui.plain_text import sanitize


class RootList(OptionList):
    """Paths in order, each with an optional problem; reorder with Ctrl+Up/Down."""

    DEFAULT_CSS = """
    RootList { height: auto; max-height: 12; min-height: 3; }
    """

    BINDINGS = [
        Binding("ctrl+up", "move(-1)", "Move up"),
        Binding("ctrl+down", "move(1)", "Move down"),
        Binding("delete", "remove", "Remove"),
    ]

    @dataclass
    class Changed(Message):
        """The entries changed (added, moved or removed)."""

        root_list: RootList
        entries: tuple[str, ...]

        @property
        def control(self) -> RootList:
            return self.root_list

    def __init__(self, entries: Sequence[str] = (), *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries = list(entries)
        self._problems: dict[int, str] = {}
        self._rebuild(0 if self._entries else None)

    @property
    def entries(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def show_problems(self, problems: Mapping[int, str]) -> None:
        """Show ``problems`` (entry index to reason) under their entries."""
        if dict(problems) != self._problems:
            self._problems = dict(problems)
            self._rebuild(self.highlighted)

    def add(self, entry: str) -> None:
        self._entries.append(entry)
        self._changed(len(self._entries) - 1)

    def move_highlighted(self, delta: int) -> bool:
        """Move the highlighted entry ``delta`` places; False when it cannot move."""
        index = self.highlighted
        if index is None or not 0 <= index + delta < len(self._entries):
            return False
        entries = self._entries
        entries[index], entries[index + delta] = entries[index + delta], entries[index]
        self._problems = {}
        self._changed(index + delta)
        return True

    def remove_highlighted(self) -> str | None:
        """Remove the highlighted entry and return it (None when the list is empty)."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self._entries):
            return None
        removed = self._entries.pop(index)
        self._problems = {}
        self._changed(min(index, len(self._entries) - 1) if self._entries else None)
        return removed

    def action_move(self, delta: int) -> None:
        self.move_highlighted(delta)

    def action_remove(self) -> None:
        self.remove_highlighted()

    def _changed(self, highlight: int | None) -> None:
        self._rebuild(highlight)
        self.post_message(self.Changed(self, self.entries))

    def _rebuild(self, highlight: int | None) -> None:
        self.clear_options()
        if not self._entries:
            placeholder = Content("No extra roots: only the working directory.")
            self.add_option(Option(placeholder, disabled=True))
            return
        options = []
        for index, entry in enumerate(self._entries):
            parts: list[str | tuple[str, str]] = [
                (f"{index + 1}. ", "$text-muted"),
                sanitize(entry),
            ]
            problem = self._problems.get(index)
            if problem is not None:
                parts.append((f"\n   ✗ {sanitize(problem)}", "$text-error"))
            options.append(Option(Content.assemble(*parts)))
        self.add_options(options)
        if highlight is not None:
            self.highlighted = max(0, min(highlight, len(self._entries) - 1))
