"""Provides check_link: where a browser goes with an agent's link, and whether acp-tui opens it.

Python's ``urllib.parse`` does not read URLs as browsers do: it keeps ``\\`` as an ordinary
character, where browsers read it as ``/`` in an http(s) URL (so
``https://evil.example\\@accounts.google.com/`` leads to evil.example), and it knows none of
the IPv4 forms browsers accept (``http://3232235777/`` is 192.168.1.1). So the part that decides
where a link leads, the host of an http(s) URL, is read here the way the WHATWG URL standard
tells browsers to: leading and trailing C0 controls and spaces stripped, tabs and newlines
removed, ``\\`` as ``/``, the authority up to the first ``/``, ``\\``, ``?`` or ``#``, the user
info up to its last ``@``, the port, then the host parser (IPv6 in brackets, percent-decoding,
domain to ASCII with UTS #46 through ``idna``, the IPv4 parser for a name ending in a number).

`check_link` then says what the Host line shows and why a link is not opened: the browser would
not open it, it is not http(s), or it reads differently from where it leads (a backslash, user
info, odd slashes, a percent-encoded host, an IPv4 address written in another form, control or
bidi characters). Such a disguised link is not copied either.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

import idna

from acp_tui.client.safe_text import BIDI_CONTROLS, sanitize

__all__ = ["BadUrl", "BrowserUrl", "LinkCheck", "check_link", "parse_browser_url"]

DEFAULT_PORTS = {"http": 80, "https": 443}
"""The schemes opened, with the port a browser leaves out."""
MAX_URL = 8192
"""The longest link opened: longer ones cannot be checked by eye."""
MAX_HOST, MAX_LABEL = 253, 63
"""What DNS allows; a longer name leads nowhere, or somewhere its end says."""
HOST_TAIL = 80
"""How much of the end of a too long host is shown (its end names its owner)."""

_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_AUTHORITY_END = re.compile(r"[/\\?#]")
_QUERY = re.compile(r"[?#]")
_FORBIDDEN_HOST = frozenset("\x00\t\n\r #/:<>?@[\\]^|")
_FORBIDDEN_DOMAIN = _FORBIDDEN_HOST | frozenset(map(chr, range(0x20))) | {"%", "\x7f"}
_HEX = frozenset(b"0123456789abcdefABCDEF")
_RADIX_DIGITS = {10: "0123456789", 8: "01234567", 16: "0123456789abcdefABCDEF"}
_NOT_IPV4 = "it is not a valid URL: its host is not a valid IPv4 address"


class BadUrl(ValueError):
    """A link the browser would not open; the message says why (``it ...``)."""


@dataclass(frozen=True, slots=True)
class BrowserUrl:
    """An http(s) URL as a browser reads it, with how its host was written."""

    scheme: str
    host: str
    """As the browser serialises it: a lower-case ASCII name, dotted IPv4 or ``[IPv6]``."""
    port: int | None
    """None: the scheme's default."""
    unicode_host: str | None
    """An international name's Unicode form, when it differs from ``host``."""
    written_host: str
    """The host as the URL writes it."""
    ipv4: bool
    userinfo: bool
    """Whether a user name (or password) comes before an ``@``."""
    slashes: str
    """What separates the scheme from the authority (``//`` in a link as it should be)."""
    backslash: bool
    """Whether a ``\\`` comes before the query (browsers read it as ``/``)."""

    @property
    def shown_host(self) -> str:
        """The host for the Host line: with its port, and its Unicode form before the ASCII
        one the browser uses; a too long one by its end."""
        host = self.host if len(self.host) <= MAX_HOST else "…" + self.host[-HOST_TAIL:]
        port = "" if self.port is None else f":{self.port}"
        if self.unicode_host is None or len(self.host) > MAX_HOST:
            return f"{host}{port}"
        return f"{self.unicode_host}{port} ({host})"


