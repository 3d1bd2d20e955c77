"""Prompt templates: locations, descriptions, argument splitting and substitution, expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.context.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    load_templates,
    parse_command_args,
    substitute_args,
    template_dirs,
)


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("a b\tc", ["a", "b", "c"]),
        ('one "two words" three', ["one", "two words", "three"]),
        ("it's 'single quoted'", ["its single", "quoted"]),  # a quote opens wherever it appears
        ('say "it\'s"', ["say", "it's"]),
        ("  spaced   out  ", ["spaced", "out"]),
        ('empty "" dropped', ["empty", "dropped"]),
        ("", []),
    ],
)
def test_argument_splitting(text: str, args: list[str]) -> None:
    assert parse_command_args(text) == args


@pytest.mark.parametrize(
    ("template", "args", "result"),
    [
        ("$1 and $2", ["a", "b"], "a and b"),
        ("$1-$3-$0", ["a"], "a--"),
        ("all: $ARGUMENTS / $@", ["x", "y z"], "all: x y z / x y z"),
        ("${@:2}", ["a", "b", "c"], "b c"),
        ("${@:0}", ["a", "b"], "a b"),
        ("${@:2:1}|${@:1:2}|${@:5}", ["a", "b", "c"], "b|a b|"),
        ("$10", [str(n) for n in range(1, 11)], "10"),
        ("cost $", ["a"], "cost $"),
    ],
)
def test_substitution(template: str, args: list[str], result: str) -> None:
    assert substitute_args(template, args) == result


def test_arguments_are_never_substituted_again() -> None:
    assert substitute_args("$1 | $@", ["$2", "$ARGUMENTS"]) == "$2 | $2 $ARGUMENTS"


def _templates(tmp_path: Path) -> tuple[list[PromptTemplate], list[object]]:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    (home / "prompts").mkdir(parents=True)
    (cwd / ".pi-tui" / "prompts" / "nested").mkdir(parents=True)
    (home / "prompts" / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: <path>\n---\n\nReview $1 carefully.\n"
    )
    (home / "prompts" / "fix.md").write_text("Fix the failing test in $1 and explain ${@:2}\nmore\n")
    (home / "prompts" / "long.md").write_text("\n\n" + "w" * 70 + "\n")
    (home / "prompts" / "notes.txt").write_text("not a template")
    (cwd / ".pi-tui" / "prompts" / "review.md").write_text("project review $@")
    (cwd / ".pi-tui" / "prompts" / "nested" / "deep.md").write_text("not loaded: non-recursive")
    (cwd / ".pi-tui" / "prompts" / "bad.md").write_text("---\nx: a: b\n---\n")
    templates, diagnostics = load_templates(template_dirs(cwd, home))
    return templates, list(diagnostics)


def test_loading_names_descriptions_and_collisions(tmp_path: Path) -> None:
    templates, diagnostics = _templates(tmp_path)

    by_name = {t.name: t for t in templates}
    assert sorted(by_name) == ["fix", "long", "review"]
    assert by_name["review"].description == "Review a file"
    assert by_name["review"].argument_hint == "<path>"
    assert by_name["review"].content == "Review $1 carefully."
    assert by_name["fix"].description == "Fix the failing test in $1 and explain ${@:2}"
    assert by_name["long"].description == "w" * 60 + "..."
    kinds = sorted(d.kind for d in diagnostics)  # type: ignore[attr-defined]
    assert kinds == ["collision", "error"]


def test_expansion(tmp_path: Path) -> None:
    templates, _ = _templates(tmp_path)

    assert expand_prompt_template('/review "src/my file.py"', templates) == "Review src/my file.py carefully."
    assert expand_prompt_template("/fix a.py the cause and the fix", templates).startswith(
        "Fix the failing test in a.py and explain the cause and the fix\n"
    )
    assert expand_prompt_template("/review", templates) == "Review  carefully."
    assert expand_prompt_template("/unknown x", templates) == "/unknown x"
    assert expand_prompt_template("review x", templates) == "review x"
