"""Provides `acp-tui agents search|upgrade` and `agents add --from-registry`: the ACP registry.

The registry's entries are untrusted: what they say is printed with control characters made
visible, and before anything is written (or downloaded) the exact `[agents.NAME]` table is
shown and the user confirms, unless `--yes` says so in advance. A prompt needs a terminal on
stdin; without one and without `--yes` the command refuses rather than guess.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from acp_tui.commands.usage import UsageError, tell
from acp_tui.config.edit import ConfigEditError
from acp_tui.config.paths import get_paths
from acp_tui.config.settings import AgentConfig, Settings, load_settings
from acp_tui.registry.entries import RegistryEntry, current_platform
from acp_tui.registry.fetch import DownloadError, RegistryUnavailable, RegistryView, load_registry
from acp_tui.registry.install import (
    AgentPlan,
    InstallError,
    Which,
    agent_table_toml,
    describe_kinds,
    install_agent,
    plan_agent,
)
from acp_tui.registry.upgrade import check_upgrades

__all__ = ["RegistryCommandError", "add_from_registry", "search", "upgrade", "visible"]

WHICH: Which = shutil.which
"""How launchers are looked up on PATH (the tests replace it)."""

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class RegistryCommandError(Exception):
    """The registry or an install failed; one line on stderr and exit status 1."""


def visible(text: str) -> str:
    """`text` from the registry with control characters (escape sequences) and bidi controls
    made harmless (shown as "\N{REPLACEMENT CHARACTER}")."""
    return _CONTROL.sub("\N{REPLACEMENT CHARACTER}", text)


def search(text: str | None) -> int:
    """`acp-tui agents search [TEXT]`: the registry's agents as a table."""
    loaded = load_settings(get_paths().config_file)
    for problem in loaded.problems:  # searching changes nothing: warn, and go on
        print(f"acp-tui: warning: {problem}", file=sys.stderr)
    view = _registry_view(loaded.settings)
    platform = current_platform()
    entries = view.registry.search(text or "")
    rows = [_row(entry, platform) for entry in entries]
    if rows:
        widths = [max(len(row[i]) for row in [_HEADER, *rows]) for i in range(3)]
        for row in [_HEADER, *rows]:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            print("  ".join([*cells, row[3]]))
    elif text:
        print(f"no agent in the registry matches {text!r}", file=sys.stderr)
    _skipped(view)
    return 0


_HEADER = ("ID", "VERSION", "RUNS WITH", "NAME: DESCRIPTION")


def _row(entry: RegistryEntry, platform: str | None) -> tuple[str, str, str, str]:
    kinds = describe_kinds(entry, platform, WHICH)
    first = visible(entry.description.splitlines()[0] if entry.description else "")
    return (entry.id, visible(entry.version), kinds, f"{visible(entry.name)}: {first}")


def add_from_registry(options: argparse.Namespace, user_env: dict[str, str]) -> int:
    """`acp-tui agents add [NAME] --from-registry ID`: plan, show, confirm, install."""
    settings = _settings()
    view = _registry_view(settings)
    agent_id: str = options.from_registry
    entry = view.registry.find(agent_id)
    if entry is None:
        raise RegistryCommandError(_not_found(agent_id, view))
    name: str = options.name or entry.id
    base = AgentConfig(
        command="",
        title=options.title or entry.name,
        protocol=options.protocol,
        additional_directories=options.add_dirs,
    )
    paths = get_paths()
    try:
        plan = plan_agent(
            entry,
            paths=paths,
            platform=current_platform(),
            name=name,
            kind=options.distribution,
            base=base,
            which=WHICH,
        )
    except InstallError as exc:
        raise RegistryCommandError(str(exc)) from None
    if user_env:
        plan = _with_env(plan, user_env)
    _show_plan(plan, paths.config_file)
    replacing = name in settings.agents
    if replacing and not options.replace:
        old = settings.agents[name]
        question = f"Replace the agent {name!r} ({shlex.join([old.command, *old.args])})?"
        refusal = f"an agent named {name!r} already exists; add --replace to replace it"
        if not _confirm(question, refusal):
            return 1
    elif not options.yes and not _confirm(f"Add {name!r}?", "add --yes to add it without asking"):
        return 1
    _install(plan, options.default, replace_existing=replacing)
    print(f"added {name!r} to {paths.config_file}; start it with: acp-tui -a {name}")
    return 0


