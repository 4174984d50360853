"""Provides SessionOptions: a bar of pickers for the session's config options, mode and usage.

One compact Select per select option (the model first, the ``model_config`` options beside it,
then the agent's order), a Switch per
boolean option, a Select for legacy ``modes`` only when no config option has the "mode"
category (the protocol's rule), and the context/cost usage at the end. The bar follows the
transcript live; only what the user changes is posted, never what the agent pushed. Once the
user has chosen (or dismissed a picker's list, or flipped a switch), the prompt has the focus
again: what they type next is a message, not a search of the list.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import Label, Select, Static, Switch
from textual.widgets._select import SelectOverlay

from acp_tui.client.session.entries import Change, Usage
from acp_tui.client.session.figures import tokens as format_tokens
from acp_tui.client.session.modes import mode_config
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.held import not_kept
from acp_tui.protocol.session_config import (
    SessionConfigBoolean,
    SessionConfigSelect,
    SessionConfigSelectGroup,
)
from acp_tui.ui.messages import OptionChosen
from acp_tui.ui.pacing import Paced
from acp_tui.ui.plain_text import sanitize

MODE_KEY = "mode"
"""The key of the legacy ``modes`` picker; config options are keyed ``config:<id>``."""


@dataclass(frozen=True, slots=True)
class Picker:
    """What one control shows: its kind, label, description and (for selects) the choices."""

    key: str
    kind: Literal["select", "switch"]
    label: str
    description: str | None = None
    choices: tuple[tuple[str, str], ...] = ()
    left_out: int = 0
    """Values the agent offered past the cap on one option (`acp_tui.protocol.held`): not
    kept, counted at the end of the list."""


LEFT_OUT = "\x00acp-tui: values not kept"
"""The value of the line that counts them (shown disabled: it can never be chosen)."""


def config_key(config_id: str) -> str:
    return f"config:{config_id}"


def values_not_kept(option: SessionConfigSelect) -> int:
    """How many values of ``option`` (and of its groups) the cap left out."""
    count = not_kept(option, "options")
    for item in option.options:
        if isinstance(item, SessionConfigSelectGroup):
            count += not_kept(item, "options")
    return count


def _select_choices(option: SessionConfigSelect, current: str) -> tuple[tuple[str, str], ...]:
    choices: list[tuple[str, str]] = []
    for item in option.options:
        if isinstance(item, SessionConfigSelectGroup):
            choices.extend((f"{item.name} / {o.name}", o.value) for o in item.options)
        else:
            choices.append((item.name, item.value))
    if current not in {value for _, value in choices}:
        choices.append((current, current))  # the agent's value, even when it is not listed
    return tuple(choices)


_PLACE = {"model": 0, "model_config": 1}
"""The model picker comes first and its settings (``model_config``) beside it."""


def pickers_for(transcript: Transcript) -> list[Picker]:
    """The controls the transcript calls for, in display order."""
    options = sorted(transcript.config_options, key=lambda o: _PLACE.get(o.category or "", 2))
    pickers: list[Picker] = []
    for option in options:
        if isinstance(option, SessionConfigSelect):
            pickers.append(
                Picker(
                    config_key(option.id),
                    "select",
                    option.name,
                    option.description,
                    _select_choices(option, option.current_value),
                    values_not_kept(option),
                )
            )
        elif isinstance(option, SessionConfigBoolean):
            pickers.append(Picker(config_key(option.id), "switch", option.name, option.description))
    modes = transcript.modes
    if modes is not None and modes.available_modes and mode_config(transcript) is None:
        choices = [(m.name, m.id) for m in modes.available_modes]
        if modes.current_mode_id not in {m.id for m in modes.available_modes}:
            choices.append((modes.current_mode_id, modes.current_mode_id))
        pickers.append(Picker(MODE_KEY, "select", "Mode", None, tuple(choices)))
    return pickers


def format_amount(amount: float) -> str:
    """A cost for a status bar: cents above 1, a tenth of a cent below, never e-notation."""
    if amount >= 1:
        return f"{amount:.2f}"
    if amount >= 0.001 or amount <= 0:
        return f"{max(amount, 0):.3f}"
    return "<0.001"


def format_usage(usage: Usage | None) -> str:
    """``53k/200k ctx · $0.045`` ('' without usage)."""
    if usage is None:
        return ""
    text = f"{format_tokens(usage.used)}/{format_tokens(usage.size)} ctx"
    amount = usage.cost_amount
    if amount is not None:
        number = format_amount(amount)
        currency = sanitize(usage.cost_currency or "")
        text += f" · ${number}" if currency == "USD" else f" · {number} {currency}".rstrip()
    return text


class OptionSelect(Select[str]):
    """A Select that tolerates being torn down before its own mount handler runs.

    Textual's Select sets itself up when mounted by querying its children. If the app closes
    (or the bar recomposes) between the mount and that handler, the children are already gone
    and the query raises, taking the app down; a session opening as the user quits was enough.
    Its setup is skipped then (the widget is being removed anyway).
    """

    class Done(Message):
        """The user closed the list: chose (the same value too) or dismissed it."""

    def _setup_options_renderables(self) -> None:
        """The line counting the values not kept (``LEFT_OUT``) is disabled: it only says.
        (Overrides a private method; Textual is pinned.)"""
        super()._setup_options_renderables()
        overlay = self.query_one(SelectOverlay)
        for index, (_, value) in enumerate(self._options):
            if value == LEFT_OUT:
                overlay.disable_option_at_index(index)

    def on_mount(self, event: events.Mount) -> None:
        current = self.query("SelectCurrent")
        if not (self.query("SelectOverlay") and current and current.first().query("#label")):
            event.prevent_default()

    @on(SelectOverlay.UpdateSelection)
    @on(SelectOverlay.Dismiss)
    def list_closed(self, event: SelectOverlay.UpdateSelection | SelectOverlay.Dismiss) -> None:
        # Textual's own handler runs next and focuses this Select; Done comes after it, and
        # the bar gives the focus to the prompt (a list that closed as the focus went
        # elsewhere leaves the focus there).
        if not isinstance(event, SelectOverlay.Dismiss) or not event.lost_focus:
            self.post_message(self.Done())


class SessionOptions(Horizontal):
    """The session's pickers and usage; call :meth:`show` with the live transcript."""

    DEFAULT_CSS = """
    SessionOptions {
        height: 1;
        padding: 0 1;
        background: $panel;
        Select { margin-right: 2; }
        .option-label { width: auto; color: $text-muted; margin-right: 1; }
        Switch {
            width: auto; height: 1; border: none; padding: 0; margin-right: 2;
            &:focus { border: none; background-tint: $foreground 10%; }
        }
        #session-usage {
            width: 1fr; height: 1; text-align: right; text-wrap: nowrap;
            text-overflow: ellipsis; color: $text-muted;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.transcript: Transcript | None = None
        self.pickers: list[Picker] = []
        self._unsubscribe: Callable[[], None] | None = None
        self._mode_pushed: str | None = None
        self._rebuilding = False
        self._rebuild_again = False
        self._paced_refresh = Paced(self, self.refresh_from_transcript)
        """The refresh for the changes so far (a flood redraws a few times a second)."""
        self.display = False

    def compose(self) -> ComposeResult:
        values = self.current_values()
        for picker in self.pickers:
            about = f"{picker.label}: {picker.description}" if picker.description else picker.label
            tip = Text(sanitize(about))
            if picker.kind == "select":
                choices = [(Text(sanitize(label)), value) for label, value in picker.choices]
                if picker.left_out:
                    more = f"… {picker.left_out:,} more values from the agent (not kept)"
                    choices.append((Text(more, style="dim"), LEFT_OUT))
                select: Select[str] = OptionSelect(
                    choices,
                    value=str(values.get(picker.key, picker.choices[0][1])),
                    allow_blank=False,
                    compact=True,
                    name=picker.key,
                    tooltip=tip,
                )
                # Wide enough for the longest choice and the arrow, never a whole line.
                longest = max(len(label) for label, _ in picker.choices)
                select.styles.width = min(max(longest + 5, 10), 36)
                yield select
            else:
                yield Label(Text(sanitize(picker.label)), classes="option-label")
                switch = Switch(bool(values.get(picker.key)), animate=False, name=picker.key)
                switch.tooltip = tip
                yield switch
        yield Static(Text(format_usage(self.usage)), id="session-usage")

    @property
    def usage(self) -> Usage | None:
        return self.transcript.usage if self.transcript is not None else None

    def show(self, transcript: Transcript) -> None:
        """Follow ``transcript`` from now on (replacing any earlier one)."""
        self.hide()
        self.transcript = transcript
        self._mode_pushed = None
        self._unsubscribe = transcript.subscribe(self.handle_transcript_change)
        self.refresh_from_transcript()

    def hide(self) -> None:
        """Stop following the transcript (the bar keeps its last state)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def on_unmount(self) -> None:
        self.hide()

    def handle_transcript_change(self, change: Change) -> None:
        if change.kind != "meta" or change.what not in ("modes", "config_options", "usage"):
            return
        transcript = self.transcript
        if change.what == "modes" and transcript is not None and transcript.modes is not None:
            # Agents may announce a mode change only as current_mode_update: show it on the
            # "mode" config option too, until the next config options arrive.
            self._mode_pushed = transcript.modes.current_mode_id
        elif change.what == "config_options":
            self._mode_pushed = None
        self._paced_refresh()  # once for many updates, not once each

    def current_values(self) -> dict[str, str | bool]:
        """What the transcript says each picker holds (the mode pushed last included)."""
        values: dict[str, str | bool] = {}
        transcript = self.transcript
        if transcript is None:
            return values
        for option in transcript.config_options:
            if isinstance(option, SessionConfigSelect | SessionConfigBoolean):
                values[config_key(option.id)] = option.current_value
        mode_option = mode_config(transcript)
        pushed = self._mode_pushed
        if mode_option is not None and pushed in {o.value for o in mode_option.flat_options()}:
            values[config_key(mode_option.id)] = str(pushed)
        if transcript.modes is not None:
            values[MODE_KEY] = transcript.modes.current_mode_id
        return values

    def refresh_from_transcript(self) -> None:
        """Show the transcript's state again (also how a failed change is reverted)."""
        if self.transcript is None:
            return
        pickers = pickers_for(self.transcript)
        self.display = bool(pickers) or self.usage is not None
        if pickers != self.pickers:
            self.pickers = pickers
            if self.is_mounted:
                if self._rebuilding:
                    # Never recompose while a recompose is mounting its Selects (Textual's
                    # Select fails when removed mid-mount): one more pass follows this one.
                    self._rebuild_again = True
                else:
                    self._rebuilding = True
                    self.call_later(self.rebuild)
            return
        if not self.is_mounted or self._rebuilding:
            return  # a pending rebuild composes with the current values
        values = self.current_values()
        with self.prevent(Select.Changed, Switch.Changed):
            for select in self.query(Select).results(Select):
                value = values.get(select.name or "")
                if not select.is_mounted:
                    continue  # still composing: it was built with the current value
                if isinstance(value, str) and select.value != value:
                    # A Select being torn down (the app closing) has lost its children.
                    with contextlib.suppress(NoMatches):
                        select.value = value
            for switch in self.query(Switch).results(Switch):
                value = values.get(switch.name or "")
                if isinstance(value, bool) and switch.value != value:
                    switch.value = value
        shown = format_usage(self.usage)
        for usage in self.query("#session-usage").results(Static):
            if not isinstance(usage.content, Text) or usage.content.plain != shown:
                # One line of a set width whatever it says: no layout of the screen (each turn
                # of an agent that reports usage laid the whole screen out again).
                usage.update(Text(shown), layout=False)

    async def rebuild(self) -> None:
        """Recompose for a new set of options, as many times as they changed meanwhile.

        A picker that had the focus has it again (the new widget of the same option), else the
        prompt does: Textual would move the focus of a removed widget to the next focusable
        one, often the transcript, where what the user types next is lost.
        """
        focused = self.screen.focused if self.is_attached else None
        had_focus = focused is not None and self in focused.ancestors
        name = focused.name if focused is not None and had_focus else None
        try:
            while True:
                self._rebuild_again = False
                await self.recompose()
                if not self._rebuild_again or not self.is_mounted:
                    break
        finally:
            self._rebuilding = False
        if not self.is_mounted:
            return
        self.refresh_from_transcript()  # values that changed during the last pass
        if had_focus:
            self.refocus(name)

    def refocus(self, name: str | None) -> None:
        """Focus the picker called ``name``, or else the prompt beside the bar."""
        for widget in self.query("Select, Switch"):
            if name is not None and widget.name == name:
                widget.focus()
                return
        parent = self.parent
        prompts = parent.query("#prompt") if parent is not None else None
        if prompts:
            prompts.first().focus()

    def _user_change(self, key: str, value: object) -> bool:
        """Post the user's change; False when it was none (the agent's value shown)."""
        # Only a value that differs from the transcript is the user's: the agent's own pushes
        # (and the controls' initial values) always match it, so they never echo back.
        if key not in self.current_values() or self.current_values()[key] == value:
            return False
        if value == LEFT_OUT:  # (disabled: never chosen)
            return False
        if key == MODE_KEY and isinstance(value, str):
            self.post_message(OptionChosen(None, value))
        elif key.startswith("config:") and isinstance(value, str | bool):
            self.post_message(OptionChosen(key.removeprefix("config:"), value))
        return True

    @on(Select.Changed)
    def select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value is not Select.NULL:
            self._user_change(event.select.name or "", event.value)

    @on(Switch.Changed)
    def switch_changed(self, event: Switch.Changed) -> None:
        event.stop()
        if self._user_change(event.switch.name or "", event.value):
            self.refocus(None)  # Space typed next is a space in the prompt, not a flip

    @on(OptionSelect.Done)
    def list_closed(self, event: OptionSelect.Done) -> None:
        event.stop()
        self.refocus(None)
