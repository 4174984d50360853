"""Provides edit_in_editor: the prompt's draft edited in the user's own editor.

Ctrl+G (or Ctrl+X Ctrl+E, as in bash) writes the draft to a private temporary file, gives the
terminal to ``$VISUAL`` (else ``$EDITOR``) with the app suspended as for a terminal login
(`acp_tui.ui.suspend`: nothing drawn meanwhile), and takes the file's text back when the editor
exits 0. The draft is kept, and the reason said, when no editor is set, when it cannot start,
when it fails (a non-zero exit, as ``:cq`` in vim) or when there is no terminal to give (the
app in a web browser). The app's event loop runs on meanwhile: the agents' messages keep arriving.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import anyio.abc
    from textual.app import App

__all__ = ["Edited", "edit_in_editor", "editor_command"]

STOP_GRACE = 2.0
"""When the app quits while the editor runs: how long the editor has after SIGTERM."""


@dataclass(frozen=True, slots=True)
class Edited:
    """What came back: the new text, or None with the reason the draft was kept."""

    text: str | None
    problem: str = ""


def editor_command(env: Mapping[str, str]) -> list[str] | None:
    """``$VISUAL``, else ``$EDITOR``, as a command line (None when neither is set)."""
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            with contextlib.suppress(ValueError):
                argv = shlex.split(value)
                if argv:
                    return argv
    return None


async def edit_in_editor(app: App[Any], text: str, cwd: Path) -> Edited:
    """Edit ``text`` in the user's editor with the app suspended; what came back.

    If the app quits meanwhile (SIGTERM), the editor is ended rather than waited for."""
    import anyio
    from textual.app import SuspendNotSupported

    from acp_tui.ui.suspend import on_the_terminal

    argv = editor_command(os.environ)
    if argv is None:
        return Edited(None, "set $VISUAL or $EDITOR to edit the prompt in your editor")
    name = Path(argv[0]).name
    with tempfile.TemporaryDirectory(prefix="acp-tui-prompt-") as folder:
        path = Path(folder) / "prompt.md"
        path.write_text(text, encoding="utf-8")
        try:
            with on_the_terminal(app):
                try:
                    # stdin, stdout and stderr inherited: the terminal is the editor's now.
                    editor = await anyio.open_process(
                        [*argv, str(path)], cwd=cwd, stdin=None, stdout=None, stderr=None
                    )
                except OSError as exc:
                    return Edited(None, f"could not start {name}: {exc.strerror or exc}")
                try:
                    code = await editor.wait()
                except BaseException:
                    with anyio.CancelScope(shield=True):
                        await _end(editor)
                    raise
        except SuspendNotSupported:
            return Edited(None, "there is no terminal to give to an editor here")
        if code != 0:
            return Edited(None, f"{name} exited with {code}")
        try:
            edited = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return Edited(None, f"could not read the edited prompt: {exc.strerror or exc}")
    # Editors end a file with a newline; the draft had none at its end, or it had one.
    return Edited(edited if text.endswith("\n") else edited.removesuffix("\n"))


async def _end(editor: anyio.abc.Process) -> None:
    """End the editor: SIGTERM, then SIGKILL after ``STOP_GRACE``."""
    import anyio

    editor.terminate()
    with anyio.move_on_after(STOP_GRACE):
        await editor.wait()
        return
    editor.kill()
    await editor.wait()
