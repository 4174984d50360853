"""Provides ChangesContent: file changes and a patch in the shared tool-content shape.

A v2 agent reports an edit as a set of changed paths and a git patch, where v1 sends one
file's old and new text. The v2 dialect turns the former into this content item, so that every
view reads one shape whatever the protocol version: ``content`` is a text summary any view can
show, ``changes`` and ``patch`` the structure for views that colour it.
"""

from __future__ import annotations

from acp_tui.protocol.content import TextContent
from acp_tui.protocol.tools import ContentToolCallContent
from acp_tui.protocol.v2 import tools as v2t

__all__ = ["ChangesContent"]


class ChangesContent(ContentToolCallContent):
    """Changed files and their patch, shown through the shared content shape."""

    changes: list[v2t.DiffChange]
    patch: v2t.DiffPatch | None = None

    @classmethod
    def of(cls, diff: v2t.Diff) -> ChangesContent:
        """The content item of a v2 diff: one summary line per change, then the patch."""
        lines = []
        for change in diff.changes:
            where = f"{change.old_path} -> {change.path}" if change.old_path else change.path
            lines.append(f"{change.operation} {where}")
        if diff.patch is not None:
            lines.append(diff.patch.text.rstrip("\n"))
        return cls(
            content=TextContent(text="\n".join(lines)), changes=diff.changes, patch=diff.patch
        )
