"""Provides BrowserOpener: ``--open`` without the token on a command line.

A browser is started with the address to open as an argument, which every user of the
machine can read in the process list. So the browser is given a file instead, readable by
this user only, whose page sends it on to the address with the token (as Jupyter does). The
file is removed when the server stops.
"""

from __future__ import annotations

import html
import shutil
import tempfile
import webbrowser
from pathlib import Path

__all__ = ["BrowserOpener"]

_REDIRECT = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url={url}">
<title>acp-tui</title>
</head>
<body><p><a href="{url}">Open acp-tui</a></p></body>
</html>
"""


class BrowserOpener:
    """Opens the served address in the user's browser through a private file."""

    def __init__(self) -> None:
        self.folder: Path | None = None

    def open(self, url: str) -> str | None:
        """Open ``url``; why it could not be, or None. Blocks while the browser starts."""
        try:
            self.folder = Path(tempfile.mkdtemp(prefix="acp-tui-serve-"))  # mode 0700
            page = self.folder / "open.html"
            page.write_text(_REDIRECT.format(url=html.escape(url, quote=True)), "utf-8")
            page.chmod(0o600)
            opened = webbrowser.open(page.as_uri())
        except Exception as exc:  # a browser that fails must not take the server with it
            return str(exc)
        return None if opened else "no web browser was found"

    def close(self) -> None:
        """Remove the file (the server stops)."""
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
