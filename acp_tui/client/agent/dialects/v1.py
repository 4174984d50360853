"""Provides V1Dialect: ACP v1, whose shapes are the shared ones."""

from __future__ import annotations

from typing import Any

from acp_tui.client.agent.capabilities import Capabilities
from acp_tui.client.agent.dialects.base import Call, Dialect, Reattach, Setup
from acp_tui.client.agent.dialects.events import Event
from acp_tui.protocol import methods as v1m
from acp_tui.protocol import updates as v1u
from acp_tui.protocol.base import WireModel
from acp_tui.protocol.big import validate_in_pieces, validate_lists_in_pieces
from acp_tui.protocol.capabilities import (
    ClientCapabilities,
    Implementation,
    InitializeRequest,
    InitializeResponse,
)
from acp_tui.protocol.client_methods import RequestPermissionRequest
from acp_tui.protocol.held import hold_permission
from acp_tui.protocol.session_config import SessionConfigOption

__all__ = ["V1Dialect"]


LIST_HOLDERS: dict[str, type[WireModel]] = {
    "plan": v1u.PlanUpdate,
    "available_commands_update": v1u.AvailableCommandsUpdate,
    "tool_call": v1u.ToolCallStart,
    "tool_call_update": v1u.ToolCallProgress,
}
"""The updates that hold lists an agent can make huge, by kind."""


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
        update = params.get("update") if isinstance(params, dict) else None
        kind = update.get("sessionUpdate") if isinstance(update, dict) else None
        holder = LIST_HOLDERS.get(kind) if isinstance(kind, str) else None
        if holder is not None:  # a plan of 200,000 entries: validated a slice at a time
            params = {**params, "update": validate_lists_in_pieces(holder, update)}
        note = v1u.SessionNotification.model_validate(params)
        return note.session_id, [note.update]

    def permission_request(self, params: Any) -> RequestPermissionRequest:
        hold_permission(params)  # what one request can make the app hold is capped
        return validate_in_pieces(RequestPermissionRequest, params, "options")
