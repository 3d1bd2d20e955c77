"""Theme files, user themes, the theme setting, the live switch, and colours only from themes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.color import Color as RichColor
from textual.app import ComposeResult
from textual.color import Color
from textual.theme import BUILTIN_THEMES, Theme
from textual.widgets import OptionList

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.config.paths import pi_tui_home, settings_path
from pi_tui.context.accounting.calibration import UNCALIBRATED
from pi_tui.context.accounting.geometry import BudgetGeometry, BudgetSplit
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.screens.dialogs import ChoiceDialog
from pi_tui.tui.themed_app import ThemedApp
from pi_tui.tui.theming import (
    DEFAULT_THEME,
    PI_VARIABLES,
    ThemeProblem,
    builtin_themes,
    load_user_themes,
    read_theme_file,
    theme_menu,
    user_themes_dir,
)
from pi_tui.tui.widgets.budget_bar import PARTS, BudgetBar
from pi_tui.tui.widgets.prompt_area import PromptArea
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, shown_notices

SIZE = (120, 40)
PACKAGE = Path(__file__).resolve().parents[2] / "pi_tui"
GOOD = """
name = "harbour"
dark = true
primary = "#3366CC"
secondary = "#884499"
accent = "orange"
foreground = "#EEEEEE"
background = "#101418"
surface = "#181C22"
panel = "#20262E"
success = "green"
warning = "#DDAA33"
error = "#CC3333"

[variables]
pi-prefix = "#123456"
input-selection-background = "#3366CC 35%"
block-cursor-text-style = "b reverse"
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def segment_variable(part: str) -> str:
    """The theme variable of a budget-bar part (the bar calls the new tail `new`)."""
    return "pi-tail" if part == "new" else f"pi-{part}"


def problems_of(result: Theme | list[ThemeProblem]) -> list[ThemeProblem]:
    assert isinstance(result, list), "expected the file to be rejected"
    return result


