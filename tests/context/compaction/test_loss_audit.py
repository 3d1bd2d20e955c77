"""The loss audit: deterministic extraction from the summarised span and survival in the summary."""

from __future__ import annotations

from pi_tui.context.compaction import loss_audit
from pi_tui.context.compaction.loss_audit import audit_span, error_lines, numbers_in, paths_in
from pi_tui.context.compaction.preparation import SpanMessage, span_messages
from tests.context.compaction.items import assistant, bash_run, tool_result, user


def test_path_extraction_rules() -> None:
    text = (
        "Edit src/pi_tui/cli.py and ./run.sh, see /var/lib/widget and ~/x/y, plan.md, "
        "and/or I/O, INFO/DEBUG/WARN, v1.2.3, https://example.com/a/b.py, notes.txt."
    )
    assert list(paths_in(text)) == [
        "src/pi_tui/cli.py",
        "./run.sh",
        "/var/lib/widget",
        "~/x/y",
        "plan.md",
        "notes.txt",
    ]


def test_numbers_need_a_unit_or_a_port() -> None:
    text = "used 512 MB in 30s (95%), 1.5GB, port 8080, localhost:3000, at 10:41 on 2025-03-04, request 700"
    assert list(numbers_in(text)) == ["512 MB", "30s", "95%", "1.5GB", "port 8080", "localhost:3000"]


def test_error_lines() -> None:
    text = "ok\nTraceback (most recent call last):\nValueError: bad\nno errors here\nbuild failed\n"
    assert list(error_lines(text)) == [
        "Traceback (most recent call last):",
        "ValueError: bad",
        "build failed",
    ]


def _span() -> list[SpanMessage]:
    items = [
        user("u1", "Deploy with 512 MB to /srv/app; keep port 8080"),
        assistant(
            "a1", "Running it.", [("bash", {"command": "make deploy"}), ("read", {"path": "cfg.toml"})]
        ),
        tool_result("t1", "make: *** [deploy] Error 2\nfatal: no space left", is_error=True),
        tool_result("t2", "# Error codes\nE1: bad", name="read"),
        bash_run("b1", "df -h", "Filesystem 100% full"),
        assistant("a2", "Retrying", [("bash", {"command": "make deploy"})]),
    ]
    return span_messages(items, 0, len(items))


def test_items_kinds_counts_sources_and_survival() -> None:
    summary = "Deploy failed: `make: *** [deploy] Error 2`. Uses 512MB at /srv/app, cfg.toml read. PORT 8080."
    audit = audit_span(_span(), summary)
    found = {(item.kind, item.text): item for item in audit.items}
    assert found[("command", "make deploy")].count == 2
    assert found[("command", "make deploy")].entry_id == "a2"  # the most recent source
    assert not found[("command", "make deploy")].survives
    assert found[("command", "df -h")].entry_id == "b1"
    assert found[("error", "make: *** [deploy] Error 2")].survives  # exact
    assert not found[("error", "fatal: no space left")].survives
    assert ("error", "# Error codes") not in found  # read results are file contents
    assert found[("number", "512 MB")].survives  # normalised: whitespace dropped
    assert found[("number", "port 8080")].survives  # normalised: case folded
    assert found[("number", "100%")].survives is False
    assert found[("path", "/srv/app")].survives and found[("path", "cfg.toml")].survives
    assert audit.items[0].kind == "path"
    counts = audit.counts()
    assert counts["command"] == {"found": 2, "listed": 2, "missing": 2}
    assert sum(c["missing"] for c in counts.values()) == len(audit.missing)


def test_survival_needs_word_boundaries_after_normalising() -> None:
    audit = audit_span(span_messages([user("u", "wait 30s")], 0, 1), "wait 130s")
    assert [item.survives for item in audit.items] == [False]


def test_output_is_capped_per_kind_most_frequent_first() -> None:
    items = [user(f"u{n}", f"file{n}.py " * (n + 1)) for n in range(30)]
    audit = audit_span(span_messages(items, 0, 30), "", max_per_kind=5)
    assert [item.text for item in audit.items] == [f"file{n}.py" for n in (29, 28, 27, 26, 25)]
    assert audit.totals["path"] == 30
    assert audit.counts()["path"] == {"found": 30, "listed": 5, "missing": 5}


def test_a_huge_span_is_read_newest_first_up_to_the_character_bound() -> None:
    items = [user(f"u{n}", f"{'x' * 90} step{n}.py") for n in range(10)]
    audit = audit_span(span_messages(items, 0, 10), "", max_chars=250)
    assert (audit.span_messages, audit.scanned_messages) == (10, 3)
    assert [item.text for item in audit.items] == ["step9.py", "step8.py", "step7.py"]
    assert audit.to_json_obj()["scannedMessages"] == 3


def test_test_runner_noise_is_not_audited() -> None:
    """A failing pytest run: its progress line, progress percentage and run time are not facts a summary
    must keep; the failure itself and the real sizes are."""
    output = (
        "F.                                                                       [100%]\n"
        "FAILED tests/test_greet.py::test_greet - AssertionError: 'Hello Ada' != 'Hello, Ada!'\n"
        "1 failed, 1 passed in 0.63s\n"
        "wrote 512 MB in 12 s; coverage 87% [ 50%]"
    )
    assert numbers_in(output) == ["512 MB", "12 s", "87%"]
    span = span_messages([tool_result("r1", output, is_error=True, name="bash")], 0, 1)
    errors = [item.text for item in audit_span(span, "").items if item.kind == "error"]
    assert not any(error.startswith("F.") for error in errors)
    assert errors[0].startswith("FAILED tests/test_greet.py::test_greet - AssertionError")
    assert "1 failed, 1 passed in 0.63s" in errors


