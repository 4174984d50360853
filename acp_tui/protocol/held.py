"""Provides the caps on what one message can make the app hold, applied to the decoded JSON
before it is validated.

Everything an agent sends is held as long as its session is open, and a list of 200,000 plan
entries (or commands, options, locations...) made the app hold about 480 MB, while the screen
shows the first hundred of it and a count. So the long lists of the messages that stay (session
updates, permission requests, forms) keep their first ``HOLD`` items, ``FIELDS`` for a form's
fields; the number left out goes into the same object, under ``NOT_KEPT`` (``{key: count}``),
which the models keep as an unknown field and :func:`not_kept` reads back: the views add it to
their "… N more". Cutting the decoded lists before validation also spares the models of the
items left out: the peak is the decoding alone.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "FIELDS",
    "HOLD",
    "MEDIA",
    "NOT_KEPT",
    "hold",
    "hold_elicitation",
    "hold_media",
    "hold_meta",
    "hold_permission",
    "hold_update",
    "kept_counts",
    "not_kept",
]

HOLD = 1000
"""Items of one list kept (ten times what any view lists)."""
MEDIA = 1_000_000
"""Characters of an image's or audio's base64 data kept (the app shows a label, never the
image): past that, the data is left out and its decoded size counted as ``{"data": bytes}``.
The same holds for an update's free-form ``_meta`` (nothing shows it): past ``MEDIA``
characters it is left out, counted as ``{"_meta": 1}``."""
FIELDS = 200
"""Fields of one form kept (twice what the form shows)."""
NOT_KEPT = "_acpTuiNotKept"
"""The key of the counts of items left out, in the object that held the list."""

_UPDATE_LISTS = {
    "plan": ("entries",),
    "available_commands_update": ("availableCommands",),
    "tool_call": ("locations", "content"),
    "agent_message_chunk": (),
    "agent_thought_chunk": (),
    "user_message_chunk": (),
    "tool_call_update": ("locations", "content"),
    "config_option_update": ("configOptions",),
}
_CHOICES = ("enum", "oneOf", "anyOf")


def not_kept(holder: Any, key: str) -> int:
    """How many items of ``holder``'s list ``key`` were left out (a model or a dict)."""
    extra = holder if isinstance(holder, dict) else getattr(holder, "model_extra", None)
    counts = extra.get(NOT_KEPT) if isinstance(extra, dict) else None
    count = counts.get(key) if isinstance(counts, dict) else None
    return count if isinstance(count, int) and count > 0 else 0


def kept_counts(holder: Any) -> dict[str, Any]:
    """``holder``'s counts of items left out, as the keyword argument that gives them to a
    model made from it (a dialect's conversion: v2's plan, commands or tool call into the
    shared shape), so that they are not lost on the way; ``{}`` when it has none."""
    extra = holder if isinstance(holder, dict) else getattr(holder, "model_extra", None)
    counts = extra.get(NOT_KEPT) if isinstance(extra, dict) else None
    return {NOT_KEPT: dict(counts)} if isinstance(counts, dict) and counts else {}


def hold(holder: Any, key: str, limit: int = HOLD) -> None:
    """Keep the first ``limit`` items of ``holder[key]`` (a list, or a dict's members), and
    count the rest under ``NOT_KEPT``."""
    if not isinstance(holder, dict):
        return
    items = holder.get(key)
    if isinstance(items, list) and len(items) > limit:
        left_out = len(items) - limit
        holder[key] = items[:limit]
    elif isinstance(items, dict) and len(items) > limit:
        left_out = len(items) - limit
        holder[key] = dict(list(items.items())[:limit])
    else:
        return
    counts = holder.get(NOT_KEPT)
    if not isinstance(counts, dict):
        counts = holder[NOT_KEPT] = {}
    before = counts.get(key)
    counts[key] = left_out + (before if isinstance(before, int) and before > 0 else 0)


def hold_update(update: Any) -> None:
    """Cap the lists of one decoded ``session/update``'s ``update`` object (in place)."""
    if not isinstance(update, dict):
        return
    hold_meta(update)
    kind = update.get("sessionUpdate")
    for key in _UPDATE_LISTS.get(kind, ()) if isinstance(kind, str) else ():
        hold(update, key)
    if kind == "plan_update":  # v2: the plan's own object holds them
        hold(update.get("plan"), "entries")
    if kind in ("config_option_update", "config_options_update"):
        _hold_config(update.get("configOptions"))
    content = update.get("content")
    hold_media(content)  # a message chunk's block
    for item in content if isinstance(content, list) else ():  # a tool call's content
        if isinstance(item, dict):
            hold_media(item.get("content"))


def hold_meta(holder: Any) -> None:
    """Leave out ``holder["_meta"]`` when it holds more than ``MEDIA`` characters."""
    if isinstance(holder, dict) and "_meta" in holder and _over(holder["_meta"], MEDIA):
        del holder["_meta"]
        counts = holder.get(NOT_KEPT)
        if not isinstance(counts, dict):
            counts = holder[NOT_KEPT] = {}
        counts["_meta"] = 1


def _over(value: Any, budget: int) -> bool:
    """Whether ``value`` (decoded JSON) holds more than ``budget`` characters and items; its
    cost is bounded by the budget, not by the value."""
    stack = [value]
    while stack:
        item = stack.pop()
        budget -= len(item) if isinstance(item, str | dict | list) else 1
        if budget < 0:
            return True
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def hold_media(block: Any) -> None:
    """Leave out an image's or audio's data past ``MEDIA`` characters (its size counted)."""
    if not isinstance(block, dict) or block.get("type") not in ("image", "audio"):
        return
    data = block.get("data")
    if isinstance(data, str) and len(data) > MEDIA:
        block["data"] = ""
        size = len(data) * 3 // 4 - data[-2:].count("=")
        counts = block.get(NOT_KEPT)
        if not isinstance(counts, dict):
            counts = block[NOT_KEPT] = {}
        counts["data"] = size


def _hold_config(options: Any) -> None:
    for option in options if isinstance(options, list) else ():
        if isinstance(option, dict):
            hold(option, "options")
            for group in option.get("options") or ():
                hold(group, "options")


def hold_permission(params: Any) -> None:
    """Cap a decoded ``session/request_permission``'s options and tool call lists."""
    if not isinstance(params, dict):
        return
    hold(params, "options")
    tool = params.get("toolCall")
    if isinstance(tool, dict):
        hold(tool, "locations")
        hold(tool, "content")


def hold_elicitation(params: Any) -> None:
    """Cap a decoded ``elicitation/create``'s fields and each field's choices."""
    schema = params.get("requestedSchema") if isinstance(params, dict) else None
    if not isinstance(schema, dict):
        return
    hold(schema, "properties", FIELDS)
    hold(schema, "required", HOLD)
    properties = schema.get("properties")
    for spec in properties.values() if isinstance(properties, dict) else ():
        if not isinstance(spec, dict):
            continue
        for key in _CHOICES:
            hold(spec, key)
        items = spec.get("items")
        if isinstance(items, dict):
            for key in _CHOICES:
                hold(items, key)
