"""Provides `acp-tui search`: every agent's sessions found by what was said in them, headless.

    acp-tui search TEXT... [--agent NAME]... [--cwd DIR] [--limit N] [--json]

It searches the local history library (``acp_tui.store.library``): the titles, directories and
text of the sessions recorded here, of every agent, and the ids of sessions when TEXT looks
like one. No agent is started. The library is built or caught up first, with its progress on
stderr when that takes a moment. What TEXT holds is always literal (quotes make a phrase).

Exit status: 0 when sessions were found, 1 when none were (as grep), 2 for usage errors.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from acp_tui.client.agent.launch import LaunchError
from acp_tui.client.history.agent_names import agent_key_of, configured_agent_keys
from acp_tui.client.safe_text import one_line
from acp_tui.commands.listing import plural, relative_time, warn
from acp_tui.commands.usage import Parser, UsageError, tell
from acp_tui.config.paths import get_paths
from acp_tui.config.settings import load_settings
from acp_tui.store.library import Filters, Library, SearchHit, agent_label

__all__ = ["search_command"]

PROG = "acp-tui search"
MAX_LIMIT = 1000
TITLE_WIDTH = 60
PROGRESS_AFTER = 0.5
"""Say what the library is doing when its build takes longer than this (seconds)."""

_EPILOG = """\
Words must all appear (in any order); "words in quotes" must appear together; the last word
also matches as a prefix. Everything else (* - : NEAR OR parentheses) is plain text; put
TEXT that starts with '-' after '--'.

examples:
  acp-tui search lighthouse keeper
  acp-tui search '"flaky test"' --agent claude --cwd ~/src/app --limit 5
  acp-tui search 3f2a9c --json
  acp-tui search -- -Werror

exit status: 0 when sessions were found, 1 when none were, 2 for usage errors
"""


def _parser() -> Parser:
    import argparse

    parser = Parser(
        prog=PROG,
        description="Search every agent's sessions recorded here: titles, directories and "
        "what was said.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
    )
    parser.add_argument("text", nargs="+", metavar="TEXT", help="what to look for")
    parser.add_argument(
        "-a",
        "--agent",
        action="append",
        metavar="NAME",
        help="only sessions of this configured agent (repeatable; 'demo': the demo agent)",
    )
    parser.add_argument("--cwd", metavar="DIR", help="only sessions whose directory is DIR")
    parser.add_argument(
        "--limit", type=int, default=20, metavar="N", help="at most N sessions (default: 20)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON array of results")
    return parser


def search_command(args: list[str]) -> int:
    """Run ``acp-tui search ARGS`` and return the exit status."""
    options = _parser().parse_args(args)
    if not 1 <= options.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}")
    paths = get_paths()
    settings = load_settings(paths.config_file).settings
    here = Path.cwd()
    agents: tuple[str, ...] | None = None
    if options.agent:
        try:
            agents = tuple(agent_key_of(name, settings, paths, here) for name in options.agent)
        except LaunchError as exc:
            raise UsageError(str(exc)) from None
    cwd = os.path.abspath(os.path.expanduser(options.cwd)) if options.cwd else None
    names = configured_agent_keys(settings, paths, here)
    library = Library.under(paths.data_dir, on_notice=lambda text: warn(text))
    library.start()
    try:
        library.name_agents(names)
        _wait_built(library, getattr(sys.stderr, "inner", sys.stderr))
        if library.status.state == "stopped":
            tell(f"error: the history library cannot be used: {library.status.trouble}")
            return 1
        found = library.search(
            " ".join(options.text), Filters(agents=agents, cwd=cwd), limit=options.limit
        )
    finally:
        library.close()
    if found.query.cut:
        warn("the query was long: only its first words were searched")
    if options.json:
        print(json.dumps([_as_json(hit, names) for hit in found.hits], indent=2))
    else:
        _print_hits(found.hits, names)
    if found.more:
        tell(f"more sessions match; showing {plural(len(found.hits), 'session')} (see --limit)")
    return 0 if found.hits else 1


def _wait_built(library: Library, err: TextIO) -> None:
    """Wait for the library's build, saying how far it is once it takes a moment (``err`` is
    the real stderr: the progress line is redrawn in place on a terminal)."""
    if library.wait_built(PROGRESS_AFTER):
        return
    live = err.isatty()
    if not live:
        tell("indexing the local history first…")
    while not library.wait_built(0.2):
        if live:
            err.write(f"\racp-tui: {one_line(library.status.describe())}")
            err.flush()
    library.sync(60)
    if live:
        err.write("\r\x1b[K")
        err.flush()


def _agent_name(hit: SearchHit, names: dict[str, str]) -> str:
    key = hit.row.agent_key
    return names.get(key) or hit.row.agent_name or agent_label(key)


def _as_json(hit: SearchHit, names: dict[str, str]) -> dict[str, Any]:
    row = hit.row
    return {
        "agent": _agent_name(hit, names),
        "agentKey": row.agent_key,
        "sessionId": row.session_id,
        "title": row.title,
        "cwd": row.cwd,
        "additionalDirectories": list(row.additional_directories),
        "updatedAt": row.updated_at,
        "match": hit.field,
        "snippet": {"text": hit.snippet.text, "spans": [list(span) for span in hit.snippet.spans]},
        "line": hit.line,
        "turn": hit.turn,
        "kind": hit.kind,
    }


def _print_hits(hits: list[SearchHit], names: dict[str, str]) -> None:
    now = datetime.now(UTC)
    out: TextIO = sys.stdout
    raw = getattr(out, "inner", out)  # beneath the sanitiser: only for our own bold marks
    bold = raw.isatty() and not os.environ.get("NO_COLOR")
    for hit in hits:
        row = hit.row
        title = one_line(row.title or "(untitled)")
        if len(title) > TITLE_WIDTH:
            title = title[: TITLE_WIDTH - 1] + "…"
        when = relative_time(row.updated_at, now)
        out.write(f"{when:<10}  {one_line(_agent_name(hit, names))}  {title}  ({row.session_id})\n")
        label = hit.kind if hit.kind is not None else hit.field
        if not bold:
            out.write(f"    {label}: {one_line(hit.snippet.text)}\n")
            continue
        out.flush()
        raw.write(f"    {one_line(label)}: {_marked(hit)}\n")
        raw.flush()
    out.flush()


def _marked(hit: SearchHit) -> str:
    """The snippet with its matches in bold: each piece sanitised, then marked."""
    text, pieces, at = hit.snippet.text, [], 0
    for start, end in hit.snippet.spans:
        pieces.append(one_line(text[at:start]))
        pieces.append(f"\x1b[1m{one_line(text[start:end])}\x1b[22m")
        at = end
    pieces.append(one_line(text[at:]))
    return "".join(pieces)
