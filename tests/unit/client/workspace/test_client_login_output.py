"""What a terminal login printed, as the transcript shows it once the app is back."""

from __future__ import annotations

from acp_tui.client.workspace.login import printed_lines


def test_escape_sequences_are_dropped_and_progress_lines_show_their_last_state() -> None:
    output = (
        "\x1b[1mSign in\x1b[0m\r\n"
        "\x1b]0;a title\x07waiting 1/3\rwaiting 2/3\rwaiting 3/3\r\n"
        "\x1b[?25lDone.\x1b[?25h\r\n\r\n"
    )
    assert printed_lines(output) == "Sign in\nwaiting 3/3\nDone."


def test_only_the_last_lines_are_kept() -> None:
    output = "".join(f"line {n}\r\n" for n in range(100))
    assert printed_lines(output, keep=3) == "line 97\nline 98\nline 99"


def test_nothing_printed_is_empty() -> None:
    assert printed_lines("\x1b[2J\x1b[H\r\n  \r\n") == ""
