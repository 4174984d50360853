"""Provides what turns the user's prompt into ACP content blocks, and the files it can mention.

Attachments are written in the prompt itself: ``@path`` (or ``@"path with spaces"``), relative
to the session's cwd or absolute. At send time every mention that names an existing regular file
inside the session's roots becomes an attachment; the text is sent unchanged, so the user sees
exactly what the agent is told. Anything else that starts with ``@`` stays plain text.

Each attachment becomes a ``resource_link``, which every agent accepts, or, only when the agent
advertises ``promptCapabilities.embeddedContext``, an embedded ``resource`` carrying the file's
text. A file that is binary, not UTF-8 or larger than the read limit is always linked.
"""

from __future__ import annotations

import logging
import mimetypes
import os
import re
from collections import deque
from collections.abc import Iterable, Sequence
from pathlib import Path

from acp_tui.client.roots import RootSet
from acp_tui.protocol.content import (
    ContentBlock,
    EmbeddedResource,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from acp_tui.protocol.jsonrpc import RpcError

log = logging.getLogger(__name__)

READ_LIMIT = 1_000_000
"""The largest file (in bytes) embedded in a prompt; bigger files are linked."""

WALK_LIMIT = 5_000
"""How many files the ``@`` picker lists at most."""

SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "env", "site-packages"})

# An @ at the start or after whitespace or an opening bracket (so e-mail addresses do not count),
# followed by a quoted path or by everything up to the next whitespace.
_MENTION = re.compile(r"(?<![^\s(\[{])@(?:\"([^\"\n]+)\"|(\S+))")
_TRAILING_PUNCTUATION = ".,;:!?)]}'\""


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


def build_prompt_blocks(
    text: str,
    attachments: Sequence[Path],
    *,
    embedded_context: bool,
    read_limit: int = READ_LIMIT,
) -> list[ContentBlock]:
    """The prompt's blocks: the text, then one block per attached file (absolute paths).

    Files are embedded only when ``embedded_context`` says the agent accepts it, so a content
    kind the agent did not advertise is never built.
    """
    blocks: list[ContentBlock] = []
    if text or not attachments:
        blocks.append(TextContent(text=text))
    for path in attachments:
        blocks.append(attachment_block(path, embedded_context=embedded_context, limit=read_limit))
    return blocks


def attachment_block(
    path: Path, *, embedded_context: bool, limit: int = READ_LIMIT
) -> ResourceLink | EmbeddedResource:
    """One file as an embedded text resource when allowed and possible, else as a link."""
    path = Path(os.path.abspath(path))
    uri = path.as_uri()
    mime_type, _ = mimetypes.guess_type(path.name)
    try:
        size: int | None = path.stat().st_size
    except OSError as exc:
        log.info("could not stat the attachment %s: %s", path, exc)
        size = None
    if embedded_context and size is not None and size <= limit:
        text = read_text(path, limit)
        if text is not None:
            resource = TextResourceContents(uri=uri, text=text, mime_type=mime_type)
            return EmbeddedResource(resource=resource)
    return ResourceLink(uri=uri, name=path.name, mime_type=mime_type, size=size)


def read_text(path: Path, limit: int) -> str | None:
    """The file's text when it is UTF-8, has no NUL byte and fits in ``limit`` bytes."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        log.info("could not read the attachment %s: %s", path, exc)
        return None
    if len(data) > limit or b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


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
