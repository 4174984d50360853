"""Provides validate_roots and complete_directory: checking extra roots before they are sent.

A user names extra roots in any spelling (relative, ``~``, trailing slash); the agent must only
ever see absolute paths (proposal 004). ``validate_roots`` turns each entry into its absolute
form, which is what the UI shows and what is sent, and says why an entry cannot be used.

Decisions, for the reader and the user:

* The absolute form is lexical: ``~`` expanded, relative entries joined to the session cwd,
  ``.``, ``..`` and repeated or trailing slashes folded (``os.path.abspath`` rules, the same as
  the config file's roots). Symbolic links are *not* resolved: a root is sent as the user named
  it, so a link to a directory is accepted in its link form. Enforcement does not depend on the
  spelling: ``RootSet`` pins each root's real path when the session starts.
* Comparisons use real paths: an entry that is the cwd in another spelling (``./``, a link to
  it) is refused, and so is a second entry naming the same directory as an earlier one; the
  first occurrence wins, the user's order is kept.
* Nested or overlapping roots are allowed (the protocol gives them meaning through order) and
  produce a note saying that order matters.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Completion",
    "RootProblem",
    "RootsCheck",
    "absolute_form",
    "complete_directory",
    "validate_roots",
]

# Linux's PATH_MAX, the same bound RootSet applies to an agent's paths.
_PATH_MAX = 4096


@dataclass(frozen=True, slots=True)
class RootProblem:
    """Why the entry at ``index`` (as the user gave it) cannot be used."""

    index: int
    entry: str
    reason: str


@dataclass(frozen=True, slots=True)
class RootsCheck:
    """The result of :func:`validate_roots`."""

    accepted: tuple[Path, ...]
    """The usable entries in the user's order, in their absolute form (what is sent)."""
    problems: tuple[RootProblem, ...] = ()
    """One problem per refused entry, in entry order."""
    notes: tuple[str, ...] = ()
    """Things to know that do not refuse anything (nested roots: order matters)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def problem_at(self, index: int) -> str | None:
        """The reason the entry at ``index`` was refused, or None when it was accepted."""
        for problem in self.problems:
            if problem.index == index:
                return problem.reason
        return None


def absolute_form(entry: str, cwd: Path) -> Path | None:
    """The absolute path ``entry`` names (``~`` expanded, relative to ``cwd``); None if empty.

    Lexical only (no symbolic link is resolved), so this is also what the UI shows.
    """
    if not entry.strip() or "\x00" in entry:
        return None
    expanded = os.path.expanduser(entry)
    if expanded.startswith("~"):
        return None  # ~user for an unknown user
    return Path(os.path.abspath(os.path.join(os.path.abspath(cwd), expanded)))


def _real(path: Path) -> Path | None:
    try:
        return Path(os.path.realpath(path, strict=True))
    except (OSError, ValueError):
        return None


def _refusal(entry: str, path: Path | None) -> str | None:
    """Why ``entry`` (absolute form ``path``) is not a usable directory, else None."""
    if not entry.strip():
        return "empty path"
    if "\x00" in entry:
        return "contains a NUL byte"
    if path is None:
        return f"cannot expand {entry.split('/', 1)[0]!r}: no such user"
    try:
        encoded = os.fsencode(path)
    except UnicodeEncodeError:  # e.g. a lone surrogate, which JSON can carry
        return "is not a valid file name on this system"
    if len(encoded) >= _PATH_MAX:
        return f"path is too long (at least {_PATH_MAX} bytes)"
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "does not exist"
    except NotADirectoryError:
        return "does not exist (a part of it is a file)"
    except PermissionError:
        return "cannot be reached (permission denied)"
    except OSError as exc:
        return f"cannot be checked: {exc.strerror or type(exc).__name__}"
    if stat.S_ISREG(st.st_mode):
        return "is a file, not a directory"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if not os.access(path, os.R_OK | os.X_OK):
        return "is not readable (permission denied)"
    return None


def _inside(inner: Path, outer: Path) -> bool:
    return outer in inner.parents


def validate_roots(entries: Sequence[str], cwd: Path) -> RootsCheck:
    """Check the extra roots the user named for a session in ``cwd``.

    Each entry must be non-empty and name an existing, readable directory that is neither the
    cwd nor a directory named by an earlier entry. Accepted entries keep the user's order and
    are returned in their absolute (lexical) form. Pure apart from reading the file system.
    """
    cwd_abs = Path(os.path.abspath(cwd))
    cwd_real = _real(cwd_abs) or cwd_abs
    accepted: list[Path] = []
    reals: list[Path] = []
    problems: list[RootProblem] = []
    for index, entry in enumerate(entries):
        path = absolute_form(entry, cwd_abs)
        reason = _refusal(entry, path)
        real = None
        if reason is None and path is not None:
            real = _real(path)
            if real is None:
                reason = "cannot be resolved (a symbolic link loop?)"
            elif real == cwd_real:
                reason = "is the session's working directory, which is always the first root"
            elif real in reals:
                earlier = accepted[reals.index(real)]
                reason = (
                    "is listed twice"
                    if earlier == path
                    else f"is the same directory as {earlier}, listed before"
                )
        if reason is not None or path is None or real is None:
            problems.append(RootProblem(index, entry, reason or "cannot be used"))
            continue
        accepted.append(path)
        reals.append(real)
    return RootsCheck(tuple(accepted), tuple(problems), _overlaps(accepted, reals, cwd_real))


def _overlaps(accepted: Sequence[Path], reals: Sequence[Path], cwd_real: Path) -> tuple[str, ...]:
    notes: list[str] = []
    for i, (path, real) in enumerate(zip(accepted, reals, strict=True)):
        if _inside(real, cwd_real):
            notes.append(f"{path} is inside the working directory: order matters")
        elif _inside(cwd_real, real):
            notes.append(f"the working directory is inside {path}: order matters")
        for other, other_real in zip(accepted[:i], reals[:i], strict=True):
            if _inside(real, other_real):
                notes.append(f"{path} is inside {other}: order matters")
            elif _inside(other_real, real):
                notes.append(f"{other} is inside {path}: order matters")
    return tuple(notes)


@dataclass(frozen=True, slots=True)
class Completion:
    """What Tab does to a path being typed."""

    text: str
    """The new text (the old one when nothing could be added)."""
    candidates: tuple[str, ...] = ()
    """The matching directory names (sorted, at most ``limit``)."""
    more: bool = False
    """Whether more names matched than ``candidates`` holds."""


def complete_directory(text: str, cwd: Path, limit: int = 50) -> Completion:
    """Complete the last component of ``text`` to a directory name (shell-style).

    The text keeps the user's spelling (``~``, relative); only the directory listing uses its
    absolute form. One match completes fully with a trailing slash; several extend to their
    longest common prefix. Hidden directories match only when the prefix starts with a dot.
    """
    head, _, partial = text.rpartition("/")
    head = f"{head}/" if _ else ""
    base = absolute_form(head, cwd) if head else Path(os.path.abspath(cwd))
    if base is None or "\x00" in text:
        return Completion(text)
    names: list[str] = []
    try:
        with os.scandir(base) as listing:
            for item in listing:
                if not item.name.startswith(partial):
                    continue
                if item.name.startswith(".") and not partial.startswith("."):
                    continue
                try:
                    if item.is_dir():
                        names.append(item.name)
                except OSError:
                    continue
    except OSError:
        return Completion(text)
    names.sort()
    if not names:
        return Completion(text)
    if len(names) == 1:
        return Completion(f"{head}{names[0]}/", (names[0],))
    common = os.path.commonprefix(names)  # noqa: RUF071 (a prefix of names, by character)
    return Completion(f"{head}{common}", tuple(names[:limit]), len(names) > limit)
