"""Provides V2Dialect: ACP v2 (draft) spelled in the shared shapes, and its converters.

v2 config options, tool-call upserts and diffs become the shared shapes the UI reads
(``SessionConfigOption`` with ``id``, ``ToolCallProgress``, and
`acp_tui.client.session.changes.ChangesContent` for a diff); what v1 cannot express becomes a
neutral event (see `acp_tui.client.agent.dialects.events`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import TypeAdapter

from acp_tui.client.agent.capabilities import Capabilities
from acp_tui.client.agent.dialects.base import Call, Dialect, PermissionRequestView, Reattach, Setup
from acp_tui.client.agent.dialects.events import (
    AgentTerminalChanged,
    Event,
    MessageReplaced,
    ToolContentAppended,
    TurnStateChanged,
)
from acp_tui.client.session.changes import ChangesContent
from acp_tui.protocol import updates as v1u
from acp_tui.protocol.base import WireModel
from acp_tui.protocol.big import validate_in_pieces
from acp_tui.protocol.capabilities import Implementation
from acp_tui.protocol.client_methods import PermissionOption, RequestPermissionRequest
from acp_tui.protocol.content import TextContent
from acp_tui.protocol.held import hold_permission, kept_counts
from acp_tui.protocol.session_config import SessionConfigOption
from acp_tui.protocol.tools import (
    ContentToolCallContent,
    TerminalToolCallContent,
    ToolCallContent,
    ToolCallUpdate,
    UnknownToolCallContent,
)
from acp_tui.protocol.v2 import initialize as v2i
from acp_tui.protocol.v2 import methods as v2m
from acp_tui.protocol.v2 import tools as v2t
from acp_tui.protocol.v2 import updates as v2u

__all__ = ["V2Dialect", "agent_terminal_update"]


_V1_OPTIONS = TypeAdapter(list[SessionConfigOption])


def v1_config_options(options: Sequence[Any]) -> list[SessionConfigOption]:
    """v2 config options in the shared shape: ``configId`` -> ``id``, ``groupId`` -> ``group``."""
    converted = []
    for option in options:
        wire = option.to_wire()
        wire["id"] = wire.pop("configId")
        items = wire.get("options")
        if isinstance(items, list):
            for item in items:
                if isinstance(item, dict) and "groupId" in item:
                    item["group"] = item.pop("groupId")
        converted.append(wire)
    return _V1_OPTIONS.validate_python(converted)


def v1_tool_content(item: Any) -> ToolCallContent:
    """A v2 tool-call content item in the shared shape (a v2 diff becomes ChangesContent)."""
    if isinstance(item, ContentToolCallContent | TerminalToolCallContent):
        return item
    if isinstance(item, v2t.Diff):
        return ChangesContent.of(item)
    return UnknownToolCallContent.model_validate(item.to_wire())


# Field defaults of a tool call in the transcript: what a null (cleared) value becomes.
_CLEARED: dict[str, Any] = {"title": "Tool call", "kind": "other", "status": "pending"}


def v1_tool_call_update(update: v2t.ToolCallUpdate) -> v1u.ToolCallProgress:
    """A v2 tool-call upsert as a shared patch, keeping the three states of each field.

    Omitted fields stay unset (unchanged); null clears (content and locations become empty, title,
    kind and status their defaults); unknown kinds and statuses are kept as they are.
    """
    fields: dict[str, Any] = {"tool_call_id": update.tool_call_id}
    for name in update.model_fields_set & {
        "title",
        "kind",
        "status",
        "content",
        "locations",
        "raw_input",
        "raw_output",
        "name",
    }:
        value = getattr(update, name)
        if name in ("content", "locations"):
            items = value or []
            fields[name] = [v1_tool_content(i) for i in items] if name == "content" else items
        elif value is None and name in _CLEARED:
            fields[name] = _CLEARED[name]
        else:
            fields[name] = value
    return v1u.ToolCallProgress.model_construct(**fields, **kept_counts(update))


class V2Dialect(Dialect):
    """ACP v2 (draft), mapped onto the shared shapes."""

    version = 2
    serves_client_methods = False
    login_method = v2m.AUTH_LOGIN
    logout_method = v2m.AUTH_LOGOUT

    def initialize_request(self, info: Implementation) -> WireModel:
        caps = v2i.ClientCapabilities(
            auth=v2i.AuthCapabilities(terminal=v2i.CapabilityMarker()),
            elicitation=v2i.ElicitationCapabilities(
                form=v2i.CapabilityMarker(), url=v2i.CapabilityMarker()
            ),
        )
        return v2i.InitializeRequest(info=info, capabilities=caps)

    def parse_initialize(self, raw: Any) -> tuple[WireModel, Capabilities]:
        result = v2i.InitializeResponse.from_wire(raw)
        return result, Capabilities.from_v2(result)

    def login(self, method_id: str) -> Call:
        return v2m.AUTH_LOGIN, v2m.LoginRequest(method_id=method_id), v2m.LoginResponse

    def logout(self) -> Call:
        return v2m.AUTH_LOGOUT, v2m.LogoutRequest(), v2m.LogoutResponse

    def new_session(self, cwd: str, extra: list[str] | None) -> Call:
        params = v2m.NewSessionRequest(cwd=cwd)
        if extra is not None:
            params.additional_directories = extra
        return "session/new", params, v2m.NewSessionResponse

    def restore(self, how: Reattach, session_id: str, cwd: str, extra: list[str] | None) -> Call:
        """Always `session/resume`; ``load`` (replay) adds ``replayFrom: {"type": "start"}``."""
        params = v2m.ResumeSessionRequest(session_id=session_id, cwd=cwd)
        if how == "load":
            params.replay_from = v2m.ReplayFromStart()
        if extra is not None:
            params.additional_directories = extra
        return "session/resume", params, v2m.ResumeSessionResponse

    def fork(self, session_id: str, cwd: str, extra: list[str] | None) -> Call:
        params = v2m.ForkSessionRequest(session_id=session_id, cwd=cwd)
        if extra is not None:
            params.additional_directories = extra
        return "session/fork", params, v2m.ForkSessionResponse

    def setup(self, result: WireModel) -> Setup:
        options = getattr(result, "config_options", None)
        return Setup(
            session_id=getattr(result, "session_id", None),
            config_options=None if options is None else v1_config_options(options),
        )

    def set_config_option(self, session_id: str, config_id: str, value: str | bool) -> Call:
        if isinstance(value, bool):
            params = v2m.SetSessionConfigOptionRequest.boolean(session_id, config_id, value)
        else:
            params = v2m.SetSessionConfigOptionRequest.select(session_id, config_id, value)
        return "session/set_config_option", params, v2m.SetSessionConfigOptionResponse

    def config_options(self, result: WireModel) -> list[SessionConfigOption]:
        assert isinstance(result, v2m.SetSessionConfigOptionResponse)
        return v1_config_options(result.config_options)

    def prompt_result(self) -> type[WireModel]:
        return v2m.PromptResponse

    def parse_update(self, params: Any) -> tuple[str, list[Event]]:
        note = v2u.SessionNotification.model_validate(params)
        return note.session_id, self.events(note.update)

    def events(self, update: Any) -> list[Event]:
        """One v2 update as shared updates and neutral events."""
        if isinstance(update, v2u.UserMessageChunk):
            return [v1u.UserMessageChunk(content=update.content, message_id=update.message_id)]
        if isinstance(update, v2u.AgentMessageChunk):
            return [v1u.AgentMessageChunk(content=update.content, message_id=update.message_id)]
        if isinstance(update, v2u.AgentThoughtChunk):
            return [v1u.AgentThoughtChunk(content=update.content, message_id=update.message_id)]
        if isinstance(update, v2u.UserMessage | v2u.AgentMessage | v2u.AgentThought):
            role: Literal["user", "agent", "thought"] = (
                "user"
                if isinstance(update, v2u.UserMessage)
                else "agent"
                if isinstance(update, v2u.AgentMessage)
                else "thought"
            )
            blocks = None if "content" not in update.model_fields_set else (update.content or [])
            return [
                MessageReplaced(role, update.message_id, None if blocks is None else tuple(blocks))
            ]
        if isinstance(update, v2u.IdleState):
            return [TurnStateChanged("idle", update.stop_reason)]
        if isinstance(update, v2u.RunningState | v2u.RequiresActionState | v2u.UnknownState):
            return [TurnStateChanged(update.state)]
        if isinstance(update, v2u.ToolCallProgress):
            return [v1_tool_call_update(update)]
        if isinstance(update, v2u.ToolCallContentChunk):
            return [ToolContentAppended(update.tool_call_id, v1_tool_content(update.content))]
        if isinstance(update, v2u.PlanUpdate):
            return self._plan(update)
        if isinstance(update, v2u.AvailableCommandsUpdate):
            commands = [
                v1u.AvailableCommand(
                    name=c.name,
                    description=c.description,
                    input=v1u.AvailableCommandInput(hint=c.input.hint)
                    if c.input is not None and c.input.hint is not None
                    else None,
                )
                for c in update.available_commands
            ]
            return [v1u.AvailableCommandsUpdate(available_commands=commands, **kept_counts(update))]
        if isinstance(update, v2u.ConfigOptionUpdate):
            options = v1_config_options(update.config_options)
            return [v1u.ConfigOptionUpdate(config_options=options)]
        if isinstance(update, v1u.SessionInfoUpdate | v1u.UsageUpdate):
            return [update]
        if isinstance(update, v2u.TerminalUpdate):
            return [agent_terminal_update(update)]
        if isinstance(update, v2u.TerminalOutputChunk):
            return [AgentTerminalChanged(update.terminal_id, _base64(update.data))]
        # Unknown and `_custom` kinds: kept as unknown.
        wire = update.to_wire() if isinstance(update, WireModel) else {}
        return [v1u.UnknownSessionUpdate.model_validate(wire)]

    @staticmethod
    def _plan(update: v2u.PlanUpdate) -> list[Event]:
        plan = update.plan
        if not isinstance(plan, v2u.PlanItems):
            wire = {"sessionUpdate": f"plan_update ({plan.type})", **plan.to_wire()}
            return [v1u.UnknownSessionUpdate.model_validate(wire)]
        entries = [
            # model_construct keeps open (unknown) priorities and statuses as they are.
            v1u.PlanEntry.model_construct(**e.model_dump(include={"content", "priority", "status"}))
            for e in plan.entries
        ]
        return [v1u.PlanUpdate(entries=entries, **kept_counts(plan))]  # the entries left out

    def permission_request(self, params: Any) -> RequestPermissionRequest:
        """A v2 request in the handler's shape: the subject's tool call (or one describing the
        command or question), the v2 title, description and subject kept beside it."""
        hold_permission(params)  # what one request can make the app hold is capped
        request = validate_in_pieces(v2t.RequestPermissionRequest, params, "options")
        subject = request.subject
        view: dict[str, Any] = {
            "title": request.title,
            "description": request.description,
            "subject_type": getattr(subject, "type", None),
        }
        if isinstance(subject, v2t.ToolCallPermissionSubject):
            patch = v1_tool_call_update(subject.tool_call)
            fields = {k: getattr(patch, k) for k in patch.model_fields_set}
            fields.pop("session_update", None)
            fields.setdefault("title", request.title)
            tool_call = ToolCallUpdate.model_construct(**fields)
        else:
            details = request.description or ""
            tool_call_id = ""
            kind = "other"
            if isinstance(subject, v2t.CommandPermissionSubject):
                view.update(command=subject.command, command_cwd=subject.cwd)
                details = f"$ {subject.command}\n(in {subject.cwd})" + (
                    f"\n\n{details}" if details else ""
                )
                tool_call_id = subject.tool_call_id or ""
                kind = "execute"
            content = [ContentToolCallContent(content=TextContent(text=details))] if details else []
            built: dict[str, Any] = {
                "tool_call_id": tool_call_id,
                "title": request.title,
                "kind": kind,
                "content": content,
            }
            tool_call = ToolCallUpdate.model_construct(**built)
        options = [
            PermissionOption(option_id=o.option_id, name=o.name, kind=o.kind)
            for o in request.options
        ]
        return PermissionRequestView(
            session_id=request.session_id, tool_call=tool_call, options=options, **view
        )


def agent_terminal_update(update: v2u.TerminalUpdate) -> AgentTerminalChanged:
    """A v2 ``terminal_update``: omitted fields change nothing, a null ``exitStatus`` clears."""
    fields = update.model_fields_set
    output = update.output
    status = update.exit_status
    exited = None if "exit_status" not in fields else status is not None
    return AgentTerminalChanged(
        update.terminal_id,
        b"" if output is None else _base64(output.data),
        replace=output is not None,
        exited=exited,
        exit_code=None if status is None else status.exit_code,
        signal=None if status is None else status.signal,
    )


def _base64(data: str) -> bytes:
    """Terminal bytes from the wire; malformed base64 is shown as it came."""
    try:
        return base64.b64decode(data, validate=True)
    except binascii.Error:
        return data.encode("utf-8", "replace")
