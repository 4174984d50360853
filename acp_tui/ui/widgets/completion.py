"""Provides CompletionList, the popup of choices above an editor, and the rules that open it.

The list never takes focus: the editor keeps the keyboard and drives the list (`move`, `chosen`),
so typing goes on filtering while the list is open. A click on a choice is reported to the
editor that owns the list with a `CompletionList.Chosen` message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from textual import on
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.client.tools.mentions import filter_paths, mention_for
from acp_tui.ui.plain_text import LABEL_LIMIT, LIST_LIMIT, NAME_LIMIT, safe_content, sanitize

if TYPE_CHECKING:
    from acp_tui.protocol.updates import AvailableCommand

Location = tuple[int, int]

_COMMAND_TOKEN = re.compile(r"/(\S*)")
_FILE_TOKEN = re.compile(r"(?<![^\s(\[{])@(\"[^\"\n]*|\S*)$")
_COMMAND_LINE = re.compile(r"/(\S+)(\s*)")


@dataclass(frozen=True, slots=True)
class Context:
    """What is being completed: the token's kind, where it starts and what was typed of it."""

    kind: Literal["command", "file"]
    start: Location
    query: str


@dataclass(frozen=True, slots=True)
class Choice:
    """One entry of the list: what it shows and the text that replaces the token."""

    label: Content
    insert: str


def completion_context(line: str, row: int, column: int) -> Context | None:
    """The completion the cursor is in, from the text of its line up to the cursor.

    ``/`` opens command completion only at the very start of the prompt; ``@`` opens file
    completion at the start of a word anywhere (not inside an e-mail address).
    """
    before = line[:column]
    if row == 0 and _COMMAND_TOKEN.fullmatch(before):
        return Context("command", (0, 0), before[1:])
    match = _FILE_TOKEN.search(before)
    if match is not None:
        return Context("file", (row, match.start(1)), match.group(1).lstrip('"'))
    return None


def command_choices(commands: Sequence[AvailableCommand], query: str) -> list[Choice]:
    """The commands whose name contains ``query`` (prefix matches first), as list entries
    (the first ``LIST_LIMIT``: typing more narrows them)."""
    needle = query.casefold()
    matching = [c for c in commands if needle in c.name.casefold()]
    matching.sort(key=lambda c: not c.name.casefold().startswith(needle))
    choices = []
    for command in matching[:LIST_LIMIT]:
        parts: list[str | tuple[str, str]] = [(f"/{sanitize(command.name, NAME_LIMIT)}", "bold")]
        if command.description:
            parts.append(f" — {sanitize(command.description, LABEL_LIMIT)}")
        if command.input is not None and command.input.hint:
            parts.append((f"  ‹{sanitize(command.input.hint, NAME_LIMIT)}›", "italic dim"))
        choices.append(Choice(Content.assemble(*parts), f"/{command.name} "))
    return choices


def file_choices(paths: Sequence[str], query: str) -> list[Choice]:
    """The files whose path contains ``query``, as list entries inserting the mention."""
    return [
        Choice(safe_content(path), mention_for(path) + " ") for path in filter_paths(paths, query)
    ]


def command_hint(text: str, commands: Sequence[AvailableCommand]) -> str | None:
    """The input hint of the command the prompt starts with, while its input is still empty."""
    match = _COMMAND_LINE.fullmatch(text)
    if match is None or not match.group(2):
        return None
    for command in commands:
        if command.name == match.group(1) and command.input is not None:
            return command.input.hint or None
    return None


class CompletionList(OptionList, can_focus=False):
    """A list of choices shown above the editor that owns it; hidden while not completing."""

    DEFAULT_CSS = """
    CompletionList {
        display: none;
        height: auto;
        max-height: 10;
        margin: 0 1;
        border: round $primary;
        background: $panel;
        &.-open { display: block; }
    }
    """

    @dataclass
    class Chosen(Message):
        """The user clicked a choice."""

        completion_list: CompletionList
        choice: Choice

    def __init__(self, editor: Widget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.editor = editor
        self.choices: list[Choice] = []

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show_choices(self, choices: Sequence[Choice], empty: str) -> None:
        """Open the list with ``choices`` (the first highlighted), or a disabled ``empty`` line."""
        self.choices = list(choices)
        if self.choices:
            self.set_options(Option(choice.label) for choice in self.choices)
            self.highlighted = 0
        else:
            self.set_options([Option(Content(empty), disabled=True)])
        self.add_class("-open")

    def close(self) -> None:
        self.remove_class("-open")
        self.choices = []
        self.clear_options()

    def move(self, delta: int) -> None:
        if delta < 0:
            self.action_cursor_up()
        else:
            self.action_cursor_down()

    def chosen(self) -> Choice | None:
        """The highlighted choice, if there is one."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self.choices):
            return None
        return self.choices[index]

    @on(OptionList.OptionSelected)
    def report_click(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.choices):
            self.editor.post_message(self.Chosen(self, self.choices[event.option_index]))
