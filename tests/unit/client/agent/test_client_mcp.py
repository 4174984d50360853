"""MCP servers from the config: chosen per agent, resolved, gated by the agent's transports,
sent on new/load/resume/fork in shapes that fit the v1 and v2 schemas, and never silently
dropped; their secrets never reach a log, a notice or a repr."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from acp_tui.client.agent.agent_client import connect
from acp_tui.client.agent.capabilities import Capabilities
from acp_tui.client.agent.mcp import (
    McpServerSpec,
    enabled_mcp_servers,
    mcp_for_session,
    resolve_command,
)
from acp_tui.client.session.entries import MessageEntry, NoticeEntry
from acp_tui.config.settings import AgentConfig, McpServerConfig, Settings
from acp_tui.protocol.content import TextContent
from tests.unit.client.agent.agent_helpers import demo_spec, make_project, record_wire

SCHEMAS = Path(__file__).parents[3] / "data" / "acp" / "schema"
SECRET = "s3cr3t-value"


@cache
def validator(version: str, schema_file: str, definition: str) -> Draft202012Validator:
    contents = json.loads((SCHEMAS / version / schema_file).read_text(encoding="utf-8"))
    uri = f"urn:acp:{version}:{schema_file}"
    registry: Registry[Any] = Registry().with_resource(
        uri, Resource.from_contents(contents, default_specification=DRAFT202012)
    )
    return Draft202012Validator({"$ref": f"{uri}#/$defs/{definition}"}, registry=registry)


def assert_valid(version: str, definition: str, instance: Any, schema: str = "schema.json") -> None:
    errors = [e.message for e in validator(version, schema, definition).iter_errors(instance)]
    assert not errors, f"{definition} ({version}): {json.dumps(instance)}: {errors}"


def executable(tmp_path: Path, name: str = "mcp-server") -> Path:
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def servers(tmp_path: Path) -> tuple[McpServerSpec, ...]:
    return (
        McpServerSpec(
            "files", "stdio", command=str(executable(tmp_path)), args=("--root", "/"),
            env=(("TOKEN", SECRET),),
        ),
        McpServerSpec("web", "http", url="https://mcp.example.com/mcp",
                      headers=(("Authorization", f"Bearer {SECRET}"),)),
        McpServerSpec("events", "sse", url="https://mcp.example.com/sse"),
        McpServerSpec("missing", "stdio", command="no-such-mcp-server-anywhere"),
    )  # fmt: skip


# -- choosing and resolving ----------------------------------------------------------------------


def test_an_agent_gets_the_global_servers_then_its_own() -> None:
    settings = Settings(
        agents={
            "a": AgentConfig(command="a", mcp_servers=["mine", "both"]),
            "b": AgentConfig(command="b"),
        },
        mcp_servers={
            "both": McpServerConfig(command="x", all_agents=True),
            "mine": McpServerConfig(url="https://example.com/mcp"),
            "other": McpServerConfig(command="y"),
        },
    )  # fmt: skip
    assert [s.name for s in enabled_mcp_servers(settings, "a")] == ["both", "mine"]
    assert [s.name for s in enabled_mcp_servers(settings, "b")] == ["both"]
    assert [s.name for s in enabled_mcp_servers(settings, None)] == ["both"]
    assert enabled_mcp_servers(settings, "a")[1].transport == "http"


def test_commands_resolve_to_absolute_executables(tmp_path: Path) -> None:
    tool = executable(tmp_path, "my-tool")
    assert resolve_command("my-tool", str(tool.parent)) == str(tool)
    assert resolve_command(str(tool)) == str(tool)
    assert resolve_command("my-tool", str(tmp_path)) is None
    (tmp_path / "plain").write_text("")
    assert resolve_command(str(tmp_path / "plain")) is None  # not executable
    assert resolve_command("sh") is not None
    assert os.path.isabs(resolve_command("sh") or "")


def test_secrets_are_not_in_the_repr(tmp_path: Path) -> None:
    assert SECRET not in repr(servers(tmp_path))


# -- gating and wire shapes ------------------------------------------------------------------------


def test_v1_lists_fit_the_schema_and_name_what_the_agent_cannot_take(tmp_path: Path) -> None:
    every = Capabilities(protocol_version=1, mcp_http=True, mcp_sse=True)
    setup = mcp_for_session(servers(tmp_path), every)
    assert [s["name"] for s in setup.servers] == ["files", "web", "events"]
    for server in setup.servers:
        assert_valid("v1", "McpServer", server)
    assert "type" not in setup.servers[0]  # v1 stdio has no type
    assert setup.servers[0]["env"] == [{"name": "TOKEN", "value": SECRET}]
    [missing] = setup.problems
    assert missing.server == "missing"
    assert missing.level == "error"
    assert "not found" in missing.text

    stdio_only = mcp_for_session(servers(tmp_path), Capabilities(protocol_version=1))
    assert [s["name"] for s in stdio_only.servers] == ["files"]
    assert [p.server for p in stdio_only.problems] == ["web", "events", "missing"]
    assert "does not accept http" in stdio_only.problems[0].text
    assert all(SECRET not in p.text for p in stdio_only.problems)


def test_v2_lists_fit_the_schema_and_have_no_sse(tmp_path: Path) -> None:
    caps = Capabilities(protocol_version=2, mcp_stdio=True, mcp_http=True)
    setup = mcp_for_session(servers(tmp_path), caps)
    assert [s["name"] for s in setup.servers] == ["files", "web"]
    for server in setup.servers:
        assert_valid("v2", "McpServer", server)
    assert setup.servers[0]["type"] == "stdio"
    assert [p.server for p in setup.problems] == ["events", "missing"]
    no_stdio = mcp_for_session(servers(tmp_path), Capabilities(protocol_version=2, mcp_stdio=False))
    assert no_stdio.servers == []
    assert "does not accept stdio" in no_stdio.problems[0].text


# -- against the demo agent ----------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
async def test_every_session_call_carries_the_servers_the_agent_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, version: int
) -> None:
    caplog.set_level(logging.DEBUG)
    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)
    flags = ["--mcp", "http"] + (["--protocol", "2"] if version == 2 else [])
    spec = replace(
        demo_spec(tmp_path / "data", project, *flags),
        protocol_version=version,
        mcp_servers=servers(tmp_path),
    )
    async with connect(spec) as client:
        session = await client.new_session(project)
        notices = [e for e in session.transcript if isinstance(e, NoticeEntry)]
        # The session opened without the two it could not have, and says so.
        assert [n.level for n in notices] == ["warning", "error"]
        assert "'events'" in notices[0].text
        assert "sse" in notices[0].text
        assert "'missing'" in notices[1].text
        assert "not found" in notices[1].text
        await client.prompt(session.session_id, [TextContent(text="mcp")])
        replies = [e.text for e in session.transcript if isinstance(e, MessageEntry)]
        assert any("files (stdio: /" in r and "web (http: https://" in r for r in replies)
        sid = session.session_id
        await client.load_session(sid, project)
        await client.resume_session(sid, project)
        await client.fork_session(sid, project)

    schema = "v1" if version == 1 else "v2"
    definitions = {
        "session/new": "NewSessionRequest",
        "session/load": "LoadSessionRequest",
        "session/resume": "ResumeSessionRequest",
        "session/fork": "ForkSessionRequest",
    }
    sent = {m: p for m in definitions for p in wire.sent_params(m)}
    assert set(sent) == set(definitions) - ({"session/load"} if version == 2 else set())
    for method, params in sent.items():
        assert [s["name"] for s in params["mcpServers"]] == ["files", "web"], method
        fork_unstable = method == "session/fork"
        assert_valid(
            schema,
            definitions[method],
            params,
            "schema.unstable.json" if fork_unstable else "schema.json",
        )
    assert SECRET not in caplog.text


async def test_no_servers_configured_sends_what_it_always_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)
    async with connect(demo_spec(tmp_path / "data", project)) as client:
        session = await client.new_session(project)
        assert not [e for e in session.transcript if isinstance(e, NoticeEntry)]
    assert wire.sent_params("session/new")[0]["mcpServers"] == []


async def test_python_on_path_is_sent_as_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = record_wire(monkeypatch)
    project = make_project(tmp_path)
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    name = Path(sys.executable).name
    spec = replace(
        demo_spec(tmp_path / "data", project),
        mcp_servers=(McpServerSpec("py", "stdio", command=name),),
    )
    async with connect(spec) as client:
        await client.new_session(project)
    [server] = wire.sent_params("session/new")[0]["mcpServers"]
    assert os.path.isabs(server["command"])
    assert server["command"].endswith(name)
