"""Provides the text a reader sees of a message: Markdown without its syntax, and whether a
reply is Markdown at all.

Find (Ctrl+F) looks for what the transcript shows, not for the source: ``**bold**,
*italic*`` is found as ``bold, italic``, and the lines of one paragraph (soft line breaks)
read as one line, as Rich's Markdown shows them. :func:`markdown_shown` strips the syntax in
one pass of a few regular expressions, linear in the text (markdown-it would take seconds
on a reply of megabytes), so it follows Rich's rendering closely but not to the letter.

:func:`looks_like_markdown` decides whether a reply is rendered as Markdown when the
``markdown`` setting is "auto": a reply with no Markdown in it is plain text, and keeps its
line breaks.
"""

from __future__ import annotations

import html
import re
from typing import Literal

__all__ = ["MarkdownMode", "looks_like_markdown", "markdown_shown", "renders_markdown"]

MarkdownMode = Literal["auto", "always", "never"]

_LOOKS_INLINE = re.compile(
    r"```|~~~|`[^`\n]+`"  # code
    r"|(\*\*|__)(?=\S)[^\n]+?(?<=\S)\1"  # bold
    r"|\*(?=[^\s*])[^*\n]+(?<=[^\s*])\*"  # italic
    r"|_(?=[^\s_])[^_\n]+(?<=[^\s_])_(?!\w)"
    r"|~~(?=\S)[^\n]+?(?<=\S)~~"
    r"|!?\[[^\]\n]+\]\([^)\s]+\)"  # link, image
)
_LOOKS_START = re.compile(r"[`~*_!\[]")
_LOOKS_LINE = re.compile(
    r"^ {0,3}(?:#{1,6}[ \t]+\S"  # heading
    r"|(?:[-*+]|\d{1,9}[.)])[ \t]+\S"  # list item
    r"|>[ \t]"  # quote
    r"|\|?[ \t]*:?-{3,}:?[ \t]*\|"  # table
    r"|([-*_])(?:[ \t]*\1){2,}[ \t]*$)",  # rule
    re.MULTILINE,
)


def looks_like_markdown(text: str) -> bool:
    """True when ``text`` has some Markdown in it (emphasis, code, a list, a heading...)."""
    if _LOOKS_LINE.search(text):
        return True
    match = _LOOKS_INLINE.match
    return any(match(text, start.start()) for start in _LOOKS_START.finditer(text))


def renders_markdown(role: str, text: str, mode: MarkdownMode) -> bool:
    """Whether a message of ``role`` is rendered as Markdown (only the agent's replies are)."""
    if role != "agent" or mode == "never":
        return False
    return mode == "always" or looks_like_markdown(text)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_RULE = re.compile(r"^ {0,3}(?:=+|-+|([*_])([ \t]*\1){2,}|(-[ \t]*){3,})[ \t]*$")
_TABLE_RULE = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?")
_ITEM = re.compile(r"^[ \t]*(?:[-*+]|(\d{1,9}[.)]))[ \t]+")
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto):[^\s<>]+)>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_STAR = re.compile(r"\*(?=[^\s*])(.+?)(?<=[^\s*])\*")
_UNDERSCORE = re.compile(r"(?<![\w])_(?=[^\s_])(.+?)(?<=[^\s_])_(?!\w)")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_SPECIAL_START = frozenset("`~#=-*_>|+0123456789 \t")
_SPECIAL_INLINE = re.compile(r"[`\\!\[<*_~&]")
_PRIVATE = 0xE000  # escaped characters hide here from the emphasis patterns
_SPAN = "\ue100"  # where a code span was, while the rest is stripped
_SPAN_AT = re.compile(_SPAN)
_ESCAPED = re.compile("[\ue000-\ue07f]")


