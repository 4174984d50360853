"""The input thread's clock: a wait that brought nothing marks the keyboard clear only when the
terminal has nothing unread (a wait cut short by a stop and continue returns empty unlooked)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from acp_tui.ui import terminal_keys
from acp_tui.ui.input_clock import Keyboard
from acp_tui.ui.terminal_keys import TerminalKeys


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """A pipe standing for the terminal: the input thread reads the first end."""
    read_end, write_end = os.pipe()
    yield read_end, write_end
    os.close(read_end)
    os.close(write_end)


def test_an_empty_wait_with_keys_unread_leaves_the_keyboard_busy(
    terminal: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    read_end, write_end = terminal
    keyboard = Keyboard()
    keyboard.terminal = read_end
    monkeypatch.setattr(terminal_keys, "KEYBOARD", keyboard)
    parser = TerminalKeys(False)
    os.write(write_end, b"a")  # typed while the app was stopped: unread
    list(parser.tick())  # a wait that brought nothing
    assert keyboard.clear_at == 0.0
    os.read(read_end, 1)
    list(parser.tick())
    assert keyboard.clear_at > 0.0


def test_without_a_terminal_an_empty_wait_marks_the_keyboard_clear() -> None:
    keyboard = Keyboard()
    keyboard.found_nothing()  # no terminal known: the wait is taken at its word
    assert keyboard.clear_at > 0.0
    keyboard = Keyboard()
    keyboard.terminal = 9999  # closed or never open
    keyboard.found_nothing()
    assert keyboard.clear_at > 0.0
