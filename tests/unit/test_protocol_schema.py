"""Validates everything the client sends, built with the wire models, against the ACP schema."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from acp_tui.protocol.base import WireModel
from acp_tui.protocol.capabilities import (
    AuthCapabilities,
    CapabilityMarker,
    ClientCapabilities,
    ClientSessionCapabilities,
    ElicitationCapabilities,
    FileSystemCapabilities,
    Implementation,
    InitializeRequest,
    SessionConfigOptionsCapabilities,
)
from acp_tui.protocol.client_methods import (
    CancelledPermissionOutcome,
    CreateElicitationResponse,
    CreateTerminalResponse,
    EnvVariable,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    SelectedPermissionOutcome,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)
from acp_tui.protocol.content import (
    Annotations,
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    KnownContentBlock,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from acp_tui.protocol.methods import (
    AuthenticateRequest,
    CancelNotification,
    CancelRequestNotification,
    CloseSessionRequest,
    DeleteSessionRequest,
    ForkSessionRequest,
    HttpHeader,
    ListSessionsRequest,
    LoadSessionRequest,
    LogoutRequest,
    McpServer,
    McpServerHttp,
    McpServerSse,
    McpServerStdio,
    NewSessionRequest,
    PromptRequest,
    ResumeSessionRequest,
    SetSessionConfigOptionRequest,
    SetSessionModeRequest,
)

SCHEMA_DIR = Path(__file__).parents[1] / "data" / "acp" / "schema" / "v1"
SESSION = "sess_abc123def456"
CWD = "/home/user/project"


@cache
def _validator(schema_file: str, definition: str) -> Draft202012Validator:
    contents = json.loads((SCHEMA_DIR / schema_file).read_text(encoding="utf-8"))
    # The schema declares draft 2020-12 and has no $id: register it under a URN of our own.
    assert contents["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    uri = f"urn:acp:v1:{schema_file}"
    registry: Registry[Any] = Registry().with_resource(
        uri, Resource.from_contents(contents, default_specification=DRAFT202012)
    )
    return Draft202012Validator({"$ref": f"{uri}#/$defs/{definition}"}, registry=registry)


def _assert_valid(model: WireModel, definition: str, schema_file: str = "schema.json") -> None:
    wire = model.to_wire()
    errors = sorted(_validator(schema_file, definition).iter_errors(wire), key=str)
    assert not errors, f"{definition}: {wire}\n" + "\n".join(e.message for e in errors)
    # What we send also parses back to the same wire object.
    assert type(model).from_wire(wire).to_wire() == wire


MCP_SERVERS: list[McpServer] = [
    McpServerStdio(
        name="filesystem",
        command="/path/to/mcp-server",
        args=["--stdio"],
        env=[EnvVariable(name="API_KEY", value="secret")],
    ),
    McpServerStdio(name="bare", command="/bin/mcp"),
    McpServerHttp(
        name="api",
        url="https://api.example.com/mcp",
        headers=[HttpHeader(name="Authorization", value="Bearer t")],
    ),
    McpServerSse(name="events", url="https://api.example.com/sse"),
]

PROMPT_BLOCKS: list[KnownContentBlock] = [
    TextContent(text="Can you analyze this code?"),
    TextContent(text="annotated", annotations=Annotations(audience=["user"], priority=0.5)),
    ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
    AudioContent(data="UklGRiQAAABXQVZF", mime_type="audio/wav"),
    ResourceLink(uri="file:///home/user/project/README.md", name="README.md", size=1024),
    EmbeddedResource(
        resource=TextResourceContents(
            uri="file:///home/user/project/main.py", text="print(1)\n", mime_type="text/x-python"
        )
    ),
    EmbeddedResource(resource=BlobResourceContents(uri="file:///logo.png", blob="iVBORw0KGgo=")),
]

CLIENT_REQUESTS: list[tuple[str, WireModel, str]] = [
    ("initialize minimal", InitializeRequest(), "InitializeRequest"),
    (
        "initialize full",
        InitializeRequest(
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                terminal=True,
                auth=AuthCapabilities(terminal=True),
                session=ClientSessionCapabilities(
                    config_options=SessionConfigOptionsCapabilities(boolean=CapabilityMarker())
                ),
                elicitation=ElicitationCapabilities(
                    form=CapabilityMarker(), url=CapabilityMarker()
                ),
            ),
            client_info=Implementation(name="acp-tui", title="ACP TUI", version="0.1.0"),
        ),
        "InitializeRequest",
    ),
    ("authenticate", AuthenticateRequest(method_id="agent-login"), "AuthenticateRequest"),
    ("logout", LogoutRequest(), "LogoutRequest"),
    ("session/new minimal", NewSessionRequest(cwd=CWD), "NewSessionRequest"),
    (
        "session/new full",
        NewSessionRequest(
            cwd=CWD, additional_directories=["/home/user/lib"], mcp_servers=MCP_SERVERS
        ),
        "NewSessionRequest",
    ),
    ("session/load", LoadSessionRequest(session_id=SESSION, cwd=CWD), "LoadSessionRequest"),
    (
        "session/load full",
        LoadSessionRequest(
            session_id=SESSION, cwd=CWD, mcp_servers=MCP_SERVERS, additional_directories=[]
        ),
        "LoadSessionRequest",
    ),
    ("session/list empty", ListSessionsRequest(), "ListSessionsRequest"),
    (
        "session/list filtered",
        ListSessionsRequest(cwd=CWD, cursor="eyJwYWdlIjogMn0="),
        "ListSessionsRequest",
    ),
    ("session/resume", ResumeSessionRequest(session_id=SESSION, cwd=CWD), "ResumeSessionRequest"),
    (
        "session/resume full",
        ResumeSessionRequest(
            session_id=SESSION, cwd=CWD, mcp_servers=MCP_SERVERS, additional_directories=["/x"]
        ),
        "ResumeSessionRequest",
    ),
    ("session/close", CloseSessionRequest(session_id=SESSION), "CloseSessionRequest"),
    ("session/delete", DeleteSessionRequest(session_id=SESSION), "DeleteSessionRequest"),
    (
        "session/set_mode",
        SetSessionModeRequest(session_id=SESSION, mode_id="code"),
        "SetSessionModeRequest",
    ),
    (
        "session/set_config_option select",
        SetSessionConfigOptionRequest.select(SESSION, "mode", "code"),
        "SetSessionConfigOptionRequest",
    ),
    (
        "session/set_config_option boolean",
        SetSessionConfigOptionRequest.boolean(SESSION, "brave_mode", True),
        "SetSessionConfigOptionRequest",
    ),
    (
        "session/set_config_option boolean inferred",
        SetSessionConfigOptionRequest(session_id=SESSION, config_id="brave_mode", value=False),
        "SetSessionConfigOptionRequest",
    ),
    *[
        (
            f"session/prompt {block.type}",
            PromptRequest(session_id=SESSION, prompt=[block]),
            "PromptRequest",
        )
        for block in PROMPT_BLOCKS
    ],
    (
        "session/prompt all",
        PromptRequest(session_id=SESSION, prompt=list(PROMPT_BLOCKS)),
        "PromptRequest",
    ),
    ("session/cancel", CancelNotification(session_id=SESSION), "CancelNotification"),
    ("$/cancel_request int", CancelRequestNotification(request_id=5), "CancelRequestNotification"),
    (
        "$/cancel_request str",
        CancelRequestNotification(request_id="r-1"),
        "CancelRequestNotification",
    ),
]

CLIENT_RESPONSES: list[tuple[str, WireModel, str]] = [
    (
        "request_permission selected",
        RequestPermissionResponse(outcome=SelectedPermissionOutcome(option_id="allow-once")),
        "RequestPermissionResponse",
    ),
    (
        "request_permission cancelled",
        RequestPermissionResponse(outcome=CancelledPermissionOutcome()),
        "RequestPermissionResponse",
    ),
    ("read_text_file", ReadTextFileResponse(content="def f():\n"), "ReadTextFileResponse"),
    ("write_text_file", WriteTextFileResponse(), "WriteTextFileResponse"),
    ("terminal/create", CreateTerminalResponse(terminal_id="term_1"), "CreateTerminalResponse"),
    (
        "terminal/output running",
        TerminalOutputResponse(output="Running...\n", truncated=False),
        "TerminalOutputResponse",
    ),
    (
        "terminal/output exited",
        TerminalOutputResponse(
            output="done\n",
            truncated=True,
            exit_status=TerminalExitStatus(exit_code=0, signal=None),
        ),
        "TerminalOutputResponse",
    ),
    (
        "terminal/wait_for_exit code",
        WaitForTerminalExitResponse(exit_code=1),
        "WaitForTerminalExitResponse",
    ),
    (
        "terminal/wait_for_exit signal",
        WaitForTerminalExitResponse(exit_code=None, signal="SIGTERM"),
        "WaitForTerminalExitResponse",
    ),
    ("terminal/kill", KillTerminalResponse(), "KillTerminalResponse"),
    ("terminal/release", ReleaseTerminalResponse(), "ReleaseTerminalResponse"),
    (
        "elicitation accept",
        CreateElicitationResponse(action="accept", content={"strategy": "conservative"}),
        "CreateElicitationResponse",
    ),
    (
        "elicitation decline",
        CreateElicitationResponse(action="decline"),
        "CreateElicitationResponse",
    ),
    ("elicitation cancel", CreateElicitationResponse(action="cancel"), "CreateElicitationResponse"),
]


@pytest.mark.parametrize(
    ("model", "definition"),
    [(m, d) for _, m, d in CLIENT_REQUESTS],
    ids=[name for name, _, _ in CLIENT_REQUESTS],
)
def test_client_request_params_validate(model: WireModel, definition: str) -> None:
    _assert_valid(model, definition)


@pytest.mark.parametrize(
    ("model", "definition"),
    [(m, d) for _, m, d in CLIENT_RESPONSES],
    ids=[name for name, _, _ in CLIENT_RESPONSES],
)
def test_client_response_validates(model: WireModel, definition: str) -> None:
    _assert_valid(model, definition)


@pytest.mark.parametrize(
    "model",
    [
        ForkSessionRequest(session_id=SESSION, cwd=CWD),
        ForkSessionRequest(
            session_id=SESSION, cwd=CWD, mcp_servers=MCP_SERVERS, additional_directories=["/x"]
        ),
    ],
    ids=["minimal", "full"],
)
def test_fork_request_validates_against_unstable_schema(model: WireModel) -> None:
    _assert_valid(model, "ForkSessionRequest", "schema.unstable.json")


def test_validator_rejects_what_the_schema_forbids() -> None:
    """Guards the harness itself: a missing required field is reported."""
    validator = _validator("schema.json", "NewSessionRequest")
    assert list(validator.iter_errors({"cwd": CWD}))
    assert not list(validator.iter_errors({"cwd": CWD, "mcpServers": []}))


def test_required_wire_fields_are_always_sent() -> None:
    assert NewSessionRequest(cwd=CWD).to_wire() == {"cwd": CWD, "mcpServers": []}
    assert InitializeRequest().to_wire() == {"protocolVersion": 1}
    assert McpServerStdio(name="a", command="b").to_wire() == {
        "name": "a",
        "command": "b",
        "args": [],
        "env": [],
    }
    assert McpServerHttp(name="h", url="https://x").to_wire() == {
        "type": "http",
        "name": "h",
        "url": "https://x",
        "headers": [],
    }
    assert TextContent(text="hi").to_wire() == {"type": "text", "text": "hi"}
    assert RequestPermissionResponse(outcome=CancelledPermissionOutcome()).to_wire() == {
        "outcome": {"outcome": "cancelled"}
    }
