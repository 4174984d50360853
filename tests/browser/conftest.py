"""Fixtures for the tests in a real browser: headless Chromium, and `acp-tui serve`."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.browser.cdp import CHROMIUM, Chromium
from tests.serve_helpers import serve as serve  # a fixture


@pytest.fixture
async def chromium(tmp_path: Path) -> AsyncIterator[Chromium]:
    """Headless Chromium in a fresh profile; ended with its whole process group."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests: .ci/run installs Debian's chromium")
        pytest.skip("needs Debian's chromium (apt-get install chromium); .ci/run installs it")
    browser = Chromium(tmp_path / "chromium-profile")
    await browser.start()
    try:
        yield browser
    finally:
        await browser.stop()
