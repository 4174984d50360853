"""Planning and installing registry agents, and upgrading them; archives served on loopback."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.config.edit import ConfigEditError
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings, load_settings, save_settings
from acp_tui.registry.entries import Registry, RegistryEntry, parse_registry
from acp_tui.registry.fetch import DownloadError
from acp_tui.registry.install import (
    InstallError,
    NameTaken,
    agent_table_toml,
    install_agent,
    installed_dir,
    plan_agent,
)
from acp_tui.registry.upgrade import check_upgrades, version_key
from tests.registry_helpers import PLATFORM, RegistryServer, serve_fixture, with_version


def on_path(*programs: str):  # type: ignore[no-untyped-def]
    """A `which` that finds only `programs`."""
    return lambda name: f"/usr/bin/{name}" if name in programs else None


@pytest.fixture
def server() -> Iterator[RegistryServer]:
    with serve_fixture() as state:
        yield state


@pytest.fixture
def registry(server: RegistryServer) -> Registry:
    return parse_registry(server.files["/registry.json"])


def entry(registry: Registry, agent_id: str) -> RegistryEntry:
    found = registry.find(agent_id)
    assert found is not None
    return found


def agents_in(paths: Paths) -> dict[str, AgentConfig]:
    loaded = load_settings(paths.config_file)
    assert loaded.problems == []
    return loaded.settings.agents


# -- plans -------------------------------------------------------------------------------------


def test_an_npx_plan_is_npx_dash_y_the_package_and_its_args(
    registry: Registry, acp_home: Paths
) -> None:
    plan = plan_agent(entry(registry, "alpha"), paths=acp_home, platform=PLATFORM)
    assert plan.kind == "npx"
    assert plan.config == AgentConfig(
        command="npx",
        args=["-y", "@example/alpha-acp@1.2.3", "--acp"],
        env={"ALPHA_LOG": "info"},
        title="Alpha Agent",
        registry_id="alpha",
        registry_version="1.2.3",
        registry_distribution="npx",
    )
    assert agent_table_toml("alpha", plan.config) == (
        "[agents.alpha]\n"
        'command = "npx"\n'
        'args = ["-y", "@example/alpha-acp@1.2.3", "--acp"]\n'
        'title = "Alpha Agent"\n'
        'registry_id = "alpha"\n'
        'registry_version = "1.2.3"\n'
        'registry_distribution = "npx"\n'
        "\n"
        "[agents.alpha.env]\n"
        'ALPHA_LOG = "info"\n'
    )


def test_a_uvx_plan_and_a_missing_launcher_warning(registry: Registry, acp_home: Paths) -> None:
    plan = plan_agent(entry(registry, "beta"), paths=acp_home, platform=PLATFORM)
    assert plan.argv == ["uvx", "beta-agent==0.4.0", "acp"]
    assert plan.warnings(on_path("npx")) == [
        "uvx is not on PATH: install uv before starting this agent"
    ]
    assert plan.warnings(on_path("uvx")) == []


def test_a_binary_plan_runs_the_command_inside_the_data_dir(
    registry: Registry, acp_home: Paths
) -> None:
    plan = plan_agent(entry(registry, "gamma"), paths=acp_home, platform=PLATFORM)
    directory = acp_home.data_dir / "agents" / "gamma" / "1.0.0"
    assert plan.install_dir == directory
    assert plan.argv == [str(directory / "bin" / "gamma"), "acp"]
    assert plan.config.env == {"GAMMA_MODE": "acp"}
    assert plan.config.registry_distribution == "binary"


def test_the_kind_with_its_launcher_on_path_is_preferred(
    registry: Registry, acp_home: Paths
) -> None:
    delta = entry(registry, "delta")
    assert plan_agent(delta, paths=acp_home, platform=PLATFORM, which=on_path("npx")).kind == "npx"
    assert plan_agent(delta, paths=acp_home, platform=PLATFORM, which=on_path()).kind == "binary"
    # No build for this platform: npx it is, even without npx on PATH (with a warning).
    plan = plan_agent(delta, paths=acp_home, platform="darwin-aarch64", which=on_path())
    assert plan.kind == "npx"
    assert plan.warnings(on_path()) != []


def test_no_entry_for_this_platform(registry: Registry, acp_home: Paths) -> None:
    with pytest.raises(InstallError, match=r"no build for this platform \(linux-x86_64\)"):
        plan_agent(entry(registry, "windows-only"), paths=acp_home, platform=PLATFORM)
    with pytest.raises(InstallError, match="no binary for this platform"):
        plan_agent(
            entry(registry, "delta"), paths=acp_home, platform="windows-x86_64", kind="binary"
        )
    with pytest.raises(InstallError, match="has no uvx distribution"):
        plan_agent(entry(registry, "delta"), paths=acp_home, platform=PLATFORM, kind="uvx")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ({"archive": "http://example.invalid/a.tar.gz", "cmd": "./a"}, "must be https://"),
        ({"archive": "https://example.invalid/a.dmg", "cmd": "./a"}, "not supported"),
        ({"archive": "https://example.invalid/a.zip", "cmd": "../../bin/sh"}, "goes up"),
        ({"archive": "https://example.invalid/a.zip", "cmd": "/bin/sh"}, "absolute"),
    ],
)
def test_a_binary_the_plan_refuses(acp_home: Paths, target: dict[str, str], message: str) -> None:
    import json

    document = {
        "agents": [
            {
                "id": "x",
                "name": "X",
                "version": "1.0.0",
                "description": "d",
                "distribution": {"binary": {PLATFORM: target}},
            }
        ]
    }
    [x] = parse_registry(json.dumps(document).encode()).agents
    with pytest.raises(InstallError, match=message):
        plan_agent(x, paths=acp_home, platform=PLATFORM)


# -- installing --------------------------------------------------------------------------------


def test_adding_an_npx_agent_writes_its_table(registry: Registry, acp_home: Paths) -> None:
    plan = plan_agent(entry(registry, "alpha"), paths=acp_home, platform=PLATFORM)
    install_agent(plan, acp_home.config_file, make_default=True)
    text = acp_home.config_file.read_text()
    data = tomllib.loads(text)
    assert data["default_agent"] == "alpha"
    assert data["agents"]["alpha"]["args"] == ["-y", "@example/alpha-acp@1.2.3", "--acp"]
    assert agents_in(acp_home)["alpha"] == plan.config
    assert not (acp_home.data_dir / "agents").exists()


def test_adding_a_binary_downloads_checks_and_unpacks_it(
    registry: Registry, server: RegistryServer, acp_home: Paths
) -> None:
    progress: list[tuple[int, int | None]] = []
    plan = plan_agent(entry(registry, "gamma"), paths=acp_home, platform=PLATFORM)
    install_agent(plan, acp_home.config_file, progress=lambda d, t: progress.append((d, t)))
    program = Path(plan.config.command)
    assert program.is_file()
    assert os.access(program, os.X_OK)
    assert agents_in(acp_home)["gamma"] == plan.config
    assert progress[-1][0] == progress[-1][1] == len(server.files["/gamma-1.0.0.tar.gz"])
    # Only the unpacked version is left: no archive, no staging directory.
    assert [p.name for p in installed_dir(acp_home, "gamma").iterdir()] == ["1.0.0"]


def test_adding_a_zip_binary(registry: Registry, acp_home: Paths) -> None:
    plan = plan_agent(entry(registry, "delta"), paths=acp_home, platform=PLATFORM, kind="binary")
    install_agent(plan, acp_home.config_file)
    assert os.access(plan.config.command, os.X_OK)


@pytest.fixture
def old_table(acp_home: Paths) -> str:
    """A config holding agents under the names the failing tests use, with a comment."""
    agents = {
        name: AgentConfig(command=f"old-{name}")
        for name in ("bad-checksum", "half-way", "traversal")
    }
    save_settings(Settings(agents=agents), acp_home.config_file)
    text = "# keep me\n" + acp_home.config_file.read_text()
    acp_home.config_file.write_text(text)
    return text


@pytest.mark.parametrize(
    ("agent_id", "error", "message"),
    [
        ("bad-checksum", DownloadError, "checksum mismatch"),
        ("half-way", DownloadError, "stopped after"),
        ("traversal", InstallError, "absolute or goes up"),
    ],
)
def test_a_failed_binary_changes_nothing(
    registry: Registry,
    acp_home: Paths,
    old_table: str,
    agent_id: str,
    error: type[Exception],
    message: str,
) -> None:
    plan = plan_agent(entry(registry, agent_id), paths=acp_home, platform=PLATFORM)
    with pytest.raises(error, match=message):
        install_agent(plan, acp_home.config_file, replace_existing=True)
    assert acp_home.config_file.read_text() == old_table
    assert list(installed_dir(acp_home, agent_id).iterdir()) == []
    assert not (acp_home.data_dir / "agents" / "escaped").exists()
    assert not list(acp_home.data_dir.rglob("escaped"))


def test_a_name_that_is_taken_is_refused_before_any_download(
    registry: Registry, server: RegistryServer, acp_home: Paths
) -> None:
    save_settings(Settings(agents={"gamma": AgentConfig(command="mine")}), acp_home.config_file)
    plan = plan_agent(entry(registry, "gamma"), paths=acp_home, platform=PLATFORM)
    with pytest.raises(NameTaken, match="'gamma' already exists"):
        install_agent(plan, acp_home.config_file)
    assert not any(path.endswith(".tar.gz") for path in server.requests)
    assert agents_in(acp_home)["gamma"].command == "mine"
    install_agent(plan, acp_home.config_file, replace_existing=True)
    assert agents_in(acp_home)["gamma"] == plan.config


def test_a_config_that_cannot_be_written_rolls_the_files_back(
    registry: Registry, server: RegistryServer, acp_home: Paths
) -> None:
    plan = plan_agent(entry(registry, "gamma"), paths=acp_home, platform=PLATFORM)
    install_agent(plan, acp_home.config_file)
    program = Path(plan.config.command)
    before = program.read_bytes()
    acp_home.config_file.write_text("theme = 5\n")  # the config now has a problem
    server.files["/gamma-1.0.0.tar.gz"] = server.files["/gamma-1.1.0.tar.gz"]
    assert plan.target is not None
    unchecked = replace(plan, target=replace(plan.target, sha256=None))
    with pytest.raises(ConfigEditError, match="theme: expected a valid string"):
        install_agent(unchecked, acp_home.config_file, replace_existing=True)
    assert program.read_bytes() == before  # the version in use was put back
    assert [p.name for p in installed_dir(acp_home, "gamma").iterdir()] == ["1.0.0"]


# -- upgrades ----------------------------------------------------------------------------------


def test_an_upgrade_moves_a_binary_forward_and_keeps_the_users_keys(
    registry: Registry, server: RegistryServer, acp_home: Paths
) -> None:
    plan = plan_agent(entry(registry, "gamma"), paths=acp_home, platform=PLATFORM, name="g")
    install_agent(plan, acp_home.config_file)
    mine = replace(
        agents_in(acp_home)["g"],
        title="My Gamma",
        additional_directories=["../lib"],
        env={"GAMMA_MODE": "acp", "TOKEN": "t"},
    )
    save_settings(Settings(agents={"g": mine}), acp_home.config_file)
    newer = parse_registry(with_version(server.files["/registry.json"], "gamma", "1.1.0"))
    settings = load_settings(acp_home.config_file).settings
    [check] = check_upgrades(settings, newer, paths=acp_home, platform=PLATFORM)
    assert check.name == "g"
    assert check.note == "1.0.0 -> 1.1.0"
    assert check.plan is not None
    install_agent(check.plan, acp_home.config_file, replace_existing=True)
    upgraded = agents_in(acp_home)["g"]
    assert upgraded.registry_version == "1.1.0"
    assert upgraded.command == str(installed_dir(acp_home, "g", "1.1.0") / "bin" / "gamma")
    assert (upgraded.title, upgraded.additional_directories) == ("My Gamma", ["../lib"])
    assert upgraded.env == {"GAMMA_MODE": "acp", "TOKEN": "t"}
    assert Path(upgraded.command).read_bytes().endswith(b"# 1.1.0\n")
    assert [p.name for p in installed_dir(acp_home, "g").iterdir()] == ["1.1.0"]


def test_upgrade_notes(registry: Registry, server: RegistryServer, acp_home: Paths) -> None:
    document = server.files["/registry.json"]
    agents = {
        "alpha": plan_agent(entry(registry, "alpha"), paths=acp_home, platform=PLATFORM).config,
        "beta": plan_agent(entry(registry, "beta"), paths=acp_home, platform=PLATFORM).config,
        "gone": replace(
            plan_agent(entry(registry, "alpha"), paths=acp_home, platform=PLATFORM).config,
            registry_id="gone",
        ),
        "mine": AgentConfig(command="mine"),
    }
    settings = Settings(agents=agents)
    newer = parse_registry(with_version(document, "alpha", "1.10.0"))
    older = parse_registry(with_version(document, "beta", "0.3.9"))
    notes = {c.name: c.note for c in check_upgrades(settings, newer, paths=acp_home, platform=None)}
    assert notes == {
        "alpha": "1.2.3 -> 1.10.0",
        "beta": "up to date (0.4.0)",
        "gone": "'gone' is no longer in the registry",
    }
    [beta] = check_upgrades(settings, older, paths=acp_home, platform=None, names=["beta"])
    assert beta.note == "the registry has 0.3.9, older than 0.4.0: left as it is"
    assert beta.plan is None
    checks = check_upgrades(settings, older, paths=acp_home, platform=None, names=["mine", "x"])
    assert [c.note for c in checks] == [
        "not added from the registry (no registry_id)",
        "no such agent in the config file",
    ]
    [alpha] = check_upgrades(settings, newer, paths=acp_home, platform=None, names=["alpha"])
    assert alpha.plan is not None
    assert alpha.plan.argv == ["npx", "-y", "@example/alpha-acp@1.10.0", "--acp"]


def test_version_order() -> None:
    versions = ["1.10.0", "1.2.3", "1.2.3-rc.1", "0.9.0", "weird", "1.2.3+build"]
    assert sorted(versions, key=version_key) == [
        "weird",
        "0.9.0",
        "1.2.3-rc.1",
        "1.2.3",
        "1.2.3+build",
        "1.10.0",
    ]
