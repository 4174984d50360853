"""Provides the demo agent's ACP v2 (draft) dialect: its initialize, method table and update shapes.

Chosen at `initialize` when the agent runs with ``--protocol 2`` and the client offers 2. The
store, paging, settings and keyword script are the v1 ones; this module changes the spelling:

* `initialize` answers ``info`` and one ``capabilities`` object (``session`` = the baseline
  methods; delete, additionalDirectories and fork as markers);
* `auth/login`/`auth/logout` replace `authenticate`; there is no `session/load` or `set_mode`;
* `session/resume` replays the history before answering when ``replayFrom`` is ``{"type":
  "start"}``;
* `session/prompt` answers ``{}`` at once; the turn then streams ``user_message``, ``state_update
  running``, chunks with their ``messageId``, ``tool_call_update`` (the first creates the call),
  ``plan_update``, ``state_update requires_action`` around a permission request, and finally
  ``state_update idle`` with the ``stopReason``;
* config options carry ``configId`` (and ``groupId``), v1 ``diff`` content becomes the v2 diff
  (``changes`` plus a ``git_patch``), and command inputs get ``type: "text"``.
"""

from __future__ import annotations

import contextlib
import difflib
import logging
from typing import Any

import anyio

from acp_tui import __version__
from acp_tui.demo_agent import params as P
from acp_tui.demo_agent.options import ClientCaps, elicitation_modes
from acp_tui.demo_agent.script import LATER_TEXT, parse, prompt_text, run_turn
from acp_tui.demo_agent.server import DemoAgent, Handler, LiveSession, Requester
from acp_tui.demo_agent.settings import config_options, set_config_option
from acp_tui.demo_agent.store import SessionRecord
from acp_tui.demo_agent.turn import new_id
from acp_tui.protocol.jsonrpc import ConnectionClosed, RpcError

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 2
OPTIONAL_MARKERS = ("delete", "additionalDirectories", "fork")
PLAN_ID = "plan"


# -- shapes ------------------------------------------------------------------------------------


def v2_diff(item: dict[str, Any]) -> dict[str, Any]:
    """A v1 diff (path, oldText, newText) as a v2 diff: the change and a git patch."""
    path, old, new = item["path"], item.get("oldText"), item.get("newText") or ""
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="/dev/null" if old is None else path,
        tofile=path,
    )
    header = f"diff --git {path} {path}\n" + ("new file mode 100644\n" if old is None else "")
    change = {"operation": "add" if old is None else "modify", "path": path, "fileType": "text"}
    return {
        "type": "diff",
        "changes": [change],
        "patch": {"format": "git_patch", "text": header + "".join(lines)},
    }


def v2_content(items: Any) -> Any:
    if not isinstance(items, list):
        return items
    return [v2_diff(i) if isinstance(i, dict) and "newText" in i else i for i in items]


