"""SVG snapshots of the "Add an agent" dialog: the list and a binary's table, the first-run
offer on a cached registry, a registry that cannot be read, and an agent that cannot run here.

The dialog is shown on its own (tests/app/dialog_host.py). Everything it shows lives at fixed
places: the registry is a file:// URL under ``/tmp/acp-snap-registry`` naming archives on an
address that is never contacted, ACP_TUI_HOME is fixed (the table shows paths under it), the
archives are built byte-for-byte the same each run (their checksums show), and the platform and
PATH are given to the dialog.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from acp_tui.config.paths import get_paths
from acp_tui.ui.dialogs.add_agent import AddAgentDialog
from tests.app.dialog_host import DialogHost
from tests.registry_helpers import fixture_archives, registry_json, write_file_registry
from tests.snapshots.test_browser_snapshots import Place, fixed_place
from tests.snapshots.test_chat_snapshots import Compare, settle, until

SIZE = (110, 44)
ARCHIVES = "https://downloads.example.invalid"


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with fixed_place("registry", monkeypatch) as fixed:
        yield fixed


def fixture_url(place: Place) -> str:
    return write_file_registry(place.root, registry_json(ARCHIVES, fixture_archives()))


def gone_url(place: Place) -> str:
    return (place.root / "gone.json").as_uri()


def dialog_of(pilot: Pilot[None]) -> AddAgentDialog:
    screen = pilot.app.screen
    assert isinstance(screen, AddAgentDialog)
    return screen


async def listed(pilot: Pilot[None], agent_id: str | None = None) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, AddAgentDialog))  # type: ignore[arg-type]
    dialog = dialog_of(pilot)
    options = dialog.query_one("#add-list", OptionList)
    await until(pilot, lambda: options.option_count > 0)  # type: ignore[arg-type]
    dialog.query_one("#add-filter", Input).cursor_blink = False
    if agent_id is not None:
        options.highlighted = next(i for i, e in enumerate(dialog.entries) if e.id == agent_id)
    await settle(pilot)  # type: ignore[arg-type]


def test_the_list_and_the_table_a_binary_writes(snap_compare: Compare, place: Place) -> None:
    app = DialogHost(fixture_url(place))

    async def run(pilot: Pilot[None]) -> None:
        await listed(pilot, "gamma")

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_the_first_run_offer_on_a_cached_registry(snap_compare: Compare, place: Place) -> None:
    url = gone_url(place)
    document = json.loads(registry_json(ARCHIVES, fixture_archives()))
    cache = get_paths().cache_dir
    cache.mkdir(parents=True)
    fetched_at = time.time() - 3 * 3600 - 60
    cached = {"url": url, "fetched_at": fetched_at, "registry": document}
    (cache / "registry.json").write_text(json.dumps(cached))
    app = DialogHost(url, first_run=True)

    async def run(pilot: Pilot[None]) -> None:
        await listed(pilot, "alpha")

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_a_registry_that_cannot_be_read(snap_compare: Compare, place: Place) -> None:
    app = DialogHost(gone_url(place))

    async def run(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(pilot.app.screen, AddAgentDialog))  # type: ignore[arg-type]
        dialog = dialog_of(pilot)
        dialog.query_one("#add-filter", Input).cursor_blink = False
        source = dialog.query_one("#add-source")
        await until(pilot, lambda: source.has_class("-stale"))  # type: ignore[arg-type]
        await settle(pilot)  # type: ignore[arg-type]

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_an_agent_that_cannot_run_here(snap_compare: Compare, place: Place) -> None:
    app = DialogHost(fixture_url(place))

    async def run(pilot: Pilot[None]) -> None:
        await listed(pilot, "windows-only")

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
