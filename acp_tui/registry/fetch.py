"""Provides the registry fetched over HTTPS, its cache, and the download of binary archives.

`load_registry` always asks the network first (the registry changes every hour) and keeps the
last good copy, with its fetch time, in the cache directory; offline, or when the registry
cannot be read, it falls back to that copy and says how old it is. Only the standard library is
used (`urllib.request`), so nothing new is installed for it.

What may be fetched: the configured registry URL (`https://`, `file://`, or `http://` to this
machine, see `check_registry_url`) and, for archives named by registry entries, `https://` only
(or `http://` to this machine, which is how the tests serve them). Redirects are held to the
same rule, so an HTTPS download cannot be downgraded on the way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from acp_tui import __version__
from acp_tui.config.settings import check_registry_url, is_loopback_host
from acp_tui.registry.entries import Registry, RegistryFormatError, parse_registry

__all__ = [
    "MAX_ARCHIVE_BYTES",
    "MAX_REGISTRY_BYTES",
    "DownloadError",
    "Progress",
    "RegistryUnavailable",
    "RegistryView",
    "check_archive_url",
    "download",
    "format_age",
    "load_registry",
]

TIMEOUT = 20.0
"""Seconds without progress before a request is given up."""
MAX_REGISTRY_BYTES = 16 * 1024 * 1024
MAX_ARCHIVE_BYTES = 2 * 1024 * 1024 * 1024
_CHUNK = 64 * 1024
_USER_AGENT = f"acp-tui/{__version__}"

Progress = Callable[[int, int | None], None]
"""Called with the bytes received so far and the total (None when the server does not say)."""


class RegistryUnavailable(Exception):
    """Neither the network nor the cache has a usable registry; the message says why."""


class DownloadError(Exception):
    """A download failed or did not match its checksum; nothing was kept."""


@dataclass(frozen=True)
class RegistryView:
    """The registry in use, where it came from and when it was fetched."""

    registry: Registry
    url: str
    fetched_at: float
    """When it was fetched (seconds since the epoch)."""
    stale_reason: str | None = None
    """Why the network copy could not be used, when this is the cached copy; None if fresh."""

    def describe(self, now: float | None = None) -> str:
        """One line for the user: where the list comes from, and how old it is if cached."""
        if self.stale_reason is None:
            return f"Registry: {self.url}"
        age = format_age((time.time() if now is None else now) - self.fetched_at)
        return f"Using the copy cached {age} ago: could not refresh it ({self.stale_reason})"


def format_age(seconds: float) -> str:
    """A duration in words: `40 seconds`, `3 minutes`, `5 hours`, `2 days`."""
    seconds = max(0, int(seconds))
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def load_registry(url: str, cache_dir: Path, *, timeout: float = TIMEOUT) -> RegistryView:
    """The registry at `url`, refreshed from the network, else the cached copy of it.

    Raises RegistryUnavailable when the network copy cannot be had or read and there is no
    cached copy of the same URL either.
    """
    try:
        check_registry_url(url)
    except ValueError as exc:
        raise RegistryUnavailable(f"registry_url: {exc}") from None
    try:
        data = _fetch_registry(url, timeout)
        registry = parse_registry(data)
    except (OSError, HTTPException, ValueError, RegistryFormatError) as exc:
        reason = _reason(exc, url)
        cached = _read_cache(cache_dir, url)
        if cached is None:
            raise RegistryUnavailable(f"{reason}; and there is no cached copy") from None
        return RegistryView(cached[0], url, cached[1], stale_reason=reason)
    now = time.time()
    with contextlib.suppress(OSError):
        _write_cache(cache_dir, url, data, now)
    return RegistryView(registry, url, now)


def check_archive_url(url: str) -> None:
    """Accept an archive URL from a registry entry: https://, or http:// to this machine."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and is_loopback_host(parts.hostname):
        return
    raise ValueError(f"the archive URL must be https:// (got {url[:100]!r})")


