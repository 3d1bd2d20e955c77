"""A compaction summary through the real `openai` client against the loopback Chat Completions server."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.openai_provider import stream_openai
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.compaction.prompts import SUMMARIZATION_PROMPT, SUMMARIZATION_SYSTEM_PROMPT
from pi_tui.session.compaction_ops import compact_store
from pi_tui.session_file.entries import CompactionEntry
from tests.context.compaction.session_support import SMALL, long_session, user
from tests.support.openai_server import ErrorReply, OpenAIServer, text_reply


async def test_summary_request_and_reply_over_http(tmp_path: Path) -> None:
    server = OpenAIServer()
    await server.start()
    try:
        server.enqueue(text_reply("## Goal\nFrom the server", pieces=4))
        model = ModelConfig(id="test-model", provider="local", base_url=server.base_url, reasoning=False)
        store = long_session(tmp_path)
        outcome = await compact_store(
            store, model=model, api_key="sk-test", stream_fn=stream_openai, settings=SMALL
        )
        assert outcome.ok, outcome.error
        assert outcome.summary.startswith("## Goal\nFrom the server\n\n<read-files>")
        assert outcome.usage[0].input == 10 and outcome.usage[0].output == 5
        body = server.requests[0].body
        assert server.requests[0].headers["authorization"] == "Bearer sk-test"
        # pi 1.6: the model's own output limit (32,000 here, room permitting), not 0.8 x reserveTokens.
        assert (
            body["max_completion_tokens"] == model.max_tokens
            and "tools" not in body
            and body["stream"] is True
        )
        system, request = body["messages"]
        assert system == {"role": "system", "content": SUMMARIZATION_SYSTEM_PROMPT}
        text = request["content"] if isinstance(request["content"], str) else request["content"][0]["text"]
        assert text.startswith("<conversation>\n[User]: Turn 0:") and text.endswith(SUMMARIZATION_PROMPT)
        entry = store.get_entry(outcome.entry_id or "")
        assert isinstance(entry, CompactionEntry) and entry.details["model"] == "local/test-model"

        server.enqueue(ErrorReply(400, {"error": {"message": "upstream exploded"}}))
        store.append_message(user("one more question " + "q" * 1400))
        failed = await compact_store(
            store, model=model.model_copy(update={"id": "m2"}), api_key=None, stream_fn=stream_openai,
            settings=SMALL,
        )  # fmt: skip
        assert failed.error is not None and failed.error.startswith(
            "Compaction failed: Summarisation failed:"
        )
        assert "upstream exploded" in failed.error
    finally:
        await server.stop()


async def test_a_summary_never_asks_for_more_than_the_model_can_write(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """The summary asks for the model's own output limit: a model listed with maxTokens 512 gets 512."""
    openai_server.enqueue(text_reply("## Goal\nShort"))
    model = ModelConfig(id="small-model", provider="local", base_url=openai_server.base_url, max_tokens=512)
    outcome = await compact_store(
        long_session(tmp_path), model=model, api_key="sk-test", stream_fn=stream_openai, settings=SMALL
    )
    assert outcome.ok, outcome.error
    assert openai_server.requests[0].body["max_completion_tokens"] == 512
