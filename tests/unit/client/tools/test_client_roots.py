"""RootSet: attack paths are refused (fail closed), legitimate paths inside the roots allowed."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from acp_tui.client.tools.roots import PathNotFound, PathRefused, RootSet
from acp_tui.protocol.jsonrpc import ErrorCode, RpcError


@dataclass
class Tree:
    """A workspace built in tmp_path; ``roots`` is [app, lib, linkroot]."""

    base: Path
    app: Path  # the session cwd
    app2: Path  # not a root: a sibling sharing app's name as a prefix
    lib: Path  # an additional root
    linkroot: Path  # an additional root that is a symlink to elsewhere/target
    target: Path
    elsewhere: Path
    outside: Path
    roots: RootSet


@pytest.fixture
def t(tmp_path: Path) -> Tree:
    base = tmp_path.resolve() / "w"
    app, app2, lib, outside = base / "app", base / "app2", base / "lib", base / "outside"
    elsewhere = base / "elsewhere"
    target = elsewhere / "target"
    for d in (app / "sub", app2, lib, outside / "deep" / "dir", target):
        d.mkdir(parents=True)
    (app / "file.txt").write_text("in app\n")
    (app / "sub" / "inner.txt").write_text("inner\n")
    (app2 / "secret.txt").write_text("app2 secret\n")
    (lib / "lib.txt").write_text("lib\n")
    (outside / "secret.txt").write_text("secret\n")
    (outside / "deep" / "secret.txt").write_text("deep secret\n")
    (target / "t.txt").write_text("target\n")
    (elsewhere / "sibling.txt").write_text("sibling\n")
    linkroot = base / "linkroot"
    linkroot.symlink_to(target)
    roots = RootSet(str(app), [str(lib), str(linkroot)])
    return Tree(base, app, app2, lib, linkroot, target, elsewhere, outside, roots)


def link(at: Path, to: Path | str) -> Path:
    at.symlink_to(to)
    return at


def _root_removed(t: Tree) -> str:
    shutil.rmtree(t.lib)
    return f"{t.lib}/lib.txt"


def _root_replaced_by_symlink(t: Tree) -> str:
    shutil.rmtree(t.lib)
    t.lib.symlink_to(t.outside)
    return f"{t.lib}/secret.txt"


def _symlinked_root_retargeted(t: Tree) -> str:
    t.linkroot.unlink()
    t.linkroot.symlink_to(t.outside)
    return f"{t.linkroot}/secret.txt"


def _file_as_root(t: Tree) -> str:
    t.roots = RootSet(str(t.app), [str(t.outside / "secret.txt")])
    return str(t.outside / "secret.txt")


def _chain_outside(t: Tree) -> str:
    link(t.lib / "c3", t.outside / "secret.txt")
    link(t.app / "c2", t.lib / "c3")
    return str(link(t.app / "c1", t.app / "c2"))


def _loop(t: Tree) -> str:
    link(t.app / "loop1", t.app / "loop2")
    link(t.app / "loop2", t.app / "loop1")
    return str(t.app / "loop1")


def _fifo(t: Tree) -> str:
    os.mkfifo(t.app / "fifo")
    return str(t.app / "fifo")


Case = Callable[[Tree], object]

# (id, path builder, for_write); every one must be refused with PathRefused.
REFUSED: list[tuple[str, Case, bool]] = [
    ("relative", lambda t: "app/file.txt", False),
    ("dot-relative", lambda t: "./file.txt", False),
    ("tilde-not-expanded", lambda t: "~/file.txt", False),
    ("empty", lambda t: "", False),
    ("not-a-string", lambda t: None, False),
    ("bytes-path", lambda t: os.fsencode(t.app / "file.txt"), False),
    ("nul-read", lambda t: f"{t.app}/file.txt\x00.png", False),
    ("nul-write", lambda t: f"{t.app}/new\x00.txt", True),
    ("dotdot-lexical", lambda t: f"{t.app}/../outside/secret.txt", False),
    ("dotdot-deep", lambda t: f"{t.app}/sub/../../app2/secret.txt", False),
    ("dotdot-write", lambda t: f"{t.app}/../outside/new.txt", True),
    ("symlink-file-out", lambda t: str(link(t.app / "out", t.outside / "secret.txt")), False),
    ("symlink-dir-out", lambda t: f"{link(t.app / 'dout', t.outside)}/secret.txt", False),
    ("symlink-out-write", lambda t: str(link(t.app / "out", t.outside / "secret.txt")), True),
    ("symlink-chain-out", _chain_outside, False),
    (
        "dotdot-via-symlink",  # lexically app/secret.txt, really outside/deep/secret.txt
        lambda t: f"{link(t.app / 's', t.outside / 'deep' / 'dir')}/../secret.txt",
        False,
    ),
    ("symlinked-root-sibling", lambda t: f"{t.linkroot}/../sibling.txt", False),
    ("symlinked-root-lexical-sibling", lambda t: str(t.base / "sibling.txt"), True),
    ("symlink-loop", _loop, False),
    ("symlink-loop-traverse-write", lambda t: f"{_loop(t)}/x.txt", True),
    ("dangling-read", lambda t: str(link(t.app / "dang", t.app / "nothere.txt")), False),
    ("dangling-write", lambda t: str(link(t.app / "dang", t.app / "nothere.txt")), True),
    ("dangling-out-write", lambda t: str(link(t.app / "dang", t.outside / "new.txt")), True),
    ("dangling-dir-write", lambda t: f"{link(t.app / 'dd', t.outside / 'nodir')}/x.txt", True),
    ("prefix-app2", lambda t: str(t.app2 / "secret.txt"), False),
    ("prefix-app2-write", lambda t: str(t.app2 / "new.txt"), True),
    ("path-max", lambda t: str(t.app) + "/a" * 2100, True),
    ("long-component", lambda t: f"{t.app}/{'x' * 300}", False),
    ("long-component-write", lambda t: f"{t.app}/{'x' * 300}/new.txt", True),
    ("root-removed", _root_removed, False),
    ("root-removed-write", _root_removed, True),
    ("root-replaced-by-symlink", _root_replaced_by_symlink, False),
    ("symlinked-root-retargeted", _symlinked_root_retargeted, False),
    ("trailing-slash-dir-out", lambda t: f"{link(t.app / 'dout', t.outside)}/", False),
    ("dot-components-out", lambda t: f"{link(t.app / 'dout', t.outside)}/./secret.txt/.", False),
    ("file-as-root", _file_as_root, False),
    ("ancestor-symlink-out", lambda t: f"{link(t.app / 'dout', t.outside)}/newdir/n.txt", True),
    ("dotdot-after-missing", lambda t: f"{t.app}/newdir/../../outside/x.txt", True),
    ("dotdot-after-missing-inside", lambda t: f"{t.app}/newdir/../file.txt", True),
    ("directory-read", lambda t: str(t.app / "sub"), False),
    ("directory-write", lambda t: str(t.app / "sub"), True),
    ("root-itself-read", lambda t: str(t.app), False),
    ("file-as-directory", lambda t: f"{t.app}/file.txt/x", False),
    ("fifo-read", _fifo, False),
    ("proc-self-root", lambda t: "/proc/self/root/etc/hostname", False),
    ("proc-self-root-link", lambda t: f"{link(t.app / 'p', '/proc/self/root')}/etc/passwd", False),
    ("proc-self-cwd-write", lambda t: "/proc/self/cwd/new.txt", True),
    ("missing-outside-read", lambda t: str(t.outside / "nothere.txt"), False),
    ("etc-passwd", lambda t: "/etc/passwd", False),
]


@pytest.mark.parametrize(
    ("make", "for_write"), [(m, w) for _, m, w in REFUSED], ids=[i for i, _, _ in REFUSED]
)
def test_refused(t: Tree, make: Case, for_write: bool) -> None:
    path = make(t)
    with pytest.raises(PathRefused) as info:
        t.roots.check(path, for_write=for_write)
    error = info.value
    assert error.code == ErrorCode.INVALID_PARAMS
    assert isinstance(error, RpcError)
    assert error.reason in error.message
    if isinstance(path, str) and path and len(path) < 200:
        assert repr(path) in error.message  # names the path (escaped)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads through chmod 000; cannot be tested")
def test_refused_unreadable_directory(t: Tree) -> None:
    locked = t.app / "locked"
    locked.mkdir()
    (locked / "f.txt").write_text("x")
    locked.chmod(0)
    try:
        with pytest.raises(RpcError):
            t.roots.check(str(locked / "f.txt"))
    finally:
        locked.chmod(0o700)


def test_relative_reason_is_clear(t: Tree) -> None:
    with pytest.raises(PathRefused, match="relative path"):
        t.roots.check("~/x")
    with pytest.raises(PathRefused, match="outside the session's roots"):
        t.roots.check(str(t.app2 / "secret.txt"))
    with pytest.raises(PathRefused, match="NUL"):
        t.roots.check(f"{t.app}/a\x00")


def test_read_of_missing_file_inside_is_not_found(t: Tree) -> None:
    path = str(t.app / "nothere.txt")
    with pytest.raises(PathNotFound) as info:
        t.roots.check(path)
    assert info.value.code == -32002
    assert info.value.data == {"uri": path}
    with pytest.raises(PathNotFound):
        t.roots.check(str(t.app / "newdir" / "nothere.txt"))


# (id, path builder, for_write, expected real path relative to the tree base)
ALLOWED: list[tuple[str, Case, bool, str]] = [
    ("cwd-file", lambda t: str(t.app / "file.txt"), False, "app/file.txt"),
    ("cwd-file-write", lambda t: str(t.app / "file.txt"), True, "app/file.txt"),
    ("additional-root", lambda t: str(t.lib / "lib.txt"), False, "lib/lib.txt"),
    ("symlinked-root", lambda t: str(t.linkroot / "t.txt"), False, "elsewhere/target/t.txt"),
    ("symlinked-root-real", lambda t: str(t.target / "t.txt"), False, "elsewhere/target/t.txt"),
    ("nested", lambda t: str(t.app / "sub" / "inner.txt"), False, "app/sub/inner.txt"),
    (
        "internal-symlink",
        lambda t: str(link(t.app / "in", t.app / "sub" / "inner.txt")),
        False,
        "app/sub/inner.txt",
    ),
    (
        "symlink-to-other-root",
        lambda t: str(link(t.app / "tolib", t.lib / "lib.txt")),
        False,
        "lib/lib.txt",
    ),
    ("dot-and-dotdot-inside", lambda t: f"{t.app}/./sub/../file.txt", False, "app/file.txt"),
    ("double-slashes", lambda t: f"{t.app}//sub///inner.txt", False, "app/sub/inner.txt"),
    ("new-file", lambda t: str(t.app / "new.txt"), True, "app/new.txt"),
    ("new-file-new-dirs", lambda t: f"{t.app}/a/b/new.txt", True, "app/a/b/new.txt"),
    ("new-file-in-lib", lambda t: str(t.lib / "n.txt"), True, "lib/n.txt"),
    ("new-file-via-symlinked-root", lambda t: f"{t.linkroot}/n", True, "elsewhere/target/n"),
    ("unicode-name", lambda t: str(t.app / "é✓.txt"), True, "app/é✓.txt"),
]


@pytest.mark.parametrize(
    ("make", "for_write", "expected"),
    [(m, w, e) for _, m, w, e in ALLOWED],
    ids=[i for i, _, _, _ in ALLOWED],
)
def test_allowed(t: Tree, make: Case, for_write: bool, expected: str) -> None:
    assert t.roots.check(make(t), for_write=for_write) == t.base / expected


def test_nested_roots(t: Tree) -> None:
    roots = RootSet(str(t.app / "sub"), [str(t.app)])
    assert roots.check(str(t.app / "sub" / "inner.txt")) == t.app / "sub" / "inner.txt"
    assert roots.check(str(t.app / "file.txt")) == t.app / "file.txt"
    assert roots.locate(str(t.app / "sub" / "inner.txt")).root == t.app / "sub"


def test_check_directory(t: Tree) -> None:
    assert t.roots.check_directory(str(t.app)) == t.app
    assert t.roots.check_directory(str(t.app / "sub")) == t.app / "sub"
    assert t.roots.check_directory(str(t.linkroot)) == t.target
    for bad in (str(t.outside), str(t.app / "file.txt"), str(t.base), "sub"):
        with pytest.raises(PathRefused):
            t.roots.check_directory(bad)
    with pytest.raises(PathNotFound):
        t.roots.check_directory(str(t.app / "missing"))


def test_roots_listing_and_validation(t: Tree) -> None:
    roots = RootSet(str(t.app), [str(t.lib), str(t.app), str(t.lib)])
    assert roots.roots == (str(t.app), str(t.lib))
    assert list(roots) == [str(t.app), str(t.lib)]
    assert roots.cwd == str(t.app)
    assert len(roots) == 2
    for bad in ("", "relative", "/a\x00b"):
        with pytest.raises(ValueError, match="root"):
            RootSet(bad)


def test_missing_root_at_start_contains_nothing(t: Tree) -> None:
    roots = RootSet(str(t.base / "later"), [str(t.app)])
    (t.base / "later").mkdir()
    (t.base / "later" / "f").write_text("x")
    with pytest.raises(PathRefused):
        roots.check(str(t.base / "later" / "f"))
    assert roots.check(str(t.app / "file.txt")) == t.app / "file.txt"


def test_root_recreated_at_same_path_still_works(t: Tree) -> None:
    shutil.rmtree(t.lib)
    with pytest.raises(PathRefused):
        t.roots.check(str(t.lib / "x"), for_write=True)
    t.lib.mkdir()
    assert t.roots.check(str(t.lib / "x"), for_write=True) == t.lib / "x"


def test_hard_link_is_a_documented_limit(t: Tree) -> None:
    """A hard link inside a root to an outside file is the same file: allowed for reading."""
    os.link(t.outside / "secret.txt", t.app / "hard.txt")
    assert t.roots.check(str(t.app / "hard.txt")) == t.app / "hard.txt"
