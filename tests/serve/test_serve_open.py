"""`acp-tui serve --open`: the browser is started with a private file, never with the token on
its command line (which every user of the machine can read)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.serve_helpers import ServeFactory, demo, wait_until


def test_open_hands_the_browser_a_private_file_that_leads_to_the_page(
    serve: ServeFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told = tmp_path / "browser-was-given.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {told}\n')
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(browser))  # Python's webbrowser runs it
    served = serve(*demo("--open"))
    wait_until(told.exists, 30, "the browser started")
    given = told.read_text()
    assert given.startswith("file://")
    assert served.token not in given
    page = Path(given.removeprefix("file://"))
    assert f'url={served.url}"' in page.read_text()
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    assert stat.S_IMODE(page.parent.stat().st_mode) == 0o700
    assert served.stop() == 130
    assert not page.parent.exists()  # removed with the server
