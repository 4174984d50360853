"""A new session beside another, waiting for its extra roots to be chosen: `NewSessionOffers`
(the Workspace's ``ws.offers``) gets its agent ready and says which roots it may take; the UI
asks the user and hands the choice back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from acp_tui.client.agent.launch import LaunchError, LaunchSpec, resolve_launch
from acp_tui.client.workspace.agent_runtime import AgentRuntime
from acp_tui.client.workspace.board import Board
from acp_tui.client.workspace.events import Notice
from acp_tui.client.workspace.slots import SessionSlot
from acp_tui.config.paths import Paths
from acp_tui.config.settings import Settings
from acp_tui.store.recent_roots import recent_roots_for_project


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


class NewSessionOffers:
    """New sessions opened beside another, once the user chose their extra roots.

    It starts agents through ``agent_for`` and lets go of them through ``release`` (both the
    Workspace's), and opens the chosen session with ``open_new``."""

    def __init__(
        self,
        board: Board,
        paths: Paths,
        settings: Callable[[], Settings],
        agent_for: Callable[[LaunchSpec], AgentRuntime],
        release: Callable[[AgentRuntime], None],
        open_new: Callable[[AgentRuntime, Path, tuple[Path, ...]], object],
    ) -> None:
        self.board = board
        self.paths = paths
        self.settings = settings
        self.agent_for = agent_for
        self.release = release
        self.open_new = open_new

    async def offer(
        self, beside: SessionSlot, agent_name: str | None = None, settings: Settings | None = None
    ) -> RootsOffer | None:
        """Get a new session beside ``beside`` ready: on its agent, or on the configured agent
        ``agent_name`` (started now, its own extra roots proposed). None when the agent cannot
        be started (said in a Notice; one started only for this is stopped again)."""
        agent, cwd, roots = beside.agent, beside.cwd, beside.additional_directories
        if agent_name is not None:
            try:
                launch = resolve_launch(
                    cwd=cwd,
                    agent_name=agent_name,
                    command=None,
                    settings=settings or self.settings(),
                    paths=self.paths,
                    protocol=None,
                )
            except LaunchError as exc:
                self.board.emit(Notice(f"Cannot start {agent_name}: {exc}", "error"))
                return None
            agent = self.agent_for(launch)
            roots = launch.additional_directories
        if not agent.alive:
            self.board.emit(Notice(f"Starting {agent.display_name}…"))
            try:
                await agent.wait_ready()
            except Exception as exc:
                self.board.emit(Notice(f"{agent.display_name} did not start: {exc}", "error"))
                self.release(agent)
                return None
        caps = agent.capabilities
        if caps is None:
            return None
        supported, reason = caps.additional_directories, caps.why_not("additional_directories")
        return RootsOffer(agent, cwd, roots, self.recent_roots(cwd), supported, reason)

    def open(self, offer: RootsOffer, roots: tuple[Path, ...] | None) -> None:
        """Open the offered session with the extra ``roots`` chosen; None (the user changed
        their mind) stops an agent started only for it."""
        if roots is None:
            self.release(offer.agent)
        else:
            self.open_new(offer.agent, offer.cwd, roots)

    def recent_roots(self, cwd: Path) -> list[Path]:
        """The extra roots used lately with ``cwd``, most recent first."""
        return recent_roots_for_project(cwd, self.paths).load()