def luminance(colour: str) -> float:
    """WCAG relative luminance."""

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.03928 else float(((value + 0.055) / 1.055) ** 2.4)

    red, green, blue = Color.parse(colour).rgb
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def contrast(one: str, other: str) -> float:
    """WCAG contrast ratio (1: the same luminance; 4.5: readable text; 21: black on white)."""
    lighter, darker = sorted((luminance(one), luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def distance(one: str, other: str) -> float:
    return float(sum((a - b) ** 2 for a, b in zip(Color.parse(one).rgb, Color.parse(other).rgb, strict=True)))


# --- the model and files --------------------------------------------------------------------------


def test_a_good_file_becomes_a_textual_theme(tmp_path: Path) -> None:
    theme = read_theme_file(write(tmp_path, "harbour.toml", GOOD))
    assert isinstance(theme, Theme)
    assert (theme.name, theme.dark, theme.primary, theme.accent) == ("harbour", True, "#3366CC", "orange")
    assert theme.variables["pi-prefix"] == "#123456"
    assert theme.variables["input-selection-background"] == "#3366CC 35%"


def test_a_missing_name_means_the_file_stem(tmp_path: Path) -> None:
    theme = read_theme_file(write(tmp_path, "dusk.toml", GOOD.replace('name = "harbour"\n', "")))
    assert isinstance(theme, Theme) and theme.name == "dusk"


@pytest.mark.parametrize(
    ("edit", "field", "words"),
    [
        (('primary = "#3366CC"\n', ""), "primary", "Field required"),
        (('primary = "#3366CC"', 'primary = "#33GG66"'), "primary", "not a colour: '#33GG66'"),
        (("dark = true", 'dark = "yes"'), "dark", "boolean"),
        (('pi-prefix = "#123456"', 'pi-prefix = "#123456 150%"'), "variables", "pi-prefix: not a colour"),
        (('pi-prefix = "#123456"', 'pi-tail = "bright"'), "variables", "pi-tail: not a colour"),
        (('"b reverse"', '"b blinking"'), "variables", "not a text style"),
        (('accent = "orange"', 'acent = "orange"'), "acent", "Extra inputs"),
    ],
)
def test_a_bad_file_names_the_field(tmp_path: Path, edit: tuple[str, str], field: str, words: str) -> None:
    assert edit[0] in GOOD
    path = write(tmp_path, "broken.toml", GOOD.replace(*edit))
    problems = problems_of(read_theme_file(path))
    assert field in [problem.field for problem in problems]
    message = str(next(problem for problem in problems if problem.field == field))
    assert str(path) in message and words in message


def test_invalid_toml_gives_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.toml", 'name = "x"\nprimary = #3366CC\n')
    [problem] = problems_of(read_theme_file(path))
    assert problem.field is None and "invalid TOML" in str(problem) and "line 2" in str(problem)


def test_user_themes_load_and_bad_ones_are_reported(tmp_path: Path) -> None:
    folder = tmp_path / "themes"
    write(folder, "harbour.toml", GOOD)
    broken = write(folder, "broken.toml", GOOD.replace('error = "#CC3333"\n', ""))
    write(folder, "notes.txt", "not a theme")
    themes, problems = load_user_themes(folder)
    assert [theme.name for theme in themes] == ["harbour"]
    assert [(problem.path, problem.field) for problem in problems] == [(broken, "error")]
    assert load_user_themes(tmp_path / "absent") == ([], [])


def test_builtin_themes_are_complete_and_readable() -> None:
    themes = {theme.name: theme for theme in builtin_themes()}
    assert {"pi-dark", "pi-light"} <= set(themes)
    assert DEFAULT_THEME in themes
    for theme in themes.values():
        assert set(PI_VARIABLES) <= set(theme.variables), theme.name
        assert theme.foreground and theme.background
        assert contrast(theme.foreground, theme.background) >= 7, theme.name
        # Each budget-bar segment stands out from the background (free is dim on purpose, but visible)
        # and from every other segment.
        segments = {name: theme.variables[segment_variable(name)] for _, name, _ in PARTS}
        for name, colour in segments.items():
            assert contrast(colour, theme.background) >= (1.8 if name == "free" else 3), (theme.name, name)
        pairs = [(a, b) for a in segments for b in segments if a < b]
        assert min(distance(segments[a], segments[b]) for a, b in pairs) >= 50**2, theme.name
        assert contrast(theme.variables["pi-drift"], theme.background) >= 4.5, theme.name
    assert themes["pi-dark"].dark and not themes["pi-light"].dark
    light = themes["pi-light"]
    assert light.foreground and light.background
    assert luminance(light.foreground) < luminance(light.background)  # dark text on a light background


def test_theme_menu_puts_pi_tui_themes_first() -> None:
    names = ["textual-dark", "pi-light", "nord", "harbour", "pi-dark"]
    assert theme_menu(names) == ["harbour", "pi-dark", "pi-light", "nord", "textual-dark"]


def test_no_hex_colours_outside_theme_files() -> None:
    """Colours come from theme variables only (house rule 6): no hex or rgb()/hsl() in code or TCSS."""
    pattern = re.compile(
        r"(?<![\w&#])#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3,4})\b|\b(?:rgba?|hsla?)\("
    )
    offenders = []
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.tcss")]):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert not offenders, "hex/rgb colours outside theme files:\n" + "\n".join(offenders)


# --- the app --------------------------------------------------------------------------------------


def start_page(tmp_path: Path) -> PiTuiApp:
    (tmp_path / "project").mkdir(exist_ok=True)
    return PiTuiApp(
        cwd=tmp_path / "project",
        session_root=tmp_path / "sessions",
        pi_session_root=tmp_path / "pi",
        setup_notice="",
    )


async def test_user_themes_and_the_setting_apply_at_startup(tmp_path: Path) -> None:
    write(user_themes_dir(), "harbour.toml", GOOD)
    broken = write(user_themes_dir(), "broken.toml", GOOD.replace('"#3366CC"', '"#3366ZZ"'))
    settings_path().write_text(json.dumps({"theme": "harbour"}))
    app = start_page(tmp_path)
    assert user_themes_dir().parent == pi_tui_home()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert app.theme == "harbour"
        assert {"pi-dark", "pi-light", "harbour"} <= set(app.available_themes)
        await until(lambda: shown_notices(app), pilot=pilot, what="the warning")
        [warning] = shown_notices(app)
        assert str(broken) in warning and "(primary)" in warning and "#3366ZZ" in warning
        assert app.screen.query_one("#session-browser").display


async def test_a_user_theme_may_replace_a_built_in_one_and_says_so(tmp_path: Path) -> None:
    write(user_themes_dir(), "mine.toml", GOOD.replace('name = "harbour"', 'name = "pi-dark"'))
    app = start_page(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert app.theme == "pi-dark"
        assert app.current_theme.primary == "#3366CC"
        await until(lambda: shown_notices(app), pilot=pilot, what="the note")
        assert [m for m in shown_notices(app) if "replaces the built-in" in m] == [
            f"Your theme 'pi-dark' in {user_themes_dir()} replaces the built-in one of that name."
        ]


async def test_an_unknown_theme_setting_falls_back_with_a_warning(tmp_path: Path) -> None:
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"theme": "solarized-nope"}))
    app = start_page(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert app.theme == DEFAULT_THEME
        await until(
            lambda: any("solarized-nope" in notice for notice in shown_notices(app)),
            pilot=pilot,
            what="the warning",
        )


async def test_a_theme_picked_anywhere_is_saved_and_startup_writes_nothing(tmp_path: Path) -> None:
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"theme": "pi-light", "defaultProvider": "openai"}))
    app = start_page(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "pi-light"
        assert settings_path().read_text() == json.dumps({"theme": "pi-light", "defaultProvider": "openai"})
        app.theme = "nord"  # what Textual's "Change theme" palette entry does
        await settle(pilot)
        # Saved by a thread worker: a loaded machine may run the check below before it wrote.
        await until(
            lambda: all(w.is_finished for w in app.workers if w.group == "save-theme"),
            pilot=pilot,
            what="the theme saved",
        )
    assert json.loads(settings_path().read_text()) == {"theme": "nord", "defaultProvider": "openai"}


async def test_a_theme_picked_in_the_demo_is_not_saved(tmp_path: Path) -> None:
    app, _, _ = make_chat_app(tmp_path, [])
    app.demo = True  # as `pi-tui --demo` opens it
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one(PromptArea).text = "/settings"
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot, what="the settings")
        await pilot.press(*"pi-light", "enter")
        await settle(pilot)
        assert app.theme == "pi-light"
        await until(
            lambda: all(w.is_finished for w in app.workers if w.group == "save-theme"),
            pilot=pilot,
            what="any save to finish",
        )
    assert not settings_path().exists()


