"""Provides the one-time offer of the agent registry on a first run with no agent configured.

acp-tui with nothing configured starts its demo agent; the first time, the chat then offers the
"Add an agent" dialog beside "Keep using the demo agent". Once the user has answered either way,
a marker file in the state directory stops the offer for good.
"""

from __future__ import annotations

import contextlib

from acp_tui.config.paths import Paths
from acp_tui.config.settings import Settings

__all__ = ["offer_answered", "should_offer_registry"]

_MARKER = "registry-offer-answered"
_DEMO = "demo"  # the demo agent's reserved name (acp_tui.client.agent.launch.DEMO_AGENT_NAME)


def should_offer_registry(settings: Settings, paths: Paths) -> bool:
    """Whether to offer the registry: no agent configured, no default, and never answered."""
    configured = [name for name in settings.agents if name != _DEMO]
    if configured or settings.default_agent is not None:
        return False
    return not (paths.state_dir / _MARKER).exists()


def offer_answered(paths: Paths) -> None:
    """Remember that the offer was answered, so it is not made again (best effort)."""
    with contextlib.suppress(OSError):
        paths.state_dir.mkdir(parents=True, exist_ok=True)
        (paths.state_dir / _MARKER).touch()
