"""Markdown to HTML for the export, with nothing that could run or load.

Raw HTML in a message is escaped (`html=False`). Links and images are not rendered as such: a link
becomes its text followed by the address as plain text, and an image its alt text and address, so
the page never fetches anything and never points anywhere a click could surprise the reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from pi_tui.export.html_text import esc

_LINK_STACK = "pi_tui_links"


def _link_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    env.setdefault(_LINK_STACK, []).append("" if token.markup == "autolink" else href)
    return '<span class="md-link">'


def _link_close(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    stack = env.get(_LINK_STACK) or [""]
    href = stack.pop() if stack else ""
    return "</span>" + (f' <span class="md-url">({esc(href)})</span>' if href else "")


def _image(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    src = str(token.attrGet("src") or "")
    return f'<span class="md-image">[image: {esc(alt)}] ({esc(src)})</span>'


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("link_close", _link_close)
    md.add_render_rule("image", _image)
    return md


_MD = _parser()


def markdown_to_html(text: str) -> str:
    """Rendered Markdown; every piece of source text ends up escaped."""
    rendered: str = _MD.render(text, {})
    return rendered
