"""Provides the registry's entries as validated dataclasses, and `parse_registry` to read them.

The format is the one in the registry repository's FORMAT.md and agent.schema.json:
``{"version", "agents": [{"id", "name", "version", "description", "distribution": {"npx" |
"uvx": {"package", "args"?, "env"?}, "binary": {PLATFORM: {"archive", "cmd", "args"?,
"env"?}}}, "repository"?, "authors"?, "license"?}]}``. A binary target may also carry
``"sha256"`` (hex), checked when present; the official schema has none yet.

An entry that does not fit is skipped with a reason (the others are still listed); a
distribution kind acp-tui does not know is noted on the entry, which is skipped only when it
offers nothing else. Checks are strict where a value ends up in a file name, a TOML key or a
command line.
"""

from __future__ import annotations

import json
import platform as _platform
import re
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "KINDS",
    "PLATFORMS",
    "BinaryTarget",
    "Kind",
    "PackageDistribution",
    "Registry",
    "RegistryEntry",
    "RegistryFormatError",
    "current_platform",
    "parse_registry",
]

Kind = Literal["npx", "uvx", "binary"]
KINDS: tuple[Kind, ...] = ("npx", "uvx", "binary")
"""The distribution kinds acp-tui can run, in the order it prefers them."""

PLATFORMS = (
    "darwin-aarch64",
    "darwin-x86_64",
    "linux-aarch64",
    "linux-x86_64",
    "windows-aarch64",
    "windows-x86_64",
)
"""The platform keys of a binary distribution (the registry's FORMAT.md)."""

_ID = re.compile(r"[a-z][a-z0-9-]{0,63}")
_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]{0,40}")
_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
_MAX_TEXT = 2000
_MAX_ITEMS = 100


class RegistryFormatError(Exception):
    """The registry as a whole cannot be read (not JSON, no list of agents)."""


class _Bad(Exception):
    """One entry does not fit; the message says where and why."""


@dataclass(frozen=True)
class PackageDistribution:
    """An agent run from a package: ``npx -y PACKAGE ARGS`` or ``uvx PACKAGE ARGS``."""

    kind: Literal["npx", "uvx"]
    package: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class BinaryTarget:
    """One platform's archive of a binary distribution, and the command inside it."""

    platform: str
    archive: str
    cmd: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, hash=False)
    sha256: str | None = None


@dataclass(frozen=True)
class RegistryEntry:
    """One agent of the registry."""

    id: str
    name: str
    version: str
    description: str
    repository: str | None = None
    license: str | None = None
    authors: tuple[str, ...] = ()
    npx: PackageDistribution | None = None
    uvx: PackageDistribution | None = None
    binary: dict[str, BinaryTarget] = field(default_factory=dict, hash=False)
    unknown_kinds: tuple[str, ...] = ()
    """Distribution kinds in the entry that acp-tui does not know (and so ignores)."""

    @property
    def kinds(self) -> tuple[Kind, ...]:
        """The known distribution kinds the entry offers, in KINDS order."""
        present = {"npx": self.npx, "uvx": self.uvx, "binary": self.binary or None}
        return tuple(kind for kind in KINDS if present[kind] is not None)

    def matches(self, text: str) -> bool:
        """Whether `text` (case-insensitive) is in the id, name or description."""
        needle = text.casefold()
        return any(needle in value.casefold() for value in (self.id, self.name, self.description))


@dataclass(frozen=True)
class Registry:
    """The entries that could be read, and one reason for each entry that was skipped."""

    agents: tuple[RegistryEntry, ...]
    skipped: tuple[str, ...] = ()

    def find(self, agent_id: str) -> RegistryEntry | None:
        return next((entry for entry in self.agents if entry.id == agent_id), None)

    def search(self, text: str = "") -> list[RegistryEntry]:
        """The entries matching `text` (all of them for ""), sorted by name."""
        found = [entry for entry in self.agents if not text or entry.matches(text)]
        return sorted(found, key=lambda entry: (entry.name.casefold(), entry.id))


def current_platform() -> str | None:
    """This machine's platform key (`linux-x86_64`...), or None when the registry has none."""
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "windows"}.get(_platform.system())
    machine = _platform.machine().lower()
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64"}
    if system is None or machine not in arch:
        return None
    return f"{system}-{arch[machine]}"


def parse_registry(data: bytes) -> Registry:
    """The registry in `data` (JSON text); RegistryFormatError when it is unreadable as a whole."""
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RegistryFormatError(f"not JSON ({exc})") from None
    except RecursionError:
        raise RegistryFormatError("not JSON (nested too deeply)") from None
    if not isinstance(document, dict):
        raise RegistryFormatError("not a JSON object with a list of agents")
    agents = document.get("agents")
    if not isinstance(agents, list):
        raise RegistryFormatError('no list of agents (the "agents" key)')
    entries: list[RegistryEntry] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for index, raw in enumerate(agents):
        label = _label(raw, index)
        try:
            entry = _entry(raw)
        except _Bad as exc:
            skipped.append(f"{label}: {exc}")
            continue
        if entry.id in seen:
            skipped.append(f"{label}: the id {entry.id!r} is listed twice")
            continue
        seen.add(entry.id)
        entries.append(entry)
    return Registry(tuple(entries), tuple(skipped))


