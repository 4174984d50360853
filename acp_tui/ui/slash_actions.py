"""Provides run_typed: what acp-tui's slash commands and ``!`` commands do in the app.

Each command does what its key or palette entry does, for the tab the user typed it in:
``/new`` is Ctrl+N, ``/resume`` shows the session browser, ``/fork`` forks the session (where
the agent can: else it says why), ``/clear`` opens a new session of the same agent and roots
in a new tab (the old one stays), ``/model`` and ``/mode`` open their picker or set the choice
named (``/model opus``), ``/export`` is Ctrl+S, ``/theme`` opens the theme list or sets the
theme named, ``/reload`` reads the config again and says what changed, ``/quit`` is Ctrl+Q
and ``/help`` lists both kinds of commands. What cannot run now (the agent is still starting)
is said, and the text goes back into the prompt: nothing typed is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.binding import Binding

from acp_tui.ui.plain_text import LABEL_LIMIT, NAME_LIMIT, sanitize
from acp_tui.ui.slash import (
    CLIENT_COMMANDS,
    SHELL_HELP,
    Parsed,
    commands_not_kept,
    invocation,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.protocol.updates import AvailableCommand
    from acp_tui.ui.app_state import AppState
    from acp_tui.ui.widgets.chat_pane import ChatPane

__all__ = ["help_text", "run_typed"]

STARTING = "The agent is still starting: {what} once the session is open."


def run_typed(app: AppState, pane: ChatPane, parsed: Parsed, text: str) -> None:
    """Run what the user typed in ``pane`` (see the module docstring)."""
    if parsed.kind == "unknown":
        app.notify(
            f"acp-tui has no command //{sanitize(parsed.name, NAME_LIMIT)} (/help lists them).",
            severity="warning",
            markup=False,
        )
        pane.return_drafts((text,))
        return
    if parsed.kind == "shell":
        run_shell(app, pane, parsed.argument, text)
        return
    if parsed.name in WITHOUT_SESSION:
        WITHOUT_SESSION[parsed.name](app, pane, parsed.argument)
        return
    ws, slot = app.workspace, pane.slot
    if ws is None or slot is None:
        app.notify(STARTING.format(what=f"/{parsed.name} runs"), severity="warning")
        pane.return_drafts((text,))
        return
    WITH_SESSION[parsed.name](app, ws, slot, parsed.argument)


def run_shell(app: AppState, pane: ChatPane, command: str, text: str) -> None:
    ws, slot = app.workspace, pane.slot
    if ws is None or slot is None:
        app.notify(STARTING.format(what="! commands run"), severity="warning")
        pane.return_drafts((text,))
        return
    ws.shell.run(slot, command)


# -- commands that need no session ---------------------------------------------------------------


def quit_app(app: AppState, pane: ChatPane, argument: str) -> None:
    """What Ctrl+Q does, whatever action it is bound to."""
    keys = (b for b in app.BINDINGS if isinstance(b, Binding) and "ctrl+q" in b.key.split(","))
    action = next((b.action for b in keys), "quit")
    app.call_later(app.run_action, action)


def theme(app: AppState, pane: ChatPane, argument: str) -> None:
    if not argument:
        app.action_change_theme()
    elif argument in app.available_themes:
        app.theme = argument  # saved in the config file, as a choice in the list is
    else:
        app.notify(
            f"No theme named {sanitize(argument, NAME_LIMIT)}: /theme lists them.",
            severity="warning",
            markup=False,
        )


def show_help(app: AppState, pane: ChatPane, argument: str) -> None:
    slot = pane.slot
    if slot is None:
        app.notify(help_text([]), title="Commands", timeout=30, markup=False)
    else:
        transcript = slot.transcript
        text = help_text(transcript.commands, transcript.commands_not_kept)
        transcript.add_notice(text, hint=True)


def resume(app: AppState, pane: ChatPane, argument: str) -> None:
    app.call_later(show_the_rows, app)


async def show_the_rows(app: AppState) -> None:
    """The session browser shown (narrow, unless it is wide) with its rows focused."""
    browser = await app.chat_screen.open_browser()
    if browser is None:
        app.notify("The session browser is still loading.", severity="warning")
        return
    if browser.width == "hidden":
        browser.set_width("narrow")
    browser.rows.focus()


def run_action(action: str) -> Callable[[AppState, ChatPane, str], None]:
    """The command that runs the app's ``action`` (that of its key)."""

    def run(app: AppState, pane: ChatPane, argument: str) -> None:
        app.call_later(app.run_action, action)

    return run


