"""Provides WireLog: the JSON-RPC traffic of one agent, kept cheaply for the wire inspector.

Recording must never slow the chat, so the connection's ``tap`` only appends the raw line, its
direction and the time to a ring buffer (bounded in records and in bytes); everything else is
worked out when someone looks: the decoded message, its kind, method and id, the response time
of a request (by matching the reply's id), and the masked form shown or written. A reply the
connection found no request for is marked (``mark_unmatched``), so that it is named where it is
shown. Secrets are
masked wherever a message is shown or written: the values of ``env`` and ``headers`` (MCP
servers, terminal logins, terminals) and of fields named like a token, key or password.

``WireLogFile`` writes the same records as JSON lines (``acp-tui --wire-log FILE``).
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from acp_tui.config.secrets import MASK, mask_url, secret_name
from acp_tui.protocol.connection import decode_line

__all__ = ["MASK", "WireLog", "WireLogFile", "WireRecord", "mask_secrets", "response_times"]

Direction = Literal["send", "recv"]
Kind = Literal["request", "notification", "response", "error", "invalid"]

MAX_RECORDS = 5_000
MAX_BYTES = 64 * 1024 * 1024
HUGE = 1024 * 1024
"""Lines above this size are not decoded for the list (their method and id are read from their
ends); the detail decodes them on demand."""

_SECRET_CONTAINERS = frozenset({"env", "headers"})
_HINT = re.compile(
    rb'(?i)"(env|headers)"|token|secret|passw|pwd|api[-_]?key|[-_]key"|key"|auth|credential|cookie'
    rb"|bearer|sig|://[^\"/?#]*@|\?[^\"]*="
)
"""A line holds nothing to mask unless it matches (checked on the raw bytes, before decoding):
a secret's name, a container of secrets, or a URL with user info or a query."""
_METHOD = re.compile(rb'"method"\s*:\s*"((?:[^"\\]|\\.){0,200})"')
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,30}|"(?:[^"\\]|\\.){0,200}"|null)')
_HAS = re.compile(rb'"(result|error|method)"\s*:')


def mask_secrets(value: Any) -> Any:
    """A copy of ``value`` with secret values replaced by ``MASK``: every value in an ``env`` or
    ``headers`` field, every value (a string, a number or a whole object) of a field named like
    a secret, and the user info and secret query values of URLs (`acp_tui.config.secrets`)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in _SECRET_CONTAINERS or (isinstance(key, str) and secret_name(key)):
                out[key] = _mask_all(item)
            else:
                out[key] = mask_secrets(item)
        return out
    if isinstance(value, list):
        return [mask_secrets(item) for item in value]
    if isinstance(value, str) and "://" in value:
        return mask_url(value)
    return value


def _mask_all(value: Any) -> Any:
    """Every value inside an ``env`` or ``headers`` field; names stay readable."""
    if isinstance(value, dict):
        return {k: (v if k in ("name", "_meta") else _mask_all(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_all(item) for item in value]
    if value is None or isinstance(value, bool):
        return value
    return MASK


@dataclass(eq=False, slots=True)
class WireRecord:
    """One line of the wire, as it went: decoded (and cached) only when asked."""

    seq: int
    at: float
    """``time.monotonic()`` when it was read or written."""
    wall: float
    """``time.time()`` of the same moment."""
    direction: Direction
    raw: bytes
    unmatched: bool = False
    """A reply whose id matches no request the client was waiting for (it was skipped)."""
    _summary: tuple[Kind, str, Any] | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        return len(self.raw)

    def decoded(self) -> Any:
        """The decoded JSON value, or None when the line is not JSON."""
        try:
            return decode_line(self.raw)
        except (ValueError, RecursionError):
            return None

    def summary(self) -> tuple[Kind, str, Any]:
        """(kind, method, id): a huge line's are read from its ends, without decoding it."""
        if self._summary is None:
            self._summary = _summary_of(self.raw)
        return self._summary

    @property
    def kind(self) -> Kind:
        return self.summary()[0]

    @property
    def method(self) -> str:
        return self.summary()[1]

    @property
    def id(self) -> Any:
        return self.summary()[2]

    def masked(self) -> Any:
        """The decoded message with its secrets masked (the raw text when it is not JSON)."""
        value = self.decoded()
        if value is None:
            return self.raw.decode("utf-8", "replace")
        return mask_secrets(value)

    def full_text(self) -> str:
        """The whole message, masked, pretty-printed (for copying)."""
        value = self.masked()
        if isinstance(value, str):
            return value
        return json.dumps(value, indent=2, ensure_ascii=False)

    def preview_text(self, limit: int = 64_000, string_limit: int = 2_000) -> str:
        """The masked message pretty-printed for reading: long strings cut to ``string_limit``
        characters and the whole to about ``limit``, each cut said."""
        value = self.masked()
        if isinstance(value, str):
            text = value
        else:
            text = json.dumps(_shorten(value, string_limit), indent=2, ensure_ascii=False)
        if len(text) > limit:
            text = text[:limit] + f"\n… ({len(text) - limit:,} more characters: copy shows all)"
        return text

    def log_line(self, agent: str) -> bytes:
        """This record as one JSON line of the wire log, secrets masked."""
        value = self.decoded()
        head = {
            "time": round(self.wall, 6),
            "agent": agent,
            "direction": self.direction,
        }
        if value is None:
            head["raw"] = self.raw.decode("utf-8", "replace")
            return json.dumps(head, ensure_ascii=False).encode() + b"\n"
        if _HINT.search(self.raw):
            head["message"] = mask_secrets(value)
            return json.dumps(head, ensure_ascii=False).encode() + b"\n"
        # Nothing to mask: the line itself is the message (valid JSON, decoded above).
        prefix = json.dumps(head, ensure_ascii=False)[:-1].encode()
        return prefix + b', "message": ' + self.raw.strip() + b"}\n"


