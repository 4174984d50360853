"""Provides SessionMarks: what acp-tui notes of an agent's sessions besides their history.

One small file per agent, ``marks.json`` beside its transcripts (see
``acp_tui.store.transcripts``)::

    {"version": 1, "unused": ["<session id>", ...], "forkTitled": ["<session id>", ...]}

``unused``: sessions acp-tui created (`session/new`) and in which nothing was sent yet. A
launch that types nothing leaves such a session with the agent when it cannot delete it (or
acp-tui stopped before it could): the browsers and ``--continue`` pass over them, and the first
prompt takes the mark off. ``forkTitled``: sessions whose local title acp-tui gave them itself
(a fork's "Fork of …"), not the user: the agent's own title replaces it (see
``acp_tui.client.workspace.local_titles``).

The file is read again before each change (another acp-tui may have changed it) and replaced
whole; a failure to read or write it is logged (or told), never raised: a mark only decides
what is shown.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from acp_tui.config.atomic import write_atomic

__all__ = ["MARKS_FILE", "MARKS_KEPT", "Mark", "SessionMarks"]

log = logging.getLogger(__name__)

MARKS_FILE = "marks.json"
MARKS_VERSION = 1
MARKS_KEPT = 2000
"""The most sessions kept per mark (the newest): launches that typed nothing add up."""

Mark = Literal["unused", "forkTitled"]
MARKS: tuple[Mark, ...] = ("unused", "forkTitled")


class SessionMarks:
    """The marks of every agent's sessions; ``folder`` gives an agent's folder by its key."""

    def __init__(
        self, folder: Callable[[str], Path], failed: Callable[[str, Exception], None] | None = None
    ) -> None:
        self.folder = folder
        self.failed = failed
        """Told what could not be written, and why (else it is logged as a warning)."""
        self._read: dict[str, dict[Mark, list[str]]] = {}
        """Each agent's marks, as read (or last written) here."""

    def of(self, agent_key: str, mark: Mark) -> frozenset[str]:
        """The sessions of ``agent_key`` that carry ``mark``."""
        marks = self._read.get(agent_key)
        if marks is None:
            marks = self._read[agent_key] = self._load(agent_key)
        return frozenset(marks[mark])

    def set(self, agent_key: str, session_id: str, mark: Mark, on: bool) -> None:
        """Put ``mark`` on the session (``on``) or take it off; written only on a change."""
        if (session_id in self.of(agent_key, mark)) == on:
            return
        marks = self._read[agent_key] = self._load(agent_key)
        ids = marks[mark]
        if session_id in ids:
            ids.remove(session_id)
        if on:
            ids.append(session_id)
            del ids[:-MARKS_KEPT]
        self._write(agent_key, marks)

    def forget(self, agent_key: str, session_id: str) -> None:
        """Take every mark off the session (it is gone)."""
        for mark in MARKS:
            self.set(agent_key, session_id, mark, False)

    def _path(self, agent_key: str) -> Path:
        return self.folder(agent_key) / MARKS_FILE

    def _load(self, agent_key: str) -> dict[Mark, list[str]]:
        path = self._path(agent_key)
        try:
            raw = json.loads(path.read_bytes())
        except FileNotFoundError:
            raw = {}
        except (OSError, ValueError, RecursionError) as exc:  # written next time, if it can
            log.debug("cannot read %s: %s", path, exc)
            raw = {}
        marks: dict[Mark, list[str]] = {}
        for mark in MARKS:
            ids = raw.get(mark) if isinstance(raw, dict) else None
            kept = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
            marks[mark] = list(dict.fromkeys(kept))[-MARKS_KEPT:]
        return marks

    def _write(self, agent_key: str, marks: dict[Mark, list[str]]) -> None:
        path = self._path(agent_key)
        document: dict[str, object] = {"version": MARKS_VERSION}
        document.update((str(mark), ids) for mark, ids in marks.items())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, json.dumps(document).encode("ascii"))
        except (OSError, ValueError) as exc:
            if self.failed is None:
                log.warning("cannot write %s: %s", path, exc)
            else:
                self.failed(f"could not write {path}", exc)
