"""pi's footer: where you are on line 1, what it costs and how full the context is
on line 2, model and thinking level on the right."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from pi_tui.context.token_figures import format_tokens

WARN_PERCENT = 70
ERROR_PERCENT = 90


@dataclass(frozen=True)
class FooterData:
    cwd: str
    git_branch: str | None
    session_name: str | None
    input_tokens: int
    output_tokens: int
    cache_read: int
    cache_write: int
    cost: float
    context_tokens: int | None
    context_window: int
    auto_compaction: bool
    model: str | None
    thinking: str | None
    demo: bool = False
    context_estimated: bool = False
    """`context_tokens` is an estimate (shown with `~`): pi shows `?` there, after a compaction."""
    auto_blocked: bool = False
    """Over the threshold and automatic compaction cannot run (`blocked_at`): `(auto: blocked)`, the
    Context pane says why."""
    approval: str = "off"
    """The approval mode (`/approval`, F5), shown before the model while calls ask first; off (the
    default) shows nothing, as Claude Code shows its mode only when it is not the default."""


class StatusFooter(Vertical):
    """Two dim lines; the context item is coloured by CSS class at 70 % and 90 %."""

    DEFAULT_CSS = """
    StatusFooter { height: 2; padding: 0 1; color: $text-muted; }
    StatusFooter Static { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    StatusFooter > Horizontal { height: 1; }
    StatusFooter #footer-usage, StatusFooter #footer-context { width: auto; }
    StatusFooter #footer-context { margin-left: 1; }
    StatusFooter #footer-context.-warn { color: $warning; text-style: bold; }
    StatusFooter #footer-context.-error { color: $error; text-style: bold; }
    StatusFooter #footer-model { width: 1fr; text-align: right; }
    StatusFooter #footer-where { width: 1fr; }
    StatusFooter #footer-keyboard { width: auto; color: $accent; padding-left: 1; }
    StatusFooter #footer-keyboard.-editor { display: none; }
    """

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("", id="footer-where", markup=False)
            yield Static("", id="footer-keyboard", markup=False, classes="-editor")
        with Horizontal():
            yield Static("", id="footer-usage", markup=False)
            yield Static("", id="footer-context", markup=False)
            yield Static("", id="footer-model", markup=False)

    def show_keyboard(self, holder: str | None) -> None:
        """Name the part of the screen that holds the keyboard (None: the editor, and nothing is shown)."""
        label = self.query_one("#footer-keyboard", Static)
        label.update(keyboard_text(holder))
        label.set_class(holder is None, "-editor")

    def show(self, data: FooterData) -> None:
        where = _home_relative(data.cwd) + (f" ({data.git_branch})" if data.git_branch else "")
        if data.session_name:
            where += f" • {data.session_name}"
        if data.demo:
            where = f"DEMO • {where}"
        parts = [
            f"↑{format_tokens(data.input_tokens)}" if data.input_tokens else "",
            f"↓{format_tokens(data.output_tokens)}" if data.output_tokens else "",
            f"R{format_tokens(data.cache_read)}" if data.cache_read else "",
            f"W{format_tokens(data.cache_write)}" if data.cache_write else "",
            f"${data.cost:.3f}" if data.cost > 0 else "",
        ]
        window = format_tokens(data.context_window)
        suffix = (" (auto: blocked)" if data.auto_blocked else " (auto)") if data.auto_compaction else ""
        context = self.query_one("#footer-context", Static)
        if data.context_tokens is None:
            context.update(f"?/{window}{suffix}")
            percent = 0.0
        else:
            percent = 100 * data.context_tokens / data.context_window if data.context_window else 0.0
            mark = "~" if data.context_estimated else ""
            context.update(f"{mark}{percent:.1f}%/{window}{suffix}")
        context.set_class(WARN_PERCENT < percent <= ERROR_PERCENT, "-warn")
        context.set_class(percent > ERROR_PERCENT, "-error")
        model = data.model or "no model"
        if data.approval != "off":
            model = f"approval {data.approval} • {model}"
        if data.thinking:
            model += f" • {data.thinking}"
        self.query_one("#footer-where", Static).update(where)
        self.query_one("#footer-usage", Static).update(" ".join(part for part in parts if part))
        self.query_one("#footer-model", Static).update(model)


def keyboard_text(holder: str | None) -> str:
    """Line 1's right end while the keyboard is not in the editor: who has it, and how to get it back."""
    return f"keys: {holder} · esc: editor" if holder else ""


def _home_relative(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + "/") else path
