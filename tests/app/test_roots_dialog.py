"""The roots dialog: choose, check, reorder and trim extra roots; honest when unsupported."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Static

from acp_tui.client.errors import Unsupported
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.roots import RootsDialog, RootsResult
from acp_tui.ui.widgets.root_list import RootList
from acp_tui.ui.widgets.root_tree import RootTree
from tests.app.helpers import wait_for

Results = list[RootsResult | None]


class Host(App[int]):
    pass


@pytest.fixture
def places(tmp_path: Path) -> Path:
    """``proj`` (the cwd) beside ``lib``, ``lib/sub``, ``docs`` and a file."""
    for name in ("proj", "lib", "lib/sub", "docs"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("a file")
    return tmp_path


async def open_dialog(pilot: Pilot[Any], dialog: RootsDialog) -> Results:
    results: Results = []
    pilot.app.push_screen(dialog, callback=results.append)
    await wait_for(pilot, lambda: dialog.is_current and dialog.focused is not None)
    return results


def message(dialog: RootsDialog) -> str:
    return str(dialog.query_one("#roots-message", Static).render())


def listed(dialog: RootsDialog) -> tuple[str, ...]:
    return dialog.entries


def labels(widget: OptionList) -> list[str]:
    return [str(widget.get_option_at_index(i).prompt) for i in range(widget.option_count)]


# -- choosing ---------------------------------------------------------------------------------


async def test_typed_roots_are_added_in_absolute_form_and_returned_in_order(
    places: Path,
) -> None:
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", supported=True)
        results = await open_dialog(pilot, dialog)
        assert isinstance(dialog.focused, Input)
        await pilot.press(*"../lib", "enter")
        await pilot.press(*"~/x", "backspace", "backspace", "backspace")
        await pilot.press(*f"{places}/docs/", "enter")
        assert listed(dialog) == (str(places / "lib"), str(places / "docs"))
        assert dialog.query_one(Input).value == ""
        await pilot.click("#roots-ok")
        await wait_for(pilot, lambda: bool(results))
        assert results == [RootsResult((places / "lib", places / "docs"))]


async def test_bad_entries_are_not_added_and_say_why(places: Path) -> None:
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", [places / "lib"], supported=True)
        await open_dialog(pilot, dialog)
        cases = {
            "../nowhere": "does not exist",
            "../notes.txt": "is a file, not a directory",
            ".": "working directory",
            "../lib/": "is listed twice",
        }
        for typed, reason in cases.items():
            dialog.query_one(Input).value = typed
            await pilot.press("enter")
            assert reason in message(dialog), typed
            assert "Not added" in message(dialog)
            assert dialog.query_one("#roots-message").has_class("-error")
            assert listed(dialog) == (str(places / "lib"),)
            assert dialog.query_one(Input).value == typed  # kept, to be fixed
        dialog.query_one(Input).value = "  "
        await pilot.press("enter")
        assert "empty path" in message(dialog)


async def test_enter_with_nothing_typed_opens_the_session(places: Path) -> None:
    """A new session without extra roots is Ctrl+N, Enter (it took about ten Tabs)."""
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", supported=True)
        results = await open_dialog(pilot, dialog)
        assert dialog.query_one(Input).has_focus
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(results))
        result = results[0]
        assert result is not None
        assert result.roots == ()
        assert not result.proceed_without


async def test_tab_completes_the_folder_name(places: Path) -> None:
    (places / "docs-old").mkdir()
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", supported=True)
        await open_dialog(pilot, dialog)
        path_input = dialog.query_one(Input)
        await pilot.press(*"../li", "tab")
        assert path_input.value == "../lib/"
        assert path_input.has_focus
        await pilot.press("ctrl+u", *"../do", "tab")
        assert path_input.value == "../docs"
        assert "docs/  docs-old/" in message(dialog)
        assert path_input.has_focus  # still ambiguous: stay
        await pilot.press(*"-o", "tab")
        assert path_input.value == "../docs-old/"
        await pilot.press("enter")
        assert listed(dialog) == (str(places / "docs-old"),)
        await pilot.press("tab")  # empty: Tab moves the focus on as usual
        assert not path_input.has_focus


async def test_entries_are_reordered_and_removed(places: Path) -> None:
    app = Host()
    a, b, c = places / "lib", places / "docs", places / "lib" / "sub"
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", [a, b, c], supported=True)
        results = await open_dialog(pilot, dialog)
        root_list = dialog.query_one(RootList)
        root_list.focus()
        root_list.highlighted = 2
        await pilot.press("ctrl+up")
        assert listed(dialog) == (str(a), str(c), str(b))
        assert root_list.highlighted == 1
        await pilot.press("ctrl+up", "ctrl+up")  # already first: stays
        assert listed(dialog) == (str(c), str(a), str(b))
        await pilot.press("ctrl+down")
        assert listed(dialog) == (str(a), str(c), str(b))
        await pilot.press("delete")
        assert listed(dialog) == (str(a), str(b))
        await pilot.click("#roots-up")
        assert listed(dialog) == (str(b), str(a))
        await pilot.click("#roots-remove")
        assert listed(dialog) == (str(a),)
        root_list.focus()  # (a Button ignores a second click within its 0.2 s press effect)
        await pilot.press("delete")
        assert listed(dialog) == ()
        assert "No extra roots" in labels(root_list)[0]
        await pilot.click("#roots-ok")
        await wait_for(pilot, lambda: bool(results))
        assert results == [RootsResult(())]


async def test_nested_roots_get_a_note(places: Path) -> None:
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", [places / "lib"], supported=True)
        await open_dialog(pilot, dialog)
        notes = dialog.query_one("#roots-notes", Static)
        assert str(notes.render()) == ""
        dialog.add_entry(str(places / "lib" / "sub"))
        await pilot.pause()
        assert f"{places / 'lib' / 'sub'} is inside {places / 'lib'}: order matters" in str(
            notes.render()
        )


async def test_prefilled_roots_that_went_bad_block_confirmation_until_removed(
    places: Path,
) -> None:
    gone = places / "gone"
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", [places / "lib", gone], supported=True)
        results = await open_dialog(pilot, dialog)
        root_list = dialog.query_one(RootList)
        shown = labels(root_list)
        assert shown[0] == f"1. {places / 'lib'}"
        assert shown[1] == f"2. {gone}\n   ✗ does not exist"
        await pilot.click("#roots-ok")
        await pilot.pause()
        assert not results
        assert "1 entry is refused" in message(dialog)
        root_list.focus()
        root_list.highlighted = 1
        await pilot.press("delete")
        # A button takes no click while it shows the last one (Textual's active effect).
        ok = dialog.query_one("#roots-ok", Button)
        await wait_for(pilot, lambda: not ok.has_class("-active"))
        await pilot.click("#roots-ok")
        await wait_for(pilot, lambda: bool(results))
        assert results == [RootsResult((places / "lib",))]


async def test_recent_roots_are_offered_and_added(places: Path) -> None:
    app = Host()
    recent = [places / "lib", places / "docs", places / "gone"]
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", [places / "lib"], recent, supported=True)
        await open_dialog(pilot, dialog)
        offered = dialog.query_one("#roots-recent", OptionList)
        assert labels(offered) == [str(places / "docs"), f"{places / 'gone'}  (missing)"]
        offered.focus()
        offered.highlighted = 1
        await pilot.press("enter")  # a missing recent root is refused, with its reason
        assert "does not exist" in message(dialog)
        offered.highlighted = 0
        await pilot.press("enter")
        assert listed(dialog) == (str(places / "lib"), str(places / "docs"))
        assert "None yet." in labels(offered)[0] or labels(offered) == [
            f"{places / 'gone'}  (missing)"
        ]


async def test_the_tree_browses_and_adds_directories(places: Path) -> None:
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", supported=True)
        await open_dialog(pilot, dialog)
        tree = dialog.query_one(RootTree)
        await wait_for(pilot, lambda: len(tree.root.children) > 0)
        names = [str(node.label) for node in tree.root.children]
        assert names == ["docs", "lib", "proj"]  # directories only, no notes.txt
        tree.focus()
        tree.move_cursor(tree.root.children[1])
        await pilot.press("a")
        await wait_for(pilot, lambda: bool(dialog.entries))
        assert listed(dialog) == (str(places / "lib"),)
        tree.move_cursor(tree.root.children[0])
        await pilot.press("enter")
        await wait_for(pilot, lambda: dialog.query_one(Input).value == str(places / "docs"))
        await pilot.press("backspace")  # up one folder
        await wait_for(pilot, lambda: Path(tree.path) == places.parent)


async def test_escape_cancels(places: Path) -> None:
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        results = await open_dialog(pilot, RootsDialog(places / "proj", supported=True))
        await pilot.press("g", "c")  # typed into the path, not the unsupported-mode answers
        assert not results
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(results))
        assert results == [None]


# -- not supported ----------------------------------------------------------------------------

REASON = "Demo agent does not support additional workspace roots (additionalDirectories)"


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("#roots-without", RootsResult((), proceed_without=True)),
        ("#roots-cancel", None),
        ("g", RootsResult((), proceed_without=True)),
        ("c", None),
        ("escape", None),
        ("enter", None),  # Cancel has the focus
    ],
)
async def test_unsupported_offers_exactly_two_ways_out(
    places: Path, how: str, expected: RootsResult | None
) -> None:
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(places / "proj", [places / "lib"], supported=False, reason=REASON)
        results = await open_dialog(pilot, dialog)
        assert REASON in str(dialog.query_one("#roots-reason", Static).render())
        assert {b.id for b in dialog.query(Button)} == {"roots-without", "roots-cancel"}
        assert not dialog.query(Input)
        assert not dialog.query(RootTree)
        text = " ".join(str(s.render()) for s in dialog.query(Static))
        assert str(places / "lib") in text  # what would be left out is shown
        if how.startswith("#"):
            await pilot.click(how)
        else:
            await pilot.press(how)
        await wait_for(pilot, lambda: bool(results))
        assert results == [expected]


# -- a huge folder ----------------------------------------------------------------------------

BIG = 50_000


SHM = Path("/dev/shm")


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder holding 50,000 directories (removed afterwards: pytest keeps old temp dirs).

    In memory where there is a tmpfs: on a disk, removing 50,000 directories takes 25 s on
    a quiet machine and over a minute on a busy one; in memory, a second or two.
    """
    if SHM.is_dir() and os.access(SHM, os.W_OK):
        base = Path(tempfile.mkdtemp(prefix="acp-tui-huge-", dir=SHM))
    else:
        base = tmp_path_factory.mktemp("huge")
    big = base / "big"
    big.mkdir()
    for i in range(BIG):
        os.mkdir(big / f"d{i:05}")
    (base / "proj").mkdir()
    yield base
    shutil.rmtree(base, ignore_errors=True)


