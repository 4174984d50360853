"""Provides AcpApp, the Textual application, and run_app, its entry point from the CLI.

The agent's lifetime (launch, login, reconnect, shutdown) is AgentHost's; this class adds what
the user does: prompts, cancel, permission answers, export, and the command palette entries.
Screens render from the client's transcript model and never see wire JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.theme import Theme

from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.launch import LaunchSpec
from acp_tui.client.mentions import resolve_mentions
from acp_tui.config.paths import Paths
from acp_tui.protocol.errors import RpcError
from acp_tui.store.recent_roots import recent_roots_for_project
from acp_tui.ui.agent_host import AgentHost, NeedsTerminalLogin
from acp_tui.ui.browser.actions import SessionActions
from acp_tui.ui.themes import install_themes, save_theme_choice, user_themes_dir

if TYPE_CHECKING:
    # Imported where used, after the first frame (see acp_tui.ui.chat).
    from acp_tui.client.agent import AgentClient
    from acp_tui.client.session import LiveSession
    from acp_tui.protocol.client_methods import RequestPermissionOutcome, RequestPermissionRequest
    from acp_tui.ui.dialogs.roots import RootsResult


class AcpApp(SessionActions, AgentHost):
    """acp-tui: chat with an ACP agent."""

    TITLE = "acp-tui"
    CSS_PATH = "app.tcss"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+r", "restart_agent", "Restart", tooltip="Restart the agent"),
        Binding("ctrl+s", "export_transcript", "Export"),
        Binding("ctrl+n", "new_session_with_roots", "New", tooltip="A new session, with its roots"),
        Binding("ctrl+b", "toggle_browser", "Sessions"),
    ]

    def __init__(self, launch: LaunchSpec, *, paths: Paths | None = None) -> None:
        super().__init__(launch, paths=paths)
        self.pending_prompts: list[str] = []
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
        problem = save_theme_choice(theme.name, self.paths.config_file)
        if problem is not None:
            self.notify(f"Theme not saved: {problem}", severity="warning", markup=False)

    def get_default_screen(self) -> Screen[None]:
        return self.chat

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Export transcript", "Save the conversation as Markdown", self.action_export_transcript
        )
        yield SystemCommand(
            "New session with roots…",
            "Choose extra workspace roots and start a new session",
            self.action_new_session_with_roots,
        )
        yield SystemCommand(
            "Sessions: toggle browser",
            "Show the session browser beside the chat, widen it, hide it (Ctrl+B)",
            self.action_toggle_browser,
        )
        if self.check_action("restart_agent", ()):
            yield SystemCommand(
                "Restart agent",
                "Start the agent again and reopen the session",
                self.action_restart_agent,
            )

    def session_opened(self, session: LiveSession) -> None:
        super().session_opened(session)
        self.send_pending_prompts()

    # -- prompts -----------------------------------------------------------------------------

    def submit_prompt(self, text: str, attachments: Sequence[Path] = ()) -> bool:
        """Send ``text`` and its attached files now, or once the session is open; False: refused."""
        if self.session is None:
            if self.agent_alive:  # up, but the user declined to open a session
                self.notify("No session is open: press Ctrl+N to start one.", severity="warning")
                return False
            self.pending_prompts.append(text)  # its @mentions are resolved once it is open
            self.notify("The agent is still starting; your message will be sent when it is ready.")
            return True
        if self.session.prompt_pending:
            self.notify("The agent is still working: wait, or press Esc to cancel the turn.")
            return False
        if self.session.closed:  # closed or deleted from the session browser: start a new one
            self.pending_prompts.append(text)
            self.start_new_session()
            return True
        self.run_prompt(text, attachments)
        return True

    def send_pending_prompts(self) -> None:
        if self.pending_prompts and self.session is not None:
            text = "\n\n".join(self.pending_prompts)
            self.pending_prompts.clear()
            self.run_prompt(text, resolve_mentions(text, self.session.roots, self.session.cwd))

    @work(group="prompt", exit_on_error=False)
    async def run_prompt(self, text: str, attachments: Sequence[Path] = ()) -> None:
        from acp_tui.client.prompt import build_prompt_blocks

        client, session = self.client, self.session
        if client is None or session is None:
            return
        blocks = build_prompt_blocks(
            text, attachments, embedded_context=client.capabilities.prompt_embedded_context
        )
        self.recorder.record_prompt(session.session_id, blocks)
        try:
            await self.authenticated(client, lambda: client.prompt(session.session_id, blocks))
        except NeedsTerminalLogin as need:
            session.transcript.add_notice(
                "Log in from the terminal; then send your message again.", "warning"
            )
            self.pending_login = need.method
            self.action_restart_agent()
        except AgentExited:
            pass  # the agent worker reports the exit, with its code and stderr
        except (AgentError, RpcError) as exc:
            session.transcript.add_notice(f"The prompt failed: {exc}", "error")

    def cancel_turn(self) -> None:
        if self.client is not None and self.session is not None and self.session.prompt_pending:
            self.run_cancel(self.client, self.session)

    @work(group="cancel", exit_on_error=False)
    async def run_cancel(self, client: AgentClient, session: LiveSession) -> None:
        try:
            await client.cancel(session.session_id)
        except AgentError as exc:
            session.transcript.add_notice(f"Could not cancel: {exc}", "error")

    # -- permission --------------------------------------------------------------------------

    async def ask_permission(
        self, session: LiveSession, request: RequestPermissionRequest
    ) -> RequestPermissionOutcome:
        """Show the permission dialog (the queue asks one at a time); Esc there cancels the turn
        (and so answers `cancelled`)."""
        from acp_tui.protocol.client_methods import (
            CancelledPermissionOutcome,
            SelectedPermissionOutcome,
        )
        from acp_tui.ui.dialogs.permission import PermissionDialog

        dialog = PermissionDialog(request, waiting=self.permissions.waiting)
        unsubscribe = self.permissions.subscribe(
            lambda: dialog.set_waiting(self.permissions.waiting)
        )
        try:
            option_id = await self.ask(dialog)
        finally:
            unsubscribe()
        if option_id is None:
            if session.prompt_pending and self.client is not None:
                self.run_cancel(self.client, session)
            return CancelledPermissionOutcome()
        return SelectedPermissionOutcome(option_id=option_id)

    # -- new session with extra roots -----------------------------------------------------

    def action_new_session_with_roots(self) -> None:
        """Pick the extra roots of a new session in the roots dialog, then open it."""
        from acp_tui.ui.dialogs.roots import RootsDialog

        client = self.client
        if client is None or not self.agent_alive:
            self.notify("The agent is not running.", severity="warning")
            return
        caps, current = client.capabilities, self.session
        cwd = current.cwd if current is not None else self.launch.cwd
        roots = current.additional_directories if current is not None else self.extra_roots
        dialog = RootsDialog(
            cwd,
            roots,
            recent_roots_for_project(cwd, self.paths).load(),
            supported=caps.additional_directories,
            reason=caps.why_not("additional_directories"),
        )

        def chosen(result: RootsResult | None) -> None:
            if result is not None:
                self.open_session_with_roots(client, cwd, result.roots)

        self.push_screen(dialog, callback=chosen)

    @work(group="new-with-roots", exclusive=True, exit_on_error=False)
    async def open_session_with_roots(
        self, client: AgentClient, cwd: Path, roots: tuple[Path, ...]
    ) -> None:
        try:
            session = await self.authenticated(
                client, lambda: self.create_session(client, cwd, roots)
            )
        except (AgentExited, NeedsTerminalLogin):
            return
        except (AgentError, RpcError) as exc:
            self.report_failure("Could not open a new session", exc)
            return
        if session is not None:
            self.session = session
            self.session_opened(session)

    # -- export --------------------------------------------------------------------------

    def action_export_transcript(self) -> None:
        """Save the conversation as Markdown, to a path the user confirms."""
        from acp_tui.client.export import default_export_path, transcript_to_markdown, write_export
        from acp_tui.ui.dialogs.export import ExportDialog

        session = self.session
        if session is None:
            self.notify("There is no session to export yet.", severity="warning")
            return
        cwd = self.launch.cwd
        default = default_export_path(cwd, session.transcript.title, session.session_id)

        def save(path: Path | None) -> None:
            if path is None:
                return
            text = transcript_to_markdown(
                session.transcript, agent=self.agent_display_name, cwd=str(session.cwd)
            )
            try:
                write_export(path, text)
            except (OSError, UnicodeError) as exc:
                self.notify(f"Could not export: {exc}", severity="error")
            else:
                self.notify(f"Exported to {path}")

        self.push_screen(ExportDialog(default, cwd=cwd), callback=save)


def run_app(launch: LaunchSpec) -> int:
    """Run the app until the user quits; the return value is the process exit status."""
    app = AcpApp(launch)
    result = app.run()
    return result if isinstance(result, int) else 0
