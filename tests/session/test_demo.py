"""The offline demo really exercises what it promises: tools on real files, a 200k-line output that
spills, a retry, and an automatic compaction that splits a turn."""

from __future__ import annotations

from pathlib import Path

from pi_tui.session.demo import create_demo
from pi_tui.session.session_events import AnyEvent
from pi_tui.session_file.entries import CompactionEntry, MessageEntry


async def test_demo_script_runs_end_to_end(tmp_path: Path) -> None:
    demo = create_demo(tmp_path)
    events: list[AnyEvent] = []
    demo.runtime.subscribe(events.append)

    for prompt in demo.prompts:
        await demo.runtime.session.prompt(prompt)

    kinds = [event.type for event in events]
    assert "auto_retry_start" in kinds and "auto_retry_end" in kinds
    assert kinds.count("compaction_end") == 1
    assert 'return f"Hello, {name}!"' in (demo.project / "greet.py").read_text()
    store = demo.runtime.session.store
    [compaction] = [entry for entry in store.entries if isinstance(entry, CompactionEntry)]
    assert "**Turn Context (split turn):**" in compaction.summary
    assert "<modified-files>\ngreet.py\n</modified-files>" in compaction.summary
    spilled = [
        entry.message.details
        for entry in store.entries
        if isinstance(entry, MessageEntry) and entry.message.role == "toolResult" and entry.message.details
    ]
    spill_paths = [
        Path(d["fullOutputPath"]) for d in spilled if isinstance(d, dict) and "fullOutputPath" in d
    ]
    assert spill_paths and spill_paths[0].read_text().splitlines()[-1] == "200000"
    assert demo.runtime.session.last_assistant_text().startswith("I changed one line")  # type: ignore[union-attr]
