"""Provides the rules of what a session call sends, decided from the agent's capabilities.

Kept here, in one place, and decided before anything is sent (`SessionCalls` makes the calls):

* ``additionalDirectories`` is sent only when the agent advertises it; asking for extra roots
  of an agent that cannot take them raises :class:`Unsupported` (nothing is dropped silently);
* load, resume and fork always state the complete list of extra roots (explicit-list
  semantics; omitted would mean none);
* restoring a session is one operation, with or without replay (:func:`reattach_method`; v1:
  `session/load` or `session/resume`; v2: `session/resume` with or without ``replayFrom``);
* new, load, resume and fork carry the configured MCP servers the agent can take, and the
  session's transcript names each server left out (`acp_tui.client.agent.mcp`);
* prompts carry only content kinds the agent advertised;
* `session/list` sends only the filters the agent can take, and what it answers is filtered
  again here (:func:`session_matches`): agents ignore filters.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from acp_tui.client.agent.capabilities import Action, Capabilities
from acp_tui.client.agent.dialects import Call, Reattach
from acp_tui.client.agent.mcp import McpProblem, McpServerSpec, mcp_for_session
from acp_tui.client.errors import Unsupported
from acp_tui.protocol.content import ContentBlock
from acp_tui.protocol.methods import ListSessionsRequest, SessionInfo

__all__ = [
    "extra_roots",
    "list_params",
    "reattach_method",
    "require",
    "require_content",
    "session_matches",
    "with_mcp",
]


def require(capabilities: Capabilities, action: Action) -> None:
    """Raise :class:`Unsupported`, naming what is missing, unless the agent can do ``action``."""
    reason = capabilities.why_not(action)
    if reason is not None:
        raise Unsupported(reason)


def extra_roots(
    capabilities: Capabilities, dirs: Sequence[Path], *, explicit: bool
) -> list[str] | None:
    """The ``additionalDirectories`` value to send, or None to leave the field out."""
    if not capabilities.additional_directories:
        if dirs:
            require(capabilities, "additional_directories")
        return None
    if not dirs and not explicit:
        return None
    return [str(d) for d in dirs]


def with_mcp(
    call: Call, servers: Sequence[McpServerSpec], capabilities: Capabilities
) -> tuple[Call, list[McpProblem]]:
    """``call`` carrying the MCP ``servers`` the agent can take, and those left out."""
    if not servers:
        return call, []
    setup = mcp_for_session(servers, capabilities)
    method, params, result = call
    if setup.servers:
        params = type(params).from_wire({**params.to_wire(), "mcpServers": setup.servers})
    return (method, params, result), setup.problems


def reattach_method(capabilities: Capabilities, version: int, replay: bool) -> Reattach:
    """Which method restores a session with or without replay on this agent (protocol
    ``version``).

    Without replay, resume is preferred and load is the fallback (its replay is then
    simply shown); with replay, load is preferred and resume is the fallback, where the
    caller replays from its own transcript cache and must say so.
    """
    if version >= 2:
        # v2: one method, resume; replay is its replayFrom cursor.
        require(capabilities, "resume")
        return "load" if replay else "resume"
    if replay:
        if capabilities.can_load:
            return "load"
        require(capabilities, "resume")
        return "resume"
    if capabilities.can_resume:
        return "resume"
    require(capabilities, "load")
    return "load"


def require_content(capabilities: Capabilities, blocks: Sequence[ContentBlock]) -> None:
    """Raise :class:`Unsupported` when ``blocks`` hold a content kind the agent did not
    advertise."""
    allowed = capabilities.prompt_content_kinds
    refused = sorted({getattr(b, "type", "?") for b in blocks} - allowed)
    if refused:
        raise Unsupported(
            f"{capabilities.display_name} does not accept {', '.join(refused)} content"
        )


def list_params(
    capabilities: Capabilities,
    cwd: Path | None,
    cursor: str | None,
    additional_directories: Sequence[Path] | None,
) -> ListSessionsRequest:
    """The `session/list` request: the filters the agent can take."""
    require(capabilities, "list")
    params = ListSessionsRequest()
    if cwd is not None:
        params.cwd = str(cwd)
    if cursor is not None:
        params.cursor = cursor
    if additional_directories is not None and capabilities.additional_directories:
        params.additional_directories = [str(d) for d in additional_directories]
    return params


def session_matches(
    info: SessionInfo, *, cwd: Path | None, additional_directories: Sequence[Path] | None
) -> bool:
    """Client-side filter (agents may ignore filters): cwd exact, extra roots exact and ordered."""
    if cwd is not None and info.cwd != str(cwd):
        return False
    if additional_directories is not None:
        return list(info.additional_directories or []) == [str(d) for d in additional_directories]
    return True
