"""Provides the off-loop work on a big line in small steps: decoding, and a quiet collector.

A worker thread only helps the event loop while it lets go of the GIL, and a C or Rust call
never does: ``json`` decoding a 10 MB line of 100,000 small objects holds it for 200 ms, and
so does pydantic validating (or encoding) a 100,000-item list in one call. Worse, allocating
a million objects triggers the collector's full passes, each walking every object of the app
with the GIL held. So, for a big line:

* :func:`decode_in_steps` decodes the outer levels of the JSON in Python and hands each value
  below them to ``json``'s C scanner on its own (an item of a huge list is one small call);
* :func:`quiet_gc` pauses the collector while a big value is decoded, validated or encoded,
  and freezes what it built (long-lived messages: later collections need not walk them);
* :func:`validate_in_pieces` and :func:`encode_in_pieces` validate or encode a long list one
  slice per call.
"""

from __future__ import annotations

import functools
import gc
import json
import re
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from json.scanner import make_scanner
from typing import Annotated, Any, TypeVar, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

__all__ = [
    "PIECE",
    "STEP_DEPTH",
    "decode_in_steps",
    "encode_in_pieces",
    "in_pieces",
    "list_adapter",
    "quiet_gc",
    "validate_in_pieces",
    "validate_lists_in_pieces",
]

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

STEP_DEPTH = 8
"""Objects and arrays shallower than this are decoded in Python, one member at a time (save
the objects in an array: each is one item of a list, small however long the list is)."""

PIECE = 2000
"""Items per slice validated or encoded in one call (a few milliseconds each)."""

_scan_once: Callable[[str, int], tuple[Any, int]] = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_lock = threading.Lock()
_quiet = 0
_was_enabled = False


class _Bad(ValueError):
    pass


def decode_in_steps(line: bytes) -> Any:
    """The JSON value of ``line``, as ``json.loads`` would give it (invalid UTF-8 replaced),
    decoded in many short calls instead of one long one; raises ValueError or RecursionError
    like ``json.loads`` (by decoding it whole, when the stepwise decoder does not follow)."""
    text = line.decode("utf-8", "replace")
    try:
        value, end = _value(text, _skip(text, 0), 0)
        if _skip(text, end) != len(text):
            raise _Bad("extra data")
    except (_Bad, StopIteration, IndexError):
        return json.loads(text)  # the error (or a corner the steps do not handle) as json says
    return value


_SPACE = " \t\n\r"


def _skip(text: str, index: int) -> int:
    if text[index : index + 1] in _SPACE:  # compact JSON has none: skip the regex
        return _WHITESPACE.match(text, index).end()  # type: ignore[union-attr]
    return index


def _array(text: str, index: int, depth: int) -> tuple[list[Any], int]:
    """The array at ``index``, item by item; the hot loop of a huge list, kept lean."""
    items: list[Any] = []
    add, scan, space = items.append, _scan_once, _SPACE
    index = _skip(text, index + 1)
    if text[index] == "]":
        return items, index + 1
    while True:
        if text[index] == "{":
            item, index = scan(text, index)
        else:
            item, index = _value(text, index, depth + 1)
        add(item)
        char = text[index]
        if char in space:
            index = _skip(text, index)
            char = text[index]
        if char == ",":
            index += 1
            if text[index] in space:
                index = _skip(text, index)
        elif char == "]":
            return items, index + 1
        else:
            raise _Bad("expected , or ]")


def _value(text: str, index: int, depth: int) -> tuple[Any, int]:
    """The value at ``index``: an array member by member (down to ``STEP_DEPTH``), an object
    member by member when it is not an array's item (an item of a big list is small), any
    other value in one call of the C scanner."""
    char = text[index]
    if depth >= STEP_DEPTH or char not in "{[":
        return _scan_once(text, index)
    if char == "[":
        return _array(text, index, depth)
    members: dict[str, Any] = {}
    index = _skip(text, index + 1)
    if text[index] == "}":
        return members, index + 1
    while True:
        if text[index] != '"':
            raise _Bad("expected a key")
        key, index = _scan_once(text, index)
        index = _skip(text, index)
        if text[index] != ":":
            raise _Bad("expected :")
        members[key], index = _value(text, _skip(text, index + 1), depth + 1)
        index = _skip(text, index)
        if text[index] == "}":
            return members, index + 1
        if text[index] != ",":
            raise _Bad("expected , or }")
        index = _skip(text, index + 1)


@contextmanager
def quiet_gc(*, freeze: bool = True) -> Iterator[None]:
    """Pause the collector (process-wide) for the work inside; then, with ``freeze``, move
    what exists into the permanent generation, as ``acp_tui.ui.memory.settle_memory`` does
    after a big load. Nests, and may be used from several threads at once."""
    global _quiet, _was_enabled
    with _lock:
        if _quiet == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _quiet += 1
    try:
        yield
    finally:
        with _lock:
            _quiet -= 1
            if _quiet == 0:
                if freeze:
                    gc.freeze()
                if _was_enabled:
                    gc.enable()


