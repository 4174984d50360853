"""Provides Elicitation: an agent's question for the user (a form or a URL), ready to be asked.

The client turns a valid `elicitation/create` into an `Elicitation`: the request, its scope (a
live session and maybe one of its tool calls, or one of the client's own requests such as
`authenticate`), the parsed form, and for URL mode the event `elicitation/complete` sets. An
`ElicitationHandler` (the Workspace's, which asks through the UI) answers it with an `Answer`.
Anything the client cannot ask is refused before a handler sees it (`check_request`): an unknown
mode, a form without a schema, a URL without an id, no scope.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from pydantic_core import to_json

from acp_tui.client.safe_text import sanitize
from acp_tui.client.session.browser_url import check_link
from acp_tui.client.session.forms import Form, Value
from acp_tui.protocol.client_methods import CreateElicitationRequest, CreateElicitationResponse
from acp_tui.protocol.elicitation import ElicitationSchema
from acp_tui.protocol.held import hold_elicitation
from acp_tui.protocol.jsonrpc import RpcError

__all__ = [
    "Action",
    "Answer",
    "Elicitation",
    "ElicitationHandler",
    "UrlQuestions",
    "cancel_elicitation",
    "check_request",
    "url_copyable",
    "url_host",
    "url_problem",
]

log = logging.getLogger(__name__)

Action = Literal["accept", "decline", "cancel"]

EARLY_COMPLETIONS = 64
"""How many completions of questions not being asked are kept (see `UrlQuestions`)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """The user's answer: accept (with the form's content), decline, or cancel."""

    action: Action
    content: dict[str, Value] | None = None

    def to_wire(self) -> dict[str, Any]:
        response = CreateElicitationResponse(action=self.action)
        if self.action == "accept" and self.content is not None:
            response.content = dict(self.content)
        return response.to_wire()


ACCEPTED = Answer("accept")
DECLINED = Answer("decline")
CANCELLED = Answer("cancel")


@dataclass(eq=False)
class Elicitation:
    """One question of the agent, as a handler sees it."""

    request: CreateElicitationRequest
    session_id: str | None = None
    """The live session it belongs to; None for a request-scoped one (before any session)."""
    tool_title: str | None = None
    """The title of the tool call it belongs to, when the session's transcript has it."""
    form: Form | None = None
    """The parsed form (form mode)."""
    during: str | None = None
    """For a request-scoped question: the method of the client's request it is tied to, when
    that request is still waiting (e.g. ``authenticate``)."""
    completed: anyio.Event = field(default_factory=anyio.Event)
    """Set by `elicitation/complete` (URL mode): the agent says it is done."""

    @property
    def mode(self) -> str:
        return str(self.request.mode)

    @property
    def message(self) -> str:
        return self.request.message


ElicitationHandler = Callable[[Elicitation], Awaitable[Answer]]
"""Asks the user; cancelled (by `$/cancel_request` or the session's cancel) it is answered for."""


async def cancel_elicitation(elicitation: Elicitation) -> Answer:
    """The default with nobody to ask: ``cancel`` (``decline`` would claim the user said no)."""
    return CANCELLED


class UrlQuestions:
    """The URL questions being asked, by ``elicitationId``, which `elicitation/complete` ends.

    A completion sent right after its request is read before the request's handler runs (the
    read loop applies notifications at once, requests start in tasks): completions of ids not
    being asked are kept (the last `EARLY_COMPLETIONS`) for a question that starts later.
    """

    def __init__(self) -> None:
        self.asked: dict[str, Elicitation] = {}
        self.early: dict[str, None] = {}

    @contextmanager
    def asking(self, elicitation: Elicitation) -> Iterator[None]:
        """While a question is asked (a form question: nothing to do)."""
        key = elicitation.request.elicitation_id if elicitation.mode == "url" else None
        if key is None:
            yield
            return
        if key in self.asked:
            raise RpcError.invalid_params(f"elicitationId {sanitize(key, 60)!r} is being asked")
        self.asked[key] = elicitation
        if key in self.early:  # completed before its handler ran
            del self.early[key]
            elicitation.completed.set()
        try:
            yield
        finally:
            del self.asked[key]

    def complete(self, elicitation_id: str) -> None:
        elicitation = self.asked.get(elicitation_id)
        if elicitation is not None:
            elicitation.completed.set()
            return
        log.info("elicitation/complete for %r, which is not being asked", elicitation_id[:60])
        self.early[elicitation_id] = None
        while len(self.early) > EARLY_COMPLETIONS:
            del self.early[next(iter(self.early))]


def check_request(
    params: Any, *, form: bool = True
) -> tuple[CreateElicitationRequest, Form | None]:
    """Parse an `elicitation/create` this client can ask, or raise -32602 saying why not (its
    fields and choices capped first: `acp_tui.protocol.held`). ``form=False``: as strictly,
    for a question refused without asking, whose form is not built (None)."""
    hold_elicitation(params)
    request = CreateElicitationRequest.model_validate(params)
    scoped = request.session_id is not None or "request_id" in request.model_fields_set
    if not scoped:
        raise RpcError.invalid_params("an elicitation needs a sessionId or a requestId")
    if request.mode == "form":
        schema = request.requested_schema
        if not isinstance(schema, dict):
            raise RpcError.invalid_params("a form elicitation needs a requestedSchema object")
        if not form:
            _check_schema(schema)
            return request, None
        return request, Form.of(ElicitationSchema.from_wire(schema))
    if request.mode == "url":
        if not request.elicitation_id or request.url is None:
            raise RpcError.invalid_params("a URL elicitation needs an elicitationId and a url")
        return request, None
    shown = sanitize(str(request.mode), 60)
    raise RpcError.invalid_params(
        f"elicitation mode {shown!r} is not supported (this client asks forms and URLs)"
    )


def _check_schema(schema: dict[str, Any]) -> None:
    """Raise as ``check_request`` does when ``schema`` makes no form; a small schema read
    before is not read again (a flood of 10,000 refused forms, one schema: most of its cost)."""
    try:
        key = to_json(schema)
    except ValueError:  # (a lone surrogate): read it, not kept
        key = b""
    if key in _read_schemas:
        return
    Form.of(ElicitationSchema.from_wire(schema))
    if key and len(key) <= SCHEMA_KEPT:
        if len(_read_schemas) >= SCHEMAS_KEPT:
            _read_schemas.clear()
        _read_schemas[key] = None


SCHEMA_KEPT = 4096
SCHEMAS_KEPT = 64
"""The small schemas (their JSON at most ``SCHEMA_KEPT`` bytes) known to make a form: at most
``SCHEMAS_KEPT`` of them."""
_read_schemas: dict[bytes, None] = {}


def url_problem(url: str) -> str | None:
    """Why acp-tui will not open ``url`` in a browser (None: it may, on the user's key press):
    see `check_link`."""
    return check_link(url).problem


def url_host(url: str) -> str | None:
    """The host ``url`` leads to, as the browser reads it (an international name also in the
    ASCII form the browser uses); None when it leads nowhere a browser would go."""
    return check_link(url).host


def url_copyable(url: str) -> bool:
    """Whether ``url`` may be copied: it reads as where it leads (`check_link`)."""
    return not check_link(url).disguised