WITHOUT_SESSION: dict[str, Callable[[AppState, ChatPane, str], None]] = {
    "new": run_action("new_session_with_roots"),
    "export": run_action("export_transcript"),
    "quit": quit_app,
    "theme": theme,
    "help": show_help,
    "resume": resume,
}


# -- commands on the tab's session ---------------------------------------------------------------


def clear(app: AppState, ws: Workspace, slot: SessionSlot, argument: str) -> None:
    """A new session of the same agent, folder and roots, in a new tab (this one stays)."""
    ws.open_new(slot.agent, slot.cwd, slot.additional_directories)


def fork(app: AppState, ws: Workspace, slot: SessionSlot, argument: str) -> None:
    from acp_tui.protocol.methods import SessionInfo

    session = slot.session
    if session is None or session.closed:
        app.notify("There is no open session to fork.", severity="warning")
        return
    info = SessionInfo(
        session_id=session.session_id,
        cwd=str(slot.cwd),
        additional_directories=[str(d) for d in slot.additional_directories] or None,
        title=slot.title,
    )
    reason = ws.sessions.why_unavailable(slot.agent, "fork", info)
    if reason is not None:
        app.notify(f"Cannot fork this session: {reason}.", severity="warning", markup=False)
        return
    ws.fork(slot.agent, info)


def rename(app: AppState, ws: Workspace, slot: SessionSlot, argument: str) -> None:
    """``/rename TITLE``: the session's local title (``/rename`` alone: the agent's again)."""
    if slot.session_id is None:
        app.notify("No session to rename yet: send a message first.", markup=False)
        return
    try:
        kept = ws.titles.rename(slot.agent, slot.session_id, argument)
    except OSError as exc:
        app.notify(f"Could not rename the session: {exc}", severity="error", markup=False)
        return
    app.notify(f"Renamed here: {kept}" if kept else "Back to the agent's title.", markup=False)


def reload(app: AppState, ws: Workspace, slot: SessionSlot, argument: str) -> None:
    from acp_tui.ui.reload_config import reload_config

    reload_config(app, ws, slot, asked=True)


def choose(category: str) -> Callable[[AppState, Workspace, SessionSlot, str], None]:
    def run(app: AppState, ws: Workspace, slot: SessionSlot, argument: str) -> None:
        from acp_tui.ui.option_commands import choose_option

        choose_option(app, ws, slot, category, argument)

    return run


WITH_SESSION: dict[str, Callable[[AppState, Workspace, SessionSlot, str], None]] = {
    "clear": clear,
    "fork": fork,
    "rename": rename,
    "reload": reload,
    "model": choose("model"),
    "mode": choose("mode"),
}


def help_text(agent_commands: Sequence[AvailableCommand], not_kept: int = 0) -> str:
    """Both kinds of commands: the agent's with their descriptions (and how many more it sent
    than are kept, ``not_kept``), then acp-tui's, marked."""
    names = {command.name for command in agent_commands}
    lines = ["Commands (/ completes them):"]
    if agent_commands:
        lines.append("The agent's:")
        for command in agent_commands:
            hint = command.input.hint if command.input is not None else None
            typed = sanitize(command.name, NAME_LIMIT) + (f" ‹{sanitize(hint)}›" if hint else "")
            lines.append(f"  /{typed} — {sanitize(command.description, LABEL_LIMIT)}")
        if not_kept > 0:
            lines.append(f"  {commands_not_kept(not_kept)}")
    else:
        lines.append("The agent's: none offered in this session.")
    hidden = names & {own.name for own in CLIENT_COMMANDS}
    shadowed = " (//NAME where the agent has a command of the same name)" if hidden else ""
    lines.append(f"acp-tui's{shadowed}:")
    for own in CLIENT_COMMANDS:
        typed = invocation(own.name, names) + (f" ‹{own.hint}›" if own.hint else "")
        lines.append(f"  {typed} — {own.description}")
    lines.append(f"  {SHELL_HELP}")
    return "\n".join(lines)
