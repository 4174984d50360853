"""Provides the colour themes: TOML files validated into Textual `Theme` objects.

The packaged themes live in the top-level `themes/` folder of the source tree, shipped in the
wheel as `acp_tui/_themes`; the user's own are `*.toml` files in `<data dir>/themes`. A user
theme replaces a packaged one of the same name. A file that cannot be used is reported (file
name and reason) and skipped: a bad theme never stops the app.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from textual.app import App
from textual.color import Color, ColorParseError
from textual.css.constants import VALID_STYLE_FLAGS
from textual.theme import Theme

from acp_tui.config.edit import ConfigEditError, edit_settings
from acp_tui.config.paths import Paths
from acp_tui.config.strict import Invalid, Location, validate

__all__ = [
    "FALLBACK_THEME",
    "ThemeFile",
    "install_themes",
    "load_theme_file",
    "load_themes",
    "packaged_themes_dir",
    "save_theme_choice",
    "theme_dirs",
    "user_themes_dir",
]

FALLBACK_THEME = "textual-dark"
"""The theme used when the configured one does not exist."""

_PACKAGE = Path(__file__).resolve().parent.parent
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
_VARIABLE = re.compile(r"[a-z][a-z0-9-]*")
_PERCENT = re.compile(r"(?P<value>.+?)\s+(?P<percent>\d{1,3}(\.\d+)?)%")


def _valid_name(value: str) -> None:
    if not _NAME.fullmatch(value):
        raise ValueError(
            "expected lowercase letters, digits, '-' or '_', starting with a letter or digit"
        )


def _colour(value: str) -> None:
    """A colour Textual can parse: `#rrggbb`, `rgb(...)`, `hsl(...)`, a named or ansi colour."""
    try:
        Color.parse(value)
    except ColorParseError as exc:
        raise ValueError(f"not a colour: {value!r}") from exc


def _fraction(value: float) -> None:
    if not 0 <= value <= 1:
        raise ValueError("expected a number from 0 to 1")


def _variables(value: dict[str, str]) -> None:
    for name, item in value.items():
        if not _VARIABLE.fullmatch(name):
            raise ValueError(f"{name!r}: not a variable name (expected e.g. 'border-blurred')")
        _variable_value(name, item)


def _variable_value(name: str, value: str) -> None:
    """A CSS variable's value: text style flags for `*-style`, else a colour-like value.

    A value Textual cannot parse would break the stylesheet when the theme is applied, so it is
    checked here instead.
    """
    if name.endswith("-style"):
        flags = value.split()
        if not flags or any(flag not in VALID_STYLE_FLAGS for flag in flags):
            raise ValueError(
                f"{name}: expected text style flags such as 'bold', 'italic' or 'none' "
                f"(got {value!r})"
            )
        return
    base = value.strip()
    match = _PERCENT.fullmatch(base)
    if match is not None and float(match.group("percent")) <= 100:
        base = match.group("value")
    if base in ("auto", "initial"):
        return
    try:
        Color.parse(base)
    except ColorParseError:
        raise ValueError(
            f"{name}: expected a colour, optionally followed by a percentage (got {value!r})"
        ) from None


def _optional_colour() -> Any:
    """An optional colour field (one `field()` per attribute: dataclasses fills in its name)."""
    return field(default=None, metadata={"check": _colour})


@dataclass(frozen=True, kw_only=True)
class ThemeFile:
    """One theme file: the colours Textual derives its whole palette from.

    Validated with `acp_tui.config.strict`: no coercion, unknown keys are errors.
    """

    name: str = field(metadata={"check": _valid_name})
    """The theme's name, shown in the command palette and saved as `theme` in config.toml."""

    dark: bool
    """Whether this is a dark theme (light text on a dark background)."""

    primary: str = field(metadata={"check": _colour})
    """The main colour: borders, the focused input, the user's messages."""

    secondary: str | None = _optional_colour()
    """A second brand colour, used for tool calls."""

    accent: str | None = _optional_colour()
    """A contrasting colour for highlights and diff hunks."""

    warning: str | None = _optional_colour()
    """Warnings and the permission dialog."""

    error: str | None = _optional_colour()
    """Errors and removed diff lines."""

    success: str | None = _optional_colour()
    """Success and added diff lines."""

    foreground: str | None = _optional_colour()
    """The default text colour."""

    background: str | None = _optional_colour()
    """The screen's background."""

    surface: str | None = _optional_colour()
    """The background of widgets such as the transcript."""

    panel: str | None = _optional_colour()
    """The background of panels, dialogs and the status bar."""

    boost: str | None = _optional_colour()
    """A colour blended over others to lift them slightly."""

    luminosity_spread: float | None = field(default=None, metadata={"check": _fraction})
    """How far the generated lighter and darker shades spread (Textual's default: 0.15)."""

    text_alpha: float | None = field(default=None, metadata={"check": _fraction})
    """The opacity of body text (Textual's default: 0.95)."""

    variables: dict[str, str] = field(default_factory=dict, metadata={"check": _variables})
    """Textual CSS variables to override, e.g. `footer-key-foreground = "#88c0d0"`."""

    def to_theme(self) -> Theme:
        theme = Theme(
            name=self.name,
            primary=self.primary,
            secondary=self.secondary,
            accent=self.accent,
            warning=self.warning,
            error=self.error,
            success=self.success,
            foreground=self.foreground,
            background=self.background,
            surface=self.surface,
            panel=self.panel,
            boost=self.boost,
            dark=self.dark,
            variables=dict(self.variables),
        )
        if self.luminosity_spread is not None:
            theme.luminosity_spread = self.luminosity_spread
        if self.text_alpha is not None:
            theme.text_alpha = self.text_alpha
        return theme


