"""Provides what the library reads beside the transcripts, and the file it keeps there.

Under the transcript cache's root, each agent's folder holds its local index (``index.json``,
see ``acp_tui.store.sessions``, which names the agent key) and the transcripts. The library adds
one small file per agent, ``library.json``, for what the user set and a rebuild must not lose::

    {"version": 1, "agent": "<agent key>", "name": "claude", "titles": {"<session id>": "..."}}

``name`` is the agent's display name when last known (the configured name), so sessions of an
agent since removed from the config still say whose they are. Everything else in the database
is derived, from these files and the transcripts, or from the agents' ``session/list``.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_tui.config.atomic import write_atomic
from acp_tui.store.sessions import CachedSession

__all__ = [
    "LIBRARY_FILE",
    "AgentSource",
    "UserData",
    "agent_label",
    "read_user_data",
    "scan_agents",
    "write_user_data",
]

log = logging.getLogger(__name__)

LIBRARY_FILE = "library.json"
USER_DATA_VERSION = 1
TITLE_CHARS = 1000
"""A local title is cut to this many characters."""


@dataclass(slots=True)
class UserData:
    """What ``library.json`` holds for one agent."""

    key: str | None = None
    name: str | None = None
    titles: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class AgentSource:
    """One agent's folder: its key (when known), name, local sessions and local titles."""

    dir: str
    key: str | None
    name: str | None
    sessions: list[CachedSession]
    titles: dict[str, str]


def _is_agent_dir(name: str) -> bool:
    return len(name) == 24 and all(c in "0123456789abcdef" for c in name)


def scan_agents(root: Path) -> Iterator[AgentSource]:
    """Every agent folder under ``root`` (an unreadable one is skipped, with a warning)."""
    try:
        entries = sorted(e.name for e in os.scandir(root) if _is_agent_dir(e.name) and e.is_dir())
    except FileNotFoundError:
        return
    except OSError as exc:
        log.warning("cannot read the transcripts folder %s: %s", root, exc)
        return
    for name in entries:
        folder = root / name
        key, sessions = _read_index(folder / "index.json")
        user = read_user_data(folder)
        yield AgentSource(name, key or user.key, user.name, sessions, user.titles)


def _read_index(path: Path) -> tuple[str | None, list[CachedSession]]:
    raw = _read_json(path)
    if not isinstance(raw, dict):
        return None, []
    key = raw.get("agent")
    entries = raw.get("sessions")
    sessions = [
        session
        for session in map(CachedSession.from_json, entries if isinstance(entries, list) else [])
        if session is not None
    ]
    return (key if isinstance(key, str) else None), sessions


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        log.debug("cannot read %s: %s", path, exc)
        return None


def read_user_data(agent_dir: Path) -> UserData:
    raw = _read_json(agent_dir / LIBRARY_FILE)
    if not isinstance(raw, dict):
        return UserData()
    key, name, titles = raw.get("agent"), raw.get("name"), raw.get("titles")
    return UserData(
        key if isinstance(key, str) else None,
        name if isinstance(name, str) and name else None,
        {
            sid: title[:TITLE_CHARS]
            for sid, title in (titles.items() if isinstance(titles, dict) else ())
            if isinstance(sid, str) and isinstance(title, str) and title.strip()
        },
    )


def write_user_data(agent_dir: Path, data: UserData) -> None:
    """Atomically write ``library.json``; raises OSError."""
    document = {
        "version": USER_DATA_VERSION,
        "agent": data.key,
        "name": data.name,
        "titles": data.titles,
    }
    agent_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    write_atomic(agent_dir / LIBRARY_FILE, text.encode("utf-8", "surrogatepass"))


@functools.lru_cache(maxsize=256)
def agent_label(key: str) -> str:
    """A short name for an agent known only by its key (its argv as JSON): the demo agent is
    ``demo``; else the package or program it runs, e.g. ``claude-agent-acp``."""
    try:
        raw = json.loads(key)
    except ValueError:
        return key[:40]
    if not isinstance(raw, list) or not raw or not all(isinstance(a, str) for a in raw):
        return key[:40]
    argv: list[str] = raw
    if "acp_tui.demo_agent" in argv:
        return "demo"
    program = os.path.basename(argv[0])
    if program in ("npx", "bunx", "pnpx", "uvx", "pipx") or program.startswith("python"):
        for arg in argv[1:]:
            if not arg.startswith("-") and arg not in ("-m", "run", "exec", "dlx"):
                return arg.rsplit("/", 1)[-1].split("@", 1)[0] or arg
    return program or key[:40]
