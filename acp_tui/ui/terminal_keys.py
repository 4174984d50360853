"""Provides TerminalKeys: keys read as real terminals send them.

Textual's parser (8.2.8) gets two things wrong for a chat prompt:

- ESC followed by a digit is what xterm, GNOME Terminal, tmux and iTerm's "Esc+" mode send for
  Alt+digit, but Textual reads it as WezTerm-on-macOS's Option symbols (ESC 2 is "™"), so
  Alt+1..9 typed symbols into the prompt instead of switching tabs. Here it is Alt+digit.
- An escape sequence it does not know (a key of a newer terminal, a report nobody asked for)
  is "reissued" one character at a time, and ``ESC [ 1 ; 9 X`` arrives in the prompt as the
  text ``[1;9X``. Here such a sequence is dropped, whole: a control sequence runs to its final
  byte (ECMA-48: parameters and intermediates are 0x20-0x3F, the final byte 0x40-0x7E), an
  SS3 one (``ESC O``) to the next character.

A literal "™" or "£" typed on a keyboard that has them is UTF-8, not ESC + digit: it is still
typed. The parser is Textual's own with these two hooks; the driver uses it
(`acp_tui.ui.driver`). It also tells `acp_tui.ui.input_clock` when the input thread last found
nothing to read.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Literal

from textual import events
from textual._xterm_parser import XTermParser
from textual.message import Message

from acp_tui.ui.input_clock import KEYBOARD

__all__ = ["TerminalKeys"]

log = logging.getLogger(__name__)

ESC = "\x1b"


class TerminalKeys(XTermParser):
    """Textual's xterm parser, with Alt+digit as terminals send it and unknown sequences
    dropped instead of typed."""

    _dropping: Literal["after-esc", "csi", "ss3"] | None = None
    """Where in an unknown sequence being dropped the parser is (None: not dropping)."""

    _fed = False
    """Whether the input thread gave the parser data since its last ``tick``."""

    def feed(self, data: str) -> Iterable[Message]:
        self._fed = True
        return super().feed(data)

    def tick(self) -> Iterable[Message]:
        # The input thread ticks after each wait for input (a tenth of a second at most): one
        # that brought no data found nothing unread, unless the terminal says otherwise
        # (`acp_tui.ui.input_clock`).
        if not self._fed:
            KEYBOARD.found_nothing()
        self._fed = False
        return super().tick()

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if self._dropping is not None or self._unknown_sequence_starts(sequence, alt):
            self._drop(sequence)
            return ()
        if len(sequence) == 2 and sequence[0] == ESC and sequence[1] in "0123456789":
            return (events.Key(f"alt+{sequence[1]}", None),)
        keys = list(super()._sequence_to_key_events(sequence, alt))
        if sequence.startswith(ESC + "[") and sequence.endswith("~") and _typed(keys):
            # ``CSI 99 ~`` is no key (Textual reads its number as a character, "c"): not a
            # match, so the parser reads on and, at the end, reissues it, which drops it.
            return ()
        return keys

    def _unknown_sequence_starts(self, sequence: str, alt: bool) -> bool:
        """Whether Textual is giving up on an escape sequence and reissuing it as keys: the
        character after its ESC comes with ``alt`` (or the ESC itself comes alone, when the
        sequence grew too long)."""
        if sequence == ESC:
            self._dropping = "after-esc"
            return True
        if alt and sequence in ("[", "O"):
            self._dropping = "after-esc"
            return True
        return False

    def _drop(self, character: str) -> None:
        state = self._dropping
        if state == "after-esc":
            if character == "[":
                self._dropping = "csi"
            elif character == "O":
                self._dropping = "ss3"
            elif character != ESC:
                self._dropping = None
            if self._dropping is None:
                log.info("dropped an unknown key sequence")
        elif state == "ss3" or (state == "csi" and "\x40" <= character <= "\x7e"):
            self._dropping = None
            log.info("dropped an unknown key sequence")


def _typed(keys: list[events.Key]) -> bool:
    """Whether any of ``keys`` would type a character."""
    return any(key.character is not None and key.character.isprintable() for key in keys)
