"""Provides check_upgrades: which agents added from the registry have a newer version there.

An agent added with `acp-tui agents add --from-registry` records its entry's id, version and
distribution kind; an upgrade plans the same kind of the entry's newer version on top of the
agent's current table, so the user's title, protocol, extra directories and env are kept.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass

from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings
from acp_tui.registry.entries import Registry
from acp_tui.registry.install import AgentPlan, InstallError, Which, plan_agent

__all__ = ["UpgradeCheck", "check_upgrades", "version_key"]

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)(.*)")


@dataclass(frozen=True)
class UpgradeCheck:
    """One agent's upgrade: the plan when there is one, and a line saying what was found."""

    name: str
    note: str
    plan: AgentPlan | None = None


def version_key(version: str) -> tuple[tuple[int, ...], int, str]:
    """A sort key for `1.2.3`-style versions: numbers compared as numbers, `1.0.0-rc1` < `1.0.0`.

    A version that does not start with three numbers sorts before every one that does.
    """
    match = _VERSION.match(version)
    if match is None:
        return (), 0, version
    numbers = tuple(int(part) for part in match.groups()[:3])
    rest = match.group(4)
    return numbers, 0 if rest.startswith("-") else 1, rest


def check_upgrades(
    settings: Settings,
    registry: Registry,
    *,
    paths: Paths,
    platform: str | None,
    names: list[str] | None = None,
    which: Which = shutil.which,
) -> list[UpgradeCheck]:
    """The upgrade of each agent in `names` (default: every agent added from the registry)."""
    if names is None:
        names = sorted(name for name, agent in settings.agents.items() if agent.registry_id)
    return [
        _check(name, settings.agents.get(name), registry, paths, platform, which) for name in names
    ]


def _check(
    name: str,
    config: AgentConfig | None,
    registry: Registry,
    paths: Paths,
    platform: str | None,
    which: Which,
) -> UpgradeCheck:
    if config is None:
        return UpgradeCheck(name, "no such agent in the config file")
    if not config.registry_id:
        return UpgradeCheck(name, "not added from the registry (no registry_id)")
    entry = registry.find(config.registry_id)
    if entry is None:
        return UpgradeCheck(name, f"{config.registry_id!r} is no longer in the registry")
    current = config.registry_version or "unknown"
    if config.registry_version is not None:
        if version_key(entry.version) == version_key(config.registry_version):
            return UpgradeCheck(name, f"up to date ({current})")
        if version_key(entry.version) < version_key(config.registry_version):
            return UpgradeCheck(
                name, f"the registry has {entry.version}, older than {current}: left as it is"
            )
    try:
        plan = plan_agent(
            entry,
            paths=paths,
            platform=platform,
            name=name,
            kind=config.registry_distribution,
            base=config,
            which=which,
        )
    except InstallError as exc:
        return UpgradeCheck(name, f"cannot upgrade to {entry.version}: {exc}")
    return UpgradeCheck(name, f"{current} -> {entry.version}", plan)
