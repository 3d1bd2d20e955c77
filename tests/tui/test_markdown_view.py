"""Code fences: highlighted for the language they name, plain text (no guessing) when they name none."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.content import Content

from pi_tui.tui.widgets.markdown_view import CodeFence, MarkdownView

TEXT = "Before.\n\n```\nls -la\nx = 1\n```\n\n```python\ndef f():\n    return 1\n```\n\n    indented = True\n"


def styles(content: Content) -> set[str]:
    return {str(span.style) for span in content.spans}


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield MarkdownView(TEXT)


async def test_unnamed_code_is_plain_and_never_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    import pygments.lexers

    guesses: list[str] = []
    guess = pygments.lexers.guess_lexer

    def recording_guess(code: str, **options: Any) -> Any:
        guesses.append(code)
        return guess(code, **options)

    monkeypatch.setattr(pygments.lexers, "guess_lexer", recording_guess)
    app = Host()
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        fences = list(app.query(CodeFence))
        assert [fence.code for fence in fences] == [
            "ls -la\nx = 1",
            "def f():\n    return 1",
            "indented = True",
        ]
        plain, python, indented = (fence._highlighted_code for fence in fences)
        assert plain.plain.rstrip() == "ls -la\nx = 1" and styles(plain) <= {"$text"}
        assert indented.plain.rstrip() == "indented = True" and styles(indented) <= {"$text"}
        assert styles(python) - {"$text"}  # `def` and `return` coloured
        assert "def f():" in python.plain
    assert guesses == []
