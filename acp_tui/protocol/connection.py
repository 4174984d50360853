"""Provides Connection: newline-delimited JSON-RPC 2.0 over a pair of anyio byte streams.

Both ends of ACP use it: the client towards an agent, and the demo agent towards its client.

* Outgoing requests may be concurrent; replies are matched by id. Cancelling the awaiting task
  sends ``$/cancel_request`` for that id.
* Incoming requests run concurrently and are always answered: unknown method -32601, invalid
  params (a pydantic ``ValidationError``) -32602, any other failure -32603 with its message, and
  -32800 when the peer cancels them with ``$/cancel_request``. A request's handler has started
  before a notification behind it is handled (a cancel right behind it, in the same read).
* A reply whose id matches no request waiting for an answer (the string ``"2"`` for request 2,
  an id never sent) is skipped with a warning naming it, and ``on_unmatched_reply`` (optional)
  is told its id; a late answer to a request this end cancelled is expected and only noted.
* Incoming notifications and replies are handled strictly in arrival order, in the read loop:
  a reply is delivered only after every notification that arrived before it was applied (so a
  ``session/load`` returns after its replay is in the transcript).
* Lines of any size are read (no 64 KiB limit); a line that is not JSON-RPC is logged and
  skipped; nothing a peer sends can end the read loop except the end of the stream, which fails
  every pending request with ``ConnectionClosed``.
* ``on_drain`` (optional) is called whenever the notifications handled so far must take effect:
  after each block read from the stream, and before a reply or a request is handled. A
  notification handler may so hold back updates to apply them together (see AgentClient).
* ``on_notification_now`` (optional) is offered each notification first, synchronously, in
  the read loop's step: True means it handled it (``on_notification`` is not called). Most of
  the traffic so costs no coroutine per line; the order of everything is the same.
* ``on_request_now`` (optional) is offered each request (not a big one, nor one in a batch)
  first, synchronously, in the read loop's step: what it returns (or the ``RpcError`` it
  raises) is the answer, sent at once; ``NOT_NOW`` serves the request as usual, in a task. A
  flood of requests answered without asking anyone (refused) so costs no task each.
* ``tap`` (optional) sees every line as raw bytes, ``("recv", line)`` before it is decoded and
  ``("send", line)`` once encoded: a cheap hook for a wire log (nothing is parsed for it).
* A line over ``BIG_LINE`` bytes is decoded in a worker thread in short steps, so that the event
  loop keeps running (see ``acp_tui.protocol.big``); while its messages
  are handled, ``line_bytes`` tells handlers its size so they can do their own heavy parsing
  off the loop too.
* Invalid UTF-8 inside a line is replaced (U+FFFD), not a reason to drop the whole message.
* A flood never holds the event loop: the read loop lets the rest of the app run (``TURNS``
  steps) after ``READ_SLICE`` seconds of handling lines or ``REQUESTS_PER_STEP`` requests
  started, however much the stream holds.
* While ``run`` runs, the lines written in one step of the event loop go out in one write (and
  one wait for the pipe), in the order they were written: a flood of requests answered at once
  (refused) costs a write per step, not one per answer. A writer returns once its line is
  sent; a writer cancelled meanwhile leaves its line to be sent all the same.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
from anyio.abc import ByteReceiveStream, ByteSendStream, TaskGroup
from pydantic import ValidationError
from pydantic_core import from_json, to_json

from acp_tui.protocol.big import decode_in_steps, quiet_gc
from acp_tui.protocol.jsonrpc import (
    ConnectionClosed,
    ErrorCode,
    Invalid,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
    classify,
    id_key,
)

log = logging.getLogger(__name__)

RequestHandler = Callable[[str, Any], Awaitable[Any]]
Tracer = Callable[[str, Any], None]
"""Sees every message: ``("send", obj)`` before it is written, ``("recv", obj)`` once decoded."""
NotificationHandler = Callable[[str, Any], Awaitable[None]]
Tap = Callable[[str, bytes], None]
"""Sees every line as bytes: ``("recv", line)`` before decoding, ``("send", line)`` encoded."""

CANCEL_REQUEST = "$/cancel_request"

incoming_request_id: ContextVar[RequestId] = ContextVar("incoming_request_id", default=None)
"""The id of the peer's request being served, inside its handler (a request the handler sends
may refer to it, e.g. an elicitation scoped to the client's `authenticate`)."""

