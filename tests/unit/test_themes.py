"""Tests for the theme files and their loader: validated, reported when bad, never fatal."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.config.paths import Paths
from acp_tui.config.settings import AgentConfig, Settings, load_settings, save_settings
from acp_tui.config.strict import validate
from acp_tui.ui import themes
from acp_tui.ui.themes import (
    load_theme_file,
    load_themes,
    packaged_themes_dir,
    save_theme_choice,
    theme_dirs,
    user_themes_dir,
)

REPO = Path(__file__).resolve().parents[2]

GOOD = """\
name = "{name}"
dark = {dark}
primary = "{primary}"
background = "#101010"
"""


def write(directory: Path, filename: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / filename
    path.write_text(text)
    return path


def test_packaged_themes_are_all_valid_with_dark_and_light() -> None:
    directory = packaged_themes_dir()
    assert directory == REPO / "themes"  # a checkout / editable install finds the source folder
    loaded, problems = load_themes([directory])
    assert problems == []
    files = sorted(directory.glob("*.toml"))
    assert len(loaded) == len(files) >= 4
    assert sorted(t.name for t in loaded) == sorted(p.stem for p in files)
    assert sum(t.dark for t in loaded) >= 2
    assert sum(not t.dark for t in loaded) >= 2
    for theme in loaded:
        assert theme.name.startswith("acp-")
        colours = ("secondary", "accent", "warning", "error", "success", "foreground")
        assert all(getattr(theme, name) for name in (*colours, "background", "surface", "panel"))
        assert "text-muted" in theme.to_color_system().generate()


def test_the_wheel_copy_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site-packages" / "acp_tui"
    (package / "_themes").mkdir(parents=True)
    monkeypatch.setattr(themes, "_PACKAGE", package)
    assert packaged_themes_dir() == package / "_themes"


def test_no_themes_folder_outside_a_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "site-packages" / "acp_tui"
    package.mkdir(parents=True)
    (tmp_path / "site-packages" / "themes").mkdir()  # someone else's folder: not ours
    monkeypatch.setattr(themes, "_PACKAGE", package)
    assert packaged_themes_dir() is None


def test_the_wheel_ships_the_themes_folder() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    force_include = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert force_include == {"themes": "acp_tui/_themes"}


def test_theme_dirs_are_packaged_then_user(acp_home: Paths) -> None:
    assert list(theme_dirs(acp_home)) == [REPO / "themes", acp_home.data_dir / "themes"]
    assert user_themes_dir(acp_home) == acp_home.data_dir / "themes"


def test_a_user_theme_overrides_a_packaged_one_by_name(tmp_path: Path) -> None:
    user = tmp_path / "user"
    write(user, "mine.toml", GOOD.format(name="acp-dusk", dark="true", primary="#123456"))
    loaded, problems = load_themes([REPO / "themes", user])
    assert problems == []
    by_name = {t.name: t for t in loaded}
    assert by_name["acp-dusk"].primary == "#123456"
    assert "acp-paper" in by_name


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('name = "x"\ndark = true\nprimary = \n', "invalid TOML"),
        ('name = "x"\ndark = true\nprimary = "not-a-colour"\n', "primary: not a colour"),
        ('name = "x"\ndark = true\n', "primary: required key is missing"),
        ('name = "x"\nprimary = "#fff"\n', "dark: required key is missing"),
        ('name = "x"\ndark = "yes"\nprimary = "#fff"\n', "dark: expected a valid boolean"),
        ('name = "x"\ndark = true\nprimary = "#fff"\nprimry = "#000"\n', "primry: unknown key"),
        ('name = "Bad Name"\ndark = true\nprimary = "#fff"\n', "name: expected lowercase"),
        ('name = "x"\ndark = true\nprimary = "#fff"\ntext_alpha = 2\n', "from 0 to 1"),
        (
            'name = "x"\ndark = true\nprimary = "#fff"\n[variables]\nborder = "wobbly"\n',
            "border: expected a colour",
        ),
        (
            'name = "x"\ndark = true\nprimary = "#fff"\n[variables]\nlink-style = "shiny"\n',
            "link-style: expected text style flags",
        ),
    ],
)
def test_a_bad_user_theme_is_reported_and_the_others_still_load(
    tmp_path: Path, text: str, needle: str
) -> None:
    user = tmp_path / "user"
    bad = write(user, "bad.toml", text)
    write(user, "good.toml", GOOD.format(name="good", dark="false", primary="#336699"))
    loaded, problems = load_themes([REPO / "themes", user])
    [problem] = problems
    assert problem.startswith(f"{bad}: ")
    assert needle in problem
    names = {t.name for t in loaded}
    assert "good" in names
    assert "acp-dusk" in names
    assert "x" not in names


def test_valid_variables_and_extras_are_kept(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "t.toml",
        GOOD.format(name="t", dark="true", primary="#aabbcc")
        + "luminosity_spread = 0.2\ntext_alpha = 1\n"
        + "[variables]\n"
        + 'footer-key-foreground = "ansi_bright_blue"\n'
        + 'text-muted = "auto 60%"\n'
        + 'link-background = "initial"\n'
        + 'block-cursor-text-style = "bold not underline"\n',
    )
    theme = load_theme_file(path)
    assert theme.luminosity_spread == 0.2
    assert theme.text_alpha == 1.0
    assert theme.variables["text-muted"] == "auto 60%"


def test_every_problem_in_a_theme_file_is_reported_at_once(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "t.toml",
        'name = "T"\ndark = 1\nprimary = "nope"\nluminosity_spread = true\nextra = 1\n'
        "[variables]\nborder = 5\n",
    )
    with pytest.raises(themes.ThemeError) as caught:
        load_theme_file(path)
    assert str(caught.value) == (
        f"{path}: name: expected lowercase letters, digits, '-' or '_', starting with a letter "
        "or digit; dark: expected a valid boolean (got 1); primary: not a colour: 'nope'; "
        "luminosity_spread: expected a valid number (got True); "
        "variables.border: expected a valid string (got 5); extra: unknown key"
    )


def test_a_theme_file_is_a_frozen_dataclass() -> None:
    model = validate(themes.ThemeFile, {"name": "t", "dark": True, "primary": "red"})
    assert model == themes.ThemeFile(name="t", dark=True, primary="red")
    assert model.luminosity_spread is None
    assert model.variables == {}
    with pytest.raises(AttributeError):
        model.name = "u"  # type: ignore[misc]


def test_unreadable_and_non_utf8_files_are_reported(tmp_path: Path) -> None:
    write(tmp_path, "a.toml", "")
    (tmp_path / "a.toml").write_bytes(b'name = "\xff"\n')
    (tmp_path / "dir.toml").mkdir()  # not a file: skipped
    loaded, problems = load_themes([tmp_path, tmp_path / "missing"])
    assert loaded == []
    [problem] = problems
    assert "a.toml: not UTF-8" in problem


def test_two_files_with_one_name_are_reported(tmp_path: Path) -> None:
    write(tmp_path, "a.toml", GOOD.format(name="same", dark="true", primary="#111111"))
    write(tmp_path, "b.toml", GOOD.format(name="same", dark="true", primary="#222222"))
    loaded, problems = load_themes([tmp_path])
    [theme] = loaded
    assert theme.primary == "#222222"
    [problem] = problems
    assert "also defined in a.toml" in problem


def test_save_theme_choice_keeps_the_rest_of_the_file(acp_home: Paths) -> None:
    settings = Settings(default_agent="alpha", agents={"alpha": AgentConfig(command="a")})
    save_settings(settings, acp_home.config_file)
    assert save_theme_choice("acp-paper", acp_home.config_file) is None
    loaded = load_settings(acp_home.config_file)
    assert loaded.problems == []
    assert loaded.settings == replace(settings, theme="acp-paper")


def test_save_theme_choice_creates_a_missing_file(acp_home: Paths) -> None:
    assert save_theme_choice("acp-meadow", acp_home.config_file) is None
    assert load_settings(acp_home.config_file).settings.theme == "acp-meadow"


def test_save_theme_choice_never_overwrites_a_broken_file(acp_home: Paths) -> None:
    acp_home.config_dir.mkdir(parents=True)
    acp_home.config_file.write_text('theme = "acp-dusk"\nshow_thoughts = "yes"\n# mine\n')
    before = acp_home.config_file.read_bytes()
    problem = save_theme_choice("acp-paper", acp_home.config_file)
    assert problem is not None
    assert "show_thoughts" in problem
    assert acp_home.config_file.read_bytes() == before