def download(
    url: str,
    target: Path,
    *,
    sha256: str | None = None,
    progress: Progress | None = None,
    timeout: float = TIMEOUT,
) -> str:
    """Download `url` into the new file `target` and return its sha256 (hex).

    When `sha256` is given the file must match it. On any failure (network, a short read, a
    wrong checksum, too large) `target` is removed and DownloadError says what happened.
    """
    try:
        check_archive_url(url)
    except ValueError as exc:
        raise DownloadError(str(exc)) from None
    digest = hashlib.sha256()
    try:
        with _open(url, timeout, check_archive_url) as response, open(target, "xb") as out:
            total = _length(response)
            if total is not None and total > MAX_ARCHIVE_BYTES:
                raise DownloadError(f"the archive is too large ({total} bytes)")
            done = 0
            if progress is not None:
                progress(0, total)
            while chunk := response.read(_CHUNK):
                done += len(chunk)
                if done > MAX_ARCHIVE_BYTES:
                    raise DownloadError("the archive is too large")
                digest.update(chunk)
                out.write(chunk)
                if progress is not None:
                    progress(done, total)
            if total is not None and done < total:
                raise DownloadError(f"the download stopped after {done} of {total} bytes")
            out.flush()
            os.fsync(out.fileno())
        found = digest.hexdigest()
        if sha256 is not None and found != sha256.lower():
            raise DownloadError(f"checksum mismatch: expected sha256 {sha256}, got {found}")
        return found
    except BaseException as exc:
        with contextlib.suppress(OSError):
            target.unlink()
        if isinstance(exc, DownloadError):
            raise
        if isinstance(exc, OSError | HTTPException | ValueError):
            raise DownloadError(_reason(exc, url)) from None
        raise


# -- internals -------------------------------------------------------------------------------


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to a URL the same rule allows (no downgrade to plain HTTP)."""

    def __init__(self, check: Callable[[str], None]) -> None:
        super().__init__()
        self.check = check

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        try:
            self.check(newurl)
        except ValueError as exc:
            raise urllib.error.URLError(f"refused a redirect: {exc}") from None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _open(url: str, timeout: float, check: Callable[[str], None]) -> Any:
    if urlsplit(url).scheme == "file":
        return urllib.request.urlopen(url, timeout=timeout)
    opener = urllib.request.build_opener(_Redirects(check))
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
    return opener.open(request, timeout=timeout)


def _fetch_registry(url: str, timeout: float) -> bytes:
    def check(new_url: str) -> None:
        check_registry_url(new_url)
        if urlsplit(new_url).scheme == "file":
            raise ValueError("a redirect to a local file")

    with _open(url, timeout, check) as response:
        data: bytes = response.read(MAX_REGISTRY_BYTES + 1)
    if len(data) > MAX_REGISTRY_BYTES:
        raise ValueError(f"the registry is larger than {MAX_REGISTRY_BYTES} bytes")
    return data


def _length(response: Any) -> int | None:
    value = response.headers.get("Content-Length") if hasattr(response, "headers") else None
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _reason(exc: BaseException, url: str) -> str:
    """A short reason for a failed request, without a traceback."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"{url} answered HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return f"cannot reach {url}: {exc.reason}"
    if isinstance(exc, RegistryFormatError):
        return f"the registry at {url} cannot be read: {exc}"
    if isinstance(exc, TimeoutError):
        return f"{url} did not answer in time"
    if isinstance(exc, OSError):
        return f"{url}: {exc.strerror or exc}"
    return f"{url}: {exc}"


def _cache_file(cache_dir: Path) -> Path:
    return cache_dir / "registry.json"


def _read_cache(cache_dir: Path, url: str) -> tuple[Registry, float] | None:
    """The cached registry of `url` and when it was fetched, or None (none, or unreadable)."""
    try:
        cached = json.loads(_cache_file(cache_dir).read_bytes())
        if not isinstance(cached, dict) or cached.get("url") != url:
            return None
        fetched_at = float(cached["fetched_at"])
        return parse_registry(json.dumps(cached["registry"]).encode()), fetched_at
    except (OSError, ValueError, KeyError, TypeError, RecursionError, RegistryFormatError):
        return None


def _write_cache(cache_dir: Path, url: str, data: bytes, fetched_at: float) -> None:
    """Keep `data` (known to be JSON) with its URL and fetch time, in one file, atomically."""
    cached = {"url": url, "fetched_at": fetched_at, "registry": json.loads(data)}
    cache_dir.mkdir(parents=True, exist_ok=True)
    _atomic_write(_cache_file(cache_dir), json.dumps(cached).encode())


def _atomic_write(path: Path, data: bytes) -> None:
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
