"""Tests that the UI-free core stays UI-free: no Textual or Rich outside `acp_tui.ui`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CORE_PACKAGES = (
    "acp_tui.protocol",
    "acp_tui.client",
    "acp_tui.store",
    "acp_tui.registry",
    "acp_tui.config",
    "acp_tui.demo_agent",
    "acp_tui.serve",  # the web server starts the app as a process and never imports it
)

TIMEOUT = 120


def test_the_core_imports_without_textual_or_rich() -> None:
    # A fresh interpreter, so nothing imported by pytest or other tests can hide a leak.
    code = textwrap.dedent(
        f"""
        import importlib, pkgutil, sys

        def fail(name):
            raise  # a package that cannot be imported is a failure, not something to skip

        imported = []
        for name in {CORE_PACKAGES!r}:
            package = importlib.import_module(name)
            imported.append(name)
            for info in pkgutil.walk_packages(package.__path__, name + ".", onerror=fail):
                if info.name.rsplit(".", 1)[-1] == "__main__":
                    continue  # running it would start the program
                importlib.import_module(info.name)
                imported.append(info.name)
        leaked = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
        print("imported:", " ".join(imported))
        print("leaked:" + "".join(" " + m for m in leaked))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=os.environ.copy(),
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    imported, leaked = result.stdout.splitlines()[-2:]
    assert "acp_tui.config.settings" in imported.split()  # the walk did find submodules
    assert leaked == "leaked:", f"the core imported {leaked.removeprefix('leaked:')}"


def _lint_imports() -> str | None:
    beside = Path(sys.executable).parent / "lint-imports"
    if beside.exists():
        return str(beside)
    return shutil.which("lint-imports")


def test_import_linter_contracts_hold() -> None:
    lint_imports = _lint_imports()
    if lint_imports is None:
        pytest.skip("import-linter is in the dev extra")
    result = subprocess.run(
        [lint_imports],
        cwd=REPO,
        env=os.environ.copy(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
