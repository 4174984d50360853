"""Provides what turns the user's prompt and its attached files into ACP content blocks.

Which files are attached is decided by `acp_tui.client.tools.mentions`. Each attachment becomes a
``resource_link``, which every agent accepts, or, only when the agent advertises
``promptCapabilities.embeddedContext``, an embedded ``resource`` carrying the file's text. A
PNG, JPEG, GIF or WebP file (by its name and its first bytes) becomes an ``image`` block
(base64) when the agent advertises ``promptCapabilities.image``. Anything else binary, not
UTF-8 or larger than the read limit is linked.

The output of a ``!`` command the user ran (`CommandOutput`) goes with the next prompt as
context: an embedded text ``resource`` for an agent that advertises ``embeddedContext``, else a
``text`` block saying what it is, so that no agent gets a content kind it did not advertise.
"""

from __future__ import annotations

import base64
import logging
import mimetypes
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.client.tools.mentions import IMAGE_SUFFIXES
from acp_tui.protocol.content import (
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

log = logging.getLogger(__name__)

READ_LIMIT = 1_000_000
"""The largest file (in bytes) embedded in a prompt; bigger files are linked."""

IMAGE_LIMIT = 10_000_000
"""The largest image (in bytes) sent inline; bigger ones are linked."""

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP file from its first 12 bytes, else None."""
    for magic, mime_type in _MAGIC:
        if head.startswith(magic):
            return mime_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def build_prompt_blocks(
    text: str,
    attachments: Sequence[Path],
    *,
    embedded_context: bool,
    image: bool = False,
    read_limit: int = READ_LIMIT,
) -> list[ContentBlock]:
    """The prompt's blocks: the text, then one block per attached file (absolute paths).

    Files are embedded only when ``embedded_context`` says the agent accepts it, and images
    sent only when ``image`` does, so a content kind the agent did not advertise is never built.
    """
    blocks: list[ContentBlock] = []
    if text or not attachments:
        blocks.append(TextContent(text=text))
    for path in attachments:
        block = image_block(path) if image else None
        blocks.append(
            block or attachment_block(path, embedded_context=embedded_context, limit=read_limit)
        )
    return blocks


def image_block(path: Path, limit: int = IMAGE_LIMIT) -> ImageContent | None:
    """The file as an ``image`` block when it is a PNG, JPEG, GIF or WebP of at most ``limit``
    bytes (its name and its content agree), else None."""
    path = Path(os.path.abspath(path))
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        return None
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        log.info("could not read the image %s: %s", path, exc)
        return None
    mime_type = image_type(data[:12])
    if mime_type is None or len(data) > limit:
        return None
    encoded = base64.b64encode(data).decode("ascii")
    return ImageContent(data=encoded, mime_type=mime_type, uri=path.as_uri())


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


@dataclass(frozen=True, slots=True)
class CommandOutput:
    """What a ``!`` command printed, waiting to go with the next prompt as context."""

    uri: str
    """Names it in the prompt (``acp-tui://shell/N``): agents show a resource by its URI."""
    command: str
    cwd: str
    output: str
    exit_code: int | None
    signal: str | None = None
    truncated: bool = False
    """Only the end of the output is kept (the end is where errors and results are)."""
    stopped: bool = False
    """The user stopped it (Esc), or it ran out of time, before it ended."""

    @property
    def how_it_ended(self) -> str:
        if self.stopped:
            return "stopped before it ended"
        if self.signal is not None:
            return f"killed by {self.signal}"
        return f"exit code {self.exit_code}"

    def text(self) -> str:
        """The command, where it ran and how it ended, then its output: what the agent reads."""
        cut = "; only the end of its output is kept" if self.truncated else ""
        head = f"$ {self.command}\n(run by the user in {self.cwd}; {self.how_it_ended}{cut})\n"
        return head + self.output

    @property
    def lines(self) -> int:
        return len(self.output.splitlines())


def context_block(item: CommandOutput, *, embedded_context: bool) -> ContentBlock:
    """A ``!`` command's output as a prompt block: a text resource when the agent takes
    embedded context, else a text block with the output fenced."""
    if embedded_context:
        resource = TextResourceContents(uri=item.uri, text=item.text(), mime_type="text/plain")
        return EmbeddedResource(resource=resource)
    body = f"$ {item.command}\n{item.output.rstrip()}"
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    cut = ", only the end of its output kept" if item.truncated else ""
    return TextContent(
        text=f"A command I ran in {item.cwd} ({item.how_it_ended}{cut}):\n{fence}\n{body}\n{fence}"
    )
