"""Links show the host the browser opens (issue 27 item 4).

Each form below is read as the WHATWG URL standard tells browsers to read it: the Host line
(`url_host`) must name where the browser goes, and `url_problem` says why acp-tui does not
open a link that reads differently from where it leads, or that the browser would not open.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.client.session.browser_url import check_link, parse_browser_url
from acp_tui.client.session.elicitation import url_copyable, url_host, url_problem

LONG_HOST = "accounts.google.com." + "a" * 300 + ".evil.example"

FORMS = [
    # url, the host the browser goes to (None: it would not open it), why it is not opened
    ("https://evil.example\\@accounts.google.com/login", "evil.example", "backslash"),
    ("https:\\\\evil.example/", "evil.example", "backslash"),
    ("https://accounts.google.com\\.evil.example/", "accounts.google.com", "backslash"),
    ("https://example.com\\path", "example.com", "backslash"),
    ("https://example.com/?next=a\\b", "example.com", None),  # the query is the page's
    ("https://accounts.google.com@evil.example/login", "evil.example", "user name"),
    ("https://a@b@evil.example/", "evil.example", "user name"),  # the last '@' counts
    ("https://evil.example%2F@accounts.google.com/", "accounts.google.com", "user name"),
    ("https://accounts.google.com%40evil.example/", None, "not a valid URL"),
    ("https://accounts.google.com%2Fevil.example/", None, "not a valid URL"),
    ("https://%65vil.example/", "evil.example", "percent-encoded"),
    ("https://accounts.google.com#@evil.example", "accounts.google.com", None),
    ("https://accounts.google.com?@evil.example", "accounts.google.com", None),
    ("https://acc\tounts.google.com/", "accounts.google.com", "control characters"),
    ("https://accounts.google.com\n.evil.example/", "accounts.google.com.evil.example", "control"),
    (" https://example.com/", "example.com", "spaces"),
    ("https://evil.example/\u202emoc.elgoog.stnuocca", "evil.example", "bidi"),
    ("https:evil.example/", "evil.example", "does not begin with 'https://'"),
    ("https:///evil.example/", "evil.example", "does not begin with 'https://'"),
    ("https://accounts.google.com./", "accounts.google.com.", None),
    ("https://ACCOUNTS.Google.COM/", "accounts.google.com", None),
    ("http://192.168.1.1/", "192.168.1.1", None),
    ("http://3232235777/", "192.168.1.1", "IP address 192.168.1.1"),
    ("http://0xC0A80101/", "192.168.1.1", "IP address 192.168.1.1"),
    ("http://0300.0250.1.1/", "192.168.1.1", "IP address 192.168.1.1"),
    ("http://192.168.257/", "192.168.1.1", "IP address 192.168.1.1"),
    ("http://192.168.1.1./", "192.168.1.1", "IP address 192.168.1.1"),
    ("http://0x/", "0.0.0.0", "IP address 0.0.0.0"),
    ("http://192.168.1.256/", None, "not a valid URL"),
    ("http://1.2.3.4.5/", None, "not a valid URL"),
    ("http://example.1/", None, "not a valid URL"),
    ("http://1.2.3.09/", None, "not a valid URL"),
    ("http://[::1]:8080/", "[::1]:8080", None),
    ("http://[0:0:0:0:0:0:0:1]/", "[::1]", None),
    ("http://[::FFFF:192.168.1.1]/", "[::ffff:c0a8:101]", None),
    ("http://[1:0:0:2:0:0:0:3]/", "[1:0:0:2::3]", None),
    ("http://[::1", None, "not a valid URL"),
    ("http://[fe80::1%25eth0]/", None, "not a valid URL"),
    ("https://bücher.example/", "bücher.example (xn--bcher-kva.example)", None),
    ("https://xn--bcher-kva.example/", "bücher.example (xn--bcher-kva.example)", None),
    ("https://faß.de/", "faß.de (xn--fa-hia.de)", None),  # not fass.de (IDNA 2003)
    ("https://accounts.google.com\uff0eevil.example/", "accounts.google.com.evil.example", None),
    ("https://example.com:443/", "example.com", None),
    ("https://example.com:8443/", "example.com:8443", None),
    ("https://example.com:99999/", None, "not a valid URL"),
    ("https://example.com:80a/", None, "not a valid URL"),
    ("https://", None, "names no host"),
    ("https://user@/", None, "names no host"),
    ("https://example.com/" + "a" * 10_000, "example.com", "too long"),
    ("javascript:alert(1)", None, "not an http or https URL"),
]


@pytest.mark.parametrize(("url", "host", "problem"), FORMS)
def test_the_host_is_the_browsers_and_a_disguised_link_is_not_opened(
    url: str, host: str | None, problem: str | None
) -> None:
    assert url_host(url) == host
    found = url_problem(url)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_a_very_long_host_is_refused_and_shown_by_its_end() -> None:
    """The end of a name says whose it is: a cut Host line must not hide it."""
    url = f"https://{LONG_HOST}/login"
    shown = url_host(url)
    assert shown is not None
    assert shown.endswith(".evil.example")
    assert len(shown) < 200
    problem = url_problem(url)
    assert problem is not None
    assert "longer than DNS allows" in problem


@pytest.mark.parametrize(
    ("url", "copyable"),
    [
        ("https://example.com/login", True),
        ("file:///etc/passwd", True),  # not opened here, but it reads as it is
        ("http://3232235777/", False),
        ("https://evil.example\\@accounts.google.com/login", False),
        ("https://accounts.google.com@evil.example/", False),
        ("https://example.com/\x1b]0;x\x07", False),
    ],
)
def test_a_link_that_leads_elsewhere_than_it_reads_is_not_copied(url: str, copyable: bool) -> None:
    assert url_copyable(url) is copyable


@given(st.text(max_size=80))
def test_any_text_is_judged_without_an_error(text: str) -> None:
    for url in (text, f"https://{text}", f"http://{text}/", f"https://a@{text}"):
        check = check_link(url)
        assert check.host is None or isinstance(check.host, str)
        if check.problem is None:  # opened: then it is exactly an http(s) URL with a host
            parsed = parse_browser_url(url)
            assert parsed is not None
            assert parsed.slashes == "//"
            assert not parsed.userinfo
            assert not parsed.backslash
