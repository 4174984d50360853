"""Provides silent_while_suspended and on_the_terminal: the app gives the terminal away cleanly.

While another program has the terminal (a terminal login, a browser such as w3m, Ctrl+Z), the
app must write nothing to it. Textual's suspend stops the driver's writer thread but leaves it
in place, so every frame the app's timers draw meanwhile goes into that thread's bounded queue
(30 writes); the next write then blocks the event loop for good, and the app never comes back
(nor answers SIGTERM). The driver class made here drops writes while suspended; the app draws
itself whole when it resumes, as Textual does after any suspend.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.driver import Driver

__all__ = ["on_the_terminal", "silent_while_suspended"]


def silent_while_suspended(base: type[Driver]) -> type[Driver]:
    """A subclass of ``base`` that writes nothing between suspend and resume."""

    class SilentWhileSuspended(base):  # type: ignore[valid-type, misc]
        suspended = False

        def write(self, data: str) -> None:
            if not self.suspended:
                super().write(data)

        def suspend_application_mode(self) -> None:
            super().suspend_application_mode()
            self.suspended = True

        def resume_application_mode(self) -> None:
            self.suspended = False
            super().resume_application_mode()

    SilentWhileSuspended.__name__ = SilentWhileSuspended.__qualname__ = (
        f"SilentWhileSuspended{base.__name__}"
    )
    return SilentWhileSuspended


@contextmanager
def on_the_terminal(app: App[Any]) -> Iterator[None]:
    """Give the terminal to another program for the block: the app suspended, and no frames
    computed meanwhile (nobody would see them); it redraws itself when the block ends.

    The app resumes however the block ends (Textual's suspend does not when the block raises,
    which would leave it suspended for good after a failed login), except when it is quitting
    meanwhile (SIGTERM during a login): resuming then would start the terminal input thread
    again after the app's last stop, and the process could not exit.
    """
    failed: BaseException | None = None
    with app.suspend(), app.batch_update():
        try:
            yield
        except BaseException as exc:
            if app.return_code is not None:  # quitting: stay suspended, the app stops itself
                raise
            failed = exc  # re-raised once the app has resumed
    if failed is not None:
        raise failed
