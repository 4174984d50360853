"""What the user types is searched literally: never an FTS5 syntax error, whatever it holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.store.library.query import MAX_TERMS, parse_query, snippet_in, snippet_of
from tests.unit.library.helpers import library_and_cache, texts, turn

HOSTILE_QUERIES = [
    '"',
    '""',
    '"unbalanced',
    "say \"it's\" 'quoted'",
    "*",
    "star*",
    "*star",
    "NEAR",
    "NEAR(lighthouse keeper, 2)",
    "lighthouse NEAR keeper",
    "AND",
    "OR lighthouse",
    "NOT lighthouse",
    "-lighthouse",
    "lighthouse -keeper",
    "body:lighthouse",
    "title : lighthouse",
    "{body title}: lighthouse",
    "said:lighthouse",
    "rank",
    "^lighthouse",
    "lighthouse +keeper",
    "(((",
    "lighthouse)",
    "((lighthouse) OR (keeper",
    ":",
    "-",
    "--",
    "\x00",
    "\\",
    "'",
    "%_",
    "é",
    "🦀",
    "a" * 10_000,
    "lighthouse " * 1000,
    ('"a b" ' * 2000)[:10_240],
]


@pytest.mark.parametrize("query", HOSTILE_QUERIES, ids=lambda q: repr(q[:24]))
def test_every_query_gives_results_or_none_never_an_error(tmp_path: Path, query: str) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        turn(cache, "s1", "tell me about the lighthouse", "The lighthouse keeper (NEAR: -x*)")
        assert library.sync(10)
        found = library.search(query)
        assert isinstance(found.hits, list)


def test_operators_are_words_and_punctuation_only_separates(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        turn(cache, "s1", "first", "use foo.bar and NEAR things")
        turn(cache, "s2", "second", "nothing here")
        assert library.sync(10)
        assert texts(library, "foo.bar") == ["use foo.bar and NEAR things"]
        assert texts(library, "NEAR") == ["use foo.bar and NEAR things"]
        assert texts(library, "bar:foo") == []  # a phrase "bar foo": not in that order


def test_words_all_match_in_any_order_and_quotes_make_a_phrase(tmp_path: Path) -> None:
    with library_and_cache(tmp_path) as (library, cache):
        turn(cache, "s1", "a", "the keeper of the lighthouse")
        turn(cache, "s2", "b", "the lighthouse keeper")
        assert library.sync(10)
        assert sorted(texts(library, "keeper lighthouse ")) == [
            "the keeper of the lighthouse",
            "the lighthouse keeper",
        ]
        assert texts(library, '"lighthouse keeper"') == ["the lighthouse keeper"]


def test_the_word_being_typed_matches_as_a_prefix() -> None:
    assert parse_query("lighth").match == '"lighth"*'
    assert parse_query("lighth ").match == '"lighth"'
    assert parse_query('"light keep').match == '"light keep"*'
    assert parse_query('"light keep"').match == '"light keep"'
    assert parse_query("x").match == '"x"'  # one letter would match most of the index


def test_a_long_query_is_cut_and_says_so() -> None:
    query = parse_query(" ".join(f"w{n}" for n in range(100)))
    assert query.cut
    assert query.match is not None
    assert query.match.count(" AND ") == MAX_TERMS - 1
    assert parse_query("x" * 20_000).cut


def test_only_what_looks_like_an_id_searches_ids() -> None:
    assert parse_query("3f2a9c").id_prefix == "3f2a9c"
    assert parse_query("sess_0042").id_prefix == "sess_0042"
    assert parse_query("number 04").id_prefix is None
    assert parse_query("keeper").id_prefix is None  # no digit
    assert parse_query("a1").id_prefix is None  # too short


def test_snippets_are_one_line_of_plain_text_with_spans() -> None:
    snippet = snippet_of("…the \ue000light\ue001\n\n  house [b]\ue000x\ue001[/b] …")
    assert snippet.text == "…the light house [b]x[/b] …"
    assert [snippet.text[a:b] for a, b in snippet.spans] == ["light", "x"]


def test_a_snippet_is_a_window_around_the_first_match_with_every_match_marked() -> None:
    body = (
        "start " + "filler " * 30 + "the Lighthouse-keeper sleeps; lighthouses sleep " + "end " * 80
    )
    snippet = snippet_in(body, parse_query("lighthouse"))
    assert snippet.text.startswith("…")
    assert snippet.text.endswith("…")
    assert [snippet.text[a:b] for a, b in snippet.spans] == ["Lighthouse", "lighthouses"]
    assert len(snippet.text) <= 210
    phrase = snippet_in(body, parse_query('"lighthouse keeper" '))
    assert [phrase.text[a:b] for a, b in phrase.spans] == ["Lighthouse-keeper"]


def test_a_snippet_without_a_visible_match_is_the_start_of_the_text() -> None:
    snippet = snippet_in("Un café noir, s'il vous plaît", parse_query("cafe "))
    assert snippet.text == "Un café noir, s'il vous plaît"
    assert snippet.spans == ()
