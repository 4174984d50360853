"""Provides `acp-tui sessions list|delete|prune`: an agent's sessions, without the UI.

The agent is chosen as for the chat (``-a NAME``, ``-- COMMAND ARGS...``, else the configured
default, else the demo agent), and so is the protocol version (``--protocol {1,2}``, else the
agent's configured one, else 1; an agent answering another version is warned about).
Exit status: 0 on success, 2 on usage errors (checked before the agent starts), 1 when the agent
cannot start, lacks the capability or answers with an error, 128 + N when ended by signal N
(SIGTERM, SIGHUP, SIGINT: the agent is stopped first, as always); errors are one line on stderr,
never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import anyio
import anyio.from_thread
import anyio.lowlevel

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.agent.launch import LaunchError, LaunchSpec, check_supported, resolve_launch
from acp_tui.client.errors import AgentError, AgentExited, InitializeTimeout, Unsupported
from acp_tui.client.history.agent_names import configured_launches
from acp_tui.client.process.exit_signals import ExitSignals, exit_signals
from acp_tui.client.safe_text import sanitize
from acp_tui.client.workspace.agent_runtime import AgentRuntime
from acp_tui.client.workspace.events import SessionsChanged, WorkspaceEvent
from acp_tui.client.workspace.interaction import Headless
from acp_tui.client.workspace.workspace import Workspace
from acp_tui.commands.all_agents import EveryAgentJob, run_every_agent
from acp_tui.commands.confirm import confirm
from acp_tui.commands.listing import (
    Scope,
    list_all,
    parse_duration,
    plural,
    printable,
    table,
    warn,
)
from acp_tui.commands.usage import (
    Parser,
    UsageError,
    check_agent_choice,
    exit_status,
    is_broken_pipe,
    output_closed,
    report_usage_error,
    split_agent_command,
)
from acp_tui.config.paths import get_paths
from acp_tui.config.settings import load_settings
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.methods import SessionInfo
from acp_tui.protocol.timestamps import parse_timestamp

log = logging.getLogger(__name__)

PROG = "acp-tui sessions"
USAGE = (
    f"{PROG} {{list,delete,prune}} [OPTIONS] [--protocol {{1,2}}] "
    "[-a NAME | -- COMMAND ARGS... | --all-agents]"
)
LIST_HINT = "sessions created by acp-tui are in the app's session browser"
STDERR_LINES = 5
"""At most this many of an exited agent's last stderr lines follow its error."""

_AGENT_EPILOG = """\
agent:
  -a NAME               the configured agent ('demo': the bundled demo agent)
  -- COMMAND ARGS...    start COMMAND as the agent; everything after '--' is passed verbatim
Without -a or '--': the config file's default_agent, else the only configured agent, else the
demo agent.
"""

_EPILOG = (
    _AGENT_EPILOG
    + """
examples:
  acp-tui sessions list --all --json
  acp-tui sessions delete 3f2a... --yes -- my-agent --acp
  acp-tui sessions prune --older-than 30d --dry-run
  acp-tui sessions list --all-agents --all
  acp-tui sessions prune --all-agents --older-than 30d --dry-run
  acp-tui sessions list --protocol 2 -- my-agent --acp
"""
)


