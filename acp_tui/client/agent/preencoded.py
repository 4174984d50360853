"""Provides the JSON of big updates, encoded off the event loop for the recorder.

An update that came in a big line (a plan of 200,000 entries) takes about a second to encode
again as JSON for the transcript cache. The client encodes it in the worker thread that parsed
it (``encode_all``), and the recorder takes that text (``take``) instead of encoding it on the
event loop. Whatever the recorder does not take is dropped once the update was handed out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from pydantic import BaseModel

from acp_tui.protocol.big import encode_in_pieces
from acp_tui.protocol.connection import BIG_LINE, line_bytes

__all__ = ["drop", "encode", "encode_all", "take"]

_encoded: dict[int, tuple[BaseModel, str]] = {}


def encode(model: BaseModel) -> str:
    """The model as the recorder writes it: by alias, only the fields that were set. One of a
    big line a slice at a time (one call encoding 200,000 plan entries holds the GIL 0.3 s),
    any other in one call: its free fields (a notice's, ``_meta``) a value at a time cost
    twenty times more, most of what recording a flood of notices cost."""
    if line_bytes.get() > BIG_LINE:
        return encode_in_pieces(model)
    return model.model_dump_json(by_alias=True, exclude_unset=True)


def encode_all(models: Iterable[object]) -> None:
    """Encode every wire model of ``models`` now (call it off the event loop), for ``take``."""
    for model in models:
        if isinstance(model, BaseModel):
            with contextlib.suppress(ValueError):  # a lone surrogate: the recorder copes
                _encoded[id(model)] = (model, encode_in_pieces(model))


def take(model: BaseModel) -> str:
    """The JSON of ``model``: encoded beforehand if it was, else now."""
    found = _encoded.pop(id(model), None)
    if found is not None and found[0] is model:
        return found[1]
    return encode(model)


def drop(models: Iterable[object]) -> None:
    """Forget what was encoded for ``models`` (handed out, taken or not)."""
    for model in models:
        _encoded.pop(id(model), None)
