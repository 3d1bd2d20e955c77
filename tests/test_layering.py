"""Import-cost and layering guarantees that import-linter cannot see (they are about what runs)."""

from __future__ import annotations

import subprocess
import sys

CORE = [
    "pi_tui.ai",
    "pi_tui.agent",
    "pi_tui.tools",
    "pi_tui.session",
    "pi_tui.session_file",
    "pi_tui.context",
    "pi_tui.config",
]


def loaded_after(import_line: str) -> set[str]:
    code = f"import sys\n{import_line}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_core_never_loads_textual() -> None:
    every_core_module = (
        "import importlib, pkgutil\n"
        f"for package_name in {CORE!r}:\n"
        "    package = importlib.import_module(package_name)\n"
        "    for info in pkgutil.walk_packages(package.__path__, package_name + '.'):\n"
        "        importlib.import_module(info.name)"
    )
    modules = loaded_after(every_core_module)
    assert "textual" not in modules
    assert "rich" not in modules


def test_app_module_does_not_load_openai_before_first_paint() -> None:
    modules = loaded_after("import pi_tui.tui.app")
    assert "openai" not in modules


def test_cli_version_path_is_light() -> None:
    modules = loaded_after("import pi_tui.cli")
    assert "textual" not in modules
    assert "openai" not in modules


def test_first_frame_path_builds_no_message_or_entry_validator() -> None:
    """Message, entry and request-record validators are built when the first one is read (`defer_build`,
    docs/startup.md): importing everything the chat's first frame needs builds none of them."""
    code = (
        "import pi_tui.cli, pi_tui.tui.launch, pi_tui.tui.app\n"
        "from pi_tui.ai.messages import PiModel\n"
        "from pi_tui.context.accounting.record import RequestRecord\n"
        "from pi_tui.session_file.entries import ENTRY_ADAPTER\n"
        "def family(cls):\n"
        "    yield cls\n"
        "    for sub in cls.__subclasses__():\n"
        "        yield from family(sub)\n"
        "models = [*family(PiModel), *family(RequestRecord)]\n"
        "print(len(models), ENTRY_ADAPTER.pydantic_complete)\n"
        "print(' '.join(sorted(m.__qualname__ for m in models if m.__pydantic_complete__)))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    counted, built = run.stdout.split("\n", 1)
    total, adapter_built = counted.split()
    assert int(total) > 20
    assert adapter_built == "False"
    assert built.strip() == ""


def test_anthropics_sdk_is_off_the_path_to_the_first_frame() -> None:
    """`anthropic` takes as long to import as `openai`: the Messages API provider imports it on its first
    request (in the warm-up thread), never with the app, the CLI or the provider registry."""
    for import_line in ("import pi_tui.tui.app", "import pi_tui.cli", "import pi_tui.ai.providers"):
        assert "anthropic" not in loaded_after(import_line), import_line


def test_version_and_help_import_neither_pydantic_nor_the_session_store() -> None:
    """`pi-tui --version` and `--help` parse arguments only: the message models (pydantic), the session
    store and importlib.metadata are imported where a run is set up (docs/startup.md)."""
    modules = loaded_after("import pi_tui.cli; pi_tui.cli.build_parser()")
    for heavy in ("pydantic", "pi_tui.ai.messages", "pi_tui.session.store_opening", "importlib.metadata"):
        assert heavy not in modules, heavy


def test_first_frame_path_leaves_globs_yaml_ignore_rules_and_regex_to_their_first_use() -> None:
    """wcmatch (find/grep globs), ruamel.yaml (skill frontmatter), pathspec (ignore rules) and `regex`
    (long-text token counts) and urllib.request (the served-window check) are imported when first used,
    in workers after the first frame."""
    modules = loaded_after("import pi_tui.cli, pi_tui.tui.launch, pi_tui.session.factory, pi_tui.tui.app")
    lazy_modules = (
        "wcmatch",
        "ruamel.yaml",
        "pathspec",
        "regex",
        "urllib.request",
        "tiktoken",
        "openai",
        "anthropic",
    )
    for lazy in lazy_modules:
        assert lazy not in modules, lazy


def test_the_version_is_the_installed_one() -> None:
    """pi_tui/__init__.py is where the version is written; the installed metadata reads it from there."""
    from importlib.metadata import version

    import pi_tui

    assert pi_tui.__version__ == version("pi-tui")


def test_the_command_line_starts_with_the_collector_off_and_leaves_it_as_it_found_it() -> None:
    """`main` turns the garbage collector off while start-up builds its long-lived objects and on again
    on every way out (the TUI at its first frame, headless runs after their imports)."""
    code = (
        "import gc, pi_tui.cli\n"
        "seen = []\n"
        "pi_tui.cli._main = lambda argv: seen.append(gc.isenabled()) or 0\n"
        "pi_tui.cli.main([])\n"
        "print(seen[0], gc.isenabled())"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False", "True"]
