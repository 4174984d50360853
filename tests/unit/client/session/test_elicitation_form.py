"""The form of an elicitation: every kind of ``requestedSchema`` field round-trips, and what the
user enters is accepted exactly when the request's own schema (checked with ``jsonschema``)
accepts the content sent; bad schemas never fail the form."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker  # type: ignore[import-untyped]
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from acp_tui.client.session.elicitation import Answer, check_request, url_host, url_problem
from acp_tui.client.session.forms import MAX_FIELDS, Form, Raw
from acp_tui.demo_agent.asking import ASK_SCHEMA
from acp_tui.protocol.elicitation import ElicitationSchema, UnknownPropertySchema
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError

SCHEMAS = Path(__file__).parents[3] / "data" / "acp" / "schema"


@cache
def acp(version: str, definition: str) -> Draft202012Validator:
    """A validator of one ``$defs`` entry of the ACP schema of ``version``."""
    contents = json.loads((SCHEMAS / version / "schema.json").read_text(encoding="utf-8"))
    uri = f"urn:acp:{version}"
    registry: Registry[Any] = Registry().with_resource(
        uri, Resource.from_contents(contents, default_specification=DRAFT202012)
    )
    return Draft202012Validator({"$ref": f"{uri}#/$defs/{definition}"}, registry=registry)


def valid_for_request(schema: dict[str, Any], content: dict[str, Any]) -> bool:
    """Whether ``content`` fits the request's ``requestedSchema``, formats included."""
    return bool(Draft202012Validator(schema, format_checker=FormatChecker()).is_valid(content))


def one_field(prop: dict[str, Any], *, required: bool = True) -> dict[str, Any]:
    return {"type": "object", "properties": {"f": prop}, "required": ["f"] if required else []}


