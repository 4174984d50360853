"""Helpers for the registry tests: archives built in the test and a loopback HTTP server.

Nothing here touches the network: the server listens on 127.0.0.1 on a free port and serves
what the test gives it. The registry fixture (tests/data/registry/registry.json) names its
archives as ``@BASE@/NAME`` and their checksums as ``@SHA256:NAME@``; `registry_json` fills
them in.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import io
import json
import tarfile
import threading
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import DATA

FIXTURE = DATA / "registry" / "registry.json"
PLATFORM = "linux-x86_64"
"""The platform the tests pretend to run on, whatever the machine."""

AGENT_SCRIPT = b"#!/bin/sh\necho gamma agent\n"


def tar_gz(files: Mapping[str, bytes], *, mode: int = 0o755, fmt: str = "gz") -> bytes:
    """A .tar.gz (or .tar.xz / .tar.bz2 with fmt) holding `files`; the same bytes every time."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w" if fmt == "gz" else f"w:{fmt}") as tar:  # type: ignore[call-overload]
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            tar.addfile(info, io.BytesIO(data))
    if fmt == "gz":  # gzip's header holds a time: fix it, so the checksum is fixed too
        return gzip.compress(buffer.getvalue(), mtime=0)
    return buffer.getvalue()


def tar_with(members: list[tarfile.TarInfo], data: Mapping[str, bytes] | None = None) -> bytes:
    """A .tar.gz of hand-made members (links, devices, odd names) for the refusal tests."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for member in members:
            content = (data or {}).get(member.name)
            if content is not None:
                member.size = len(content)
            tar.addfile(member, io.BytesIO(content) if content is not None else None)
    return buffer.getvalue()


def zip_of(files: Mapping[str, bytes], *, mode: int = 0o755) -> bytes:
    """A .zip holding `files`, with Unix permissions `mode` recorded."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (0o100000 | mode) << 16
            zipped.writestr(info, data)
    return buffer.getvalue()


def fixture_archives() -> dict[str, bytes]:
    """The archives the registry fixture names, built here."""
    return {
        "gamma-1.0.0.tar.gz": tar_gz({"bin/gamma": AGENT_SCRIPT, "README": b"gamma\n"}),
        "gamma-1.1.0.tar.gz": tar_gz({"bin/gamma": AGENT_SCRIPT + b"# 1.1.0\n"}),
        "delta-2.0.0.zip": zip_of({"delta": b"#!/bin/sh\necho delta\n"}),
        "evil.tar.gz": tar_gz({"evil": AGENT_SCRIPT, "../escaped": b"owned\n"}),
    }


def registry_json(base: str, archives: Mapping[str, bytes], text: str | None = None) -> bytes:
    """The fixture (or `text`) with its archive URLs under `base` and their real checksums."""
    text = FIXTURE.read_text(encoding="utf-8") if text is None else text
    text = text.replace("@BASE@", base)
    for name, data in archives.items():
        text = text.replace(f"@SHA256:{name}@", hashlib.sha256(data).hexdigest())
    return text.encode()


def with_version(document: bytes, agent_id: str, version: str, archive: str | None = None) -> bytes:
    """The registry `document` with one entry moved to `version` (and its archives renamed)."""
    data: dict[str, Any] = json.loads(document)
    for entry in data["agents"]:
        if isinstance(entry, dict) and entry.get("id") == agent_id:
            old = entry["version"]
            entry["version"] = version
            for target in entry["distribution"].get("binary", {}).values():
                target["archive"] = archive or target["archive"].replace(old, version)
                target.pop("sha256", None)
            for kind in ("npx", "uvx"):
                if kind in entry["distribution"]:
                    package = entry["distribution"][kind]["package"]
                    entry["distribution"][kind]["package"] = package.replace(old, version)
    return json.dumps(data).encode()


@dataclass
class RegistryServer:
    """A loopback HTTP server for one test; `files` maps a path to what is served there."""

    base: str
    files: dict[str, bytes] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"{self.base}/registry.json"


class _Handler(http.server.BaseHTTPRequestHandler):
    server_state: RegistryServer

    def do_GET(self) -> None:
        state = self.server_state
        state.requests.append(self.path)
        path = self.path.split("?", 1)[0]
        if path in state.redirects:
            self.send_response(302)
            self.send_header("Location", state.redirects[path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        truncated = path.startswith("/truncated/")
        data = state.files.get(path.removeprefix("/truncated") if truncated else path)
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2] if truncated else data)
        if truncated:
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet


@contextmanager
def serve(files: Mapping[str, bytes] | None = None) -> Iterator[RegistryServer]:
    """Serve `files` on 127.0.0.1 (a free port) until the block ends."""
    handler = type("Handler", (_Handler,), {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    state = RegistryServer(f"http://127.0.0.1:{server.server_address[1]}", dict(files or {}))
    handler.server_state = state
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def serve_fixture() -> Iterator[RegistryServer]:
    """The registry fixture and its archives, served on loopback."""
    archives = fixture_archives()
    with serve() as state:
        state.files.update({f"/{name}": data for name, data in archives.items()})
        state.files["/registry.json"] = registry_json(state.base, archives)
        yield state


def closed_port_url() -> str:
    """A loopback URL where nothing listens (connection refused at once): "offline"."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/registry.json"


def write_file_registry(directory: Path, document: bytes) -> str:
    """`document` saved under `directory`, as a file:// URL."""
    path = directory / "registry.json"
    path.write_bytes(document)
    return path.as_uri()