def parse_browser_url(url: str) -> BrowserUrl | None:
    """``url`` as a browser reads it; None when it is not an http(s) URL.

    Raises BadUrl when the browser would not open it.
    """
    text = url.strip(_C0_OR_SPACE).replace("\t", "").replace("\n", "").replace("\r", "")
    match = _SCHEME.match(text)
    if match is None:
        return None  # no scheme: relative, which a link cannot be
    scheme = match.group()[:-1].lower()
    if scheme not in DEFAULT_PORTS:
        return None
    rest = text[match.end() :]
    after = rest.lstrip("/\\")  # a special scheme's slashes, whichever way and however many
    slashes = rest[: len(rest) - len(after)]
    end = _AUTHORITY_END.search(after)
    authority = after if end is None else after[: end.start()]
    _, at, host_and_port = authority.rpartition("@")  # the user info ends at the last '@'
    written_host, port_text = _split_port(host_and_port)
    if not written_host:
        raise BadUrl("it names no host")
    port = _port(port_text, scheme)
    host, unicode_host, ipv4 = _host(written_host)
    before_query = _QUERY.split(rest, maxsplit=1)[0]
    return BrowserUrl(
        scheme,
        host,
        port,
        unicode_host,
        written_host,
        ipv4,
        userinfo=bool(at),
        slashes=slashes,
        backslash="\\" in before_query,
    )


@dataclass(frozen=True, slots=True)
class LinkCheck:
    """What the URL dialog shows of a link, and whether it may be opened or copied."""

    host: str | None
    """Where the browser goes (`BrowserUrl.shown_host`); None: nowhere (not a URL it opens)."""
    problem: str | None = None
    """Why acp-tui does not open it (``it ...``); None: it may, on the user's key press."""
    disguised: bool = False
    """It reads differently from where it leads: not copied either."""


def check_link(url: str) -> LinkCheck:
    """Where ``url`` leads and whether it is opened: only an http(s) URL the browser reads as
    it is written, to a host DNS can name, free of control and bidi characters."""
    invalid: str | None = None
    try:
        parsed = parse_browser_url(url)
    except BadUrl as exc:
        parsed, invalid = None, str(exc)
    host = None if parsed is None else parsed.shown_host
    if any(c in BIDI_CONTROLS for c in url):
        return LinkCheck(host, "it holds bidi controls, which show it in another order", True)
    if sanitize(url) != url or any(c.isspace() for c in url):
        return LinkCheck(host, "it holds spaces or control characters", True)
    if invalid is not None:
        return LinkCheck(None, invalid)
    if parsed is None:
        return LinkCheck(None, "it is not an http or https URL")
    if len(url) > MAX_URL:
        return LinkCheck(host, f"it is too long to check ({len(url):,} characters)")
    disguise = _disguise(parsed)
    if disguise is not None:
        return LinkCheck(host, disguise, True)
    labels = parsed.host.removesuffix(".").split(".")
    if len(parsed.host) > MAX_HOST or any(len(label) > MAX_LABEL for label in labels):
        return LinkCheck(host, "its host name is longer than DNS allows", True)
    return LinkCheck(host)


def _disguise(url: BrowserUrl) -> str | None:
    """How ``url`` reads differently from where it leads, or None."""
    goes = f"it leads to {url.shown_host}"
    if url.backslash:
        return f"it holds a backslash, which browsers read as '/': {goes}"
    if url.userinfo:
        return f"what comes before the '@' is a user name, not the host: {goes}"
    if url.slashes != "//":
        return f"it does not begin with '{url.scheme}://': {goes}"
    if "%" in url.written_host:
        return f"its host is percent-encoded: {goes}"
    if url.ipv4 and url.host != url.written_host:
        return f"its host is the IP address {url.host}, written in another form"
    return None


def _split_port(text: str) -> tuple[str, str | None]:
    """The host and the port: at the first ':' outside brackets."""
    inside = False
    for i, c in enumerate(text):
        if c == ":" and not inside:
            return text[:i], text[i + 1 :]
        if c == "[":
            inside = True
        elif c == "]":
            inside = False
    return text, None


def _port(text: str | None, scheme: str) -> int | None:
    if not text:
        return None  # "host:" is the default port
    if not all(c in "0123456789" for c in text):
        raise BadUrl("it is not a valid URL: its port is not a number")
    digits = text.lstrip("0")
    if len(digits) > 5 or int(digits or "0") > 65535:
        raise BadUrl("it is not a valid URL: its port is out of range")
    port = int(digits or "0")
    return None if port == DEFAULT_PORTS[scheme] else port


def _host(text: str) -> tuple[str, str | None, bool]:
    """The host parser: ``(serialised host, its Unicode form or None, whether IPv4)``."""
    if text.startswith("["):
        if not text.endswith("]"):
            raise BadUrl("it is not a valid URL: its IPv6 address has no closing ']'")
        return f"[{_ipv6(text[1:-1])}]", None, False
    domain = _percent_decode(text)
    ascii_domain = _domain_to_ascii(domain)
    if _ends_in_number(ascii_domain):
        return _ipv4(ascii_domain), None, True
    unicode_domain = None
    if "xn--" in ascii_domain:
        try:
            unicode_domain = idna.decode(ascii_domain)
        except (idna.IDNAError, UnicodeError):
            unicode_domain = None
    return ascii_domain, None if unicode_domain == ascii_domain else unicode_domain, False


