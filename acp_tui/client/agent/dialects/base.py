"""Provides the dialect base: what every protocol version's dialect answers, in shared shapes.

AgentClient, SessionCalls and the Transcript keep one API whatever the version. A dialect builds
the version's request params and turns its results, requests and updates into the shared models
the UI reads (the v1 shapes: ``SessionConfigOption`` with ``id``, ``ToolCallProgress``,
``PlanUpdate``...) or into the few neutral events v1 cannot express
(`acp_tui.client.agent.dialects.events`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from acp_tui.client.agent.capabilities import Capabilities
from acp_tui.client.agent.dialects.events import Event
from acp_tui.protocol.base import WireModel
from acp_tui.protocol.capabilities import Implementation
from acp_tui.protocol.client_methods import RequestPermissionRequest
from acp_tui.protocol.session_config import SessionConfigOption, SessionModeState

__all__ = ["Call", "Dialect", "PermissionRequestView", "Reattach", "Setup"]

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