def sessions_command(args: list[str]) -> int:
    """Run ``acp-tui sessions ARGS`` and return the exit status."""
    try:
        job = _prepare(args)
    except UsageError as exc:
        return report_usage_error(PROG, exc)
    except LaunchError as exc:
        print(f"acp-tui: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return exit_status(exc)
    except OSError as exc:  # e.g. the current directory was removed
        print(f"acp-tui: error: {exc}", file=sys.stderr)
        return 1
    try:
        with exit_signals() as signals:
            run = _run_with_agent if job.every_agent is None else _run_every_agent
            status = anyio.run(partial(run, job, signals))
        return signals.status if signals.status is not None else status
    except Exception as exc:
        if is_broken_pipe(exc):
            return output_closed()
        log.debug("sessions command failed", exc_info=True)
        print(f"acp-tui: {describe_error(exc)}", file=sys.stderr)
        return 1


# -- arguments -------------------------------------------------------------------------------


def _parser() -> Parser:
    agent = Parser(add_help=False)
    agent.add_argument("-a", "--agent", metavar="NAME", help="the configured agent to start")
    agent.add_argument(
        "--auth",
        metavar="METHOD_ID",
        help="log in with this method of the agent's when it asks (agent-type methods; a "
        "terminal login is run from the app)",
    )
    agent.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        help="the ACP protocol version to speak (2 is the draft, opt-in; default: the agent's "
        "configured one, else 1)",
    )
    scope = Parser(add_help=False)
    where = scope.add_mutually_exclusive_group()
    where.add_argument("--all", action="store_true", help="sessions of every directory")
    where.add_argument("--cwd", metavar="DIR", help="sessions of DIR (default: the current one)")
    scope.add_argument(
        "--add-dir",
        metavar="DIR",
        action="append",
        dest="add_dirs",
        help="only sessions with exactly these extra roots, in this order (repeatable)",
    )
    confirm = Parser(add_help=False)
    confirm.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")

    parser = Parser(
        prog=PROG,
        usage=USAGE,
        description="List, delete and prune an agent's sessions without the UI.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub = partial(
        actions.add_parser,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_AGENT_EPILOG,
    )
    listing = sub(
        "list",
        prog=f"{PROG} list",
        parents=[agent, scope],
        help="list the sessions (session/list, every page)",
    )
    listing.add_argument("--json", action="store_true", help="print one JSON array of sessions")
    listing.add_argument(
        "--all-agents",
        action="store_true",
        help="every configured agent's sessions, merged newest first, with the agent of each "
        "(each agent listed in turn; one that fails shows what it last listed)",
    )
    listing.add_argument(
        "--offline",
        action="store_true",
        help="with --all-agents: start no agent, show the sessions as they were last listed",
    )
    delete = sub(
        "delete",
        prog=f"{PROG} delete",
        parents=[agent, confirm],
        help="delete sessions by id (session/delete)",
    )
    delete.add_argument("ids", nargs="+", metavar="ID", help="a session id")
    prune = sub(
        "prune",
        prog=f"{PROG} prune",
        parents=[agent, scope, confirm],
        help="delete the sessions not updated lately",
    )
    prune.add_argument(
        "--older-than",
        metavar="DURATION",
        required=True,
        help="not updated for this long: 90m, 12h, 30d, 2w",
    )
    prune.add_argument("--dry-run", action="store_true", help="only list what would be deleted")
    prune.add_argument(
        "--all-agents",
        action="store_true",
        help="prune every configured agent's sessions (says first which agents cannot delete)",
    )
    prune.add_argument(
        "--keep-local",
        action="store_true",
        help="keep acp-tui's local copies of the deleted sessions (searchable, shown as no "
        "longer listed)",
    )
    return parser


@dataclass(frozen=True)
class _Job:
    action: str
    launch: LaunchSpec
    scope: Scope
    ids: tuple[str, ...] = ()
    json: bool = False
    yes: bool = False
    dry_run: bool = False
    older_than: timedelta | None = None
    older_than_text: str = ""
    auth: str | None = None
    keep_local: bool = False
    every_agent: EveryAgentJob | None = None
    """Set for ``--all-agents``: the job runs over every configured agent."""


