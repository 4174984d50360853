"""SVG snapshots of the chat after a "markdown diff" turn, in every packaged theme.

The theme names are read from the packaged themes folder, so a new theme file gets its snapshot
(run with --snapshot-update once and review it). The theme is chosen the way a user chooses it:
``theme`` in the settings the app starts with. Fixed places and the app as in
test_browser_snapshots.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.config.settings import Settings
from acp_tui.ui.themes import load_themes, packaged_themes_dir
from tests.snapshots.test_browser_snapshots import Place, build_app, fixed_place
from tests.snapshots.test_chat_snapshots import Compare, turn

SIZE = (110, 40)


def packaged_theme_names() -> list[str]:
    folder = packaged_themes_dir()
    assert folder is not None, "the packaged themes folder is missing"
    themes, problems = load_themes([folder])
    assert not problems, problems
    return sorted(theme.name for theme in themes)


THEMES = packaged_theme_names()


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with fixed_place("themes", monkeypatch) as fixed:
        yield fixed


def test_every_packaged_theme_is_snapshotted() -> None:
    assert len(THEMES) >= 4


@pytest.mark.parametrize("theme", THEMES)
def test_markdown_and_diff_turn(
    snap_compare: Compare, place: Place, tmp_path: Path, theme: str
) -> None:
    app = build_app(place, tmp_path / "demo", settings=Settings(theme=theme))
    assert snap_compare(app, terminal_size=SIZE, run_before=turn("markdown diff"))
    assert app.theme == theme
