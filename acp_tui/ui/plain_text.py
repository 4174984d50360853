"""Provides agent text as widgets show it: sanitised, and plain (never parsed as markup).

A widget given a ``str`` parses it as Textual markup, so an agent's ``[@click=app.quit]`` would be
a live action and its ``[/]`` a crash. Widgets get agent text only through ``safe_content``
(Textual ``Content``) or ``safe_text`` (Rich ``Text``), both built from ``sanitize``, the one
sanitiser of ``acp_tui.client.safe_text``. Small on purpose: widgets drawn in the first frame
use it.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from acp_tui.client.safe_text import sanitize

__all__ = [
    "LABEL_LIMIT",
    "LIST_LIMIT",
    "NAME_LIMIT",
    "TEXT_LIMIT",
    "more_text",
    "safe_content",
    "safe_text",
    "sanitize",
]

NAME_LIMIT = 60
"""The most characters of a name shown among other things (the status line's titles)."""
LABEL_LIMIT = 200
"""The most characters of a label (a button, an option, a row's title)."""
TEXT_LIMIT = 1000
"""The most characters of a message (a dialog's question, a reason, a toast)."""
LIST_LIMIT = 100
"""The most items of an agent's list shown (plan entries, locations, commands...); the rest are
counted ("… N more"), and kept in the data."""


def more_text(hidden: int, what: str) -> str:
    """The line that stands for ``hidden`` items not shown."""
    return f"… {hidden:,} more {what}"


def safe_content(text: str, style: str = "", *, limit: int | None = None) -> Content:
    """``text`` sanitised (and clipped to ``limit``), as literal Textual ``Content``."""
    plain = sanitize(text, limit)
    return Content.styled(plain, style) if style else Content(plain)


def safe_text(text: str, style: str = "", *, limit: int | None = None) -> Text:
    """``text`` sanitised (and clipped to ``limit``), as a literal Rich ``Text``."""
    return Text(sanitize(text, limit), style=style)
