"""Provides JSON-RPC 2.0 error codes, the RpcError exception and message classification."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

RequestId = int | str | None


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
        return f"{self.message} (code {self.code})"

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
