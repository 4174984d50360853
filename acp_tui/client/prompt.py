"""Provides what turns the user's prompt and its attached files into ACP content blocks.

Which files are attached is decided by `acp_tui.client.mentions`. Each attachment becomes a
``resource_link``, which every agent accepts, or, only when the agent advertises
``promptCapabilities.embeddedContext``, an embedded ``resource`` carrying the file's text. A
file that is binary, not UTF-8 or larger than the read limit is always linked.
"""

from __future__ import annotations

import logging
import mimetypes
import os
from collections.abc import Sequence
from pathlib import Path

from acp_tui.protocol.content import (
    ContentBlock,
    EmbeddedResource,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

log = logging.getLogger(__name__)

READ_LIMIT = 1_000_000
"""The largest file (in bytes) embedded in a prompt; bigger files are linked."""


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
