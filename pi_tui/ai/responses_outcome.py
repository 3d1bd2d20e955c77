"""How a Responses API reply ends: the stop reason of its `status`, its usage, and the failure text
of a `response.failed` or `error` event, in pi's wording (the retry and overflow classifiers read it).

Pure functions of event JSON from a server we do not control: a field of an unexpected type counts as
absent, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_tui.ai.messages import ModelPrices, StopReason, Usage, compute_cost
from pi_tui.ai.openai_chunks import json_count, json_object, json_string

NO_ERROR_DETAILS = "Unknown error (no error details in response)"

_STATUSES: dict[str, StopReason] = {
    "completed": "stop",
    "incomplete": "length",
    "in_progress": "stop",
    "queued": "stop",
}


@dataclass(frozen=True)
class Failure:
    text: str
    code: str | None


def map_response_status(status: str | None) -> tuple[StopReason, str | None]:
    """pi's mapping of a finished response's `status`; failed, cancelled and unknown ones are errors."""
    if status is None:
        return "stop", None
    mapped = _STATUSES.get(status)
    if mapped is not None:
        return mapped, None
    return "error", f"Provider response status: {status}"


def usage_from_responses(raw: dict[str, Any], prices: ModelPrices) -> Usage:
    """`input_tokens` counts the cached ones too: pi-tui's `input` is the uncached rest, `cacheRead` the
    cached, so `input + cacheRead` is the prompt size as for Chat Completions."""
    prompt = json_count(raw.get("input_tokens"))
    cached = min(json_count(json_object(raw.get("input_tokens_details")).get("cached_tokens")), prompt)
    usage = Usage(input=prompt - cached, output=json_count(raw.get("output_tokens")), cache_read=cached)
    usage.total_tokens = json_count(raw.get("total_tokens")) or usage.input + usage.output + usage.cache_read
    usage.cost = compute_cost(usage, prices)
    return usage


def failed_response(response: dict[str, Any]) -> Failure:
    """The failure a `response.failed` event's response describes."""
    error = response.get("error")
    details = json_object(response.get("incomplete_details"))
    if isinstance(error, dict):
        code = json_string(error.get("code"))
        return Failure(f"{code or 'unknown'}: {json_string(error.get('message')) or 'no message'}", code)
    reason = json_string(details.get("reason"))
    if reason:
        return Failure(f"incomplete: {reason}", None)
    return Failure(NO_ERROR_DETAILS, None)


def error_event(event: dict[str, Any]) -> Failure:
    """The failure an `error` event describes (its fields at the top or under `error`)."""
    nested = json_object(event.get("error"))
    code = json_string(event.get("code")) or json_string(nested.get("code"))
    message = json_string(event.get("message")) or json_string(nested.get("message")) or "Unknown error"
    return Failure(f"Error Code {code}: {message}" if code else message, code)
