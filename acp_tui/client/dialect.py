"""Provides the protocol dialects: how each ACP version spells what SessionCalls does.

AgentClient, SessionCalls and the Transcript keep one API whatever the version. A dialect builds
the version's request params and turns its results, requests and updates into the shared models
the UI reads (the v1 shapes: ``SessionConfigOption`` with ``id``, ``ToolCallProgress``,
``PlanUpdate``...) or into the few neutral events v1 cannot express: a whole-message replace, an
appended tool-call content item and a turn-state change. ``dialect_for(version)`` picks one.
"""

from __future__ import annotations

import base64
import binascii
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import TypeAdapter

from acp_tui.client.capabilities import Capabilities
from acp_tui.protocol import methods as v1m
from acp_tui.protocol import updates as v1u
from acp_tui.protocol.base import WireModel
from acp_tui.protocol.capabilities import (
    ClientCapabilities,
    Implementation,
    InitializeRequest,
    InitializeResponse,
)
from acp_tui.protocol.client_methods import PermissionOption, RequestPermissionRequest
from acp_tui.protocol.content import ContentBlock, TextContent
from acp_tui.protocol.session_config import SessionConfigOption, SessionModeState
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

__all__ = [
    "ChangesContent",
    "Dialect",
    "Event",
    "MessageReplaced",
    "PermissionRequestView",
    "Setup",
    "ToolContentAppended",
    "TurnStateChanged",
    "V1Dialect",
    "V2Dialect",
    "apply_event",
    "dialect_for",
]

Reattach = Literal["load", "resume"]
"""How a session is restored: ``load`` = with the agent's replay, ``resume`` = without."""

Call = tuple[str, WireModel, type[WireModel]]
"""A request to send: (method, params, result model)."""


# -- neutral events ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnStateChanged:
    """The agent reports its turn state (v2 ``state_update``); unknown states change nothing."""

    state: str
    stop_reason: str | None = None


@dataclass(frozen=True, slots=True)
class MessageReplaced:
    """A whole message (v2): ``blocks`` None means its content was omitted (unchanged)."""

    role: Literal["user", "agent", "thought"]
    message_id: str
    blocks: tuple[ContentBlock, ...] | None


@dataclass(frozen=True, slots=True)
class ToolContentAppended:
    """One more content item for a tool call (v2 ``tool_call_content_chunk``)."""

    tool_call_id: str
    item: ToolCallContent


@dataclass(frozen=True, slots=True)
class AgentTerminalChanged:
    """An agent-owned, display-only terminal (v2 ``terminal_update``/``terminal_output_chunk``).

    ``output`` is more of its output, or all of it when ``replace``; ``exited`` None leaves its
    exit as it was, else says whether it has ended (with ``exit_code`` and ``signal``).
    """

    terminal_id: str
    output: bytes = b""
    replace: bool = False
    exited: bool | None = None
    exit_code: int | None = None
    signal: str | None = None


Event = (
    v1u.SessionUpdate
    | TurnStateChanged
    | MessageReplaced
    | ToolContentAppended
    | AgentTerminalChanged
)
"""What a `session/update` becomes: a shared (v1-shaped) update or a neutral event."""


def apply_event(transcript: Any, event: Event) -> list[v1u.SessionUpdate]:
    """Apply ``event`` to ``transcript``; returns the v1 updates that describe the result.

    The returned updates are what listeners (the transcript recorder) get, so a cached transcript
    replays with the v1 machinery: appended chunks for the new part of a replaced message, the
    whole content of a tool call after an appended item. Turn states are the caller's job.
    """
    if isinstance(event, TurnStateChanged):
        return []
    if isinstance(event, MessageReplaced):
        before = transcript.replace_message(event.role, event.message_id, event.blocks)
        blocks = list(event.blocks or ())
        if before is not None and _wire(blocks[: len(before)]) == _wire(before):
            blocks = blocks[len(before) :]
        chunk = _CHUNKS[event.role]
        chunks: list[v1u.SessionUpdate] = []
        for block in blocks:
            chunks.append(chunk(content=block, message_id=event.message_id))
        return chunks
    if isinstance(event, AgentTerminalChanged):
        # Display only, and not recorded: a local copy shows the tool call without its output.
        if event.output or event.replace:
            transcript.agent_terminal_output(event.terminal_id, event.output, replace=event.replace)
        if event.exited is not None:
            transcript.agent_terminal_exit(
                event.terminal_id, event.exited, event.exit_code, event.signal
            )
        return []
    if isinstance(event, ToolContentAppended):
        entry = transcript.append_tool_content(event.tool_call_id, [event.item])
        whole = v1u.ToolCallProgress.model_construct(
            tool_call_id=event.tool_call_id, content=list(entry.content)
        )
        return [whole]
    transcript.apply(event)
    return [event]


def _wire(blocks: Sequence[ContentBlock]) -> list[Any]:
    return [block.to_wire() for block in blocks]


_CHUNKS: dict[
    str, type[v1u.UserMessageChunk] | type[v1u.AgentMessageChunk] | type[v1u.AgentThoughtChunk]
] = {
    "user": v1u.UserMessageChunk,
    "agent": v1u.AgentMessageChunk,
    "thought": v1u.AgentThoughtChunk,
}


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


class ChangesContent(ContentToolCallContent):
    """A v2 diff (file changes and a patch) shown through the shared content shape.

    ``content`` is a text summary (one line per change, then the patch) so every view can show
    it; ``changes`` and ``patch`` keep the v2 structure for views that know it.
    """

    changes: list[v2t.DiffChange]
    patch: v2t.DiffPatch | None = None

    @classmethod
    def of(cls, diff: v2t.Diff) -> ChangesContent:
        lines = []
        for change in diff.changes:
            where = f"{change.old_path} -> {change.path}" if change.old_path else change.path
            lines.append(f"{change.operation} {where}")
        if diff.patch is not None:
            lines.append(diff.patch.text.rstrip("\n"))
        return cls(
            content=TextContent(text="\n".join(lines)), changes=diff.changes, patch=diff.patch
        )


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
    }:
        value = getattr(update, name)
        if name in ("content", "locations"):
            items = value or []
            fields[name] = [v1_tool_content(i) for i in items] if name == "content" else items
        elif value is None and name in _CLEARED:
            fields[name] = _CLEARED[name]
        else:
            fields[name] = value
    return v1u.ToolCallProgress.model_construct(**fields)


class V2Dialect(Dialect):
    """ACP v2 (draft), mapped onto the shared shapes."""

    version = 2
    serves_client_methods = False
    login_method = v2m.AUTH_LOGIN
    logout_method = v2m.AUTH_LOGOUT

    def initialize_request(self, info: Implementation) -> WireModel:
        caps = v2i.ClientCapabilities(auth=v2i.AuthCapabilities(terminal=v2i.CapabilityMarker()))
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
            return [v1u.AvailableCommandsUpdate(available_commands=commands)]
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
        return [v1u.PlanUpdate(entries=entries)]

    def permission_request(self, params: Any) -> RequestPermissionRequest:
        """A v2 request in the handler's shape: the subject's tool call (or one describing the
        command or question), the v2 title, description and subject kept beside it."""
        request = v2t.RequestPermissionRequest.model_validate(params)
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


def dialect_for(version: int, client_capabilities: ClientCapabilities | None = None) -> Dialect:
    """The dialect of a protocol version this client speaks."""
    if version == 2:
        return V2Dialect()
    return V1Dialect(client_capabilities)


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
