"""One self-contained HTML page for a session: header, conversation, compactions, context budget, tree.

The page loads nothing: its one `<style>` block is allowed by hash in a Content-Security-Policy that
denies everything else (no scripts at all; images only as `data:` URIs), and the collapsible parts are
`<details>` elements. It prints on plain paper (`@media print` in the stylesheet).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from pi_tui import __version__
from pi_tui.ai.messages import AssistantMessage
from pi_tui.ai.valid_text import without_lone_surrogates
from pi_tui.config.key_secrets import known_keys, redact
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings
from pi_tui.export.budget_html import budget_section
from pi_tui.export.compactions_html import compactions_section
from pi_tui.export.conversation_html import ConversationOptions, ConversationRenderer
from pi_tui.export.full_output import DEFAULT_MAX_INLINE_BYTES
from pi_tui.export.html_text import esc, num, when
from pi_tui.export.tree_html import tree_section
from pi_tui.session.branch_run_model import branch_model
from pi_tui.session.inspector import build_inspector_data
from pi_tui.session.session_setup import spill_dir_for
from pi_tui.session.stats import session_stats
from pi_tui.session_file.entries import MessageEntry, ModelChangeEntry, SessionEntry
from pi_tui.session_file.ids import iso_timestamp
from pi_tui.session_file.migrations import replace_file_atomically
from pi_tui.session_file.store import SessionStore

CSS_ASSET = "export.css"


@dataclass(frozen=True)
class HtmlOptions:
    model: ModelConfig | None = None
    """Gives the window for the budget; None: the branch's model (see `branch_model`)."""
    settings: Settings = field(default_factory=Settings)
    notes: tuple[str, ...] = ()
    """Shown above the budget (e.g. that the window was assumed)."""
    full_output: bool = False
    max_inline_bytes: int = DEFAULT_MAX_INLINE_BYTES
    api_keys: tuple[str, ...] = ()
    """Keys to hide besides the configured ones (the running session's own key)."""


def stylesheet() -> str:
    return resources.files("pi_tui.export").joinpath("assets", CSS_ASSET).read_text(encoding="utf-8")


def _models(branch: list[SessionEntry]) -> list[str]:
    seen: dict[str, None] = {}
    for entry in branch:
        if isinstance(entry, ModelChangeEntry):
            seen[f"{entry.provider}/{entry.model_id}"] = None
        elif isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            message = entry.message
            if message.model:
                seen[f"{message.provider}/{message.model}" if message.provider else message.model] = None
    return list(seen)


def _header(store: SessionStore, branch: list[SessionEntry]) -> str:
    messages = [entry.message for entry in branch if isinstance(entry, MessageEntry)]
    stats = session_stats(
        messages,
        session_file=str(store.path) if store.path else None,
        session_id=store.session_id,
        context_window=None,
    )
    name = store.get_session_name()
    facts = [
        ("Session id", store.session_id),
        ("File", str(store.path) if store.path else "(not saved)"),
        ("Working directory", store.cwd),
        ("Created", when(store.header.timestamp)),
        ("Models", ", ".join(_models(branch)) or "—"),
        (
            "Messages",
            f"{stats.user_messages} user, {stats.assistant_messages} assistant, "
            f"{stats.tool_calls} tool calls (current branch)",
        ),
        (
            "Tokens",
            f"{num(stats.input_tokens)} in, {num(stats.output_tokens)} out, "
            f"{num(stats.cache_read_tokens)} cache read, {num(stats.cache_write_tokens)} cache write "
            f"({num(stats.total_tokens)} total)",
        ),
        ("Cost", f"${stats.cost:.4f}"),
        ("Entries", f"{len(store.entries)} in the file, {len(branch)} on the current branch"),
    ]
    if store.header.parent_session:
        facts.insert(3, ("Parent session", store.header.parent_session))
    title = esc(name) if name else f"Session {esc(store.session_id)}"
    return (
        f"<header><h1>{title}</h1>"
        '<dl class="meta">'
        + "".join(f"<dt>{esc(key)}</dt><dd>{esc(value)}</dd>" for key, value in facts)
        + "</dl></header>"
    )


def _section(anchor_id: str, title: str, body: str) -> str:
    return f'<section id="{anchor_id}"><h2>{esc(title)}</h2>\n{body}\n</section>\n'


def render_html(store: SessionStore, options: HtmlOptions | None = None) -> str:
    """The whole page as text (keys already redacted)."""
    chosen = options or HtmlOptions()
    branch = store.get_branch()
    conversation = ConversationRenderer(
        branch,
        ConversationOptions(chosen.full_output, chosen.max_inline_bytes, spill_dir_for(store)),
    ).render()
    model, note = (chosen.model, None) if chosen.model is not None else branch_model(store)
    data = build_inspector_data(store, chosen.settings, model) if store.leaf_id is not None else None
    budget = budget_section(data, [*chosen.notes, *([note] if note else [])])
    style = stylesheet() + ("\n/* this session's budget bar */\n" + budget.css if budget.css else "") + "\n"
    digest = base64.b64encode(hashlib.sha256(style.encode("utf-8")).digest()).decode("ascii")
    policy = (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src data:; base-uri 'none'; form-action 'none'"
    )
    title = store.get_session_name() or f"Session {store.session_id}"
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(policy)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="pi-tui {esc(__version__)}">\n'
        f"<title>{esc(title)} · pi-tui</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        + _header(store, branch)
        + '\n<nav class="toc"><a href="#conversation">Conversation</a><a href="#compactions">Compactions</a>'
        '<a href="#context">Context budget</a><a href="#tree">Session tree</a></nav>\n<main>\n'
        + _section("conversation", "Conversation (current branch)", conversation)
        + _section("compactions", "Compactions", compactions_section(store))
        + _section("context", "Context budget at the leaf", budget.html)
        + _section("tree", "Session tree", tree_section(store))
        + "</main>\n"
        + f'<footer class="muted"><p>Exported by pi-tui {esc(__version__)}'
        + f" on {esc(when(iso_timestamp()))}.</p></footer>\n"
        "</body></html>\n"
    )
    keys = known_keys(extra=chosen.api_keys)
    return redact(page, [*keys, *(esc(key) for key in keys)])


def write_html(store: SessionStore, out: Path, options: HtmlOptions | None = None) -> int:
    """Write the page to `out` (0600, atomically); returns its size in bytes."""
    # A lone surrogate left in any text would make the page invalid UTF-8; pi's rule drops it.
    data = without_lone_surrogates(render_html(store, options)).encode("utf-8")
    replace_file_atomically(out, data)
    return len(data)
