"""Provides the text of the "Add an agent" dialog: list rows and the parts of an entry's detail.

Everything that comes from a registry entry is untrusted: it goes into `rich.text.Text` as
plain text (never markup) after `sanitize`, and only bold and dim styles are used here; colours
come from the dialog's CSS (theme variables).
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from acp_tui.registry.entries import Kind, RegistryEntry
from acp_tui.registry.install import AgentPlan, Which, agent_table_toml, describe_kinds
from acp_tui.ui.plain_text import sanitize

__all__ = ["download_text", "entry_heading", "entry_row", "runs_with", "table_text"]


def entry_row(entry: RegistryEntry, platform: str | None, which: Which) -> Text:
    """One row of the list: the name in bold, the version, how it runs."""
    row = Text()
    row.append(sanitize(entry.name), style="bold")
    row.append(f"  {sanitize(entry.version)}", style="dim")
    row.append(f"  {sanitize(describe_kinds(entry, platform, which))}")
    return row


def entry_heading(entry: RegistryEntry) -> Text:
    """The detail's first lines: name, version, id, license and repository, then the description."""
    heading = Text()
    heading.append(sanitize(entry.name), style="bold")
    facts = [entry.version, f"id {entry.id}"]
    if entry.license:
        facts.append(entry.license)
    heading.append("  " + "  ·  ".join(sanitize(fact) for fact in facts), style="dim")
    if entry.repository:
        heading.append(f"\n{sanitize(entry.repository)}", style="dim")
    heading.append(f"\n{sanitize(entry.description)}")
    return heading


def runs_with(plan: AgentPlan, others: list[Kind]) -> Text:
    """Which distribution will be used, and the key that switches to another one."""
    text = Text("Runs with ")
    text.append(plan.kind, style="bold")
    if plan.target is not None:
        text.append(f" for {plan.target.platform}")
    if others:
        text.append(f"   (d: use {', '.join(others)} instead)", style="dim")
    if plan.entry.unknown_kinds:
        ignored = ", ".join(sanitize(kind) for kind in plan.entry.unknown_kinds)
        text.append(f"\nIgnored, unknown to acp-tui: {ignored}", style="dim")
    return text


def table_text(plan: AgentPlan, config_file: Path) -> Text:
    """The exact table that Add writes, and where."""
    text = Text()
    text.append(f"Add writes this to {config_file}:\n", style="dim")
    text.append(sanitize(agent_table_toml(plan.name, plan.config)).rstrip("\n"))
    return text


def download_text(plan: AgentPlan) -> Text | None:
    """For a binary: the archive, its checksum (or that there is none) and where it goes."""
    if plan.target is None:
        return None
    check = f"sha256 {plan.target.sha256}" if plan.target.sha256 else "no checksum given"
    text = Text()
    text.append("Downloads ", style="dim")
    text.append(sanitize(plan.target.archive))
    text.append(f" ({check})\ninto {plan.install_dir}", style="dim")
    return text
