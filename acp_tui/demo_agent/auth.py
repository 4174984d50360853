"""Provides the demo agent's pretend authentication: its method ids and the stored credential.

``--require-auth`` makes every session method wait for a login: the agent method (always
succeeds) or, when the client can run it, the terminal method (``--login``, which stores a
credential that later runs find). ``--auth-env NAME`` adds an ``env_var`` method, as codex's
``openai-api-key``: `authenticate` with it succeeds only when the agent was started with
``NAME`` set (never said back: it is a secret).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

AUTH_METHOD_ID = "demo-login"
TERMINAL_AUTH_METHOD_ID = "demo-terminal-login"
ENV_AUTH_METHOD_ID = "demo-api-key"
CREDENTIALS_FILE = "credentials.json"
AUTH_DATA_MESSAGE = "no demo credential is stored yet"
"""What the -32000 error's ``data`` says with ``--auth-style error-data`` (with the methods)."""


LOGIN_ENV = {"ACP_TUI_DEMO_LOGIN": "1"}
"""Set for the terminal login (``--login``), as a client that runs it would."""


def auth_methods(
    version: int,
    *,
    terminal: bool,
    style: str = "standard",
    login_command: tuple[str, ...] = (),
    env_var: str | None = None,
) -> list[dict[str, Any]]:
    """The login methods `initialize` advertises as protocol ``version`` spells them; the
    terminal one only to a client that can run it.

    ``style`` ``meta`` offers the terminal login the older way some agents do (kimi, copilot):
    an agent-type entry whose ``_meta["terminal-auth"]`` gives the whole ``login_command``.
    ``env_var`` adds the ``env_var`` method that reads that variable.
    """
    key = "methodId" if version >= 2 else "id"
    agent: dict[str, Any] = {
        key: AUTH_METHOD_ID,
        "name": "Demo login",
        "description": "Pretend to sign in; always succeeds",
    }
    if version >= 2:
        agent["type"] = "agent"
    methods = [agent]
    if env_var is not None:
        methods.append(
            {
                key: ENV_AUTH_METHOD_ID,
                "name": f"Use {env_var}",
                "description": f"Requires setting the {env_var} environment variable",
                "type": "env_var",
                "vars": [{"name": env_var, "label": "Demo API key"}],
                "link": "https://example.invalid/demo-api-keys",
            }
        )
    if style == "meta" and version < 2:
        methods.append(
            {
                "id": TERMINAL_AUTH_METHOD_ID,
                "name": "Log in from the terminal",
                "description": "Runs the demo agent's interactive login (--login)",
                "_meta": {
                    "terminal-auth": {
                        "command": login_command[0],
                        "args": list(login_command[1:]),
                        "env": dict(LOGIN_ENV),
                        "label": "Terminal login (demo)",
                    }
                },
            }
        )
    elif terminal:
        methods.append(
            {
                key: TERMINAL_AUTH_METHOD_ID,
                "name": "Log in from the terminal",
                "description": "Runs the demo agent's interactive login (--login)",
                "type": "terminal",
                "args": ["--login"],
                "env": [{"name": k, "value": v} for k, v in LOGIN_ENV.items()]
                if version >= 2
                else dict(LOGIN_ENV),
            }
        )
    return methods


def has_credentials(data_dir: Path) -> bool:
    """Whether an earlier `--login` run stored a credential (terminal authentication)."""
    return (data_dir / CREDENTIALS_FILE).is_file()


def store_credentials(data_dir: Path) -> None:
    """What a successful `--login` leaves for the next runs."""
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / CREDENTIALS_FILE).write_text('{"user": "demo"}\n')


def forget_credentials(data_dir: Path) -> None:
    """What logging out leaves: no stored credential."""
    (data_dir / CREDENTIALS_FILE).unlink(missing_ok=True)
