"""Capabilities: the version-neutral view of what an agent advertised in `initialize`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.agent.capabilities import (
    BASELINE_PROMPT_KINDS,
    Action,
    AuthMethodInfo,
    Capabilities,
    EnvVarSpec,
)
from acp_tui.protocol.capabilities import InitializeResponse

PROTOCOL_MD = Path(__file__).parents[3] / "data" / "acp" / "PROTOCOL.md"


def appendix_example(title: str) -> Any:
    """The JSON of an Appendix A.1 example, by its bold title."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    appendix = text[text.index("### A.1") :]
    match = re.search(re.escape(f"**{title}**") + r"[^\n]*\n```json\n(.*?)\n```", appendix, re.S)
    assert match is not None, title
    return json.loads(match.group(1))


def caps_of(result: dict[str, Any]) -> Capabilities:
    return Capabilities.from_v1(InitializeResponse.from_wire(result))


def test_the_appendix_initialize_response() -> None:
    caps = caps_of(appendix_example("initialize response")["result"])
    assert caps.protocol_version == 1
    assert (caps.agent_name, caps.agent_title, caps.agent_version) == (
        "my-agent",
        "My Agent",
        "1.0.0",
    )
    assert caps.display_name == "My Agent"
    assert caps.can_load
    assert (caps.can_list, caps.can_resume, caps.can_close, caps.can_delete) == (
        True,
        True,
        True,
        True,
    )
    assert caps.additional_directories
    assert not caps.can_fork
    assert caps.can_logout
    assert (caps.prompt_image, caps.prompt_audio, caps.prompt_embedded_context) == (
        True,
        False,
        True,
    )
    assert caps.prompt_content_kinds == {"text", "resource_link", "image", "resource"}
    assert (caps.mcp_http, caps.mcp_sse) == (True, False)
    assert caps.auth_methods == (
        AuthMethodInfo("agent-login", "Agent login", "Sign in using the agent's login flow"),
        AuthMethodInfo(
            "terminal-login",
            "Log in from the terminal",
            None,
            terminal=True,
            args=("--login",),
            env=(("ACP_INTERACTIVE_LOGIN", "1"),),
        ),
    )
    assert caps.can_reattach
    assert caps.why_not("list") is None
    assert caps.why_not("fork") == "My Agent does not support session/fork"


def test_empty_capabilities_support_nothing_optional() -> None:
    caps = caps_of({"protocolVersion": 1})
    assert caps == Capabilities(protocol_version=1)
    assert caps.agent_name == "agent"
    assert caps.display_name == "agent"
    assert caps.prompt_content_kinds == BASELINE_PROMPT_KINDS == {"text", "resource_link"}
    assert not caps.can_reattach
    assert caps.auth_methods == ()
    for action in ("list", "load", "resume", "close", "delete", "fork", "additional_directories"):
        assert not caps.supports(action)
        assert caps.why_not(action) is not None

    same = caps_of(
        {
            "protocolVersion": 1,
            "agentCapabilities": {
                "sessionCapabilities": {},
                "promptCapabilities": {},
                "mcpCapabilities": {},
                "auth": {},
            },
            "authMethods": [],
        }
    )
    assert same == caps


def test_null_markers_are_unsupported_and_empty_objects_supported() -> None:
    caps = caps_of(
        {
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": None,
                "sessionCapabilities": {
                    "list": None,
                    "resume": {},
                    "close": None,
                    "delete": {"_meta": {"x": 1}},
                    "fork": None,
                    "additionalDirectories": None,
                },
                "auth": {"logout": None},
                "promptCapabilities": {"image": None, "audio": True, "embeddedContext": None},
            },
        }
    )
    assert not caps.can_load
    assert not caps.can_list
    assert caps.can_resume
    assert not caps.can_close
    assert caps.can_delete
    assert not caps.can_fork
    assert not caps.additional_directories
    assert not caps.can_logout
    assert caps.can_reattach
    assert caps.prompt_content_kinds == {"text", "resource_link", "audio"}


def test_malformed_capabilities_degrade_to_unsupported() -> None:
    caps = caps_of(
        {
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": [True],
                "sessionCapabilities": {"list": 5, "resume": "x", "close": {}},
                "promptCapabilities": "all",
            },
            "agentInfo": {"name": "no-version"},
        }
    )
    assert (caps.can_load, caps.can_list, caps.can_resume, caps.can_close) == (
        False,
        False,
        False,
        True,
    )
    assert caps.prompt_content_kinds == BASELINE_PROMPT_KINDS
    assert caps.agent_name == "agent"  # agentInfo without a version is dropped