# (property schema, what the user enters, the value sent)
ROUND_TRIPS: list[tuple[str, dict[str, Any], Raw, Any]] = [
    ("text", {"type": "string"}, "hello", "hello"),
    ("text lengths", {"type": "string", "minLength": 2, "maxLength": 5}, "abc", "abc"),
    ("pattern", {"type": "string", "pattern": "^[A-Z]+-[0-9]+$"}, "ABC-12", "ABC-12"),
    ("email", {"type": "string", "format": "email"}, "ana@example.com", "ana@example.com"),
    ("uri", {"type": "string", "format": "uri"}, "https://example.com/x", "https://example.com/x"),
    ("date", {"type": "string", "format": "date"}, "2026-07-24", "2026-07-24"),
    (
        "date-time",
        {"type": "string", "format": "date-time"},
        "2026-07-24T12:30:00Z",
        "2026-07-24T12:30:00Z",
    ),
    ("unknown format", {"type": "string", "format": "_color"}, "red", "red"),
    ("number", {"type": "number", "minimum": 0, "maximum": 1}, "0.25", 0.25),
    ("number, whole", {"type": "number"}, "3", 3),
    ("number, exponent", {"type": "number"}, "1.5e3", 1500.0),
    ("integer", {"type": "integer", "minimum": -5, "maximum": 5}, "-5", -5),
    ("boolean", {"type": "boolean"}, True, True),
    ("boolean left alone", {"type": "boolean", "default": True}, None, True),
    ("enum", {"type": "string", "enum": ["a", "b"]}, "b", "b"),
    (
        "oneOf",
        {"type": "string", "oneOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]},
        "y",
        "y",
    ),
    (
        "multi enum",
        {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 2},
        ("c", "a"),
        ["a", "c"],
    ),
    (
        "multi anyOf",
        {
            "type": "array",
            "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]},
            "maxItems": 1,
        },
        ("y",),
        ["y"],
    ),
    ("unknown type", {"type": "_color", "title": "Colour"}, "teal", "teal"),
]


@pytest.mark.parametrize(
    ("prop", "entered", "sent"),
    [case[1:] for case in ROUND_TRIPS],
    ids=[case[0] for case in ROUND_TRIPS],
)
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_every_field_kind_round_trips(
    prop: dict[str, Any], entered: Raw, sent: Any, version: str
) -> None:
    request = one_field(prop)
    form = Form.of(ElicitationSchema.from_wire(request))
    content, errors = form.answer({"f": entered} if entered is not None else {})
    assert errors == {}
    assert content == {"f": sent}
    assert type(content["f"]) is type(sent)
    if prop["type"] != "_color":  # an unknown type is sent as text: no schema to check it
        assert valid_for_request(request, content)
    response = Answer("accept", content).to_wire()
    assert response == {"action": "accept", "content": {"f": sent}}
    assert acp(version, "CreateElicitationResponse").is_valid(response)
    # The request itself fits the protocol (v1 knows only four string formats; v2 any).
    params = {"sessionId": "s", "mode": "form", "message": "m", "requestedSchema": request}
    fits = not (version == "v1" and prop.get("format") == "_color")
    assert acp(version, "CreateElicitationRequest").is_valid(params) == fits


# (property schema, what the user enters, the error shown)
REFUSALS: list[tuple[str, dict[str, Any], Raw, str]] = [
    ("too short", {"type": "string", "minLength": 3}, "ab", "at least 3 characters"),
    ("too long", {"type": "string", "maxLength": 3}, "abcd", "at most 3 characters"),
    ("no match", {"type": "string", "pattern": "^[0-9]+$"}, "12a", "must match the pattern"),
    ("not an email", {"type": "string", "format": "email"}, "ana.example.com", "not an email"),
    ("not a date", {"type": "string", "format": "date"}, "2026-02-30", "not a date"),
    (
        "date-time without zone",
        {"type": "string", "format": "date-time"},
        "2026-07-24T12:00:00",
        "",
    ),
    ("not a number", {"type": "number"}, "1,5", "not a number"),
    ("not finite", {"type": "number"}, "1e999", "too large"),
    ("below", {"type": "number", "minimum": 1}, "0.5", "at least 1"),
    ("above", {"type": "integer", "maximum": 10}, "11", "at most 10"),
    ("not whole", {"type": "integer"}, "1.5", "not a whole number"),
    ("beyond int64", {"type": "integer"}, str(2**63), "too large"),
    ("not a choice", {"type": "string", "enum": ["a"]}, "b", "not one of the choices"),
    (
        "too few",
        {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 2},
        ("a",),
        "choose at least 2",
    ),
    (
        "too many",
        {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 1},
        ("a", "b"),
        "choose at most 1",
    ),
    ("required text left empty", {"type": "string"}, "", "required"),
    ("required choice left empty", {"type": "string", "enum": ["a"]}, None, "choose one"),
    (
        "required multi left empty",
        {"type": "array", "items": {"type": "string", "enum": ["a"]}},
        (),
        "choose at least one",
    ),
]


@pytest.mark.parametrize(
    ("prop", "entered", "error"),
    [case[1:] for case in REFUSALS],
    ids=[case[0] for case in REFUSALS],
)
def test_what_the_schema_refuses_is_never_sent(
    prop: dict[str, Any], entered: Raw, error: str
) -> None:
    request = one_field(prop)
    form = Form.of(ElicitationSchema.from_wire(request))
    content, errors = form.answer({"f": entered})
    assert "f" not in content
    assert error in errors["f"]
    if isinstance(entered, str) and prop["type"] == "string" and entered:
        # The schema (jsonschema) refuses the value too, where it checks that format.
        checked = prop.get("format") not in ("date-time",)
        assert not checked or not valid_for_request(request, {"f": entered})


def test_optional_fields_left_empty_are_left_out() -> None:
    schema = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "number": {"type": "number"},
            "choice": {"type": "string", "enum": ["a"]},
            "multi": {"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 1},
            "flag": {"type": "boolean"},
        },
    }
    form = Form.of(ElicitationSchema.from_wire(schema))
    content, errors = form.answer(form.defaults())
    assert errors == {}
    assert content == {"flag": False}  # a yes/no field always has a value
    assert valid_for_request(schema, content)


