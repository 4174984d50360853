"""A new session waiting for its extra roots to be chosen."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from acp_tui.client.workspace.agent_runtime import AgentRuntime


@dataclass(frozen=True, slots=True)
class RootsOffer:
    """A new session, ready to be opened once its extra roots are chosen: its agent (running),
    its cwd, the roots proposed, those used recently in the cwd, and whether the agent takes
    extra roots at all (``supported``; ``reason`` says why not)."""

    agent: AgentRuntime
    cwd: Path
    roots: tuple[Path, ...]
    recent: list[Path]
    supported: bool
    reason: str | None
