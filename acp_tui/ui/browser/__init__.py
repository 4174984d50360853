"""Provides the session browser: the side panel and the actions on its rows."""

from __future__ import annotations

from acp_tui.ui.browser.actions import SessionActions
from acp_tui.ui.browser.panel import SessionBrowser

__all__ = ["SessionActions", "SessionBrowser"]
