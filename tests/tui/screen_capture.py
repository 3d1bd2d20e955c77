"""What the terminal shows, read through Textual's public screenshot export (every cell's text and
style), so tests need not reach into the compositor."""

from __future__ import annotations

import html
import re
from collections import defaultdict
from typing import Any

from textual.app import App

_TEXT = re.compile(r'<text class="([^"]*)" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>')


def screen_picture(app: App[Any]) -> str:
    """The screen as SVG: two equal pictures show the same text in the same styles in every cell."""
    return app.export_screenshot()


def screen_text(app: App[Any]) -> str:
    """The screen's text, a line per terminal row (cells as drawn, styles dropped)."""
    rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
    for match in _TEXT.finditer(screen_picture(app)):
        text = html.unescape(match.group(4)).replace("\xa0", " ")
        rows[float(match.group(3))].append((float(match.group(2)), text))
    return "\n".join("".join(text for _, text in sorted(rows[y])) for y in sorted(rows))


_CELL = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)" textLength="([\d.]+)"[^>]*>(.*?)</text>')


def screen_rows(app: App[Any]) -> list[str]:
    """The screen's rows with each text at its column: `screen_text` runs texts together where only
    blank cells part them (the picture draws no text for those)."""
    rows: dict[float, list[tuple[int, str]]] = defaultdict(list)
    for match in _CELL.finditer(screen_picture(app)):
        text = html.unescape(match.group(4)).replace("\xa0", " ")
        cell_width = float(match.group(3)) / len(text)
        rows[float(match.group(2))].append((round(float(match.group(1)) / cell_width), text))
    lines = []
    for y in sorted(rows):
        line = ""
        for column, text in sorted(rows[y]):
            line = line.ljust(column) + text
        lines.append(line)
    return lines
