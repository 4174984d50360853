"""Provides the demo agent's pretend authentication: its method ids and the stored credential.

``--require-auth`` makes every session method wait for a login: the agent method (always
succeeds) or, when the client can run it, the terminal method (``--login``, which stores a
credential that later runs find).
"""

from __future__ import annotations

from pathlib import Path

AUTH_METHOD_ID = "demo-login"
TERMINAL_AUTH_METHOD_ID = "demo-terminal-login"
CREDENTIALS_FILE = "credentials.json"


def has_credentials(data_dir: Path) -> bool:
    """Whether an earlier `--login` run stored a credential (terminal authentication)."""
    return (data_dir / CREDENTIALS_FILE).is_file()


def store_credentials(data_dir: Path) -> None:
    """What a successful `--login` leaves for the next runs."""
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / CREDENTIALS_FILE).write_text('{"user": "demo"}\n')