def _prepare(args: list[str]) -> _Job:
    """Parse and check everything that can be checked before the agent starts."""
    args, command = split_agent_command(args)
    options = _parser().parse_args(args)
    check_agent_choice(options.agent, command)

    scope = Scope(cwd=None)
    if options.action in ("list", "prune"):
        cwd = None if options.all else _directory(options.cwd) if options.cwd else Path.cwd()
        dirs = None
        if options.add_dirs is not None:
            dirs = tuple(_directory(d) for d in options.add_dirs)
        scope = Scope(cwd=cwd, additional_directories=dirs)
    older_than: timedelta | None = None
    if options.action == "prune":
        try:
            older_than = parse_duration(options.older_than)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    asks = options.action == "delete" or (options.action == "prune" and not options.dry_run)
    if asks and not options.yes and not sys.stdin.isatty():
        raise UsageError("stdin is not a terminal, so nothing can be confirmed: pass --yes")

    all_agents = getattr(options, "all_agents", False)
    if all_agents and (options.agent or command):
        raise UsageError("--all-agents takes every configured agent: leave out -a and '--'")
    if getattr(options, "offline", False) and not all_agents:
        raise UsageError("--offline goes with --all-agents")

    paths = get_paths()
    loaded = load_settings(paths.config_file)
    for problem in loaded.problems:
        warn(problem)
    if all_agents:
        launches = configured_launches(loaded.settings, paths, Path.cwd())
        if not launches:
            raise UsageError("no configured agent can be started (see: acp-tui agents list)")
        every = EveryAgentJob(
            action=options.action,
            launches=launches,
            scope=scope,
            json=getattr(options, "json", False),
            offline=getattr(options, "offline", False),
            yes=getattr(options, "yes", False),
            dry_run=getattr(options, "dry_run", False),
            keep_local=getattr(options, "keep_local", False),
            older_than=older_than,
            older_than_text=getattr(options, "older_than", ""),
            auth=options.auth,
        )
        first = next(iter(launches.values()))
        return _Job(action=options.action, launch=first, scope=scope, every_agent=every)
    launch = resolve_launch(
        cwd=Path.cwd(),
        agent_name=options.agent,
        command=command,
        settings=loaded.settings,
        paths=paths,
        protocol=options.protocol,
    )
    launch = replace(launch, settings=loaded.settings)
    check_supported(launch)
    return _Job(
        action=options.action,
        launch=launch,
        scope=scope,
        ids=tuple(dict.fromkeys(getattr(options, "ids", None) or ())),
        json=getattr(options, "json", False),
        yes=getattr(options, "yes", False),
        dry_run=getattr(options, "dry_run", False),
        older_than=older_than,
        older_than_text=getattr(options, "older_than", ""),
        auth=options.auth,
        keep_local=getattr(options, "keep_local", False),
    )


def _directory(raw: str) -> Path:
    path = Path(os.path.expanduser(raw))
    if not path.exists():
        raise UsageError(f"{raw}: no such directory")
    if not path.is_dir():
        raise UsageError(f"{raw}: not a directory")
    return Path(os.path.abspath(path))


# -- running ---------------------------------------------------------------------------------


async def _run_every_agent(job: _Job, signals: ExitSignals) -> int:
    assert job.every_agent is not None
    return await run_every_agent(job.every_agent, signals)


async def _run_with_agent(job: _Job, signals: ExitSignals) -> int:
    """Run the action; SIGTERM, SIGHUP or SIGINT cancels it, and the agent is stopped as usual.

    The agent runs in a Workspace, as in the app: the same start, the same gating of every
    action (with the same reasons) and the same deletion, local history included.
    """
    actions: dict[str, Callable[[Workspace, AgentRuntime, _Job], Awaitable[int]]] = {
        "list": _list,
        "delete": _delete,
        "prune": _prune,
    }
    with anyio.CancelScope() as scope:
        signals.request_exit = lambda _status: scope.cancel()
        interaction = Headless(auth=job.auth)
        ws = Workspace(
            paths=get_paths(),
            project=Path.cwd(),
            interaction=interaction,
            connect=connect,  # looked up here: the tests run the demo agent in-process
        )
        async with ws:
            agent = ws.agent_for(job.launch)
            client = await agent.wait_ready()
            spoken, offered = client.capabilities.protocol_version, job.launch.protocol_version
            if spoken != offered:
                warn(f"{client.capabilities.display_name} speaks ACP v{spoken}, not v{offered}")
            return await actions[job.action](ws, agent, job)
    return 1  # cancelled by a signal: the caller returns 128 + its number


def _require(ws: Workspace, agent: AgentRuntime, action: str, then: str = "") -> None:
    """Refuse ``action`` with the Workspace's reason (as the browser shows it)."""
    probe = SessionInfo(session_id="", cwd=str(Path.cwd()))
    reason = ws.sessions.why_unavailable(agent, action, None if action == "list" else probe)
    if reason is not None:
        raise Unsupported(f"{reason}{then}")


