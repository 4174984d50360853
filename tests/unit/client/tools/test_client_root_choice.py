"""validate_roots and complete_directory: what may be sent as extra roots, and in what form."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tui.client.tools.root_choice import (
    RootProblem,
    absolute_form,
    complete_directory,
    validate_roots,
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """cwd ``proj`` beside ``lib`` and ``docs``, a file, and ``lib/sub``."""
    for name in ("proj", "lib", "lib/sub", "docs"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("not a directory")
    return tmp_path


def reasons(entries: list[str], cwd: Path) -> dict[int, str]:
    return {p.index: p.reason for p in validate_roots(entries, cwd).problems}


def test_absolute_entries_are_accepted_in_order(tree: Path) -> None:
    check = validate_roots([str(tree / "lib"), str(tree / "docs")], tree / "proj")
    assert check.ok
    assert check.accepted == (tree / "lib", tree / "docs")
    assert check.notes == ()


def test_relative_entries_take_their_absolute_form_against_cwd(tree: Path) -> None:
    check = validate_roots(["../lib", "../docs/", "./../lib/sub/."], tree / "proj")
    assert check.accepted == (tree / "lib", tree / "docs", tree / "lib" / "sub")
    assert all(p.is_absolute() for p in check.accepted)
    assert absolute_form("../lib//", tree / "proj") == tree / "lib"


def test_tilde_is_expanded(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tree))
    check = validate_roots(["~/lib", "~"], tree / "proj")
    assert check.accepted == (tree / "lib", tree)
    assert absolute_form("~/docs", Path("/elsewhere")) == tree / "docs"


def test_unknown_user_is_refused(tree: Path) -> None:
    assert "no such user" in reasons(["~no-such-user-here-42/x"], tree)[0]


@pytest.mark.parametrize("entry", ["", "   "])
def test_empty_entries_are_refused(tree: Path, entry: str) -> None:
    check = validate_roots([entry, str(tree / "lib")], tree / "proj")
    assert check.problems == (RootProblem(0, entry, "empty path"),)
    assert check.accepted == (tree / "lib",)


def test_nonexistent_and_file_entries_say_why(tree: Path) -> None:
    got = reasons(
        [str(tree / "missing"), str(tree / "notes.txt"), str(tree / "notes.txt" / "x")],
        tree / "proj",
    )
    assert got[0] == "does not exist"
    assert got[1] == "is a file, not a directory"
    assert got[2].startswith("does not exist")


def test_nul_byte_and_overlong_paths_are_refused(tree: Path) -> None:
    got = reasons(["/tmp/a\x00b", "/" + "a" * 5000], tree)
    assert got[0] == "contains a NUL byte"
    assert "too long" in got[1]


def test_unreadable_directory_is_refused(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tree / "locked"
    locked.mkdir(mode=0o000)
    try:
        if os.access(locked, os.R_OK):  # running as root: simulate the refusal
            real_access = os.access
            monkeypatch.setattr(
                os, "access", lambda p, m: False if Path(p) == locked else real_access(p, m)
            )
        assert reasons([str(locked)], tree / "proj") == {0: "is not readable (permission denied)"}
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize("spelling", ["{cwd}", "{cwd}/", "{cwd}/.", ".", "./", "../proj", "link"])
def test_the_cwd_in_any_spelling_is_refused(tree: Path, spelling: str) -> None:
    cwd = tree / "proj"
    (tree / "proj" / "link").symlink_to(cwd)
    entry = spelling.format(cwd=cwd)
    check = validate_roots([str(tree / "lib"), entry, str(tree / "docs")], cwd)
    assert [p.index for p in check.problems] == [1]
    assert "working directory" in check.problems[0].reason
    assert check.accepted == (tree / "lib", tree / "docs")  # the user's order is kept


def test_duplicates_are_refused_after_the_first(tree: Path) -> None:
    lib = str(tree / "lib")
    check = validate_roots([lib, str(tree / "docs"), lib, "../lib/", "../docs"], tree / "proj")
    assert check.accepted == (tree / "lib", tree / "docs")
    assert [p.index for p in check.problems] == [2, 3, 4]
    assert check.problems[0].reason == "is listed twice"
    assert check.problems[1].reason == "is listed twice"  # the same absolute form


def test_a_symlinked_directory_is_accepted_in_its_link_form(tree: Path) -> None:
    link = tree / "lib-link"
    link.symlink_to(tree / "lib")
    check = validate_roots([str(link)], tree / "proj")
    assert check.accepted == (link,)  # as named, not resolved to .../lib
    # ... but a second name for a directory already listed is refused.
    check = validate_roots([str(tree / "lib"), str(link)], tree / "proj")
    assert check.accepted == (tree / "lib",)
    assert check.problem_at(1) == f"is the same directory as {tree / 'lib'}, listed before"


def test_a_symlink_loop_is_refused(tree: Path) -> None:
    (tree / "loop").symlink_to(tree / "loop")
    assert reasons([str(tree / "loop")], tree)[0]


def test_nested_and_overlapping_roots_are_kept_with_a_note(tree: Path) -> None:
    sub, lib = tree / "lib" / "sub", tree / "lib"
    check = validate_roots([str(sub), str(lib), str(tree)], tree / "proj")
    assert check.ok
    assert check.accepted == (sub, lib, tree)
    assert f"{sub} is inside {lib}: order matters" in check.notes
    assert f"{lib} is inside {tree}: order matters" in check.notes
    assert f"the working directory is inside {tree}: order matters" in check.notes
    inner = tree / "proj" / "inner"
    inner.mkdir()
    check = validate_roots(["inner"], tree / "proj")
    assert check.accepted == (inner,)
    assert check.notes == (f"{inner} is inside the working directory: order matters",)


def test_problem_at(tree: Path) -> None:
    check = validate_roots(["", str(tree / "lib")], tree / "proj")
    assert check.problem_at(0) == "empty path"
    assert check.problem_at(1) is None
    assert not check.ok


# -- completion ---------------------------------------------------------------------------------


def test_a_unique_prefix_completes_with_a_slash(tree: Path) -> None:
    assert complete_directory("../li", tree / "proj").text == "../lib/"
    assert complete_directory(str(tree / "do"), tree).text == f"{tree}/docs/"
    assert complete_directory("../lib/s", tree / "proj").text == "../lib/sub/"


def test_files_never_complete_and_several_matches_extend_to_the_common_prefix(
    tree: Path,
) -> None:
    (tree / "docs-old").mkdir()
    (tree / "docs-older").mkdir()
    done = complete_directory("../do", tree / "proj")
    assert done.text == "../docs"
    assert done.candidates == ("docs", "docs-old", "docs-older")
    assert complete_directory("../no", tree / "proj").text == "../no"  # notes.txt is a file


def test_completion_keeps_the_tilde(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tree))
    assert complete_directory("~/li", Path("/")).text == "~/lib/"


def test_hidden_directories_need_a_dot(tree: Path) -> None:
    (tree / ".hidden").mkdir()
    assert ".hidden" not in complete_directory("", tree).candidates
    assert complete_directory(".h", tree).text == ".hidden/"


def test_completion_of_a_missing_directory_changes_nothing(tree: Path) -> None:
    done = complete_directory("/no/such/dir/x", tree)
    assert done.text == "/no/such/dir/x"
    assert done.candidates == ()


def test_completion_caps_the_candidates(tree: Path) -> None:
    for i in range(12):
        (tree / "many" / f"d{i:02}").mkdir(parents=True)
    done = complete_directory("many/d", tree, limit=5)
    assert done.text == "many/d"
    assert len(done.candidates) == 5
    assert done.more


def test_a_name_that_cannot_be_a_file_name_is_refused_not_raised(tmp_path: Path) -> None:
    check = validate_roots(["lone \ud800 surrogate"], tmp_path)  # JSON can carry one
    assert not check.ok
    assert check.problems[0].reason == "is not a valid file name on this system"
