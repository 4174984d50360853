"""Provides Capabilities: one view of what the agent can do, whatever the protocol version.

Every screen and command asks this view (``caps.can_delete``, ``caps.why_not("delete")``)
instead of reading initialize results, so the v2 draft only needs another constructor.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from acp_tui.client.agent.auth_methods import (
    AuthMethodInfo,
    EnvVarSpec,
    auth_methods_in_error,
    v1_auth_methods,
    v2_auth_methods,
)
from acp_tui.protocol.capabilities import InitializeResponse
from acp_tui.protocol.v2 import initialize as v2

Action = Literal["list", "load", "resume", "close", "delete", "fork", "additional_directories"]

# What each action is called on the wire, for messages a user reads.
_WIRE_NAMES: dict[Action, str] = {
    "list": "session/list",
    "load": "session/load",
    "resume": "session/resume",
    "close": "session/close",
    "delete": "session/delete",
    "fork": "session/fork",
    "additional_directories": "additional workspace roots (additionalDirectories)",
}

__all__ = [
    "AuthMethodInfo",
    "Capabilities",
    "EnvVarSpec",
    "auth_methods_in_error",
    "v1_auth_methods",
]

BASELINE_PROMPT_KINDS = frozenset({"text", "resource_link"})


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What the connected agent advertised, as plain answers."""

    protocol_version: int
    agent_name: str = "agent"
    agent_title: str | None = None
    agent_version: str | None = None
    agent_info: bool = False
    """Whether the agent said its name (``agentInfo``; v2 ``info`` is required); without it,
    ``agent_name`` is "agent" until `named` gives the one the user knows it by."""
    can_list: bool = False
    can_load: bool = False
    can_resume: bool = False
    can_close: bool = False
    can_delete: bool = False
    can_fork: bool = False
    additional_directories: bool = False
    can_logout: bool = False
    prompt_image: bool = False
    prompt_audio: bool = False
    prompt_embedded_context: bool = False
    mcp_stdio: bool = True
    mcp_http: bool = False
    mcp_sse: bool = False
    auth_methods: tuple[AuthMethodInfo, ...] = field(default=())

    @classmethod
    def from_v1(cls, result: InitializeResponse) -> Capabilities:
        """Build the view from a v1 `initialize` result."""
        caps = result.agent_capabilities
        session = caps.session_capabilities
        prompt = caps.prompt_capabilities
        info = result.agent_info
        return cls(
            protocol_version=result.protocol_version,
            agent_name=info.name if info else "agent",
            agent_title=info.title if info else None,
            agent_version=info.version if info else None,
            agent_info=info is not None,
            can_list=session.list is not None,
            can_load=caps.load_session,
            can_resume=session.resume is not None,
            can_close=session.close is not None,
            can_delete=session.delete is not None,
            can_fork=session.fork is not None,
            additional_directories=session.additional_directories is not None,
            can_logout=caps.auth.logout is not None,
            prompt_image=prompt.image,
            prompt_audio=prompt.audio,
            prompt_embedded_context=prompt.embedded_context,
            mcp_http=caps.mcp_capabilities.http,
            mcp_sse=caps.mcp_capabilities.sse,
            auth_methods=v1_auth_methods(list(result.auth_methods)),
        )

    @classmethod
    def from_v2(cls, result: v2.InitializeResponse) -> Capabilities:
        """Build the view from a v2 `initialize` result.

        ``capabilities.session`` present means new, list, resume, close, prompt, cancel and
        update without markers; delete, extra roots, fork, prompt kinds and MCP transports come
        from their markers. There is no `session/load` (``can_load`` is False): a replay is
        `session/resume` with ``replayFrom``. A non-empty ``authMethods`` means login and logout.
        """
        session = result.capabilities.session
        prompt = session.prompt if session is not None else None
        mcp = session.mcp if session is not None else None
        has_session = session is not None
        return cls(
            protocol_version=result.protocol_version,
            agent_name=result.info.name,
            agent_title=result.info.title,
            agent_version=result.info.version,
            agent_info=True,
            can_list=has_session,
            can_load=False,
            can_resume=has_session,
            can_close=has_session,
            can_delete=session is not None and session.delete is not None,
            can_fork=session is not None and session.fork is not None,
            additional_directories=session is not None
            and session.additional_directories is not None,
            can_logout=bool(result.auth_methods),
            prompt_image=prompt is not None and prompt.image is not None,
            prompt_audio=prompt is not None and prompt.audio is not None,
            prompt_embedded_context=prompt is not None and prompt.embedded_context is not None,
            mcp_stdio=mcp is not None and mcp.stdio is not None,
            mcp_http=mcp is not None and mcp.http is not None,
            mcp_sse=False,
            auth_methods=v2_auth_methods(list(result.auth_methods)),
        )

    def named(self, name: str) -> Capabilities:
        """This view, called ``name`` when the agent did not say its own (no ``agentInfo``):
        the name the user started it by (its config name, or its command's program), never
        "agent", in every message that names it."""
        if self.agent_info or not name:
            return self
        return replace(self, agent_name=name)

    @property
    def display_name(self) -> str:
        return self.agent_title or self.agent_name

    @property
    def prompt_content_kinds(self) -> frozenset[str]:
        """Content block types the client may send in `session/prompt`."""
        kinds = set(BASELINE_PROMPT_KINDS)
        if self.prompt_image:
            kinds.add("image")
        if self.prompt_audio:
            kinds.add("audio")
        if self.prompt_embedded_context:
            kinds.add("resource")
        return frozenset(kinds)

    @property
    def can_replay(self) -> bool:
        """Whether the agent itself replays a session's history when it is reopened: v1
        `session/load`, v2 `session/resume` with ``replayFrom`` (what ``load_session`` sends)."""
        return self.can_load or (self.protocol_version >= 2 and self.can_resume)

    @property
    def can_reattach(self) -> bool:
        """Whether an existing session can be reopened at all (load or resume)."""
        return self.can_load or self.can_resume

    def supports(self, action: Action) -> bool:
        return {
            "list": self.can_list,
            "load": self.can_load,
            "resume": self.can_resume,
            "close": self.can_close,
            "delete": self.can_delete,
            "fork": self.can_fork,
            "additional_directories": self.additional_directories,
        }[action]

    def why_not(self, action: Action) -> str | None:
        """None when ``action`` is available, else the reason to show the user."""
        if self.supports(action):
            return None
        return f"{self.display_name} does not support {_WIRE_NAMES[action]}"
