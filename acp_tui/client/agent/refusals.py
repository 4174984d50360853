"""Provides refuse_at_once: the answer to a question the user's side refuses without asking.

Past a limit of questions waiting, or once the user refused every question of the agent, a
question is refused as it comes (`acp_tui.client.workspace.questions`). Served as usual, each
cost a task, its cancel scopes and two changes of the turn's state (waiting for you, then
running again), for an answer known before any of it: a flood of 10,000 spent most of its time
there. The connection offers each request to ``refuse_at_once`` first (``on_request_now``):
a permission request, a form or a command the user would be asked about, of a session the
``QuestionGate`` refuses now, is answered in the read loop's step, as the question's own
refusal would have answered it (the agent's reject option, the form declined, the command
refused), counted by the gate the same way. It is read as strictly as
when it is served (a malformed one gets -32602); everything else is served as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from acp_tui.client.session.elicitation import DECLINED, check_request
from acp_tui.client.session.live_session import permission_refusal
from acp_tui.client.tools.terminal_gate import refused
from acp_tui.protocol.client_methods import RequestPermissionResponse
from acp_tui.protocol.connection import NOT_NOW

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient

__all__ = ["QuestionGate", "refuse_at_once"]

PERMISSION = "session/request_permission"
ELICITATION = "elicitation/create"
TERMINAL = "terminal/create"


class QuestionGate(Protocol):
    """Whether the questions of a session are refused without asking, and the count of those."""

    def refusing(self, session_id: str) -> str | None:
        """Why a question of ``session_id`` is refused now (None: it is asked)."""

    def refused(self, session_id: str, why: str) -> None:
        """A question of ``session_id`` was refused without asking, for ``why``."""


def refuse_at_once(client: AgentClient, gate: QuestionGate, method: str, params: Any) -> Any:
    """The answer to the request if ``gate`` refuses it now; ``NOT_NOW`` to serve it as usual."""
    if method not in (PERMISSION, ELICITATION, TERMINAL) or not isinstance(params, dict):
        return NOT_NOW
    if method == TERMINAL and (
        not client.dialect.serves_client_methods or client.terminal_policy.asks is None
    ):
        return NOT_NOW
    session_id = params.get("sessionId")
    if not isinstance(session_id, str):
        return NOT_NOW  # unknown to this client, or not a session's: served (and said) as usual
    session = client.sessions.get(session_id)
    if session is None or session.closed:
        return NOT_NOW
    why = gate.refusing(session_id)
    if why is None:
        return NOT_NOW
    if method == TERMINAL:
        policy = client.terminal_policy
        _create, _env, ask = session.terminal_ask(params, policy)
        if policy.asks is None or not policy.asks(session, ask):
            return NOT_NOW  # allowed (or denied) by the setting, without asking
        gate.refused(session_id, why)
        raise refused(ask)
    if method == PERMISSION:
        request = client.dialect.permission_request(params)
        if not request.options:
            return NOT_NOW  # said in the transcript when served
        answer = RequestPermissionResponse(outcome=permission_refusal(request)).to_wire()
    else:
        if params.get("mode") != "form":
            return NOT_NOW  # a URL question has its id to keep track of
        request_, _form = check_request(params, form=False)
        if request_.session_id != session_id:
            return NOT_NOW
        answer = DECLINED.to_wire()
    gate.refused(session_id, why)
    return answer
