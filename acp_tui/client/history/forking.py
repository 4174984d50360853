"""Provides fork_with_history: `session/fork`, and the forked history shown in the new session.

A fork carries its parent's conversation, but `session/fork` answers with a bare session. Where
the agent can load sessions the fork is loaded, so the agent replays it; otherwise (or when the
load is refused: some agents will not load a session that is live) acp-tui's local copy of the
parent is shown and recorded as the fork's start, and the transcript says which it is.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.client.errors import AgentError
from acp_tui.client.history.restore import has_history, reattach
from acp_tui.client.history.session_text import display_title
from acp_tui.client.session.transcript import Transcript
from acp_tui.protocol.jsonrpc import RpcError

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient
    from acp_tui.client.history.recorder import SessionRecorder
    from acp_tui.client.history.restore import LocalHistory
    from acp_tui.client.session.live_session import LiveSession
    from acp_tui.protocol.methods import SessionInfo

__all__ = ["fork_with_history"]

log = logging.getLogger(__name__)


async def fork_with_history(
    client: AgentClient,
    recorder: SessionRecorder,
    history: LocalHistory,
    info: SessionInfo,
    cwd: Path,
    additional_directories: tuple[Path, ...],
) -> LiveSession:
    """Fork ``info``; the fork's session, showing the history it starts from."""
    label = display_title(info)
    session = await client.fork_session(info.session_id, cwd, additional_directories)
    recorder.note(session, created=True)
    if client.capabilities.can_load:
        fork = info.model_copy(update={"session_id": session.session_id})
        try:
            loaded = await reattach(
                client, recorder, history, fork, replay=True, keep=session.transcript
            )
        except (AgentError, RpcError) as exc:
            log.info("could not load the fork %s: %s", session.session_id, exc)
        else:
            if has_history(loaded.transcript):
                loaded.transcript.add_notice(f"Forked from {label} (history replayed).")
                return loaded
            session = loaded
    local = Transcript(session.session_id)
    try:
        count = history.replay_into(info.session_id, local)
    except Exception:
        log.warning("could not replay the local copy of %s", info.session_id, exc_info=True)
        count = 0
    if not count:
        session.transcript.add_notice(
            f"Forked from {label}. Its earlier history is not shown: the agent did not replay "
            "it and acp-tui has no local copy of it.",
            "warning",
        )
        return session
    history.copy(info.session_id, session.session_id)
    local.add_notice(f"Forked from {label}; the history above is acp-tui's local copy of it.")
    local.adopt_state(session.transcript)
    session.transcript = local
    return session
