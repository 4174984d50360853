"""Provides the serve server's access checks: the token, loopback hosts, Host and Origin.

Whoever can open the page can make an agent write files and run commands, so every request
carries a random token (the first path segment, compared in constant time), a websocket is
accepted only from a page of this server (its ``Origin`` is the address the browser used for
it), and while the server listens on loopback only, only loopback names are accepted in
``Host`` (a page of another site that renamed itself to 127.0.0.1, "DNS rebinding", is refused
even before the token is checked).
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
import socket
from urllib.parse import urlsplit

__all__ = [
    "MIN_TOKEN_LENGTH",
    "host_allowed",
    "is_loopback_host",
    "new_token",
    "origin_allowed",
    "same_token",
    "token_problem",
]

MIN_TOKEN_LENGTH = 16
"""The shortest token accepted from ``--token``; ours are 43 characters (256 bits)."""

_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_.~-]+")
"""Characters that stand for themselves in a URL path, so the printed URL is the token."""

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost", "ip6-loopback"})


def new_token() -> str:
    """A fresh random token: 32 bytes from the OS, URL-safe base64."""
    return secrets.token_urlsafe(32)


def token_problem(token: str) -> str | None:
    """Why ``token`` (from ``--token``) cannot be used, or None."""
    if len(token) < MIN_TOKEN_LENGTH:
        return f"is too short: at least {MIN_TOKEN_LENGTH} characters"
    if not _TOKEN_CHARS.fullmatch(token):
        return "may only use letters, digits and - _ . ~"
    return None


def same_token(given: str, expected: str) -> bool:
    """Whether ``given`` is the token, compared in constant time (no timing hints)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode())


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def is_loopback_host(host: str) -> bool:
    """Whether listening on ``host`` is reachable from this machine only.

    An address is loopback by its value; a name is when every address it resolves to is
    loopback. ``0.0.0.0`` and ``::`` (every interface), other addresses and names that do not
    resolve are not.
    """
    address = _ip(host)
    if address is not None:
        return address.is_loopback
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    addresses = [_ip(str(info[4][0])) for info in found]
    return bool(addresses) and all(a is not None and a.is_loopback for a in addresses)


def _split_host(host_header: str) -> str | None:
    """The host name of a ``Host`` header, lower case, without its port; None if malformed."""
    try:
        parts = urlsplit(f"http://{host_header}")
        name = parts.hostname
        _ = parts.port  # raises on a port that is not a number
    except ValueError:
        return None
    if not name or any(c in host_header for c in "/?#@\\ "):
        return None
    return name


def host_allowed(host_header: str | None, *, loopback_only: bool) -> bool:
    """Whether a request's ``Host`` header may be served.

    Listening on loopback, only loopback names (``localhost``, ``127.0.0.1``, ``[::1]``...) with
    any port (an SSH tunnel may forward another one): a name of another site there means a page
    that renamed itself to this machine. Listening elsewhere, any well-formed host: the name the
    other machines use for this one is not known here, and the token guards the rest.
    """
    if not host_header:
        return False
    name = _split_host(host_header)
    if name is None:
        return False
    if not loopback_only:
        return True
    address = _ip(name)
    if address is not None:
        return address.is_loopback
    return name in _LOOPBACK_NAMES


def origin_allowed(origin: str | None, host_header: str | None) -> bool:
    """Whether a websocket from a page at ``origin`` may connect, the request being for
    ``host_header``: only the server's own pages, whose origin is ``http://`` (or ``https://``
    behind a proxy) followed by exactly the host and port the browser asked for.

    Browsers always send ``Origin`` with a websocket; a request without one (or ``null``, from a
    sandboxed frame or a file) is refused too.
    """
    if not origin or not host_header or origin == "null":
        return False
    origin = origin.lower()
    host = host_header.lower()
    return origin in (f"http://{host}", f"https://{host}")
