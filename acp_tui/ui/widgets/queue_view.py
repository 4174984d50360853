"""Provides QueueView: the prompts waiting to be sent, above the prompt, editable and removable.

Shown only while something waits. Its first line says why the prompts wait (the agent is
starting, a turn runs, the agent stopped, a cancel paused them...); each prompt is a row: ``e``
takes it into the prompt to edit (it keeps its place, marked ✎), Delete or ``x`` removes it.
Enter edits too, except on a paused queue, where it sends the queue on (`ResumeRequested`).
The view only shows and asks: whoever owns the queue handles the requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from textual import on
from textual.binding import Binding
from textual.content import Content
from textual.css.styles import RulesMap
from textual.geometry import Size
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.ui.plain_text import sanitize

__all__ = ["QueueView"]

PREVIEW = 72
ROWS = 6
"""The most lines the view takes (it scrolls beyond)."""


@dataclass(frozen=True, slots=True)
class Queued:
    """A prompt as the view shows it."""

    id: int
    text: str
    editing: bool = False


def preview(text: str, width: int = PREVIEW) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


class QueueView(OptionList):
    """The queued prompts of one session, with why they wait."""

    DEFAULT_CSS = f"""
    QueueView {{
        height: auto;
        max-height: {ROWS};
        border: none;
        padding: 0 1;
        background: $boost;
        display: none;
        &.-shown {{ display: block; }}
        &:focus {{ background-tint: $foreground 5%; }}
    }}
    """

    BINDINGS = [
        Binding("e", "edit", "Edit", show=True),
        Binding("delete,x", "remove", "Remove", show=True),
        Binding("escape", "back", "Prompt", show=False),
    ]

    @dataclass
    class EditRequested(Message):
        """Take this prompt back into the editor (and out of the queue)."""

        prompt_id: int

    @dataclass
    class RemoveRequested(Message):
        prompt_id: int

    class ResumeRequested(Message):
        """Enter on a paused queue: the user confirms it goes on."""

    class Back(Message):
        """Done with the queue: back to the prompt."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queued: list[Queued] = []
        self.paused = False
        self._shown: tuple[list[Queued], str, bool] | None = None
        self._labels: dict[str, Content] = {}
        """The rows' labels by their text: a label kept measures its height once (Content
        caches it), not at every change of a long queue."""

    def show_queue(self, queued: Sequence[Queued], reason: str, *, paused: bool = False) -> None:
        """Show ``queued`` (hidden when empty), under a line saying why they wait."""
        shown = (list(queued), reason, paused)
        if shown == self._shown:
            return  # the pane asks on every change of its slot; rebuilding restyles the rows
        self._shown = shown
        keep = self.highlighted
        self.queued = list(queued)
        self.paused = paused
        head = f"{'⏸ paused' if paused else '⧗ queued'}: {sanitize(reason)}"
        options = [Option(Content.styled(head, "bold" if paused else "dim"), disabled=True)]
        labels, self._labels = self._labels, {}
        for number, item in enumerate(self.queued, start=1):
            mark = "✎ " if item.editing else ""
            text = f"{number}. {mark}{preview(sanitize(item.text))}"
            label = self._labels[text] = labels.get(text) or Content(text)
            options.append(Option(label, id=str(item.id)))
        self.set_options(options)
        self.set_class(bool(self.queued), "-shown")
        if self.queued:
            self.highlighted = min(max(keep or 1, 1), len(self.queued))
        elif self.has_focus:
            self.post_message(self.Back())

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The height of the rows up to what the view can show: every layout of the screen
        asks, and OptionList measures every row (hundreds while prompts are typed faster than
        turns end)."""
        padding = self.get_component_styles("option-list--option").padding.width
        rules = cast(RulesMap, self.styles)  # as OptionList does
        height = 0
        for option in self.options:
            if height >= ROWS:
                break
            height += self._get_visual(option).get_height(rules, width - padding)
        return height

    @property
    def highlighted_id(self) -> int | None:
        index = self.highlighted
        if index is None or index == 0 or index > len(self.queued):
            return None
        return self.queued[index - 1].id

    def action_edit(self) -> None:
        prompt_id = self.highlighted_id
        if prompt_id is not None:
            self.post_message(self.EditRequested(prompt_id))

    def action_remove(self) -> None:
        prompt_id = self.highlighted_id
        if prompt_id is not None:
            self.post_message(self.RemoveRequested(prompt_id))

    def action_back(self) -> None:
        self.post_message(self.Back())

    @on(OptionList.OptionSelected)
    def edit_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.paused:
            self.post_message(self.ResumeRequested())
        else:
            self.action_edit()
