"""Everything AgentClient sends on ACP v2 (a rich session with the demo agent started with
``--protocol 2``) validates against the v2 draft schema; and everything the demo agent sends back
does too. `session/fork` is unstable, so it is checked against ``schema.unstable.json``."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from acp_tui.client.agent.agent_client import connect
from acp_tui.protocol.content import (
    ContentBlock,
    EmbeddedResource,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from tests.unit.client.agent.agent_helpers import (
    WAIT,
    Wire,
    demo_spec,
    make_project,
    messages,
    record_wire,
    wait_until,
)
from tests.unit.client.agent.test_client_v2 import demo_v2

SCHEMA_DIR = Path(__file__).parents[3] / "data" / "acp" / "schema" / "v2"

# What the client sends on v2, by method: (schema file, $defs name).
OUTGOING: dict[str, tuple[str, str]] = {
    "initialize": ("schema.json", "InitializeRequest"),
    "auth/login": ("schema.json", "LoginAuthRequest"),
    "auth/logout": ("schema.json", "LogoutAuthRequest"),
    "session/new": ("schema.json", "NewSessionRequest"),
    "session/list": ("schema.json", "ListSessionsRequest"),
    "session/resume": ("schema.json", "ResumeSessionRequest"),
    "session/close": ("schema.json", "CloseSessionRequest"),
    "session/delete": ("schema.json", "DeleteSessionRequest"),
    "session/fork": ("schema.unstable.json", "ForkSessionRequest"),
    "session/set_config_option": ("schema.json", "SetSessionConfigOptionRequest"),
    "session/prompt": ("schema.json", "PromptRequest"),
    "session/cancel": ("schema.json", "CancelSessionNotification"),
    "$/cancel_request": ("schema.json", "CancelRequestNotification"),
}

# What the agent sends: results by the method of the request they answer, and its own messages.
RESULTS: dict[str, tuple[str, str]] = {
    "initialize": ("schema.json", "InitializeResponse"),
    "auth/login": ("schema.json", "LoginAuthResponse"),
    "auth/logout": ("schema.json", "LogoutAuthResponse"),
    "session/new": ("schema.json", "NewSessionResponse"),
    "session/list": ("schema.json", "ListSessionsResponse"),
    "session/resume": ("schema.json", "ResumeSessionResponse"),
    "session/close": ("schema.json", "CloseSessionResponse"),
    "session/delete": ("schema.json", "DeleteSessionResponse"),
    "session/fork": ("schema.unstable.json", "ForkSessionResponse"),
    "session/set_config_option": ("schema.json", "SetSessionConfigOptionResponse"),
    "session/prompt": ("schema.json", "PromptResponse"),
}
INCOMING: dict[str, str] = {
    "session/update": "UpdateSessionNotification",
    "session/request_permission": "RequestPermissionRequest",
    "elicitation/create": "CreateElicitationRequest",
    "elicitation/complete": "CompleteElicitationNotification",
}
REPLIES: dict[str, str] = {
    "session/request_permission": "RequestPermissionResponse",
    "elicitation/create": "CreateElicitationResponse",
}

EXPECTED_SENT = {
    "initialize",
    "session/new",
    "session/prompt",
    "session/set_config_option",
    "session/list",
    "session/resume",
    "session/fork",
    "session/close",
    "session/delete",
    "session/cancel",
}


@cache
def _schema(schema_file: str) -> tuple[str, Registry[Any]]:
    contents = json.loads((SCHEMA_DIR / schema_file).read_text(encoding="utf-8"))
    uri = f"urn:acp:v2:{schema_file}"
    registry: Registry[Any] = Registry().with_resource(
        uri, Resource.from_contents(contents, default_specification=DRAFT202012)
    )
    return uri, registry


@cache
def validator(schema_file: str, definition: str) -> Draft202012Validator:
    uri, registry = _schema(schema_file)
    return Draft202012Validator({"$ref": f"{uri}#/$defs/{definition}"}, registry=registry)


def validate(schema_file: str, definition: str, instance: Any, what: str) -> None:
    errors = sorted(validator(schema_file, definition).iter_errors(instance), key=str)
    assert not errors, f"{what}: {json.dumps(instance)[:2000]}\n" + "\n".join(
        f"{list(e.absolute_path)}: {e.message}" for e in errors
    )


def check_sent(wire: Wire) -> set[str]:
    """Validate every message the client sent; returns the methods sent."""
    asked = wire.received_requests()
    methods: set[str] = set()
    for message in wire.sent:
        assert message.get("jsonrpc") == "2.0", message
        if "method" in message:
            method = message["method"]
            methods.add(method)
            assert method in OUTGOING, f"no v2 schema for sent method {method}"
            validate(*OUTGOING[method], message.get("params"), method)
        elif "error" not in message:
            method = asked[message["id"]]
            assert method in REPLIES, method
            validate("schema.json", REPLIES[method], message["result"], method)
    return methods


def check_received(wire: Wire) -> set[str]:
    """Validate every message the agent sent; returns the update kinds seen."""
    requested = {
        m["id"]: m["method"]
        for d, m in wire.messages
        if d == "send" and "method" in m and "id" in m
    }
    kinds: set[str] = set()
    for direction, message in wire.messages:
        if direction != "recv" or not isinstance(message, dict):
            continue
        if "method" in message:
            method = message["method"]
            validate("schema.json", INCOMING[method], message["params"], method)
            if method == "session/update":
                kinds.add(message["params"]["update"]["sessionUpdate"])
        elif "result" in message and message.get("id") in requested:
            method = requested[message["id"]]
            validate(*RESULTS[method], message["result"], f"result of {method}")
    return kinds


async def test_everything_sent_on_v2_fits_the_v2_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)
    extra = tmp_path / "shared"
    extra.mkdir()
    readme = project / "README.md"

    async with demo_v2(tmp_path / "demo-data", project) as client:
        session = await client.new_session(project, [extra])
        sid = session.session_id
        prompt: list[ContentBlock] = [
            TextContent(text="think plan markdown diff permission"),
            ResourceLink(uri=readme.as_uri(), name="README.md", mime_type="text/markdown"),
            EmbeddedResource(
                resource=TextResourceContents(
                    uri=readme.as_uri(), text=readme.read_text(), mime_type="text/markdown"
                )
            ),
        ]
        assert await client.prompt(sid, prompt) == "end_turn"
        await client.set_config_option(sid, "model", "demo-smart")
        await client.set_config_option(sid, "verbose", True)
        await client.list_sessions()
        await client.list_sessions(cwd=project)
        await client.reattach(sid, project, [extra], replay=True)
        await client.reattach(sid, project, [extra], replay=False)
        fork = await client.fork_session(sid, project, [extra])

        stops: list[str] = []

        async def hang() -> None:
            stops.append(await client.prompt(fork.session_id, [TextContent(text="hang")]))

        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(hang)
                await wait_until(
                    lambda: any("hang" in m.text for m in messages(fork.transcript, "agent")),
                    fork.transcript,
                )
                await client.cancel(fork.session_id)
        assert stops == ["cancelled"]
        await client.close_session(fork.session_id)
        await client.delete_session(sid)

    methods = check_sent(wire)
    assert methods >= EXPECTED_SENT, EXPECTED_SENT - methods
    assert "session/load" not in methods
    kinds = check_received(wire)
    assert kinds >= {
        "user_message",
        "agent_message_chunk",
        "agent_thought_chunk",
        "state_update",
        "tool_call_update",
        "plan_update",
        "available_commands_update",
        "session_info_update",
        "usage_update",
    }
    (init,) = wire.sent_params("initialize")
    assert init["protocolVersion"] == 2
    assert "fs" not in init["capabilities"]
    assert "terminal" not in init["capabilities"]
    resumes = wire.sent_params("session/resume")
    assert resumes[0]["replayFrom"] == {"type": "start"}
    assert "replayFrom" not in resumes[1]
    assert {"sessionId": sid, "configId": "model", "type": "id", "value": "demo-smart"} in (
        wire.sent_params("session/set_config_option")
    )


async def test_login_and_logout_fit_the_v2_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)
    async with demo_v2(tmp_path / "demo-data", project, "--require-auth") as client:
        await client.authenticate("demo-login")
        await client.logout()
    assert check_sent(wire) == {"initialize", "auth/login", "auth/logout"}
    check_received(wire)


async def test_elicitations_fit_the_v2_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A form during `auth/login` (request-scoped), a form and a URL in a turn: the agent's
    requests and notifications, and the client's answers, fit the v2 schema."""
    from acp_tui.client.session.elicitation import ACCEPTED, Answer, Elicitation

    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)

    async def answer(elicitation: Elicitation) -> Answer:
        if elicitation.mode == "url":
            await elicitation.completed.wait()
            return ACCEPTED
        form = elicitation.form
        assert form is not None
        names = {f.name for f in form.fields}
        extra = {"email": "a@example.com", "license": "MIT", "homepage": "https://x.org"}
        content, errors = form.answer(
            {**form.defaults(), **{k: v for k, v in extra.items() if k in names}}
        )
        assert errors == {}
        return Answer("accept", content)

    spec = replace(
        demo_spec(
            tmp_path / "demo-data", project, "--require-auth", "--auth-elicit", "--protocol", "2"
        ),
        protocol_version=2,
    )
    async with connect(spec, elicitation_handler=answer, init_timeout=WAIT) as client:
        await client.authenticate("demo-login")
        sid = (await client.new_session(project)).session_id
        for prompt in ("ask", "ask-url 0"):
            assert await client.prompt(sid, [TextContent(text=prompt)]) == "end_turn"
    check_sent(wire)
    check_received(wire)
    received = [m.get("method") for d, m in wire.messages if d == "recv" and "method" in m]
    assert received.count("elicitation/create") == 3
    assert received.count("elicitation/complete") == 1
    (init,) = wire.sent_params("initialize")
    assert init["capabilities"]["elicitation"] == {"form": {}, "url": {}}
    actions = [m["result"]["action"] for m in wire.sent if "action" in m.get("result", {})]
    assert actions == ["accept", "accept", "accept"]


def test_the_checker_refuses_v1_shapes() -> None:
    wire = Wire()
    wire(
        "send",
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 2}},
    )
    with pytest.raises(AssertionError):
        check_sent(wire)
    wire = Wire()
    wire("send", {"jsonrpc": "2.0", "id": 1, "method": "session/load", "params": {}})
    with pytest.raises(AssertionError):
        check_sent(wire)
    wire = Wire()
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
    wire(
        "recv",
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": update},
        },
    )
    with pytest.raises(AssertionError):
        check_received(wire)
