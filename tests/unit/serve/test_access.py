"""The serve server's access checks: the token, loopback hosts, the Host and Origin headers."""

from __future__ import annotations

import pytest

from acp_tui.serve.access import (
    host_allowed,
    is_loopback_host,
    new_token,
    origin_allowed,
    same_token,
    token_problem,
)


def test_tokens_are_random_long_and_usable_as_they_are_in_a_url() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50
    assert all(len(token) >= 43 and token_problem(token) is None for token in tokens)


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        ("short", "too short"),
        ("x" * 15, "too short"),
        ("has a space in it, long", "letters, digits"),
        ("slash/in/the/middle/x", "letters, digits"),
        ("percent%2Fencoded-long", "letters, digits"),
    ],
)
def test_a_given_token_must_be_long_and_url_safe(token: str, problem: str) -> None:
    found = token_problem(token)
    assert found is not None
    assert problem in found


def test_the_token_comparison_takes_only_the_exact_token() -> None:
    token = new_token()
    assert same_token(token, token)
    assert not same_token(token[:-1], token)
    assert not same_token(token + "x", token)
    assert not same_token("", token)
    assert not same_token(token.upper(), token)
    assert not same_token("\udcff" + token, token)  # undecodable bytes from a path: no crash


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("10.0.0.1", False),
        ("no-such-host.invalid", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


@pytest.mark.parametrize(
    "header",
    ["127.0.0.1:8000", "localhost:8000", "LOCALHOST:9000", "[::1]:8000", "127.0.0.1", "localhost"],
)
def test_on_loopback_the_names_of_this_machine_are_served_with_any_port(header: str) -> None:
    assert host_allowed(header, loopback_only=True)


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "evil.example:8000",  # a page that renamed itself to 127.0.0.1 (DNS rebinding)
        "127.0.0.1.evil.example",
        "localhost.evil.example:8000",
        "192.168.1.10:8000",
        "127.0.0.1:notaport",
        "user@127.0.0.1:8000",
        "127.0.0.1/x",
    ],
)
def test_on_loopback_other_hosts_are_refused(header: str | None) -> None:
    assert not host_allowed(header, loopback_only=True)


def test_elsewhere_any_well_formed_host_is_served() -> None:
    assert host_allowed("devbox.lan:8000", loopback_only=False)
    assert host_allowed("192.168.1.10:8000", loopback_only=False)
    assert not host_allowed("", loopback_only=False)
    assert not host_allowed("a b:8000", loopback_only=False)


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000"),
        ("http://localhost:9000", "localhost:9000"),  # through an SSH tunnel
        ("https://devbox.example", "devbox.example"),  # behind a proxy
        ("HTTP://LOCALHOST:8000", "localhost:8000"),
    ],
)
def test_a_websocket_from_the_servers_own_page_is_accepted(origin: str, host: str) -> None:
    assert origin_allowed(origin, host)


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://evil.example", "127.0.0.1:8000"),
        ("http://127.0.0.1:8001", "127.0.0.1:8000"),  # another server of this machine
        ("http://localhost:8000", "127.0.0.1:8000"),
        ("null", "127.0.0.1:8000"),  # a sandboxed frame, a file
        (None, "127.0.0.1:8000"),
        ("", "127.0.0.1:8000"),
        ("http://127.0.0.1:8000", None),
        ("ws://127.0.0.1:8000", "127.0.0.1:8000"),
        ("http://127.0.0.1:8000/", "127.0.0.1:8000"),
    ],
)
def test_a_websocket_from_another_page_is_refused(origin: str | None, host: str | None) -> None:
    assert not origin_allowed(origin, host)