def markdown_shown(markdown: str) -> str:
    """The text Rich's Markdown shows of ``markdown``, one line per paragraph, heading, list
    item or line of code (code verbatim, without its fence lines)."""
    out: list[str] = []
    code: list[int] = []  # the lines of ``out`` that are code
    paragraph: list[str] = []
    hard = False  # the paragraph's last line ends with a hard line break
    fence: str | None = None
    in_list = False

    def flush() -> None:
        if paragraph:
            out.append("".join(paragraph))
            paragraph.clear()

    for raw in markdown.split("\n"):
        if fence is not None:
            stripped = raw.strip()
            if stripped.startswith(fence) and stripped == stripped[0] * len(stripped):
                fence = None
            else:
                code.append(len(out))
                out.append(raw)
            continue
        if paragraph and not hard and raw[-1:] not in " \\":
            text = raw.strip()
            if text and text[0] not in _SPECIAL_START:  # the next line of a paragraph
                paragraph.append(" ")
                paragraph.append(text)
                continue
        line = raw
        quoted = _QUOTE.match(line)
        while quoted:
            line = line[quoted.end() :]
            quoted = _QUOTE.match(line)
        if not line.strip():
            flush()
            continue
        opened = _FENCE.match(line)
        if opened:
            flush()
            fence = opened.group(1)
            in_list = False
            continue
        if not paragraph and not in_list and line.startswith(("    ", "\t")):
            code.append(len(out))
            out.append(line[4:] if line.startswith("    ") else line[1:])
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            out.append(heading.group(1) or "")
            in_list = False
            continue
        if _RULE.match(line) or _TABLE_RULE.match(line):
            flush()
            continue
        if line.lstrip().startswith("|"):
            flush()
            out.extend(cell.strip() for cell in line.strip().strip("|").split("|"))
            continue
        item = _ITEM.match(line)
        if item:
            flush()
            in_list = True
            number = item.group(1)
            line = (number[:-1] + " " if number else "") + line[item.end() :]
        elif hard:
            flush()  # a hard line break: the rest shows on a line of its own
        elif paragraph:
            paragraph.append(" ")
        elif not line.startswith((" ", "\t")):
            in_list = False
        hard = line.endswith(("  ", "\\"))
        text = line.strip()
        if hard and text.endswith("\\"):
            text = text[:-1]
        paragraph.append(text)
    flush()
    return "\n".join(_inline_lines(out, code))


def _inline_lines(out: list[str], code: list[int]) -> list[str]:
    """``out`` with the inline syntax of every line not in ``code`` stripped, in one pass over
    all of them (no pattern crosses a line)."""
    if not code:
        prose = _inline("\n".join(out)).split("\n")
        return prose if len(prose) == len(out) else [_inline(line) for line in out]
    is_code = set(code)
    positions = [n for n in range(len(out)) if n not in is_code]
    prose = _inline("\n".join(out[n] for n in positions)).split("\n")
    if len(prose) != len(positions):  # an entity that was a line break
        prose = [_inline(out[n]) for n in positions]
    for position, text in zip(positions, prose, strict=True):
        out[position] = text
    return out


def _inline(text: str) -> str:
    """Lines of text without their inline syntax (code spans kept verbatim)."""
    if not _SPECIAL_INLINE.search(text):
        return text
    spans: list[str] = []

    def keep(span: re.Match[str]) -> str:
        code = span.group(2)
        if len(code) > 2 and code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        spans.append(code)
        return _SPAN

    text = _CODE_SPAN.sub(keep, text.replace(_SPAN, ""))
    text = _outside_code(text)
    if not spans:
        return text
    kept = iter(spans)
    return _SPAN_AT.sub(lambda _: next(kept), text)


def _outside_code(text: str) -> str:
    if not text:
        return text
    text = _ESCAPE.sub(lambda m: chr(_PRIVATE + ord(m.group(1))), text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(2) else m.group(1), text)
    text = _AUTOLINK.sub(r"\1 (\1)", text)
    text = _TAG.sub("", text)
    for pattern in (_STRONG, _STRONG, _STAR, _UNDERSCORE, _STRIKE):
        text = pattern.sub(lambda m: m.group(m.lastindex or 1), text)
    if "&" in text:
        text = html.unescape(text)
    return _ESCAPED.sub(lambda m: chr(ord(m.group()) - _PRIVATE), text)
