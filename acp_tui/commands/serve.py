"""Provides `acp-tui serve`: the chat in a web browser, one app per page, safe by default.

It takes the chat's agent choice (``-a NAME``, ``-- COMMAND``, the config's default), ``DIR``,
``--add-dir`` and ``--protocol``, checks them once, and runs the server
(`acp_tui.serve.server`) until Ctrl+C, SIGTERM or SIGHUP, which end every page's app and agents
first; the exit status is then 128 + the signal's number. It listens on 127.0.0.1 unless
``--host`` says otherwise; another host is served only with ``--token`` or after the user
confirmed a warning on the terminal. Exit status 2 on bad arguments, 1 when the server cannot
start (textual-serve missing, the port in use).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.client.agent.launch import LaunchError, resolve_launch
from acp_tui.commands.usage import (
    Parser,
    UsageError,
    check_agent_choice,
    exit_status,
    report_usage_error,
    split_agent_command,
)
from acp_tui.config.paths import get_paths
from acp_tui.config.settings import load_settings

if TYPE_CHECKING:
    from acp_tui.serve.server import Server

__all__ = ["TOKEN_ENV", "serve_command"]

PROG = "acp-tui serve"
TOKEN_ENV = "ACP_TUI_SERVE_TOKEN"
"""Where ``--token`` can come from instead of the command line (which other users can read)."""
DEFAULT_PORT = 8000

_EPILOG = f"""\
agent command:
  -- COMMAND ARGS...    start COMMAND as each page's agent; everything after '--' is
                        passed to it verbatim

