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
from acp_tui.ui.slash import CLIENT_COMMANDS, ClientCommand, invocation

if TYPE_CHECKING:
    from acp_tui.protocol.updates import AvailableCommand

Location = tuple[int, int]

_COMMAND_TOKEN = re.compile(r"/(\S*)")
_FILE_TOKEN = re.compile(r"(?<![^\s(\[{])@(\"[^\"\n]*|\S*)$")
_COMMAND_LINE = re.compile(r"/(\S+)(\s*)")

CLIENT_MARK = "acp-tui"
"""What marks acp-tui's own commands in the list (the agent's are unmarked)."""


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


def command_choices(
    commands: Sequence[AvailableCommand],
    query: str,
    client: Sequence[ClientCommand] = CLIENT_COMMANDS,
) -> list[Choice]:
    """The agent's commands and acp-tui's whose name contains ``query`` (prefix matches first,
    the agent's before acp-tui's), as list entries (the first ``LIST_LIMIT``: typing more
    narrows them). acp-tui's are marked, and offered as ``//name`` where an agent command of
    the same name wins; a query typed after ``//`` lists only acp-tui's."""
    ours_only = query.startswith("/")
    needle = query.removeprefix("/").casefold()
    # The matches in order, prefix matches first; only the entries shown are built (an agent
    # may send thousands of commands, and each key typed after "/" asks again).
    first: list[AvailableCommand | ClientCommand] = []
    then: list[AvailableCommand | ClientCommand] = []
    for command in [] if ours_only else commands:
        name = command.name.casefold()
        if needle in name:
            (first if name.startswith(needle) else then).append(command)
    for own in client:
        name = own.name.casefold()
        if needle in name:
            (first if name.startswith(needle) else then).append(own)
    shown = first[:LIST_LIMIT] + then[: LIST_LIMIT - min(len(first), LIST_LIMIT)]
    agent_names: set[str] | None = None
    choices: list[Choice] = []
    for entry in shown:
        if isinstance(entry, ClientCommand):
            if ours_only:
                typed = f"//{entry.name}"
            else:
                if agent_names is None:
                    agent_names = {command.name for command in commands}
                typed = invocation(entry.name, agent_names)
            choices.append(_client_choice(entry, typed))
        else:
            choices.append(_agent_choice(entry))
    return choices


def _agent_choice(command: AvailableCommand) -> Choice:
    parts: list[str | tuple[str, str]] = [(f"/{sanitize(command.name, NAME_LIMIT)}", "bold")]
    if command.description:
        parts.append(f" — {sanitize(command.description, LABEL_LIMIT)}")
    if command.input is not None and command.input.hint:
        parts.append((f"  ‹{sanitize(command.input.hint, NAME_LIMIT)}›", "italic dim"))
    return Choice(Content.assemble(*parts), f"/{command.name} ")


def _client_choice(command: ClientCommand, typed: str) -> Choice:
    parts: list[str | tuple[str, str]] = [(typed, "bold"), f" — {command.description}"]
    if command.hint:
        parts.append((f"  ‹{command.hint}›", "italic dim"))
    parts.append((f"  {CLIENT_MARK}", "dim"))
    return Choice(Content.assemble(*parts), f"{typed} ")


def file_choices(paths: Sequence[str], query: str) -> list[Choice]:
    """The files whose path contains ``query``, as list entries inserting the mention."""
    return [
        Choice(safe_content(path), mention_for(path) + " ") for path in filter_paths(paths, query)
    ]


def command_hint(
    text: str,
    commands: Sequence[AvailableCommand],
    client: Sequence[ClientCommand] = CLIENT_COMMANDS,
) -> str | None:
    """The input hint of the command the prompt starts with, while its input is still empty:
    the agent's command's, or acp-tui's when it is the one typed (see `acp_tui.ui.slash`)."""
    match = _COMMAND_LINE.fullmatch(text)
    if match is None or not match.group(2):
        return None
    name = match.group(1)
    if not name.startswith("/"):
        for command in commands:
            if command.name == name:  # the agent's wins
                hint = command.input.hint if command.input is not None else None
                return hint or None
    own = next((c for c in client if c.name == name.removeprefix("/")), None)
    return own.hint if own is not None else None


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

    def show_choices(self, choices: Sequence[Choice], empty: str, more: str | None = None) -> None:
        """Open the list with ``choices`` (the first highlighted), or a disabled ``empty`` line;
        ``more`` ends it, disabled (what the list cannot offer: commands not kept)."""
        self.choices = list(choices)
        options = [Option(choice.label) for choice in self.choices]
        if not options:
            options.append(Option(Content(empty), disabled=True))
        if more:
            options.append(Option(Content(more), disabled=True))
        self.set_options(options)
        if self.choices:
            self.highlighted = 0
        self.add_class("-open")

    def close(self) -> None:
        if not self.choices and not self.option_count and not self.has_class("-open"):
            return  # closed already: every key the prompt handles closes it again
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
