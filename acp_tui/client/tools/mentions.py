"""Provides the files a prompt can mention: ``@path`` tokens, their files and the ``@`` picker.

Attachments are written in the prompt itself: ``@path`` (or ``@"path with spaces"``), relative
to the session's cwd or absolute. At send time every mention that names an existing regular file
inside the session's roots becomes an attachment; the text is sent unchanged, so the user sees
exactly what the agent is told. Anything else that starts with ``@`` stays plain text.

No protocol models here: the prompt editor uses this module from the first frame on.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.client.tools.roots import RootSet

WALK_LIMIT = 5_000
"""How many files the ``@`` picker lists at most."""

SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "env", "site-packages"})

# An @ at the start or after whitespace or an opening bracket (so e-mail addresses do not count),
# followed by a quoted path or by everything up to the next whitespace.
_MENTION = re.compile(r"(?<![^\s(\[{])@(?:\"([^\"\n]+)\"|(\S+))")
_TRAILING_PUNCTUATION = ".,;:!?)]}'\""


IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
"""The files sent as ``image`` blocks to agents that take images (PNG, JPEG, GIF, WebP)."""


def pasted_image_path(text: str, cwd: Path) -> Path | None:
    """The image file a paste names, when the paste is just one path to one (a terminal pastes
    a dropped file as its path: maybe quoted, with escaped spaces, or as a ``file://`` URI)."""
    from urllib.parse import unquote, urlsplit

    candidate = text.strip()
    if not candidate or "\n" in candidate:
        return None
    if len(candidate) >= 2 and candidate[0] == candidate[-1] and candidate[0] in "'\"":
        candidate = candidate[1:-1]
    elif candidate.startswith("file://"):
        candidate = unquote(urlsplit(candidate).path)
    else:
        candidate = re.sub(r"\\(.)", r"\1", candidate)  # shell escapes: my\ photo.png
    path = Path(os.path.expanduser(candidate))
    if not path.is_absolute():
        path = cwd / path
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        return None
    try:
        return path if path.is_file() else None
    except OSError:
        return None


def find_mentions(text: str) -> list[str]:
    """The ``@path`` tokens in ``text``, in order, without the ``@`` (and without quotes)."""
    return [quoted or bare for quoted, bare in _MENTION.findall(text)]


def mention_for(path: str) -> str:
    """How to write ``path`` after an ``@`` so that `find_mentions` gives it back whole."""
    if not path or any(ch.isspace() for ch in path):
        return f'"{path}"'
    return path


def resolve_mentions(text: str, roots: RootSet, cwd: Path) -> list[Path]:
    """The real paths of the files that the mentions in ``text`` name inside ``roots``.

    A mention that names nothing, a directory, or a path outside the roots is ignored (it stays
    text). Trailing punctuation ("see @README.md.") is tried without it too. No duplicates.
    """
    from acp_tui.protocol.jsonrpc import RpcError  # what a refused path raises

    found: list[Path] = []
    for token in find_mentions(text):
        for candidate in dict.fromkeys((token, token.rstrip(_TRAILING_PUNCTUATION))):
            if not candidate:
                continue
            path = Path(candidate) if candidate.startswith("/") else cwd / candidate
            try:
                real = roots.check(str(path))
            except RpcError:
                continue
            if real not in found:
                found.append(real)
            break
    return found


def display_path(path: Path, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when it lies under it, else absolute."""
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def list_files(roots: Iterable[Path], cwd: Path, limit: int = WALK_LIMIT) -> list[str]:
    """Files under ``roots``, shallowest first, as `display_path` strings; at most ``limit``.

    Hidden directories, dependency and cache directories and virtual environments are skipped,
    and symbolic links to directories are not followed (no loops, no leaving the roots).
    """
    found: list[str] = []
    seen: set[str] = set()
    queue: deque[Path] = deque(roots)
    while queue and len(found) < limit:
        directory = queue.popleft()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not skip_directory(entry):
                        queue.append(Path(entry.path))
                elif entry.is_file():
                    shown = display_path(Path(entry.path), cwd)
                    if shown not in seen:
                        seen.add(shown)
                        found.append(shown)
                        if len(found) >= limit:
                            break
            except OSError:
                continue
    return found


def skip_directory(entry: os.DirEntry[str]) -> bool:
    name = entry.name
    if name.startswith(".") or name in SKIPPED_DIRS:
        return True
    return os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))


def filter_paths(paths: Sequence[str], query: str, limit: int = 100) -> list[str]:
    """The paths containing ``query`` (any case); those whose file name matches come first."""
    needle = query.casefold()
    by_name: list[str] = []
    by_path: list[str] = []
    for path in paths:
        folded = path.casefold()
        if needle not in folded:
            continue
        (by_name if needle in folded.rsplit("/", 1)[-1] else by_path).append(path)
        if len(by_name) >= limit:
            break
    return (by_name + by_path)[:limit]
