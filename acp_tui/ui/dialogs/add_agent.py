"""Provides AddAgentDialog: pick an agent from the ACP registry and add it to the config file.

The registry is read in a thread (the network, else the cached copy, whose age is shown). The
list shows each agent's name, version and how it runs here (npx, uvx, binary, and whether the
launcher is on PATH); the detail below shows the highlighted agent's description and the exact
`[agents.NAME]` table that Add writes, after the archive a binary downloads. Add (Enter on the
list, or the button) asks before replacing an agent of the same name, downloads a binary with a
progress bar, and dismisses with the added agent; any failure is shown and nothing is changed.
With `first_run`, the dialog is the offer made when no agent is configured, and its other
button keeps the demo agent.

The dialog is self-contained: the caller only pushes it and handles the result.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from acp_tui.client.agent.launch import DEMO_AGENT_NAME
from acp_tui.config.edit import ConfigEditError
from acp_tui.config.paths import Paths
from acp_tui.config.settings import load_settings
from acp_tui.registry.entries import Kind, RegistryEntry, current_platform
from acp_tui.registry.fetch import DownloadError, RegistryUnavailable, RegistryView, load_registry
from acp_tui.registry.install import (
    AgentPlan,
    InstallError,
    Which,
    install_agent,
    plan_agent,
    runnable_kinds,
)
from acp_tui.ui.dialogs.confirm import ConfirmDialog
from acp_tui.ui.dialogs.registry_text import (
    download_text,
    entry_heading,
    entry_row,
    runs_with,
    table_text,
)
from acp_tui.ui.plain_text import sanitize

__all__ = ["AddAgentDialog", "AddedAgent"]


@dataclass(frozen=True)
class AddedAgent:
    """The agent written to the config file."""

    name: str
    title: str
    config_file: Path


class _Cancelled(Exception):
    """The user left while a download was running."""


class AddAgentDialog(ModalScreen[AddedAgent | None]):
    """Returns the added agent, or None when the user cancels (or keeps the demo agent)."""

    DEFAULT_CSS = """
    AddAgentDialog {
        align: center middle;
        #add-box {
            width: 90%;
            max-width: 110;
            height: 95%;
            border: thick $primary;
            background: $panel;
            padding: 0 1;
        }
        #add-title { text-style: bold; }
        #add-intro { color: $text-muted; }
        #add-source { color: $text-muted; height: auto; }
        #add-source.-stale { color: $warning; }
        #add-filter { margin-top: 1; }
        #add-list { height: auto; min-height: 4; max-height: 35%; border: round $primary-muted; }
        #add-detail { height: 1fr; min-height: 6; border: round $primary-muted; padding: 0 1; }
        #add-detail Static { height: auto; }
        #detail-download { margin-top: 1; }
        #detail-table { background: $surface; padding: 0 1; margin: 1 0; }
        #detail-warning { color: $warning; }
        #detail-error, #add-status.-error { color: $error; }
        #add-status { height: auto; }
        #add-progress { display: none; }
        #add-progress.-shown { display: block; }
        #add-buttons { dock: bottom; height: auto; padding-top: 1; align-horizontal: right; }
        #add-buttons Button { margin-left: 2; }
        &.-unavailable { #add-filter, #add-list, #add-detail { display: none; } }
        #add-retry { display: none; }
        &.-unavailable #add-retry { display: block; }
    }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("d", "switch_distribution", "Distribution", show=False),
    ]
    AUTO_FOCUS = "#add-list"

    def __init__(
        self,
        registry_url: str,
        paths: Paths,
        *,
        first_run: bool = False,
        platform: str | None = None,
        which: Which = shutil.which,
    ) -> None:
        super().__init__()
        self.registry_url = registry_url
        self.paths = paths
        self.first_run = first_run
        self.platform = platform if platform is not None else current_platform()
        self.which = which
        self.view: RegistryView | None = None
        self.entries: list[RegistryEntry] = []
        self.chosen_kind: dict[str, Kind] = {}
        self.plan: AgentPlan | None = None
        self.installing = False
        self.cancel_install = threading.Event()

    def compose(self) -> ComposeResult:
        # The buttons are docked at the bottom: on a small terminal the detail shrinks (and
        # scrolls), never the buttons.
        with Vertical(id="add-box"):
            if self.first_run:
                yield Static("No agent is configured yet", id="add-title")
                yield Static(
                    "acp-tui is running its demo agent. Add a real one from the ACP agent "
                    'registry, or keep using the demo agent (Ctrl+P, "Add an agent" brings '
                    "this back).",
                    id="add-intro",
                )
            else:
                yield Static("Add an agent from the ACP registry", id="add-title")
            yield Static(Text(f"Reading {self.registry_url} …"), id="add-source")
            yield Input(placeholder="Filter by name or description", id="add-filter", compact=True)
            yield OptionList(id="add-list")
            with VerticalScroll(id="add-detail"):
                yield Static(id="detail-heading")
                yield Static(id="detail-runs")
                yield Static(id="detail-download")
                yield Static(id="detail-table")
                yield Static(id="detail-warning")
                yield Static(id="detail-error")
            yield ProgressBar(id="add-progress", show_eta=False)
            status = Static(id="add-status")
            status.display = False  # until there is something to say
            yield status
            with Horizontal(id="add-buttons"):
                leave = "Keep using the demo agent" if self.first_run else "Cancel"
                yield Button(leave, id="add-cancel", compact=True)
                yield Button("Retry", id="add-retry", compact=True)
                yield Button(
                    "Add", id="add-confirm", variant="primary", disabled=True, compact=True
                )

    def on_mount(self) -> None:
        self.show_detail(None)
        self.load()

    # -- the registry ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="registry-load", exit_on_error=False)
    def load(self) -> None:
        """Read the registry (network, else cache) off the event loop."""
        try:
            view = load_registry(self.registry_url, self.paths.cache_dir)
        except RegistryUnavailable as exc:
            self.app.call_from_thread(self.show_unavailable, str(exc))
            return
        self.app.call_from_thread(self.show_registry, view)

    def show_unavailable(self, reason: str) -> None:
        if not self.is_attached:
            return
        source = self.query_one("#add-source", Static)
        source.update(Text(f"Cannot read the agent registry: {sanitize(reason)}"))
        source.add_class("-stale")
        self.add_class("-unavailable")  # nothing to list: the whole error, and Retry
        self.set_status("Check your connection and registry_url, then Retry.", True)
        self.query_one("#add-retry", Button).focus()

    @on(Button.Pressed, "#add-retry")
    def retry(self) -> None:
        self.remove_class("-unavailable")
        self.query_one("#add-source", Static).update(Text(f"Reading {self.registry_url} …"))
        self.set_status("", False)
        self.query_one("#add-list", OptionList).focus()
        self.load()

    def show_registry(self, view: RegistryView) -> None:
        if not self.is_attached:
            return
        self.view = view
        line = view.describe()
        skipped = len(view.registry.skipped)
        if skipped:
            line += f"  ({skipped} unusable {'entry' if skipped == 1 else 'entries'} skipped)"
        source = self.query_one("#add-source", Static)
        source.update(Text(sanitize(line)))
        source.set_class(view.stale_reason is not None, "-stale")
        self.fill_list()

    @on(Input.Changed, "#add-filter")
    def filter_changed(self) -> None:
        self.fill_list()

    @on(Input.Submitted, "#add-filter")
    def filter_submitted(self) -> None:
        self.query_one("#add-list", OptionList).focus()

    def fill_list(self) -> None:
        if self.view is None:
            return
        text = self.query_one("#add-filter", Input).value.strip()
        self.entries = self.view.registry.search(text)
        options = self.query_one("#add-list", OptionList)
        options.set_options(
            Option(entry_row(entry, self.platform, self.which), id=entry.id)
            for entry in self.entries
        )
        if self.entries:
            options.highlighted = 0
        else:
            self.show_detail(None)

    @on(OptionList.OptionHighlighted, "#add-list")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.show_detail(self.entry(event.option.id))
        # The detail's new text may change the layout: keep the highlighted row in view.
        self.call_after_refresh(event.option_list.scroll_to_highlight)

    @on(OptionList.OptionSelected, "#add-list")
    def selected(self) -> None:
        self.action_add()

    def entry(self, agent_id: str | None) -> RegistryEntry | None:
        return next((entry for entry in self.entries if entry.id == agent_id), None)

    def highlighted_entry(self) -> RegistryEntry | None:
        option = self.query_one("#add-list", OptionList).highlighted_option
        return None if option is None else self.entry(option.id)

    # -- the detail ------------------------------------------------------------------------

    def show_detail(self, entry: RegistryEntry | None) -> None:
        """Show `entry` and the table Add would write (or why it cannot be added)."""
        self.plan = None
        parts: dict[str, Text | None] = dict.fromkeys(
            ("heading", "runs", "table", "download", "warning", "error")
        )
        if entry is not None:
            parts["heading"] = entry_heading(entry)
            try:
                self.plan = plan_agent(
                    entry,
                    paths=self.paths,
                    platform=self.platform,
                    name=entry.id,
                    kind=self.chosen_kind.get(entry.id),
                    which=self.which,
                )
            except InstallError as exc:
                parts["error"] = Text(f"Cannot be added here: {sanitize(str(exc))}")
            else:
                others = [k for k in runnable_kinds(entry, self.platform) if k != self.plan.kind]
                parts["runs"] = runs_with(self.plan, others)
                parts["table"] = table_text(self.plan, self.paths.config_file)
                parts["download"] = download_text(self.plan)
                warnings = self.plan.warnings(self.which)
                if entry.id == DEMO_AGENT_NAME:
                    warnings.append("'demo' is the demo agent's name: add it from the command line")
                    self.plan = None
                parts["warning"] = Text("\n".join(warnings)) if warnings else None
        for key, text in parts.items():
            widget = self.query_one(f"#detail-{key}", Static)
            widget.update(text or "")
            widget.display = text is not None
        self.query_one("#add-confirm", Button).disabled = self.plan is None or self.installing

    def action_switch_distribution(self) -> None:
        """Use the highlighted agent's next distribution kind that can run here."""
        entry = self.highlighted_entry()
        if entry is None or self.plan is None or self.installing:
            return
        kinds = runnable_kinds(entry, self.platform)
        if len(kinds) > 1:
            self.chosen_kind[entry.id] = kinds[(kinds.index(self.plan.kind) + 1) % len(kinds)]
            self.show_detail(entry)

    # -- adding ----------------------------------------------------------------------------

    @on(Button.Pressed, "#add-confirm")
    def action_add(self) -> None:
        plan = self.plan
        if plan is None or self.installing:
            return
        existing = load_settings(self.paths.config_file).settings.agents.get(plan.name)
        if existing is None:
            self.start_install(plan, replace_existing=False)
            return
        current = " ".join([existing.command, *existing.args])

        def answered(replace: bool | None) -> None:
            if replace:
                self.start_install(plan, replace_existing=True)

        question = f"Replace the agent {plan.name!r} with {plan.entry.name}?"
        dialog = ConfirmDialog(question, [f"now: {current}"], confirm_label="Replace")
        self.app.push_screen(dialog, callback=answered)

    def start_install(self, plan: AgentPlan, *, replace_existing: bool) -> None:
        self.installing = True
        self.cancel_install.clear()
        self.query_one("#add-confirm", Button).disabled = True
        if plan.target is not None:
            self.query_one("#add-progress", ProgressBar).add_class("-shown")
            self.set_status(f"Downloading {plan.entry.name} …", False)
        self.install(plan, replace_existing)

    @work(thread=True, exclusive=True, group="registry-install", exit_on_error=False)
    def install(self, plan: AgentPlan, replace_existing: bool) -> None:
        """Download (for a binary) and write the table, off the event loop."""

        def progress(done: int, total: int | None) -> None:
            if self.cancel_install.is_set():
                raise _Cancelled
            self.app.call_from_thread(self.show_progress, done, total)

        try:
            install_agent(
                plan,
                self.paths.config_file,
                replace_existing=replace_existing,
                progress=progress,
                tell=lambda note: self.app.call_from_thread(self.notify, note),
            )
        except _Cancelled:
            self.app.call_from_thread(self.finish, None)
        except (DownloadError, InstallError, ConfigEditError) as exc:
            self.app.call_from_thread(self.install_failed, str(exc))
        else:
            added = AddedAgent(plan.name, plan.config.title or plan.name, self.paths.config_file)
            self.app.call_from_thread(self.finish, added)

    def finish(self, result: AddedAgent | None) -> None:
        if self.is_attached:
            self.dismiss(result)

    def show_progress(self, done: int, total: int | None) -> None:
        if not self.is_attached:
            return
        self.query_one("#add-progress", ProgressBar).update(total=total, progress=done)

    def install_failed(self, reason: str) -> None:
        if not self.is_attached:
            return
        self.installing = False
        self.query_one("#add-progress", ProgressBar).remove_class("-shown")
        self.set_status(f"Not added: {reason}. Nothing was changed.", True)
        self.query_one("#add-confirm", Button).disabled = self.plan is None

    def set_status(self, text: str, error: bool) -> None:
        status = self.query_one("#add-status", Static)
        status.update(Text(sanitize(text)))
        status.set_class(error, "-error")
        status.display = bool(text)

    # -- leaving ---------------------------------------------------------------------------

    @on(Button.Pressed, "#add-cancel")
    def action_cancel(self) -> None:
        if self.installing:
            self.cancel_install.set()  # the download stops at its next chunk
            self.set_status("Stopping the download …", False)
            return
        self.dismiss(None)