def in_pieces(items: Sequence[T], size: int = PIECE) -> Iterator[Sequence[T]]:
    """``items`` in slices of ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def validate_in_pieces(model: type[M], data: Any, key: str) -> M:
    """``model.model_validate(data)``, the long list ``data[key]`` validated a slice at a time
    first (see :func:`validate_lists_in_pieces`, which empties it)."""
    return model.model_validate(validate_lists_in_pieces(model, data, (key,)))


def validate_lists_in_pieces(
    model: type[BaseModel], data: Any, keys: Collection[str] | None = None
) -> Any:
    """``data`` (a wire object of ``model``) with its long lists of objects (those of ``keys``,
    or all) validated as ``model`` validates them, a slice at a time, for ``model`` to take as
    they are. Each slice's raw items are dropped from the raw list once validated (it ends
    empty): the raw dicts and the models are never all held at once. A list with a slice
    that fails is left whole for ``model``, so the error is the one the model gives."""
    if not isinstance(data, dict):
        return data
    done: dict[str, list[Any]] = {}
    for key, items in data.items():
        if keys is not None and key not in keys:
            continue
        if not isinstance(items, list) or len(items) <= PIECE or not isinstance(items[0], dict):
            continue
        try:
            adapter = list_adapter(model, key)
        except KeyError:  # not a field: free-form data
            continue
        validated = _consume(items, adapter)
        if validated is not None:
            done[key] = validated
    return {**data, **done} if done else data


def _consume(items: list[Any], adapter: TypeAdapter[list[Any]]) -> list[Any] | None:
    """``items`` validated a slice at a time from the end (dropping each slice's raw items);
    None, with ``items`` as they were save that the validated tail is models, on an error."""
    pieces: list[list[Any]] = []
    while items:
        start = max(0, len(items) - PIECE)
        try:
            piece = adapter.validate_python(items[start:])
        except ValidationError:
            for validated in reversed(pieces):
                items.extend(validated)
            return None
        del items[start:]
        pieces.append(piece)
    return [item for piece in reversed(pieces) for item in piece]


_adapters: dict[tuple[type[BaseModel], str], TypeAdapter[list[Any]]] = {}


def list_adapter(model: type[BaseModel], key: str) -> TypeAdapter[list[Any]]:
    """What validates the list field ``key`` (its wire or Python name) of ``model``, as the
    model does (skipping invalid items where it does): for a slice of it at a time."""
    adapter = _adapters.get((model, key))
    if adapter is None:
        for name, info in model.model_fields.items():
            if key in (name, info.alias, info.validation_alias):
                annotation = (
                    Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
                )
                adapter = _adapters[(model, key)] = TypeAdapter(cast(Any, annotation))
                break
        else:
            raise KeyError(f"{model.__name__} has no field {key!r}")
    return adapter


@functools.cache
def _any_list() -> TypeAdapter[list[Any]]:
    return TypeAdapter(list[Any])


def encode_in_pieces(model: BaseModel) -> str:
    """``model.model_dump_json(by_alias=True, exclude_unset=True)``, with its long lists of
    models encoded a slice at a time and its free-form data (``_meta``, unknown fields: where
    an agent can put a 50 MB string) a value at a time, spliced in: the same JSON, save the
    order of keys."""
    fields = type(model).model_fields
    long = [
        name
        for name in model.model_fields_set
        if name in fields
        if isinstance(value := getattr(model, name, None), list)
        and len(value) > PIECE
        and isinstance(value[0], BaseModel)
    ]
    free: dict[str, Any] = dict(model.__pydantic_extra__ or {})
    meta = fields.get("meta")
    if meta is not None and "meta" in model.model_fields_set:
        free[meta.serialization_alias or meta.alias or "meta"] = getattr(model, "meta", None)
    if not long and not free:
        return model.model_dump_json(by_alias=True, exclude_unset=True)
    parts: list[str] = []
    try:
        for key, value in free.items():
            parts.append(_json(key) + ":")
            _plain_json(value, 0, parts)
            parts.append(",")
    except ValueError:  # NaN, or anything json does not write as pydantic does
        return model.model_dump_json(by_alias=True, exclude_unset=True)
    skip = {*long, *(model.__pydantic_extra__ or {}), *(["meta"] if "meta" in fields else [])}
    head = model.model_dump_json(by_alias=True, exclude_unset=True, exclude=skip)
    for name in long:
        info = fields[name]
        parts.append(_json(info.serialization_alias or info.alias or name) + ":[")
        for index, piece in enumerate(in_pieces(getattr(model, name))):
            if index:
                parts.append(",")
            dumped = _any_list().dump_json(
                cast(list[Any], piece), by_alias=True, exclude_unset=True
            )
            parts.append(dumped.decode()[1:-1])
        parts.append("],")
    parts[-1] = parts[-1][:-1]  # the last comma
    if head != "{}":
        parts[:0] = [head[1:-1], ","]
    return "".join(["{", *parts, "}"])


STRING_PIECE = 1_000_000
"""Characters of a huge string encoded per call."""


def _plain_json(value: Any, depth: int, parts: list[str]) -> None:
    """Append the JSON of wire data (as decoded) to ``parts``: container by container, a huge
    string in slices (joined once, by the caller)."""
    if isinstance(value, str) and len(value) > STRING_PIECE:
        parts.append('"')
        for start in range(0, len(value), STRING_PIECE):
            parts.append(_json(value[start : start + STRING_PIECE])[1:-1])
        parts.append('"')
    elif depth < STEP_DEPTH and isinstance(value, dict) and value:
        parts.append("{")
        for key, item in value.items():
            parts.append(_json(str(key)) + ":")
            _plain_json(item, depth + 1, parts)
            parts.append(",")
        parts[-1] = "}"
    elif depth < STEP_DEPTH and isinstance(value, list) and value:
        parts.append("[")
        for item in value:
            _plain_json(item, depth + 1, parts)
            parts.append(",")
        parts[-1] = "]"
    else:
        parts.append(_json(value))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
