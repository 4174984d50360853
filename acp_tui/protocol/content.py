"""Provides the ACP content blocks (text, image, audio, resource link, embedded resource)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Tag

from acp_tui.protocol.base import Lenient, SkipInvalid, WireModel
from acp_tui.protocol.unions import UNKNOWN, TaggedModel, open_union

Role = Literal["assistant", "user"]


class Annotations(WireModel):
    """Optional hints on a content block: audience, last modification, priority."""

    audience: Lenient[SkipInvalid[Role]] = None
    last_modified: Lenient[str] = None
    priority: Lenient[float] = None


class TextContent(TaggedModel):
    """Plain text (``type: "text"``)."""

    __wire_always__ = ("type",)
    type: Literal["text"] = "text"
    text: str
    annotations: Lenient[Annotations] = None


class ImageContent(TaggedModel):
    """A base64 image (``type: "image"``); needs ``promptCapabilities.image`` in prompts."""

    __wire_always__ = ("type",)
    type: Literal["image"] = "image"
    data: str
    mime_type: str
    uri: Lenient[str] = None
    annotations: Lenient[Annotations] = None


class AudioContent(TaggedModel):
    """Base64 audio (``type: "audio"``); needs ``promptCapabilities.audio`` in prompts."""

    __wire_always__ = ("type",)
    type: Literal["audio"] = "audio"
    data: str
    mime_type: str
    annotations: Lenient[Annotations] = None


class ResourceLink(TaggedModel):
    """A link to a resource the agent can fetch (``type: "resource_link"``)."""

    __wire_always__ = ("type",)
    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    mime_type: Lenient[str] = None
    title: Lenient[str] = None
    description: Lenient[str] = None
    size: Lenient[int] = None
    annotations: Lenient[Annotations] = None


class TextResourceContents(WireModel):
    """The text of an embedded resource."""

    uri: str
    text: str
    mime_type: Lenient[str] = None


class BlobResourceContents(WireModel):
    """The base64 bytes of an embedded resource."""

    uri: str
    blob: str
    mime_type: Lenient[str] = None


EmbeddedResourceResource = TextResourceContents | BlobResourceContents


class EmbeddedResource(TaggedModel):
    """A resource's contents inlined in the message (``type: "resource"``)."""

    __wire_always__ = ("type",)
    type: Literal["resource"] = "resource"
    resource: EmbeddedResourceResource
    annotations: Lenient[Annotations] = None


class UnknownContent(WireModel):
    """A content block of a type this client does not know; all its fields are kept."""

    type: str


KNOWN_CONTENT_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})

ContentBlock = Annotated[
    Annotated[TextContent, Tag("text")]
    | Annotated[ImageContent, Tag("image")]
    | Annotated[AudioContent, Tag("audio")]
    | Annotated[ResourceLink, Tag("resource_link")]
    | Annotated[EmbeddedResource, Tag("resource")]
    | Annotated[UnknownContent, Tag(UNKNOWN)],
    open_union("type", KNOWN_CONTENT_TYPES),
]
"""Any content block, discriminated on ``type``; unknown types become ``UnknownContent``."""

KnownContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