def test_defaults_fill_the_form_and_titles_descriptions_show() -> None:
    form = Form.of(ElicitationSchema.from_wire(ASK_SCHEMA))
    by_name = {f.name: f for f in form.fields}
    assert list(by_name) == list(ASK_SCHEMA["properties"])
    assert {f.kind for f in form.fields} == {
        "text",
        "number",
        "integer",
        "boolean",
        "choice",
        "multi",
    }
    assert by_name["name"].title == "Project name"
    assert by_name["name"].description == "What the project is called."
    assert by_name["name"].default == "demo"
    assert by_name["coverage"].default == "0.8"
    assert by_name["style"].default == "ruff"
    assert by_name["platforms"].default == ("linux",)
    assert [f.name for f in form.fields if f.required] == ["name", "email", "license", "platforms"]
    assert by_name["email"].hint == "an email address"
    content, errors = form.answer(form.defaults())
    assert set(errors) == {"email", "license"}  # required, no default
    content, errors = form.answer({**form.defaults(), "email": "a@b.c", "license": "MIT"})
    assert errors == {}
    assert valid_for_request(ASK_SCHEMA, content)


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("plain [b]text[/b]", "plain [b]text[/b]"),  # nothing to change: sent as given
        ("\x1b]52;c;aGFja2Vk\x07copied?", "␛]52;c;aGFja2Vk␇copied?"),
        ("evil\u202egpj.exe", "evil⟨U+202E⟩gpj.exe"),
        ("two\nlines\tand a tab", "two␊lines␉and a tab"),  # one line, as a text field holds
    ],
)
def test_a_text_default_is_what_is_shown_and_sent(given: str, shown: str) -> None:
    """Never the raw characters (they would reach the terminal), never a value other than the
    one shown: the default as shown is what is sent, and the field says when it differs."""
    schema = one_field({"type": "string", "default": given})
    (field,) = Form.of(ElicitationSchema.from_wire(schema)).fields
    assert field.default == shown
    assert field.default_changed == (shown != given)
    content, errors = Form.of(ElicitationSchema.from_wire(schema)).answer({})
    assert (content, errors) == ({"f": shown}, {})


def test_a_schema_that_does_not_fit_never_fails_the_form() -> None:
    schema = {
        "type": "object",
        "properties": {
            "colour": {"type": "_color", "title": "Colour"},
            "nested": {"type": "object", "properties": {}},
            "no-type": {"title": "No type"},
            "junk": 42,
            "bad-bounds": {"type": "integer", "minimum": "one", "default": True},
            "bad-pattern": {"type": "string", "pattern": "([unclosed"},
            "empty-multi": {"type": "array", "items": {"type": "string"}},
            "bad-choices": {"type": "string", "enum": ["a", 3, None]},
        },
        "required": ["colour", 7],
    }
    form = Form.of(ElicitationSchema.from_wire(schema))
    kinds = {f.name: f.kind for f in form.fields}
    assert kinds == {
        "colour": "unknown",
        "nested": "unknown",
        "no-type": "unknown",
        "junk": "unknown",
        "bad-bounds": "integer",
        "bad-pattern": "text",
        "empty-multi": "unknown",
        "bad-choices": "choice",
    }
    by_name = {f.name: f for f in form.fields}
    assert "'_color' is unknown" in by_name["colour"].hint
    assert by_name["bad-pattern"].hint == "(its pattern is ignored)"
    assert [c.value for c in by_name["bad-choices"].choices] == ["a"]
    content, errors = form.answer({"colour": "", "bad-bounds": "-3", "bad-pattern": "anything"})
    assert errors == {"colour": "required"}
    content, errors = form.answer({"colour": "teal", "bad-bounds": "-3", "bad-pattern": "x"})
    assert errors == {}
    assert content == {"colour": "teal", "bad-bounds": -3, "bad-pattern": "x"}
    assert isinstance(ElicitationSchema.from_wire(schema).fields()["junk"], UnknownPropertySchema)
    assert Form.of(ElicitationSchema.from_wire({"properties": "nope"})).fields == ()