CANCELLED_KEPT = 256
"""The ids of this many requests cancelled last are remembered: their late answers are
expected (the peer answers a cancelled request too), not replies to no request."""

READ_SLICE = 0.008
"""Seconds of handling lines, at most, before the read loop lets the rest of the app run: a
pipe hands it up to 256 KiB at once (a thousand small messages), and the stream it reads
from returns what it holds without a pause, so that a flood would otherwise be handled in
long steps of the event loop, each a wait for every key and frame."""

TURNS = 6
"""Steps of the event loop the rest of the app gets after each slice of reading: a dialog
shown while questions pour in takes a step per part of it (one step per slice: 0.6 s to
take a key; 3: 0.15-0.2 s; 6: 0.1-0.15 s, at the same CPU). An idle step costs microseconds."""

REQUESTS_PER_STEP = 16
"""Requests the read loop starts handling, at most, before it lets the app run: each handler
runs in the next step of the event loop, so a flood of them would make that step long however
short the reading."""

BIG_LINE = 1_000_000
"""Lines longer than this (bytes) are decoded off the event loop."""

line_bytes: ContextVar[int] = ContextVar("line_bytes", default=0)
"""The size of the line whose messages are being handled (seen by handlers and the tasks they
start): over ``BIG_LINE``, a handler should parse it off the event loop too."""


NOT_NOW: Any = object()
"""Returned by ``on_request_now``: the request is served as usual (``on_request``)."""

_NOTHING: Any = object()
"""No line decoded by ``_handle_fast`` waits for ``_handle_line``."""

_STREAM_ENDED = (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError)


@dataclass(slots=True)
class _Outgoing:
    """The lines written in one step of the event loop: sent in one write."""

    parts: list[bytes] = field(default_factory=list)
    sent: anyio.Event = field(default_factory=anyio.Event)
    error: ConnectionClosed | None = None


@dataclass(slots=True)
class _Pending:
    method: str
    done: anyio.Event = field(default_factory=anyio.Event)
    result: Any = None
    error: BaseException | None = None
    line_bytes: int = 0


def describe_validation_error(exc: ValidationError) -> str:
    """A short, readable summary of a pydantic validation error."""
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "params"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    more = exc.error_count() - len(parts)
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def decode_line(line: bytes) -> Any:
    """One JSON value from one line; raises ValueError or RecursionError like ``json.loads``.

    pydantic-core's parser is about twice as fast as ``json`` on the small lines that make most
    of the traffic. Whatever it refuses (a lone surrogate escape, which ``json`` accepts, or
    anything invalid) goes through ``json.loads``, so the result is always ``json``'s; invalid
    UTF-8 inside a string is replaced (U+FFFD) rather than failing the line.
    """
    try:
        return from_json(line)
    except ValueError:
        pass
    try:
        return json.loads(line)
    except UnicodeDecodeError:
        return json.loads(line.decode("utf-8", "replace"))


def decode_big_line(line: bytes) -> Any:
    """``decode_line`` for a big line, in a worker thread: in many short steps, the collector
    paused, so that the event loop gets the GIL back every few milliseconds."""
    with quiet_gc():
        return decode_in_steps(line)


async def _no_requests(method: str, params: Any) -> Any:
    raise RpcError.method_not_found(method)


async def _ignore_notifications(method: str, params: Any) -> None:
    log.debug("ignoring notification %s", method)