@pytest.mark.parametrize(
    ("prompt", "kinds"),
    [
        ({}, {"text", "resource_link"}),
        ({"image": True}, {"text", "resource_link", "image"}),
        ({"audio": True}, {"text", "resource_link", "audio"}),
        ({"embeddedContext": True}, {"text", "resource_link", "resource"}),
        (
            {"image": True, "audio": True, "embeddedContext": True},
            {"text", "resource_link", "image", "audio", "resource"},
        ),
        ({"image": False, "audio": False, "embeddedContext": False}, {"text", "resource_link"}),
    ],
)
def test_prompt_content_kinds(prompt: dict[str, Any], kinds: set[str]) -> None:
    caps = caps_of({"protocolVersion": 1, "agentCapabilities": {"promptCapabilities": prompt}})
    assert caps.prompt_content_kinds == kinds


def test_auth_methods_agent_terminal_env_var_and_unknown_types() -> None:
    caps = caps_of(
        {
            "protocolVersion": 1,
            "authMethods": [
                {"id": "plain", "name": "Plain"},
                {"id": "typed", "name": "Typed agent", "type": "agent", "description": "d"},
                {"id": "future", "name": "Future", "type": "oauth_device"},
                {
                    "id": "key",
                    "name": "API key",
                    "type": "env_var",
                    "vars": [{"name": "K", "label": "Key"}, {"name": "P", "secret": False}],
                    "link": "https://example.invalid/keys",
                },
                {"id": "older", "name": "Older", "type": "env_var", "varName": "OLD_KEY"},
                {"id": "tty", "name": "TTY", "type": "terminal"},
                {
                    "id": "tty2",
                    "name": "TTY 2",
                    "type": "terminal",
                    "args": ["login", "--device"],
                    "env": {"B": "2", "A": "1"},
                },
                {"name": "no id"},
            ],
        }
    )
    assert caps.auth_methods == (
        AuthMethodInfo("plain", "Plain"),
        AuthMethodInfo("typed", "Typed agent", "d"),
        AuthMethodInfo("future", "Future", unknown_type="oauth_device"),  # shown, never run
        AuthMethodInfo(
            "key",
            "API key",
            env_vars=(EnvVarSpec("K", "Key"), EnvVarSpec("P", secret=False)),
            link="https://example.invalid/keys",
            env_var=True,
        ),
        AuthMethodInfo("older", "Older", env_vars=(EnvVarSpec("OLD_KEY"),), env_var=True),
        AuthMethodInfo("tty", "TTY", terminal=True),
        AuthMethodInfo(
            "tty2",
            "TTY 2",
            terminal=True,
            args=("login", "--device"),
            env=(("A", "1"), ("B", "2")),
        ),
    )


@pytest.mark.parametrize(
    ("action", "wire_name"),
    [
        ("list", "session/list"),
        ("load", "session/load"),
        ("resume", "session/resume"),
        ("close", "session/close"),
        ("delete", "session/delete"),
        ("fork", "session/fork"),
        ("additional_directories", "additional workspace roots (additionalDirectories)"),
    ],
)
def test_why_not_names_the_missing_capability(action: Action, wire_name: str) -> None:
    titled = Capabilities(protocol_version=1, agent_name="claude", agent_title="Claude Code")
    assert titled.why_not(action) == f"Claude Code does not support {wire_name}"
    untitled = Capabilities(protocol_version=1, agent_name="gemini")
    assert untitled.why_not(action) == f"gemini does not support {wire_name}"
    field = {"additional_directories": "additional_directories"}.get(action, f"can_{action}")
    able = Capabilities(protocol_version=1, **{field: True})  # type: ignore[arg-type]
    assert able.supports(action)
    assert able.why_not(action) is None


def test_can_reattach_with_load_or_resume() -> None:
    assert Capabilities(protocol_version=1, can_load=True).can_reattach
    assert Capabilities(protocol_version=1, can_resume=True).can_reattach
    assert not Capabilities(protocol_version=1, can_list=True, can_fork=True).can_reattach