KEY_BOUND = 2.0
"""Seconds within which each key must be handled while the folder loads (a plain
DirectoryTree blocks the app for the whole time it builds 50,000 nodes: ~2.8 s here)."""


async def type_char(app: App[Any], path_input: Input, char: str) -> float:
    """Send one key the way the terminal driver does and wait until the input shows it.

    Pilot's ``press`` and ``pause`` wait until every widget of the screen has drained its
    queue, and a DirectoryTree's queue waits for its load, so they cannot measure this.
    """
    expected = path_input.value + char
    started = time.perf_counter()
    app.post_message(events.Key(char, char).set_sender(app))
    with anyio.fail_after(KEY_BOUND):
        while path_input.value != expected:  # noqa: ASYNC110 (polls widget state, bounded)
            await anyio.sleep(0.002)
    return time.perf_counter() - started


async def test_a_folder_of_50000_entries_keeps_the_dialog_responsive(huge: Path) -> None:
    app = Host()
    async with app.run_test(size=(130, 42)) as pilot:
        dialog = RootsDialog(huge / "proj", supported=True, browse_from=huge)
        await open_dialog(pilot, dialog)
        tree = dialog.query_one(RootTree)
        await wait_for(pilot, lambda: len(tree.root.children) == 2)
        big = next(n for n in tree.root.children if str(n.label) == "big")
        path_input = dialog.query_one(Input)
        assert path_input.has_focus
        started = time.perf_counter()
        big.expand()  # listed in the tree's worker thread, nodes added on the UI thread
        latencies: list[float] = []
        with anyio.fail_after(60):
            while len(big.children) < 2:  # keep typing for the whole load
                latencies.append(await type_char(app, path_input, "x"))
        loaded = time.perf_counter() - started
        assert len(latencies) >= 2, "no key was handled while the folder was loading"
        # Capped: the first directories by name, then one line for the rest.
        await wait_for(pilot, lambda: len(big.children) == 501)
        assert str(big.children[0].label) == "d00000"
        assert str(big.children[-1].label) == f"… and {BIG - 500:,} more (type the path above)"
        # Tab completion in the huge folder stays usable.
        path_input.value = "../big/d0000"
        await pilot.press("tab")
        assert path_input.value == "../big/d0000"
        assert "d00000/" in message(dialog)
        print(
            f"\n50k entries: listing shown after {loaded:.2f}s; {len(latencies)} keys handled "
            f"meanwhile, slowest {max(latencies) * 1000:.0f} ms, "
            f"median {sorted(latencies)[len(latencies) // 2] * 1000:.0f} ms"
        )


