"""Tests for edit_settings: the locked read-modify-write of the config file."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from dataclasses import replace

import pytest

from acp_tui.config.edit import ConfigEditError, config_lock, edit_settings
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings

PARALLEL = 40
TIMEOUT = 240


def test_edit_applies_the_change_and_keeps_comments(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text('# mine\ntheme = "acp-dusk"  # evenings\n')
    saved = edit_settings(acp_home.config_file, lambda s: replace(s, show_thoughts=False))
    assert saved.show_thoughts is False
    text = acp_home.config_file.read_text()
    assert text.startswith('# mine\ntheme = "acp-dusk"  # evenings\n')
    assert "show_thoughts = false" in text


def test_a_broken_file_is_not_touched_and_change_never_runs(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text("theme = 5\n")
    calls: list[Settings] = []

    def change(settings: Settings) -> Settings:
        calls.append(settings)
        return settings

    with pytest.raises(ConfigEditError) as caught:
        edit_settings(acp_home.config_file, change)
    assert "theme" in caught.value.lines[0]
    assert "not changing" in caught.value.lines[-1]
    assert calls == []
    assert acp_home.config_file.read_text() == "theme = 5\n"


def test_an_error_in_the_change_leaves_the_file(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text('theme = "acp-dusk"\n')

    def change(settings: Settings) -> Settings:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        edit_settings(acp_home.config_file, change)
    assert acp_home.config_file.read_text() == 'theme = "acp-dusk"\n'


def test_no_change_writes_nothing(acp_home: Paths) -> None:
    edit_settings(acp_home.config_file, lambda s: s)
    assert not acp_home.config_file.exists()


def test_the_lock_is_exclusive_between_processes(acp_home: Paths) -> None:
    # While this process holds the lock, another one cannot take it without waiting.
    probe = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "try:\n"
        "    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "except BlockingIOError:\n"
        "    print('busy')\n"
        "else:\n"
        "    print('free')\n"
    )
    lock = acp_home.config_file.with_name("config.toml.lock")
    with config_lock(acp_home.config_file):
        held = subprocess.run(
            [sys.executable, "-c", probe, str(lock)], capture_output=True, text=True, check=True
        )
    after = subprocess.run(
        [sys.executable, "-c", probe, str(lock)], capture_output=True, text=True, check=True
    )
    assert (held.stdout.strip(), after.stdout.strip()) == ("busy", "free")


def test_parallel_agents_add_loses_no_entry(acp_home: Paths) -> None:
    """40 `acp-tui agents add` at once: every one of them ends up in the file."""
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text("# agents added in parallel\n")
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "acp_tui", "agents", "add", f"agent-{i}", "--", f"cmd-{i}"],
            env=os.environ,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(PARALLEL)
    ]
    failures = []
    for process in processes:
        _, err = process.communicate(timeout=TIMEOUT)
        if process.returncode != 0:
            failures.append(err)
    assert failures == []
    agents = tomllib.loads(acp_home.config_file.read_text())["agents"]
    assert sorted(agents) == sorted(f"agent-{i}" for i in range(PARALLEL))
    assert acp_home.config_file.read_text().startswith("# agents added in parallel\n")


def test_settings_added_under_the_lock_round_trip(acp_home: Paths) -> None:
    agent = AgentConfig(command="x", args=["--acp"])
    edit_settings(acp_home.config_file, lambda s: replace(s, agents={"x": agent}))
    edit_settings(
        acp_home.config_file, lambda s: replace(s, agents={**s.agents, "y": replace(agent)})
    )
    agents = tomllib.loads(acp_home.config_file.read_text())["agents"]
    assert sorted(agents) == ["x", "y"]
