"""Provides `python -m acp_tui`, the same as the `acp-tui` command."""

from __future__ import annotations

from acp_tui.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
