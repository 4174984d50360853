"""Provides the JSON-RPC 2.0 error codes ACP uses, RpcError, and the words of its ``data``.

A module of its own so that the UI can catch RpcError without loading the rest of the protocol.

Agents put the reason in ``data`` and a generic text in ``message`` (codex-acp answers
"Internal error" with ``data: "CODEX_API_KEY is not set"``), so ``str(RpcError)`` says both:
``Internal error (code -32603) — CODEX_API_KEY is not set``. Whoever shows it sanitises it
(``acp_tui.client.safe_text.sanitize``): it is the agent's text.
"""

from __future__ import annotations

import json
from enum import IntEnum
from typing import Any

__all__ = ["DETAIL_CHARS", "DETAIL_LINES", "ErrorCode", "RpcError", "error_detail"]

DETAIL_LINES = 6
DETAIL_CHARS = 600
"""At most this much of an error's ``data`` is shown (a stack trace must not fill the screen)."""


class ErrorCode(IntEnum):
    """Error codes used by ACP (JSON-RPC's own plus ACP's)."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    REQUEST_CANCELLED = -32800
    AUTH_REQUIRED = -32000
    RESOURCE_NOT_FOUND = -32002


class RpcError(Exception):
    """A JSON-RPC error, raised by handlers to answer with it and by calls that received it."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        text = f"{self.message} (code {self.code})"
        detail = error_detail(self.data, self.message)
        return f"{text} — {detail}" if detail else text

    @property
    def detail(self) -> str | None:
        """What ``data`` says for a reader (see :func:`error_detail`)."""
        return error_detail(self.data, self.message)

    @property
    def said(self) -> str:
        """The message and what ``data`` says, without the code: the error in a sentence."""
        detail = self.detail
        return f"{self.message} — {detail}" if detail else self.message

    def to_wire(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    @classmethod
    def from_wire(cls, error: Any) -> RpcError:
        """Build from a received error object, tolerating malformed ones."""
        if not isinstance(error, dict):
            return cls(ErrorCode.INTERNAL_ERROR, f"malformed error from peer: {error!r}")
        code = error.get("code")
        message = error.get("message")
        return cls(
            code
            if isinstance(code, int) and not isinstance(code, bool)
            else ErrorCode.INTERNAL_ERROR,
            message if isinstance(message, str) else f"error without a message: {error!r}",
            error.get("data"),
        )

    @classmethod
    def method_not_found(cls, method: str) -> RpcError:
        return cls(ErrorCode.METHOD_NOT_FOUND, f"Method not found: {method}", {"method": method})

    @classmethod
    def invalid_params(cls, message: str, data: Any = None) -> RpcError:
        return cls(ErrorCode.INVALID_PARAMS, f"Invalid params: {message}", data)

    @classmethod
    def internal(cls, message: str) -> RpcError:
        return cls(ErrorCode.INTERNAL_ERROR, f"Internal error: {message}")

    @classmethod
    def not_found(cls, message: str, uri: str | None = None) -> RpcError:
        return cls(ErrorCode.RESOURCE_NOT_FOUND, message, {"uri": uri} if uri else None)

    @classmethod
    def cancelled(cls) -> RpcError:
        return cls(ErrorCode.REQUEST_CANCELLED, "Request cancelled")

    @property
    def is_auth_required(self) -> bool:
        return self.code == ErrorCode.AUTH_REQUIRED

    @property
    def is_not_found(self) -> bool:
        return self.code == ErrorCode.RESOURCE_NOT_FOUND

    @property
    def is_method_not_found(self) -> bool:
        return self.code == ErrorCode.METHOD_NOT_FOUND


def error_detail(data: Any, message: str = "") -> str | None:
    """The readable part of an error's ``data``, bounded; None when it has none.

    ``data`` may be a string, or an object with a ``message`` and/or ``details`` (a string, or
    any JSON value shown compactly). Anything else (say ``{"uri": ...}``) is for programs, not
    for the user. A part that only repeats the error's ``message`` is left out. At most
    `DETAIL_LINES` lines and `DETAIL_CHARS` characters are kept, with "…" where cut.
    """
    parts: list[str | None]
    if isinstance(data, str):
        parts = [data]
    elif isinstance(data, dict):
        parts = [_part(data.get("message")), _part(data.get("details"))]
    else:
        return None
    said = message.strip()
    kept = [p.strip() for p in parts if p is not None and p.strip() and p.strip() != said]
    if not kept:
        return None
    return _bounded("\n".join(kept))


def _part(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))[: DETAIL_CHARS + 1]
    except (TypeError, ValueError, RecursionError):
        return None


def _bounded(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    cut = len(lines) > DETAIL_LINES
    text = "\n".join(lines[:DETAIL_LINES])
    if len(text) > DETAIL_CHARS:
        text, cut = text[:DETAIL_CHARS].rstrip(), True
    return text + "…" if cut else text
