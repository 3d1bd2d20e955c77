"""The HTML page: every section, nothing that runs or loads, full outputs only from real spill files."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from pi_tui.export.exporter import ExportError, export_session
from pi_tui.export.html_export import HtmlOptions, render_html
from pi_tui.session_file.store import SessionStore
from tests.support.pi_corpora import CORPUS_FILES, PI_1_6, PiFile

from .hostile_session import EVIL, IMG, PNG, SCRIPT, Page, hostile_session

SECTIONS = {"conversation", "compactions", "context", "tree"}
URL_ATTRIBUTES = ("src", "href", "action", "srcset", "poster", "formaction", "xlink:href")
REMOTE_CSS = re.compile(r"""url\(\s*["']?\s*(?:https?:)?//""", re.I)


def remote_references(parsed: Page) -> list[str]:
    """Attribute values and stylesheet URLs that would reach outside the page."""
    values = [value for name in URL_ATTRIBUTES for value in parsed.attr_values(name)]
    found = [value for value in values if not value.startswith(("#", "data:image/"))]
    return found + [match.group(0) for style in parsed.styles for match in REMOTE_CSS.finditer(style)]


@pytest.fixture
def page(tmp_path: Path) -> tuple[str, Page]:
    document = render_html(hostile_session(tmp_path).store)
    return document, Page(document)


def test_every_section_is_there(page: tuple[str, Page]) -> None:
    document, parsed = page
    assert parsed.ids() >= SECTIONS
    for name in SECTIONS:
        assert re.search(f'<section id="{name}"><h2>[^<]+</h2>', document), name
    text = parsed.all_text
    assert "Ran both." in text and "Next is two." in text
    assert "Context budget at the leaf" in text and "Session tree" in text


def test_markup_in_messages_and_tool_output_is_only_text(page: tuple[str, Page]) -> None:
    document, parsed = page
    tags = {tag for tag, _ in parsed.tags}
    assert tags.isdisjoint({"script", "iframe", "object", "embed", "form", "link", "base", "input"})
    attributes = [name for _, attrs in parsed.tags for name, _ in attrs]
    assert not [name for name in attributes if name.lower().startswith("on")]
    assert "style" not in attributes  # the CSP allows no inline style attributes either
    # The hostile text is shown (escaped), in the user message, the reply, the thinking and the tool output.
    assert parsed.all_text.count(SCRIPT) >= 4
    assert parsed.all_text.count(IMG) >= 4
    assert "<script" not in document.lower().replace("&lt;script", "")


def test_nothing_points_outside_the_page(page: tuple[str, Page]) -> None:
    _, parsed = page
    assert remote_references(parsed) == []
    assert "url(" not in "".join(parsed.styles)
    for value in parsed.attr_values("href"):
        assert value.startswith("#"), value
    sources = parsed.attr_values("src")
    assert sources == [f"data:image/png;base64,{PNG}"]  # the svg image is left out with a note
    assert "[image of type image/svg+xml not shown]" in parsed.all_text
    # Links and images in Markdown are shown as text, their address included.
    assert "(https://evil.example/b)" in parsed.all_text
    assert "[image: pixel] (http://evil.example/p.png)" in parsed.all_text


def test_policy_denies_everything_but_the_hashed_style(page: tuple[str, Page]) -> None:
    _, parsed = page
    [policy] = [
        dict(attrs).get("content") or ""
        for tag, attrs in parsed.tags
        if tag == "meta" and dict(attrs).get("http-equiv") == "Content-Security-Policy"
    ]
    assert "default-src 'none'" in policy and "img-src data:" in policy
    assert "unsafe" not in policy and "script-src" not in policy
    [style] = parsed.styles
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in policy
    assert "@media print" in style
    assert ".bar .w-" in style  # this page's budget bar widths are rules in the hashed block


def test_compactions_show_summaries_and_the_diff(tmp_path: Path) -> None:
    hostile = hostile_session(tmp_path)
    parsed = Page(render_html(hostile.store))
    first, second = hostile.compactions
    assert {f"compaction-{first}", f"compaction-{second}"} <= parsed.ids()
    text = parsed.all_text
    assert "5,000 → ?" in text and "~6,200 → ~400 (-94%)" in text and "manual" in text and "threshold" in text
    added = [attrs for tag, attrs in parsed.tags if tag == "span" and ("class", "add") in attrs]
    assert added  # the second summary adds "- step two" to Progress
    assert "+- step two" in text and "-Do the thing " + SCRIPT in text


def test_tree_has_every_branch_the_label_and_the_leaf(tmp_path: Path) -> None:
    hostile = hostile_session(tmp_path)
    document = render_html(hostile.store)
    parsed = Page(document)
    assert f"[start {SCRIPT}]" in parsed.all_text
    assert "a reply on the side branch" in parsed.all_text  # only in the tree: it is off the branch
    assert hostile.side_entry in parsed.all_text
    classes = parsed.attr_values("class")
    assert "line off-branch" in classes and "line leaf" in classes
    # Tree links lead to blocks that exist in the conversation.
    targets = {value[1:] for value in parsed.attr_values("href") if value.startswith("#entry-")}
    assert targets and targets <= parsed.ids()


def test_budget_bar_and_table(page: tuple[str, Page]) -> None:
    _, parsed = page
    classes = parsed.attr_values("class")
    assert "bar" in classes and any(value.startswith("seg-summary w-summary") for value in classes)
    assert "prov/m1 is not in models.json" in parsed.all_text
    assert "compaction summary" in parsed.all_text


def test_full_output_is_inlined_only_when_asked_and_only_from_the_spill_folder(tmp_path: Path) -> None:
    hostile = hostile_session(tmp_path)
    plain = Page(render_html(hostile.store)).all_text
    assert "full line 1\n" not in plain and "Truncated: the model saw only part" in plain
    full = Page(render_html(hostile.store, HtmlOptions(full_output=True))).all_text
    assert "full line 1\nfull line 2\n" in full and "full line 1999\n" in full
    assert "OUTSIDE-SECRET-TEXT" not in full
    assert "not a spill file of this session" in full
    capped = Page(render_html(hostile.store, HtmlOptions(full_output=True, max_inline_bytes=26))).all_text
    assert "full line 1\nfull line 2\nfu" in capped and "full line 3" not in capped
    assert f"first 26 of {len(hostile.spill.read_bytes()):,} bytes" in capped


def test_export_writes_a_private_file_and_leaves_the_session_alone(tmp_path: Path) -> None:
    hostile = hostile_session(tmp_path)
    assert hostile.store.path is not None
    before = hostile.store.path.read_bytes()
    result = export_session(hostile.store, tmp_path / "out.html")
    assert result.format == "html" and result.bytes == (tmp_path / "out.html").stat().st_size
    assert (tmp_path / "out.html").stat().st_mode & 0o777 == 0o600
    assert hostile.store.path.read_bytes() == before
    with pytest.raises(ExportError, match=r"\.html or \.jsonl"):
        export_session(hostile.store, tmp_path / "out.pdf")
    with pytest.raises(ExportError, match="session file itself"):
        export_session(hostile.store, hostile.store.path.with_suffix(".jsonl"))


@pytest.mark.parametrize("pi_file", CORPUS_FILES)
def test_every_pi_fixture_exports(pi_file: PiFile) -> None:
    store = SessionStore.open(pi_file.path, migrate=False)
    parsed = Page(render_html(store))
    assert parsed.ids() >= SECTIONS
    assert remote_references(parsed) == []
    assert store.session_id in parsed.all_text


def test_context_edits_are_shown_with_what_was_written_and_what_was_sent() -> None:
    store = SessionStore.open(PI_1_6.session("y-context-edit-tools"), migrate=False)
    text = Page(render_html(store)).all_text
    assert text.count("Left out of the model's context by a context edit") == 2  # a result, a draft
    assert "DROP-ME-77" in text and "DRAFT-ANSWER" in text  # shown as written
    assert "A context edit replaced this in the model's context" in text
    assert "[tool output redacted by extension]" in text
    assert "Context edit: f0e73a80 replaced from here on" in text
    assert "Prompt and tools checkpoint: read, bash, grep, find" in text


def test_billed_calls_outside_the_conversation_are_listed() -> None:
    store = SessionStore.open(PI_1_6.session("u-cache-warm-usage"), migrate=False)
    text = Page(render_html(store)).all_text
    assert text.count("Billed call (cache_warm, fake/fake-model): $0.0015") == 2


def test_an_empty_session_still_makes_a_page(tmp_path: Path) -> None:
    parsed = Page(render_html(SessionStore.in_memory(str(tmp_path))))
    assert parsed.ids() >= SECTIONS
    assert "No messages on this branch." in parsed.all_text
    assert EVIL not in parsed.all_text