def upgrade(names: Sequence[str], *, dry_run: bool, yes: bool) -> int:
    """`acp-tui agents upgrade [NAME...]`: move registry agents to the registry's version."""
    settings = _settings()
    for name in names:
        if name not in settings.agents:
            raise UsageError(f"no agent named {name!r} in the config file")
    view = _registry_view(settings)
    paths = get_paths()
    checks = check_upgrades(
        settings,
        view.registry,
        paths=paths,
        platform=current_platform(),
        names=list(names) or None,
        which=WHICH,
    )
    if not checks:
        print("no agent in the config file was added from the registry")
        return 0
    plans = []
    for check in checks:
        print(f"{check.name}: {visible(check.note)}")
        if check.plan is not None:
            plans.append(check.plan)
            print(f"  new command: {visible(shlex.join(check.plan.argv))}")
            _show_download(check.plan, indent="  ")
    if not plans or dry_run:
        return 0
    question = f"Upgrade {len(plans)} agent{'s' if len(plans) > 1 else ''}?"
    if not yes and not _confirm(question, "add --yes to upgrade without asking"):
        return 1
    failed = 0
    for plan in plans:
        try:
            _install(plan, False, replace_existing=True)
        except RegistryCommandError as exc:
            print(f"acp-tui agents: error: {plan.name}: {exc}", file=sys.stderr)
            failed += 1
        else:
            print(f"upgraded {plan.name!r} to {visible(plan.entry.version)}")
    return 1 if failed else 0


# -- shared ------------------------------------------------------------------------------------


def _settings() -> Settings:
    """The settings, refusing (ConfigEditError) a config file that does not load cleanly."""
    config_file = get_paths().config_file
    loaded = load_settings(config_file)
    if loaded.problems:
        raise ConfigEditError(
            *loaded.problems, f"not changing {config_file} until these problems are fixed"
        )
    return loaded.settings


def _registry_view(settings: Settings) -> RegistryView:
    try:
        view = load_registry(settings.registry_url, get_paths().cache_dir)
    except RegistryUnavailable as exc:
        raise RegistryCommandError(f"cannot read the agent registry: {exc}") from None
    print(visible(view.describe()), file=sys.stderr)
    return view


def _skipped(view: RegistryView) -> None:
    skipped = view.registry.skipped
    if skipped:
        print(f"{len(skipped)} registry entries skipped as unusable:", file=sys.stderr)
        for reason in skipped:
            print(f"  {visible(reason)}", file=sys.stderr)


def _not_found(agent_id: str, view: RegistryView) -> str:
    for reason in view.registry.skipped:
        if f"({agent_id})" in reason:
            return f"{agent_id!r} is in the registry but cannot be used: {visible(reason)}"
    return f"no agent {agent_id!r} in the registry (see 'acp-tui agents search')"


def _with_env(plan: AgentPlan, env: dict[str, str]) -> AgentPlan:
    return replace(plan, config=replace(plan.config, env={**plan.config.env, **env}))


def _show_plan(plan: AgentPlan, config_file: Path) -> None:
    print(f"{visible(plan.entry.name)} {visible(plan.entry.version)} ({plan.kind}).")
    print(f"This table will be written to {config_file}:\n")
    print(visible(agent_table_toml(plan.name, plan.config)))
    _show_download(plan)
    for warning in plan.warnings(WHICH):
        print(f"warning: {warning}")


def _show_download(plan: AgentPlan, indent: str = "") -> None:
    if plan.target is None:
        return
    check = f"sha256 {plan.target.sha256}" if plan.target.sha256 else "no checksum given"
    print(f"{indent}download: {visible(plan.target.archive)} ({check})")
    print(f"{indent}unpacked into: {plan.install_dir}")


def _confirm(question: str, refusal: str) -> bool:
    """Ask `question` on the terminal; without one, refuse with `refusal` (a UsageError)."""
    if not sys.stdin.isatty():
        raise UsageError(f"{refusal} (stdin is not a terminal, so acp-tui cannot ask)")
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() in ("y", "yes"):
        return True
    print("nothing changed")
    return False


def _install(plan: AgentPlan, make_default: bool, *, replace_existing: bool) -> None:
    progress = DownloadProgress(sys.stderr) if plan.target is not None else None
    try:
        install_agent(
            plan,
            get_paths().config_file,
            replace_existing=replace_existing,
            make_default=make_default,
            progress=progress,
            tell=tell,
        )
    except (DownloadError, InstallError) as exc:
        raise RegistryCommandError(f"{exc}; nothing was changed") from None
    finally:
        if progress is not None:
            progress.finish()


class DownloadProgress:
    """Download progress on stderr: a line redrawn in place on a terminal, else start and end."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.shown = -1
        self.done = 0

    def __call__(self, done: int, total: int | None) -> None:
        self.done = done
        if not self.tty:
            if self.shown < 0:
                size = f" ({_size(total)})" if total else ""
                print(f"downloading{size}...", file=self.stream)
                self.shown = 0
            return
        percent = done * 100 // total if total else done // 1_000_000
        if percent != self.shown:
            self.shown = percent
            of = f"{percent}% of {_size(total)}" if total else _size(done)
            self.stream.write(f"\rdownloading: {of}   ")
            self.stream.flush()

    def finish(self) -> None:
        if self.tty and self.shown >= 0:
            self.stream.write("\n")
        if self.shown >= 0:
            print(f"downloaded {_size(self.done)}", file=self.stream)


def _size(count: int | None) -> str:
    count = count or 0
    if count < 100_000:
        return f"{count} bytes"
    return f"{count / 1_000_000:.1f} MB"