class Connection:
    """One JSON-RPC peer: run :meth:`run` in a task group, then :meth:`request` / :meth:`notify`."""

    def __init__(
        self,
        receive: ByteReceiveStream,
        send: ByteSendStream,
        *,
        on_request: RequestHandler = _no_requests,
        on_notification: NotificationHandler = _ignore_notifications,
        name: str = "peer",
    ) -> None:
        self._receive = receive
        self._send_stream = send
        self.on_request = on_request
        self.on_notification = on_notification
        self.name = name
        self._send_lock = anyio.Lock()
        self._next_id = 0
        self._pending: dict[tuple[str, RequestId], _Pending] = {}
        self._cancelled: dict[tuple[str, RequestId], str] = {}
        """The method of each request cancelled lately, by id (oldest first, bounded)."""
        self.unmatched_replies = 0
        """How many replies matched no request (see ``on_unmatched_reply``)."""
        self.on_unmatched_reply: Callable[[Any], None] | None = None
        """Told the id of each reply that matches no request waiting for an answer, once the
        warning is logged (the wire inspector marks the line)."""
        self._incoming: dict[tuple[str, RequestId], anyio.CancelScope] = {}
        self._closed_reason: str | None = None
        self.closed = anyio.Event()
        self.skipped_lines = 0
        self.tracer: Tracer | None = None
        self.tap: Tap | None = None
        self.on_drain: Callable[[], None] | None = None
        self.on_notification_now: Callable[[str, Any], bool] | None = None
        self.on_request_now: Callable[[str, Any], Any] | None = None
        self._pending_decoded: Any = _NOTHING
        self._writer_group: TaskGroup | None = None
        """``run``'s task group while it reads: the sender of ``_outgoing`` runs there."""
        self._outgoing: _Outgoing | None = None
        """The lines written and not yet taken by a sender (None: no sender is due)."""
        self._started = 0
        """Requests whose handler the read loop started (in a task) since the app last ran."""

    # -- outgoing -------------------------------------------------------------------------

    @property
    def is_closed(self) -> bool:
        return self._closed_reason is not None

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request and wait for its result; raises RpcError or ConnectionClosed."""
        result, _ = await self.request_sized(method, params)
        return result

    async def request_sized(self, method: str, params: Any = None) -> tuple[Any, int]:
        """Like ``request``, with the size of the line the result came in (0 when small): a big
        result is better parsed off the event loop."""
        if self._closed_reason is not None:
            raise ConnectionClosed(self._closed_reason)
        self._next_id += 1
        msg_id = self._next_id
        key = id_key(msg_id)
        pending = _Pending(method)
        self._pending[key] = pending
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            await self._send(message)
            await pending.done.wait()
        except anyio.get_cancelled_exc_class():
            if not pending.done.is_set() and self._closed_reason is None:
                self._remember_cancelled(key, method)
                with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                    await self._send_quietly(
                        {
                            "jsonrpc": "2.0",
                            "method": CANCEL_REQUEST,
                            "params": {"requestId": msg_id},
                        }
                    )
            raise
        finally:
            self._pending.pop(key, None)
        if pending.error is not None:
            raise pending.error
        return pending.result, pending.line_bytes

    def _remember_cancelled(self, key: tuple[str, RequestId], method: str) -> None:
        self._cancelled[key] = method
        while len(self._cancelled) > CANCELLED_KEPT:
            del self._cancelled[next(iter(self._cancelled))]

    def pending_method(self, request_id: Any) -> str | None:
        """The method of our request ``request_id`` while it waits for its answer, else None."""
        if not isinstance(request_id, int | str) or isinstance(request_id, bool):
            return None
        pending = self._pending.get(id_key(request_id))
        return pending.method if pending is not None and not pending.done.is_set() else None

    def awaiting(self, methods: Collection[str]) -> bool:
        """Whether a request of ours of one of ``methods`` still waits for its answer: what
        the peer sends meanwhile is part of it (a replay), what it sends afterwards is not."""
        return any(p.method in methods and not p.done.is_set() for p in self._pending.values())

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification; raises ConnectionClosed when the peer is gone."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self._send(message)

    async def notify_many(self, method: str, params_list: Iterable[Any], batch: int = 256) -> None:
        """Send many notifications of one method, ``batch`` lines per write.

        For bulk traffic such as a history replay: one write per message costs more than the
        messages themselves. Order is kept; the messages are separate lines, not a JSON array.
        """
        lines: list[bytes] = []
        for params in params_list:
            lines.append(self._encode_json({"jsonrpc": "2.0", "method": method, "params": params}))
            if len(lines) >= batch:
                await self._write(b"".join(lines))
                lines.clear()
        if lines:
            await self._write(b"".join(lines))

    def _encode(self, message: dict[str, Any]) -> bytes:
        if self.tracer is not None:
            self.tracer("send", message)
        try:
            line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        except UnicodeEncodeError:
            # A lone surrogate (legal in a JSON \u escape, e.g. echoed from the peer) has no
            # UTF-8 form: escape everything instead.
            line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        if self.tap is not None:
            self.tap("send", line)
        return line

    def _encode_json(self, message: dict[str, Any]) -> bytes:
        """``_encode`` of a message made of what JSON decodes to (no other types), in one
        step: pydantic-core's encoder is about four times as fast as ``json``'s and writes the
        same bytes for such values; anything it refuses goes the usual way."""
        if self.tracer is not None:
            return self._encode(message)
        try:
            line = to_json(message, inf_nan_mode="constants") + b"\n"
        except ValueError:  # e.g. a lone surrogate: `_encode` escapes it
            return self._encode(message)
        if self.tap is not None:
            self.tap("send", line)
        return line

    async def _write(self, data: bytes) -> None:
        """Send ``data`` (whole lines): with the other lines written in this step of the event
        loop while ``run`` runs, else on its own."""
        if self._closed_reason is not None:
            raise ConnectionClosed(self._closed_reason)
        group = self._writer_group
        if group is None:
            await self._send_now(data)
            return
        batch = self._queued(data, group)
        await batch.sent.wait()
        if batch.error is not None:
            raise batch.error

    def _queued(self, data: bytes, group: TaskGroup) -> _Outgoing:
        """``data`` added to the lines written in this step (whose sender is due)."""
        batch = self._outgoing
        if batch is None:
            batch = self._outgoing = _Outgoing()
            # A new task runs after every callback already due: the writes of this step join.
            group.start_soon(self._send_batch, batch)
        batch.parts.append(data)
        return batch

    async def _send_now(self, data: bytes) -> None:
        async with self._send_lock:
            try:
                await self._send_stream.send(data)
            except (*_STREAM_ENDED, OSError) as exc:
                raise ConnectionClosed(self._closed_reason or f"{self.name} exited") from exc

    async def _send_batch(self, batch: _Outgoing) -> None:
        """Send the lines of ``batch`` in one write; what is written once it is taken (the
        previous one may still be going out) makes the next one."""
        sent = False
        try:
            async with self._send_lock:
                if self._outgoing is batch:
                    self._outgoing = None
                await self._send_stream.send(b"".join(batch.parts))
            sent = True
        except (*_STREAM_ENDED, OSError):
            pass
        except Exception:
            log.exception("%s: writing failed", self.name)
        finally:
            if self._outgoing is batch:  # cancelled (``run`` ended) before it was taken
                self._outgoing = None
            if not sent:
                batch.error = ConnectionClosed(self._closed_reason or f"{self.name} exited")
            batch.sent.set()

    async def _send(self, message: dict[str, Any]) -> None:
        if self._closed_reason is not None:
            raise ConnectionClosed(self._closed_reason)
        await self._write(self._encode(message))

    async def _send_quietly(self, message: dict[str, Any]) -> None:
        try:
            await self._send(message)
        except ConnectionClosed:
            log.debug("could not send %s: connection closed", message.get("method", "reply"))

    # -- incoming -------------------------------------------------------------------------

    async def run(self) -> None:
        """Read and dispatch until the stream ends; then fail every pending request."""
        reason = f"{self.name} exited"
        try:
            async with anyio.create_task_group() as tg:
                self._writer_group = tg
                try:
                    await self._read_loop(tg)
                finally:
                    self._writer_group = None
                tg.cancel_scope.cancel()
        finally:
            self._close(reason)

    def close(self, reason: str) -> None:
        """Mark the connection closed and fail pending requests with ``reason``."""
        self._close(reason)

    def _close(self, reason: str) -> None:
        if self._closed_reason is None:
            self._closed_reason = reason
        for pending in list(self._pending.values()):
            if not pending.done.is_set():
                pending.error = ConnectionClosed(self._closed_reason)
                pending.done.set()
        self.closed.set()

    async def _read_loop(self, tg: TaskGroup) -> None:
        # A block read holds many lines: split it once, keep the unfinished tail as pieces
        # (joined once its newline comes, so a 20 MB line costs one copy, not one per read).
        tail: list[bytes] = []
        clock = time.perf_counter
        slice_ends = clock() + READ_SLICE
        while True:
            try:
                chunk = await self._receive.receive()
            except (*_STREAM_ENDED, OSError):
                break
            if b"\n" not in chunk:
                tail.append(chunk)
                continue
            lines = chunk.split(b"\n")
            if tail:
                tail.append(lines[0])
                lines[0] = b"".join(tail)
                tail.clear()
            rest = lines.pop()
            if rest:
                tail.append(rest)
            fast = self._handle_fast
            for line in lines:
                if not fast(line):
                    await self._handle_line(line, tg)
                if clock() > slice_ends or self._started > REQUESTS_PER_STEP:
                    slice_ends = await self._take_turns()
            self._drain()
        if tail:
            await self._handle_line(b"".join(tail), tg)
        self._drain()

    async def _take_turns(self) -> float:
        """Let the rest of the app run; the end of the next slice of reading. (What is held
        back to be applied together, a run of text chunks, stays held until the block read
        is handled: a run is not cut for a slice.)"""
        for _ in range(TURNS):
            await anyio.lowlevel.checkpoint()
        self._started = 0
        return time.perf_counter() + READ_SLICE

    def _drain(self) -> None:
        if self.on_drain is not None:
            try:
                self.on_drain()
            except Exception:
                log.exception("%s: applying the notifications received failed", self.name)

    def _handle_fast(self, line: bytes) -> bool:
        """Handle a line without leaving the read loop's step: a blank line, a line that is
        not JSON, or a notification ``on_notification_now`` takes. False: the line goes on to
        ``_handle_line`` (tapped and decoded already when ``_pending_decoded`` holds it)."""
        if not line or line.isspace():
            return True
        now = self.on_notification_now
        if now is None or self.tracer is not None or len(line) > BIG_LINE:
            return False
        if self.tap is not None:
            self.tap("recv", line)
        try:
            decoded = decode_line(line)
        except (ValueError, RecursionError):
            self._skip_line(line)
            return True
        if type(decoded) is dict and "id" not in decoded and not self._started:
            method = decoded.get("method")
            if type(method) is str and method != CANCEL_REQUEST:
                try:
                    if now(method, decoded.get("params")):
                        return True
                except Exception:
                    log.exception("%s: notification handler for %r failed", self.name, method)
                    return True
        self._pending_decoded = decoded
        return False

    def _skip_line(self, line: bytes) -> None:
        self.skipped_lines += 1
        preview = line[:200].decode("utf-8", "replace")
        # The agent's text, logged with %r (its controls escaped): a log may reach a terminal.
        log.warning("%s sent a line that is not JSON, skipped: %r", self.name, preview)

    async def _handle_line(self, line: bytes, tg: TaskGroup) -> None:
        size = len(line)
        big = size > BIG_LINE
        decoded = self._pending_decoded
        if decoded is not _NOTHING:  # `_handle_fast` tapped and decoded it already
            self._pending_decoded = _NOTHING
        else:
            if not line or line.isspace():
                return
            if self.tap is not None:
                self.tap("recv", line)
            try:
                if big:
                    decoded = await anyio.to_thread.run_sync(decode_big_line, line)
                else:
                    decoded = decode_line(line)
            except (ValueError, RecursionError):
                self._skip_line(line)
                return
        if self._started and type(decoded) is dict and "id" not in decoded:
            # A notification behind requests whose handlers have not run yet: they start
            # first, so that a cancel right behind its request (in the same read) finds it.
            self._started = 0
            await anyio.lowlevel.checkpoint()
        if type(decoded) is dict and "id" not in decoded and self.tracer is None and not big:
            # Most lines are notifications: the same as `_dispatch` -> `classify` does, inline.
            method = decoded.get("method")
            if type(method) is str and method != CANCEL_REQUEST:
                try:
                    await self.on_notification(method, decoded.get("params"))
                except Exception:
                    log.exception("%s: notification handler for %r failed", self.name, method)
                return
        token = line_bytes.set(size) if big else None
        try:
            if isinstance(decoded, list):
                await self._handle_batch(decoded, tg)
            else:
                try:
                    await self._dispatch(decoded, tg)
                except Exception:
                    log.exception("%s: failed to dispatch a message", self.name)
        finally:
            if token is not None:
                line_bytes.reset(token)

    async def _handle_batch(self, items: list[Any], tg: TaskGroup) -> None:
        """A JSON-RPC batch (2.0 §6): notifications and replies are taken in order, as if they
        came one a line; the requests' answers (and the -32600 of an invalid request with an
        id) go back in one array once all are answered; an empty batch gets one -32600."""
        if not items:
            self.skipped_lines += 1
            log.warning("%s sent an empty batch", self.name)
            error = RpcError(ErrorCode.INVALID_REQUEST, "Invalid request: an empty batch")
            tg.start_soon(
                self._send_quietly, {"jsonrpc": "2.0", "id": None, "error": error.to_wire()}
            )
            return
        requests: list[Request] = []
        replies: list[dict[str, Any]] = []
        for item in items:
            if self.tracer is not None:
                self.tracer("recv", item)
            message = classify(item)
            try:
                if isinstance(message, Notification):
                    await self._handle_notification(message)
                elif isinstance(message, Response):
                    self._drain()
                    self._deliver(message)
                elif isinstance(message, Request):
                    requests.append(message)
                else:
                    self.skipped_lines += 1
                    log.warning(
                        "%s sent an invalid message, skipped: %s", self.name, message.reason
                    )
                    if message.reply:  # as one a line: junk that names no request is not answered
                        error = RpcError(
                            ErrorCode.INVALID_REQUEST, f"Invalid request: {message.reason}"
                        )
                        replies.append(
                            {"jsonrpc": "2.0", "id": message.id, "error": error.to_wire()}
                        )
            except Exception:
                log.exception("%s: failed to dispatch a message", self.name)
        if requests:
            self._drain()
            self._started += 1
            tg.start_soon(self._serve_batch, requests, replies)
        elif replies:
            tg.start_soon(self._send_batch_quietly, replies)

    async def _serve_batch(self, requests: list[Request], replies: list[dict[str, Any]]) -> None:
        """Answer a batch's requests side by side, then send every answer in one array."""
        answers: list[dict[str, Any] | None] = [None] * len(requests)

        async def answer(index: int, message: Request) -> None:
            reply = await self._answer(message)
            if reply is not None:
                try:
                    json.dumps(reply)
                except (TypeError, ValueError) as exc:
                    reply = self._unserialisable(reply, message.method, exc)
            answers[index] = reply

        async with anyio.create_task_group() as tg:
            for index, message in enumerate(requests):
                tg.start_soon(answer, index, message)
        replies = replies + [reply for reply in answers if reply is not None]
        if replies:
            await self._send_batch_quietly(replies)

    async def _send_batch_quietly(self, replies: list[dict[str, Any]]) -> None:
        if self.tracer is not None:
            for reply in replies:
                self.tracer("send", reply)
        try:
            data = json.dumps(replies, separators=(",", ":")).encode() + b"\n"
            if self.tap is not None:
                self.tap("send", data)
            await self._write(data)
        except ConnectionClosed:
            log.debug("could not send a batch's replies: connection closed")

    async def _dispatch(self, obj: Any, tg: TaskGroup) -> None:
        if self.tracer is not None:
            self.tracer("recv", obj)
        message = classify(obj)
        if isinstance(message, Notification):
            await self._handle_notification(message)
        elif isinstance(message, Request):
            self._drain()
            if self.on_request_now is not None and self._answer_now(message):
                return
            self._started += 1
            tg.start_soon(self._serve_request, message)
        elif isinstance(message, Response):
            self._drain()
            self._deliver(message)
        else:
            self._handle_invalid(message, tg)

    def _handle_invalid(self, message: Invalid, tg: TaskGroup) -> None:
        self.skipped_lines += 1
        log.warning("%s sent an invalid message, skipped: %s", self.name, message.reason)
        if message.reply:
            error = RpcError(ErrorCode.INVALID_REQUEST, f"Invalid request: {message.reason}")
            reply = {"jsonrpc": "2.0", "id": message.id, "error": error.to_wire()}
            tg.start_soon(self._send_quietly, reply)

    def _deliver(self, message: Response) -> None:
        key = id_key(message.id)
        pending = self._pending.get(key)
        if pending is None or pending.done.is_set():
            self._unmatched(key, message.id)
            return
        pending.result = message.result
        pending.error = message.error
        pending.line_bytes = line_bytes.get()
        pending.done.set()

    def _unmatched(self, key: tuple[str, RequestId], msg_id: RequestId) -> None:
        """A reply no request waits for: expected after a cancel, else a peer's mistake that
        is said (the log file has it) and skipped."""
        method = self._cancelled.pop(key, None)
        if method is not None:
            log.info(
                "%s answered request %r (%s) after it was cancelled", self.name, msg_id, method
            )
            return
        self.unmatched_replies += 1
        kind = "a string" if isinstance(msg_id, str) else type(msg_id).__name__
        log.warning(
            "%s sent a reply to no request, skipped: its id %r (%s) matches no request "
            "waiting for an answer",
            self.name,
            msg_id,
            "null" if msg_id is None else kind,
        )
        if self.on_unmatched_reply is not None:
            try:
                self.on_unmatched_reply(msg_id)
            except Exception:
                log.exception("%s: the unmatched-reply hook failed", self.name)

    async def _handle_notification(self, message: Notification) -> None:
        if message.method == CANCEL_REQUEST:
            params = message.params if isinstance(message.params, dict) else {}
            request_id = params.get("requestId")
            valid = isinstance(request_id, int | str)  # an unhashable id must not raise
            scope = self._incoming.get(id_key(request_id)) if valid else None
            if scope is not None:
                scope.cancel()
            return
        try:
            await self.on_notification(message.method, message.params)
        except Exception:
            log.exception("%s: notification handler for %r failed", self.name, message.method)

    def _answer_now(self, message: Request) -> bool:
        """Answer ``message`` in this step if ``on_request_now`` can (True), or leave it."""
        now, group = self.on_request_now, self._writer_group
        if now is None or group is None or line_bytes.get() > BIG_LINE:
            return False
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message.id}
        try:
            result = now(message.method, message.params)
        except RpcError as exc:
            reply["error"] = exc.to_wire()
        except ValidationError as exc:
            reply["error"] = RpcError.invalid_params(describe_validation_error(exc)).to_wire()
        except Exception:
            log.exception("%s: answering %r at once failed", self.name, message.method)
            return False  # served as usual: its handler says what is wrong
        else:
            if result is NOT_NOW:
                return False
            reply["result"] = {} if result is None else result
        try:
            data = self._encode(reply)
        except (TypeError, ValueError) as exc:  # a result that is not JSON
            data = self._encode(self._unserialisable(reply, message.method, exc))
        self._queued(data, group)  # nobody waits for an answer to be sent
        return True

    async def _serve_request(self, message: Request) -> None:
        reply = await self._answer(message)
        if reply is None:
            return
        try:
            await self._send_quietly(reply)
        except (TypeError, ValueError) as exc:  # a result or error data that is not JSON
            await self._send_quietly(self._unserialisable(reply, message.method, exc))

    async def _answer(self, message: Request) -> dict[str, Any] | None:
        """The reply to ``message`` (None: none is due, the connection closed meanwhile)."""
        key = id_key(message.id)
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message.id}
        with anyio.CancelScope() as scope:
            self._incoming[key] = scope
            incoming_request_id.set(message.id)
            try:
                result = await self.on_request(message.method, message.params)
                reply["result"] = {} if result is None else result
            except RpcError as exc:
                reply["error"] = exc.to_wire()
            except ValidationError as exc:
                reply["error"] = RpcError.invalid_params(describe_validation_error(exc)).to_wire()
            except Exception as exc:
                log.exception("%s: handler for %r failed", self.name, message.method)
                reply["error"] = RpcError.internal(str(exc) or type(exc).__name__).to_wire()
            finally:
                self._incoming.pop(key, None)
        if scope.cancelled_caught:
            if self._closed_reason is not None:
                return None
            reply.pop("result", None)
            reply["error"] = RpcError.cancelled().to_wire()
        return reply

    def _unserialisable(self, reply: dict[str, Any], method: str, exc: Exception) -> dict[str, Any]:
        """The error that replaces a reply whose result or error data is not JSON."""
        log.error("%s: reply to %r is not JSON-serialisable: %s", self.name, method, exc)
        error = RpcError.internal(f"reply is not JSON-serialisable: {exc}")
        return {"jsonrpc": "2.0", "id": reply.get("id"), "error": error.to_wire()}
