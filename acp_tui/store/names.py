"""Provides the names of the transcript cache's files: hashes of the agent key and session id.

Shared by the cache that writes the files and the library that indexes them, so both always
agree on where a session's transcript is. Names are hashes, so neither a hostile session id nor
an agent command can reach outside the cache's root.
"""

from __future__ import annotations

import hashlib

__all__ = ["agent_dir_name", "digest", "transcript_name"]


def digest(text: str, length: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def agent_dir_name(agent_key: str) -> str:
    """The folder of an agent's transcripts and index."""
    return digest(agent_key, 24)


def transcript_name(session_id: str) -> str:
    """A session's transcript file, without its ``.jsonl`` suffix."""
    return digest(session_id, 32)