class BarHost(ThemedApp[None]):
    def compose(self) -> ComposeResult:
        yield BudgetBar()

    def on_mount(self) -> None:
        split = BudgetSplit(prefix=2000, summary=1000, kept=1500, new_tail=2500, free=7000, reserve=2000)
        self.query_one(BudgetBar).geometry = BudgetGeometry(
            context_window=16_000,
            reserve_tokens=2000,
            threshold=14_000,
            keep_recent_tokens=2000,
            auto_compaction=True,
            used_tokens=split.used,
            used_source="estimate",
            reported_tokens=0,
            tokens_left=14_000 - split.used,
            boundary=None,
            split=split,
            prefix_known=True,
            calibration=UNCALIBRATED,
        )


def bar_colours(bar: BudgetBar) -> list[RichColor | None]:
    return [segment.style.color if segment.style else None for segment in bar.render_line(0)]


async def test_theme_variables_reach_the_budget_bar() -> None:
    app = BarHost()
    async with app.run_test(size=(80, 6)) as pilot:
        await pilot.pause()
        bar = app.query_one(BudgetBar)
        for name in ["pi-dark", "pi-light"]:
            app.theme = name
            await pilot.pause()
            theme = app.current_theme
            wanted = [theme.variables[segment_variable(part)] for _, part, _ in PARTS]
            assert bar_colours(bar) == [Color.parse(colour).rich_color for colour in wanted], name
        # A Textual theme knows nothing of pi-tui: its own palette supplies the variables.
        app.theme = "textual-light"
        await pilot.pause()
        primary = BUILTIN_THEMES["textual-light"].primary
        assert app.theme_variables["pi-prefix"] == primary.upper()
        assert bar_colours(bar)[0] == Color.parse(primary).rich_color


async def test_settings_switches_the_theme_live_and_saves_it(tmp_path: Path) -> None:
    app, _, _ = make_chat_app(tmp_path, [ScriptedReply(text="hello")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == DEFAULT_THEME
        bar = app.screen.query_one(BudgetBar)
        dark_prefix = app.theme_variables["pi-prefix"]
        app.screen.query_one(PromptArea).text = "/settings"
        await pilot.press("enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ChoiceDialog)
        labels = [str(option.prompt) for option in dialog.query_one(OptionList).options]
        assert labels[:2] == ["Theme  ● pi-dark", "Theme    pi-light"]
        await pilot.press(*"pi-light", "enter")
        await settle(pilot)
        assert app.theme == "pi-light"
        assert json.loads(settings_path().read_text())["theme"] == "pi-light"
        light_prefix = app.theme_variables["pi-prefix"]
        assert light_prefix != dark_prefix
        assert bar._style("prefix").color == Color.parse(light_prefix).rich_color
