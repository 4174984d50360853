"""Provides `acp-tui sessions list|prune --all-agents`: every configured agent's sessions at once.

``list --all-agents`` lists each configured agent in turn, one at a time (its status on stderr:
``N new`` or ``failed: reason``), into the history library, then prints the library's merged
rows, newest first, with the agent of each and when it was last listed: an agent that failed
shows the sessions it had when it was last listed. ``--offline`` starts no agent and prints the
library's rows as they are.

``prune --all-agents`` starts and lists every agent first, then says which agents cannot delete
(and why), then what each of the others would delete, asks once, and deletes. A deleted
session's local copy leaves the disk and the library unless ``--keep-local``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.client.history.list_pages import Scope
from acp_tui.client.history.recorder import agent_key_for
from acp_tui.client.process.exit_signals import ExitSignals
from acp_tui.client.workspace.agent_runtime import AgentRuntime
from acp_tui.client.workspace.every_agent import ListingStatus, list_into_library
from acp_tui.client.workspace.interaction import Headless
from acp_tui.client.workspace.workspace import Workspace
from acp_tui.commands.confirm import confirm
from acp_tui.commands.listing import plural, printable, relative_time, table, warn
from acp_tui.config.paths import get_paths
from acp_tui.protocol.methods import SessionInfo
from acp_tui.protocol.timestamps import parse_timestamp
from acp_tui.store.library import Filters, Library, LibraryRow, agent_label

if TYPE_CHECKING:
    from datetime import timedelta

__all__ = ["EveryAgentJob", "run_every_agent"]

STOP_WITHIN = 5.0
"""How long a listed agent is given to stop before the next one starts."""
PAGE = 500


@dataclass(frozen=True)
class EveryAgentJob:
    """What `acp-tui sessions list|prune --all-agents` was asked."""

    action: str
    launches: dict[str, LaunchSpec]
    """The configured agents, by name."""
    scope: Scope
    json: bool = False
    offline: bool = False
    yes: bool = False
    dry_run: bool = False
    keep_local: bool = False
    older_than: timedelta | None = None
    older_than_text: str = ""
    auth: str | None = None


async def run_every_agent(job: EveryAgentJob, signals: ExitSignals) -> int:
    """Run the action; a signal cancels it (every agent is stopped, as always)."""
    paths = get_paths()
    library = Library.under(paths.data_dir, on_notice=warn)
    library.start()
    try:
        library.name_agents({agent_key_for(launch): name for name, launch in job.launches.items()})
        with anyio.CancelScope() as cancel:
            signals.request_exit = lambda _status: cancel.cancel()
            if job.action == "list":
                return await _list(job, library)
            return await _prune(job, library)
        return 1  # cancelled by a signal: the caller returns 128 + its number
    finally:
        await anyio.to_thread.run_sync(library.close)


def _said(status: ListingStatus) -> None:
    if status.state in ("done", "failed"):
        print(f"acp-tui: {printable(status.name)}: {printable(status.describe())}", file=sys.stderr)


async def _stop(agent: AgentRuntime) -> None:
    agent.stop()
    with anyio.move_on_after(STOP_WITHIN):
        while agent.state != "stopped":
            await agent.wait_ready_or_stopped()


def _workspace(job: EveryAgentJob, library: Library) -> Workspace:
    ws = Workspace(
        paths=get_paths(),
        project=Path.cwd(),
        interaction=Headless(auth=job.auth),
        connect=connect,  # looked up here: the tests run the demo agent in-process
    )
    ws.cache.library = library  # a deleted session leaves the library with its local copy
    return ws


# -- list ------------------------------------------------------------------------------------


async def _list(job: EveryAgentJob, library: Library) -> int:
    failed = 0
    if not job.offline:
        async with _workspace(job, library) as ws:
            for name, launch in job.launches.items():
                agent = ws.agent_for(launch)
                status, _ = await list_into_library(
                    ws, agent, library, job.scope, name=name, report=_said
                )
                failed += status.state == "failed"
                await _stop(agent)
    await anyio.to_thread.run_sync(library.wait_built)
    names = {agent_key_for(launch): name for name, launch in job.launches.items()}
    rows = await anyio.to_thread.run_sync(_every_row, library, job.scope, tuple(names))
    if job.json:
        print(json.dumps([_as_json(row, names) for row in rows], indent=2))
    elif rows:
        print(_table(rows, names, datetime.now(UTC)))
    else:
        where = "anywhere" if job.scope.cwd is None else f"in {job.scope.cwd}"
        print(f"No sessions {where}.")
    if failed:
        print(
            f"acp-tui: {plural(failed, 'agent')} could not be listed: their sessions are as "
            "they were last listed",
            file=sys.stderr,
        )
    return 1 if failed else 0


def _every_row(library: Library, scope: Scope, agents: tuple[str, ...]) -> list[LibraryRow]:
    dirs = scope.additional_directories
    filters = Filters(
        agents=agents,
        cwd=str(scope.cwd) if scope.cwd is not None else None,
        additional_directories=tuple(map(str, dirs)) if dirs is not None else None,
    )
    rows: list[LibraryRow] = []
    page = library.rows(filters, limit=PAGE)
    rows.extend(page.rows)
    while page.next is not None:
        page = library.rows(filters, limit=PAGE, after=page.next)
        rows.extend(page.rows)
    return rows


def _name(row: LibraryRow, names: dict[str, str]) -> str:
    return names.get(row.agent_key) or row.agent_name or agent_label(row.agent_key)


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _as_json(row: LibraryRow, names: dict[str, str]) -> dict[str, Any]:
    return {
        "agent": _name(row, names),
        "agentKey": row.agent_key,
        "sessionId": row.session_id,
        "title": row.title,
        "agentTitle": row.agent_title,
        "localTitle": row.local_title,
        "cwd": row.cwd,
        "additionalDirectories": list(row.additional_directories),
        "updatedAt": row.updated_at,
        "listedAt": _iso(row.listed_at),
        "localCopy": row.has_local_copy,
    }


def _table(rows: Sequence[LibraryRow], names: dict[str, str], now: datetime) -> str:
    """UPDATED, AGENT, LISTED (when the agent last listed it; ``-``: only acp-tui's own
    record has it), TITLE, ID, CWD, EXTRA ROOTS."""
    header = ("UPDATED", "AGENT", "LISTED", "TITLE", "ID", "CWD", "EXTRA ROOTS")
    lines: list[tuple[str, ...]] = [header]
    for row in rows:
        title = printable(row.title) if row.title else "(untitled)"
        lines.append(
            (
                relative_time(row.updated_at, now),
                printable(_name(row, names)),
                relative_time(_iso(row.listed_at), now),
                title if len(title) <= 40 else title[:39] + "…",
                printable(row.session_id),
                printable(row.cwd),
                printable(", ".join(row.additional_directories)),
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header) - 1)]
    return "\n".join(
        "  ".join([*(c.ljust(w) for c, w in zip(line, widths, strict=False)), line[-1]]).rstrip()
        for line in lines
    )


# -- prune -----------------------------------------------------------------------------------


@dataclass
class _Plan:
    name: str
    agent: AgentRuntime
    old: list[SessionInfo]


async def _prune(job: EveryAgentJob, library: Library) -> int:
    assert job.older_than is not None
    now = datetime.now(UTC)
    cutoff = now - job.older_than
    async with _workspace(job, library) as ws:
        cannot: list[tuple[str, str]] = []
        plans: list[_Plan] = []
        skipped = 0
        for name, launch in job.launches.items():
            agent = ws.agent_for(launch)
            status, listing = await list_into_library(ws, agent, library, job.scope, name=name)
            why = status.reason if listing is None else None
            if why is None:
                why = ws.sessions.why_unavailable(
                    agent, "delete", SessionInfo(session_id="", cwd="/")
                )
            if why is not None or listing is None:
                cannot.append((name, why or "it cannot be listed"))
                await _stop(agent)
                continue
            if listing.incomplete:
                warn(f"{name}: {listing.incomplete}; pruning what was listed")
            old = []
            for info in listing.sessions:
                when = parse_timestamp(info.updated_at)
                if when is None:
                    skipped += 1
                elif when < cutoff:
                    old.append(info)
            plans.append(_Plan(name, agent, old))
            if not old:
                await _stop(agent)
        for name, why in cannot:
            print(f"{printable(name)} cannot delete: {printable(why)}")
        if skipped:
            print(f"Skipped {plural(skipped, 'session')} without a usable updatedAt.")
        doomed = [plan for plan in plans if plan.old]
        for plan in plans:
            if not plan.old:
                print(f"{printable(plan.name)}: no sessions older than {job.older_than_text}.")
                continue
            count = plural(len(plan.old), "session")
            print(f"{printable(plan.name)}: {count} not updated for {job.older_than_text}:")
            print(table(plan.old, now))
        total = sum(len(plan.old) for plan in doomed)
        if not total:
            return 0
        local = " (their local copies are kept)" if job.keep_local else ""
        if job.dry_run:
            print("Dry run: nothing deleted.")
            return 0
        agents = plural(len(doomed), "agent")
        question = f"Delete these {plural(total, 'session')} of {agents}{local}?"
        if not job.yes and not await confirm(question):
            print("Nothing deleted.", file=sys.stderr)
            return 1
        failures = 0
        for plan in doomed:
            failed = await ws.sessions.delete_listed(
                plan.agent, plan.old, keep_local=job.keep_local
            )
            gone = {info.session_id for info, _ in failed}
            for info in plan.old:
                if info.session_id not in gone:
                    print(f"deleted {printable(plan.name)} {printable(info.session_id)}")
            for info, exc in failed:
                what = f"{plan.name} {info.session_id}: {exc}"
                print(f"acp-tui: could not delete {printable(what)}", file=sys.stderr)
            failures += len(failed)
        return 1 if failures else 0
