"""Provides unified_diff: a tool call's edit of a file as the text of a unified diff.

One implementation for every view of an edit: the transcript view colours its lines, the
Markdown export puts them in a ``diff`` code block.
"""

from __future__ import annotations

import difflib

__all__ = ["unified_diff"]


def unified_diff(path: str, old: str | None, new: str) -> str:
    """The edit of ``path`` from ``old`` to ``new`` as unified diff lines joined by newlines.

    ``old`` None means a new file, diffed from ``/dev/null``. Line ends are not compared, so a
    file that only changed CRLF to LF shows no changed line.
    """
    lines = difflib.unified_diff(
        (old or "").splitlines(),
        new.splitlines(),
        fromfile="/dev/null" if old is None else path,
        tofile=path,
        lineterm="",
    )
    return "\n".join(lines)
