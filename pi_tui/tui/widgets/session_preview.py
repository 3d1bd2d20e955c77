"""Read-only view of one session: where it lives, what it holds, and what would be sent on continuing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.containers import VerticalScroll
from textual.widgets import Static

PREVIEW_LINE_WIDTH = 200


@dataclass(frozen=True)
class TranscriptLine:
    role: str
    text: str


@dataclass(frozen=True)
class SessionPreviewData:
    title: str
    facts: Sequence[tuple[str, str]]
    warnings: Sequence[str]
    transcript: Sequence[TranscriptLine]


class SessionPreview(VerticalScroll):
    """Header facts, load warnings, then one line per message of the rebuilt context."""

    DEFAULT_CSS = """
    SessionPreview { height: 1fr; }
    SessionPreview > .preview-title { text-style: bold; }
    SessionPreview > .transcript-line { text-wrap: nowrap; text-overflow: ellipsis; }
    SessionPreview > .preview-warning { color: $warning; }
    SessionPreview > .role-user { color: $primary; }
    SessionPreview > .role-assistant { color: $text; }
    SessionPreview > .role-other { color: $text-muted; }
    """

    def show_hint(self, text: str) -> None:
        self.remove_children()
        self.mount(Static(text, classes="preview-hint", markup=False))

    def show(self, data: SessionPreviewData) -> None:
        self.remove_children()
        widgets = [Static(data.title, classes="preview-title", markup=False)]
        widgets += [Static(f"{name}: {value}", markup=False) for name, value in data.facts]
        widgets += [Static(f"⚠ {text}", classes="preview-warning", markup=False) for text in data.warnings]
        for line in data.transcript:
            role_class = line.role if line.role in ("user", "assistant") else "other"
            flat = " ".join(line.text.split())[:PREVIEW_LINE_WIDTH]
            widgets.append(
                Static(f"{line.role:>12}  {flat}", classes=f"transcript-line role-{role_class}", markup=False)
            )
        self.mount_all(widgets)
        self.scroll_home(animate=False)
