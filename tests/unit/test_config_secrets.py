"""What acp-tui takes for a secret (by name, or in a URL), and the config file kept private."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.config.paths import Paths
from acp_tui.config.secrets import MASK, mask_url, secret_name

SCHEMAS = Path(__file__).parents[1] / "data" / "acp" / "schema"


@pytest.mark.parametrize(
    "name",
    [
        "apiKey", "api_key", "OPENAI_API_KEY", "SERVICE_KEY", "privateKey", "accessToken",
        "access_token", "refresh_token", "token", "authtoken", "DB_PASSWORD", "passwordHash",
        "Authorization", "cookie", "Set-Cookie", "credentials", "clientSecret", "signature", "sig",
    ],
)  # fmt: skip
def test_secret_names(name: str) -> None:
    assert secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "inputTokens", "outputTokens", "maxTokens", "cachedReadTokens", "tokenCount", "sortKey",
        "key", "sessionId", "authMethods", "auth", "name", "_meta", "url", "title", "usage",
    ],
)  # fmt: skip
def test_names_that_are_not_secrets(name: str) -> None:
    assert not secret_name(name)


def test_no_field_of_the_acp_schemas_is_taken_for_a_secret() -> None:
    """Usage counts, capabilities and ids stay readable in the inspector and the wire log."""
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict):
                names.update(properties)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for schema in SCHEMAS.glob("*/*.json"):
        walk(json.loads(schema.read_text()))
    assert len(names) > 100
    assert [name for name in sorted(names) if secret_name(name)] == []


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("https://user:tok3n@mcp.example/x?a=1", f"https://user:{MASK}@mcp.example/x?a=1"),
        ("https://tok3n@mcp.example", f"https://{MASK}@mcp.example"),
        (
            "https://mcp.example/sse?token=tok3n&room=2",
            f"https://mcp.example/sse?token={MASK}&room=2",
        ),
        ("https://mcp.example/?api_key=tok3n#top", f"https://mcp.example/?api_key={MASK}#top"),
        ("http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"),
        ("https://mcp.example/?page=2", "https://mcp.example/?page=2"),
        ("not a url", "not a url"),
    ],
)
def test_urls_lose_their_credentials_and_keep_the_rest(url: str, masked: str) -> None:
    assert mask_url(url) == masked
    assert "tok3n" not in mask_url(url)


def acp_tui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        env=os.environ,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_config_show_and_mcp_list_mask_url_credentials(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text(
        '[mcp_servers.web]\nurl = "https://me:tok3n@mcp.example/sse?token=tok3n&room=2"\n'
        '[mcp_servers.bad]\nurl = "ftp://me:tok3n@mcp.example"\n'
    )
    for args in (("config", "show"), ("mcp", "list")):
        result = acp_tui(*args)
        assert "tok3n" not in result.stdout + result.stderr, (args, result)
        assert "mcp.example" in result.stdout + result.stderr


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(
    "add",
    [
        (
            "mcp",
            "add",
            "web",
            "--url",
            "https://mcp.example",
            "--header",
            "Authorization: Bearer t",
        ),
        ("mcp", "add", "web", "--url", "https://me:tok3n@mcp.example"),
        ("agents", "add", "alpha", "--env", "ALPHA_KEY=k", "--", "alpha-acp"),
    ],
    ids=["header", "url", "env"],
)
def test_a_readable_config_given_a_secret_is_made_private_and_says_so_once(
    acp_home: Paths, add: tuple[str, ...]
) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text("# mine\n")
    os.chmod(acp_home.config_file, 0o644)
    first = acp_tui(*add)
    assert first.returncode == 0, first.stderr
    assert mode(acp_home.config_file) == 0o600
    assert "readable by you only (0600)" in first.stderr
    assert acp_home.config_file.read_text().startswith("# mine\n")
    again = acp_tui("mcp", "add", "other", "--url", "https://other.example")
    assert again.returncode == 0, again.stderr
    assert mode(acp_home.config_file) == 0o600
    assert "0600" not in again.stderr  # once


def test_a_config_without_secrets_keeps_its_mode(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text("# mine\n")
    os.chmod(acp_home.config_file, 0o644)
    result = acp_tui("mcp", "add", "web", "--url", "https://mcp.example")
    assert result.returncode == 0, result.stderr
    assert mode(acp_home.config_file) == 0o644
    assert "0600" not in result.stderr
