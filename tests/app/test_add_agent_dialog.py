"""The "Add an agent" dialog, on its own in a bare app, against a loopback or file:// registry."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Static

from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings, save_settings
from acp_tui.registry.fetch import load_registry
from acp_tui.ui.dialogs.add_agent import AddAgentDialog, AddedAgent
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from tests.app.dialog_host import RESULT_UNSET, DialogHost
from tests.app.helpers import wait_for, wait_for_screen
from tests.registry_helpers import (
    RegistryServer,
    closed_port_url,
    fixture_archives,
    registry_json,
    serve_fixture,
    write_file_registry,
)

SIZE = (110, 44)


@pytest.fixture
def server() -> Iterator[RegistryServer]:
    with serve_fixture() as state:
        yield state


def text_of(dialog: AddAgentDialog, selector: str) -> str:
    return str(dialog.query_one(selector, Static).render())


async def listed(pilot: Pilot[None]) -> AddAgentDialog:
    """The dialog, once its list is filled."""
    dialog = await wait_for_screen(pilot, AddAgentDialog)
    options = dialog.query_one("#add-list", OptionList)
    await wait_for(pilot, lambda: options.option_count > 0)
    return dialog


async def highlight(pilot: Pilot[None], dialog: AddAgentDialog, agent_id: str) -> None:
    options = dialog.query_one("#add-list", OptionList)
    index = next(i for i, e in enumerate(dialog.entries) if e.id == agent_id)
    options.highlighted = index
    options.focus()
    await wait_for(pilot, lambda: dialog.plan is None or dialog.plan.entry.id == agent_id)
    await pilot.pause()


def agents_in(paths: Paths) -> dict[str, object]:
    if not paths.config_file.exists():
        return {}
    agents = tomllib.loads(paths.config_file.read_text()).get("agents", {})
    assert isinstance(agents, dict)
    return agents


async def test_the_list_shows_name_version_and_how_each_runs(server: RegistryServer) -> None:
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        options = dialog.query_one("#add-list", OptionList)
        rows = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert rows == [
            "Alpha Agent  1.2.3  npx",
            "Bad Checksum  1.0.0  binary",
            "Beta Agent  0.4.0  uvx (not on PATH)",
            "Delta Agent  2.0.0  npx, binary",
            "Escapes\u241b[31m Agent  1.0.0  npx",
            "Gamma Agent  1.0.0  binary",
            "Half Way  1.0.0  binary",
            "Traversal  0.0.1  binary",
            "Windows Only  0.1.0  binary (none for linux-x86_64)",
        ]
        source = text_of(dialog, "#add-source")
        assert source == f"Registry: {server.url}  (5 unusable entries skipped)"


async def test_the_detail_shows_the_table_that_add_writes(
    server: RegistryServer, acp_home: Paths
) -> None:
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        await highlight(pilot, dialog, "gamma")
        table = text_of(dialog, "#detail-table")
        command = acp_home.data_dir / "agents" / "gamma" / "1.0.0" / "bin" / "gamma"
        assert f"Add writes this to {acp_home.config_file}:" in table
        assert "[agents.gamma]" in table
        assert f'command = "{command}"' in table
        assert 'registry_version = "1.0.0"' in table
        download = text_of(dialog, "#detail-download")
        assert f"Downloads {server.base}/gamma-1.0.0.tar.gz (sha256 " in download
        assert "Runs with binary for linux-x86_64" in text_of(dialog, "#detail-runs")
        # Delta runs with npx (on PATH) or its binary: d switches, and the table follows.
        await highlight(pilot, dialog, "delta")
        assert "(d: use binary instead)" in text_of(dialog, "#detail-runs")
        assert "Ignored, unknown to acp-tui: docker" in text_of(dialog, "#detail-runs")
        assert 'command = "npx"' in text_of(dialog, "#detail-table")
        await pilot.press("d")
        await wait_for(pilot, lambda: dialog.plan is not None and dialog.plan.kind == "binary")
        assert "delta/2.0.0/delta" in text_of(dialog, "#detail-table")


async def test_the_filter_narrows_the_list(server: RegistryServer) -> None:
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        dialog.query_one("#add-filter", Input).focus()
        await pilot.press(*"uvx")
        options = dialog.query_one("#add-list", OptionList)
        await wait_for(pilot, lambda: options.option_count == 1)
        assert [e.id for e in dialog.entries] == ["beta"]
        await pilot.press("enter")  # to the list
        assert options.has_focus


async def test_an_entry_that_cannot_run_here_says_why_and_cannot_be_added(
    server: RegistryServer,
) -> None:
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        await highlight(pilot, dialog, "windows-only")
        error = text_of(dialog, "#detail-error")
        assert error.startswith("Cannot be added here: 'windows-only' cannot run here")
        assert dialog.query_one("#add-confirm", Button).disabled
        await pilot.press("enter")
        assert app.result is RESULT_UNSET


async def test_enter_adds_an_npx_agent(server: RegistryServer, acp_home: Paths) -> None:
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        await highlight(pilot, dialog, "alpha")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.result is not RESULT_UNSET)
    assert app.result == AddedAgent("alpha", "Alpha Agent", acp_home.config_file)
    alpha = agents_in(acp_home)["alpha"]
    assert isinstance(alpha, dict)
    assert alpha["args"] == ["-y", "@example/alpha-acp@1.2.3", "--acp"]


async def test_add_downloads_a_binary_with_progress(
    server: RegistryServer, acp_home: Paths
) -> None:
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        await highlight(pilot, dialog, "gamma")
        await pilot.click("#add-confirm")
        await wait_for(pilot, lambda: app.result is not RESULT_UNSET)
    gamma = agents_in(acp_home)["gamma"]
    assert isinstance(gamma, dict)
    assert os.access(gamma["command"], os.X_OK)
    assert "/gamma-1.0.0.tar.gz" in server.requests


@pytest.mark.parametrize(
    ("agent_id", "message"),
    [
        ("bad-checksum", "Not added: checksum mismatch: expected sha256 0000"),
        ("half-way", "Not added: the download stopped after"),
        ("traversal", "Not added: refused: the member '../escaped' is absolute or goes up"),
    ],
)
async def test_a_failed_download_is_shown_and_changes_nothing(
    server: RegistryServer, acp_home: Paths, agent_id: str, message: str
) -> None:
    save_settings(Settings(agents={agent_id: AgentConfig(command="old")}), acp_home.config_file)
    before = acp_home.config_file.read_text()
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        await highlight(pilot, dialog, agent_id)
        await pilot.press("enter")
        confirm = await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_for_screen(pilot, AddAgentDialog)
        await wait_for(pilot, lambda: message in text_of(dialog, "#add-status"))
        assert text_of(dialog, "#add-status").endswith("Nothing was changed.")
        assert dialog.query_one("#add-status").has_class("-error")
        assert not dialog.query_one("#add-confirm", Button).disabled  # can try again
        assert confirm.question == f"Replace the agent {agent_id!r} with {dialog.plan.entry.name}?"  # type: ignore[union-attr]
    assert app.result is RESULT_UNSET
    assert acp_home.config_file.read_text() == before


async def test_a_clashing_name_asks_before_replacing(
    server: RegistryServer, acp_home: Paths
) -> None:
    save_settings(Settings(agents={"alpha": AgentConfig(command="mine")}), acp_home.config_file)
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        await highlight(pilot, dialog, "alpha")
        await pilot.press("enter")
        confirm = await wait_for_screen(pilot, ConfirmDialog)
        assert confirm.items == ["now: mine"]
        await pilot.press("n")
        await wait_for_screen(pilot, AddAgentDialog)
        assert agents_in(acp_home)["alpha"]["command"] == "mine"  # type: ignore[index]
        await pilot.press("enter")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_for(pilot, lambda: app.result is not RESULT_UNSET)
    alpha = agents_in(acp_home)["alpha"]
    assert isinstance(alpha, dict)
    assert alpha["command"] == "npx"


async def test_offline_the_cached_registry_is_listed_with_its_age(
    server: RegistryServer, acp_home: Paths
) -> None:
    load_registry(server.url, acp_home.cache_dir)
    cache = acp_home.cache_dir / "registry.json"
    cached = json.loads(cache.read_bytes())
    cached["fetched_at"] -= 3 * 3600 + 60
    cache.write_text(json.dumps(cached))
    server.files.pop("/registry.json")
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        source = text_of(dialog, "#add-source")
        assert source.startswith("Using the copy cached 3 hours ago: could not refresh it (")
        assert "HTTP 404" in source
        assert dialog.query_one("#add-source").has_class("-stale")


async def test_no_registry_and_no_cache_is_a_clear_message() -> None:
    url = closed_port_url()
    app = DialogHost(url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await wait_for_screen(pilot, AddAgentDialog)
        await wait_for(pilot, lambda: "Cannot read" in text_of(dialog, "#add-source"))
        assert text_of(dialog, "#add-source").startswith(
            f"Cannot read the agent registry: cannot reach {url}: "
        )
        assert "no cached copy" in text_of(dialog, "#add-source")
        assert dialog.query_one("#add-confirm", Button).disabled
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.result is None)


async def test_the_first_run_offer_keeps_the_demo_agent(tmp_path: Path) -> None:
    url = write_file_registry(tmp_path, registry_json("https://x.invalid", fixture_archives()))
    app = DialogHost(url, first_run=True)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        assert text_of(dialog, "#add-title") == "No agent is configured yet"
        assert str(dialog.query_one("#add-cancel", Button).label) == "Keep using the demo agent"
        await pilot.click("#add-cancel")
        await wait_for(pilot, lambda: app.result is None)


async def test_escape_during_a_download_stops_it_and_changes_nothing(
    server: RegistryServer, acp_home: Paths, monkeypatch: pytest.MonkeyPatch
) -> None:
    import acp_tui.ui.dialogs.add_agent as add_agent

    dialogs: list[AddAgentDialog] = []
    reached_the_end = []

    def slow_install(plan: object, config_file: Path, **options: object) -> None:
        progress = options["progress"]
        assert callable(progress)
        progress(0, 100)
        assert dialogs[0].cancel_install.wait(timeout=15)
        progress(50, 100)  # the next chunk: raises, since the user left
        reached_the_end.append(True)

    monkeypatch.setattr(add_agent, "install_agent", slow_install)
    app = DialogHost(server.url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await listed(pilot)
        dialogs.append(dialog)
        await highlight(pilot, dialog, "gamma")
        await pilot.press("enter")
        progress_bar = dialog.query_one("#add-progress")
        await wait_for(pilot, lambda: progress_bar.has_class("-shown"))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.result is None)
    assert reached_the_end == []
    assert agents_in(acp_home) == {}


async def test_an_unreadable_registry_shows_the_whole_error_and_retry_reads_it_again(
    tmp_path: Path,
) -> None:
    """First run at 80x24, offline: the error is shown whole (the empty list and detail make
    way for it), and Retry reads the registry again once it can be read."""
    url = (tmp_path / "registry.json").as_uri()
    app = DialogHost(url, first_run=True)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await wait_for_screen(pilot, AddAgentDialog)
        source = dialog.query_one("#add-source", Static)
        await wait_for(pilot, lambda: source.has_class("-stale"))
        await pilot.pause()
        retry = dialog.query_one("#add-retry", Button)
        screen_region = dialog.screen.region
        for widget in (source, retry, dialog.query_one("#add-status", Static)):
            geometry = dialog.find_widget(widget)
            assert geometry.clip.contains_region(geometry.region), widget  # whole, not cut
        assert screen_region.contains_region(retry.region)
        assert "Cannot read the agent registry" in text_of(dialog, "#add-source")
        assert "Retry" in text_of(dialog, "#add-status")
        write_file_registry(tmp_path, registry_json("https://x.invalid", fixture_archives()))
        await pilot.click("#add-retry")
        options = dialog.query_one("#add-list", OptionList)
        await wait_for(pilot, lambda: options.option_count > 0)
        assert not retry.display or not retry.region.area
        assert "Cannot read" not in text_of(dialog, "#add-source")
