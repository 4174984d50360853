"""Everything AgentClient sends during a rich session with the demo agent validates against the
ACP v1 JSON schema: requests and notifications by their method, replies by the method of the
request they answer, error replies by the JSON-RPC error shape."""

from __future__ import annotations

import copy
import json
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
    demo_client,
    demo_spec,
    make_project,
    messages,
    record_wire,
    wait_until,
)

SCHEMA_DIR = Path(__file__).parents[3] / "data" / "acp" / "schema" / "v1"

# What the client sends, by method: (schema file, $defs name).
OUTGOING: dict[str, tuple[str, str]] = {
    "initialize": ("schema.json", "InitializeRequest"),
    "authenticate": ("schema.json", "AuthenticateRequest"),
    "session/new": ("schema.json", "NewSessionRequest"),
    "session/load": ("schema.json", "LoadSessionRequest"),
    "session/list": ("schema.json", "ListSessionsRequest"),
    "session/resume": ("schema.json", "ResumeSessionRequest"),
    "session/close": ("schema.json", "CloseSessionRequest"),
    "session/delete": ("schema.json", "DeleteSessionRequest"),
    "session/fork": ("schema.unstable.json", "ForkSessionRequest"),  # fork is unstable in v1
    "session/set_mode": ("schema.json", "SetSessionModeRequest"),
    "session/set_config_option": ("schema.json", "SetSessionConfigOptionRequest"),
    "session/prompt": ("schema.json", "PromptRequest"),
    "session/cancel": ("schema.json", "CancelNotification"),
    "$/cancel_request": ("schema.json", "CancelRequestNotification"),
}

# The client's replies, by the method of the request they answer.
REPLIES: dict[str, str] = {
    "session/request_permission": "RequestPermissionResponse",
    "fs/read_text_file": "ReadTextFileResponse",
    "fs/write_text_file": "WriteTextFileResponse",
    "terminal/create": "CreateTerminalResponse",
    "terminal/output": "TerminalOutputResponse",
    "terminal/wait_for_exit": "WaitForTerminalExitResponse",
    "terminal/kill": "KillTerminalResponse",
    "terminal/release": "ReleaseTerminalResponse",
    "elicitation/create": "CreateElicitationResponse",
}

# What the rich session below must have sent (so the test cannot validate nothing).
# terminal/kill is not in it: the demo agent never kills its terminals.
EXPECTED_SENT = {
    "initialize",
    "session/new",
    "session/prompt",
    "session/set_mode",
    "session/set_config_option",
    "session/list",
    "session/load",
    "session/resume",
    "session/fork",
    "session/close",
    "session/delete",
    "session/cancel",
}
EXPECTED_REPLIES = set(REPLIES) - {"terminal/kill", "elicitation/create"}