# -- through the real app ---------------------------------------------------------------------


async def test_roots_chosen_in_the_dialog_reach_the_agent(
    make_app: Callable[..., AcpApp], project: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    app = make_app()
    async with app.run_test(size=(130, 42)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        client = app.client
        assert client is not None
        assert client.capabilities.additional_directories
        dialog = RootsDialog(project, supported=True)
        results = await open_dialog(pilot, dialog)
        await pilot.press(*"../shared", "enter")
        await pilot.click("#roots-ok")
        await wait_for(pilot, lambda: bool(results))
        chosen = results[0]
        assert chosen == RootsResult((shared,))
        session = await client.new_session(project, chosen.roots)
        assert session.additional_directories == (shared,)
        listed = await client.list_sessions(cwd=project)
        [info] = [s for s in listed.sessions if s.session_id == session.session_id]
        assert info.additional_directories == [str(shared)]


async def test_an_agent_without_extra_roots_gets_none_sent(
    make_app: Callable[..., AcpApp], project: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    app = make_app("--capabilities", "list")
    async with app.run_test(size=(130, 42)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        client = app.client
        assert client is not None
        caps = client.capabilities
        assert not caps.additional_directories
        with pytest.raises(Unsupported):  # the client never drops roots on its own
            await client.new_session(project, (shared,))
        dialog = RootsDialog(
            project,
            (shared,),
            supported=caps.additional_directories,
            reason=caps.why_not("additional_directories"),
        )
        results = await open_dialog(pilot, dialog)
        reason = str(dialog.query_one("#roots-reason", Static).render())
        assert "does not support additional workspace roots" in reason
        await pilot.click("#roots-without")
        await wait_for(pilot, lambda: bool(results))
        chosen = results[0]
        assert chosen is not None
        assert chosen.proceed_without
        session = await client.new_session(project, chosen.roots)
        assert session.additional_directories == ()
