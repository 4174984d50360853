"""Provides AgentCommand: what to run as the agent.

It lives apart from the process code so that the command line can name an agent without
loading anyio.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["AgentCommand"]


@dataclass(frozen=True)
class AgentCommand:
    """What to run: argv[0] is looked up on PATH (the PATH of the merged environment)."""

    argv: Sequence[str]
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Overrides on top of the parent environment (often secrets, API keys: not in repr, so
    not in a log or an error that shows the command)."""
    cwd: Path | None = None
    name: str = "agent"
    """For logs and messages."""

    def __post_init__(self) -> None:
        if isinstance(self.argv, str):
            raise TypeError("AgentCommand.argv must be a sequence of strings, not a string")
        object.__setattr__(self, "argv", tuple(self.argv))
        object.__setattr__(self, "env", dict(self.env))
