"""Provides the protocol dialects: how each ACP version spells what SessionCalls does.

AgentClient, SessionCalls and the Transcript keep one API whatever the version. A dialect builds
the version's request params and turns its results, requests and updates into the shared models
the UI reads (the v1 shapes: ``SessionConfigOption`` with ``id``, ``ToolCallProgress``,
``PlanUpdate``...) or into the few neutral events v1 cannot express
(`acp_tui.client.dialects.events`).
This module has the base and v1; v2 is `acp_tui.client.dialects.v2`. ``dialect_for(version)``
picks one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from acp_tui.client.capabilities import Capabilities
from acp_tui.client.dialects.events import Event
from acp_tui.protocol import methods as v1m
from acp_tui.protocol import updates as v1u
from acp_tui.protocol.base import WireModel
from acp_tui.protocol.capabilities import (
    ClientCapabilities,
    Implementation,
    InitializeRequest,
    InitializeResponse,
)
from acp_tui.protocol.client_methods import RequestPermissionRequest
from acp_tui.protocol.session_config import SessionConfigOption, SessionModeState

__all__ = [
    "Call",
    "Dialect",
    "PermissionRequestView",
    "Reattach",
    "Setup",
    "V1Dialect",
    "dialect_for",
]

Reattach = Literal["load", "resume"]
"""How a session is restored: ``load`` = with the agent's replay, ``resume`` = without."""

Call = tuple[str, WireModel, type[WireModel]]
"""A request to send: (method, params, result model)."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What new, load, resume and fork answer, in the shared shapes."""

    session_id: str | None = None
    modes: SessionModeState | None = None
    config_options: list[SessionConfigOption] | None = None


class PermissionRequestView(RequestPermissionRequest):
    """A permission request in the shape the permission handler reads, with the v2 extras.

    ``tool_call`` is the tool call the question is about (for a v2 command subject, one built to
    show the command); ``title`` is the v2 question, ``description`` its details, and
    ``subject_type`` ``tool_call``, ``command``, an unknown type, or None. None of these exist in
    v1 requests, which are plain ``RequestPermissionRequest``.
    """

    title: str | None = None
    description: str | None = None
    subject_type: str | None = None
    command: str | None = None
    command_cwd: str | None = None


# -- dialects ------------------------------------------------------------------------------------


class Dialect(ABC):
    """The requests, results and updates of one protocol version, in shared shapes."""

    version: int = 1
    serves_client_methods = True
    """Whether the agent may call `fs/*` and `terminal/*` (v1) on this client."""
    login_method = "authenticate"
    logout_method = "logout"

    @abstractmethod
    def initialize_request(self, info: Implementation) -> WireModel: ...

    @abstractmethod
    def parse_initialize(self, raw: Any) -> tuple[WireModel, Capabilities]: ...

    @abstractmethod
    def login(self, method_id: str) -> Call: ...

    @abstractmethod
    def logout(self) -> Call: ...

    @abstractmethod
    def new_session(self, cwd: str, extra: list[str] | None) -> Call: ...

    @abstractmethod
    def restore(
        self, how: Reattach, session_id: str, cwd: str, extra: list[str] | None
    ) -> Call: ...

    @abstractmethod
    def fork(self, session_id: str, cwd: str, extra: list[str] | None) -> Call: ...

    @abstractmethod
    def setup(self, result: WireModel) -> Setup: ...

    @abstractmethod
    def set_config_option(self, session_id: str, config_id: str, value: str | bool) -> Call: ...

    @abstractmethod
    def config_options(self, result: WireModel) -> list[SessionConfigOption]: ...

    @abstractmethod
    def prompt_result(self) -> type[WireModel]: ...

    @abstractmethod
    def parse_update(self, params: Any) -> tuple[str, list[Event]]:
        """The session id and events of a `session/update` (raises ValidationError)."""
        ...

    @abstractmethod
    def permission_request(self, params: Any) -> RequestPermissionRequest: ...


class V1Dialect(Dialect):
    """ACP v1: the shared shapes are its own."""

    version = 1

    def __init__(self, capabilities: ClientCapabilities | None = None) -> None:
        self.client_capabilities = capabilities or ClientCapabilities()

    def initialize_request(self, info: Implementation) -> WireModel:
        return InitializeRequest(
            protocol_version=1, client_capabilities=self.client_capabilities, client_info=info
        )

    def parse_initialize(self, raw: Any) -> tuple[WireModel, Capabilities]:
        result = InitializeResponse.from_wire(raw)
        return result, Capabilities.from_v1(result)

    def login(self, method_id: str) -> Call:
        return (
            "authenticate",
            v1m.AuthenticateRequest(method_id=method_id),
            v1m.AuthenticateResponse,
        )

    def logout(self) -> Call:
        return "logout", v1m.LogoutRequest(), v1m.LogoutResponse

    def new_session(self, cwd: str, extra: list[str] | None) -> Call:
        params = v1m.NewSessionRequest(cwd=cwd)
        if extra is not None:
            params.additional_directories = extra
        return "session/new", params, v1m.NewSessionResponse

    def restore(self, how: Reattach, session_id: str, cwd: str, extra: list[str] | None) -> Call:
        if how == "load":
            load = v1m.LoadSessionRequest(session_id=session_id, cwd=cwd)
            if extra is not None:
                load.additional_directories = extra
            return "session/load", load, v1m.LoadSessionResponse
        resume = v1m.ResumeSessionRequest(session_id=session_id, cwd=cwd, mcp_servers=[])
        if extra is not None:
            resume.additional_directories = extra
        return "session/resume", resume, v1m.ResumeSessionResponse

    def fork(self, session_id: str, cwd: str, extra: list[str] | None) -> Call:
        params = v1m.ForkSessionRequest(session_id=session_id, cwd=cwd, mcp_servers=[])
        if extra is not None:
            params.additional_directories = extra
        return "session/fork", params, v1m.ForkSessionResponse

    def setup(self, result: WireModel) -> Setup:
        return Setup(
            session_id=getattr(result, "session_id", None),
            modes=getattr(result, "modes", None),
            config_options=getattr(result, "config_options", None),
        )

    def set_config_option(self, session_id: str, config_id: str, value: str | bool) -> Call:
        if isinstance(value, bool):
            params = v1m.SetSessionConfigOptionRequest.boolean(session_id, config_id, value)
        else:
            params = v1m.SetSessionConfigOptionRequest.select(session_id, config_id, value)
        return "session/set_config_option", params, v1m.SetSessionConfigOptionResponse

    def config_options(self, result: WireModel) -> list[SessionConfigOption]:
        assert isinstance(result, v1m.SetSessionConfigOptionResponse)
        return list(result.config_options)

    def prompt_result(self) -> type[WireModel]:
        return v1m.PromptResponse

    def parse_update(self, params: Any) -> tuple[str, list[Event]]:
        note = v1u.SessionNotification.model_validate(params)
        return note.session_id, [note.update]

    def permission_request(self, params: Any) -> RequestPermissionRequest:
        return RequestPermissionRequest.model_validate(params)


def dialect_for(version: int, client_capabilities: ClientCapabilities | None = None) -> Dialect:
    """The dialect of a protocol version this client speaks."""
    if version == 2:
        from acp_tui.client.dialects.v2 import V2Dialect  # which builds on this module

        return V2Dialect()
    return V1Dialect(client_capabilities)
