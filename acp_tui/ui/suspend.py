"""Provides on_the_terminal: the app gives the terminal to another program, cleanly.

While another program has the terminal (a terminal login, a browser such as w3m), the app
must write nothing to it (its driver drops writes while suspended: `acp_tui.ui.driver`) and
need not even compute its frames.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["on_the_terminal"]


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