def _shorten(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        if len(value) > limit:
            return value[:limit] + f"… ({len(value) - limit:,} more characters)"
        return value
    if isinstance(value, dict):
        return {k: _shorten(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten(v, limit) for v in value]
    return value


def _summary_of(raw: bytes) -> tuple[Kind, str, Any]:
    if len(raw) > HUGE:
        return _summary_from_ends(raw)
    try:
        value = decode_line(raw)
    except (ValueError, RecursionError):
        return "invalid", "", None
    if not isinstance(value, dict):
        return "invalid", "(batch)" if isinstance(value, list) else "", None
    method = value.get("method")
    msg_id = value.get("id")
    if isinstance(method, str):
        return ("request" if "id" in value else "notification"), method, msg_id
    if "error" in value and value["error"] is not None:
        return "error", "", msg_id
    if "result" in value:
        return "response", "", msg_id
    return "invalid", "", msg_id


def _summary_from_ends(raw: bytes) -> tuple[Kind, str, Any]:
    ends = raw[:4096] + b" " + raw[-4096:]
    method_match = _METHOD.search(ends)
    id_match = _ID.search(ends)
    msg_id: Any = None
    if id_match is not None:
        try:
            msg_id = json.loads(id_match.group(1))
        except ValueError:
            msg_id = None
    if method_match is not None:
        method = method_match.group(1).decode("utf-8", "replace")
        return ("request" if id_match else "notification"), method, msg_id
    found = {m.group(1) for m in _HAS.finditer(ends)}
    if b"error" in found:
        return "error", "", msg_id
    return ("response" if id_match else "invalid"), "", msg_id


class WireLog:
    """The last lines of one agent's traffic, bounded by ``max_records`` and ``max_bytes``.

    ``tap`` is the connection's raw-line hook: it keeps a tuple per line and nothing else;
    ``records`` and ``since`` make :class:`WireRecord` objects when someone looks. ``file``
    (optional) gets every record too. ``clock`` and ``wall_clock`` are ``time.monotonic`` and
    ``time.time`` (tests pin them).
    """

    def __init__(
        self,
        agent: str = "agent",
        *,
        max_records: int = MAX_RECORDS,
        max_bytes: int = MAX_BYTES,
        file: WireLogFile | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.agent = agent
        self._ring: deque[tuple[int, float, str, bytes]] = deque()
        self.max_records = max_records
        self.max_bytes = max_bytes
        self.bytes = 0
        self.seq = 0
        """How many records were ever made (the newest's ``seq``)."""
        self.dropped = 0
        self._unmatched: dict[int, None] = {}
        """The ``seq`` of each line kept that held a reply to no request."""
        self.file = file
        self.clock = clock
        self._wall_offset = wall_clock() - clock()

    def tap(self, direction: str, raw: bytes) -> None:
        """Record one line (the connection calls this for every line, both ways)."""
        self.seq += 1
        ring = self._ring
        entry = (self.seq, self.clock(), direction, raw)
        if ring and len(ring) >= self.max_records:  # full: the oldest goes (the usual case)
            self.bytes -= len(ring.popleft()[3])
            self.dropped += 1
        ring.append(entry)
        self.bytes += len(raw)
        if self.bytes > self.max_bytes:
            self._trim()
        if self.file is not None:
            self.file.write(self._record(entry), self.agent)

    def mark_unmatched(self, _msg_id: object = None) -> None:
        """The line read last held a reply to no request (the connection skipped it): mark it.

        The connection says so while it handles that line, before it reads another one, so the
        newest line received is the one (the client may have written lines meanwhile)."""
        for seq, _at, direction, _raw in reversed(self._ring):
            if direction != "send":
                self._unmatched[seq] = None
                break
        oldest = self.first_seq
        while self._unmatched and next(iter(self._unmatched)) < oldest:
            del self._unmatched[next(iter(self._unmatched))]

    def is_unmatched(self, seq: int) -> bool:
        """Whether the line ``seq`` (still kept) held a reply to no request."""
        return seq in self._unmatched and seq >= self.first_seq

    def _trim(self) -> None:
        ring = self._ring
        while len(ring) > 1 and (len(ring) > self.max_records or self.bytes > self.max_bytes):
            self.bytes -= len(ring.popleft()[3])
            self.dropped += 1

    def _record(self, entry: tuple[int, float, str, bytes]) -> WireRecord:
        seq, at, direction, raw = entry
        return WireRecord(
            seq,
            at,
            at + self._wall_offset,
            "send" if direction == "send" else "recv",
            raw,
            unmatched=seq in self._unmatched,
        )

    def __len__(self) -> int:
        return len(self._ring)

    @property
    def first_seq(self) -> int:
        """The ``seq`` of the oldest record kept (``seq + 1`` when none is)."""
        return self._ring[0][0] if self._ring else self.seq + 1

    @property
    def records(self) -> list[WireRecord]:
        """Every record kept, oldest first (made anew on each call)."""
        return [self._record(entry) for entry in self._ring]

    def since(self, seq: int) -> list[WireRecord]:
        """The records kept whose ``seq`` is above ``seq``, oldest first."""
        ring = self._ring
        if not ring or ring[-1][0] <= seq:
            return []
        start = max(0, seq - ring[0][0] + 1)
        return [self._record(ring[i]) for i in range(start, len(ring))]


def response_times(records: Iterable[WireRecord]) -> dict[int, float]:
    """Seconds from each request to its reply, keyed by the reply's and the request's ``seq``.

    A reply answers the request of the same id that went the other way (ours are answered
    by the agent, the agent's by us); one whose request fell out of the buffer has no time.
    """
    waiting: dict[tuple[str, str, Any], WireRecord] = {}
    times: dict[int, float] = {}
    for record in records:
        kind, _method, msg_id = record.summary()
        if kind == "request":
            waiting[(record.direction, type(msg_id).__name__, msg_id)] = record
        elif kind in ("response", "error"):
            asker = "recv" if record.direction == "send" else "send"
            request = waiting.pop((asker, type(msg_id).__name__, msg_id), None)
            if request is not None:
                elapsed = record.at - request.at
                times[record.seq] = times[request.seq] = elapsed
    return times


class WireLogFile:
    """Appends wire records as JSON lines to a file, each written through as it goes.

    The file is unbuffered: each record is one write of one whole line, so ``tail -f`` follows
    it, and the last lines before a hang or a crash are in the file (a buffer would keep them).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[bytes] | None = None
        self.failed: str | None = None

    def open(self) -> None:
        """Open (append) now, so a path that cannot be written is said at start."""
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("ab", buffering=0)

    def write(self, record: WireRecord, agent: str) -> None:
        if self.failed is not None:
            return
        try:
            self.open()
            assert self._handle is not None
            self._handle.write(record.log_line(agent))
        except OSError as exc:
            self.failed = str(exc)

    def close(self) -> None:
        if self._handle is not None:
            try:
                self._handle.close()
            except OSError as exc:
                self.failed = str(exc)
            self._handle = None