def _label(raw: object, index: int) -> str:
    """How a skipped entry is named: its position, and its id when it has a plausible one."""
    agent_id = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(agent_id, str) and _ID.fullmatch(agent_id):
        return f"entry {index + 1} ({agent_id})"
    return f"entry {index + 1}"


def _entry(raw: object) -> RegistryEntry:
    if not isinstance(raw, dict):
        raise _Bad("not a JSON object")
    missing = [
        key for key in ("id", "name", "version", "description", "distribution") if key not in raw
    ]
    if missing:
        raise _Bad(f"missing {', '.join(missing)}")
    agent_id = _text(raw, "id")
    if not _ID.fullmatch(agent_id):
        raise _Bad(f"id {agent_id[:40]!r} is not lowercase letters, digits and '-'")
    version = _text(raw, "version")
    if not _VERSION.fullmatch(version):
        raise _Bad(f"version {version[:40]!r} is not a version number like 1.2.3")
    distribution = raw["distribution"]
    if not isinstance(distribution, dict) or not distribution:
        raise _Bad("distribution: expected an object with npx, uvx or binary")
    unknown = tuple(sorted(str(kind)[:40] for kind in distribution if kind not in KINDS))
    npx = _package(distribution, "npx")
    uvx = _package(distribution, "uvx")
    binary = _binary(distribution.get("binary"))
    if npx is None and uvx is None and not binary:
        raise _Bad(f"no distribution acp-tui can run (it offers {', '.join(unknown)})")
    return RegistryEntry(
        id=agent_id,
        name=_text(raw, "name"),
        version=version,
        description=_text(raw, "description"),
        repository=_optional_text(raw, "repository"),
        license=_optional_text(raw, "license"),
        authors=_strings(raw.get("authors", []), "authors"),
        npx=npx,
        uvx=uvx,
        binary=binary,
        unknown_kinds=unknown,
    )


def _package(
    distribution: dict[str, Any], kind: Literal["npx", "uvx"]
) -> PackageDistribution | None:
    raw = distribution.get(kind)
    if raw is None:
        return None
    where = f"distribution.{kind}"
    if not isinstance(raw, dict):
        raise _Bad(f"{where}: expected an object")
    if "package" not in raw:
        raise _Bad(f"{where}: missing package")
    package = _text(raw, "package", where)
    if package.startswith("-") or any(c.isspace() for c in package):
        raise _Bad(f"{where}.package: {package[:40]!r} is not a package name")
    return PackageDistribution(
        kind=kind,
        package=package,
        args=_strings(raw.get("args", []), f"{where}.args"),
        env=_env(raw.get("env", {}), f"{where}.env"),
    )


def _binary(raw: object) -> dict[str, BinaryTarget]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _Bad("distribution.binary: expected an object of platforms")
    targets: dict[str, BinaryTarget] = {}
    for platform, target in raw.items():
        if platform not in PLATFORMS:
            continue  # a platform key from a later format: not one acp-tui could run on
        where = f"distribution.binary.{platform}"
        if not isinstance(target, dict):
            raise _Bad(f"{where}: expected an object")
        missing = [key for key in ("archive", "cmd") if key not in target]
        if missing:
            raise _Bad(f"{where}: missing {', '.join(missing)}")
        sha256 = _optional_text(target, "sha256", where)
        if sha256 is not None and not _SHA256.fullmatch(sha256):
            raise _Bad(f"{where}.sha256: not 64 hexadecimal digits")
        targets[platform] = BinaryTarget(
            platform=platform,
            archive=_text(target, "archive", where),
            cmd=_text(target, "cmd", where),
            args=_strings(target.get("args", []), f"{where}.args"),
            env=_env(target.get("env", {}), f"{where}.env"),
            sha256=sha256.lower() if sha256 else None,
        )
    return targets


def _text(raw: dict[str, Any], key: str, where: str = "") -> str:
    value = raw[key]
    name = f"{where}.{key}" if where else key
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"{name}: expected a non-empty string")
    if len(value) > _MAX_TEXT:
        raise _Bad(f"{name}: longer than {_MAX_TEXT} characters")
    if "\x00" in value:
        raise _Bad(f"{name}: contains a NUL character")
    return value


def _optional_text(raw: dict[str, Any], key: str, where: str = "") -> str | None:
    return None if raw.get(key) is None else _text(raw, key, where)


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > _MAX_ITEMS:
        raise _Bad(f"{where}: expected a list of strings")
    for item in value:
        if not isinstance(item, str) or len(item) > _MAX_TEXT or "\x00" in item:
            raise _Bad(f"{where}: expected a list of strings")
    return tuple(value)


def _env(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or len(value) > _MAX_ITEMS:
        raise _Bad(f"{where}: expected an object of strings")
    for key, item in value.items():
        if not _ENV_KEY.fullmatch(key):
            raise _Bad(f"{where}: {key[:40]!r} is not an environment variable name")
        if not isinstance(item, str) or len(item) > _MAX_TEXT or "\x00" in item:
            raise _Bad(f"{where}.{key}: expected a string")
    return dict(value)