async def _list(ws: Workspace, agent: AgentRuntime, job: _Job) -> int:
    _require(ws, agent, "list", f"; {LIST_HINT}")
    listing = await list_all(ws.sessions.listing(agent), job.scope)
    if listing.incomplete:
        warn(f"{listing.incomplete}; the list may be incomplete")
    if job.json:
        print(json.dumps([info.to_wire() for info in listing.sessions], indent=2))
    elif listing.sessions:
        print(table(listing.sessions, datetime.now(UTC)))
    else:
        where = "anywhere" if job.scope.cwd is None else f"in {job.scope.cwd}"
        print(f"No sessions {where}.")
    return 0


async def _delete(ws: Workspace, agent: AgentRuntime, job: _Job) -> int:
    _require(ws, agent, "delete")
    name = agent.display_name
    question = f"Delete {plural(len(job.ids), 'session')} of {name} ({', '.join(job.ids)})?"
    if not job.yes and not await confirm(question):
        print("Nothing deleted.", file=sys.stderr)
        return 1
    infos = [SessionInfo(session_id=sid, cwd=str(Path.cwd())) for sid in job.ids]
    return await _delete_each(ws, agent, infos)


async def _prune(ws: Workspace, agent: AgentRuntime, job: _Job) -> int:
    _require(ws, agent, "list", ", so it cannot say which sessions are old")
    cannot_delete = ws.sessions.why_unavailable(
        agent, "delete", SessionInfo(session_id="", cwd="/")
    )
    if cannot_delete is not None:
        if not job.dry_run:
            raise Unsupported(cannot_delete)
        print(f"Note: {printable(cannot_delete)}; this can only list what would be pruned.")
    assert job.older_than is not None
    listing = await list_all(ws.sessions.listing(agent), job.scope)
    if listing.incomplete:
        warn(f"{listing.incomplete}; pruning what was listed")
    now = datetime.now(UTC)
    cutoff = now - job.older_than
    old, skipped = [], 0
    for info in listing.sessions:
        when = parse_timestamp(info.updated_at)
        if when is None:
            skipped += 1
        elif when < cutoff:
            old.append(info)
    if skipped:
        print(f"Skipped {plural(skipped, 'session')} without a usable updatedAt.")
    if not old:
        print(f"No sessions older than {job.older_than_text}.")
        return 0
    print(f"{plural(len(old), 'session')} not updated for {job.older_than_text}:")
    print(table(old, now))
    if job.dry_run:
        print("Dry run: nothing deleted.")
        return 0
    if not job.yes and not await confirm(f"Delete these {plural(len(old), 'session')}?"):
        print("Nothing deleted.", file=sys.stderr)
        return 1
    return await _delete_each(ws, agent, old, keep_local=job.keep_local)


async def _delete_each(
    ws: Workspace, agent: AgentRuntime, infos: list[SessionInfo], *, keep_local: bool = False
) -> int:
    def deleted(event: WorkspaceEvent) -> None:
        if isinstance(event, SessionsChanged):
            for session_id in event.removed:
                print(f"deleted {printable(session_id)}")

    stop = ws.subscribe(deleted)
    try:
        failures = await ws.sessions.delete_listed(agent, infos, keep_local=keep_local)
    finally:
        stop()
    for info, exc in failures:
        print(
            f"acp-tui: could not delete {printable(f'{info.session_id}: {exc}')}", file=sys.stderr
        )
    return 1 if failures else 0


def describe_error(exc: BaseException) -> str:
    """One line naming the cause of a failed command (sanitised: it may quote the agent); an
    agent's error goes on with the further lines of its ``data`` (bounded), and an agent that
    exited with the last lines it wrote on stderr, indented."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, RpcError):
        text = f"the agent answered with an error: {exc}"
    elif isinstance(exc, AgentError | OSError):
        text = str(exc)
    else:
        text = f"unexpected error: {type(exc).__name__}: {exc}"
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    more = lines[1:] if isinstance(exc, RpcError) else lines[1:][-STDERR_LINES:]
    if not isinstance(exc, RpcError | AgentExited | InitializeTimeout):
        more = []
    return "\n".join([sanitize(lines[0]), *(f"  {sanitize(line.strip())}" for line in more)])
