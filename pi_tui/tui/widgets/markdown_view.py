"""The Markdown widget pi-tui draws replies, summaries and dialogs with: Textual's, except for code
fences that name no language.

Textual asks Pygments to guess their language, and the first guess imports every lexer Pygments has:
measured 240 ms on this machine, on the UI thread, the first time a reply (or a reopened session) holds
such a fence, 2 ms per fence after that, again on every streamed update of it. Guesses are often
wrong too (a shell transcript taken for some other language). Such code is drawn as plain text.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock, MarkdownFence


class CodeFence(MarkdownFence):
    """A code block highlighted for the language it names, and as plain text when it names none."""

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return super().highlight(code, language or "text", ansi, dark)


class MarkdownView(Markdown):
    """Textual's Markdown with `CodeFence` for fenced and indented code."""

    BLOCKS: dict[str, type[MarkdownBlock]] = {**Markdown.BLOCKS, "fence": CodeFence, "code_block": CodeFence}
