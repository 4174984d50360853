"""Provides a strict validator from TOML data to frozen dataclasses that reports every problem.

TOML values are already typed, so nothing is coerced: `show_thoughts = "yes"` is a mistake to
report, not a string to read as true, and `true` is never a number. The one conversion is an
integer where a float is expected (`text_alpha = 1`). Unknown keys are errors so that typos do not
pass silently. Supported field types: `str`, `bool`, `int`, `float`, `Literal[...]`, `X | None`,
`list[T]`, `dict[str, T]`, `Any` and nested dataclasses.

A field can add its own check with `field(metadata={"check": fn})`: `fn(value)` runs after the
type is right and raises `ValueError(message)` to report a problem. A dataclass can check across
its fields with a `check_table(self)` method returning `(location, message)` pairs, the location
relative to the table; it runs once every field is right.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Callable
from typing import Any, Literal, TypeVar, Union, cast, get_args, get_origin, get_type_hints

__all__ = ["Invalid", "Location", "Problem", "validate"]

T = TypeVar("T")

Location = tuple[str | int, ...]
"""Where a value is: table keys and list indexes, e.g. `("agents", "my.agent", "args", 1)`."""

Problem = tuple[Location, str]
"""A location and what was wrong there, e.g. `expected a valid string (got 5)`."""

_Check = Callable[[Any], object]


class Invalid(Exception):
    """The data does not fit the dataclass; `problems` lists every reason, in field order."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, loc))}: {msg}" for loc, msg in problems))
        self.problems = problems


def validate(cls: type[T], data: object) -> T:
    """An instance of the dataclass `cls` built from `data`; raise `Invalid` if it does not fit."""
    problems: list[Problem] = []
    value = _convert(cls, data, (), problems)
    if problems:
        raise Invalid(problems)
    return cast(T, value)


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    type: Any
    required: bool
    check: _Check | None


@functools.cache
def _fields(cls: type) -> tuple[_Field, ...]:
    """The constructor's fields of a dataclass, with their type hints resolved (once per class)."""
    hints = get_type_hints(cls)
    return tuple(
        _Field(
            f.name,
            hints[f.name],
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
            f.metadata.get("check"),
        )
        for f in dataclasses.fields(cls)
        if f.init
    )


def _build(cls: type, data: dict[str, Any], loc: Location, problems: list[Problem]) -> Any:
    start = len(problems)
    known = _fields(cls)
    values: dict[str, Any] = {}
    for f in known:
        where = (*loc, f.name)
        if f.name not in data:
            if f.required:
                problems.append((where, "required key is missing"))
            continue
        before = len(problems)
        value = _convert(f.type, data[f.name], where, problems)
        if len(problems) == before and f.check is not None and value is not None:
            try:
                f.check(value)
            except ValueError as exc:
                problems.append((where, str(exc)))
        values[f.name] = value
    names = {f.name for f in known}
    problems.extend(((*loc, key), "unknown key") for key in data if key not in names)
    if len(problems) > start:
        return None
    instance = cls(**values)
    check_table = getattr(cls, "check_table", None)
    if callable(check_table):  # checks across fields, once each field is right
        problems.extend(((*loc, *where), message) for where, message in check_table(instance))
    return None if len(problems) > start else instance


def _convert(tp: Any, value: object, loc: Location, problems: list[Problem]) -> Any:
    """`value` checked against the type `tp` (problems are appended, never raised)."""
    origin, args = get_origin(tp), get_args(tp)
    if tp is Any:
        return value
    if origin in (Union, types.UnionType):
        inner = [arg for arg in args if arg is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"only `X | None` unions are supported, not {tp}")
        return None if value is None else _convert(inner[0], value, loc, problems)
    if origin is Literal:
        if any(type(value) is type(arg) and value == arg for arg in args):
            return value
        names = [repr(arg) for arg in args]
        expected = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
        return _wrong(expected, value, loc, problems)
    if origin is list:
        if not isinstance(value, list):
            return _wrong("a valid list", value, loc, problems)
        return [_convert(args[0], item, (*loc, i), problems) for i, item in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            return _wrong("a valid dictionary", value, loc, problems)
        return {key: _convert(args[1], item, (*loc, key), problems) for key, item in value.items()}
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            return _wrong("a valid dictionary", value, loc, problems)
        return _build(cast(type, tp), value, loc, problems)
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if tp not in _SCALARS:
        raise TypeError(f"unsupported field type: {tp}")
    # `type(...) is` rather than isinstance: a bool is an int to Python, never to a TOML file.
    return value if type(value) is tp else _wrong(_SCALARS[tp], value, loc, problems)


_SCALARS: dict[Any, str] = {
    str: "a valid string",
    bool: "a valid boolean",
    int: "a valid integer",
    float: "a valid number",
}


def _wrong(expected: str, value: object, loc: Location, problems: list[Problem]) -> None:
    got = repr(value)
    if len(got) > 40:
        got = got[:37] + "..."
    problems.append((loc, f"expected {expected} (got {got})"))
