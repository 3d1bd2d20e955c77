"""pi-tui's colour themes: TOML files, validated by `ThemeFile`, turned into Textual `Theme`s.

The built-in themes are the repository's `themes/*.toml`, shipped in the wheel; the user's are read from
`~/.pi-tui/themes/*.toml`. A user file that does not parse or validate is skipped with a `ThemeProblem`
naming the file and the field, never an exception: a broken theme must not stop the app starting.
Besides Textual's base colours a theme sets the app's own variables (`$pi-prefix`, ...). A theme that
leaves one out (every Textual built-in theme does) gets it from `pi_variable_defaults`, taken from its
palette, so widget CSS may use the `$pi-*` variables under any theme.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError
from textual.color import Color, ColorParseError
from textual.css.constants import VALID_STYLE_FLAGS
from textual.theme import BUILTIN_THEMES, Theme

from pi_tui.config.paths import pi_tui_home, shipped_path

DEFAULT_THEME = "pi-dark"
"""Used when the settings name no theme, or one that is not installed."""
THEME_SUFFIX = ".toml"
BUILTIN_THEMES_FOLDER = "themes"
"""At the top of the repository, packaged into the wheel (`shipped_path`)."""
USER_THEMES_FOLDER = "themes"
"""Under `~/.pi-tui/` (or `$PI_TUI_HOME`)."""

PI_VARIABLES: dict[str, str] = {
    "pi-prefix": "primary",
    "pi-summary": "secondary",
    "pi-kept": "accent",
    "pi-tail": "success",
    "pi-free": "foreground-muted",
    "pi-reserve": "warning",
    "pi-drift": "warning",
}
"""The app's own theme variables, each with the Textual colour it defaults to when a theme leaves it out."""


def _colour(value: str) -> str:
    try:
        Color.parse(value)
    except ColorParseError:
        raise PydanticCustomError("colour", "not a colour: {value}", {"value": repr(value)}) from None
    return value


Colour = Annotated[str, AfterValidator(_colour)]


def _variable_problem(name: str, value: str) -> str | None:
    """Why `value` would break the stylesheet for variable `name`, if it would.

    Textual substitutes variables into CSS unchecked, so a bad value would only fail when the theme is
    applied. Its variables hold text styles (`...-text-style`, `link-style`) or colours, optionally
    followed by an alpha percentage (`auto 87%`).
    """
    if name.endswith("style"):
        unknown = [flag for flag in value.split() if flag not in VALID_STYLE_FLAGS]
        return f"not a text style: {value!r}" if unknown or not value.split() else None
    words = value.split()
    alpha = words[-1] if len(words) > 1 and words[-1].endswith("%") else ""
    colour = value.strip().removesuffix(alpha).strip()
    if alpha and not (alpha[:-1].isdigit() and int(alpha[:-1]) <= 100):
        return f"not a colour with an alpha: {value!r}"
    if colour == "auto" and alpha:
        return None
    try:
        Color.parse(colour)
    except ColorParseError:
        return f"not a colour: {value!r}"
    return None


class ThemeFile(BaseModel):
    """One theme file: Textual's base colours, the dark flag and extra variables (the `$pi-*` ones).

    Keys are Textual's `Theme` field names; an unknown key is an error, so a typo cannot pass silently.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
    dark: bool
    primary: Colour
    secondary: Colour
    accent: Colour
    foreground: Colour
    background: Colour
    surface: Colour
    panel: Colour
    success: Colour
    warning: Colour
    error: Colour
    boost: Colour | None = None
    luminosity_spread: float | None = Field(default=None, ge=0, le=1)
    text_alpha: float | None = Field(default=None, ge=0, le=1)
    variables: dict[str, str] = Field(default_factory=dict)

    @field_validator("variables")
    @classmethod
    def _check_variables(cls, variables: dict[str, str]) -> dict[str, str]:
        for name, value in variables.items():
            problem = _variable_problem(name, value)
            if problem is not None:
                raise PydanticCustomError("variable", "{name}: {problem}", {"name": name, "problem": problem})
        return variables

    def to_theme(self) -> Theme:
        fields = self.model_dump(exclude_none=True)
        return Theme(**fields)


@dataclass(frozen=True)
class ThemeProblem:
    """Why a theme file was skipped: the file, the field (dotted, None for the whole file) and the reason."""

    path: Path
    message: str
    field: str | None = None

    def __str__(self) -> str:
        where = f" ({self.field})" if self.field else ""
        return f"Theme {self.path} skipped{where}: {self.message}"


def _problems(path: Path, error: ValidationError) -> list[ThemeProblem]:
    problems = []
    for issue in error.errors():
        field = ".".join(str(part) for part in issue["loc"]) or None
        problems.append(ThemeProblem(path, issue["msg"], field))
    return problems


def read_theme_file(path: Path) -> Theme | list[ThemeProblem]:
    """The theme in `path`, or every reason it is not one. A missing `name` means the file's stem."""
    try:
        document: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return [ThemeProblem(path, f"cannot read it: {error}")]
    except tomllib.TOMLDecodeError as error:
        return [ThemeProblem(path, f"invalid TOML: {error}")]
    document.setdefault("name", path.stem)
    try:
        return ThemeFile.model_validate(document).to_theme()
    except ValidationError as error:
        return _problems(path, error)


@cache
def builtin_themes() -> tuple[Theme, ...]:
    """pi-tui's own themes, shipped with it. A missing or broken one is a bug, so it raises."""
    folder = shipped_path(BUILTIN_THEMES_FOLDER)
    if folder is None:
        raise FileNotFoundError(f"pi-tui's built-in {BUILTIN_THEMES_FOLDER}/ folder is not installed")
    themes = []
    for path in sorted(folder.glob(f"*{THEME_SUFFIX}")):
        result = read_theme_file(path)
        if isinstance(result, list):
            raise ValueError("; ".join(str(problem) for problem in result))
        themes.append(result)
    return tuple(themes)


def user_themes_dir() -> Path:
    return pi_tui_home() / USER_THEMES_FOLDER


def load_user_themes(folder: Path | None = None) -> tuple[list[Theme], list[ThemeProblem]]:
    """Every `*.toml` theme in `folder` (default `~/.pi-tui/themes/`), and the problems of the rest."""
    folder = folder or user_themes_dir()
    try:
        paths = sorted(path for path in folder.iterdir() if path.suffix == THEME_SUFFIX)
    except OSError:
        return [], []  # no folder is the usual case, not a problem
    themes: list[Theme] = []
    problems: list[ThemeProblem] = []
    for path in paths:
        result = read_theme_file(path)
        if isinstance(result, list):
            problems.extend(result)
        else:
            themes.append(result)
    return themes, problems


def pi_variable_defaults(theme: Theme) -> dict[str, str]:
    """The `$pi-*` variables as `theme`'s own palette would colour them (its `variables` win over these)."""
    palette = theme.to_color_system().generate()
    return {name: palette[source] for name, source in PI_VARIABLES.items()}


def theme_menu(names: Iterable[str]) -> list[str]:
    """Theme names for a chooser: pi-tui's and the user's first, then Textual's own, each sorted."""
    return sorted(names, key=lambda name: (name in BUILTIN_THEMES, name))