@cache
def _schema(schema_file: str) -> tuple[str, Registry[Any]]:
    contents = json.loads((SCHEMA_DIR / schema_file).read_text(encoding="utf-8"))
    assert contents["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    uri = f"urn:acp:v1:{schema_file}"
    registry: Registry[Any] = Registry().with_resource(
        uri, Resource.from_contents(contents, default_specification=DRAFT202012)
    )
    return uri, registry


@cache
def validator(schema_file: str, definition: str) -> Draft202012Validator:
    uri, registry = _schema(schema_file)
    return Draft202012Validator({"$ref": f"{uri}#/$defs/{definition}"}, registry=registry)


@cache
def list_sessions_validator() -> Draft202012Validator:
    """ListSessionsRequest plus RFD 004's ``additionalDirectories`` filter.

    The stable v1 schema does not define ``additionalDirectories`` on ListSessionsRequest (it
    comes from RFD 004, "additional workspace roots"): that single field is taken out of the
    params before validating against the schema's own definition, and checked by hand.
    """
    return validator("schema.json", "ListSessionsRequest")


def validate(validator_: Draft202012Validator, instance: Any, what: str) -> None:
    errors = sorted(validator_.iter_errors(instance), key=str)
    assert not errors, f"{what}: {json.dumps(instance)[:2000]}\n" + "\n".join(
        f"{list(e.absolute_path)}: {e.message}" for e in errors
    )


def check_sent(wire: Wire) -> tuple[set[str], set[str], int]:
    """Validate every sent message; returns (methods sent, requests answered, error replies)."""
    answered_by_id = wire.received_requests()
    methods: set[str] = set()
    replies: set[str] = set()
    errors = 0
    for message in wire.sent:
        assert message.get("jsonrpc") == "2.0", message
        if "method" in message:
            method = message["method"]
            methods.add(method)
            assert method in OUTGOING, f"no schema for sent method {method}"
            schema_file, definition = OUTGOING[method]
            params = message.get("params")
            if "id" in message:
                assert isinstance(message["id"], int)
                assert not isinstance(message["id"], bool)
            if method == "session/list" and isinstance(params, dict):
                params = copy.deepcopy(params)
                extra = params.pop("additionalDirectories", None)
                assert extra is None or (
                    isinstance(extra, list) and all(isinstance(d, str) for d in extra)
                )
                validate(list_sessions_validator(), params, method)
            else:
                validate(validator(schema_file, definition), params, method)
            continue
        # A reply to one of the agent's requests.
        assert "id" in message, message
        method = answered_by_id[message["id"]]
        replies.add(method)
        if "error" in message:
            assert "result" not in message
            error = message["error"]
            assert isinstance(error["code"], int)
            assert not isinstance(error["code"], bool)
            assert isinstance(error["message"], str)
            errors += 1
        else:
            assert method in REPLIES, f"no schema for the reply to {method}"
            validate(validator("schema.json", REPLIES[method]), message["result"], method)
    return methods, replies, errors


async def test_everything_the_client_sends_fits_the_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)
    extra = tmp_path / "shared"
    extra.mkdir()
    readme = project / "README.md"

    async with demo_client(tmp_path / "demo-data", project) as client:
        session = await client.new_session(project, [extra])
        sid = session.session_id
        prompt: list[ContentBlock] = [
            TextContent(text="permission read write terminal"),
            ResourceLink(uri=readme.as_uri(), name="README.md", mime_type="text/markdown"),
            EmbeddedResource(
                resource=TextResourceContents(
                    uri=readme.as_uri(), text=readme.read_text(), mime_type="text/markdown"
                )
            ),
        ]
        assert await client.prompt(sid, prompt) == "end_turn"
        # A refused read: the client answers with an error.
        assert await client.prompt(sid, [TextContent(text="read /etc/passwd")]) == "end_turn"

        await client.set_mode(sid, "code")
        await client.set_config_option(sid, "model", "demo-smart")
        await client.set_config_option(sid, "verbose", True)

        await client.list_sessions()
        await client.list_sessions(cwd=project, additional_directories=[extra])
        await client.load_session(sid, project, [extra])
        await client.resume_session(sid, project, [extra])
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

    methods, replies, errors = check_sent(wire)
    assert methods >= EXPECTED_SENT, EXPECTED_SENT - methods
    assert replies >= EXPECTED_REPLIES, EXPECTED_REPLIES - replies
    assert errors >= 1
    (new_params,) = wire.sent_params("session/new")
    assert new_params["additionalDirectories"] == [str(extra)]
    assert any(
        isinstance(p, dict) and p.get("additionalDirectories") == [str(extra)]
        for p in wire.sent_params("session/list")
    )
    prompt_types = [b["type"] for b in wire.sent_params("session/prompt")[0]["prompt"]]
    assert prompt_types == ["text", "resource_link", "resource"]
    set_options = wire.sent_params("session/set_config_option")
    assert {"sessionId": sid, "configId": "verbose", "type": "boolean", "value": True} in (
        set_options
    )


