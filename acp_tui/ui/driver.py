"""Provides terminal_driver: Textual's driver for this platform, as acp-tui needs it.

What is added to the driver Textual picks (the Linux/macOS one; others are left as
they are):

- it writes nothing while the app is suspended: Textual's suspend stops the driver's writer
  thread but leaves it in place, so every frame the app's timers drew meanwhile went into that
  thread's bounded queue (30 writes), and the next write blocked the event loop for good (a
  terminal login froze the app, and SIGTERM waited for the hard exit). The app draws itself
  whole when it resumes, as after any suspend. A SIGCONT without a suspend before it resumes
  nothing;
- it reads keys with `acp_tui.ui.terminal_keys.TerminalKeys` (Alt+digit as terminals send it,
  unknown sequences dropped rather than typed);
- it notes when its input thread last read a key or a paste (`acp_tui.ui.input_clock`): the
  event loop handles keys later, and much later when the machine is busy, so a dialog that
  waits for a quiet keyboard (`acp_tui.ui.dialogs.asking`) asks the thread, not the loop.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import events

from acp_tui.ui.input_clock import KEYBOARD

if TYPE_CHECKING:
    from textual.driver import Driver
    from textual.message import Message

__all__ = ["terminal_driver"]


def terminal_driver(base: type[Driver]) -> type[Driver]:
    """A subclass of ``base`` that writes nothing between suspend and resume, and reads keys
    with `TerminalKeys` when ``base`` is Textual's Linux driver."""

    reads_keys = _read_keys_as_terminals_send_them(base)

    class TerminalDriver(base):  # type: ignore[valid-type, misc]
        suspended = False

        def write(self, data: str) -> None:
            if not self.suspended:
                super().write(data)

        def start_application_mode(self) -> None:
            if reads_keys:  # the terminal our parser's input thread reads (not the web's pipe)
                KEYBOARD.terminal = self.fileno
            super().start_application_mode()

        def suspend_application_mode(self) -> None:
            super().suspend_application_mode()
            self.suspended = True

        def resume_application_mode(self) -> None:
            # Textual resumes on every SIGCONT, but one that follows no suspend (the process
            # was stopped from outside: kill -STOP, a debugger) has nothing to resume: a second
            # input thread split the keys with the first, and Ctrl+Q no longer quit.
            if self.suspended:
                self.suspended = False
                super().resume_application_mode()

        def process_message(self, message: Message) -> None:
            # The input thread, as soon as the key is read: before the loop sees it.
            if isinstance(message, events.Key | events.Paste):
                KEYBOARD.key_read_at = time.monotonic()
            super().process_message(message)

    TerminalDriver.__name__ = TerminalDriver.__qualname__ = f"Terminal{base.__name__}"
    return TerminalDriver


def _read_keys_as_terminals_send_them(base: type[Driver]) -> bool:
    """Make the Linux driver's input thread build `TerminalKeys` instead of Textual's parser;
    whether ``base`` is that driver.

    The driver names its parser in its module (``run_input_thread`` builds ``XTermParser``
    there, with no hook to choose another), so that name is pointed at the subclass. Only this
    process's driver reads it; Textual is pinned, and tests/pty/test_keys.py would show a
    Textual that builds its parser elsewhere.
    """
    from textual.drivers import linux_driver

    if issubclass(base, linux_driver.LinuxDriver):
        from acp_tui.ui.terminal_keys import TerminalKeys

        linux_driver.XTermParser = TerminalKeys  # type: ignore[attr-defined]
        return True
    return False
