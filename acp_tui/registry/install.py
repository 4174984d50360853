"""Provides the plan for adding a registry agent, and carrying it out into the config file.

`plan_agent` turns an entry into the exact `[agents.NAME]` table that will be written (shown to
the user before anything happens): ``npx -y PACKAGE ARGS``, ``uvx PACKAGE ARGS``, or for a
binary the program inside ``DATA_DIR/agents/NAME/VERSION``. `install_agent` then, for a binary,
downloads the archive to a temp file, checks its sha256 when the entry has one, unpacks it into
a new directory and switches it into place; only then is the config table written (under the
config lock). On any failure nothing is left behind and the old table and files stay as they
were.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from acp_tui.config.edit import edit_settings
from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings
from acp_tui.registry.archive import (
    ArchiveError,
    archive_format,
    extract_archive,
    resolve_command,
    safe_relative,
)
from acp_tui.registry.entries import BinaryTarget, Kind, RegistryEntry
from acp_tui.registry.fetch import Progress, check_archive_url, download

__all__ = [
    "AgentPlan",
    "InstallError",
    "NameTaken",
    "Which",
    "agent_table_toml",
    "describe_kinds",
    "install_agent",
    "installed_dir",
    "launcher_on_path",
    "plan_agent",
    "remove_installed",
    "runnable_kinds",
]

Which = Callable[[str], str | None]
"""Finds a program on PATH (`shutil.which`); tests pass their own."""

LAUNCHERS: dict[Kind, str] = {"npx": "npx", "uvx": "uvx"}


class InstallError(Exception):
    """The agent cannot be planned or installed; the message says why. Nothing was changed."""


class NameTaken(InstallError):
    """An agent of that name is already configured and replacing it was not allowed."""

    def __init__(self, name: str) -> None:
        super().__init__(f"an agent named {name!r} already exists")
        self.name = name


@dataclass(frozen=True)
class AgentPlan:
    """What adding one registry entry will do: the table to write and, for a binary, the files."""

    name: str
    entry: RegistryEntry
    kind: Kind
    config: AgentConfig
    """Exactly the `[agents.NAME]` table that will be written."""
    agent_dir: Path
    """Where acp-tui keeps this agent's downloaded files (only a binary has any)."""
    target: BinaryTarget | None = None
    """The archive to download, for a binary."""
    install_dir: Path | None = None
    """Where the archive is unpacked, for a binary."""

    @property
    def argv(self) -> list[str]:
        return [self.config.command, *self.config.args]

    def warnings(self, which: Which = shutil.which) -> list[str]:
        """What the user should know first (a launcher that is not on PATH)."""
        launcher = LAUNCHERS.get(self.kind)
        if launcher is not None and which(launcher) is None:
            tool = "Node.js (npm)" if launcher == "npx" else "uv"
            return [f"{launcher} is not on PATH: install {tool} before starting this agent"]
        return []


def runnable_kinds(entry: RegistryEntry, platform: str | None) -> list[Kind]:
    """The entry's kinds that can run on `platform` (a binary needs a build for it)."""
    return [k for k in entry.kinds if k != "binary" or (platform and platform in entry.binary)]


def describe_kinds(entry: RegistryEntry, platform: str | None, which: Which) -> str:
    """How the entry runs here: `npx`, `uvx (not on PATH)`, `binary (none for linux-x86_64)`."""
    can_run = runnable_kinds(entry, platform)
    parts = []
    for kind in entry.kinds:
        if kind not in can_run:
            parts.append(f"binary (none for {platform or 'this platform'})")
        elif not launcher_on_path(kind, which):
            parts.append(f"{kind} (not on PATH)")
        else:
            parts.append(kind)
    return ", ".join(parts)


def launcher_on_path(kind: Kind, which: Which = shutil.which) -> bool:
    """Whether the program that runs `kind` is on PATH (always true for a binary)."""
    launcher = LAUNCHERS.get(kind)
    return launcher is None or which(launcher) is not None


def installed_dir(paths: Paths, name: str, version: str | None = None) -> Path:
    """Where the binary agent `name` (at `version`) is unpacked."""
    base = paths.data_dir / "agents" / name
    return base if version is None else base / version


def plan_agent(
    entry: RegistryEntry,
    *,
    paths: Paths,
    platform: str | None,
    name: str | None = None,
    kind: Kind | None = None,
    base: AgentConfig | None = None,
    which: Which = shutil.which,
) -> AgentPlan:
    """The plan for adding `entry` as `[agents.NAME]` (NAME defaults to the entry's id).

    `kind` picks the distribution; by default the first of npx, uvx, binary that can run here
    with its launcher on PATH, else the first that can run here. `base` is the agent's current
    table when upgrading: its title, protocol, extra directories and extra env are kept.
    Raises InstallError when the entry cannot run here.
    """
    name = name or entry.id
    kind = kind or _choose_kind(entry, platform, which)
    runnable = runnable_kinds(entry, platform)
    if kind not in entry.kinds:
        offered = ", ".join(entry.kinds)
        raise InstallError(f"{entry.id!r} has no {kind} distribution (it offers {offered})")
    if kind not in runnable:
        raise InstallError(
            f"{entry.id!r} has no binary for this platform ({platform or 'unknown'}); "
            f"it has {', '.join(sorted(entry.binary))}"
        )
    old = replace(
        base or AgentConfig(command="", title=entry.name),
        registry_id=entry.id,
        registry_version=entry.version,
        registry_distribution=kind,
    )
    agent_dir = installed_dir(paths, name)
    if kind == "binary":
        assert platform is not None
        target = entry.binary[platform]
        try:
            check_archive_url(target.archive)
            archive_format(target.archive)
        except (ValueError, ArchiveError) as exc:
            raise InstallError(f"{entry.id!r}: {exc}") from None
        directory = installed_dir(paths, name, entry.version)
        try:
            program = directory / safe_relative(target.cmd, "the command")
        except ArchiveError as exc:
            raise InstallError(f"{entry.id!r}: {exc}") from None
        config = replace(
            old,
            command=str(program),
            args=list(target.args),
            env={**old.env, **target.env},
        )
        return AgentPlan(name, entry, kind, config, agent_dir, target, directory)
    package = entry.npx if kind == "npx" else entry.uvx
    assert package is not None
    args = ["-y", package.package] if kind == "npx" else [package.package]
    config = replace(
        old,
        command=kind,
        args=[*args, *package.args],
        env={**old.env, **package.env},
    )
    return AgentPlan(name, entry, kind, config, agent_dir)


