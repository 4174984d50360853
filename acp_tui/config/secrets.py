"""Provides how acp-tui tells a secret from the rest: by its name, or where it sits in a URL.

Agents' and MCP servers' env and header values are secrets wherever they are shown, logged or
written (`acp-tui config show`, `mcp list`, the wire inspector, `--wire-log`). So are:

- a field whose name says it holds one (``apiKey``, ``access_token``, ``DB_PASSWORD``,
  ``Authorization``...), whatever its value (a string, a number, an object); names are split into
  words, so ``inputTokens`` or ``maxTokens`` (usage counts) are not taken for a token;
- the user info of a URL (``https://user:token@host``) and the values of query parameters named
  like a secret (``?token=``, ``?api_key=``, ``?sig=``).

Only the values are masked: the names stay, so the user sees what is set.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

__all__ = ["MASK", "mask_url", "secret_name", "url_has_secret"]

MASK = "••••••"

_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SECRET_WORDS = frozenset(
    {
        "secret",
        "secrets",
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "credential",
        "credentials",
        "cookie",
        "cookies",
        "authorization",
        "apikey",
        "bearer",
        "sig",
        "signature",
    }
)
_LAST_WORDS = frozenset({"token"})
"""Secret only as the name's last word: ``accessToken`` (not ``tokenCount``)."""
_GLUED_ENDINGS = ("token", "secret", "password", "passwd", "apikey")
_KEY_OWNERS = frozenset({"api", "private", "access", "secret", "signing", "client", "service"})
"""``key`` is a secret after one of these (``apiKey``, ``SERVICE_KEY``), not alone (``sortKey``)."""


def secret_name(name: str) -> bool:
    """Whether a field, variable or parameter named ``name`` holds a secret."""
    words = [word.lower() for word in _WORDS.findall(name)]
    if not words:
        return False
    if any(word in _SECRET_WORDS for word in words) or words[-1] in _LAST_WORDS:
        return True
    if words[-1].endswith(_GLUED_ENDINGS):  # "authtoken", "dbpassword": words not split
        return True
    return any(
        word == "key" and index > 0 and words[index - 1] in _KEY_OWNERS
        for index, word in enumerate(words)
    )


def url_has_secret(url: str) -> bool:
    """Whether ``url`` holds user info or a query parameter named like a secret."""
    return mask_url(url) != url


def mask_url(url: str) -> str:
    """``url`` with its user info's password (or a lone user name, often a token) and the values
    of secret-named query parameters masked; anything that is not a URL is returned as it is."""
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, _password = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if colon else f"{MASK}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(secret_name(key) for key, _ in pairs):
            query = "&".join(
                f"{quote(key, safe='')}={MASK if secret_name(key) else quote(value, safe='')}"
                for key, value in pairs
            )
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
