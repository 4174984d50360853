"""Provides the demo agent's options and its view of the client's capabilities."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Session capabilities the agent can advertise and serve; ``load`` is ``loadSession``.
ALL_CAPABILITIES: tuple[str, ...] = (
    "list",
    "load",
    "resume",
    "close",
    "delete",
    "fork",
    "additionalDirectories",
)

MCP_TRANSPORTS: tuple[str, ...] = ("http", "sse")
"""The MCP transports ``--mcp`` can advertise besides stdio (which agents always take)."""

FAULT_HELP: dict[str, str] = {
    "hang-initialize": "never answer initialize",
    "login-hangs": "never answer authenticate (auth/login) until the client cancels it",
    "replay-on-resume": "replay the history on session/resume too, as some agents do",
    "login-exits": "exit with code 3 (saying why on stderr) when asked to authenticate "
    "(auth/login)",
    "error-data": "session/prompt, session/list and session/delete answer -32603 with the "
    'reason in data: "CODEX_API_KEY is not set" (as codex-acp does)',
    "error-details": "the same with data {message, details}: a stream that disconnected, and "
    "the lines of what went wrong",
    "slow-list": "every session/list answers after 3 s",
    "late-chunk": "one more agent_message_chunk follows each turn's end, 0.2 s later: v1 "
    "replies then carry no messageId, v2 ones the id of the turn's last reply",
    "no-titles": "never send session_info_update (no titles, as many agents do)",
    "dated-ids": "new session ids start with the date and minute (as some agents write them): "
    "a short prefix does not tell them apart",
    "updates-after-close": "after answering session/close, 100 agent_message_chunks for the "
    "closed session",
    "string-ids": 'every answer after initialize carries its request\'s id as a string ("2" '
    "for 2), as some broken agents write it: it answers no request of the client's",
    "hang-session": "never answer session/new, session/load, session/resume or session/fork "
    "until the client cancels the request",
    "hang-list": "never answer session/list until the client cancels the request",
    "load-refuses-active": "session/load (v2: session/resume with replayFrom) of a session "
    "active in this process answers -32600, as agentao does",
    "load-empty": "session/load (v2: session/resume with replayFrom) answers {} and replays "
    "nothing, as pydantic-acp does for a session it does not know",
    "close-deletes": "session/close deletes the session, and a load of a session it does not "
    "know answers {} with nothing replayed, as pydantic-acp does",
    "notice-after-open": "a notice update right behind the answer to session/new, "
    "session/load and session/resume, before the client can have shown the session",
    "no-agent-info": "initialize answers without agentInfo (v1; v2 requires info), as some "
    "agents do: the client must name the agent itself",
}
"""What each ``--fault`` does (shown by ``--help``)."""

FAULTS: tuple[str, ...] = tuple(FAULT_HELP)

AUTH_STYLES: tuple[str, ...] = ("standard", "meta", "error-data")
"""How ``--require-auth`` offers its methods: as ``authMethods`` (the terminal one typed, as the
spec says), with the terminal one only in ``_meta["terminal-auth"]`` (kimi, copilot), or only in
the -32000 error's ``data`` (no ``authMethods`` in ``initialize``)."""

PROTOCOL_VERSION = 1
"""The version answered unless ``--protocol 2`` lets the agent answer 2 to an offer of 2."""


@dataclass(frozen=True, slots=True)
class AgentOptions:
    """What the command line chose."""

    data_dir: Path
    page_size: int = 50
    capabilities: frozenset[str] = frozenset(ALL_CAPABILITIES)
    require_auth: bool = False
    auth_on: frozenset[str] | None = None
    """The methods that answer -32000 until logged in (None: every session method)."""
    auth_style: str = "standard"
    auth_env: str | None = None
    """With ``require_auth``: the variable an ``env_var`` login method sets (``--auth-env``)."""
    faults: frozenset[str] = frozenset()
    """The ``--fault`` switches given (several may be)."""
    delay_ms: int = 0
    protocol: int = PROTOCOL_VERSION
    """The highest protocol version served (2: the v2 draft dialect, when the client offers 2)."""
    hostile: str | None = None
    """When set, every display string the agent writes is replaced by this text (tests)."""
    auth_elicit: bool = False
    """Ask the user a question (a request-scoped elicitation) during `authenticate`."""
    mcp_transports: frozenset[str] = frozenset()
    """MCP transports advertised besides stdio: ``http`` and/or ``sse`` (v2: ``http``)."""
    image: bool = False
    """Advertise ``promptCapabilities.image`` and take image blocks in prompts."""

    def has(self, capability: str) -> bool:
        return capability in self.capabilities

    def faulty(self, fault: str) -> bool:
        """Whether ``--fault`` named ``fault``."""
        return fault in self.faults

    def needs_login(self, method: str) -> bool:
        """Whether ``method`` is refused until the client logged in (``--require-auth``)."""
        if not self.require_auth:
            return False
        if self.auth_on is not None:
            return method in self.auth_on
        return method.startswith("session/")


def _flag(value: Any) -> bool:
    return value is True


def _marker(value: Any) -> bool:
    return isinstance(value, dict)


@dataclass(frozen=True, slots=True)
class ClientCaps:
    """The client capabilities the demo agent acts on (everything else is ignored)."""

    read_text_file: bool = False
    write_text_file: bool = False
    terminal: bool = False
    boolean_config: bool = False
    terminal_auth: bool = False
    agent_terminals: bool = False
    """ACP v2: no client terminals; the agent runs commands itself and reports their output."""
    elicitation_form: bool = False
    elicitation_url: bool = False

    @classmethod
    def from_wire(cls, caps: Any) -> ClientCaps:
        """Read ``clientCapabilities`` leniently: anything malformed counts as unsupported."""
        if not isinstance(caps, dict):
            return cls()
        fs = caps.get("fs") if isinstance(caps.get("fs"), dict) else {}
        session = caps.get("session") if isinstance(caps.get("session"), dict) else {}
        config = session.get("configOptions") if isinstance(session, dict) else None
        auth = caps.get("auth") if isinstance(caps.get("auth"), dict) else {}
        form, url = elicitation_modes(caps)
        return cls(
            read_text_file=_flag(fs.get("readTextFile")) if isinstance(fs, dict) else False,
            write_text_file=_flag(fs.get("writeTextFile")) if isinstance(fs, dict) else False,
            terminal=_flag(caps.get("terminal")),
            boolean_config=isinstance(config, dict) and _marker(config.get("boolean")),
            terminal_auth=isinstance(auth, dict) and _flag(auth.get("terminal")),
            elicitation_form=form,
            elicitation_url=url,
        )


def elicitation_modes(caps: Any) -> tuple[bool, bool]:
    """Whether ``caps.elicitation`` advertises forms and URLs (object markers, v1 and v2)."""
    elicitation = caps.get("elicitation") if isinstance(caps, dict) else None
    if not isinstance(elicitation, dict):
        return False, False
    return _marker(elicitation.get("form")), _marker(elicitation.get("url"))