def _percent_decode(text: str) -> str:
    """``%XX`` sequences as the bytes they stand for, the result read as UTF-8."""
    data = text.encode("utf-8", "replace")
    out = bytearray()
    i = 0
    while i < len(data):
        if data[i] == 0x25 and i + 2 < len(data) and {data[i + 1], data[i + 2]} <= _HEX:
            out.append(int(data[i + 1 : i + 3], 16))
            i += 3
        else:
            out.append(data[i])
            i += 1
    return out.decode("utf-8", "replace")


def _domain_to_ascii(domain: str) -> str:
    """UTS #46 ToASCII as browsers run it (non-transitional: ``faß.de`` stays itself). A name
    ``idna`` refuses (it checks IDNA 2008, stricter than browsers) is refused too."""
    labels = domain.split(".")
    if domain.isascii() and not any(label[:4].lower() == "xn--" for label in labels):
        result = domain.lower()
    else:
        try:
            encoded = idna.encode(domain, uts46=True, transitional=False, std3_rules=False)
        except (idna.IDNAError, UnicodeError):
            raise BadUrl(
                "it is not a valid URL: acp-tui cannot read its international host name"
            ) from None
        result = encoded.decode("ascii")
    if not result:
        raise BadUrl("it names no host")
    bad = next((c for c in result if c in _FORBIDDEN_DOMAIN), None)
    if bad is not None:
        raise BadUrl(f"it is not a valid URL: its host holds {sanitize(bad)!r}")
    return result


def _ends_in_number(domain: str) -> bool:
    """Whether the browser reads ``domain`` as an IPv4 address (its last label a number)."""
    parts = domain.split(".")
    if parts[-1] == "":
        if len(parts) == 1:
            return False
        parts.pop()
    last = parts[-1]
    if last and all(c in "0123456789" for c in last):
        return True
    try:
        _ipv4_number(last)
    except BadUrl:
        return False
    return True


def _ipv4_number(text: str) -> int:
    """One part of an IPv4 address: decimal, octal (``0``...) or hexadecimal (``0x``...)."""
    if not text:
        raise BadUrl(_NOT_IPV4)
    radix = 10
    if text[:2] in ("0x", "0X"):
        text, radix = text[2:], 16
    elif len(text) >= 2 and text[0] == "0":
        text, radix = text[1:], 8
    if not text:
        return 0
    if not all(c in _RADIX_DIGITS[radix] for c in text):
        raise BadUrl(_NOT_IPV4)
    if len(text.lstrip("0")) > 32:
        return 1 << 64  # more than any address: refused, without converting a huge number
    return int(text, radix)


def _ipv4(domain: str) -> str:
    """The IPv4 parser: up to four parts, the last one filling the bytes left."""
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise BadUrl(_NOT_IPV4)
    numbers = [_ipv4_number(part) for part in parts]
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise BadUrl(_NOT_IPV4)
    value = numbers[-1] + sum(n << (8 * (3 - i)) for i, n in enumerate(numbers[:-1]))
    return ".".join(str((value >> shift) & 255) for shift in (24, 16, 8, 0))


def _ipv6(text: str) -> str:
    """An IPv6 address in the browser's form: lower-case hex pieces, the first longest run of
    two or more zero pieces written ``::`` (an embedded IPv4 address as two pieces too)."""
    if not text or not all(c in "0123456789abcdefABCDEF:." for c in text):
        raise BadUrl("it is not a valid URL: its IPv6 address is not valid")
    try:
        value = int(ipaddress.IPv6Address(text))
    except ValueError:
        raise BadUrl("it is not a valid URL: its IPv6 address is not valid") from None
    pieces = [(value >> (16 * (7 - i))) & 0xFFFF for i in range(8)]
    start, length, i = -1, 1, 0
    while i < 8:
        j = i
        while j < 8 and pieces[j] == 0:
            j += 1
        if j - i > length:
            start, length = i, j - i
        i = max(j, i + 1)
    if start < 0:
        return ":".join(f"{p:x}" for p in pieces)
    head = ":".join(f"{p:x}" for p in pieces[:start])
    tail = ":".join(f"{p:x}" for p in pieces[start + length :])
    return f"{head}::{tail}"