def agent_table_toml(name: str, config: AgentConfig) -> str:
    """The `[agents.NAME]` table as TOML, without the keys left at their defaults."""
    import tomlkit  # its arrays stay on one line, which reads better than tomli_w's

    defaults = AgentConfig(command="")
    table = {
        key: value
        for key, value in vars(config).items()
        if value is not None and (key == "command" or value != getattr(defaults, key))
    }
    return tomlkit.dumps({"agents": {name: table}})


def install_agent(
    plan: AgentPlan,
    config_file: Path,
    *,
    replace_existing: bool = False,
    make_default: bool = False,
    progress: Progress | None = None,
    tell: Callable[[str], None] | None = None,
) -> Settings:
    """Carry out `plan`: download and unpack a binary, then write the table; return the settings.
    ``tell`` hears what the user should know of the config write (see `edit_settings`).

    Raises NameTaken when `[agents.NAME]` exists and `replace_existing` is false (checked
    before any download), DownloadError / InstallError when the binary cannot be had, and
    ConfigEditError when the config file cannot be changed. Whatever fails, the config and the
    agent's files are as they were.
    """
    _check_name_free(plan.name, config_file, replace_existing)
    switched: _Switch | None = None
    if plan.target is not None and plan.install_dir is not None:
        switched = _install_binary(plan.target, plan.install_dir, progress)

    def write(settings: Settings) -> Settings:
        if plan.name in settings.agents and not replace_existing:
            raise NameTaken(plan.name)
        agents = {**settings.agents, plan.name: plan.config}
        default = plan.name if make_default else settings.default_agent
        return replace(settings, agents=agents, default_agent=default)

    try:
        settings = edit_settings(config_file, write, tell=tell)
    except BaseException:
        if switched is not None:
            switched.undo()
        raise
    if switched is not None:
        switched.done()
    _remove_other_versions(plan)
    return settings


def remove_installed(paths: Paths, name: str) -> None:
    """Remove the unpacked files of the binary agent `name`, if any (best effort)."""
    shutil.rmtree(installed_dir(paths, name), ignore_errors=True)


# -- internals -------------------------------------------------------------------------------


def _choose_kind(entry: RegistryEntry, platform: str | None, which: Which) -> Kind:
    runnable = runnable_kinds(entry, platform)
    if not runnable:
        raise InstallError(
            f"{entry.id!r} cannot run here: it offers only a binary, with no build for this "
            f"platform ({platform or 'unknown'}); it has {', '.join(sorted(entry.binary))}"
        )
    ready = [kind for kind in runnable if launcher_on_path(kind, which)]
    return (ready or runnable)[0]


def _check_name_free(name: str, config_file: Path, replace_existing: bool) -> None:
    if replace_existing:
        return
    from acp_tui.config.settings import load_settings

    if name in load_settings(config_file).settings.agents:
        raise NameTaken(name)


class _Switch:
    """A new version directory moved into place, which can still be undone."""

    def __init__(self, final: Path, staging: Path, previous: Path | None) -> None:
        self.final, self.staging, self.previous = final, staging, previous

    def undo(self) -> None:
        with contextlib.suppress(OSError):
            os.rename(self.final, self.staging / "failed")
            if self.previous is not None:
                os.rename(self.previous, self.final)
        shutil.rmtree(self.staging, ignore_errors=True)

    def done(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


def _install_binary(target: BinaryTarget, final: Path, progress: Progress | None) -> _Switch:
    """Download, check and unpack into a staging directory, then switch it in as `final`."""
    fmt = archive_format(target.archive)
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=".staging-"))
    try:
        archive = staging / "archive"
        download(target.archive, archive, sha256=target.sha256, progress=progress)
        unpacked = staging / "unpacked"
        unpacked.mkdir()
        extract_archive(archive, fmt, unpacked, target.cmd)
        resolve_command(unpacked, target.cmd)
        archive.unlink()
        previous: Path | None = None
        if final.exists():
            previous = staging / "previous"
            os.rename(final, previous)
        os.rename(unpacked, final)
    except ArchiveError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise InstallError(str(exc)) from None
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise InstallError(f"could not install into {final}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return _Switch(final, staging, previous)


def _remove_other_versions(plan: AgentPlan) -> None:
    """After a successful switch, drop the agent's files that the new table no longer uses."""
    if plan.install_dir is None:
        shutil.rmtree(plan.agent_dir, ignore_errors=True)
        return
    for sibling in plan.agent_dir.iterdir():
        if sibling != plan.install_dir and not sibling.name.startswith(".staging-"):
            shutil.rmtree(sibling, ignore_errors=True)
