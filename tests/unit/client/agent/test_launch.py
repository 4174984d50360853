"""Tests for choosing which agent to start."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tui.client.agent.launch import LaunchError, LaunchSpec, demo_agent_command, resolve_launch
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings

ALPHA = AgentConfig(command="alpha-acp", args=["--stdio"], env={"ALPHA_KEY": "1"}, protocol=2)
BETA = AgentConfig(command="beta", title="Beta Agent")


def launch(
    paths: Paths,
    cwd: Path,
    *,
    settings: Settings | None = None,
    agent_name: str | None = None,
    command: list[str] | None = None,
    protocol: int | None = None,
) -> LaunchSpec:
    return resolve_launch(
        cwd=cwd,
        agent_name=agent_name,
        command=command,
        settings=settings or Settings(),
        paths=paths,
        protocol=protocol,
    )


def test_demo_agent_command(acp_home: Paths) -> None:
    demo = demo_agent_command(acp_home)
    assert list(demo.argv) == [
        sys.executable,
        "-m",
        "acp_tui.demo_agent",
        "--data-dir",
        str(acp_home.demo_agent_dir),
    ]
    assert demo.name == "demo"
    assert list(demo_agent_command(acp_home, 2).argv)[-2:] == ["--protocol", "2"]


def test_the_demo_agent_is_told_to_speak_v2_when_asked(acp_home: Paths, tmp_path: Path) -> None:
    spec = launch(acp_home, tmp_path, agent_name="demo", protocol=2)
    assert spec.protocol_version == 2
    assert list(spec.command.argv) == list(demo_agent_command(acp_home, 2).argv)


def test_nothing_configured_starts_the_demo_agent(acp_home: Paths, tmp_path: Path) -> None:
    spec = launch(acp_home, tmp_path)
    assert spec.is_demo
    assert list(spec.command.argv) == list(demo_agent_command(acp_home).argv)
    assert spec.command.cwd == tmp_path
    assert spec.cwd == tmp_path
    assert spec.protocol_version == 1
    assert spec.display_name


def test_the_only_configured_agent_is_the_default(acp_home: Paths, tmp_path: Path) -> None:
    spec = launch(acp_home, tmp_path, settings=Settings(agents={"alpha": ALPHA}))
    assert not spec.is_demo
    assert list(spec.command.argv) == ["alpha-acp", "--stdio"]
    assert dict(spec.command.env) == {"ALPHA_KEY": "1"}
    assert spec.command.cwd == tmp_path
    assert spec.command.name == "alpha"
    assert spec.display_name == "alpha"


def test_several_agents_without_default_start_the_demo(acp_home: Paths, tmp_path: Path) -> None:
    spec = launch(acp_home, tmp_path, settings=Settings(agents={"alpha": ALPHA, "beta": BETA}))
    assert spec.is_demo


def test_default_agent_beats_the_only_agent_rule(acp_home: Paths, tmp_path: Path) -> None:
    settings = Settings(default_agent="beta", agents={"alpha": ALPHA, "beta": BETA})
    spec = launch(acp_home, tmp_path, settings=settings)
    assert list(spec.command.argv) == ["beta"]
    assert spec.display_name == "Beta Agent"
    only = Settings(default_agent="demo", agents={"alpha": ALPHA})
    assert launch(acp_home, tmp_path, settings=only).is_demo


def test_dash_a_beats_default_agent(acp_home: Paths, tmp_path: Path) -> None:
    settings = Settings(default_agent="beta", agents={"alpha": ALPHA, "beta": BETA})
    spec = launch(acp_home, tmp_path, settings=settings, agent_name="alpha")
    assert list(spec.command.argv) == ["alpha-acp", "--stdio"]
    assert launch(acp_home, tmp_path, settings=settings, agent_name="demo").is_demo


def test_demo_always_means_the_bundled_agent(acp_home: Paths, tmp_path: Path) -> None:
    settings = Settings(agents={"demo": AgentConfig(command="impostor")})
    spec = launch(acp_home, tmp_path, settings=settings, agent_name="demo")
    assert spec.is_demo
    assert "impostor" not in spec.command.argv


def test_explicit_command_beats_everything(acp_home: Paths, tmp_path: Path) -> None:
    settings = Settings(default_agent="alpha", agents={"alpha": ALPHA})
    spec = launch(
        acp_home, tmp_path, settings=settings, command=["/opt/bin/my-agent", "--flag", "a b"]
    )
    assert list(spec.command.argv) == ["/opt/bin/my-agent", "--flag", "a b"]
    assert not spec.is_demo
    assert dict(spec.command.env) == {}
    assert spec.command.cwd == tmp_path
    assert spec.display_name == "my-agent"
    assert spec.protocol_version == 1


def test_empty_explicit_command_is_an_error(acp_home: Paths, tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="command"):
        launch(acp_home, tmp_path, command=[])


def test_unknown_agent_name_lists_the_known_ones(acp_home: Paths, tmp_path: Path) -> None:
    settings = Settings(agents={"beta": BETA, "alpha": ALPHA})
    with pytest.raises(LaunchError, match="'gamma'") as caught:
        launch(acp_home, tmp_path, settings=settings, agent_name="gamma")
    assert "alpha, beta, demo" in str(caught.value)


def test_unknown_default_agent_is_an_error(acp_home: Paths, tmp_path: Path) -> None:
    settings = Settings(default_agent="gamma", agents={"alpha": ALPHA})
    with pytest.raises(LaunchError, match="default_agent 'gamma'") as caught:
        launch(acp_home, tmp_path, settings=settings)
    assert "alpha, demo" in str(caught.value)


@pytest.mark.parametrize(
    ("explicit", "agent", "expected"),
    [(None, "alpha", 2), (1, "alpha", 1), (None, "beta", 1), (2, "beta", 2), (2, "demo", 2)],
)
def test_protocol_precedence(
    acp_home: Paths, tmp_path: Path, explicit: int | None, agent: str, expected: int
) -> None:
    settings = Settings(agents={"alpha": ALPHA, "beta": BETA})
    spec = launch(acp_home, tmp_path, settings=settings, agent_name=agent, protocol=explicit)
    assert spec.protocol_version == expected


def test_explicit_command_takes_the_explicit_protocol(acp_home: Paths, tmp_path: Path) -> None:
    assert launch(acp_home, tmp_path, command=["x"], protocol=2).protocol_version == 2


def test_unsupported_protocol_is_an_error(acp_home: Paths, tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="protocol"):
        launch(acp_home, tmp_path, protocol=3)


def test_additional_directories_are_absolute(acp_home: Paths, tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    config = AgentConfig(command="a", additional_directories=["../lib", "/abs", ".", "/abs"])
    spec = launch(acp_home, cwd, settings=Settings(agents={"a": config}))
    assert spec.additional_directories == (tmp_path / "lib", Path("/abs"))


def test_tilde_in_command_is_expanded(
    acp_home: Paths, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    config = AgentConfig(command="~/bin/agent")
    spec = launch(acp_home, tmp_path, settings=Settings(agents={"a": config}))
    assert spec.command.argv[0] == str(tmp_path / "bin" / "agent")


@pytest.mark.parametrize(
    ("agent_name", "command"), [("alpha", None), ("demo", None), (None, ["my-agent", "--acp"])]
)
def test_the_spec_carries_the_settings_that_decide_what_the_agent_may_do(
    acp_home: Paths, tmp_path: Path, agent_name: str | None, command: list[str] | None
) -> None:
    # A second agent started from Ctrl+N used to get the default settings: its commands were
    # asked about (or run) whatever the config's `terminal` said.
    settings = Settings(agents={"alpha": ALPHA}, terminal="deny")
    spec = launch(acp_home, tmp_path, settings=settings, agent_name=agent_name, command=command)
    assert spec.settings is settings
    assert spec.config_name == ("alpha" if agent_name == "alpha" else None)