Each page opened gets its own acp-tui, with the agent chosen as for 'acp-tui' (-a NAME,
'-- COMMAND', the config's default_agent, the only agent, or the demo agent), the same
config and the same data. The URL printed carries a random token that every request needs.
Ctrl+C stops the server, every page's app and their agents.

Whoever can open a page can make the agent write files and run commands as you. By default
only this machine can (127.0.0.1). With --host for another address, give --token (or set
{TOKEN_ENV}) or confirm a warning on the terminal; the traffic is plain http, so use
it on networks you trust, or through an SSH tunnel (ssh -L 8000:127.0.0.1:8000 HOST).
"""


@dataclass(frozen=True)
class Served:
    """The checked arguments: what each page runs, and how the server listens."""

    chat_args: tuple[str, ...]
    cwd: Path
    host: str
    port: int
    token: str
    token_given: bool
    max_sessions: int
    open_browser: bool


def _parser() -> Parser:
    parser = Parser(
        prog=PROG,
        usage=(
            f"{PROG} [DIR] [-a NAME | -- COMMAND ARGS...] [--add-dir DIR]... "
            "[--protocol {1,2}] [--host HOST] [--port PORT] [--open] [--token TOKEN] "
            "[--max-sessions N] [-h]"
        ),
        description="Serve acp-tui to web browsers: each page opened is one acp-tui.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
    )
    parser.add_argument("dir", nargs="?", metavar="DIR", help="the sessions' working directory")
    parser.add_argument("-a", "--agent", metavar="NAME", help="the configured agent to start")
    parser.add_argument(
        "--add-dir", action="append", default=[], metavar="DIR", help="an extra workspace root"
    )
    parser.add_argument("--protocol", type=int, choices=(1, 2), help="the ACP protocol version")
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"the port to listen on (default: {DEFAULT_PORT}; 0: any free port)",
    )
    parser.add_argument("--open", action="store_true", help="open the URL in your web browser")
    parser.add_argument(
        "--token",
        help=f"the token the URL carries, instead of a random one (at least 16 characters; "
        f"{TOKEN_ENV} keeps it off the command line)",
    )
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=4,
        metavar="N",
        help="at most N pages (apps) at once (default: 4)",
    )
    return parser


def serve_command(args: list[str]) -> int:
    """Run ``acp-tui serve ARGS`` and return the exit status."""
    try:
        served = _check(args)
        if not served.token_given and not _loopback(served.host) and not _confirm_exposure(served):
            return 1
        return _run(served)
    except UsageError as exc:
        return report_usage_error(PROG, exc)
    except LaunchError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return exit_status(exc)
    except KeyboardInterrupt:
        return 130


def _check(args: list[str]) -> Served:
    """The arguments, checked as the chat checks them, before anything listens or starts."""
    from acp_tui.serve.access import new_token, token_problem

    args, command = split_agent_command(args)
    options = _parser().parse_args(args)
    check_agent_choice(options.agent, command)
    cwd = _directory(options.dir)
    chat_args: list[str] = [str(cwd)]
    if options.add_dir:
        from acp_tui.client.tools.root_choice import validate_roots

        check = validate_roots(options.add_dir, cwd)
        if not check.ok:
            refused = check.problems[0]
            raise UsageError(f"--add-dir {refused.entry!r}: {refused.reason}")
        for root in check.accepted:
            chat_args += ["--add-dir", str(root)]
    if options.protocol is not None:
        chat_args += ["--protocol", str(options.protocol)]
    paths = get_paths()
    settings = load_settings(paths.config_file).settings
    # Refuses an unknown agent name now, rather than in every page.
    resolve_launch(
        cwd=cwd,
        agent_name=options.agent,
        command=command,
        settings=settings,
        paths=paths,
        protocol=options.protocol,
    )
    if options.agent is not None:
        chat_args += ["-a", options.agent]
    if command is not None:
        chat_args += ["--", *command]
    if not 0 <= options.port <= 65535:
        raise UsageError(f"--port {options.port}: not a port (0 to 65535)")
    if options.max_sessions < 1:
        raise UsageError("--max-sessions must be at least 1")
    token = options.token if options.token is not None else os.environ.get(TOKEN_ENV)
    if token is not None and (problem := token_problem(token)) is not None:
        raise UsageError(f"the token {problem}")
    return Served(
        chat_args=tuple(chat_args),
        cwd=cwd,
        host=options.host,
        port=options.port,
        token=token or new_token(),
        token_given=token is not None,
        max_sessions=options.max_sessions,
        open_browser=options.open,
    )


def _directory(raw: str | None) -> Path:
    if raw is None:
        return Path.cwd()
    path = Path(os.path.expanduser(raw))
    if not path.is_dir():
        raise UsageError(f"{raw}: no such directory")
    return Path(os.path.abspath(path))


def _loopback(host: str) -> bool:
    from acp_tui.serve.access import is_loopback_host

    return is_loopback_host(host)


def _confirm_exposure(served: Served) -> bool:
    """Warn that another host opens the agents to the network; True once the user agrees."""
    print(
        f"{PROG}: warning: --host {served.host} lets other machines reach this server. Whoever "
        "opens its page can make the agent read and write your files and run commands as you, "
        "and the traffic, the token included, is plain http that anyone on the way can read.",
        file=sys.stderr,
    )
    if not sys.stdin.isatty():
        raise UsageError(
            f"--host {served.host} needs --token (or {TOKEN_ENV}), or a terminal to confirm on"
        )
    try:
        answer = input(f"Serve on {served.host} anyway? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() in ("y", "yes"):
        return True
    print(f"{PROG}: not started", file=sys.stderr)
    return False


def _run(served: Served) -> int:
    try:
        from acp_tui.serve.app_process import app_argv
        from acp_tui.serve.page import MissingFrontEnd, find_assets
        from acp_tui.serve.server import ServeConfig, Server, listen
    except ImportError as exc:
        print(
            f"{PROG}: error: {exc.name or exc} is not installed; "
            "install acp-tui with its serve extra: pip install 'acp-tui[serve]'",
            file=sys.stderr,
        )
        return 1
    try:
        assets = find_assets()
    except MissingFrontEnd as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    try:
        sock = listen(served.host, served.port)
    except OSError as exc:
        print(f"{PROG}: error: cannot listen on {_where(served)}: {_reason(exc)}", file=sys.stderr)
        return 1
    config = ServeConfig(
        token=served.token,
        app_argv=tuple(app_argv(served.chat_args)),
        cwd=served.cwd,
        max_sessions=served.max_sessions,
        loopback_only=_loopback(served.host),
        title=f"acp-tui · {served.cwd.name or served.cwd}",
    )
    server = Server(config, assets, say=_say)
    return asyncio.run(_serve(server, sock, served))


async def _serve(server: Server, sock: socket.socket, served: Served) -> int:
    """Serve until a signal, then stop every page's app; 128 + the signal's number."""
    from acp_tui.client.process.exit_signals import exit_signals

    stop = asyncio.Event()
    status: list[int] = []

    def request_exit(code: int) -> None:
        status.append(code)
        stop.set()

    from acp_tui.serve.opener import BrowserOpener

    opener = BrowserOpener()
    with exit_signals(request_exit):
        try:
            await server.start(sock)
            url = _url(sock, served.token)
            print(f"acp-tui is served at {url}", flush=True)
            _say(
                f"at most {served.max_sessions} pages at once; the URL's token is needed; "
                "Ctrl+C stops it"
            )
            if served.open_browser and (problem := await asyncio.to_thread(opener.open, url)):
                _say(f"could not open a browser ({problem}): open the URL yourself")
            await stop.wait()
            _say("stopping: ending every page's acp-tui and its agents")
            await server.stop()
            _say("stopped")
        finally:
            opener.close()
    return status[0] if status else 0


def _url(sock: socket.socket, token: str) -> str:
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):  # every interface: this machine's name is the best guess
        host = socket.gethostname()
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/{token}/"


def _where(served: Served) -> str:
    host = f"[{served.host}]" if ":" in served.host else served.host
    return f"{host}:{served.port}"


def _reason(exc: OSError) -> str:
    import errno

    if exc.errno == errno.EADDRINUSE:
        return "the port is already in use (another server? choose one with --port, or 0)"
    return exc.strerror or str(exc)


def _say(text: str) -> None:
    print(f"{PROG}: {text}", file=sys.stderr, flush=True)
