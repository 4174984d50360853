"""`--add-dir DIR`: checked before anything starts, appended after the configured roots."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from acp_tui.cli import main
from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.config.paths import Paths


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[LaunchSpec]:
    """Replace the Textual app with a recorder, so main() can be run in-process."""
    calls: list[LaunchSpec] = []

    def run_app(launch: LaunchSpec) -> int:
        calls.append(launch)
        return 7

    fake = types.ModuleType("acp_tui.ui.app")
    fake.run_app = run_app  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "acp_tui.ui.app", fake)
    return calls


@pytest.fixture
def places(tmp_path: Path) -> Path:
    for name in ("proj", "lib", "docs"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("a file")
    return tmp_path


def test_add_dir_is_repeatable_and_absolute(launched: list[LaunchSpec], places: Path) -> None:
    proj = places / "proj"
    assert main([str(proj), "--add-dir", "../lib", "--add-dir", f"{places}/docs/"]) == 7
    [spec] = launched
    assert spec.cwd == proj
    assert spec.additional_directories == (places / "lib", places / "docs")


def test_add_dir_comes_after_the_configured_roots_without_duplicates(
    launched: list[LaunchSpec], places: Path, acp_home: Paths
) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text(
        '[agents.alpha]\ncommand = "alpha"\nadditional_directories = ["../lib"]\n'
    )
    assert main([str(places / "proj"), "--add-dir", "../docs", "--add-dir", "../lib"]) == 7
    [spec] = launched
    assert spec.display_name == "alpha"
    assert spec.additional_directories == (places / "lib", places / "docs")


def test_each_refused_add_dir_is_reported_and_nothing_starts(
    launched: list[LaunchSpec], places: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proj = places / "proj"
    args = [str(proj), "--add-dir", "../lib", "--add-dir", "../nowhere"]
    args += ["--add-dir", "../notes.txt", "--add-dir", ".", "--add-dir", "../lib", "--add-dir", ""]
    assert main(args) == 2
    assert launched == []
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "acp-tui: error: --add-dir '../nowhere': does not exist",
        "acp-tui: error: --add-dir '../notes.txt': is a file, not a directory",
        "acp-tui: error: --add-dir '.': is the session's working directory, "
        "which is always the first root",
        "acp-tui: error: --add-dir '../lib': is listed twice",
        "acp-tui: error: --add-dir '': empty path",
    ]


def test_help_mentions_add_dir(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--add-dir DIR" in out
    assert out.startswith("usage: acp-tui [DIR] [-a NAME | -- COMMAND ARGS...] [--add-dir DIR]")
