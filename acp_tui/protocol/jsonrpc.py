"""Provides JSON-RPC 2.0 message classification (and re-exports the error codes and RpcError)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp_tui.protocol.errors import ErrorCode, RpcError

__all__ = [
    "ConnectionClosed",
    "ErrorCode",
    "Invalid",
    "Notification",
    "Request",
    "RequestId",
    "Response",
    "RpcError",
    "classify",
    "id_key",
]

RequestId = int | str | None


class ConnectionClosed(Exception):
    """The peer went away (end of stream or a broken pipe); pending calls fail with this."""


@dataclass(frozen=True, slots=True)
class Request:
    id: RequestId
    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class Notification:
    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class Response:
    id: RequestId
    result: Any = None
    error: RpcError | None = None


@dataclass(frozen=True, slots=True)
class Invalid:
    """A JSON value that is no JSON-RPC message; ``id`` is set when an error reply is due."""

    reason: str
    id: RequestId = None
    reply: bool = False


Message = Request | Notification | Response | Invalid


def _valid_id(value: Any) -> bool:
    return value is None or (isinstance(value, int | str) and not isinstance(value, bool))


def classify(obj: Any) -> Message:
    """Classify one decoded JSON value as a request, notification, response or invalid."""
    if not isinstance(obj, dict):
        return Invalid(f"not a JSON-RPC object: {type(obj).__name__}")
    method = obj.get("method")
    has_id = "id" in obj
    msg_id = obj.get("id")
    if method is not None:
        if not isinstance(method, str):
            return Invalid("method is not a string", msg_id if _valid_id(msg_id) else None, has_id)
        params = obj.get("params")
        if has_id:
            if not _valid_id(msg_id):
                return Invalid("invalid request id", None, True)
            return Request(msg_id, method, params)
        return Notification(method, params)
    if has_id and ("result" in obj or "error" in obj):
        if not _valid_id(msg_id):
            return Invalid("invalid response id")
        if "error" in obj and obj["error"] is not None:
            return Response(msg_id, error=RpcError.from_wire(obj["error"]))
        return Response(msg_id, result=obj.get("result"))
    return Invalid("neither a request, a notification nor a response")


def id_key(msg_id: RequestId) -> tuple[str, RequestId]:
    """A dict key that keeps 1 and "1" apart."""
    return (type(msg_id).__name__, msg_id)