async def test_authenticate_fits_the_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)
    async with demo_client(tmp_path / "demo-data", project, "--require-auth") as client:
        await client.authenticate("demo-login")
    methods, _, _ = check_sent(wire)
    assert methods == {"initialize", "authenticate"}


def test_the_list_filter_is_really_missing_from_the_stable_schema() -> None:
    """Guards the special case above: drop it once the schema defines the field."""
    contents = json.loads((SCHEMA_DIR / "schema.json").read_text(encoding="utf-8"))
    assert "additionalDirectories" not in contents["$defs"]["ListSessionsRequest"]["properties"]
    assert "ForkSessionRequest" not in contents["$defs"]


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"sessionId": "s"}},
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {}},
        {"jsonrpc": "2.0", "id": 7, "result": {"outcome": {"outcome": "maybe"}}},
        {"jsonrpc": "2.0", "id": 7, "error": {"code": "bad", "message": "x"}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": {"cwd": 3}},
    ],
)
def test_the_checker_refuses_an_invalid_message(message: dict[str, Any]) -> None:
    wire = Wire()
    request = {"jsonrpc": "2.0", "id": 7, "method": "session/request_permission", "params": {}}
    wire("recv", request)
    wire("send", message)
    with pytest.raises(AssertionError):
        check_sent(wire)


async def test_elicitation_answers_fit_the_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Accept (a filled form, a URL done), decline, cancel, an error for a bad question, and a
    question during `authenticate`: the agent's requests and the client's answers all fit."""
    from acp_tui.client.session.elicitation import ACCEPTED, DECLINED, Answer, Elicitation

    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)
    forms = []

    async def answer(elicitation: Elicitation) -> Answer:
        if elicitation.mode == "url":
            await elicitation.completed.wait()
            return ACCEPTED
        form = elicitation.form
        assert form is not None
        forms.append(form)
        if len(forms) == 3:  # the second "ask"
            return DECLINED
        extra = {"email": "a@example.com", "license": "MIT", "ticket": "AB-1", "retries": "2"}
        names = {f.name for f in form.fields}
        content, errors = form.answer(
            {**form.defaults(), **{k: v for k, v in extra.items() if k in names}}
        )
        assert errors == {}
        return Answer("accept", content)

    async with connect(
        demo_spec(tmp_path / "demo-data", project, "--require-auth", "--auth-elicit"),
        elicitation_handler=answer,
        init_timeout=WAIT,
    ) as client:
        await client.authenticate("demo-login")
        sid = (await client.new_session(project)).session_id
        for prompt in ("ask", "ask-url 0", "ask", "ask-bad", "ask-flood 2"):
            assert await client.prompt(sid, [TextContent(text=prompt)]) == "end_turn"

    assert len(forms) == 5  # login, ask, ask, 2 of the flood
    _methods, replies, errors = check_sent(wire)
    assert "elicitation/create" in replies
    assert errors == 5  # ask-bad's five refusals
    actions = [m["result"]["action"] for m in wire.sent if "action" in m.get("result", {})]
    assert actions == ["accept", "accept", "accept", "decline", "accept", "accept"]
    received = [
        m
        for d, m in wire.messages
        if d == "recv" and m.get("method") in ("elicitation/create", "elicitation/complete")
    ]
    bad = ("A bad question", "?")  # ask-bad's, some of them invalid on purpose
    good = [m for m in received if m["params"].get("message") not in bad]
    assert len(good) == 7  # login, ask, URL and its completion, ask, flood 2
    assert good[3]["method"] == "elicitation/complete"
    for message in good:
        definition = (
            "CreateElicitationRequest"
            if message["method"] == "elicitation/create"
            else "CompleteElicitationNotification"
        )
        validate(validator("schema.json", definition), message["params"], message["method"])
    assert isinstance(received[0]["params"]["requestId"], int)  # tied to `authenticate`
