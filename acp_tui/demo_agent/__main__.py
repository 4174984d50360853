"""Provides ``python -m acp_tui.demo_agent``: the bundled offline ACP v1 agent over stdio."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import anyio

from acp_tui.demo_agent.auth import store_credentials
from acp_tui.demo_agent.command_line import agent_options, build_parser, data_dir_of
from acp_tui.demo_agent.serving import serve


def interactive_login(data_dir: Path, seconds: int = 0) -> int:
    """The terminal login: a real prompt on the user's terminal, then a stored credential.

    With ``seconds``, it first waits that long, printing a line a second (a login waiting for
    a browser), so a client is suspended for a while and must not write meanwhile.
    """
    print("acp-tui demo agent: terminal login", flush=True)
    for second in range(seconds):
        print(f"waiting for the browser... {second + 1}/{seconds} s", flush=True)
        time.sleep(1)
    try:
        answer = input("Type 'yes' to log in: ")
    except EOFError:
        answer = ""
    if answer.strip().lower() != "yes":
        print("Not logged in.")
        return 1
    store_credentials(data_dir)
    print("Logged in.")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="demo-agent %(levelname)s %(name)s: %(message)s",
    )
    data_dir = data_dir_of(args)
    if args.login:
        return interactive_login(data_dir, args.login_seconds)
    # Anything printed by mistake must not corrupt the JSON-RPC stream.
    sys.stdout = sys.stderr
    options = agent_options(args, data_dir)
    try:
        anyio.run(serve, options)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
