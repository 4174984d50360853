"""Provides the JSON-RPC 2.0 error codes ACP uses, and RpcError.

A module of its own so that the UI can catch RpcError without loading the rest of the protocol.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

__all__ = ["ErrorCode", "RpcError"]


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
