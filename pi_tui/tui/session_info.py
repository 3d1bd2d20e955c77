"""`/session` as a person reads it: labelled figures with thousands separators and a currency, the
current context's counts beside the whole session's totals that the footer shows, and the context size
the footer shows (one count, so the two never disagree)."""

from __future__ import annotations

from pi_tui.session.stats import SessionStats
from pi_tui.session_file.usage_totals import UsageTotals


def _count(number: int, noun: str) -> str:
    plural = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{number:,} {noun if number == 1 else plural}"


def _dollars(cost: float) -> str:
    return f"${cost:,.4f}" if cost else "$0"


def _tokens(input_tokens: int, output: int, cache_read: int, cache_write: int) -> str:
    total = input_tokens + output + cache_read + cache_write
    parts = [f"input {input_tokens:,}", f"output {output:,}"]
    if cache_read:
        parts.append(f"read from cache {cache_read:,}")
    if cache_write:
        parts.append(f"written to cache {cache_write:,}")
    return " · ".join(parts) + f" · total {total:,}"


def session_info_markdown(
    stats: SessionStats,
    totals: UsageTotals,
    context_tokens: int | None,
    window_source: str | None = None,
    *,
    estimated: bool = False,
    cache_line: str | None = None,
) -> str:
    """`context_tokens`: the footer's figure (None while it is being counted; `estimated`: an estimate)."""
    replies_count = _count(stats.assistant_messages, "reply")
    counts = (
        f"{stats.total_messages:,}: {stats.user_messages:,} from you, {replies_count}, "
        f"{_count(stats.tool_results, 'tool result')} ({_count(stats.tool_calls, 'tool call')})"
    )
    replies = _tokens(
        stats.input_tokens, stats.output_tokens, stats.cache_read_tokens, stats.cache_write_tokens
    )
    whole = _tokens(totals.input, totals.output, totals.cache_read, totals.cache_write)
    rows = [
        ("Session file", f"`{stats.session_file}`" if stats.session_file else "not saved yet"),
        ("Session id", f"`{stats.session_id}`"),
        ("Messages in the context", counts),
        ("Their replies' tokens", replies),
        ("Their replies' cost", _dollars(stats.cost)),
        ("Whole session (every branch, as in the footer)", f"{whole} · {_dollars(totals.cost)}"),
    ]
    usage = stats.context_usage
    if usage is not None:
        if context_tokens is None:
            size = f"being counted, of {usage.context_window:,} tokens"
        else:
            share = 100 * context_tokens / usage.context_window if usage.context_window else 0.0
            mark = "~" if estimated else ""
            size = f"{mark}{context_tokens:,} of {usage.context_window:,} tokens ({share:.1f}%)"
        source = window_source or usage.window_source
        rows.append(("Context", size + (f"; window: {source}" if source else "")))
    if cache_line is not None:
        rows.append(("Prompt cache", cache_line))
    # A list, not a table: the dialog's Markdown table squeezes the first column to a few letters.
    return "\n".join(f"- **{name}**: {value}" for name, value in rows)
