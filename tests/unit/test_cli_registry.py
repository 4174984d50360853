"""`acp-tui agents search`, `add --from-registry` and `upgrade`, against a loopback registry."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import acp_tui.commands.agent_registry as agent_registry
from acp_tui.commands.agents import agents_command
from acp_tui.config.paths import Paths
from acp_tui.config.settings import DEFAULT_REGISTRY_URL, load_settings
from acp_tui.registry.fetch import RegistryView, load_registry
from tests.registry_helpers import PLATFORM, RegistryServer, serve_fixture, with_version


class Terminal(io.StringIO):
    """Standard input that is a terminal, with the user's answers typed in advance."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def server(acp_home: Paths, monkeypatch: pytest.MonkeyPatch) -> Iterator[RegistryServer]:
    """The registry fixture on loopback, named by the config; this machine is linux-x86_64."""
    monkeypatch.setattr(agent_registry, "current_platform", lambda: PLATFORM)
    monkeypatch.setattr(
        agent_registry, "WHICH", lambda name: "/usr/bin/npx" if name == "npx" else None
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # not a terminal unless a test says so
    with serve_fixture() as state:
        acp_home.config_dir.mkdir(parents=True)
        acp_home.config_file.write_text(f'# mine\nregistry_url = "{state.url}"\n')
        yield state


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = agents_command(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def config(paths: Paths) -> dict[str, object]:
    return tomllib.loads(paths.config_file.read_text())


def test_search_lists_the_registry_with_kinds_and_launchers(
    server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "search")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "VERSION", "RUNS", "WITH", "NAME:", "DESCRIPTION"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) == {
        "alpha", "bad-checksum", "beta", "delta", "escapes", "gamma", "half-way", "traversal",
        "windows-only",
    }  # fmt: skip
    assert "npx  " in rows["alpha"]
    assert "uvx (not on PATH)" in rows["beta"]
    assert "npx, binary" in rows["delta"]
    assert "binary (none for linux-x86_64)" in rows["windows-only"]
    assert "Gamma Agent: A binary agent in a .tar.gz" in rows["gamma"]
    assert "\x1b" not in out  # the entry's escape sequences are not live
    assert f"Registry: {server.url}" in err
    assert "5 registry entries skipped as unusable:" in err
    assert "entry 10 (no-description): missing description" in err


def test_search_filters_by_text(server: RegistryServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", "UVX")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["beta"]
    code, out, err = run(capsys, "search", "nothing-like-this")
    assert (code, out) == (0, "")
    assert "no agent in the registry matches 'nothing-like-this'" in err


def test_search_offline_uses_the_cache_and_says_how_old(
    acp_home: Paths, server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "search")
    cache = acp_home.cache_dir / "registry.json"
    cached = json.loads(cache.read_bytes())
    cached["fetched_at"] -= 2 * 86400 + 5
    cache.write_text(json.dumps(cached))
    server.files.clear()  # the registry is gone: 404
    code, out, err = run(capsys, "search", "gamma")
    assert code == 0
    assert "gamma" in out
    assert "Using the copy cached 2 days ago" in err
    assert "HTTP 404" in err


def test_search_without_registry_or_cache_is_one_error_line(
    acp_home: Paths, server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.files["/registry.json"] = b"not json at all"
    code, out, err = run(capsys, "search")
    assert code == 1
    assert out == ""
    assert err.splitlines() == [
        f"acp-tui agents: error: cannot read the agent registry: the registry at {server.url} "
        "cannot be read: not JSON (Expecting value: line 1 column 1 (char 0)); and there is no "
        "cached copy"
    ]


def test_add_shows_the_table_and_needs_yes_without_a_terminal(
    acp_home: Paths, server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    before = acp_home.config_file.read_text()
    code, out, err = run(capsys, "add", "--from-registry", "alpha")
    assert code == 2
    assert "[agents.alpha]" in out
    assert 'command = "npx"' in out
    assert "add --yes to add it without asking" in err
    assert acp_home.config_file.read_text() == before


def test_add_from_registry_writes_npx_uvx_and_binary_tables(
    acp_home: Paths, server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "add", "--from-registry", "alpha", "--yes", "--default")[0] == 0
    assert run(capsys, "add", "b", "--from-registry", "beta", "--yes", "--env", "K=v")[0] == 0
    code, out, err = run(capsys, "add", "--from-registry", "gamma", "--yes")
    assert code == 0, err
    assert "download: http://127.0.0.1" in out
    size = len(server.files["/gamma-1.0.0.tar.gz"])
    assert f"downloading ({size} bytes)..." in err  # progress, on a non-terminal: start, end
    assert f"downloaded {size} bytes" in err
    assert "start it with: acp-tui -a gamma" in out
    data = config(acp_home)
    assert acp_home.config_file.read_text().startswith("# mine\n")
    assert data["default_agent"] == "alpha"
    agents = data["agents"]
    assert isinstance(agents, dict)
    assert agents["alpha"]["args"] == ["-y", "@example/alpha-acp@1.2.3", "--acp"]
    assert agents["b"]["command"] == "uvx"
    assert agents["b"]["env"] == {"K": "v"}
    assert agents["b"]["registry_id"] == "beta"
    gamma = agents["gamma"]
    assert gamma["command"] == str(acp_home.data_dir / "agents/gamma/1.0.0/bin/gamma")
    assert os.access(gamma["command"], os.X_OK)
    assert (gamma["registry_version"], gamma["registry_distribution"]) == ("1.0.0", "binary")
    assert load_settings(acp_home.config_file).problems == []
    code, out, _ = run(capsys, "list")
    assert "gamma (registry gamma 1.0.0): " in out


def test_the_terminal_prompt_adds_or_changes_nothing(
    acp_home: Paths,
    server: RegistryServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    assert run(capsys, "add", "--from-registry", "delta")[0] == 1
    assert "agents" not in config(acp_home)
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    code, out, _ = run(capsys, "add", "--from-registry", "delta", "--distribution", "binary")
    assert code == 0
    assert "Add 'delta'? [y/N] " in out
    assert config(acp_home)["agents"]["delta"]["registry_distribution"] == "binary"  # type: ignore[index]


def test_a_clashing_name_asks_before_replacing(
    acp_home: Paths,
    server: RegistryServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert agents_command(["add", "alpha", "--", "my-alpha"]) == 0
    code, _, err = run(capsys, "add", "--from-registry", "alpha", "--yes")
    assert code == 2
    assert "an agent named 'alpha' already exists; add --replace" in err
    monkeypatch.setattr(sys, "stdin", Terminal("no\n"))
    code, out, _ = run(capsys, "add", "--from-registry", "alpha")
    assert code == 1
    assert "Replace the agent 'alpha' (my-alpha)? [y/N] " in out
    assert config(acp_home)["agents"]["alpha"]["command"] == "my-alpha"  # type: ignore[index]
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    assert run(capsys, "add", "--from-registry", "alpha")[0] == 0
    assert config(acp_home)["agents"]["alpha"]["command"] == "npx"  # type: ignore[index]
    assert run(capsys, "add", "--from-registry", "alpha", "--replace", "--yes")[0] == 0


@pytest.mark.parametrize(
    ("agent_id", "message"),
    [
        ("bad-checksum", "checksum mismatch"),
        ("half-way", "the download stopped after"),
        ("traversal", "refused: the member '../escaped' is absolute or goes up with '..'"),
        ("windows-only", "no build for this platform (linux-x86_64); it has windows-x86_64"),
        ("no-description", "is in the registry but cannot be used: entry 10 (no-description)"),
        ("nope", "no agent 'nope' in the registry"),
    ],
)
def test_a_failed_add_changes_nothing(
    acp_home: Paths,
    server: RegistryServer,
    capsys: pytest.CaptureFixture[str],
    agent_id: str,
    message: str,
) -> None:
    assert agents_command(["add", agent_id, "--", "old-command"]) == 0
    before = acp_home.config_file.read_text()
    code, _, err = run(capsys, "add", "--from-registry", agent_id, "--yes", "--replace")
    assert code == 1
    assert message in err
    assert acp_home.config_file.read_text() == before
    assert not (acp_home.data_dir / "agents" / agent_id).exists() or not any(
        (acp_home.data_dir / "agents" / agent_id).iterdir()
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", "--from-registry", "demo", "--yes"], "bundled demo agent's name"),
        (["add", "--from-registry", "alpha", "--", "x"], "either --from-registry ID or -- COMMAND"),
        (["add", "x", "--yes", "--", "x"], "only used with --from-registry"),
        (["add", "--from-registry", "alpha", "--distribution", "docker"], "invalid choice"),
        (["add", "--", "x"], "required: NAME"),
        (["search", "--", "x"], "only used with 'add'"),
        (["upgrade", "nope"], "no agent named 'nope'"),
    ],
)
def test_usage_errors(
    server: RegistryServer, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert message in err


def test_upgrade_moves_agents_to_the_registrys_version(
    acp_home: Paths, server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    for agent_id in ("alpha", "gamma"):
        assert run(capsys, "add", "--from-registry", agent_id, "--yes")[0] == 0
    assert run(capsys, "add", "mine", "--", "mine")[0] == 0
    code, out, _ = run(capsys, "upgrade")
    assert code == 0
    assert out.splitlines() == ["alpha: up to date (1.2.3)", "gamma: up to date (1.0.0)"]
    document = with_version(server.files["/registry.json"], "gamma", "1.1.0")
    server.files["/registry.json"] = with_version(document, "alpha", "1.3.0")
    code, out, _ = run(capsys, "upgrade", "--dry-run")
    assert code == 0
    assert "alpha: 1.2.3 -> 1.3.0" in out
    assert "  new command: npx -y @example/alpha-acp@1.3.0 --acp" in out
    assert "gamma: 1.0.0 -> 1.1.0" in out
    assert config(acp_home)["agents"]["alpha"]["registry_version"] == "1.2.3"  # type: ignore[index]
    code, out, err = run(capsys, "upgrade", "gamma")
    assert code == 2
    assert "add --yes to upgrade without asking" in err
    code, out, err = run(capsys, "upgrade", "--yes")
    assert code == 0, err
    assert "upgraded 'alpha' to 1.3.0" in out
    assert "upgraded 'gamma' to 1.1.0" in out
    agents = config(acp_home)["agents"]
    assert isinstance(agents, dict)
    assert agents["alpha"]["args"][1] == "@example/alpha-acp@1.3.0"
    assert agents["gamma"]["command"].endswith("/gamma/1.1.0/bin/gamma")
    assert agents["mine"] == {"command": "mine"}
    assert sorted(p.name for p in (acp_home.data_dir / "agents" / "gamma").iterdir()) == ["1.1.0"]


def test_a_failed_upgrade_keeps_the_old_version(
    acp_home: Paths, server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "add", "--from-registry", "gamma", "--yes")[0] == 0
    before = acp_home.config_file.read_text()
    server.files["/registry.json"] = with_version(
        server.files["/registry.json"], "gamma", "2.0.0", archive=f"{server.base}/missing.tar.gz"
    )
    code, _, err = run(capsys, "upgrade", "--yes")
    assert code == 1
    assert "acp-tui agents: error: gamma: " in err
    assert "missing.tar.gz answered HTTP 404 Not Found; nothing was changed" in err
    assert acp_home.config_file.read_text() == before
    assert [p.name for p in (acp_home.data_dir / "agents" / "gamma").iterdir()] == ["1.0.0"]


def test_remove_also_removes_a_downloaded_binary(
    acp_home: Paths, server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "add", "--from-registry", "gamma", "--yes")[0] == 0
    code, out, _ = run(capsys, "remove", "gamma")
    assert code == 0
    assert "and its downloaded files" in out
    assert not (acp_home.data_dir / "agents" / "gamma").exists()


def test_registry_commands_never_import_textual_or_rich(tmp_path: Path) -> None:
    code = (
        "import contextlib, io, sys\n"
        "from acp_tui.cli import main\n"
        "for argv in (['agents', 'search'], ['agents', 'upgrade'],"
        " ['agents', 'add', '--from-registry', 'x', '--yes']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()),"
        " contextlib.redirect_stderr(io.StringIO()):\n"
        "        main(argv)\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]\n"
        "print(','.join(sorted(loaded)))\n"
    )
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('registry_url = "file:///nonexistent.json"\n')
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "ACP_TUI_HOME": str(home)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_download_progress_on_a_terminal_redraws_one_line() -> None:
    stream = Terminal()
    progress = agent_registry.DownloadProgress(stream)
    for done in (0, 200_000, 500_000, 500_001, 1_000_000):
        progress(done, 1_000_000)
    progress.finish()
    assert stream.getvalue() == (
        "\rdownloading: 0% of 1.0 MB   \rdownloading: 20% of 1.0 MB   "
        "\rdownloading: 50% of 1.0 MB   \rdownloading: 100% of 1.0 MB   \n"
        "downloaded 1.0 MB\n"
    )


def test_search_with_a_broken_config_warns_and_uses_the_default_url(
    acp_home: Paths,
    server: RegistryServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    def load(url: str, cache_dir: Path) -> RegistryView:
        asked.append(url)  # the default URL is never fetched in a test: serve the fixture
        return load_registry(server.url, cache_dir)

    monkeypatch.setattr(agent_registry, "load_registry", load)
    acp_home.config_file.write_text(f'registry_url = "{server.url}"\ntheme = 5\n')
    code, out, err = run(capsys, "search", "gamma")
    assert code == 0
    assert "gamma" in out
    assert "acp-tui: warning: " in err
    assert "theme: expected a valid string" in err
    assert asked == [DEFAULT_REGISTRY_URL]
