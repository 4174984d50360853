"""Provides the demo agent's hostile mode: every string a client shows replaced by a hostile one.

``python -m acp_tui.demo_agent --hostile NAME`` rewrites everything the agent writes so that
each display string (agent and session titles, auth method, command, mode and option names,
descriptions and hints, permission option names, tool call titles and locations, plan entries,
message text, error messages and data, the usage currency, and in a form: its title and
description, each field's title and description, a text field's default and the values of an
``enum``, which a client shows as their own labels) is ``HOSTILE_TEXTS[NAME]``. Ids, paths the
agent works with and every other value are left alone, so the protocol still works: a client must
show these strings literally, never run their markup or send their escapes to the terminal.

What only a client's wire inspector shows gets the text too: right after its ``initialize``
reply, the agent sends a notification whose method is the text, a request whose id and method
are the text (a client answers it with an error that carries the id back), and the text as a line
that is not JSON. The tests feed this one table to every surface of the app.
"""

from __future__ import annotations

import json
from typing import Any

from anyio.abc import ByteSendStream

__all__ = ["HOSTILE_TEXTS", "HostileOutput", "poison", "wire_lines"]

HOSTILE_TEXTS: dict[str, str] = {
    # Textual markup with actions: a click on the text would run them.
    "click-dismiss": "[@click=screen.dismiss('allow-once')]Reject: this looks safe to click on[/]",
    "click-screenshot": "[@click=app.screenshot('x.svg','/elsewhere')]Click for the details[/]",
    "click-quit": "[@click=app.quit]Click here to see what the agent is doing[/]",
    # Markup that does not parse (a crash), and markup that would change the style.
    "close-tag": "[/]",
    "style": "[b]not bold[/b] [reverse]not reversed[/]",
    # Terminal escapes: OSC 52 sets the clipboard, OSC 0 the window title, CSI clears the screen.
    "osc52": "\x1b]52;c;aGFja2Vk\x07copied?",
    "osc0": "\x1b]0;pwned\x1b\\title?",
    "csi": "\x1b[2J\x1b[31mred?\x1b[0m",
    "c1": "\x9b31mred?\x9d0;pwned\x9c",
    # Text shown in another order than it is stored in ("evil\u202egpj.exe" shows as evilexe.jpg).
    "bidi": "evil\u202egpj.exe",
    "nul": "a\x00b",
    "surrogate": "lone \ud800 surrogate",
    "long": "long " * 2000 + "[/]",
}
"""Hostile display strings by name."""

_DISPLAY_KEYS = frozenset(
    {"title", "name", "description", "hint", "currency", "message", "details"}
)


def poison(value: Any, text: str) -> Any:
    """``value`` (decoded JSON) with every display string replaced by ``text``."""
    if isinstance(value, list):
        return [poison(item, text) for item in value]
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key, item in value.items():
        if key in _DISPLAY_KEYS and isinstance(item, str):
            result[key] = text
        elif key == "data" and "code" in value and isinstance(item, str):
            result[key] = text  # an error's reason
        elif key == "text" and value.get("type") == "text" and isinstance(item, str):
            result[key] = text  # a text content block
        elif key == "content" and "priority" in value and isinstance(item, str):
            result[key] = text  # a plan entry
        elif key == "requestedSchema" and isinstance(item, dict):
            result[key] = _poison_form(item, text)
        elif key == "locations" and isinstance(item, list):
            result[key] = [
                {**location, "path": text} if isinstance(location, dict) else location
                for location in item
            ]
        else:
            result[key] = poison(item, text)
    return result


def _poison_form(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """A form's ``requestedSchema`` poisoned: titles and descriptions as everywhere, and what a
    client shows of a field beyond them (`_poison_field`)."""
    result: dict[str, Any] = poison(schema, text)
    properties = result.get("properties")
    if isinstance(properties, dict):
        result["properties"] = {
            name: _poison_field(field, text) for name, field in properties.items()
        }
    return result


def _poison_field(field: Any, text: str) -> Any:
    """A text field's default becomes ``text``; each value of an ``enum`` (its own label) becomes
    ``text`` and a number, so that they stay distinct, and a default among them follows."""
    if not isinstance(field, dict):
        return field
    result = dict(field)
    items = result.get("items")
    default = result.get("default")
    if isinstance(items, dict) and isinstance(items.get("enum"), list):  # a multiple choice
        renamed = _numbered(items["enum"], text)
        result["items"] = {**items, "enum": _renamed(items["enum"], renamed)}
        if isinstance(default, list):
            result["default"] = _renamed(default, renamed)
    elif isinstance(result.get("enum"), list):  # a single choice
        renamed = _numbered(result["enum"], text)
        result["enum"] = _renamed(result["enum"], renamed)
        if isinstance(default, str):
            result["default"] = renamed.get(default, default)
    elif result.get("type") == "string" and "oneOf" not in result and isinstance(default, str):
        result["default"] = text
    return result


def _numbered(values: list[Any], text: str) -> dict[str, str]:
    return {v: f"{text} {i}" for i, v in enumerate(values, 1) if isinstance(v, str)}


def _renamed(values: list[Any], renamed: dict[str, str]) -> list[Any]:
    return [renamed.get(v, v) if isinstance(v, str) else v for v in values]


def wire_lines(text: str) -> list[bytes]:
    """The lines sent after the ``initialize`` reply: ``text`` as a method, as an id, as a line.

    The line that is not JSON is ``text`` on one line (its line ends as spaces), encoded as it
    is: a lone surrogate becomes bytes that are not UTF-8, as a broken agent would write them.
    """
    notification = {"jsonrpc": "2.0", "method": text, "params": {}}
    request = {"jsonrpc": "2.0", "id": text, "method": text, "params": {}}
    raw = text.replace("\r", " ").replace("\n", " ").encode("utf-8", "surrogatepass")
    return [_encode(notification), _encode(request), raw]


def _encode(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def _initialized(message: Any) -> bool:
    """Whether ``message`` is the reply to ``initialize``."""
    result = message.get("result") if isinstance(message, dict) else None
    return isinstance(result, dict) and "protocolVersion" in result


class HostileOutput(ByteSendStream):
    """Wraps the agent's output: each JSON-RPC line written is poisoned with ``text`` first."""

    def __init__(self, output: ByteSendStream, text: str) -> None:
        self.output = output
        self.text = text

    async def send(self, item: bytes) -> None:
        lines = []
        for line in item.splitlines():
            try:
                message = json.loads(line)
            except ValueError:
                lines.append(line)  # not JSON (the `malformed` keyword): as it is
                continue
            lines.append(_encode(poison(message, self.text)))
            if _initialized(message):
                lines.extend(wire_lines(self.text))
        await self.output.send(b"".join(line + b"\n" for line in lines))

    async def aclose(self) -> None:
        await self.output.aclose()