def test_a_form_too_long_to_show_is_cut_and_cannot_hide_a_required_field() -> None:
    properties = {f"f{i}": {"type": "string"} for i in range(MAX_FIELDS + 5)}
    schema = {"type": "object", "properties": properties, "required": [f"f{MAX_FIELDS + 2}"]}
    form = Form.of(ElicitationSchema.from_wire(schema))
    assert len(form.fields) == MAX_FIELDS
    assert form.hidden == 5
    _content, errors = form.answer({})
    assert "cannot be sent" in errors[""]


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"mode": "_wizard", "message": "m", "sessionId": "s"}, ErrorCode.INVALID_PARAMS),
        ({"mode": "form", "message": "m", "sessionId": "s"}, ErrorCode.INVALID_PARAMS),
        ({"mode": "form", "message": "m", "requestedSchema": {}}, ErrorCode.INVALID_PARAMS),
        ({"mode": "url", "message": "m", "url": "https://x", "sessionId": "s"}, -32602),
        ({"mode": "form", "requestedSchema": {}, "sessionId": "s"}, ErrorCode.INVALID_PARAMS),
    ],
    ids=["unknown mode", "no schema", "no scope", "url without id", "no message"],
)
def test_requests_the_client_cannot_ask_are_refused(params: dict[str, Any], code: int) -> None:
    from pydantic import ValidationError

    with pytest.raises((RpcError, ValidationError)) as info:
        check_request(params)
    if isinstance(info.value, RpcError):
        assert info.value.code == code


def test_a_request_scoped_question_may_have_a_null_request_id() -> None:
    request, form = check_request(
        {"mode": "form", "message": "m", "requestId": None, "requestedSchema": {}}
    )
    assert request.session_id is None
    assert form is not None


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://example.com/login?x=1", None),
        ("http://127.0.0.1:8080/", None),
        ("file:///etc/passwd", "not an http or https URL"),
        ("javascript:alert(1)", "not an http or https URL"),
        ("https:///nohost", "does not begin with 'https://'"),  # browsers go to nohost
        ("https://", "names no host"),
        ("https://example.com/\x1b]0;x\x07", "control characters"),
        ("https://exa mple.com", "spaces"),
        ("https://example.com/\u202egpj.exe", "bidi controls"),
        ("http://[::1", "not a valid URL"),
    ],
)
def test_only_plain_http_urls_may_be_opened(url: str, problem: str | None) -> None:
    found = url_problem(url)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_the_host_shown_is_where_the_browser_goes() -> None:
    assert url_host("https://github.com@evil.example/login") == "evil.example"
    assert url_host("https://bücher.example/") == "bücher.example (xn--bcher-kva.example)"
    assert url_host("mailto:someone") is None


def test_a_pattern_that_takes_too_long_is_given_up_and_not_applied_again() -> None:
    from acp_tui.client.session import form_patterns as forms

    slow = "^(a|aa)+$"  # about a minute on this text for Python's own engine
    assert forms.pattern_problem(slow, "a" * 40 + "!") is None  # given up: not applied
    assert slow in forms._too_slow
    assert forms.pattern_problem(slow, "b") is None  # never tried again
    assert (
        forms.pattern_problem("^[A-Z]+-[0-9]+$", "abc") == "must match the pattern ^[A-Z]+-[0-9]+$"
    )
    assert forms.pattern_problem("^[A-Z]+-[0-9]+$", "ABC-12") is None
