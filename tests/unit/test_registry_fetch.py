"""Fetching the registry (loopback HTTP and file://), its cache, and downloads; no network."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from acp_tui.config.paths import Paths
from acp_tui.registry.fetch import (
    DownloadError,
    RegistryUnavailable,
    download,
    format_age,
    load_registry,
)
from tests.registry_helpers import (
    closed_port_url,
    fixture_archives,
    registry_json,
    serve,
    serve_fixture,
    write_file_registry,
)


def age_cache(paths: Paths, seconds: float) -> None:
    """Make the cached copy look `seconds` older."""
    cache = paths.cache_dir / "registry.json"
    data = json.loads(cache.read_bytes())
    data["fetched_at"] -= seconds
    cache.write_text(json.dumps(data))


def test_the_registry_is_fetched_and_cached_with_its_fetch_time(acp_home: Paths) -> None:
    before = time.time()
    with serve_fixture() as server:
        view = load_registry(server.url, acp_home.cache_dir)
    assert view.stale_reason is None
    assert view.url == server.url
    assert before <= view.fetched_at <= time.time()
    assert view.registry.find("gamma") is not None
    assert view.describe() == f"Registry: {server.url}"
    cached = json.loads((acp_home.cache_dir / "registry.json").read_bytes())
    assert cached["url"] == server.url
    assert cached["fetched_at"] == view.fetched_at


def test_offline_the_cache_is_used_and_its_age_said(acp_home: Paths) -> None:
    with serve_fixture() as server:
        url = server.url
        load_registry(url, acp_home.cache_dir)
    age_cache(acp_home, 3 * 3600 + 60)
    view = load_registry(url, acp_home.cache_dir)  # the server is gone: connection refused
    assert view.stale_reason is not None
    assert f"cannot reach {url}" in view.stale_reason
    assert view.describe().startswith("Using the copy cached 3 hours ago: could not refresh it")
    assert view.registry.find("alpha") is not None


def test_offline_without_a_cache_is_one_clear_error(acp_home: Paths) -> None:
    url = closed_port_url()
    with pytest.raises(RegistryUnavailable) as caught:
        load_registry(url, acp_home.cache_dir)
    assert str(caught.value).startswith(f"cannot reach {url}: ")
    assert str(caught.value).endswith("; and there is no cached copy")


def test_a_cache_of_another_url_is_not_used(acp_home: Paths) -> None:
    with serve_fixture() as server:
        load_registry(server.url, acp_home.cache_dir)
    with pytest.raises(RegistryUnavailable, match="no cached copy"):
        load_registry(closed_port_url(), acp_home.cache_dir)


def test_a_registry_that_is_not_json_falls_back_to_the_cache(acp_home: Paths) -> None:
    with serve_fixture() as server:
        load_registry(server.url, acp_home.cache_dir)
        server.files["/registry.json"] = b"<html>maintenance</html>"
        view = load_registry(server.url, acp_home.cache_dir)
        assert view.stale_reason is not None
        assert "cannot be read: not JSON" in view.stale_reason
        (acp_home.cache_dir / "registry.json").unlink()
        with pytest.raises(RegistryUnavailable, match="cannot be read: not JSON"):
            load_registry(server.url, acp_home.cache_dir)


def test_an_http_error_is_named(acp_home: Paths) -> None:
    with serve() as server, pytest.raises(RegistryUnavailable, match="answered HTTP 404"):
        load_registry(server.url, acp_home.cache_dir)


def test_a_file_url_is_read(acp_home: Paths, tmp_path: Path) -> None:
    url = write_file_registry(tmp_path, registry_json("https://x.invalid", fixture_archives()))
    view = load_registry(url, acp_home.cache_dir)
    assert view.stale_reason is None
    assert view.registry.find("beta") is not None


def test_plain_http_elsewhere_is_refused_before_any_request(acp_home: Paths) -> None:
    with pytest.raises(RegistryUnavailable, match=r"registry_url: expected an https://"):
        load_registry("http://registry.example.invalid/registry.json", acp_home.cache_dir)


def test_a_redirect_to_plain_http_elsewhere_is_refused(acp_home: Paths) -> None:
    with serve() as server:
        server.redirects["/registry.json"] = "http://registry.example.invalid/registry.json"
        with pytest.raises(RegistryUnavailable, match="refused a redirect"):
            load_registry(server.url, acp_home.cache_dir)


def test_a_redirect_on_loopback_is_followed(acp_home: Paths) -> None:
    with serve_fixture() as server:
        server.redirects["/latest.json"] = f"{server.base}/registry.json"
        view = load_registry(f"{server.base}/latest.json", acp_home.cache_dir)
    assert view.registry.find("alpha") is not None


# -- downloads ---------------------------------------------------------------------------------


def test_download_reports_progress_and_checks_the_sha256(tmp_path: Path) -> None:
    data = b"x" * 300_000
    calls: list[tuple[int, int | None]] = []
    with serve({"/a.tar.gz": data}) as server:
        found = download(
            f"{server.base}/a.tar.gz",
            tmp_path / "a",
            sha256=hashlib.sha256(data).hexdigest(),
            progress=lambda done, total: calls.append((done, total)),
        )
    assert found == hashlib.sha256(data).hexdigest()
    assert (tmp_path / "a").read_bytes() == data
    assert calls[0] == (0, len(data))
    assert calls[-1] == (len(data), len(data))
    assert len(calls) > 2


def test_a_wrong_checksum_keeps_nothing(tmp_path: Path) -> None:
    with serve({"/a.zip": b"abc"}) as server, pytest.raises(DownloadError, match="checksum"):
        download(f"{server.base}/a.zip", tmp_path / "a", sha256="0" * 64)
    assert list(tmp_path.iterdir()) == []


def test_a_download_that_stops_half_way_keeps_nothing(tmp_path: Path) -> None:
    with serve({"/a.zip": b"y" * 100_000}) as server, pytest.raises(DownloadError):
        download(f"{server.base}/truncated/a.zip", tmp_path / "a")
    assert list(tmp_path.iterdir()) == []


def test_an_archive_url_must_be_https(tmp_path: Path) -> None:
    for url in ("http://example.invalid/a.zip", "file:///etc/passwd", "ftp://x/a"):
        with pytest.raises(DownloadError, match="must be https://"):
            download(url, tmp_path / "a")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_archive_is_named(tmp_path: Path) -> None:
    with serve() as server, pytest.raises(DownloadError, match="HTTP 404"):
        download(f"{server.base}/nothing.zip", tmp_path / "a")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 seconds"),
        (1, "1 second"),
        (59, "59 seconds"),
        (60, "1 minute"),
        (7200, "2 hours"),
        (86400 * 3 + 5, "3 days"),
    ],
)
def test_format_age(seconds: float, text: str) -> None:
    assert format_age(seconds) == text


def test_the_default_registry_is_https_and_out_of_the_tests_reach(acp_home: Paths) -> None:
    from acp_tui.config.settings import DEFAULT_REGISTRY_URL, Settings

    assert Settings().registry_url == DEFAULT_REGISTRY_URL
    assert DEFAULT_REGISTRY_URL.startswith("https://cdn.agentclientprotocol.com/")
    with pytest.raises(RegistryUnavailable, match="tests may not look up"):
        load_registry(DEFAULT_REGISTRY_URL, acp_home.cache_dir)
