"""Provides AcpApp, the Textual application, and run_app, its entry point from the CLI.

The App is thin: themes, the chat screen, global bindings and palette commands, and the Workspace
(`acp_tui.client.workspace.workspace`), which owns the agents and sessions. It subscribes once to
the Workspace and posts every event to the chat screen as the message of its kind; the
Workspace's questions are answered with dialogs (`acp_tui.ui.dialog_interaction`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import events, on
from textual.app import SystemCommand
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen
from textual.theme import Theme
from textual.worker import Worker

from acp_tui.client.agent.launch import LaunchSpec
from acp_tui.config.paths import Paths, get_paths
from acp_tui.ui.app_state import AppState
from acp_tui.ui.chat import ChatScreen
from acp_tui.ui.interrupt import OFFER, WINDOW, CtrlC, quit_reasons
from acp_tui.ui.messages import CommandTyped, WorkspacePoster
from acp_tui.ui.startup import Startup
from acp_tui.ui.themes import install_themes, save_theme_choice, user_themes_dir

if TYPE_CHECKING:
    from acp_tui.client.agent.agent_client import AgentClient
    from acp_tui.client.session.live_session import LiveSession
    from acp_tui.client.workspace.agent_runtime import Connect
    from acp_tui.client.workspace.slots import SessionSlot
    from acp_tui.client.workspace.workspace import Workspace
    from acp_tui.ui.dialog_interaction import DialogInteraction, TerminalRunner

STOP_WITHIN = 15.0
"""How long quitting waits for every agent to be gone."""


class AcpApp(AppState):
    """acp-tui: chat with ACP agents."""

    TITLE = "acp-tui"
    CSS_PATH = "app.tcss"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+c", "interrupt", "Interrupt", show=False),
        Binding("ctrl+r", "restart_agent", "Restart", tooltip="Restart the agent"),
        Binding("ctrl+s", "export_transcript", "Export"),
        Binding("ctrl+n", "new_session_with_roots", "New", tooltip="A new session, with its roots"),
        Binding("ctrl+b", "toggle_browser", "Sessions"),
        Binding("f12", "wire_inspector", "Wire", show=False),
    ]

    connect: Connect | None = None
    """How the Workspace reaches its agents; None: the core's `connect`, which starts each
    agent's process. Tests set one that runs the demo agent in their own event loop."""

    def __init__(self, launch: LaunchSpec, *, paths: Paths | None = None) -> None:
        super().__init__()
        self.launch = launch
        self.paths = paths or get_paths()
        self.startup = Startup()
        self.workspace: Workspace | None = None
        self.interaction: DialogInteraction | None = None
        self.chat_screen = ChatScreen(launch, self.paths, self.startup)
        self.run_interactive: TerminalRunner | None = None
        """How a terminal login runs (None: on the real terminal, the app suspended)."""
        self._workspace_worker: Worker[None] | None = None
        self._quit_requested = False
        self.ctrl_c = CtrlC()
        self.early_input: list[events.Key | events.Paste] | None = []
        """Keys typed before anything had the focus (the first frame was not out yet): kept,
        and given to the prompt in order once it has the focus. None once that happened."""
        # The theme files are read before the first frame only when it needs one of them: a
        # theme of Textual's own (the default) that no user theme file could replace can go
        # first, and the files follow one frame later, for the command palette.
        self.theme_files_pending = launch.settings.theme in self.available_themes and not (
            user_themes_dir(self.paths).exists()
        )
        if self.theme_files_pending:
            self.theme = launch.settings.theme
            self.theme_problems: list[str] = []
        else:
            self.theme_problems = install_themes(self, launch.settings.theme, self.paths)
        self.saved_theme = self.theme

    async def on_event(self, event: events.Event) -> None:
        """Keep the keys typed before the first frame, for the prompt (a terminal delivers
        them as soon as the app reads its input; nothing could take them yet)."""
        if isinstance(event, events.Key | events.Paste):
            self.chat_screen.typed = True
        if self.early_input is not None and isinstance(event, events.Key | events.Paste):
            if self.focused is None:
                self.early_input.append(event)
                return
            await self.replay_early_input()
        await super().on_event(event)

    @on(events.DescendantFocus)
    async def replay_early_input(self) -> None:
        """Something has the focus (the prompt, on start): the keys kept go to it, in order.

        An Enter typed while the terminal was still in its line mode (before Textual set it
        raw) arrives as a line feed, which the prompt reads as Ctrl+J (a new line): it was an
        Enter, and is given as one.
        """
        early, self.early_input = self.early_input, None
        for event in early or ():
            if isinstance(event, events.Key) and event.key == "ctrl+j":
                event = events.Key("enter", "\r")
            await super().on_event(event)

    def get_default_screen(self) -> Screen[None]:
        return self.chat_screen

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform, silent while the app is suspended and reading
        keys as terminals send them (see `acp_tui.ui.driver`)."""
        from acp_tui.ui.driver import terminal_driver

        return terminal_driver(super().get_driver_class())

    # -- start and stop ----------------------------------------------------------------------

    @on(events.Mount)
    def report_startup_problems(self) -> None:
        """Show what went wrong with the config and theme files (stderr is behind the screen)."""
        if self.launch.warnings:
            text = "\n".join(self.launch.warnings)
            self.notify(
                f"{text}\nUsing the default settings until this is fixed.",
                title="Config file problems",
                severity="warning",
                timeout=30,
                markup=False,
            )
        self.report_theme_problems(self.theme_problems)
        self.theme_changed_signal.subscribe(self, self.save_theme)
        if self.theme_files_pending:
            self.call_after_refresh(self.install_theme_files)
        # The core is imported after the first frame is out, then the agent starts.
        self.call_after_refresh(self.start_workspace)

    def start_workspace(self) -> None:
        self._workspace_worker = self.run_worker(
            self.run_workspace(), name="workspace", group="workspace", exit_on_error=False
        )

    async def run_workspace(self) -> None:
        """Load the core, then run the Workspace (the launch's agent, one session) until quit."""
        from acp_tui.ui.dialog_interaction import DialogInteraction

        core = await self.startup.load()
        await self.chat_screen.views_arrived(core)
        self.startup.done()
        if self._quit_requested:
            return
        self.interaction = DialogInteraction(
            self,
            cancel_turn=self.cancel_turn,
            run_interactive=self.run_interactive,
        )
        workspace = core.workspace(
            paths=self.paths,
            interaction=self.interaction,
            project=self.launch.cwd,
            wire_log=self.launch.wire_log,
            connect=self.connect or core.connect,
        )
        self.interaction.permissions = workspace.questions.permissions
        self.interaction.refuse_all = workspace.questions.refuse_all
        from acp_tui.ui.library_feed import history_library  # indexes what is recorded

        async with history_library(self, workspace.cache, self.paths, self.launch), workspace:
            self.workspace = workspace
            self.chat_screen.attach(workspace)
            workspace.subscribe(WorkspacePoster(self.chat_screen.post_message))
            workspace.open_launch(self.launch)
            await workspace.wait_closed()

    async def on_unmount(self) -> None:
        """Stop every agent (gracefully, boundedly) before the loop goes away."""
        self._quit_requested = True
        if self.workspace is not None:
            self.workspace.close()
        worker = self._workspace_worker
        if worker is not None and not worker.is_finished:
            import asyncio
            import contextlib

            with contextlib.suppress(Exception):
                await asyncio.wait_for(worker.wait(), STOP_WITHIN)

    def action_interrupt(self) -> None:
        """Ctrl+C that copied nothing: interrupt the turn, clear the draft or offer to quit
        (see `acp_tui.ui.interrupt`)."""
        pane = self.chat_screen.current_pane
        prompt = pane.prompt
        draft = self.screen is self.chat_screen and prompt.has_focus and bool(prompt.text)
        step = self.ctrl_c.press(turn=pane.interruptible, draft=draft)
        if step == "quit":
            self.exit()
        elif step == "offer":
            self.say_now(OFFER, WINDOW)
        elif step == "interrupt":
            pane.cancel_turn()
        else:
            prompt.clear_draft()

    async def action_quit(self) -> None:
        """Ctrl+Q: quit, after asking when a turn runs or a dialog is open (a second Ctrl+Q
        answers yes)."""
        from acp_tui.ui.dialogs.confirm import QuitDialog

        reasons = quit_reasons(self, self.workspace)
        if not reasons or isinstance(self.screen, QuitDialog):
            self.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(QuitDialog(reasons), callback=answered)

    # -- themes ------------------------------------------------------------------------------

    def install_theme_files(self) -> None:
        """Register the packaged and user themes (once the first frame is out)."""
        self.theme_files_pending = False
        self.report_theme_problems(install_themes(self, self.theme, self.paths))

    def report_theme_problems(self, problems: list[str]) -> None:
        if problems:
            text = "\n".join(problems)
            self.notify(text, title="Theme problems", severity="warning", timeout=30, markup=False)

    def save_theme(self, theme: Theme) -> None:
        """Remember a theme chosen in the command palette in the config file."""
        if theme.name == self.saved_theme:
            return
        self.saved_theme = theme.name
        problem = save_theme_choice(theme.name, self.paths.config_file, tell=self.notify)
        if problem is not None:
            self.notify(f"Theme not saved: {problem}", severity="warning", markup=False)
        elif self.workspace is not None:  # in effect and in the file: not a change to report
            config = self.workspace.config
            config.settings = replace(config.settings, theme=theme.name)

    # -- the current session -----------------------------------------------------------------

    @property
    def slot(self) -> SessionSlot | None:
        """The session shown (the current tab)."""
        return self.workspace.current if self.workspace is not None else None

    @property
    def session(self) -> LiveSession | None:
        slot = self.slot
        return slot.session if slot is not None else None

    @property
    def client(self) -> AgentClient | None:
        slot = self.slot
        return slot.agent.client if slot is not None else None

    @property
    def agent_alive(self) -> bool:
        """Whether the current tab's agent is connected."""
        slot = self.slot
        return slot is not None and slot.agent.alive

    @property
    def chat(self) -> ChatScreen:
        """The chat screen (its ``current_pane`` is the tab shown)."""
        return self.chat_screen

    def cancel_turn(self, slot: SessionSlot) -> None:
        if self.workspace is not None:
            self.workspace.prompts.cancel_turn(slot)

    # -- commands ----------------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        from acp_tui.ui.session_commands import app_commands, logout_commands, tab_commands

        yield from super().get_system_commands(screen)
        yield from app_commands(self)
        yield from logout_commands(self, self.workspace, self.slot)
        yield from tab_commands(self, self.workspace, self.slot)

    @on(CommandTyped)
    def run_typed_command(self, message: CommandTyped) -> None:
        """One of acp-tui's slash commands, or a ``!`` command, typed in the tab shown."""
        from acp_tui.ui.slash_actions import run_typed

        run_typed(self, self.chat_screen.current_pane, message.parsed, message.text)

    def action_add_agent(self, first_run: bool = False) -> None:
        """The "Add an agent" dialog over the ACP agent registry."""
        from acp_tui.ui.registry_offer import open_add_agent

        open_add_agent(self, self.paths, first_run=first_run)

    def action_restart_agent(self) -> None:
        """Restart the current tab's agent; its sessions are reopened where it can."""
        from acp_tui.ui.session_commands import restart_agent

        slot = self.slot
        if self.workspace is not None and slot is not None:
            restart_agent(self, self.workspace, slot)

    def action_export_transcript(self) -> None:
        """Save the conversation as Markdown, to a path the user confirms."""
        from acp_tui.ui.session_commands import export_transcript

        export_transcript(self, self.launch.cwd, self.slot)

    def action_new_session_with_roots(self) -> None:
        """Pick the extra roots of a new session in the roots dialog, then open it."""
        from acp_tui.ui.session_commands import new_session_with_roots

        new_session_with_roots(self, self.workspace, self.slot)

    def action_wire_inspector(self) -> None:
        """Show the current agent's JSON-RPC traffic."""
        slot = self.slot
        if slot is None:
            self.notify("No agent yet: the wire inspector shows the current tab's agent.")
            return
        from acp_tui.ui.wire_inspector import WireInspector

        if not isinstance(self.screen, WireInspector):
            self.push_screen(WireInspector(slot.agent.wire, slot.agent.display_name))

    async def action_toggle_browser(self) -> None:
        """Show the session browser beside the chat, widen it, hide it."""
        await self.chat_screen.toggle_browser()

    def action_every_agent(self) -> None:
        """Every agent's sessions, merged, and search over all of them."""
        from acp_tui.ui.library.opening import open_every_agent

        if self.workspace is not None:
            ws, pane_of = self.workspace, self.chat_screen.pane_of
            open_every_agent(self, ws, self.launch, self.paths, pane_of)


def run_app(launch: LaunchSpec) -> int:
    """Run the app until the user quits; the return value is the process exit status.

    SIGTERM, SIGHUP and SIGINT quit it as Ctrl+Q does, with status 128 + the signal's number.
    An unexpected error ends it with Textual's ``return_code`` (1), its details in a file that
    stderr names (`acp_tui.ui.crash`). Warnings go to the log file (`acp_tui.client.log_file`),
    and a run that logged some says so when it ends.
    """
    from acp_tui.client.log_file import LogFile
    from acp_tui.client.process.exit_signals import exit_signals  # stdlib only, small
    from acp_tui.ui.crash import CrashReport

    app = AcpApp(launch)
    with LogFile(app.paths.log_dir) as log_file:
        crash = CrashReport(app.paths.log_dir, log_file.path)
        app.error_console = crash.console
        with exit_signals(lambda status: app.exit(status)) as signals:
            result = app.run()
    summary = log_file.summary()
    if summary is not None and not app.return_code:
        print(f"acp-tui: {summary}", file=sys.stderr)
    if signals.status is not None:
        return signals.status
    if app.return_code:
        return crash.exit_status(app.return_code)
    return result if isinstance(result, int) else 0
