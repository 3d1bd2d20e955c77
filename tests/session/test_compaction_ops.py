"""Compacting a stored session: the appended entry, errors as values, restore and re-compact, pins."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import CompactionSummaryMessage, TextContent, UserMessage
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.accounting.record import messages_size
from pi_tui.context.compaction.pins import Pin
from pi_tui.session.compaction_ops import (
    RESTORE_CUSTOM_TYPE,
    PreviewBasis,
    compact_store,
    latest_compaction_ms,
    prepare_for_store,
    preview_for_store,
    recompact,
    restore_before,
)
from pi_tui.session.compaction_pins import active_pins, pin_message, pin_text, unpin
from pi_tui.session_file.entries import CompactionEntry, CustomEntry, MessageEntry, parse_entry
from pi_tui.session_file.ids import iso_to_ms
from pi_tui.session_file.store import SessionStore
from tests.context.compaction.session_support import MODEL, SMALL, long_session, user


def _prompt(provider: ScriptedProvider, call: int) -> str:
    message = provider.contexts[call].messages[0]
    assert isinstance(message, UserMessage) and isinstance(message.content, list)
    block = message.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def _compact(store: SessionStore, provider: ScriptedProvider, **kwargs: object):  # type: ignore[no-untyped-def]
    return await compact_store(
        store,
        model=MODEL,
        api_key="k",
        stream_fn=provider,
        settings=SMALL,
        **kwargs,  # type: ignore[arg-type]
    )


async def test_compaction_appends_a_pi_valid_entry_and_rebuilds(tmp_path: Path, pi_fixtures: Path) -> None:
    store = long_session(tmp_path)
    prepared = prepare_for_store(store, SMALL)
    assert prepared is not None
    prepared_leaf = store.leaf_id
    assert prepared_leaf is not None
    provider = ScriptedProvider([ScriptedReply(text="## Goal\nShip")])
    outcome = await _compact(store, provider, reason="threshold")
    assert outcome.ok and outcome.error is None
    assert outcome.first_kept_entry_id == prepared.first_kept_entry_id
    assert outcome.tokens_before == prepared.tokens_before == 3500
    assert outcome.summary.startswith("## Goal\nShip\n\n<read-files>\nsrc/mod1.py\n</read-files>")

    assert store.path is not None
    line = store.path.read_text().splitlines()[-1]
    raw = json.loads(line)
    pi_lines = (pi_fixtures / "pi16" / "sessions" / "c-auto-compaction.jsonl").read_text().splitlines()
    pi_raw = next(obj for obj in map(json.loads, pi_lines) if obj["type"] == "compaction")
    # The same keys in the same order as pi 1.6 writes them; this context declares no prompt checkpoint
    # (the store was filled directly), so there is no `systemMessage` to carry.
    assert list(raw) == [key for key in pi_raw if key != "systemMessage"]
    assert raw["usage"]["output"] > 0
    entry = parse_entry(raw)
    assert isinstance(entry, CompactionEntry) and entry.from_hook is False
    details = raw["details"]
    assert list(details)[:2] == ["readFiles", "modifiedFiles"]
    assert details["readFiles"] == ["src/mod1.py"] and details["modifiedFiles"] == []
    assert details["reason"] == "threshold" and details["model"] == "test/sum-model"
    assert details["pinned"] == [] and "tokensAfter" not in details
    assert (details["requestTokensBefore"], details["requestTokensAfter"]) == (
        outcome.size.before,
        outcome.size.after,
    )
    assert details["summaryUsage"][0]["totalTokens"] > 0 and details["durationMs"] >= 0

    reopened = SessionStore.open(store.path)
    context = reopened.build_context()
    assert isinstance(context.messages[0], CompactionSummaryMessage)
    assert context.messages[0].summary == outcome.summary
    assert context.entry_ids[1] == outcome.first_kept_entry_id
    # No prefix given and no request recorded: the whole request is its messages, as a record counts them.
    assert outcome.size.after == messages_size(MODEL, context.messages, context.entry_ids)
    before = SessionStore.open(store.path)
    before.branch(prepared_leaf)
    old = before.build_context()
    assert outcome.size.before == messages_size(MODEL, old.messages, old.entry_ids) > outcome.size.after


async def test_refusals_and_failures_are_values_with_pi_texts(tmp_path: Path) -> None:
    empty = SessionStore.create("/w", tmp_path)
    provider = ScriptedProvider([ScriptedReply(text="S"), ScriptedReply(error="boom")])
    assert (await _compact(empty, provider)).error == "Nothing to compact (session too small)"
    store = long_session(tmp_path / "s")
    assert (await _compact(store, provider)).ok
    assert (await _compact(store, provider)).error == "Already compacted"
    store.append_message(user("more"))
    count = len(store.entries)
    # Everything since is within the kept recent tokens: nothing to summarise, so no call and no entry.
    nothing = await _compact(store, provider)
    assert nothing.error == (
        "Nothing to compact (session too small): every message is within the newest 300 tokens, which are "
        "kept word for word (compaction.keepRecentTokens)"
    )
    assert provider.calls == 1 and len(store.entries) == count
    for _ in range(3):
        store.append_message(user("word " * 400))
    count = len(store.entries)
    failed = await _compact(store, provider)
    assert failed.error == "Compaction failed: Summarisation failed: boom" and not failed.ok
    assert len(store.entries) == count


async def test_abort_cancels_without_writing(tmp_path: Path) -> None:
    store = long_session(tmp_path)
    count = len(store.entries)
    signal = AbortSignal()
    signal.abort()
    outcome = await _compact(store, ScriptedProvider([ScriptedReply(text="S")]), signal=signal)
    assert (outcome.error, outcome.cancelled) == ("Compaction cancelled", True)
    assert len(store.entries) == count


async def test_restore_brings_back_the_raw_context_and_survives_reopen(tmp_path: Path) -> None:
    store = long_session(tmp_path)
    before = store.build_context().messages
    outcome = await _compact(store, ScriptedProvider([ScriptedReply(text="S")]))
    assert outcome.entry_id is not None
    assert len(store.build_context().messages) < len(before)

    restored = restore_before(store, outcome.entry_id)
    compaction = store.get_entry(outcome.entry_id)
    assert compaction is not None and restored.restored_to == compaction.parent_id
    marker = store.get_entry(restored.leaf_id or "")
    assert isinstance(marker, CustomEntry) and marker.custom_type == RESTORE_CUSTOM_TYPE
    assert marker.data == {"compactionId": outcome.entry_id} and marker.parent_id == compaction.parent_id
    assert store.leaf_id == marker.id
    assert store.build_context().messages == before

    assert store.path is not None
    reopened = SessionStore.open(store.path)
    assert reopened.leaf_id == marker.id and reopened.build_context().messages == before
    next_entry = reopened.append_message(user("continue without compaction"))
    assert next_entry.parent_id == marker.id  # a new branch beside the compaction
    assert restore_before(store, "nope").error == "nope is not a compaction entry"
    assert restore_before(store, store.entries[3].id).error is not None


async def test_recompact_with_new_instructions(tmp_path: Path) -> None:
    store = long_session(tmp_path)
    provider = ScriptedProvider([ScriptedReply(text="first"), ScriptedReply(text="second")])
    first = await _compact(store, provider)
    assert first.entry_id is not None
    second = await recompact(
        store,
        first.entry_id,
        "keep the test names",
        model=MODEL,
        api_key=None,
        stream_fn=provider,
        settings=SMALL,
    )
    assert second.ok and second.entry_id != first.entry_id
    assert _prompt(provider, 1).endswith("Additional focus: keep the test names")
    assert "<previous-summary>" not in _prompt(provider, 1)  # the first compaction is off the branch
    branch_ids = [entry.id for entry in store.get_branch()]
    assert first.entry_id not in branch_ids and second.entry_id in branch_ids
    failing = await recompact(
        store, "zzz", None, model=MODEL, api_key=None, stream_fn=provider, settings=SMALL
    )
    assert failing.error == "zzz is not a compaction entry"


async def test_pins_are_carried_into_every_later_summary(tmp_path: Path) -> None:
    store = long_session(tmp_path)
    first_user = next(entry for entry in store.entries if isinstance(entry, MessageEntry))
    pin_message(store, first_user.id)
    pin_text(store, "number", "30s")
    pin_text(store, "path", "src/gone.py")
    unpin(store, Pin("path", "src/gone.py"))
    pins = [pin.text for pin in active_pins(store)]
    assert pins[1] == "30s" and pins[0].startswith("Turn 0: look at src/mod0.py") and len(pins) == 2

    provider = ScriptedProvider([ScriptedReply(text="## Goal\nG"), ScriptedReply(text="## Goal\nG2")])
    first = await _compact(store, provider)
    assert first.ok and first.pinned == pins
    assert "<pinned>\n- Turn 0" in _prompt(provider, 0)
    assert "## Pinned\n- Turn 0" in first.summary and "- 30s" in first.summary

    for turn in range(3):
        store.append_message(user(f"later {turn} " + "z" * 1200))
    second = await _compact(store, provider)
    assert second.ok
    prompt = _prompt(provider, 1)
    assert "<previous-summary>\n## Goal\nG\n\n## Pinned" in prompt and "<pinned>\n- Turn 0" in prompt
    assert "- 30s" in second.summary and "Turn 0: look at src/mod0.py" in second.summary


async def test_compacting_the_pi_fixture_sends_its_summary_as_previous(
    tmp_path: Path, pi_fixtures: Path
) -> None:
    path = tmp_path / "c.jsonl"
    shutil.copy(pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl", path)
    path.chmod(0o600)
    store = SessionStore.open(path)
    pi_summary = store.get_entry("25ab72d3")
    assert isinstance(pi_summary, CompactionEntry)
    settings = CompactionSettings(keep_recent_tokens=1000)
    preview = preview_for_store(store, PreviewBasis(settings))
    assert not isinstance(preview, str) and preview.first_kept_entry_id == "413e3f77"
    provider = ScriptedProvider([ScriptedReply(text="## Goal\nReview logs")])
    outcome = await compact_store(
        store, model=MODEL, api_key=None, stream_fn=provider, settings=settings, reason="manual"
    )
    assert outcome.ok
    assert f"<previous-summary>\n{pi_summary.summary}\n</previous-summary>" in _prompt(provider, 0)
    assert outcome.summary.endswith(
        "<read-files>\ndocs/errors.md\nnotes.txt\n</read-files>\n\n<modified-files>\nplan.md\nreport.md\n</modified-files>"
    )
    context = SessionStore.open(path).build_context()
    assert isinstance(context.messages[0], CompactionSummaryMessage)
    assert context.entry_ids[1:] == ["413e3f77", "11edc4f8"]


async def test_latest_compaction_time_on_the_branch(tmp_path: Path) -> None:
    store = long_session(tmp_path)
    assert latest_compaction_ms(store) is None
    outcome = await _compact(store, ScriptedProvider([ScriptedReply(text="S")]))
    entry = store.get_entry(outcome.entry_id or "")
    assert isinstance(entry, CompactionEntry)
    assert latest_compaction_ms(store) == iso_to_ms(entry.timestamp)
    restore_before(store, entry.id)
    assert latest_compaction_ms(store) is None
