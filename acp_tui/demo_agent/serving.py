"""Provides the demo agent serving one client over a pair of byte streams.

``python -m acp_tui.demo_agent`` serves on stdin/stdout (``serve``); a test can serve on
in-memory pipes inside its own event loop (``acp_tui.demo_agent.in_process``). Both go through
the same `Connection`, so the bytes on the wire are the same.
"""

from __future__ import annotations

import logging

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

from acp_tui.demo_agent.faults import StringIds
from acp_tui.demo_agent.hostile import HostileOutput
from acp_tui.demo_agent.options import AgentOptions
from acp_tui.demo_agent.server import DemoAgent
from acp_tui.demo_agent.stdio import (
    ExitNow,
    StdinStream,
    StdoutStream,
    WatchedOutput,
    exit_process,
)
from acp_tui.demo_agent.store import SessionStore
from acp_tui.demo_agent.v2 import V2Dialect
from acp_tui.protocol.connection import Connection

log = logging.getLogger("acp_tui.demo_agent")


async def serve(options: AgentOptions) -> None:
    """Serve one client on stdin/stdout until stdin ends."""
    output = StdoutStream()
    agent = build_agent(options, output)
    await run_agent(agent, StdinStream(on_eof=agent.drain), output)
    log.info("stdin closed; exiting")


def build_agent(
    options: AgentOptions, output: WatchedOutput, exit_now: ExitNow = exit_process
) -> DemoAgent:
    """The agent ``options`` describe, writing to ``output``, its session store open."""
    store = SessionStore(options.data_dir)
    store.open()
    return DemoAgent(options, store, output, v2=V2Dialect, exit_now=exit_now)


async def run_agent(agent: DemoAgent, incoming: ByteReceiveStream, output: WatchedOutput) -> None:
    """Serve one client, reading ``incoming`` and writing ``output`` (the stream the agent was
    built with), until ``incoming`` ends; then close the session store.

    ``incoming`` should call ``agent.drain`` at its end (see ``StdinStream``), so that requests
    already received are answered.
    """
    options = agent.options
    sink: ByteSendStream = output
    if options.hostile is not None:
        sink = HostileOutput(output, options.hostile)
    if options.faulty("string-ids"):
        sink = StringIds(sink)
    conn = Connection(
        incoming,
        sink,
        on_request=agent.handle_request,
        on_notification=agent.handle_notification,
        name="client",
    )
    try:
        async with anyio.create_task_group() as tg:
            agent.attach(conn, tg)
            await conn.run()
            tg.cancel_scope.cancel()
    finally:
        agent.store.close()
