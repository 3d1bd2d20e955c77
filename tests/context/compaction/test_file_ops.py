"""File-operation tracking and the tags appended to summaries."""

from __future__ import annotations

from pi_tui.ai.messages import AssistantMessage, ToolCall, UserMessage
from pi_tui.context.compaction.file_ops import FileOps, format_file_operations


def _calls(*calls: tuple[str, dict[str, object]]) -> AssistantMessage:
    return AssistantMessage(
        content=[ToolCall(id=str(n), name=name, arguments=dict(args)) for n, (name, args) in enumerate(calls)]
    )


def test_only_read_write_edit_with_a_string_path_count() -> None:
    ops = FileOps()
    ops.add_messages(
        [
            _calls(
                ("read", {"path": "b.txt"}),
                ("read", {"path": "a.txt"}),
                ("write", {"path": "new.py"}),
                ("edit", {"path": "b.txt"}),
                ("bash", {"path": "ignored.sh", "command": "ls"}),
                ("read", {"path": 5}),
                ("read", {"path": ""}),
            ),
            UserMessage(content="read z.txt", timestamp=0),
        ]
    )
    assert ops.lists() == (["a.txt"], ["b.txt", "new.py"])


def test_previous_details_are_cumulative_and_sorted_by_code_units() -> None:
    ops = FileOps()
    ops.add_details({"readFiles": ["Z.md", "a.md", 3], "modifiedFiles": ["x.py"]})
    ops.add_details("not a dict")
    ops.add_message(_calls(("read", {"path": "x.py"}), ("read", {"path": "B.md"})))
    assert ops.lists() == (["B.md", "Z.md", "a.md"], ["x.py"])


def test_format_matches_pi() -> None:
    assert format_file_operations([], []) == ""
    assert format_file_operations(["a", "b"], []) == "\n\n<read-files>\na\nb\n</read-files>"
    assert format_file_operations(["a"], ["m"]) == (
        "\n\n<read-files>\na\n</read-files>\n\n<modified-files>\nm\n</modified-files>"
    )
