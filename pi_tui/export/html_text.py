"""Escaping and the few HTML fragments every part of the export uses.

Everything that comes from a session goes through `esc` (or the Markdown renderer, which escapes too):
the page must render any message inert, whatever it contains.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime

from pi_tui.session_file.ids import iso_to_ms
from pi_tui.tools.stream_sanitizer import sanitize_text


def esc(value: object) -> str:
    """Text as HTML text or attribute value (quotes escaped too)."""
    return html.escape(str(value), quote=True)


def pre(text: str, css_class: str = "") -> str:
    """A preformatted block; terminal leftovers (escape sequences, control characters) are removed."""
    attribute = f' class="{esc(css_class)}"' if css_class else ""
    return f"<pre{attribute}>{esc(sanitize_text(text))}</pre>"


def anchor(entry_id: str) -> str:
    """The fragment id of an entry's block in the conversation."""
    return "entry-" + "".join(ch for ch in entry_id if ch.isalnum() or ch in "-_")


def num(value: int) -> str:
    return f"{value:,}"


def when(iso_or_ms: str | int | None) -> str:
    """A timestamp as `YYYY-MM-DD HH:MM:SS UTC` (ISO strings and epoch milliseconds); '' if unknown."""
    if iso_or_ms is None or iso_or_ms == "" or iso_or_ms == 0:
        return ""
    ms = iso_or_ms if isinstance(iso_or_ms, int) else iso_to_ms(iso_or_ms)
    if ms is None:
        return str(iso_or_ms)
    try:
        moment = datetime.fromtimestamp(ms / 1000, UTC)
    except (ValueError, OverflowError, OSError):
        return str(iso_or_ms)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
