"""A resumed conversation's transcript is the branch as it happened (`session.transcript`)."""

from __future__ import annotations

from pi_tui.ai.messages import AssistantMessage, CompactionSummaryMessage, TextContent, UserMessage
from pi_tui.session.compaction_sizes import AFTER_KEY, BEFORE_KEY, ShownSize
from pi_tui.session.transcript import branch_transcript
from pi_tui.session_file.store import SessionStore


def reply(text: str = "", *, error: str | None = None) -> AssistantMessage:
    if error is None:
        return AssistantMessage(content=[TextContent(text=text)])
    return AssistantMessage(stop_reason="error", error_message=error)


def test_retried_failures_and_the_history_before_a_compaction_stay_in_the_transcript() -> None:
    store = SessionStore.in_memory("/home/user/project")
    first = store.append_message(UserMessage(content="hello", timestamp=1))
    store.append_message(reply("hi"))
    failed = store.append_message(reply(error="503 Service Unavailable"))
    store.append_context_edit(failed.id)  # a retried attempt leaves the model's context, not the view
    store.append_message(reply("fine now"))
    store.append_compaction("summary", first.id, 900, details={BEFORE_KEY: 1_200, AFTER_KEY: 400})

    transcript = branch_transcript(store.get_branch())

    shown = [type(message).__name__ for message in transcript.messages]
    assert shown == [
        "UserMessage",
        "AssistantMessage",
        "AssistantMessage",
        "AssistantMessage",
        "CompactionSummaryMessage",
    ]
    summary = transcript.messages[-1]
    assert isinstance(summary, CompactionSummaryMessage)
    assert transcript.compaction_size(summary) == ShownSize(1_200, 400, "estimate")
    assert len(store.build_context().messages) < len(transcript.messages)


def test_a_compaction_pi_made_is_shown_with_pis_figure_alone() -> None:
    store = SessionStore.in_memory("/home/user/project")
    first = store.append_message(UserMessage(content="hello", timestamp=1))
    store.append_compaction("summary", first.id, 900)
    transcript = branch_transcript(store.get_branch())
    assert transcript.compaction_size(transcript.messages[-1]) == ShownSize(900, None, None)
