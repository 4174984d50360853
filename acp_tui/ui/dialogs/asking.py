"""Provides AskingScreen: a question (from the agent) that takes an answer only once the keyboard
has been quiet.

The agent asks when it likes, so its dialog may appear while the user is typing a prompt, and a
prompt's letters or its Enter must answer nothing, however long the typing goes on. So the
dialog takes no answer at all (keys, Enter on a button, clicks, Esc) until the keyboard has been
quiet for ``QUIET`` seconds since it was drawn: every key before then is dropped, counted, and
starts the quiet time over. The dialog shows the countdown and how many keys it dropped.

The keyboard's time is the terminal's (`acp_tui.ui.input_clock`): a key counts from when the
input thread read it, not from when the event loop handled it, since the loop may run its
timers before keys it has not reached yet; and the quiet time counts only up to when that
thread last found nothing unread, since on a busy machine it may not have run for a while. A
check that comes late (the process was not running: a busy machine, a stopped job) takes no
answer either; the next check decides.

While it waits, nothing in the dialog has the focus (a click cannot give it either), so every
key reaches the screen first, whatever widget would have consumed it, and its buttons are
disabled. Once it takes answers, the focus goes to ``FIRST_FOCUS``, never a button: an Enter
answers only after Tab has moved to one. The permission, elicitation, terminal and login
dialogs share it.
"""

from __future__ import annotations

import time
from typing import ClassVar, TypeVar

from textual import events, on
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Static

from acp_tui.ui.input_clock import KEYBOARD

__all__ = ["AskingScreen", "quiet_text"]

T = TypeVar("T")


def quiet_text(dropped: int, quiet: float, left: float | None) -> str:
    """What the dialog says about the keys it dropped and, while it waits (``left`` seconds to
    go), when it takes answers; "" once it takes them with nothing dropped."""
    ignored = ""
    if dropped:
        keys = "1 key" if dropped == 1 else f"{dropped} keys"
        ignored = f"{keys} typed before this appeared {'was' if dropped == 1 else 'were'} ignored"
    if left is None:
        return f"{ignored}." if ignored else ""
    wait = f"after {quiet:g} s without typing: {left:.1f} s to go."
    return f"{ignored}; answer {wait}" if ignored else f"Answers are taken {wait}"


class AskingScreen(ModalScreen[T]):
    """A modal question that waits for a quiet keyboard; ``accepting`` says when it takes answers.

    Subclasses yield ``quiet_note()`` where the note should show, create their answer buttons
    disabled, and close through ``answer`` (their actions are disabled meanwhile).
    """

    DEFAULT_CSS = """
    AskingScreen .asking-quiet {
        color: $text-warning;
        height: auto;
        &.-none { display: none; }
    }
    """

    AUTO_FOCUS = ""
    """Nothing has the focus while the dialog waits (``FIRST_FOCUS`` gets it afterwards)."""

    FIRST_FOCUS: ClassVar[str] = ""
    """A selector of what gets the focus once answers are taken ("": nothing); never a button."""

    QUIET = 0.8
    """Seconds without a key, since the dialog appeared, before it takes answers; a class
    attribute, so tests can shorten it (0: at once) and wait on ``accepting``."""

    TICK = 0.1
    """Seconds between two updates of the countdown."""

    LATE = 0.25
    """A check this long after the one before comes after a stall, and takes no answer."""

    accepting = False
    """Whether the keyboard has been quiet long enough: answers are taken from now on."""

    dropped = 0
    """How many keys (and pastes) came before answers were taken, and were dropped."""

    answered = False
    """Whether the dialog has closed with an answer (it takes only one)."""

    _last_key = 0.0
    _checked = 0.0
    _drawn = False
    _ticker: Timer | None = None

    def quiet_note(self) -> Static:
        """The line that shows the countdown and the keys dropped (for ``compose``)."""
        return Static(classes="asking-quiet")

    @on(events.Mount)
    def start_quiet_time(self) -> None:
        """Start counting the quiet time from now: the dialog has just appeared."""
        if self.accepting or self._ticker is not None:
            return
        self._last_key = self._checked = time.monotonic()
        if self.QUIET > 0:
            self._ticker = self.set_interval(self.TICK, self.check_quiet)
            self.show_quiet()
            self.call_after_refresh(self.drawn)
        else:
            self.accept_answers()

    def drawn(self) -> None:
        """The dialog is on the screen: the quiet time counts from now. A busy machine may take
        a good part of it to draw the dialog, and the user cannot stop typing for a dialog not
        yet seen."""
        self._drawn = True
        self._last_key = max(self._last_key, time.monotonic())

    async def on_event(self, event: events.Event) -> None:
        """Drop every key (and paste) while answers are not taken: it restarts the quiet time."""
        if not self.accepting and isinstance(event, events.Key | events.Paste):
            event.stop()
            event.prevent_default()
            self.dropped += 1
            self._last_key = time.monotonic()
            self.show_quiet()
            return
        await super().on_event(event)

    @on(events.DescendantFocus)
    def keep_the_focus_off(self) -> None:
        """While answers are not taken nothing keeps the focus (a click would give it), so that
        no widget takes keys before the screen does."""
        if not self.accepting:
            self.set_focus(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The dialog's own keys do nothing while it waits: they reach ``on_event``, dropped."""
        return True if self.accepting else None

    def quiet_for(self, now: float) -> float:
        """How long the keyboard is known to have been quiet (since the dialog was drawn)."""
        return KEYBOARD.quiet_for(self._last_key, now)

    def check_quiet(self) -> None:
        """Take answers once the keyboard has been quiet long enough, unless this check comes
        late (after a stall); else show what is left."""
        now = time.monotonic()
        late = now - self._checked > self.LATE
        self._checked = now
        if self._drawn and not late and self.quiet_for(now) >= self.QUIET:
            self.accept_answers()
        else:
            self.show_quiet()

    def show_quiet(self) -> None:
        """Update the note: the countdown (while waiting) and the keys dropped."""
        left = None
        if not self.accepting:
            left = max(0.0, self.QUIET - self.quiet_for(time.monotonic()))
        text = quiet_text(self.dropped, self.QUIET, left)
        for note in self.query(".asking-quiet").results(Static):
            note.update(Content(text))
            note.set_class(not text, "-none")

    def accept_answers(self) -> None:
        """The keyboard was quiet long enough: enable the buttons, give the focus, take answers."""
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self.accepting = True
        for button in self.query(Button):
            button.disabled = not self.button_enabled(button)
        self.show_quiet()
        if self.FIRST_FOCUS:
            for widget in self.query(self.FIRST_FOCUS):
                if widget.focusable:
                    self.set_focus(widget)
                    break
        self.refresh_bindings()

    def answer(self, result: T) -> None:
        """Close with ``result``, once answers are taken; only once."""
        if self.accepting and not self.answered:
            self.answered = True
            self.dismiss(result)

    def button_enabled(self, button: Button) -> bool:
        """Whether ``button`` may be pressed now (once answers are taken)."""
        return True
