"""The base of every app that shows pi-tui's widgets: pi-tui's themes registered, `$pi-*` defined.

Widget CSS uses `$pi-prefix` and friends, and Textual refuses a stylesheet naming a variable it does not
know, so any app mounting those widgets (the real one, test hosts, benchmarks) derives from `ThemedApp`.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ReturnType

from pi_tui.tui.textual_fixes import file_nested_layouts, keep_full_map_after_reflow
from pi_tui.tui.theming import (
    DEFAULT_THEME,
    ThemeProblem,
    builtin_themes,
    load_user_themes,
    pi_variable_defaults,
)


class ThemedApp(App[ReturnType]):
    """An App that starts on `pi-dark` and knows pi-tui's themes, plus the user's from `user_themes`.

    Creating one also applies `textual_fixes` (once per process), so tests and benchmarks lay out as the
    real app does."""

    def __init__(self, *, user_themes: Path | None = None) -> None:
        super().__init__()
        keep_full_map_after_reflow()
        file_nested_layouts()
        self.theme_problems: list[ThemeProblem] = []
        """User theme files that were skipped; the app reports them once it is running."""
        for theme in builtin_themes():
            self.register_theme(theme)
        self.theme_notes: list[str] = []
        """User themes that replace a built-in one of the same name (allowed, but worth a word)."""
        if user_themes is not None:
            themes, self.theme_problems = load_user_themes(user_themes)
            built_in = set(self.available_themes)
            for theme in themes:
                if theme.name in built_in:
                    self.theme_notes.append(
                        f"Your theme {theme.name!r} in {user_themes} replaces the built-in one of that name."
                    )
                self.register_theme(theme)
        self.theme = DEFAULT_THEME

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **pi_variable_defaults(self.current_theme)}

    def apply_theme_setting(self, name: str | None) -> str | None:
        """Switch to the theme the settings name; if it is not installed, stay put and say why."""
        if name is None or name == self.theme:
            return None
        if name not in self.available_themes:
            return f"Theme {name!r} (from settings) is not installed; using {self.theme}."
        self.theme = name
        return None
