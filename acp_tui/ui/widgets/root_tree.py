"""Provides RootTree and PathInput: browsing and typing directories when choosing roots.

RootTree is a DirectoryTree that lists directories only and at most ``limit`` of them per
folder, followed by one "… and N more" line. The listing runs in DirectoryTree's worker thread
(``filter_paths`` is called there), but the nodes are added on the UI thread, so a folder with
tens of thousands of entries would freeze the app while its nodes are built; the cap keeps that
work small whatever the folder's size. Backspace shows the parent folder.

PathInput is an Input where Tab completes the directory name being typed (shell-style); with
nothing to complete, Tab moves the focus on as usual.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DirectoryTree, Input

from acp_tui.client.tools.root_choice import Completion, complete_directory
from acp_tui.ui.plain_text import safe_text

DEFAULT_LIMIT = 500
"""The most directories RootTree shows in one folder."""


def is_directory(path: Path) -> bool:
    """Whether ``path`` is a directory (links followed); False when that cannot be told."""
    try:
        return path.is_dir()
    except OSError:
        return False


class RootTree(DirectoryTree):
    """Directories only, capped per folder; Backspace goes to the parent folder."""

    BINDINGS = [
        Binding("a", "add", "Add as a root"),
        Binding("backspace", "parent", "Parent folder", show=False),
    ]

    @dataclass
    class AddRequested(Message):
        """The user asked to add the highlighted directory as a root."""

        tree: RootTree
        path: Path

        @property
        def control(self) -> RootTree:
            return self.tree

    def __init__(self, path: str | Path, *, limit: int = DEFAULT_LIMIT, id: str | None = None):
        super().__init__(path, id=id)
        self.limit = limit

    def process_label(self, label: str | Text) -> Text:
        """A folder's name as literal text, its control characters made visible."""
        return super().process_label(safe_text(label) if isinstance(label, str) else label)

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        """Directories only, the first ``limit`` by name, then a marker for the rest.

        Runs in the tree's loader thread. The marker is a path that is not a directory, so
        the tree shows it as a leaf; selecting it does nothing.
        """
        folders: list[Path] = []
        parent: Path | None = None
        for path in paths:
            parent = path.parent
            if is_directory(path):
                folders.append(path)
        folders.sort(key=lambda p: p.name.lower())
        shown = folders[: self.limit]
        if parent is not None and len(folders) > self.limit:
            extra = len(folders) - self.limit
            shown.append(parent / f"… and {extra:,} more (type the path above)")
        return shown

    def action_add(self) -> None:
        node = self.cursor_node
        if node is not None and node.data is not None and is_directory(node.data.path):
            self.post_message(self.AddRequested(self, node.data.path))

    def action_parent(self) -> None:
        """Show the folder above the current top of the tree."""
        current = Path(self.path)
        if current.parent != current:
            self.path = current.parent


@dataclass(frozen=True, slots=True)
class Shown:
    """A summary of completion candidates, for a hint line."""

    names: tuple[str, ...]
    more: bool

    def describe(self) -> str:
        if not self.names:
            return "No folder matches."
        listed = "  ".join(f"{name}/" for name in itertools.islice(self.names, 12))
        return listed + ("  …" if self.more or len(self.names) > 12 else "")


class PathInput(Input):
    """An Input for a directory path; Tab completes the name being typed."""

    BINDINGS = [Binding("tab", "complete", "Complete", show=False)]

    @dataclass
    class Completed(Message):
        """Tab was pressed: what matched (the input already shows the completed text)."""

        path_input: PathInput
        shown: Shown

        @property
        def control(self) -> PathInput:
            return self.path_input

    def __init__(self, cwd: Path, *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id, compact=True)  # one line: fits 80x24
        self.cwd = cwd

    def complete(self) -> Completion:
        """Complete the text up to the cursor's end; the text is replaced when it grows."""
        done = complete_directory(self.value, self.cwd)
        if done.text != self.value:
            self.value = done.text
            self.cursor_position = len(done.text)
        return done

    def action_complete(self) -> None:
        before = self.value
        if not before:
            self.screen.focus_next()
            return
        done = self.complete()
        self.post_message(self.Completed(self, Shown(done.candidates, done.more)))
        if done.text == before and len(done.candidates) <= 1:
            self.screen.focus_next()  # nothing more to complete: Tab moves on