def v2_options(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Config options with ``configId`` (and select groups with ``groupId``)."""
    converted = []
    for option in options:
        option = dict(option)
        option["configId"] = option.pop("id")
        items = option.get("options")
        if isinstance(items, list):
            option["options"] = [
                {("groupId" if k == "group" else k): v for k, v in i.items()}
                if isinstance(i, dict)
                else i
                for i in items
            ]
        converted.append(option)
    return converted


def translate(update: dict[str, Any]) -> dict[str, Any] | None:
    """A session update as v2 spells it (v2 updates pass unchanged); None drops it."""
    kind = update.get("sessionUpdate")
    if kind == "user_message_chunk":
        return None  # the prompt handler sent the whole user_message already
    if kind == "current_mode_update":
        return None  # no modes in v2: the mode is a config option
    if kind in ("tool_call", "tool_call_update"):
        translated = {**update, "sessionUpdate": "tool_call_update"}
        if "content" in update:
            translated["content"] = v2_content(update["content"])
        return translated
    if kind == "plan":
        plan = {"type": "items", "planId": PLAN_ID, "entries": update.get("entries", [])}
        return {"sessionUpdate": "plan_update", "plan": plan}
    if kind == "available_commands_update":
        commands = [
            {**c, "input": {"type": "text", **c["input"]}}
            if isinstance(c.get("input"), dict)
            else c
            for c in update.get("availableCommands", [])
        ]
        return {**update, "availableCommands": commands}
    return update


def state(name: str, stop_reason: str | None = None) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": "state_update", "state": name}
    if stop_reason is not None:
        update["stopReason"] = stop_reason
    return update


# -- the dialect -------------------------------------------------------------------------------


class V2Dialect:
    """The v2 handlers of one DemoAgent (whose store, sessions and connection they use)."""

    def __init__(self, agent: DemoAgent) -> None:
        self.agent = agent
        agent.outgoing = translate
        agent.login_method = "auth/login"
        agent.logout_method = "auth/logout"

    def methods(self) -> dict[str, tuple[str | None, Handler]]:
        """Method name -> (required capability, handler); the baseline needs none."""
        agent = self.agent
        return {
            "initialize": (None, self.initialize),
            "auth/login": (None, self.login),
            "auth/logout": (None, self.logout),
            "session/new": (None, self.new_session),
            "session/list": (None, agent.list_sessions),
            "session/resume": (None, self.resume_session),
            "session/close": (None, agent.close_session),
            "session/delete": ("delete", agent.delete_session),
            "session/fork": ("fork", self.fork_session),
            "session/set_config_option": (None, self.set_config_option),
            "session/prompt": (None, self.prompt),
        }

    # -- initialize and auth ------------------------------------------------------------------

    async def initialize(self, params: P.Params) -> Any:
        agent = self.agent
        caps = params.get("capabilities")
        auth = caps.get("auth") if isinstance(caps, dict) else None
        terminal_auth = isinstance(auth, dict) and isinstance(auth.get("terminal"), dict)
        # No fs/terminal in v2; boolean config options need no client capability.
        form, url = elicitation_modes(caps)
        agent.client = ClientCaps(
            boolean_config=True,
            terminal_auth=terminal_auth,
            agent_terminals=True,
            elicitation_form=form,
            elicitation_url=url,
        )
        log.info("speaking ACP v2 (draft); client capabilities %s", agent.client)
        prompt: dict[str, Any] = {"embeddedContext": {}}
        if agent.options.image:
            prompt["image"] = {}
        mcp: dict[str, Any] = {"stdio": {}}
        if "http" in agent.options.mcp_transports:
            mcp["http"] = {}
        session: dict[str, Any] = {"prompt": prompt, "mcp": mcp}
        session.update({m: {} for m in OPTIONAL_MARKERS if agent.options.has(m)})
        result: dict[str, Any] = {
            "protocolVersion": PROTOCOL_VERSION,
            "info": {"name": "acp-tui-demo", "title": "acp-tui demo agent", "version": __version__},
            "capabilities": {"session": session},
        }
        if agent.options.require_auth and agent.options.auth_style != "error-data":
            result["authMethods"] = agent.offered_auth_methods(2, terminal_auth)
        return result

    async def login(self, params: P.Params) -> Any:
        """`auth/login` takes v1 `authenticate`'s params and answers the same."""
        return await self.agent.authenticate(params)

    async def logout(self, params: P.Params) -> Any:
        return await self.agent.logout(params)

    # -- sessions -----------------------------------------------------------------------------

    def _options(self, record: SessionRecord) -> list[dict[str, Any]]:
        return v2_options(config_options(record, boolean=True))

    def _setup(self, result: dict[str, Any]) -> dict[str, Any]:
        """A v1 setup result (modes, configOptions) in v2's shape (configOptions only)."""
        converted = {k: v for k, v in result.items() if k not in ("modes", "configOptions")}
        if "configOptions" in result:
            converted["configOptions"] = v2_options(result["configOptions"])
        return converted

    async def new_session(self, params: P.Params) -> Any:
        return self._setup(await self.agent.new_session(params))

    async def fork_session(self, params: P.Params) -> Any:
        return self._setup(await self.agent.fork_session(params))

    async def resume_session(self, params: P.Params) -> Any:
        """``replayFrom`` omitted or null: resume; ``{"type": "start"}``: replay, then answer."""
        replay_from = params.get("replayFrom")
        if replay_from is None:
            replay = self.agent.options.faulty("replay-on-resume")
        elif isinstance(replay_from, dict) and replay_from.get("type") == "start":
            replay = True
        else:
            raise RpcError.invalid_params(
                f"unsupported replayFrom {replay_from!r}: this agent replays from the start only"
            )
        return self._setup(await self.agent.reattach(params, replay=replay))

    async def set_config_option(self, params: P.Params) -> Any:
        record = self.agent.live_session(P.session_id(params)).record
        kind = params.get("type")
        set_config_option(
            record,
            params.get("configId"),
            params.get("value"),
            "select" if kind == "id" else kind,
            boolean=True,
        )
        self.agent.store.put(record)
        return {"configOptions": self._options(record)}

    # -- the turn -----------------------------------------------------------------------------

    async def prompt(self, params: P.Params) -> Any:
        """Accept the turn (``{}``) and play it in the background."""
        agent = self.agent
        session_id = P.session_id(params)
        live = agent.live_session(session_id)
        blocks = P.prompt_blocks(params, image=agent.options.image)
        if live.turn is not None:
            raise RpcError.invalid_params(f"a prompt turn is already running in {session_id}")
        task_group = agent.task_group
        scope = anyio.CancelScope()
        live.turn = scope
        task_group.start_soon(self._turn, live, blocks, scope)
        return {}

    async def _turn(
        self, live: LiveSession, blocks: list[dict[str, Any]], scope: anyio.CancelScope
    ) -> None:
        agent = self.agent
        session_id = live.record.session_id
        stop_reason = "cancelled"
        try:
            user = {"sessionUpdate": "user_message", "messageId": new_id("user"), "content": blocks}
            await agent.send_update(session_id, user, record=True)
            await agent.send_update(session_id, state("running"), record=False)
            ctx = agent.turn_context(live.record, self._requester(session_id))
            with scope:
                stop_reason = await run_turn(ctx, blocks)
            if scope.cancelled_caught:
                log.info("turn of %s cancelled", session_id)
                stop_reason = "cancelled"
        except (ConnectionClosed, anyio.ClosedResourceError, anyio.BrokenResourceError):
            log.info("the client went away during the turn of %s", session_id)
            return
        except Exception:
            log.exception("the turn of %s failed", session_id)
            stop_reason = "refusal"
        finally:
            if live.turn is scope:
                live.turn = None
        with contextlib.suppress(ConnectionClosed, anyio.ClosedResourceError):
            await agent.send_update(session_id, state("idle", stop_reason), record=False)
            if stop_reason == "end_turn" and parse(prompt_text(blocks)).has("later"):
                agent.task_group.start_soon(self._turn_of_its_own, live)

    async def _turn_of_its_own(self, live: LiveSession) -> None:
        """A turn nobody prompted (v2 lets the agent start one): running, a message, idle."""
        if live.turn is not None:
            return
        agent = self.agent
        session_id = live.record.session_id
        scope = live.turn = anyio.CancelScope()
        stop_reason = "end_turn"
        try:
            with contextlib.suppress(ConnectionClosed, anyio.ClosedResourceError):
                await agent.send_update(session_id, state("running"), record=False)
                with scope:
                    ctx = agent.turn_context(live.record, self._requester(session_id))
                    await ctx.say(LATER_TEXT)
                if scope.cancelled_caught:
                    stop_reason = "cancelled"
                await agent.send_update(session_id, state("idle", stop_reason), record=False)
        finally:
            if live.turn is scope:
                live.turn = None

    def _requester(self, session_id: str) -> Requester:
        """The turn's requests to the client: permission requests in v2's shape, and the
        ``requires_action`` state around them and around elicitations."""
        agent = self.agent

        async def request(method: str, params: Any) -> Any:
            if method == "elicitation/create":
                return await ask(method, params)
            if method != "session/request_permission":
                return await agent.conn.request(method, params)
            tool_call = dict(params["toolCall"])
            if "content" in tool_call:
                tool_call["content"] = v2_content(tool_call["content"])
            what = str(tool_call.get("title") or "Go on")
            question = {
                "sessionId": session_id,
                "title": f"Allow the agent to {what[:1].lower()}{what[1:]}?",
                "description": "The demo agent asks before it changes a file.",
                "subject": {"type": "tool_call", "toolCall": tool_call},
                "options": params["options"],
            }
            return await ask(method, question)

        async def ask(method: str, question: Any) -> Any:
            await agent.send_update(session_id, state("requires_action"), record=False)
            try:
                return await agent.conn.request(method, question)
            finally:
                await agent.send_update(session_id, state("running"), record=False)

        return request