def _seq_span() -> list[SpanMessage]:
    """`seq 1 100000` as the bash tool returns it (the tail and pi's truncation notice), a copy loop
    logging a line per file and a ticker the user aborted."""
    seq_tail = "\n".join(str(n) for n in range(98002, 100001))
    copy_log = "\n".join(f"copied {n} files, {4 * n} KB" for n in range(1, 501))
    items = [
        user("u1", "Run seq 1 100000, then copy the fixtures and start the ticker."),
        assistant("a1", "", [("bash", {"command": "seq 1 100000"})]),
        tool_result(
            "t1", f"{seq_tail}\n\n[Showing lines 98002-100001 of 100001. Full output: /tmp/pi-1.log]"
        ),
        assistant("a2", "", [("bash", {"command": "sh copy.sh"})]),
        tool_result("t2", copy_log),
        assistant("a3", "", [("bash", {"command": "sh tick.sh"})]),
        tool_result("t3", "tick 1\ntick 2\ntick 3\n\nCommand aborted", is_error=True),
        assistant("a4", "The copy finished; the ticker was stopped."),
    ]
    return span_messages(items, 0, len(items))


def test_bulk_command_output_does_not_flood_the_audit() -> None:
    """Lines of `seq`, a per-file log and a ticker are no facts: only the commands are audited."""
    audit = audit_span(_seq_span(), "Ran `seq 1 100000` (output truncated) and copied the fixtures.")
    assert [(item.kind, item.text) for item in audit.missing] == [
        ("command", "sh tick.sh"),
        ("command", "sh copy.sh"),
    ]
    assert audit.counts()["number"]["found"] == 0
    assert audit.counts()["error"]["found"] == 0


def test_an_error_among_bulk_output_is_still_audited() -> None:
    progress = "\n".join(f"step {n}: 12 MB" for n in range(1, 301))
    failure = 'Traceback (most recent call last):\n  File "src/app.py", line 3\nValueError: bad config'
    items = [
        user("u1", "Load config/app.toml"),
        tool_result("t1", f"{progress}\n{failure}\n\nCommand exited with code 1", is_error=True),
    ]
    audit = audit_span(span_messages(items, 0, 2), "The load failed with exit code 1.")
    errors = {item.text: item.survives for item in audit.items if item.kind == "error"}
    assert errors == {
        "Traceback (most recent call last):": False,
        "ValueError: bad config": False,
        "Command exited with code 1": True,  # the summary names the same exit code
    }
    assert [item.text for item in audit.missing if item.kind == "path"] == ["config/app.toml"]
    assert audit.counts()["number"]["found"] == 0  # the progress lines


def test_a_few_items_per_tool_result_the_last_ones_first() -> None:
    failures = "\n".join(f"FAILED tests/test_{name}.py::test_{name} - AssertionError" for name in "abcdefgh")
    span = span_messages([tool_result("t1", f"{failures}\n8 failed, 2 passed in 1.20s")], 0, 1)
    errors = [item.text for item in audit_span(span, "").items]
    assert len(errors) == loss_audit.MAX_ITEMS_PER_OUTPUT
    assert errors[-2:] == ["FAILED tests/test_h.py::test_h - AssertionError", "8 failed, 2 passed in 1.20s"]


def test_an_item_is_one_line_cut_with_an_ellipsis() -> None:
    command = "for i in 1 2 3; do\n\techo tick $i\r\ndone\u2028"
    long_error = "error: " + "x" * 300
    items = [
        assistant("a1", "", [("bash", {"command": command})]),
        tool_result("t1", f"\x1b[31mfatal:\x1b[0m disk\tfull\n{long_error}", name="grep"),
    ]
    audit = audit_span(
        span_messages(items, 0, 2), f"Ran `for i in 1 2 3; do echo tick $i done`. {long_error}"
    )
    texts = {item.text: item.survives for item in audit.items}
    cut = long_error[: loss_audit.MAX_ITEM_CHARS - 1] + "…"
    assert texts == {"for i in 1 2 3; do echo tick $i done": True, "fatal: disk full": False, cut: True}
    assert all(len(text) <= loss_audit.MAX_ITEM_CHARS and text.isprintable() for text in texts)


def test_a_line_naming_a_word_or_a_number_is_no_error() -> None:
    output = (
        "tick 1\nError handling is documented in docs/errors.md\n0 failed, 12 passed in 0.20s\n"
        "ValueError: bad\nls: cannot access 'x': No such file or directory\nCommand exited with code 2"
    )
    assert error_lines(output) == [
        "ValueError: bad",
        "ls: cannot access 'x': No such file or directory",
        "Command exited with code 2",
    ]
    # an aborted bash run: its first line is the command's output, not an error
    span = span_messages([tool_result("t1", "tick 1\ntick 2\n\nCommand aborted", is_error=True)], 0, 1)
    assert [item for item in audit_span(span, "").items if item.kind == "error"] == []
    # a failed edit: its first line is the tool's own error message
    span = span_messages(
        [tool_result("t1", "Could not find the text in a.py.", name="edit", is_error=True)], 0, 1
    )
    assert [item.text for item in audit_span(span, "").items if item.kind == "error"] == [
        "Could not find the text in a.py."
    ]


def test_a_long_listing_gives_a_few_numbers_the_last_ones() -> None:
    listing = "\n".join(
        f"-rw-r--r-- 1 ada staff {n}.5K Dec  3 12:00 file_{chr(97 + n)}.txt" for n in range(9)
    )
    span = span_messages([tool_result("t1", f"total 48K\n{listing}")], 0, 1)
    numbers = [item.text for item in audit_span(span, "").items if item.kind == "number"]
    assert sorted(numbers) == ["7.5K", "8.5K"]
