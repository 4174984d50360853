"""Provides hand-written validation of incoming request params, failing with clear -32602 errors.

The demo agent deliberately does not use the pydantic wire models: it is the reference the
client's models are tested against, so it reads plain dicts exactly as PROTOCOL.md spells them.
"""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from acp_tui.protocol.jsonrpc import RpcError

Params = dict[str, Any]


def is_absolute(path: str) -> bool:
    """Absolute on POSIX or on Windows: the agent may be talking about either."""
    return PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()


def as_object(params: Any) -> Params:
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise RpcError.invalid_params("params must be an object")
    return params


def required_str(params: Params, name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise RpcError.invalid_params(f"{name} must be a non-empty string, got {value!r}")
    return value


def optional_str(params: Params, name: str) -> str | None:
    value = params.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RpcError.invalid_params(f"{name} must be a string, got {value!r}")
    return value


def absolute_path(params: Params, name: str, *, required: bool = True) -> str | None:
    value = params.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value or not is_absolute(value):
        raise RpcError.invalid_params(f"{name} must be an absolute path, got {value!r}")
    return value


def session_id(params: Params) -> str:
    return required_str(params, "sessionId")


def additional_directories(params: Params) -> list[str] | None:
    """The ``additionalDirectories`` list, or None when the field is absent or null."""
    value = params.get("additionalDirectories")
    if value is None:
        return None
    if not isinstance(value, list):
        raise RpcError.invalid_params(f"additionalDirectories must be an array, got {value!r}")
    for index, entry in enumerate(value):
        if not isinstance(entry, str) or not entry or not is_absolute(entry):
            raise RpcError.invalid_params(
                f"additionalDirectories[{index}] must be a non-empty absolute path, got {entry!r}",
                {"index": index, "value": entry},
            )
    return list(value)


def mcp_servers(params: Params, transports: frozenset[str] = frozenset({"stdio"})) -> list[Any]:
    """``mcpServers`` must be an array of servers the agent advertised (``transports``), stdio
    ones with an absolute command; the demo agent connects to none of them."""
    value = params.get("mcpServers")
    if value is None:
        return []
    if not isinstance(value, list):
        raise RpcError.invalid_params(f"mcpServers must be an array, got {value!r}")
    for index, entry in enumerate(value):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise RpcError.invalid_params(f"mcpServers[{index}] must be an object with a name")
        transport = entry.get("type", "stdio")
        if transport not in transports:
            raise RpcError.invalid_params(
                f"mcpServers[{index}]: transport {transport!r} was not advertised"
            )
        if transport == "stdio":
            command = entry.get("command")
            if not isinstance(command, str) or not is_absolute(command):
                raise RpcError.invalid_params(
                    f"mcpServers[{index}].command must be an absolute path, got {command!r}"
                )
        elif not isinstance(entry.get("url"), str):
            raise RpcError.invalid_params(f"mcpServers[{index}].url must be a string")
    return value


def describe_mcp_servers(servers: list[Any]) -> tuple[str, ...]:
    """``name (transport: command or url)`` for each server; env and headers never shown."""
    return tuple(
        f"{s['name']} ({s.get('type', 'stdio')}: {s.get('command') or s.get('url')})"
        for s in servers
    )


def prompt_blocks(params: Params, *, image: bool = False) -> list[dict[str, Any]]:
    value = params.get("prompt")
    if not isinstance(value, list):
        raise RpcError.invalid_params(f"prompt must be an array of content blocks, got {value!r}")
    for index, block in enumerate(value):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise RpcError.invalid_params(f"prompt[{index}] must be a content block with a type")
        if block["type"] == "text" and not isinstance(block.get("text"), str):
            raise RpcError.invalid_params(f"prompt[{index}].text must be a string")
        if block["type"] == "image" and image:
            continue
        if block["type"] in ("image", "audio"):
            raise RpcError.invalid_params(
                f"prompt[{index}]: {block['type']} content is not supported "
                f"(promptCapabilities.{block['type']} is false)"
            )
    return value