class ThemeError(Exception):
    """A theme file that cannot be used; the message names the file and says why."""


def load_theme_file(path: Path) -> Theme:
    """Read one theme file; raise `ThemeError` naming `path` when it cannot be used."""
    import tomllib  # here: the first frame, before any theme file is read, does without it

    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ThemeError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ThemeError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ThemeError(f"{path}: invalid TOML: {exc}") from None
    try:
        model = validate(ThemeFile, data)
    except Invalid as exc:
        problems = "; ".join(f"{_dotted(loc)}: {message}" for loc, message in exc.problems)
        raise ThemeError(f"{path}: {problems}") from None
    theme = model.to_theme()
    try:
        theme.to_color_system().generate()  # what Textual does when the theme is applied
    except Exception as exc:
        raise ThemeError(f"{path}: Textual cannot use this theme: {exc}") from None
    return theme


def load_themes(directories: Iterable[Path]) -> tuple[list[Theme], list[str]]:
    """Every usable theme in `directories` (`*.toml`), and one problem per unusable file.

    A theme in a later directory replaces an earlier one of the same name, so pass the packaged
    directory first and the user's last. Missing directories are skipped silently.
    """
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for directory in directories:
        seen: dict[str, Path] = {}
        for path in _theme_files(directory, problems):
            try:
                theme = load_theme_file(path)
            except ThemeError as exc:
                problems.append(str(exc))
                continue
            if theme.name in seen:
                problems.append(
                    f"{path}: theme {theme.name!r} is also defined in {seen[theme.name].name}; "
                    f"using {path.name}"
                )
            seen[theme.name] = path
            themes[theme.name] = theme
    return list(themes.values()), problems


def _theme_files(directory: Path, problems: list[str]) -> list[Path]:
    try:
        return sorted(p for p in directory.glob("*.toml") if p.is_file())
    except OSError as exc:
        problems.append(f"{directory}: cannot list themes: {exc.strerror or exc}")
        return []


def packaged_themes_dir() -> Path | None:
    """The themes shipped with acp-tui: `acp_tui/_themes` in a wheel, `themes/` in a checkout."""
    wheel = _PACKAGE / "_themes"
    if wheel.is_dir():
        return wheel
    checkout = _PACKAGE.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "themes").is_dir():
        return checkout / "themes"
    return None


def user_themes_dir(paths: Paths) -> Path:
    """Where the user's own theme files go."""
    return paths.data_dir / "themes"


def theme_dirs(paths: Paths) -> Sequence[Path]:
    """The directories to load themes from, in override order (packaged, then the user's)."""
    packaged = packaged_themes_dir()
    return [*([packaged] if packaged is not None else []), user_themes_dir(paths)]


def install_themes(app: App[Any], theme_name: str, paths: Paths) -> list[str]:
    """Register every theme with `app` (never Textual's global table) and select `theme_name`.

    Returns the problems to show the user: unusable theme files, and an unknown `theme_name`
    (then `FALLBACK_THEME` is used and the config file is left alone).
    """
    themes, problems = load_themes(theme_dirs(paths))
    for theme in themes:
        app.register_theme(theme)
    if theme_name in app.available_themes:
        app.theme = theme_name
    else:
        problems.append(
            f"{paths.config_file}: theme: no theme named {theme_name!r}; using {FALLBACK_THEME} "
            "(choose another with Ctrl+P, then Theme)"
        )
        app.theme = FALLBACK_THEME
    return problems


def save_theme_choice(
    name: str, config_file: Path, tell: Callable[[str], None] | None = None
) -> str | None:
    """Save `theme = name` in the config file; return why it was not saved, or None.

    The file is read again first, so changes made since the app started are kept, and a file
    with problems is never rewritten: the user's text would be replaced by defaults. ``tell``
    hears what else the user should know of the write (see `edit_settings`).
    """
    try:
        edit_settings(config_file, lambda settings: replace(settings, theme=name), tell=tell)
    except ConfigEditError as exc:
        if len(exc.lines) > 1:  # the file's problems, then "not changing ..."
            return f"the config file has problems, so it was left as it is: {exc.lines[0]}"
        return exc.lines[0]
    return None


def _dotted(loc: Location) -> str:
    return ".".join(str(part) for part in loc) or "(top level)"
